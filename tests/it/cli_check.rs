//! `coreml-lint check` end to end: exit codes, JSON shape, selection, config, user rules, rule
//! explanations and rule tests, fixes through the CLI, and many models at once.

use crate::common;

use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value;

fn bin() -> Command {
    let mut c = Command::cargo_bin("coreml-lint").unwrap();
    c.env("NO_COLOR", "1");
    c
}

fn corpus(rel: &str) -> PathBuf {
    common::corpus().join(rel)
}

fn json(cmd: &mut Command) -> (i32, Value) {
    let out = cmd.arg("--output-format").arg("json").output().unwrap();
    let code = out.status.code().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    (code, v)
}

fn rules_of(v: &Value) -> Vec<String> {
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn exit_codes_follow_the_fail_level() {
    bin()
        .args(["check", "--output-format", "concise"])
        .arg(corpus("packages/mlp-clean.mlpackage"))
        .assert()
        .code(0);
    bin()
        .args(["check", "--output-format", "concise"])
        .arg(corpus("packages/state-full-extent-write.mlpackage"))
        .assert()
        .code(1);
    // A warning-only model passes by default and fails with --fail-on warning.
    let warn = corpus("packages/state-multiple-writes.mlpackage");
    bin()
        .args(["check", "--output-format", "concise"])
        .arg(&warn)
        .assert()
        .code(0);
    bin()
        .args([
            "check",
            "--fail-on",
            "warning",
            "--output-format",
            "concise",
        ])
        .arg(&warn)
        .assert()
        .code(1);
    bin()
        .args(["check", "--exit-zero", "--output-format", "concise"])
        .arg(corpus("packages/state-full-extent-write.mlpackage"))
        .assert()
        .code(0);
    bin().args(["check", "--no-such-flag"]).assert().code(2);
}

/// A concise line: file, line and column, message, rule.
type ConciseLine = (PathBuf, Option<(usize, usize)>, String, String);

/// `PATH[:LINE:COL]: SEVERITY: MESSAGE [rule]` lines whose PATH is a file on disk (no line and
/// column: `None`).
fn concise_lines(path: &std::path::Path) -> Vec<ConciseLine> {
    let out = bin()
        .args(["check", "--output-format", "concise"])
        .arg(path)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let re =
        regex::Regex::new(r"^(.+?)(?::(\d+):(\d+))?: (error|warning|note): (.+) \[([a-z0-9-]+)\]$")
            .unwrap();
    let lines: Vec<_> = text
        .lines()
        .filter(|l| !l.starts_with("Checked "))
        .map(|l| {
            let c = re
                .captures(l)
                .unwrap_or_else(|| panic!("not compiler-style: {l}"));
            let at = c
                .get(2)
                .zip(c.get(3))
                .map(|(l, col)| (l.as_str().parse().unwrap(), col.as_str().parse().unwrap()));
            (PathBuf::from(&c[1]), at, c[5].to_string(), c[6].to_string())
        })
        .collect();
    assert!(!lines.is_empty(), "{text}");
    lines
}

#[test]
fn concise_output_is_compiler_style_and_points_at_real_files() {
    // A compiled model: the line and column of the op in model.mil.
    let lines = concise_lines(&corpus(
        "compiled/mlmodelc-state-full-extent-write.mlmodelc",
    ));
    let (file, at, _, rule) = &lines[0];
    let (line, col) = at.expect("a text model has lines");
    assert_eq!(rule, "state-full-extent-write");
    assert!(file.ends_with("model.mil"), "{}", file.display());
    let text = std::fs::read_to_string(file).unwrap();
    let at = text.lines().nth(line - 1).unwrap();
    assert!(col >= 1 && col <= at.len(), "{at}");
    assert!(
        at.contains("write_state") || at.contains("coreml_update_state"),
        "{at}"
    );
    // A package: its binary model.mlmodel without a (fake) line, the function and op in the
    // message.
    let lines = concise_lines(&corpus("packages/state-full-extent-write.mlpackage"));
    let (file, at, message, rule) = &lines[0];
    assert_eq!(rule, "state-full-extent-write");
    assert!(file.ends_with("Data/com.apple.CoreML/model.mlmodel") && file.is_file());
    assert_eq!(*at, None);
    assert!(message.contains("(function `"), "{message}");
}

#[test]
fn json_document_has_the_documented_shape() {
    let (code, v) = json(
        bin()
            .arg("check")
            .arg(corpus("packages/state-full-extent-write.mlpackage")),
    );
    assert_eq!(code, 1);
    assert_eq!(v["version"], 1);
    let d = &v["diagnostics"][0];
    for key in [
        "rule", "severity", "path", "function", "op", "state", "message", "help", "fix",
    ] {
        assert!(d.get(key).is_some(), "missing {key}: {d}");
    }
    assert_eq!(d["rule"], "state-full-extent-write");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["function"], "main");
    assert_eq!(d["op"], "coreml_update_state_1_write_state");
    assert_eq!(d["state"], "kv_cache");
    assert_eq!(d["fix"]["kind"], "pad-state");
    assert_eq!(d["fix"]["applicability"], "safe");
    assert_eq!(v["summary"]["errors"], 1);
    assert_eq!(v["summary"]["models_checked"], 1);
}

