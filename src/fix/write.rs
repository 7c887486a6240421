//! Writing fixed files: atomic replacement (temp file in the same folder, fsync, rename, fsync the
//! folder), package copies for `--output`, and the read-only check.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// What failed while writing, naming the file.
#[derive(Debug, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct WriteError {
    pub path: PathBuf,
    pub message: String,
}

fn err(path: &Path, what: &str, e: impl std::fmt::Display) -> WriteError {
    WriteError {
        path: path.to_path_buf(),
        message: format!("{what}: {e}"),
    }
}

/// Writes the bytes of a staged file; replaceable in tests to inject failures.
pub type Writer<'a> = &'a mut dyn FnMut(&mut File, &[u8]) -> io::Result<()>;

fn plain_write(f: &mut File, bytes: &[u8]) -> io::Result<()> {
    f.write_all(bytes)
}

/// Replaces `path` with `bytes` atomically: on any failure the original file is unchanged.
pub fn replace_atomically(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    replace_all(&[(path.to_path_buf(), bytes.to_vec())], &mut plain_write)
}

/// Replaces several files in one folder tree. Every new file is staged (written and fsynced) beside
/// its target before any target is touched; if a rename fails, the targets already replaced are
/// restored from hard-link (or copied) backups. On any failure every original is unchanged.
pub fn replace_all(files: &[(PathBuf, Vec<u8>)], writer: Writer<'_>) -> Result<(), WriteError> {
    let mut staged: Vec<(PathBuf, tempfile::TempPath)> = Vec::new();
    for (path, bytes) in files {
        let dir = parent(path);
        let mut tmp = tempfile::Builder::new()
            .prefix(".coreml-lint-fix-")
            .tempfile_in(&dir)
            .map_err(|e| err(path, "cannot create a temporary file beside it", e))?;
        if let Ok(meta) = fs::metadata(path) {
            // Keep the original's permission bits.
            let _ = tmp.as_file().set_permissions(meta.permissions());
        }
        writer(tmp.as_file_mut(), bytes)
            .map_err(|e| err(path, "cannot write the new content", e))?;
        tmp.as_file()
            .sync_all()
            .map_err(|e| err(path, "cannot flush the new content", e))?;
        staged.push((path.clone(), tmp.into_temp_path()));
    }
    let mut backups: Vec<(PathBuf, tempfile::TempPath)> = Vec::new();
    for (path, _) in &staged {
        let backup = backup_of(path)?;
        backups.push((path.clone(), backup));
    }
    let mut done: Vec<usize> = Vec::new();
    for (i, (path, tmp)) in staged.iter().enumerate() {
        if let Err(e) = fs::rename(tmp, path) {
            for &j in done.iter().rev() {
                if let (Some((p, _)), Some((_, b))) = (staged.get(j), backups.get(j)) {
                    if fs::rename(b, p).is_err() {
                        let _ = fs::copy(b, p);
                    }
                }
            }
            return Err(err(path, "cannot move the new content into place", e));
        }
        done.push(i);
    }
    for (path, _) in &staged {
        sync_dir(&parent(path)).map_err(|e| err(path, "cannot flush the folder", e))?;
    }
    Ok(())
}

/// A temporary copy of `path`'s current content beside it (removed when dropped).
fn backup_of(path: &Path) -> Result<tempfile::TempPath, WriteError> {
    let dir = parent(path);
    let tmp = tempfile::Builder::new()
        .prefix(".coreml-lint-orig-")
        .tempfile_in(&dir)
        .map_err(|e| err(path, "cannot create a backup beside it", e))?
        .into_temp_path();
    if path.exists() {
        fs::copy(path, &tmp).map_err(|e| err(path, "cannot back it up", e))?;
    }
    Ok(tmp)
}

fn parent(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    match File::open(dir) {
        Ok(d) => d.sync_all().or(Ok(())),
        Err(e) => Err(e),
    }
}

