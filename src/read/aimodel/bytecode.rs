//! The MLIR bytecode container (`main.mlirb`) from the upstream format alone: magic, version,
//! producer, sections, string table, dialect section (op names) and resource sections. The IR,
//! attribute/type and properties sections are read by [`super::ir_section`] and [`super::aicode`].
//!
//! Every read is bounds-checked: a truncated or garbled file is an error naming the byte offset.

use crate::ir::coreai::{AiBytecode, AiResource, AiSection};

/// `ML\xEFR`.
pub const MAGIC: [u8; 4] = [0x4D, 0x4C, 0xEF, 0x52];

const STRING: u8 = 0;
const DIALECT: u8 = 1;
const RESOURCE: u8 = 5;
const RESOURCE_OFFSET: u8 = 6;
const DIALECT_VERSION: u8 = 7;
const MAX_SECTION_ID: u8 = 8;

/// Where and why the container does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BytecodeError {
    /// Byte offset in the file.
    pub offset: usize,
    /// What was expected there.
    pub message: String,
}

pub(super) type Result<T> = std::result::Result<T, BytecodeError>;

/// A cursor over `data[pos..end]`; `base` is the offset of `data[0]` in the file.
pub(super) struct Reader<'a> {
    data: &'a [u8],
    pub(super) pos: usize,
    base: usize,
}

impl<'a> Reader<'a> {
    pub(super) fn new(data: &'a [u8], base: usize) -> Reader<'a> {
        Reader { data, pos: 0, base }
    }

    pub(super) fn err<T>(&self, message: impl Into<String>) -> Result<T> {
        Err(BytecodeError {
            offset: self.base + self.pos,
            message: message.into(),
        })
    }

    /// Offset of the cursor in the file.
    pub(super) fn offset(&self) -> usize {
        self.base + self.pos
    }

    /// Bytes left.
    pub(super) fn left(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    /// A zigzag-encoded signed varint.
    pub(super) fn signed_varint(&mut self) -> Result<i64> {
        let v = self.varint()?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    pub(super) fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    pub(super) fn byte(&mut self) -> Result<u8> {
        match self.data.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => self.err("unexpected end of data"),
        }
    }

    pub(super) fn bytes(&mut self, n: u64, what: &str) -> Result<&'a [u8]> {
        let left = (self.data.len() - self.pos) as u64;
        if n > left {
            return self.err(format!(
                "{what} of {n} bytes runs past the end ({left} left)"
            ));
        }
        let start = self.pos;
        self.pos += n as usize;
        Ok(&self.data[start..self.pos])
    }

    /// A PrefixVarInt: the trailing zeros of the first byte say how many bytes follow.
    pub(super) fn varint(&mut self) -> Result<u64> {
        let first = self.byte()?;
        if first & 1 == 1 {
            return Ok(u64::from(first >> 1));
        }
        if first == 0 {
            let rest = self.bytes(8, "varint")?;
            let mut v = [0u8; 8];
            v.copy_from_slice(rest);
            return Ok(u64::from_le_bytes(v));
        }
        let extra = first.trailing_zeros() as usize;
        let rest = self.bytes(extra as u64, "varint")?;
        let mut v = [0u8; 8];
        v[0] = first;
        v[1..=extra].copy_from_slice(rest);
        Ok(u64::from_le_bytes(v) >> (extra + 1))
    }

    pub(super) fn cstring(&mut self) -> Result<String> {
        let rest = &self.data[self.pos..];
        let Some(nul) = rest.iter().position(|&b| b == 0) else {
            return self.err("string without NUL terminator");
        };
        let s = String::from_utf8_lossy(&rest[..nul]).into_owned();
        self.pos += nul + 1;
        Ok(s)
    }

    pub(super) fn align_to(&mut self, alignment: u64) -> Result<()> {
        if alignment == 0 || !alignment.is_power_of_two() || alignment > 4096 {
            return self.err(format!(
                "alignment {alignment} is not a power of two up to 4096"
            ));
        }
        let at = (self.base + self.pos) as u64;
        let pad = (alignment - at % alignment) % alignment;
        self.bytes(pad, "alignment padding")?;
        Ok(())
    }
}

/// Parses the container of `data` (the whole `main.mlirb`).
pub fn parse(data: &[u8]) -> Result<AiBytecode> {
    let mut r = Reader::new(data, 0);
    if r.bytes(4, "magic").ok() != Some(&MAGIC[..]) {
        return Err(BytecodeError {
            offset: 0,
            message: "not MLIR bytecode (magic is not ML\\xEFR)".into(),
        });
    }
    let version = r.varint()?;
    let producer = r.cstring()?;
    let mut out = AiBytecode {
        version,
        producer,
        ..AiBytecode::default()
    };
    let mut payloads: [Option<(usize, &[u8])>; MAX_SECTION_ID as usize + 1] = Default::default();
    while !r.is_empty() {
        let code = r.byte()?;
        let id = code & 0x7F;
        if id > MAX_SECTION_ID {
            r.pos -= 1;
            return r.err(format!("unknown section id {id}"));
        }
        let len = r.varint()?;
        if code & 0x80 != 0 {
            let alignment = r.varint()?;
            r.align_to(alignment)?;
        }
        let offset = r.pos;
        let payload = r.bytes(len, "section")?;
        if payloads[id as usize].is_some() {
            return Err(BytecodeError {
                offset,
                message: format!("section {id} appears twice"),
            });
        }
        payloads[id as usize] = Some((offset, payload));
        out.sections.push(AiSection {
            id,
            offset: offset as u64,
            len,
        });
    }
    let Some((at, strings)) = payloads[STRING as usize] else {
        return r.err("no string section");
    };
    out.strings = parse_strings(strings, at)?;
    if let Some((at, dialect)) = payloads[DIALECT as usize] {
        let d = parse_dialects(dialect, at, &out.strings, version)?;
        let mut ops = d.op_names.clone();
        ops.sort();
        ops.dedup();
        out.dialects = d.names;
        out.dialect_versions = d.versions;
        out.op_names = d.op_names;
        out.ops = ops;
    }
    if let Some((at, offsets)) = payloads[RESOURCE_OFFSET as usize] {
        let (data_at, data) = payloads[RESOURCE as usize].unwrap_or((data.len(), &[]));
        out.resources = parse_resources(offsets, at, data, data_at, &out.strings, &out.dialects)?;
    }
    Ok(out)
}

/// The string section: a count, the sizes (NUL included) of the strings from last to first, then
/// the strings, which end at the end of the section.
fn parse_strings(data: &[u8], base: usize) -> Result<Vec<String>> {
    let mut r = Reader::new(data, base);
    let count = r.varint()?;
    if count > data.len() as u64 {
        return r.err(format!("{count} strings in a {}-byte section", data.len()));
    }
    let mut strings = vec![String::new(); count as usize];
    let mut end = data.len();
    for s in strings.iter_mut().rev() {
        let size = r.varint()?;
        if size == 0 || size as usize > end || (end - size as usize) < r.pos {
            return r.err(format!("string size {size} does not fit the section"));
        }
        let start = end - size as usize;
        *s = String::from_utf8_lossy(&data[start..end - 1]).into_owned();
        end = start;
    }
    Ok(strings)
}

fn string_at<'s>(r: &Reader, strings: &'s [String], index: u64) -> Result<&'s str> {
    match strings.get(index as usize) {
        Some(s) => Ok(s),
        None => r.err(format!(
            "string index {index} out of range ({})",
            strings.len()
        )),
    }
}

