//! Code for elementwise array expressions (typed by `array_types.rs`): the expression
//! becomes an `elementwise::Program` of the statement, its array and number operands are
//! evaluated by the ordinary code, and one runtime call runs the program over the
//! buffers into a new array of the arena (arrays of another shape bail: NumPy would
//! broadcast or raise). Also the `unbroadcast` helpers and `numpy.sum` on arrays.

use super::array_runtime;
use super::arrays::ArrayDesc;
use super::codegen::Cg;
use super::elementwise::{self, Op, Program, Src};
use super::typing::{Refusal, Ty};
use crate::rules::NativeScalar;
use crate::syntax::ir::*;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, AbiParam, InstBuilder, Signature, StackSlotData, StackSlotKind, Value,
};
use std::collections::{HashMap, HashSet};

/// Whether `name` is read in `e` at a position `lower_elementwise` computes itself (an
/// operand of the operators and kernels of an elementwise expression).
fn elementwise_operand(cg: &Cg<'_>, e: &Expr, name: &str) -> bool {
    if !cg.is_array_valued(e) {
        return false;
    }
    match &e.kind {
        ExprKind::Name(n) => n == name,
        ExprKind::BinOp(_, a, b) => {
            elementwise_operand(cg, a, name) || elementwise_operand(cg, b, name)
        }
        ExprKind::Unary(UnaryOp::Neg | UnaryOp::Pos, a) => elementwise_operand(cg, a, name),
        ExprKind::Call { func, args, .. } => {
            let path = super::typing::callee_path(func).unwrap_or_default();
            match cg.calls.rules().native_scalar(&path) {
                Some(NativeScalar::Kernel { .. } | NativeScalar::Sign) => {
                    args.iter().any(|a| elementwise_operand(cg, a, name))
                }
                Some(NativeScalar::DotGrad { other }) => [0, *other]
                    .iter()
                    .filter_map(|&k| args.get(k))
                    .any(|a| elementwise_operand(cg, a, name)),
                _ => false,
            }
        }
        _ => false,
    }
}

/// Whether `e` is an operator or kernel node computing an array (what
/// `lower_elementwise` turns into operations, not an operand).
fn is_elementwise_node(cg: &Cg<'_>, e: &Expr) -> bool {
    if !cg.is_array_valued(e) {
        return false;
    }
    match &e.kind {
        ExprKind::BinOp(..) | ExprKind::Unary(UnaryOp::Neg | UnaryOp::Pos, _) => true,
        ExprKind::Call { func, .. } => matches!(
            cg.calls
                .rules()
                .native_scalar(&super::typing::callee_path(func).unwrap_or_default()),
            Some(NativeScalar::Kernel { .. } | NativeScalar::DotGrad { .. } | NativeScalar::Sign)
        ),
        _ => false,
    }
}

/// The operands of a program being built: the code's values, by position; `single`
/// for a program over float32 arrays (numbers converted as NumPy converts them, every
/// `+ - * /` rounded to float32).
#[derive(Default)]
struct Operands {
    arrays: Vec<Value>,
    numbers: Vec<Value>,
    single: bool,
}

