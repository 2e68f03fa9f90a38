//! Expressions in native code: numbers and their conversions, truth, operators,
//! comparisons and names.

use super::codegen::*;
use super::runtime;
use super::typing::{Refusal, Ty};
use crate::syntax::ir::*;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, Value};

impl Cg<'_> {
    pub(super) fn float(&mut self, v: Value, t: Ty) -> Value {
        match t {
            Ty::Float => v,
            Ty::Bool => {
                let w = self.b.ins().uextend(types::I64, v);
                self.b.ins().fcvt_from_sint(types::F64, w)
            }
            _ => self.b.ins().fcvt_from_sint(types::F64, v),
        }
    }

    /// An int as a float where Python computes with the int's exact value (`i / j` of
    /// two ints, `i < x` with a float): bails past 2**53, where the conversion rounds.
    pub(super) fn exact_float(&mut self, v: Value, t: Ty) -> Value {
        if t == Ty::Int {
            let limit = 1i64 << 53;
            let shifted = self.b.ins().iadd_imm_s(v, limit);
            let outside = self
                .b
                .ins()
                .icmp_imm_u(IntCC::UnsignedGreaterThan, shifted, 2 * limit);
            self.bail_if(outside);
        }
        self.float(v, t)
    }

    pub(super) fn int(&mut self, v: Value, t: Ty) -> Value {
        match t {
            Ty::Bool => self.b.ins().uextend(types::I64, v),
            _ => v,
        }
    }

    pub(super) fn truthy(&mut self, v: Value, t: Ty) -> Value {
        match t {
            Ty::Float => {
                let z = self.b.ins().f64const(0.0);
                self.b.ins().fcmp(FloatCC::NotEqual, v, z)
            }
            Ty::Bool => v,
            _ => self.b.ins().icmp_imm_s(IntCC::NotEqual, v, 0),
        }
    }

    pub(super) fn truth(&mut self, e: &Expr) -> Result<Value, Refusal> {
        let (v, t) = self.expr(e)?;
        if t.is_container() {
            // An array's raises (or is its one element's); an empty dict or tuple is
            // false: none of them is a number's truth.
            return Err(Refusal::new(
                e.span,
                format!("the truth value of a {}", t.name()),
            ));
        }
        Ok(self.truthy(v, t))
    }

    /// Bails when `r` is not finite although every input is (Python raises
    /// OverflowError or ValueError where C returns inf or NaN).
    pub(super) fn bail_unless_finite_from_finite(&mut self, r: Value, inputs: &[Value]) {
        let inf = self.b.ins().f64const(f64::INFINITY);
        let finite = |cg: &mut Self, x: Value| {
            let a = cg.b.ins().fabs(x);
            cg.b.ins().fcmp(FloatCC::LessThan, a, inf)
        };
        let mut all = finite(self, inputs[0]);
        for x in &inputs[1..] {
            let f = finite(self, *x);
            all = self.b.ins().band(all, f);
        }
        let rf = finite(self, r);
        let bad_r = self.b.ins().bxor_imm_u(rf, 1);
        let bad = self.b.ins().band(all, bad_r);
        self.bail_if(bad);
    }

    pub(super) fn read_var(&mut self, n: &str, span: Span) -> Result<(Value, Ty), Refusal> {
        let Some(var) = self.vars.get(n) else {
            return Err(Refusal::new(span, format!("`{n}` has no type")));
        };
        if let Some(v) = self.fixed.get(n) {
            return Ok((*v, var.ty));
        }
        let (v, ty, flag, kind) = (var.var, var.ty, var.flag, var.kind);
        if let Some(f) = flag {
            // Computing with None raises TypeError in Python.
            let fv = self.b.use_var(f);
            self.bail_if(fv);
        }
        let val = self.b.use_var(v);
        if let Some(k) = kind {
            let kv = self.b.use_var(k);
            self.set_kind(val, kv);
        }
        Ok((val, ty))
    }

    /// `z` when `v` is `-z` (a float negated by this code).
    pub(super) fn negated(&self, v: Value) -> Option<Value> {
        let dfg = &self.b.func.dfg;
        let cranelift_codegen::ir::ValueDef::Result(inst, _) = dfg.value_def(v) else {
            return None;
        };
        match dfg.insts[inst] {
            cranelift_codegen::ir::InstructionData::Unary {
                opcode: cranelift_codegen::ir::Opcode::Fneg,
                arg,
            } => Some(arg),
            _ => None,
        }
    }

    pub(super) fn binop(
        &mut self,
        op: BinOp,
        a: (Value, Ty),
        b: (Value, Ty),
        span: Span,
    ) -> Result<(Value, Ty), Refusal> {
        let Some(rt) = super::typing::arith_type(op, a.1, b.1) else {
            return Err(Refusal::new(
                span,
                format!("the operator `{}`", op.symbol()),
            ));
        };
        if rt == Ty::Float {
            let (x, y) = if op == BinOp::Div && a.1 != Ty::Float && b.1 != Ty::Float {
                // Python divides two ints exactly, then rounds once.
                (self.exact_float(a.0, a.1), self.exact_float(b.0, b.1))
            } else {
                (self.float(a.0, a.1), self.float(b.0, b.1))
            };
            let zero = self.b.ins().f64const(0.0);
            // `x + (-z)` is `x - z` and `x - (-z)` is `x + z` exactly (IEEE 754 defines
            // subtraction so): one operation less on chains like `bT = bT + (-g)`.
            let v = match (op, self.negated(x), self.negated(y)) {
                (BinOp::Add, _, Some(z)) => self.b.ins().fsub(x, z),
                (BinOp::Add, Some(w), None) => self.b.ins().fsub(y, w),
                (BinOp::Add, None, None) => self.b.ins().fadd(x, y),
                (BinOp::Sub, _, Some(z)) => self.b.ins().fadd(x, z),
                (BinOp::Sub, _, None) => self.b.ins().fsub(x, y),
                (BinOp::Mul, ..) => self.b.ins().fmul(x, y),
                (BinOp::Div | BinOp::FloorDiv | BinOp::Mod, ..) => {
                    let z = self.b.ins().fcmp(FloatCC::Equal, y, zero);
                    self.bail_if(z);
                    match op {
                        BinOp::Div => self.b.ins().fdiv(x, y),
                        BinOp::FloorDiv => {
                            self.call_f64(runtime::py_floordiv as *const () as usize, &[x, y])
                        }
                        _ => self.call_f64(runtime::py_fmod as *const () as usize, &[x, y]),
                    }
                }
                (BinOp::Pow, ..) => {
                    let r = self.call_f64(runtime::py_pow as *const () as usize, &[x, y]);
                    self.bail_unless_finite_from_finite(r, &[x, y]);
                    r
                }
                (BinOp::MatMul, ..) => unreachable!("arith_type refuses @"),
            };
            if self.precise {
                let mut ka = self.kind_of(a.0, a.1, span)?;
                let mut kb = self.kind_of(b.0, b.1, span)?;
                // A bool takes the float kind its type makes with the other operand.
                if a.1 == Ty::Bool {
                    ka = self.bool_operand_kind(ka, kb);
                } else if b.1 == Ty::Bool {
                    kb = self.bool_operand_kind(kb, ka);
                }
                // An int meeting a float32 converts to float32 exactly up to 2**24; past
                // that NumPy's conversion is the interpreter's.
                for (v, t) in [a, b] {
                    if t == Ty::Int {
                        self.bail_if_wide_int(v, ka, kb);
                    }
                }
                return Ok((self.precise_binop(op, (x, ka), (y, kb), v), Ty::Float));
            }
            return Ok((v, Ty::Float));
        }
        if self.precise {
            // A NumPy bool with an int makes a `numpy.int64`.
            for (v, t) in [a, b] {
                if t == Ty::Bool {
                    let k = self.kind_of(v, t, span)?;
                    self.bail_unless_python_bool(k);
                }
            }
        }
        let (x, y) = (self.int(a.0, a.1), self.int(b.0, b.1));
        let v = match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul => {
                let (v, of) = match op {
                    BinOp::Add => self.b.ins().sadd_overflow(x, y),
                    BinOp::Sub => self.b.ins().ssub_overflow(x, y),
                    _ => self.b.ins().smul_overflow(x, y),
                };
                // Python ints do not overflow: let the interpreter handle it.
                self.bail_if(of);
                v
            }
            BinOp::FloorDiv | BinOp::Mod | BinOp::Pow => {
                let f = match op {
                    BinOp::FloorDiv => runtime::py_ifloordiv as *const () as usize,
                    BinOp::Mod => runtime::py_imod as *const () as usize,
                    _ => runtime::py_ipow as *const () as usize,
                };
                let r = self.call_i64(f, &[x, y]);
                // i64::MIN marks what Python does differently (division by zero, a
                // negative exponent, overflow).
                let bad = self.b.ins().icmp_imm_s(IntCC::Equal, r, i64::MIN);
                self.bail_if(bad);
                r
            }
            _ => {
                return Err(Refusal::new(
                    span,
                    format!("the operator `{}` on ints", op.symbol()),
                ))
            }
        };
        Ok((v, Ty::Int))
    }

    pub(super) fn compare(
        &mut self,
        op: CmpOp,
        a: (Value, Ty),
        b: (Value, Ty),
        span: Span,
    ) -> Result<Value, Refusal> {
        if a.1 == Ty::Float || b.1 == Ty::Float {
            // Python compares an int with a float by their exact values.
            let (x, y) = (self.exact_float(a.0, a.1), self.exact_float(b.0, b.1));
            let cc = match op {
                CmpOp::Eq => FloatCC::Equal,
                CmpOp::NotEq => FloatCC::NotEqual,
                CmpOp::Lt => FloatCC::LessThan,
                CmpOp::LtE => FloatCC::LessThanOrEqual,
                CmpOp::Gt => FloatCC::GreaterThan,
                _ => FloatCC::GreaterThanOrEqual,
            };
            let wide = self.b.ins().fcmp(cc, x, y);
            if self.precise {
                let ka = self.kind_of(a.0, a.1, span)?;
                let kb = self.kind_of(b.0, b.1, span)?;
                let r = self.precise_compare(cc, (x, ka), (y, kb), wide);
                let k = if a.1 == Ty::Bool || b.1 == Ty::Bool {
                    self.b
                        .ins()
                        .iconst(types::I8, super::precision::UNKNOWN_BOOL)
                } else {
                    self.compared_kind(ka, kb)
                };
                return Ok(self.set_kind(r, k));
            }
            return Ok(wide);
        }
        let (x, y) = (self.int(a.0, a.1), self.int(b.0, b.1));
        let cc = match op {
            CmpOp::Eq => IntCC::Equal,
            CmpOp::NotEq => IntCC::NotEqual,
            CmpOp::Lt => IntCC::SignedLessThan,
            CmpOp::LtE => IntCC::SignedLessThanOrEqual,
            CmpOp::Gt => IntCC::SignedGreaterThan,
            _ => IntCC::SignedGreaterThanOrEqual,
        };
        let r = self.b.ins().icmp(cc, x, y);
        // Python's ints compare to a Python bool (a bool operand's type is not followed).
        let k = if a.1 == Ty::Bool || b.1 == Ty::Bool {
            super::precision::UNKNOWN_BOOL
        } else {
            super::precision::PYTHON
        };
        Ok(self.with_kind(r, k))
    }

    pub(super) fn expr(&mut self, e: &Expr) -> Result<(Value, Ty), Refusal> {
        Ok(match &e.kind {
            ExprKind::Name(n) => self.read_var(n, e.span)?,
            ExprKind::Num(t) => match t.parse::<i64>() {
                Ok(i) => (self.b.ins().iconst(types::I64, i), Ty::Int),
                Err(_) => {
                    let v: f64 = t
                        .parse()
                        .map_err(|_| Refusal::new(e.span, format!("the literal `{t}`")))?;
                    let c = self.b.ins().f64const(v);
                    (self.with_kind(c, super::precision::PYTHON), Ty::Float)
                }
            },
            ExprKind::Bool(v) => {
                let c = self.b.ins().iconst(types::I8, i64::from(*v));
                (self.with_kind(c, super::precision::PYTHON), Ty::Bool)
            }
            ExprKind::BinOp(..) | ExprKind::Unary(..) if self.is_array_valued(e) => {
                self.elementwise(e)?
            }
            ExprKind::BinOp(BinOp::MatMul, a, b) => self.dot(a, b)?,
            ExprKind::BinOp(op, a, b) => {
                let small = small_int_exponent(*op, b);
                let a = self.expr(a)?;
                match small {
                    // `x ** 1` is x and `x ** 2` is x * x for a float x, as Python's
                    // pow gives them (the product is the exact square rounded once),
                    // without a call; an overflow to inf still bails as pow raises.
                    Some(k) if a.1 == Ty::Float && !self.precise => {
                        if k == 1 {
                            a
                        } else {
                            let sq = self.b.ins().fmul(a.0, a.0);
                            self.bail_unless_finite_from_finite(sq, &[a.0]);
                            (sq, Ty::Float)
                        }
                    }
                    _ => {
                        let b = self.expr(b)?;
                        self.binop(*op, a, b, e.span)?
                    }
                }
            }
            ExprKind::Unary(op, a) => {
                let (v, t) = self.expr(a)?;
                match op {
                    UnaryOp::Not => {
                        let tv = self.truthy(v, t);
                        let r = self.b.ins().bxor_imm_u(tv, 1);
                        (self.with_kind(r, super::precision::PYTHON), Ty::Bool)
                    }
                    UnaryOp::Pos => match t {
                        Ty::Bool => (self.int(v, t), Ty::Int),
                        _ => (v, t),
                    },
                    UnaryOp::Neg => match t {
                        Ty::Float => {
                            let r = self.b.ins().fneg(v);
                            if self.precise {
                                let k = self.kind_of(v, t, e.span)?;
                                self.set_kind(r, k);
                            }
                            (r, Ty::Float)
                        }
                        _ => {
                            let x = self.int(v, t);
                            let zero = self.b.ins().iconst(types::I64, 0);
                            let (r, of) = self.b.ins().ssub_overflow(zero, x);
                            self.bail_if(of);
                            (r, Ty::Int)
                        }
                    },
                }
            }
            ExprKind::Compare(first, rest) => {
                let mut left = if rest
                    .iter()
                    .any(|(op, _)| matches!(op, CmpOp::Is | CmpOp::IsNot))
                {
                    None
                } else {
                    Some(self.expr(first)?)
                };
                let mut acc: Option<Value> = None;
                let mut lhs_expr = &**first;
                for (op, rhs) in rest {
                    let r = match op {
                        CmpOp::Is | CmpOp::IsNot => {
                            let is_none = self.is_none(lhs_expr);
                            if matches!(op, CmpOp::Is) {
                                is_none
                            } else {
                                self.b.ins().bxor_imm_u(is_none, 1)
                            }
                        }
                        _ => {
                            let l = match left {
                                Some(l) => l,
                                None => self.expr(lhs_expr)?,
                            };
                            let rv = self.expr(rhs)?;
                            let r = self.compare(*op, l, rv, e.span)?;
                            left = Some(rv);
                            r
                        }
                    };
                    acc = Some(match acc {
                        Some(a) => self.b.ins().band(a, r),
                        None => r,
                    });
                    lhs_expr = rhs;
                }
                let r = acc.unwrap_or_else(|| self.b.ins().iconst(types::I8, 1));
                if rest.len() > 1 || !self.kinds.contains_key(&r) {
                    // `a < b < c` is one of two comparisons' bools; `x is None` Python's.
                    let k = if rest.len() > 1 {
                        super::precision::UNKNOWN_BOOL
                    } else {
                        super::precision::PYTHON
                    };
                    let r = self.fresh_bool(r);
                    (self.with_kind(r, k), Ty::Bool)
                } else {
                    (r, Ty::Bool)
                }
            }
            ExprKind::BoolOp(op, es) => {
                let mut acc: Option<Value> = None;
                for x in es {
                    let v = self.truth(x)?;
                    acc = Some(match (acc, op) {
                        (None, _) => v,
                        (Some(a), BoolOp::And) => self.b.ins().band(a, v),
                        (Some(a), BoolOp::Or) => self.b.ins().bor(a, v),
                    });
                }
                let r = acc.unwrap_or_else(|| self.b.ins().iconst(types::I8, 1));
                // One of the operands, whose types are not followed here.
                (self.with_kind(r, super::precision::UNKNOWN_BOOL), Ty::Bool)
            }
            ExprKind::IfExp { test, body, orelse } => {
                let c = self.truth(test)?;
                let (a, ta) = self.expr(body)?;
                let (b, tb) = self.expr(orelse)?;
                if ta != tb {
                    return Err(Refusal::new(
                        e.span,
                        "a conditional expression with two types",
                    ));
                }
                let r = self.b.ins().select(c, a, b);
                if self.has_kind(ta) {
                    let (ka, kb) = (self.kind_of(a, ta, e.span)?, self.kind_of(b, tb, e.span)?);
                    let k = self.b.ins().select(c, ka, kb);
                    self.set_kind(r, k);
                }
                (r, ta)
            }
            ExprKind::Attr(v, a) if v.as_name() == Some("math") && math_constant(a).is_some() => {
                let c = self.b.ins().f64const(math_constant(a).unwrap_or_default());
                (self.with_kind(c, super::precision::PYTHON), Ty::Float)
            }
            ExprKind::Attr(v, a) => match self.field(v, a)? {
                Some(read) => read,
                None => self.array_attr(v, a, e.span)?,
            },
            ExprKind::Subscript(base, index) => self.subscript(base, index, e.span)?,
            ExprKind::Call { func, args, .. } => self.call(e, func, args)?,
            _ => return Err(Refusal::new(e.span, "this expression")),
        })
    }

    pub(super) fn is_none(&mut self, e: &Expr) -> Value {
        match e
            .as_name()
            .and_then(|n| self.vars.get(n))
            .and_then(|v| v.flag)
        {
            Some(f) => self.b.use_var(f),
            None => self.b.ins().iconst(types::I8, 0),
        }
    }
}

/// The value of `math.<name>` for the constants native code knows.
fn math_constant(name: &str) -> Option<f64> {
    Some(match name {
        "pi" => std::f64::consts::PI,
        "e" => std::f64::consts::E,
        "tau" => std::f64::consts::TAU,
        "inf" => f64::INFINITY,
        _ => return None,
    })
}

/// `k` when `op` is `**` and `e` the literal 1 or 2.
fn small_int_exponent(op: BinOp, e: &Expr) -> Option<u8> {
    match (&e.kind, op) {
        (ExprKind::Num(t), BinOp::Pow) if t == "1" || t == "2" => t.parse().ok(),
        _ => None,
    }
}
