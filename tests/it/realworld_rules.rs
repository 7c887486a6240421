//! False-positive check of every node rule and the description facts on the real-world models in
//! `../shared/realworld` (written by Apple's tools and coremltools; none has a state or several
//! functions). The state, gather and description rules give nothing. The ANE-readiness rules give
//! exactly the findings pinned below, each checked by hand to be a true statement about the model.
//! fp32-compute, tensor-dim-limit and tensor-rank report each connected region once, at its origin
//! (`origin:`; fp32-compute's regions of a function are one finding); `origin_findings.rs` checks
//! that the regions cover every op reported before.
//! - `fp32-compute`: whole-fp32 programs (ironmill MNIST; the parakeet preprocessor: a length
//!   computation and the feature path, one finding) and the fp32 LSTM islands coremltools keeps in
//!   the iOS15 fp16 silero-vad models (one finding per function for the 8 `lstm`s and their casts,
//!   with the iOS17 help).
//! - `tensor-dim-limit`: htdemucs' 343980-sample audio path (one region of 216 ops), WhisperKit's
//!   480000-sample mel input and the 51865/51866-wide logits (not the prefill model's 122880-long
//!   rows gathered from its constant KV table by run-time ids: an embedding lookup, on the CPU).
//! - `tensor-rank`: the rank-5 reshapes / transposes of htdemucs: PyTorch's MultiheadAttention
//!   in-projection (`expand_dims` to rank 5, `transpose`), the same construct in 10 layers, is one
//!   finding (`region: construct`); the rank-5 `view_109` region is the other.
//! - `conv-kernel-width`: the STFT front ends as convs (WhisperKit's and the parakeet
//!   preprocessor's 400- and 512-wide windows, silero-vad's 256-wide basis: one finding per weight,
//!   the 8 chunk convs that share it named in it).
//! - `flexible-input-shape`: the RangeDim inputs of the parakeet preprocessor (audio 1…32000) and
//!   FluidAudio's TransposeEncoder (1…2048 on two axes).
//! - `gpu-rnn-abort` (info): the `lstm` layers of silero-vad (8 in a function, one finding at the
//!   first) and of the parakeet decoder.
//! - `gpu-unfused-attention` (info): WhisperKit's hand-written attention (`matmul(transpose_x)` →
//!   softmax → `matmul(transpose_y)`), once per deep function: large-v3's encoder (32 sites, 1645
//!   ops) and decoder (64, 2960 ops), tiny's decoder (8, 283 ops).
//! - `io-last-axis-alignment` (info): fp16 inputs and outputs whose last axis is not a multiple of
//!   32 (e.g. WhisperKit's 3000-wide mel features).
//!
//! The `blob-*` rules are checked on these models in `blob_realworld.rs`.

use crate::common;

use std::collections::BTreeMap;

use coreml_lint::analysis::description::description_entities;
use coreml_lint::analysis::description_features::description_feature_entities;
use coreml_lint::finding::Severity;
use coreml_lint::ir::{DType, FeatureKind};
use coreml_lint::rules::{match_model, RuleSet};

