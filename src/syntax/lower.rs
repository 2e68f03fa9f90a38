//! Parsing (with the parser RustPython itself uses) and lowering of the differentiable
//! subset to our IR. Lowering is also the fence: any construct outside the subset is
//! rejected here with a spanned diagnostic that says what to do instead.

use super::diag::Diagnostic;
use super::ir::*;
use super::lift;
use super::units::{self, Unit};
use crate::syntax::live::{Live, LiveNames};
use ruff_python_ast as ast;
use ruff_text_size::{Ranged, TextRange};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

/// A parsed source file: its import aliases and its top-level function definitions.
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
    functions: HashMap<String, ast::StmtFunctionDef>,
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
    units: Vec<Unit>,
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

/// Literal text of an f-string as `str.format` template text (braces doubled).
fn escape_braces(text: &str, template: &mut String) {
    for c in text.chars() {
        match c {
            '{' => template.push_str("{{"),
            '}' => template.push_str("}}"),
            c => template.push(c),
        }
    }
}

fn span(r: TextRange) -> Span {
    Span {
        start: r.start().to_u32(),
        end: r.end().to_u32(),
    }
}

impl SourceModule {
    pub fn parse(file: &str, text: &str) -> Result<SourceModule, Diagnostic> {
        check_nesting(text).map_err(|d| d.locate(file, text))?;
        let module = parse_python(file, text)?;
        let mut bindings = ModuleBindings::default();
        bindings.block(&module.body);
        let ModuleBindings { imports, ambiguous } = bindings;
        let units = units::collect(&module, text);
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
                    functions.insert(name, def);
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
            functions.insert(func.to_owned(), renamed(d, func));
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
                    functions.insert(name.clone(), renamed(d, name));
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
        let lowerer = Lowerer {
            text: &self.text,
            template: false,
            depth: Default::default(),
            nested: Some(RefCell::new(Vec::new())),
            blocks: Default::default(),
            dropped: Default::default(),
            loops: Default::default(),
            constructor: constructor
                .then(|| def.parameters.args.first())
                .flatten()
                .map(|a| a.parameter.name.id.as_str().to_owned()),
        };
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
        let nested = lowerer.nested.map(|n| n.into_inner()).unwrap_or_default();
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
        let lowerer = Lowerer {
            text: &self.text,
            template: true,
            depth: Default::default(),
            nested: None,
            blocks: Default::default(),
            dropped: Default::default(),
            loops: Default::default(),
            constructor: None,
        };
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

struct Lowerer<'a> {
    text: &'a str,
    /// Rule templates may take `*args`.
    template: bool,
    /// How many statements and expressions enclose the one being lowered.
    depth: std::cell::Cell<usize>,
    /// The `def`s found at the top level of the function's body (lifted afterwards), when
    /// lowering a user function.
    nested: Option<RefCell<Vec<FuncDef>>>,
    /// How many statement blocks enclose the statement being lowered (1: the body).
    blocks: std::cell::Cell<usize>,
    /// The statements the lowering drops but must check against the whole function:
    /// `del`, `global`, `nonlocal` (see [`Lowerer::check_dropped`]).
    dropped: std::cell::RefCell<Vec<Dropped>>,
    /// The spans of the loops enclosing the statement being lowered.
    loops: std::cell::RefCell<Vec<Span>>,
    /// Lowering a class's `__init__` as a constructor (`syntax::constructor`): its first
    /// parameter, whose attributes may be assigned.
    constructor: Option<String>,
}

/// A statement the lowering leaves out of the IR.
struct Dropped {
    /// `del` (a local is unbound), else a `global`/`nonlocal` declaration.
    del: bool,
    name: String,
    /// The statement.
    span: Span,
    /// The innermost loop around a `del`.
    in_loop: Option<Span>,
}

/// The diagnostic for code nested deeper than the transformer's bound, at the construct
/// that crosses it.
fn too_deep(r: TextRange) -> Diagnostic {
    Diagnostic::new(
        span(r),
        format!(
            "this code is nested too deeply: more than {} levels of expressions and statements (CPython refuses such code too: too many nested parentheses, or a RecursionError while compiling)",
            crate::stack::MAX_NESTING
        ),
        "split the expression into several statements with intermediate variables, e.g. a loop that adds one term per iteration",
    )
}

fn unsupported(r: TextRange, what: &str, hint: &str) -> Diagnostic {
    Diagnostic::new(span(r), format!("{what} cannot be differentiated"), hint)
}

impl Lowerer<'_> {
    fn function(&self, def: &ast::StmtFunctionDef) -> Result<FuncDef, Diagnostic> {
        if def.is_async {
            return Err(unsupported(
                def.range,
                "an `async def`",
                "differentiate a plain `def` function",
            ));
        }
        let p = &def.parameters;
        let vararg = match &p.vararg {
            Some(v) if self.template => Some(v.name.id.as_str().to_owned()),
            _ => None,
        };
        if let Some(v) = &p.kwarg {
            return Err(unsupported(
                v.range,
                "a `**kwargs` parameter",
                "list each argument as a named positional parameter",
            ));
        }
        let mut params = Vec::new();
        for a in p.posonlyargs.iter().chain(&p.args) {
            params.push(Param {
                name: a.parameter.name.id.as_str().to_owned(),
                default: a.default.as_deref().map(|e| self.expr(e)).transpose()?,
            });
        }
        // A user function's `*args` is the parameter after the positional ones (the
        // tuple of the extra arguments); keyword-only parameters follow. Calls pass them
        // by name (`pipeline::check_call`) and derivatives keep them keyword-only.
        let star = match (&p.vararg, self.template) {
            (Some(v), false) => {
                params.push(Param {
                    name: v.name.id.as_str().to_owned(),
                    default: None,
                });
                Some(params.len() - 1)
            }
            _ => None,
        };
        let kwonly = match star {
            Some(s) => Some(s + 1),
            None => (!p.kwonlyargs.is_empty()).then_some(params.len()),
        };
        for a in &p.kwonlyargs {
            params.push(Param {
                name: a.parameter.name.id.as_str().to_owned(),
                default: a.default.as_deref().map(|e| self.expr(e)).transpose()?,
            });
        }
        let body = self.block(&def.body)?;
        self.check_dropped(&params, &body)?;
        Ok(FuncDef {
            name: def.name.id.as_str().to_owned(),
            params,
            vararg,
            kwonly,
            star,
            body,
            span: span(def.range),
        })
    }

