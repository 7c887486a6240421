//! Catalog 4's G2 (`inline-weights`), G3 (`nms-class-count`, `nms-stage-inputs`) and G5
//! (`scatter-into-cache`) end to end through the CLI, on the converter-made fixtures of
//! `corpus/generate_catalog4_io.py`: each reported once on its fixture and never on its twins, in
//! every output format, within its compute units; `check --fix` on the inline-weight packages
//! leaves no finding, and every moved tensor is the same bytes in `weights/weight.bin` as it was
//! inline (read from the protobuf and the weight file directly); a package without a weight file
//! gets one, and the `weights` item in its Manifest, and a second `--fix` changes nothing; a
//! pipeline's NMS stage is read,
//! in a package and compiled, and bad NMS stages are findings, not failures.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use coreml_lint::read::proto::{
    self, immediate_value, model::Type, tensor_value, value, BlobFileValue,
};
use prost::Message;

fn bin() -> Command {
    Command::cargo_bin("coreml-lint").expect("binary built")
}

fn package(name: &str) -> PathBuf {
    common::corpus().join("packages").join(name)
}

/// Runs `check ARGS PATH`: (exit code, stdout).
fn check(args: &[&str], path: &Path) -> (Option<i32>, String) {
    let out = bin()
        .args(["check", "--isolated"])
        .args(args)
        .arg(path)
        .output()
        .expect("runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The JSON findings of a check of `path` with `args`.
fn diagnostics(args: &[&str], path: &Path) -> Vec<serde_json::Value> {
    let mut all = vec!["--output-format", "json"];
    all.extend_from_slice(args);
    let (_, out) = check(&all, path);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    v["diagnostics"].as_array().cloned().unwrap_or_default()
}

fn of_rule<'a>(
    found: &'a [serde_json::Value],
    rule: &str,
) -> impl Iterator<Item = &'a serde_json::Value> {
    let rule = rule.to_string();
    found.iter().filter(move |d| d["rule"] == rule.as_str())
}

/// (rule, fixture reported at op, twins).
const CASES: &[(&str, &str, &str, &[&str])] = &[
    (
        "inline-weights",
        "inline-weights-large.mlpackage",
        "layers_0_weight_to_fp16",
        &[
            "inline-weights-small-clean.mlpackage",
            "inline-weights-blob-clean.mlpackage",
        ],
    ),
    (
        "inline-weights",
        "inline-weights-many.mlpackage",
        "layers_0_weight_to_fp16",
        &[],
    ),
    (
        "inline-weights",
        "inline-weights-no-blob.mlpackage",
        "layers_0_weight_to_fp16",
        &[],
    ),
    (
        "nms-class-count",
        "nms-pipeline-3.mlpackage",
        "cast_3",
        &[
            "nms-pipeline-80-clean.mlpackage",
            "nms-pipeline-padded-clean.mlpackage",
        ],
    ),
    (
        "nms-class-count",
        "nms-pipeline-3-classifier.mlpackage",
        "cast_3",
        &[],
    ),
    (
        "scatter-into-cache",
        "scatter-cache-io.mlpackage",
        "cache_cast_fp16",
        &["scatter-cache-io-concat-clean.mlpackage"],
    ),
    (
        "scatter-into-cache",
        "scatter-cache-state.mlpackage",
        "scatter_along_axis_0",
        &["scatter-cache-state-slice-update-clean.mlpackage"],
    ),
];

#[test]
fn each_is_reported_once_on_its_fixture_and_not_on_its_twins() {
    for &(rule, fixture, op, twins) in CASES {
        let found = diagnostics(&[], &package(fixture));
        let hits: Vec<_> = of_rule(&found, rule).collect();
        assert_eq!(hits.len(), 1, "{fixture}: {hits:#?}");
        assert_eq!(hits[0]["op"], op, "{fixture}");
        for twin in twins {
            let found = diagnostics(&[], &package(twin));
            assert!(found.is_empty(), "{twin}: {found:#?}");
        }
    }
}

