//! A wire-level splice that re-encodes a `Model` while keeping every byte the fixer does not
//! mean to change: a description or program replaced in place, a pipeline's sub-model replaced,
//! every other field (unknown ones included) copied as it was.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::indexing_slicing))]

use crate::read::proto::{fields, wire, ModelDescription, Program};

/// A field's number, from its key in `read::proto::fields` (rendered from the one table).
const fn number(key: u64) -> u32 {
    (key >> 3) as u32
}

/// Tag of `Model.description`.
pub const MODEL_DESCRIPTION_TAG: u32 = number(fields::model::DESCRIPTION);
/// Tag of `Model.mlProgram`.
pub const MODEL_ML_PROGRAM_TAG: u32 = number(fields::model::ML_PROGRAM);

/// Why a `Model` could not be re-encoded at the wire level.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SpliceError {
    /// The original bytes are not a well-formed protobuf message.
    #[error("the original model protobuf is malformed at byte {offset}: {what}")]
    Malformed {
        /// Byte offset in the original bytes where decoding failed.
        offset: usize,
        /// What was wrong there.
        what: &'static str,
    },
    /// A replacement was asked for a field the original does not have and that cannot be added.
    #[error("the original model has no {what} to replace")]
    Missing {
        /// The field that was asked for, e.g. "sub-model at that position".
        what: &'static str,
    },
}

/// One top-level field of a message as it sits in the bytes.
struct WireField {
    number: u32,
    /// The whole field: key, length prefix (if any) and payload.
    start: usize,
    end: usize,
    /// Where the payload of a length-delimited field starts (`start` for other wire types).
    payload_start: usize,
    length_delimited: bool,
}

/// Reads a base-128 varint at `*pos` (the reader's, `read::proto::wire::varint`), advancing it.
fn read_varint(bytes: &[u8], pos: &mut usize) -> Result<u64, SpliceError> {
    let mut rest = bytes.get(*pos..).unwrap_or_default();
    let before = rest.len();
    let value = wire::varint(&mut rest).ok_or(SpliceError::Malformed {
        offset: *pos,
        what: "malformed or truncated varint",
    })?;
    *pos += before - rest.len();
    Ok(value)
}

/// Writes a base-128 varint (prost's public encoder takes a `usize`; keys are `u64` here).
fn write_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Advances `*pos` by `n` bytes, refusing to run past the end.
fn skip(bytes: &[u8], pos: &mut usize, n: u64) -> Result<(), SpliceError> {
    let end = usize::try_from(n)
        .ok()
        .and_then(|n| pos.checked_add(n))
        .filter(|&end| end <= bytes.len())
        .ok_or(SpliceError::Malformed {
            offset: *pos,
            what: "field runs past the end",
        })?;
    *pos = end;
    Ok(())
}

/// Splits a message into its top-level fields, in file order, without interpreting them. Written
/// here because prost decodes into messages and keeps no byte ranges, which the splice needs.
fn wire_fields(bytes: &[u8]) -> Result<Vec<WireField>, SpliceError> {
    let mut fields = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        let start = pos;
        let mut payload_start = start;
        let key = read_varint(bytes, &mut pos)?;
        let number =
            u32::try_from(key >> 3)
                .ok()
                .filter(|&n| n != 0)
                .ok_or(SpliceError::Malformed {
                    offset: start,
                    what: "invalid field number",
                })?;
        match key & 7 {
            0 => {
                read_varint(bytes, &mut pos)?;
            }
            1 => skip(bytes, &mut pos, 8)?,
            2 => {
                let len = read_varint(bytes, &mut pos)?;
                payload_start = pos;
                skip(bytes, &mut pos, len)?;
            }
            5 => skip(bytes, &mut pos, 4)?,
            // Groups (3/4) are proto2-only and never used by Core ML files.
            _ => {
                return Err(SpliceError::Malformed {
                    offset: start,
                    what: "unsupported wire type",
                })
            }
        }
        fields.push(WireField {
            number,
            start,
            end: pos,
            payload_start,
            length_delimited: key & 7 == 2,
        });
    }
    Ok(fields)
}

