//! `metadata.json` of a compiled `.mlmodelc` (FORMAT.md §1.3, SYNTAX-NOTES.md §7).
//!
//! The file is informational, so keys are optional and values of an unexpected type are skipped;
//! only a file that is not JSON, or not an array holding an object, is an error.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::indexing_slicing))]

use std::path::Path;

use serde_json::{Map, Value};

use super::manifest::json_kind;
use super::{limits, ReadError};
use crate::ir::{DType, FeatureDesc, FeatureKind, Flexibility, ModelDesc};

/// What `metadata.json` says.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metadata {
    /// `specificationVersion`, when present and a number.
    pub spec_version: Option<i64>,
    /// Inputs, outputs, states, functions and user metadata as the file lists them.
    pub description: ModelDesc,
}

/// Reads `metadata.json`; `Ok(None)` when the file is absent.
pub fn read_metadata(path: &Path) -> Result<Option<Metadata>, ReadError> {
    if !path.exists() {
        return Ok(None);
    }
    let bytes = limits::read_capped(path)?;
    parse_metadata(&bytes, path).map(Some)
}

/// Parses the bytes of a `metadata.json`; `path` is only used in errors.
pub(crate) fn parse_metadata(bytes: &[u8], path: &Path) -> Result<Metadata, ReadError> {
    let err = |message: String| ReadError::Metadata {
        path: path.to_path_buf(),
        message,
    };
    let json: Value =
        serde_json::from_slice(bytes).map_err(|e| err(format!("not valid JSON: {e}")))?;
    let obj = match &json {
        Value::Array(items) => match items.first() {
            Some(Value::Object(o)) => o,
            Some(other) => {
                return Err(err(format!(
                    "expected an array holding one object, its first element is {}",
                    json_kind(other)
                )))
            }
            None => return Err(err("expected an array holding one object, found []".into())),
        },
        other => {
            return Err(err(format!(
                "expected an array holding one object, found {}",
                json_kind(other)
            )))
        }
    };
    let schema = |key: &str| -> Vec<FeatureDesc> {
        obj.get(key)
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(feature).collect())
            .unwrap_or_default()
    };
    let mut description = ModelDesc::default();
    description.top.inputs = schema("inputSchema");
    description.top.outputs = schema("outputSchema");
    description.top.states = schema("stateSchema");
    description.user_defined = obj
        .get("userDefinedMetadata")
        .and_then(Value::as_object)
        .map(|m| m.iter().map(|(k, v)| (k.clone(), scalar_text(v))).collect())
        .unwrap_or_default();
    description.op_histogram = obj
        .get("mlProgramOperationTypeHistogram")
        .and_then(Value::as_object)
        .map(histogram);
    Ok(Metadata {
        spec_version: obj.get("specificationVersion").and_then(as_int),
        description,
    })
}

/// `{"Ios16.mul": 1, …}` → sorted (key, count) pairs; counts may be numbers or strings.
fn histogram(m: &Map<String, Value>) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = m
        .iter()
        .filter_map(|(k, v)| {
            let n = as_int(v)?;
            Some((k.clone(), u64::try_from(n).ok()?))
        })
        .collect();
    out.sort();
    out
}

