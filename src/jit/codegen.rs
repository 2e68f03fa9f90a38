//! Lowering of a typed generated function to Cranelift IR.
//!
//! The compiled function is `extern "C" fn(ctx, args, outs) -> i32`: `args` holds one
//! 64-bit word per parameter (f64 bits, i64, or 0/1), `outs` two words per returned
//! value (the value, then 1 if it is `None`). It returns 0, or 1 ("bail") when Python
//! would do something the native code does not (raise ZeroDivisionError or
//! OverflowError, compute with `None`, overflow an int): the caller then runs the
//! interpreted adjoint, which does exactly what Python does. `ctx` is the tape.

use super::typing::{callee_path, range_args, Refusal, Ty, VarTy};
use crate::rules::NativeScalar;
use crate::syntax::ir::*;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, AbiParam, Block, InstBuilder, MemFlagsData, Signature, Value};
use cranelift_codegen::isa::{CallConv, TargetIsa};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use std::collections::HashMap;

/// Where a callee's parameter comes from at a call: a positional argument, a keyword
/// argument, or the parameter's literal default (as a 64-bit word).
#[derive(Clone, Debug)]
pub enum ArgSrc {
    Pos(usize),
    Kw(usize),
    Default(u64),
}

/// How to call a compiled function of the program.
#[derive(Clone, Debug)]
pub struct CallPlan {
    /// The code's address, or (`indirect`) where it will be stored: a function being
    /// compiled (a recursive call) has no address yet.
    pub addr: usize,
    pub indirect: bool,
    pub outputs: Vec<Ty>,
    pub params: Vec<ArgSrc>,
}

/// Compiled functions of the program, for calls.
pub trait Calls: super::typing::CalleeTypes {
    fn plan(&self, name: &str, pos: &[Ty], kw: &[(String, Ty)]) -> Result<CallPlan, Refusal>;
}

pub struct Lowered {
    pub func: cranelift_codegen::ir::Function,
    /// The programs of its elementwise statements, which the code points to: kept alive
    /// as long as the code.
    #[allow(clippy::vec_box)] // boxed: the code holds their addresses
    pub programs: Vec<Box<super::elementwise::Program>>,
    /// The types of the returned values (empty: the function returns None).
    pub outputs: Vec<Ty>,
}

fn clty(t: Ty) -> types::Type {
    match t {
        Ty::Float | Ty::Single | Ty::Double => types::F64,
        // An array is the address of its descriptor (`arrays::ArrayDesc`).
        Ty::Int
        | Ty::Tape
        | Ty::Array(_)
        | Ty::IntArray(_)
        | Ty::Dict(_)
        | Ty::Record(_)
        | Ty::Seq(_)
        | Ty::Array32(_) => types::I64,
        Ty::Bool => types::I8,
    }
}

pub(super) struct Var {
    pub(super) var: Variable,
    pub(super) ty: Ty,
    pub(super) flag: Option<Variable>,
    /// A float's NumPy type at run time, in code with float32 values (`precision.rs`).
    pub(super) kind: Option<Variable>,
}

