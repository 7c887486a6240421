//! Memory-mapped weight files (blob storage v2, FORMAT.md §4): header and records only.
//!
//! A weight file is a 64-byte header followed by a chain of 64-byte metadata records, each followed by
//! its payload. This module maps the file read-only and reads the header and the records; payload
//! bytes are touched only through [`BlobFile::payload`], which refuses payloads over a caller-given
//! cap, so a 2 GB file costs what a 2 KB one does. Every offset and size from the file goes through
//! checked arithmetic. The linter never writes a weight file.

#![deny(clippy::unwrap_used, clippy::indexing_slicing)]

use std::fmt;
use std::fs::File;
use std::path::{Component, Path, PathBuf};

use memmap2::Mmap;

use crate::ir::DType;

/// Size of the storage header at offset 0.
pub(crate) const HEADER_BYTES: u64 = 64;
/// Size of one metadata record.
pub(crate) const RECORD_BYTES: u64 = 64;
/// Alignment of records and payloads.
pub(crate) const ALIGNMENT: u64 = 64;
/// First four bytes of every metadata record.
pub(crate) const SENTINEL: u32 = 0xDEAD_BEEF;
/// The only storage format version Core ML reads.
pub(crate) const FORMAT_VERSION: u32 = 2;
/// The prefix every blob path written by coremltools starts with.
pub(crate) const MODEL_PATH_PREFIX: &str = "@model_path/";
/// Most records [`BlobFile::walk`] follows; real files hold thousands at most.
pub(crate) const MAX_WALK_RECORDS: usize = 1 << 22;

/// Storage dtype codes (FORMAT.md §4.4). A separate numbering from MIL's `DataType`.
const STORAGE_CODES: &[(u32, DType)] = &[
    (1, DType::Fp16),
    (2, DType::Fp32),
    (3, DType::UInt8),
    (4, DType::Int8),
    (5, DType::Bf16),
    (6, DType::Int16),
    (7, DType::UInt16),
    (8, DType::Int4),
    (9, DType::UInt1),
    (10, DType::UInt2),
    (11, DType::UInt4),
    (12, DType::UInt3),
    (13, DType::UInt6),
    (14, DType::Int32),
    (15, DType::UInt32),
    (16, DType::Fp8E4M3Fn),
    (17, DType::Fp8E5M2),
];

/// The MIL element type a storage dtype code stands for.
pub(crate) fn storage_dtype(code: u32) -> Option<DType> {
    STORAGE_CODES.iter().find(|e| e.0 == code).map(|e| e.1)
}

/// The storage dtype code for a MIL element type (`None` for types a blob cannot hold).
pub(crate) fn storage_code(dtype: DType) -> Option<u32> {
    STORAGE_CODES.iter().find(|e| e.1 == dtype).map(|e| e.0)
}

/// Bytes taken by `count` elements of `bits` bits each, packed and rounded up to a whole byte.
pub(crate) fn packed_bytes(count: u64, bits: u32) -> Option<u64> {
    let total_bits = count.checked_mul(u64::from(bits))?;
    Some(total_bits / 8 + u64::from(total_bits % 8 != 0))
}

/// Rounds `x` up to the next multiple of [`ALIGNMENT`].
pub(crate) fn align_up(x: u64) -> Option<u64> {
    Some(x.checked_add(ALIGNMENT - 1)? / ALIGNMENT * ALIGNMENT)
}

/// Why a blob path string was not resolved to a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PathError {
    /// An absolute path (`/…`).
    Absolute,
    /// Not `@model_path/…`.
    NoModelPath,
    /// The path climbs out of the package with `..`.
    ClimbsOut,
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PathError::Absolute => "is an absolute path; weight paths must start with @model_path/",
            PathError::NoModelPath => "does not start with @model_path/",
            PathError::ClimbsOut => "climbs out of the package with `..`",
        })
    }
}

