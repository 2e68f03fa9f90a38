//! `_tangent`: the native half of the `tangent` Python package. It exposes the
//! transformer (source in, source out) to Python; the Python half (`stdlib-shims/tangent`)
//! gathers the function's file and name and executes the result.

#[rustpython_vm::pymodule(with(super::fast_helper::_fast_helper))]
pub(crate) mod _tangent {
    use rustpython_vm::{
        builtins::{PyList, PyListRef, PyTupleRef},
        function::OptionalArg,
        PyObjectRef, PyResult, VirtualMachine,
    };

    /// ask(request) -> answer: the `tangent` package's requests (a derivative, an
    /// explanation, a rule to register) and their answers, dicts whose fields
    /// `crate::seam` defines and checks.
    #[pyfunction]
    fn ask(request: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        let request = super::super::seam_values::to_json(&request, vm)?;
        let answer = crate::seam::ask(request);
        Ok(super::super::seam_values::from_json(&answer, vm))
    }

    /// jit(request, fallback, on_refusal) -> (native function or None, None or why the
    /// generated function is not compiled); `request`'s fields are `seam::JitRequest`'s.
    /// The native function runs `fallback` (the interpreted adjoint) wherever it does
    /// not run natively. The check compiles the likely signature (see `Program::check`).
    #[pyfunction]
    fn jit(
        request: PyObjectRef,
        fallback: PyObjectRef,
        on_refusal: PyObjectRef,
        vm: &VirtualMachine,
    ) -> PyResult<PyTupleRef> {
        let request = super::super::seam_values::to_json(&request, vm)?;
        let r = crate::seam::jit_request(request).map_err(|e| vm.new_value_error(e.to_string()))?;
        let entry = match crate::jit::NativeEntry::prepare(&r.source, &r.entry, &r.module_file) {
            Ok(e) => e,
            Err(why) => {
                return Ok(vm
                    .ctx
                    .new_tuple(vec![vm.ctx.none(), vm.ctx.new_str(why).into()]))
            }
        };
        let f = super::super::native_fn::PyNativeFunction {
            entry,
            fallback,
            strict: r.strict,
            on_refusal: (!vm.is_none(&on_refusal)).then_some(on_refusal),
            key_orders: Default::default(),
        };
        Ok(vm.ctx.new_tuple(vec![f.into_object(vm), vm.ctx.none()]))
    }

    /// `push(stack, value, op_id=None)`'s arguments, by position or keyword.
    #[derive(rustpython_vm::FromArgs)]
    struct PushArgs {
        #[pyarg(any)]
        stack: PyListRef,
        #[pyarg(any)]
        value: PyObjectRef,
        #[pyarg(any, optional)]
        op_id: OptionalArg<PyObjectRef>,
    }

    /// The tape's push: appends to the stack (a `tangent.Stack`, a list) natively.
    #[pyfunction]
    fn push(args: PushArgs, vm: &VirtualMachine) -> PyResult<()> {
        // Google Tangent's `push(stack, x, op_id)`, which saves a copy of a list or array
        let value = if args.op_id.is_present() {
            google_copy(args.value, vm)?
        } else {
            args.value
        };
        args.stack.borrow_vec_mut().push(value);
        Ok(())
    }

    fn google_copy(value: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        if let Some(list) = value.downcast_ref::<PyList>() {
            return Ok(vm.ctx.new_list(list.borrow_vec().to_vec()).into());
        }
        if value.class().name().to_string() == "ndarray" {
            return vm.call_method(&value, "copy", ());
        }
        Ok(value)
    }

    /// `pop(stack, op_id=None)`'s arguments, by position or keyword.
    #[derive(rustpython_vm::FromArgs)]
    struct PopArgs {
        #[pyarg(any)]
        stack: PyListRef,
        #[pyarg(any, optional, name = "_op_id")]
        _op_id: OptionalArg<PyObjectRef>,
    }

    /// The tape's pop.
    #[pyfunction]
    fn pop(args: PopArgs, vm: &VirtualMachine) -> PyResult {
        args.stack.borrow_vec_mut().pop().ok_or_else(|| {
            vm.new_index_error(
                "tangent: pop from an empty tape: the backward pass read more values than the forward pass saved (this is a bug in tangent, please report it)",
            )
        })
    }

    #[pyattr]
    const VERSION: &str = env!("CARGO_PKG_VERSION");

    /// rule_names() -> the canonical names the rule set in force knows.
    #[pyfunction]
    fn rule_names(vm: &VirtualMachine) -> PyListRef {
        let names = crate::engine::rule_names();
        vm.ctx.new_list(
            names
                .into_iter()
                .map(|n| vm.ctx.new_str(n).into())
                .collect(),
        )
    }

    /// array_attribute_names() -> the array attributes the rules declare (`T`, `shape`).
    #[pyfunction]
    fn array_attribute_names(vm: &VirtualMachine) -> PyListRef {
        let names = crate::engine::array_attribute_names();
        vm.ctx.new_list(
            names
                .into_iter()
                .map(|n| vm.ctx.new_str(n).into())
                .collect(),
        )
    }

    /// free_names(source) -> the global names generated source reads.
    #[pyfunction]
    fn free_names(source: String, vm: &VirtualMachine) -> PyResult<PyListRef> {
        let names =
            crate::engine::free_names(&source).map_err(|e| vm.new_value_error(e.to_string()))?;
        Ok(vm.ctx.new_list(
            names
                .into_iter()
                .map(|n| vm.ctx.new_str(n).into())
                .collect(),
        ))
    }

    /// cache_clear() -> the number of derivative entries removed from the disk cache
    #[pyfunction]
    fn cache_clear(vm: &VirtualMachine) -> PyResult<usize> {
        crate::cache::clear().map_err(|e| vm.new_os_error(e))
    }

    /// cache_info() -> (directory or None, entries, bytes)
    #[pyfunction]
    fn cache_info(vm: &VirtualMachine) -> PyTupleRef {
        let dir: PyObjectRef = match crate::cache::dir() {
            Some(d) => vm.ctx.new_str(d.to_string_lossy().into_owned()).into(),
            None => vm.ctx.none(),
        };
        let (n, bytes) = crate::cache::size();
        vm.ctx.new_tuple(vec![
            dir,
            vm.ctx.new_int(n).into(),
            vm.ctx.new_int(bytes).into(),
        ])
    }
}
