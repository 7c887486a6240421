//! Writing fixed files: atomic replacement (temp file in the same folder, fsync, rename, fsync the
//! folder), package copies for `--output`, and the read-only check.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// What failed while writing, naming the file.
#[derive(Debug, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct WriteError {
    /// The file or folder being written, copied or checked.
    pub path: PathBuf,
    /// What was being done and the operating system's message.
    pub message: String,
}

fn err(path: &Path, what: &str, e: impl std::fmt::Display) -> WriteError {
    WriteError {
        path: path.to_path_buf(),
        message: format!("{what}: {e}"),
    }
}

/// Writes the bytes of a staged file; replaceable in tests to inject failures.
pub(crate) type Writer<'a> = &'a mut dyn FnMut(&mut File, &[u8]) -> io::Result<()>;

/// The [`Writer`] of every real fix: writes all of `bytes`.
pub(crate) fn plain_write(f: &mut File, bytes: &[u8]) -> io::Result<()> {
    f.write_all(bytes)
}

/// Replaces several files in one folder tree. Every new file is staged (written and fsynced) beside
/// its target before any target is touched; if a rename fails, the targets already replaced are
/// restored from hard-link (or copied) backups. On any failure every original is unchanged. A
/// target that does not exist yet is created (its folders too); a failure removes it again.
pub(crate) fn replace_all(
    files: &[(PathBuf, Vec<u8>)],
    writer: Writer<'_>,
) -> Result<(), WriteError> {
    let existed: Vec<bool> = files.iter().map(|(p, _)| p.exists()).collect();
    let mut staged: Vec<(PathBuf, tempfile::TempPath)> = Vec::new();
    for (path, bytes) in files {
        let dir = parent(path);
        fs::create_dir_all(&dir).map_err(|e| err(path, "cannot create its folder", e))?;
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
                    if existed.get(j) == Some(&false) {
                        let _ = fs::remove_file(p);
                    } else if fs::rename(b, p).is_err() {
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

/// Replaces several files of the package folder `root` at once. The fixed package is assembled
/// beside it (the new files written and flushed, every other file hard-linked, so weights are
/// neither copied nor touched), then the two folders are swapped in one `renameat2(RENAME_EXCHANGE)`:
/// a process killed at any point leaves either the whole original or the whole fixed package,
/// never a mix. Where the swap is not available (not Linux, no hard links, symlinks in the
/// package), falls back to [`replace_all`].
pub(crate) fn replace_in_package(
    root: &Path,
    files: &[(PathBuf, Vec<u8>)],
    writer: Writer<'_>,
) -> Result<(), WriteError> {
    let staged_root = match stage_package(root, files, writer) {
        Ok(Some(dir)) => dir,
        Ok(None) => return replace_all(files, writer),
        Err(e) => return Err(e),
    };
    if let Err(e) = exchange(staged_root.path(), root) {
        if e.raw_os_error() == Some(libc_enosys()) || e.kind() == io::ErrorKind::Unsupported {
            drop(staged_root);
            return replace_all(files, writer);
        }
        return Err(err(root, "cannot swap the fixed package into place", e));
    }
    // `staged_root` now holds the original tree (links only); dropping it removes them.
    drop(staged_root);
    sync_dir(&parent(root)).map_err(|e| err(root, "cannot flush the folder", e))
}

/// Builds the fixed package in a temporary folder beside `root`; `Ok(None)` when that cannot be
/// done with hard links (the caller falls back to per-file replacement).
fn stage_package(
    root: &Path,
    files: &[(PathBuf, Vec<u8>)],
    writer: Writer<'_>,
) -> Result<Option<tempfile::TempDir>, WriteError> {
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let staged = tempfile::Builder::new()
        .prefix(&format!(".{name}.coreml-lint-fix-"))
        .tempdir_in(parent(root))
        .map_err(|e| err(root, "cannot create a temporary folder beside it", e))?;
    for entry in walkdir::WalkDir::new(root).min_depth(1).follow_links(false) {
        let entry = entry.map_err(|e| err(root, "cannot list the package", e))?;
        let rel = entry
            .path()
            .strip_prefix(root)
            .map_err(|e| err(entry.path(), "outside the package", e))?;
        let target = staged.path().join(rel);
        let ft = entry.file_type();
        if ft.is_dir() {
            fs::create_dir(&target).map_err(|e| err(&target, "cannot create the folder", e))?;
            if let Ok(meta) = fs::metadata(entry.path()) {
                let _ = fs::set_permissions(&target, meta.permissions());
            }
        } else if let Some((_, bytes)) = files.iter().find(|(p, _)| p.as_path() == entry.path()) {
            let mut f = File::create(&target)
                .map_err(|e| err(entry.path(), "cannot stage the new content", e))?;
            if let Ok(meta) = fs::metadata(entry.path()) {
                let _ = f.set_permissions(meta.permissions());
            }
            writer(&mut f, bytes)
                .map_err(|e| err(entry.path(), "cannot write the new content", e))?;
            f.sync_all()
                .map_err(|e| err(entry.path(), "cannot flush the new content", e))?;
        } else if !ft.is_file() || fs::hard_link(entry.path(), &target).is_err() {
            return Ok(None);
        }
    }
    // Files the package does not hold yet (a new weight file) are added, with their folders.
    for (path, bytes) in files {
        let Ok(rel) = path.strip_prefix(root) else {
            return Ok(None);
        };
        let target = staged.path().join(rel);
        if fs::symlink_metadata(&target).is_ok() {
            continue;
        }
        let dir = parent(&target);
        fs::create_dir_all(&dir).map_err(|e| err(path, "cannot stage its folder", e))?;
        let mut f = File::create(&target).map_err(|e| err(path, "cannot stage the new file", e))?;
        writer(&mut f, bytes).map_err(|e| err(path, "cannot write the new content", e))?;
        f.sync_all()
            .map_err(|e| err(path, "cannot flush the new content", e))?;
        sync_dir(&dir).map_err(|e| err(path, "cannot flush the staged folder", e))?;
    }
    // Every replaced file must now be a file of the staged package.
    if files.iter().any(|(p, _)| {
        p.strip_prefix(root)
            .map_or(true, |rel| !staged.path().join(rel).is_file())
    }) {
        return Ok(None);
    }
    sync_dir(staged.path()).map_err(|e| err(root, "cannot flush the staged folder", e))?;
    Ok(Some(staged))
}

#[cfg(target_os = "linux")]
fn libc_enosys() -> i32 {
    libc::ENOSYS
}

#[cfg(not(target_os = "linux"))]
fn libc_enosys() -> i32 {
    38
}

/// Swaps two paths atomically.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let ca = CString::new(a.as_os_str().as_bytes()).map_err(io::Error::other)?;
    let cb = CString::new(b.as_os_str().as_bytes()).map_err(io::Error::other)?;
    // SAFETY: both pointers are valid NUL-terminated strings for the duration of the call.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            ca.as_ptr(),
            libc::AT_FDCWD,
            cb.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_a: &Path, _b: &Path) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "no atomic folder exchange on this system",
    ))
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
/// holds for root too), and a file whose folder is not writable. For a file that does not exist
/// yet, its nearest existing folder is checked.
pub(crate) fn check_writable(path: &Path) -> Result<(), WriteError> {
    let mut path = path.to_path_buf();
    while fs::symlink_metadata(&path).is_err() {
        match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => path = p.to_path_buf(),
            _ => break,
        }
    }
    let path = path.as_path();
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

