//! Embeds every `rules/*.yaml` (and the optional `rules/redirects.yaml` and `rules/utils.yaml`) into
//! the binary, so that adding a rule file needs no Rust change; and transcodes every YAML file under
//! `rules/` (rule data included) to JSON, which `src/yaml.rs` parses instead of the YAML text: parsing
//! YAML was a fifth of a large model's check and most of a small one's.

use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    mimalloc_purge_delay_option();
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
    let mut out =
        String::from("/// (file name, text) of every built-in rule, sorted by file name.\n");
    out.push_str("pub(crate) static BUILTIN_RULES: &[(&str, &str)] = &[\n");
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
        writeln!(
            out,
            "    ({name:?}, include_str!({:?})),",
            f.display().to_string()
        )
        .expect("writing to a String");
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
    std::fs::write(out_dir.join("builtin_yaml.rs"), transcoded(&dir)).expect("OUT_DIR is writable");
}

/// `static TRANSCODED: &[(&str, &str)]`: (YAML text, the same document as JSON) of every YAML file
/// under `dir`, sorted by the YAML text (looked up by binary search). A file that is not valid YAML
/// is left out: read at run time, it gets the YAML parser's located error.
fn transcoded(dir: &std::path::Path) -> String {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                println!("cargo:rerun-if-changed={}", path.display());
                pending.push(path);
            } else if path.extension().is_some_and(|x| x == "yaml") {
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
        "/// (YAML text, JSON text) of every YAML file under `rules/`, sorted by the YAML text.\n\
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