#[test]
fn every_output_format_reports_each_once() {
    for &(rule, fixture, op, _) in CASES {
        let path = package(fixture);
        for format in ["human", "concise", "github"] {
            // 1 only for the state fixture's state-full-extent-write (an error); never 2.
            let (code, out) = check(&["--output-format", format], &path);
            assert!(matches!(code, Some(0 | 1)), "{fixture} {format}");
            let lines = out.lines().filter(|l| l.contains(rule)).count();
            assert!(lines >= 1, "{fixture} {format}: {out}");
            let mentions = out.matches(op).count();
            assert!(mentions >= 1, "{fixture} {format}: {out}");
        }
        let (_, sarif) = check(&["--output-format", "sarif"], &path);
        let v: serde_json::Value = serde_json::from_str(&sarif).expect("sarif");
        let results = v["runs"][0]["results"].as_array().expect("results");
        let hits = results.iter().filter(|r| r["ruleId"] == rule).count();
        assert_eq!(hits, 1, "{fixture} sarif: {sarif}");
        let (_, html) = check(&["--output-format", "html"], &path);
        assert!(
            html.contains("<article class=\"finding\""),
            "{fixture} html"
        );
        let hits = html.matches(&format!("data-rule=\"{rule}\"")).count();
        assert_eq!(hits, 1, "{fixture} html: {hits} findings of {rule}");
        // Concise prints one line per finding.
        let (_, concise) = check(&["--output-format", "concise"], &path);
        let lines = concise
            .lines()
            .filter(|l| l.ends_with(&format!("[{rule}]")))
            .count();
        assert_eq!(lines, 1, "{fixture} concise: {concise}");
    }
}

#[test]
fn compute_units_scope_the_scatter_rule_not_the_inline_one() {
    let scatter = package("scatter-cache-io.mlpackage");
    for (units, want) in [
        ("all", 1),
        ("cpu-and-ne", 1),
        ("cpu-and-gpu", 0),
        ("cpu-only", 0),
    ] {
        let found = diagnostics(&["--compute-units", units], &scatter);
        assert_eq!(
            of_rule(&found, "scatter-into-cache").count(),
            want,
            "{units}"
        );
    }
    // Loading time is every unit's.
    let inline = package("inline-weights-large.mlpackage");
    for units in ["all", "cpu-and-ne", "cpu-and-gpu", "cpu-only"] {
        let found = diagnostics(&["--compute-units", units], &inline);
        assert_eq!(of_rule(&found, "inline-weights").count(), 1, "{units}");
    }
}

#[test]
fn inline_weights_names_the_bytes_inline_and_in_weight_bin() {
    let found = diagnostics(&[], &package("inline-weights-large.mlpackage"));
    let d = of_rule(&found, "inline-weights").next().expect("finding");
    let message = d["message"].as_str().unwrap();
    // 256 × 256 fp16 inline; weight.bin: the header, three records and their payloads.
    let weights = std::fs::metadata(
        package("inline-weights-large.mlpackage").join("Data/com.apple.CoreML/weights/weight.bin"),
    )
    .unwrap()
    .len();
    assert!(
        message.contains("(131072 bytes) of tensor values inline"),
        "{message}"
    );
    assert!(
        message.contains(&format!("({weights} bytes) in its weight files")),
        "{message}"
    );
    assert!(message.contains("tensor<fp16, [256, 256]>"), "{message}");
    assert!(d["fix"].is_object(), "{d:#}");
}

#[test]
fn compiled_and_text_forms_are_reported_without_a_fix() {
    let dir = common::corpus().join("catalog4");
    for name in ["inline-weights-large.mlmodelc", "inline-weights-large.mil"] {
        let found = diagnostics(&[], &dir.join(name));
        let hits: Vec<_> = of_rule(&found, "inline-weights").collect();
        assert_eq!(hits.len(), 1, "{name}: {found:#?}");
        assert_eq!(hits[0]["op"], "layers_0_weight_to_fp16", "{name}");
        assert!(hits[0]["fix"].is_null(), "{name}: {:#}", hits[0]);
        let help = hits[0]["help"].as_str().unwrap();
        assert!(help.contains("fix its package and compile again"), "{help}");
        assert_eq!(found.len(), 1, "{name}: {found:#?}");
    }
}

