//! The one description of the protobuf messages coreml-lint reads (FORMAT.md §2–3, Model.proto
//! and MIL.proto): every message, field, tag, wire type, label, map and oneof. `codegen.rs`
//! renders it as `messages.rs`: the owned messages the fixer edits and re-encodes, the zero-copy
//! views the reader decodes, and the outlines that leave a pipeline's sub-models and a program's
//! top-level operations undecoded. Change this table, then run
//! `COREML_LINT_BLESS=1 cargo test --lib read::proto::codegen` to rewrite `messages.rs`.

/// A message (a struct in each rendering).
pub struct Message {
    /// Rust path from the rendering's root, e.g. `argument::Binding` for `Argument.Binding`.
    pub path: &'static str,
    pub doc: &'static str,
    pub fields: &'static [Field],
    /// Rendered a third time as `<Name>Outline`, see [`Outline`].
    pub outline: Option<&'static str>,
}

pub struct Field {
    pub name: &'static str,
    pub tag: u32,
    pub ty: Ty,
    pub label: Label,
    pub doc: &'static str,
    pub outline: Outline,
}

/// What a field holds on the wire.
#[derive(Clone, Copy)]
pub enum Ty {
    Int32,
    Int64,
    Uint64,
    Bool,
    Float,
    Double,
    /// An enum's number (`int32` on the wire); unknown numbers are kept.
    Enum(&'static str),
    /// UTF-8 text: `String` owned, unchecked `Bytes` in a view.
    Str,
    /// Raw bytes: `Vec<u8>` owned, `Bytes` in a view.
    Bytes,
    /// A message, by its path.
    Message(&'static str),
    /// `map<string, Message>`: a `BTreeMap` owned, its entries in file order in a view.
    Map(&'static str),
    /// `map<string, string>` (owned only).
    StrMap,
    /// A oneof: the enum's name (in the module named after the message) and its members.
    Oneof(&'static str, &'static [Member]),
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Label {
    /// Proto3 singular: the default when absent (messages: `Option`).
    Single,
    /// A message held in a `Box` (it can contain itself).
    Boxed,
    Repeated,
}

/// How a field of an outlined message is rendered in its outline.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Outline {
    /// As in the view (a map of outlined messages keeps owned keys: `BTreeMap<String, _Outline>`).
    View,
    /// As in the owned message (a string that must be checked UTF-8 when the outline is decoded).
    Owned,
    /// Each element left as its undecoded bytes.
    Undecoded,
    /// Not decoded at all.
    Skipped,
    /// A oneof whose members each become an optional field of their own (the last of several
    /// on the wire no longer replaces the others): the members that hold an outlined message,
    /// or that name one in their own `outline`; the others are skipped.
    Flattened,
}

/// A member of a oneof.
pub struct Member {
    pub variant: &'static str,
    pub tag: u32,
    pub ty: Ty,
    pub doc: &'static str,
    /// In a flattened outline, the message this member's bytes hold (when `ty` keeps them raw).
    pub outline: Option<Ty>,
}

/// An enum (rendered once, in the owned messages).
pub struct Enum {
    pub name: &'static str,
    pub doc: &'static str,
    pub values: &'static [(&'static str, i32, &'static str)],
}

const fn field(name: &'static str, tag: u32, ty: Ty, doc: &'static str) -> Field {
    Field {
        name,
        tag,
        ty,
        label: Label::Single,
        doc,
        outline: Outline::View,
    }
}

const fn repeated(name: &'static str, tag: u32, ty: Ty, doc: &'static str) -> Field {
    Field {
        label: Label::Repeated,
        ..field(name, tag, ty, doc)
    }
}

const fn boxed(name: &'static str, tag: u32, ty: Ty, doc: &'static str) -> Field {
    Field {
        label: Label::Boxed,
        ..field(name, tag, ty, doc)
    }
}

const fn in_outline(f: Field, outline: Outline) -> Field {
    Field { outline, ..f }
}

const fn member(variant: &'static str, tag: u32, ty: Ty, doc: &'static str) -> Member {
    Member {
        variant,
        tag,
        ty,
        doc,
        outline: None,
    }
}

/// A oneof member kept as its raw message bytes: named, re-encoded unchanged, never decoded.
macro_rules! raw {
    ($variant:literal, $tag:literal, $what:literal) => {
        member(
            $variant,
            $tag,
            Ty::Bytes,
            concat!("Holds the undecoded message bytes of ", $what, "."),
        )
    };
}

const fn message(path: &'static str, doc: &'static str, fields: &'static [Field]) -> Message {
    Message {
        path,
        doc,
        fields,
        outline: None,
    }
}

use Ty::{Bool, Double, Float, Int32, Int64, Map, Message as Msg, Oneof, Str, StrMap, Uint64};

/// The members of `Model.Type`, one per model kind.
static MODEL_KINDS: &[Member] = &[
    Member {
        outline: Some(Msg("PipelineHolder")),
        ..raw!("PipelineClassifier", 200, "a pipeline classifier")
    },
    Member {
        outline: Some(Msg("PipelineHolder")),
        ..raw!("PipelineRegressor", 201, "a pipeline regressor")
    },
    member(
        "Pipeline",
        202,
        Msg("Pipeline"),
        "Holds a pipeline, decoded.",
    ),
    raw!("GlmRegressor", 300, "a GLM regressor"),
    raw!("SupportVectorRegressor", 301, "a support vector regressor"),
    raw!("TreeEnsembleRegressor", 302, "a tree ensemble regressor"),
    raw!("NeuralNetworkRegressor", 303, "a neural network regressor"),
    raw!(
        "BayesianProbitRegressor",
        304,
        "a Bayesian probit regressor"
    ),
    raw!("GlmClassifier", 400, "a GLM classifier"),
    raw!(
        "SupportVectorClassifier",
        401,
        "a support vector classifier"
    ),
    raw!("TreeEnsembleClassifier", 402, "a tree ensemble classifier"),
    raw!(
        "NeuralNetworkClassifier",
        403,
        "a neural network classifier"
    ),
    raw!(
        "KNearestNeighborsClassifier",
        404,
        "a k-nearest-neighbors classifier"
    ),
    raw!("NeuralNetwork", 500, "a neural network"),
    raw!(
        "ItemSimilarityRecommender",
        501,
        "an item similarity recommender"
    ),
    member(
        "MlProgram",
        502,
        Msg("Program"),
        "The ML program (FORMAT.md §3).",
    ),
    raw!("CustomModel", 555, "a custom model"),
    raw!("LinkedModel", 556, "a linked model"),
    raw!(
        "ClassConfidenceThresholding",
        560,
        "a class confidence thresholding model"
    ),
    raw!("OneHotEncoder", 600, "a one-hot encoder"),
    raw!("Imputer", 601, "an imputer"),
    raw!("FeatureVectorizer", 602, "a feature vectorizer"),
    raw!("DictVectorizer", 603, "a dictionary vectorizer"),
    raw!("Scaler", 604, "a scaler"),
    raw!("CategoricalMapping", 606, "a categorical mapping"),
    raw!("Normalizer", 607, "a normalizer"),
    raw!("ArrayFeatureExtractor", 609, "an array feature extractor"),
    raw!(
        "NonMaximumSuppression",
        610,
        "a non-maximum suppression model"
    ),
    raw!("Identity", 900, "an identity model"),
    raw!("TextClassifier", 2000, "a text classifier"),
    raw!("WordTagger", 2001, "a word tagger"),
    raw!("VisionFeaturePrint", 2002, "a vision feature print model"),
    raw!(
        "SoundAnalysisPreprocessing",
        2003,
        "a sound analysis preprocessing model"
    ),
    raw!("Gazetteer", 2004, "a gazetteer"),
    raw!("WordEmbedding", 2005, "a word embedding model"),
    raw!("AudioFeaturePrint", 2006, "an audio feature print model"),
    member(
        "SerializedModel",
        3000,
        Msg("SerializedModel"),
        "Holds a serialized model, decoded.",
    ),
];

pub static ENUMS: &[Enum] = &[
    Enum {
        name: "ColorSpace",
        doc: "`ImageFeatureType.ColorSpace`.",
        values: &[
            ("InvalidColorSpace", 0, "Unset or invalid."),
            ("Grayscale", 10, "8-bit grayscale."),
            ("Rgb", 20, "8-bit RGB."),
            ("Bgr", 30, "8-bit BGR."),
            (
                "GrayscaleFloat16",
                40,
                "Float16 grayscale (spec 7 or more).",
            ),
        ],
    },
    Enum {
        name: "ArrayDataType",
        doc: "`ArrayFeatureType.ArrayDataType`.",
        values: &[
            ("InvalidArrayDataType", 0, "Unset or invalid."),
            ("Float32", 65568, "32-bit float (0x10020)."),
            ("Double", 65600, "64-bit float (0x10040)."),
            ("Int32", 131104, "32-bit signed integer (0x20020)."),
            ("Float16", 65552, "16-bit float (0x10010; spec 7 or more)."),
            (
                "Int8",
                131080,
                "8-bit signed integer (0x20008; spec 10 or more for multiarrays).",
            ),
        ],
    },
    Enum {
        name: "DataType",
        doc: "`MILSpec.DataType`.",
        values: &[
            ("UnusedType", 0, "Unset or invalid."),
            ("Bool", 1, "Boolean (text name `bool`)."),
            ("String", 2, "UTF-8 string (`string`)."),
            ("Float16", 10, "16-bit IEEE float (`fp16`)."),
            ("Float32", 11, "32-bit IEEE float (`fp32`)."),
            ("Float64", 12, "64-bit IEEE float (`fp64`)."),
            ("Bfloat16", 13, "bfloat16 (text name guessed as `bf16`)."),
            ("Int8", 21, "8-bit signed integer (`int8`)."),
            ("Int16", 22, "16-bit signed integer (`int16`)."),
            ("Int32", 23, "32-bit signed integer (`int32`)."),
            ("Int64", 24, "64-bit signed integer (`int64`)."),
            ("Int4", 25, "4-bit signed integer (`int4`; iOS18 or later)."),
            ("Uint8", 31, "8-bit unsigned integer (`uint8`)."),
            ("Uint16", 32, "16-bit unsigned integer (`uint16`)."),
            ("Uint32", 33, "32-bit unsigned integer (`uint32`)."),
            ("Uint64", 34, "64-bit unsigned integer (`uint64`)."),
            (
                "Uint4",
                35,
                "4-bit unsigned integer (`uint4`; iOS18 or later).",
            ),
            (
                "Uint2",
                36,
                "2-bit unsigned integer (`uint2`; iOS18 or later).",
            ),
            (
                "Uint1",
                37,
                "1-bit unsigned integer (`uint1`; iOS18 or later).",
            ),
            (
                "Uint6",
                38,
                "6-bit unsigned integer (`uint6`; iOS18 or later).",
            ),
            (
                "Uint3",
                39,
                "3-bit unsigned integer (`uint3`; iOS18 or later).",
            ),
            (
                "Float8e4m3fn",
                40,
                "8-bit float, 4 exponent and 3 mantissa bits, finite only (iOS18 or later).",
            ),
            (
                "Float8e5m2",
                41,
                "8-bit float, 5 exponent and 2 mantissa bits (iOS18 or later).",
            ),
        ],
    },
];

pub static MESSAGES: &[Message] = &[
    // Model.proto (package CoreML.Specification)
    Message {
        outline: Some(
            "A `Model` as the reader decodes it: the ML program's top-level operations stay raw \
             bytes (a `repeated Operation` is wire-identical to `repeated bytes`), so they are \
             decoded, lowered and dropped one at a time instead of all being held as one tree. \
             Kinds other than ML programs and pipelines are skipped here; `decode_model` names \
             them.",
        ),
        ..message(
            "Model",
            "`CoreML.Specification.Model`: one model of some kind plus its interface description.",
            &[
                field(
                    "specification_version",
                    1,
                    Int32,
                    "Specification version (FORMAT.md §2 table); 0 when unset. ML programs need 6 \
                     or more.",
                ),
                in_outline(
                    field(
                        "description",
                        2,
                        Msg("ModelDescription"),
                        "Interface and metadata; `None` when the file has none.",
                    ),
                    Outline::Owned,
                ),
                in_outline(
                    field(
                        "is_updatable",
                        10,
                        Bool,
                        "True when the model is marked updatable (on-device training).",
                    ),
                    Outline::Skipped,
                ),
                in_outline(
                    field(
                        "type",
                        0,
                        Oneof("Type", MODEL_KINDS),
                        "The model kind. Only pipelines, ML programs and serialized models are \
                         decoded; every other kind keeps its raw message bytes.",
                    ),
                    Outline::Flattened,
                ),
            ],
        )
    },
    Message {
        outline: Some("[`Pipeline`] whose models are each one undecoded `Model` message."),
        ..message(
            "Pipeline",
            "`Pipeline`: models run one after another.",
            &[
                in_outline(
                    repeated(
                        "models",
                        1,
                        Msg("Model"),
                        "The sub-models, in the order they run.",
                    ),
                    Outline::Undecoded,
                ),
                in_outline(
                    repeated(
                        "names",
                        2,
                        Str,
                        "Names of the sub-models, parallel to `models`; empty when the pipeline \
                         names none.",
                    ),
                    Outline::Owned,
                ),
            ],
        )
    },
    Message {
        outline: Some(
            "`PipelineClassifier` and `PipelineRegressor`: both hold their pipeline in field 1.",
        ),
        ..message(
            "PipelineHolder",
            "`PipelineClassifier` and `PipelineRegressor` as far as coreml-lint reads them: the \
             pipeline in field 1 (the owned `Model` keeps them raw).",
            &[field(
                "pipeline",
                1,
                Msg("Pipeline"),
                "The pipeline; `None` when unset.",
            )],
        )
    },
    message(
        "SerializedModel",
        "`SerializedModel`: an opaque model identified by a string.",
        &[
            field(
                "identifier",
                1,
                Str,
                "Identifier of the serialized model's format or owner.",
            ),
            field(
                "model",
                2,
                Ty::Bytes,
                "The serialized model's raw bytes, not interpreted.",
            ),
        ],
    ),
    message(
        "ModelDescription",
        "`ModelDescription`: inputs, outputs, states, per-function descriptions and metadata.",
        &[
            repeated(
                "input",
                1,
                Msg("FeatureDescription"),
                "Model-level inputs (single-function form); empty in the multifunction form.",
            ),
            repeated(
                "output",
                10,
                Msg("FeatureDescription"),
                "Model-level outputs (single-function form); empty in the multifunction form.",
            ),
            field(
                "predicted_feature_name",
                11,
                Str,
                "Name of the predicted output of a classifier or regressor; empty when none.",
            ),
            field(
                "predicted_probabilities_name",
                12,
                Str,
                "Name of a classifier's probabilities output; empty when none.",
            ),
            repeated(
                "state",
                13,
                Msg("FeatureDescription"),
                "Model-level states (stateType features; spec 9 or more); empty for stateless \
                 models.",
            ),
            repeated(
                "functions",
                20,
                Msg("FunctionDescription"),
                "Per-function interfaces (multifunction form, spec 9 or more); empty in the \
                 single-function form.",
            ),
            field(
                "default_function_name",
                21,
                Str,
                "Function run when the caller names none; empty when `functions` is empty.",
            ),
            repeated(
                "training_input",
                50,
                Msg("FeatureDescription"),
                "Inputs used for on-device training (updatable models); empty otherwise.",
            ),
            field(
                "metadata",
                100,
                Msg("Metadata"),
                "Author, licence, version and user-defined metadata; `None` when absent.",
            ),
        ],
    ),
    message(
        "FunctionDescription",
        "`FunctionDescription`: the interface of one function of a multifunction model.",
        &[
            field(
                "name",
                1,
                Str,
                "Function name, a key of `Program.functions`.",
            ),
            repeated(
                "input",
                2,
                Msg("FeatureDescription"),
                "The function's inputs, in declaration order.",
            ),
            repeated(
                "output",
                3,
                Msg("FeatureDescription"),
                "The function's outputs, in declaration order.",
            ),
            field(
                "predicted_feature_name",
                4,
                Str,
                "Name of the predicted output of a classifier or regressor; empty when none.",
            ),
            field(
                "predicted_probabilities_name",
                5,
                Str,
                "Name of a classifier's probabilities output; empty when none.",
            ),
            repeated(
                "state",
                6,
                Msg("FeatureDescription"),
                "The function's states (stateType features only); empty when stateless.",
            ),
        ],
    ),
    message(
        "FeatureDescription",
        "`FeatureDescription`: a named, typed input, output or state.",
        &[
            field("name", 1, Str, "Feature name, as callers pass it."),
            field(
                "short_description",
                2,
                Str,
                "Free-text description; empty when none.",
            ),
            field(
                "type",
                3,
                Msg("FeatureType"),
                "Type of the feature; `None` when missing (invalid).",
            ),
        ],
    ),
    message(
        "Metadata",
        "`Metadata`: free-text fields and the user-defined string map.",
        &[
            field(
                "short_description",
                1,
                Str,
                "Free-text description of the model; empty when none.",
            ),
            field(
                "version_string",
                2,
                Str,
                "The model's own version, free text; empty when none.",
            ),
            field("author", 3, Str, "Author, free text; empty when none."),
            field("license", 4, Str, "Licence, free text; empty when none."),
            field(
                "user_defined",
                100,
                StrMap,
                "User-defined key → value pairs (coremltools writes \
                 `com.github.apple.coremltools.*`).",
            ),
        ],
    ),
    message(
        "FeatureType",
        "`FeatureType`: the type of a described feature.",
        &[
            field(
                "type",
                0,
                Oneof(
                    "Type",
                    &[
                        member(
                            "Int64Type",
                            1,
                            Msg("Int64FeatureType"),
                            "A scalar 64-bit integer.",
                        ),
                        member(
                            "DoubleType",
                            2,
                            Msg("DoubleFeatureType"),
                            "A scalar 64-bit float.",
                        ),
                        member("StringType", 3, Msg("StringFeatureType"), "A UTF-8 string."),
                        member("ImageType", 4, Msg("ImageFeatureType"), "An image."),
                        member(
                            "MultiArrayType",
                            5,
                            Msg("ArrayFeatureType"),
                            "A MultiArray (tensor).",
                        ),
                        member(
                            "DictionaryType",
                            6,
                            Msg("DictionaryFeatureType"),
                            "A dictionary keyed by integers or strings.",
                        ),
                        member(
                            "SequenceType",
                            7,
                            Msg("SequenceFeatureType"),
                            "A sequence of integers or strings.",
                        ),
                        member(
                            "StateType",
                            8,
                            Msg("StateFeatureType"),
                            "A state wrapping an array (spec 9 or more).",
                        ),
                    ],
                ),
                "Which kind of feature; `None` when unset (invalid).",
            ),
            field(
                "is_optional",
                1000,
                Bool,
                "True when callers may omit the feature (tag 1000).",
            ),
        ],
    ),
    message("Int64FeatureType", "`Int64FeatureType` (empty).", &[]),
    message("DoubleFeatureType", "`DoubleFeatureType` (empty).", &[]),
    message("StringFeatureType", "`StringFeatureType` (empty).", &[]),
    message(
        "SizeRange",
        "`SizeRange`: a closed range; a negative upper bound means unbounded.",
        &[
            field(
                "lower_bound",
                1,
                Uint64,
                "Smallest allowed size, inclusive.",
            ),
            field(
                "upper_bound",
                2,
                Int64,
                "Largest allowed size, inclusive; negative means unbounded.",
            ),
        ],
    ),
    message(
        "ImageFeatureType",
        "`ImageFeatureType`.",
        &[
            field("width", 1, Int64, "Default width in pixels."),
            field("height", 2, Int64, "Default height in pixels."),
            field(
                "color_space",
                3,
                Ty::Enum("ColorSpace"),
                "A [`ColorSpace`] number; 0 is invalid, unknown numbers are kept.",
            ),
            field(
                "size_flexibility",
                0,
                Oneof(
                    "SizeFlexibility",
                    &[
                        member(
                            "EnumeratedSizes",
                            21,
                            Msg("image_feature_type::EnumeratedImageSizes"),
                            "A list of accepted sizes.",
                        ),
                        member(
                            "ImageSizeRange",
                            31,
                            Msg("image_feature_type::ImageSizeRange"),
                            "A range of widths and heights.",
                        ),
                    ],
                ),
                "Other sizes accepted; `None` when only `width` × `height` is.",
            ),
        ],
    ),
    message(
        "image_feature_type::ImageSize",
        "`ImageFeatureType.ImageSize`.",
        &[
            field("width", 1, Uint64, "Width in pixels."),
            field("height", 2, Uint64, "Height in pixels."),
        ],
    ),
    message(
        "image_feature_type::EnumeratedImageSizes",
        "`ImageFeatureType.EnumeratedImageSizes`.",
        &[repeated(
            "sizes",
            1,
            Msg("image_feature_type::ImageSize"),
            "The only sizes accepted.",
        )],
    ),
    message(
        "image_feature_type::ImageSizeRange",
        "`ImageFeatureType.ImageSizeRange`.",
        &[
            field(
                "width_range",
                1,
                Msg("SizeRange"),
                "Accepted widths in pixels; `None` when unset.",
            ),
            field(
                "height_range",
                2,
                Msg("SizeRange"),
                "Accepted heights in pixels; `None` when unset.",
            ),
        ],
    ),
    message(
        "ArrayFeatureType",
        "`ArrayFeatureType`: a MultiArray.",
        &[
            repeated(
                "shape",
                1,
                Int64,
                "Fixed or default shape, outermost dim first; empty when none is declared.",
            ),
            field(
                "data_type",
                2,
                Ty::Enum("ArrayDataType"),
                "An [`ArrayDataType`] number; 0 is invalid, unknown numbers are kept.",
            ),
            field(
                "shape_flexibility",
                0,
                Oneof(
                    "ShapeFlexibility",
                    &[
                        member(
                            "EnumeratedShapes",
                            21,
                            Msg("array_feature_type::EnumeratedShapes"),
                            "A list of accepted shapes.",
                        ),
                        member(
                            "ShapeRange",
                            31,
                            Msg("array_feature_type::ShapeRange"),
                            "A range of sizes per dim.",
                        ),
                    ],
                ),
                "Other shapes accepted; `None` when only `shape` is.",
            ),
            field(
                "default_optional_value",
                0,
                Oneof(
                    "DefaultOptionalValue",
                    &[
                        member("IntDefaultValue", 41, Int32, "Integer default (tag 41)."),
                        member(
                            "FloatDefaultValue",
                            51,
                            Float,
                            "32-bit float default (tag 51).",
                        ),
                        member(
                            "DoubleDefaultValue",
                            61,
                            Double,
                            "64-bit float default (tag 61).",
                        ),
                    ],
                ),
                "Value used when an optional input is omitted; `None` when none is declared.",
            ),
        ],
    ),
    message(
        "array_feature_type::Shape",
        "`ArrayFeatureType.Shape`.",
        &[repeated("shape", 1, Int64, "Dims, outermost first.")],
    ),
    message(
        "array_feature_type::EnumeratedShapes",
        "`ArrayFeatureType.EnumeratedShapes`.",
        &[repeated(
            "shapes",
            1,
            Msg("array_feature_type::Shape"),
            "The only shapes accepted.",
        )],
    ),
    message(
        "array_feature_type::ShapeRange",
        "`ArrayFeatureType.ShapeRange`: one range per dimension.",
        &[repeated(
            "size_ranges",
            1,
            Msg("SizeRange"),
            "Accepted sizes, one range per dim, outermost first.",
        )],
    ),
    message(
        "DictionaryFeatureType",
        "`DictionaryFeatureType`.",
        &[field(
            "key_type",
            0,
            Oneof(
                "KeyType",
                &[
                    member(
                        "Int64KeyType",
                        1,
                        Msg("Int64FeatureType"),
                        "Keys are 64-bit integers.",
                    ),
                    member(
                        "StringKeyType",
                        2,
                        Msg("StringFeatureType"),
                        "Keys are strings.",
                    ),
                ],
            ),
            "Type of the keys; `None` when unset (invalid).",
        )],
    ),
    message(
        "SequenceFeatureType",
        "`SequenceFeatureType`.",
        &[
            field(
                "type",
                0,
                Oneof(
                    "Type",
                    &[
                        member(
                            "Int64Type",
                            1,
                            Msg("Int64FeatureType"),
                            "Elements are 64-bit integers.",
                        ),
                        member(
                            "StringType",
                            3,
                            Msg("StringFeatureType"),
                            "Elements are strings.",
                        ),
                    ],
                ),
                "Type of the elements; `None` when unset.",
            ),
            field(
                "size_range",
                101,
                Msg("SizeRange"),
                "Accepted sequence lengths; `None` when unconstrained.",
            ),
        ],
    ),
    message(
        "StateFeatureType",
        "`StateFeatureType`: a state wrapping a fixed-shape array.",
        &[field(
            "type",
            0,
            Oneof(
                "Type",
                &[member(
                    "ArrayType",
                    1,
                    Msg("ArrayFeatureType"),
                    "The array the state holds (fixed shape, no flexibility, no default).",
                )],
            ),
            "The wrapped array; `None` when unset (invalid).",
        )],
    ),
    // MIL.proto (package CoreML.Specification.MILSpec)
    Message {
        outline: Some("[`Program`] with [`FunctionOutline`]s."),
        ..message(
            "Program",
            "`MILSpec.Program`.",
            &[
                field(
                    "version",
                    1,
                    Int64,
                    "MIL proto version; coremltools writes 1 and rejects anything else.",
                ),
                field(
                    "functions",
                    2,
                    Map("Function"),
                    "Function name (`main` for single-function models) → function.",
                ),
                in_outline(
                    field(
                        "doc_string",
                        3,
                        Str,
                        "Free-text documentation; empty when none.",
                    ),
                    Outline::Skipped,
                ),
                field(
                    "attributes",
                    4,
                    Map("Value"),
                    "Program attributes, e.g. `buildInfo` (a string → string dictionary); empty \
                     when none.",
                ),
            ],
        )
    },
    Message {
        outline: Some(
            "[`Function`] with [`BlockOutline`]s, its other parts as [`zero_copy`] messages.",
        ),
        ..message(
            "Function",
            "`MILSpec.Function`.",
            &[
                repeated(
                    "inputs",
                    1,
                    Msg("NamedValueType"),
                    "Function parameters in declaration order, state inputs included.",
                ),
                in_outline(
                    field(
                        "opset",
                        2,
                        Str,
                        "Opset name, e.g. `CoreML8`; a key of `block_specializations`.",
                    ),
                    Outline::Owned,
                ),
                field(
                    "block_specializations",
                    3,
                    Map("Block"),
                    "Opset name → body; coremltools writes one entry, keyed by `opset`.",
                ),
                field(
                    "attributes",
                    4,
                    Map("Value"),
                    "Function attributes; coremltools writes none.",
                ),
            ],
        )
    },
    Message {
        outline: Some(
            "[`Block`] whose operations are each one undecoded `Operation` message, its other \
             parts as [`zero_copy`] messages.",
        ),
        ..message(
            "Block",
            "`MILSpec.Block`.",
            &[
                repeated(
                    "inputs",
                    1,
                    Msg("NamedValueType"),
                    "Block-local parameters (`while_loop` bodies); empty for a function's body.",
                ),
                repeated(
                    "outputs",
                    2,
                    Str,
                    "Names of the values the block returns, in order.",
                ),
                in_outline(
                    repeated(
                        "operations",
                        3,
                        Msg("Operation"),
                        "Operations in topological (program) order.",
                    ),
                    Outline::Undecoded,
                ),
                field(
                    "attributes",
                    4,
                    Map("Value"),
                    "Block attributes; usually empty.",
                ),
            ],
        )
    },
    message(
        "Operation",
        "`MILSpec.Operation`.",
        &[
            field("type", 1, Str, "Op name, e.g. `slice_update`, `const`."),
            field(
                "inputs",
                2,
                Map("Argument"),
                "Parameter name → bindings; optional parameters left out are absent.",
            ),
            repeated(
                "outputs",
                3,
                Msg("NamedValueType"),
                "Results in order; empty for ops such as `write_state`.",
            ),
            repeated(
                "blocks",
                4,
                Msg("Block"),
                "Nested blocks: `cond` has [true, false], `while_loop` [cond, body]; empty \
                 otherwise.",
            ),
            field(
                "attributes",
                5,
                Map("Value"),
                "Attributes: always `name`; `val` for a `const`; every parameter of an iOS16/17 \
                 `constexpr_*`.",
            ),
        ],
    ),
    message(
        "Argument",
        "`MILSpec.Argument`: the bindings of one parameter.",
        &[repeated(
            "arguments",
            1,
            Msg("argument::Binding"),
            "Bindings in order; one normally, several for a tuple parameter such as \
             `concat.values`.",
        )],
    ),
    message(
        "argument::Binding",
        "`Argument.Binding`: a value name or an inline value.",
        &[field(
            "binding",
            0,
            Oneof(
                "Binding",
                &[
                    member("Name", 1, Str, "Name of a previously defined value."),
                    member("Value", 2, Msg("Value"), "An inline constant."),
                ],
            ),
            "What is bound; `None` when unset (invalid).",
        )],
    ),
    message(
        "NamedValueType",
        "`MILSpec.NamedValueType`.",
        &[
            field("name", 1, Str, "Value name, unique within the function."),
            field(
                "type",
                2,
                Msg("ValueType"),
                "Its type; `None` when unset (invalid).",
            ),
        ],
    ),
    message(
        "ValueType",
        "`MILSpec.ValueType`.",
        &[field(
            "type",
            0,
            Oneof(
                "Type",
                &[
                    member(
                        "TensorType",
                        1,
                        Msg("TensorType"),
                        "A tensor (scalars are rank-0 tensors).",
                    ),
                    member(
                        "ListType",
                        2,
                        Msg("ListType"),
                        "A list of values of one type.",
                    ),
                    member(
                        "TupleType",
                        3,
                        Msg("TupleType"),
                        "A tuple of values of given types.",
                    ),
                    member("DictionaryType", 4, Msg("DictionaryType"), "A dictionary."),
                    member(
                        "StateType",
                        5,
                        Msg("StateType"),
                        "A state wrapping a value (a tensor in practice; iOS18 or later).",
                    ),
                ],
            ),
            "Which kind of type; `None` when unset (invalid).",
        )],
    ),
    message(
        "TensorType",
        "`MILSpec.TensorType`.",
        &[
            field(
                "data_type",
                1,
                Ty::Enum("DataType"),
                "A [`DataType`] number; unknown numbers are kept.",
            ),
            field("rank", 2, Int64, "−1 = unknown rank, 0 = scalar."),
            repeated(
                "dimensions",
                3,
                Msg("Dimension"),
                "One entry per dim, outermost first; length = `rank` (empty for scalars and \
                 unknown rank).",
            ),
            field(
                "attributes",
                4,
                Map("Value"),
                "Tensor type attributes; usually empty.",
            ),
        ],
    ),
    message(
        "TupleType",
        "`MILSpec.TupleType`.",
        &[repeated(
            "types",
            1,
            Msg("ValueType"),
            "Element types, in order.",
        )],
    ),
    message(
        "ListType",
        "`MILSpec.ListType`.",
        &[
            boxed(
                "type",
                1,
                Msg("ValueType"),
                "Element type; `None` when unset.",
            ),
            field(
                "length",
                2,
                Msg("Dimension"),
                "Length of the list; `None` when unset.",
            ),
        ],
    ),
    message(
        "DictionaryType",
        "`MILSpec.DictionaryType`.",
        &[
            boxed(
                "key_type",
                1,
                Msg("ValueType"),
                "Type of the keys; `None` when unset.",
            ),
            boxed(
                "value_type",
                2,
                Msg("ValueType"),
                "Type of the values; `None` when unset.",
            ),
        ],
    ),
    message(
        "StateType",
        "`MILSpec.StateType`.",
        &[boxed(
            "wrapped_type",
            1,
            Msg("ValueType"),
            "The type the state holds (a tensor in practice); `None` when unset (invalid).",
        )],
    ),
    message(
        "Dimension",
        "`MILSpec.Dimension`.",
        &[field(
            "dimension",
            0,
            Oneof(
                "Dimension",
                &[
                    member(
                        "Constant",
                        1,
                        Msg("dimension::ConstantDimension"),
                        "A dim of known size.",
                    ),
                    member(
                        "Unknown",
                        2,
                        Msg("dimension::UnknownDimension"),
                        "A dim (or number of dims) not known statically.",
                    ),
                ],
            ),
            "Known size or unknown; `None` when unset (invalid).",
        )],
    ),
    message(
        "dimension::ConstantDimension",
        "`Dimension.ConstantDimension`.",
        &[field("size", 1, Uint64, "Size of the dim, in elements.")],
    ),
    message(
        "dimension::UnknownDimension",
        "`Dimension.UnknownDimension`: `variadic` = an unknown number of dimensions.",
        &[field(
            "variadic",
            1,
            Bool,
            "False: one dim of unknown size; true: an unknown number of dims.",
        )],
    ),
    message(
        "Value",
        "`MILSpec.Value`: a typed constant, immediate or file-backed.",
        &[
            field(
                "doc_string",
                1,
                Str,
                "Free-text documentation; empty when none.",
            ),
            field(
                "type",
                2,
                Msg("ValueType"),
                "The value's type (for blobs: dtype and dims); `None` when unset.",
            ),
            field(
                "value",
                0,
                Oneof(
                    "Value",
                    &[
                        member(
                            "ImmediateValue",
                            3,
                            Msg("ImmediateValue"),
                            "Data inline in the protobuf (tag 3).",
                        ),
                        member(
                            "BlobFileValue",
                            5,
                            Msg("BlobFileValue"),
                            "Data in a weight file (tag 5).",
                        ),
                    ],
                ),
                "Where the data is; `None` when unset (invalid). Tag 4 is unused.",
            ),
        ],
    ),
    message(
        "ImmediateValue",
        "`MILSpec.Value.ImmediateValue`.",
        &[field(
            "value",
            0,
            Oneof(
                "Value",
                &[
                    member("Tensor", 1, Msg("TensorValue"), "A tensor (or scalar)."),
                    member("Tuple", 2, Msg("TupleValue"), "A tuple of values."),
                    member("List", 3, Msg("ListValue"), "A list of values."),
                    member(
                        "Dictionary",
                        4,
                        Msg("DictionaryValue"),
                        "A dictionary of key/value pairs.",
                    ),
                ],
            ),
            "The data; `None` when unset (invalid).",
        )],
    ),
    message(
        "BlobFileValue",
        "`MILSpec.Value.BlobFileValue`: `offset` is that of the blob's metadata record.",
        &[
            field(
                "file_name",
                1,
                Str,
                "Weight file path, e.g. `@model_path/weights/weight.bin`.",
            ),
            field(
                "offset",
                2,
                Uint64,
                "Byte offset in the file of the blob's metadata record (not of the payload).",
            ),
        ],
    ),
    message(
        "TensorValue",
        "`MILSpec.TensorValue`: row-major elements in one of seven encodings.",
        &[field(
            "value",
            0,
            Oneof(
                "Value",
                &[
                    member(
                        "Floats",
                        1,
                        Msg("tensor_value::RepeatedFloats"),
                        "fp32 elements.",
                    ),
                    member(
                        "Ints",
                        2,
                        Msg("tensor_value::RepeatedInts"),
                        "int16, uint16 or int32 elements (int8/uint8 from coremltools before 7.0).",
                    ),
                    member(
                        "Bools",
                        3,
                        Msg("tensor_value::RepeatedBools"),
                        "bool elements.",
                    ),
                    member(
                        "Strings",
                        4,
                        Msg("tensor_value::RepeatedStrings"),
                        "string elements.",
                    ),
                    member(
                        "LongInts",
                        5,
                        Msg("tensor_value::RepeatedLongInts"),
                        "int64 or uint64 elements.",
                    ),
                    member(
                        "Doubles",
                        6,
                        Msg("tensor_value::RepeatedDoubles"),
                        "fp64 elements.",
                    ),
                    member(
                        "Bytes",
                        7,
                        Msg("tensor_value::RepeatedBytes"),
                        "fp16, 8-bit, uint32 and sub-byte elements as raw bytes.",
                    ),
                ],
            ),
            "The elements; `None` when unset (invalid).",
        )],
    ),
    message(
        "tensor_value::RepeatedFloats",
        "`TensorValue.RepeatedFloats`.",
        &[repeated("values", 1, Float, "Elements, row-major.")],
    ),
    message(
        "tensor_value::RepeatedDoubles",
        "`TensorValue.RepeatedDoubles`.",
        &[repeated("values", 1, Double, "Elements, row-major.")],
    ),
    message(
        "tensor_value::RepeatedInts",
        "`TensorValue.RepeatedInts`.",
        &[repeated(
            "values",
            1,
            Int32,
            "Elements, row-major, widened to `i32` (int16/uint16/int32; int8/uint8 from old \
             writers).",
        )],
    ),
    message(
        "tensor_value::RepeatedLongInts",
        "`TensorValue.RepeatedLongInts`.",
        &[repeated(
            "values",
            1,
            Int64,
            "Elements, row-major (int64, uint64).",
        )],
    ),
    message(
        "tensor_value::RepeatedBools",
        "`TensorValue.RepeatedBools`.",
        &[repeated(
            "values",
            1,
            Bool,
            "Elements, row-major, one `bool` each.",
        )],
    ),
    message(
        "tensor_value::RepeatedStrings",
        "`TensorValue.RepeatedStrings`.",
        &[repeated(
            "values",
            1,
            Str,
            "Elements, row-major, UTF-8 each.",
        )],
    ),
    message(
        "tensor_value::RepeatedBytes",
        "`TensorValue.RepeatedBytes`: a single byte string of little-endian elements.",
        &[field(
            "values",
            1,
            Ty::Bytes,
            "Little-endian element bytes, row-major; sub-byte types packed LSB first.",
        )],
    ),
    message(
        "TupleValue",
        "`MILSpec.TupleValue`.",
        &[repeated("values", 1, Msg("Value"), "Elements, in order.")],
    ),
    message(
        "ListValue",
        "`MILSpec.ListValue`.",
        &[repeated("values", 1, Msg("Value"), "Elements, in order.")],
    ),
    message(
        "DictionaryValue",
        "`MILSpec.DictionaryValue`.",
        &[repeated(
            "values",
            1,
            Msg("dictionary_value::KeyValuePair"),
            "Entries, in file order.",
        )],
    ),
    message(
        "dictionary_value::KeyValuePair",
        "`DictionaryValue.KeyValuePair`.",
        &[
            field("key", 1, Msg("Value"), "The key; `None` when unset."),
            field("value", 2, Msg("Value"), "The value; `None` when unset."),
        ],
    ),
    message(
        "NonMaximumSuppression",
        "`NonMaximumSuppression` (the bytes of `Model.Type` member 610): the fields that say which \
         features the stage reads and how many class labels it holds (FIELD-HAZARDS-4 G3).",
        &[
            field(
                "string_class_labels",
                100,
                Msg("StringVector"),
                "`stringClassLabels` (a member of the `ClassLabels` oneof).",
            ),
            field(
                "int64_class_labels",
                101,
                Msg("Int64Vector"),
                "`int64ClassLabels` (the other member of `ClassLabels`).",
            ),
            field("confidence_input_feature_name", 200, Str, "`confidenceInputFeatureName`."),
            field("coordinates_input_feature_name", 201, Str, "`coordinatesInputFeatureName`."),
        ],
    ),
    message(
        "StringVector",
        "`StringVector`.",
        &[repeated("vector", 1, Str, "The strings, in order.")],
    ),
    message(
        "Int64Vector",
        "`Int64Vector`.",
        &[repeated("vector", 1, Int64, "The numbers, in order.")],
    ),
];
