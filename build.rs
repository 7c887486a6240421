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
    out.push_str("/// `rules/redirects.yaml`: old id → new id.\n");
    match redirects {
        Some(p) => writeln!(
            out,
            "pub(crate) static REDIRECTS: Option<&str> = Some(include_str!({:?}));",
            p.display().to_string()
        )
        .expect("writing to a String"),
        None => out.push_str("pub(crate) static REDIRECTS: Option<&str> = None;\n"),
    }
    out.push_str("/// `rules/utils.yaml`: shared match fragments.\n");
    match utils {
        Some(p) => writeln!(
            out,
            "pub(crate) static UTILS: Option<&str> = Some(include_str!({:?}));",
            p.display().to_string()
        )
        .expect("writing to a String"),
        None => out.push_str("pub(crate) static UTILS: Option<&str> = None;\n"),
    }
    let dest =
        PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("builtin_rules.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}
