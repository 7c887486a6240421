//! Embeds every `rules/*.yaml` (and the optional `rules/redirects.yaml` and `rules/utils.yaml`) into
//! the binary, so that
//! adding a rule file needs no Rust change.

use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
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
    let dest =
        PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("builtin_rules.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
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