/// (rule, model path under `realworld/`, severity, count).
const PINNED: &[(&str, &str, &str, usize)] = &[
    // The iOS17 int8 silero-vad builds: signed-int8 constexpr_affine_dequantize weights (C4, an
    // info of weak evidence), once per function; the weights are too large to read for the -128 test.
    (
        "affine-dequantize-int8",
        "mobius-silero-vad-compiled/unified_256ms_int8.mlmodelc",
        "info",
        1,
    ),
    (
        "affine-dequantize-int8",
        "mobius-silero-vad-compiled/unified_256ms_pruned_int8.mlmodelc",
        "info",
        1,
    ),
    (
        "conv-kernel-width",
        "fluidaudio-parakeet-eou-1280ms/parakeet_eou_preprocessor.mlmodelc",
        "warning",
        2,
    ),
    (
        "conv-kernel-width",
        "mobius-silero-vad-compiled/silero-vad-unified-256ms-v6.0.0.mlmodelc",
        "warning",
        1,
    ),
    (
        "conv-kernel-width",
        "mobius-silero-vad-compiled/unified_256ms_int8.mlmodelc",
        "warning",
        1,
    ),
    (
        "conv-kernel-width",
        "mobius-silero-vad-compiled/unified_256ms_palette_4bit.mlmodelc",
        "warning",
        1,
    ),
    (
        "conv-kernel-width",
        "mobius-silero-vad-compiled/unified_256ms_pruned_int8.mlmodelc",
        "warning",
        1,
    ),
    (
        "conv-kernel-width",
        "mobius-silero-vad-compiled/unified_palette_2bit.mlmodelc",
        "warning",
        1,
    ),
    (
        "conv-kernel-width",
        "mobius-silero-vad-mlpackage/silero-vad-unified-256ms-v6.0.0.mlpackage",
        "warning",
        1,
    ),
    (
        "conv-kernel-width",
        "mobius-silero-vad-mlpackage/unified_256ms_palette_4bit.mlpackage",
        "warning",
        1,
    ),
    (
        "conv-kernel-width",
        "whisperkit-large-v3-947MB-palettized/MelSpectrogram.mlmodelc",
        "warning",
        2,
    ),
    (
        "conv-kernel-width",
        "whisperkit-tiny/MelSpectrogram.mlmodelc",
        "warning",
        2,
    ),
    (
        "flexible-input-shape",
        "fluidaudio-optimization-models/TransposeEncoder.mlmodelc",
        "warning",
        1,
    ),
    (
        "description-output-no-shape",
        "ironmill-mnist-coremlc-compiled/base.mlmodelc",
        "warning",
        1,
    ),
    (
        "flexible-input-shape",
        "fluidaudio-parakeet-eou-1280ms/parakeet_eou_preprocessor.mlmodelc",
        "warning",
        1,
    ),
    (
        "fp32-compute",
        "fluidaudio-parakeet-eou-1280ms/parakeet_eou_preprocessor.mlmodelc",
        "warning",
        1,
    ),
    (
        "fp32-compute",
        "ironmill-mnist-coremlc-compiled/base.mlmodelc",
        "warning",
        1,
    ),
    (
        "fp32-compute",
        "mobius-silero-vad-compiled/silero-vad-unified-256ms-v6.0.0.mlmodelc",
        "warning",
        1,
    ),
    (
        "fp32-compute",
        "mobius-silero-vad-compiled/unified_256ms_int8.mlmodelc",
        "warning",
        1,
    ),
    (
        "fp32-compute",
        "mobius-silero-vad-compiled/unified_256ms_palette_4bit.mlmodelc",
        "warning",
        1,
    ),
    (
        "fp32-compute",
        "mobius-silero-vad-compiled/unified_256ms_pruned_int8.mlmodelc",
        "warning",
        1,
    ),
    (
        "fp32-compute",
        "mobius-silero-vad-compiled/unified_palette_2bit.mlmodelc",
        "warning",
        1,
    ),
    (
        "fp32-compute",
        "mobius-silero-vad-mlpackage/silero-vad-unified-256ms-v6.0.0.mlpackage",
        "warning",
        1,
    ),
    (
        "fp32-compute",
        "mobius-silero-vad-mlpackage/unified_256ms_palette_4bit.mlpackage",
        "warning",
        1,
    ),
    (
        "gpu-rnn-abort",
        "fluidaudio-parakeet-eou-1280ms/decoder.mlmodelc",
        "info",
        1,
    ),
    (
        "gpu-rnn-abort",
        "mobius-silero-vad-compiled/silero-vad-unified-256ms-v6.0.0.mlmodelc",
        "info",
        1,
    ),
    (
        "gpu-rnn-abort",
        "mobius-silero-vad-compiled/unified_256ms_int8.mlmodelc",
        "info",
        1,
    ),
    (
        "gpu-rnn-abort",
        "mobius-silero-vad-compiled/unified_256ms_palette_4bit.mlmodelc",
        "info",
        1,
    ),
    (
        "gpu-rnn-abort",
        "mobius-silero-vad-compiled/unified_256ms_pruned_int8.mlmodelc",
        "info",
        1,
    ),
    (
        "gpu-rnn-abort",
        "mobius-silero-vad-compiled/unified_palette_2bit.mlmodelc",
        "info",
        1,
    ),
    (
        "gpu-rnn-abort",
        "mobius-silero-vad-mlpackage/silero-vad-unified-256ms-v6.0.0.mlpackage",
        "info",
        1,
    ),
    (
        "gpu-rnn-abort",
        "mobius-silero-vad-mlpackage/unified_256ms_palette_4bit.mlpackage",
        "info",
        1,
    ),
    (
        "gpu-unfused-attention",
        "whisperkit-large-v3-947MB-palettized/AudioEncoder.mlmodelc",
        "info",
        1,
    ),
    (
        "gpu-unfused-attention",
        "whisperkit-large-v3-947MB-palettized/TextDecoder.mlmodelc",
        "info",
        1,
    ),
    (
        "gpu-unfused-attention",
        "whisperkit-tiny/TextDecoder.mlmodelc",
        "info",
        1,
    ),
    (
        "io-last-axis-alignment",
        "coremltools-modelrunner-add-model/add_model.mlmodelc",
        "info",
        3,
    ),
    (
        "io-last-axis-alignment",
        "fluidaudio-optimization-models/Argmax.mlmodelc",
        "info",
        2,
    ),
    (
        "io-last-axis-alignment",
        "fluidaudio-optimization-models/TokenDurationPrediction.mlmodelc",
        "info",
        2,
    ),
    (
        "io-last-axis-alignment",
        "htdemucs-6s-mlpackage-ios18/htdemucs_6s.mlpackage",
        "info",
        2,
    ),
    (
        "io-last-axis-alignment",
        "whisperkit-large-v3-947MB-palettized/AudioEncoder.mlmodelc",
        "info",
        2,
    ),
    (
        "io-last-axis-alignment",
        "whisperkit-large-v3-947MB-palettized/MelSpectrogram.mlmodelc",
        "info",
        1,
    ),
    (
        "io-last-axis-alignment",
        "whisperkit-large-v3-947MB-palettized/TextDecoder.mlmodelc",
        "info",
        5,
    ),
    (
        "io-last-axis-alignment",
        "whisperkit-large-v3-turbo-prefill/TextDecoderContextPrefill.mlmodelc",
        "info",
        2,
    ),
    (
        "io-last-axis-alignment",
        "whisperkit-tiny/AudioEncoder.mlmodelc",
        "info",
        2,
    ),
    (
        "io-last-axis-alignment",
        "whisperkit-tiny/MelSpectrogram.mlmodelc",
        "info",
        1,
    ),
    (
        "io-last-axis-alignment",
        "whisperkit-tiny/TextDecoder.mlmodelc",
        "info",
        5,
    ),
    (
        "tensor-dim-limit",
        "htdemucs-6s-mlpackage-ios18/htdemucs_6s.mlpackage",
        "warning",
        1,
    ),
    (
        "tensor-dim-limit",
        "whisperkit-large-v3-947MB-palettized/MelSpectrogram.mlmodelc",
        "warning",
        1,
    ),
    (
        "tensor-dim-limit",
        "whisperkit-large-v3-947MB-palettized/TextDecoder.mlmodelc",
        "warning",
        1,
    ),
    (
        "tensor-dim-limit",
        "whisperkit-tiny/MelSpectrogram.mlmodelc",
        "warning",
        1,
    ),
    (
        "tensor-dim-limit",
        "whisperkit-tiny/TextDecoder.mlmodelc",
        "warning",
        1,
    ),
    (
        "tensor-rank",
        "htdemucs-6s-mlpackage-ios18/htdemucs_6s.mlpackage",
        "warning",
        2,
    ),
];