pub(super) struct Cg<'a> {
    pub(super) b: FunctionBuilder<'a>,
    pub(super) vars: HashMap<String, Var>,
    /// The container arguments no statement assigns, by name: their values as the call
    /// passed them (a descriptor's or a dict's values' address), valid and unchanged for
    /// the whole call, so what is read through them may be read once (`fixed_load`).
    pub(super) fixed: HashMap<String, Value>,
    bail: Block,
    loops: Vec<(Block, Block)>,
    pub(super) ctx: Value,
    outs: Value,
    outputs: Option<Vec<Ty>>,
    pub(super) ptr: types::Type,
    pub(super) call_conv: CallConv,
    pub(super) calls: &'a dyn Calls,
    /// Variables that are the tape (`_stack`): one tape in `ctx` serves every function,
    /// so a tape passed to a callee is a placeholder word.
    pub(super) tapes: std::collections::HashSet<String>,
    /// The tape's data pointer and capacity (fixed for the run: the code never grows
    /// it) and its length, kept in registers: a push is a compare and a store, not a
    /// chain of loads and stores through `ctx`. `ctx` holds the length where other code
    /// reads or changes it (`sync_tape`, `reload_tape`).
    tape: TapeVars,
    /// Where a push that finds the tape full goes: it marks the tape full and bails
    /// (`runtime::Tape`).
    tape_full: Block,
    /// Variables whose pushes and pops are left out (`tape_elision`).
    elided: std::collections::HashSet<String>,
    /// Every variable's type (for the types of subexpressions).
    pub(super) types: &'a HashMap<String, VarTy>,
    /// Temporaries read once, by the next statement's elementwise expression, and their
    /// definitions, which that expression computes in its own pass (`elementwise_code.rs`).
    pub(super) single_use: std::collections::HashSet<String>,
    pub(super) deferred: HashMap<String, Expr>,
    /// Arrays the tape keeps only for their shape, computed inside the pass that reads
    /// them (`elementwise_code::shape_carriers`).
    pub(super) carriers: std::collections::HashSet<String>,
    /// Programs of elementwise statements (`elementwise_code.rs`).
    #[allow(clippy::vec_box)] // boxed: the code holds their addresses
    pub(super) programs: Vec<Box<super::elementwise::Program>>,
    /// Code with float32 values: every float carries its NumPy type (`precision.rs`),
    /// expression values theirs in `kinds`.
    pub(super) precise: bool,
    pub(super) kinds: HashMap<Value, Value>,
}

#[derive(Clone, Copy)]
struct TapeVars {
    data: Value,
    len: Variable,
    cap: Value,
}