/// Resolves a written blob path (`@model_path/weights/weight.bin`) against `model_path`, purely
/// lexically: the result is never outside `root`. Symlinks are checked when the file is opened.
pub(crate) fn resolve_blob_path(
    written: &str,
    model_path: &Path,
    root: &Path,
) -> Result<PathBuf, PathError> {
    if written.starts_with('/') || Path::new(written).is_absolute() {
        return Err(PathError::Absolute);
    }
    let rest = written
        .strip_prefix(MODEL_PATH_PREFIX)
        .ok_or(PathError::NoModelPath)?;
    // Climbing with `..` may pop the components of `model_path` below `root`, never more. When
    // `model_path` is not under `root` (it always is for packages the reader made), it is the floor.
    let (base, mut stack): (&Path, Vec<PathBuf>) = match model_path.strip_prefix(root) {
        Ok(rel) => (
            root,
            rel.components()
                .filter_map(|c| match c {
                    Component::Normal(s) => Some(PathBuf::from(s)),
                    _ => None,
                })
                .collect(),
        ),
        Err(_) => (model_path, Vec::new()),
    };
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                stack.pop().ok_or(PathError::ClimbsOut)?;
            }
            name => stack.push(PathBuf::from(name)),
        }
    }
    let mut out = base.to_path_buf();
    out.extend(stack);
    Ok(out)
}

/// Why a weight file could not be opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpenError {
    /// Nothing at the path; `folder_missing` names the missing parent folder, if that is the cause.
    NotFound {
        /// The nearest parent folder that does not exist, when the file's own folder is missing.
        folder_missing: Option<PathBuf>,
    },
    /// Something other than a regular file (a folder, a FIFO, …).
    NotAFile {
        /// What it is instead, with its article ("a folder").
        what: &'static str,
    },
    /// A symlink (of the file or a folder above it) leads outside the package.
    Escapes {
        /// Where the path resolves to.
        target: PathBuf,
    },
    /// Shorter than the 64-byte header.
    TooShort {
        /// The file's length in bytes.
        len: u64,
    },
    /// Any other I/O error.
    Io {
        /// The operating system's message.
        message: String,
    },
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::NotFound {
                folder_missing: Some(dir),
            } => write!(f, "the folder {} does not exist", dir.display()),
            OpenError::NotFound {
                folder_missing: None,
            } => f.write_str("the file does not exist"),
            OpenError::NotAFile { what } => write!(f, "is {what}, not a file"),
            OpenError::Escapes { target } => write!(
                f,
                "resolves through a symlink to {}, outside the package; not opened",
                target.display()
            ),
            OpenError::TooShort { len: 0 } => {
                f.write_str("the file is empty; a weight file starts with a 64-byte header")
            }
            OpenError::TooShort { len } => write!(
                f,
                "the file is {len} bytes, shorter than the 64-byte header"
            ),
            OpenError::Io { message } => write!(f, "cannot be opened: {message}"),
        }
    }
}

/// The storage header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Number of blobs the writer says it appended.
    pub count: u32,
    /// Format version; only [`FORMAT_VERSION`] is readable.
    pub version: u32,
}

/// One 64-byte metadata record, as found (the sentinel is not checked here).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// File offset of the record itself.
    pub offset: u64,
    /// The first four bytes, `0xDEADBEEF` in a valid record.
    pub sentinel: u32,
    /// Storage dtype code (see [`storage_dtype`]).
    pub dtype_code: u32,
    /// Payload length in bytes.
    pub size: u64,
    /// Absolute file offset of the payload.
    pub data_offset: u64,
    /// Unused bits in the last payload byte (sub-byte dtypes; garbage in old files otherwise).
    pub padding_bits: u64,
}

impl Record {
    /// True when the record starts with `0xDEADBEEF`.
    pub(crate) fn has_sentinel(&self) -> bool {
        self.sentinel == SENTINEL
    }

    /// End of the payload (exclusive), `None` on overflow.
    pub(crate) fn payload_end(&self) -> Option<u64> {
        self.data_offset.checked_add(self.size)
    }

    /// Where the next record of the chain would start, `None` on overflow.
    pub(crate) fn next_record(&self) -> Option<u64> {
        align_up(self.payload_end()?)
    }
}

/// A record offset that does not leave 64 bytes before the end of the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfBounds {
    /// The requested record offset.
    pub offset: u64,
    /// The file's length in bytes.
    pub file_len: u64,
}

/// Why [`BlobFile::walk`] stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WalkEnd {
    /// The chain ended exactly at the end of the file.
    EndOfFile,
    /// Fewer than 64 bytes are left at `at`.
    Truncated {
        /// Where the next record would start.
        at: u64,
    },
    /// No sentinel at `at`.
    NotARecord {
        /// Where the next record would start.
        at: u64,
        /// The four bytes found there instead of `0xDEADBEEF`.
        found: u32,
    },
    /// The record at `at` has a payload that overflows, leaves the file, or does not move forward.
    BadPayload {
        /// Offset of the record.
        at: u64,
    },
    /// [`MAX_WALK_RECORDS`] were read.
    Capped {
        /// Where the next record would start.
        at: u64,
    },
}

