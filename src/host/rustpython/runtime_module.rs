//! `_tangent`: the native half of the `tangent` Python package. It exposes the
//! transformer (source in, source out) to Python; the Python half (`stdlib-shims/tangent`)
//! gathers the function's file and name and executes the result.

#[rustpython_vm::pymodule]
pub(crate) mod _tangent {
    use crate::ad::GradOptions;
    use rustpython_vm::{
        builtins::PyTupleRef, function::ArgSequence, PyObjectRef, PyResult, VirtualMachine,
    };

    #[pyattr]
    const VERSION: &str = env!("CARGO_PKG_VERSION");

    /// grad_source(filename, funcname, wrt, optimized, preserve_result, check_dims)
    ///   -> (True, source, entry) or (False, message, "")
    #[pyfunction]
    fn grad_source(
        filename: String,
        funcname: String,
        wrt: ArgSequence<usize>,
        optimized: bool,
        preserve_result: bool,
        check_dims: bool,
        vm: &VirtualMachine,
    ) -> PyResult<PyTupleRef> {
        let opts = GradOptions {
            wrt: wrt.into_vec(),
            optimized,
            preserve_result,
            check_dims,
        };
        let result = crate::api::grad_file(&filename, &funcname, &opts);
        let items: Vec<PyObjectRef> = match result {
            Ok(g) => vec![
                vm.ctx.new_bool(true).into(),
                vm.ctx.new_str(g.source).into(),
                vm.ctx.new_str(g.entry).into(),
            ],
            Err(e) => vec![
                vm.ctx.new_bool(false).into(),
                vm.ctx.new_str(e).into(),
                vm.ctx.new_str("").into(),
            ],
        };
        Ok(vm.ctx.new_tuple(items))
    }
}
