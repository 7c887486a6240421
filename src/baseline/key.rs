//! A finding's baseline key: the model's path relative to the baseline file's folder, the
//! sub-model's position, the function, op, state and rule.

use std::path::{Component, Path, PathBuf};

use super::error::BaselineError;
use super::file::Key;
use crate::finding::Finding;
use crate::ir::SubModel;

/// Turns model paths into the baseline's relative, `/`-separated model keys.
#[derive(Clone, Debug)]
pub struct Keyer {
    /// The baseline file's folder, absolute.
    dir: PathBuf,
    /// The baseline file, as given (for errors).
    file: PathBuf,
}

impl Keyer {
    /// Keys relative to the folder of the baseline file `file`.
    pub fn new(file: &Path) -> Keyer {
        let parent = match file.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        Keyer {
            dir: absolute(&parent),
            file: file.to_path_buf(),
        }
    }

    /// The model key of a model root as discovered.
    pub fn model(&self, path: &Path) -> Result<String, BaselineError> {
        relative_to(&absolute(path), &self.dir)
            .map(|rel| slash_path(&rel))
            .ok_or_else(|| {
                BaselineError::new(
                    &self.file,
                    format!(
                        "{} has no path relative to the baseline's folder (another drive?)",
                        path.display()
                    ),
                )
            })
    }

    /// Where a model key points on disk (`..` resolved by name: the model may be gone).
    pub fn model_path(&self, model: &str) -> PathBuf {
        let mut out = PathBuf::new();
        for c in self.dir.join(model).components() {
            match c {
                Component::ParentDir => {
                    out.pop();
                }
                Component::CurDir => {}
                other => out.push(other.as_os_str()),
            }
        }
        out
    }

    /// The key of a finding.
    pub fn finding(&self, f: &Finding) -> Result<Key, BaselineError> {
        Ok(Key {
            model: self.model(&f.path)?,
            sub_model: sub_model_key(f.sub_model.as_ref()),
            function: f.function.clone(),
            op: f.op.clone(),
            state: f.state.clone(),
            rule: f.rule.clone(),
        })
    }
}

/// A sub-model's key: its position (a sub-model renamed in the pipeline stays the same model).
pub fn sub_model_key(sub: Option<&SubModel>) -> Option<String> {
    sub.map(SubModel::position_text)
}

/// `path` made absolute, symlinks resolved when it exists (so `/tmp` and `/private/tmp` agree).
pub(crate) fn absolute(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// `path` relative to `base` (both absolute), with `..` where `path` is outside `base`; `None`
/// when they share no root (two drives).
fn relative_to(path: &Path, base: &Path) -> Option<PathBuf> {
    let (p, b) = (normal(path), normal(base));
    if p.first() != b.first() {
        return None;
    }
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c.as_os_str());
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    Some(out)
}

fn normal(p: &Path) -> Vec<Component<'_>> {
    p.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

/// The path with `/` between its components, whatever the platform.
fn slash_path(path: &Path) -> String {
    let parts: Vec<String> = path
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_relative_to_the_baseline_folder() {
        let rel =
            |p: &str, b: &str| relative_to(Path::new(p), Path::new(b)).map(|r| slash_path(&r));
        assert_eq!(
            rel("/zoo/Models/a.mlpackage", "/zoo").as_deref(),
            Some("Models/a.mlpackage")
        );
        assert_eq!(rel("/zoo/a.mil", "/zoo/ci").as_deref(), Some("../a.mil"));
        assert_eq!(rel("/zoo", "/zoo").as_deref(), Some("."));
        let keyer = Keyer {
            dir: PathBuf::from("/zoo/ci"),
            file: PathBuf::from("b.json"),
        };
        assert_eq!(
            keyer.model_path("../Models/a.mil"),
            Path::new("/zoo/Models/a.mil")
        );
    }

    #[test]
    fn a_finding_is_keyed_without_its_line_or_order() {
        let dir = tempfile::tempdir().unwrap();
        let keyer = Keyer::new(&dir.path().join("b.json"));
        let mut f = Finding::bare("r", &dir.path().join("m.mil").display().to_string());
        f.function = Some("main".into());
        f.op = Some("x".into());
        f.order = Some(7);
        f.span = Some(crate::ir::Span::new(100, 4));
        let key = keyer.finding(&f).unwrap();
        assert_eq!(key.model, "m.mil");
        f.order = Some(1);
        f.span = None;
        assert_eq!(keyer.finding(&f).unwrap(), key);
    }
}
