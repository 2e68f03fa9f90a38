//! Code for float64 arrays (typed by `array_types.rs`, laid out as `arrays::ArrayDesc`)
//! and read-only int64 ones: element reads and stores with Python's negative indices (an index out of range bails,
//! so the interpreter raises the IndexError at the user's line), sizes, arrays made in
//! the run's arena (`np.zeros`, `np.zeros_like`, `.copy()`) and gradient arrays
//! (`init_grad` makes one, `add_grad_at` and `zero_grad_at` change it in place).

use super::array_runtime;
use super::arrays::{self, ArrayDesc};
use super::codegen::Cg;
use super::typing::{Refusal, Ty};
use crate::rules::NativeScalar;
use crate::syntax::ir::*;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, AbiParam, InstBuilder, MemFlagsData, Signature, Value};

impl Cg<'_> {
    /// Whether `e` is a name holding a tuple or list of floats.
    pub(super) fn is_seq(&self, e: &Expr) -> bool {
        e.as_name()
            .and_then(|n| self.vars.get(n))
            .is_some_and(|v| matches!(v.ty, Ty::Seq(_)))
    }

    /// Whether `e` is a name holding a float64 array.
    pub(super) fn is_array(&self, e: &Expr) -> bool {
        e.as_name()
            .and_then(|n| self.vars.get(n))
            .is_some_and(|v| matches!(v.ty, Ty::Array(_)))
    }

    /// Whether `e` is a name holding a float32 array.
    pub(super) fn is_array32(&self, e: &Expr) -> bool {
        e.as_name()
            .and_then(|n| self.vars.get(n))
            .is_some_and(|v| matches!(v.ty, Ty::Array32(_)))
    }

    /// Whether `e` is a name holding an int64 array (read by element only).
    pub(super) fn is_int_array(&self, e: &Expr) -> bool {
        e.as_name()
            .and_then(|n| self.vars.get(n))
            .is_some_and(|v| matches!(v.ty, Ty::IntArray(_)))
    }

    /// The descriptor address held by the array name `e`, and its dimension count (a
    /// None value bails, as Python raises TypeError on subscripting None).
    fn array(&mut self, e: &Expr) -> Result<(Value, u8), Refusal> {
        match self.expr(e)? {
            (v, Ty::Array(nd) | Ty::IntArray(nd) | Ty::Array32(nd)) => Ok((v, nd)),
            // A tuple or list of floats is laid out as a 1-d array (`containers.rs`).
            (v, Ty::Seq(_)) => Ok((v, 1)),
            (_, t) => Err(Refusal::new(e.span, format!("indexing a {}", t.name()))),
        }
    }

    fn desc_field(&mut self, desc: Value, offset: i32) -> Value {
        self.fixed_load(types::I64, desc, offset)
    }

    /// The address of the element of `desc` at `index` (one int per dimension), Python's
    /// negative indices counted from the end; out of range bails.
    fn element_addr(&mut self, desc: Value, nd: u8, index: &Expr) -> Result<Value, Refusal> {
        let items = super::typing::arrays::element_indices(index, nd)?;
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
            if a == "shape" && (self.is_array(v) || self.is_int_array(v) || self.is_array32(v)) {
                let (desc, nd) = self.array(v)?;
                let k = super::typing::arrays::shape_axis(index, nd)?;
                return Ok((self.desc_field(desc, arrays::SHAPE + 8 * k as i32), Ty::Int));
            }
        }
        if let Some(read) = self.dict_item(base, index)? {
            return Ok(read);
        }
        if self.is_seq(base) {
            // `t[i]`: an element (typing has checked `i` is one int), of the elements'
            // kind (code with float32 values refuses sequences of mixed kinds).
            let (desc, t) = self.expr(base)?;
            let addr = self.element_addr(desc, 1, index)?;
            let v = self
                .b
                .ins()
                .load(types::F64, MemFlagsData::trusted(), addr, 0);
            if let Ty::Seq(kind) = t {
                self.with_kind(v, i64::from(kind));
            }
            return Ok((v, Ty::Float));
        }
        let ints = self.is_int_array(base);
        let single = self.is_array32(base);
        if !self.is_array(base) && !ints && !single {
            return Err(Refusal::new(
                span,
                "indexing something other than a float64 array",
            ));
        }
        let (desc, nd) = self.array(base)?;
        let (elem, row) = if ints {
            ((types::I64, Ty::Int), Ty::IntArray(1))
        } else {
            ((types::F64, Ty::Float), Ty::Array(1))
        };
        if super::typing::arrays::is_row_index(index, nd) {
            let (i, t) = self.expr(index)?;
            if t != Ty::Int {
                return Err(Refusal::new(
                    index.span,
                    "an array index that is not an int",
                ));
            }
            let addr = array_runtime::row_view
                as unsafe extern "C" fn(
                    *mut super::runtime::Tape,
                    *const ArrayDesc,
                    i64,
                ) -> *mut ArrayDesc as *const () as usize;
            return Ok((self.make_array(addr, &[desc, i]), row));
        }
        let addr = self.element_addr(desc, nd, index)?;
        let v = self.b.ins().load(elem.0, MemFlagsData::trusted(), addr, 0);
        if elem.1 == Ty::Float {
            // Indexing gives NumPy's scalar of the array's dtype.
            let kind = if single {
                super::precision::SINGLE
            } else {
                super::precision::DOUBLE
            };
            self.with_kind(v, kind);
        }
        Ok((v, elem.1))
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
        let Some(pos) = super::typing::containers::key_index(keys, k) else {
            return Err(Refusal::new(index.span, format!("the key {k:?}")));
        };
        let (values, _) = self.expr(base)?;
        let v = self.fixed_load(types::F64, values, 8 * pos as i32);
        self.with_kind(v, i64::from(super::typing::containers::key_kind(keys, pos)));
        Ok(Some((v, Ty::Float)))
    }

    /// `p.C` of a record (typing has checked the field is there); None if `v` is not a
    /// record.
    pub(super) fn field(&mut self, v: &Expr, attr: &str) -> Result<Option<(Value, Ty)>, Refusal> {
        let Some(Ty::Record(keys)) = v.as_name().and_then(|n| self.vars.get(n)).map(|v| v.ty)
        else {
            return Ok(None);
        };
        let Some(pos) = super::typing::containers::key_index(keys, attr) else {
            return Err(Refusal::new(v.span, format!("the attribute `{attr}`")));
        };
        let (values, _) = self.expr(v)?;
        let v = self.fixed_load(types::F64, values, 8 * pos as i32);
        self.with_kind(v, i64::from(super::typing::containers::key_kind(keys, pos)));
        Ok(Some((v, Ty::Float)))
    }

    /// `x.size` and `x.ndim`.
    pub(super) fn array_attr(
        &mut self,
        v: &Expr,
        attr: &str,
        span: Span,
    ) -> Result<(Value, Ty), Refusal> {
        if !self.is_array(v) && !self.is_int_array(v) && !self.is_array32(v) {
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
            array_runtime::zeros_like
                as unsafe extern "C" fn(
                    *mut super::runtime::Tape,
                    *const ArrayDesc,
                ) -> *mut ArrayDesc as *const () as i64,
        );
        let call = self.b.ins().call_indirect(sig, f, &[self.ctx, like]);
        self.b.inst_results(call)[0]
    }

    /// `u[index] = value` (a float) into an array the function made.
    pub(super) fn store_element(
        &mut self,
        base: &Expr,
        index: &Expr,
        value: Value,
    ) -> Result<(), Refusal> {
        let (desc, nd) = self.array(base)?;
        let addr = self.element_addr(desc, nd, index)?;
        self.b.ins().store(MemFlagsData::trusted(), value, addr, 0);
        Ok(())
    }

    /// `g = tangent.zero_grad_at(g, index)`: the element set to zero, in place (typing
    /// has made sure `g` is the only name of its array; None bails).
    pub(super) fn zero_grad_at(
        &mut self,
        args: &[Expr],
        span: Span,
    ) -> Result<(Value, Ty), Refusal> {
        let [g, index] = args else {
            return Err(Refusal::new(
                span,
                "`tangent.zero_grad_at` of other arguments",
            ));
        };
        let single = self.is_array32(g);
        let (desc, nd) = self.array(g)?;
        let zero = self.b.ins().f64const(0.0);
        let addr = self.element_addr(desc, nd, index)?;
        self.b.ins().store(MemFlagsData::trusted(), zero, addr, 0);
        Ok((
            desc,
            if single {
                Ty::Array32(nd)
            } else {
                Ty::Array(nd)
            },
        ))
    }

    /// Calls a runtime function taking the tape and words, returning a descriptor
    /// address (null: bail).
    fn make_array(&mut self, addr: usize, args: &[Value]) -> Value {
        let mut sig = Signature::new(self.call_conv);
        sig.params.push(AbiParam::new(self.ptr));
        sig.params
            .extend(args.iter().map(|_| AbiParam::new(types::I64)));
        sig.returns.push(AbiParam::new(self.ptr));
        let sig = self.b.import_signature(sig);
        let f = self.b.ins().iconst(self.ptr, addr as i64);
        let mut all = vec![self.ctx];
        all.extend_from_slice(args);
        let call = self.b.ins().call_indirect(sig, f, &all);
        let desc = self.b.inst_results(call)[0];
        let null = self.b.ins().icmp_imm_s(IntCC::Equal, desc, 0);
        self.bail_if(null);
        desc
    }

    /// `numpy.zeros(n)`, `numpy.zeros((n, m))`, `numpy.zeros_like(x)`, `numpy.copy(x)`,
    /// `x.copy()` (the kinds backends/ declares); None if the call is not one of them.
    pub(super) fn made_array(
        &mut self,
        func: &Expr,
        args: &[Expr],
        span: Span,
    ) -> Result<Option<(Value, Ty)>, Refusal> {
        let method_of = match &func.kind {
            ExprKind::Attr(v, m) if self.is_array(v) || self.is_array32(v) => {
                Some((&**v, m.as_str()))
            }
            _ => None,
        };
        // A copy or a zero array of a float32 array is float32.
        let like_ty = |cg: &Self, x: &Expr, nd: u8| {
            if cg.is_array32(x) {
                Ty::Array32(nd)
            } else {
                Ty::Array(nd)
            }
        };
        let rules = self.calls.rules();
        let kind = match method_of {
            Some((_, m)) => rules.native_scalar(&rules.array_member(m)).cloned(),
            None => super::typing::callee_path(func).and_then(|p| rules.native_scalar(&p).cloned()),
        };
        let copy_addr = array_runtime::copy_of
            as unsafe extern "C" fn(*mut super::runtime::Tape, *const ArrayDesc) -> *mut ArrayDesc
            as *const () as usize;
        Ok(Some(match (kind, method_of, args) {
            (Some(NativeScalar::ArrayCopy), Some((x, _)), []) => {
                let (desc, nd) = self.array(x)?;
                (self.make_array(copy_addr, &[desc]), like_ty(self, x, nd))
            }
            (Some(NativeScalar::ArrayCopy), None, [x]) => {
                let (desc, nd) = self.array(x)?;
                (self.make_array(copy_addr, &[desc]), like_ty(self, x, nd))
            }
            (Some(NativeScalar::ArrayLike), None, [x]) => {
                let (desc, nd) = self.array(x)?;
                (self.zeros_like(desc), like_ty(self, x, nd))
            }
            (Some(NativeScalar::NewArray), None, [shape]) => {
                let dims: Vec<&Expr> = match &shape.kind {
                    ExprKind::Tuple(es) => es.iter().collect(),
                    _ => vec![shape],
                };
                let mut sizes = Vec::new();
                for d in &dims {
                    let (v, t) = self.expr(d)?;
                    if t != Ty::Int {
                        return Err(Refusal::new(d.span, "an array size that is not an int"));
                    }
                    sizes.push(v);
                }
                let nd = dims.len();
                if !(1..=2).contains(&nd) {
                    return Err(Refusal::new(
                        span,
                        "an array of other than 1 or 2 dimensions",
                    ));
                }
                let one = self.b.ins().iconst(types::I64, 1);
                let n1 = if nd == 2 { sizes[1] } else { one };
                let ndv = self.b.ins().iconst(types::I64, nd as i64);
                let addr = array_runtime::new_zeros
                    as unsafe extern "C" fn(
                        *mut super::runtime::Tape,
                        i64,
                        i64,
                        i64,
                    ) -> *mut ArrayDesc as *const () as usize;
                (
                    self.make_array(addr, &[sizes[0], n1, ndv]),
                    Ty::Array(nd as u8),
                )
            }
            _ => return Ok(None),
        }))
    }

    /// Whether `e` evaluates to an array: an array name, or `tangent.reshape_as` of one.
    pub(super) fn yields_array(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Call { func, args, .. } => {
                super::typing::callee_path(func).as_deref() == Some("tangent.reshape_as")
                    && args
                        .first()
                        .is_some_and(|g| self.is_array(g) || self.is_array32(g))
            }
            _ => self.is_array(e) || self.is_array32(e),
        }
    }

    /// Calls a runtime function of two descriptors returning a status word (not 0: bail).
    fn check_call(&mut self, addr: usize, a: Value, b: Value) {
        let mut sig = Signature::new(self.call_conv);
        sig.params.extend([AbiParam::new(self.ptr); 2]);
        sig.returns.push(AbiParam::new(types::I64));
        let sig = self.b.import_signature(sig);
        let f = self.b.ins().iconst(self.ptr, addr as i64);
        let call = self.b.ins().call_indirect(sig, f, &[a, b]);
        let status = self.b.inst_results(call)[0];
        let failed = self.b.ins().icmp_imm_s(IntCC::NotEqual, status, 0);
        self.bail_if(failed);
    }

    /// Bails unless the arrays at `a` and `b` have one shape.
    pub(super) fn bail_unless_same_shape(&mut self, a: Value, b: Value) {
        let addr = array_runtime::shapes_differ
            as unsafe extern "C" fn(*const ArrayDesc, *const ArrayDesc) -> i64
            as *const () as usize;
        self.check_call(addr, a, b);
    }

    /// `tangent.reshape_as(g, x)` for arrays of one shape: `g` itself (another shape
    /// bails: NumPy reshapes).
    pub(super) fn reshape_as(&mut self, g: &Expr, x: &Expr) -> Result<(Value, Ty), Refusal> {
        let (gd, nd) = self.array(g)?;
        let (xd, _) = self.array(x)?;
        let addr = array_runtime::shapes_differ
            as unsafe extern "C" fn(*const ArrayDesc, *const ArrayDesc) -> i64
            as *const () as usize;
        self.check_call(addr, gd, xd);
        let t = if self.is_array32(g) {
            Ty::Array32(nd)
        } else {
            Ty::Array(nd)
        };
        Ok((gd, t))
    }

    /// `tangent.add_grad(a, b)` of arrays: a new array `a + b`, computed in the pass of
    /// `b`'s elementwise expression (arrays of another shape bail), or `b` computed into
    /// a new array when `a` is None (Python returns `b` itself, which it never changes in
    /// place; here `add_grad_at` could). A `b` that is None bails.
    pub(super) fn add_grad_arrays(
        &mut self,
        a: &Expr,
        b: &Expr,
        span: Span,
    ) -> Result<(Value, Ty), Refusal> {
        let want = match super::typing::expr_type(b, self.types, self.calls) {
            Ok(Some(t @ (Ty::Array(_) | Ty::Array32(_)))) => t,
            _ => {
                return Err(Refusal::new(
                    b.span,
                    "adding something other than an array to an array",
                ))
            }
        };
        if matches!(a.kind, ExprKind::NoneLit) {
            return self.elementwise_plus(None, b);
        }
        let Some(var) = a.as_name().and_then(|n| self.vars.get(n)) else {
            return Err(Refusal::new(a.span, "a gradient that is not a name"));
        };
        let (var, ty, flag) = (var.var, var.ty, var.flag);
        if ty != want {
            return Err(Refusal::new(
                span,
                format!("adding an array to a {}", ty.name()),
            ));
        }
        let held = self.b.use_var(var);
        let Some(f) = flag else {
            return self.elementwise_plus(Some(held), b);
        };
        let is_none = self.b.use_var(f);
        let (fresh, add, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.append_block_param(join, types::I64);
        self.b.ins().brif(is_none, fresh, &[], add, &[]);
        self.b.switch_to_block(fresh);
        let (copy, _) = self.elementwise_plus(None, b)?;
        self.b.ins().jump(join, &[copy.into()]);
        self.b.switch_to_block(add);
        let (sum, _) = self.elementwise_plus(Some(held), b)?;
        self.b.ins().jump(join, &[sum.into()]);
        self.b.switch_to_block(join);
        Ok((self.b.block_params(join)[0], want))
    }

    /// `tangent.init_grad(x)` of an array: zeros of its shape.
    pub(super) fn init_grad_array(&mut self, x: &Expr) -> Result<(Value, Ty), Refusal> {
        let single = self.is_array32(x);
        let (desc, nd) = self.array(x)?;
        let t = if single {
            Ty::Array32(nd)
        } else {
            Ty::Array(nd)
        };
        Ok((self.zeros_like(desc), t))
    }

    /// `g = tangent.add_grad_at(g, x, index, v)`: `v` added into `g[index]` (`set`: `v`
    /// stored there, `tangent.set_tangent_at` of forward mode), `g` made as zeros shaped
    /// like `x` when it is None. In place: typing has made sure `g` is the only name of
    /// its array.
    pub(super) fn add_grad_at(
        &mut self,
        args: &[Expr],
        span: Span,
        set: bool,
    ) -> Result<(Value, Ty), Refusal> {
        let [g, x, index, v] = args else {
            return Err(Refusal::new(
                span,
                "`tangent.add_grad_at` of other arguments",
            ));
        };
        let single = self.is_array32(x);
        let (like, nd) = self.array(x)?;
        let array = if single {
            Ty::Array32(nd)
        } else {
            Ty::Array(nd)
        };
        let acc = match &g.kind {
            ExprKind::NoneLit => self.zeros_like(like),
            _ => {
                let Some(var) = g.as_name().and_then(|n| self.vars.get(n)) else {
                    return Err(Refusal::new(g.span, "a gradient that is not a name"));
                };
                let (var, ty, flag) = (var.var, var.ty, var.flag);
                if ty != array {
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
        if single && super::typing::arrays::is_row_index(index, nd) {
            return Err(Refusal::new(index.span, "a row of a float32 array"));
        }
        if super::typing::arrays::is_row_index(index, nd) {
            // The gradient of a row added into that row of `g`.
            let (i, ti) = self.expr(index)?;
            let (row, tr) = self.expr(v)?;
            if ti != Ty::Int || tr != Ty::Array(1) {
                return Err(Refusal::new(span, "the gradient of a row of other types"));
            }
            let mut sig = Signature::new(self.call_conv);
            sig.params.extend([
                AbiParam::new(self.ptr),
                AbiParam::new(types::I64),
                AbiParam::new(self.ptr),
            ]);
            sig.returns.push(AbiParam::new(types::I64));
            let sig = self.b.import_signature(sig);
            let f = self.b.ins().iconst(
                self.ptr,
                array_runtime::add_row
                    as unsafe extern "C" fn(*mut ArrayDesc, i64, *const ArrayDesc) -> i64
                    as *const () as i64,
            );
            let call = self.b.ins().call_indirect(sig, f, &[acc, i, row]);
            let status = self.b.inst_results(call)[0];
            let failed = self.b.ins().icmp_imm_s(IntCC::NotEqual, status, 0);
            self.bail_if(failed);
            return Ok((acc, Ty::Array(nd)));
        }
        let (val, t) = self.expr(v)?;
        let kind = if single {
            Some(self.kind_of(val, t, v.span)?)
        } else {
            None
        };
        let val = self.float(val, t);
        let addr = self.element_addr(acc, nd, index)?;
        let old = self
            .b
            .ins()
            .load(types::F64, MemFlagsData::trusted(), addr, 0);
        let new = match (set, kind) {
            (true, None) => val,
            (true, Some(_)) => self.store32(val),
            (false, None) => self.b.ins().fadd(old, val),
            // `g[i] + v` with `g[i]` a float32, stored rounded.
            (false, Some(k)) => self.add32(old, val, k),
        };
        self.b.ins().store(MemFlagsData::trusted(), new, addr, 0);
        Ok((acc, array))
    }
}
