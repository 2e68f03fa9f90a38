//! A parsed source file (`SourceModule`): its functions, imports and module bindings,
//! what the running program binds names to (`apply_live`), and the entry points that
//! lower a function or a rule template to the IR (`lower.rs`).

use super::diag::Diagnostic;
use super::ir::*;
use super::lift;
use super::lower::{span, too_deep, Lowerer};
use super::units::{self, Unit};
use crate::syntax::live::{Live, LiveNames};
use ruff_python_ast as ast;
use ruff_text_size::TextRange;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

/// A parsed source file: its import aliases and its top-level function definitions.
/// A copy is cheap: the syntax trees are shared.
#[derive(Clone)]
pub struct SourceModule {
    pub file: String,
    pub text: String,
    /// Local name -> qualified name, from module-level `import` / `from ... import`
    /// (also inside module-level `try`, `if` and `with` blocks).
    pub imports: HashMap<String, String>,
    /// Module-level names bound to different things in different places (`import
    /// jax.numpy as np` in a `try`, `import numpy as np` in its `except`; or imported and
    /// assigned): which one is live cannot be known from the text.
    pub ambiguous: HashSet<String>,
    functions: HashMap<String, Arc<ast::StmtFunctionDef>>,
    /// Top-level expression statements that are calls, as (dotted callee, dotted args):
    /// rule files use them for declarations such as `nondifferentiable(len, ...)`.
    pub declarations: Vec<(String, Vec<String>)>,
    /// Names of top-level functions in definition order (including the fallback's).
    pub function_names: Vec<String>,
    /// Where functions not defined here are looked up (for generated source: the module
    /// the first derivative came from).
    fallback: Option<Box<SourceModule>>,
    /// Every `def` and `lambda` of the file, wherever it is, in source order: the live
    /// program's functions were made from them (`syntax::units`).
    units: Arc<Vec<Unit>>,
    /// Functions nested in a function, lifted to module level (`syntax::lift`): lifted
    /// name -> (enclosing function, nested name).
    lifted: HashMap<String, (String, String)>,
    /// The lifted functions, filled when their enclosing function is lowered.
    lifted_defs: RefCell<HashMap<String, FuncDef>>,
    /// What the running program binds names to, when a host asked (see
    /// [`SourceModule::apply_live`]).
    pub live: Option<LiveNames>,
    /// Module attribute paths that are a rule's function under another name (the live
    /// `alias` lines: `tensorflow.matmul` is `tensorflow.linalg.matmul`); kept by a
    /// module that falls back on this one (a derivative's generated source).
    pub aliases: HashMap<String, String>,
}

/// The files parsed last, newest first: a program differentiates many functions of one
/// file, and each request (a derivative, and the derivative of a derivative) would parse
/// it again; in a file of 1,300 functions that was most of a request's time.
static PARSED: Mutex<Vec<SourceModule>> = Mutex::new(Vec::new());
const PARSED_KEPT: usize = 4;

impl SourceModule {
    /// [`SourceModule::parse`], reusing the parse of the same file name and text: the
    /// caller gets its own copy to change (`apply_live`, `set_fallback`).
    pub fn parse_shared(file: &str, text: &str) -> Result<SourceModule, Diagnostic> {
        if let Ok(parsed) = PARSED.lock() {
            if let Some(m) = parsed.iter().find(|m| m.file == file && m.text == text) {
                return Ok(m.clone());
            }
        }
        let module = SourceModule::parse(file, text)?;
        if let Ok(mut parsed) = PARSED.lock() {
            parsed.insert(0, module.clone());
            parsed.truncate(PARSED_KEPT);
        }
        Ok(module)
    }

