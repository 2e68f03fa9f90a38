//! The shape of the code, checked on its text.
//! - Facts about named library functions are data in `backends/` (issue 14, item 5): the
//!   passes under `src/ad`, `src/opt` and `src/jit` read them through `RuleSet` and never
//!   spell a library function's name. Their string literals (comments and
//!   `#[cfg(test)]` modules skipped) must not begin with a library's module name.
//! - The modules of `src/` are layers (issue 35, ARCHITECTURE.md "Layers"): no
//!   `crate::` path goes up the order, and the files of a folder import each other
//!   without a cycle.

use std::path::{Path, PathBuf};

/// The roots of the array and math libraries whose functions rules are written for.
const LIBRARIES: &[&str] = &[
    "numpy.",
    "jax.",
    "torch.",
    "tensorflow.",
    "keras.",
    "tinygrad.",
    "math.",
    "scipy.",
];

const DIRS: &[&str] = &["src/ad", "src/opt", "src/jit"];

/// The string literals of Rust source outside comments and `#[cfg(test)]` items, with
/// their line numbers.
fn string_literals(text: &str) -> Vec<(usize, String)> {
    scan(text).0
}

/// The code of Rust source with its comments and the contents of its string and
/// character literals left out (line breaks kept).
fn code_only(text: &str) -> String {
    scan(text).1
}

/// `string_literals` and `code_only` in one pass.
fn scan(text: &str) -> (Vec<(usize, String)>, String) {
    let b: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut code = String::new();
    let (mut i, mut line) = (0usize, 1usize);
    // Brace depth, and the depth at which a `#[cfg(test)]` item began (skipped until
    // its braces close).
    let mut depth = 0usize;
    let mut skip_from: Option<usize> = None;
    let mut pending_cfg_test = false;
    let at = |i: usize, s: &str| b[i..].iter().take(s.len()).copied().eq(s.chars());
    while i < b.len() {
        let c = b[i];
        if c == '\n' {
            line += 1;
            code.push('\n');
            i += 1;
            continue;
        }
        if at(i, "//") {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if at(i, "/*") {
            let mut nest = 0;
            while i < b.len() {
                if at(i, "/*") {
                    nest += 1;
                    i += 2;
                } else if at(i, "*/") {
                    nest -= 1;
                    i += 2;
                    if nest == 0 {
                        break;
                    }
                } else {
                    if b[i] == '\n' {
                        line += 1;
                        code.push('\n');
                    }
                    i += 1;
                }
            }
            continue;
        }
        if at(i, "#[cfg(test)]") {
            pending_cfg_test = true;
            i += "#[cfg(test)]".len();
            continue;
        }
        // Raw strings: r"..." and r#"..."#.
        if c == 'r' && (i == 0 || !(b[i - 1].is_alphanumeric() || b[i - 1] == '_')) {
            let mut j = i + 1;
            let mut hashes = 0;
            while j < b.len() && b[j] == '#' {
                hashes += 1;
                j += 1;
            }
            if j < b.len() && b[j] == '"' {
                let close: String = std::iter::once('"')
                    .chain(std::iter::repeat_n('#', hashes))
                    .collect();
                let start_line = line;
                let mut k = j + 1;
                while k < b.len() && !at(k, &close) {
                    if b[k] == '\n' {
                        line += 1;
                        code.push('\n');
                    }
                    k += 1;
                }
                code.push_str("\"\"");
                if skip_from.is_none() {
                    out.push((start_line, b[j + 1..k.min(b.len())].iter().collect()));
                }
                i = k + close.len();
                continue;
            }
        }
        if c == '"' {
            let start_line = line;
            let mut k = i + 1;
            let mut s = String::new();
            while k < b.len() && b[k] != '"' {
                if b[k] == '\\' {
                    s.push(b[k]);
                    k += 1;
                }
                if k < b.len() {
                    if b[k] == '\n' {
                        line += 1;
                        code.push('\n');
                    }
                    s.push(b[k]);
                }
                k += 1;
            }
            code.push_str("\"\"");
            if skip_from.is_none() {
                out.push((start_line, s));
            }
            i = k + 1;
            continue;
        }
        // Character literals ('"', '\''); a lifetime has no closing quote.
        if c == '\'' {
            if i + 2 < b.len() && b[i + 1] == '\\' {
                let mut k = i + 2;
                while k < b.len() && b[k] != '\'' {
                    k += 1;
                }
                code.push_str("' '");
                i = k + 1;
                continue;
            }
            if i + 2 < b.len() && b[i + 2] == '\'' {
                code.push_str("' '");
                i += 3;
                continue;
            }
        }
        match c {
            '{' => {
                if pending_cfg_test && skip_from.is_none() {
                    skip_from = Some(depth);
                }
                pending_cfg_test = false;
                depth += 1;
            }
            '}' => {
                depth = depth.saturating_sub(1);
                if skip_from == Some(depth) {
                    skip_from = None;
                }
            }
            // `#[cfg(test)] use ...;` or a `fn` declared without a body.
            ';' if pending_cfg_test => pending_cfg_test = false,
            _ => {}
        }
        code.push(c);
        i += 1;
    }
    (out, code)
}

/// `(line, literal)` of every literal in `text` that names a library function.
fn library_names(text: &str) -> Vec<(usize, String)> {
    string_literals(text)
        .into_iter()
        .filter(|(_, s)| LIBRARIES.iter().any(|l| s.starts_with(l)))
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn passes_name_no_library_function() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for d in DIRS {
        rust_files(&root.join(d), &mut files);
    }
    files.sort();
    assert!(files.len() >= 15, "only {} files scanned", files.len());
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (line, lit) in library_names(&text) {
            found.push(format!(
                "{}:{line}: \"{lit}\"",
                f.strip_prefix(root).unwrap().display()
            ));
        }
    }
    assert!(
        found.is_empty(),
        "string literals naming library functions in the passes (declare the fact in backends/*.py and read it through RuleSet):\n{}",
        found.join("\n")
    );
}