/// The `main` function's ops of a package's protobuf program.
fn operations(pkg: &Path) -> Vec<proto::Operation> {
    let bytes = std::fs::read(pkg.join("Data/com.apple.CoreML/model.mlmodel")).unwrap();
    let model = proto::Model::decode(bytes.as_slice()).unwrap();
    let Some(Type::MlProgram(program)) = model.r#type else {
        panic!("not an ML program")
    };
    let f = program.functions.get("main").unwrap();
    f.block_specializations
        .get(&f.opset)
        .unwrap()
        .operations
        .clone()
}

/// Each const's `val`: (its output name, the immediate bytes or the blob reference).
enum Val {
    Inline(Vec<u8>),
    Blob(BlobFileValue),
    Other,
}

fn vals(pkg: &Path) -> BTreeMap<String, Val> {
    operations(pkg)
        .into_iter()
        .filter(|op| op.r#type == "const")
        .map(|op| {
            let v = op.attributes.get("val").and_then(|v| v.value.clone());
            let val = match v {
                Some(value::Value::BlobFileValue(b)) => Val::Blob(b),
                Some(value::Value::ImmediateValue(proto::ImmediateValue {
                    value: Some(immediate_value::Value::Tensor(t)),
                })) => match t.value {
                    Some(tensor_value::Value::Bytes(b)) => Val::Inline(b.values.to_vec()),
                    _ => Val::Other,
                },
                _ => Val::Other,
            };
            (op.outputs[0].name.clone(), val)
        })
        .collect()
}

/// The payload of the record at `offset` of a version-2 weight file, by FORMAT.md §4.
fn payload(file: &[u8], offset: u64) -> &[u8] {
    let o = offset as usize;
    let word = |at: usize, n: usize| {
        let mut b = [0u8; 8];
        b[..n].copy_from_slice(&file[at..at + n]);
        u64::from_le_bytes(b)
    };
    assert_eq!(word(o, 4), 0xDEAD_BEEF, "sentinel at {offset}");
    assert_eq!(word(o, 4) as u32, 0xDEAD_BEEF);
    let size = word(o + 8, 8) as usize;
    let data = word(o + 16, 8) as usize;
    assert_eq!(data, o + 64, "payload right after the record at {offset}");
    assert_eq!(o % 64, 0);
    &file[data..data + size]
}

#[test]
fn fix_moves_every_inline_tensor_bit_identical_and_leaves_no_finding() {
    for name in [
        "inline-weights-large.mlpackage",
        "inline-weights-many.mlpackage",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let pkg = dir.path().join(name);
        common::copy_tree(&package(name), &pkg);
        let before = vals(&pkg);
        let weights = pkg.join("Data/com.apple.CoreML/weights/weight.bin");
        let old_file = std::fs::read(&weights).unwrap();
        let (code, out) = check(&["--fix"], &pkg);
        assert_eq!(code, Some(0), "{name}: {out}");
        assert!(diagnostics(&[], &pkg).is_empty(), "{name}");
        let after = vals(&pkg);
        let file = std::fs::read(&weights).unwrap();
        // The old records are kept byte for byte; the header counts the new ones.
        assert_eq!(file[4..old_file.len()], old_file[4..], "{name}");
        let old_count = u32::from_le_bytes(old_file[0..4].try_into().unwrap());
        let new_count = u32::from_le_bytes(file[0..4].try_into().unwrap());
        let mut moved = 0;
        for (k, v) in &before {
            match (v, after.get(k)) {
                (Val::Inline(bytes), Some(Val::Blob(b))) => {
                    assert_eq!(b.file_name, "@model_path/weights/weight.bin");
                    assert!(b.offset >= old_file.len() as u64, "{k}");
                    assert_eq!(payload(&file, b.offset), bytes.as_slice(), "{name}: {k}");
                    moved += 1;
                }
                (Val::Blob(a), Some(Val::Blob(b))) => {
                    assert_eq!(a, b, "{name}: {k} kept");
                    assert!(!payload(&file, b.offset).is_empty());
                }
                (Val::Inline(_), other) => panic!("{name}: {k} not moved: {}", other.is_some()),
                _ => {}
            }
        }
        assert!(moved > 0, "{name}");
        assert_eq!(new_count, old_count + moved, "{name}");
    }
}

#[test]
fn fix_creates_the_weight_file_and_its_manifest_item_when_the_package_has_none() {
    let name = "inline-weights-no-blob.mlpackage";
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join(name);
    common::copy_tree(&package(name), &pkg);
    let weights = pkg.join("Data/com.apple.CoreML/weights/weight.bin");
    assert!(
        !weights.parent().unwrap().exists(),
        "the fixture has no weights folder"
    );
    let manifest = |p: &Path| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(p.join("Manifest.json")).unwrap()).unwrap()
    };
    let old_manifest = manifest(&pkg);
    let before = vals(&pkg);
    let original = common::files(&pkg);
    // --output writes the fixed copy and leaves the package as it was.
    let copy = tempfile::tempdir().unwrap();
    let copy_dir = copy.path().to_str().unwrap();
    let (code, out) = check(&["--fix", "--output", copy_dir], &pkg);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(common::files(&pkg), original);
    let (code, out) = check(&["--fix"], &pkg);
    assert_eq!(code, Some(0), "{out}");
    assert!(diagnostics(&[], &pkg).is_empty(), "{out}");
    // In place and under --output, the same files (the Manifest identifier is deterministic).
    assert_eq!(common::files(&copy.path().join(name)), common::files(&pkg));

    // The new file: coremltools' header (count, version 2, reserved zeros), then one record per
    // moved tensor from offset 64, each 64-byte aligned, the file ending at the last payload.
    let file = std::fs::read(&weights).unwrap();
    let after = vals(&pkg);
    let mut offsets = Vec::new();
    for (k, v) in &before {
        let Val::Inline(bytes) = v else { continue };
        let Some(Val::Blob(b)) = after.get(k) else {
            panic!("{k} not moved")
        };
        assert_eq!(b.file_name, "@model_path/weights/weight.bin");
        assert_eq!(payload(&file, b.offset), bytes.as_slice(), "{k}");
        offsets.push((b.offset, bytes.len()));
    }
    offsets.sort_unstable();
    assert_eq!(offsets.len(), 4, "every const of the model was inline");
    assert_eq!(u32::from_le_bytes(file[0..4].try_into().unwrap()), 4);
    assert_eq!(u32::from_le_bytes(file[4..8].try_into().unwrap()), 2);
    assert!(file[8..64].iter().all(|&b| b == 0));
    assert_eq!(offsets[0].0, 64);
    let (last, size) = offsets[offsets.len() - 1];
    assert_eq!(file.len() as u64, last + 64 + size as u64);

    // Our reader reads it back: the header, and a chain of exactly these records to the end.
    let blob = coreml_lint::read::blob::BlobFile::open(&weights, &pkg).unwrap();
    assert_eq!((blob.header().count, blob.header().version), (4, 2));
    let walk = blob.walk();
    assert_eq!(walk.end, coreml_lint::read::blob::WalkEnd::EndOfFile);
    let chain: Vec<(u64, usize)> = walk
        .records
        .iter()
        .map(|r| (r.offset, r.size as usize))
        .collect();
    assert_eq!(chain, offsets);

    // The Manifest keeps every entry and gains the weights item coremltools writes, written as
    // coremltools writes it (sorted keys, four-space indent).
    let new_manifest = manifest(&pkg);
    let (old_items, new_items) = (
        old_manifest["itemInfoEntries"].as_object().unwrap(),
        new_manifest["itemInfoEntries"].as_object().unwrap(),
    );
    assert_eq!(new_items.len(), old_items.len() + 1);
    for (k, v) in old_items {
        assert_eq!(new_items.get(k), Some(v), "{k} kept");
    }
    assert_eq!(
        new_manifest["rootModelIdentifier"],
        old_manifest["rootModelIdentifier"]
    );
    let (id, item) = new_items
        .iter()
        .find(|(k, _)| !old_items.contains_key(*k))
        .unwrap();
    assert_eq!(
        item,
        &serde_json::json!({
            "author": "com.apple.CoreML",
            "description": "CoreML Model Weights",
            "name": "weights",
            "path": "com.apple.CoreML/weights",
        })
    );
    let groups: Vec<usize> = id.split('-').map(str::len).collect();
    assert_eq!(groups, [8, 4, 4, 4, 12], "{id}");
    assert!(
        id.chars().all(|c| c == '-' || c.is_ascii_hexdigit()),
        "{id}"
    );
    let text = std::fs::read_to_string(pkg.join("Manifest.json")).unwrap();
    assert!(
        text.contains(&format!(
            "        \"{id}\": {{\n            \"author\": \"com.apple.CoreML\","
        )),
        "{text}"
    );

    // A second --fix has nothing to do: every file stays as the first one wrote it.
    let fixed = common::files(&pkg);
    let (code, out) = check(&["--fix"], &pkg);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(common::files(&pkg), fixed);
}

