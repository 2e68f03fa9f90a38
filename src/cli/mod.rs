//! The `tangent` command line: `run`, `grad`, `explain`, `doctor`, `cache clear`,
//! `bridge install`, `--help` (also per command), `--version`.
//!
//! Exit codes: 0 success; 1 the script raised an exception; 2 usage error;
//! 3 the function cannot be differentiated (diagnostic printed); 4 no usable CPython
//! for a script that needs it; 70 internal error.

mod hosts;

use crate::host::rustpython as host;
use crate::pipeline::GradOptions;
use std::process::ExitCode;

pub const EXIT_SCRIPT_ERROR: u8 = 1;
pub const EXIT_USAGE: u8 = 2;
pub const EXIT_DIFFERENTIATION: u8 = 3;
pub const EXIT_NO_PYTHON: u8 = 4;
pub const EXIT_INTERNAL: u8 = 70;

/// The options `grad` shares between the overview and its own help (one list, so the
/// two cannot drift).
macro_rules! grad_option_lines {
    () => {
        "    --no-optimize      show the naive adjoint (optimized=False)
    --preserve-result  also return the function's value
    --no-check-dims    do not check that the output is a scalar
    --checkpoint       sqrt(n) checkpointing of top-level for and while loops
    --tape-liveness    push only the shape of values used only for their shape
    --cse              share common subexpressions (e-graphs)
    --algebraic        apply exact algebraic identities (e-graphs)
    --coarsening       one adjoint per straight-line elementwise stretch
"
    };
}

const HELP: &str = concat!(
    "\
tangent: source-to-source automatic differentiation for Python

USAGE:
    tangent run [--python PATH] SCRIPT.py [ARGS...]
                                         run a script (embedded interpreter, or
                                         CPython when it imports a framework)
    tangent grad FILE.py:FUNC [OPTIONS]  print the derivative's Python source
    tangent explain FILE.py:FUNC --at ARGS [--wrt 0,1]
                                         primal, gradient, data flow and a finite-
                                         difference check at ARGS (Python expressions)
    tangent doctor                       hosts, backends, cache location and size
    tangent cache clear                  remove every disk-cache entry
    tangent bridge install [--python PATH]
                                         make `import tangent` work in that CPython
    tangent --help | --version

OPTIONS for `grad`:
    --wrt 0,1          positions of the arguments to differentiate (default 0)
    --mode forward     forward mode (tangents) instead of reverse mode (gradients)
    --motion split     separate forward and backward functions (reverse mode)
",
    grad_option_lines!(),
    "
`tangent help COMMAND` or `tangent COMMAND --help` shows one command's help.

EXAMPLES:
    tangent run examples/quickstart.py
    tangent grad examples/quickstart.py:f
    tangent grad model.py:loss --wrt 0,1
    tangent explain examples/quickstart.py:f --at 2.0
    tangent explain model.py:loss --at 'np.ones((3, 3)), np.ones(3)' --wrt 0

EXIT CODES:
    0 success, 1 the script raised an exception, 2 usage error,
    3 the function cannot be differentiated, 70 internal error
"
);

const HELP_RUN: &str = "\
tangent run: run a Python script

USAGE:
    tangent run [--python PATH | --cpython | --embedded] SCRIPT.py [ARGS...]

By default the script runs in the embedded interpreter: `import tangent`,
`import numpy as np`, `import math` and a SciPy subset (scipy.special,
scipy.linalg) work without CPython. A script that imports jax, torch,
tensorflow, keras, tinygrad or scipy runs in CPython instead, through the
bridge, with the same `tangent` API (a SciPy-only script stays embedded when
no CPython is usable).