/// The dialect section: the dialects (name, optional version payload in a nested section), from
/// version 4 the number of op names, then op names grouped by dialect, numbered in file order (the
/// IR section refers to them by that number).
fn parse_dialects(data: &[u8], base: usize, strings: &[String], version: u64) -> Result<Dialects> {
    let mut r = Reader::new(data, base);
    let count = r.varint()?;
    if count > data.len() as u64 {
        return r.err(format!("{count} dialects in a {}-byte section", data.len()));
    }
    let mut out = Dialects::default();
    for _ in 0..count {
        let entry = r.varint()?;
        let (index, versioned) = if version >= 1 {
            (entry >> 1, entry & 1 == 1)
        } else {
            (entry, false)
        };
        out.names.push(string_at(&r, strings, index)?.to_string());
        let payload = if versioned {
            let id = r.byte()? & 0x7F;
            if id != DIALECT_VERSION {
                r.pos -= 1;
                return r.err(format!("dialect version section has id {id}, not 7"));
            }
            let size = r.varint()?;
            r.bytes(size, "dialect version")?.to_vec()
        } else {
            Vec::new()
        };
        out.versions.push(payload);
    }
    if version >= 4 {
        let n = r.varint()?;
        if n > data.len() as u64 {
            return r.err(format!("{n} op names in a {}-byte section", data.len()));
        }
    }
    while !r.is_empty() {
        let dialect = r.varint()?;
        let Some(prefix) = out.names.get(dialect as usize) else {
            return r.err(format!("dialect index {dialect} out of range ({count})"));
        };
        let n = r.varint()?;
        if n > data.len() as u64 {
            return r.err(format!("{n} op names in a {}-byte section", data.len()));
        }
        for _ in 0..n {
            let entry = r.varint()?;
            let index = if version >= 5 { entry >> 1 } else { entry };
            out.op_names
                .push(format!("{prefix}.{}", string_at(&r, strings, index)?));
        }
    }
    Ok(out)
}

