//! `Program`: the generated source's entry function and the functions it may call, read
//! once (`prepare.rs`), typed and compiled per argument signature (`specialize`), the
//! machine code kept per signature.

use super::prepare::*;
use super::*;

/// Per function and argument-type signature: the machine code, or why there is none
/// (`None` while it is being compiled: a recursive call).
/// A function's name, argument types, and whether its floats' NumPy types come from its
/// caller (a call from code with float32 values, `precision.rs`).
type SpecKey = (String, Vec<Ty>, bool);

type Specializations = HashMap<SpecKey, Option<Result<Arc<Compiled>, Refusal>>>;

/// Functions being compiled, by name and signature: their output types once typed,
/// and the word where their code's address is stored when done.
type Pending = HashMap<SpecKey, (Option<Vec<Ty>>, Box<u64>)>;

/// The generated entry function, the functions it may call (the other generated
/// functions and the user module's), and their compiled signatures.
pub struct Program {
    entry: String,
    funcs: HashMap<String, FuncDef>,
    source: String,
    specs: Mutex<Specializations>,
    /// Functions being compiled: their output types once typed, and the word where
    /// their address is stored when done (recursive calls load it from there).
    pending: Mutex<Pending>,
    /// The rule set in force: its `native_scalar(...)` declarations say which library
    /// functions and tangent helpers compile on scalars.
    rules: Arc<RuleSet>,
    /// The module-level names the entry function reads (`DT` of `DT = 0.1`): appended to
    /// its parameters, their live values passed by the host at every call
    /// (`NativeEntry::call`), so a later `DT = 0.2` is seen as Python sees it.
    globals: Vec<String>,
    /// The literal defaults of the entry function's own parameters (the ones before
    /// those; an item None: no default, or one that is not a literal), read once: a
    /// call fills in the missing arguments from here.
    defaults: Vec<Option<Scalar>>,
    /// Whether a function of the program makes NumPy's float scalars
    /// (`typing::makes_numpy_scalars`): then every function follows each float's NumPy
    /// type, since a caller that did not could not pass its floats' types to it.
    numpy_scalars: bool,
}

fn isa() -> Result<&'static OwnedTargetIsa, String> {
    static ISA: OnceLock<Result<OwnedTargetIsa, String>> = OnceLock::new();
    ISA.get_or_init(|| {
        let mut flags = settings::builder();
        flags.set("opt_level", "speed").map_err(|e| e.to_string())?;
        // The IR verifier costs a good share of compile time; the tests run the
        // generated code against the interpreter instead.
        flags
            .set("enable_verifier", "false")
            .map_err(|e| e.to_string())?;
        let builder = cranelift_codegen::isa::lookup(target_lexicon::Triple::host())
            .map_err(|e| format!("no native code generator for this machine: {e}"))?;
        builder
            .finish(settings::Flags::new(flags))
            .map_err(|e| e.to_string())
    })
    .as_ref()
    .map_err(Clone::clone)
}

impl Program {
    /// Reads the entry function `entry` of generated source; `user` is the source of
    /// the module the differentiated function comes from (its callees live there);
    /// `rules` is the rule set the source was generated with.
    pub fn new(
        source: &str,
        entry: &str,
        user: Option<&str>,
        rules: Arc<RuleSet>,
    ) -> Result<Program, Refusal> {
        // Parsing and lowering recurse over the user's expressions.
        crate::stack::run(|| Program::read(source, entry, user, rules))
    }