/// A field to substitute, written at most once.
struct Replacement {
    number: u32,
    payload: Option<Vec<u8>>,
    written: bool,
}

impl Replacement {
    fn new(number: u32, payload: Option<Vec<u8>>) -> Replacement {
        Replacement {
            number,
            payload,
            written: false,
        }
    }

    fn write_once(&mut self, out: &mut Vec<u8>) {
        if let (Some(payload), false) = (&self.payload, self.written) {
            write_message_field(out, self.number, payload);
            self.written = true;
        }
    }
}

fn write_message_field(out: &mut Vec<u8>, number: u32, payload: &[u8]) {
    write_varint(out, (u64::from(number) << 3) | 2);
    write_varint(out, payload.len() as u64);
    out.extend_from_slice(payload);
}

/// Re-encodes a `Model` from its original bytes, replacing only `description` (tag 2) and/or
/// `mlProgram` (tag 502) and copying every other field verbatim, in its original position, so
/// fields these structs do not model survive.
///
/// A replaced field takes the position of its first occurrence; later occurrences (which a
/// protobuf parser would have merged into the decoded message) are dropped. A description the
/// original lacks is appended; a program the original lacks is an error (it would make the model
/// carry two kinds). With no replacement the output equals `original` byte for byte.
pub fn encode_model_preserving(
    original: &[u8],
    description: Option<&ModelDescription>,
    program: Option<&Program>,
) -> Result<Vec<u8>, SpliceError> {
    use prost::Message;
    let fields = wire_fields(original)?;
    if program.is_some() && !fields.iter().any(|f| f.number == MODEL_ML_PROGRAM_TAG) {
        return Err(SpliceError::Missing {
            what: "mlProgram (it is not an ML program)",
        });
    }
    let mut replacements = [
        Replacement::new(
            MODEL_DESCRIPTION_TAG,
            description.map(Message::encode_to_vec),
        ),
        Replacement::new(MODEL_ML_PROGRAM_TAG, program.map(Message::encode_to_vec)),
    ];
    let mut out = Vec::with_capacity(original.len());
    for field in &fields {
        match replacements
            .iter_mut()
            .find(|r| r.number == field.number && r.payload.is_some())
        {
            Some(r) => r.write_once(&mut out),
            None => out.extend_from_slice(original.get(field.start..field.end).ok_or(
                SpliceError::Malformed {
                    offset: field.start,
                    what: "field out of range",
                },
            )?),
        }
    }
    for r in &mut replacements {
        r.write_once(&mut out);
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Pipelines: the bytes of one sub-model, and the whole model with one sub-model replaced
// ---------------------------------------------------------------------------------------------

/// Tags of `Model.pipeline`, and of `Model.pipelineClassifier` and `Model.pipelineRegressor`
/// (which hold a `Pipeline`).
const PIPELINE_TAG: u32 = number(fields::model::PIPELINE);
const PIPELINE_HOLDER_TAGS: [u32; 2] = [
    number(fields::model::PIPELINE_CLASSIFIER),
    number(fields::model::PIPELINE_REGRESSOR),
];
/// Tag of the `Pipeline` inside a pipeline classifier or regressor.
const HOLDER_PIPELINE_TAG: u32 = number(fields::pipeline_holder::PIPELINE);
/// Tag of `Pipeline.models`.
const PIPELINE_MODELS_TAG: u32 = number(fields::pipeline::MODELS);

/// The field numbers leading from a `Model` to the `Pipeline` message it holds.
fn pipeline_route(model: &[u8]) -> Result<Vec<u32>, SpliceError> {
    let fields = wire_fields(model)?;
    if fields.iter().any(|f| f.number == PIPELINE_TAG) {
        return Ok(vec![PIPELINE_TAG]);
    }
    PIPELINE_HOLDER_TAGS
        .into_iter()
        .find(|&tag| fields.iter().any(|f| f.number == tag))
        .map(|tag| vec![tag, HOLDER_PIPELINE_TAG])
        .ok_or(SpliceError::Missing {
            what: "pipeline (it is not a pipeline)",
        })
}

/// The payload of the `n`-th occurrence of length-delimited field `number` in `message`.
fn nth_payload(message: &[u8], number: u32, n: usize) -> Result<&[u8], SpliceError> {
    let field = wire_fields(message)?
        .into_iter()
        .filter(|f| f.number == number)
        .nth(n)
        .ok_or(SpliceError::Missing {
            what: "sub-model at that position",
        })?;
    if !field.length_delimited {
        return Err(SpliceError::Malformed {
            offset: field.start,
            what: "a pipeline field is not length-delimited",
        });
    }
    message
        .get(field.payload_start..field.end)
        .ok_or(SpliceError::Malformed {
            offset: field.start,
            what: "field out of range",
        })
}

/// The payload of field `number`, which must occur exactly once (a second occurrence would be
/// merged by a parser, so positions inside it would not be what the reader saw).
fn only_payload(message: &[u8], number: u32) -> Result<&[u8], SpliceError> {
    let count = wire_fields(message)?
        .iter()
        .filter(|f| f.number == number)
        .count();
    if count > 1 {
        return Err(SpliceError::Malformed {
            offset: 0,
            what: "a pipeline field occurs more than once",
        });
    }
    nth_payload(message, number, 0)
}

/// `message` with the payload of the `n`-th occurrence of field `number` replaced; every other
/// byte is kept.
fn replace_nth_payload(
    message: &[u8],
    number: u32,
    n: usize,
    payload: &[u8],
) -> Result<Vec<u8>, SpliceError> {
    let mut out = Vec::with_capacity(message.len() + payload.len());
    let mut seen = 0;
    for field in wire_fields(message)? {
        if field.number == number {
            if seen == n {
                write_message_field(&mut out, number, payload);
                seen += 1;
                continue;
            }
            seen += 1;
        }
        out.extend_from_slice(message.get(field.start..field.end).ok_or(
            SpliceError::Malformed {
                offset: field.start,
                what: "field out of range",
            },
        )?);
    }
    if seen <= n {
        return Err(SpliceError::Missing {
            what: "sub-model at that position",
        });
    }
    Ok(out)
}

/// The `Model` bytes of the sub-model at `position` (outermost level first) of the pipeline
/// `model`; an empty position is `model` itself.
pub fn sub_model_bytes<'a>(model: &'a [u8], position: &[usize]) -> Result<&'a [u8], SpliceError> {
    let Some((&i, rest)) = position.split_first() else {
        return Ok(model);
    };
    let mut pipeline = model;
    for tag in pipeline_route(model)? {
        pipeline = only_payload(pipeline, tag)?;
    }
    sub_model_bytes(nth_payload(pipeline, PIPELINE_MODELS_TAG, i)?, rest)
}