/// The record chain from offset 64 onwards, as far as it holds together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Walk {
    /// Records in file order (strictly increasing offsets).
    pub records: Vec<Record>,
    /// Why the walk stopped after the last record.
    pub end: WalkEnd,
}

/// What lies at a file offset, by the walked chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// Inside the 64-byte storage header.
    FileHeader,
    /// Exactly at a record of the chain.
    RecordStart {
        /// Offset of the record.
        record: u64,
    },
    /// Inside a record, after its start.
    InsideRecord {
        /// Offset of the record.
        record: u64,
    },
    /// Inside the payload of the record at `record`.
    InsidePayload {
        /// Offset of the record the payload belongs to.
        record: u64,
    },
    /// In the gap between a payload and the next record.
    Padding {
        /// Offset of the record whose payload ends before the gap.
        after: u64,
        /// Where the next record starts (or would start).
        next: u64,
    },
    /// Beyond the chain that could be walked.
    BeyondChain {
        /// Offset of the last walked record, `None` when no record could be read.
        last: Option<u64>,
    },
}

impl Walk {
    /// The walked record at `offset`, if any.
    pub fn record(&self, offset: u64) -> Option<&Record> {
        self.records
            .binary_search_by_key(&offset, |r| r.offset)
            .ok()
            .and_then(|i| self.records.get(i))
    }

    /// Where `offset` falls relative to the walked records.
    pub fn locate(&self, offset: u64) -> Location {
        if offset < HEADER_BYTES {
            return Location::FileHeader;
        }
        let idx = self.records.partition_point(|r| r.offset <= offset);
        let Some(r) = idx.checked_sub(1).and_then(|i| self.records.get(i)) else {
            return Location::BeyondChain { last: None };
        };
        if offset == r.offset {
            return Location::RecordStart { record: r.offset };
        }
        if offset - r.offset < RECORD_BYTES {
            return Location::InsideRecord { record: r.offset };
        }
        let end = r.payload_end().unwrap_or(u64::MAX);
        if offset >= r.data_offset && offset < end {
            return Location::InsidePayload { record: r.offset };
        }
        match self.records.get(idx) {
            Some(next) => Location::Padding {
                after: r.offset,
                next: next.offset,
            },
            None if offset < r.next_record().unwrap_or(u64::MAX) => Location::Padding {
                after: r.offset,
                next: r.next_record().unwrap_or(u64::MAX),
            },
            None => Location::BeyondChain {
                last: Some(r.offset),
            },
        }
    }
}

/// A weight file mapped read-only.
pub struct BlobFile {
    path: PathBuf,
    map: Mmap,
}

impl fmt::Debug for BlobFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BlobFile")
            .field("path", &self.path)
            .field("len", &self.len())
            .finish()
    }
}

