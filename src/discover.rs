//! Paths → model roots: packages found in folders, paths inside a package mapped to its root,
//! de-duplicated, in a deterministic order.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use walkdir::WalkDir;

use crate::ir::ModelKind;
use crate::read::ReadError;

/// A model root to read.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Discovered {
    /// The model root (package or compiled folder, or the bare file).
    pub path: PathBuf,
    /// What kind of model it is.
    pub kind: ModelKind,
}

fn kind_of_name(path: &Path, is_dir: bool) -> Option<ModelKind> {
    let ext = path.extension()?.to_str()?;
    match (ext, is_dir) {
        ("mlpackage", true) => Some(ModelKind::MlPackage),
        ("mlmodelc", true) => Some(ModelKind::MlModelc),
        ("aimodel", true) => Some(ModelKind::AiModel),
        ("mlmodel", false) => Some(ModelKind::MlModel),
        ("mil", false) => Some(ModelKind::MilText),
        _ => None,
    }
}

/// Removes `.` components and trailing slashes so that one package named two ways is found once.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// The nearest enclosing `.mlpackage` / `.mlmodelc` / `.aimodel` folder of `path` (itself included).
fn enclosing_package(path: &Path) -> Option<(PathBuf, ModelKind)> {
    path.ancestors().find_map(|a| {
        let ext = a.extension()?.to_str()?;
        let kind = match ext {
            "mlpackage" => ModelKind::MlPackage,
            "mlmodelc" => ModelKind::MlModelc,
            "aimodel" => ModelKind::AiModel,
            _ => return None,
        };
        a.is_dir().then(|| (a.to_path_buf(), kind))
    })
}

/// Finds every model named by `inputs`. Errors are per path, so one bad path does not hide the rest.
pub fn discover(inputs: &[PathBuf]) -> Vec<Result<Discovered, ReadError>> {
    let mut found = BTreeSet::new();
    let mut errors = Vec::new();
    for input in inputs {
        let input = normalize(input);
        let meta = match std::fs::metadata(&input) {
            Ok(m) => m,
            Err(e) => {
                errors.push(ReadError::io(&input, &e));
                continue;
            }
        };
        if let Some((root, kind)) = enclosing_package(&input) {
            found.insert(Discovered { path: root, kind });
            continue;
        }
        if let Some(kind) = kind_of_name(&input, meta.is_dir()) {
            found.insert(Discovered { path: input, kind });
            continue;
        }
        if !meta.is_dir() {
            errors.push(ReadError::NotAModel {
                path: input,
                message: "not a Core ML model (expected .mlpackage, .mlmodelc, .mlmodel, .mil or .aimodel)"
                    .into(),
            });
            continue;
        }
        let (models_before, errors_before) = (found.len(), errors.len());
        let mut walk = WalkDir::new(&input)
            .follow_links(false)
            .sort_by_file_name()
            .into_iter();
        while let Some(entry) = walk.next() {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    let path = e
                        .path()
                        .map(Path::to_path_buf)
                        .unwrap_or_else(|| input.clone());
                    errors.push(ReadError::Io {
                        path,
                        message: e.to_string(),
                    });
                    continue;
                }
            };
            let ft = entry.file_type();
            if ft.is_symlink() {
                continue;
            }
            if let Some(kind) = kind_of_name(entry.path(), ft.is_dir()) {
                found.insert(Discovered {
                    path: normalize(entry.path()),
                    kind,
                });
                if ft.is_dir() {
                    walk.skip_current_dir();
                }
            }
        }
        let none_inside = found.iter().all(|d| !d.path.starts_with(&input));
        if found.len() == models_before && errors.len() == errors_before && none_inside {
            errors.push(ReadError::NoModels { path: input });
        }
    }
    let mut out: Vec<Result<Discovered, ReadError>> = found.into_iter().map(Ok).collect();
    out.extend(errors.into_iter().map(Err));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_package_maps_to_root_once() {
        let dir = tempfile::tempdir().unwrap();
        let pkg = dir.path().join("a.mlpackage");
        std::fs::create_dir_all(pkg.join("Data/com.apple.CoreML")).unwrap();
        std::fs::write(pkg.join("Manifest.json"), "{}").unwrap();
        std::fs::write(pkg.join("Data/com.apple.CoreML/model.mlmodel"), "").unwrap();
        let found = discover(&[
            pkg.join("Manifest.json"),
            pkg.join("Data/com.apple.CoreML/model.mlmodel"),
            dir.path().to_path_buf(),
        ]);
        let ok: Vec<_> = found.into_iter().map(|r| r.unwrap()).collect();
        assert_eq!(
            ok,
            vec![Discovered {
                path: pkg,
                kind: ModelKind::MlPackage
            }]
        );
    }

    #[test]
    fn missing_and_foreign_paths_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let txt = dir.path().join("notes.txt");
        std::fs::write(&txt, "x").unwrap();
        let found = discover(&[dir.path().join("nope.mlpackage"), txt]);
        assert_eq!(found.len(), 2);
        assert!(found.iter().all(|r| r.is_err()));
    }
}