/// The pipeline `model` with its sub-model at `position` replaced by `new`: every byte outside
/// that sub-model is kept (the length prefixes of the messages holding it change with its size).
pub fn replace_sub_model(
    model: &[u8],
    position: &[usize],
    new: &[u8],
) -> Result<Vec<u8>, SpliceError> {
    let Some((&i, rest)) = position.split_first() else {
        return Ok(new.to_vec());
    };
    let route = pipeline_route(model)?;
    // The messages from `model` down to its `Pipeline`, outermost first.
    let mut chain = vec![model];
    for &tag in &route {
        let inner = only_payload(chain.last().copied().unwrap_or(model), tag)?;
        chain.push(inner);
    }
    let pipeline = chain.pop().unwrap_or(model);
    let sub = nth_payload(pipeline, PIPELINE_MODELS_TAG, i)?;
    let mut rebuilt = replace_nth_payload(
        pipeline,
        PIPELINE_MODELS_TAG,
        i,
        &replace_sub_model(sub, rest, new)?,
    )?;
    for (outer, &tag) in chain.iter().zip(&route).rev() {
        rebuilt = replace_nth_payload(outer, tag, 0, &rebuilt)?;
    }
    Ok(rebuilt)
}

#[cfg(test)]
mod tests {
    use prost::Message;