#[test]
fn select_ignore_and_config_file() {
    let model = corpus("packages/state-blend-rmw.mlpackage");
    let (_, v) = json(bin().arg("check").arg(&model));
    assert_eq!(rules_of(&v), ["state-blend-rmw", "state-full-extent-write"]);
    let (code, v) = json(
        bin()
            .args(["check", "--ignore", "state-full-extent-write"])
            .arg(&model),
    );
    assert_eq!(
        (code, rules_of(&v)),
        (0, vec!["state-blend-rmw".to_string()])
    );
    let (_, v) = json(bin().args(["check", "--select", "gather"]).arg(&model));
    assert!(rules_of(&v).is_empty());

    let dir = tempfile::tempdir().unwrap();
    common::copy_tree(&model, &dir.path().join("m.mlpackage"));
    std::fs::write(
        dir.path().join("coreml-lint.yaml"),
        "severity:\n  state-blend-rmw: error\nignores:\n  - rule: state-full-extent-write\n    function: main\n    state: kv_cache\n",
    )
    .unwrap();
    let (code, v) = json(bin().arg("check").arg(dir.path().join("m.mlpackage")));
    assert_eq!(code, 1);
    assert_eq!(rules_of(&v), ["state-blend-rmw"]);
    assert_eq!(v["diagnostics"][0]["severity"], "error");
    std::fs::write(
        dir.path().join("coreml-lint.yaml"),
        "per-path-ignores:\n  \"*.mlpackage\": [state]\n",
    )
    .unwrap();
    let (code, v) = json(bin().arg("check").arg(dir.path().join("m.mlpackage")));
    assert_eq!((code, rules_of(&v).len()), (0, 0));
    let (_, v) = json(
        bin()
            .args(["check", "--isolated"])
            .arg(dir.path().join("m.mlpackage")),
    );
    assert_eq!(rules_of(&v).len(), 2);
    std::fs::write(dir.path().join("coreml-lint.yaml"), "selekt: [x]\n").unwrap();
    let out = bin()
        .arg("check")
        .arg(dir.path().join("m.mlpackage"))
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8_lossy(&out).contains("coreml-lint.yaml"));
}

const LSTM_RULE: &str = r#"id: no-lstm
title: LSTM op
severity: warning
category: ane-placement
description: Flags every lstm op.
why: Example user rule.
match:
  op: lstm
message: "`{OP}` is an lstm"
tests:
  invalid:
    - mil: |
        program(1.3)
        {
            func main<ios18>(tensor<fp16, [1, 4]> x) {
                    tensor<fp16, [1, 4]> y = lstm(x = x)[name = string("l")];
                } -> (y);
        }
      expect: [{ op: l }]
  valid:
    - mil: |
        program(1.3)
        {
            func main<ios18>(tensor<fp16, [1, 4]> x) {
                    tensor<fp16, [1, 4]> y = relu(x = x)[name = string("r")];
                } -> (y);
        }
"#;

