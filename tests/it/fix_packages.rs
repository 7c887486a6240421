//! The one-row state pad on the corpus `.mlpackage` models: every model with
//! `state-full-extent-write` is fixed into a copy; only `model.mlmodel` changes, the state is padded
//! in every function and description, windows and all other types stay, a second fix is a no-op,
//! and the result matches coremltools' own padded reference.

use crate::common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use coreml_lint::finding::Applicability;
use coreml_lint::fix::splice::encode_model_preserving;
use coreml_lint::fix::{apply, FixMode, PadRequest};
use coreml_lint::ir::{FeatureKind, Function, Model, Program, ValueType};
use coreml_lint::read::proto::decode_model;
use coreml_lint::rules::engine::match_model;
use coreml_lint::rules::loader::RuleSet;

/// (package path under the corpus without `.mlpackage`, state) of every corpus package whose
/// expected findings include `state-full-extent-write`.
fn h1_packages() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let dir = common::corpus().join("expected");
    let Ok(entries) = fs::read_dir(&dir) else {
        return out;
    };
    let mut paths: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    paths.sort();
    for p in paths {
        let v: serde_json::Value = serde_json::from_slice(&fs::read(&p).unwrap()).unwrap();
        if v["kind"] != "mlpackage" {
            continue;
        }
        for f in v["findings"].as_array().unwrap() {
            if f["rule"] == "state-full-extent-write" {
                let rel = v["path"].as_str().unwrap();
                let name = rel.strip_suffix(".mlpackage").unwrap().to_string();
                let state = f["state"].as_str().unwrap().to_string();
                if !out.contains(&(name.clone(), state.clone())) {
                    out.push((name, state));
                }
            }
        }
    }
    out
}

fn state_dims(f: &Function, s: &str) -> Vec<u64> {
    f.inputs()
        .find(|(_, i)| i.name == s)
        .and_then(|(_, i)| i.ty.tensor())
        .and_then(|t| t.known_dims())
        .unwrap()
}

fn types(p: &Program) -> BTreeMap<(String, String), ValueType> {
    let mut m = BTreeMap::new();
    for f in &p.functions {
        for (_, op) in f.ops() {
            for o in &op.outputs {
                m.insert((f.name.clone(), o.name.to_string()), o.ty.clone());
            }
        }
    }
    m
}

/// Resolved windows of every slice_update whose `x` is the state's content, per function.
fn windows(p: &Program, state: &str) -> BTreeMap<String, Vec<Vec<(i64, i64)>>> {
    let mut m: BTreeMap<String, Vec<Vec<(i64, i64)>>> = BTreeMap::new();
    for f in &p.functions {
        let dims = state_dims(f, state);
        for (id, op) in f.ops() {
            let is_state_write = op.op_type == "slice_update"
                && op
                    .outputs
                    .first()
                    .and_then(|o| o.ty.tensor())
                    .and_then(|t| t.known_dims())
                    == Some(dims.clone());
            if !is_state_write {
                continue;
            }
            // Run-time windows are compared by their bindings, not here.
            let Some(ranges) = common::const_window(f, id, &dims) else {
                continue;
            };
            m.entry(f.name.clone()).or_default().push(ranges);
        }
    }
    m
}

fn desc_states(m: &Model, state: &str) -> Vec<Vec<i64>> {
    let d = &m.description;
    std::iter::once(&d.top)
        .chain(d.functions.iter())
        .flat_map(|f| f.states.iter())
        .filter(|s| s.name == state)
        .map(|s| match &s.kind {
            FeatureKind::State { shape, .. } => shape.clone(),
            other => panic!("{other:?}"),
        })
        .collect()
}

fn files_under(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path().strip_prefix(dir).unwrap().to_path_buf(),
                fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

#[test]
fn decode_encode_without_change_is_byte_identical() {
    for (name, _) in h1_packages() {
        let file = common::corpus().join(format!(
            "{name}.mlpackage/Data/com.apple.CoreML/model.mlmodel"
        ));
        let bytes = fs::read(&file).unwrap();
        let spec = decode_model(&bytes, &file).unwrap();
        assert_eq!(encode_model_preserving(&bytes, None, None).unwrap(), bytes);
        // Re-encoding the untouched description and program from the structs also round-trips
        // for these coremltools-written files.
        let desc = spec.description.as_ref();
        let program = match &spec.r#type {
            Some(coreml_lint::read::proto::model::Type::MlProgram(p)) => Some(p),
            _ => None,
        };
        let re = encode_model_preserving(&bytes, desc, program).unwrap();
        assert_eq!(decode_model(&re, &file).unwrap(), spec, "{name}");
    }
}

