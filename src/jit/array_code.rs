//! Code for float64 arrays (typed by `array_types.rs`, laid out as `arrays::ArrayDesc`):
//! element reads with Python's negative indices (an index out of range bails, so the
//! interpreter raises the IndexError at the user's line), sizes, and gradient arrays
//! (`init_grad` makes one in the run's arena, `add_grad_at` adds into it in place).

use super::arrays::{self, ArrayDesc};
use super::codegen::Cg;
use super::typing::{Refusal, Ty};
use crate::syntax::ir::*;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, AbiParam, InstBuilder, MemFlagsData, Signature, Value};

impl Cg<'_> {
    /// Whether `e` is a name holding an array.
    pub(super) fn is_array(&self, e: &Expr) -> bool {
        e.as_name()
            .and_then(|n| self.vars.get(n))
            .is_some_and(|v| matches!(v.ty, Ty::Array(_)))
    }

    /// The descriptor address held by the array name `e`, and its dimension count (a
    /// None value bails, as Python raises TypeError on subscripting None).
    fn array(&mut self, e: &Expr) -> Result<(Value, u8), Refusal> {
        match self.expr(e)? {
            (v, Ty::Array(nd)) => Ok((v, nd)),
            (_, t) => Err(Refusal::new(e.span, format!("indexing a {}", t.name()))),
        }
    }

    fn desc_field(&mut self, desc: Value, offset: i32) -> Value {
        self.b
            .ins()
            .load(types::I64, MemFlagsData::trusted(), desc, offset)
    }

    /// The address of the element of `desc` at `index` (one int per dimension), Python's
    /// negative indices counted from the end; out of range bails.
    fn element_addr(&mut self, desc: Value, nd: u8, index: &Expr) -> Result<Value, Refusal> {
        let items = super::array_types::element_indices(index, nd)?;
        let mut offset = self.b.ins().iconst(types::I64, 0);
        for (k, item) in items.iter().enumerate() {
            let (i, t) = self.expr(item)?;
            if t != Ty::Int {
                return Err(Refusal::new(item.span, "an array index that is not an int"));
            }
            let n = self.desc_field(desc, arrays::SHAPE + 8 * k as i32);
            let wrapped = self.b.ins().iadd(i, n);
            let negative = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, i, 0);
            let i = self.b.ins().select(negative, wrapped, i);
            // Unsigned: a still-negative index is a huge one.
            let outside = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, i, n);
            self.bail_if(outside);
            let stride = self.desc_field(desc, arrays::STRIDES + 8 * k as i32);
            let step = self.b.ins().imul(i, stride);
            offset = self.b.ins().iadd(offset, step);
        }
        let data = self.desc_field(desc, arrays::DATA);
        let bytes = self.b.ins().ishl_imm_u(offset, 3);
        Ok(self.b.ins().iadd(data, bytes))
    }

    /// `x[i]`, `m[i, j]` (a float), and `x.shape[k]` (an int).
    pub(super) fn subscript(
        &mut self,
        base: &Expr,
        index: &Expr,
        span: Span,
    ) -> Result<(Value, Ty), Refusal> {
        if let ExprKind::Attr(v, a) = &base.kind {
            if a == "shape" && self.is_array(v) {
                let (desc, nd) = self.array(v)?;
                let k = super::array_types::shape_axis(index, nd)?;
                return Ok((self.desc_field(desc, arrays::SHAPE + 8 * k as i32), Ty::Int));
            }
        }
        if let Some(read) = self.dict_item(base, index)? {
            return Ok(read);
        }
        if !self.is_array(base) {
            return Err(Refusal::new(
                span,
                "indexing something other than a float64 array",
            ));
        }
        let (desc, nd) = self.array(base)?;
        let addr = self.element_addr(desc, nd, index)?;
        Ok((
            self.b
                .ins()
                .load(types::F64, MemFlagsData::trusted(), addr, 0),
            Ty::Float,
        ))
    }

    /// `d['key']` of a dict of floats: one load at the key's place (typing has checked
    /// the key is there); None if `base` is not a dict.
    fn dict_item(&mut self, base: &Expr, index: &Expr) -> Result<Option<(Value, Ty)>, Refusal> {
        let Some(Ty::Dict(keys)) = base.as_name().and_then(|n| self.vars.get(n)).map(|v| v.ty)
        else {
            return Ok(None);
        };
        let ExprKind::Str(k) = &index.kind else {
            return Err(Refusal::new(index.span, "a dict read with a computed key"));
        };
        let Some(pos) = super::containers::key_index(keys, k) else {
            return Err(Refusal::new(index.span, format!("the key {k:?}")));
        };
        let (values, _) = self.expr(base)?;
        Ok(Some((
            self.b
                .ins()
                .load(types::F64, MemFlagsData::trusted(), values, 8 * pos as i32),
            Ty::Float,
        )))
    }

    /// `x.size` and `x.ndim`.
    pub(super) fn array_attr(
        &mut self,
        v: &Expr,
        attr: &str,
        span: Span,
    ) -> Result<(Value, Ty), Refusal> {
        if !self.is_array(v) {
            return Err(Refusal::new(span, "an attribute"));
        }
        let (desc, nd) = self.array(v)?;
        match attr {
            "ndim" => Ok((self.b.ins().iconst(types::I64, i64::from(nd)), Ty::Int)),
            "size" => {
                let mut n = self.desc_field(desc, arrays::SHAPE);
                if nd == 2 {
                    let m = self.desc_field(desc, arrays::SHAPE + 8);
                    n = self.b.ins().imul(n, m);
                }
                Ok((n, Ty::Int))
            }
            _ => Err(Refusal::new(
                span,
                format!("the array attribute `{attr}` as a value"),
            )),
        }
    }

    /// `len(x)`: the first dimension.
    pub(super) fn array_len(&mut self, x: &Expr) -> Result<(Value, Ty), Refusal> {
        let (desc, _) = self.array(x)?;
        Ok((self.desc_field(desc, arrays::SHAPE), Ty::Int))
    }

    /// A zero array shaped like `like` (an `ArrayDesc` address) in the run's arena.
    fn zeros_like(&mut self, like: Value) -> Value {
        let mut sig = Signature::new(self.call_conv);
        sig.params.extend([AbiParam::new(self.ptr); 2]);
        sig.returns.push(AbiParam::new(self.ptr));
        let sig = self.b.import_signature(sig);
        let f = self.b.ins().iconst(
            self.ptr,
            arrays::zeros_like
                as unsafe extern "C" fn(
                    *mut super::runtime::Tape,
                    *const ArrayDesc,
                ) -> *mut ArrayDesc as *const () as i64,
        );
        let call = self.b.ins().call_indirect(sig, f, &[self.ctx, like]);
        self.b.inst_results(call)[0]
    }

    /// `tangent.init_grad(x)` of an array: zeros of its shape.
    pub(super) fn init_grad_array(&mut self, x: &Expr) -> Result<(Value, Ty), Refusal> {
        let (desc, nd) = self.array(x)?;
        Ok((self.zeros_like(desc), Ty::Array(nd)))
    }

    /// `g = tangent.add_grad_at(g, x, index, v)`: `v` added into `g[index]`, `g` made as
    /// zeros shaped like `x` when it is None. In place: typing has made sure `g` is the
    /// only name of its array.
    pub(super) fn add_grad_at(
        &mut self,
        args: &[Expr],
        span: Span,
    ) -> Result<(Value, Ty), Refusal> {
        let [g, x, index, v] = args else {
            return Err(Refusal::new(
                span,
                "`tangent.add_grad_at` of other arguments",
            ));
        };
        let (like, nd) = self.array(x)?;
        let acc = match &g.kind {
            ExprKind::NoneLit => self.zeros_like(like),
            _ => {
                let Some(var) = g.as_name().and_then(|n| self.vars.get(n)) else {
                    return Err(Refusal::new(g.span, "a gradient that is not a name"));
                };
                let (var, ty, flag) = (var.var, var.ty, var.flag);
                if ty != Ty::Array(nd) {
                    return Err(Refusal::new(
                        g.span,
                        format!("a gradient that is a {}", ty.name()),
                    ));
                }
                let held = self.b.use_var(var);
                match flag {
                    None => held,
                    Some(f) => {
                        // None so far: a new zero array, made only on that path.
                        let is_none = self.b.use_var(f);
                        let (make, join) = (self.b.create_block(), self.b.create_block());
                        self.b.append_block_param(join, types::I64);
                        self.b.ins().brif(is_none, make, &[], join, &[held.into()]);
                        self.b.switch_to_block(make);
                        let fresh = self.zeros_like(like);
                        self.b.ins().jump(join, &[fresh.into()]);
                        self.b.switch_to_block(join);
                        self.b.block_params(join)[0]
                    }
                }
            }
        };
        let (val, t) = self.expr(v)?;
        let val = self.float(val, t);
        let addr = self.element_addr(acc, nd, index)?;
        let old = self
            .b
            .ins()
            .load(types::F64, MemFlagsData::trusted(), addr, 0);
        let sum = self.b.ins().fadd(old, val);
        self.b.ins().store(MemFlagsData::trusted(), sum, addr, 0);
        Ok((acc, Ty::Array(nd)))
    }
}
