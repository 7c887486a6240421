//! SARIF and GitHub-annotation output for real models read from disk: the SARIF validates against
//! the official 2.1.0 schema, meets GitHub code scanning's ingestion rules, points at the op's text
//! in `model.mil`, and fingerprints findings the same way wherever the model lives.

use crate::common;

use std::path::{Path, PathBuf};

use coreml_lint::check::{CheckRun, ModelOutcome, ModelResult, Skip};
use coreml_lint::discover::discover;
use coreml_lint::finding::{Applicability, Finding, FixOffer, Label, Severity};
use coreml_lint::ir::render::render_to_string;
use coreml_lint::ir::{Model, ModelKind};
use coreml_lint::read::{read_model, ReadOutcome, Stage};
use coreml_lint::report::{self, github, sarif};
use coreml_lint::rules::RuleInfo;
use serde_json::Value;

/// A compiled model whose state write covers the whole state (the one-row pad hazard).
const FULL_EXTENT_MIL: &str = r#"program(1.3)
[buildInfo = dict<string, string>({{"coremlc-version", "3520.5.1"}})]
{
    func main<ios18>(state<tensor<fp16, [1, 8, 4]>> s, tensor<fp16, [1, 8, 4]> u) {
            tensor<fp16, [1, 8, 4]> old = read_state(input = s)[name = string("old")];
            tensor<int32, [3]> b = const()[name = string("b"), val = tensor<int32, [3]>([0, 0, 0])];
            tensor<int32, [3]> e = const()[name = string("e"), val = tensor<int32, [3]>([1, 8, 4])];
            tensor<fp16, [1, 8, 4]> upd = slice_update(begin = b, end = e, update = u, x = old)[name = string("upd")];
            write_state(data = upd, input = s)[name = string("w")];
        } -> ();
}
"#;

const RULE_WRITE: &str = "state-full-extent-write";
const RULE_UPDATE: &str = "slice-update-window";
const RULE_INFO: &str = "state-info";

/// Rule metadata, deliberately out of order and with one rule that never fires.
fn rule_infos() -> Vec<RuleInfo> {
    let rule = |id: &str, sev: Severity, fix: Option<&str>| RuleInfo {
        id: id.into(),
        title: format!("title of {id}"),
        default_severity: Some(sev),
        conditional_severities: Vec::new(),
        category: "state".into(),
        description: format!("what {id} does"),
        why: "why it matters".into(),
        fix_text: "how to fix it".into(),
        example: String::new(),
        seen_on: vec!["M1, macOS 15".into()],
        references: vec!["https://example.invalid/ref".into()],
        fix: fix.map(str::to_string),
        applies_to: String::new(),
        tested_on: String::new(),
    };
    vec![
        rule(RULE_WRITE, Severity::Error, Some("pad-state")),
        rule("unused-rule", Severity::Warning, None),
        rule(RULE_UPDATE, Severity::Warning, None),
        rule(RULE_INFO, Severity::Info, None),
    ]
}

/// Hand-made findings on every `write_state` (with a fix) and `slice_update` (with a label on the
/// state read) of the model, as the rules would report them.
fn findings_for(model: &Model, message: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    for func in &model.program.functions {
        let read_span = func
            .ops()
            .find(|(_, op)| op.op_type == "read_state")
            .map(|(_, op)| op.span);
        for (_, op) in func.ops() {
            let base = Finding {
                rule: String::new(),
                severity: Severity::Error,
                path: model.path.clone(),
                sub_model: model.sub_model.clone(),
                function: Some(func.name.clone()),
                op: Some(op.display_name().to_string()),
                state: None,
                message: message.to_string(),
                help: None,
                fix: None,
                span: Some(op.span),
                labels: Vec::new(),
                order: Some(op.order),
                covered: None,
                file: None,
            };
            match op.op_type.as_str() {
                "write_state" => out.push(Finding {
                    rule: RULE_WRITE.into(),
                    state: op.arg_name("input").map(str::to_string),
                    help: Some("pad the state by one row".into()),
                    fix: Some(FixOffer {
                        kind: "pad-state".into(),
                        title: "pad the state by one row".into(),
                        applicability: Applicability::Unsafe,
                        plan: None,
                    }),
                    ..base
                }),
                "slice_update" => out.push(Finding {
                    rule: RULE_UPDATE.into(),
                    severity: Severity::Warning,
                    labels: read_span
                        .map(|span| Label {
                            span,
                            text: "state read here".into(),
                        })
                        .into_iter()
                        .collect(),
                    ..base
                }),
                "read_state" => out.push(Finding {
                    rule: RULE_INFO.into(),
                    severity: Severity::Info,
                    ..base
                }),
                _ => {}
            }
        }
    }
    out.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    out
}