#[test]
fn corpus_h1_packages_are_fixed() {
    let cases = h1_packages();
    if cases.is_empty() {
        eprintln!("skipping: no corpus");
        return;
    }
    for (name, state) in cases {
        let src = common::corpus().join(format!("{name}.mlpackage"));
        let before = common::read(&src);
        let originals = files_under(&src);
        let dir = tempfile::tempdir().unwrap();
        let req = vec![PadRequest {
            state: state.clone(),
            axis: None,
        }];
        // Every state fix is exact, so safe: applied without --unsafe-fixes.
        let out = apply(
            &before,
            &req,
            false,
            FixMode::Output(dir.path().to_path_buf()),
        )
        .unwrap();
        assert!(out.held_back.is_empty(), "{name}: {:?}", out.notes);
        let plan = &out.applied[0];
        assert_eq!(plan.applicability, Applicability::Safe);
        let root = out.written.clone().unwrap();
        // The input is untouched; in the copy only model.mlmodel changed.
        assert_eq!(files_under(&src), originals, "{name}: input changed");
        let fixed_files = files_under(&root);
        for (rel, bytes) in &originals {
            let changed = fixed_files.get(rel) != Some(bytes);
            assert_eq!(
                changed,
                rel.ends_with("model.mlmodel"),
                "{name}: {} changed={changed}",
                rel.display()
            );
        }
        assert_eq!(fixed_files.len(), originals.len());

        let after = common::read(&root);
        for f in &after.program.functions {
            if f.inputs().any(|(_, i)| i.name == state) {
                assert_eq!(state_dims(f, &state), plan.new_shape, "{name}/{}", f.name);
            }
        }
        let want: Vec<i64> = plan.new_shape.iter().map(|&d| d as i64).collect();
        let described = desc_states(&after, &state);
        assert!(!described.is_empty(), "{name}: state not described");
        assert!(
            described.iter().all(|s| *s == want),
            "{name}: {described:?}"
        );
        // Every value keeps its type except the state's content.
        let (tb, ta) = (types(&before.program), types(&after.program));
        for ((f, v), ty) in &tb {
            let Some(now) = ta.get(&(f.clone(), v.clone())) else {
                // Only removed full-window wrappers may vanish.
                assert!(!plan.unwrapped.is_empty(), "{name}: {f}/{v} vanished");
                continue;
            };
            let was_state =
                ty.tensor().and_then(|t| t.known_dims()) == Some(plan.old_shape.clone());
            if !was_state {
                assert_eq!(now, ty, "{name}: {f}/{v}");
            }
        }
        common::assert_outputs_unchanged(&before, &after);
        // Windows of the original chains are where they were.
        let (wb, wa) = (
            windows(&before.program, &state),
            windows(&after.program, &state),
        );
        for (f, ws) in &wb {
            // A removed wrapper's whole-state window goes with it.
            let whole: Vec<(i64, i64)> = plan.old_shape.iter().map(|&d| (0, d as i64)).collect();
            for w in ws
                .iter()
                .filter(|w| plan.unwrapped.is_empty() || **w != whole)
            {
                assert!(
                    wa[f].contains(w),
                    "{name}/{f}: window {w:?} moved: {:?}",
                    wa[f]
                );
            }
        }
        // Re-linting the fixed package shows no full-extent write of the state.
        let rules = RuleSet::builtin().unwrap();
        let h1_before = match_model(&before, &rules, &Default::default())
            .into_iter()
            .filter(|f| f.rule == "state-full-extent-write" && f.state.as_deref() == Some(&state))
            .count();
        assert!(
            h1_before > 0,
            "{name}: the rule did not fire before the fix"
        );
        let left: Vec<_> = match_model(&after, &rules, &Default::default())
            .into_iter()
            .filter(|f| f.rule == "state-full-extent-write" && f.state.as_deref() == Some(&state))
            .collect();
        assert!(left.is_empty(), "{name}: {left:?}");
        let again = apply(&after, &req, true, FixMode::DiffOnly).unwrap();
        assert!(again.applied.is_empty() && again.diff.is_empty(), "{name}");
        assert_eq!(again.noops.len(), 1);
    }
}

/// Compares our fix with the packages coremltools itself padded.
#[test]
fn matches_the_coremltools_reference() {
    for (name, reference) in [
        ("state-full-extent-write", "h1-padded-by-coremltools"),
        (
            "multifunction-state-full-extent-write",
            "multifunction-h1-padded-by-coremltools",
        ),
    ] {
        let src = common::corpus().join(format!("packages/{name}.mlpackage"));
        let refp = common::corpus().join(format!("reference/{reference}.mlpackage"));
        if !src.is_dir() || !refp.is_dir() {
            eprintln!("skipping {name}: corpus missing");
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let req = vec![PadRequest {
            state: "kv_cache".into(),
            axis: None,
        }];
        let out = apply(
            &common::read(&src),
            &req,
            false,
            FixMode::Output(dir.path().to_path_buf()),
        )
        .unwrap();
        let ours = common::read(&out.written.unwrap());
        let theirs = common::read(&refp);
        assert_eq!(
            desc_states(&ours, "kv_cache"),
            desc_states(&theirs, "kv_cache")
        );
        for (a, b) in ours.program.functions.iter().zip(&theirs.program.functions) {
            assert_eq!(a.name, b.name);
            assert_eq!(state_dims(a, "kv_cache"), state_dims(b, "kv_cache"));
            let outs = |f: &Function| -> Vec<ValueType> {
                f.outputs()
                    .iter()
                    .map(|o| f.value_type(o).unwrap().clone())
                    .collect()
            };
            assert_eq!(outs(a), outs(b), "{name}/{}", a.name);
        }
        assert_eq!(
            windows(&ours.program, "kv_cache"),
            windows(&theirs.program, "kv_cache"),
            "{name}"
        );
    }
}
