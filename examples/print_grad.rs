//! Prints the generated derivative of a function in a Python file:
//! `cargo run --example print_grad -- FILE.py FUNC`.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (file, func) = (&args[1], &args[2]);
    let text = std::fs::read_to_string(file).expect("read file");
    let opts = tangent::pipeline::GradOptions {
        optimized: std::env::var("NOOPT").is_err(),
        ..Default::default()
    };
    match tangent::engine::grad_text(file, &text, func, &opts) {
        Ok(g) => print!("{}", g.source),
        Err(e) => eprintln!("{e}"),
    }
}
