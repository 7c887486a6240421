//! The `aicode` dialect's private bytecode encodings of the types and attributes a check needs,
//! derived from pairs of bytecode and coreai-core's printed generic form (`docs/coreai-bytecode.md`
//! says how, and for which versions). Every entry starts with a varint kind code; a code this
//! reader does not know is an error naming the entry, its offset and the code, never a guess.
//!
//! The attribute/type table itself is upstream MLIR: an offset section listing, per dialect group,
//! each entry's size and whether it has a custom encoding, and the entries back to back.

use super::bytecode::{BytecodeError, Reader, Result};
use crate::ir::{DType, Dim, TensorType, ValueType};

/// One entry of the attribute/type table.
#[derive(Clone, Copy, Debug)]
struct Entry {
    start: usize,
    len: usize,
    custom: bool,
}

/// The attribute and type tables of one file.
pub struct Table<'a> {
    data: &'a [u8],
    strings: &'a [String],
    base: usize,
    attrs: Vec<Entry>,
    types: Vec<Entry>,
}

/// A decoded `aicode` type.
#[derive(Clone, Debug, PartialEq)]
pub enum AiType {
    /// A value type of the IR: tensor, handle (state) or token.
    Value(ValueType),
    /// An element type (`!aicode.float16_v1`, …).
    Element(DType),
    /// `!aicode.function_v1<…>`, `!aicode.param.symbol_v1`.
    Other(&'static str),
}

/// A decoded `aicode.serialization` attribute, with nested attributes as table indices.
#[derive(Clone, Debug, PartialEq)]
pub enum AiAttr {
    /// `#aicode.serialization.string<"…">`.
    String(String),
    /// `#aicode.serialization.integer<(W bit …) V>`.
    Integer {
        /// Its width in bits (1 for a flag such as `is_causal`).
        bits: u64,
        /// Its value.
        value: i64,
    },
    /// A dictionary (a composite's `op_attrs`): its entries' indices, each an opaque `key = [value]`.
    Dictionary(Vec<u64>),
    /// `#aicode.serialization.dense_resource<…>`: the index of the resource among the `aicode`
    /// dialect's resources, in the order of the resource offset section.
    Resource(u64),
    /// `#aicode.serialization.type<…>`: a type index.
    Type(u64),
    /// `#aicode.serialization.array<[…]>`.
    Array(Vec<u64>),
    /// `#aicode.serialization.opaque<"key" = […]>` (argument attributes, composite declarations).
    Opaque(String, Vec<u64>),
    /// `#aicode.serialization.dense_elements<[splat = …] …>`: raw little-endian element bytes.
    Dense {
        /// One element stands for all.
        splat: bool,
        /// The elements' bytes.
        bytes: Vec<u8>,
    },
    /// `#aicode.param.constant_v1<binding{ … }>`: the bound attribute's index.
    ParamConstant(u64),
    /// `#aicode.symbol_ref_v1<a::b>`: the names of the path.
    SymbolRef(Vec<String>),
    /// Any other kind (locations, resources, …): its code; nothing reads inside it.
    Other(u64),
}

const TYPE_TENSOR: u64 = 2;
/// A tensor with an encoding attribute (`#aicode.ax.hw_constraints_v1<…>` on a Metal kernel's
/// operands): the tensor's fields, then the attribute's index.
const TYPE_TENSOR_ENCODED: u64 = 3;
const TYPE_FUNCTION: u64 = 30;
const TYPE_HANDLE: u64 = 31;
const TYPE_TOKEN: u64 = 32;
const TYPE_SYMBOL: u64 = 33;

/// Element type codes seen in coreai-core 1.0.0b3 output: torch casts to each dtype, and
/// constants of the 64-bit and sub-byte types saved with coreai-core (`docs/coreai-bytecode.md`).
const ELEMENT_TYPES: &[(u64, DType)] = &[
    (4, DType::Bool),
    (5, DType::Fp64),
    (6, DType::Fp32),
    (7, DType::Fp16),
    (8, DType::Bf16),
    (17, DType::Int64),
    (18, DType::Int32),
    (19, DType::Int16),
    (20, DType::Int8),
    (21, DType::Int4),
    (23, DType::UInt64),
    (24, DType::UInt32),
    (25, DType::UInt16),
    (26, DType::UInt8),
    (27, DType::UInt4),
    (28, DType::UInt2),
    (29, DType::UInt1),
    (36, DType::UInt6),
    (37, DType::UInt3),
];

/// Element types coreai-core writes that the IR has no element type for.
const UNREPRESENTED_ELEMENT_TYPES: &[(u64, &str)] = &[(22, "sint2_v1")];

const ATTR_STRING: u64 = 1;
const ATTR_INTEGER: u64 = 2;
const ATTR_TYPE: u64 = 4;
const ATTR_ARRAY: u64 = 5;
const ATTR_DENSE: u64 = 6;
const ATTR_DENSE_RESOURCE: u64 = 7;
const ATTR_DICTIONARY: u64 = 45;
const ATTR_OPAQUE: u64 = 9;
const ATTR_SYMBOL_REF: u64 = 14;
const ATTR_PARAM_CONSTANT: u64 = 16;

/// Rank and nesting bounds: far beyond any real program, small enough to never exhaust the stack.
const MAX_RANK: u64 = 64;
const MAX_TYPE_DEPTH: usize = 16;

impl<'a> Table<'a> {
    /// Reads the offset section (`offsets` at file offset `offsets_at`) over the attr/type section
    /// `data` at `base`.
    pub fn parse(
        offsets: &[u8],
        offsets_at: usize,
        data: &'a [u8],
        base: usize,
        strings: &'a [String],
    ) -> Result<Table<'a>> {
        let mut r = Reader::new(offsets, offsets_at);
        let n_attrs = r.varint()?;
        let n_types = r.varint()?;
        let total = n_attrs.saturating_add(n_types);
        if total > offsets.len() as u64 {
            return r.err(format!(
                "{n_attrs} attributes and {n_types} types in a {}-byte offset section",
                offsets.len()
            ));
        }
        let mut entries = Vec::with_capacity(total as usize);
        let mut pos = 0usize;
        while !r.is_empty() && (entries.len() as u64) < total {
            r.varint()?; // dialect
            let n = r.varint()?;
            if n > total - entries.len() as u64 {
                return r.err(format!("group of {n} entries past the {total} declared"));
            }
            for _ in 0..n {
                let e = r.varint()?;
                let len = e >> 1;
                if len > (data.len() - pos) as u64 {
                    return r.err(format!(
                        "entry of {len} bytes runs past the attribute/type section"
                    ));
                }
                entries.push(Entry {
                    start: pos,
                    len: len as usize,
                    custom: e & 1 == 1,
                });
                pos += len as usize;
            }
        }
        if (entries.len() as u64) < total {
            return r.err(format!(
                "offset section lists {} of {total} attributes and types",
                entries.len()
            ));
        }
        let types = entries.split_off(n_attrs as usize);
        Ok(Table {
            data,
            strings,
            base,
            attrs: entries,
            types,
        })
    }