#[test]
fn fix_keeps_a_manifest_that_already_lists_the_weights_folder() {
    // The weights item is there (coremltools lists it), its folder is not: the fix writes the
    // file and leaves the Manifest as it is.
    let name = "inline-weights-no-blob.mlpackage";
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join(name);
    common::copy_tree(&package(name), &pkg);
    let path = pkg.join("Manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    manifest["itemInfoEntries"]["9DA6266C-FF68-4EED-811D-9F423758A5DC"] = serde_json::json!({
        "author": "com.apple.CoreML",
        "description": "CoreML Model Weights",
        "name": "weights",
        "path": "com.apple.CoreML/weights",
    });
    let text = serde_json::to_string_pretty(&manifest).unwrap();
    std::fs::write(&path, &text).unwrap();
    let (code, out) = check(&["--fix"], &pkg);
    assert_eq!(code, Some(0), "{out}");
    assert!(diagnostics(&[], &pkg).is_empty(), "{out}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    assert!(pkg
        .join("Data/com.apple.CoreML/weights/weight.bin")
        .is_file());
}

#[test]
fn fix_of_a_compiled_model_is_not_offered() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.mlmodelc");
    common::copy_tree(
        &common::corpus().join("catalog4/inline-weights-large.mlmodelc"),
        &model,
    );
    let before = std::fs::read(model.join("model.mil")).unwrap();
    let (code, out) = check(&["--fix"], &model);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(std::fs::read(model.join("model.mil")).unwrap(), before);
    let found = diagnostics(&[], &model);
    assert_eq!(of_rule(&found, "inline-weights").count(), 1);
}