/// A temporary folder holding a rule folder with [`LSTM_RULE`] and a compiled model whose one op
/// is an lstm; returns it, the rule folder and the model.
fn lstm_rule_and_model() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("my-rules");
    std::fs::create_dir_all(&rules).unwrap();
    std::fs::write(rules.join("no-lstm.yaml"), LSTM_RULE).unwrap();
    let pkg = dir.path().join("m.mlmodelc");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(
        pkg.join("model.mil"),
        // 64 wide: fp16 I/O whose last axis is a multiple of 32 (no `io-last-axis-alignment` info).
        "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1, 64]> x) {\n            tensor<fp16, [1, 64]> y = lstm(x = x)[name = string(\"l\")];\n        } -> (y);\n}",
    )
    .unwrap();
    (dir, rules, pkg)
}

#[test]
fn user_rule_from_yaml_works_end_to_end() {
    let (_dir, rules, pkg) = lstm_rule_and_model();
    let (code, v) = json(
        bin()
            .arg("check")
            .arg("--rules")
            .arg(&rules)
            .arg("--fail-on")
            .arg("warning")
            // The hand-written lstm has no weights: the op-set check reports its missing parameters.
            .arg("--ignore")
            .arg("mil")
            // The built-in GPU advisory on recurrent layers is not this test's.
            .arg("--ignore")
            .arg("gpu-rnn-abort")
            .arg(&pkg),
    );
    assert_eq!(code, 1);
    assert_eq!(rules_of(&v), ["no-lstm"]);
    assert_eq!(v["diagnostics"][0]["message"], "`l` is an lstm");
    let out = bin().arg("test-rules").arg(&rules).assert().code(0);
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(text.ends_with(" error\n"), "ends its last line: {text:?}");
    std::fs::write(
        rules.join("no-lstm.yaml"),
        LSTM_RULE.replace("match:\n  op: lstm", "match:\n  op: relu"),
    )
    .unwrap();
    bin().arg("test-rules").arg(&rules).assert().code(1);
    std::fs::write(
        rules.join("no-lstm.yaml"),
        LSTM_RULE.replace("`{OP}`", "`{NOPE}`"),
    )
    .unwrap();
    let out = bin()
        .arg("check")
        .arg("--rules")
        .arg(&rules)
        .arg(&pkg)
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8_lossy(&out).contains("no-lstm.yaml"));
}

