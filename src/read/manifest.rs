//! `Manifest.json` of an `.mlpackage` (FORMAT.md §1.1).
//!
//! Lenient where third-party writers differ (only `path` is required of an item; a missing
//! `rootModelIdentifier` falls back to the one `.mlmodel` item), strict about where items point:
//! absolute paths, `..` and anything that resolves outside the package are refused.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::indexing_slicing))]

use std::path::{Component, Path, PathBuf};

use serde_json::{Map, Value};

use super::{limits, ReadError};

/// What the manifest points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Manifest {
    /// `<pkg>/Data/<root item path>`; it exists, is a file and lies inside the package.
    pub root_model: PathBuf,
    /// `<pkg>/Data/<weights item path>`, when the manifest names one. It may be absent on disk
    /// (packages shipped without weights); when present it lies inside the package.
    pub weights_dir: Option<PathBuf>,
    /// Items other than the root model that are not on disk, in identifier order.
    pub missing_items: Vec<MissingItem>,
}

/// A manifest item that names a path with nothing there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MissingItem {
    /// Its identifier (the key in `itemInfoEntries`).
    pub id: String,
    /// Its `path`, as written.
    pub path: String,
    /// `<pkg>/Data/<path>`.
    pub resolved: PathBuf,
}

/// Largest `Manifest.json` read (real ones are well under 1 KiB).
const MAX_MANIFEST_BYTES: u64 = 1 << 20;

/// Reads and checks `<pkg>/Manifest.json`.
pub(crate) fn read_manifest(pkg: &Path) -> Result<Manifest, ReadError> {
    let path = pkg.join("Manifest.json");
    let err = |message: String| ReadError::Manifest {
        path: path.clone(),
        message,
    };
    let bytes = read_small(&path, pkg).map_err(&err)?;
    if super::lfs::is_pointer(&bytes) {
        return Err(ReadError::LfsPointer {
            size: bytes.len() as u64,
            path: path.clone(),
        });
    }
    let json: Value =
        serde_json::from_slice(&bytes).map_err(|e| err(format!("not valid JSON: {e}")))?;
    let top = json.as_object().ok_or_else(|| {
        err(format!(
            "expected a JSON object, found {}",
            json_kind(&json)
        ))
    })?;
    let entries = match top.get("itemInfoEntries") {
        None => {
            return Err(err(
                "has no `itemInfoEntries`, so it names no model file".into()
            ))
        }
        Some(Value::Object(m)) => m,
        Some(other) => {
            return Err(err(format!(
                "`itemInfoEntries` must be an object, found {}",
                json_kind(other)
            )))
        }
    };
    let items = entries
        .iter()
        .map(|(id, entry)| Item::parse(id, entry))
        .collect::<Result<Vec<_>, String>>()
        .map_err(&err)?;

    let root_item = find_root(top, &items).map_err(&err)?;
    let pkg_real = std::fs::canonicalize(pkg)
        .map_err(|e| err(format!("cannot resolve the package folder: {e}")))?;
    let root_model = resolve_inside(pkg, &pkg_real, &root_item.path)
        .map_err(|m| err(format!("root model item `{}` {m}", root_item.path)))?;
    match std::fs::metadata(&root_model) {
        Ok(m) if m.is_file() => {}
        Ok(_) => {
            return Err(err(format!(
                "root model item `{}` is not a file",
                root_item.path
            )))
        }
        Err(e) => {
            return Err(err(format!(
                "root model item `{}` is missing ({}): {e}",
                root_item.path,
                root_model.display()
            )))
        }
    }

    let weights_dir = match items.iter().find(|i| i.is_weights()) {
        None => None,
        Some(w) => {
            let dir = resolve_inside(pkg, &pkg_real, &w.path)
                .map_err(|m| err(format!("weights item `{}` {m}", w.path)))?;
            if dir.exists() && !dir.is_dir() {
                return Err(err(format!("weights item `{}` is not a folder", w.path)));
            }
            Some(dir)
        }
    };
    let missing_items = items
        .iter()
        .filter(|i| i.id != root_item.id)
        .filter_map(|i| {
            let resolved = pkg.join("Data").join(&i.path);
            let absent = matches!(std::fs::symlink_metadata(&resolved),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound);
            absent.then(|| MissingItem {
                id: i.id.clone(),
                path: i.path.clone(),
                resolved,
            })
        })
        .collect();
    Ok(Manifest {
        root_model,
        weights_dir,
        missing_items,
    })
}