    /// The statements the lowering left out hold for the whole function: a `del`'d
    /// local is never read after it (the derivative keeps every value, so a read that
    /// raises `NameError` in the primal would give a number here), and a name declared
    /// `global`/`nonlocal` is only read (a write would change the caller's state).
    fn check_dropped(&self, params: &[Param], body: &[Stmt]) -> Result<(), Diagnostic> {
        let dropped = self.dropped.borrow();
        if dropped.is_empty() {
            return Ok(());
        }
        let mut bound: Vec<(String, Span)> = Vec::new();
        let mut reads: Vec<(String, Span)> = Vec::new();
        // Names each loop body (by the loop's span) binds unconditionally, at its top
        // level, with where.
        let mut rebound: Vec<(Span, String, Span)> = Vec::new();
        walk_stmts(body, &mut |s| {
            if let StmtKind::For(_, _, b) | StmtKind::While(_, b) = &s.kind {
                for t in b {
                    if let StmtKind::Assign(target, _) = &t.kind {
                        target.bound_names(&mut |n| rebound.push((s.span, n.to_owned(), t.span)));
                    }
                }
            }
            let mut read = |e: &Expr| {
                e.walk(&mut |x| {
                    if let ExprKind::Name(n) = &x.kind {
                        reads.push((n.clone(), x.span));
                    }
                })
            };
            match &s.kind {
                StmtKind::Assign(t, v) => {
                    t.bound_names(&mut |n| bound.push((n.to_owned(), t.span)));
                    if !matches!(t.kind, ExprKind::Name(_)) {
                        read(t);
                    }
                    read(v);
                }
                StmtKind::AugAssign(t, _, v) => {
                    t.bound_names(&mut |n| bound.push((n.to_owned(), t.span)));
                    read(t);
                    read(v);
                }
                StmtKind::For(t, it, _) => {
                    t.bound_names(&mut |n| bound.push((n.to_owned(), t.span)));
                    read(it);
                }
                StmtKind::With(items, _) => {
                    for (cm, target) in items {
                        read(cm);
                        if let Some(t) = target {
                            t.bound_names(&mut |n| bound.push((n.to_owned(), t.span)));
                        }
                    }
                }
                StmtKind::If(e, ..)
                | StmtKind::While(e, _)
                | StmtKind::Return(Some(e))
                | StmtKind::ExprStmt(e) => read(e),
                StmtKind::Assert(t, m) => {
                    read(t);
                    if let Some(m) = m {
                        read(m);
                    }
                }
                _ => {}
            }
        });
        for d in dropped.iter() {
            if d.del {
                let local = params.iter().any(|p| p.name == d.name)
                    || bound.iter().any(|(n, _)| *n == d.name);
                if !local {
                    return Err(Diagnostic::new(
                        d.span,
                        format!("`del {}` of a name the function does not assign", d.name),
                        "remove the `del`; a global cannot be unbound from a differentiated function",
                    ));
                }
                // In a loop, a read before the `del` sees the next iteration's value
                // only if the loop body assigns the name before it.
                let assigned_before = |at: Span, l: Span| {
                    rebound
                        .iter()
                        .any(|(lp, n, sp)| *lp == l && *n == d.name && sp.end <= at.start)
                };
                let later = reads.iter().find(|(n, sp)| {
                    *n == d.name
                        && (sp.start >= d.span.end
                            || d.in_loop.is_some_and(|l| {
                                sp.start >= l.start && sp.end <= l.end && !assigned_before(*sp, l)
                            }))
                });
                if let Some((_, sp)) = later {
                    return Err(Diagnostic::new(
                        *sp,
                        format!(
                            "`{}` is read after (or, in a loop, around) a `del {}`",
                            d.name, d.name
                        ),
                        "remove the `del`, or read the value before it: the derivative keeps every value, so it cannot reproduce the `NameError`",
                    ));
                }
            } else if let Some((_, sp)) = bound.iter().find(|(n, _)| *n == d.name) {
                return Err(Diagnostic::new(
                    *sp,
                    format!(
                        "assignment to `{}`, declared `global`/`nonlocal` at line {}",
                        d.name,
                        self.line_of(d.span.start)
                    ),
                    "only reads of a global are differentiated: return the new value and assign it outside the function",
                ));
            }
        }
        Ok(())
    }

