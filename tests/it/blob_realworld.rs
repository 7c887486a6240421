//! The weight rules on real models: the clean ones give no finding (their weights are described all
//! the same), and copies byte-edited by the test give exactly the expected findings. The real files
//! are copied to a temporary folder, never edited in place.

use crate::common;

use std::path::{Path, PathBuf};

use coreml_lint::discover::{discover, Discovered};
use coreml_lint::finding::Finding;
use coreml_lint::ir::{Model, ModelKind};
use coreml_lint::lint::model_entities;
use coreml_lint::read::{read_model, ReadOutcome};
use coreml_lint::rules::{match_model, RuleSet};

/// The built-in `blob-*` rules and `bundle-lfs-pointer`.
fn blob_rules() -> &'static RuleSet {
    static RULES: std::sync::OnceLock<RuleSet> = std::sync::OnceLock::new();
    RULES.get_or_init(|| {
        let mut r = RuleSet::builtin().unwrap();
        r.retain(|x| x.id.starts_with("blob-") || x.id == "bundle-lfs-pointer");
        r
    })
}

/// The weight rules' findings on `model`, by rule id.
fn weight_findings(model: &Model) -> Vec<Finding> {
    let mut f = match_model(model, blob_rules(), &model_entities(model));
    f.sort_by(|a, b| a.rule.cmp(&b.rule));
    f
}

fn read(d: &Discovered) -> Option<Model> {
    match read_model(d) {
        Ok(ReadOutcome::Model(m)) => Some(*m),
        _ => None,
    }
}

fn blob_count(m: &Model) -> usize {
    m.program
        .functions
        .iter()
        .flat_map(|f| f.ops())
        .map(|(_, op)| {
            op.attributes
                .values()
                .filter(|l| l.blob().is_some())
                .count()
                + op.inputs
                    .iter()
                    .flat_map(|p| &p.args)
                    .filter(|a| matches!(a, coreml_lint::ir::Arg::Value(l) if l.blob().is_some()))
                    .count()
        })
        .sum()
}

#[test]
fn clean_real_models_with_weights_give_no_blob_findings() {
    let Some(shared) = common::shared() else {
        eprintln!("../shared not found; skipped");
        return;
    };
    let roots: Vec<PathBuf> = ["mobius-silero-vad-compiled", "mobius-silero-vad-mlpackage"]
        .iter()
        .map(|d| shared.join("realworld").join(d))
        .collect();
    let mut checked = 0;
    for d in discover(&roots).into_iter().flatten() {
        let model = read(&d);
        // Compiled folders read with the text parser; packages need the protobuf reader, which
        // may not be there yet: they are checked as soon as they read.
        if d.kind == ModelKind::MlModelc {
            assert!(model.is_some(), "{} does not read", d.path.display());
        }
        let Some(model) = model else { continue };
        assert!(
            blob_count(&model) > 0,
            "{}: no blob literals",
            d.path.display()
        );
        let weights = model_entities(&model)
            .entities
            .iter()
            .filter(|e| e.kind == "weight")
            .count();
        assert_eq!(weights, blob_count(&model), "{}", d.path.display());
        let findings = weight_findings(&model);
        assert!(findings.is_empty(), "{}: {findings:?}", d.path.display());
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} models checked");
}