    fn read(
        source: &str,
        entry: &str,
        user: Option<&str>,
        rules: Arc<RuleSet>,
    ) -> Result<Program, Refusal> {
        let generated = SourceModule::parse("<generated>", source)
            .map_err(|d| Refusal::new(Span::SYNTHETIC, d.to_string()))?;
        let mut funcs = HashMap::new();
        for name in &generated.function_names {
            let def = generated
                .lower_function(name)
                .map_err(|d| Refusal::new(Span::SYNTHETIC, d.to_string()))?;
            funcs.insert(name.clone(), def);
        }
        // The user functions reachable by calls (generated functions win on names).
        let user_module = user.and_then(|text| SourceModule::parse_shared("<module>", text).ok());
        if let Some(m) = &user_module {
            let mut todo: Vec<String> = funcs.values().flat_map(called_names).collect();
            while let Some(name) = todo.pop() {
                if funcs.contains_key(&name) || !m.has_function(&name) {
                    continue;
                }
                if let Ok(def) = m.lower_function(&name) {
                    todo.extend(called_names(&def));
                    funcs.insert(name, def);
                }
            }
        }
        if !funcs.contains_key(entry) {
            return Err(Refusal::new(
                Span::SYNTHETIC,
                format!("no function `{entry}`"),
            ));
        }
        if let Some(m) = &user_module {
            // `np.sin` as `numpy.sin` (and `from math import sin`'s `sin` as `math.sin`):
            // the names the `native_scalar` declarations use. The derivative was made from
            // the live objects these names held, so an import the text cannot pin down
            // (`ambiguous`) is left alone.
            let aliases: HashMap<String, String> = m
                .imports
                .iter()
                .filter(|(local, q)| !m.ambiguous.contains(*local) && local != q)
                .map(|(l, q)| (l.clone(), q.clone()))
                .collect();
            for def in funcs.values_mut() {
                resolve_imports(def, &aliases);
            }
        }
        for def in funcs.values_mut() {
            // Native code changes gradient arrays in place where `ownership` allows.
            crate::opt::in_place::copying_helpers(&mut def.body, &rules);
        }
        let result_counts = tuple_result_counts(&funcs);
        tuples::scalarize(&mut funcs, &result_counts);
        for def in funcs.values_mut() {
            inline_shape_tuples(&mut def.body);
        }
        let names: Vec<String> = funcs.keys().cloned().collect();
        let def = funcs.get_mut(entry).expect("checked above");
        let defaults = def.params.iter().map(literal_default).collect();
        let globals = module_names_read(def, &names);
        for g in &globals {
            def.params.push(Param {
                name: g.clone(),
                default: None,
            });
        }
        let numpy_scalars = funcs
            .values()
            .any(|d| typing::makes_numpy_scalars(d, &rules));
        Ok(Program {
            entry: entry.to_owned(),
            numpy_scalars,
            funcs,
            source: source.to_owned(),
            specs: Mutex::new(HashMap::new()),
            pending: Mutex::new(HashMap::new()),
            rules,
            globals,
            defaults,
        })
    }

    fn def(&self) -> &FuncDef {
        &self.funcs[&self.entry]
    }

    pub fn name(&self) -> &str {
        &self.entry
    }

    /// The number of parameters.
    pub fn arity(&self) -> usize {
        self.defaults.len()
    }

    /// The module-level names whose live values follow the arguments of every call.
    pub fn globals(&self) -> &[String] {
        &self.globals
    }

    /// The arguments of a call with the parameters' literal defaults filled in, or None
    /// if a missing parameter has no literal default.
    pub fn with_defaults(&self, args: &[Scalar]) -> Option<Vec<Scalar>> {
        // Room for the module-level values the caller appends.
        let mut all = Vec::with_capacity(self.arity() + self.globals().len());
        all.extend_from_slice(args);
        for d in self.defaults_after(args.len())? {
            all.push(d?);
        }
        Some(all)
    }

