//! Tensor values written in the program itself (immediate values of a protobuf program, literals
//! of a text one) against the bytes of its weight files (FIELD-HAZARDS-4 G2: whole weights inline
//! make loads take minutes). The `inline-weights` entity describes them, all functions together,
//! at the op holding the largest; `inline-weights`' YAML holds the thresholds. The plan of its fix
//! moves each `const`'s inline tensor into `weights/weight.bin` as a new record (the layout
//! coremltools writes: 64-byte metadata, payload, each record 64-byte aligned), bit-identical; a
//! package without that file gets a new one (and the fix its `Manifest.json` item).

use std::path::PathBuf;
use std::sync::Arc;

use super::entity::{kind_named, prop, Entity, EntityDemand, EntityKind, Partial, PropType};
use super::fix_plan::{
    op_ref, Applicability, FunctionEdit, LiteralEdit, LiteralSite, OpRewrite, PadPlan, ValueChange,
    WeightAppend, WEIGHT_PATH,
};
use super::weight_uses::weight_files;
use crate::ir::{Arg, DType, Function, Literal, Model, ModelKind, NodeId, Payload, TensorData};
use crate::read::blob;

/// The entity kinds produced here.
pub const ENTITY_KINDS: &[EntityKind] = &[EntityKind {
    name: "inline-weights",
    doc: "the tensor values the program holds inline (protobuf immediate values, text MIL literals), \
          every function together, beside the bytes of the weight files it references",
    located_at: "the op holding the largest inline tensor (the first of equals)",
    properties: &[
        prop("total-bytes", PropType::Int, "The bytes of every inline tensor value (elements × element size; a string's UTF-8 length)."),
        prop("total-text", PropType::Text, "The total for messages, e.g. `320.0 KiB (327680 bytes)`."),
        prop("tensors", PropType::Int, "How many inline tensor values the program holds."),
        prop("largest-bytes", PropType::Int, "The bytes of the largest inline tensor value."),
        prop("largest-text", PropType::Text, "The same for messages."),
        prop("largest-type", PropType::Text, "Its type, e.g. `tensor<fp16, [256, 256]>`."),
        prop("largest-param", PropType::Text, "The attribute or parameter holding it (`val`)."),
        prop("weight-file-bytes", PropType::Int, "The summed length of the weight files the program references that exist."),
        prop("weight-file-text", PropType::Text, "The same for messages."),
    ],
}];

/// Inline tensors with fewer elements stay inline (coremltools' own rule: `should_use_weight_file`).
const MIN_ELEMENTS: u64 = 10;

/// The bytes an inline tensor literal's values take: elements × element size (a string tensor:
/// its UTF-8 bytes); `None` for a file-backed literal or a container.
fn inline_bytes(lit: &Literal) -> Option<u64> {
    let Payload::Tensor(data) = &lit.payload else {
        return None;
    };
    if let TensorData::Strings(v) = data {
        return Some(v.iter().map(|s| s.len() as u64).sum());
    }
    if let TensorData::Bytes(b) = data {
        return Some(b.len() as u64);
    }
    let t = lit.ty.tensor()?;
    let count = t.element_count().or_else(|| data.len().map(|n| n as u64))?;
    let bits = u64::from(t.dtype.bits()?);
    Some((count.saturating_mul(bits)).div_ceil(8))
}

/// Every inline tensor literal of `f`: (op, the attribute or parameter holding it, literal,
/// bytes).
fn inline_sites(f: &Function) -> impl Iterator<Item = (NodeId, &str, &Literal, u64)> {
    f.ops().flat_map(|(id, op)| {
        let attributes = op.attributes.iter().map(|(k, v)| (k.as_ref(), v));
        let arguments = op.inputs.iter().flat_map(|p| {
            p.args.iter().filter_map(move |a| match a {
                Arg::Value(v) => Some((p.name.as_ref(), &**v)),
                Arg::Name(_) => None,
            })
        });
        attributes
            .chain(arguments)
            .filter_map(move |(site, lit)| Some((id, site, lit, inline_bytes(lit)?)))
    })
}

/// `n` bytes in KiB or MiB, with the exact count.
fn human(n: u64) -> String {
    if n >= 1 << 20 {
        format!("{:.1} MiB ({n} bytes)", n as f64 / f64::from(1u32 << 20))
    } else {
        format!("{:.1} KiB ({n} bytes)", n as f64 / 1024.0)
    }
}