    pub fn parse(file: &str, text: &str) -> Result<SourceModule, Diagnostic> {
        check_nesting(text).map_err(|d| d.locate(file, text))?;
        let module = parse_python(file, text)?;
        let mut bindings = ModuleBindings::default();
        bindings.block(&module.body);
        let ModuleBindings { imports, ambiguous } = bindings;
        let units = Arc::new(units::collect(&module, text));
        let mut functions = HashMap::new();
        let mut function_names = Vec::new();
        let mut declarations = Vec::new();
        for stmt in module.body {
            match stmt {
                ast::Stmt::FunctionDef(def) => {
                    let name = def.name.id.as_str().to_owned();
                    if !functions.contains_key(&name) {
                        function_names.push(name.clone());
                    }
                    functions.insert(name, Arc::new(def));
                }
                ast::Stmt::Expr(e) => {
                    if let ast::Expr::Call(c) = &*e.value {
                        if let Some(callee) = dotted(&c.func) {
                            let args = c.arguments.args.iter().filter_map(dotted).collect();
                            declarations.push((callee, args));
                        }
                    }
                }
                _ => {}
            }
        }
        let mut module = SourceModule {
            file: file.to_owned(),
            text: text.to_owned(),
            imports,
            ambiguous,
            declarations,
            functions,
            function_names,
            fallback: None,
            units,
            lifted: HashMap::new(),
            lifted_defs: RefCell::new(HashMap::new()),
            live: None,
            aliases: HashMap::new(),
        };
        module.name_nested();
        Ok(module)
    }

    /// Module-level names for the `def`s at the top level of each function's body
    /// (`outer_inner`, made unique), which are lifted when their function is lowered.
    fn name_nested(&mut self) {
        let mut taken: HashSet<String> = self.functions.keys().cloned().collect();
        let mut lifted = HashMap::new();
        let mut order: Vec<&String> = self.functions.keys().collect();
        order.sort();
        for outer in order {
            for stmt in &self.functions[outer].body {
                if let ast::Stmt::FunctionDef(d) = stmt {
                    let inner = d.name.id.as_str();
                    let base = format!("{outer}_{inner}");
                    let mut name = base.clone();
                    let mut k = 2;
                    while taken.contains(&name) {
                        name = format!("{base}{k}");
                        k += 1;
                    }
                    taken.insert(name.clone());
                    lifted.insert(name, (outer.clone(), inner.to_owned()));
                }
            }
        }
        for name in lifted.keys() {
            self.function_names.push(name.clone());
        }
        self.function_names.sort_by_key(|n| lifted.contains_key(n));
        self.lifted = lifted;
        self.lifted_defs.borrow_mut().clear();
    }

    /// The `def name` (or lambda) whose code starts at `line` (the first decorator's line
    /// in CPython, the `def` line in RustPython: either matches), the `ordinal`-th there.
    fn def_at(&self, name: &str, line: u32, ordinal: usize) -> Option<&ast::StmtFunctionDef> {
        units::find(&self.units, name, line, ordinal).map(|u| &u.def)
    }

    /// Why the `def name` of `line` cannot be found.
    fn unavailable_def(&self, name: &str, line: u32) -> String {
        let what = if name == units::LAMBDA {
            "lambda".to_owned()
        } else {
            format!("`def {name}`")
        };
        format!(
            "{} has no {what} at line {line}, where the function object's code begins: the file changed after the function was defined",
            self.file
        )
    }

    /// Resolves names as the running program binds them (`live`, the host's answer)
    /// instead of by the file's import statements: the module's imports become the live
    /// modules and named objects, its functions the `def`s the live functions were made
    /// from (`g_two = g_three` makes `g_two` the `def g_three`; a `def` redefined in a
    /// module-level `if` is the one that ran). `func`, the differentiated function, is
    /// `live.entry`'s `def`.
    pub fn apply_live(&mut self, func: &str, mut live: LiveNames) -> Result<(), Diagnostic> {
        let mut functions = HashMap::new();
        if let Some((def, line, ordinal)) = live.entry.clone() {
            let Some(d) = self.def_at(&def, line, ordinal) else {
                return Err(Diagnostic::new(
                    Span::SYNTHETIC,
                    self.unavailable_def(&def, line),
                    "tangent differentiates the code of the function object it is given: re-run or reload the module after editing it",
                ));
            };
            functions.insert(func.to_owned(), Arc::new(renamed(d, func)));
        }
        let mut notes = Vec::new();
        for (name, binding) in &live.names {
            let Live::Function { def, line, ordinal } = binding else {
                continue;
            };
            if name == func && live.entry.as_ref() == Some(&(def.clone(), *line, *ordinal)) {
                continue;
            }
            if name == func && live.entry.is_some() {
                return Err(Diagnostic::new(
                    Span::SYNTHETIC,
                    format!("the global `{func}` is a different function from the one given (its code is `def {def}` at line {line})"),
                    format!("differentiate the function the module's `{func}` is now, or give the other one its own name"),
                ));
            }
            match self.def_at(def, *line, *ordinal) {
                Some(d) => {
                    functions.insert(name.clone(), Arc::new(renamed(d, name)));
                }
                None => notes.push((name.clone(), self.unavailable_def(def, *line))),
            }
        }
        for (name, note) in notes {
            live.names.insert(
                name.clone(),
                Live::Value {
                    type_name: "function".into(),
                    array: false,
                    class: false,
                },
            );
            live.notes.insert(name, note);
        }
        self.imports = live
            .names
            .iter()
            .filter_map(|(n, b)| match b {
                Live::Import(q) => Some((n.clone(), q.clone())),
                _ => None,
            })
            .collect();
        self.ambiguous.clear();
        let mut names: Vec<String> = functions.keys().cloned().collect();
        names.sort();
        self.function_names = names;
        self.functions = functions;
        self.aliases = live.aliases.clone();
        self.live = Some(live);
        self.name_nested();
        Ok(())
    }