/// The scanner finds what it must and skips what it must.
#[test]
fn the_scan_catches_a_literal() {
    let text = r##"
// "numpy.sum" in a comment is fine
/* and "jax.numpy.sum" in a block comment */
fn f(a: &str) -> bool {
    let q = format!("numpy.ndarray.{a}");
    let c = '"'; let d = '\''; let e = "x\"math.sin";
    a == "torch.sum" || a.starts_with(r#"scipy.special."#)
}
#[cfg(test)]
mod tests {
    fn g() { let _ = "numpy.mean"; { "tensorflow.x"; } }
}
fn h() -> &'static str { "keras.ops.sum" }
"##;
    let found: Vec<(usize, String)> = library_names(text);
    assert_eq!(
        found,
        vec![
            (5, "numpy.ndarray.{a}".to_owned()),
            (7, "torch.sum".to_owned()),
            (7, "scipy.special.".to_owned()),
            (13, "keras.ops.sum".to_owned()),
        ]
    );
}

// ------------------------------------------------------------------ layers (issue 35)

/// The modules of `src/`, lowest layer first (ARCHITECTURE.md, "Layers"): a module uses
/// only modules of earlier layers, never one of its own layer or of a later one.
const LAYERS: &[&[&str]] = &[
    &["stack"],
    &["syntax"],
    &["emit", "error"],
    &["rules"],
    &["resolve"],
    &["tape"],
    &["ad", "opt"],
    &["pipeline"],
    &["jit"],
    &["cache"],
    &["engine"],
    &["seam"],
    &["host"],
    &["api"],
    &["cli"],
];

/// The top-level module of a file under `src/` (`src/ad/mod.rs` -> `ad`,
/// `src/stack.rs` -> `stack`); `lib.rs` and `main.rs` are the crate's roots, no layer.
fn module_of(rel: &str) -> Option<&str> {
    let rest = rel.strip_prefix("src/")?;
    let first = rest.split('/').next()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (!matches!(name, "lib" | "main")).then_some(name)
}

/// Every use of a module of `src/` by a module of a layer not below it, as
/// `file:line: from -> to`; `files` are (path relative to the root, text).
fn upward_uses(files: &[(String, String)]) -> Vec<(String, String, String)> {
    let layer = |m: &str| LAYERS.iter().position(|l| l.contains(&m));
    let mut out = Vec::new();
    for (rel, text) in files {
        let Some(from) = module_of(rel) else { continue };
        let from_layer = layer(from).unwrap_or_else(|| {
            panic!("{rel}: module `{from}` is in no layer: add it to LAYERS (tests/tidy.rs) and ARCHITECTURE.md")
        });
        let own = module_path(rel);
        for (n, line) in code_only(text).lines().enumerate() {
            let mut seen = Vec::new();
            for used in module_uses(line, &own) {
                let Some(to) = used.first().map(String::as_str) else {
                    continue;
                };
                if to == from || seen.contains(&to.to_owned()) {
                    continue;
                }
                seen.push(to.to_owned());
                match layer(to) {
                    Some(l) if l < from_layer => {}
                    Some(_) => {
                        out.push((format!("{rel}:{}", n + 1), from.to_owned(), to.to_owned()))
                    }
                    None => {} // a re-exported crate (`crate::numpy`) or a root item
                }
            }
        }
    }
    out
}

/// The module path of a file under `src/` (`src/jit/typing/mod.rs` -> `jit::typing`).
fn module_path(rel: &str) -> Vec<String> {
    let rest = rel.strip_prefix("src/").unwrap_or(rel);
    let rest = rest.strip_suffix(".rs").unwrap_or(rest);
    let mut parts: Vec<String> = rest.split('/').map(str::to_owned).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The modules `code` (of the module at `own`) names by path: `crate::a::b`,
/// `super::x`, `self::x` (groups `super::{a, b}` give each), resolved to absolute paths.
fn module_uses(code: &str, own: &[String]) -> Vec<Vec<String>> {
    let ident = |s: &str| -> usize {
        s.find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(s.len())
    };
    let mut out = Vec::new();
    let b = code.as_bytes();
    let mut i = 0;
    while i < code.len() {
        let starts_word =
            i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b':');
        let rest = &code[i..];
        let (base, skip): (Vec<String>, usize) = if starts_word && rest.starts_with("crate::") {
            (vec![], 7)
        } else if starts_word && (rest.starts_with("super::") || rest.starts_with("self::")) {
            // A `mod.rs` is its folder's module (`module_path`): `super` is the parent.
            let mut base: Vec<String> = own.to_vec();
            let mut k = 0;
            if rest.starts_with("self::") {
                k = 6;
            } else {
                while code[i + k..].starts_with("super::") {
                    base.pop();
                    k += 7;
                }
            }
            (base, k)
        } else {
            i += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let mut j = i + skip;
        let mut path = base;
        loop {
            let n = ident(&code[j..]);
            if n == 0 {
                break;
            }
            path.push(code[j..j + n].to_owned());
            j += n;
            if code[j..].starts_with("::") && !code[j + 2..].starts_with('{') {
                j += 2;
            } else {
                break;
            }
        }
        let group = if code[j..].starts_with("::{") {
            Some(j + 3)
        } else if code[j..].starts_with('{') {
            Some(j + 1)
        } else {
            None
        };
        if let Some(open) = group {
            let close = code[open..].find('}').map_or(code.len(), |c| open + c);
            for item in code[open..close].split(',') {
                let item = item.trim();
                let n = ident(item);
                if n > 0 && &item[..n] != "self" {
                    let mut p = path.clone();
                    p.push(item[..n].to_owned());
                    out.push(p);
                }
            }
            out.push(path);
            j = close;
        } else if !path.is_empty() {
            out.push(path);
        }
        i = j.max(i + 1);
    }
    out
}

/// The folders whose modules (files, and sub-folders with a `mod.rs`) use each other in a
/// cycle, with one cycle each (`a -> b -> a`). A folder's `mod.rs` declares its modules
/// and is no node of its own folder's graph.
fn file_cycles(files: &[(String, String)]) -> Vec<(String, String)> {
    use std::collections::{BTreeMap, BTreeSet};
    let paths: Vec<Vec<String>> = files.iter().map(|(rel, _)| module_path(rel)).collect();
    // Each folder (as a module path) with the names of its modules.
    let mut dirs: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for path in &paths {
        // The file is a module of the folder its path's parent names (a `mod.rs` is its
        // folder, a module of the folder above).
        if let Some((name, parent)) = path.split_last() {
            if parent.is_empty() {
                continue; // the modules of src/: layers, checked by `upward_uses`
            }
            dirs.entry(parent.to_vec())
                .or_default()
                .entry(name.clone())
                .or_default();
        }
    }
    for ((_, text), path) in files.iter().zip(&paths) {
        let uses = module_uses(&code_only(text), path);
        for (dir, graph) in dirs.iter_mut() {
            // The node of `dir` this file belongs to (not `dir`'s own mod.rs).
            if path.len() <= dir.len() || path[..dir.len()] != dir[..] {
                continue;
            }
            let from = path[dir.len()].clone();
            for u in &uses {
                if u.len() > dir.len() && u[..dir.len()] == dir[..] {
                    let to = &u[dir.len()];
                    if *to != from && graph.contains_key(to) {
                        if let Some(edges) = graph.get_mut(&from) {
                            edges.insert(to.clone());
                        }
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    for (dir, graph) in &dirs {
        // A depth-first search from each module for a path back to it.
        let cycle = graph.keys().find_map(|start| {
            let mut stack = vec![(start.clone(), vec![start.clone()])];
            let mut seen = BTreeSet::new();
            while let Some((at, path)) = stack.pop() {
                for next in &graph[&at] {
                    if next == start {
                        return Some(format!("{} -> {start}", path.join(" -> ")));
                    }
                    if seen.insert(next.clone()) {
                        let mut p = path.clone();
                        p.push(next.clone());
                        stack.push((next.clone(), p));
                    }
                }
            }
            None
        });
        if let Some(c) = cycle {
            let folder = if dir.is_empty() {
                "src".to_owned()
            } else {
                format!("src/{}", dir.join("/"))
            };
            out.push((folder, c));
        }
    }
    out
}

fn src_files() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    rust_files(&root.join("src"), &mut paths);
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(root).unwrap().display().to_string();
            (rel, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

#[test]
fn modules_use_only_lower_layers() {
    let files = src_files();
    assert!(files.len() >= 60, "only {} files scanned", files.len());
    let up: Vec<String> = upward_uses(&files)
        .iter()
        .map(|(at, from, to)| format!("{at}: `{from}` uses `crate::{to}`"))
        .collect();
    assert!(
        up.is_empty(),
        "uses that go up the layers of src/ (ARCHITECTURE.md, \"Layers\"; move the code to the lower layer instead):\n{}",
        up.join("\n")
    );
}

#[test]
fn files_of_a_folder_import_no_cycle() {
    let cycles: Vec<String> = file_cycles(&src_files())
        .iter()
        .map(|(dir, c)| format!("{dir}: {c}"))
        .collect();
    assert!(
        cycles.is_empty(),
        "modules of a folder that use each other in a cycle (move what both need to a third, or make one the other's child):\n{}",
        cycles.join("\n")
    );
}

/// An injected back edge and an injected cycle are found; comments and strings are not
/// uses.
#[test]
fn the_layer_checks_catch_a_back_edge_and_a_cycle() {
    let file = |p: &str, t: &str| (p.to_owned(), t.to_owned());
    let files =
        vec![
        file(
            "src/syntax/ir.rs",
            "use crate::stack;\n// crate::ad in a comment\nfn f() { let _ = \"crate::api\"; }\n",
        ),
        file(
            "src/syntax/lower.rs",
            "fn g() {\n    crate::ad::grad();\n}\n",
        ),
        file(
            "src/ad/mod.rs",
            "pub mod a;\npub mod b;\nuse crate::syntax::ir::Expr;\n",
        ),
        file("src/ad/a.rs", "use super::b::B;\npub struct A;\n"),
        file("src/ad/b.rs", "pub struct B(crate::ad::a::A);\n"),
        file("src/opt/x.rs", "use crate::rules::RuleSet;\nuse crate::{emit, pipeline};\n"),
        // A cycle through a folder module: jit -> typing (its mod.rs) and back.
        file("src/jit/mod.rs", "mod runtime;\nmod typing;\n"),
        file("src/jit/runtime.rs", "use super::typing::arrays::Desc;\n"),
        file(
            "src/jit/typing/mod.rs",
            "pub mod arrays;\nuse super::Scalar;\n",
        ),
        file(
            "src/jit/typing/arrays.rs",
            "use super::{expr_type, Ty};\nuse crate::jit::runtime::{self, Tape};\n",
        ),
        // Parent and child use each other: no cycle between a folder's modules.
        file("src/host/mod.rs", "pub mod value;\nuse value::Value;\n"),
        file("src/host/value.rs", "use super::SHIMS;\n"),
    ];
    assert_eq!(
        upward_uses(&files),
        vec![
            (
                "src/syntax/lower.rs:2".to_owned(),
                "syntax".to_owned(),
                "ad".to_owned()
            ),
            (
                "src/opt/x.rs:2".to_owned(),
                "opt".to_owned(),
                "pipeline".to_owned()
            ),
        ]
    );
    assert_eq!(
        file_cycles(&files),
        vec![
            ("src/ad".to_owned(), "a -> b -> a".to_owned()),
            (
                "src/jit".to_owned(),
                "runtime -> typing -> runtime".to_owned()
            ),
        ]
    );
}

/// The libraries, as `stdlib-shims/tangent/_backends.py` lists them (`Backend("name"`).
fn backend_table() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("stdlib-shims/tangent/_backends.py")).unwrap();
    text.split("Backend(\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next().map(str::to_owned))
        .collect()
}

/// The lists of libraries Rust keeps (which scripts the CLI hands to CPython, the
/// libraries whose names rules may not spell in the passes) name exactly the libraries of
/// the Python package's backend table, the one place they are described.
#[test]
fn the_rust_lists_of_libraries_follow_the_backend_table() {
    let mut table = backend_table();
    table.sort();
    assert!(table.len() >= 8, "backend table read as {table:?}");
    let mut frameworks: Vec<String> = tangent::host::cpython::FRAMEWORKS
        .iter()
        .map(|s| s.to_string())
        .collect();
    frameworks.extend(["math".to_owned(), "numpy".to_owned()]); // the embedded host has both
    frameworks.sort();
    assert_eq!(frameworks, table, "host::cpython::FRAMEWORKS");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let run = std::fs::read_to_string(root.join("bridge/src/run.rs")).unwrap();
    let line = run
        .lines()
        .find(|l| l.starts_with("FRAMEWORKS = ("))
        .expect("bridge/src/run.rs FRAMEWORKS");
    let mut bridge: Vec<String> = line
        .split('\'')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .chain(["math".to_owned(), "numpy".to_owned()])
        .collect();
    bridge.sort();
    assert_eq!(bridge, table, "bridge/src/run.rs FRAMEWORKS");
    let mut libraries: Vec<String> = LIBRARIES
        .iter()
        .map(|l| l.trim_end_matches('.').to_owned())
        .collect();
    libraries.sort();
    assert_eq!(libraries, table, "tests/tidy.rs LIBRARIES");
}