    /// Number of types.
    pub fn type_count(&self) -> u64 {
        self.types.len() as u64
    }

    fn entry(&self, kind: &str, list: &[Entry], index: u64) -> Result<(Reader<'a>, Entry)> {
        let Some(&e) = list.get(index as usize) else {
            return Err(BytecodeError {
                offset: self.base,
                message: format!("{kind} index {index} out of range ({})", list.len()),
            });
        };
        let bytes = &self.data[e.start..e.start + e.len];
        let r = Reader::new(bytes, self.base + e.start);
        if !e.custom {
            let text = String::from_utf8_lossy(bytes.strip_suffix(&[0]).unwrap_or(bytes));
            return r.err(format!(
                "{kind} #{index} is in text form (`{text}`), not the aicode encoding"
            ));
        }
        Ok((r, e))
    }

    /// Type `index` as an IR value type (tensors, handles, tokens) or a named other kind.
    pub fn ty(&self, index: u64) -> Result<AiType> {
        self.ty_at(index, 0)
    }

    fn ty_at(&self, index: u64, depth: usize) -> Result<AiType> {
        let (mut r, _) = self.entry("type", &self.types, index)?;
        if depth > MAX_TYPE_DEPTH {
            return r.err("types nested too deep");
        }
        let at = r.offset();
        let code = r.varint()?;
        let unknown = |what: &str| BytecodeError {
            offset: at,
            message: format!("{what} type code {code} (type #{index})"),
        };
        Ok(match code {
            TYPE_TENSOR | TYPE_TENSOR_ENCODED => {
                let rank = r.varint()?;
                if rank > MAX_RANK {
                    return r.err(format!("tensor of rank {rank}"));
                }
                let mut dims = Vec::with_capacity(rank as usize);
                for _ in 0..rank {
                    let d = r.signed_varint()?;
                    dims.push(if d >= 0 {
                        Dim::Known(d as u64)
                    } else {
                        Dim::Unknown
                    });
                }
                let element = r.varint()?;
                let AiType::Element(dtype) = self.ty_at(element, depth + 1)? else {
                    return r.err(format!(
                        "tensor element type #{element} is not an element type"
                    ));
                };
                if code == TYPE_TENSOR_ENCODED {
                    r.varint()?; // the encoding attribute: layout constraints, not the shape
                }
                AiType::Value(ValueType::Tensor(TensorType {
                    dtype,
                    shape: Some(dims),
                }))
            }
            TYPE_HANDLE => {
                let inner = r.varint()?;
                match self.ty_at(inner, depth + 1)? {
                    AiType::Value(v @ ValueType::Tensor(_)) => {
                        AiType::Value(ValueType::State(Box::new(v)))
                    }
                    _ => return r.err(format!("handle of type #{inner}, not a tensor")),
                }
            }
            TYPE_TOKEN => AiType::Value(ValueType::Token),
            TYPE_FUNCTION => AiType::Other("function"),
            TYPE_SYMBOL => AiType::Other("symbol"),
            _ => match ELEMENT_TYPES.iter().find(|(c, _)| *c == code) {
                Some((_, dtype)) => AiType::Element(*dtype),
                None => match UNREPRESENTED_ELEMENT_TYPES.iter().find(|(c, _)| *c == code) {
                    Some((_, name)) => {
                        return Err(unknown(&format!(
                            "`!aicode.{name}`, an element type with no IR element type:"
                        )))
                    }
                    None => return Err(unknown("unknown aicode")),
                },
            },
        })
    }