/// One entry of `itemInfoEntries`.
#[derive(Debug)]
struct Item {
    id: String,
    path: String,
    name: Option<String>,
    author: Option<String>,
}

impl Item {
    fn parse(id: &str, entry: &Value) -> Result<Item, String> {
        let obj = entry
            .as_object()
            .ok_or_else(|| format!("item `{id}` must be an object, found {}", json_kind(entry)))?;
        let path = match obj.get("path") {
            Some(Value::String(p)) => p.clone(),
            Some(other) => {
                return Err(format!(
                    "item `{id}` has a `path` that is {}, not a string",
                    json_kind(other)
                ))
            }
            None => return Err(format!("item `{id}` has no `path`")),
        };
        check_relative(&path).map_err(|m| format!("item `{id}` path `{path}` {m}"))?;
        let text = |key: &str| obj.get(key).and_then(Value::as_str).map(str::to_string);
        Ok(Item {
            id: id.to_string(),
            path,
            name: text("name"),
            author: text("author"),
        })
    }

    fn is_weights(&self) -> bool {
        match (&self.name, &self.author) {
            (Some(name), Some(author)) => name == "weights" && author == "com.apple.CoreML",
            // Writers that omit name/author: recognise the standard location.
            _ => self
                .path
                .trim_end_matches('/')
                .ends_with("com.apple.CoreML/weights"),
        }
    }
}

/// The item `rootModelIdentifier` names (exactly, else ignoring case), or without one the only
/// item whose path ends in `.mlmodel`.
fn find_root<'a>(top: &Map<String, Value>, items: &'a [Item]) -> Result<&'a Item, String> {
    match top.get("rootModelIdentifier") {
        Some(Value::String(id)) => items
            .iter()
            .find(|i| &i.id == id)
            .or_else(|| items.iter().find(|i| i.id.eq_ignore_ascii_case(id)))
            .ok_or_else(|| {
                format!("`rootModelIdentifier` `{id}` is not a key of `itemInfoEntries`")
            }),
        Some(other) => Err(format!(
            "`rootModelIdentifier` must be a string, found {}",
            json_kind(other)
        )),
        None => {
            let models: Vec<&Item> = items
                .iter()
                .filter(|i| i.path.ends_with(".mlmodel"))
                .collect();
            match models.as_slice() {
                [one] => Ok(one),
                [] => Err("has no `rootModelIdentifier` and no `.mlmodel` item".into()),
                _ => Err(format!(
                    "has no `rootModelIdentifier` and {} `.mlmodel` items to choose from",
                    models.len()
                )),
            }
        }
    }
}

/// Refuses empty, absolute and `..` item paths (they must stay inside `Data/`).
fn check_relative(path: &str) -> Result<(), String> {
    if path.is_empty() {
        return Err("is empty".into());
    }
    for c in Path::new(path).components() {
        match c {
            Component::Prefix(_) | Component::RootDir => {
                return Err("is absolute; item paths are relative to `Data/`".into())
            }
            Component::ParentDir => return Err("climbs out of `Data/` with `..`".into()),
            Component::CurDir | Component::Normal(_) => {}
        }
    }
    Ok(())
}

