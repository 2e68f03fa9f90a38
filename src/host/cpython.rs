//! The CPython host as `tangent run` reaches it: find the interpreter's shared libpython
//! (asked once through `sysconfig`, then cached), open it with RTLD_GLOBAL (C extensions
//! such as NumPy's resolve `PyFloat_Type` & co. through the global namespace), load the
//! bridge cdylib (`bridge/`, which does not link libpython) and hand it the script.
//!
//! Which interpreter: `--python PATH`, else `$TANGENT_PYTHON`, else `python3` on `PATH`.

use ruff_python_ast::statement_visitor::{walk_stmt, StatementVisitor};
use ruff_python_ast::Stmt;
use std::ffi::{c_char, c_int, CString};
use std::path::{Path, PathBuf};

/// Top-level modules whose import sends a script to CPython: the embedded interpreter
/// has none of them.
pub const FRAMEWORKS: &[&str] = &["jax", "torch", "tensorflow", "keras", "tinygrad", "scipy"];

/// What the bridge needs to know about an interpreter.
#[derive(Debug, Clone, PartialEq)]
pub struct Interpreter {
    /// `sys.executable` (the program name the bridge gives CPython, so a venv is found).
    pub executable: PathBuf,
    /// The shared libpython.
    pub library: PathBuf,
    pub version: String,
    /// `sys.path` without its first entry (the script's directory goes there).
    pub sys_path: Vec<String>,
}

/// Where the interpreter comes from, for messages.
fn requested(python: Option<&Path>) -> (PathBuf, &'static str) {
    if let Some(p) = python {
        return (p.to_path_buf(), "--python");
    }
    if let Some(p) = std::env::var_os("TANGENT_PYTHON").filter(|p| !p.is_empty()) {
        return (PathBuf::from(p), "TANGENT_PYTHON");
    }
    (PathBuf::from("python3"), "PATH")
}

