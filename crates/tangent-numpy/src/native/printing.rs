//! NumPy's print options (`set_printoptions`/`get_printoptions`, the Python layer's
//! `printoptions` context and `array2string`): the thread's `format::PrintOptions`.

#[rustpython_vm::pymodule(sub)]
pub(crate) mod _printing {
    use crate::format::{self, PrintOptions};
    use crate::native::prelude::*;

    /// Sets the thread's options from NumPy's names (checked by the Python layer);
    /// returns the old ones as `_get_printoptions` does.
    #[allow(clippy::too_many_arguments)] // one argument per option, as NumPy names them
    #[pyfunction]
    fn _set_printoptions(
        precision: usize,
        threshold: usize,
        edgeitems: usize,
        linewidth: usize,
        suppress: bool,
        nanstr: String,
        infstr: String,
        vm: &VirtualMachine,
    ) -> PyObjectRef {
        let old = format::set_options(PrintOptions {
            precision,
            threshold,
            edgeitems,
            linewidth,
            suppress,
            nanstr,
            infstr,
        });
        as_tuple(&old, vm)
    }

    /// The thread's options: (precision, threshold, edgeitems, linewidth, suppress,
    /// nanstr, infstr).
    #[pyfunction]
    fn _get_printoptions(vm: &VirtualMachine) -> PyObjectRef {
        as_tuple(&format::options(), vm)
    }

    fn as_tuple(o: &PrintOptions, vm: &VirtualMachine) -> PyObjectRef {
        vm.ctx
            .new_tuple(vec![
                vm.ctx.new_int(o.precision).into(),
                vm.ctx.new_int(o.threshold).into(),
                vm.ctx.new_int(o.edgeitems).into(),
                vm.ctx.new_int(o.linewidth).into(),
                vm.ctx.new_bool(o.suppress).into(),
                vm.ctx.new_str(o.nanstr.as_str()).into(),
                vm.ctx.new_str(o.infstr.as_str()).into(),
            ])
            .into()
    }

    /// The text of an array's elements as `str` and `repr` lay them out: `separator`
    /// between elements, lines wrapped after `prefix` (whose width the continuation
    /// lines are indented by) and before `suffix`.
    #[pyfunction]
    fn _array2string(
        a: PyRef<PyNdArray>,
        separator: String,
        prefix: String,
        suffix: String,
    ) -> String {
        if let ElemView::I64(v) = a.read_typed().typed() {
            return format::array2string(&v, a.dtype, &separator, &prefix, &suffix);
        }
        let g = a.read();
        format::array2string(&g.view(), a.dtype, &separator, &prefix, &suffix)
    }
}
