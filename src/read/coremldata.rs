//! `coremldata.bin` of a compiled model: what kind of model the folder holds, the stages a
//! compiled pipeline names, and (best effort) an ML-program stage's description.
//!
//! The file is undocumented; the layout read here was observed in Xcode 15 and coremltools 8.1
//! output (FORMAT.md §1.3 and §10): a u32 `Model.Type` field number at 0, a u64 length at 0x1C of
//! an ASCII string at 0x24 (`generic`, `spec`, or for a pipeline the stage names
//! `generic.model0v5.0.0generic.model1v1.0.0spec`), the u32 specification version right after the
//! string, and in the `generic` form a u64 length 0x20 bytes after that of a serialized
//! `ModelDescription` that follows it. Only the kind and the stage names are relied on; the rest is
//! used when it decodes and ignored otherwise.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::indexing_slicing))]

use std::path::Path;

use prost::Message;

use super::{proto, ReadError};
use crate::ir::ModelDesc;

/// `Model.Type` field number of an ML program.
pub(crate) const ML_PROGRAM: u32 = 502;

/// Field numbers of the three pipeline kinds (classifier, regressor, plain).
const PIPELINES: [u32; 3] = [200, 201, 202];

/// Where the length of the header string is.
const STRING_LEN_AT: usize = 0x1C;

/// Where the header string starts.
const STRING_AT: usize = 0x24;

/// From the end of the string to the length of the `generic` form's description.
const DESCRIPTION_LEN_AFTER_STRING: usize = 0x20;

/// What a `coremldata.bin` says.
#[derive(Debug)]
pub(crate) struct CompiledHeader {
    /// The `Model.Type` field number of the model the folder holds.
    pub tag: u32,
    /// The header string, when the file holds all of it.
    pub string: Option<String>,
    /// The specification version after the string, when the file holds it.
    pub spec_version: Option<i64>,
    /// The model's description, when the file is in the `generic` form and it decodes.
    pub description: Option<ModelDesc>,
}

impl CompiledHeader {
    /// Whether the folder holds a pipeline.
    pub fn is_pipeline(&self) -> bool {
        PIPELINES.contains(&self.tag)
    }

    /// What kind of model the tag names ("a neural network", …), or `None` for an unknown tag.
    pub fn kind(&self) -> Option<&'static str> {
        kind_of_tag(self.tag)
    }

    /// The stages a pipeline names, `0..n` (`model0`, `model1`, …); an error naming `path` when
    /// the string is cut short, names none, or does not name them `0..n` once each.
    pub fn stage_count(&self, path: &Path) -> Result<usize, ReadError> {
        let err = |message: String| ReadError::Compiled {
            path: path.to_path_buf(),
            message,
        };
        let Some(string) = &self.string else {
            return Err(err(
                "the pipeline's coremldata.bin is cut short before the names of its stages".into(),
            ));
        };
        let indices = stage_indices(string);
        if indices.is_empty() {
            return Err(err(format!(
                "the pipeline's coremldata.bin names no stages (`model0`, …): {string:?}"
            )));
        }
        let in_order = indices.iter().enumerate().all(|(i, &n)| i == n);
        if !in_order {
            return Err(err(format!(
                "the pipeline's coremldata.bin names its stages out of order or twice: {indices:?}"
            )));
        }
        if indices.len() > crate::limits::MAX_PIPELINE_MODELS {
            return Err(err(format!(
                "the pipeline names more than {} stages",
                crate::limits::MAX_PIPELINE_MODELS
            )));
        }
        Ok(indices.len())
    }
}

/// Reads the header of the `coremldata.bin` bytes read from `path`.
pub(crate) fn parse(bytes: &[u8], path: &Path) -> Result<CompiledHeader, ReadError> {
    let Some(tag) = u32_at(bytes, 0) else {
        return Err(ReadError::Compiled {
            path: path.to_path_buf(),
            message: format!(
                "is {} bytes long, too short to say what model it holds",
                bytes.len()
            ),
        });
    };
    let string = u64_at(bytes, STRING_LEN_AT)
        .and_then(|len| usize::try_from(len).ok())
        .and_then(|len| bytes.get(STRING_AT..STRING_AT.checked_add(len)?))
        .and_then(|s| std::str::from_utf8(s).ok())
        .map(str::to_string);
    let string_end = string.as_ref().map(|s| STRING_AT + s.len());
    let spec_version = string_end
        .and_then(|end| u32_at(bytes, end))
        .map(i64::from)
        .filter(|v| (1..=100).contains(v));
    let description = match (&string, string_end) {
        (Some(s), Some(end)) if s == "generic" => generic_description(bytes, end),
        _ => None,
    };
    Ok(CompiledHeader {
        tag,
        string,
        spec_version,
        description,
    })
}

/// The `ModelDescription` of the `generic` form, when its length fits the file and it decodes.
fn generic_description(bytes: &[u8], string_end: usize) -> Option<ModelDesc> {
    let len_at = string_end.checked_add(DESCRIPTION_LEN_AFTER_STRING)?;
    let len = usize::try_from(u64_at(bytes, len_at)?).ok()?;
    let start = len_at.checked_add(8)?;
    let body = bytes.get(start..start.checked_add(len)?)?;
    let desc = proto::ModelDescription::decode(body).ok()?;
    Some(super::lower::lower_description(Some(&desc)))
}

