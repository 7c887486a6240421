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

/// (rule, the model it reports, words of its help, the twin converted as the help says).
const TWINS: &[(&str, &str, &str, &str)] = &[
    (
        "fp32-compute",
        "torch-help-fp32-lstm-ios16",
        "minimum_deployment_target=ct.target.iOS17",
        "torch-help-fp32-lstm-ios17-clean",
    ),
    (
        "tensor-dim-limit",
        "torch-help-logits-linear",
        "1×1 `Conv2d`",
        "torch-help-logits-conv-clean",
    ),
];

#[test]
fn each_help_followed_gives_a_model_the_rule_does_not_report() {
    let packages = common::corpus().join("packages");
    for (rule, reported, words, clean) in TWINS {
        let found = findings_of(&packages.join(format!("{reported}.mlpackage")), rule);
        assert_eq!(
            found.len(),
            1,
            "{reported}: one `{rule}` finding: {found:#?}"
        );
        let help = found[0]["help"].as_str().unwrap_or_default();
        assert!(
            help.contains(words),
            "{reported}: the help says `{words}`: {help}"
        );
        let after = findings_of(&packages.join(format!("{clean}.mlpackage")), rule);
        assert!(after.is_empty(), "{clean}: {after:#?}");
    }
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
