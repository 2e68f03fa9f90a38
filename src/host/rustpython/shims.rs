//! Python-side shims compiled into the binary and installed into `sys.modules` when the
//! interpreter starts: the `tangent` package and the `numpy` wrapper over the native
//! array module.

use rustpython_vm::{compiler::Mode, PyResult, VirtualMachine};

pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    let modules = vm.sys_module.get_attr("modules", vm)?;
    for (name, source) in crate::numpy::SHIMS.iter().chain(crate::host::SHIMS) {
        let dict = vm.ctx.new_dict();
        dict.set_item("__name__", vm.ctx.new_str(*name).into(), vm)?;
        let module = vm.new_module(name, dict.clone(), None);
        modules.set_item(*name, module.clone().into(), vm)?;
        let path = format!("<tangent shim {name}>");
        let code = vm
            .compile(source, Mode::Exec, path)
            .map_err(|err| vm.new_syntax_error(&err, Some(source)))?;
        let scope = rustpython_vm::scope::Scope::with_builtins(None, dict, vm);
        vm.run_code_obj(code, scope)?;
        if let Some((parent, child)) = name.rsplit_once('.') {
            let parent = modules.get_item(parent, vm)?;
            parent.set_attr(child, module, vm)?;
        }
    }
    Ok(())
}