/// A copy of a real compiled model in a temporary folder.
struct Copy {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

fn copy_model(src: &Path) -> Copy {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join(src.file_name().unwrap());
    common::copy_tree(src, &root);
    Copy { _dir: dir, root }
}

/// The v6 silero model: 13 fp16 blobs, the first at 64 (fp16[258, 1, 256], 132096 bytes), the second
/// at 132224.
fn silero_copy() -> Option<Copy> {
    let src = common::shared()?
        .join("realworld/mobius-silero-vad-compiled/silero-vad-unified-256ms-v6.0.0.mlmodelc");
    src.is_dir().then(|| copy_model(&src))
}

fn facts_of(c: &Copy) -> Vec<Finding> {
    let model = read(&Discovered {
        path: c.root.clone(),
        kind: ModelKind::MlModelc,
    })
    .expect("the copy reads");
    weight_findings(&model)
}

fn kinds(facts: &[Finding]) -> Vec<&str> {
    facts.iter().map(|f| f.rule.as_str()).collect()
}

fn edit_weights(c: &Copy, at: usize, bytes: &[u8]) {
    let p = c.root.join("weights/weight.bin");
    let mut w = std::fs::read(&p).unwrap();
    w[at..at + bytes.len()].copy_from_slice(bytes);
    std::fs::write(&p, w).unwrap();
}

#[test]
fn offset_moved_onto_a_payload_says_which_record_was_meant() {
    let Some(c) = silero_copy() else { return };
    let mil = c.root.join("model.mil");
    let text = std::fs::read_to_string(&mil).unwrap();
    let from = "offset = tensor<uint64, []>(132224)";
    assert_eq!(text.matches(from).count(), 1);
    std::fs::write(
        &mil,
        text.replace(from, "offset = tensor<uint64, []>(132288)"),
    )
    .unwrap();
    let facts = facts_of(&c);
    assert_eq!(
        kinds(&facts),
        vec!["blob-bad-sentinel", "blob-unreferenced"]
    );
    let f = &facts[0];
    assert!(f.message.contains("at offset 132288, where"), "{f:?}");
    assert!(
        f.message.contains("blob whose record is at 132224"),
        "{f:?}"
    );
    assert!(f
        .help
        .as_deref()
        .unwrap()
        .starts_with("did you mean 132224?;"));
    assert_eq!(f.function.as_deref(), Some("main"));
    let model_text = std::fs::read_to_string(&mil).unwrap();
    let span = f.span.unwrap();
    assert!(model_text[span.start..span.end()].contains("132288"));
    assert!(facts[1].message.contains("the blob at offset 132224 "));
}

#[test]
fn edited_record_dtype_is_a_dtype_mismatch() {
    let Some(c) = silero_copy() else { return };
    edit_weights(&c, 68, &2u32.to_le_bytes());
    let facts = facts_of(&c);
    assert_eq!(kinds(&facts), vec!["blob-dtype-mismatch"]);
    assert!(facts[0].message.ends_with("holds fp32 (storage code 2)"));
}

#[test]
fn edited_record_size_is_a_size_mismatch() {
    let Some(c) = silero_copy() else { return };
    edit_weights(&c, 72, &(132096u64 - 2).to_le_bytes());
    let facts = facts_of(&c);
    assert_eq!(kinds(&facts), vec!["blob-size-mismatch"]);
    assert!(facts[0].message.contains("needs 132096 bytes"));
    assert!(facts[0].message.contains("says 132094:"));
}

#[test]
fn zeroed_sentinel_is_a_bad_sentinel_and_breaks_the_chain() {
    let Some(c) = silero_copy() else { return };
    edit_weights(&c, 231360, &[0, 0, 0, 0]);
    let facts = facts_of(&c);
    assert_eq!(
        kinds(&facts),
        vec!["blob-bad-sentinel", "blob-count-mismatch"]
    );
    assert!(facts[0].message.contains("at offset 231360,"));
}

#[test]
fn truncated_weight_file_reports_every_lost_blob() {
    let Some(c) = silero_copy() else { return };
    let p = c.root.join("weights/weight.bin");
    let f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
    f.set_len(200_000).unwrap();
    let facts = facts_of(&c);
    let ks = kinds(&facts);
    assert_eq!(ks.first(), Some(&"blob-count-mismatch"));
    // Every blob from 132224 on is cut off: 12 literals, each reported once.
    assert_eq!(
        ks.iter().filter(|k| **k == "blob-out-of-bounds").count(),
        12,
        "{ks:?}"
    );
    assert_eq!(ks.len(), 13);
}