/// Lowers `def`, typed by `types` for arguments of types `args`; `kinds_from_caller`:
/// called from code with float32 values, which passes each float and bool argument's
/// NumPy type after the arguments (`Cg::user_call`); `precise`: code that follows each
/// float's NumPy type (`precision.rs`).
pub fn lower(
    def: &FuncDef,
    args: &[Ty],
    (kinds_from_caller, precise): (bool, bool),
    var_types: &HashMap<String, VarTy>,
    isa: &dyn TargetIsa,
    calls: &dyn Calls,
) -> Result<Lowered, Refusal> {
    let ptr = isa.pointer_type();
    let call_conv = isa.default_call_conv();
    let mut sig = Signature::new(call_conv);
    sig.params.extend([AbiParam::new(ptr); 3]);
    sig.returns.push(AbiParam::new(types::I32));
    let mut func = cranelift_codegen::ir::Function::with_name_signature(
        cranelift_codegen::ir::UserFuncName::user(0, 0),
        sig,
    );
    let mut fctx = FunctionBuilderContext::new();
    let b = FunctionBuilder::new(&mut func, &mut fctx);
    let mut cg = Cg {
        b,
        vars: HashMap::new(),
        fixed: HashMap::new(),
        bail: Block::from_u32(0),
        loops: Vec::new(),
        ctx: Value::from_u32(0),
        outs: Value::from_u32(0),
        outputs: None,
        ptr,
        call_conv,
        calls,
        tapes: var_types
            .iter()
            .filter(|(_, t)| t.ty == Some(Ty::Tape))
            .map(|(n, _)| n.clone())
            .collect(),
        elided: super::tape_elision::elided(def, var_types, calls.rules()),
        types: var_types,
        single_use: super::elementwise::single_use_temporaries(def),
        deferred: HashMap::new(),
        carriers: std::collections::HashSet::new(),
        programs: Vec::new(),
        tape: TapeVars {
            data: Value::from_u32(0),
            len: Variable::from_u32(0),
            cap: Value::from_u32(0),
        },
        tape_full: Block::from_u32(0),
        precise,
        kinds: HashMap::new(),
    };
    let entry = cg.b.create_block();
    cg.b.append_block_params_for_function_params(entry);
    cg.b.switch_to_block(entry);
    let params = cg.b.block_params(entry).to_vec();
    cg.ctx = params[0];
    let fl = MemFlagsData::trusted();
    cg.tape = TapeVars {
        data: cg.b.ins().load(ptr, fl, cg.ctx, Cg::TAPE_DATA),
        len: cg.b.declare_var(types::I64),
        cap: cg.b.ins().load(types::I64, fl, cg.ctx, Cg::TAPE_CAP),
    };
    cg.reload_tape();
    cg.carriers = cg.shape_carriers(def);
    let argp = params[1];
    cg.outs = params[2];
    cg.bail = cg.b.create_block();
    cg.tape_full = cg.b.create_block();
    cg.b.set_cold_block(cg.tape_full);
    // Variables: parameters from `args`, the others start at zero (or None).
    let assigned = assigned_names(&def.body);
    let mut names: Vec<&String> = var_types.keys().collect();
    names.sort();
    for name in names {
        let vt = var_types[name];
        let Some(ty) = vt.ty else {
            // Only ever None: a flag alone (its value is never read).
            let var = cg.b.declare_var(types::I64);
            let zero = cg.b.ins().iconst(types::I64, 0);
            cg.b.def_var(var, zero);
            let flag = cg.b.declare_var(types::I8);
            let one = cg.b.ins().iconst(types::I8, 1);
            cg.b.def_var(flag, one);
            cg.vars.insert(
                name.clone(),
                Var {
                    var,
                    ty: Ty::Int,
                    flag: Some(flag),
                    kind: None,
                },
            );
            continue;
        };
        if ty == Ty::Tape {
            continue;
        }
        let var = cg.b.declare_var(clty(ty));
        let flag = vt.nullable.then(|| cg.b.declare_var(types::I8));
        let pos = def.params.iter().position(|p| &p.name == name);
        let init = match pos {
            Some(i) => {
                let off = (8 * i) as i32;
                match args[i] {
                    Ty::Float | Ty::Single | Ty::Double => {
                        cg.b.ins()
                            .load(types::F64, MemFlagsData::trusted(), argp, off)
                    }
                    Ty::Bool => {
                        cg.b.ins()
                            .load(types::I8, MemFlagsData::trusted(), argp, off)
                    }
                    _ => {
                        cg.b.ins()
                            .load(types::I64, MemFlagsData::trusted(), argp, off)
                    }
                }
            }
            None => cg.zero(ty),
        };
        cg.b.def_var(var, init);
        if pos.is_some() && ty.is_container() && !assigned.contains(name.as_str()) {
            cg.fixed.insert(name.clone(), init);
        }
        if let Some(f) = flag {
            let v = cg.b.ins().iconst(types::I8, i64::from(pos.is_none()));
            cg.b.def_var(f, v);
        }
        let kind = cg.has_kind(ty).then(|| {
            let k = cg.b.declare_var(types::I8);
            let v = match pos {
                // The caller's word for it, after the arguments.
                Some(i) if kinds_from_caller => {
                    let off = (8 * (def.params.len() + i)) as i32;
                    let w =
                        cg.b.ins()
                            .load(types::I64, MemFlagsData::trusted(), argp, off);
                    cg.b.ins().ireduce(types::I8, w)
                }
                _ => {
                    let initial = match pos.map(|i| args[i]) {
                        Some(Ty::Single) => super::precision::SINGLE,
                        Some(Ty::Double) => super::precision::DOUBLE,
                        _ => super::precision::PYTHON,
                    };
                    cg.b.ins().iconst(types::I8, initial)
                }
            };
            cg.b.def_var(k, v);
            k
        });
        cg.vars.insert(
            name.clone(),
            Var {
                var,
                ty,
                flag,
                kind,
            },
        );
    }
    let terminated = cg.block(&def.body)?;
    if !terminated {
        // Falling off the end returns None.
        cg.ret(None, def.span)?;
    }
    cg.b.switch_to_block(cg.tape_full);
    let one = cg.b.ins().iconst(types::I64, 1);
    cg.b.ins()
        .store(MemFlagsData::trusted(), one, cg.ctx, Cg::TAPE_FULL);
    cg.b.ins().jump(cg.bail, &[]);
    cg.b.switch_to_block(cg.bail);
    cg.sync_tape();
    let one = cg.b.ins().iconst(types::I32, 1);
    cg.b.ins().return_(&[one]);
    cg.b.seal_all_blocks();
    let Cg {
        b,
        outputs,
        programs,
        ..
    } = cg;
    b.finalize(isa.frontend_config());
    Ok(Lowered {
        func,
        programs,
        outputs: outputs.unwrap_or_default(),
    })
}

