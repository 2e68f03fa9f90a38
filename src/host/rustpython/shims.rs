//! Python-side shims compiled into the binary and installed into `sys.modules` when the
//! interpreter starts: the `tangent` package and the `numpy` wrapper over the native
//! array module.

use rustpython_vm::{
    builtins::{PyBytes, PyCode},
    compiler::Mode,
    PyRef, PyResult, VirtualMachine,
};

/// The interpreter's part of the bytecode cache key: RustPython's code objects are its
/// own (the engine fingerprint in the key covers the RustPython version built in).
const BYTECODE_TAG: &[u8] = b"rustpython";

pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    let modules = vm.sys_module.get_attr("modules", vm)?;
    for (name, source) in crate::numpy::SHIMS.iter().chain(crate::host::SHIMS) {
        let dict = vm.ctx.new_dict();
        dict.set_item("__name__", vm.ctx.new_str(*name).into(), vm)?;
        let module = vm.new_module(name, dict.clone(), None);
        modules.set_item(*name, module.clone().into(), vm)?;
        let code = shim_code(vm, name, source)?;
        let scope = rustpython_vm::scope::Scope::with_builtins(None, dict, vm);
        vm.run_code_obj(code, scope)?;
        if let Some((parent, child)) = name.rsplit_once('.') {
            let parent = modules.get_item(parent, vm)?;
            parent.set_attr(child, module, vm)?;
        }
    }
    Ok(())
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
