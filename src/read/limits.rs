//! Reading whole files under the caps of [`crate::limits`], and never outside the package.

use crate::limits::MAX_FILE_BYTES;

/// Reads a whole file, refusing files over [`MAX_FILE_BYTES`] and anything that is not a regular
/// file (a FIFO or a device would block or never end).
pub(crate) fn read_capped(path: &std::path::Path) -> Result<Vec<u8>, super::ReadError> {
    use std::io::Read;
    // Checked before opening: opening a FIFO blocks until someone writes to it.
    let meta = std::fs::metadata(path).map_err(|e| super::ReadError::io(path, &e))?;
    if meta.is_dir() {
        return Err(super::ReadError::NotAModel {
            path: path.to_path_buf(),
            message: "is a folder, expected a file".into(),
        });
    }
    if !meta.is_file() {
        return Err(super::ReadError::NotAModel {
            path: path.to_path_buf(),
            message: "is not a regular file (a FIFO, socket or device?); not read".into(),
        });
    }
    let file = std::fs::File::open(path).map_err(|e| super::ReadError::io(path, &e))?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(super::ReadError::TooLarge {
            path: path.to_path_buf(),
            size: meta.len(),
            limit: MAX_FILE_BYTES,
        });
    }
    let mut buf = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut buf)
        .map_err(|e| super::ReadError::io(path, &e))?;
    if buf.len() as u64 > MAX_FILE_BYTES {
        return Err(super::ReadError::TooLarge {
            path: path.to_path_buf(),
            size: buf.len() as u64,
            limit: MAX_FILE_BYTES,
        });
    }
    Ok(buf)
}

/// Refuses `path` when it resolves (through a symlink of the file or of a folder above it) outside
/// `root`. A path that does not resolve (missing, dangling) passes: opening it fails anyway.
pub(crate) fn ensure_inside(
    path: &std::path::Path,
    root: &std::path::Path,
) -> Result<(), super::ReadError> {
    if let (Ok(real), Ok(real_root)) = (std::fs::canonicalize(path), std::fs::canonicalize(root)) {
        if !real.starts_with(&real_root) {
            return Err(super::ReadError::Io {
                path: path.to_path_buf(),
                message: format!(
                    "resolves through a symlink to {}, outside the package; not read",
                    real.display()
                ),
            });
        }
    }
    Ok(())
}

/// [`read_capped`] for a file of a package folder, after [`ensure_inside`].
pub(crate) fn read_capped_inside(
    path: &std::path::Path,
    root: &std::path::Path,
) -> Result<Vec<u8>, super::ReadError> {
    ensure_inside(path, root)?;
    read_capped(path)
}