    fn line_of(&self, offset: u32) -> usize {
        let end = (offset as usize).min(self.text.len());
        self.text[..end].matches('\n').count() + 1
    }

    fn block(&self, stmts: &[ast::Stmt]) -> Result<Vec<Stmt>, Diagnostic> {
        self.blocks.set(self.blocks.get() + 1);
        let out = self.block_inner(stmts);
        self.blocks.set(self.blocks.get() - 1);
        out
    }

    fn block_inner(&self, stmts: &[ast::Stmt]) -> Result<Vec<Stmt>, Diagnostic> {
        let mut out = Vec::new();
        for s in stmts {
            // A docstring (or any bare string) is documentation, not computation.
            if let ast::Stmt::Expr(e) = s {
                if matches!(*e.value, ast::Expr::StringLiteral(_)) {
                    continue;
                }
            }
            // `del`, `global` and `nonlocal` leave nothing to run (checked against the
            // whole function by `check_dropped`).
            match s {
                ast::Stmt::Delete(d) => {
                    self.delete(d)?;
                    continue;
                }
                ast::Stmt::Global(ast::StmtGlobal { names, range, .. })
                | ast::Stmt::Nonlocal(ast::StmtNonlocal { names, range, .. }) => {
                    for n in names {
                        self.dropped.borrow_mut().push(Dropped {
                            del: false,
                            name: n.id.as_str().to_owned(),
                            span: span(*range),
                            in_loop: None,
                        });
                    }
                    continue;
                }
                _ => {}
            }
            out.push(self.stmt(s)?);
        }
        Ok(out)
    }

    fn stmt(&self, s: &ast::Stmt) -> Result<Stmt, Diagnostic> {
        self.nested(s.range(), || self.stmt_inner(s))
    }

    /// `del x, y` of locals: nothing runs (the derivative may still need the values).
    fn delete(&self, d: &ast::StmtDelete) -> Result<(), Diagnostic> {
        for t in &d.targets {
            let ast::Expr::Name(n) = t else {
                return Err(unsupported(
                    t.range(),
                    "a `del` of an element or attribute",
                    "build a new value without the element instead of mutating the object",
                ));
            };
            self.dropped.borrow_mut().push(Dropped {
                del: true,
                name: n.id.as_str().to_owned(),
                span: span(d.range),
                in_loop: self.loops.borrow().last().copied(),
            });
        }
        Ok(())
    }

    /// A loop body, with the loop's span known to the `del`s inside it.
    fn loop_body(&self, r: TextRange, stmts: &[ast::Stmt]) -> Result<Vec<Stmt>, Diagnostic> {
        self.loops.borrow_mut().push(span(r));
        let out = self.block(stmts);
        self.loops.borrow_mut().pop();
        out
    }