/// A number, or a string holding one ("9").
fn as_int(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// "1" / "0" / true / false.
fn as_flag(v: Option<&Value>) -> bool {
    match v {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s == "1" || s.eq_ignore_ascii_case("true"),
        Some(Value::Number(n)) => n.as_i64() == Some(1),
        _ => false,
    }
}

fn scalar_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `Float16`, `Float32`, `Double`, `Int32`, … (metadata.json spelling) → DType.
fn dtype_from_name(name: &str) -> Option<DType> {
    Some(match name {
        "Float16" => DType::Fp16,
        "Float32" | "Float" => DType::Fp32,
        "Double" | "Float64" => DType::Fp64,
        "Int8" => DType::Int8,
        "Int16" => DType::Int16,
        "Int32" => DType::Int32,
        "Int64" => DType::Int64,
        "UInt8" => DType::UInt8,
        "UInt16" => DType::UInt16,
        _ => return None,
    })
}

/// One schema entry; entries that are not objects or have no name are skipped.
fn feature(entry: &Value) -> Option<FeatureDesc> {
    let obj = entry.as_object()?;
    let name = obj.get("name")?.as_str()?.to_string();
    let text = |key: &str| obj.get(key).and_then(Value::as_str);
    let formatted = text("formattedType").and_then(parse_formatted);
    let dtype = text("dataType")
        .and_then(dtype_from_name)
        .or_else(|| formatted.as_ref().and_then(|f| f.1));
    let shape = text("shape")
        .and_then(parse_int_list)
        .or_else(|| formatted.as_ref().map(|f| f.2.clone()))
        .unwrap_or_default();
    let ty = text("type")
        .map(str::to_string)
        .or_else(|| formatted.as_ref().map(|f| f.0.clone()))
        .unwrap_or_default();
    let kind = match ty.as_str() {
        "MultiArray" => FeatureKind::Array {
            dtype,
            shape,
            flexible: flexibility(obj),
            default: None,
        },
        "State" => FeatureKind::State { dtype, shape },
        "Int64" => FeatureKind::Int64,
        "Double" => FeatureKind::Double,
        "String" => FeatureKind::String,
        "Image" => FeatureKind::Image {
            width: shape.get(1).copied().unwrap_or(0),
            height: shape.first().copied().unwrap_or(0),
        },
        other => FeatureKind::Other(other.to_string()),
    };
    Some(FeatureDesc {
        name,
        kind,
        optional: as_flag(obj.get("isOptional")),
    })
}

/// `shapeRange` ("[[1, 1], [1, 32000]]") or `enumeratedShapes` ("[[1, 2], [1, 4]]").
fn flexibility(obj: &Map<String, Value>) -> Option<Flexibility> {
    if !as_flag(obj.get("hasShapeFlexibility")) {
        return None;
    }
    if let Some(ranges) = obj
        .get("shapeRange")
        .and_then(Value::as_str)
        .and_then(parse_nested_int_lists)
    {
        let pairs = ranges
            .iter()
            .map(|r| match r.as_slice() {
                [lo, hi] => Some((u64::try_from(*lo).ok()?, *hi)),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        return Some(Flexibility::Ranges(pairs));
    }
    obj.get("enumeratedShapes")
        .and_then(Value::as_str)
        .and_then(parse_nested_int_lists)
        .map(Flexibility::Enumerated)
}

/// `"[1, 10]"` → `[1, 10]`; `"[]"` → `[]`.
fn parse_int_list(s: &str) -> Option<Vec<i64>> {
    let inner = s.trim().strip_prefix('[')?.strip_suffix(']')?.trim();
    if inner.is_empty() {
        return Some(Vec::new());
    }
    inner.split(',').map(|p| p.trim().parse().ok()).collect()
}

/// `"[[1, 1], [1, 2048]]"` → `[[1, 1], [1, 2048]]`.
fn parse_nested_int_lists(s: &str) -> Option<Vec<Vec<i64>>> {
    let inner = s.trim().strip_prefix('[')?.strip_suffix(']')?.trim();
    let mut out = Vec::new();
    let mut rest = inner;
    while !rest.is_empty() {
        let open = rest.strip_prefix('[')?;
        let close = open.find(']')?;
        out.push(parse_int_list(rest.get(..close + 2)?)?);
        rest = open
            .get(close + 1..)?
            .trim_start()
            .trim_start_matches(',')
            .trim_start();
    }
    Some(out)
}

/// `"MultiArray (Float16 1 × 10)"`, `"State (Float16 1 × 8 × 64)"` → (type, dtype, shape).
fn parse_formatted(s: &str) -> Option<(String, Option<DType>, Vec<i64>)> {
    let (kind, rest) = s.split_once('(')?;
    let inner = rest.trim_end().strip_suffix(')')?;
    let mut words = inner.split_whitespace();
    let dtype = words.next().and_then(dtype_from_name);
    let shape = words
        .filter(|w| *w != "×" && *w != "x")
        .map(|w| w.parse().ok())
        .collect::<Option<Vec<i64>>>()
        .unwrap_or_default();
    Some((kind.trim().to_string(), dtype, shape))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Metadata, ReadError> {
        parse_metadata(text.as_bytes(), Path::new("x.mlmodelc/metadata.json"))
    }

    #[test]
    fn reads_schemas_histogram_and_user_metadata() {
        let m = parse(
            r#"[{"specificationVersion": 9,
                 "inputSchema": [{"name": "x", "type": "MultiArray", "dataType": "Float16",
                                  "shape": "[1, 10]", "isOptional": "0", "hasShapeFlexibility": "0"}],
                 "outputSchema": [{"name": "y", "type": "MultiArray", "dataType": "Int32", "shape": "[]"}],
                 "stateSchema": [{"name": "k", "type": "State",
                                  "formattedType": "State (Float16 1 × 8 × 64)"}],
                 "mlProgramOperationTypeHistogram": {"Ios18.sliceUpdate": 2, "Ios18.readState": "3"},
                 "userDefinedMetadata": {"com.github.apple.coremltools.version": "9.0"}}]"#,
        )
        .unwrap();
        assert_eq!(m.spec_version, Some(9));
        let d = &m.description;
        assert_eq!(
            d.top.inputs,
            vec![FeatureDesc {
                name: "x".into(),
                kind: FeatureKind::Array {
                    dtype: Some(DType::Fp16),
                    shape: vec![1, 10],
                    flexible: None,
                    default: None,
                },
                optional: false,
            }]
        );
        assert!(matches!(
            &d.top.outputs[0].kind,
            FeatureKind::Array { dtype: Some(DType::Int32), shape, .. } if shape.is_empty()
        ));
        assert_eq!(
            d.top.states[0].kind,
            FeatureKind::State {
                dtype: Some(DType::Fp16),
                shape: vec![1, 8, 64]
            }
        );
        assert_eq!(
            d.op_histogram,
            Some(vec![
                ("Ios18.readState".to_string(), 3),
                ("Ios18.sliceUpdate".to_string(), 2)
            ])
        );
        assert_eq!(
            d.user_defined,
            vec![(
                "com.github.apple.coremltools.version".to_string(),
                "9.0".to_string()
            )]
        );
    }

    #[test]
    fn spec_version_as_string_and_missing_keys() {
        let m = parse(r#"[{"specificationVersion": "7"}]"#).unwrap();
        assert_eq!(m.spec_version, Some(7));
        assert!(m.description.top.inputs.is_empty());
        assert_eq!(m.description.op_histogram, None);
        assert_eq!(parse("[{}]").unwrap().spec_version, None);
    }

    #[test]
    fn shape_ranges_are_read() {
        let m = parse(
            r#"[{"inputSchema": [{"name": "a", "type": "MultiArray", "dataType": "Float32",
                 "hasShapeFlexibility": "1", "shapeRange": "[[1, 1], [1, 32000]]", "shape": "[1, 1]"}]}]"#,
        )
        .unwrap();
        assert_eq!(
            m.description.top.inputs[0].kind,
            FeatureKind::Array {
                dtype: Some(DType::Fp32),
                shape: vec![1, 1],
                flexible: Some(Flexibility::Ranges(vec![(1, 1), (1, 32000)])),
                default: None,
            }
        );
    }

    #[test]
    fn garbage_is_a_clear_error() {
        for (text, expected) in [
            ("", "not valid JSON"),
            ("{\"a\": ", "not valid JSON"),
            ("\u{0}\u{1}garbage", "not valid JSON"),
            ("{}", "found an object"),
            ("[]", "found []"),
            ("[3]", "first element is a number"),
            ("\"x\"", "found a string"),
        ] {
            match parse(text) {
                Err(e @ ReadError::Metadata { .. }) => {
                    let msg = e.to_string();
                    assert!(msg.contains(expected), "{text:?}: {msg}");
                    assert!(msg.contains("metadata.json"), "{msg}");
                }
                other => panic!("{text:?}: expected a metadata error, got {other:?}"),
            }
        }
        // Wrong value types inside are skipped, not fatal.
        let m = parse(r#"[{"inputSchema": 3, "outputSchema": [1, {"name": 2}], "mlProgramOperationTypeHistogram": []}]"#)
            .unwrap();
        assert!(m.description.top.inputs.is_empty() && m.description.top.outputs.is_empty());
    }

    #[test]
    fn absent_file_is_none() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            read_metadata(&dir.path().join("metadata.json")).unwrap(),
            None
        );
    }
}