#[test]
fn the_nms_stage_says_what_was_read_and_the_help_names_the_padding() {
    let path = package("nms-pipeline-3.mlpackage");
    let (code, human) = check(&[], &path);
    assert_eq!(code, Some(0), "{human}");
    assert!(
        human.contains(
            "sub-model 1: a non-maximum suppression model: not an ML Program; read: 3 string class \
             labels, confidence from `confidence`, coordinates from `coordinates`; checked with the \
             program that feeds it"
        ),
        "{human}"
    );
    let found = diagnostics(&[], &path);
    let d = of_rule(&found, "nms-class-count").next().expect("finding");
    assert_eq!(d["sub_model"]["position"], serde_json::json!([0]), "{d:#}");
    let message = d["message"].as_str().unwrap();
    assert!(
        message.contains("`confidence` tensor<fp32, [16, 3]>"),
        "{message}"
    );
    assert!(message.contains("with 3 classes"), "{message}");
    let help = d["help"].as_str().unwrap();
    assert!(help.contains("to 80 with 77 zero columns"), "{help}");
    assert!(help.contains("extend the labels to 80"), "{help}");
}

#[test]
fn bad_nms_stages_are_findings_not_failures() {
    for (name, op, says) in [
        (
            "nms-pipeline-missing-input.mlpackage",
            None,
            "reads confidence `scores`, which no program stage returns",
        ),
        (
            "nms-pipeline-no-labels.mlpackage",
            Some("cast_3"),
            "holds no class labels",
        ),
        (
            "nms-pipeline-padded-short-labels.mlpackage",
            Some("cast_3"),
            "holds 3 class labels for the 80 classes of `confidence`",
        ),
    ] {
        let path = package(name);
        let (code, out) = check(&["--output-format", "json"], &path);
        assert_eq!(code, Some(1), "{name}: {out}");
        let found = diagnostics(&[], &path);
        assert_eq!(found.len(), 1, "{name}: {found:#?}");
        let d = &found[0];
        assert_eq!(d["rule"], "nms-stage-inputs", "{name}");
        assert_eq!(d["op"].as_str(), op, "{name}");
        assert!(
            d["message"].as_str().unwrap().contains(says),
            "{name}: {d:#}"
        );
    }
}