#[test]
fn rule_folders_parses_are_cached_where_the_flags_say_and_never_stale() {
    let (dir, rules, pkg) = lstm_rule_and_model();
    let env_dir = dir.path().join("env-cache");
    let flag_dir = dir.path().join("flag-cache");
    let cache_file = |d: &std::path::Path| {
        std::fs::read_dir(d).ok().and_then(|entries| {
            entries
                .filter_map(Result::ok)
                .find(|e| e.file_name().to_string_lossy().starts_with("rule-parses-"))
                .map(|e| e.path())
        })
    };
    let messages = |extra: &[&str]| {
        let (_, v) = json(
            bin()
                .env("COREML_LINT_CACHE_DIR", &env_dir)
                .args(["check", "--isolated", "--select", "no-lstm", "--rules"])
                .arg(&rules)
                .args(extra)
                .arg(&pkg),
        );
        v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["message"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(messages(&["--no-cache"]), ["`l` is an lstm"]);
    assert!(cache_file(&env_dir).is_none(), "--no-cache wrote a cache");
    assert_eq!(messages(&[]), ["`l` is an lstm"]);
    assert!(
        cache_file(&env_dir).is_some(),
        "no cache in COREML_LINT_CACHE_DIR"
    );
    // Read from the cache: the same finding.
    assert_eq!(messages(&[]), ["`l` is an lstm"]);
    let flag = flag_dir.to_str().unwrap();
    assert_eq!(messages(&["--cache-dir", flag]), ["`l` is an lstm"]);
    assert!(cache_file(&flag_dir).is_some(), "no cache in --cache-dir");
    // An edited rule is parsed again, not read from the cache.
    std::fs::write(
        rules.join("no-lstm.yaml"),
        LSTM_RULE.replace("`{OP}` is an lstm", "`{OP}` is still an lstm"),
    )
    .unwrap();
    assert_eq!(messages(&[]), ["`l` is still an lstm"]);
    bin()
        .args(["check", "--no-cache", "--cache-dir", flag])
        .arg(&pkg)
        .assert()
        .code(2);
}

#[test]
fn rule_explanations_of_builtin_rules() {
    let rule = |arg: &str| {
        let out = bin()
            .args(["rule", arg])
            .assert()
            .code(0)
            .get_output()
            .stdout
            .clone();
        String::from_utf8_lossy(&out).into_owned()
    };
    let text = rule("state-full-extent-write");
    assert!(
        text.contains("MLComputePlan") && text.contains("E5RT"),
        "{text}"
    );
    assert!(text.contains("Severity: error    "), "{text}");
    // A rule whose severity depends on the match names both.
    let text = rule("tensor-rank");
    assert!(
        text.contains("Severity: warning (error when its `severity-when` case holds)"),
        "{text}"
    );
    let text = rule("--all");
    for id in [
        "state-full-extent-write",
        "state-blend-rmw",
        "gather-float-indices",
        "blob-bad-sentinel",
    ] {
        assert!(text.contains(id), "{id} missing from rule --all");
    }
    bin().args(["rule", "no-such-rule"]).assert().code(2);
    // A misspelt id names the closest one, as config selectors do.
    let out = bin()
        .args(["rule", "state-ful-extent-write"])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8_lossy(&out);
    assert!(
        err.contains("no rule `state-ful-extent-write`; did you mean `state-full-extent-write`?"),
        "{err}"
    );
    // The built-in rules' cases run once, in `rule_snapshots.rs`; `test-rules DIR` is tested above.
}

#[test]
fn fix_through_the_cli_pads_rechecks_and_is_idempotent() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("h1.mlpackage");
    common::copy_tree(&corpus("packages/state-full-extent-write.mlpackage"), &pkg);
    let weights = std::fs::read(pkg.join("Data/com.apple.CoreML/weights/weight.bin")).unwrap();
    let manifest = std::fs::read(pkg.join("Manifest.json")).unwrap();
    let model = std::fs::read(pkg.join("Data/com.apple.CoreML/model.mlmodel")).unwrap();

    // --diff writes nothing.
    let out = bin().args(["check", "--diff"]).arg(&pkg).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("+    func main<ios18>(tensor<fp16, [1, 64]> x, state<tensor<fp16, [2, 2, 257, 32]>> kv_cache)"));
    assert_eq!(
        std::fs::read(pkg.join("Data/com.apple.CoreML/model.mlmodel")).unwrap(),
        model
    );

    // --output writes a fixed copy and leaves the input alone.
    let out_dir = dir.path().join("fixed");
    let (code, v) = json(
        bin()
            .args(["check", "--fix", "--output"])
            .arg(&out_dir)
            .arg(&pkg),
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(
        std::fs::read(pkg.join("Data/com.apple.CoreML/model.mlmodel")).unwrap(),
        model
    );
    bin()
        .arg("check")
        .arg(out_dir.join("h1.mlpackage"))
        .assert()
        .code(0);

    // In place: fixed, weights and manifest byte-identical, a second fix changes nothing.
    bin().args(["check", "--fix"]).arg(&pkg).assert().code(0);
    let fixed = std::fs::read(pkg.join("Data/com.apple.CoreML/model.mlmodel")).unwrap();
    assert_ne!(fixed, model);
    assert_eq!(
        std::fs::read(pkg.join("Data/com.apple.CoreML/weights/weight.bin")).unwrap(),
        weights
    );
    assert_eq!(std::fs::read(pkg.join("Manifest.json")).unwrap(), manifest);
    let (code, v) = json(bin().args(["check", "--fix"]).arg(&pkg));
    assert_eq!((code, rules_of(&v).len()), (0, 0));
    assert_eq!(
        std::fs::read(pkg.join("Data/com.apple.CoreML/model.mlmodel")).unwrap(),
        fixed
    );
    let out = bin().arg("dump").arg(&pkg).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout)
        .contains("state<tensor<fp16, [2, 2, 257, 32]>> kv_cache"));
}

