//! Every corpus model (`.mlpackage` and hand-written `.mlmodelc`) reads, and its functions, op counts, op histograms, state inputs and
//! described states equal what coremltools recorded in `corpus/expected/<name>.json`.

use crate::common;

use std::collections::BTreeMap;

use coreml_lint::ir::{FeatureKind, Model};
use serde_json::{json, Value};

/// `{"<fn>": {"op_count": N, "histogram": {...}}}` as the IR has it.
fn functions(m: &Model) -> Value {
    let mut out = serde_json::Map::new();
    for f in &m.program.functions {
        let mut hist: BTreeMap<String, u64> = BTreeMap::new();
        for (_, op) in f.ops() {
            *hist.entry(op.op_type.to_string()).or_default() += 1;
        }
        out.insert(
            f.name.clone(),
            json!({"op_count": f.op_count(), "histogram": hist}),
        );
    }
    Value::Object(out)
}

/// `{"<fn>": {"<state>": {"dtype": "fp16", "shape": [..]}}}` from the program's state inputs.
fn program_states(m: &Model) -> Value {
    let mut out = serde_json::Map::new();
    for f in &m.program.functions {
        let mut states = serde_json::Map::new();
        for (_, input) in f.inputs().filter(|(_, i)| i.ty.is_state()) {
            let t = input.ty.tensor().expect("a state wraps a tensor");
            states.insert(
                input.name.to_string(),
                json!({"dtype": t.dtype.text_name(), "shape": t.known_dims()}),
            );
        }
        out.insert(f.name.clone(), Value::Object(states));
    }
    Value::Object(out)
}

/// The same shape from the model description (per function, or the top level).
fn description_states(m: &Model) -> Value {
    let mut out = serde_json::Map::new();
    for f in &m.program.functions {
        let mut states = serde_json::Map::new();
        for s in m
            .description
            .for_function(&f.name)
            .map(|d| d.states.as_slice())
            .unwrap_or_default()
        {
            let FeatureKind::State { dtype, shape } = &s.kind else {
                panic!("state `{}` described as {:?}", s.name, s.kind);
            };
            states.insert(
                s.name.clone(),
                json!({"dtype": dtype.map(|d| d.text_name()), "shape": shape}),
            );
        }
        out.insert(f.name.clone(), Value::Object(states));
    }
    Value::Object(out)
}

#[test]
fn corpus_packages_match_coremltools_records() {
    let corpus = common::corpus();
    let Ok(entries) = std::fs::read_dir(corpus.join("expected")) else {
        eprintln!("note: corpus/expected not found; skipping");
        return;
    };
    let mut records: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    records.sort();
    let mut checked = 0;
    for record in records {
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
        let path = corpus.join(expected["path"].as_str().unwrap());
        let name = path.display();
        // A pipeline's record holds one entry per sub-model, in order.
        let (models, records) = if expected["kind"] == "pipeline" {
            let subs = expected["sub_models"].as_array().unwrap().clone();
            (common::read_programs(&path), subs)
        } else {
            (vec![common::read(&path)], vec![expected.clone()])
        };
        assert_eq!(models.len(), records.len(), "{name}");
        for (m, rec) in models.iter().zip(&records) {
            if let Some(sub) = &m.sub_model {
                assert_eq!(json!(sub.position), rec["position"], "{name}");
                assert_eq!(json!(sub.name), rec["name"], "{name}");
            }
            assert_eq!(
                json!(m.spec_version),
                rec["specification_version"],
                "{name}"
            );
            // A Core AI program's functions are compared with coreai-core's own reading of it
            // (`X.summary.json`) in `coreai::dump_gives_what_coreai_core_reads`: coremltools
            // records nothing for it.
            if expected["kind"] != "aimodel" {
                assert_eq!(functions(m), rec["functions"], "{name}");
                assert_eq!(program_states(m), rec["states"], "{name}");
                assert_eq!(description_states(m), rec["description_states"], "{name}");
            }
        }
        checked += 1;
    }
    assert!(checked > 0, "no records in corpus/expected");
    eprintln!("checked {checked} corpus packages");
}

/// The positions of the ML programs in the model `bytes` (`[]` when it is one), depth first.
fn program_positions(bytes: &[u8], at: &mut Vec<usize>) -> Vec<Vec<usize>> {
    use coreml_lint::fix::splice;
    use coreml_lint::read::proto::{self, model::Type};
    use prost::Message;
    match proto::Model::decode(bytes).unwrap().r#type {
        Some(Type::MlProgram(_)) => vec![at.clone()],
        Some(Type::Pipeline(_) | Type::PipelineClassifier(_) | Type::PipelineRegressor(_)) => {
            let mut out = Vec::new();
            for i in 0.. {
                let Ok(sub) = splice::sub_model_bytes(bytes, &[i]) else {
                    break;
                };
                at.push(i);
                out.extend(program_positions(sub, at));
                at.pop();
            }
            out
        }
        _ => Vec::new(),
    }
}

/// The wire splice re-encodes every corpus package (states, multifunction descriptions, LUT
/// constexprs, flexible shapes) to a message that decodes equal and has the original length.
#[test]
fn corpus_packages_reencode_losslessly() {
    use coreml_lint::fix::splice;
    use coreml_lint::read::proto;
    use prost::Message;
    let mut checked = 0;
    for dir in ["packages", "reference"] {
        let Ok(entries) = std::fs::read_dir(common::corpus().join(dir)) else {
            continue;
        };
        for pkg in entries.filter_map(Result::ok).map(|e| e.path()) {
            let file = pkg.join("Data/com.apple.CoreML/model.mlmodel");
            let whole = std::fs::read(&file).unwrap();
            let whole_spec = proto::Model::decode(whole.as_slice()).unwrap();
            // A pipeline's ML-program sub-models are re-encoded one at a time and spliced back.
            let positions = program_positions(&whole, &mut Vec::new());
            assert!(!positions.is_empty(), "{}", pkg.display());
            for at in positions {
                let bytes = splice::sub_model_bytes(&whole, &at).unwrap();
                let spec = proto::Model::decode(bytes).unwrap();
                let out = common::assert_reencodes_losslessly(bytes, &spec, &pkg);
                let spliced = splice::replace_sub_model(&whole, &at, &out).unwrap();
                // A pipeline classifier or regressor decodes as its bytes: compare what it holds.
                let holder = matches!(
                    whole_spec.r#type,
                    Some(
                        proto::model::Type::PipelineClassifier(_)
                            | proto::model::Type::PipelineRegressor(_)
                    )
                );
                if holder {
                    for p in program_positions(&whole, &mut Vec::new()) {
                        let sub = |m: &[u8]| {
                            proto::Model::decode(splice::sub_model_bytes(m, &p).unwrap()).unwrap()
                        };
                        assert_eq!(sub(&spliced), sub(&whole), "{} {p:?}", pkg.display());
                    }
                } else {
                    assert_eq!(
                        proto::Model::decode(spliced.as_slice()).unwrap(),
                        whole_spec,
                        "{} {at:?}",
                        pkg.display()
                    );
                }
                assert_eq!(spliced.len(), whole.len(), "{}", pkg.display());
            }
            checked += 1;
        }
    }
    eprintln!("re-encoded {checked} corpus packages");
}
