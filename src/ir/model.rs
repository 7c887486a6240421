//! A model as read from disk: where it came from, its description and its program.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use super::graph::Program;
use super::rendered_lines::RenderedLines;
use super::types::DType;

/// The container a model was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ModelKind {
    /// `X.mlpackage/` with `Manifest.json` and a `Model` protobuf.
    MlPackage,
    /// `X.mlmodelc/` with text `model.mil`.
    MlModelc,
    /// A bare `*.mlmodel` protobuf file.
    MlModel,
    /// A bare `*.mil` text file.
    MilText,
    /// `X.aimodel/`, a Core AI asset: no MIL program, only the inventory in [`ModelDesc::coreai`].
    AiModel,
}

/// The text findings point into: `model.mil` itself, or the rendered dump of a protobuf program.
#[derive(Clone, Debug)]
pub struct SourceText {
    /// Display name, e.g. `corpus/x.mlmodelc/model.mil` or `corpus/x.mlpackage (rendered)`.
    pub name: String,
    /// Path of the file on disk, relative as discovered (the `model.mil`, or `model.mlmodel`).
    pub file: PathBuf,
    /// The whole text, shared with every finding that quotes it.
    pub text: Arc<str>,
    /// False when `text` was rendered from a protobuf.
    pub is_file: bool,
    /// The lines of a rendered text that was not kept (`text` is then empty): enough for line
    /// numbers, and for the excerpts of the lines it quotes.
    pub lines: Option<Arc<RenderedLines>>,
}

/// Type of a described feature (input, output or state).
#[derive(Clone, Debug, PartialEq)]
pub enum FeatureKind {
    /// MultiArray; `dtype` is `None` when the description's data type is unknown or invalid.
    Array {
        /// Element type; `None` when the description's data type is unknown or invalid.
        dtype: Option<DType>,
        /// Default shape as declared, outermost dim first; empty when none is declared.
        shape: Vec<i64>,
        /// Enumerated shapes or ranges are declared.
        flexible: Option<Flexibility>,
        /// The value an omitted optional input takes (`defaultOptionalValue`), as text.
        default: Option<String>,
    },
    /// A state wrapping an array.
    State {
        /// Element type of the wrapped array; `None` when unknown or invalid.
        dtype: Option<DType>,
        /// Shape of the wrapped array, outermost dim first; empty when none is declared.
        shape: Vec<i64>,
    },
    /// An image of a fixed size.
    Image {
        /// Width in pixels, as declared.
        width: i64,
        /// Height in pixels, as declared.
        height: i64,
    },
    /// A scalar 64-bit integer.
    Int64,
    /// A scalar 64-bit float.
    Double,
    /// A UTF-8 string.
    String,
    /// Dictionary, sequence or anything else not modelled.
    /// Holds the protobuf type's name (e.g. `dictionaryType`).
    Other(String),
}

/// Declared shape flexibility of a MultiArray.
#[derive(Clone, Debug, PartialEq)]
pub enum Flexibility {
    /// The only shapes allowed, each a full list of dims.
    Enumerated(Vec<Vec<i64>>),
    /// (lower, upper) per dim; upper < 0 = unbounded.
    Ranges(Vec<(u64, i64)>),
}

/// One described feature.
#[derive(Clone, Debug, PartialEq)]
pub struct FeatureDesc {
    /// Feature name, as the model's callers pass it.
    pub name: String,
    /// Its type and shape.
    pub kind: FeatureKind,
    /// True when callers may omit the feature.
    pub optional: bool,
}

/// Description of one function's interface (the single-function form uses the program's only function).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FunctionDesc {
    /// `None` for the model-level (single-function) description.
    pub name: Option<String>,
    /// Described inputs, in declaration order; empty when none are described.
    pub inputs: Vec<FeatureDesc>,
    /// Described outputs, in declaration order; empty when none are described.
    pub outputs: Vec<FeatureDesc>,
    /// Described states (stateful models), in declaration order; empty for stateless models.
    pub states: Vec<FeatureDesc>,
}

