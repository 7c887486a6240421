//! Embeds every `rules/*.yaml` (and the optional `rules/redirects.yaml` and `rules/utils.yaml`) into
//! the binary, so that adding a rule file needs no Rust change; and transcodes the YAML files under
//! `rules/` to JSON, which is parsed instead of the YAML text: parsing YAML was a fifth of a large
//! model's check and most of a small one's. A rule's JSON comes in two parts, the rule without its
//! `tests:` and the `tests:` alone, which only `test-rules` reads (half of the rules' bytes); the
//! other files' JSON goes to `src/yaml.rs`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

// The op set tables' types: `opset_binary` fills them, `src/analysis/opset/table.rs` reads them.
#[allow(dead_code)]
#[path = "src/analysis/opset/table_file.rs"]
mod opset_file;

#[path = "build/symbol_order.rs"]
mod symbol_order;

fn main() {
    mimalloc_purge_delay_option();
    symbol_order::order_hot_functions();
    println!("cargo:rerun-if-changed=rules");
    let dir =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("rules");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let mut out = String::from("/// Every built-in rule, sorted by file name.\n");
    out.push_str("pub(super) static BUILTIN_RULES: &[super::BuiltinRule] = &[\n");
    let mut rule_files = Vec::new();
    let mut redirects = None;
    let mut utils = None;
    for f in &files {
        let name = f
            .file_name()
            .and_then(|n| n.to_str())
            .expect("rule file names are UTF-8");
        println!("cargo:rerun-if-changed={}", f.display());
        if name == "redirects.yaml" {
            redirects = Some(f.clone());
            continue;
        }
        if name == "utils.yaml" {
            utils = Some(f.clone());
            continue;
        }
        let json = match split_tests(f) {
            Some((body, tests)) => format!("Some(({body:?}, {tests:?}))"),
            None => "None".to_string(),
        };
        writeln!(
            out,
            "    super::BuiltinRule {{ file: {name:?}, text: include_str!({:?}), json: {json} }},",
            f.display().to_string()
        )
        .expect("writing to a String");
        rule_files.push(f.clone());
    }
    out.push_str("];\n");
    optional_file(
        &mut out,
        "REDIRECTS",
        "`rules/redirects.yaml`: old id → new id.",
        redirects,
    );
    optional_file(
        &mut out,
        "UTILS",
        "`rules/utils.yaml`: shared match fragments.",
        utils,
    );
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    std::fs::write(out_dir.join("builtin_rules.rs"), out).expect("OUT_DIR is writable");
    std::fs::write(out_dir.join("opset.postcard"), opset_binary(&dir))
        .expect("OUT_DIR is writable");
    let opset_files = [dir.join("opset/ops.yaml"), dir.join("opset/inference.yaml")];
    let own_form: Vec<PathBuf> = rule_files.into_iter().chain(opset_files).collect();
    std::fs::write(out_dir.join("builtin_yaml.rs"), transcoded(&dir, &own_form))
        .expect("OUT_DIR is writable");
}

/// A rule file's document as JSON without its `tests:` key, and the JSON of `tests:` (`null` when
/// the rule has none); `None` when the file is not valid YAML: loaded at run time from its text, it
/// gets the YAML parser's located error.
fn split_tests(path: &Path) -> Option<(String, String)> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut value: serde_json::Value = serde_yaml_bw::from_str(&text).ok()?;
    let tests = match value.as_object_mut() {
        Some(map) => map.shift_remove("tests"),
        None => None,
    };
    Some((
        value.to_string(),
        tests.unwrap_or(serde_json::Value::Null).to_string(),
    ))
}

