//! Dependencies between the library's layers point one way (ARCHITECTURE.md): a module's
//! non-test code names only modules of a lower layer, or its own. Test code may use anything.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Each top-level module and its layer, lowest first. A module may use modules of lower layers;
/// modules sharing a layer may use each other (discovery and reading hand each other paths and
/// errors).
const LAYERS: &[&[&str]] = &[
    &[
        "allocator",
        "limits",
        "mil_number",
        "os_level",
        "suggest",
        "unsafe_chars",
        "yaml",
    ],
    &["ir"],
    &["discover", "read"],
    &["analysis"],
    &["finding"],
    &["rules"],
    &["config"],
    &["fix"],
    &["lint"],
    &["baseline"],
    &["check"],
    &["report"],
    // The schemas are generated from the types of the files users write and of the output's
    // `placement` member, at every layer.
    &["json_schema"],
];

/// Uses against the layer order allowed for now, each named by file and target: the baseline's
/// one call into the placement estimate, until it moves from `report` to `analysis`.
const ALLOWED: &[(&str, &str)] = &[("baseline/placement.rs", "report")];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

pub(crate) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module a file belongs to: `src/ir/render.rs` → `ir`, `src/check.rs` → `check`.
fn top_module(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// The file's code outside `#[cfg(test)]` items, and the names of modules it declares test-only.
pub(crate) fn non_test_code(text: &str) -> (Vec<&str>, Vec<String>) {
    let mut code = Vec::new();
    let mut test_modules = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim_start().starts_with("//") {
            continue;
        }
        if line == "#[cfg(test)]" {
            match lines.peek() {
                Some(next) if next.trim_end().ends_with(';') => {
                    let name = next.trim_end_matches(';').rsplit(' ').next().unwrap_or("");
                    test_modules.push(name.to_string());
                    lines.next();
                }
                _ => {
                    // An item block: skip to its closing brace at column 0.
                    for l in lines.by_ref() {
                        if l == "}" {
                            break;
                        }
                    }
                }
            }
            continue;
        }
        code.push(line);
    }
    (code, test_modules)
}

/// The files and folders of modules declared `#[cfg(test)] mod x;` (the test-only modules).
pub(crate) fn test_only_paths(code_of: &BTreeMap<PathBuf, String>) -> Vec<PathBuf> {
    let mut test_only: Vec<PathBuf> = Vec::new();
    for (f, text) in code_of {
        let (_, tests) = non_test_code(text);
        let dir = if f
            .file_name()
            .is_some_and(|n| n == "mod.rs" || n == "lib.rs")
        {
            f.parent().unwrap().to_path_buf()
        } else {
            f.with_extension("")
        };
        for t in tests {
            test_only.push(dir.join(format!("{t}.rs")));
            test_only.push(dir.join(&t));
        }
    }
    test_only
}

#[test]
fn dependencies_point_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut code_of: BTreeMap<PathBuf, String> = BTreeMap::new();
    for f in &files {
        code_of.insert(f.clone(), std::fs::read_to_string(f).unwrap());
    }
    let test_only = test_only_paths(&code_of);
    let mut violations = Vec::new();
    let mut checked = 0;
    for (f, text) in &code_of {
        let name = f.file_name().unwrap();
        if name == "main.rs" || name == "lib.rs" || test_only.iter().any(|t| f.starts_with(t)) {
            continue;
        }
        let from = top_module(&src, f);
        let Some(from_layer) = layer_of(&from) else {
            violations.push(format!("{}: module `{from}` has no layer", f.display()));
            continue;
        };
        checked += 1;
        let (code, _) = non_test_code(text);
        for (i, line) in code.iter().enumerate() {
            // serde_yaml stays behind `yaml.rs`: only the rules, the config, the op-set table
            // (rule data under `rules/opset/`) and the Core AI op vocabulary the reader lowers
            // with (`rules/coreai/ops.yaml`) read YAML.
            if line.contains("crate::yaml")
                && !["rules", "config", "analysis", "read"].contains(&from.as_str())
            {
                violations.push(format!(
                    "{}: `{from}` reaches into `yaml` (line ~{})",
                    f.strip_prefix(&src).unwrap().display(),
                    i + 1
                ));
            }
            for (pos, _) in line.match_indices("crate::") {
                let rest = &line[pos + "crate::".len()..];
                let to: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if to.is_empty() || to == from {
                    continue;
                }
                let rel = f
                    .strip_prefix(&src)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                if ALLOWED.contains(&(rel.as_str(), to.as_str())) {
                    continue;
                }
                match layer_of(&to) {
                    Some(l) if l <= from_layer => {}
                    _ => violations.push(format!(
                        "{}: `{from}` uses `crate::{to}` (line ~{}): {}",
                        f.strip_prefix(&src).unwrap().display(),
                        i + 1,
                        line.trim()
                    )),
                }
            }
        }
    }
    assert!(checked > 50, "only {checked} files checked");
    assert!(
        violations.is_empty(),
        "dependencies against the layer order:\n{}",
        violations.join("\n")
    );
}

#[test]
fn test_code_is_recognised() {
    let text = "use crate::a;\n#[cfg(test)]\nmod tests {\n    use crate::b;\n}\n#[cfg(test)]\npub(crate) mod testutil;\nuse crate::c;\n";
    let (code, tests) = non_test_code(text);
    assert_eq!(code, vec!["use crate::a;", "use crate::c;"]);
    assert_eq!(tests, vec!["testutil".to_string()]);
}
