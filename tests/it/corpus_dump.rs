//! `coreml-lint dump` of every corpus model parses back with our text parser into the same graph
//! (same ops, bindings and types); for packages the dump is the source diagnostics point into.

use crate::common;

use coreml_lint::discover::Discovered;
use coreml_lint::ir::compare::same_program;
use coreml_lint::ir::render::render_to_string;
use coreml_lint::ir::{Model, ModelKind};
use coreml_lint::read::miltext::parse_program;
use coreml_lint::read::{read_model, ReadOutcome};
use serde_json::Value;

fn expected() -> Vec<(String, Value)> {
    let dir = common::corpus().join("expected");
    let mut out: Vec<(String, Value)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            (p.file_stem().unwrap().to_string_lossy().into_owned(), v)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(out.len() >= 40, "corpus/expected has {} records", out.len());
    out
}

fn read(rec: &Value) -> Model {
    let rel = rec["path"].as_str().unwrap();
    let path = common::corpus().join(rel);
    let kind = if rel.ends_with(".mlpackage") {
        ModelKind::MlPackage
    } else {
        ModelKind::MlModelc
    };
    match read_model(&Discovered {
        path: path.clone(),
        kind,
    }) {
        Ok(ReadOutcome::Model(m)) => *m,
        Ok(ReadOutcome::NotMlProgram { what, .. }) => panic!("{rel}: read as {what}"),
        Err(e) => panic!("{rel}: {:?}", miette::Report::new(e)),
    }
}

#[test]
fn dump_of_every_corpus_model_parses_back_to_the_same_graph() {
    for (name, rec) in expected() {
        let model = read(&rec);
        let text = render_to_string(&model.program);
        let again = parse_program(&text, std::path::Path::new("dump.mil")).unwrap_or_else(|e| {
            panic!("{name}: dump does not parse: {:?}", miette::Report::new(e))
        });
        same_program(&model.program, &again).unwrap_or_else(|e| panic!("{name}: {e}"));
        // The rendered source of a package is exactly the dump, so diagnostics point into it.
        if model.kind == ModelKind::MlPackage {
            assert_eq!(&*model.source.text, text, "{name}");
        }
    }
}