/// A compiled pipeline (FORMAT.md §10): stage 0 a hand-written `model.mil` returning
/// `scores` [16, `classes`] and `boxes` [16, 4] (Linux cannot compile one), stage 1 an NMS stage,
/// only its `coremldata.bin`.
fn compiled_nms_pipeline(dir: &Path, classes: usize) -> PathBuf {
    use crate::compiled_pipelines::pipeline_headers;
    let root = dir.join(format!("p{classes}.mlmodelc"));
    std::fs::create_dir_all(root.join("model0")).unwrap();
    std::fs::create_dir_all(root.join("model1")).unwrap();
    let weight = |rows: usize| {
        let zeros = vec!["0x0p+0"; rows * 8].join(", ");
        format!("tensor<fp16, [{rows}, 8]>([{zeros}])")
    };
    let mil = format!(
        "program(1.3)\n{{\n    func main<ios18>(tensor<fp16, [16, 8]> x) {{\n\
         \x20           tensor<fp16, [16, {classes}]> s = linear(weight = {}, x = x)[name = string(\"s\")];\n\
         \x20           tensor<fp32, [16, {classes}]> scores = cast(dtype = string(\"fp32\"), x = s)[name = string(\"scores_cast\")];\n\
         \x20           tensor<fp16, [16, 4]> b = linear(weight = {}, x = x)[name = string(\"b\")];\n\
         \x20           tensor<fp32, [16, 4]> boxes = cast(dtype = string(\"fp32\"), x = b)[name = string(\"boxes_cast\")];\n\
         \x20       }} -> (scores, boxes);\n}}\n",
        weight(classes),
        weight(4),
    );
    std::fs::write(root.join("model0/model.mil"), mil).unwrap();
    pipeline_headers(&root);
    root
}

#[test]
fn a_compiled_pipeline_takes_the_class_count_from_the_detector() {
    let dir = tempfile::tempdir().unwrap();
    let three = compiled_nms_pipeline(dir.path(), 3);
    let found = diagnostics(&[], &three);
    let hits: Vec<_> = of_rule(&found, "nms-class-count").collect();
    assert_eq!(hits.len(), 1, "{found:#?}");
    assert_eq!(hits[0]["op"], "scores_cast");
    assert!(hits[0]["message"]
        .as_str()
        .unwrap()
        .contains("`scores` tensor<fp32, [16, 3]>"));
    let eighty = compiled_nms_pipeline(dir.path(), 80);
    let found = diagnostics(&[], &eighty);
    assert!(
        of_rule(&found, "nms-class-count").next().is_none(),
        "{found:#?}"
    );
    let (_, human) = check(&[], &eighty);
    assert!(human.contains("read: its kind only"), "{human}");
}

#[test]
fn the_realworld_yolov8n_pipeline_stays_clean_with_80_classes() {
    let Some(shared) = common::shared() else {
        return;
    };
    let dir = shared.join("realworld/ultralytics-yolov8n-nms-pipeline");
    for form in ["yolov8n.mlpackage", "yolov8n.mlmodelc"] {
        let path = dir.join(form);
        let found = diagnostics(&[], &path);
        assert!(
            found
                .iter()
                .all(|d| !d["rule"].as_str().unwrap().starts_with("nms-")),
            "{form}: {found:#?}"
        );
        // What was read: the detector's 80-class confidence output, by name in the package and
        // by shape in the compiled form.
        let models = common::read_programs(&path);
        let entities: Vec<_> = models
            .iter()
            .flat_map(|m| coreml_lint::lint::model_entities(m).entities)
            .filter(|e| e.kind == "nms-stage")
            .collect();
        assert_eq!(entities.len(), 1, "{form}");
        let e = &entities[0];
        let text = |k: &str| format!("{:?}", e.get(k));
        assert!(text("classes").contains("80"), "{form}: {e:?}");
        assert!(text("confidence").contains("var_841_1"), "{form}: {e:?}");
        assert!(text("input-detail").contains("None"), "{form}: {e:?}");
    }
}