/// Stage numbers in the order the string names them: each `model<N>v` in it.
fn stage_indices(string: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut rest = string;
    while let Some(at) = rest.find("model") {
        let after = rest.get(at + "model".len()..).unwrap_or("");
        let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
        let next = after.get(digits.len()..).unwrap_or("");
        if !digits.is_empty() && next.starts_with('v') {
            if let Ok(n) = digits.parse() {
                out.push(n);
            }
        }
        rest = after;
    }
    out
}

/// What kind of model the `Model.Type` field number names, from the same oneof the protobuf
/// reader decodes (an empty message of that field).
pub(crate) fn kind_of_tag(tag: u32) -> Option<&'static str> {
    if tag == 0 || tag > 0x1FFF_FFFF {
        return None;
    }
    let mut probe = Vec::new();
    prost::encoding::encode_key(tag, prost::encoding::WireType::LengthDelimited, &mut probe);
    probe.push(0);
    proto::Model::decode(probe.as_slice())
        .ok()?
        .r#type
        .map(|t| t.describe())
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let b: [u8; 4] = bytes.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(u32::from_le_bytes(b))
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    let b: [u8; 8] = bytes.get(at..at.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A header as Xcode writes it: tag, string, spec version, and (generic) a description.
    pub(crate) fn header(tag: u32, string: &str, spec: u32, description: &[u8]) -> Vec<u8> {
        let mut out = vec![0u8; STRING_AT];
        out[..4].copy_from_slice(&tag.to_le_bytes());
        out[4..8].copy_from_slice(&1u32.to_le_bytes());
        out[STRING_LEN_AT..STRING_AT].copy_from_slice(&(string.len() as u64).to_le_bytes());
        out.extend_from_slice(string.as_bytes());
        out.extend_from_slice(&spec.to_le_bytes());
        out.resize(out.len() + DESCRIPTION_LEN_AFTER_STRING - 4, 0);
        out.extend_from_slice(&(description.len() as u64).to_le_bytes());
        out.extend_from_slice(description);
        out
    }

    fn at() -> &'static Path {
        Path::new("p.mlmodelc/coremldata.bin")
    }

    #[test]
    fn pipeline_names_its_stages() {
        let bytes = header(202, "generic.model0v5.0.0generic.model1v1.0.0spec", 5, &[]);
        let h = parse(&bytes, at()).unwrap();
        assert!(h.is_pipeline());
        assert_eq!(h.kind(), Some("a pipeline"));
        assert_eq!(h.spec_version, Some(5));
        assert_eq!(h.stage_count(at()).unwrap(), 2);
    }

    #[test]
    fn program_stage_gives_its_description_and_spec() {
        let desc = proto::ModelDescription {
            input: vec![proto::FeatureDescription {
                name: "image".into(),
                ..Default::default()
            }],
            ..Default::default()
        };
        let bytes = header(ML_PROGRAM, "generic", 7, &desc.encode_to_vec());
        let h = parse(&bytes, at()).unwrap();
        assert_eq!(h.kind(), Some("an ML program"));
        assert_eq!(h.spec_version, Some(7));
        let d = h.description.unwrap();
        assert_eq!(d.top.inputs[0].name, "image");
    }

    #[test]
    fn kinds_come_from_the_model_oneof() {
        assert_eq!(kind_of_tag(610), Some("a non-maximum suppression model"));
        assert_eq!(kind_of_tag(500), Some("a neural network"));
        assert_eq!(kind_of_tag(7), None);
        assert_eq!(kind_of_tag(0), None);
        assert_eq!(kind_of_tag(u32::MAX), None);
    }

    #[test]
    fn cut_short_and_odd_stage_names_are_errors() {
        let full = header(202, "generic.model0v5.0.0generic.model1v1.0.0spec", 5, &[]);
        for len in [0, 3] {
            let e = parse(&full[..len], at()).unwrap_err().to_string();
            assert!(
                e.contains("too short") && e.contains("coremldata.bin"),
                "{e}"
            );
        }
        for len in [4, 0x24, 0x30] {
            let h = parse(&full[..len], at()).unwrap();
            let e = h.stage_count(at()).unwrap_err().to_string();
            assert!(e.contains("cut short"), "{len}: {e}");
        }
        let none = parse(&header(202, "spec", 5, &[]), at()).unwrap();
        assert!(none
            .stage_count(at())
            .unwrap_err()
            .to_string()
            .contains("no stages"));
        let twice = parse(
            &header(202, "generic.model0v5generic.model0v5", 5, &[]),
            at(),
        )
        .unwrap();
        assert!(twice
            .stage_count(at())
            .unwrap_err()
            .to_string()
            .contains("out of order"));
        let huge_len = {
            let mut b = full.clone();
            b[STRING_LEN_AT..STRING_AT].copy_from_slice(&u64::MAX.to_le_bytes());
            b
        };
        assert!(parse(&huge_len, at()).unwrap().string.is_none());
    }

    #[test]
    fn description_that_does_not_decode_is_left_out() {
        let bytes = header(ML_PROGRAM, "generic", 7, &[0xff, 0xff, 0xff]);
        assert!(parse(&bytes, at()).unwrap().description.is_none());
        let mut long = header(ML_PROGRAM, "generic", 7, &[]);
        let len_at = STRING_AT + 7 + DESCRIPTION_LEN_AFTER_STRING;
        long[len_at..len_at + 8].copy_from_slice(&1000u64.to_le_bytes());
        assert!(parse(&long, at()).unwrap().description.is_none());
    }
}
