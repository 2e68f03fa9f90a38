//! Which interpreter runs a script (`tangent run`), and `tangent bridge install`.
//!
//! A script runs in the embedded RustPython unless it imports a framework the embedded
//! host does not have (`host::cpython::FRAMEWORKS`) or the user asks for CPython. A script
//! whose only framework is SciPy runs in CPython when that CPython has SciPy, else in
//! the embedded host with its SciPy subset.

use super::{EXIT_INTERNAL, EXIT_NO_PYTHON, EXIT_SCRIPT_ERROR, EXIT_USAGE};
use crate::host::cpython;
use crate::host::rustpython as embedded;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `tangent run`'s own options (before the script path).
#[derive(Default)]
pub struct RunOptions {
    pub python: Option<PathBuf>,
    pub cpython: bool,
    pub embedded: bool,
}

/// Splits `[OPTIONS] SCRIPT.py [ARGS...]`; everything from the script on is its argv.
pub fn parse_run(args: &[String]) -> Result<(RunOptions, Vec<String>), String> {
    let mut opts = RunOptions::default();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        match a.as_str() {
            "--python" => {
                let p = args
                    .get(i + 1)
                    .ok_or("--python needs the path of a python executable")?;
                opts.python = Some(PathBuf::from(p));
                i += 2;
            }
            "--cpython" => {
                opts.cpython = true;
                i += 1;
            }
            "--embedded" => {
                opts.embedded = true;
                i += 1;
            }
            s if s.starts_with("--") => return Err(format!("unknown option `{s}` of `run`")),
            _ => break,
        }
    }
    if opts.embedded && (opts.cpython || opts.python.is_some()) {
        return Err("--embedded cannot be combined with --cpython or --python".into());
    }
    let argv = args[i..].to_vec();
    if argv.is_empty() {
        return Err("`run` needs a script path".into());
    }
    Ok((opts, argv))
}

pub fn run(args: &[String]) -> ExitCode {
    let (opts, argv) = match parse_run(args) {
        Ok(x) => x,
        Err(msg) => return super::usage(&msg),
    };
    let script = &argv[0];
    let Ok(source) = std::fs::read_to_string(script) else {
        eprintln!("tangent: cannot open `{script}`: no such file");
        return ExitCode::from(EXIT_USAGE);
    };
    let frameworks = cpython::frameworks_imported(Path::new(script), &source);
    let asked = opts.cpython || opts.python.is_some();
    if opts.embedded || (!asked && frameworks.is_empty()) {
        return run_embedded(argv);
    }
    let found = cpython::find(opts.python.as_deref()).and_then(|p| {
        cpython::bridge_library()?;
        Ok(p)
    });
    let scipy_only = !asked && frameworks == ["scipy"];
    let python = match found {
        // The embedded host has the SciPy subset tangent differentiates.
        Ok(p) if scipy_only && !p.has_module("scipy") => return run_embedded(argv),
        Err(_) if scipy_only => return run_embedded(argv),
        Ok(p) => p,
        Err(why) => {
            let reason = if asked {
                "CPython was asked for".to_owned()
            } else {
                format!(
                    "it imports {}, which only CPython has",
                    frameworks.join(", ")
                )
            };
            eprintln!("tangent: `{script}` needs CPython ({reason}), but {why}");
            return ExitCode::from(EXIT_NO_PYTHON);
        }
    };
    match cpython::run_script(&python, &argv) {
        // As the OS reports `sys.exit(N)` of a python process: N modulo 256.
        Ok(status) => ExitCode::from((status & 0xff) as u8),
        Err(why) => {
            eprintln!("tangent: {why}");
            ExitCode::from(EXIT_NO_PYTHON)
        }
    }
}

