//! Python-side shims compiled into the binary and installed into `sys.modules` when the
//! interpreter starts: the embedded interpreter's patches of RustPython's standard
//! library (`compat.py`), the `tangent` package and the `numpy` wrapper over the native
//! array module.

use rustpython_vm::{
    builtins::{PyBytes, PyCode, PyModule, PyStr, PyType},
    compiler::Mode,
    types::PyTypeSlots,
    Py, PyObject, PyRef, PyResult, VirtualMachine,
};

/// The interpreter's part of the bytecode cache key: RustPython's code objects are its
/// own (the engine fingerprint in the key covers the RustPython version built in).
const BYTECODE_TAG: &[u8] = b"rustpython";

/// The embedded interpreter's own patches of RustPython's standard library (run first).
pub const COMPAT: &[(&str, &str)] = &[("_tangent_compat", include_str!("compat.py"))];

pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    let modules = vm.sys_module.get_attr("modules", vm)?;
    let module_class = shim_module_class(vm);
    let new_module = |name: &str, dict: rustpython_vm::builtins::PyDictRef| {
        let module = PyRef::new_ref(PyModule::new(), module_class.clone(), Some(dict.clone()));
        for key in ["__doc__", "__loader__", "__spec__"] {
            dict.set_item(key, vm.ctx.none(), vm)?;
        }
        dict.set_item("__name__", vm.ctx.new_str(name).into(), vm)?;
        PyResult::Ok(module)
    };
    let shims = COMPAT
        .iter()
        .chain(crate::numpy::SHIMS)
        .chain(crate::host::SHIMS);
    for (name, source) in shims {
        // A package's submodules come before its `__init__` (`host::SHIMS`): the package
        // module is created with the first of them and reused for the `__init__`.
        let parent = name.rsplit_once('.').map(|(parent, _)| parent);
        if let Some(parent) = parent {
            if modules.get_item(parent, vm).is_err() {
                let dict = vm.ctx.new_dict();
                dict.set_item("__name__", vm.ctx.new_str(parent).into(), vm)?;
                dict.set_item("__package__", vm.ctx.new_str(parent).into(), vm)?;
                dict.set_item("__path__", vm.ctx.new_list(vec![]).into(), vm)?;
                let package = new_module(parent, dict)?;
                modules.set_item(parent, package.into(), vm)?;
            }
        }
        let (module, dict) = match modules.get_item(*name, vm) {
            Ok(existing) => {
                let dict = existing
                    .get_attr("__dict__", vm)?
                    .downcast::<rustpython_vm::builtins::PyDict>()
                    .map_err(|_| vm.new_type_error("module without a dict"))?;
                (existing, dict)
            }
            Err(_) => {
                let dict = vm.ctx.new_dict();
                dict.set_item("__name__", vm.ctx.new_str(*name).into(), vm)?;
                let package = parent.unwrap_or("");
                dict.set_item("__package__", vm.ctx.new_str(package).into(), vm)?;
                let module: rustpython_vm::PyObjectRef = new_module(name, dict.clone())?.into();
                modules.set_item(*name, module.clone(), vm)?;
                (module, dict)
            }
        };
        if let Some((parent, child)) = name.rsplit_once('.') {
            let parent = modules.get_item(parent, vm)?;
            parent.set_attr(child, module, vm)?;
        }
        let code = shim_code(vm, name, source)?;
        let scope = rustpython_vm::scope::Scope::with_builtins(None, dict, vm);
        vm.run_code_obj(code, scope)?;
    }
    Ok(())
}

/// The class of the shims' modules (`numpy`, its submodules, `tangent`, ...): a
/// `module` whose attribute reads look in the module's dict first. RustPython's module
/// lookup searches the module type's MRO before the dict on every read (about 0.2 us of
/// each `np.f(...)` call); a name that is not a dunder cannot be one of the type's
/// descriptors, so the dict's value is what the general lookup would give.
fn shim_module_class(vm: &VirtualMachine) -> PyRef<PyType> {
    let class = vm.ctx.new_class(
        Some("builtins"),
        "module",
        vm.ctx.types.module_type.to_owned(),
        PyTypeSlots::heap_default(),
    );
    class.slots.getattro.store(Some(module_getattro));
    class
}

fn module_getattro(obj: &PyObject, name: &Py<PyStr>, vm: &VirtualMachine) -> PyResult {
    if !name.as_wtf8().as_bytes().starts_with(b"__") {
        if let Some(value) = obj
            .dict()
            .and_then(|d| d.get_item_opt(name, vm).ok().flatten())
        {
            return Ok(value);
        }
    }
    match obj.downcast_ref::<PyModule>() {
        Some(module) => module.get_attr(name, vm),
        None => obj.generic_getattr(name, vm),
    }
}

/// A shim's code object: compiling the shims is about half of the interpreter's start-up
/// (~35 ms), so their bytecode is kept in the disk cache (`crate::cache::Kind::Bytecode`,
/// authenticated like every entry) and compiled only when missing, damaged or forged.
fn shim_code(vm: &VirtualMachine, name: &str, source: &str) -> PyResult<PyRef<PyCode>> {
    use crate::cache::Kind;
    let entry = crate::cache::bytecode_name(BYTECODE_TAG, name, source);
    let marshal = vm.import("marshal", 0)?;
    if let Some(body) = crate::cache::read(Kind::Bytecode, &entry) {
        let loaded = vm.call_method(&marshal, "loads", (vm.ctx.new_bytes(body),));
        if let Ok(code) = loaded.and_then(|c| {
            c.downcast::<PyCode>()
                .map_err(|_| vm.new_type_error("not code"))
        }) {
            return Ok(code);
        }
    }
    let code = vm
        .compile(source, Mode::Exec, format!("<tangent shim {name}>"))
        .map_err(|err| vm.new_syntax_error(&err, Some(source)))?;
    if crate::cache::enabled() {
        if let Ok(body) = vm.call_method(&marshal, "dumps", (code.clone(),)) {
            if let Some(bytes) = body.downcast_ref::<PyBytes>() {
                crate::cache::write(Kind::Bytecode, &entry, bytes.as_bytes());
            }
        }
    }
    Ok(code)
}
