//! The direct path against the prost path, operation by operation: on every top-level operation
//! of the models under `corpus/`, and on mutants of them.

use std::path::{Path, PathBuf};

use prost::bytes::Bytes;
use prost::Message;

use super::super::{lower_op_in_context, zc};
use super::{operation, TypeCache};
use crate::ir::build::{FunctionBuilder, OpSyntax};
use crate::ir::Span;
use crate::read::proto;

/// Every `*.mlmodel` file under `dir`, in a stable order.
fn model_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            model_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "mlmodel") {
            out.push(p);
        }
    }
}

/// The top-level operations of every function of the ML program in each corpus model.
fn corpus_operations() -> Vec<(String, Bytes)> {
    let mut files = Vec::new();
    model_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus"),
        &mut files,
    );
    let mut ops = Vec::new();
    for file in files {
        let bytes = Bytes::from(std::fs::read(&file).unwrap());
        let Ok(outline) = proto::decode_outline(bytes, &file) else {
            continue;
        };
        let Some(program) = outline.ml_program else {
            continue;
        };
        for (name, f) in program.functions {
            for (opset, block) in f.block_specializations {
                for (i, raw) in block.operations.into_iter().enumerate() {
                    ops.push((format!("{}: {name}/{opset} op {i}", file.display()), raw));
                }
            }
        }
    }
    ops
}

fn builder() -> FunctionBuilder {
    FunctionBuilder::new(
        "main".into(),
        "CoreML8".into(),
        Vec::new(),
        Span::default(),
        (0, 0),
    )
}

/// What the prost path makes of `raw`: `None` when it does not decode or lower.
fn prost_path(raw: &[u8]) -> Option<OpSyntax> {
    let op = zc::Operation::decode(raw).ok()?;
    lower_op_in_context(&op, 0).ok()
}

#[test]
fn every_corpus_operation_reads_as_the_prost_path_reads_it() {
    let ops = corpus_operations();
    let (mut direct, mut nested, mut other) = (0, 0, 0);
    // One cache of types for all: a type read from it is the type its bytes decode to.
    let mut types = TypeCache::default();
    for (at, raw) in &ops {
        let expected = prost_path(raw);
        match operation(raw, &mut builder(), &mut types) {
            Some(op) => {
                assert_eq!(Some(&op), expected.as_ref(), "{at}");
                direct += 1;
            }
            None if expected.as_ref().is_some_and(|op| !op.blocks.is_empty()) => nested += 1,
            None => other += 1,
        }
    }
    // The direct path is the one taken: all but ops with nested blocks and a few with container
    // values (tuples, lists) go through it.
    assert!(
        direct > 3_000,
        "{direct} ops read directly, {other} left to prost"
    );
    assert!(
        other * 50 < direct,
        "{other} ops without nested blocks left to prost, {direct} read directly, {nested} nested"
    );
}

/// xorshift64*: deterministic.
fn next(state: &mut u64) -> u64 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    state.wrapping_mul(0x2545_F491_4F6C_DD1D)
}

#[test]
fn a_mutated_operation_is_read_as_the_prost_path_reads_it_or_left_to_it() {
    let ops = corpus_operations();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let (mut direct, mut mutants) = (0, 0);
    let mut types = TypeCache::default();
    for (at, raw) in ops.iter().step_by(7) {
        if raw.is_empty() {
            continue;
        }
        for m in 0..12 {
            let mut b = raw.to_vec();
            let i = (next(&mut state) % b.len() as u64) as usize;
            match m % 4 {
                0 => b[i] ^= 1 << (next(&mut state) % 8),
                1 => b[i] = next(&mut state) as u8,
                2 => b.truncate(i),
                _ => b[i] = b[i].wrapping_add(1),
            }
            mutants += 1;
            if let Some(op) = operation(&b, &mut builder(), &mut types) {
                assert_eq!(Some(op), prost_path(&b), "{at}, mutant {m}: {b:?}");
                direct += 1;
            }
        }
    }
    // Many mutants still read (a changed size, dtype or name): the comparison is not vacuous.
    assert!(
        direct * 10 > mutants,
        "{direct} of {mutants} mutants read directly"
    );
}

#[test]
fn map_entries_in_any_order_read_by_key_the_last_of_equal_keys_winning() {
    let relu = |x: &str, bound: &str, name: &str| proto::Operation {
        r#type: "relu".into(),
        inputs: [(
            x.to_string(),
            proto::Argument {
                arguments: vec![proto::argument::Binding {
                    binding: Some(proto::argument::binding::Binding::Name(bound.into())),
                }],
            },
        )]
        .into(),
        attributes: [(
            name.to_string(),
            proto::Value {
                r#type: Some(proto::ValueType {
                    r#type: Some(proto::value_type::Type::TensorType(proto::TensorType {
                        data_type: 2,
                        ..Default::default()
                    })),
                }),
                value: Some(proto::value::Value::ImmediateValue(proto::ImmediateValue {
                    value: Some(proto::immediate_value::Value::Tensor(proto::TensorValue {
                        value: Some(proto::tensor_value::Value::Strings(
                            proto::tensor_value::RepeatedStrings {
                                values: vec![bound.into()],
                            },
                        )),
                    })),
                })),
                ..Default::default()
            },
        )]
        .into(),
        ..Default::default()
    };
    // In file order: y = a, x = a, y = b; attributes `name` = a, `z` = a, `name` = b, `z` = b.
    let mut raw = relu("y", "a", "name").encode_to_vec();
    for (x, bound, attribute) in [("x", "a", "z"), ("y", "b", "name"), ("x", "b", "z")] {
        let more = relu(x, bound, attribute).encode_to_vec();
        raw.extend(&more[6..]); // without its `type` field
    }
    let op = operation(&raw, &mut builder(), &mut TypeCache::default()).expect("read directly");
    assert_eq!(Some(&op), prost_path(&raw).as_ref());
    let params: Vec<(&str, &str)> = op
        .inputs
        .iter()
        .map(|p| match &p.args[..] {
            [crate::ir::Arg::Name(n)] => (p.name.as_str(), n.as_str()),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(params, [("x", "b"), ("y", "b")]);
    assert_eq!(op.name.as_deref(), Some("b"));
    assert_eq!(op.attributes.get("z").and_then(|l| l.as_str()), Some("b"));
}

/// The direct path names fields only through `read::proto::fields` (rendered from the table, kept
/// equal to it by `codegen`'s test): no match arm on a number, no key written as a byte.
#[test]
fn the_direct_path_writes_no_field_number_of_its_own() {
    let source = include_str!("../direct.rs");
    let code = source.split("#[cfg(test)]").next().unwrap_or_default();
    for (i, line) in code.lines().enumerate() {
        let arm = line.trim_start().trim_start_matches(['(', '[', '|', ' ']);
        let numbered_arm = arm.starts_with(|c: char| c.is_ascii_digit())
            && arm.contains("=>")
            && !arm.starts_with("0..");
        assert!(
            !numbered_arm && !line.contains("\\x") && !line.contains("slices("),
            "direct.rs:{}: a field number written by hand: {line}",
            i + 1
        );
    }
    // The file does use the generated fields (the check above is not vacuous).
    assert!(code.contains("fields::<") && code.contains("map_entry::KEY"));
}
