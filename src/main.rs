fn main() -> std::process::ExitCode {
    tangent::cli::main(std::env::args().collect())
}