    fn stmt_inner(&self, s: &ast::Stmt) -> Result<Stmt, Diagnostic> {
        let sp = span(s.range());
        let kind = match s {
            ast::Stmt::Assign(a) => {
                if a.targets.len() != 1 {
                    return Err(unsupported(
                        a.range,
                        "a chained assignment (`a = b = ...`)",
                        "split it into one assignment per target",
                    ));
                }
                StmtKind::Assign(self.target(&a.targets[0])?, self.expr(&a.value)?)
            }
            ast::Stmt::AnnAssign(a) => match &a.value {
                Some(v) => StmtKind::Assign(self.target(&a.target)?, self.expr(v)?),
                None => StmtKind::Pass,
            },
            ast::Stmt::AugAssign(a) => {
                let op = self.binop(a.op, a.range)?;
                StmtKind::AugAssign(self.target(&a.target)?, op, self.expr(&a.value)?)
            }
            ast::Stmt::Return(r) => {
                StmtKind::Return(r.value.as_deref().map(|e| self.expr(e)).transpose()?)
            }
            ast::Stmt::If(i) => {
                let test = self.expr(&i.test)?;
                let body = self.block(&i.body)?;
                let orelse = self.elif_chain(&i.elif_else_clauses)?;
                StmtKind::If(test, body, orelse)
            }
            ast::Stmt::For(f) => {
                if f.is_async {
                    return Err(unsupported(
                        f.range,
                        "an `async for` loop",
                        "use a plain `for` loop",
                    ));
                }
                if let Some(first) = f.orelse.first() {
                    return Err(unsupported(
                        first.range(),
                        "the `else` clause of a `for` loop",
                        "set a flag before `break` and test it after the loop instead",
                    ));
                }
                StmtKind::For(
                    self.target(&f.target)?,
                    self.expr(&f.iter)?,
                    self.loop_body(f.range, &f.body)?,
                )
            }
            ast::Stmt::While(w) => {
                if let Some(first) = w.orelse.first() {
                    return Err(unsupported(
                        first.range(),
                        "the `else` clause of a `while` loop",
                        "set a flag before `break` and test it after the loop instead",
                    ));
                }
                StmtKind::While(self.expr(&w.test)?, self.loop_body(w.range, &w.body)?)
            }
            ast::Stmt::Break(_) => StmtKind::Break,
            ast::Stmt::Continue(_) => StmtKind::Continue,
            ast::Stmt::Pass(_) => StmtKind::Pass,
            ast::Stmt::Expr(e) => StmtKind::ExprStmt(self.expr(&e.value)?),
            ast::Stmt::FunctionDef(d) => match &self.nested {
                Some(nested) if self.blocks.get() == 1 && d.decorator_list.is_empty() => {
                    let inner = Lowerer {
                        text: self.text,
                        template: false,
                        depth: self.depth.clone(),
                        nested: None,
                        blocks: Default::default(),
                        dropped: Default::default(),
                        loops: Default::default(),
                        constructor: None,
                    };
                    let def = inner.function(d)?;
                    nested.borrow_mut().push(def);
                    StmtKind::Pass
                }
                _ => {
                    let (what, hint) = if !d.decorator_list.is_empty() {
                        (
                            "a decorated nested function",
                            "remove the decorator, or define the function at module level",
                        )
                    } else if self.nested.is_some() {
                        ("a function defined inside a block (`if`, a loop)", "define the nested function at the top of the enclosing function's body")
                    } else {
                        ("a function nested two levels deep", "define the inner function in the enclosing function or at module level")
                    };
                    return Err(Diagnostic::new(
                        span(d.range),
                        format!(
                            "`{}` is {what}, which cannot be differentiated",
                            d.name.id.as_str()
                        ),
                        hint,
                    ));
                }
            },
            ast::Stmt::ClassDef(c) => {
                return Err(unsupported(
                    c.range,
                    "a class definition inside the function",
                    "define the class at module level",
                ))
            }
            ast::Stmt::With(w) => {
                if w.is_async {
                    return Err(unsupported(
                        w.range,
                        "an `async with` block",
                        "use a plain `with` block",
                    ));
                }
                let mut items = Vec::new();
                for item in &w.items {
                    let target = match item.optional_vars.as_deref() {
                        None => None,
                        Some(v @ ast::Expr::Name(_)) => Some(self.expr(v)?),
                        Some(other) => {
                            return Err(unsupported(
                                other.range(),
                                "this `as` target of a `with`",
                                "bind the context to a single name",
                            ))
                        }
                    };
                    items.push((self.expr(&item.context_expr)?, target));
                }
                StmtKind::With(items, self.block(&w.body)?)
            }
            ast::Stmt::Try(t) => {
                return Err(unsupported(
                    t.range,
                    "a `try` statement",
                    "check the condition with `if` instead of catching an exception",
                ))
            }
            ast::Stmt::Raise(r) => {
                return Err(unsupported(
                    r.range,
                    "a `raise` statement",
                    "validate the inputs before calling the differentiated function",
                ))
            }
            ast::Stmt::Assert(a) => StmtKind::Assert(
                self.expr(&a.test)?,
                a.msg.as_deref().map(|m| self.expr(m)).transpose()?,
            ),
            ast::Stmt::Import(i) => {
                return Err(unsupported(
                    i.range,
                    "an `import` inside the function",
                    "move the import to the top of the module",
                ))
            }
            ast::Stmt::ImportFrom(i) => {
                return Err(unsupported(
                    i.range,
                    "an `import` inside the function",
                    "move the import to the top of the module",
                ))
            }
            ast::Stmt::Match(m) => {
                return Err(unsupported(
                    m.range,
                    "a `match` statement",
                    "rewrite it as an `if`/`elif` chain",
                ))
            }
            other => {
                return Err(unsupported(
                    other.range(),
                    "this statement",
                    "rewrite it with assignments, `if`, `for` and `while`",
                ))
            }
        };
        Ok(Stmt::new(kind, sp))
    }