/// Creates the `--output` folder (and its parents) when it does not exist yet.
pub(crate) fn create_output_dir(dir: &Path) -> Result<(), WriteError> {
    fs::create_dir_all(dir).map_err(|e| err(dir, "cannot create the output folder", e))
}

/// Copies the model at `src` (a folder or a file) to `dst`, which must not exist.
/// Symlinks are not followed (a package must not point outside itself).
pub(crate) fn copy_model(src: &Path, dst: &Path) -> Result<(), WriteError> {
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
        replace_all(&[(a.clone(), b"new a".to_vec())], &mut plain_write).unwrap();
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
        let names = entries(dir.path());
        assert_eq!(names.len(), 2, "{names:?}");
    }

    /// The names in folder `dir`.
    fn entries(dir: &Path) -> Vec<String> {
        fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect()
    }

    fn package(dir: &Path) -> PathBuf {
        let root = dir.join("m.mlmodelc");
        fs::create_dir_all(root.join("weights")).unwrap();
        fs::write(root.join("model.mil"), b"old mil").unwrap();
        fs::write(root.join("metadata.json"), b"old meta").unwrap();
        fs::write(root.join("weights/weight.bin"), b"weights").unwrap();
        root
    }

    #[test]
    fn package_files_are_swapped_in_together_and_weights_are_linked_not_copied() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let root = package(dir.path());
        let ino = fs::metadata(root.join("weights/weight.bin")).unwrap().ino();
        let files = [
            (root.join("model.mil"), b"new mil".to_vec()),
            (root.join("metadata.json"), b"new meta".to_vec()),
        ];
        replace_in_package(&root, &files, &mut plain_write).unwrap();
        assert_eq!(fs::read(root.join("model.mil")).unwrap(), b"new mil");
        assert_eq!(fs::read(root.join("metadata.json")).unwrap(), b"new meta");
        assert_eq!(
            fs::read(root.join("weights/weight.bin")).unwrap(),
            b"weights"
        );
        assert_eq!(
            fs::metadata(root.join("weights/weight.bin")).unwrap().ino(),
            ino
        );
        // Nothing is left beside the package.
        assert_eq!(entries(dir.path()), ["m.mlmodelc"]);
    }

    /// A writer whose `n`th call fails (a full disk), the others writing everything.
    fn failing_on(n: usize) -> impl FnMut(&mut File, &[u8]) -> io::Result<()> {
        let mut calls = 0;
        move |f, bytes| {
            calls += 1;
            if calls == n {
                return Err(io::Error::other("disk full (injected)"));
            }
            f.write_all(bytes)
        }
    }

    #[test]
    fn a_new_file_in_a_new_folder_is_swapped_in_with_the_package() {
        let dir = tempfile::tempdir().unwrap();
        let root = package(dir.path());
        fs::remove_dir_all(root.join("weights")).unwrap();
        let files = [
            (root.join("model.mil"), b"new mil".to_vec()),
            (root.join("weights/weight.bin"), b"new weights".to_vec()),
        ];
        replace_in_package(&root, &files, &mut plain_write).unwrap();
        assert_eq!(fs::read(root.join("model.mil")).unwrap(), b"new mil");
        assert_eq!(
            fs::read(root.join("weights/weight.bin")).unwrap(),
            b"new weights"
        );
        assert_eq!(entries(dir.path()), ["m.mlmodelc"]);
    }

    #[test]
    fn replace_all_creates_a_missing_file_and_check_writable_looks_at_its_folder() {
        let dir = tempfile::tempdir().unwrap();
        let new = dir.path().join("w/weight.bin");
        check_writable(&new).unwrap();
        replace_all(&[(new.clone(), b"w".to_vec())], &mut plain_write).unwrap();
        assert_eq!(fs::read(&new).unwrap(), b"w");
    }

    #[test]
    fn a_failure_while_staging_the_package_changes_nothing() {
        // The second file replaces one the package has, or is new in a new folder.
        for second in ["metadata.json", "new/weight.bin"] {
            let dir = tempfile::tempdir().unwrap();
            let root = package(dir.path());
            let files = [
                (root.join("model.mil"), b"new mil".to_vec()),
                (root.join(second), b"new second".to_vec()),
            ];
            let e = replace_in_package(&root, &files, &mut failing_on(2)).unwrap_err();
            assert!(e.to_string().contains("injected"), "{e}");
            assert_eq!(fs::read(root.join("model.mil")).unwrap(), b"old mil");
            assert_eq!(fs::read(root.join("metadata.json")).unwrap(), b"old meta");
            assert!(!root.join("new").exists(), "{second}");
            assert_eq!(entries(dir.path()), ["m.mlmodelc"]);
        }
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