OPTIONS:
    --python PATH   run in CPython, the interpreter at PATH (a venv's python works)
    --cpython       run in CPython (TANGENT_PYTHON, else python3 on PATH)
    --embedded      run in the embedded interpreter whatever the script imports

The CPython library is found through the interpreter's sysconfig (cached) and
loaded with the bridge library next to the tangent executable (TANGENT_BRIDGE
overrides). ARGS reach the script as sys.argv[1:]; sys.argv[0] is SCRIPT.py.
Everything after SCRIPT.py belongs to the script, so `tangent run s.py --help`
passes --help to s.py.

EXAMPLES:
    tangent run examples/quickstart.py
    tangent run train.py --epochs 3
    tangent run --python .venv/bin/python jax_model.py

EXIT CODES:
    0 success, 1 the script raised an exception (traceback printed),
    2 usage error (e.g. no such file), 4 the script needs CPython and none is
    usable, N the script called sys.exit(N), 70 internal error
";

const HELP_BRIDGE: &str = "\
tangent bridge: use tangent from a CPython you run yourself

USAGE:
    tangent bridge install [--python PATH]

Copies the bridge library (an abi3 extension module, CPython 3.8+) into the
interpreter's site-packages as tangent.abi3.so; then `import tangent` there
gives the same API as in `tangent run`. The interpreter is PATH, else
TANGENT_PYTHON, else python3 on PATH.

EXAMPLE:
    python3 -m venv .venv && tangent bridge install --python .venv/bin/python
";

const HELP_GRAD: &str = concat!(
    "\
tangent grad: print the derivative's Python source (nothing is executed)

USAGE:
    tangent grad FILE.py:FUNC [OPTIONS]

OPTIONS:
    --wrt 0,1          positions of the arguments to differentiate (default 0)
    --mode MODE        `reverse` (gradients, default) or `forward` (tangents)
    --motion MOTION    `joint` (default) or `split`: a `_forward` function that
                       returns the value and the tape, and a `_backward` one
",
    grad_option_lines!(),
    "
EXAMPLES:
    tangent grad examples/quickstart.py:f
    tangent grad model.py:loss --wrt 0,1 --no-optimize
    tangent grad model.py:loss --mode forward
    tangent grad model.py:loss --motion split

EXIT CODES:
    0 success, 2 usage error (a file that cannot be read, a FUNC that is not a
    top-level def), 3 the function cannot be differentiated (the diagnostic names
    file, line and column), 70 internal error
"
);

const HELP_EXPLAIN: &str = "\
tangent explain: show how a derivative is built and check it numerically

USAGE:
    tangent explain FILE.py:FUNC --at ARGS [--wrt 0,1]

ARGS is a comma-separated list of Python expressions evaluated in FILE.py's
namespace (`np` is available). Prints the primal as tangent reads it, the
generated gradient, the data flow, and a central finite-difference check with
the largest difference.

EXAMPLES:
    tangent explain examples/quickstart.py:f --at 2.0
    tangent explain model.py:loss --at 'np.ones((3, 3)), np.ones(3)' --wrt 0

EXIT CODES:
    0 success, 1 evaluating ARGS or running FUNC raised, 2 usage error,
    3 the function cannot be differentiated
";

const HELP_DOCTOR: &str = "\
tangent doctor: what this installation can do

USAGE:
    tangent doctor

Prints the version, the number of derivative rules, the embedded host and
each backend's status there, the CPython that scripts needing CPython run in
and the bridge library, and the disk cache's location and size.

EXAMPLE:
    tangent doctor
";

const HELP_CACHE: &str = "\
tangent cache: manage the disk cache of generated derivatives

USAGE:
    tangent cache clear

The cache lives in $TANGENT_CACHE_DIR, else $XDG_CACHE_HOME/tangent-ad, else
~/.cache/tangent-ad (an empty variable counts as unset); TANGENT_DISK_CACHE=0
turns it off. It holds generated source, the shims' bytecode and CPython's
sysconfig answers. Every entry is authenticated with a key kept in mac.key
(mode 0600, made on first use), so clearing it is never required for
correctness. A directory or file that others can write, or that is not yours,
is not used (tangent says which, and runs without the disk cache).
`clear` removes every entry and the key (the next run makes a new one).

EXAMPLE:
    tangent cache clear
";

fn command_help(command: &str) -> Option<&'static str> {
    Some(match command {
        "run" => HELP_RUN,
        "grad" => HELP_GRAD,
        "explain" => HELP_EXPLAIN,
        "doctor" => HELP_DOCTOR,
        "cache" => HELP_CACHE,
        "bridge" => HELP_BRIDGE,
        _ => return None,
    })
}

fn is_help(arg: Option<&String>) -> bool {
    matches!(arg.map(String::as_str), Some("-h" | "--help"))
}

fn usage(msg: &str) -> ExitCode {
    eprintln!("tangent: {msg}\n\n{HELP}");
    ExitCode::from(EXIT_USAGE)
}

