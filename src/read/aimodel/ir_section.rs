//! The IR section of MLIR bytecode (upstream `BytecodeFormat.md`, version 6): ops with their name
//! index, properties index, result types, operands and regions, as a tree of [`IrOp`]s. Nothing here
//! knows the `aicode` dialect: types and properties stay indices for [`super::aicode`].
//!
//! Operands are resolved to [`ValueId`]s, unique in the file: value numbers restart in each region
//! isolated from above and each region reserves the numbers of the values it defines, as upstream.
//! Counts are checked against the bytes left before anything is allocated, nesting is bounded, and
//! encodings coreai-core does not write (use-list orders, forward references) are errors that name
//! the offset rather than guesses.

use super::bytecode::{BytecodeError, Reader, Result};

/// A value defined in the file (block argument or op result), numbered in definition order.
pub type ValueId = u32;

/// How deep regions may nest (composites inside graphs inside the asset need 4).
const MAX_DEPTH: usize = 64;

const HAS_ATTRS: u8 = 0x01;
const HAS_RESULTS: u8 = 0x02;
const HAS_OPERANDS: u8 = 0x04;
const HAS_SUCCESSORS: u8 = 0x08;
const HAS_INLINE_REGIONS: u8 = 0x10;
const HAS_USE_LIST_ORDERS: u8 = 0x20;
const HAS_PROPERTIES: u8 = 0x40;
const IR_SECTION: u8 = 4;

/// A value and the index of its type in the type table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IrValue {
    /// Its number.
    pub id: ValueId,
    /// Its type's index in the type table.
    pub ty: u64,
}

/// One operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IrOp {
    /// Index into the dialect section's op names.
    pub name: u64,
    /// Byte offset of the op in the file.
    pub offset: usize,
    /// Index into the properties section.
    pub properties: Option<u64>,
    /// Values it defines.
    pub results: Vec<IrValue>,
    /// Values it reads, in order.
    pub operands: Vec<ValueId>,
    /// Nested regions (a graph's body, a composite's decomposition).
    pub regions: Vec<IrRegion>,
}

/// A region: its blocks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IrRegion {
    /// Its blocks, entry first.
    pub blocks: Vec<IrBlock>,
}

/// A block: its arguments and ops.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IrBlock {
    /// Block arguments.
    pub args: Vec<IrValue>,
    /// Ops in order.
    pub ops: Vec<IrOp>,
}

impl IrOp {
    /// This op and every op nested in it, depth first.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a IrOp)) {
        f(self);
        for region in &self.regions {
            for block in &region.blocks {
                for op in &block.ops {
                    op.walk(f);
                }
            }
        }
    }
}

/// Value numbers of one isolated-from-above scope: slots reserved per open region, filled as
/// values are defined.
#[derive(Default)]
struct Scope {
    values: Vec<Option<ValueId>>,
    next: Vec<usize>,
}

struct Parser {
    scopes: Vec<Scope>,
    /// Value slots reserved by the open regions of every scope: each value is defined by at least
    /// one byte of the section, so more than its length is refused before it is allocated.
    reserved: usize,
    limit: usize,
    next_id: ValueId,
    ops: u64,
    types: u64,
}

/// Parses the IR section (`data` starts at file offset `base`): the top-level block's ops.
/// `op_names` and `types` are the sizes of the op name list and the type table.
pub fn parse(data: &[u8], base: usize, op_names: u64, types: u64) -> Result<Vec<IrOp>> {
    let mut r = Reader::new(data, base);
    let mut p = Parser {
        scopes: vec![Scope::default()],
        reserved: 0,
        limit: data.len(),
        next_id: 0,
        ops: op_names,
        types,
    };
    // The top level is one block without arguments in a region of its own.
    p.open_region(&r, 0)?;
    let block = p.block(&mut r, 0)?;
    if !r.is_empty() {
        return r.err("bytes after the top-level block");
    }
    Ok(block.ops)
}

impl Parser {
    fn scope(&mut self) -> &mut Scope {
        self.scopes.last_mut().expect("a scope is always open")
    }

    fn open_region(&mut self, r: &Reader, values: u64) -> Result<()> {
        // Every value is defined by at least one byte (a type index).
        if values > r.left() as u64 + 1 || values as usize > self.limit - self.reserved {
            return r.err(format!(
                "region declares {values} values with {} bytes left",
                r.left()
            ));
        }
        self.reserved += values as usize;
        let scope = self.scope();
        let at = scope.values.len();
        scope.values.resize(at + values as usize, None);
        scope.next.push(at);
        Ok(())
    }

    fn close_region(&mut self) {
        let scope = self.scopes.last_mut().expect("a scope is always open");
        if let Some(at) = scope.next.pop() {
            self.reserved -= scope.values.len() - at;
            scope.values.truncate(at);
        }
    }

    fn define(&mut self, r: &Reader, ty: u64) -> Result<IrValue> {
        if ty >= self.types {
            return r.err(format!("type index {ty} out of range ({})", self.types));
        }
        let id = self.next_id;
        let scope = self.scope();
        let slot = match scope.next.last_mut() {
            Some(slot) if *slot < scope.values.len() => slot,
            _ => return r.err("more values than the region declares"),
        };
        scope.values[*slot] = Some(id);
        *slot += 1;
        self.next_id += 1;
        Ok(IrValue { id, ty })
    }

