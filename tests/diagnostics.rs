//! Every refusal is a diagnostic that names the user's code: `file:line:col`, the source
//! line with a caret, what is wrong and a hint. The exact messages are snapshots.

use tangent::pipeline::GradOptions;
use tangent::syntax::SourceModule;

const BAD: &str = include_str!("corpus/bad_inputs.py");

#[test]
fn every_bad_input_gets_a_located_diagnostic() {
    let module = SourceModule::parse("tests/corpus/bad_inputs.py", BAD).expect("parses");
    let mut n = 0;
    for name in module.written_functions() {
        let err = match tangent::pipeline::generate(
            &module,
            name,
            &GradOptions::default(),
            tangent::rules::RuleSet::builtin(),
        ) {
            Ok(g) => panic!("`{name}` should be refused, got:\n{}", g.source),
            Err(d) => d.to_string(),
        };
        assert!(
            err.starts_with("tests/corpus/bad_inputs.py:"),
            "{name}: no location:\n{err}"
        );
        assert!(
            err.contains(" | ") && err.contains('^'),
            "{name}: no caret:\n{err}"
        );
        assert!(err.contains("\nhint: "), "{name}: no hint:\n{err}");
        assert!(
            !err.contains("internal"),
            "{name}: mentions internals:\n{err}"
        );
        insta::assert_snapshot!(format!("diagnostic_{name}"), err);
        n += 1;
    }
    assert!(n >= 30, "only {n} bad inputs");
}