pub fn main(args: Vec<String>) -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        eprintln!("tangent: internal error (this is a bug, please report it): {info}");
    }));
    match args.get(1).map(String::as_str) {
        None => usage("no command given"),
        Some("-h" | "--help" | "help") => match args.get(2) {
            None => {
                print!("{HELP}");
                ExitCode::SUCCESS
            }
            Some(command) => match command_help(command) {
                Some(text) => {
                    print!("{text}");
                    ExitCode::SUCCESS
                }
                None => usage(&format!("no help for unknown command `{command}`")),
            },
        },
        Some("-V" | "--version") => {
            println!("tangent {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        // Only the argument right after the command asks for help: for `run`, anything
        // after the script path is the script's own argv.
        Some(command) if command_help(command).is_some() && is_help(args.get(2)) => {
            print!("{}", command_help(command).unwrap_or(HELP));
            ExitCode::SUCCESS
        }
        Some("run") => hosts::run(&args[2..]),
        Some("bridge") => hosts::bridge(&args[2..]),
        Some("grad") => grad(&args[2..]),
        Some("explain") => explain(&args[2..]),
        Some("doctor") => doctor(),
        Some("cache") => match args.get(2).map(String::as_str) {
            Some("clear") => match (crate::cache::clear(), crate::cache::dir()) {
                (Ok(n), Some(d)) => {
                    println!("removed {n} entries from {}", d.display());
                    ExitCode::SUCCESS
                }
                (Ok(_), None) => {
                    println!("the disk cache is disabled (TANGENT_DISK_CACHE=0)");
                    ExitCode::SUCCESS
                }
                (Err(why), _) => {
                    eprintln!("tangent: cache not cleared: {why}");
                    ExitCode::FAILURE
                }
            },
            _ => usage("`cache` takes `clear`"),
        },
        Some(other) => usage(&format!("unknown command `{other}`")),
    }
}

fn grad(args: &[String]) -> ExitCode {
    let mut target = None;
    let mut opts = GradOptions::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--wrt" => {
                let Some(v) = it.next() else {
                    return usage("--wrt needs a value such as 0 or 0,1");
                };
                let parsed: Result<Vec<usize>, _> =
                    v.split(',').map(|p| p.trim().parse()).collect();
                match parsed {
                    Ok(w) if !w.is_empty() => opts.wrt = w,
                    _ => {
                        return usage(&format!(
                            "--wrt expects comma-separated positions, got `{v}`"
                        ))
                    }
                }
            }
            "--mode" => match it.next().map(String::as_str) {
                Some("reverse") => opts.mode = crate::pipeline::Mode::Reverse,
                Some("forward") => opts.mode = crate::pipeline::Mode::Forward,
                _ => return usage("--mode expects `reverse` or `forward`"),
            },
            "--motion" => match it.next().map(String::as_str) {
                Some("joint") => opts.split = false,
                Some("split") => opts.split = true,
                _ => return usage("--motion expects `joint` or `split`"),
            },
            "--no-optimize" => opts.optimized = false,
            "--preserve-result" => opts.preserve_result = true,
            "--no-check-dims" => opts.check_dims = false,
            "--checkpoint" => opts.checkpoint = true,
            "--tape-liveness" => opts.tape_liveness = true,
            "--cse" => opts.cse = true,
            "--algebraic" => opts.algebraic = true,
            "--coarsening" => opts.coarsening = true,
            s if s.starts_with("--") => return usage(&format!("unknown option `{s}`")),
            s => target = Some(s.to_owned()),
        }
    }
    let Some(target) = target else {
        return usage("`grad` needs FILE.py:FUNC");
    };
    if opts.split && opts.mode == crate::pipeline::Mode::Forward {
        return usage("--motion split is a reverse-mode option; forward mode has one pass");
    }
    let Some((file, func)) = target.rsplit_once(':') else {
        return usage(&format!("expected FILE.py:FUNC, got `{target}`"));
    };
    match crate::engine::grad_file(file, func, &opts) {
        Ok(g) => {
            print!("{}", g.source);
            // Without a host only the text was read: say what that left unknown.
            for note in crate::engine::static_assumptions(file, func) {
                eprintln!("{note}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(exit_code(&e))
        }
    }
}

/// The exit code of a transformer error, by its kind.
fn exit_code(e: &crate::Error) -> u8 {
    use crate::Error;
    match e {
        Error::Diagnostic(_) | Error::Unsupported(_) => EXIT_DIFFERENTIATION,
        Error::Usage(_) | Error::Io { .. } => EXIT_USAGE,
        Error::Python { .. } => EXIT_SCRIPT_ERROR,
        Error::Internal(_) => EXIT_INTERNAL,
    }
}

fn explain(args: &[String]) -> ExitCode {
    let mut target = None;
    let mut at = None;
    let mut wrt = "0".to_owned();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--at" => at = it.next().cloned(),
            "--wrt" => match it.next() {
                Some(w) if w.split(',').all(|p| p.trim().parse::<usize>().is_ok()) => {
                    wrt = w.clone()
                }
                _ => return usage("--wrt expects comma-separated positions such as 0,1"),
            },
            s if s.starts_with("--") => return usage(&format!("unknown option `{s}`")),
            s => target = Some(s.to_owned()),
        }
    }
    let (Some(target), Some(at)) = (target, at) else {
        return usage("`explain` needs FILE.py:FUNC and --at ARGS");
    };
    let Some((file, func)) = target.rsplit_once(':') else {
        return usage(&format!("expected FILE.py:FUNC, got `{target}`"));
    };
    if !std::path::Path::new(file).is_file() {
        eprintln!("tangent: cannot open `{file}`: no such file");
        return ExitCode::from(EXIT_USAGE);
    }
    // Load the file as a module, evaluate the arguments in its namespace, explain.
    use crate::emit::printer::str_literal;
    let (file, at, func) = (str_literal(file), str_literal(&at), str_literal(func));
    let code = format!(
        "import importlib.util, sys\nimport numpy as np\nimport tangent\n\
         _spec = importlib.util.spec_from_file_location('__explained__', {file})\n\
         _mod = importlib.util.module_from_spec(_spec)\n\
         sys.modules['__explained__'] = _mod\n\
         _spec.loader.exec_module(_mod)\n\
         _ns = dict(vars(_mod)); _ns.setdefault('np', np)\n\
         _args = eval('(' + {at} + ',)', _ns)\n\
         tangent.explain(getattr(_mod, {func}), *_args, wrt=({wrt},))\n"
    );
    let outcome = host::try_with_vm(move |vm| {
        let r = host::exec_module(vm, &code, "<tangent explain>");
        host::flush_stdio(vm);
        match r {
            Ok(_) => Ok(()),
            Err(e) => {
                // tangent's own errors (`NotDifferentiated`, a rule's stated limit,
                // among them) are what cannot be differentiated; others are the script's.
                let ours = vm
                    .import("tangent", 0)
                    .and_then(|t| t.get_attr("TangentError", vm))
                    .ok()
                    .and_then(|c| c.downcast::<rustpython_vm::builtins::PyType>().ok())
                    .is_some_and(|c| rustpython_vm::AsObject::fast_isinstance(&e, &c));
                Err((ours, host::format_exception(vm, e)))
            }
        }
    });
    match outcome {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err((ours, tb))) => {
            eprint!("{tb}");
            ExitCode::from(if ours {
                EXIT_DIFFERENTIATION
            } else {
                EXIT_SCRIPT_ERROR
            })
        }
        Err(_) => ExitCode::from(EXIT_INTERNAL),
    }
}

