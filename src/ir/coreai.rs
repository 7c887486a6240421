//! What a Core AI asset (`.aimodel` bundle) says about itself without its private encodings: the
//! bundle's files, `metadata.json`, `main.hash` and the MLIR bytecode container of `main.mlirb`.
//! The program itself is lowered into [`crate::ir::Function`]s; [`AiFunction`] keeps what `dump`
//! lists per graph.

use super::types::ValueType;

/// One file the bundle should hold, as found on disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AssetFile {
    /// A regular file of this many bytes.
    Present(u64),
    /// Not there.
    Missing,
    /// A symbolic link (not followed), with its target as stored.
    Symlink(String),
    /// A Git LFS pointer file in place of the content.
    LfsPointer,
    /// A folder or other non-file where a file belongs.
    NotAFile,
}

/// A resource blob in the bytecode (a large weight tensor).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AiResource {
    /// The dialect (or external group) the resource belongs to, e.g. `aicode`.
    pub group: String,
    /// Its key, e.g. `resource_11313018910788859484`.
    pub key: String,
    /// Payload bytes (for a blob, its data without alignment padding).
    pub size: u64,
    /// Required alignment of a blob's data; 0 for non-blob entries.
    pub alignment: u64,
    /// Where its payload (a blob's data) starts in `main.mlirb`.
    pub offset: u64,
}

/// A section of the MLIR bytecode container.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AiSection {
    /// Section id (0 string, 1 dialect, 2 attr/type, 3 attr/type offsets, 4 IR, 5 resource,
    /// 6 resource offsets, 8 properties).
    pub id: u8,
    /// Byte offset of its payload in `main.mlirb`.
    pub offset: u64,
    /// Payload length in bytes.
    pub len: u64,
}

/// The `main.mlirb` container, as far as the upstream format goes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AiBytecode {
    /// Bytecode version (6 for coreai-core 1.0).
    pub version: u64,
    /// Producer string, e.g. `MLIR22.0.0git`.
    pub producer: String,
    /// Sections in file order.
    pub sections: Vec<AiSection>,
    /// Dialect names with the length of their version payload.
    pub dialects: Vec<String>,
    /// Each dialect's version payload (empty when it has none), in `dialects` order.
    pub dialect_versions: Vec<Vec<u8>>,
    /// Every op kind the program uses, `dialect.name` (e.g. `aicode.primitive.floor_v1`), sorted.
    pub ops: Vec<String>,
    /// The op names in the order of the dialect section: the IR section refers to them by position.
    pub op_names: Vec<String>,
    /// Every string of the string table, in table order.
    pub strings: Vec<String>,
    /// Resource blobs.
    pub resources: Vec<AiResource>,
}

/// A named, typed input, state or output of a Core AI function.
#[derive(Clone, Debug, PartialEq)]
pub struct AiValue {
    /// Its `aicode.name` (or `argN` without one).
    pub name: String,
    /// Its type: a tensor, a state (handle) or a token.
    pub ty: ValueType,
}

/// The newest asset version iOS 27 / macOS 27 reads: coreai-core 1.0.0b3 writes for OS 27 only
/// (`OSVersion.v27`), whose dialect version is 20260409 and compatibility version 27.0.
pub const NEWEST_ASSET_VERSION_OS_27: i64 = 20260409;

/// The asset version (`aicode.serialization.asset`'s `version`) and the OS it needs, as `dump`
/// prints them.
pub fn asset_version_text(version: i64) -> String {
    if version <= NEWEST_ASSET_VERSION_OS_27 {
        format!(
            "asset version: {version} (needs iOS 27 / macOS 27: compatibility version 27.0, \
             which reads asset versions up to {NEWEST_ASSET_VERSION_OS_27})"
        )
    } else {
        format!(
            "asset version: {version} (newer than {NEWEST_ASSET_VERSION_OS_27}, the newest iOS 27 / \
             macOS 27 reads: it needs a later OS)"
        )
    }
}

/// The composite a private graph implements, from its `composite_decl`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Composite {
    /// Its name (`scaled_dot_product_attention`).
    pub name: String,
    /// Its `op_attrs` as coreai-core prints them (`is_causal = false`), in stored order.
    pub attrs: Vec<(String, String)>,
}

impl Composite {
    /// `is_causal = false, version = 1, window_size = 0`.
    pub fn attrs_text(&self) -> String {
        let items: Vec<String> = self
            .attrs
            .iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        items.join(", ")
    }
}

impl std::fmt::Display for Composite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.attrs.is_empty() {
            true => write!(f, "{}", self.name),
            false => write!(f, "{}: {}", self.name, self.attrs_text()),
        }
    }
}