    fn elif_chain(&self, clauses: &[ast::ElifElseClause]) -> Result<Vec<Stmt>, Diagnostic> {
        let Some((first, rest)) = clauses.split_first() else {
            return Ok(vec![]);
        };
        match &first.test {
            None => self.block(&first.body),
            Some(test) => {
                let kind = StmtKind::If(
                    self.expr(test)?,
                    self.block(&first.body)?,
                    self.elif_chain(rest)?,
                );
                Ok(vec![Stmt::new(kind, span(first.range))])
            }
        }
    }

    fn target(&self, e: &ast::Expr) -> Result<Expr, Diagnostic> {
        match e {
            ast::Expr::Name(_) | ast::Expr::Subscript(_) => self.expr(e),
            ast::Expr::Tuple(t) => {
                let elts = t
                    .elts
                    .iter()
                    .map(|x| self.target(x))
                    .collect::<Result<_, _>>()?;
                Ok(Expr::new(ExprKind::Tuple(elts), span(t.range)))
            }
            ast::Expr::List(t) => {
                let elts = t
                    .elts
                    .iter()
                    .map(|x| self.target(x))
                    .collect::<Result<_, _>>()?;
                Ok(Expr::new(ExprKind::Tuple(elts), span(t.range)))
            }
            ast::Expr::Attribute(a) if matches!(&*a.value, ast::Expr::Name(n) if Some(n.id.as_str()) == self.constructor.as_deref()) => {
                self.expr(e)
            }
            ast::Expr::Attribute(a) => Err(unsupported(
                a.range,
                "assignment to an attribute",
                "assign to a local variable and return it instead of mutating an object",
            )),
            ast::Expr::Starred(s) => Err(unsupported(
                s.range,
                "a starred assignment target",
                "unpack each element into its own name",
            )),
            other => Err(unsupported(
                other.range(),
                "this assignment target",
                "assign to a name, a tuple of names or a subscript",
            )),
        }
    }

    fn binop(&self, op: ast::Operator, r: TextRange) -> Result<BinOp, Diagnostic> {
        Ok(match op {
            ast::Operator::Add => BinOp::Add,
            ast::Operator::Sub => BinOp::Sub,
            ast::Operator::Mult => BinOp::Mul,
            ast::Operator::MatMult => BinOp::MatMul,
            ast::Operator::Div => BinOp::Div,
            ast::Operator::FloorDiv => BinOp::FloorDiv,
            ast::Operator::Mod => BinOp::Mod,
            ast::Operator::Pow => BinOp::Pow,
            other => {
                return Err(unsupported(
                    r,
                    &format!("the bitwise operator `{}`", other.as_str()),
                    "bitwise operators have no derivative; compute integer values outside the differentiated function",
                ))
            }
        })
    }

    fn exprs(&self, es: &[ast::Expr]) -> Result<Vec<Expr>, Diagnostic> {
        es.iter().map(|e| self.expr(e)).collect()
    }

    fn boxed(&self, e: &ast::Expr) -> Result<Box<Expr>, Diagnostic> {
        Ok(Box::new(self.expr(e)?))
    }