#[test]
fn blend_fix_is_safe_and_applied_by_fix() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("blend.mlpackage");
    common::copy_tree(&corpus("packages/state-blend-rmw.mlpackage"), &pkg);
    let before = std::fs::read(pkg.join("Data/com.apple.CoreML/model.mlmodel")).unwrap();
    // The offer says "safe, applied by --fix", and --fix applies it.
    let (_, v) = json(bin().arg("check").arg(&pkg));
    let offers: Vec<&Value> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d.get("fix").filter(|f| !f.is_null()))
        .collect();
    assert!(!offers.is_empty(), "{v}");
    assert!(offers.iter().all(|f| f["applicability"] == "safe"), "{v}");
    let (code, v) = json(bin().args(["check", "--fix"]).arg(&pkg));
    assert_eq!(code, 0);
    assert_ne!(
        std::fs::read(pkg.join("Data/com.apple.CoreML/model.mlmodel")).unwrap(),
        before
    );
    assert_eq!(
        rules_of(&v),
        ["state-blend-rmw"],
        "the padded blend still costs O(context) per token"
    );
}

/// `--unsafe-fixes` implies `--fix` (as its help and README say); with `--diff` it only shows.
#[test]
fn unsafe_fixes_implies_fix_and_diff_only_shows() {
    let dir = tempfile::tempdir().unwrap();
    let mil = dir.path().join("h1.mil");
    let text = "program(1.3)\n{\n    func main<ios18>(state<tensor<fp16, [2, 8, 4]>> s, tensor<fp16, [2, 8, 4]> u) {\n            tensor<fp16, [2, 8, 4]> old = read_state(input = s)[name = string(\"old\")];\n            tensor<fp16, [2, 8, 4]> new = add(x = old, y = u)[name = string(\"new\")];\n            write_state(data = new, input = s)[name = string(\"w\")];\n        } -> (u);\n}\n";
    std::fs::write(&mil, text).unwrap();
    bin()
        .args(["check", "--quiet", "--diff", "--unsafe-fixes"])
        .arg(&mil)
        .assert()
        .code(1);
    assert_eq!(std::fs::read_to_string(&mil).unwrap(), text, "not written");
    let help = bin().args(["check", "--help"]).assert().code(0);
    let help = String::from_utf8_lossy(&help.get_output().stdout).into_owned();
    assert!(help.contains("implies --fix"), "{help}");
    let readme = std::fs::read_to_string(common::repo().join("README.md")).unwrap();
    assert!(
        readme
            .lines()
            .any(|l| l.starts_with("coreml-lint check --unsafe-fixes")
                && l.contains("implies --fix")),
        "README's usage line says what --unsafe-fixes does"
    );
    bin()
        .args(["check", "--quiet", "--unsafe-fixes"])
        .arg(&mil)
        .assert()
        .code(0);
    assert!(std::fs::read_to_string(&mil)
        .unwrap()
        .contains("state<tensor<fp16, [2, 9, 4]>> s"));
}

#[test]
fn output_dir_is_created_for_a_text_model() {
    let dir = tempfile::tempdir().unwrap();
    let mil = dir.path().join("h1.mil");
    std::fs::write(
        &mil,
        "program(1.3)\n{\n    func main<ios18>(state<tensor<fp16, [2, 8, 4]>> s, tensor<fp16, [2, 8, 4]> u) {\n            tensor<fp16, [2, 8, 4]> old = read_state(input = s)[name = string(\"old\")];\n            tensor<fp16, [2, 8, 4]> new = add(x = old, y = u)[name = string(\"new\")];\n            write_state(data = new, input = s)[name = string(\"w\")];\n        } -> (u);\n}\n",
    )
    .unwrap();
    let out_dir = dir.path().join("not/yet/there");
    bin()
        .args(["check", "--quiet", "--fix", "--output"])
        .arg(&out_dir)
        .arg(&mil)
        .assert()
        .code(0);
    let fixed = std::fs::read_to_string(out_dir.join("h1.mil")).unwrap();
    assert!(
        fixed.contains("state<tensor<fp16, [2, 9, 4]>> s"),
        "{fixed}"
    );
}