    /// Whether `name` is a nested `def` lifted to module level (`syntax::lift`).
    pub fn is_lifted(&self, name: &str) -> bool {
        self.lifted.contains_key(name)
    }

    /// The functions defined at module level, without the lifted nested ones.
    pub fn written_functions(&self) -> impl Iterator<Item = &String> {
        self.function_names.iter().filter(|n| !self.is_lifted(n))
    }

    pub fn has_function(&self, name: &str) -> bool {
        self.functions.contains_key(name)
            || self.fallback.as_ref().is_some_and(|f| f.has_function(name))
    }

    /// Functions (and imports) this module lacks are taken from `other`.
    pub fn set_fallback(&mut self, other: SourceModule) {
        for (k, v) in &other.aliases {
            self.aliases.entry(k.clone()).or_insert_with(|| v.clone());
        }
        for (k, v) in &other.imports {
            self.imports.entry(k.clone()).or_insert_with(|| v.clone());
        }
        for k in &other.ambiguous {
            if !self.imports.contains_key(k) {
                self.ambiguous.insert(k.clone());
            }
        }
        for n in &other.function_names {
            if !self.function_names.contains(n) {
                self.function_names.push(n.clone());
            }
        }
        self.fallback = Some(Box::new(other));
    }

    /// Lowers one top-level function to the IR, rejecting what we cannot differentiate.
    /// Its nested `def`s are lifted (`syntax::lift`): they are functions of the module
    /// named in `lifted`, lowered with it.
    pub fn lower_function(&self, name: &str) -> Result<FuncDef, Diagnostic> {
        if !self.functions.contains_key(name) && !self.lifted.contains_key(name) {
            if let Some(f) = &self.fallback {
                if f.has_function(name) {
                    return f.lower_function(name);
                }
            }
        }
        if let Some((outer, _)) = self.lifted.get(name) {
            if let Some(def) = self.lifted_defs.borrow().get(name) {
                return Ok(def.clone());
            }
            self.lower_function(outer)?;
            return self.lifted_defs.borrow().get(name).cloned().ok_or_else(|| {
                Diagnostic::new(Span::SYNTHETIC, format!("no nested function `{name}`"), "")
            });
        }
        let def = self.functions.get(name).ok_or_else(|| {
            Diagnostic::new(
                Span::SYNTHETIC,
                format!(
                    "no function named `{name}` at the top level of {}",
                    self.file
                ),
                "define the function with `def` at module level, or pass the right name",
            )
        })?;
        let constructor = self
            .live
            .as_ref()
            .is_some_and(|l| l.constructor.as_deref() == Some(name));
        let lowerer = Lowerer::new(
            &self.text,
            false,
            constructor
                .then(|| def.parameters.args.first())
                .flatten()
                .map(|a| a.parameter.name.id.as_str().to_owned()),
        );
        let locate = |d: Diagnostic| d.locate(&self.file, &self.text);
        let mut func = lowerer.function(def).map_err(locate)?;
        let closure = self.live.as_ref().and_then(|l| l.closures.get(name));
        if closure.is_some_and(|c| c.iter().any(|(v, _)| v == "__class__")) {
            lift::explicit_super(&mut func);
        }
        if let Some(param) = self.live.as_ref().and_then(|l| l.bound.get(name)) {
            lift::bind_first(&mut func, param).map_err(locate)?;
        }
        if constructor {
            let post = self.live.as_ref().is_some_and(|l| l.post_init);
            super::constructor::fields_function(&mut func, post).map_err(locate)?;
        }
        let renames = self
            .live
            .as_ref()
            .and_then(|l| l.closures.get(name))
            .cloned()
            .unwrap_or_default();
        lift::rename_free(&mut func, &renames);
        let nested = lowerer.into_nested();
        let mut found = Vec::new();
        for mut inner in nested {
            let lifted = self
                .lifted
                .iter()
                .find(|(_, (o, i))| o == name && *i == inner.name)
                .map(|(l, _)| l.clone())
                .unwrap_or_else(|| format!("{name}_{}", inner.name));
            lift::rename_free(&mut inner, &renames);
            let at = inner.span;
            func.body
                .retain(|s| !(matches!(s.kind, StmtKind::Pass) && s.span == at));
            found.push(lift::Nested { def: inner, lifted });
        }
        let lifted = lift::lift(&mut func, found).map_err(locate)?;
        let mut defs = self.lifted_defs.borrow_mut();
        for l in lifted {
            defs.insert(l.name.clone(), l);
        }
        Ok(func)
    }