/// Discovers and reads `paths` and attaches hand-made findings, as `check` would.
fn check(paths: &[PathBuf], message: &str) -> CheckRun {
    let checked = |path: &Path, model: Box<Model>| ModelResult {
        path: path.to_path_buf(),
        outcome: ModelOutcome::Checked {
            findings: findings_for(&model, message),
            model,
        },
    };
    let models = discover(paths)
        .into_iter()
        .flat_map(|d| match d.and_then(|d| read_model(&d).map(|o| (d, o))) {
            Ok((d, ReadOutcome::Model(model))) => vec![checked(&d.path, model)],
            Ok((d, ReadOutcome::Pipeline(stages))) => stages
                .into_iter()
                .map(|s| match s {
                    Stage::Program(model) => checked(&d.path, model),
                    Stage::Other {
                        sub_model,
                        what,
                        read,
                    } => ModelResult {
                        path: d.path.clone(),
                        outcome: ModelOutcome::Skipped(Skip {
                            what: format!("{sub_model}: {what}"),
                            read,
                        }),
                    },
                })
                .collect(),
            Ok((d, ReadOutcome::NotMlProgram { what, .. })) => vec![ModelResult {
                path: d.path,
                outcome: ModelOutcome::Skipped(Skip { what, read: None }),
            }],
            Err(e) => vec![ModelResult {
                path: e.path().to_path_buf(),
                outcome: ModelOutcome::Failed(e),
            }],
        })
        .collect();
    CheckRun {
        models,
        compute_units: Default::default(),
        ..CheckRun::default()
    }
}

/// Writes the full-extent-write fixture as `<dir>/<name>/model.mil`.
fn write_fixture(dir: &Path, name: &str) -> PathBuf {
    write_mil(dir, name, FULL_EXTENT_MIL)
}

fn write_mil(dir: &Path, name: &str, text: &str) -> PathBuf {
    let pkg = dir.join(name);
    std::fs::create_dir_all(&pkg).expect("temp dir is writable");
    std::fs::write(pkg.join("model.mil"), text).expect("temp dir is writable");
    pkg
}

/// Copies a committed corpus model (folder) into `dir`; `None` when the corpus lacks it.
fn copy_corpus(rel: &str, dir: &Path) -> Option<PathBuf> {
    let from = common::corpus().join(rel);
    let to = dir.join(from.file_name()?);
    from.is_dir().then(|| common::copy_tree(&from, &to))?;
    Some(to)
}

fn sarif_json(run: &CheckRun, base: &Path) -> Value {
    let text = sarif::render(run, &rule_infos(), base, &Default::default());
    serde_json::from_str(&text).expect("SARIF output is JSON")
}

fn results(doc: &Value) -> &Vec<Value> {
    doc["runs"][0]["results"]
        .as_array()
        .expect("run has results")
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).expect("ascii");
            out.push(u8::from_str_radix(hex, 16).expect("valid escape"));
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).expect("utf-8 path")
}

/// A mixed run under `tmp`: the text fixture (in folders with a space and a colon), copies of the
/// corpus's compiled and package models, and an unreadable `.mlmodelc`.
fn mixed_run(tmp: &Path) -> CheckRun {
    let text = write_fixture(&tmp.join("my models"), "kv:1.mlmodelc");
    let broken = write_mil(tmp, "broken.mlmodelc", "program(1.3) { func");
    let mut paths = vec![text, broken];
    for rel in [
        "compiled/mlmodelc-state-full-extent-write.mlmodelc",
        "packages/state-full-extent-write.mlpackage",
    ] {
        paths.extend(copy_corpus(rel, &tmp.join("corpus")));
    }
    check(&paths, "state `s` is written over its whole extent")
}

