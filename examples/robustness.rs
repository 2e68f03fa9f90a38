//! Differentiates every top-level function of every Python file under a directory and
//! reports panics (there must be none: each function gets source or a diagnostic).
//! `cargo run --release --example robustness -- DIR`
use std::panic;

fn main() {
    let dir = std::env::args().nth(1).expect("a directory");
    let mut files = Vec::new();
    let mut stack = vec![std::path::PathBuf::from(dir)];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "py") {
                files.push(p);
            }
        }
    }
    files.sort();
    panic::set_hook(Box::new(|_| {}));
    let (mut ok, mut diag, mut panics) = (0, 0, 0);
    // With a second argument, every generated source is written there (to compile them).
    let out_dir = std::env::args().nth(2);
    let mut written = 0;
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        let name = f.to_string_lossy().into_owned();
        let Ok(module) = tangent::syntax::SourceModule::parse(&name, &text) else {
            continue;
        };
        for func in module.function_names.clone() {
            for mode in [
                tangent::pipeline::Mode::Reverse,
                tangent::pipeline::Mode::Forward,
            ] {
                let opts = tangent::pipeline::GradOptions {
                    mode,
                    ..Default::default()
                };
                let r = panic::catch_unwind(panic::AssertUnwindSafe(|| {
                    tangent::pipeline::generate(
                        &module,
                        &func,
                        &opts,
                        tangent::rules::RuleSet::builtin(),
                    )
                    .map(|g| g.source)
                }));
                match r {
                    Ok(Ok(source)) => {
                        ok += 1;
                        if let Some(dir) = &out_dir {
                            written += 1;
                            let path = format!("{dir}/g{written}.py");
                            let _ = std::fs::write(path, format!("# {name}:{func}\n{source}"));
                        }
                    }
                    Ok(Err(_)) => diag += 1,
                    Err(e) => {
                        panics += 1;
                        let msg = e
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_default();
                        println!("PANIC {name}:{func} ({mode:?}): {msg}");
                    }
                }
            }
        }
    }
    println!(
        "{} files: {ok} generated, {diag} diagnostics, {panics} panics",
        files.len()
    );
}
