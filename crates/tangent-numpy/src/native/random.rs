//! The bit generator behind `numpy.random`.

#[rustpython_vm::pymodule(sub)]
pub(crate) mod _random {
    use crate::native::prelude::*;
    #[pyattr]
    #[pyclass(module = "numpy.random", name = "BitGenerator")]
    #[derive(Debug, PyPayload)]
    pub struct PyBitGen {
        rng: PyRwLock<random::Rng>,
    }

    pub(crate) fn rng_from_seed(
        seed: Option<&PyObject>,
        vm: &VirtualMachine,
    ) -> PyResult<random::Rng> {
        let Some(seed) = seed.filter(|s| !vm.is_none(s)) else {
            return Ok(random::Rng::from_entropy());
        };
        let words_of = |o: &PyObject| -> PyResult<Vec<u64>> {
            let i = o.try_index(vm)?;
            let b = i.as_bigint();
            if num_traits::Signed::is_negative(b) {
                return Err(vm.new_value_error("Seed must be between 0 and 2**32 - 1"));
            }
            let (_, digits) = b.to_u64_digits();
            Ok(if digits.is_empty() { vec![0] } else { digits })
        };
        if let Some(items) = seq_items(seed) {
            let mut words = vec![items.len() as u64];
            for it in &items {
                words.extend(words_of(it)?);
            }
            return Ok(random::Rng::from_words(&words));
        }
        if let Some(bg) = seed.downcast_ref::<PyBitGen>() {
            return Ok(bg.rng.read().clone());
        }
        let w = words_of(seed)?;
        if w.len() == 1 {
            return Ok(random::Rng::from_seed(w[0]));
        }
        Ok(random::Rng::from_words(&w))
    }

    impl Constructor for PyBitGen {
        type Args = OptionalArg<PyObjectRef>;
        fn py_new(_cls: &Py<PyType>, seed: Self::Args, vm: &VirtualMachine) -> PyResult<Self> {
            let rng = rng_from_seed(seed.as_option().map(|o| &**o), vm)?;
            Ok(PyBitGen {
                rng: PyRwLock::new(rng),
            })
        }
    }

    /// `size=` as an optional shape (None: one Python scalar).
    pub(crate) fn opt_size(
        size: &OptionalArg<PyObjectRef>,
        vm: &VirtualMachine,
    ) -> PyResult<Option<Vec<usize>>> {
        match size.as_option() {
            Some(o) if !vm.is_none(o) => Ok(Some(parse_shape(o, vm)?)),
            _ => Ok(None),
        }
    }

    impl PyBitGen {
        fn draw(
            &self,
            size: &OptionalArg<PyObjectRef>,
            dt: DType,
            vm: &VirtualMachine,
            mut f: impl FnMut(&mut random::Rng) -> f64,
        ) -> PyResult {
            let shape = opt_size(size, vm)?;
            let mut rng = self.rng.write();
            match shape {
                None => Ok(py_scalar(f(&mut rng), dt, vm)),
                Some(s) => {
                    let n: usize = s.iter().product();
                    let data: Vec<f64> = (0..n).map(|_| f(&mut rng)).collect();
                    Ok(new_arr(
                        ArrayD::from_shape_vec(IxDyn(&s), data).unwrap(),
                        dt,
                        vm,
                    ))
                }
            }
        }
    }

    #[pyclass(with(Constructor))]
    impl PyBitGen {
        #[pymethod]
        fn random(&self, size: OptionalArg<PyObjectRef>, vm: &VirtualMachine) -> PyResult {
            self.draw(&size, DType::Float64, vm, |r| r.random())
        }
        #[pymethod]
        fn standard_normal(&self, size: OptionalArg<PyObjectRef>, vm: &VirtualMachine) -> PyResult {
            self.draw(&size, DType::Float64, vm, |r| r.standard_normal())
        }
        #[pymethod]
        fn standard_exponential(
            &self,
            size: OptionalArg<PyObjectRef>,
            vm: &VirtualMachine,
        ) -> PyResult {
            self.draw(&size, DType::Float64, vm, |r| r.standard_exponential())
        }
        #[pymethod]
        fn standard_gamma(
            &self,
            shape: f64,
            size: OptionalArg<PyObjectRef>,
            vm: &VirtualMachine,
        ) -> PyResult {
            if shape < 0.0 {
                return Err(vm.new_value_error("shape < 0"));
            }
            self.draw(&size, DType::Float64, vm, |r| {
                if shape == 0.0 {
                    0.0
                } else {
                    r.standard_gamma(shape)
                }
            })
        }
        /// Integers in [low, high) (both Python ints).
        #[pymethod]
        fn integers(
            &self,
            low: i64,
            high: i64,
            size: OptionalArg<PyObjectRef>,
            vm: &VirtualMachine,
        ) -> PyResult {
            if high <= low {
                return Err(vm.new_value_error("high <= 0"));
            }
            self.draw(&size, DType::Int64, vm, |r| r.integer(low, high) as f64)
        }
        /// A random permutation of range(n) as an int64 array.
        #[pymethod]
        fn permutation(&self, n: usize, vm: &VirtualMachine) -> PyResult {
            let mut v: Vec<f64> = (0..n).map(|i| i as f64).collect();
            self.rng.write().shuffle(&mut v);
            Ok(new_arr(
                ArrayD::from_shape_vec(IxDyn(&[n]), v).unwrap(),
                DType::Int64,
                vm,
            ))
        }
        /// Reseeds in place (for `np.random.seed`).
        #[pymethod]
        fn seed(&self, seed: OptionalArg<PyObjectRef>, vm: &VirtualMachine) -> PyResult<()> {
            *self.rng.write() = rng_from_seed(seed.as_option().map(|o| &**o), vm)?;
            Ok(())
        }
        #[pymethod]
        fn spawn_one(&self, vm: &VirtualMachine) -> PyResult {
            let mut r = self.rng.write();
            let words = [r.next_u64(), r.next_u64()];
            Ok(PyBitGen {
                rng: PyRwLock::new(random::Rng::from_words(&words)),
            }
            .into_pyobject(vm))
        }
    }
}
