//! `coreml-lint graph --format model-explorer` end to end: the graph JSON in Model Explorer's
//! shape (every node namespaced, no dangling edge, layers from the converters' names) and the node
//! data files beside it keyed by its graphs and nodes. `ci/model-explorer.sh` loads the same export
//! into Model Explorer's own classes and renders it in Chromium.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

use crate::common;

fn export(model: &Path, extra: &[&str]) -> (tempfile::TempDir, PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("graph.json");
    let run = Command::cargo_bin("coreml-lint")
        .unwrap()
        .current_dir(common::repo())
        .args(["graph", "--format", "model-explorer", "-o"])
        .arg(&out)
        .args(extra)
        .arg(model)
        .output()
        .unwrap();
    let stderr = String::from_utf8(run.stderr).unwrap();
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    (dir, out, stderr)
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Checks the graph's shape as Model Explorer reads it; returns graph id → node ids.
fn check_graph(g: &Value) -> BTreeMap<String, BTreeSet<String>> {
    assert!(g["label"].is_string());
    let mut out = BTreeMap::new();
    for graph in g["graphs"].as_array().unwrap() {
        let id = graph["id"].as_str().unwrap().to_string();
        let nodes = graph["nodes"].as_array().unwrap();
        let ids: BTreeSet<String> = nodes
            .iter()
            .map(|n| n["id"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(ids.len(), nodes.len(), "node ids are unique in {id}");
        for n in nodes {
            // A node without a namespace hangs Model Explorer on "Processing graph…".
            assert!(n["namespace"].is_string(), "{n}");
            assert!(n["label"].as_str().is_some_and(|l| !l.is_empty()));
            for a in n["attrs"].as_array().unwrap() {
                assert!(a["key"].is_string() && a["value"].is_string(), "{a}");
            }
            for e in n["incomingEdges"].as_array().unwrap() {
                let src = e["sourceNodeId"].as_str().unwrap();
                assert!(ids.contains(src), "dangling edge from {src} in {id}");
                assert!(e["sourceNodeOutputId"].is_string() && e["targetNodeInputId"].is_string());
            }
        }
        out.insert(id, ids);
    }
    out
}

fn node_data(out: &Path, suffix: &str) -> Value {
    json(&out.with_file_name(format!("graph.{suffix}.json")))
}

#[test]
fn a_torch_decoder_exports_with_its_blocks_units_and_findings() {
    let model = common::corpus().join("packages/torch-origin-decoder-fp32.mlpackage");
    let (_dir, out, stderr) = export(&model, &[]);
    assert!(
        stderr.contains("model-explorer ") && stderr.contains("--node_data_paths="),
        "the command that opens it: {stderr}"
    );
    let g = json(&out);
    let graphs = check_graph(&g);
    assert_eq!(graphs.len(), 1);
    let graph = &g["graphs"][0];
    let namespaces: BTreeSet<&str> = graph["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["namespace"].as_str().unwrap())
        .collect();
    for want in [
        "blocks.0",
        "blocks.0/attn",
        "blocks.1/attn",
        "blocks.1/mlp.0",
    ] {
        assert!(namespaces.contains(want), "{want} in {namespaces:?}");
    }
    // Each layer's group shows its ops and ANE share.
    let group = &graph["groupNodeAttributes"]["blocks.0"];
    assert!(group["ops"].as_str().unwrap().parse::<usize>().unwrap() > 10);
    assert!(
        group["ANE compute"].as_str().unwrap().ends_with('%'),
        "{group}"
    );
    // Constants are attributes, not nodes; a linear's weight names its constant.
    let linear = graph["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["label"] == "linear")
        .unwrap();
    assert!(linear["attrs"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a["key"] == "weight"));
    assert!(!graph["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n["label"] == "const"));

    let gid = graphs.keys().next().unwrap();
    let ids = &graphs[gid];
    for suffix in ["units", "reasons", "findings", "macs"] {
        let d = node_data(&out, suffix);
        let results = d[gid]["results"].as_object().unwrap();
        assert!(
            results.keys().all(|k| ids.contains(k)),
            "{suffix}: unknown node"
        );
        assert!(!results.is_empty(), "{suffix} is empty");
    }
    let units = node_data(&out, "units");
    let units = units[gid]["results"].as_object().unwrap();
    assert!(units.values().all(|r| r["bgColor"].is_string()));
    // fp32 compute: its ops are likely on the CPU.
    assert!(units.values().any(|r| r["value"] == "CPU"), "{units:?}");
    let macs = node_data(&out, "macs");
    assert!(macs[gid]["results"]["linear_0"]["value"].as_u64().unwrap() > 0);
    // The finding of `check` is on its op.
    let findings = node_data(&out, "findings");
    let on = &findings[gid]["results"]["input_1"];
    assert!(
        on["value"].as_str().unwrap().contains("fp32-compute"),
        "{findings}"
    );
}

#[test]
fn the_units_follow_the_apps_compute_units() {
    let model = common::corpus().join("packages/torch-origin-decoder-fp32.mlpackage");
    for (units, allowed) in [
        ("cpu-only", &["CPU"][..]),
        ("cpu-and-gpu", &["CPU", "GPU", "unknown"]),
    ] {
        let (_dir, out, _) = export(&model, &["--compute-units", units]);
        let d = node_data(&out, "units");
        let (_, graph) = d.as_object().unwrap().iter().next().unwrap();
        let values: BTreeSet<&str> = graph["results"]
            .as_object()
            .unwrap()
            .values()
            .map(|r| r["value"].as_str().unwrap())
            .collect();
        assert!(
            values.iter().all(|v| allowed.contains(v)),
            "{units}: {values:?}"
        );
        assert!(graph["name"].as_str().unwrap().contains(units));
    }
}

#[test]
fn model_explorer_needs_an_output_file() {
    let model = common::corpus().join("packages/torch-origin-decoder-fp32.mlpackage");
    let run = Command::cargo_bin("coreml-lint")
        .unwrap()
        .args(["graph", "--format", "model-explorer"])
        .arg(&model)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("--output"));
}

#[test]
fn whisper_and_a_pipeline_export_by_layer_and_stage() {
    let Some(shared) = common::shared() else {
        return;
    };
    let rw = shared.join("realworld");
    let (_dir, out, _) = export(&rw.join("whisperkit-tiny/AudioEncoder.mlmodelc"), &[]);
    let g = json(&out);
    check_graph(&g);
    let groups = g["graphs"][0]["groupNodeAttributes"].as_object().unwrap();
    for l in 0..4 {
        assert!(
            groups.contains_key(&format!("layers.{l}")),
            "{:?}",
            groups.keys()
        );
        assert!(groups.contains_key(&format!("layers.{l}/self_attn")));
    }
    let (_dir, out, _) = export(
        &rw.join("ultralytics-yolov8n-nms-pipeline/yolov8n.mlmodelc"),
        &[],
    );
    let g = json(&out);
    let graphs = check_graph(&g);
    assert!(
        graphs.keys().any(|id| id.contains("(sub-model 0) · main")),
        "{:?}",
        graphs.keys()
    );
}

#[test]
fn graph_writes_any_format_to_its_output_file() {
    let model = common::corpus().join("packages/torch-origin-decoder-fp32.mlpackage");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g.svg");
    let run = Command::cargo_bin("coreml-lint")
        .unwrap()
        .args(["graph", "--format", "svg", "-o"])
        .arg(&out)
        .arg(&model)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0));
    assert!(run.stdout.is_empty(), "the picture goes to the file only");
    assert!(std::fs::read_to_string(&out)
        .unwrap()
        .contains("<svg class=\"graph\""));
    // A folder that does not exist is an error naming the file.
    let missing = dir.path().join("no/such/dir/g.json");
    let run = Command::cargo_bin("coreml-lint")
        .unwrap()
        .args(["graph", "--format", "model-explorer", "-o"])
        .arg(&missing)
        .arg(&model)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("g.json"));
}