fn doctor() -> ExitCode {
    println!("tangent {}", env!("CARGO_PKG_VERSION"));
    let rules = crate::rules::RuleSet::builtin();
    println!(
        "rules: {} reverse, {} forward",
        rules.adjoint_names().len(),
        rules.tangent_names().len()
    );
    let report = host::try_with_vm(|vm| {
        let code = "import sys, tangent\n\
                    print('host: embedded RustPython, Python', sys.version.split()[0])\n\
                    for name, status in sorted(tangent.backend_status().items()):\n\
                    \x20   print('backend %-12s %s' % (name, status))\n";
        let r = host::exec_module(vm, code, "<tangent doctor>");
        host::flush_stdio(vm);
        r.map(|_| ()).map_err(|e| host::format_exception(vm, e))
    });
    for line in hosts::doctor_lines() {
        println!("{line}");
    }
    match crate::cache::dir() {
        Some(d) => {
            let (n, bytes) = crate::cache::size();
            match crate::cache::problem() {
                None => println!(
                    "cache: {} ({n} entries, {bytes} bytes); in memory per process",
                    d.display()
                ),
                Some(why) => println!(
                    "cache: {} not used: {why}; in memory per process",
                    d.display()
                ),
            }
        }
        None => {
            println!("cache: disk cache disabled (TANGENT_DISK_CACHE=0); in memory per process")
        }
    }
    match report {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(tb)) => {
            eprint!("{tb}");
            ExitCode::from(EXIT_INTERNAL)
        }
        Err(_) => ExitCode::from(EXIT_INTERNAL),
    }
}
