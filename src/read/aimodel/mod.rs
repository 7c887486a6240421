//! Core AI assets (`X.aimodel/`): the bundle's files, `metadata.json`, `main.hash` and the MLIR
//! bytecode container of `main.mlirb`, as an [`AiAsset`] inventory on a [`Model`] with no program.
//!
//! Missing, symlinked or Git-LFS-pointer files are recorded (rules report them), never followed;
//! a Git LFS pointer is also the model's [`BundleFault`], as in a Core ML bundle, so one check
//! (`bundle-lfs-pointer`) reports it for both kinds. Bytecode that does not parse is a
//! [`ReadError`] naming the file and the byte offset.

pub mod aicode;
pub mod bytecode;
pub mod elements;
pub mod ir_section;
pub mod op_count;
pub mod program;
pub mod sha256;

use std::path::Path;
use std::sync::Arc;

use super::outcome::ReadOutcome;
use super::{limits, ReadError};
use crate::ir::coreai::{AiAsset, AssetFile};
use crate::ir::{
    BundleFault, BundleFaultKind, Model, ModelDesc, ModelKind, Node, Program, SourceText, Span,
};

/// The program file.
pub const PROGRAM: &str = "main.mlirb";
/// Raw SHA-256 of the program file.
pub const HASH: &str = "main.hash";
/// The asset's JSON metadata.
pub const METADATA: &str = "metadata.json";

/// Reads the bundle at `dir`; with `render`, the source text is the inventory as `dump` prints it
/// (empty otherwise, as for a protobuf program).
pub fn read_aimodel(dir: &Path, render: bool) -> Result<ReadOutcome, ReadError> {
    let (mut asset, bytes) = read_bundle(dir)?;
    let mut text = asset.to_string();
    let mut functions = Vec::new();
    if let (Some(bytes), Some(b)) = (&bytes, &asset.bytecode) {
        let lowered = program::lower(bytes, b, &mut text).map_err(|e| ReadError::Program {
            path: dir.join(PROGRAM),
            message: format!("Core AI program: {} at byte {}", e.message, e.offset),
        })?;
        asset.asset_version = lowered.asset_version;
        asset.functions = lowered.summaries;
        functions = lowered.functions;
    }
    if !render {
        // As for a protobuf program read without its rendering: no text, no spans into it.
        text.clear();
        for f in &mut functions {
            f.span = Span::default();
            for node in f.graph.node_weights_mut() {
                match node {
                    Node::Op(op) => op.span = Span::default(),
                    Node::Input(input) => input.span = Span::default(),
                }
            }
        }
    }
    let bundle = lfs_pointers(&asset, dir);
    Ok(ReadOutcome::Model(Box::new(Model {
        path: dir.to_path_buf(),
        kind: ModelKind::AiModel,
        spec_version: None,
        description: ModelDesc {
            coreai: Some(Arc::new(asset)),
            ..ModelDesc::default()
        },
        program: Program {
            version: "coreai".into(),
            attributes: Vec::new(),
            functions,
        },
        source: SourceText {
            name: format!("{} (inventory)", dir.display()),
            file: dir.join(PROGRAM),
            text: Arc::from(text),
            is_file: false,
            lines: None,
        },
        model_path: dir.to_path_buf(),
        root: dir.to_path_buf(),
        sub_model: None,
        bundle,
    })))
}

/// The files of the asset that are Git LFS pointers, as the bundle faults every model kind
/// reports through (`analysis::bundle`).
fn lfs_pointers(asset: &AiAsset, dir: &Path) -> Vec<BundleFault> {
    asset
        .files
        .iter()
        .filter(|(_, f)| *f == AssetFile::LfsPointer)
        .map(|(name, _)| BundleFault {
            kind: BundleFaultKind::LfsPointer,
            file: dir.join(name),
        })
        .collect()
}

/// The inventory of the bundle at `dir` (the program is not read).
pub fn read_asset(dir: &Path) -> Result<AiAsset, ReadError> {
    read_bundle(dir).map(|(asset, _)| asset)
}

