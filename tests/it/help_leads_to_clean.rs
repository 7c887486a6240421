//! Each help, followed, gives a model the rule no longer reports: converter-made twins (the model
//! a finding is on, and the same module converted as the help says) end to end through the CLI.

use crate::common;

use assert_cmd::Command;
use serde_json::Value;

fn findings_of(path: &std::path::Path, rule: &str) -> Vec<Value> {
    let out = Command::cargo_bin("coreml-lint")
        .unwrap()
        .args([
            "check",
            "--isolated",
            "--output-format",
            "json",
            "--select",
            rule,
        ])
        .arg(path)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    v["diagnostics"].as_array().cloned().unwrap_or_default()
}

/// (rule, the model it reports, words of its help, the twin made as the help says), models under
/// `corpus/`. The converter-made pairs are one PyTorch module converted twice
/// (`corpus/generate_torch_help.py`, `corpus/generate_catalog3.py`); `--fix`'s own output is
/// re-checked in `fix_exact.rs` (the int8 → uint8 re-encoding, dequantizing to the same weights;
/// the mask's finite sentinels).
const TWINS: &[(&str, &str, &str, &str)] = &[
    // Catalog 4 (corpus/generate_catalog4_ops.py): G4's batch of 9, G6's stride of 6 = 2 · 3.
    (
        "gpu-attention-batch",
        "packages/torch-cat4-sdpa-batch10.mlpackage",
        "batches of at most 9",
        "packages/torch-cat4-sdpa-batch9-clean.mlpackage",
    ),
    (
        "gpu-attention-batch",
        "packages/torch-cat4-attention-batch10.mlpackage",
        "batches of at most 9",
        "packages/torch-cat4-attention-batch9-clean.mlpackage",
    ),
    (
        "conv-stride-ane-compile",
        "packages/torch-cat4-conv-stride5.mlpackage",
        "Build the stride from 2s and 3s",
        "packages/torch-cat4-conv-stride6-clean.mlpackage",
    ),
    (
        "fp32-compute",
        "packages/torch-help-fp32-lstm-ios16.mlpackage",
        "minimum_deployment_target=ct.target.iOS17",
        "packages/torch-help-fp32-lstm-ios17-clean.mlpackage",
    ),
    (
        "tensor-dim-limit",
        "packages/torch-help-logits-linear.mlpackage",
        "1×1 `Conv2d`",
        "packages/torch-help-logits-conv-clean.mlpackage",
    ),
    // coremltools' `linear_quantize_weights(dtype="int8")` and the same with "uint8": 128 added to
    // the data and the zero point.
    (
        "affine-dequantize-int8",
        "packages/affine-dequantize-int8.mlpackage",
        "adds 128 to the int8 data and zero points, which gives uint8 weights",
        "packages/affine-dequantize-int8-uint8-clean.mlpackage",
    ),
    // HF-style masks with `torch.finfo(torch.float32).min` (fp16 -inf once converted) and with -1e4.
    (
        "mask-nonfinite-const",
        "packages/mask-nonfinite-const-finfo-padding.mlpackage",
        "mask with -1e4",
        "packages/mask-nonfinite-const-finfo-padding-clean.mlpackage",
    ),
    (
        "mask-nonfinite-const",
        "packages/mask-nonfinite-const-finfo-static.mlpackage",
        "mask with -1e4",
        "packages/mask-nonfinite-const-finfo-static-clean.mlpackage",
    ),
    // A blend over the whole `[2, 2, 256, 32]` cache, and the same cache as the help lays it out:
    // the shift `concat(old[1:256], new)` written into `[0, 256)` of 257 rows by one `slice_update`.
    (
        "state-blend-rmw",
        "packages/state-blend-rmw.mlpackage",
        "a shift, `concat(old[1:N], new)`, into the same constant window with one `slice_update`",
        "reference/h1-padded-by-coremltools.mlpackage",
    ),
    // Catalog 4 (`corpus/generate_catalog4_io.py`): a KV cache scattered into and returned, and
    // the same cache shifted by a concat; 3 classes into NMS, and the same detector padded to 80.
    (
        "scatter-into-cache",
        "packages/scatter-cache-io.mlpackage",
        "shift the cache with `concat(cache[:, :, 1:], k)`",
        "packages/scatter-cache-io-concat-clean.mlpackage",
    ),
    (
        "scatter-into-cache",
        "packages/scatter-cache-state.mlpackage",
        "`slice_update` at a constant window",
        "packages/scatter-cache-state-slice-update-clean.mlpackage",
    ),
    (
        "nms-class-count",
        "packages/nms-pipeline-3.mlpackage",
        "Pad the class axis to 80 with 77 zero columns and extend the labels to 80",
        "packages/nms-pipeline-padded-clean.mlpackage",
    ),
    // A description edited by hand (`corpus/generate_description_edits.py`) and the package as
    // coremltools wrote it (`ct.utils.save_multifunction` for the two functions).
    (
        "description-signature-mismatch",
        "packages/description-signature-mismatch.mlpackage",
        "re-export the model so the description and the program agree",
        "packages/description-signature-mismatch-clean.mlpackage",
    ),
    (
        "description-signature-mismatch-functions",
        "packages/description-signature-mismatch-functions.mlpackage",
        "ct.utils.save_multifunction",
        "packages/multifunction-state-full-extent-write-clean.mlpackage",
    ),
];