impl Cg<'_> {
    /// Statement `k` of `stmts`, `t = E` (E elementwise), left for the statement that
    /// reads `t` (its index, returned) to compute in its own pass, when `t` is a
    /// temporary read once, there, or a shape carrier whose one value read is there; the
    /// statements between may not assign a name E reads, read `t`, or jump, so E's
    /// operands hold the same values there.
    pub(super) fn defer(&mut self, stmts: &[Stmt], k: usize) -> Option<usize> {
        let StmtKind::Assign(t, v) = &stmts[k].kind else {
            return None;
        };
        let name = t.as_name()?;
        if !(self.single_use.contains(name) || self.carriers.contains(name))
            || !is_elementwise_node(self, v)
        {
            return None;
        }
        let mut operands = Vec::new();
        v.walk(&mut |x| operands.extend(x.as_name().map(str::to_owned)));
        for (c, s) in stmts.iter().enumerate().skip(k + 1) {
            let mut reads = false;
            crate::syntax::visit::stmt_exprs(s, &mut |e| reads |= e.reads(name));
            match &s.kind {
                StmtKind::Assign(ct, cv) if reads => {
                    let consumer = ct.as_name().is_some()
                        && is_elementwise_node(self, cv)
                        && elementwise_operand(self, cv, name)
                        && !ct.reads(name);
                    if !consumer {
                        return None;
                    }
                    self.deferred.insert(name.to_owned(), v.clone());
                    return Some(c);
                }
                StmtKind::Assign(ct, _) | StmtKind::AugAssign(ct, _, _)
                    if !reads
                        && operands
                            .iter()
                            .any(|o| ct.reads(o) || ct.as_name() == Some(o)) =>
                {
                    return None
                }
                StmtKind::Assign(..) | StmtKind::ExprStmt(_) | StmtKind::Comment(_) if !reads => {}
                _ => return None,
            }
        }
        None
    }

    /// After statement `s` (`u = <elementwise>`) has run: each shape carrier computed in
    /// its pass holds `u`'s new array, which has the carrier's shape (every array of a
    /// pass has one shape), and is read from now on only for that shape.
    pub(super) fn define_carriers(&mut self, s: &Stmt, carriers: &[String]) -> Result<(), Refusal> {
        let StmtKind::Assign(t, _) = &s.kind else {
            return Err(Refusal::new(s.span, "a shape carrier without its array"));
        };
        let (value, _) = self.read_var(t.as_name().unwrap_or_default(), s.span)?;
        for c in carriers {
            let Some(var) = self.vars.get(c) else {
                return Err(Refusal::new(s.span, format!("`{c}` has no type")));
            };
            let (var, flag) = (var.var, var.flag);
            self.b.def_var(var, value);
            if let Some(f) = flag {
                let zero = self.b.ins().iconst(types::I8, 0);
                self.b.def_var(f, zero);
            }
        }
        Ok(())
    }

    /// Arrays the tape keeps only for their shape (`h * 0.9` of the tape loop, pushed
    /// for `unbroadcast_left(g, h_times_0_9, ...)`): assigned one elementwise expression
    /// (besides pops and None), read for their value once, and otherwise only pushed or
    /// passed to an `unbroadcast` helper, as its `like` argument next to an array (whose
    /// shape check bails on a carrier of another shape) or at a position native code
    /// does not evaluate. The tape must be this function's: every push and pop is here.
    pub(super) fn shape_carriers(&self, def: &FuncDef) -> HashSet<String> {
        let params: HashSet<&str> = def.params.iter().map(|p| p.name.as_str()).collect();
        let tape_here = self
            .types
            .iter()
            .filter(|(_, t)| t.ty == Some(Ty::Tape))
            .all(|(n, _)| !params.contains(n.as_str()));
        if !tape_here {
            return HashSet::new();
        }
        let mut defs: HashMap<String, usize> = HashMap::new();
        let mut values: HashMap<String, usize> = HashMap::new();
        let mut other: HashSet<String> = HashSet::new();
        walk_stmts(&def.body, &mut |s| {
            let mut expr = |e: &Expr| self.classify_reads(e, &mut values);
            match &s.kind {
                StmtKind::Assign(t, v) => {
                    match t.as_name() {
                        Some(_) if crate::tape::is_stack_call(v, "pop") => {}
                        Some(_) if matches!(v.kind, ExprKind::NoneLit) => {}
                        Some(n) => *defs.entry(n.to_owned()).or_default() += 1,
                        None => t.walk(&mut |x| other.extend(x.as_name().map(str::to_owned))),
                    }
                    if !crate::tape::is_stack_call(v, "pop") {
                        expr(v);
                    }
                }
                StmtKind::ExprStmt(e) if crate::tape::is_stack_call(e, "push") => {
                    if let ExprKind::Call { args, .. } = &e.kind {
                        if args.get(1).and_then(|a| a.as_name()).is_none() {
                            args.iter().for_each(&mut expr);
                        }
                    }
                }
                StmtKind::For(t, it, _) => {
                    t.walk(&mut |x| other.extend(x.as_name().map(str::to_owned)));
                    expr(it);
                }
                StmtKind::AugAssign(t, _, v) => {
                    t.walk(&mut |x| other.extend(x.as_name().map(str::to_owned)));
                    expr(v);
                }
                _ => crate::syntax::visit::stmt_exprs(s, &mut expr),
            }
        });
        defs.into_iter()
            .filter(|(n, k)| {
                *k == 1
                    && values.get(n) == Some(&1)
                    && !other.contains(n)
                    && !params.contains(n.as_str())
                    && matches!(self.types.get(n).and_then(|t| t.ty), Some(Ty::Array(_)))
            })
            .map(|(n, _)| n)
            .collect()
    }

    /// Counts the reads of names in `e` that need their value: all but the arguments of
    /// `unbroadcast` helpers past the first that are not their `like`, and the `like`
    /// argument next to an array first argument.
    fn classify_reads(&self, e: &Expr, values: &mut HashMap<String, usize>) {
        if let ExprKind::Call { func, args, kwargs } = &e.kind {
            let path = super::typing::callee_path(func).unwrap_or_default();
            if let Some(NativeScalar::Unbroadcast { like, .. }) =
                self.calls.rules().native_scalar(&path).cloned()
            {
                let g_array = args.first().is_some_and(|g| self.is_array_valued(g));
                for (p, a) in args.iter().enumerate() {
                    let shape_only = p > 0 && (p != like || g_array) && a.as_name().is_some();
                    if !shape_only {
                        self.classify_reads(a, values);
                    }
                }
                for (_, a) in kwargs {
                    self.classify_reads(a, values);
                }
                return;
            }
        }
        if let Some(n) = e.as_name() {
            *values.entry(n.to_owned()).or_default() += 1;
            return;
        }
        crate::syntax::lift::each_child(e, &mut |c| self.classify_reads(c, values));
    }

    /// The static type of `e` (None: unknown or not typable).
    fn static_type(&self, e: &Expr) -> Option<Ty> {
        super::typing::expr_type(e, self.types, self.calls)
            .ok()
            .flatten()
    }

    /// Whether `e` computes a new array elementwise.
    pub(super) fn is_array_valued(&self, e: &Expr) -> bool {
        matches!(self.static_type(e), Some(Ty::Array(_) | Ty::Array32(_)))
    }

    /// An elementwise array expression: one pass over the buffers into a new array.
    pub(super) fn elementwise(&mut self, e: &Expr) -> Result<(Value, Ty), Refusal> {
        self.elementwise_plus(None, e)
    }

    /// `e` computed elementwise into a new array, with the array `plus` added to it in
    /// the same pass when given (`tangent.add_grad(g, e)`).
    pub(super) fn elementwise_plus(
        &mut self,
        plus: Option<Value>,
        e: &Expr,
    ) -> Result<(Value, Ty), Refusal> {
        let ty = match self.static_type(e) {
            Some(t @ (Ty::Array(_) | Ty::Array32(_))) => t,
            _ => {
                return Err(Refusal::new(
                    e.span,
                    "an elementwise expression of unknown type",
                ))
            }
        };
        let mut prog = Program::default();
        let mut ops = Operands {
            single: matches!(ty, Ty::Array32(_)),
            ..Operands::default()
        };
        if let Some(g) = plus {
            ops.arrays.push(g);
        }
        let result = self.lower_elementwise(e, &mut prog, &mut ops)?;
        if plus.is_some() {
            push_arithmetic(&mut prog, &ops, Op::Add(Src::Array(0), result));
        } else if prog.ops.is_empty() {
            // `x ** 1`: Python makes a new array; so does `x * 1.0`, exactly.
            let one = self.b.ins().f64const(1.0);
            ops.numbers.push(one);
            prog.ops
                .push(Op::Mul(result, Src::Number(ops.numbers.len() - 1)));
        }
        if ops.arrays.is_empty() || ops.arrays.len() > elementwise::MAX_ARRAYS {
            return Err(Refusal::new(
                e.span,
                format!(
                    "an elementwise expression of {} arrays (native code takes 1 to {})",
                    ops.arrays.len(),
                    elementwise::MAX_ARRAYS
                ),
            ));
        }
        let desc = self.run_program(prog, ops);
        Ok((desc, ty))
    }

    /// Calls the runtime to run `prog` on `ops`: the new array's descriptor (bails when
    /// the arrays do not have one shape).
    fn run_program(&mut self, mut prog: Program, ops: Operands) -> Value {
        prog.arrays = ops.arrays.len();
        prog.numbers = ops.numbers.len();
        let arrays = self.words_slot(&ops.arrays);
        let numbers = self.words_slot(&ops.numbers);
        let prog = Box::new(prog);
        let at = self
            .b
            .ins()
            .iconst(self.ptr, &*prog as *const Program as i64);
        self.programs.push(prog);
        let mut sig = Signature::new(self.call_conv);
        sig.params.extend([AbiParam::new(self.ptr); 4]);
        sig.returns.push(AbiParam::new(self.ptr));
        let sig = self.b.import_signature(sig);
        let f = self.b.ins().iconst(
            self.ptr,
            elementwise::run
                as unsafe extern "C" fn(
                    *mut super::runtime::Tape,
                    *const Program,
                    *const *const ArrayDesc,
                    *const f64,
                ) -> *mut ArrayDesc as *const () as i64,
        );
        let call = self
            .b
            .ins()
            .call_indirect(sig, f, &[self.ctx, at, arrays, numbers]);
        let desc = self.b.inst_results(call)[0];
        let null = self.b.ins().icmp_imm_s(IntCC::Equal, desc, 0);
        self.bail_if(null);
        desc
    }

    /// The address of a stack slot holding `words` (64 bits each).
    fn words_slot(&mut self, words: &[Value]) -> Value {
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (8 * words.len()).max(8) as u32,
            3,
        ));
        for (k, w) in words.iter().enumerate() {
            self.b.ins().stack_store(self.ptr, *w, slot, (8 * k) as i32);
        }
        self.b.ins().stack_addr(self.ptr, slot, 0)
    }

    /// Adds the operations of `e` to `prog` (operands evaluated left to right, as
    /// Python does) and says where its value is.
    fn lower_elementwise(
        &mut self,
        e: &Expr,
        prog: &mut Program,
        ops: &mut Operands,
    ) -> Result<Src, Refusal> {
        if let Some(def) = e.as_name().and_then(|n| self.deferred.get(n).cloned()) {
            return self.lower_elementwise(&def, prog, ops);
        }
        if !self.is_array_valued(e) {
            let (v, t) = self.expr(e)?;
            let x = if ops.single {
                self.number32(v, t, e.span)?
            } else {
                self.float(v, t)
            };
            ops.numbers.push(x);
            return Ok(Src::Number(ops.numbers.len() - 1));
        }
        let op = match &e.kind {
            ExprKind::BinOp(BinOp::Pow, a, b) => {
                let x = self.lower_elementwise(a, prog, ops)?;
                let Some(k) = super::typing::arrays::small_power(b) else {
                    return Err(Refusal::new(b.span, "an exponent of an array"));
                };
                if k == 1 {
                    return Ok(x);
                }
                // x**2 = x*x, x**3 = x*x*x, x**4 = (x*x)*(x*x).
                let sq = push_arithmetic(prog, ops, Op::Mul(x, x));
                match k {
                    2 => return Ok(sq),
                    3 => Op::Mul(sq, x),
                    _ => Op::Mul(sq, sq),
                }
            }
            ExprKind::BinOp(op, a, b) => {
                let x = self.lower_elementwise(a, prog, ops)?;
                let y = self.lower_elementwise(b, prog, ops)?;
                match op {
                    BinOp::Add => Op::Add(x, y),
                    BinOp::Sub => Op::Sub(x, y),
                    BinOp::Mul => Op::Mul(x, y),
                    BinOp::Div => Op::Div(x, y),
                    _ => {
                        return Err(Refusal::new(
                            e.span,
                            format!("the operator `{}` on an array", op.symbol()),
                        ))
                    }
                }
            }
            ExprKind::Unary(UnaryOp::Neg, a) => Op::Neg(self.lower_elementwise(a, prog, ops)?),
            ExprKind::Unary(UnaryOp::Pos, a) => return self.lower_elementwise(a, prog, ops),
            ExprKind::Call { func, args, .. } => {
                let path = super::typing::callee_path(func).unwrap_or_default();
                match self.calls.rules().native_scalar(&path).cloned() {
                    Some(NativeScalar::Kernel { name, single, .. }) => {
                        let mut xs = Vec::new();
                        for a in args {
                            xs.push(self.lower_elementwise(a, prog, ops)?);
                        }
                        // Over float32 arrays, NumPy's float32 function (typing checked
                        // there is one); `push_arithmetic` rounds its result (a no-op for
                        // the float32 kernels, the one rounding of a double kernel's).
                        let addr = if ops.single {
                            single.and_then(|how| super::runtime::kernel32(&name, how))
                        } else {
                            super::runtime::kernel(&name, xs.len())
                        };
                        let Some(addr) = addr else {
                            return Err(Refusal::new(e.span, format!("`{path}` of arrays")));
                        };
                        match xs.as_slice() {
                            [x] if name == "tanh" && !ops.single => Op::Tanh(*x),
                            [x] => {
                                // SAFETY: `kernel` gives the address of an
                                // `extern "C" fn(f64) -> f64` for one argument.
                                let f: extern "C" fn(f64) -> f64 =
                                    unsafe { std::mem::transmute(addr) };
                                Op::Call1(f, *x)
                            }
                            [x, y] => {
                                // SAFETY: as above, for two arguments.
                                let f: extern "C" fn(f64, f64) -> f64 =
                                    unsafe { std::mem::transmute(addr) };
                                Op::Call2(f, *x, *y)
                            }
                            _ => return Err(Refusal::new(e.span, format!("`{path}` of arrays"))),
                        }
                    }
                    // NumPy's sign: exact in either precision.
                    Some(NativeScalar::Sign) if args.len() == 1 => Op::Call1(
                        super::runtime::numpy_sign,
                        self.lower_elementwise(&args[0], prog, ops)?,
                    ),
                    // The gradient of an inner product: the number times the other vector.
                    Some(NativeScalar::DotGrad { other }) if args.len() == 3 && other < 3 => {
                        let g = self.lower_elementwise(&args[0], prog, ops)?;
                        let v = self.lower_elementwise(&args[other], prog, ops)?;
                        Op::Mul(g, v)
                    }
                    // An array given another array's shape: the same elements; the
                    // other array joins the operands so the run checks its shape.
                    Some(NativeScalar::Unbroadcast { like, .. })
                        if args.get(like).is_some_and(|l| {
                            matches!(self.static_type(l), Some(Ty::Array(_) | Ty::Array32(_)))
                        }) =>
                    {
                        let x = self.lower_elementwise(&args[0], prog, ops)?;
                        self.array_operand(&args[like], ops)?;
                        return Ok(x);
                    }
                    _ => return self.array_operand(e, ops),
                }
            }
            _ => return self.array_operand(e, ops),
        };
        Ok(push_arithmetic(prog, ops, op))
    }

    /// An array the ordinary code computes (a name, a helper's result).
    fn array_operand(&mut self, e: &Expr, ops: &mut Operands) -> Result<Src, Refusal> {
        let (v, _) = self.expr(e)?;
        ops.arrays.push(v);
        Ok(Src::Array(ops.arrays.len() - 1))
    }

    /// `tangent.unbroadcast(g, like)` and its kind: `g` given the shape of `args[like]`.
    /// The `like` value is read only when it is an array (its shape).
    pub(super) fn unbroadcast(
        &mut self,
        args: &[Expr],
        like: usize,
        sums: bool,
        span: Span,
    ) -> Result<(Value, Ty), Refusal> {
        let g = &args[0];
        let Some(l) = args.get(like) else {
            return Err(Refusal::new(span, "an unbroadcast of too few arguments"));
        };
        match (self.static_type(g), self.static_type(l)) {
            (Some(a @ (Ty::Array(_) | Ty::Array32(_))), Some(b)) if a == b => {
                let (gd, _) = self.expr(g)?;
                let (ld, _) = self.expr(l)?;
                self.bail_unless_same_shape(gd, ld);
                Ok((gd, a))
            }
            (Some(a @ (Ty::Array(_) | Ty::Array32(_))), _) if sums => {
                // `float(numpy.sum(g))`: a Python float (a float32 array summed in float32).
                let (gd, _) = self.expr(g)?;
                let total = self.sum_of(gd, matches!(a, Ty::Array32(_)));
                Ok((self.with_kind(total, super::precision::PYTHON), Ty::Float))
            }
            (_, Some(like @ (Ty::Array(_) | Ty::Array32(_)))) => {
                let (v, t) = self.expr(g)?;
                // `numpy.full(like.shape, float(g), dtype=...)`: rounded to float32 there.
                let mut x = self.float(v, t);
                if matches!(like, Ty::Array32(_)) {
                    x = self.round32(x);
                }
                let (ld, _) = self.expr(l)?;
                let mut sig = Signature::new(self.call_conv);
                sig.params
                    .extend([AbiParam::new(self.ptr), AbiParam::new(self.ptr)]);
                sig.params.push(AbiParam::new(types::F64));
                sig.returns.push(AbiParam::new(self.ptr));
                let sig = self.b.import_signature(sig);
                let f = self.b.ins().iconst(
                    self.ptr,
                    array_runtime::full_like
                        as unsafe extern "C" fn(
                            *mut super::runtime::Tape,
                            *const ArrayDesc,
                            f64,
                        ) -> *mut ArrayDesc as *const () as i64,
                );
                let call = self.b.ins().call_indirect(sig, f, &[self.ctx, ld, x]);
                Ok((self.b.inst_results(call)[0], like))
            }
            _ => self.expr(g),
        }
    }

    /// `numpy.sum(x)`: of an array, NumPy's pairwise sum; of a float, itself.
    pub(super) fn sum(&mut self, x: &Expr) -> Result<(Value, Ty), Refusal> {
        match self.expr(x)? {
            (d, Ty::Array(_)) => {
                let total = self.sum_of(d, false);
                Ok((self.with_kind(total, super::precision::DOUBLE), Ty::Float))
            }
            (d, Ty::Array32(_)) => {
                let total = self.sum_of(d, true);
                Ok((self.with_kind(total, super::precision::SINGLE), Ty::Float))
            }
            (v, Ty::Float) if self.precise => {
                // NumPy's scalar: a float32 stays one, any other number is a float64.
                let k = self.kind_of(v, Ty::Float, x.span)?;
                let single = self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::Equal, k, super::precision::SINGLE);
                let (s, d) = (
                    self.b.ins().iconst(types::I8, super::precision::SINGLE),
                    self.b.ins().iconst(types::I8, super::precision::DOUBLE),
                );
                let k = self.b.ins().select(single, s, d);
                let r = self.fresh(v);
                Ok((self.set_kind(r, k), Ty::Float))
            }
            (v, Ty::Float) => Ok((v, Ty::Float)),
            (_, t) => Err(Refusal::new(
                x.span,
                format!("`numpy.sum` of a {}", t.name()),
            )),
        }
    }

    /// `np.dot(a, b)` or `a @ b` of two vectors (another length bails: NumPy raises).
    pub(super) fn dot(&mut self, a: &Expr, b: &Expr) -> Result<(Value, Ty), Refusal> {
        let (da, db) = match (self.expr(a)?, self.expr(b)?) {
            ((da, Ty::Array(1)), (db, Ty::Array(1))) => (da, db),
            ((_, x), (_, y)) => {
                return Err(Refusal::new(
                    a.span,
                    format!("the inner product of a {} and a {}", x.name(), y.name()),
                ))
            }
        };
        self.bail_unless_same_shape(da, db);
        let mut sig = Signature::new(self.call_conv);
        sig.params.extend([AbiParam::new(self.ptr); 2]);
        sig.returns.push(AbiParam::new(types::F64));
        let sig = self.b.import_signature(sig);
        let f = self.b.ins().iconst(
            self.ptr,
            elementwise::dot as unsafe extern "C" fn(*const ArrayDesc, *const ArrayDesc) -> f64
                as *const () as i64,
        );
        let call = self.b.ins().call_indirect(sig, f, &[da, db]);
        let r = self.b.inst_results(call)[0];
        Ok((self.with_kind(r, super::precision::DOUBLE), Ty::Float))
    }

    /// The sum of an array's elements (`single`: of a float32 array, in float32).
    fn sum_of(&mut self, desc: Value, single: bool) -> Value {
        let mut sig = Signature::new(self.call_conv);
        sig.params.push(AbiParam::new(self.ptr));
        sig.returns.push(AbiParam::new(types::F64));
        let sig = self.b.import_signature(sig);
        let sum: unsafe extern "C" fn(*const ArrayDesc) -> f64 = if single {
            elementwise::sum32
        } else {
            elementwise::sum
        };
        let f = self.b.ins().iconst(self.ptr, sum as *const () as i64);
        let call = self.b.ins().call_indirect(sig, f, &[desc]);
        self.b.inst_results(call)[0]
    }
}

/// Adds `op` to `prog`, followed in a float32 program by the rounding of its result
/// (float32 values combine exactly in double for `+ - * /` but for one rounding, which is
/// NumPy's float32 result); where its value is.
fn push_arithmetic(prog: &mut Program, ops: &Operands, op: Op) -> Src {
    prog.ops.push(op);
    let at = Src::Op(prog.ops.len() - 1);
    let exact = matches!(op, Op::Neg(_) | Op::Round32(_));
    if ops.single && !exact {
        prog.ops.push(Op::Round32(at));
        return Src::Op(prog.ops.len() - 1);
    }
    at
}