#[test]
fn converter_made_chains_are_fixed_as_offered() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("fixed");
    // Hand-padded torch.export cache: the wrappers go, the 17 rows stay, the run-time begin is
    // still reported. The prefill/infer pair is padded in both functions.
    bin()
        .args(["check", "--quiet", "--fix", "--output"])
        .arg(&out_dir)
        .arg(corpus("torch/torch-state-export-padded.mlpackage"))
        .arg(corpus("torch/torch-state-multifunction.mlpackage"))
        .assert()
        .code(0);
    let (_, v) = json(bin().arg("check").arg(&out_dir));
    let mut rules = rules_of(&v);
    rules.sort();
    assert_eq!(rules, ["state-dynamic-begin", "state-dynamic-begin"], "{v}");
    let dump = |p: &str| {
        let out = bin().arg("dump").arg(out_dir.join(p)).output().unwrap();
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let padded = dump("torch-state-export-padded.mlpackage");
    assert!(
        padded.contains("state<tensor<fp16, [1, 2, 17, 32]>> k_cache"),
        "{padded}"
    );
    assert!(!padded.contains("slice_scatter_1_cast_fp16"), "{padded}");
    let pair = dump("torch-state-multifunction.mlpackage");
    assert_eq!(
        pair.matches("state<tensor<fp16, [1, 2, 17, 32]>> k_cache")
            .count(),
        2,
        "{pair}"
    );
}

#[test]
fn many_models_in_parallel_give_stable_output_and_one_broken_model_does_not_stop_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let sources = [
        "packages/state-full-extent-write.mlpackage",
        "packages/mlp-clean.mlpackage",
        "compiled/mlmodelc-state-full-extent-write.mlmodelc",
    ];
    for i in 0..50 {
        let src = corpus(sources[i % sources.len()]);
        let name = format!("m{i:02}.{}", src.extension().unwrap().to_string_lossy());
        common::copy_tree(&src, &dir.path().join(name));
    }
    let run = || {
        bin()
            .args(["check", "--output-format", "json"])
            .arg(dir.path())
            .output()
            .unwrap()
    };
    let a = run();
    let b = run();
    assert_eq!(a.stdout, b.stdout, "output differs between runs");
    let v: Value = serde_json::from_slice(&a.stdout).unwrap();
    assert_eq!(v["summary"]["models_checked"], 50);
    assert_eq!(
        v["summary"]["errors"], 33,
        "17 packages and 16 compiled copies with H1"
    );
    let paths: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].as_str().unwrap())
        .collect();
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(paths, sorted, "findings are not in path order");

    let broken = dir.path().join("zz-broken.mlmodelc");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("model.mil"), "program(1.3) {").unwrap();
    let (code, v) = json(bin().arg("check").arg(dir.path()));
    assert_eq!(code, 2);
    assert_eq!(v["summary"]["models_checked"], 50);
    assert_eq!(v["summary"]["models_failed"], 1);
    assert!(v["errors"][0]["path"]
        .as_str()
        .unwrap()
        .ends_with("zz-broken.mlmodelc"));
}