/// `name` as `execvp` would find it.
fn on_path(name: &Path) -> Option<PathBuf> {
    if name.components().count() > 1 {
        return name.is_file().then(|| name.to_path_buf());
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

const HOW_TO_POINT: &str = "point tangent at a CPython 3.8+ built with a shared library: \
     `tangent run --python /path/to/python3 SCRIPT.py` or `export TANGENT_PYTHON=/path/to/python3`";

/// The interpreter to run scripts in (see the module comment), from the cache when the
/// same executable was asked before.
pub fn find(python: Option<&Path>) -> Result<Interpreter, String> {
    let (asked, source) = requested(python);
    let Some(program) = on_path(&asked) else {
        return Err(format!(
            "no CPython found: `{}` (from {source}) is not an executable file{}; {HOW_TO_POINT}",
            asked.display(),
            if source == "PATH" { " on PATH" } else { "" }
        ));
    };
    // Absolute but not resolved: a venv's python is a symlink to the base interpreter,
    // and the venv is what matters.
    let program = std::path::absolute(&program).unwrap_or(program);
    if let Some(found) = load_cached(&program) {
        return Ok(found);
    }
    let found = query(&program, source)?;
    store_cached(&program, &found);
    Ok(found)
}

/// The script CPython runs to describe itself: one fact per line, `sys.path` last.
const QUERY: &str = "import os, sys, sysconfig
v = sysconfig.get_config_var
lib = ''
for d in (v('LIBDIR'), os.path.join(sys.base_prefix, 'lib')):
    for n in (v('INSTSONAME'), v('LDLIBRARY')):
        shared = n and ('.so' in n or n.endswith('.dylib'))
        if d and shared and not lib and os.path.isfile(os.path.join(d, n)):
            lib = os.path.join(d, n)
print(sys.executable)
print(lib)
print(sys.version.split()[0])
for p in sys.path[1:]:
    print(p)
";

fn query(program: &Path, source: &str) -> Result<Interpreter, String> {
    let out = std::process::Command::new(program)
        .args(["-I", "-c", QUERY])
        .output()
        .map_err(|e| {
            format!(
                "no CPython found: running `{}` (from {source}) failed: {e}; {HOW_TO_POINT}",
                program.display()
            )
        })?;
    if !out.status.success() {
        return Err(format!(
            "no CPython found: `{}` (from {source}) did not answer a sysconfig query ({}): {}; {HOW_TO_POINT}",
            program.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let found = parse(&text).ok_or_else(|| {
        format!(
            "no CPython found: unexpected answer from `{}`: {text:?}; {HOW_TO_POINT}",
            program.display()
        )
    })?;
    if found.library.as_os_str().is_empty() {
        return Err(format!(
            "no shared libpython: `{}` (Python {}, from {source}) was built without \
             --enable-shared, so there is no libpython to load (looked in its sysconfig \
             LIBDIR and sys.base_prefix/lib); {HOW_TO_POINT}",
            program.display(),
            found.version
        ));
    }
    Ok(found)
}

impl Interpreter {
    /// Can this interpreter import the top-level module `name`? (A look at its
    /// `sys.path`, always current: no interpreter is started.)
    pub fn has_module(&self, name: &str) -> bool {
        self.sys_path.iter().any(|entry| {
            let dir = Path::new(entry);
            dir.join(name).join("__init__.py").is_file()
                || dir.join(format!("{name}.py")).is_file()
                || std::fs::read_dir(dir).is_ok_and(|mut it| {
                    it.any(|e| {
                        e.ok().is_some_and(|e| {
                            let f = e.file_name();
                            let f = f.to_string_lossy();
                            f.starts_with(&format!("{name}.")) && f.ends_with(".so")
                        })
                    })
                })
        })
    }
}

fn parse(text: &str) -> Option<Interpreter> {
    let mut lines = text.lines();
    Some(Interpreter {
        executable: PathBuf::from(lines.next()?),
        library: PathBuf::from(lines.next()?),
        version: lines.next()?.to_owned(),
        sys_path: lines.map(str::to_owned).collect(),
    })
}

/// One disk-cache entry per executable path (`crate::cache::Kind::Interpreter`,
/// authenticated like every entry). Asking a pyenv shim costs ~200 ms; a cached answer
/// costs a file read.
fn cache_name(program: &Path) -> String {
    let hash = blake3::hash(program.as_os_str().as_encoded_bytes());
    hash.to_hex()[..16].to_owned()
}

/// The modification time of a file, as text (the cache's validity check).
fn stamp(p: &Path) -> String {
    std::fs::metadata(p)
        .and_then(|m| m.modified())
        .map(|t| format!("{t:?}"))
        .unwrap_or_default()
}

/// The cached answer of `program`: the entry's first line is the executable it describes
/// and its modification time when asked.
fn load_cached(program: &Path) -> Option<Interpreter> {
    let bytes = crate::cache::read(crate::cache::Kind::Interpreter, &cache_name(program))?;
    let text = String::from_utf8(bytes).ok()?;
    let (header, body) = text.split_once('\n')?;
    let (asked, when) = header.split_once('\t')?;
    let found = parse(body)?;
    // Stale when the executable or the library changed or went away.
    let fresh = Path::new(asked) == program && stamp(program) == when;
    (fresh && found.library.is_file()).then_some(found)
}

fn store_cached(program: &Path, found: &Interpreter) {
    let mut text = format!(
        "{}\t{}\n{}\n{}\n{}\n",
        program.display(),
        stamp(program),
        found.executable.display(),
        found.library.display(),
        found.version
    );
    for p in &found.sys_path {
        text.push_str(p);
        text.push('\n');
    }
    crate::cache::write(
        crate::cache::Kind::Interpreter,
        &cache_name(program),
        text.as_bytes(),
    );
}

/// The bridge library: `$TANGENT_BRIDGE`, else next to the `tangent` executable.
pub fn bridge_library() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("TANGENT_BRIDGE").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!(
                "the CPython bridge `{}` (from TANGENT_BRIDGE) does not exist",
                p.display()
            ))
        };
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot locate tangent itself: {e}"))?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    let candidates = [dir.join(BRIDGE_FILE), dir.join("..").join(BRIDGE_FILE)];
    candidates
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .ok_or_else(|| {
            format!(
                "the CPython bridge library is missing (looked for {}); build it with \
             `cargo build -p tangent-bridge` (the same profile as tangent) or set TANGENT_BRIDGE",
                candidates
                    .iter()
                    .map(|p| format!("`{}`", p.display()))
                    .collect::<Vec<_>>()
                    .join(" and ")
            )
        })
}

/// The file name cargo gives the bridge cdylib.
pub const BRIDGE_FILE: &str = if cfg!(target_os = "macos") {
    "libtangent_bridge.dylib"
} else {
    "libtangent_bridge.so"
};

/// The bridge's entry point (bridge/src/run.rs).
type RunFn = unsafe extern "C" fn(
    executable: *const c_char,
    sys_path: *const c_char,
    argc: c_int,
    argv: *const *const c_char,
) -> c_int;

/// Runs `argv[0]` (the script) in CPython with `argv` as `sys.argv`; the script's exit
/// status (0, 1 for an uncaught exception, N for `sys.exit(N)`). CPython stays loaded
/// until the process exits (Py_Finalize is never called: extensions do not survive it).
pub fn run_script(python: &Interpreter, argv: &[String]) -> Result<i32, String> {
    use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
    let bridge = bridge_library()?;
    // SAFETY: loading libraries runs their initialisers; libpython and the bridge are
    // made for being loaded this way, and both stay loaded for the process's lifetime.
    let run: RunFn = unsafe {
        let libpython =
            Library::open(Some(&python.library), RTLD_NOW | RTLD_GLOBAL).map_err(|e| {
                format!(
                    "cannot load libpython `{}` of `{}`: {e}; {HOW_TO_POINT}",
                    python.library.display(),
                    python.executable.display()
                )
            })?;
        std::mem::forget(libpython);
        let lib = Library::open(Some(&bridge), RTLD_NOW | RTLD_GLOBAL)
            .map_err(|e| format!("cannot load the CPython bridge `{}`: {e}", bridge.display()))?;
        let run = *lib
            .get::<RunFn>(b"tangent_bridge_run\0")
            .map_err(|e| format!("`{}` is not the tangent bridge: {e}", bridge.display()))?;
        std::mem::forget(lib);
        run
    };
    let c = |s: &str| CString::new(s).map_err(|_| format!("NUL byte in `{s}`"));
    let executable = c(&python.executable.to_string_lossy())?;
    let sys_path = c(&python.sys_path.join("\n"))?;
    let args: Vec<CString> = argv.iter().map(|a| c(a)).collect::<Result<_, _>>()?;
    let ptrs: Vec<*const c_char> = args.iter().map(|a| a.as_ptr()).collect();
    // SAFETY: every pointer is a NUL-terminated string alive for the call.
    let status = unsafe {
        run(
            executable.as_ptr(),
            sys_path.as_ptr(),
            ptrs.len() as c_int,
            ptrs.as_ptr(),
        )
    };
    Ok(status)
}

/// The frameworks a script imports: every `import` / `from ... import` anywhere in its
/// code (functions, branches, try blocks), and in the local modules it imports (files
/// next to the importing one), transitively. A file that does not parse adds nothing:
/// the host that runs it reports the syntax error.
pub fn frameworks_imported(script: &Path, source: &str) -> Vec<String> {
    // The parser and the visitor recurse as deep as the scripts' expressions nest.
    crate::stack::run(|| frameworks_imported_inner(script, source))
}

fn frameworks_imported_inner(script: &Path, source: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut queue = vec![(script.to_path_buf(), source.to_owned())];
    while let Some((path, text)) = queue.pop() {
        let Ok(parsed) = ruff_python_parser::parse_module(&text) else {
            continue;
        };
        let mut imports = Imports(Vec::new());
        imports.visit_body(&parsed.syntax().body);
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        for module in imports.0 {
            let root = module.split('.').next().unwrap_or(&module).to_owned();
            if FRAMEWORKS.contains(&root.as_str()) {
                if !found.contains(&root) {
                    found.push(root);
                }
                continue;
            }
            for local in [
                dir.join(format!("{root}.py")),
                dir.join(&root).join("__init__.py"),
            ] {
                if seen.insert(local.clone()) {
                    if let Ok(text) = std::fs::read_to_string(&local) {
                        queue.push((local, text));
                    }
                }
            }
        }
    }
    found
}

/// The absolute module names a body imports, at any depth.
struct Imports(Vec<String>);

impl<'a> StatementVisitor<'a> for Imports {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::Import(i) => self
                .0
                .extend(i.names.iter().map(|a| a.name.as_str().to_owned())),
            Stmt::ImportFrom(i) if i.level == 0 => self
                .0
                .extend(i.module.iter().map(|m| m.as_str().to_owned())),
            _ => walk_stmt(self, stmt),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_framework_imports() {
        let script = Path::new("/nonexistent/s.py");
        let src = r#"import numpy as np, scipy.special
import jax.numpy as jnp, math
def f():
    try:
        from scipy.special import erf
    except ImportError:
        import torch as t
# import keras (a comment)
x = """
import tinygrad
"""
from . import tensorflow
"#;
        assert_eq!(frameworks_imported(script, src), ["scipy", "jax", "torch"]);
        let plain = "import numpy\nfrom math import sin\n";
        assert!(frameworks_imported(script, plain).is_empty());
        assert!(frameworks_imported(script, "import jax\ndef (:\n").is_empty());
    }

    #[test]
    fn follows_local_modules() {
        let dir = std::env::temp_dir().join(format!("tangent-fw-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("pkg")).unwrap();
        std::fs::write(dir.join("model.py"), "import pkg.layers\nimport model\n").unwrap();
        std::fs::write(dir.join("pkg/__init__.py"), "from tinygrad import Tensor\n").unwrap();
        let found = frameworks_imported(&dir.join("s.py"), "import model\n");
        assert_eq!(found, ["tinygrad"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn parses_the_query_answer() {
        let found = parse(
            "/v/bin/python\n/p/lib/libpython3.11.so.1.0\n3.11.7\n/p/lib/python311.zip\n/v/site\n",
        )
        .unwrap();
        assert_eq!(found.executable, PathBuf::from("/v/bin/python"));
        assert_eq!(found.library, PathBuf::from("/p/lib/libpython3.11.so.1.0"));
        assert_eq!(found.sys_path, ["/p/lib/python311.zip", "/v/site"]);
    }
}