#[derive(Default)]
struct Dialects {
    names: Vec<String>,
    versions: Vec<Vec<u8>>,
    op_names: Vec<String>,
}

/// The resource offset section: external groups, then one group per dialect with resources; each
/// entry names its key, its length in the resource section and its kind (0 = blob).
fn parse_resources(
    offsets: &[u8],
    base: usize,
    data: &[u8],
    data_base: usize,
    strings: &[String],
    dialects: &[String],
) -> Result<Vec<AiResource>> {
    let mut r = Reader::new(offsets, base);
    let mut body = Reader::new(data, data_base);
    let mut out = Vec::new();
    let external = r.varint()?;
    let mut groups = Vec::new();
    for _ in 0..external {
        let key = r.varint()?;
        groups.push(string_at(&r, strings, key)?.to_string());
    }
    let mut group_index = 0usize;
    while !r.is_empty() {
        let group = if group_index < groups.len() {
            groups[group_index].clone()
        } else {
            let d = r.varint()?;
            match dialects.get(d as usize) {
                Some(name) => name.clone(),
                None => return r.err(format!("dialect index {d} out of range")),
            }
        };
        group_index += 1;
        let n = r.varint()?;
        for _ in 0..n {
            let index = r.varint()?;
            let key = string_at(&r, strings, index)?.to_string();
            let len = r.varint()?;
            let kind = r.byte()?;
            let entry_at = data_base + body.pos;
            let entry = body.bytes(len, "resource")?;
            let (size, alignment, offset) = if kind == 0 {
                let mut e = Reader::new(entry, entry_at);
                let alignment = e.varint()?;
                let size = e.varint()?;
                e.align_to(alignment)?;
                if (e.pos as u64).checked_add(size) != Some(len) {
                    return e.err(format!(
                        "blob of {size} bytes does not fill its {len}-byte entry"
                    ));
                }
                (size, alignment, (entry_at + e.pos) as u64)
            } else {
                (len, 0, entry_at as u64)
            };
            out.push(AiResource {
                group: group.clone(),
                key,
                size,
                alignment,
                offset,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_of_every_width() {
        for v in [0u64, 1, 63, 127, 128, 300, 1 << 20, 1 << 40, u64::MAX] {
            let mut enc = Vec::new();
            match (1..=8usize).find(|&n| v < 1u64 << (7 * n)) {
                Some(n) => {
                    let x = (v << n) | (1 << (n - 1));
                    enc.extend_from_slice(&x.to_le_bytes()[..n]);
                }
                None => {
                    enc.push(0);
                    enc.extend_from_slice(&v.to_le_bytes());
                }
            }
            let mut r = Reader::new(&enc, 0);
            assert_eq!(r.varint().unwrap(), v, "{enc:02x?}");
            assert!(r.is_empty());
        }
    }

    #[test]
    fn every_truncation_is_an_error_with_an_offset_inside_the_file() {
        let file = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/corpus/coreai/clean.aimodel/main.mlirb"
        ))
        .unwrap();
        let whole = parse(&file).unwrap();
        assert_eq!(whole.version, 6);
        assert!(
            whole.ops.iter().any(|o| o == "aicode.primitive.maximum_v1"),
            "{:?}",
            whole.ops
        );
        for cut in 0..file.len() {
            match parse(&file[..cut]) {
                Err(e) => assert!(e.offset <= cut, "cut {cut}: {e:?}"),
                Ok(b) => assert_ne!(b, whole, "cut {cut} parsed as the whole file"),
            }
        }
    }

    #[test]
    fn garbled_bytes_never_panic() {
        let file = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/corpus/coreai/clean.aimodel/main.mlirb"
        ))
        .unwrap();
        for i in 0..file.len() {
            for flip in [0x01u8, 0x80, 0xFF] {
                let mut g = file.clone();
                g[i] ^= flip;
                if let Err(e) = parse(&g) {
                    assert!(e.offset <= g.len(), "{e:?}");
                }
            }
        }
    }
}