#[test]
fn each_help_followed_gives_a_model_the_rule_does_not_report() {
    let corpus = common::corpus();
    for (rule, reported, words, clean) in TWINS {
        let found = findings_of(&corpus.join(reported), rule);
        assert!(!found.is_empty(), "{reported}: no `{rule}` finding");
        for f in &found {
            assert_eq!(f["rule"], *rule, "{reported}: {f:#?}");
            let help = f["help"].as_str().unwrap_or_default();
            assert!(
                help.contains(words),
                "{reported}: the help says `{words}`: {help}"
            );
        }
        let after = findings_of(&corpus.join(clean), rule);
        assert!(after.is_empty(), "{clean}: {after:#?}");
    }
}

/// The state twin is clean for every state rule, not only the one whose help it follows: the
/// layout the help gives is the one that ran on the Neural Engine.
#[test]
fn the_blend_help_layout_is_clean_for_every_rule() {
    let clean = common::corpus().join("reference/h1-padded-by-coremltools.mlpackage");
    let out = Command::cargo_bin("coreml-lint")
        .unwrap()
        .args(["check", "--isolated", "--output-format", "json"])
        .arg(&clean)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["diagnostics"], Value::Array(Vec::new()), "{v:#}");
    assert_eq!(out.status.code(), Some(0));
}

/// silero-vad (an iOS15 program, FLOAT16): coremltools' casts around its 8 LSTMs are one cause,
/// one `fp32-compute` finding per function, whose help names the iOS17 target.
#[test]
fn fp32_lstm_casts_of_an_old_opset_are_one_finding_per_function() {
    let Some(shared) = common::shared() else {
        return;
    };
    let dir = shared.join("realworld/mobius-silero-vad-mlpackage");
    for package in [
        "silero-vad-unified-256ms-v6.0.0.mlpackage",
        "unified_256ms_palette_4bit.mlpackage",
    ] {
        let found = findings_of(&dir.join(package), "fp32-compute");
        assert_eq!(found.len(), 1, "{package}: {found:#?}");
        let f = &found[0];
        assert_eq!(f["function"], "main");
        assert!(
            f["message"]
                .as_str()
                .unwrap()
                .contains("ops in fp32: 32 of the 357"),
            "{f:#}"
        );
        assert!(
            f["help"].as_str().unwrap().contains("ct.target.iOS17"),
            "{f:#}"
        );
    }
}

/// `mask-nonfinite-const` explains the NaN from the mask's values: a causal mask keeps a position
/// in every row (no row is masked entirely), a single `-inf` selected where a condition says is
/// NaN only where the condition masks a whole row, and a mask with a row all `-inf` says so.
#[test]
fn the_nan_explanation_follows_the_mask_values() {
    let packages = common::corpus().join("packages");
    let message = |package: &str| -> String {
        let found = findings_of(&packages.join(package), "mask-nonfinite-const");
        assert_eq!(found.len(), 1, "{package}: {found:#?}");
        found[0]["message"].as_str().unwrap().to_string()
    };
    for causal in [
        "mask-nonfinite-const.mlpackage",
        "mask-nonfinite-const-finfo-static.mlpackage",
    ] {
        let m = message(causal);
        assert!(
            m.contains("every row of it keeps a position"),
            "{causal}: {m}"
        );
        assert!(!m.contains("masked entirely"), "{causal}: {m}");
    }
    let m = message("mask-nonfinite-const-finfo-select.mlpackage");
    assert!(
        m.contains("where the condition masks a whole row, that row is all `-inf`"),
        "{m}"
    );

    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.mil");
    let mil = |mask: &str| {
        format!(
            "program(1.3)\n{{\n    func main<ios18>(tensor<fp16, [2, 3]> scores) {{\n            tensor<fp16, [2, 3]> mask = const()[name = string(\"mask\"), val = tensor<fp16, [2, 3]>({mask})];\n            tensor<fp16, [2, 3]> s = add(x = scores, y = mask)[name = string(\"s\")];\n            int32 ax = const()[name = string(\"ax\"), val = int32(-1)];\n            tensor<fp16, [2, 3]> y = softmax(axis = ax, x = s)[name = string(\"y\")];\n        }} -> (y);\n}}\n"
        )
    };
    for (mask, entirely) in [
        ("[0, -inf, -inf, -inf, -inf, -inf]", true),
        ("[0, -inf, -inf, 0, 0, -inf]", false),
    ] {
        std::fs::write(&model, mil(mask)).unwrap();
        let found = findings_of(&model, "mask-nonfinite-const");
        let m = found[0]["message"].as_str().unwrap();
        assert_eq!(
            m.contains("a row of it is `-inf` in every position (masked entirely)"),
            entirely,
            "{mask}: {m}"
        );
    }
}
