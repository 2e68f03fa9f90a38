//! Lowering of a typed generated function to Cranelift IR.
//!
//! The compiled function is `extern "C" fn(ctx, args, outs) -> i32`: `args` holds one
//! 64-bit word per parameter (f64 bits, i64, or 0/1), `outs` two words per returned
//! value (the value, then 1 if it is `None`). It returns 0, or 1 ("bail") when Python
//! would do something the native code does not (raise ZeroDivisionError or
//! OverflowError, compute with `None`, overflow an int): the caller then runs the
//! interpreted adjoint, which does exactly what Python does. `ctx` is the tape.

use super::runtime;
use super::typing::{callee_path, range_args, Refusal, Ty, VarTy};
use crate::rules::NativeScalar;
use crate::syntax::ir::*;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, AbiParam, Block, InstBuilder, MemFlagsData, Signature, StackSlotData, StackSlotKind,
    Value,
};
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
    fixed: HashMap<String, Value>,
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
    tapes: std::collections::HashSet<String>,
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
    fn reload_tape(&mut self) {
        let fl = MemFlagsData::trusted();
        let len = self.b.ins().load(types::I64, fl, self.ctx, Self::TAPE_LEN);
        self.b.def_var(self.tape.len, len);
    }

    /// Stores the tape's length into `ctx` (before a callee, a return or a bail).
    fn sync_tape(&mut self) {
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

    fn range_bounds(&mut self, it: &Expr) -> Result<(Value, Value, Value), Refusal> {
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
    fn exact_float(&mut self, v: Value, t: Ty) -> Value {
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

    fn int(&mut self, v: Value, t: Ty) -> Value {
        match t {
            Ty::Bool => self.b.ins().uextend(types::I64, v),
            _ => v,
        }
    }

    fn truthy(&mut self, v: Value, t: Ty) -> Value {
        match t {
            Ty::Float => {
                let z = self.b.ins().f64const(0.0);
                self.b.ins().fcmp(FloatCC::NotEqual, v, z)
            }
            Ty::Bool => v,
            _ => self.b.ins().icmp_imm_s(IntCC::NotEqual, v, 0),
        }
    }

    fn truth(&mut self, e: &Expr) -> Result<Value, Refusal> {
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
    fn bail_unless_finite_from_finite(&mut self, r: Value, inputs: &[Value]) {
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

    /// Calls the native function at `addr` whose parameters and result are all `ty`.
    fn call_native(&mut self, addr: usize, ty: types::Type, args: &[Value]) -> Value {
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

    fn call_i64(&mut self, addr: usize, args: &[Value]) -> Value {
        self.call_native(addr, types::I64, args)
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
    fn negated(&self, v: Value) -> Option<Value> {
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

    fn binop(
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

    fn compare(
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

    fn is_none(&mut self, e: &Expr) -> Value {
        match e
            .as_name()
            .and_then(|n| self.vars.get(n))
            .and_then(|v| v.flag)
        {
            Some(f) => self.b.use_var(f),
            None => self.b.ins().iconst(types::I8, 0),
        }
    }

    /// A call of a compiled function of the program: its outputs (a bail in the callee
    /// bails here; a None it returns, used as a value, bails too).
    fn user_call(&mut self, e: &Expr) -> Result<Vec<(Value, Ty)>, Refusal> {
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
    fn arg(&mut self, a: &Expr) -> Result<(Value, Ty), Refusal> {
        if a.as_name().is_some_and(|n| self.tapes.contains(n)) {
            return Ok((self.b.ins().iconst(types::I64, 0), Ty::Tape));
        }
        self.expr(a)
    }

    fn call(&mut self, e: &Expr, func: &Expr, args: &[Expr]) -> Result<(Value, Ty), Refusal> {
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
    fn add_grad(&mut self, a: &Expr, b: &Expr, span: Span) -> Result<(Value, Ty), Refusal> {
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