/// `<pkg>/Data/<rel>`, after checking that it (or, when it does not exist, its nearest existing
/// ancestor) resolves through symlinks to somewhere inside the package.
fn resolve_inside(pkg: &Path, pkg_real: &Path, rel: &str) -> Result<PathBuf, String> {
    let joined = pkg.join("Data").join(rel);
    let existing = joined
        .ancestors()
        .find(|a| std::fs::symlink_metadata(a).is_ok())
        .unwrap_or(pkg);
    let real = match std::fs::canonicalize(existing) {
        Ok(r) => r,
        // A dangling symlink: where it points is outside anything we can check.
        Err(e) => return Err(format!("cannot be resolved: {e}")),
    };
    if !real.starts_with(pkg_real) {
        return Err(format!(
            "resolves to {}, outside the package (symlink?)",
            real.display()
        ));
    }
    Ok(joined)
}

fn read_small(path: &Path, pkg: &Path) -> Result<Vec<u8>, String> {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err("is missing; an .mlpackage needs one at its top level".into())
        }
        Err(e) => return Err(e.to_string()),
        Ok(m) if m.len() > MAX_MANIFEST_BYTES => {
            return Err(format!(
                "is {} bytes, over the {MAX_MANIFEST_BYTES}-byte limit",
                m.len()
            ))
        }
        Ok(_) => {}
    }
    limits::read_capped_inside(path, pkg).map_err(|e| e.to_string())
}