#[test]
fn sarif_validates_against_the_official_schema() {
    let Some(compiled) = common::sarif_validator() else {
        return;
    };

    let tmp = tempfile::tempdir().expect("temp dir");
    let run = mixed_run(tmp.path());
    let doc = sarif_json(&run, tmp.path());
    assert!(!results(&doc).is_empty());
    let all: Vec<String> = compiled
        .iter_errors(&doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        all.is_empty(),
        "SARIF does not validate:\n{}",
        all.join("\n")
    );

    // The validator is not vacuous: a level outside the enum and a missing message are refused.
    let mut bad = doc.clone();
    bad["runs"][0]["results"][0]["level"] = Value::from("fatal");
    assert!(!compiled.is_valid(&bad));
    let mut bad = doc.clone();
    bad["runs"][0]["results"][0]
        .as_object_mut()
        .expect("result is an object")
        .remove("message");
    assert!(!compiled.is_valid(&bad));
}

#[test]
fn sarif_meets_github_code_scanning_ingestion_rules() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = mixed_run(tmp.path());
    let base = tmp.path().to_path_buf();
    let doc = sarif_json(&run, &base);
    let run0 = &doc["runs"][0];
    assert_eq!(doc["version"], "2.1.0");
    assert_eq!(run0["tool"]["driver"]["name"], "coreml-lint");
    assert_eq!(run0["tool"]["driver"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(run0["tool"]["driver"]["informationUri"]
        .as_str()
        .is_some_and(|u| u.starts_with("https://")));

    let rules = run0["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules array");
    let ids: Vec<&str> = rules.iter().filter_map(|r| r["id"].as_str()).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(ids, sorted, "rules sorted by id, each once");
    assert_eq!(
        ids.len(),
        rule_infos().len(),
        "every rule is listed, fired or not"
    );
    let write = &rules[ids.iter().position(|i| *i == RULE_WRITE).expect("listed")];
    // A readable name, never the id itself (the SARIF multitool's SARIF1001).
    assert_eq!(write["name"], "StateFullExtentWrite");
    assert!(rules.iter().all(|r| r["name"] != r["id"]));
    assert_eq!(
        write["shortDescription"]["text"],
        format!("title of {RULE_WRITE}")
    );
    assert_eq!(
        write["fullDescription"]["text"],
        format!("what {RULE_WRITE} does")
    );
    assert_eq!(write["defaultConfiguration"]["level"], "error");
    assert!(write["help"]["text"]
        .as_str()
        .is_some_and(|h| h.contains("why it matters") && h.contains("how to fix it")));
    assert!(write["help"]["markdown"].is_string());
    assert_eq!(write["properties"]["category"], "state");
    assert_eq!(write["properties"]["seen-on"][0], "M1, macOS 15");
    assert_eq!(
        rules[ids.iter().position(|i| *i == RULE_INFO).expect("listed")]["defaultConfiguration"]
            ["level"],
        "note"
    );

    // %SRCROOT% is declared without an absolute URI so the log is the same on every machine.
    let root = &run0["originalUriBaseIds"]["%SRCROOT%"];
    assert!(root.is_object() && root.get("uri").is_none(), "{root}");

    let results = results(&doc);
    let finding_count = run.findings().count();
    assert_eq!(results.len(), finding_count);
    for r in results {
        let id = r["ruleId"].as_str().expect("ruleId");
        let index = r["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(rules[index]["id"], id, "ruleIndex points at the rule");
        assert!(["error", "warning", "note"].contains(&r["level"].as_str().expect("level")));
        assert!(r["message"]["text"].as_str().is_some_and(|t| !t.is_empty()));
        let phys = &r["locations"][0]["physicalLocation"];
        let uri = phys["artifactLocation"]["uri"].as_str().expect("uri");
        assert!(
            !uri.contains("://") && !uri.starts_with('/'),
            "relative: {uri}"
        );
        assert!(!uri.contains(".."), "inside the base: {uri}");
        assert_eq!(phys["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        assert!(
            base.join(percent_decode(uri)).is_file(),
            "{uri} names a file under the base"
        );
        if uri.ends_with("model.mil") {
            assert!(phys["region"]["startLine"].as_u64().is_some_and(|l| l >= 1));
        } else {
            // A binary model.mlmodel has no lines: the region is the whole file in bytes, at
            // line 1 (code scanning shows only line regions), the op named logically.
            let len = std::fs::metadata(base.join(percent_decode(uri)))
                .expect("file")
                .len();
            assert_eq!(
                phys["region"],
                serde_json::json!({"startLine": 1, "byteOffset": 0, "byteLength": len})
            );
            assert_eq!(r["locations"][0]["logicalLocations"][0]["kind"], "member");
        }
        assert!(r["partialFingerprints"][sarif::FINGERPRINT_KEY]
            .as_str()
            .is_some_and(|f| f.len() == 16));
        if id == RULE_WRITE {
            let fix = &r["fixes"][0];
            assert!(fix["description"]["text"]
                .as_str()
                .is_some_and(|d| d.contains("pad the state")));
            assert_eq!(fix["properties"]["applicability"], "unsafe");
            assert_eq!(fix["properties"]["kind"], "pad-state");
        } else {
            assert!(r.get("fixes").is_none());
        }
    }

    // The corpus package (read from protobuf) is among them, located on its model.mlmodel.
    assert!(results.iter().any(|r| {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            == "corpus/state-full-extent-write.mlpackage/Data/com.apple.CoreML/model.mlmodel"
            && r["locations"][0]["logicalLocations"][0]["kind"] == "member"
    }));

    // The unreadable model is a tool notification, not a result.
    let inv = &run0["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false);
    let notes = inv["toolExecutionNotifications"]
        .as_array()
        .expect("notifications");
    let failed = run
        .models
        .iter()
        .filter(|m| matches!(m.outcome, ModelOutcome::Failed(_)))
        .count();
    assert_eq!(notes.len(), failed);
    assert!(notes.iter().all(|n| n["level"] == "error"));
    assert!(notes.iter().any(
        |n| n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .is_some_and(|u| u.starts_with("broken.mlmodelc"))
    ));
}

#[test]
fn sarif_regions_point_at_the_op_in_model_mil() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = mixed_run(tmp.path());
    let base = tmp.path().to_path_buf();
    let doc = sarif_json(&run, &base);
    let mut text_results = 0;
    for r in results(&doc) {
        let phys = &r["locations"][0]["physicalLocation"];
        let uri = phys["artifactLocation"]["uri"].as_str().expect("uri");
        if !uri.ends_with("model.mil") {
            continue;
        }
        text_results += 1;
        let source = std::fs::read_to_string(base.join(percent_decode(uri))).expect("readable");
        let region = &phys["region"];
        let line_no = region["startLine"].as_u64().expect("startLine") as usize;
        assert_eq!(
            region["endLine"].as_u64(),
            Some(line_no as u64),
            "one statement, one line"
        );
        let line: Vec<u16> = source
            .lines()
            .nth(line_no - 1)
            .expect("line exists")
            .encode_utf16()
            .collect();
        let start = region["startColumn"].as_u64().expect("startColumn") as usize - 1;
        let end = region["endColumn"].as_u64().expect("endColumn") as usize - 1;
        let covered = String::from_utf16(&line[start..end]).expect("utf-16");
        // The region is the whole statement: the line without its indentation.
        let line = String::from_utf16(&line).expect("utf-16");
        assert_eq!(covered, line.trim(), "{uri}:{line_no}");
        // …and it is the statement of the op the finding names.
        let op = r["locations"][0]["logicalLocations"][0]["name"]
            .as_str()
            .expect("op named");
        assert!(
            covered.contains(&format!("[name = string(\"{op}\")]")),
            "{covered} is op {op}"
        );
        // Labels become related locations on their own lines.
        if let Some(related) = r["relatedLocations"].as_array() {
            let rl = related[0]["physicalLocation"]["region"]["startLine"]
                .as_u64()
                .expect("startLine") as usize;
            assert!(source
                .lines()
                .nth(rl - 1)
                .is_some_and(|l| l.contains("read_state(")));
        }
    }
    assert!(text_results >= 3, "fixture results checked: {text_results}");
}

/// The fixture's program as a `.mlpackage` would present it: the source is rendered text and
/// findings point at `Data/com.apple.CoreML/model.mlmodel`.
fn as_package(run: &mut CheckRun, dir: &Path) {
    for m in &mut run.models {
        let ModelOutcome::Checked { model, findings } = &mut m.outcome else {
            continue;
        };
        let pkg = dir.join("kv.mlpackage");
        let file = pkg.join("Data/com.apple.CoreML/model.mlmodel");
        std::fs::create_dir_all(file.parent().expect("has a parent")).expect("writable");
        std::fs::write(&file, b"\x08\x09").expect("writable");
        model.kind = ModelKind::MlPackage;
        model.path = pkg.clone();
        model.source.is_file = false;
        model.source.file = file;
        model.source.text = render_to_string(&model.program).into();
        for f in findings {
            f.path = pkg.clone();
        }
        m.path = pkg;
    }
}

#[test]
fn sarif_package_results_name_the_op_logically() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut run = check(&[write_fixture(tmp.path(), "kv.mlmodelc")], "m");
    as_package(&mut run, tmp.path());
    let doc = sarif_json(&run, tmp.path());
    let results = results(&doc);
    assert_eq!(results.len(), 3);
    let mut ops = Vec::new();
    for r in results {
        let loc = &r["locations"][0];
        let phys = &loc["physicalLocation"];
        assert_eq!(
            phys["artifactLocation"]["uri"],
            "kv.mlpackage/Data/com.apple.CoreML/model.mlmodel"
        );
        assert_eq!(
            phys["region"],
            serde_json::json!({"startLine": 1, "byteOffset": 0, "byteLength": 2}),
            "no lines in a binary file: all of its bytes, at line 1 for code scanning"
        );
        let logical = loc["logicalLocations"].as_array().expect("logical");
        assert_eq!(logical[0]["kind"], "member");
        assert_eq!(logical[1]["kind"], "function");
        let func = logical[1]["fullyQualifiedName"].as_str().expect("function");
        let op = logical[0]["name"].as_str().expect("op");
        assert_eq!(logical[0]["fullyQualifiedName"], format!("{func}/{op}"));
        assert_eq!(func, "main");
        ops.push(op.to_string());
        assert!(
            r.get("relatedLocations").is_none(),
            "no lines in a protobuf"
        );
    }
    assert_eq!(ops, ["old", "upd", "w"]);

    let github = github::render(&run, tmp.path());
    let last = github.lines().last().expect("annotations");
    assert_eq!(
        last,
        "::error file=kv.mlpackage/Data/com.apple.CoreML/model.mlmodel,\
         title=coreml-lint (state-full-extent-write)::m [main/w]%0Apad the state by one row"
    );

    if let Some(schema) = common::sarif_validator() {
        assert!(schema.is_valid(&doc));
    }
}

fn fingerprints(doc: &Value) -> Vec<(String, String)> {
    results(doc)
        .iter()
        .map(|r| {
            (
                r["ruleId"].as_str().unwrap_or_default().to_string(),
                r["partialFingerprints"][sarif::FINGERPRINT_KEY]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            )
        })
        .collect()
}

#[test]
fn sarif_is_deterministic_and_fingerprints_do_not_depend_on_the_folder() {
    let a = tempfile::tempdir().expect("temp dir");
    let b = tempfile::tempdir().expect("temp dir");
    let in_a = write_fixture(a.path(), "kv.mlmodelc");
    // Elsewhere, and with the ops two lines further down.
    let shifted = FULL_EXTENT_MIL.replacen(" {\n", " {\n\n\n", 2);
    assert_ne!(shifted, FULL_EXTENT_MIL);
    let in_b = write_mil(&b.path().join("deeper/still"), "kv.mlmodelc", &shifted);

    let first = sarif::render(
        &check(std::slice::from_ref(&in_a), "m"),
        &rule_infos(),
        a.path(),
        &Default::default(),
    );
    let second = sarif::render(
        &check(&[in_a], "m"),
        &rule_infos(),
        a.path(),
        &Default::default(),
    );
    assert_eq!(first, second, "two runs give byte-identical SARIF");

    let doc_a: Value = serde_json::from_str(&first).expect("JSON");
    let doc_b = sarif_json(&check(&[in_b], "m"), b.path());
    let line = |doc: &Value| {
        results(doc)[0]["locations"][0]["physicalLocation"]["region"]["startLine"].clone()
    };
    assert_ne!(line(&doc_a), line(&doc_b), "the ops moved");
    let fa = fingerprints(&doc_a);
    assert_eq!(fa.len(), 3);
    assert_eq!(fa, fingerprints(&doc_b));
    let mut distinct: Vec<&String> = fa.iter().map(|(_, f)| f).collect();
    distinct.sort();
    distinct.dedup();
    assert_eq!(
        distinct.len(),
        3,
        "different findings, different fingerprints"
    );
}

#[test]
fn github_annotations_are_escaped_and_located() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let pkg = write_fixture(tmp.path(), "a,b:c.mlmodelc");
    let broken = tmp.path().join("broken.mil");
    std::fs::write(&broken, "program(1.3) {").expect("writable");
    let run = check(&[pkg, broken], "100% full\nrow: a, b");
    let out = github::render(&run, tmp.path());
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "three findings and one read error:\n{out}");

    // Every finding line is a well-formed workflow command on a single line.
    let source = FULL_EXTENT_MIL;
    for (line, cmd, op) in [
        (lines[0], "notice", "old"),
        (lines[1], "warning", "upd"),
        (lines[2], "error", "w"),
    ] {
        let rest = line
            .strip_prefix(&format!("::{cmd} "))
            .unwrap_or_else(|| panic!("{line} starts with ::{cmd}"));
        let (props, message) = rest.split_once("::").expect("properties::message");
        // A line break inside the message is shown escaped (it may come from a model's name);
        // the one between message and help is GitHub's `%0A`.
        let expected = if cmd == "error" {
            "100%25 full\\nrow: a, b%0Apad the state by one row"
        } else {
            "100%25 full\\nrow: a, b"
        };
        assert_eq!(message, expected);
        let props: Vec<(&str, &str)> = props
            .split(',')
            .map(|kv| kv.split_once('=').expect("key=value"))
            .collect();
        let get = |k: &str| props.iter().find(|(key, _)| *key == k).map(|(_, v)| *v);
        assert_eq!(get("file"), Some("a%2Cb%3Ac.mlmodelc/model.mil"));
        let line_no: usize = get("line").expect("line").parse().expect("number");
        let col: usize = get("col").expect("col").parse().expect("number");
        let end_col: usize = get("endColumn")
            .expect("endColumn")
            .parse()
            .expect("number");
        assert_eq!(get("endLine"), Some(line_no.to_string().as_str()));
        let text = source.lines().nth(line_no - 1).expect("line");
        let covered = text.get(col - 1..end_col - 1).expect("in the line");
        assert_eq!(covered, text.trim());
        assert!(covered.contains(&format!("string(\"{op}\")")));
        let rule = match cmd {
            "notice" => RULE_INFO,
            "warning" => RULE_UPDATE,
            _ => RULE_WRITE,
        };
        assert_eq!(get("title"), Some(format!("coreml-lint ({rule})").as_str()));
    }
    assert!(
        lines[3].starts_with("::error file=broken.mil,"),
        "read error names the file: {}",
        lines[3]
    );
}

