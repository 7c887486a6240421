//! Every real-world `model.mil` parses, and its op-type histogram equals the one Apple's compiler
//! wrote into `metadata.json` (an independent check of the parser).

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use coreml_lint::ir::compare::same_program;
use coreml_lint::ir::render::render_to_string;
use coreml_lint::read::miltext::parse_program;

fn model_mils(root: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "model.mil")
        .map(|e| e.into_path())
        .collect();
    out.sort();
    out
}

/// `slice_by_index` → `sliceByIndex`, as metadata.json spells op types.
fn camel(op: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in op.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn histogram_from_metadata(path: &Path) -> Option<BTreeMap<String, u64>> {
    let text = std::fs::read_to_string(path).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    let hist = json
        .get(0)?
        .get("mlProgramOperationTypeHistogram")?
        .as_object()?;
    let mut out = BTreeMap::new();
    for (k, v) in hist {
        // Drop the `Ios16.` prefix and lower-case the first letter (`Lstm` → `lstm`).
        let op = k.rsplit('.').next().unwrap_or(k);
        let mut chars = op.chars();
        let op: String = chars
            .next()
            .map(|c| c.to_lowercase().chain(chars).collect())
            .unwrap_or_default();
        *out.entry(op).or_insert(0) += v.as_u64()?;
    }
    Some(out)
}

#[test]
fn realworld_model_mil_files_parse_and_match_compiler_histograms() {
    let Some(shared) = common::shared() else {
        eprintln!("../shared not present: real-world check not run");
        return;
    };
    let files = model_mils(&shared.join("realworld"));
    assert!(
        files.len() >= 20,
        "expected the 21 real-world model.mil files, found {}",
        files.len()
    );
    let mut compared = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let program =
            parse_program(&text, file).unwrap_or_else(|e| panic!("{:?}", miette::Report::new(e)));
        let mut ours = BTreeMap::new();
        for f in &program.functions {
            for (_, op) in f.ops() {
                if op.op_type != "const" {
                    *ours.entry(camel(&op.op_type)).or_insert(0u64) += 1;
                }
            }
        }
        if let Some(theirs) = histogram_from_metadata(&file.with_file_name("metadata.json")) {
            assert_eq!(ours, theirs, "{}", file.display());
            compared += 1;
        }
        let again = parse_program(&render_to_string(&program), file).unwrap();
        same_program(&program, &again).unwrap_or_else(|e| {
            panic!("{}: dump does not parse back the same: {e}", file.display())
        });
    }
    assert!(compared >= 20, "only {compared} histograms compared");
}

#[test]
fn rendering_reproduces_compiler_output_byte_for_byte() {
    let Some(shared) = common::shared() else {
        eprintln!("../shared not present: real-world check not run");
        return;
    };
    // FORMAT.md §8: a printed program reproduces compiler output exactly; check every file.
    let mut same = 0;
    let files = model_mils(&shared.join("realworld"));
    let mut differing = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let program = parse_program(&text, file).unwrap();
        // One sample (from the coremltools repository) ends with a newline the compiler does not write.
        if render_to_string(&program) == text.strip_suffix('\n').unwrap_or(&text) {
            same += 1;
        } else {
            differing.push(file.display().to_string());
        }
    }
    assert_eq!(
        differing,
        Vec::<String>::new(),
        "{same} of {} identical",
        files.len()
    );
}