/// "an array", "a string", … for messages.
pub(crate) fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROOT: &str = "468B5E19-6BA9-478C-8D2A-23953ACBD5E3";

    fn standard_manifest(root_path: &str) -> String {
        format!(
            r#"{{"fileFormatVersion": "1.0.0",
                "itemInfoEntries": {{
                  "{ROOT}": {{"author": "com.apple.CoreML", "description": "CoreML Model Specification",
                              "name": "model.mlmodel", "path": "{root_path}"}},
                  "F22DE286-FE1A-4BBD-A7ED-B0130595DAF3": {{"author": "com.apple.CoreML",
                              "description": "CoreML Model Weights", "name": "weights",
                              "path": "com.apple.CoreML/weights"}}
                }},
                "rootModelIdentifier": "{ROOT}"}}"#
        )
    }

    /// A package folder with `Data/com.apple.CoreML/model.mlmodel` and the given manifest.
    fn package(manifest: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let pkg = dir.path().join("m.mlpackage");
        std::fs::create_dir_all(pkg.join("Data/com.apple.CoreML")).unwrap();
        std::fs::write(pkg.join("Data/com.apple.CoreML/model.mlmodel"), b"").unwrap();
        std::fs::write(pkg.join("Manifest.json"), manifest).unwrap();
        (dir, pkg)
    }

    fn manifest_error(pkg: &Path) -> String {
        match read_manifest(pkg) {
            Err(e @ ReadError::Manifest { .. }) => {
                let text = e.to_string();
                assert!(text.contains("Manifest.json"), "{text}");
                text
            }
            other => panic!("expected a manifest error, got {other:?}"),
        }
    }

    #[test]
    fn standard_manifest_resolves_root_and_weights() {
        let (_d, pkg) = package(&standard_manifest("com.apple.CoreML/model.mlmodel"));
        let m = read_manifest(&pkg).unwrap();
        assert_eq!(
            m.root_model,
            pkg.join("Data/com.apple.CoreML/model.mlmodel")
        );
        // Named but not shipped: still reported, reading must not fail.
        assert_eq!(
            m.weights_dir,
            Some(pkg.join("Data/com.apple.CoreML/weights"))
        );
    }

    #[test]
    fn only_path_is_required_and_root_id_may_be_missing() {
        let (_d, pkg) =
            package(r#"{"itemInfoEntries": {"a": {"path": "com.apple.CoreML/model.mlmodel"}}}"#);
        let m = read_manifest(&pkg).unwrap();
        assert!(m.root_model.ends_with("model.mlmodel"));
        assert_eq!(m.weights_dir, None);
    }

    #[test]
    fn root_identifier_matches_ignoring_case() {
        let text = standard_manifest("com.apple.CoreML/model.mlmodel").replacen(
            &format!("\"rootModelIdentifier\": \"{ROOT}\""),
            &format!("\"rootModelIdentifier\": \"{}\"", ROOT.to_lowercase()),
            1,
        );
        let (_d, pkg) = package(&text);
        assert!(read_manifest(&pkg).is_ok());
    }

    #[test]
    fn not_json_and_wrong_shapes_are_clear_errors() {
        let cases = [
            ("{not json", "not valid JSON"),
            ("[1, 2]", "expected a JSON object"),
            ("{}", "itemInfoEntries"),
            (r#"{"itemInfoEntries": []}"#, "must be an object"),
            (
                r#"{"itemInfoEntries": {"a": {"name": "x"}}}"#,
                "has no `path`",
            ),
            (r#"{"itemInfoEntries": {"a": {"path": 3}}}"#, "not a string"),
            (
                r#"{"itemInfoEntries": {"a": {"path": "com.apple.CoreML/model.mlmodel"}}, "rootModelIdentifier": "b"}"#,
                "is not a key",
            ),
            (
                r#"{"itemInfoEntries": {"a": {"path": "x/weights"}}}"#,
                "no `.mlmodel` item",
            ),
        ];
        for (text, expected) in cases {
            let (_d, pkg) = package(text);
            let msg = manifest_error(&pkg);
            assert!(msg.contains(expected), "{text}: {msg}");
        }
    }

    #[test]
    fn missing_manifest_and_missing_root_item() {
        let (_d, pkg) = package("{}");
        std::fs::remove_file(pkg.join("Manifest.json")).unwrap();
        assert!(manifest_error(&pkg).contains("is missing"));

        let (_d, pkg) = package(&standard_manifest("com.apple.CoreML/other.mlmodel"));
        assert!(manifest_error(&pkg).contains("other.mlmodel` is missing"));

        let (_d, pkg) = package(&standard_manifest("com.apple.CoreML"));
        assert!(manifest_error(&pkg).contains("is not a file"));
    }

    #[test]
    fn parent_and_absolute_paths_are_refused() {
        let (_d, pkg) = package(&standard_manifest("../Manifest.json"));
        assert!(manifest_error(&pkg).contains("`..`"));
        let (_d, pkg) = package(&standard_manifest("com.apple.CoreML/../../x"));
        assert!(manifest_error(&pkg).contains("`..`"));
        let (_d, pkg) = package(&standard_manifest("/etc/passwd"));
        assert!(manifest_error(&pkg).contains("absolute"));
        // Even an item we would not use.
        let text = standard_manifest("com.apple.CoreML/model.mlmodel").replacen(
            "com.apple.CoreML/weights",
            "../../weights",
            1,
        );
        let (_d, pkg) = package(&text);
        assert!(manifest_error(&pkg).contains("`..`"));
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_out_of_the_package_are_refused() {
        let (dir, pkg) = package(&standard_manifest("com.apple.CoreML/link.mlmodel"));
        let outside = dir.path().join("outside.mlmodel");
        std::fs::write(&outside, b"").unwrap();
        std::os::unix::fs::symlink(&outside, pkg.join("Data/com.apple.CoreML/link.mlmodel"))
            .unwrap();
        assert!(manifest_error(&pkg).contains("outside the package"));

        // A weights folder that is a symlink out.
        let (dir, pkg) = package(&standard_manifest("com.apple.CoreML/model.mlmodel"));
        let out_dir = dir.path().join("w");
        std::fs::create_dir(&out_dir).unwrap();
        std::os::unix::fs::symlink(&out_dir, pkg.join("Data/com.apple.CoreML/weights")).unwrap();
        assert!(manifest_error(&pkg).contains("weights item"));

        // A symlink that stays inside the package is fine.
        let (_d, pkg) = package(&standard_manifest("com.apple.CoreML/alias.mlmodel"));
        std::os::unix::fs::symlink(
            "model.mlmodel",
            pkg.join("Data/com.apple.CoreML/alias.mlmodel"),
        )
        .unwrap();
        assert!(read_manifest(&pkg).is_ok());
    }
}