impl Cg<'_> {
    fn zero(&mut self, ty: Ty) -> Value {
        match ty {
            Ty::Float => self.b.ins().f64const(0.0),
            Ty::Bool => self.b.ins().iconst(types::I8, 0),
            _ => self.b.ins().iconst(types::I64, 0),
        }
    }

    /// A load of `ty` at `offset` from `base`: through an argument's own address (a field
    /// of its descriptor, a dict's value) one Cranelift may move and share, since that
    /// memory is valid and unchanged for the whole call (loops read it once); any other
    /// where it stands.
    pub(super) fn fixed_load(
        &mut self,
        ty: cranelift_codegen::ir::Type,
        base: Value,
        offset: i32,
    ) -> Value {
        let flags = if self.fixed.values().any(|v| *v == base) {
            MemFlagsData::trusted().with_readonly().with_can_move()
        } else {
            MemFlagsData::trusted()
        };
        self.b.ins().load(ty, flags, base, offset)
    }

    /// Jumps to the bail block when `cond` (an i8) is true.
    pub(super) fn bail_if(&mut self, cond: Value) {
        let cont = self.b.create_block();
        self.b.ins().brif(cond, self.bail, &[], cont, &[]);
        self.b.switch_to_block(cont);
    }

    /// Lowers statements; true if the block ends in a jump or return.
    fn block(&mut self, stmts: &[Stmt]) -> Result<bool, Refusal> {
        // Shape carriers waiting for the statement that computes their expression.
        let mut waiting: HashMap<usize, Vec<String>> = HashMap::new();
        for (k, s) in stmts.iter().enumerate() {
            if let Some(c) = self.defer(stmts, k) {
                let mut moved = waiting.remove(&k).unwrap_or_default();
                if let StmtKind::Assign(t, _) = &s.kind {
                    let name = t.as_name().unwrap_or_default();
                    if self.carriers.contains(name) {
                        moved.push(name.to_owned());
                    }
                }
                waiting.entry(c).or_default().extend(moved);
                continue;
            }
            if self.stmt(s)? {
                return Ok(true);
            }
            if let Some(carriers) = waiting.remove(&k) {
                self.define_carriers(s, &carriers)?;
            }
        }
        Ok(false)
    }

    fn stmt(&mut self, s: &Stmt) -> Result<bool, Refusal> {
        match &s.kind {
            StmtKind::Assign(t, v) => {
                match (&t.kind, &v.kind) {
                    (ExprKind::Tuple(ts), ExprKind::Tuple(vs)) => {
                        let mut vals = Vec::new();
                        for v in vs {
                            vals.push(self.rhs(v)?);
                        }
                        for (t, v) in ts.iter().zip(vals) {
                            self.assign(t.as_name().unwrap_or_default(), v, s.span)?;
                        }
                    }
                    (ExprKind::Tuple(ts), ExprKind::Call { .. }) => {
                        let vals = self.user_call(v)?;
                        if vals.len() != ts.len() {
                            return Err(Refusal::new(
                                s.span,
                                "unpacking into another number of names",
                            ));
                        }
                        for (t, (val, ty)) in ts.iter().zip(vals) {
                            self.assign(
                                t.as_name().unwrap_or_default(),
                                Rhs::Val(val, ty),
                                s.span,
                            )?;
                        }
                    }
                    (ExprKind::Name(n), _) => {
                        let v = self.rhs(v)?;
                        self.assign(n, v, s.span)?;
                    }
                    (ExprKind::Subscript(base, index), _) => {
                        let value = match self.rhs(v)? {
                            Rhs::Pop => {
                                if self.precise {
                                    // The element's kind, pushed after it.
                                    self.pop_word();
                                }
                                let w = self.pop_word();
                                self.value_of_word(w, Ty::Float)
                            }
                            Rhs::Val(x, t) => self.float(x, t),
                            _ => return Err(Refusal::new(s.span, "this store")),
                        };
                        let value = if self.is_array32(base) {
                            self.store32(value)
                        } else {
                            value
                        };
                        self.store_element(base, index, value)?;
                    }
                    _ => return Err(Refusal::new(s.span, "this assignment")),
                }
                Ok(false)
            }
            StmtKind::ExprStmt(e) => {
                self.effect(e)?;
                Ok(false)
            }
            StmtKind::If(c, a, b) => {
                let cond = self.truth(c)?;
                let (then_b, else_b, merge) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                self.b.ins().brif(cond, then_b, &[], else_b, &[]);
                self.b.switch_to_block(then_b);
                if !self.block(a)? {
                    self.b.ins().jump(merge, &[]);
                }
                self.b.switch_to_block(else_b);
                if !self.block(b)? {
                    self.b.ins().jump(merge, &[]);
                }
                self.b.switch_to_block(merge);
                Ok(false)
            }
            StmtKind::While(c, body) => {
                let (head, body_b, exit) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                self.b.ins().jump(head, &[]);
                self.b.switch_to_block(head);
                let cond = self.truth(c)?;
                self.b.ins().brif(cond, body_b, &[], exit, &[]);
                self.b.switch_to_block(body_b);
                self.loops.push((head, exit));
                if !self.block(body)? {
                    self.b.ins().jump(head, &[]);
                }
                self.loops.pop();
                self.b.switch_to_block(exit);
                Ok(false)
            }
            StmtKind::For(t, it, body) => {
                self.for_range(t.as_name().unwrap_or_default(), it, body, s.span)?;
                Ok(false)
            }
            StmtKind::Break | StmtKind::Continue => {
                let Some(&(head, exit)) = self.loops.last() else {
                    return Err(Refusal::new(s.span, "`break` outside a loop"));
                };
                let to = if matches!(s.kind, StmtKind::Break) {
                    exit
                } else {
                    head
                };
                self.b.ins().jump(to, &[]);
                Ok(true)
            }
            StmtKind::Return(e) => {
                self.ret(e.as_ref(), s.span)?;
                Ok(true)
            }
            StmtKind::Pass | StmtKind::Comment(_) => Ok(false),
            StmtKind::AugAssign(..) => Err(Refusal::new(s.span, "an augmented assignment")),
            StmtKind::With(..) => Err(Refusal::new(s.span, "a `with` block")),
            StmtKind::Assert(t, _) => {
                // A failing assert bails: the interpreter runs the function again and
                // raises the AssertionError with its message.
                let c = self.truth(t)?;
                let failed = self.b.ins().icmp_imm_s(IntCC::Equal, c, 0);
                self.bail_if(failed);
                Ok(false)
            }
        }
    }

    /// A right-hand side: a value, `None`, or a value popped from the tape.
    fn rhs(&mut self, v: &Expr) -> Result<Rhs, Refusal> {
        Ok(match &v.kind {
            ExprKind::NoneLit => Rhs::None,
            ExprKind::Call { func, .. }
                if callee_path(func).as_deref() == Some("tangent.Stack") =>
            {
                Rhs::Tape
            }
            ExprKind::Call { func, .. }
                if callee_path(func).as_deref() == Some(crate::tape::POP) =>
            {
                Rhs::Pop
            }
            _ => {
                let (val, ty) = self.expr(v)?;
                Rhs::Val(val, ty)
            }
        })
    }

    fn assign(&mut self, name: &str, v: Rhs, span: Span) -> Result<(), Refusal> {
        if matches!(v, Rhs::Tape) {
            return Ok(());
        }
        let Some(var) = self.vars.get(name) else {
            return Err(Refusal::new(span, format!("`{name}` has no type")));
        };
        let (var_v, ty, flag, kind) = (var.var, var.ty, var.flag, var.kind);
        match v {
            Rhs::None => {
                let Some(f) = flag else {
                    return Err(Refusal::new(span, format!("`{name}` set to None")));
                };
                let one = self.b.ins().iconst(types::I8, 1);
                self.b.def_var(f, one);
            }
            Rhs::Pop if self.elided.contains(name) => {}
            Rhs::Pop => {
                if let Some(k) = kind {
                    let bits = self.pop_word();
                    let kv = self.b.ins().ireduce(types::I8, bits);
                    self.b.def_var(k, kv);
                }
                if let Some(f) = flag {
                    let bits = self.pop_word();
                    let fl = self.b.ins().ireduce(types::I8, bits);
                    self.b.def_var(f, fl);
                }
                let bits = self.pop_word();
                let val = self.value_of_word(bits, ty);
                self.b.def_var(var_v, val);
            }
            Rhs::Val(val, vty) => {
                if vty != ty {
                    return Err(Refusal::new(
                        span,
                        format!("`{name}` is a {} but gets a {}", ty.name(), vty.name()),
                    ));
                }
                if let Some(k) = kind {
                    let kv = self.kind_of(val, vty, span)?;
                    self.b.def_var(k, kv);
                }
                self.b.def_var(var_v, val);
                if let Some(f) = flag {
                    let zero = self.b.ins().iconst(types::I8, 0);
                    self.b.def_var(f, zero);
                }
            }
            Rhs::Tape => {}
        }
        Ok(())
    }

    pub(super) fn word_of(&mut self, v: Value, ty: Ty) -> Value {
        match ty {
            Ty::Float => self.b.ins().bitcast(types::I64, MemFlagsData::new(), v),
            Ty::Bool => self.b.ins().uextend(types::I64, v),
            _ => v,
        }
    }

    pub(super) fn value_of_word(&mut self, w: Value, ty: Ty) -> Value {
        match ty {
            Ty::Float => self.b.ins().bitcast(types::F64, MemFlagsData::new(), w),
            Ty::Bool => self.b.ins().ireduce(types::I8, w),
            _ => w,
        }
    }

    /// Tape layout in `ctx` (`runtime::Tape`): data pointer, length, capacity (words),
    /// the full mark.
    const TAPE_DATA: i32 = 0;
    const TAPE_LEN: i32 = 8;
    const TAPE_CAP: i32 = 16;
    const TAPE_FULL: i32 = 24;

    /// Loads the tape's length from `ctx` (at entry, and after code that may have
    /// pushed or popped: a callee).
    pub(super) fn reload_tape(&mut self) {
        let fl = MemFlagsData::trusted();
        let len = self.b.ins().load(types::I64, fl, self.ctx, Self::TAPE_LEN);
        self.b.def_var(self.tape.len, len);
    }

    /// Stores the tape's length into `ctx` (before a callee, a return or a bail).
    pub(super) fn sync_tape(&mut self) {
        let len = self.b.use_var(self.tape.len);
        self.b
            .ins()
            .store(MemFlagsData::trusted(), len, self.ctx, Self::TAPE_LEN);
    }

    fn push_word(&mut self, w: Value) {
        let len = self.b.use_var(self.tape.len);
        let full = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, len, self.tape.cap);
        let store = self.b.create_block();
        self.b.ins().brif(full, self.tape_full, &[], store, &[]);
        self.b.switch_to_block(store);
        let data = self.tape.data;
        let off = self.b.ins().ishl_imm_u(len, 3);
        let addr = self.b.ins().iadd(data, off);
        self.b.ins().store(MemFlagsData::trusted(), w, addr, 0);
        let len1 = self.b.ins().iadd_imm_s(len, 1);
        self.b.def_var(self.tape.len, len1);
    }

    pub(super) fn pop_word(&mut self) -> Value {
        let len = self.b.use_var(self.tape.len);
        // An empty tape would be a transformer bug; bail rather than read garbage.
        let empty = self.b.ins().icmp_imm_s(IntCC::Equal, len, 0);
        self.bail_if(empty);
        let len1 = self.b.ins().iadd_imm_s(len, -1);
        self.b.def_var(self.tape.len, len1);
        let data = self.tape.data;
        let off = self.b.ins().ishl_imm_u(len1, 3);
        let addr = self.b.ins().iadd(data, off);
        self.b
            .ins()
            .load(types::I64, MemFlagsData::trusted(), addr, 0)
    }

    fn effect(&mut self, e: &Expr) -> Result<(), Refusal> {
        let ExprKind::Call { func, args, .. } = &e.kind else {
            return Err(Refusal::new(
                e.span,
                "an expression statement that is not a call",
            ));
        };
        let path = callee_path(func).unwrap_or_default();
        match path.as_str() {
            crate::tape::PUSH => {
                let Some(n) = args.get(1).and_then(|a| a.as_name()) else {
                    // A value (an element about to be overwritten): one word, no flag.
                    let Some(x) = args.get(1) else {
                        return Err(Refusal::new(e.span, "`tangent.push` of one argument"));
                    };
                    let (v, t) = self.expr(x)?;
                    if !matches!(t, Ty::Float | Ty::Int | Ty::Bool) {
                        return Err(Refusal::new(
                            x.span,
                            format!("a {} pushed on the tape", t.name()),
                        ));
                    }
                    let kind = if self.has_kind(t) {
                        Some(self.kind_of(v, t, x.span)?)
                    } else {
                        None
                    };
                    let w = self.word_of(v, t);
                    self.push_word(w);
                    if let Some(k) = kind {
                        let w = self.b.ins().uextend(types::I64, k);
                        self.push_word(w);
                    }
                    return Ok(());
                };
                let Some(var) = self.vars.get(n) else {
                    return Err(Refusal::new(e.span, format!("`{n}` has no type")));
                };
                if self.elided.contains(n) {
                    return Ok(());
                }
                let (v, ty, flag, kind) = (var.var, var.ty, var.flag, var.kind);
                let val = self.b.use_var(v);
                let w = self.word_of(val, ty);
                self.push_word(w);
                if let Some(f) = flag {
                    let fv = self.b.use_var(f);
                    let w = self.b.ins().uextend(types::I64, fv);
                    self.push_word(w);
                }
                if let Some(k) = kind {
                    let kv = self.b.use_var(k);
                    let w = self.b.ins().uextend(types::I64, kv);
                    self.push_word(w);
                }
                Ok(())
            }
            p if self.calls.rules().native_scalar(p) == Some(&NativeScalar::Check) => {
                // Scalars always pass the checks; evaluating the operands still bails
                // on `None` as Python would raise. Arrays pass when they have one shape
                // (a tangent and its argument); else the interpreter's check raises.
                // One array alone (`check_inplace` of an array, which raises) or an
                // array checked against a number (a scalar seed for an array output) is
                // the interpreter's to judge, with its located error.
                let mut arrays = Vec::new();
                let mut numbers = 0;
                for a in args {
                    // Names and line numbers are literals.
                    if !matches!(a.kind, ExprKind::Str(_) | ExprKind::Num(_)) {
                        match self.expr(a)? {
                            (v, Ty::Array(_) | Ty::Array32(_)) => arrays.push(v),
                            _ => numbers += 1,
                        }
                    }
                }
                if !arrays.is_empty() && (numbers > 0 || arrays.len() == 1) {
                    let what = if numbers > 0 {
                        "an array and a number"
                    } else {
                        "one array alone"
                    };
                    return Err(Refusal::new(e.span, format!("`{path}` of {what}")));
                }
                for pair in arrays.windows(2) {
                    self.bail_unless_same_shape(pair[0], pair[1]);
                }
                Ok(())
            }
            _ => Err(Refusal::new(
                e.span,
                format!("a call of `{path}` for its effect"),
            )),
        }
    }

    fn ret(&mut self, e: Option<&Expr>, span: Span) -> Result<(), Refusal> {
        let items: Vec<&Expr> = match e {
            None => vec![],
            Some(Expr {
                kind: ExprKind::NoneLit,
                ..
            }) => vec![],
            Some(Expr {
                kind: ExprKind::Tuple(es),
                ..
            }) => es.iter().collect(),
            Some(x) => vec![x],
        };
        let mut tys = Vec::new();
        let mut vals = Vec::new();
        for x in &items {
            // A returned name may be None (a gradient nothing reached).
            if let Some(n) = x.as_name() {
                if let Some(var) = self.vars.get(n) {
                    let (v, ty, flag, kind) = (var.var, var.ty, var.flag, var.kind);
                    let val = self.b.use_var(v);
                    let fl = match flag {
                        Some(f) => self.b.use_var(f),
                        None => self.b.ins().iconst(types::I8, 0),
                    };
                    let kv = kind.map(|k| self.b.use_var(k));
                    tys.push(ty);
                    vals.push((val, ty, fl, kv));
                    continue;
                }
            }
            let (val, ty) = self.expr(x)?;
            let fl = self.b.ins().iconst(types::I8, 0);
            let kv = if self.has_kind(ty) {
                Some(self.kind_of(val, ty, x.span)?)
            } else {
                None
            };
            tys.push(ty);
            vals.push((val, ty, fl, kv));
        }
        match &self.outputs {
            Some(o) if *o != tys => {
                return Err(Refusal::new(span, "returns of different kinds"));
            }
            Some(_) => {}
            None => self.outputs = Some(tys),
        }
        for (k, (val, ty, fl, kind)) in vals.into_iter().enumerate() {
            let w = self.word_of(val, ty);
            let mut f = self.b.ins().uextend(types::I64, fl);
            if let (Some(kv), Ty::Bool) = (kind, ty) {
                // The hosts return Python bools: a NumPy bool (or one whose type was
                // not followed) is the interpreter's to return.
                self.bail_unless_python_bool(kv);
            } else if let Some(kv) = kind {
                // The float's NumPy type in the second byte (`Compiled::outputs`).
                let k = self.b.ins().uextend(types::I64, kv);
                let k = self.b.ins().ishl_imm_u(k, 8);
                f = self.b.ins().bor(f, k);
            }
            let off = (16 * k) as i32;
            self.b
                .ins()
                .store(MemFlagsData::trusted(), w, self.outs, off);
            self.b
                .ins()
                .store(MemFlagsData::trusted(), f, self.outs, off + 8);
        }
        self.sync_tape();
        let zero = self.b.ins().iconst(types::I32, 0);
        self.b.ins().return_(&[zero]);
        Ok(())
    }

    fn for_range(
        &mut self,
        target: &str,
        it: &Expr,
        body: &[Stmt],
        span: Span,
    ) -> Result<(), Refusal> {
        let (start, stop, step) = self.range_bounds(it)?;
        let zero_step = self.b.ins().icmp_imm_s(IntCC::Equal, step, 0);
        // range() with step 0 raises ValueError.
        self.bail_if(zero_step);
        let idx = self.b.declare_var(types::I64);
        self.b.def_var(idx, start);
        let (head, body_b, next, exit) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        let i = self.b.use_var(idx);
        let up = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, step, 0);
        let below = self.b.ins().icmp(IntCC::SignedLessThan, i, stop);
        let above = self.b.ins().icmp(IntCC::SignedGreaterThan, i, stop);
        let more = self.b.ins().select(up, below, above);
        self.b.ins().brif(more, body_b, &[], exit, &[]);
        self.b.switch_to_block(body_b);
        if target != "_" || self.vars.contains_key(target) {
            let Some(var) = self.vars.get(target) else {
                return Err(Refusal::new(span, format!("`{target}` has no type")));
            };
            let (v, flag) = (var.var, var.flag);
            self.b.def_var(v, i);
            if let Some(f) = flag {
                let z = self.b.ins().iconst(types::I8, 0);
                self.b.def_var(f, z);
            }
        }
        self.loops.push((next, exit));
        if !self.block(body)? {
            self.b.ins().jump(next, &[]);
        }
        self.loops.pop();
        self.b.switch_to_block(next);
        let i = self.b.use_var(idx);
        let i1 = self.b.ins().iadd(i, step);
        self.b.def_var(idx, i1);
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(exit);
        Ok(())
    }

    pub(super) fn range_bounds(&mut self, it: &Expr) -> Result<(Value, Value, Value), Refusal> {
        let args = range_args(it)?;
        let mut ints = Vec::new();
        for a in args {
            let (v, t) = self.expr(a)?;
            if t == Ty::Float {
                return Err(Refusal::new(a.span, "`range` of a float"));
            }
            ints.push(self.int(v, t));
        }
        let one = self.b.ins().iconst(types::I64, 1);
        let zero = self.b.ins().iconst(types::I64, 0);
        Ok(match ints.as_slice() {
            [stop] => (zero, *stop, one),
            [start, stop] => (*start, *stop, one),
            [start, stop, step] => (*start, *stop, *step),
            _ => unreachable!("range_args checks the count"),
        })
    }
}

enum Rhs {
    None,
    Tape,
    Pop,
    Val(Value, Ty),
}

/// The names some statement of `body` binds (assignment and `for` targets, also inside
/// tuples).
fn assigned_names(body: &[Stmt]) -> std::collections::HashSet<&str> {
    fn targets<'a>(t: &'a Expr, out: &mut std::collections::HashSet<&'a str>) {
        match &t.kind {
            ExprKind::Name(n) => {
                out.insert(n.as_str());
            }
            ExprKind::Tuple(es) | ExprKind::List(es) => es.iter().for_each(|e| targets(e, out)),
            _ => {}
        }
    }
    let mut out = std::collections::HashSet::new();
    walk_stmts(body, &mut |s| match &s.kind {
        StmtKind::Assign(t, _) | StmtKind::AugAssign(t, ..) | StmtKind::For(t, ..) => {
            targets(t, &mut out)
        }
        _ => {}
    });
    out
}