    /// The lifted nested functions `names` call (transitively), in a stable order: the
    /// generated code defines them, since the user's module has no such names.
    pub fn lifted_functions(&self, names: &HashSet<String>) -> Vec<FuncDef> {
        let mut todo: Vec<String> = names
            .iter()
            .filter(|n| self.lifted.contains_key(*n))
            .cloned()
            .collect();
        todo.sort();
        let mut seen: HashSet<String> = HashSet::new();
        let mut out = Vec::new();
        while let Some(n) = todo.pop() {
            if !seen.insert(n.clone()) {
                continue;
            }
            let Ok(def) = self.lower_function(&n) else {
                continue;
            };
            walk_stmts(&def.body, &mut |s| {
                crate::syntax::visit::stmt_exprs(s, &mut |e| {
                    e.walk(&mut |x| {
                        if let Some(m) = x.as_name() {
                            if self.lifted.contains_key(m) && !seen.contains(m) {
                                todo.push(m.to_owned());
                            }
                        }
                    })
                })
            });
            out.push(def);
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }

    /// Lowers a rule template: like [`Self::lower_function`] but `*args` (and keyword-only
    /// parameters after it) are allowed.
    pub fn lower_template(&self, name: &str) -> Result<FuncDef, Diagnostic> {
        let def = self
            .functions
            .get(name)
            .ok_or_else(|| Diagnostic::new(Span::SYNTHETIC, format!("no template `{name}`"), ""))?;
        let lowerer = Lowerer::new(&self.text, true, None);
        lowerer
            .function(def)
            .map_err(|d| d.locate(&self.file, &self.text))
    }

    /// The decorators of a top-level function as (dotted callee, dotted arguments), e.g.
    /// `@adjoint(numpy.tanh)` gives `("adjoint", ["numpy.tanh"])`; keyword arguments come
    /// as `"key=value"`.
    pub fn decorators(&self, name: &str) -> Vec<(String, Vec<String>)> {
        let Some(def) = self.functions.get(name) else {
            return vec![];
        };
        def.decorator_list
            .iter()
            .filter_map(|d| match &d.expression {
                ast::Expr::Call(c) => {
                    let mut args: Vec<String> =
                        c.arguments.args.iter().filter_map(dotted).collect();
                    // Keyword arguments with a name or string value come as `key=value`.
                    for k in c.arguments.keywords.iter() {
                        let value = match &k.value {
                            ast::Expr::StringLiteral(s) => Some(s.value.to_str().to_owned()),
                            other => dotted(other),
                        };
                        if let (Some(key), Some(value)) = (&k.arg, value) {
                            args.push(format!("{}={value}", key.id.as_str()));
                        }
                    }
                    Some((dotted(&c.func)?, args))
                }
                other => Some((dotted(other)?, vec![])),
            })
            .collect()
    }

    /// Without a host (no live names: the Rust API, `tangent grad FILE:FUNC`), a call of a
    /// decorated module-level function is refused: what the decorator binds the name to
    /// (a `tangent.custom_vjp` rule, a wrapper) is only known to the running program, and
    /// differentiating the `def` as written could ignore a custom rule.
    pub fn check_undecorated(&self, name: &str, span: Span) -> Result<(), Diagnostic> {
        let Some(def) = self.functions.get(name) else {
            return Ok(());
        };
        if self.live.is_some() || def.decorator_list.is_empty() {
            return Ok(());
        }
        let first = &def.decorator_list[0];
        let text = self
            .text
            .get(first.range.start().to_usize()..first.range.end().to_usize())
            .unwrap_or("")
            .trim_start_matches('@');
        Err(Diagnostic::new(
            span,
            format!("cannot differentiate a call to `{name}` here: it is decorated (`@{text}`), and what the decorator makes of it (a custom derivative rule, a wrapper) is known only to the running program"),
            "differentiate from Python (`tangent.grad` in the script, which runs the decorator and uses a custom rule), or call the undecorated function",
        ))
    }

    /// The source text of a span (for comments such as `# Grad of: ...`).
    pub fn snippet(&self, s: Span) -> &str {
        self.text
            .get(s.start as usize..s.end as usize)
            .unwrap_or("")
    }
}

/// Refuses, before the parser sees it, text whose brackets or runs of prefix operators
/// (`- - x`, `not not x`) nest deeper than [`crate::stack::MAX_NESTING`]: the parser
/// recurses once per such level (about 2 kB of stack each), so a text of a megabyte of
/// `(` would exhaust even the transformer's stack. (Parentheses leave no trace in the
/// syntax tree, so the depth bound of lowering cannot see them.) Strings and comments are
/// skipped; an f-string counts as a string.
fn check_nesting(text: &str) -> Result<(), Diagnostic> {
    let b = text.as_bytes();
    let limit = crate::stack::MAX_NESTING;
    let too_deep = |at: usize| {
        Err(too_deep(TextRange::new(
            ruff_text_size::TextSize::new(at as u32),
            ruff_text_size::TextSize::new(at as u32 + 1),
        )))
    };
    let (mut depth, mut run, mut i) = (0usize, 0usize, 0usize);
    // Whether the last token ends an operand (then `-` is binary, not prefix).
    let mut operand = false;
    while i < b.len() {
        let c = b[i];
        match c {
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'\'' | b'"' => {
                let triple = b.len() >= i + 3 && b[i + 1] == c && b[i + 2] == c;
                i += if triple { 3 } else { 1 };
                while i < b.len() {
                    if b[i] == b'\\' {
                        i += 2;
                        continue;
                    }
                    if triple {
                        if b.len() >= i + 3 && b[i] == c && b[i + 1] == c && b[i + 2] == c {
                            i += 3;
                            break;
                        }
                    } else if b[i] == c || b[i] == b'\n' {
                        i += 1;
                        break;
                    }
                    i += 1;
                }
                operand = true;
                run = 0;
                continue;
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth + run > limit {
                    return too_deep(i);
                }
                operand = false;
            }
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                operand = true;
                run = 0;
            }
            b'-' | b'+' | b'~' if !operand => {
                run += 1;
                if depth + run > limit {
                    return too_deep(i);
                }
            }
            b' ' | b'\t' | b'\r' | b'\\' => {}
            b'\n' => {
                if depth == 0 {
                    run = 0;
                    operand = false;
                }
            }
            c if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] >= 0x80)
                {
                    i += 1;
                }
                let word = &b[start..i];
                if word == b"not" {
                    run += 1;
                    if depth + run > limit {
                        return too_deep(start);
                    }
                    operand = false;
                } else if matches!(
                    word,
                    b"and"
                        | b"or"
                        | b"if"
                        | b"else"
                        | b"in"
                        | b"is"
                        | b"lambda"
                        | b"return"
                        | b"yield"
                        | b"await"
                ) {
                    operand = false;
                } else {
                    operand = true;
                    run = 0;
                }
                continue;
            }
            _ => {
                // Other operators and punctuation: a prefix operator may follow.
                operand = false;
            }
        }
        i += 1;
    }
    Ok(())
}