/// The `inline-weights` entity of `model` (none when the program holds no inline tensor, or when
/// no rule of the run selects it by its counts: its texts and the weight files' bytes are then not
/// worked out).
pub fn inline_weight_entities(model: &Model, demand: &dyn EntityDemand) -> Vec<Entity> {
    const KIND: &EntityKind = const { kind_named(ENTITY_KINDS, "inline-weights") };
    const PENDING: u64 = KIND.slots(&[
        "total-text",
        "largest-text",
        "largest-type",
        "largest-param",
        "weight-file-bytes",
        "weight-file-text",
    ]);
    let mut total: u64 = 0;
    let mut tensors: u64 = 0;
    let mut largest: Option<(u64, &Function, NodeId, &str, &Literal)> = None;
    for f in &model.program.functions {
        for (id, param, lit, n) in inline_sites(f) {
            total = total.saturating_add(n);
            tensors += 1;
            if largest.as_ref().is_none_or(|l| n > l.0) {
                largest = Some((n, f, id, param, lit));
            }
        }
    }
    let Some((n, f, id, param, lit)) = largest else {
        return Vec::new();
    };
    let Some(op) = f.op(id) else {
        return Vec::new();
    };
    let mut counts = Partial::new(KIND);
    counts
        .set(KIND.slot("total-bytes"), total)
        .set(KIND.slot("tensors"), tensors)
        .set(KIND.slot("largest-bytes"), n);
    if !demand.may_select(&counts, PENDING) {
        return Vec::new();
    }
    let files: u64 = weight_files(model)
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .filter(std::fs::Metadata::is_file)
        .map(|m| m.len())
        .sum();
    let mut e = Entity::new(KIND)
        .with("total-bytes", total)
        .with("total-text", human(total))
        .with("tensors", tensors)
        .with("largest-bytes", n)
        .with("largest-text", human(n))
        .with(
            "largest-type",
            lit.ty.tensor().map(ToString::to_string).unwrap_or_default(),
        )
        .with("largest-param", param)
        .with("weight-file-bytes", files)
        .with("weight-file-text", human(files));
    e.function = Some(f.name.to_string());
    e.op = Some(op.display_name().to_string());
    e.op_order = Some(op.order);
    e.span = Some(op.span);
    vec![e]
}

/// The little-endian element bytes of an inline tensor as a weight record holds them, when its
/// element type is a byte-sized one weight files store.
fn record_bytes(lit: &Literal) -> Option<(DType, Vec<u8>)> {
    let t = lit.ty.tensor()?;
    let dtype = t.dtype;
    blob::storage_code(dtype)?;
    let count = usize::try_from(t.element_count()?).ok()?;
    let Payload::Tensor(data) = &lit.payload else {
        return None;
    };
    let bytes: Vec<u8> = match (dtype, data) {
        (_, TensorData::Bytes(b)) => b.clone(),
        (DType::Fp16, TensorData::Floats(v)) => v
            .iter()
            .flat_map(|&x| half::f16::from_f64(x).to_le_bytes())
            .collect(),
        (DType::Fp32, TensorData::Floats(v)) => {
            v.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect()
        }
        (DType::Int8, TensorData::Ints(v)) => ints(v, |x| {
            i8::try_from(x).ok().map(|y| y.to_le_bytes().to_vec())
        })?,
        (DType::UInt8, TensorData::Ints(v)) => ints(v, |x| u8::try_from(x).ok().map(|y| vec![y]))?,
        (DType::Int16, TensorData::Ints(v)) => ints(v, |x| {
            i16::try_from(x).ok().map(|y| y.to_le_bytes().to_vec())
        })?,
        (DType::UInt16, TensorData::Ints(v)) => ints(v, |x| {
            u16::try_from(x).ok().map(|y| y.to_le_bytes().to_vec())
        })?,
        (DType::Int32, TensorData::Ints(v)) => ints(v, |x| {
            i32::try_from(x).ok().map(|y| y.to_le_bytes().to_vec())
        })?,
        (DType::UInt32, TensorData::Ints(v)) => ints(v, |x| {
            u32::try_from(x).ok().map(|y| y.to_le_bytes().to_vec())
        })?,
        _ => return None,
    };
    let bits = usize::try_from(dtype.bits()?).ok()?;
    (bits % 8 == 0 && bytes.len() == count * bits / 8).then_some((dtype, bytes))
}