#[test]
fn sarif_from_the_cli_validates_and_carries_the_text_fix() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("kv.mlmodelc");
    common::copy_tree(
        &corpus("compiled/mlmodelc-state-full-extent-write.mlmodelc"),
        &pkg,
    );
    let out = bin()
        .current_dir(dir.path())
        .args(["check", "--output-format", "sarif", "kv.mlmodelc"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    if let Some(schema) = common::sarif_validator() {
        let errors: Vec<String> = schema.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "invalid SARIF: {errors:?}");
    }
    let result = doc["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "state-full-extent-write")
        .expect("H1 result");
    let loc = &result["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], "kv.mlmodelc/model.mil");
    let change = &result["fixes"][0]["artifactChanges"][0];
    let replacement = &change["replacements"][0];
    let original = std::fs::read_to_string(pkg.join("model.mil")).unwrap();
    assert_eq!(replacement["deletedRegion"]["charOffset"], 0);
    assert_eq!(
        replacement["deletedRegion"]["charLength"],
        original.encode_utf16().count()
    );
    // Applying the replacement as an editor would gives the padded program.
    let fixed = replacement["insertedContent"]["text"].as_str().unwrap();
    std::fs::write(pkg.join("model.mil"), fixed).unwrap();
    let (_, v) = json(bin().arg("check").arg(&pkg));
    assert!(
        !rules_of(&v).iter().any(|r| r == "state-full-extent-write"),
        "{v}"
    );
}

/// The lines a package's findings give (JSON `dump_line`, the human report's "line N of
/// `coreml-lint dump PATH`" and its snippet) are lines of what `coreml-lint dump PATH` prints; for a
/// pipeline, of the sub-model's program after its `// sub-model …` heading.
#[test]
fn package_lines_are_the_lines_of_coreml_lint_dump() {
    for (rel, heading) in [
        ("packages/state-full-extent-write.mlpackage", None),
        (
            "packages/pipeline-state-full-extent-write.mlpackage",
            Some("// sub-model 1 \"decode\""),
        ),
    ] {
        let pkg = corpus(rel);
        let dump = bin().arg("dump").arg(&pkg).output().unwrap();
        let dump = String::from_utf8(dump.stdout).unwrap();
        let program: Vec<&str> = match heading {
            Some(h) => dump.lines().skip_while(|l| *l != h).skip(1).collect(),
            None => dump.lines().collect(),
        };
        let (_, v) = json(bin().arg("check").arg("--isolated").arg(&pkg));
        let d = &v["diagnostics"][0];
        assert_eq!(d["rule"], "state-full-extent-write", "{rel}");
        assert!(
            d["line"].is_null() && d["column"].is_null(),
            "{rel}: binary file"
        );
        assert!(d["file"]
            .as_str()
            .is_some_and(|f| f.ends_with("Data/com.apple.CoreML/model.mlmodel")));
        let line = d["dump_line"].as_u64().unwrap() as usize;
        let column = d["dump_column"].as_u64().unwrap() as usize;
        let op = d["op"].as_str().unwrap();
        let text = program[line - 1];
        assert!(text.contains(&format!("string(\"{op}\")")), "{rel}: {text}");
        assert!(
            text[column - 1..].starts_with("write_state("),
            "{rel}: {text}"
        );

        let human = bin()
            .env("COLUMNS", "1000")
            .arg("check")
            .arg("--isolated")
            .arg(&pkg)
            .output()
            .unwrap();
        let human = String::from_utf8(human.stdout).unwrap();
        let command = format!("`coreml-lint dump {}`", pkg.display());
        let of = match heading {
            Some(_) => {
                format!("(line {line} of the program of sub-model 1 \"decode\" in {command})")
            }
            None => format!("(line {line} of {command})"),
        };
        assert!(human.contains(&of), "{rel}: {human}");
        assert!(
            human.contains(&format!("[coreml-lint dump {}", pkg.display())),
            "the snippet names the command: {human}"
        );
        assert!(!human.contains("rendered"), "{human}");
    }
}

/// What a user sees (issue 24): refused selectors, an empty folder, the statistics table, the fix
/// summary, short error codes, wrapped and clipped human output.
mod what_users_see {
    use super::*;

    fn run(cmd: &mut Command) -> (i32, String, String) {
        let out = cmd.output().unwrap();
        (
            out.status.code().unwrap(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    #[test]
    fn an_unknown_selector_is_refused_with_the_nearest_id() {
        let model = corpus("packages/state-full-extent-write.mlpackage");
        for (flag, sel, near) in [
            (
                "--select",
                "state-ful-extent-write",
                "state-full-extent-write",
            ),
            ("--ignore", "stat", "state"),
        ] {
            let (code, _, err) = run(bin().args(["check", "--isolated", flag, sel]).arg(&model));
            assert_eq!(code, 2, "{err}");
            assert!(
                err.contains(&format!("unknown rule selector `{sel}`")),
                "{err}"
            );
            assert!(err.contains(&format!("did you mean `{near}`?")), "{err}");
        }
        let (code, _, err) = run(bin()
            .args(["check", "--isolated", "--select", "state"])
            .arg(&model));
        assert_eq!(code, 1, "a prefix is a selector: {err}");
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("coreml-lint.yaml");
        std::fs::write(&config, "per-path-ignores:\n  \"**\": [blob-overlapp]\n").unwrap();
        let (code, _, err) = run(bin().arg("check").arg("--config").arg(&config).arg(&model));
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("per-path-ignores") && err.contains("`blob-overlap`"),
            "{err}"
        );
    }

    #[test]
    fn a_named_folder_without_models_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let (code, out, err) = run(bin().args(["check", "--isolated"]).arg(dir.path()));
        assert_eq!(code, 2, "{out}{err}");
        let all = format!("{out}{err}");
        assert!(
            all.contains(&format!("{}: no Core ML model", dir.path().display())),
            "{all}"
        );
        let (code, _, _) = run(bin().args(["check", "--isolated"]).current_dir(dir.path()));
        assert_eq!(
            code, 0,
            "the default walk of the current folder may find nothing"
        );
    }

    #[test]
    fn statistics_print_only_a_table_with_a_header() {
        let model = corpus("packages/state-full-extent-write.mlpackage");
        let (_, out, _) = run(bin()
            .args(["check", "--isolated", "--exit-zero", "--statistics"])
            .arg(&model));
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[0].split_whitespace().collect::<Vec<_>>(),
            ["findings", "ops", "rule", "fix", "title"],
            "{out}"
        );
        assert!(
            lines[1..]
                .iter()
                .any(|l| l.contains("state-full-extent-write")),
            "{out}"
        );
        assert!(
            !out.contains("Checked") && !out.contains("help:"),
            "only the table: {out}"
        );
    }

    #[test]
    fn a_fix_says_what_it_fixed() {
        let dir = tempfile::tempdir().unwrap();
        let model = dir.path().join("m.mlpackage");
        common::copy_tree(
            &corpus("packages/state-full-extent-write.mlpackage"),
            &model,
        );
        let (code, _, err) = run(bin().args(["check", "--isolated", "--fix"]).arg(&model));
        assert_eq!(code, 0, "{err}");
        assert!(
            err.contains("Fixed 1 finding in 1 model (state-full-extent-write: 1)"),
            "{err}"
        );
    }

    #[test]
    fn read_errors_are_headed_by_a_short_code() {
        let dir = tempfile::tempdir().unwrap();
        let mil = dir.path().join("model.mil");
        std::fs::write(&mil, "program(1.3)\n{\n  %\n}\n").unwrap();
        let (code, out, err) = run(bin().args(["check", "--isolated"]).arg(&mil));
        assert_eq!(code, 2);
        let all = format!("{out}{err}");
        assert!(!all.contains("coreml_lint::"), "{all}");
        assert!(all.lines().any(|l| l.trim() == "read"), "{all}");
    }

    #[test]
    fn human_lines_fit_the_width_and_long_mil_lines_are_clipped() {
        let dir = tempfile::tempdir().unwrap();
        let mil = dir.path().join("model.mil");
        let long = "x".repeat(600);
        std::fs::write(
            &mil,
            format!("program(1.3)\n{{\n    func main<ios18>(tensor<fp16, [1, 4]> {long}) {{\n            tensor<int32, [1]> i = const()[name = string(\"i\"), val = tensor<int32, [1]>([0])];\n            tensor<fp16, [1, 4]> g = gather(x = {long}, indices = i)[name = string(\"{long}_g\")];\n        }} -> (g);\n}}\n"),
        )
        .unwrap();
        let (_, out, _) = run(bin()
            .env_remove("COLUMNS")
            .args(["check", "--isolated", "--exit-zero"])
            .arg(&mil));
        assert!(out.contains('…'), "the long line is clipped: {out}");
        let (_, wide, _) = run(bin()
            .env("COLUMNS", "160")
            .args(["check", "--isolated", "--exit-zero"])
            .arg(&mil));
        let longest = |s: &str| s.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        assert!(
            longest(&wide) > 100 && longest(&wide) <= 160,
            "$COLUMNS sets the width: {wide}"
        );
        for line in out.lines() {
            assert!(
                line.chars().count() <= 100,
                "{} columns: {line}",
                line.chars().count()
            );
        }
    }
}
