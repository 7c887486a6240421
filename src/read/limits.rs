//! Caps on what hostile input can make the reader allocate or recurse into.

/// Largest `model.mlmodel` / `model.mil` / `metadata.json` read into memory (2 GiB).
pub const MAX_FILE_BYTES: u64 = 2 << 30;
/// Deepest nesting of brackets, blocks or types the parsers follow.
pub const MAX_NESTING: usize = 256;
/// Deepest nesting of `cond` / `while_loop` blocks lowered from a protobuf. Lower than
/// [`MAX_NESTING`] because lowering, graph building and rendering each recurse once per level
/// with large frames (2 MiB thread stacks overflow near 250 levels in debug builds); real
/// programs nest a handful of levels.
pub const MAX_BLOCK_NESTING: usize = 64;
/// Largest element count of an immediate tensor that is decoded.
pub const MAX_IMMEDIATE_ELEMENTS: u64 = 1 << 24;
/// Largest dimension accepted in a declared shape (2^40, as the issue says).
pub const MAX_DIM: u64 = 1 << 40;
/// Tensors with at most this many elements are const-evaluated by analysis passes.
pub const MAX_CONSTEVAL_ELEMENTS: u64 = 1 << 16;

/// Reads a whole file, refusing files over [`MAX_FILE_BYTES`].
pub fn read_capped(path: &std::path::Path) -> Result<Vec<u8>, super::ReadError> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| super::ReadError::io(path, &e))?;
    let meta = file
        .metadata()
        .map_err(|e| super::ReadError::io(path, &e))?;
    if meta.is_dir() {
        return Err(super::ReadError::NotAModel {
            path: path.to_path_buf(),
            message: "is a folder, expected a file".into(),
        });
    }
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