/// The inventory of the bundle at `dir` and the bytes of its program file.
fn read_bundle(dir: &Path) -> Result<(AiAsset, Option<Vec<u8>>), ReadError> {
    let mut asset = AiAsset::default();
    let mut contents = Vec::new();
    for name in [PROGRAM, HASH, METADATA] {
        let path = dir.join(name);
        let (state, bytes) = read_file(&path, dir)?;
        asset.files.push((name.to_string(), state));
        contents.push(bytes);
    }
    let [program, hash, metadata]: [Option<Vec<u8>>; 3] = contents.try_into().unwrap_or_default();
    if let Some(meta) = metadata {
        asset.metadata = parse_metadata(&meta, &dir.join(METADATA))?;
    }
    if let Some(program) = &program {
        let parsed = bytecode::parse(program).map_err(|e| ReadError::Program {
            path: dir.join(PROGRAM),
            message: format!("MLIR bytecode: {} at byte {}", e.message, e.offset),
        })?;
        asset.bytecode = Some(parsed);
        if let Some(stored) = &hash {
            asset.hash = Some((sha256::hex(stored), sha256::hex(&sha256::sha256(program))));
        }
    }
    Ok((asset, program))
}

/// What is at `path` and, for a regular file with content, its bytes.
fn read_file(path: &Path, dir: &Path) -> Result<(AssetFile, Option<Vec<u8>>), ReadError> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok((AssetFile::Missing, None))
        }
        Err(e) => return Err(ReadError::io(path, &e)),
    };
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(path)
            .map(|t| t.display().to_string())
            .unwrap_or_default();
        return Ok((AssetFile::Symlink(target), None));
    }
    if !meta.is_file() {
        return Ok((AssetFile::NotAFile, None));
    }
    limits::ensure_inside(path, dir)?;
    let bytes = limits::read_capped(path)?;
    if super::lfs::is_pointer(&bytes) {
        return Ok((AssetFile::LfsPointer, None));
    }
    Ok((AssetFile::Present(bytes.len() as u64), Some(bytes)))
}

/// Top-level keys of `metadata.json`: strings as they are, other values as compact JSON.
fn parse_metadata(bytes: &[u8], path: &Path) -> Result<Vec<(String, String)>, ReadError> {
    let bad = |message: String| ReadError::Metadata {
        path: path.to_path_buf(),
        message,
    };
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| bad(format!("not JSON: {e}")))?;
    let serde_json::Value::Object(map) = value else {
        return Err(bad("not a JSON object".into()));
    };
    let mut out: Vec<(String, String)> = map
        .into_iter()
        .map(|(k, v)| match v {
            serde_json::Value::String(s) => (k, s),
            other => (k, other.to_string()),
        })
        .collect();
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("corpus/coreai")
            .join(name)
    }

    #[test]
    fn clean_asset_inventory() {
        let a = read_asset(&corpus("clean.aimodel")).unwrap();
        assert!(matches!(a.files[0].1, AssetFile::Present(n) if n > 100));
        assert_eq!(a.metadata_value("producer"), Some("coreai-core 1.0.0b3"));
        let (stored, computed) = a.hash.clone().unwrap();
        assert_eq!(stored, computed);
        let b = a.bytecode.unwrap();
        assert_eq!((b.version, b.producer.as_str()), (6, "MLIR22.0.0git"));
        assert_eq!(b.dialects, vec!["aicode".to_string()]);
        assert!(b.ops.contains(&"aicode.serialization.asset".to_string()));
        assert!(b.ops.contains(&"aicode.primitive.constant_v1".to_string()));
    }

    #[test]
    fn bundle_defects_are_recorded_not_errors() {
        let lfs = read_asset(&corpus("lfs-pointer.aimodel")).unwrap();
        assert_eq!(lfs.files[0].1, AssetFile::LfsPointer);
        assert!(lfs.bytecode.is_none());
        let missing = read_asset(&corpus("missing-hash.aimodel")).unwrap();
        assert_eq!(missing.files[1].1, AssetFile::Missing);
        let link = read_asset(&corpus("symlink.aimodel")).unwrap();
        assert!(matches!(&link.files[2].1, AssetFile::Symlink(t) if t.contains("clean.aimodel")));
        assert!(link.metadata.is_empty(), "a symlink is not followed");
        let bad = read_asset(&corpus("hash-mismatch.aimodel")).unwrap();
        let (stored, computed) = bad.hash.unwrap();
        assert_ne!(stored, computed);
    }

    #[test]
    fn truncated_program_names_file_and_offset() {
        let dir = tempfile::tempdir().unwrap();
        let src = corpus("clean.aimodel");
        for name in [HASH, METADATA] {
            std::fs::copy(src.join(name), dir.path().join(name)).unwrap();
        }
        let bytes = std::fs::read(src.join(PROGRAM)).unwrap();
        std::fs::write(dir.path().join(PROGRAM), &bytes[..bytes.len() / 2]).unwrap();
        let err = read_asset(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("main.mlirb") && err.contains("at byte"),
            "{err}"
        );
    }
}