/// A graph's ops, counted on the two bases a Core AI user meets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpCounts {
    /// The ops of the graph's body (top level), as coreai-core's printed program has them: the
    /// `coreai.output` terminator included (`dump` lists what it returns as the outputs), the ops
    /// inside region bodies (`scatter_nd`'s combiner) not.
    pub top_level: usize,
    /// Of those, the ops other than constants and the output: what `check` (`{REGION.share}`)
    /// and `--placement` count.
    pub not_constants: usize,
    /// Every `aicode` op stored in the graph at any depth (composite ops' inline decompositions and
    /// their constants included), the `output_v1` / `yield_v1` terminators not: the ops
    /// coreai-core's `operation_distribution` sums over the asset.
    pub stored: usize,
}

impl std::fmt::Display for OpCounts {
    /// The two lines `dump` prints under a function, each saying what it counts.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "  ops: {} top-level, as coreai-core's printed program has them (`coreai.output` \
             counted, region bodies not; one line each below, the output as the outputs), {} of \
             them neither constants nor the output (the ops `check` and `--placement` count)",
            self.top_level, self.not_constants
        )?;
        writeln!(
            f,
            "  aicode ops: {} stored at any depth (composites' inline decompositions and constants \
             included, output_v1/yield_v1 not; what coreai-core's operation_distribution sums)",
            self.stored
        )
    }
}

/// What a Core AI graph declares, as `dump` lists it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AiFunction {
    /// The graph's name (`main`, `prefill`, `sdpa_…`).
    pub name: String,
    /// A private graph (a composite's body, called through `invoke`).
    pub private: bool,
    /// The composite it implements, for a composite's graph.
    pub composite: Option<Composite>,
    /// Its ops, counted on each basis.
    pub ops: OpCounts,
    /// Tensor arguments.
    pub inputs: Vec<AiValue>,
    /// Handle arguments (state buffers).
    pub states: Vec<AiValue>,
    /// Returned values (tokens of written states included), named by their result attributes.
    pub outputs: Vec<AiValue>,
}

/// Everything read from one `.aimodel` bundle.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AiAsset {
    /// `main.mlirb`, `main.hash` and `metadata.json`, in that order, as found.
    pub files: Vec<(String, AssetFile)>,
    /// `metadata.json` key/value pairs at the top level (strings as is, other values as JSON text).
    pub metadata: Vec<(String, String)>,
    /// SHA-256 stored in `main.hash` and the one computed from `main.mlirb`, both as hex, when both
    /// files are present.
    pub hash: Option<(String, String)>,
    /// The bytecode container, when `main.mlirb` is present and not an LFS pointer.
    pub bytecode: Option<AiBytecode>,
    /// `aicode.serialization.asset`'s version attribute (e.g. 20260317), when the IR was read.
    pub asset_version: Option<i64>,
    /// The program's graphs, in file order, when the IR was read.
    pub functions: Vec<AiFunction>,
}

impl AiAsset {
    /// The `metadata.json` value of `key`.
    pub fn metadata_value(&self, key: &str) -> Option<&str> {
        self.metadata
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

impl std::fmt::Display for AiAsset {
    /// The inventory as `coreml-lint dump` prints it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "files:")?;
        for (name, file) in &self.files {
            let state = match file {
                AssetFile::Present(n) => format!("{n} bytes"),
                AssetFile::Missing => "missing".into(),
                AssetFile::Symlink(t) => format!("symlink to {t}"),
                AssetFile::LfsPointer => "Git LFS pointer".into(),
                AssetFile::NotAFile => "not a file".into(),
            };
            writeln!(f, "  {name}: {state}")?;
        }
        writeln!(f, "metadata:")?;
        for (k, v) in &self.metadata {
            writeln!(f, "  {k}: {v}")?;
        }
        if let Some((stored, computed)) = &self.hash {
            let verdict = if stored == computed {
                "matches"
            } else {
                "MISMATCH"
            };
            writeln!(f, "main.hash: {stored} ({verdict} sha256 of main.mlirb)")?;
        }
        let Some(b) = &self.bytecode else {
            return Ok(());
        };
        writeln!(
            f,
            "bytecode: version {}, producer {}",
            b.version, b.producer
        )?;
        for s in &b.sections {
            writeln!(f, "  section {} @{} len {}", s.id, s.offset, s.len)?;
        }
        writeln!(f, "dialects: {}", b.dialects.join(", "))?;
        writeln!(f, "ops ({}):", b.ops.len())?;
        for op in &b.ops {
            writeln!(f, "  {op}")?;
        }
        writeln!(f, "resources ({}):", b.resources.len())?;
        for r in &b.resources {
            writeln!(
                f,
                "  {}.{}: {} bytes, align {}",
                r.group, r.key, r.size, r.alignment
            )?;
        }
        writeln!(f, "strings: {}", b.strings.len())?;
        Ok(())
    }
}
