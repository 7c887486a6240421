//! `coreml-lint dump` of every corpus model parses back with our text parser into the same graph
//! (same ops, bindings and types); for packages the dump is the source diagnostics point into.

use crate::common;

use coreml_lint::ir::compare::same_program;
use coreml_lint::ir::render::render_to_string;
use coreml_lint::ir::{Model, ModelKind};
use coreml_lint::read::miltext::parse_program;
use serde_json::Value;

fn expected() -> Vec<(String, Value)> {
    let out = common::expected_records();
    assert!(out.len() >= 40, "corpus/expected has {} records", out.len());
    out
}

/// The model of a record, or every ML program of a pipeline record.
fn read(rec: &Value) -> Vec<Model> {
    common::read_programs(&common::corpus().join(rec["path"].as_str().unwrap()))
}

#[test]
fn dump_of_every_corpus_model_parses_back_to_the_same_graph() {
    for (name, rec) in expected() {
        for model in read(&rec) {
            // A Core AI asset has no MIL program; its dump is the inventory (tests/it/coreai.rs).
            if model.kind == ModelKind::AiModel {
                continue;
            }
            let text = render_to_string(&model.program);
            let again =
                parse_program(&text, std::path::Path::new("dump.mil")).unwrap_or_else(|e| {
                    panic!("{name}: dump does not parse: {:?}", miette::Report::new(e))
                });
            same_program(&model.program, &again).unwrap_or_else(|e| panic!("{name}: {e}"));
            // The rendered source of a package is exactly the dump, so diagnostics point into it.
            if model.kind == ModelKind::MlPackage {
                assert_eq!(&*model.source.text, text, "{name}");
            }
        }
    }
}