type Key = (String, String, String);

#[test]
fn realworld_findings_are_exactly_the_pinned_ones() {
    let Some(shared) = common::shared() else {
        eprintln!("../shared not present: skipped");
        return;
    };
    let root = shared.join("realworld");
    let rules = RuleSet::builtin().expect("built-ins load");
    let mut checked = 0;
    let mut got: BTreeMap<Key, usize> = BTreeMap::new();
    for model in common::once::models_under(&root) {
        checked += 1;
        let rel = model
            .path
            .strip_prefix(&root)
            .unwrap_or(&model.path)
            .display()
            .to_string();
        for f in match_model(model, &rules, &description_facts_of(model)) {
            let sev = match f.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "info",
            };
            *got.entry((f.rule, rel.clone(), sev.to_string()))
                .or_default() += 1;
        }
    }
    println!("checked {checked} real-world models");
    assert!(checked >= 20, "the real-world models read");
    let want: BTreeMap<Key, usize> = PINNED
        .iter()
        .map(|(r, p, s, n)| ((r.to_string(), p.to_string(), s.to_string()), *n))
        .collect();
    for (k, n) in &got {
        println!("{n:>4} {} {} {}", k.0, k.1, k.2);
    }
    assert_eq!(got, want);
}

/// The description entities of `model`: its functions, states and features as the description and
/// the program give them.
fn description_facts_of(
    model: &coreml_lint::ir::Model,
) -> coreml_lint::analysis::registry::ModelEntities {
    let mut entities = description_entities(model);
    entities.extend(description_feature_entities(model));
    coreml_lint::analysis::registry::ModelEntities { entities }
}