    /// Lowers an expression, refusing nesting deeper than [`crate::stack::MAX_NESTING`]
    /// (counting statements and expressions) before recursing any further.
    fn expr(&self, e: &ast::Expr) -> Result<Expr, Diagnostic> {
        self.nested(e.range(), || self.expr_inner(e))
    }

    fn nested<T>(
        &self,
        r: TextRange,
        f: impl FnOnce() -> Result<T, Diagnostic>,
    ) -> Result<T, Diagnostic> {
        let depth = self.depth.get() + 1;
        if depth > crate::stack::MAX_NESTING {
            return Err(too_deep(r));
        }
        self.depth.set(depth);
        let out = f();
        self.depth.set(depth - 1);
        out
    }

    /// An f-string as the `str.format` call it is equivalent to: `f"{x:.3f} {y!r}"` is
    /// `'{:.3f} {!r}'.format(x, y)` (nested fields of a format spec become nested `{}`,
    /// numbered in the order they open, as `str.format` numbers them; `{x=}` keeps its
    /// text). The result is a string: no derivative flows through it.
    fn fstring(&self, f: &ast::ExprFString) -> Result<Expr, Diagnostic> {
        let mut template = String::new();
        let mut args = Vec::new();
        for part in f.value.iter() {
            match part {
                ast::FStringPart::Literal(l) => escape_braces(&l.value, &mut template),
                ast::FStringPart::FString(fs) => {
                    self.fstring_elements(&fs.elements, &mut template, &mut args)?
                }
            }
        }
        let func = Expr::new(
            ExprKind::Attr(
                Box::new(Expr::new(ExprKind::Str(template), span(f.range))),
                "format".to_owned(),
            ),
            span(f.range),
        );
        Ok(Expr::new(
            ExprKind::Call {
                func: Box::new(func),
                args,
                kwargs: vec![],
            },
            span(f.range),
        ))
    }

    fn fstring_elements(
        &self,
        elements: &ast::InterpolatedStringElements,
        template: &mut String,
        args: &mut Vec<Expr>,
    ) -> Result<(), Diagnostic> {
        for element in elements.iter() {
            match element {
                ast::InterpolatedStringElement::Literal(l) => escape_braces(&l.value, template),
                ast::InterpolatedStringElement::Interpolation(i) => {
                    let r = i.expression.range();
                    let mut conversion = i.conversion;
                    if let Some(debug) = &i.debug_text {
                        // `{x=}`: the text, then repr(x) unless a conversion or spec says
                        let source = &self.text[r.start().to_usize()..r.end().to_usize()];
                        let shown = format!("{}{source}{}", debug.leading, debug.trailing);
                        escape_braces(&shown, template);
                        if conversion == ast::ConversionFlag::None && i.format_spec.is_none() {
                            conversion = ast::ConversionFlag::Repr;
                        }
                    }
                    template.push('{');
                    match conversion {
                        ast::ConversionFlag::None => {}
                        ast::ConversionFlag::Str => template.push_str("!s"),
                        ast::ConversionFlag::Ascii => template.push_str("!a"),
                        ast::ConversionFlag::Repr => template.push_str("!r"),
                    }
                    args.push(self.expr(&i.expression)?);
                    if let Some(spec) = &i.format_spec {
                        template.push(':');
                        self.fstring_elements(&spec.elements, template, args)?;
                    }
                    template.push('}');
                }
            }
        }
        Ok(())
    }