    /// The default values of the parameters after the first `given` (None: more
    /// arguments than parameters; an item None: a default that is not a literal).
    pub fn defaults_after(
        &self,
        given: usize,
    ) -> Option<impl Iterator<Item = Option<Scalar>> + '_> {
        self.defaults.get(given..).map(|d| d.iter().copied())
    }

    /// The machine code for arguments of types `tys`, compiled on first use.
    pub fn specialize(&self, tys: &[Ty]) -> Result<Arc<Compiled>, Refusal> {
        self.specialize_once(tys).0
    }

    /// `specialize`, and whether this call did the compiling (so that a refusal is
    /// reported once per signature).
    pub fn specialize_once(&self, tys: &[Ty]) -> (Result<Arc<Compiled>, Refusal>, bool) {
        // Typing and code generation recurse over expressions.
        crate::stack::run(|| self.specialize_fn(&self.entry, tys, false))
    }

    fn specialize_fn(
        &self,
        name: &str,
        tys: &[Ty],
        kinds_from_caller: bool,
    ) -> (Result<Arc<Compiled>, Refusal>, bool) {
        let key = (name.to_owned(), tys.to_vec(), kinds_from_caller);
        {
            let mut specs = self.specs.lock().unwrap_or_else(|e| e.into_inner());
            match specs.get(&key) {
                Some(Some(r)) => return (r.clone(), false),
                Some(None) => {
                    let span = self
                        .funcs
                        .get(name)
                        .map(|d| d.span)
                        .unwrap_or(Span::SYNTHETIC);
                    return (
                        Err(Refusal::new(
                            span,
                            format!("recursion (`{name}` calls itself)"),
                        )),
                        false,
                    );
                }
                None => {
                    specs.insert(key.clone(), None);
                }
            }
        }
        // Compiled without the lock: callees are specialized along the way.
        let r = self.compile(name, tys, kinds_from_caller).map(Arc::new);
        let mut specs = self.specs.lock().unwrap_or_else(|e| e.into_inner());
        specs.insert(key, Some(r.clone()));
        (r, true)
    }

    /// Compiles the likely signature: ints for the parameters a `range(...)` reads,
    /// arrays for the ones indexed (int64 ones where their elements index), dicts for
    /// the ones read by string keys, records for the ones read by attribute, floats for
    /// the others (a seed's float default included). Other signatures are compiled when
    /// a call needs them.
    pub fn check(&self) -> Result<(), Refusal> {
        let mut counters: Vec<String> = Vec::new();
        // Parameters read as arrays (`x[i]`, `m[i, j]`, `x.shape[k]`, `len(x)`, `x.size`)
        // and the dimension count their uses show.
        let mut arrays: HashMap<String, u8> = HashMap::new();
        // Parameters read with string keys (`params['C']`): dicts with those keys.
        let mut dict_keys: HashMap<String, Vec<String>> = HashMap::new();
        walk_stmts(&self.def().body, &mut |s| {
            let mut visit = |e: &Expr| {
                e.walk(&mut |x| match &x.kind {
                    ExprKind::Call { func, args, kwargs } => {
                        // Arguments a function of the program indexes (forward mode
                        // passes a tangent array on: `df(x, k, dx=dx)`).
                        if let Some(callee) = func.as_name().and_then(|f| self.funcs.get(f)) {
                            let indexed = indexed_params(callee);
                            let by_position =
                                callee.params.iter().zip(args).map(|(p, a)| (&p.name, a));
                            let by_keyword = kwargs.iter().map(|(k, a)| (k, a));
                            for (p, a) in by_position.chain(by_keyword) {
                                if let (Some(&nd), Some(n)) = (indexed.get(p.as_str()), a.as_name())
                                {
                                    let e = arrays.entry(n.to_owned()).or_insert(nd);
                                    *e = (*e).max(nd);
                                }
                            }
                        }
                        match typing::callee_path(func).as_deref() {
                            Some("range") => {
                                for a in args {
                                    a.names(&mut counters);
                                }
                            }
                            Some("len" | "tangent.sequence_len") => {
                                if let Some(n) = args.first().and_then(|a| a.as_name()) {
                                    arrays.entry(n.to_owned()).or_insert(1);
                                }
                            }
                            // Inner products take vectors (their gradients, a number
                            // first).
                            Some(p) => {
                                let skip = match self.rules.native_scalar(p) {
                                    Some(NativeScalar::Dot) => 0,
                                    Some(NativeScalar::DotGrad { .. }) => 1,
                                    _ => args.len(),
                                };
                                for n in args.iter().skip(skip).filter_map(|a| a.as_name()) {
                                    arrays.entry(n.to_owned()).or_insert(1);
                                }
                            }
                            None => {}
                        }
                    }
                    ExprKind::BinOp(BinOp::MatMul, a, b) => {
                        for n in [a, b].iter().filter_map(|a| a.as_name()) {
                            arrays.entry(n.to_owned()).or_insert(1);
                        }
                    }
                    ExprKind::Subscript(base, index) if matches!(index.kind, ExprKind::Str(_)) => {
                        if let (Some(n), ExprKind::Str(k)) = (base.as_name(), &index.kind) {
                            dict_keys.entry(n.to_owned()).or_default().push(k.clone());
                        }
                    }
                    ExprKind::Subscript(base, index) => {
                        let nd = match &index.kind {
                            ExprKind::Tuple(es) => es.len().min(2) as u8,
                            _ => 1,
                        };
                        let name = match &base.kind {
                            ExprKind::Attr(v, a) if a == "shape" => v.as_name(),
                            _ => base.as_name(),
                        };
                        if let Some(n) = name {
                            let shape_axis = matches!(&base.kind, ExprKind::Attr(..))
                                .then(|| matches!(&index.kind, ExprKind::Num(t) if t == "1"))
                                .unwrap_or(false);
                            let nd = if shape_axis { 2 } else { nd };
                            let e = arrays.entry(n.to_owned()).or_insert(nd);
                            *e = (*e).max(nd);
                        }
                    }
                    ExprKind::Attr(v, a) if a == "size" => {
                        if let Some(n) = v.as_name() {
                            arrays.entry(n.to_owned()).or_insert(1);
                        }
                    }
                    _ => {}
                })
            };
            crate::syntax::visit::stmt_exprs(s, &mut visit);
        });
        // `r = m[i]` with `r` indexed in turn (`r[j]`): `m` is a matrix read by rows.
        let mut subscripted: Vec<String> = Vec::new();
        let mut row_of: Vec<(String, String)> = Vec::new();
        // Arrays whose elements are indices (`x[idx[j]]`, or `k = idx[j]` then `x[k]`):
        // int64 arrays.
        let mut indices: Vec<String> = Vec::new();
        let mut index_names: Vec<String> = Vec::new();
        // Parameters read by attribute (`p.C`, not an array's `size`, `shape`, `ndim`):
        // records with those fields.
        let mut fields: HashMap<String, Vec<String>> = HashMap::new();
        walk_stmts(&self.def().body, &mut |s| {
            crate::syntax::visit::stmt_exprs(s, &mut |e| {
                e.walk(&mut |x| match &x.kind {
                    ExprKind::Subscript(b, i) => {
                        if let Some(n) = b.as_name() {
                            subscripted.push(n.to_owned());
                        }
                        i.walk(&mut |y| match &y.kind {
                            ExprKind::Subscript(ib, _) => {
                                if let Some(n) = ib.as_name() {
                                    indices.push(n.to_owned());
                                }
                            }
                            ExprKind::Name(n) => index_names.push(n.to_owned()),
                            _ => {}
                        });
                    }
                    ExprKind::Attr(v, a) if !matches!(a.as_str(), "size" | "shape" | "ndim") => {
                        if let Some(n) = v.as_name() {
                            fields.entry(n.to_owned()).or_default().push(a.clone());
                        }
                    }
                    _ => {}
                })
            });
            if let StmtKind::Assign(t, v) = &s.kind {
                if let (Some(r), ExprKind::Subscript(b, i)) = (t.as_name(), &v.kind) {
                    if let (Some(m), false) = (b.as_name(), matches!(i.kind, ExprKind::Tuple(_))) {
                        row_of.push((r.to_owned(), m.to_owned()));
                    }
                }
            }
        });
        for (r, m) in &row_of {
            if subscripted.contains(r) {
                arrays.insert(m.clone(), 2);
            }
            if indices.contains(r) || index_names.contains(r) {
                indices.push(m.clone());
            }
        }
        let tys: Vec<Ty> = self
            .def()
            .params
            .iter()
            .map(|p| {
                if let Some(keys) = dict_keys.get_mut(&p.name) {
                    keys.sort();
                    keys.dedup();
                    Ty::Dict(typing::containers::intern(keys))
                } else if let Some(nd) = arrays.get(&p.name) {
                    if indices.contains(&p.name) {
                        Ty::IntArray(*nd)
                    } else {
                        Ty::Array(*nd)
                    }
                } else if let Some(f) = fields.get_mut(&p.name) {
                    f.sort();
                    f.dedup();
                    Ty::Record(typing::containers::intern(f))
                } else if counters.contains(&p.name) {
                    Ty::Int
                } else {
                    Ty::Float
                }
            })
            .collect();
        self.specialize(&tys).map(|_| ())
    }

    fn compile(
        &self,
        name: &str,
        tys: &[Ty],
        kinds_from_caller: bool,
    ) -> Result<Compiled, Refusal> {
        let def = &self.funcs[name];
        let ty_of = |p: &str| {
            let k = def.params.iter().position(|q| q.name == p)?;
            tys.get(k).copied()
        };
        let eager = eager_gradients::made_eagerly(def, &ty_of);
        let def = eager.as_ref().unwrap_or(def);
        let isa = isa().map_err(|e| Refusal::new(def.span, e))?;
        let key = (name.to_owned(), tys.to_vec(), kinds_from_caller);
        self.pending_lock()
            .entry(key.clone())
            .or_insert((None, Box::new(0)));
        // Code with float32 values (or in a program that makes NumPy's float scalars)
        // follows each float's NumPy type, and its calls pass them.
        let precise = kinds_from_caller || typing::tracks_precision(tys) || self.numpy_scalars;
        let calls = CallsFrom {
            program: self,
            kinds: precise,
        };
        let mut vars = typing::infer(def, tys, precise, &calls)?;
        let outputs = typing::return_types(def, &vars, &calls)?;
        if let Some(p) = self.pending_lock().get_mut(&key) {
            p.0 = outputs.clone();
        }
        if outputs.is_some() {
            // Now that recursive calls have known result types, type their targets.
            vars = typing::infer(def, tys, precise, &calls)?;
        }
        let lowered = codegen::lower(
            def,
            tys,
            (kinds_from_caller, precise),
            &vars,
            &**isa,
            &calls,
        )?;
        let mut ctx = cranelift_codegen::Context::for_function(lowered.func);
        let mut ctrl = cranelift_codegen::control::ControlPlane::default();
        let code = ctx.compile(&**isa, &mut ctrl).map_err(|e| {
            Refusal::new(def.span, format!("code generation failed: {:?}", e.inner))
        })?;
        if !code.buffer.relocs().is_empty() {
            return Err(Refusal::new(def.span, "code with relocations"));
        }
        let mem = memory::ExecMem::new(code.code_buffer())
            .map_err(|e| Refusal::new(def.span, format!("executable memory: {e}")))?;
        // Recursive calls in the code just compiled read the address from here.
        if let Some(p) = self.pending_lock().get_mut(&key) {
            *p.1 = mem.ptr() as u64;
        }
        Ok(Compiled {
            code: mem,
            outputs: lowered.outputs,
            _programs: lowered.programs,
        })
    }

    /// Where each parameter of `name` comes from for a call with `pos` positional and
    /// `kw` keyword arguments, and the parameters' types.
    fn arrange(
        &self,
        name: &str,
        pos: &[Ty],
        kw: &[(String, Ty)],
    ) -> Result<(Vec<codegen::ArgSrc>, Vec<Ty>), Refusal> {
        let def = &self.funcs[name];
        if pos.len() > def.params.len() {
            return Err(Refusal::new(
                def.span,
                format!("too many arguments for `{name}`"),
            ));
        }
        let mut srcs = Vec::new();
        let mut tys = Vec::new();
        for (i, p) in def.params.iter().enumerate() {
            if i < pos.len() {
                srcs.push(codegen::ArgSrc::Pos(i));
                tys.push(pos[i]);
            } else if let Some(j) = kw.iter().position(|(k, _)| *k == p.name) {
                srcs.push(codegen::ArgSrc::Kw(j));
                tys.push(kw[j].1);
            } else {
                let Some(d) = literal_default(p) else {
                    return Err(Refusal::new(
                        def.span,
                        format!("`{}` of `{name}` has no literal default", p.name),
                    ));
                };
                srcs.push(codegen::ArgSrc::Default(d.word()));
                tys.push(d.ty().unwrap_or(Ty::Float));
            }
        }
        Ok((srcs, tys))
    }

    /// "line N: `code`: what" for a refusal, N and code from the generated source.
    pub fn describe(&self, r: &Refusal) -> String {
        if r.span.is_synthetic() {
            return r.what.clone();
        }
        let start = r.span.start as usize;
        // Spans of callees in the user's module are not offsets into this source.
        if start > self.source.len() {
            return r.what.clone();
        }
        let line = self.source[..start.min(self.source.len())]
            .matches('\n')
            .count()
            + 1;
        let text = self.source.lines().nth(line - 1).unwrap_or("").trim();
        format!("{} (line {line} of the generated code: `{text}`)", r.what)
    }
}

