//! Lists every derivative rule: `cargo run --example list_rules`.
fn main() {
    let rules = tangent::rules::RuleSet::builtin();
    println!("reverse ({}):", rules.adjoint_names().len());
    for n in rules.adjoint_names() {
        println!("  {n}");
    }
    println!("forward ({}):", rules.tangent_names().len());
    for n in rules.tangent_names() {
        println!("  {n}");
    }
}
