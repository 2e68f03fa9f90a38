//! Calls in native code: runtime kernels, the program's own functions (with their
//! argument plans), library functions and `add_grad`.

use super::codegen::*;
use super::runtime;
use super::typing::{callee_path, Refusal, Ty};
use crate::rules::NativeScalar;
use crate::syntax::ir::*;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, AbiParam, InstBuilder, MemFlagsData, Signature, StackSlotData, StackSlotKind, Value,
};

impl Cg<'_> {
    /// Calls the native function at `addr` whose parameters and result are all `ty`.
    pub(super) fn call_native(&mut self, addr: usize, ty: types::Type, args: &[Value]) -> Value {
        let mut sig = Signature::new(self.call_conv);
        sig.params.extend(args.iter().map(|_| AbiParam::new(ty)));
        sig.returns.push(AbiParam::new(ty));
        let sig = self.b.import_signature(sig);
        let f = self.b.ins().iconst(self.ptr, addr as i64);
        let call = self.b.ins().call_indirect(sig, f, args);
        self.b.inst_results(call)[0]
    }

    pub(super) fn call_f64(&mut self, addr: usize, args: &[Value]) -> Value {
        self.call_native(addr, types::F64, args)
    }

    pub(super) fn call_i64(&mut self, addr: usize, args: &[Value]) -> Value {
        self.call_native(addr, types::I64, args)
    }

    /// A call of a compiled function of the program: its outputs (a bail in the callee
    /// bails here; a None it returns, used as a value, bails too).
    pub(super) fn user_call(&mut self, e: &Expr) -> Result<Vec<(Value, Ty)>, Refusal> {
        let ExprKind::Call { func, args, kwargs } = &e.kind else {
            return Err(Refusal::new(e.span, "this expression"));
        };
        let name = func.as_name().unwrap_or_default().to_owned();
        let mut pos = Vec::new();
        for a in args {
            pos.push(self.arg(a)?);
        }
        let mut kw = Vec::new();
        for (k, a) in kwargs {
            kw.push((k.clone(), self.arg(a)?));
        }
        let pos_tys: Vec<Ty> = pos.iter().map(|p| p.1).collect();
        let kw_tys: Vec<(String, Ty)> = kw.iter().map(|(k, v)| (k.clone(), v.1)).collect();
        let plan = self.calls.plan(&name, &pos_tys, &kw_tys)?;
        let slot = |cg: &mut Self, bytes: usize| {
            cg.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                bytes.max(16) as u32,
                3,
            ))
        };
        // In code with float32 values, each argument's NumPy type follows the arguments
        // (the callee is compiled to read them: `lower`'s `kinds_from_caller`).
        let n = plan.params.len();
        let args_slot = slot(self, if self.precise { 16 * n } else { 8 * n });
        let outs_slot = slot(self, 16 * plan.outputs.len());
        for (i, src) in plan.params.iter().enumerate() {
            let (w, kind) = match src {
                ArgSrc::Pos(j) => (self.word_of(pos[*j].0, pos[*j].1), Some(pos[*j])),
                ArgSrc::Kw(j) => (self.word_of(kw[*j].1 .0, kw[*j].1 .1), Some(kw[*j].1)),
                // A literal default: a Python number or bool.
                ArgSrc::Default(bits) => (self.b.ins().iconst(types::I64, *bits as i64), None),
            };
            self.b
                .ins()
                .stack_store(self.ptr, w, args_slot, (8 * i) as i32);
            if self.precise {
                let k = match kind {
                    Some((v, t)) if self.has_kind(t) => {
                        let k = self.kind_of(v, t, e.span)?;
                        self.b.ins().uextend(types::I64, k)
                    }
                    _ => self.b.ins().iconst(types::I64, super::precision::PYTHON),
                };
                self.b
                    .ins()
                    .stack_store(self.ptr, k, args_slot, (8 * (n + i)) as i32);
            }
        }
        let ap = self.b.ins().stack_addr(self.ptr, args_slot, 0);
        let op = self.b.ins().stack_addr(self.ptr, outs_slot, 0);
        let mut sig = Signature::new(self.call_conv);
        sig.params.extend([AbiParam::new(self.ptr); 3]);
        sig.returns.push(AbiParam::new(types::I32));
        let sig = self.b.import_signature(sig);
        let mut f = self.b.ins().iconst(self.ptr, plan.addr as i64);
        if plan.indirect {
            f = self.b.ins().load(self.ptr, MemFlagsData::trusted(), f, 0);
        }
        self.sync_tape();
        let call = self.b.ins().call_indirect(sig, f, &[self.ctx, ap, op]);
        let status = self.b.inst_results(call)[0];
        self.reload_tape();
        let failed = self.b.ins().icmp_imm_s(IntCC::NotEqual, status, 0);
        self.bail_if(failed);
        let mut outs = Vec::new();
        for (k, ty) in plan.outputs.iter().enumerate() {
            let w = self
                .b
                .ins()
                .stack_load(self.ptr, types::I64, outs_slot, (16 * k) as i32);
            let flags =
                self.b
                    .ins()
                    .stack_load(self.ptr, types::I64, outs_slot, (16 * k + 8) as i32);
            // The None flag in the low byte, a float's NumPy type in the next one.
            let none = self.b.ins().band_imm_u(flags, 0xff);
            let is_none = self.b.ins().icmp_imm_s(IntCC::NotEqual, none, 0);
            self.bail_if(is_none);
            let v = self.value_of_word(w, *ty);
            if self.has_kind(*ty) {
                let kind = self.b.ins().ushr_imm_u(flags, 8);
                let kind = self.b.ins().ireduce(types::I8, kind);
                self.set_kind(v, kind);
            }
            outs.push((v, *ty));
        }
        Ok(outs)
    }

    /// An argument of a call of a compiled function: a value, or the tape's placeholder.
    pub(super) fn arg(&mut self, a: &Expr) -> Result<(Value, Ty), Refusal> {
        if a.as_name().is_some_and(|n| self.tapes.contains(n)) {
            return Ok((self.b.ins().iconst(types::I64, 0), Ty::Tape));
        }
        self.expr(a)
    }

    pub(super) fn call(
        &mut self,
        e: &Expr,
        func: &Expr,
        args: &[Expr],
    ) -> Result<(Value, Ty), Refusal> {
        let path = callee_path(func).unwrap_or_default();
        if !path.contains('.') && self.calls.is_function(&path) {
            let mut outs = self.user_call(e)?;
            return match outs.len() {
                1 => Ok(outs.remove(0)),
                _ => Err(Refusal::new(
                    e.span,
                    format!("`{path}` returns several values here"),
                )),
            };
        }
        if let Some(made) = self.made_array(func, args, e.span)? {
            return Ok(made);
        }
        match self.calls.rules().native_scalar(&path).cloned() {
            Some(NativeScalar::Kernel { .. } | NativeScalar::Sign) if self.is_array_valued(e) => {
                return self.elementwise(e)
            }
            Some(NativeScalar::Kernel {
                name,
                numpy,
                single,
                ..
            }) => {
                // NumPy's float32 function of a float32 argument, where the runtime has
                // one computing NumPy's bits (else such calls bail to the interpreter).
                let single = single
                    .filter(|_| self.precise && numpy && args.len() == 1)
                    .and_then(|how| runtime::kernel32(&name, how));
                let mut xs = Vec::new();
                let mut kinds = Vec::new();
                for a in args {
                    let (v, t) = self.expr(a)?;
                    if self.precise && numpy {
                        let k = self.kind_of(v, t, a.span)?;
                        if single.is_none() {
                            self.bail_if_single(k);
                        }
                        kinds.push(k);
                    }
                    xs.push(self.float(v, t));
                }
                let Some(addr) = runtime::kernel(&name, xs.len()) else {
                    return Err(Refusal::new(e.span, format!("`{path}`")));
                };
                let mut r = self.call_f64(addr, &xs);
                let default_kind = if numpy {
                    super::precision::DOUBLE
                } else {
                    super::precision::PYTHON
                };
                let mut kind = self.b.ins().iconst(types::I8, default_kind);
                if let (Some(addr32), [k]) = (single, kinds.as_slice()) {
                    // A float32 value (exact in float32) gives NumPy's float32 result
                    // (rounded: a no-op but for a double kernel, `host_rounds_double`).
                    let r32 = self.call_f64(addr32, &xs);
                    let r32 = self.round32(r32);
                    let pick = self.is_single(*k);
                    r = self.b.ins().select(pick, r32, r);
                    kind = self.b.ins().select(pick, *k, kind);
                }
                self.bail_unless_finite_from_finite(r, &xs);
                return Ok((self.set_kind(r, kind), Ty::Float));
            }
            Some(NativeScalar::Identity) if !args.is_empty() => return self.expr(&args[0]),
            Some(NativeScalar::Unbroadcast { like, sums }) if !args.is_empty() => {
                return self.unbroadcast(args, like, sums, e.span)
            }
            Some(NativeScalar::Sum) if args.len() == 1 => return self.sum(&args[0]),
            Some(NativeScalar::Sign) if args.len() == 1 => {
                // `float(int(x > 0) - int(x < 0))`: a Python float, 0.0 for NaN.
                let (v, t) = self.expr(&args[0])?;
                let x = self.float(v, t);
                let zero = self.b.ins().f64const(0.0);
                let (one, minus) = (self.b.ins().f64const(1.0), self.b.ins().f64const(-1.0));
                let pos = self.b.ins().fcmp(FloatCC::GreaterThan, x, zero);
                let neg = self.b.ins().fcmp(FloatCC::LessThan, x, zero);
                let r = self.b.ins().select(neg, minus, zero);
                let r = self.b.ins().select(pos, one, r);
                return Ok((self.with_kind(r, super::precision::PYTHON), Ty::Float));
            }
            Some(NativeScalar::ScalarType { single }) if args.len() == 1 => {
                return self.scalar_type(&args[0], single, e.span)
            }
            Some(NativeScalar::CastLike) if args.len() == 2 => {
                return self.cast_like(&args[0], &args[1], e.span)
            }
            Some(NativeScalar::Dot) if args.len() == 2 => return self.dot(&args[0], &args[1]),
            Some(NativeScalar::DotGrad { .. }) if self.is_array_valued(e) => {
                return self.elementwise(e)
            }
            _ => {}
        }
        if let Some(f) = path.strip_prefix("tangent.") {
            return match f {
                "init_grad"
                    if args.len() == 1
                        && (self.is_array(&args[0]) || self.is_array32(&args[0])) =>
                {
                    self.init_grad_array(&args[0])
                }
                "add_grad_at" => self.add_grad_at(args, e.span, false),
                "set_tangent_at" => self.add_grad_at(args, e.span, true),
                "zero_grad_at" => self.zero_grad_at(args, e.span),
                "add_grad" if args.iter().any(|a| self.yields_array(a)) => {
                    self.add_grad_arrays(&args[0], &args[1], e.span)
                }
                "reshape_as"
                    if args.len() == 2
                        && (self.is_array(&args[0]) || self.is_array32(&args[0])) =>
                {
                    self.reshape_as(&args[0], &args[1])
                }
                "init_grad" if self.precise && args.len() == 1 => {
                    // A float32's zero is a float32 (`_numpy.init_grad`); any other
                    // number's a Python float.
                    let (v, t) = self.expr(&args[0])?;
                    let zero = self.b.ins().f64const(0.0);
                    let k = match t {
                        Ty::Float => {
                            let k = self.kind_of(v, t, args[0].span)?;
                            let single =
                                self.b
                                    .ins()
                                    .icmp_imm_s(IntCC::Equal, k, super::precision::SINGLE);
                            let (s, p) = (
                                self.b.ins().iconst(types::I8, super::precision::SINGLE),
                                self.b.ins().iconst(types::I8, super::precision::PYTHON),
                            );
                            self.b.ins().select(single, s, p)
                        }
                        _ => self.b.ins().iconst(types::I8, super::precision::PYTHON),
                    };
                    Ok((self.set_kind(zero, k), Ty::Float))
                }
                "init_grad" => Ok((self.b.ins().f64const(0.0), Ty::Float)),
                "add_grad" => self.add_grad(&args[0], &args[1], e.span),
                // The trip count of `for v in x` (typing has checked `x`).
                "sequence_len" if args.len() == 1 => self.array_len(&args[0]),
                _ => Err(Refusal::new(e.span, format!("`{path}`"))),
            };
        }
        match (path.as_str(), args) {
            ("float", [a]) => {
                let (v, t) = self.expr(a)?;
                let f = self.float(v, t);
                // A new value (`f` may be `v` itself, whose kind stays its own).
                let f = if self.precise { self.fresh(f) } else { f };
                Ok((self.with_kind(f, super::precision::PYTHON), Ty::Float))
            }
            ("int", [a]) => {
                let (v, t) = self.expr(a)?;
                if t != Ty::Float {
                    return Ok((self.int(v, t), Ty::Int));
                }
                // int(x) truncates; outside the i64 range (or inf, NaN) let Python do it.
                let a_ = self.b.ins().fabs(v);
                let lim = self.b.ins().f64const(9.2e18);
                let ok = self.b.ins().fcmp(FloatCC::LessThan, a_, lim);
                let bad = self.b.ins().bxor_imm_u(ok, 1);
                self.bail_if(bad);
                Ok((self.b.ins().fcvt_to_sint(types::I64, v), Ty::Int))
            }
            ("bool", [a]) => Ok((self.truth(a)?, Ty::Bool)),
            ("abs", [a]) => {
                let (v, t) = self.expr(a)?;
                match t {
                    Ty::Float => {
                        let r = self.b.ins().fabs(v);
                        if self.precise {
                            let k = self.kind_of(v, t, a.span)?;
                            self.set_kind(r, k);
                        }
                        Ok((r, Ty::Float))
                    }
                    _ => {
                        let x = self.int(v, t);
                        let min = self.b.ins().icmp_imm_s(IntCC::Equal, x, i64::MIN);
                        self.bail_if(min);
                        Ok((self.b.ins().iabs(x), Ty::Int))
                    }
                }
            }
            ("min" | "max", [a, b]) => {
                let (x, tx) = self.expr(a)?;
                let (y, ty) = self.expr(b)?;
                if tx != ty {
                    return Err(Refusal::new(e.span, format!("`{path}` of two types")));
                }
                // Python's min/max keep the first of equal values and compare with `<`
                // (`>`), so NaN handling follows the comparison.
                let take_b = if path == "min" {
                    self.compare(CmpOp::Lt, (y, ty), (x, tx), e.span)?
                } else {
                    self.compare(CmpOp::Gt, (y, ty), (x, tx), e.span)?
                };
                let r = self.b.ins().select(take_b, y, x);
                if self.precise && tx == Ty::Float {
                    let (kx, ky) = (self.kind_of(x, tx, e.span)?, self.kind_of(y, ty, e.span)?);
                    let k = self.b.ins().select(take_b, ky, kx);
                    self.set_kind(r, k);
                }
                Ok((r, tx))
            }
            ("len", [x])
                if self.is_array(x)
                    || self.is_int_array(x)
                    || self.is_array32(x)
                    || self.is_seq(x) =>
            {
                self.array_len(x)
            }
            ("len", [r]) => {
                let (start, stop, step) = self.range_bounds(r)?;
                let z = self.b.ins().icmp_imm_s(IntCC::Equal, step, 0);
                self.bail_if(z);
                let n = self.call_i64(
                    runtime::range_len as *const () as usize,
                    &[start, stop, step],
                );
                Ok((n, Ty::Int))
            }
            _ => Err(Refusal::new(e.span, format!("a call of `{path}`"))),
        }
    }

    /// `tangent.add_grad(a, b)`: a + b, where None means "no gradient yet".
    pub(super) fn add_grad(
        &mut self,
        a: &Expr,
        b: &Expr,
        span: Span,
    ) -> Result<(Value, Ty), Refusal> {
        let side = |cg: &mut Self, x: &Expr| -> Result<(Value, Ty, Value), Refusal> {
            if let Some(var) = x.as_name().and_then(|n| cg.vars.get(n)) {
                let (v, ty, flag, kind) = (var.var, var.ty, var.flag, var.kind);
                let val = cg.b.use_var(v);
                if let Some(k) = kind {
                    let kv = cg.b.use_var(k);
                    cg.set_kind(val, kv);
                }
                let fl = match flag {
                    Some(f) => cg.b.use_var(f),
                    None => cg.b.ins().iconst(types::I8, 0),
                };
                return Ok((val, ty, fl));
            }
            let (v, t) = cg.expr(x)?;
            let fl = cg.b.ins().iconst(types::I8, 0);
            Ok((v, t, fl))
        };
        let (x, tx, fx) = side(self, a)?;
        let (y, ty, fy) = side(self, b)?;
        if tx != ty {
            return Err(Refusal::new(span, "add_grad of two types"));
        }
        // Both None: Python returns None, which the native code cannot hold here.
        let both = self.b.ins().band(fx, fy);
        self.bail_if(both);
        let (sum, _) = self.binop(BinOp::Add, (x, tx), (y, ty), span)?;
        let pick_y = self.b.ins().select(fx, y, sum);
        let r = self.b.ins().select(fy, x, pick_y);
        if self.precise && tx == Ty::Float {
            // A None side has no kind worth reading: its select picks the other's.
            let (kx, ky, ks) = (
                self.kind_of(x, tx, span)?,
                self.kind_of(y, ty, span)?,
                self.kind_of(sum, tx, span)?,
            );
            let k = self.b.ins().select(fx, ky, ks);
            let k = self.b.ins().select(fy, kx, k);
            self.set_kind(r, k);
        }
        Ok((r, tx))
    }
}