impl Program {
    fn pending_lock(&self) -> std::sync::MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// For a function still being compiled: its output types (if typed) and the
    /// address of the word that will hold its code's address.
    fn in_progress(&self, name: &str, tys: &[Ty], kinds: bool) -> Option<(Option<Vec<Ty>>, usize)> {
        let specs = self.specs.lock().unwrap_or_else(|e| e.into_inner());
        let key = (name.to_owned(), tys.to_vec(), kinds);
        if !matches!(specs.get(&key), Some(None)) {
            return None;
        }
        drop(specs);
        let pending = self.pending_lock();
        let (outs, slot) = pending.get(&key)?;
        Some((outs.clone(), &**slot as *const u64 as usize))
    }
}

/// The program as the code of one function sees it: the functions it calls are compiled
/// to take each float's NumPy type from it (`kinds`) when it has float32 values.
struct CallsFrom<'a> {
    program: &'a Program,
    kinds: bool,
}

impl typing::CalleeTypes for CallsFrom<'_> {
    fn is_function(&self, name: &str) -> bool {
        self.program.funcs.contains_key(name)
    }

    fn rules(&self) -> &RuleSet {
        &self.program.rules
    }

    fn outputs(
        &self,
        name: &str,
        pos: &[Ty],
        kw: &[(String, Ty)],
    ) -> Result<Option<Vec<Ty>>, Refusal> {
        let program = self.program;
        let (_, tys) = program.arrange(name, pos, kw)?;
        if let Some(p) = program.in_progress(name, &tys, self.kinds) {
            return Ok(p.0);
        }
        Ok(Some(
            program
                .specialize_fn(name, &tys, self.kinds)
                .0?
                .outputs
                .clone(),
        ))
    }
}

impl codegen::Calls for CallsFrom<'_> {
    fn plan(
        &self,
        name: &str,
        pos: &[Ty],
        kw: &[(String, Ty)],
    ) -> Result<codegen::CallPlan, Refusal> {
        let program = self.program;
        let (params, tys) = program.arrange(name, pos, kw)?;
        if let Some((outputs, slot)) = program.in_progress(name, &tys, self.kinds) {
            let Some(outputs) = outputs else {
                let span = program.funcs[name].span;
                return Err(Refusal::new(
                    span,
                    format!("the results of recursive `{name}` have no known type"),
                ));
            };
            return Ok(codegen::CallPlan {
                addr: slot,
                indirect: true,
                outputs,
                params,
            });
        }
        let compiled = program.specialize_fn(name, &tys, self.kinds).0?;
        Ok(codegen::CallPlan {
            indirect: false,
            addr: compiled.code.ptr() as usize,
            outputs: compiled.outputs.clone(),
            params,
        })
    }
}