/// A text model whose line 6 uses a value it never defines.
const UNDEFINED_ON_LINE_6: &str = r#"program(1.3)
[buildInfo = dict<string, string>({{"coremlc-version", "3520.5.1"}})]
{
    func main<ios18>(tensor<fp16, [1, 4]> x) {
            tensor<fp16, [1, 4]> y = relu(x = x)[name = string("y")];
            tensor<fp16, [1, 4]> z = relu(x = q)[name = string("z")];
        } -> (z);
}
"#;

#[test]
fn read_errors_are_located_at_their_line_and_column_in_every_format() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let model = write_mil(tmp.path(), "bad.mlmodelc", UNDEFINED_ON_LINE_6);
    let run = check(std::slice::from_ref(&model), "m");
    let (line, col) = (6, 13);
    assert!(
        UNDEFINED_ON_LINE_6.lines().nth(line - 1).expect("line 6")[col - 1..]
            .starts_with("tensor<fp16, [1, 4]> z = relu(x = q)")
    );
    let file = "bad.mlmodelc/model.mil";

    let concise = report::concise::render(&run);
    let first = concise.lines().next().expect("a line");
    let rest = first
        .strip_prefix(&format!(
            "{}:{line}:{col}: error: ",
            model.join("model.mil").display()
        ))
        .unwrap_or_else(|| panic!("at the real position: {first}"));
    assert!(rest.contains("`q`") && rest.ends_with("[read]"), "{first}");
    assert!(
        !rest.contains(":6:13"),
        "the position is not repeated: {first}"
    );

    let github = github::render(&run, tmp.path());
    assert!(
        github.starts_with(&format!("::error file={file},line={line},col={col},title=")),
        "{github}"
    );

    let doc = sarif_json(&run, tmp.path());
    let note = &doc["runs"][0]["invocations"][0]["toolExecutionNotifications"][0];
    let phys = &note["locations"][0]["physicalLocation"];
    assert_eq!(phys["artifactLocation"]["uri"], file);
    assert_eq!(phys["region"]["startLine"], line);
    assert_eq!(phys["region"]["startColumn"], col);
    if let Some(schema) = common::sarif_validator() {
        assert!(schema.is_valid(&doc));
    }

    let json: Value = serde_json::from_str(&report::json::render(&run)).expect("JSON");
    let error = &json["errors"][0];
    assert_eq!(
        (&error["line"], &error["column"]),
        (&line.into(), &col.into())
    );
    assert!(error["file"].as_str().is_some_and(|f| f.ends_with(file)));
}

