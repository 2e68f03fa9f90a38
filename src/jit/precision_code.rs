//! The code that computes with NumPy's scalar kinds (`precision.rs`): kinds recorded
//! per value, promotion, and single precision rounded once per operation.

use super::codegen::Cg;
use super::precision::*;
use super::runtime;
use super::typing::{Refusal, Ty};
use crate::syntax::ir::*;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, Value};

impl Cg<'_> {
    /// Records the kind (an i8 value) of the float `v`; returns `v`.
    pub(super) fn set_kind(&mut self, v: Value, kind: Value) -> Value {
        if self.precise {
            self.kinds.insert(v, kind);
        }
        v
    }

    /// Records the constant kind `k` of the float `v`; returns `v`.
    pub(super) fn with_kind(&mut self, v: Value, k: i64) -> Value {
        if self.precise {
            let kind = self.b.ins().iconst(types::I8, k);
            self.kinds.insert(v, kind);
        }
        v
    }

    /// Whether values of type `t` carry a kind (floats and bools, in code with float32
    /// values).
    pub(super) fn has_kind(&self, t: Ty) -> bool {
        self.precise && matches!(t, Ty::Float | Ty::Bool)
    }

    /// The kind of an operand: a Python int is weak; a float's recorded kind; a bool's
    /// recorded kind (`PYTHON`, `NUMPY_BOOL`), `UNKNOWN_BOOL` where none was recorded.
    pub(super) fn kind_of(&mut self, v: Value, t: Ty, span: Span) -> Result<Value, Refusal> {
        match t {
            Ty::Int => Ok(self.b.ins().iconst(types::I8, PYTHON)),
            Ty::Float => self.kinds.get(&v).copied().ok_or_else(|| {
                Refusal::new(
                    span,
                    "a float whose NumPy type native code does not follow here",
                )
            }),
            Ty::Bool => Ok(match self.kinds.get(&v) {
                Some(k) => *k,
                None => self.b.ins().iconst(types::I8, UNKNOWN_BOOL),
            }),
            _ => Err(Refusal::new(
                span,
                format!("a {} in arithmetic with float32 values", t.name()),
            )),
        }
    }

    /// A new value equal to the float `v` (bit for bit), so a conversion (`float(x)`)
    /// records its own kind without changing `v`'s.
    pub(super) fn fresh(&mut self, v: Value) -> Value {
        let w = self
            .b
            .ins()
            .bitcast(types::I64, cranelift_codegen::ir::MemFlagsData::new(), v);
        self.b
            .ins()
            .bitcast(types::F64, cranelift_codegen::ir::MemFlagsData::new(), w)
    }

    /// `x` rounded to float32 (as a double).
    pub(super) fn round32(&mut self, x: Value) -> Value {
        let s = self.b.ins().fdemote(types::F32, x);
        self.b.ins().fpromote(types::F64, s)
    }

    /// Whether `kind` is `SINGLE`.
    pub(super) fn is_single(&mut self, kind: Value) -> Value {
        self.b.ins().icmp_imm_s(IntCC::Equal, kind, SINGLE)
    }

    /// The kind of `a op b`: the wider of the two (Python < float32 < float64, NEP 50's
    /// order for these types).
    pub(super) fn joined_kind(&mut self, ka: Value, kb: Value) -> Value {
        self.b.ins().umax(ka, kb)
    }

    /// `op` on two floats (ints converted exactly) in the precision of their joined
    /// kind: `wide` is the double result the caller computed (with its bails); the
    /// single one is computed from the operands rounded to float32, and picked when the
    /// joined kind is `SINGLE`.
    pub(super) fn precise_binop(
        &mut self,
        op: BinOp,
        a: (Value, Value),
        b: (Value, Value),
        wide: Value,
    ) -> Value {
        let (kind, pick, xs, ys) = self.single_operands(a, b);
        let single = match op {
            BinOp::Add => self.b.ins().fadd(xs, ys),
            BinOp::Sub => self.b.ins().fsub(xs, ys),
            BinOp::Mul => self.b.ins().fmul(xs, ys),
            BinOp::Div => self.b.ins().fdiv(xs, ys),
            BinOp::FloorDiv => self.call_f64(runtime::floordiv32 as *const () as usize, &[xs, ys]),
            BinOp::Mod => self.call_f64(runtime::mod32 as *const () as usize, &[xs, ys]),
            _ => self.call_f64(runtime::pow32 as *const () as usize, &[xs, ys]),
        };
        let single = self.round32(single);
        let r = self.b.ins().select(pick, single, wide);
        self.set_kind(r, kind)
    }

    /// Two operands (value, kind): their joined kind, whether it is `SINGLE`, and the
    /// values rounded to float32.
    fn single_operands(
        &mut self,
        (x, kx): (Value, Value),
        (y, ky): (Value, Value),
    ) -> (Value, Value, Value, Value) {
        let kind = self.joined_kind(kx, ky);
        let pick = self.is_single(kind);
        (kind, pick, self.round32(x), self.round32(y))
    }

    /// The comparison `cc` of two floats in their joined precision: a float32 compares
    /// with a weak number converted to float32 (`np.float32(0.1) == 0.1`), with a float64
    /// in double (`wide`, the caller's double comparison).
    pub(super) fn precise_compare(
        &mut self,
        cc: FloatCC,
        a: (Value, Value),
        b: (Value, Value),
        wide: Value,
    ) -> Value {
        let (_, pick, xs, ys) = self.single_operands(a, b);
        let single = self.b.ins().fcmp(cc, xs, ys);
        self.b.ins().select(pick, single, wide)
    }

    /// `v` as stored into an element of a float32 array: NumPy adds in the joined
    /// precision of the element (a float32) and the value, then rounds to float32.
    pub(super) fn store32(&mut self, v: Value) -> Value {
        self.round32(v)
    }

    /// `old + v` for an element `old` of a float32 gradient array and a value of kind
    /// `kv` (`g[i] = g[i] + v`): in single precision unless `v` is a float64.
    pub(super) fn add32(&mut self, old: Value, v: Value, kv: Value) -> Value {
        let single = self.b.ins().iconst(types::I8, SINGLE);
        let kind = self.joined_kind(single, kv);
        let wide = self.b.ins().fadd(old, v);
        let vs = self.round32(v);
        let narrow = self.b.ins().fadd(old, vs);
        let pick = self.is_single(kind);
        let sum = self.b.ins().select(pick, narrow, wide);
        self.round32(sum)
    }

    /// Bails when the int `i` meets a float32 (the joined kind of `ka` and `kb` is
    /// `SINGLE`) and is past 2**24 in magnitude, where its float32 is not exact.
    pub(super) fn bail_if_wide_int(&mut self, i: Value, ka: Value, kb: Value) {
        let kind = self.joined_kind(ka, kb);
        let single = self.is_single(kind);
        let limit = 1i64 << 24;
        let shifted = self.b.ins().iadd_imm_s(i, limit);
        // |i| > 2**24  <=>  i + 2**24 outside 0..=2**25 (unsigned).
        let wide = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThan, shifted, 2 * limit);
        let bad = self.b.ins().band(single, wide);
        self.bail_if(bad);
    }

    /// The kind of the bool comparing floats of kinds `ka` and `kb`: NumPy's when
    /// either is a NumPy scalar.
    pub(super) fn compared_kind(&mut self, ka: Value, kb: Value) -> Value {
        if !numpy_bools() {
            return self.b.ins().iconst(types::I8, PYTHON);
        }
        let joined = self.joined_kind(ka, kb);
        // icmp gives 1 for NumPy's bool: `NUMPY_BOOL`.
        self.b.ins().icmp_imm_s(IntCC::NotEqual, joined, PYTHON)
    }

    /// The float kind a bool of kind `kb` takes in arithmetic with a float of kind `kf`
    /// (NumPy's bool with a Python float makes float64; Python's bool is weak); bails
    /// on a bool whose type was not followed.
    pub(super) fn bool_operand_kind(&mut self, kb: Value, kf: Value) -> Value {
        let unknown = self.b.ins().icmp_imm_s(IntCC::Equal, kb, UNKNOWN_BOOL);
        self.bail_if(unknown);
        let numpy = self.b.ins().icmp_imm_s(IntCC::Equal, kb, NUMPY_BOOL);
        let weak_other = self.b.ins().icmp_imm_s(IntCC::Equal, kf, PYTHON);
        let double = self.b.ins().iconst(types::I8, DOUBLE);
        let as_numpy = self.b.ins().select(weak_other, double, kf);
        let python = self.b.ins().iconst(types::I8, PYTHON);
        self.b.ins().select(numpy, as_numpy, python)
    }

    /// Bails unless `kb` is a Python bool's kind (NumPy's bool with an int makes a
    /// `numpy.int64`, which native ints do not follow; hosts return Python bools).
    pub(super) fn bail_unless_python_bool(&mut self, kb: Value) {
        let other = self.b.ins().icmp_imm_s(IntCC::NotEqual, kb, PYTHON);
        self.bail_if(other);
    }

    /// A new bool equal to `v`, so it records its own kind.
    pub(super) fn fresh_bool(&mut self, v: Value) -> Value {
        self.b.ins().band_imm_u(v, 1)
    }

    /// A number of type `t` meeting float32 arrays in an elementwise operation, as NumPy
    /// converts it: a Python float rounded to float32, a float32 as it is, an int exact
    /// in float32 (bails past 2**24), a bool 0 or 1; a float64 would make the result
    /// float64, not the float32 array the code was typed for: bails.
    pub(super) fn number32(&mut self, v: Value, t: Ty, span: Span) -> Result<Value, Refusal> {
        let single = self.b.ins().iconst(types::I8, SINGLE);
        match t {
            Ty::Int => self.bail_if_wide_int(v, single, single),
            Ty::Bool => {
                let kb = self.kind_of(v, t, span)?;
                self.bool_operand_kind(kb, single);
            }
            Ty::Float => {
                let k = self.kind_of(v, t, span)?;
                let double = self.b.ins().icmp_imm_s(IntCC::Equal, k, DOUBLE);
                self.bail_if(double);
            }
            _ => {
                return Err(Refusal::new(
                    span,
                    format!("a {} in an operation on float32 arrays", t.name()),
                ))
            }
        }
        let x = self.float(v, t);
        Ok(self.round32(x))
    }

    /// `numpy.float32(x)` (`single`) or `numpy.float64(x)` of a number: the value in that
    /// type (a float rounded once to float32; an int past 2**24 bails, its float32 not
    /// exact through a double), with that kind. Code that makes them follows NumPy's
    /// types (`typing::makes_numpy_scalars`).
    pub(super) fn scalar_type(
        &mut self,
        x: &Expr,
        single: bool,
        span: Span,
    ) -> Result<(Value, Ty), Refusal> {
        let name = if single { "float32" } else { "float64" };
        let (v, t) = self.expr(x)?;
        if !matches!(t, Ty::Float | Ty::Int | Ty::Bool) {
            return Err(Refusal::new(
                span,
                format!("`numpy.{name}` of a {}", t.name()),
            ));
        }
        match t {
            Ty::Int if single => {
                let k = self.b.ins().iconst(types::I8, SINGLE);
                self.bail_if_wide_int(v, k, k);
            }
            Ty::Bool => {
                let kb = self.kind_of(v, t, span)?;
                let unknown = self.b.ins().icmp_imm_s(IntCC::Equal, kb, UNKNOWN_BOOL);
                self.bail_if(unknown);
            }
            _ => {}
        }
        let f = self.float(v, t);
        let (kind, r) = if single {
            (SINGLE, self.round32(f))
        } else {
            (DOUBLE, self.fresh(f))
        };
        Ok((self.with_kind(r, kind), Ty::Float))
    }

    /// `tangent.cast_like(v, like)` of numbers: `v` in `like`'s NumPy type (rounded to
    /// float32 for a float32; a Python float for a Python number or bool).
    pub(super) fn cast_like(
        &mut self,
        v: &Expr,
        like: &Expr,
        span: Span,
    ) -> Result<(Value, Ty), Refusal> {
        let (x, tx) = self.expr(v)?;
        let (l, tl) = self.expr(like)?;
        let x = self.float(x, tx);
        if !self.precise {
            return Ok((self.fresh(x), Ty::Float));
        }
        let kind = match tl {
            Ty::Float => {
                let k = self.kind_of(l, tl, span)?;
                let single = self.is_single(k);
                let rounded = self.round32(x);
                let r = self.b.ins().select(single, rounded, x);
                return Ok((self.set_kind(r, k), Ty::Float));
            }
            _ => PYTHON,
        };
        let r = self.fresh(x);
        Ok((self.with_kind(r, kind), Ty::Float))
    }

    /// Bails when `kind` is `SINGLE` (NumPy's own float32 code computes that value).
    pub(super) fn bail_if_single(&mut self, kind: Value) {
        let single = self.is_single(kind);
        self.bail_if(single);
    }
}
