//! `Manifest.json` when a fix creates an `.mlpackage`'s weight file: the weights folder is
//! registered as coremltools' packages list it (FORMAT.md §1.1): an item `{author:
//! "com.apple.CoreML", description: "CoreML Model Weights", name: "weights", path:
//! "com.apple.CoreML/weights"}` under a UUID identifier, the file written as coremltools' writer
//! writes it (keys sorted, four-space indent).

use std::fmt::Write;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::ir::{Model, ModelKind};
use crate::read::manifest::read_manifest;

/// A rewritten file (path, bytes) with its lines for the diff.
pub(crate) type FileEdit = ((PathBuf, Vec<u8>), String);

/// The rewritten `Manifest.json` of `model` (with a line for the diff) when `files` create a file
/// in a weights folder the manifest does not name; `None` when nothing needs registering.
pub(crate) fn register_weights(
    model: &Model,
    files: &[(PathBuf, Vec<u8>)],
) -> Result<Option<FileEdit>, String> {
    if model.kind != ModelKind::MlPackage {
        return Ok(None);
    }
    let pkg = &model.root;
    let Some(folder) = files
        .iter()
        .filter(|(p, _)| !p.exists())
        .filter_map(|(p, _)| p.parent())
        .find(|dir| dir.file_name().is_some_and(|n| n == "weights"))
    else {
        return Ok(None);
    };
    let manifest = read_manifest(pkg).map_err(|e| e.to_string())?;
    if let Some(named) = &manifest.weights_dir {
        if same_place(named, folder) {
            return Ok(None);
        }
        return Err(format!(
            "Manifest.json names the weights folder {}, not {}, where `@model_path/weights` resolves",
            named.display(),
            folder.display()
        ));
    }
    let rel = folder
        .strip_prefix(pkg.join("Data"))
        .map_err(|_| format!("{} is not inside the package's Data", folder.display()))?;
    let rel: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let rel = rel.join("/");
    let path = pkg.join("Manifest.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let mut json: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{}: not valid JSON: {e}", path.display()))?;
    let top = json
        .as_object_mut()
        .ok_or_else(|| format!("{}: not a JSON object", path.display()))?;
    let root_id = top
        .get("rootModelIdentifier")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let entries = top
        .get_mut("itemInfoEntries")
        .and_then(Value::as_object_mut)
        .ok_or_else(|| format!("{}: `itemInfoEntries` is not an object", path.display()))?;
    let id = identifier(&root_id, &rel, |id| entries.contains_key(id));
    let mut item = Map::new();
    for (k, v) in [
        ("author", "com.apple.CoreML"),
        ("description", "CoreML Model Weights"),
        ("name", "weights"),
        ("path", rel.as_str()),
    ] {
        item.insert(k.into(), Value::String(v.into()));
    }
    entries.insert(id.clone(), Value::Object(item));
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(&sorted(json), &mut ser).map_err(|e| e.to_string())?;
    if text.ends_with('\n') {
        out.push(b'\n');
    }
    let mut diff = String::new();
    let _ = writeln!(
        diff,
        "--- a/{0}\n+++ b/{0}\n@@ item added: `{id}`, the weights folder `{rel}` @@",
        path.display()
    );
    Ok(Some(((path, out), diff)))
}

/// The same folder, compared by its canonical form when it exists.
fn same_place(a: &Path, b: &Path) -> bool {
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    a == b || canon(a) == canon(b)
}

/// `value` with every object's keys in order (nlohmann's `json::dump`, which coremltools' package
/// writer uses, writes them sorted).
fn sorted(value: Value) -> Value {
    match value {
        Value::Object(m) => {
            let mut pairs: Vec<(String, Value)> = m.into_iter().collect();
            pairs.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(pairs.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(v) => Value::Array(v.into_iter().map(sorted).collect()),
        other => other,
    }
}

/// A new item identifier: UUID-shaped (version 4, RFC variant), in the case of the root model's
/// identifier. coremltools draws a random one (libuuid's `uuid_generate`, uppercase from macOS'
/// writer); this one is derived deterministically from the root identifier and the item's path,
/// so fixing the same package twice writes the same file, and redrawn while `taken`.
fn identifier(root_id: &str, rel: &str, taken: impl Fn(&str) -> bool) -> String {
    let upper = root_id.chars().any(|c| c.is_ascii_uppercase());
    let mut salt: u64 = 0;
    loop {
        let seed = format!("coreml-lint weights item\0{root_id}\0{rel}\0{salt}");
        let hi = fnv1a(seed.as_bytes(), 0xcbf2_9ce4_8422_2325);
        let lo = fnv1a(seed.as_bytes(), 0x6c62_272e_07bb_0142);
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&hi.to_be_bytes());
        b[8..].copy_from_slice(&lo.to_be_bytes());
        b[6] = (b[6] & 0x0f) | 0x40;
        b[8] = (b[8] & 0x3f) | 0x80;
        let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
        let id = format!(
            "{}-{}-{}-{}-{}",
            &hex[0..8],
            &hex[8..12],
            &hex[12..16],
            &hex[16..20],
            &hex[20..32]
        );
        let id = if upper { id.to_ascii_uppercase() } else { id };
        if !taken(&id) {
            return id;
        }
        salt += 1;
    }
}

/// 64-bit FNV-1a of `bytes` from `basis`.
fn fnv1a(bytes: &[u8], basis: u64) -> u64 {
    bytes.iter().fold(basis, |h, &x| {
        (h ^ u64::from(x)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_uuid_shaped_in_the_root_case_and_avoid_taken_ones() {
        let a = identifier(
            "135a6161-3351-550c-8480-55bcc19913e4",
            "com.apple.CoreML/weights",
            |_| false,
        );
        assert_eq!(a.len(), 36);
        assert_eq!(a.as_bytes()[14], b'4', "{a}");
        assert!(matches!(a.as_bytes()[19], b'8' | b'9' | b'a' | b'b'), "{a}");
        assert!(a
            .chars()
            .all(|c| c == '-' || c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
        let b = identifier(
            "79914579-BCDC-4F8A-8506-5975815568AA",
            "com.apple.CoreML/weights",
            |_| false,
        );
        assert!(b.chars().all(|c| !c.is_ascii_lowercase()), "{b}");
        let c = identifier(
            "135a6161-3351-550c-8480-55bcc19913e4",
            "com.apple.CoreML/weights",
            |id| id == a,
        );
        assert_ne!(a, c);
        assert_eq!(
            a,
            identifier(
                "135a6161-3351-550c-8480-55bcc19913e4",
                "com.apple.CoreML/weights",
                |_| false
            )
        );
    }

    #[test]
    fn keys_are_sorted_at_every_level() {
        let v: Value =
            serde_json::from_str(r#"{"b": {"z": 1, "a": [{"y": 2, "x": 3}]}, "a": 0}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&sorted(v)).unwrap(),
            r#"{"a":0,"b":{"a":[{"x":3,"y":2}],"z":1}}"#
        );
    }
}