impl BlobFile {
    /// Opens and maps `path`, refusing anything that is not a regular file inside `root` (after
    /// following symlinks) or is shorter than the header. Nothing outside `root` is opened.
    pub fn open(path: &Path, root: &Path) -> Result<BlobFile, OpenError> {
        let canonical = match std::fs::canonicalize(path) {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let folder_missing = path.parent().filter(|p| !p.is_dir()).map(Path::to_path_buf);
                return Err(OpenError::NotFound { folder_missing });
            }
            Err(e) => {
                return Err(OpenError::Io {
                    message: e.to_string(),
                })
            }
        };
        let canonical_root = std::fs::canonicalize(root).map_err(|e| OpenError::Io {
            message: format!("package folder {}: {e}", root.display()),
        })?;
        if !canonical.starts_with(&canonical_root) {
            return Err(OpenError::Escapes { target: canonical });
        }
        let meta = std::fs::metadata(&canonical).map_err(|e| OpenError::Io {
            message: e.to_string(),
        })?;
        if meta.is_dir() {
            return Err(OpenError::NotAFile { what: "a folder" });
        }
        // A FIFO or device would block or never end; only regular files are opened.
        if !meta.is_file() {
            return Err(OpenError::NotAFile {
                what: "not a regular file",
            });
        }
        if meta.len() < HEADER_BYTES {
            return Err(OpenError::TooShort { len: meta.len() });
        }
        let file = File::open(&canonical).map_err(|e| OpenError::Io {
            message: e.to_string(),
        })?;
        // SAFETY: the map is read-only and this process never writes the file. Another process
        // truncating it while we read would fault, as it would for Core ML's own mmap reader.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| OpenError::Io {
            message: e.to_string(),
        })?;
        if (map.len() as u64) < HEADER_BYTES {
            return Err(OpenError::TooShort {
                len: map.len() as u64,
            });
        }
        Ok(BlobFile {
            path: path.to_path_buf(),
            map,
        })
    }

    /// Whether the file is a Git LFS pointer rather than weights.
    pub(crate) fn is_lfs_pointer(&self) -> bool {
        super::lfs::is_pointer(&self.map)
    }

    /// File length in bytes.
    pub(crate) fn len(&self) -> u64 {
        self.map.len() as u64
    }

    fn u32_at(&self, at: u64) -> Option<u32> {
        let start = usize::try_from(at).ok()?;
        let bytes = self.map.get(start..start.checked_add(4)?)?;
        Some(u32::from_le_bytes(bytes.try_into().ok()?))
    }

    fn u64_at(&self, at: u64) -> Option<u64> {
        let start = usize::try_from(at).ok()?;
        let bytes = self.map.get(start..start.checked_add(8)?)?;
        Some(u64::from_le_bytes(bytes.try_into().ok()?))
    }

    /// The storage header (the file is at least 64 bytes long, so it is always there).
    pub fn header(&self) -> Header {
        Header {
            count: self.u32_at(0).unwrap_or(0),
            version: self.u32_at(4).unwrap_or(0),
        }
    }

    /// The 64 bytes at `offset` read as a record, whatever the sentinel says.
    pub fn record_at(&self, offset: u64) -> Result<Record, OutOfBounds> {
        let oob = OutOfBounds {
            offset,
            file_len: self.len(),
        };
        match offset.checked_add(RECORD_BYTES) {
            Some(end) if end <= self.len() => {}
            _ => return Err(oob),
        }
        let field = |rel: u64| offset.checked_add(rel);
        let read = || -> Option<Record> {
            Some(Record {
                offset,
                sentinel: self.u32_at(field(0)?)?,
                dtype_code: self.u32_at(field(4)?)?,
                size: self.u64_at(field(8)?)?,
                data_offset: self.u64_at(field(16)?)?,
                padding_bits: self.u64_at(field(24)?)?,
            })
        };
        read().ok_or(oob)
    }

    /// The payload bytes of `rec`, only when they are at most `cap` bytes long and lie inside the
    /// file. Large weight payloads are never paged in.
    pub(crate) fn payload(&self, rec: &Record, cap: u64) -> Option<&[u8]> {
        if rec.size > cap {
            return None;
        }
        let end = rec.payload_end()?;
        if end > self.len() {
            return None;
        }
        let start = usize::try_from(rec.data_offset).ok()?;
        let end = usize::try_from(end).ok()?;
        self.map.get(start..end)
    }

    /// Follows the chain from offset 64 (next = align_up(payload end)) until the file ends or a
    /// record does not hold together, whatever the header's count says.
    pub fn walk(&self) -> Walk {
        let mut records = Vec::new();
        let mut at = HEADER_BYTES;
        let len = self.len();
        let end = loop {
            if at == len {
                break WalkEnd::EndOfFile;
            }
            if records.len() >= MAX_WALK_RECORDS {
                break WalkEnd::Capped { at };
            }
            let Ok(rec) = self.record_at(at) else {
                break WalkEnd::Truncated { at };
            };
            if !rec.has_sentinel() {
                break WalkEnd::NotARecord {
                    at,
                    found: rec.sentinel,
                };
            }
            records.push(rec);
            match rec.next_record() {
                Some(next) if next > at && rec.payload_end().is_some_and(|e| e <= len) => {
                    // The last payload may end the file unpadded, or be padded up to 64.
                    if next >= len {
                        break WalkEnd::EndOfFile;
                    }
                    at = next
                }
                _ => break WalkEnd::BadPayload { at },
            }
        };
        Walk { records, end }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn record_bytes(dtype: u32, size: u64, data_offset: u64, padding: u64) -> Vec<u8> {
        let mut r = Vec::with_capacity(64);
        r.extend_from_slice(&SENTINEL.to_le_bytes());
        r.extend_from_slice(&dtype.to_le_bytes());
        r.extend_from_slice(&size.to_le_bytes());
        r.extend_from_slice(&data_offset.to_le_bytes());
        r.extend_from_slice(&padding.to_le_bytes());
        r.resize(64, 0);
        r
    }

    fn two_blob_file() -> Vec<u8> {
        // fp32[500] at 64 → payload 128..2128 → next 2176; fp16[3] at 2176 → payload 2240..2246.
        let mut f = vec![0u8; 64];
        f[0] = 2;
        f[4] = 2;
        f.extend(record_bytes(2, 2000, 128, 0));
        f.resize(2176, 0);
        f.extend(record_bytes(1, 6, 2240, 0));
        f.resize(2246, 0);
        f
    }

    fn open_bytes(bytes: &[u8]) -> (tempfile::TempDir, Result<BlobFile, OpenError>) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("weight.bin");
        std::fs::write(&p, bytes).unwrap();
        let f = BlobFile::open(&p, dir.path());
        (dir, f)
    }

    #[test]
    fn payload_is_read_only_under_the_cap() {
        let mut bytes = two_blob_file();
        bytes[2240] = 0x00;
        bytes[2241] = 0xfc; // fp16 -inf
        let (_d, f) = open_bytes(&bytes);
        let f = f.unwrap();
        let small = f.record_at(2176).unwrap();
        assert_eq!(f.payload(&small, 6).map(<[u8]>::len), Some(6));
        assert_eq!(f.payload(&small, 6).unwrap()[..2], [0x00, 0xfc]);
        assert_eq!(f.payload(&small, 5), None, "over the cap");
        let big = f.record_at(64).unwrap();
        assert_eq!(f.payload(&big, 1024), None, "2000 bytes over a 1024 cap");
        assert_eq!(f.payload(&big, 4096).map(<[u8]>::len), Some(2000));
        let lying = Record { size: 100, ..small };
        assert_eq!(
            f.payload(&lying, 4096),
            None,
            "payload past the end of the file"
        );
    }

    #[test]
    fn codes_round_trip_and_follow_the_table() {
        for code in 1..=17 {
            let dt = storage_dtype(code).unwrap();
            assert_eq!(storage_code(dt), Some(code));
        }
        assert_eq!(storage_dtype(0), None);
        assert_eq!(storage_dtype(18), None);
        assert_eq!(storage_code(DType::Fp16), Some(1));
        assert_eq!(storage_code(DType::UInt4), Some(11));
        assert_eq!(storage_code(DType::UInt3), Some(12));
        assert_eq!(storage_code(DType::Int64), None);
        assert_eq!(storage_code(DType::Bool), None);
    }

    #[test]
    fn packed_sizes_round_up_and_never_overflow() {
        assert_eq!(packed_bytes(3, 4), Some(2));
        assert_eq!(packed_bytes(4, 4), Some(2));
        assert_eq!(packed_bytes(5, 3), Some(2));
        assert_eq!(packed_bytes(500, 32), Some(2000));
        assert_eq!(packed_bytes(u64::MAX, 16), None);
        assert_eq!(align_up(2128), Some(2176));
        assert_eq!(align_up(128), Some(128));
        assert_eq!(align_up(u64::MAX - 3), None);
    }

    #[test]
    fn walk_follows_the_chain_and_locates_offsets() {
        let (_d, f) = open_bytes(&two_blob_file());
        let f = f.unwrap();
        assert_eq!(
            f.header(),
            Header {
                count: 2,
                version: 2
            }
        );
        let w = f.walk();
        assert_eq!(w.end, WalkEnd::EndOfFile);
        assert_eq!(
            w.records.iter().map(|r| r.offset).collect::<Vec<_>>(),
            vec![64, 2176]
        );
        assert_eq!(w.locate(10), Location::FileHeader);
        assert_eq!(w.locate(64), Location::RecordStart { record: 64 });
        assert_eq!(w.locate(100), Location::InsideRecord { record: 64 });
        assert_eq!(w.locate(128), Location::InsidePayload { record: 64 });
        assert_eq!(
            w.locate(2140),
            Location::Padding {
                after: 64,
                next: 2176
            }
        );
        assert_eq!(w.locate(2240), Location::InsidePayload { record: 2176 });
        assert_eq!(w.locate(4096), Location::BeyondChain { last: Some(2176) });
    }

    #[test]
    fn record_reads_are_bounds_checked_near_u64_max() {
        let (_d, f) = open_bytes(&two_blob_file());
        let f = f.unwrap();
        for off in [u64::MAX, u64::MAX - 63, u64::MAX - 64, 2246 - 63, 2246] {
            assert_eq!(
                f.record_at(off),
                Err(OutOfBounds {
                    offset: off,
                    file_len: 2246
                })
            );
        }
        assert!(f.record_at(2176).unwrap().has_sentinel());
        assert!(!f.record_at(128).unwrap().has_sentinel());
    }

    #[test]
    fn walk_stops_on_a_payload_that_points_backwards_or_overflows() {
        let mut bytes = vec![0u8; 64];
        bytes.extend(record_bytes(1, 8, 0, 0));
        bytes.resize(256, 0);
        let (_d, f) = open_bytes(&bytes);
        let w = f.unwrap().walk();
        assert_eq!(w.end, WalkEnd::BadPayload { at: 64 });
        let mut bytes = vec![0u8; 64];
        bytes.extend(record_bytes(1, u64::MAX, 128, 0));
        let (_d, f) = open_bytes(&bytes);
        assert_eq!(f.unwrap().walk().end, WalkEnd::BadPayload { at: 64 });
    }

    #[test]
    fn short_empty_and_folder_files_are_refused() {
        let (_d, f) = open_bytes(&[]);
        assert_eq!(f.unwrap_err(), OpenError::TooShort { len: 0 });
        let (_d, f) = open_bytes(&[2, 0, 0, 0, 2]);
        assert_eq!(f.unwrap_err(), OpenError::TooShort { len: 5 });
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("weight.bin");
        std::fs::create_dir(&p).unwrap();
        assert_eq!(
            BlobFile::open(&p, dir.path()).unwrap_err(),
            OpenError::NotAFile { what: "a folder" }
        );
        let missing = dir.path().join("weights/weight.bin");
        assert_eq!(
            BlobFile::open(&missing, dir.path()).unwrap_err(),
            OpenError::NotFound {
                folder_missing: Some(dir.path().join("weights"))
            }
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlink_out_of_the_package_is_refused() {
        let outer = tempfile::tempdir().unwrap();
        let pkg = outer.path().join("x.mlmodelc");
        std::fs::create_dir_all(pkg.join("weights")).unwrap();
        std::fs::write(outer.path().join("secret.bin"), two_blob_file()).unwrap();
        let link = pkg.join("weights/weight.bin");
        std::os::unix::fs::symlink("../../secret.bin", &link).unwrap();
        assert!(matches!(
            BlobFile::open(&link, &pkg),
            Err(OpenError::Escapes { .. })
        ));
    }

    #[test]
    fn paths_resolve_inside_the_root_only() {
        let root = Path::new("/p/x.mlpackage");
        let mp = root.join("Data/com.apple.CoreML");
        assert_eq!(
            resolve_blob_path("@model_path/weights/weight.bin", &mp, root),
            Ok(mp.join("weights/weight.bin"))
        );
        assert_eq!(
            resolve_blob_path("@model_path/./weights//w2.bin", &mp, root),
            Ok(mp.join("weights/w2.bin"))
        );
        assert_eq!(
            resolve_blob_path("@model_path/../../other.bin", &mp, root),
            Ok(root.join("other.bin"))
        );
        assert_eq!(
            resolve_blob_path("@model_path/../../../etc/passwd", &mp, root),
            Err(PathError::ClimbsOut)
        );
        let c = Path::new("/p/x.mlmodelc");
        assert_eq!(
            resolve_blob_path("@model_path/../../etc/passwd", c, c),
            Err(PathError::ClimbsOut)
        );
        assert_eq!(
            resolve_blob_path("@model_path/weights/../../x", c, c),
            Err(PathError::ClimbsOut)
        );
        assert_eq!(
            resolve_blob_path("/etc/passwd", c, c),
            Err(PathError::Absolute)
        );
        assert_eq!(
            resolve_blob_path("weights/weight.bin", c, c),
            Err(PathError::NoModelPath)
        );
    }
}