    /// Attribute `index`, one level deep.
    pub fn attr(&self, index: u64) -> Result<AiAttr> {
        let (mut r, e) = self.entry("attribute", &self.attrs, index)?;
        let code = r.varint()?;
        Ok(match code {
            ATTR_STRING => AiAttr::String(self.string_index(&mut r)?),
            ATTR_INTEGER => {
                let bits = r.varint()?;
                r.byte()?; // signedness, one raw byte (0 for `si64`)
                let value = if bits <= 8 {
                    i64::from(r.byte()?)
                } else {
                    r.signed_varint()?
                };
                AiAttr::Integer { bits, value }
            }
            ATTR_DICTIONARY => AiAttr::Dictionary(self.indices(&mut r, e)?),
            ATTR_DENSE_RESOURCE => AiAttr::Resource(r.varint()?),
            ATTR_TYPE => AiAttr::Type(r.varint()?),
            ATTR_ARRAY => AiAttr::Array(self.indices(&mut r, e)?),
            ATTR_OPAQUE => {
                let key = self.string_index(&mut r)?;
                AiAttr::Opaque(key, self.indices(&mut r, e)?)
            }
            ATTR_DENSE => {
                let splat = r.byte()? != 0;
                let n = r.varint()?;
                let bytes = r.bytes(n, "dense elements")?.to_vec();
                AiAttr::Dense { splat, bytes }
            }
            ATTR_SYMBOL_REF => {
                let n = r.varint()?;
                if n > e.len as u64 {
                    return r.err(format!("{n} names in a {}-byte symbol reference", e.len));
                }
                let names = (0..n)
                    .map(|_| self.string_index(&mut r))
                    .collect::<Result<Vec<_>>>()?;
                AiAttr::SymbolRef(names)
            }
            ATTR_PARAM_CONSTANT => AiAttr::ParamConstant(r.varint()?),
            other => AiAttr::Other(other),
        })
    }

    fn indices(&self, r: &mut Reader, e: Entry) -> Result<Vec<u64>> {
        let n = r.varint()?;
        if n > e.len as u64 {
            return r.err(format!("{n} elements in a {}-byte attribute", e.len));
        }
        (0..n).map(|_| r.varint()).collect()
    }

    fn string_index(&self, r: &mut Reader) -> Result<String> {
        let at = r.offset();
        let index = r.varint()?;
        self.strings
            .get(index as usize)
            .cloned()
            .ok_or(BytecodeError {
                offset: at,
                message: format!("string index {index} out of range ({})", self.strings.len()),
            })
    }

    /// Attribute `index` as a string attribute.
    pub fn string(&self, index: u64) -> Result<String> {
        match self.attr(index)? {
            AiAttr::String(s) => Ok(s),
            other => self.expected(index, "a string", &other),
        }
    }

    /// Attribute `index` as an array of attribute indices.
    pub fn array(&self, index: u64) -> Result<Vec<u64>> {
        match self.attr(index)? {
            AiAttr::Array(items) => Ok(items),
            other => self.expected(index, "an array", &other),
        }
    }

    /// The error for attribute `index` holding another kind than expected.
    pub fn expected<T>(&self, index: u64, what: &str, found: &AiAttr) -> Result<T> {
        let at = self
            .attrs
            .get(index as usize)
            .map_or(self.base, |e| self.base + e.start);
        Err(BytecodeError {
            offset: at,
            message: format!("attribute #{index} is not {what} ({found:?})"),
        })
    }
}