    fn expr_inner(&self, e: &ast::Expr) -> Result<Expr, Diagnostic> {
        let r = e.range();
        let kind = match e {
            ast::Expr::Name(n) => ExprKind::Name(n.id.as_str().to_owned()),
            // Complex literals (`1j`) too: complex values between real inputs and a real
            // result are differentiated by the NumPy rules (tangent._grads_complex), and
            // refused at run time by the rules written for real numbers only.
            ast::Expr::NumberLiteral(_) => {
                ExprKind::Num(self.text[r.start().to_usize()..r.end().to_usize()].to_owned())
            }
            ast::Expr::BooleanLiteral(b) => ExprKind::Bool(b.value),
            ast::Expr::NoneLiteral(_) => ExprKind::NoneLit,
            ast::Expr::StringLiteral(s) => ExprKind::Str(s.value.to_str().to_owned()),
            ast::Expr::Tuple(t) => ExprKind::Tuple(self.exprs(&t.elts)?),
            ast::Expr::List(l) => ExprKind::List(self.exprs(&l.elts)?),
            // `'%.3f' % x` formats: a string method, not the `%` of numbers
            ast::Expr::BinOp(b)
                if b.op == ast::Operator::Mod
                    && matches!(*b.left, ast::Expr::StringLiteral(_)) =>
            {
                let func = Expr::new(
                    ExprKind::Attr(self.boxed(&b.left)?, "__mod__".to_owned()),
                    span(b.left.range()),
                );
                ExprKind::Call {
                    func: Box::new(func),
                    args: vec![self.expr(&b.right)?],
                    kwargs: vec![],
                }
            }
            ast::Expr::BinOp(b) => ExprKind::BinOp(
                self.binop(b.op, b.range)?,
                self.boxed(&b.left)?,
                self.boxed(&b.right)?,
            ),
            ast::Expr::UnaryOp(u) => {
                let op = match u.op {
                    ast::UnaryOp::USub => UnaryOp::Neg,
                    ast::UnaryOp::UAdd => UnaryOp::Pos,
                    ast::UnaryOp::Not => UnaryOp::Not,
                    ast::UnaryOp::Invert => {
                        return Err(unsupported(
                            u.range,
                            "the bitwise operator `~`",
                            "use `not` for booleans or `-x - 1` for integers",
                        ))
                    }
                };
                ExprKind::Unary(op, self.boxed(&u.operand)?)
            }
            ast::Expr::Compare(c) => {
                let mut rest = Vec::new();
                for (op, rhs) in c.ops.iter().zip(c.comparators.iter()) {
                    let op = match op {
                        ast::CmpOp::Eq => CmpOp::Eq,
                        ast::CmpOp::NotEq => CmpOp::NotEq,
                        ast::CmpOp::Lt => CmpOp::Lt,
                        ast::CmpOp::LtE => CmpOp::LtE,
                        ast::CmpOp::Gt => CmpOp::Gt,
                        ast::CmpOp::GtE => CmpOp::GtE,
                        ast::CmpOp::Is => CmpOp::Is,
                        ast::CmpOp::IsNot => CmpOp::IsNot,
                        ast::CmpOp::In => CmpOp::In,
                        ast::CmpOp::NotIn => CmpOp::NotIn,
                    };
                    rest.push((op, self.expr(rhs)?));
                }
                ExprKind::Compare(self.boxed(&c.left)?, rest)
            }
            ast::Expr::BoolOp(b) => ExprKind::BoolOp(
                match b.op {
                    ast::BoolOp::And => BoolOp::And,
                    ast::BoolOp::Or => BoolOp::Or,
                },
                self.exprs(&b.values)?,
            ),
            ast::Expr::Call(c) => {
                let mut args = Vec::new();
                for a in c.arguments.args.iter() {
                    if let ast::Expr::Starred(s) = a {
                        return Err(unsupported(
                            s.range,
                            "a starred argument (`*args`) in a call",
                            "pass each argument explicitly",
                        ));
                    }
                    args.push(self.expr(a)?);
                }
                let mut kwargs = Vec::new();
                for k in c.arguments.keywords.iter() {
                    match &k.arg {
                        Some(name) => {
                            kwargs.push((name.id.as_str().to_owned(), self.expr(&k.value)?))
                        }
                        None => {
                            return Err(unsupported(
                                k.range,
                                "a `**kwargs` argument in a call",
                                "pass each keyword argument explicitly",
                            ))
                        }
                    }
                }
                ExprKind::Call {
                    func: self.boxed(&c.func)?,
                    args,
                    kwargs,
                }
            }
            ast::Expr::Attribute(a) => {
                ExprKind::Attr(self.boxed(&a.value)?, a.attr.id.as_str().to_owned())
            }
            ast::Expr::Subscript(s) => {
                ExprKind::Subscript(self.boxed(&s.value)?, self.boxed(&s.slice)?)
            }
            ast::Expr::Slice(s) => {
                let opt = |x: &Option<Box<ast::Expr>>| -> Result<Option<Box<Expr>>, Diagnostic> {
                    x.as_deref().map(|e| self.boxed(e)).transpose()
                };
                ExprKind::Slice(opt(&s.lower)?, opt(&s.upper)?, opt(&s.step)?)
            }
            ast::Expr::If(i) => ExprKind::IfExp {
                test: self.boxed(&i.test)?,
                body: self.boxed(&i.body)?,
                orelse: self.boxed(&i.orelse)?,
            },
            ast::Expr::EllipsisLiteral(_) => ExprKind::Name("Ellipsis".into()),
            ast::Expr::Lambda(l) => {
                let mut params = Vec::new();
                if let Some(p) = &l.parameters {
                    let simple = p.vararg.is_none()
                        && p.kwarg.is_none()
                        && p.kwonlyargs.is_empty()
                        && p.posonlyargs
                            .iter()
                            .chain(&p.args)
                            .all(|a| a.default.is_none());
                    if !simple {
                        return Err(unsupported(
                            l.range,
                            "a `lambda` with defaults or variable arguments",
                            "give the lambda plain positional parameters, or define a function with `def` at module level",
                        ));
                    }
                    params = p
                        .posonlyargs
                        .iter()
                        .chain(&p.args)
                        .map(|a| a.parameter.name.id.as_str().to_owned())
                        .collect();
                }
                ExprKind::Lambda(params, self.boxed(&l.body)?)
            }
            ast::Expr::ListComp(ast::ExprListComp {
                elt, generators, ..
            })
            // A generator expression is consumed where it is made (`sum(x ** i for i in
            // range(5))`, `max(...)`, `any(...)`): the list of its values is the same
            // sequence.
            | ast::Expr::Generator(ast::ExprGenerator {
                elt, generators, ..
            }) => {
                let mut gens = Vec::new();
                for g in generators {
                    if g.is_async {
                        return Err(unsupported(
                            g.range,
                            "an `async for` comprehension",
                            "use a plain comprehension",
                        ));
                    }
                    gens.push(Comprehension {
                        target: self.target(&g.target)?,
                        iter: self.expr(&g.iter)?,
                        ifs: self.exprs(&g.ifs)?,
                    });
                }
                ExprKind::ListComp(self.boxed(elt)?, gens)
            }
            ast::Expr::DictComp(d) => {
                return Err(unsupported(
                    d.range,
                    "a dict comprehension",
                    "build the values with a `for` loop",
                ))
            }
            ast::Expr::SetComp(d) => {
                return Err(unsupported(
                    d.range,
                    "a set comprehension",
                    "build the values with a `for` loop",
                ))
            }
            ast::Expr::Dict(d) => {
                let (mut keys, mut values) = (Vec::new(), Vec::new());
                for item in &d.items {
                    let Some(key) = &item.key else {
                        return Err(unsupported(
                            item.value.range(),
                            "a `**` unpacking in a dict literal",
                            "list each key explicitly",
                        ));
                    };
                    let k = self.expr(key)?;
                    if !matches!(
                        k.kind,
                        ExprKind::Str(_) | ExprKind::Num(_) | ExprKind::Bool(_) | ExprKind::NoneLit
                    ) {
                        return Err(unsupported(
                            key.range(),
                            "a dict literal with a computed key",
                            "use string or number literals as the keys of a dict built in the function",
                        ));
                    }
                    keys.push(k);
                    values.push(self.expr(&item.value)?);
                }
                ExprKind::Dict(keys, values)
            }
            ast::Expr::Set(d) => {
                return Err(unsupported(
                    d.range,
                    "a set literal",
                    "use a tuple or a list",
                ))
            }
            ast::Expr::Named(n) => {
                return Err(unsupported(
                    n.range,
                    "an assignment expression (`:=`)",
                    "assign the value in its own statement first",
                ))
            }
            ast::Expr::FString(f) => return self.fstring(f),
            ast::Expr::Yield(y) => {
                return Err(unsupported(
                    y.range,
                    "a `yield` (generator function)",
                    "return the values as a list or an array",
                ))
            }
            ast::Expr::YieldFrom(y) => {
                return Err(unsupported(
                    y.range,
                    "a `yield from` (generator function)",
                    "return the values as a list or an array",
                ))
            }
            ast::Expr::Await(a) => {
                return Err(unsupported(
                    a.range,
                    "an `await` expression",
                    "differentiate synchronous code",
                ))
            }
            ast::Expr::Starred(s) => {
                return Err(unsupported(
                    s.range,
                    "a starred expression",
                    "list the elements explicitly",
                ))
            }
            other => {
                return Err(unsupported(
                    other.range(),
                    "this expression",
                    "rewrite it with arithmetic, calls, subscripts and literals",
                ))
            }
        };
        Ok(Expr::new(kind, span(r)))
    }
}

/// The module-level bindings of import names, walking into `try`, `if` and `with` blocks
/// (an import there runs when the module loads, as at the top level).
/// A copy of `def` that defines `name` (a global bound to another function's `def`).
fn renamed(def: &ast::StmtFunctionDef, name: &str) -> ast::StmtFunctionDef {
    let mut d = def.clone();
    d.name.id = name.into();
    d
}

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