/// `rules/opset/ops.yaml` and `inference.yaml` read into their types and encoded with postcard;
/// `OpTable::builtin` decodes them at run time. A table that does not read fails the build.
fn opset_binary(dir: &Path) -> Vec<u8> {
    fn read<T: serde::de::DeserializeOwned>(path: &Path) -> T {
        println!("cargo:rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(path).expect("the op set table is readable");
        serde_yaml_bw::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }
    let files = opset_file::OpSetFiles {
        ops: read(&dir.join("opset/ops.yaml")),
        inference: read(&dir.join("opset/inference.yaml")),
    };
    postcard::to_allocvec(&files).expect("postcard encodes the op set")
}

/// `static TRANSCODED: &[(&str, &str)]`: (YAML text, the same document as JSON) of every YAML file
/// under `dir` but those with a form of their own (`own_form`: the rules, which `split_tests`
/// transcodes, and the op set), sorted by the YAML text (looked up by binary search). A file that
/// is not valid YAML is left out: read at run time, it gets the YAML parser's located error.
fn transcoded(dir: &Path, own_form: &[PathBuf]) -> String {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                println!("cargo:rerun-if-changed={}", path.display());
                pending.push(path);
            } else if path.extension().is_some_and(|x| x == "yaml") && !own_form.contains(&path) {
                println!("cargo:rerun-if-changed={}", path.display());
                files.push(path);
            }
        }
    }
    let mut pairs: Vec<(String, PathBuf, String)> = files
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).ok()?;
            let value: serde_json::Value = serde_yaml_bw::from_str(&text).ok()?;
            Some((text, path, value.to_string()))
        })
        .collect();
    pairs.sort();
    let mut out = String::from(
        "/// (YAML text, JSON text) of every YAML file under `rules/` but the rules, sorted by the YAML\n\
         /// text.\n\
         pub(crate) static TRANSCODED: &[(&str, &str)] = &[\n",
    );
    for (_, path, json) in &pairs {
        writeln!(
            out,
            "    (include_str!({:?}), {json:?}),",
            path.display().to_string()
        )
        .expect("writing to a String");
    }
    out.push_str("];\n");
    out
}

/// `pub(crate) static NAME: Option<&str>`: the file's text, or `None` without the file.
fn optional_file(out: &mut String, name: &str, doc: &str, file: Option<PathBuf>) {
    let value = match file {
        Some(p) => format!("Some(include_str!({:?}))", p.display().to_string()),
        None => "None".to_string(),
    };
    writeln!(
        out,
        "/// {doc}\npub(crate) static {name}: Option<&str> = {value};"
    )
    .expect("writing to a String");
}

/// Finds the number of mimalloc's `mi_option_purge_delay` in the header the allocator is built from
/// (its `mi_option_e` enum, whose members count up from 0) and hands it to the binary as
/// `MI_OPTION_PURGE_DELAY`: the Rust binding names no constant for it.
fn mimalloc_purge_delay_option() {
    let dir =
        std::env::var("DEP_MIMALLOC_INCLUDE_DIR").expect("libmimalloc-sys exports its headers");
    let header = PathBuf::from(dir).join("mimalloc.h");
    println!("cargo:rerun-if-changed={}", header.display());
    let text = std::fs::read_to_string(&header).expect("mimalloc.h is readable");
    let start = text
        .find("typedef enum mi_option_e {")
        .expect("mimalloc.h declares mi_option_e");
    let body = &text[start..];
    let body = &body[body.find('{').map_or(0, |i| i + 1)..body.find('}').unwrap_or(body.len())];
    let members: Vec<&str> = body
        .lines()
        .map(|line| line.split("//").next().unwrap_or("").trim())
        .filter(|member| !member.is_empty())
        .map(|member| member.trim_end_matches(',').trim())
        .collect();
    let number = members
        .iter()
        .position(|&member| member == "mi_option_purge_delay")
        .expect("mi_option_e has mi_option_purge_delay");
    assert!(
        members[..number].iter().all(|m| !m.contains('=')),
        "the members before mi_option_purge_delay count up from 0"
    );
    println!("cargo:rustc-env=MI_OPTION_PURGE_DELAY={number}");
}