    use super::*;
    use crate::read::proto::fixtures::sample_model;
    use crate::read::proto::{model, Model, Pipeline};

    /// A field number no struct here models, appended as a varint and as a length-delimited field.
    fn with_unknown_fields(mut bytes: Vec<u8>) -> Vec<u8> {
        write_varint(&mut bytes, 777 << 3); // wire type 0 (varint)
        write_varint(&mut bytes, 42);
        write_message_field(&mut bytes, 778, b"opaque");
        bytes
    }

    #[test]
    fn splice_without_replacement_is_byte_identical() {
        let bytes = with_unknown_fields(sample_model().encode_to_vec());
        let out = encode_model_preserving(&bytes, None, None).unwrap();
        assert_eq!(out, bytes);
    }

    #[test]
    fn splice_with_unchanged_parts_decodes_equal_and_keeps_unknown_fields() {
        let bytes = with_unknown_fields(sample_model().encode_to_vec());
        let m = Model::decode(bytes.as_slice()).unwrap();
        let program = match &m.r#type {
            Some(model::Type::MlProgram(p)) => p,
            _ => unreachable!("sample is an ML program"),
        };
        let out = encode_model_preserving(&bytes, m.description.as_ref(), Some(program)).unwrap();
        assert_eq!(Model::decode(out.as_slice()).unwrap(), m);
        let numbers: Vec<u32> = wire_fields(&out)
            .unwrap()
            .iter()
            .map(|f| f.number)
            .collect();
        let original: Vec<u32> = wire_fields(&bytes)
            .unwrap()
            .iter()
            .map(|f| f.number)
            .collect();
        assert_eq!(numbers, original);
        assert!(out.windows(6).any(|w| w == b"opaque"));
    }

    #[test]
    fn splice_replaces_description_in_place() {
        let bytes = with_unknown_fields(sample_model().encode_to_vec());
        let mut m = Model::decode(bytes.as_slice()).unwrap();
        let mut desc = m.description.clone().unwrap_or_default();
        desc.default_function_name = "main".into();
        let out = encode_model_preserving(&bytes, Some(&desc), None).unwrap();
        m.description = Some(desc);
        assert_eq!(Model::decode(out.as_slice()).unwrap(), m);
        assert!(out.windows(6).any(|w| w == b"opaque"));
    }

    #[test]
    fn splice_appends_missing_description_and_refuses_missing_program() {
        let m = Model {
            specification_version: 4,
            r#type: Some(model::Type::NeuralNetwork(vec![8, 1])),
            ..Model::default()
        };
        let bytes = m.encode_to_vec();
        let desc = ModelDescription {
            predicted_feature_name: "p".into(),
            ..ModelDescription::default()
        };
        let out = encode_model_preserving(&bytes, Some(&desc), None).unwrap();
        assert_eq!(
            Model::decode(out.as_slice()).unwrap().description,
            Some(desc)
        );
        let err = encode_model_preserving(&bytes, None, Some(&Program::default())).unwrap_err();
        assert!(matches!(err, SpliceError::Missing { .. }));
    }

    #[test]
    fn duplicate_description_fields_collapse_to_one() {
        let mut bytes = sample_model().encode_to_vec();
        let extra = ModelDescription {
            predicted_feature_name: "second".into(),
            ..ModelDescription::default()
        };
        write_message_field(&mut bytes, 2, &extra.encode_to_vec());
        let merged = Model::decode(bytes.as_slice()).unwrap();
        let out = encode_model_preserving(&bytes, merged.description.as_ref(), None).unwrap();
        let count = wire_fields(&out)
            .unwrap()
            .iter()
            .filter(|f| f.number == 2)
            .count();
        assert_eq!(count, 1);
        assert_eq!(Model::decode(out.as_slice()).unwrap(), merged);
    }

    #[test]
    fn splice_rejects_malformed_input() {
        let bytes = sample_model().encode_to_vec();
        for len in 1..bytes.len() {
            // A prefix either splits into whole fields or is reported; it never panics.
            let _ = encode_model_preserving(&bytes[..len], None, None);
        }
        let err = encode_model_preserving(&[0x12, 0x05, 0x01], None, None).unwrap_err();
        assert!(matches!(err, SpliceError::Malformed { .. }));
        assert!(encode_model_preserving(&[0x0b], None, None).is_err());
    }

    /// `Model.pipelineClassifier` holding a pipeline of `models`, plus an unknown field.
    fn classifier_of(models: Vec<Model>) -> Vec<u8> {
        let pipeline = Pipeline {
            models,
            names: vec!["a".into(), "b".into()],
        }
        .encode_to_vec();
        let mut holder = Vec::new();
        write_message_field(&mut holder, 1, &pipeline);
        let top = Model {
            specification_version: 9,
            r#type: Some(model::Type::PipelineClassifier(holder)),
            ..Model::default()
        };
        with_unknown_fields(top.encode_to_vec())
    }

    #[test]
    fn sub_models_are_found_and_replaced_keeping_every_other_byte() {
        let inner = Model {
            r#type: Some(model::Type::Pipeline(Pipeline {
                models: vec![sample_model(), sample_model()],
                names: vec![],
            })),
            ..Model::default()
        };
        let bytes = classifier_of(vec![sample_model(), inner]);
        let sub = sub_model_bytes(&bytes, &[1, 0]).unwrap();
        assert_eq!(Model::decode(sub).unwrap(), sample_model());
        assert_eq!(sub_model_bytes(&bytes, &[]).unwrap(), bytes.as_slice());

        let mut changed = sample_model();
        changed.specification_version = 10;
        let out = replace_sub_model(&bytes, &[1, 0], &changed.encode_to_vec()).unwrap();
        assert_eq!(
            Model::decode(sub_model_bytes(&out, &[1, 0]).unwrap()).unwrap(),
            changed
        );
        for untouched in [&[0][..], &[1, 1]] {
            assert_eq!(
                sub_model_bytes(&out, untouched).unwrap(),
                sub_model_bytes(&bytes, untouched).unwrap()
            );
        }
        assert!(out.windows(6).any(|w| w == b"opaque"));
        // Replacing a sub-model with its own bytes gives the file back unchanged.
        let same = replace_sub_model(&bytes, &[1, 0], sub).unwrap();
        assert_eq!(same, bytes);
    }

    #[test]
    fn sub_model_positions_that_do_not_exist_are_refused() {
        let bytes = classifier_of(vec![sample_model()]);
        assert!(matches!(
            sub_model_bytes(&bytes, &[3]),
            Err(SpliceError::Missing { .. })
        ));
        assert!(replace_sub_model(&bytes, &[0, 0], b"").is_err());
        let program = sample_model().encode_to_vec();
        assert!(sub_model_bytes(&program, &[0]).is_err());
        // A pipeline field given twice would be merged by a parser: refused, not guessed.
        let mut twice = bytes.clone();
        let holder = nth_payload(&bytes, 200, 0).unwrap().to_vec();
        write_message_field(&mut twice, 200, &holder);
        assert!(matches!(
            sub_model_bytes(&twice, &[0]),
            Err(SpliceError::Malformed { .. })
        ));
        for len in 0..bytes.len() {
            let _ = sub_model_bytes(&bytes[..len], &[0]);
            let _ = replace_sub_model(&bytes[..len], &[0], b"x");
        }
    }
}
