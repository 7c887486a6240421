//! Git LFS pointers: the small text file git leaves in place of a large file whose object was
//! never fetched (`git lfs pull` replaces it with the real file).

use std::io::Read;
use std::path::Path;

/// How every pointer file begins (the spec's first line).
const POINTER_START: &[u8] = b"version https://git-lfs.github.com/spec/v1";

/// Pointer files are under 200 bytes; a file longer than this is not one.
const MAX_POINTER_BYTES: u64 = 1024;

/// Whether `bytes` are a Git LFS pointer.
pub fn is_pointer(bytes: &[u8]) -> bool {
    bytes.len() as u64 <= MAX_POINTER_BYTES && bytes.starts_with(POINTER_START)
}

/// Whether the regular file at `path` is a Git LFS pointer; reads at most its first kilobyte, and
/// nothing when it is not a small regular file.
pub fn is_pointer_file(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() || meta.len() > MAX_POINTER_BYTES || meta.len() < POINTER_START.len() as u64
    {
        return false;
    }
    let mut head = Vec::new();
    match std::fs::File::open(path) {
        Ok(f) => match f.take(MAX_POINTER_BYTES).read_to_end(&mut head) {
            Ok(_) => is_pointer(&head),
            Err(_) => false,
        },
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const POINTER: &str = "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 3228992\n";

    #[test]
    fn pointers_are_told_from_model_files() {
        assert!(is_pointer(POINTER.as_bytes()));
        assert!(!is_pointer(b"program(1.0)\n"));
        assert!(!is_pointer(b"version https://git-lfs"));
        let mut long = POINTER.as_bytes().to_vec();
        long.resize(4096, b' ');
        assert!(!is_pointer(&long), "a long file is not a pointer");
    }

    #[test]
    fn files_are_read_only_when_small() {
        let dir = tempfile::tempdir().unwrap();
        let pointer = dir.path().join("weight.bin");
        std::fs::write(&pointer, POINTER).unwrap();
        assert!(is_pointer_file(&pointer));
        let real = dir.path().join("real.bin");
        std::fs::write(&real, vec![0u8; 2048]).unwrap();
        assert!(!is_pointer_file(&real));
        assert!(!is_pointer_file(&dir.path().join("absent.bin")));
        assert!(!is_pointer_file(dir.path()));
    }
}