/// The syntax tree of a Python file; a syntax error is located (also the rule loader's).
pub(crate) fn parse_python(file: &str, text: &str) -> Result<ast::ModModule, Diagnostic> {
    let parsed = ruff_python_parser::parse_module(text).map_err(|e| {
        Diagnostic::new(
            span(e.location),
            format!("syntax error: {}", e.error),
            "fix the Python syntax at this point; the file must be valid Python 3",
        )
        .locate(file, text)
    })?;
    Ok(parsed.into_syntax())
}

/// `a.b.c` for a chain of attribute accesses on a name (also the rule loader's).
pub(crate) fn dotted(e: &ast::Expr) -> Option<String> {
    // A loop, not recursion: an attribute chain can be as long as the file.
    let mut parts = Vec::new();
    let mut e = e;
    loop {
        match e {
            ast::Expr::Name(n) => {
                parts.push(n.id.as_str());
                break;
            }
            ast::Expr::Attribute(a) => {
                parts.push(a.attr.id.as_str());
                e = &a.value;
            }
            _ => return None,
        }
    }
    parts.reverse();
    Some(parts.join("."))
}

/// A copy of `def` that defines `name` (a global bound to another function's `def`).
fn renamed(def: &ast::StmtFunctionDef, name: &str) -> ast::StmtFunctionDef {
    let mut d = def.clone();
    d.name.id = name.into();
    d
}

