//! Caps on what hostile input can make the reader allocate or recurse into, and on what the
//! renderer and the analysis passes follow. Shared by every layer; depends on nothing.

/// Largest `model.mlmodel` / `model.mil` / `metadata.json` read into memory (2 GiB).
pub const MAX_FILE_BYTES: u64 = 2 << 30;
/// Deepest nesting of brackets, blocks or types the parsers follow.
pub const MAX_NESTING: usize = 256;
/// Deepest nesting of `cond` / `while_loop` blocks lowered from a protobuf. Lower than
/// [`MAX_NESTING`] because lowering, graph building and rendering each recurse once per level
/// with large frames (2 MiB thread stacks overflow near 250 levels in debug builds); real
/// programs nest a handful of levels.
pub const MAX_BLOCK_NESTING: usize = 64;
/// Deepest nesting of pipelines inside pipelines (coremltools writes one level).
pub(crate) const MAX_PIPELINE_NESTING: usize = 16;
/// Most sub-models read from one pipeline file, all levels together.
pub(crate) const MAX_PIPELINE_MODELS: usize = 4096;
/// Largest element count of an immediate tensor that is decoded.
pub const MAX_IMMEDIATE_ELEMENTS: u64 = 1 << 24;
/// Largest dimension accepted in a declared shape (2^40, as the issue says).
pub(crate) const MAX_DIM: u64 = 1 << 40;
/// Tensors with at most this many elements are const-evaluated by analysis passes.
pub(crate) const MAX_CONSTEVAL_ELEMENTS: u64 = 1 << 16;
/// Largest weight-file payload read to learn a constant's value (256 KiB); weights are never read.
pub(crate) const MAX_BLOB_VALUE_BYTES: u64 = 1 << 18;