#[test]
fn text_findings_have_real_lines_and_package_findings_none_in_concise_and_json() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let text = check(&[write_fixture(tmp.path(), "kv.mlmodelc")], "m");
    let mut package = check(&[write_fixture(tmp.path(), "kv.mlmodelc")], "m");
    as_package(&mut package, tmp.path());

    // Text: `model.mil:LINE:COL` in concise, the same line and column in JSON, no dump line.
    let concise = report::concise::render(&text);
    let json: Value = serde_json::from_str(&report::json::render(&text)).expect("JSON");
    let diagnostics = json["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(diagnostics.len(), 3);
    for (d, line) in diagnostics.iter().zip(concise.lines()) {
        let file = d["file"].as_str().expect("file");
        assert!(file.ends_with("kv.mlmodelc/model.mil"), "{file}");
        let (l, c) = (
            d["line"].as_u64().expect("line"),
            d["column"].as_u64().expect("column"),
        );
        assert!(line.starts_with(&format!("{file}:{l}:{c}: ")), "{line}");
        let op = d["op"].as_str().expect("op");
        let source = FULL_EXTENT_MIL.lines().nth(l as usize - 1).expect("line");
        assert!(source.contains(&format!("string(\"{op}\")")), "{source}");
        assert_eq!(source.len() - source.trim_start().len() + 1, c as usize);
        assert!(d["dump_line"].is_null() && d["dump_column"].is_null());
    }

    // Package: the binary file alone (no fake `:1:1`), the op in the message; JSON gives the
    // line of `coreml-lint dump` instead, which is the rendered text.
    let concise = report::concise::render(&package);
    let json: Value = serde_json::from_str(&report::json::render(&package)).expect("JSON");
    let ModelOutcome::Checked { model, .. } = &package.models[0].outcome else {
        panic!("checked");
    };
    let dump = render_to_string(&model.program);
    for (d, line) in json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .zip(concise.lines())
    {
        let file = d["file"].as_str().expect("file");
        assert!(file.ends_with("kv.mlpackage/Data/com.apple.CoreML/model.mlmodel"));
        let op = d["op"].as_str().expect("op");
        let expected = format!("{file}: ");
        assert!(line.starts_with(&expected), "{line}");
        assert!(
            line.contains(&format!("(function `main`, op `{op}`)")),
            "{line}"
        );
        assert!(d["line"].is_null() && d["column"].is_null());
        let dump_line = d["dump_line"].as_u64().expect("dump_line") as usize;
        let dump_column = d["dump_column"].as_u64().expect("dump_column") as usize;
        let text = dump.lines().nth(dump_line - 1).expect("in the dump");
        assert!(text.contains(&format!("string(\"{op}\")")), "{text}");
        assert_eq!(text.len() - text.trim_start().len() + 1, dump_column);
    }
}