/// What the model says about itself, from `ModelDescription` or `metadata.json`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelDesc {
    /// The model-level description (single-function form).
    pub top: FunctionDesc,
    /// Per-function descriptions (multifunction form).
    pub functions: Vec<FunctionDesc>,
    /// Name of the function run when the caller names none; `None` when not declared.
    pub default_function: Option<String>,
    /// `metadata.userDefined` (or `userDefinedMetadata`).
    pub user_defined: Vec<(String, String)>,
    /// From `metadata.json`: op type histogram (`Ios18.sliceUpdate` → count), when present.
    pub op_histogram: Option<Vec<(String, u64)>>,
    /// What a Core AI asset's bundle and bytecode say; `None` for Core ML models.
    pub coreai: Option<Arc<super::coreai::AiAsset>>,
    /// The non-maximum suppression stages of the pipeline that read this stage's outputs.
    pub nms: Vec<NmsStage>,
}

/// A pipeline's non-maximum suppression stage (`Model` field 610), as far as it was read: in a
/// protobuf its message's fields; in a compiled pipeline only that the stage is one (its
/// `coremldata.bin` layout is not public), so the features it reads are unknown.
#[derive(Clone, Debug, PartialEq)]
pub struct NmsStage {
    /// Where the stage sits in the pipeline.
    pub sub_model: SubModel,
    /// `confidenceInputFeatureName` (field 200); `None` in a compiled pipeline.
    pub confidence_input: Option<String>,
    /// `coordinatesInputFeatureName` (field 201); `None` in a compiled pipeline.
    pub coordinates_input: Option<String>,
    /// How many class labels it holds (`stringClassLabels` 100 or `int64ClassLabels` 101);
    /// `None` in a compiled pipeline.
    pub labels: Option<u64>,
    /// Which labels: `string`, `int64` or `none`; empty in a compiled pipeline.
    pub label_kind: String,
}

impl ModelDesc {
    /// The description that applies to function `name` (per-function entry, else the top level).
    pub fn for_function(&self, name: &str) -> Option<&FunctionDesc> {
        if self.functions.is_empty() {
            Some(&self.top)
        } else {
            self.functions
                .iter()
                .find(|f| f.name.as_deref() == Some(name))
        }
    }
}

/// A model that was read: its ML program, description and where everything is.
#[derive(Clone, Debug)]
pub struct Model {
    /// The package root (or bare file) as discovered.
    pub path: PathBuf,
    /// The container it was read from.
    pub kind: ModelKind,
    /// `specificationVersion` from the `Model` protobuf or `metadata.json`; `None` when neither gives one.
    pub spec_version: Option<i64>,
    /// The model's description of its interface and metadata.
    pub description: ModelDesc,
    /// The ML program, lowered to the IR.
    pub program: Program,
    /// The text findings point into.
    pub source: SourceText,
    /// Folder that `@model_path` resolves to.
    pub model_path: PathBuf,
    /// Root that no file access may leave (the package folder, or the bare file's folder).
    pub root: PathBuf,
    /// Where the program sits when the file is a pipeline; `None` for a model of its own.
    pub sub_model: Option<SubModel>,
    /// Files of the bundle the reader found incomplete while the program itself read (a pipeline
    /// carries the package's on its first ML program).
    pub bundle: Vec<BundleFault>,
}

/// A file of a model bundle that is not what the format needs, found while reading it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BundleFault {
    /// What is wrong.
    pub kind: BundleFaultKind,
    /// The file or folder, as it would be opened.
    pub file: PathBuf,
}

/// What is wrong with a file of a bundle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BundleFaultKind {
    /// A Git LFS pointer (`version https://git-lfs.github.com/spec/v1`) stands in for the file.
    LfsPointer,
    /// `Manifest.json` names an item (by its identifier) that is not on disk.
    ManifestItemMissing {
        /// The item's identifier in `itemInfoEntries`.
        id: String,
        /// The item's `path`, as the manifest writes it.
        item_path: String,
    },
}

/// Where a sub-model sits inside a pipeline (`Pipeline`, `PipelineClassifier`, `PipelineRegressor`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SubModel {
    /// Its position at each level of nesting, outermost first: `[1]` is the second model of the
    /// pipeline, `[0, 2]` the third model of the first one (itself a pipeline).
    pub position: Vec<usize>,
    /// Its name in the pipeline that holds it, when that pipeline names its models.
    pub name: Option<String>,
}

impl SubModel {
    /// The position as `1` or `0.2`.
    pub fn position_text(&self) -> String {
        let parts: Vec<String> = self.position.iter().map(usize::to_string).collect();
        parts.join(".")
    }
}

impl fmt::Display for SubModel {
    /// `sub-model 1` or `sub-model 0.2 "decoder"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sub-model {}", self.position_text())?;
        if let Some(name) = &self.name {
            write!(f, " \"{name}\"")?;
        }
        Ok(())
    }
}