/// The findings of the rules comparing the description with the program in `model`.
fn description_facts(model: &coreml_lint::ir::Model) -> Vec<coreml_lint::finding::Finding> {
    let mut rules = RuleSet::builtin().expect("built-ins load");
    rules.retain(|r| {
        r.id.starts_with("description-signature-mismatch") || r.id == "state-shape-mismatch"
    });
    match_model(model, &rules, &description_facts_of(model))
}

/// The description check is live on real models: each agrees with its program (above), and the
/// same model with one input's element type changed in the description gives a mismatch.
#[test]
fn description_check_reads_realworld_descriptions() {
    let Some(shared) = common::shared() else {
        eprintln!("../shared not present: skipped");
        return;
    };
    let mut compared = 0;
    for model in common::once::models_under(&shared.join("realworld")) {
        let mut model = model.clone();
        assert!(
            description_facts(&model).is_empty(),
            "{}",
            model.path.display()
        );
        let desc = &mut model.description;
        let target = if desc.functions.is_empty() {
            &mut desc.top
        } else {
            &mut desc.functions[0]
        };
        let Some(FeatureKind::Array { dtype, .. }) = target.inputs.first_mut().map(|f| &mut f.kind)
        else {
            continue;
        };
        *dtype = Some(if *dtype == Some(DType::Int8) {
            DType::Fp64
        } else {
            DType::Int8
        });
        compared += 1;
        assert_eq!(
            description_facts(&model).len(),
            1,
            "{}: an edited description must mismatch",
            model.path.display()
        );
    }
    println!("edited {compared} real-world descriptions");
    assert!(
        compared >= 15,
        "most real-world models describe an array input"
    );
}

/// coremltools' image preprocessing (the `image__scaled__` mul on the image input, in fp32, then
/// the cast to fp16) is in every coremltools image model and is not fp32 compute to report.
#[test]
fn image_preprocessing_of_the_yolo_pipeline_is_not_fp32_compute() {
    use coreml_lint::check::{check, CheckOptions, ConfigFile};
    let Some(shared) = common::shared() else {
        eprintln!("../shared not present: skipped");
        return;
    };
    let yolo = shared.join("realworld/ultralytics-yolov8n-nms-pipeline/yolov8n.mlpackage");
    let options = CheckOptions {
        config: ConfigFile::Isolated,
        keep: coreml_lint::check::Keep::Programs,
        ..CheckOptions::default()
    };
    let outcome = check(&[yolo], &options).expect("check runs");
    let mut scaled = 0;
    for (model, findings) in outcome.run.checked() {
        for f in &model.program.functions {
            scaled += f
                .ops()
                .filter(|(_, op)| op.name.as_deref() == Some("image__scaled__"))
                .count();
        }
        let fp32: Vec<_> = findings
            .iter()
            .filter(|f| f.rule == "fp32-compute")
            .collect();
        assert!(fp32.is_empty(), "{fp32:#?}");
    }
    assert_eq!(scaled, 1, "the detector sub-model scales its image input");
}