/// Every SARIF location has a region (SARIF2017): a finding about a whole file, such as a Git LFS
/// pointer in place of a compiled model's `metadata.json`, is at that file, all of its bytes.
#[test]
fn every_sarif_physical_location_has_a_region() {
    let model = common::corpus().join("bundles/bundle-lfs-pointer-metadata.mlmodelc");
    let out = assert_cmd::Command::cargo_bin("coreml-lint")
        .unwrap()
        .args(["check", "--isolated", "--output-format", "sarif"])
        .arg(&model)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = v["runs"][0]["results"].as_array().unwrap();
    assert!(!results.is_empty(), "{v}");
    for r in results {
        for l in r["locations"].as_array().unwrap() {
            let region = &l["physicalLocation"]["region"];
            assert!(region.is_object(), "no region in {r}");
            if r["ruleId"] == "bundle-lfs-pointer" {
                let uri = l["physicalLocation"]["artifactLocation"]["uri"]
                    .as_str()
                    .unwrap();
                assert!(uri.ends_with(".mlmodelc/metadata.json"), "{r}");
                assert_eq!(region["startLine"], 1, "{r}");
                assert_eq!(region["byteOffset"], 0, "{r}");
                assert!(region["byteLength"].as_i64().unwrap() > 0, "{r}");
            }
        }
    }
}
