use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.len() >= 3 && args[1] == "run" {
        tangent::host::rustpython::set_argv(args[2..].to_vec());
        return match tangent::host::rustpython::run_script(args[2].clone()) {
            tangent::host::rustpython::ScriptOutcome::Ok => ExitCode::SUCCESS,
            tangent::host::rustpython::ScriptOutcome::Exit(c) => ExitCode::from(c),
            tangent::host::rustpython::ScriptOutcome::Error => ExitCode::from(1),
        };
    }
    eprintln!("usage: tangent run SCRIPT.py [ARGS...]");
    ExitCode::from(2)
}
