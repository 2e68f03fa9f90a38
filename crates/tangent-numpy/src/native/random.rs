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

    /// A seed's entropy as `SeedSequence` reads it: a non-negative int's little-endian
    /// 32-bit words, or those of each int of a sequence one after another.
    fn entropy_words(seed: &PyObject, vm: &VirtualMachine) -> PyResult<Vec<u32>> {
        let words_of = |o: &PyObject| -> PyResult<Vec<u32>> {
            if o.downcast_ref::<rustpython_vm::builtins::PyFloat>()
                .is_some()
            {
                return Err(vm.new_type_error(
                    "SeedSequence expects int or sequence of ints for entropy not a float",
                ));
            }
            let i = o.try_index(vm)?;
            let b = i.as_bigint();
            if num_traits::Signed::is_negative(b) {
                return Err(vm.new_value_error("expected non-negative integer"));
            }
            Ok(random::words32(&b.to_u64_digits().1))
        };
        match seq_items(seed) {
            Some(items) => {
                let mut words = Vec::new();
                for it in &items {
                    words.extend(words_of(it)?);
                }
                Ok(words)
            }
            None => words_of(seed),
        }
    }

    pub(crate) fn rng_from_seed(
        seed: Option<&PyObject>,
        vm: &VirtualMachine,
    ) -> PyResult<random::Rng> {
        let Some(seed) = seed.filter(|s| !vm.is_none(s)) else {
            return Ok(random::Rng::from_entropy());
        };
        if let Some(bg) = seed.downcast_ref::<PyBitGen>() {
            return Ok(bg.rng.read().clone());
        }
        Ok(random::Rng::from_entropy_words(&entropy_words(seed, vm)?))
    }

    /// Python ints as 32-bit words.
    fn words_arg(o: &PyObject, vm: &VirtualMachine) -> PyResult<Vec<u32>> {
        vm.extract_elements_with(o, |w| w.try_into_value::<u32>(vm))
    }

    fn int_list<T: rustpython_vm::convert::ToPyObject>(
        v: impl IntoIterator<Item = T>,
        vm: &VirtualMachine,
    ) -> PyObjectRef {
        vm.ctx
            .new_list(v.into_iter().map(|x| x.to_pyobject(vm)).collect())
            .into()
    }

    /// `SeedSequence`'s pool: the entropy's words, the spawn key's, the pool size.
    #[pyfunction]
    fn seed_pool(
        entropy: PyObjectRef,
        spawn_key: PyObjectRef,
        pool_size: usize,
        vm: &VirtualMachine,
    ) -> PyResult {
        let (e, k) = (words_arg(&entropy, vm)?, words_arg(&spawn_key, vm)?);
        Ok(int_list(random::seed_pool(&e, &k, pool_size), vm))
    }

    /// `SeedSequence.generate_state(n)` of a pool, as 32-bit words.
    #[pyfunction]
    fn seed_state(pool: PyObjectRef, n: usize, vm: &VirtualMachine) -> PyResult {
        let pool = words_arg(&pool, vm)?;
        if pool.is_empty() {
            return Err(vm.new_value_error("an empty pool"));
        }
        Ok(int_list(random::generate_state(&pool, n), vm))
    }

    /// The little-endian 32-bit words `SeedSequence` reads an entropy value as.
    #[pyfunction]
    fn seed_words(seed: PyObjectRef, vm: &VirtualMachine) -> PyResult {
        Ok(int_list(entropy_words(&seed, vm)?, vm))
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
            if let Some(s) = opt_size(&size, vm)? {
                let data = self.rng.write().randoms(s.iter().product());
                let a = ArrayD::from_shape_vec(IxDyn(&s), data).expect("n elements");
                return Ok(new_arr(a, DType::Float64, vm));
            }
            self.draw(&size, DType::Float64, vm, |r| r.random())
        }
        /// `random(dtype=float32)`: NumPy's float32 draws, 24 bits of a 32-bit one.
        #[pymethod]
        fn random32(&self, size: OptionalArg<PyObjectRef>, vm: &VirtualMachine) -> PyResult {
            self.draw(&size, DType::Float32, vm, |r| r.random32())
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
        /// Integers in [low, high] (both Python ints within int64), NumPy's stream.
        #[pymethod]
        fn integers(
            &self,
            low: i64,
            high: i64,
            size: OptionalArg<PyObjectRef>,
            vm: &VirtualMachine,
        ) -> PyResult {
            if high < low {
                return Err(vm.new_value_error("low > high"));
            }
            let shape = opt_size(&size, vm)?;
            let mut rng = self.rng.write();
            match shape {
                None => Ok(vm.ctx.new_int(rng.integer(low, high)).into()),
                Some(s) => {
                    let n: usize = s.iter().product();
                    let data = rng.integers(low, high, n);
                    let a = ArrayD::from_shape_vec(IxDyn(&s), data).expect("n elements");
                    Ok(PyNdArray::from_elements(Elements::I64(a)).into_pyobject(vm))
                }
            }
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
        /// A bit generator of `kind` seeded from `SeedSequence.generate_state` words:
        /// "pcg64" and "dxsm" 8, "sfc" 6, "philox" 4, "mt19937" 624 (NumPy's classes).
        #[pystaticmethod]
        fn seeded(kind: PyStrRef, words: PyObjectRef, vm: &VirtualMachine) -> PyResult {
            let words = words_arg(&words, vm)?;
            let count = || vm.new_value_error("a bit generator seeded from other words");
            let w = words.as_slice();
            let rng = match kind.to_str().unwrap_or_default() {
                "pcg64" => random::Rng::from_state_words(w.try_into().map_err(|_| count())?),
                "dxsm" => random::Rng::dxsm_from_state_words(w.try_into().map_err(|_| count())?),
                "sfc" => random::Rng::sfc_from_state_words(w.try_into().map_err(|_| count())?),
                "philox" => {
                    random::Rng::philox_from_state_words(w.try_into().map_err(|_| count())?)
                }
                "mt19937" => random::Rng::mt_from_state_words(w).ok_or_else(count)?,
                _ => return Err(vm.new_value_error("an unknown bit generator")),
            };
            Ok(PyBitGen {
                rng: PyRwLock::new(rng),
            }
            .into_pyobject(vm))
        }
        /// `(state, inc)`: PCG64's 128-bit state and increment, as Python ints.
        #[pymethod]
        fn pcg_state(&self, vm: &VirtualMachine) -> PyResult {
            let Some((state, inc)) = self.rng.read().state() else {
                return Err(vm.new_type_error("not a PCG64 bit generator"));
            };
            Ok(vm
                .ctx
                .new_tuple(vec![
                    vm.ctx.new_int(state).into(),
                    vm.ctx.new_int(inc).into(),
                ])
                .into())
        }
        /// The legacy state: (MT19937's 624 words, position, has_gauss, cached_gaussian).
        #[pymethod]
        fn legacy_state(&self, vm: &VirtualMachine) -> PyResult {
            let Some((key, pos, gauss)) = self.rng.read().legacy_state() else {
                return Err(vm.new_type_error("not an MT19937 bit generator"));
            };
            Ok(vm
                .ctx
                .new_tuple(vec![
                    int_list(key, vm),
                    vm.ctx.new_int(pos).into(),
                    vm.ctx.new_int(gauss.is_some() as u8).into(),
                    vm.ctx.new_float(gauss.unwrap_or(0.0)).into(),
                ])
                .into())
        }
        /// MT19937 in a legacy state (`set_state`).
        #[pystaticmethod]
        fn from_legacy_state(
            key: PyObjectRef,
            pos: usize,
            has_gauss: bool,
            gauss: f64,
            vm: &VirtualMachine,
        ) -> PyResult {
            let key = words_arg(&key, vm)?;
            let rng = random::Rng::from_legacy_state(&key, pos, has_gauss.then_some(gauss))
                .ok_or_else(|| vm.new_value_error("state must be 624 longs and a position"))?;
            Ok(PyBitGen {
                rng: PyRwLock::new(rng),
            }
            .into_pyobject(vm))
        }
        /// MT19937 seeded as the legacy `RandomState(seed)` seeds it: an int in
        /// [0, 2**32), a non-empty 1-d sequence of such ints, or None.
        #[pystaticmethod]
        fn legacy(seed: OptionalArg<PyObjectRef>, vm: &VirtualMachine) -> PyResult {
            let range = || vm.new_value_error("Seed must be between 0 and 2**32 - 1");
            let word = |o: &PyObject| -> PyResult<u32> {
                if o.downcast_ref::<rustpython_vm::builtins::PyFloat>()
                    .is_some()
                {
                    return Err(vm.new_type_error(
                        "Cannot cast scalar from dtype('float64') to dtype('int64') according to the rule 'safe'",
                    ));
                }
                let i = o.try_index(vm)?;
                u32::try_from(i.as_bigint()).map_err(|_| range())
            };
            let rng = match seed.as_option().filter(|s| !vm.is_none(s)) {
                None => random::Rng::legacy_entropy(),
                Some(s) => match seq_items(s) {
                    Some(items) => {
                        if items.is_empty() {
                            return Err(vm.new_value_error("Seed must be non-empty"));
                        }
                        let key = items
                            .iter()
                            .map(|o| word(o))
                            .collect::<PyResult<Vec<_>>>()?;
                        random::Rng::legacy_key(&key)
                    }
                    None => random::Rng::legacy_word(word(s)?),
                },
            };
            Ok(PyBitGen {
                rng: PyRwLock::new(rng),
            }
            .into_pyobject(vm))
        }
        /// Raw outputs as Python ints (`random_raw`; the embedded numpy has no uint64).
        #[pymethod]
        fn raw(&self, n: usize, vm: &VirtualMachine) -> PyObjectRef {
            let mut r = self.rng.write();
            int_list((0..n).map(|_| r.next_raw()).collect::<Vec<_>>(), vm)
        }
    }
}
