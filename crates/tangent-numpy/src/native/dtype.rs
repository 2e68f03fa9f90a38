//! The `numpy.dtype` type.

pub(crate) use self::_dtype::*;

#[rustpython_vm::pymodule(sub)]
pub(crate) mod _dtype {
    /// The message of every refusal of complex numbers (also for the shim's types).
    #[pyfunction]
    pub(crate) fn _complex_unsupported() -> &'static str {
        crate::core::COMPLEX_UNSUPPORTED
    }

    use crate::native::prelude::*;
    #[pyattr]
    #[pyclass(module = "numpy", name = "dtype")]
    #[derive(Debug, PyPayload)]
    pub struct PyDType {
        pub(crate) dt: DType,
    }

    impl Constructor for PyDType {
        type Args = (PyObjectRef,);
        fn py_new(_cls: &Py<PyType>, (obj,): Self::Args, vm: &VirtualMachine) -> PyResult<Self> {
            let dt = parse_dtype(&obj, vm)?.unwrap_or(DType::Float64);
            Ok(PyDType { dt })
        }
    }

    #[pyclass(with(Constructor, Representable, Comparable, Hashable))]
    impl PyDType {
        #[pygetset]
        fn name(&self) -> &'static str {
            self.dt.name()
        }
        #[pygetset]
        fn kind(&self) -> &'static str {
            self.dt.kind()
        }
        #[pygetset]
        fn itemsize(&self) -> usize {
            self.dt.itemsize()
        }
        #[pygetset]
        fn char(&self) -> &'static str {
            match self.dt {
                DType::Bool => "?",
                DType::Int64 => "l",
                DType::Float32 => "f",
                DType::Float64 => "d",
            }
        }
        #[pygetset(name = "type")]
        fn type_(&self, vm: &VirtualMachine) -> PyObjectRef {
            match self.dt {
                DType::Bool => vm.ctx.types.bool_type.to_owned().into(),
                DType::Int64 => vm.ctx.types.int_type.to_owned().into(),
                DType::Float64 => <PyFloat64 as rustpython_vm::class::StaticType>::static_type()
                    .to_owned()
                    .into(),
                DType::Float32 => vm
                    .import("numpy", 0)
                    .and_then(|np| np.get_attr("float32", vm))
                    .unwrap_or_else(|_| vm.ctx.types.float_type.to_owned().into()),
            }
        }
        #[pyslot]
        fn slot_str(zelf: &PyObject, vm: &VirtualMachine) -> PyResult<PyStrRef> {
            let z = zelf.downcast_ref::<Self>().unwrap();
            Ok(vm.ctx.new_str(z.dt.name()))
        }
    }

    impl Representable for PyDType {
        fn repr_str(zelf: &Py<Self>, _vm: &VirtualMachine) -> PyResult<String> {
            Ok(format!("dtype('{}')", zelf.dt.name()))
        }
    }

    impl Comparable for PyDType {
        fn cmp(
            zelf: &Py<Self>,
            other: &PyObject,
            op: PyComparisonOp,
            vm: &VirtualMachine,
        ) -> PyResult<PyComparisonValue> {
            op.eq_only(|| {
                Ok(match parse_dtype(other, vm) {
                    Ok(Some(d)) => PyComparisonValue::Implemented(d == zelf.dt),
                    _ => PyComparisonValue::Implemented(false),
                })
            })
        }
    }

    impl Hashable for PyDType {
        fn hash(
            zelf: &Py<Self>,
            _vm: &VirtualMachine,
        ) -> PyResult<rustpython_vm::common::hash::PyHash> {
            Ok(zelf.dt as i64 + 7)
        }
    }

    pub(crate) fn dtype_obj(dt: DType, vm: &VirtualMachine) -> PyObjectRef {
        PyDType { dt }.into_pyobject(vm)
    }
}