    fn count(r: &Reader, n: u64, what: &str) -> Result<usize> {
        if n > r.left() as u64 {
            return r.err(format!("{n} {what} with {} bytes left", r.left()));
        }
        Ok(n as usize)
    }

    fn block(&mut self, r: &mut Reader, depth: usize) -> Result<IrBlock> {
        let encoding = r.varint()?;
        let n_ops = Self::count(r, encoding >> 1, "ops")?;
        let mut block = IrBlock::default();
        if encoding & 1 == 1 {
            let n = r.varint()?;
            let n = Self::count(r, n, "block arguments")?;
            for _ in 0..n {
                let entry = r.varint()?;
                if entry & 1 == 1 {
                    r.varint()?; // location
                }
                block.args.push(self.define(r, entry >> 1)?);
            }
            let at = r.offset();
            let mask = r.byte()?;
            if mask & HAS_USE_LIST_ORDERS != 0 {
                return Err(BytecodeError {
                    offset: at,
                    message: "block argument use-list orders (coreai-core 1.0 writes none)".into(),
                });
            }
        }
        block.ops.reserve(n_ops.min(4096));
        for _ in 0..n_ops {
            block.ops.push(self.op(r, depth)?);
        }
        Ok(block)
    }

    fn op(&mut self, r: &mut Reader, depth: usize) -> Result<IrOp> {
        let offset = r.offset();
        let name = r.varint()?;
        if name >= self.ops {
            return r.err(format!("op name index {name} out of range ({})", self.ops));
        }
        let mask = r.byte()?;
        r.varint()?; // location
        if mask & HAS_ATTRS != 0 {
            r.varint()?; // discardable attribute dictionary: coreai-core keeps nothing there
        }
        let properties = if mask & HAS_PROPERTIES != 0 {
            Some(r.varint()?)
        } else {
            None
        };
        let mut result_types = Vec::new();
        if mask & HAS_RESULTS != 0 {
            let n = r.varint()?;
            for _ in 0..Self::count(r, n, "results")? {
                result_types.push(r.varint()?);
            }
        }
        let mut operands = Vec::new();
        if mask & HAS_OPERANDS != 0 {
            let n = r.varint()?;
            for _ in 0..Self::count(r, n, "operands")? {
                let at = r.offset();
                let index = r.varint()?;
                let values = &self.scopes.last().expect("a scope is always open").values;
                match values.get(index as usize) {
                    Some(Some(id)) => operands.push(*id),
                    Some(None) => {
                        return Err(BytecodeError {
                            offset: at,
                            message: format!(
                                "operand refers to value {index} before it is defined"
                            ),
                        })
                    }
                    None => {
                        return Err(BytecodeError {
                            offset: at,
                            message: format!(
                                "operand value {index} out of range ({} in scope)",
                                values.len()
                            ),
                        })
                    }
                }
            }
        }
        if mask & HAS_SUCCESSORS != 0 {
            let n = r.varint()?;
            for _ in 0..Self::count(r, n, "successors")? {
                r.varint()?;
            }
        }
        if mask & HAS_USE_LIST_ORDERS != 0 {
            return Err(BytecodeError {
                offset,
                message: "op use-list orders (coreai-core 1.0 writes none)".into(),
            });
        }
        // Results are defined before the regions are read: a region may use them.
        let mut results = Vec::with_capacity(result_types.len());
        for ty in result_types {
            results.push(self.define(r, ty)?);
        }
        let mut regions = Vec::new();
        if mask & HAS_INLINE_REGIONS != 0 {
            if depth >= MAX_DEPTH {
                return r.err(format!("regions nested deeper than {MAX_DEPTH}"));
            }
            let encoding = r.varint()?;
            let n = Self::count(r, encoding >> 1, "regions")?;
            if encoding & 1 == 1 {
                let section_at = r.offset();
                let id = r.byte()? & 0x7F;
                if id != IR_SECTION {
                    return Err(BytecodeError {
                        offset: section_at,
                        message: format!("isolated regions in a section of id {id}, not 4"),
                    });
                }
                let len = r.varint()?;
                let body = r.bytes(len, "isolated regions")?;
                let mut inner = Reader::new(body, r.offset() - body.len());
                self.scopes.push(Scope::default());
                let read = (0..n)
                    .map(|_| self.region(&mut inner, depth + 1))
                    .collect::<Result<Vec<_>>>();
                self.scopes.pop();
                regions = read?;
                if !inner.is_empty() {
                    return inner.err("bytes after the isolated regions");
                }
            } else {
                for _ in 0..n {
                    regions.push(self.region(r, depth + 1)?);
                }
            }
        }
        Ok(IrOp {
            name,
            offset,
            properties,
            results,
            operands,
            regions,
        })
    }

    fn region(&mut self, r: &mut Reader, depth: usize) -> Result<IrRegion> {
        let n_blocks = r.varint()?;
        let n_blocks = Self::count(r, n_blocks, "blocks")?;
        if n_blocks == 0 {
            return Ok(IrRegion::default());
        }
        let values = r.varint()?;
        self.open_region(r, values)?;
        let blocks = (0..n_blocks)
            .map(|_| self.block(r, depth))
            .collect::<Result<Vec<_>>>();
        self.close_region();
        Ok(IrRegion { blocks: blocks? })
    }
}
