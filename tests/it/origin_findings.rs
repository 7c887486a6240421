//! One finding per cause (issue 18): `fp32-compute`, `tensor-rank` and `tensor-dim-limit` report each
//! connected region of their property once, at its origin (`origin:` in the rule language), and
//! nothing found before is lost. `BEFORE` is the measurement taken with the rules as they were (one
//! finding per op), per (model, function, rule), over `../shared/realworld` and the corpus (the
//! `torch-origin-*` packages are PyTorch models converted by coremltools,
//! `corpus/generate_torch_origin.py`). Every row must still report, with the pinned number of
//! findings, and the findings of a row must cover exactly the ops reported before.
//! `io-last-axis-alignment` reports every unaligned input and output (each is its own copy at
//! prediction time): its counts stay as they were.

use crate::common;

use std::collections::BTreeMap;

use assert_cmd::Command;
use coreml_lint::lint::model_entities;
use coreml_lint::rules::{match_model, RuleSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Root {
    Realworld,
    Corpus,
}

const RULES: &[&str] = &[
    "fp32-compute",
    "tensor-rank",
    "tensor-dim-limit",
    "io-last-axis-alignment",
];

/// (root, model path under it, function, rule, findings before, findings now).
const BEFORE: &[(Root, &str, &str, &str, usize, usize)] = &[
    (
        Root::Realworld,
        "coremltools-modelrunner-add-model/add_model.mlmodelc",
        "main",
        "io-last-axis-alignment",
        3,
        3,
    ),
    (
        Root::Realworld,
        "fluidaudio-optimization-models/Argmax.mlmodelc",
        "main",
        "io-last-axis-alignment",
        2,
        2,
    ),
    (
        Root::Realworld,
        "fluidaudio-optimization-models/TokenDurationPrediction.mlmodelc",
        "main",
        "io-last-axis-alignment",
        2,
        2,
    ),
    (
        Root::Realworld,
        "fluidaudio-parakeet-eou-1280ms/parakeet_eou_preprocessor.mlmodelc",
        "main",
        "fp32-compute",
        23,
        1,
    ),
    (
        Root::Realworld,
        "htdemucs-6s-mlpackage-ios18/htdemucs_6s.mlpackage",
        "main",
        "io-last-axis-alignment",
        2,
        2,
    ),
    (
        Root::Realworld,
        "htdemucs-6s-mlpackage-ios18/htdemucs_6s.mlpackage",
        "main",
        "tensor-dim-limit",
        // 216 before fp32 values stopped counting: the fp32 `raw_audio` input is not a Neural
        // Engine tensor; the region starts at its cast to fp16.
        215,
        1,
    ),
    (
        Root::Realworld,
        "htdemucs-6s-mlpackage-ios18/htdemucs_6s.mlpackage",
        "main",
        "tensor-rank",
        // 11 connected regions; the 10 of PyTorch's MultiheadAttention in-projection, one per
        // layer, are one construct (`region: construct`).
        25,
        2,
    ),
    (
        Root::Realworld,
        "ironmill-mnist-coremlc-compiled/base.mlmodelc",
        "main",
        "fp32-compute",
        12,
        1,
    ),
    (
        Root::Realworld,
        "mobius-silero-vad-compiled/silero-vad-unified-256ms-v6.0.0.mlmodelc",
        "main",
        "fp32-compute",
        32,
        1,
    ),
    (
        Root::Realworld,
        "mobius-silero-vad-compiled/unified_256ms_int8.mlmodelc",
        "main",
        "fp32-compute",
        32,
        1,
    ),
    (
        Root::Realworld,
        "mobius-silero-vad-compiled/unified_256ms_palette_4bit.mlmodelc",
        "main",
        "fp32-compute",
        32,
        1,
    ),
    (
        Root::Realworld,
        "mobius-silero-vad-compiled/unified_256ms_pruned_int8.mlmodelc",
        "main",
        "fp32-compute",
        32,
        1,
    ),
    (
        Root::Realworld,
        "mobius-silero-vad-compiled/unified_palette_2bit.mlmodelc",
        "main",
        "fp32-compute",
        4,
        1,
    ),
    (
        Root::Realworld,
        "mobius-silero-vad-mlpackage/silero-vad-unified-256ms-v6.0.0.mlpackage",
        "main",
        "fp32-compute",
        32,
        1,
    ),
    (
        Root::Realworld,
        "mobius-silero-vad-mlpackage/unified_256ms_palette_4bit.mlpackage",
        "main",
        "fp32-compute",
        32,
        1,
    ),
    (
        Root::Realworld,
        "whisperkit-large-v3-947MB-palettized/AudioEncoder.mlmodelc",
        "main",
        "io-last-axis-alignment",
        2,
        2,
    ),
    (
        Root::Realworld,
        "whisperkit-large-v3-947MB-palettized/MelSpectrogram.mlmodelc",
        "main",
        "io-last-axis-alignment",
        1,
        1,
    ),
    (
        Root::Realworld,
        "whisperkit-large-v3-947MB-palettized/MelSpectrogram.mlmodelc",
        "main",
        "tensor-dim-limit",
        6,
        1,
    ),
    (
        Root::Realworld,
        "whisperkit-large-v3-947MB-palettized/TextDecoder.mlmodelc",
        "main",
        "io-last-axis-alignment",
        5,
        5,
    ),
    (
        Root::Realworld,
        "whisperkit-large-v3-947MB-palettized/TextDecoder.mlmodelc",
        "main",
        "tensor-dim-limit",
        1,
        1,
    ),
    (
        Root::Realworld,
        "whisperkit-large-v3-turbo-prefill/TextDecoderContextPrefill.mlmodelc",
        "main",
        "io-last-axis-alignment",
        2,
        2,
    ),
    (
        Root::Realworld,
        "whisperkit-tiny/AudioEncoder.mlmodelc",
        "main",
        "io-last-axis-alignment",
        2,
        2,
    ),
    (
        Root::Realworld,
        "whisperkit-tiny/MelSpectrogram.mlmodelc",
        "main",
        "io-last-axis-alignment",
        1,
        1,
    ),
    (
        Root::Realworld,
        "whisperkit-tiny/MelSpectrogram.mlmodelc",
        "main",
        "tensor-dim-limit",
        6,
        1,
    ),
    (
        Root::Realworld,
        "whisperkit-tiny/TextDecoder.mlmodelc",
        "main",
        "io-last-axis-alignment",
        5,
        5,
    ),
    (
        Root::Realworld,
        "whisperkit-tiny/TextDecoder.mlmodelc",
        "main",
        "tensor-dim-limit",
        1,
        1,
    ),
    (
        Root::Corpus,
        "packages/tensor-dim-limit-wide.mlpackage",
        "main",
        "tensor-dim-limit",
        4,
        1,
    ),
    (
        Root::Corpus,
        "compiled/mlmodelc-state-not-fp16.mlmodelc",
        "main",
        "fp32-compute",
        3,
        1,
    ),
    (
        Root::Corpus,
        "packages/fp32-compute-island.mlpackage",
        "main",
        "fp32-compute",
        2,
        1,
    ),
    (
        Root::Corpus,
        "packages/torch-cat4-log-softmax-fp32.mlpackage",
        "main",
        "fp32-compute",
        2,
        1,
    ),
    (
        Root::Corpus,
        "packages/torch-cat4-logcumsumexp-fp32.mlpackage",
        "main",
        "fp32-compute",
        3,
        1,
    ),
    (
        Root::Corpus,
        "packages/torch-cat4-softplus-fp32.mlpackage",
        "main",
        "fp32-compute",
        1,
        1,
    ),
    (
        Root::Corpus,
        "packages/torch-help-fp32-lstm-ios16.mlpackage",
        "main",
        "fp32-compute",
        3,
        1,
    ),
    (
        Root::Corpus,
        "packages/torch-help-logits-conv-clean.mlpackage",
        "main",
        "io-last-axis-alignment",
        2,
        2,
    ),
    (
        Root::Corpus,
        "packages/torch-help-logits-linear.mlpackage",
        "main",
        "io-last-axis-alignment",
        1,
        1,
    ),
    (
        Root::Corpus,
        "packages/torch-help-logits-linear.mlpackage",
        "main",
        "tensor-dim-limit",
        1,
        1,
    ),
    (
        Root::Corpus,
        "packages/fp32-compute.mlpackage",
        "main",
        "fp32-compute",
        1,
        1,
    ),
    (
        Root::Corpus,
        "packages/tensor-dim-limit.mlpackage",
        "main",
        "tensor-dim-limit",
        1,
        1,
    ),
    (
        Root::Corpus,
        "packages/tensor-rank-5.mlpackage",
        "main",
        "tensor-rank",
        2,
        1,
    ),
    (
        Root::Corpus,
        "packages/tensor-rank.mlpackage",
        "main",
        "tensor-rank",
        2,
        1,
    ),
    (
        Root::Corpus,
        "packages/torch-image-preprocessing-fp32.mlpackage",
        "main",
        "fp32-compute",
        4,
        1,
    ),
    (
        Root::Corpus,
        "packages/torch-origin-decoder-fp32.mlpackage",
        "main",
        "fp32-compute",
        51,
        1,
    ),
    (
        Root::Corpus,
        "packages/torch-origin-fp32-island.mlpackage",
        "main",
        "fp32-compute",
        8,
        1,
    ),
    (
        Root::Corpus,
        "packages/torch-origin-long-axis.mlpackage",
        "main",
        "tensor-dim-limit",
        6,
        2,
    ),
    (
        Root::Corpus,
        "packages/torch-origin-stateful-rank5.mlpackage",
        "main",
        "tensor-rank",
        10,
        2,
    ),
    // Catalog-3 fixtures (corpus/generate_catalog3.py): the fp32 island of const-fp16-overflow and
    // the [1, 8] input and output of the pow models, the fp32 pow model.
    (
        Root::Corpus,
        "packages/pow-const-base-two-fp32.mlpackage",
        "main",
        "fp32-compute",
        2,
        1,
    ),
    (
        Root::Corpus,
        "packages/const-fp16-overflow-clean.mlpackage",
        "main",
        "fp32-compute",
        2,
        1,
    ),
    (
        Root::Corpus,
        "packages/const-fp16-overflow.mlpackage",
        "main",
        "fp32-compute",
        2,
        1,
    ),
    (
        Root::Corpus,
        "packages/affine-dequantize-square-axis.mlpackage",
        "main",
        "io-last-axis-alignment",
        2,
        2,
    ),
    (
        Root::Corpus,
        "packages/pow-const-base-two-base3-clean.mlpackage",
        "main",
        "io-last-axis-alignment",
        2,
        2,
    ),
    (
        Root::Corpus,
        "packages/pow-const-base-two-exp-clean.mlpackage",
        "main",
        "io-last-axis-alignment",
        2,
        2,
    ),
    (
        Root::Corpus,
        "packages/pow-const-base-two-square-clean.mlpackage",
        "main",
        "io-last-axis-alignment",
        2,
        2,
    ),
    (
        Root::Corpus,
        "packages/pow-const-base-two.mlpackage",
        "main",
        "io-last-axis-alignment",
        2,
        2,
    ),
];

type Key = (Root, String, String, String);

#[test]
fn every_cause_found_before_is_reported_once_and_covers_the_same_ops() {
    let rules = RuleSet::builtin().expect("built-ins load");
    let mut roots = vec![
        (Root::Corpus, common::corpus().join("packages")),
        (Root::Corpus, common::corpus().join("compiled")),
    ];
    match common::shared() {
        Some(shared) => roots.push((Root::Realworld, shared.join("realworld"))),
        None => eprintln!("../shared not present: real-world rows not checked"),
    }
    // (findings, ops covered) per key.
    let mut got: BTreeMap<Key, (usize, usize)> = BTreeMap::new();
    for (root, dir) in &roots {
        let base = if *root == Root::Corpus {
            common::corpus()
        } else {
            dir.clone()
        };
        for model in common::once::models_under(dir) {
            let rel = model
                .path
                .strip_prefix(&base)
                .unwrap_or(&model.path)
                .display()
                .to_string();
            for f in match_model(model, &rules, &model_entities(model)) {
                if !RULES.contains(&f.rule.as_str()) {
                    continue;
                }
                let key = (
                    *root,
                    rel.clone(),
                    f.function.clone().unwrap_or_default(),
                    f.rule.clone(),
                );
                let e = got.entry(key).or_default();
                e.0 += 1;
                e.1 += f.ops_covered();
            }
        }
    }
    let checked_roots: Vec<Root> = roots.iter().map(|r| r.0).collect();
    let want: BTreeMap<Key, (usize, usize)> = BEFORE
        .iter()
        .filter(|r| checked_roots.contains(&r.0))
        .map(|&(root, path, func, rule, before, now)| {
            (
                (root, path.to_string(), func.to_string(), rule.to_string()),
                (now, before),
            )
        })
        .collect();
    for (k, (n, ops)) in &got {
        println!("{n:>3} findings {ops:>4} ops  {} {} {}", k.1, k.2, k.3);
    }
    let lost: Vec<&Key> = want.keys().filter(|k| !got.contains_key(*k)).collect();
    assert!(lost.is_empty(), "no longer reported: {lost:?}");
    assert_eq!(got, want);
    let before: usize = want.values().map(|v| v.1).sum();
    let now: usize = want.values().map(|v| v.0).sum();
    println!("{before} findings before, {now} now");
    assert!(now * 3 < before, "the regions fold the repeats");
}

/// stdout of `coreml-lint check --exit-zero ARGS PACKAGE` on a corpus package.
fn check_stdout(package: &str, args: &[&str]) -> String {
    let out = Command::cargo_bin("coreml-lint")
        .expect("binary")
        .args(["check", "--exit-zero"])
        .args(args)
        .arg(common::corpus().join("packages").join(package))
        .output()
        .expect("runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn statistics_count_findings_and_the_ops_they_cover() {
    let stdout = check_stdout(
        "torch-origin-decoder-fp32.mlpackage",
        &["--statistics", "--quiet"],
    );
    // One finding on the 2-layer decoder converted with compute_precision=FLOAT32, standing for the
    // 51 ops that compute in fp32.
    assert!(
        stdout.lines().any(
            |l| l.split_whitespace().take(3).collect::<Vec<_>>() == ["1", "51", "fp32-compute"]
        ),
        "{stdout}"
    );
}

#[test]
fn the_finding_names_the_region_and_its_boundary() {
    let island = "torch-origin-fp32-island.mlpackage";
    let json = check_stdout(island, &["--output-format", "json", "--quiet"]);
    let doc: serde_json::Value = serde_json::from_str(&json).expect("json");
    let fp32: Vec<&serde_json::Value> = doc["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["rule"] == "fp32-compute")
        .collect();
    let [d] = fp32.as_slice() else {
        panic!("one fp32 island, one finding: {fp32:?}")
    };
    assert_eq!(d["op"], "cast_9");
    assert_eq!(d["covered"]["count"], 7);
    let msg = d["message"].as_str().unwrap_or_default();
    assert!(
        msg.starts_with("`cast_9` (cast) starts fp32 compute in `main`")
            && msg.contains("ops in fp32: 8 of the 21 ops of `main`"),
        "{msg}"
    );
    // The human report labels the casts into and out of the island.
    let text = check_stdout(island, &["--select", "fp32-compute"]);
    assert!(
        text.contains("the region also starts here") && text.contains("the region ends here"),
        "{text}"
    );
}