fn run_embedded(argv: Vec<String>) -> ExitCode {
    // Parsing the built-in rule files (about 40 ms in a release build) overlaps the
    // interpreter's start-up on another thread instead of delaying the script's first
    // `tangent.grad`; the first request waits for it if it comes sooner.
    std::thread::spawn(|| {
        crate::rules::in_force();
    });
    let script = argv[0].clone();
    embedded::set_argv(argv);
    match embedded::run_script(script) {
        Some(embedded::ScriptOutcome::Ok) => ExitCode::SUCCESS,
        Some(embedded::ScriptOutcome::Exit(c)) => ExitCode::from(c),
        Some(embedded::ScriptOutcome::Error) => ExitCode::from(EXIT_SCRIPT_ERROR),
        None => ExitCode::from(EXIT_INTERNAL),
    }
}

/// `tangent bridge install [--python PATH]`: copies the bridge into the interpreter's
/// site-packages as `tangent.abi3.so`, so `import tangent` works there.
pub fn bridge(args: &[String]) -> ExitCode {
    let python = match args {
        [cmd] if cmd == "install" => None,
        [cmd, flag, path] if cmd == "install" && flag == "--python" => Some(Path::new(path)),
        _ => return super::usage("`bridge` takes `install [--python PATH]`"),
    };
    match install(python) {
        Ok(target) => {
            println!("installed the tangent bridge as {}", target.display());
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("tangent: {why}");
            ExitCode::from(EXIT_NO_PYTHON)
        }
    }
}

fn install(python: Option<&Path>) -> Result<PathBuf, String> {
    let found = cpython::find(python)?;
    let bridge = cpython::bridge_library()?;
    let out = std::process::Command::new(&found.executable)
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['platlib'])",
        ])
        .output()
        .map_err(|e| format!("running `{}` failed: {e}", found.executable.display()))?;
    let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    if !out.status.success() || !dir.is_dir() {
        return Err(format!(
            "`{}` did not name its site-packages directory",
            found.executable.display()
        ));
    }
    let target = dir.join("tangent.abi3.so");
    // Copy next to the target, then rename: a running process keeps the old file.
    let tmp = dir.join(format!(".tangent.abi3.so.{}", std::process::id()));
    std::fs::copy(&bridge, &tmp)
        .and_then(|_| std::fs::rename(&tmp, &target))
        .map_err(|e| format!("cannot write `{}`: {e}", target.display()))?;
    Ok(target)
}

/// `tangent doctor`'s lines about CPython.
pub fn doctor_lines() -> Vec<String> {
    let mut lines = Vec::new();
    match cpython::find(None) {
        Ok(p) => lines.push(format!(
            "CPython: {} (Python {}, {})",
            p.executable.display(),
            p.version,
            p.library.display()
        )),
        Err(why) => lines.push(format!("CPython: none usable: {why}")),
    }
    match cpython::bridge_library() {
        Ok(b) => {
            lines.push(format!("CPython bridge: {}", b.display()));
            lines.extend(cpython_backends());
        }
        Err(why) => lines.push(format!("CPython bridge: {why}")),
    }
    lines
}

/// `tangent.backend_status()` in CPython, from a child `tangent run --cpython` (this
/// process already runs the embedded interpreter).
fn cpython_backends() -> Vec<String> {
    let script = std::env::temp_dir().join(format!("tangent-doctor-{}.py", std::process::id()));
    let code = "import tangent\n\
                for name, status in sorted(tangent.backend_status().items()):\n\
                \x20   print('CPython backend %-12s %s' % (name, status))\n";
    let out = std::fs::write(&script, code).ok().and_then(|_| {
        let exe = std::env::current_exe().ok()?;
        std::process::Command::new(exe)
            .args(["run", "--cpython"])
            .arg(&script)
            .output()
            .ok()
    });
    let _ = std::fs::remove_file(&script);
    match out {
        Some(o) if o.status.success() => String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(str::to_owned)
            .collect(),
        Some(o) => vec![format!(
            "CPython backends: the bridge failed: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        )],
        None => vec!["CPython backends: could not start `tangent run --cpython`".into()],
    }
}