/// Refuses a file or folder whose permission bits forbid writing (checked explicitly, so that it
/// holds for root too), and a file whose folder is not writable.
pub fn check_writable(path: &Path) -> Result<(), WriteError> {
    for p in [path.to_path_buf(), parent(path)] {
        let meta = fs::metadata(&p).map_err(|e| err(&p, "cannot inspect", e))?;
        if meta.permissions().readonly() {
            return Err(WriteError {
                path: p,
                message:
                    "is read-only; nothing was changed (use --output DIR to write a fixed copy)"
                        .into(),
            });
        }
    }
    // A probe file catches read-only mounts that the permission bits do not show.
    let probe = tempfile::Builder::new()
        .prefix(".coreml-lint-probe-")
        .tempfile_in(parent(path));
    match probe {
        Ok(_) => Ok(()),
        Err(e) => Err(err(
            &parent(path),
            "is not writable; nothing was changed (use --output DIR to write a fixed copy)",
            e,
        )),
    }
}

/// Copies the model at `src` (a folder or a file) to `dst`, which must not exist.
/// Symlinks are not followed (a package must not point outside itself).
pub fn copy_model(src: &Path, dst: &Path) -> Result<(), WriteError> {
    if dst.exists() {
        return Err(WriteError {
            path: dst.to_path_buf(),
            message: "already exists; refusing to overwrite it".into(),
        });
    }
    let meta = fs::symlink_metadata(src).map_err(|e| err(src, "cannot inspect", e))?;
    if meta.is_file() {
        fs::copy(src, dst).map_err(|e| err(dst, "cannot copy the model here", e))?;
        return Ok(());
    }
    let result = copy_dir(src, dst);
    if result.is_err() {
        let _ = fs::remove_dir_all(dst);
    }
    result
}

fn copy_dir(src: &Path, dst: &Path) -> Result<(), WriteError> {
    fs::create_dir_all(dst).map_err(|e| err(dst, "cannot create the folder", e))?;
    for entry in walkdir::WalkDir::new(src).min_depth(1).follow_links(false) {
        let entry = entry.map_err(|e| err(src, "cannot list the package", e))?;
        let rel = entry
            .path()
            .strip_prefix(src)
            .map_err(|e| err(entry.path(), "outside the package", e))?;
        let target = dst.join(rel);
        let ft = entry.file_type();
        if ft.is_dir() {
            fs::create_dir_all(&target).map_err(|e| err(&target, "cannot create the folder", e))?;
        } else if ft.is_file() {
            fs::copy(entry.path(), &target).map_err(|e| err(&target, "cannot copy", e))?;
        } else {
            return Err(WriteError {
                path: entry.path().to_path_buf(),
                message: "is a symlink or special file; refusing to copy it".into(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_and_keeps_the_original_on_failure() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.txt");
        let b = dir.path().join("b.txt");
        fs::write(&a, b"old a").unwrap();
        fs::write(&b, b"old b").unwrap();
        replace_atomically(&a, b"new a").unwrap();
        assert_eq!(fs::read(&a).unwrap(), b"new a");

        // Fail on the second staged file: neither target changes.
        let mut calls = 0;
        let mut failing = |f: &mut File, bytes: &[u8]| {
            calls += 1;
            if calls == 2 {
                f.write_all(&bytes[..1])?;
                return Err(io::Error::other("disk full (injected)"));
            }
            f.write_all(bytes)
        };
        let e = replace_all(
            &[
                (a.clone(), b"newer a".to_vec()),
                (b.clone(), b"new b".to_vec()),
            ],
            &mut failing,
        )
        .unwrap_err();
        assert!(e.to_string().contains("injected"), "{e}");
        assert_eq!(fs::read(&a).unwrap(), b"new a");
        assert_eq!(fs::read(&b).unwrap(), b"old b");
        // No staged or backup files are left behind.
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }

    #[test]
    fn read_only_folders_are_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("m");
        fs::create_dir(&sub).unwrap();
        let f = sub.join("model.mil");
        fs::write(&f, b"x").unwrap();
        fs::set_permissions(&sub, fs::Permissions::from_mode(0o555)).unwrap();
        let e = check_writable(&f).unwrap_err();
        fs::set_permissions(&sub, fs::Permissions::from_mode(0o755)).unwrap();
        assert!(e.to_string().contains("read-only"), "{e}");
        assert_eq!(fs::read(&f).unwrap(), b"x");
    }
}