/// The module-level bindings of import names, walking into `try`, `if` and `with` blocks
/// (an import there runs when the module loads, as at the top level).
#[derive(Default)]
struct ModuleBindings {
    imports: HashMap<String, String>,
    ambiguous: HashSet<String>,
}

impl ModuleBindings {
    fn bind(&mut self, local: &str, target: String) {
        if self.ambiguous.contains(local) {
            return;
        }
        match self.imports.get(local) {
            Some(t) if *t != target => {
                self.imports.remove(local);
                self.ambiguous.insert(local.to_owned());
            }
            _ => {
                self.imports.insert(local.to_owned(), target);
            }
        }
    }

    fn block(&mut self, stmts: &[ast::Stmt]) {
        for stmt in stmts {
            self.stmt(stmt);
        }
        // A name imported and also assigned at module level (other than `= None`, the
        // "not installed" marker whose calls fail anyway) is rebound: not an import.
        for stmt in stmts {
            if let ast::Stmt::Assign(a) = stmt {
                if matches!(&*a.value, ast::Expr::NoneLiteral(_)) {
                    continue;
                }
                for t in &a.targets {
                    if let ast::Expr::Name(n) = t {
                        let n = n.id.as_str();
                        if self.imports.remove(n).is_some() {
                            self.ambiguous.insert(n.to_owned());
                        }
                    }
                }
            }
        }
    }

    fn stmt(&mut self, stmt: &ast::Stmt) {
        match stmt {
            ast::Stmt::Import(imp) => {
                for alias in &imp.names {
                    let full = alias.name.id.as_str().to_owned();
                    match &alias.asname {
                        Some(a) => self.bind(a.id.as_str(), full),
                        None => {
                            let top = full.split('.').next().unwrap_or(&full).to_owned();
                            self.bind(&top.clone(), top);
                        }
                    }
                }
            }
            ast::Stmt::ImportFrom(imp) if imp.level == 0 => {
                let Some(m) = &imp.module else { return };
                for alias in &imp.names {
                    let local = alias.asname.as_ref().unwrap_or(&alias.name);
                    self.bind(
                        local.id.as_str(),
                        format!("{}.{}", m.id.as_str(), alias.name.id.as_str()),
                    );
                }
            }
            ast::Stmt::Try(t) => {
                self.block(&t.body);
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    self.block(&h.body);
                }
                self.block(&t.orelse);
                self.block(&t.finalbody);
            }
            ast::Stmt::If(i) => {
                self.block(&i.body);
                for clause in &i.elif_else_clauses {
                    self.block(&clause.body);
                }
            }
            ast::Stmt::With(w) => self.block(&w.body),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SourceModule;

    /// A parse reused for the same file and text is a copy: changing one (`apply_live`
    /// replaces the functions) leaves the next request's copy as parsed, and another
    /// text or file name is parsed anew.
    #[test]
    fn shared_parses_are_copies_of_the_same_file_and_text() {
        let text = "import numpy as np\n\n\ndef f(x):\n    return np.sin(x)\n\n\ndef g(x):\n    return x\n";
        let mut first = SourceModule::parse_shared("shared_parse_test.py", text).unwrap();
        first.imports.clear();
        first.function_names.clear();
        let again = SourceModule::parse_shared("shared_parse_test.py", text).unwrap();
        assert_eq!(again.imports.get("np").map(String::as_str), Some("numpy"));
        assert_eq!(again.function_names, ["f", "g"]);
        let other = text.replace("np.sin", "np.cos");
        let changed = SourceModule::parse_shared("shared_parse_test.py", &other).unwrap();
        assert!(changed.lower_function("f").is_ok());
        assert!(changed.text.contains("np.cos"));
        let renamed = SourceModule::parse_shared("other_name.py", text).unwrap();
        assert_eq!(renamed.file, "other_name.py");
    }
}