/// Each integer as `one` encodes it; `None` when one does not fit.
fn ints(v: &[i64], one: impl Fn(i64) -> Option<Vec<u8>>) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    for &x in v {
        out.extend(one(x)?);
    }
    Some(out)
}

/// The plan of `inline-weights`' fix: every `const` whose `val` is an inline tensor of 10 or more
/// elements of a type weight files hold becomes a BLOBFILE value of a record appended to the
/// package's `weights/weight.bin` (created when the package has none), its bytes unchanged. Only
/// for an `.mlpackage` (a compiled model is fixed in its package and compiled again).
pub fn plan_move_inline(model: &Model) -> Result<PadPlan, String> {
    if model.kind != ModelKind::MlPackage {
        return Err(
            "only an .mlpackage's weights can be moved; fix the package and compile it again"
                .into(),
        );
    }
    let file: PathBuf = blob::resolve_blob_path(WEIGHT_PATH, &model.model_path, &model.root)
        .map_err(|e| format!("`{WEIGHT_PATH}` does not resolve: {e}"))?;
    // Without a weight file the fix creates one (its header, then the records) and registers
    // its folder in Manifest.json (src/fix/manifest_edit.rs).
    let length = match std::fs::metadata(&file) {
        Ok(m) if m.is_file() => m.len(),
        Ok(_) => return Err(format!("{} is not a file", file.display())),
        Err(e)
            if e.kind() == std::io::ErrorKind::NotFound
                && std::fs::symlink_metadata(&file).is_err() =>
        {
            0
        }
        Err(e) => return Err(format!("{}: {e}", file.display())),
    };
    let mut next = length.next_multiple_of(64).max(64);
    let mut functions = Vec::new();
    let mut appends = Vec::new();
    let mut first = None;
    let mut moved: u64 = 0;
    for f in &model.program.functions {
        let mut fe = FunctionEdit {
            function: f.name.to_string(),
            ..FunctionEdit::default()
        };
        let mut ops: Vec<(NodeId, u32)> = f
            .ops()
            .filter(|(_, o)| o.op_type == "const")
            .map(|(id, o)| (id, o.order))
            .collect();
        ops.sort_by_key(|&(_, order)| order);
        for (id, _) in ops {
            let Some(lit) = f.op(id).and_then(|o| o.attributes.get("val")) else {
                continue;
            };
            let big = lit
                .ty
                .tensor()
                .and_then(|t| t.element_count())
                .is_some_and(|n| n >= MIN_ELEMENTS);
            if !big || lit.blob().is_some() {
                continue;
            }
            let Some((dtype, bytes)) = record_bytes(lit) else {
                continue;
            };
            let op = op_ref(f, id).ok_or("internal: op vanished")?;
            first.get_or_insert_with(|| (f.name.to_string(), op.label.clone()));
            let offset = next;
            next = (offset + 64 + bytes.len() as u64).next_multiple_of(64);
            moved += bytes.len() as u64;
            fe.literals.push(LiteralEdit {
                op,
                site: LiteralSite::Attribute("val".into()),
                change: ValueChange::ToBlobFile { offset },
            });
            appends.push(WeightAppend {
                file: file.clone(),
                written: WEIGHT_PATH.into(),
                offset,
                dtype,
                bytes: Arc::from(bytes),
            });
        }
        if !fe.literals.is_empty() {
            functions.push(fe);
        }
    }
    let (function, op) = first.ok_or("no const holds an inline tensor weight files can store")?;
    let what = format!(
        "{} inline const tensor(s), {}, as records of {WEIGHT_PATH}{} (the same bytes)",
        appends.len(),
        human(moved),
        if length == 0 {
            ", a new file the Manifest lists"
        } else {
            ""
        }
    );
    let mut plan = PadPlan::op_fix(
        OpRewrite { function, op, what },
        Applicability::Safe,
        functions,
        Vec::new(),
    );
    plan.appends = appends;
    Ok(plan)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::ir::{TensorType, ValueType};

    fn lit(dtype: DType, dims: &[u64], data: TensorData) -> Literal {
        Literal {
            ty: ValueType::Tensor(TensorType::fixed(dtype, dims)),
            payload: Payload::Tensor(data),
        }
    }

    /// The entity is described whole only when a rule of the run may select it by its counts: a
    /// program holding 2 KiB inline has it for every-entity demand, not for the built-in rules
    /// (`inline-weights` needs 256 KiB in all or a 64 KiB tensor); 80 KiB in one tensor has it.
    #[test]
    fn the_entity_is_made_only_when_its_counts_may_be_selected() {
        use crate::analysis::entity::EveryEntity;
        use crate::rules::{RuleDemand, RuleSet};
        let program = |elements: u64| {
            let values = vec!["1.0"; elements as usize].join(", ");
            format!("program(1.3)\n{{\n    func main<ios18>(tensor<fp16, [{elements}]> x) {{\n            tensor<fp16, [{elements}]> w = const()[name = string(\"w\"), val = tensor<fp16, [{elements}]>([{values}])];\n            tensor<fp16, [{elements}]> y = add(x = x, y = w)[name = string(\"y\")];\n        }} -> (y);\n}}\n")
        };
        let rules = RuleSet::builtin().unwrap();
        let builtin = RuleDemand::of(&rules);
        let small = crate::rules::testing::snippet_model("m.mil", &program(1024)).unwrap();
        let large = crate::rules::testing::snippet_model("m.mil", &program(40960)).unwrap();
        let made = inline_weight_entities(&small, &EveryEntity);
        assert_eq!(made.len(), 1);
        assert_eq!(
            made[0].get("largest-bytes"),
            Some(&crate::analysis::entity::Prop::Int(2048))
        );
        assert!(inline_weight_entities(&small, &builtin).is_empty());
        let made = inline_weight_entities(&large, &builtin);
        assert_eq!(made.len(), 1);
        assert!(made[0].get("largest-text").is_some());
    }

    #[test]
    fn records_hold_the_little_endian_elements_of_each_type() {
        let ints = |v: &[i64]| TensorData::Ints(v.to_vec());
        let (d, b) = record_bytes(&lit(DType::Int8, &[3], ints(&[-1, 0, 127]))).unwrap();
        assert_eq!((d, b), (DType::Int8, vec![0xff, 0x00, 0x7f]));
        let (_, b) = record_bytes(&lit(DType::UInt16, &[2], ints(&[1, 0x0203]))).unwrap();
        assert_eq!(b, vec![1, 0, 3, 2]);
        let (_, b) = record_bytes(&lit(DType::Int32, &[1], ints(&[-2]))).unwrap();
        assert_eq!(b, (-2i32).to_le_bytes().to_vec());
        let floats = TensorData::Floats(vec![1.5, -0.0]);
        let (_, b) = record_bytes(&lit(DType::Fp32, &[2], floats.clone())).unwrap();
        assert_eq!(b, [1.5f32.to_le_bytes(), (-0.0f32).to_le_bytes()].concat());
        let (_, b) = record_bytes(&lit(DType::Fp16, &[2], floats)).unwrap();
        assert_eq!(b, vec![0x00, 0x3e, 0x00, 0x80]);
        // Out of the type's range, the wrong count, or a type no weight file holds: no record.
        assert!(record_bytes(&lit(DType::Int8, &[1], ints(&[200]))).is_none());
        assert!(record_bytes(&lit(DType::Int32, &[3], ints(&[1, 2]))).is_none());
        assert!(record_bytes(&lit(DType::Int64, &[1], ints(&[1]))).is_none());
    }

    #[test]
    fn inline_bytes_count_elements_by_their_width() {
        let l = lit(
            DType::Fp16,
            &[256, 256],
            TensorData::Floats(vec![0.0; 65536]),
        );
        assert_eq!(inline_bytes(&l), Some(131072));
        let s = Literal {
            ty: ValueType::Tensor(TensorType::fixed(DType::String, &[2])),
            payload: Payload::Tensor(TensorData::Strings(vec!["ab".into(), "c".into()])),
        };
        assert_eq!(inline_bytes(&s), Some(3));
        assert_eq!(human(131072), "128.0 KiB (131072 bytes)");
        assert_eq!(human(3 << 20), "3.0 MiB (3145728 bytes)");
    }
}
