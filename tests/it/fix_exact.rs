//! The exact value fixes end to end (issue 44): `cast-gather-indices` (gather-float-indices),
//! `affine-int8-to-uint8` (affine-dequantize-int8) and the unsafe `mask-finite-sentinels`
//! (mask-nonfinite-const), on converter-made `.mlpackage`s, a pipeline, a compiled `.mlmodelc` and
//! text `model.mil`. Each fixed model is checked again: the rule no longer reports, no other finding
//! appears, the weight files keep their size and every record but the edited ones, and the values
//! are what the fix promises (int32 indices, the same dequantized weights, a finite mask).

use crate::common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use coreml_lint::ir::{Arg, DType, Literal, Model, Payload, TensorData};

fn bin() -> Command {
    Command::cargo_bin("coreml-lint").expect("binary built")
}

/// Rule id → number of findings of a check of `path`.
fn findings(path: &Path) -> BTreeMap<String, usize> {
    let out = bin()
        .args(["check", "--output-format", "json"])
        .arg(path)
        .output()
        .expect("runs");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let mut by_rule = BTreeMap::new();
    for d in v["diagnostics"].as_array().expect("diagnostics") {
        *by_rule
            .entry(d["rule"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    by_rule
}

/// The JSON findings of `rule` in a check of `path`.
fn diagnostics(path: &Path, rule: &str) -> Vec<serde_json::Value> {
    let out = bin()
        .args(["check", "--output-format", "json", "--select", rule])
        .arg(path)
        .output()
        .expect("runs");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    v["diagnostics"].as_array().expect("diagnostics").clone()
}

/// Runs `check ARGS PATH` and returns (exit code, stdout, stderr).
fn run(args: &[&str], path: &Path) -> (Option<i32>, String, String) {
    let out = bin().arg("check").args(args).arg(path).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `before` less `rule`: what the re-check must find after `rule`'s fix.
fn without(mut before: BTreeMap<String, usize>, rule: &str) -> BTreeMap<String, usize> {
    before.remove(rule);
    before
}

fn copy_package(name: &str, dir: &Path) -> PathBuf {
    let pkg = dir.join(name);
    common::copy_tree(&common::corpus().join("packages").join(name), &pkg);
    pkg
}

fn weight_file(model: &Path) -> PathBuf {
    let pkg = model.join("Data/com.apple.CoreML/weights/weight.bin");
    if pkg.exists() {
        pkg
    } else {
        model.join("weights/weight.bin")
    }
}

/// The payload of the record at `offset` of a weight file, with its storage code.
fn record(file: &[u8], offset: u64) -> (u32, &[u8]) {
    let at = offset as usize;
    let code = u32::from_le_bytes(file[at + 4..at + 8].try_into().unwrap());
    let size = u64::from_le_bytes(file[at + 8..at + 16].try_into().unwrap()) as usize;
    let data = u64::from_le_bytes(file[at + 16..at + 24].try_into().unwrap()) as usize;
    (code, &file[data..data + size])
}

/// The literal `name` of the first op of type `op_type` in the model's first function.
fn attr(model: &Model, op_type: &str, name: &str) -> Literal {
    model.program.functions[0]
        .ops()
        .find(|(_, o)| o.op_type == op_type)
        .map(|(_, o)| o.attributes[name].clone())
        .unwrap_or_else(|| panic!("no {op_type}.{name}"))
}

/// The elements of an int8 / uint8 literal, read from its record when it is file-backed.
fn int_elements(lit: &Literal, weights: &[u8]) -> (DType, Vec<i64>) {
    let dtype = lit.ty.tensor().unwrap().dtype;
    let v = match &lit.payload {
        Payload::Blob(b) => {
            let (code, data) = record(weights, b.offset);
            let want = if dtype == DType::Int8 { 4 } else { 3 };
            assert_eq!(
                code, want,
                "the record's storage type is the literal's {dtype}"
            );
            data.iter()
                .map(|&x| {
                    if dtype == DType::Int8 {
                        i64::from(x as i8)
                    } else {
                        i64::from(x)
                    }
                })
                .collect()
        }
        Payload::Tensor(TensorData::Ints(v)) => v.clone(),
        other => panic!("unexpected payload {other:?}"),
    };
    (dtype, v)
}

#[test]
fn fp16_gather_indices_are_cast_once_and_the_package_rechecks_clean() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = copy_package("gather-float-indices.mlpackage", dir.path());
    let before = findings(&pkg);
    assert_eq!(before.get("gather-float-indices"), Some(&1));
    let d = diagnostics(&pkg, "gather-float-indices");
    assert_eq!(d[0]["fix"]["kind"], "cast-gather-indices");
    assert_eq!(d[0]["fix"]["applicability"], "safe");
    assert!(d[0]["help"]
        .as_str()
        .unwrap()
        .contains("coreml-lint check --fix"));
    let originals = common::files(&pkg);

    let (code, diff, _) = run(&["--diff"], &pkg);
    assert_eq!(code, Some(1), "--diff reports and fixes nothing");
    assert!(diff.contains("+            string pos_dtype_int32 = const()[name = string(\"pos_dtype_int32\"), val = string(\"int32\")];"), "{diff}");
    assert!(diff.contains("+            tensor<int32, [32]> pos_to_int32 = cast(dtype = pos_dtype_int32, x = pos)"), "{diff}");
    assert!(diff.contains("indices = pos_to_int32"), "{diff}");
    assert_eq!(common::files(&pkg), originals, "--diff writes nothing");

    let (code, _, err) = run(&["--fix"], &pkg);
    assert!(err.contains("rewrote the fp16 indices `pos` as int32 through one cast `pos_to_int32`, read by 1 gather(s) in `main`"), "{err}");
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(findings(&pkg), without(before, "gather-float-indices"));
    let model = common::read(&pkg);
    let f = &model.program.functions[0];
    let (_, gather) = f.ops().find(|(_, o)| o.op_type == "gather").unwrap();
    let Some(Arg::Name(idx)) = gather.arg("indices") else {
        panic!("indices not a name")
    };
    assert_eq!(
        f.value_type(idx).unwrap().tensor().unwrap().dtype,
        DType::Int32
    );
    let fixed = common::files(&pkg);
    let (code, _, _) = run(&["--fix"], &pkg);
    assert_eq!(code, Some(0));
    assert_eq!(common::files(&pkg), fixed, "a second --fix changes nothing");
}

const SHARED_FP16_POSITIONS: &str = r#"program(1.3)
{
    func main<ios18>(tensor<fp16, [8]> pos) {
            tensor<fp16, [64, 4]> table = const()[name = string("table"), val = tensor<fp16, [64, 4]>(BLOBFILE(path = string("@model_path/weights/weight.bin"), offset = uint64(64)))];
            int32 ax = const()[name = string("ax"), val = int32(0)];
            tensor<fp16, [8]> p2 = add(x = pos, y = fp16(1))[name = string("p2")];
            tensor<fp16, [8, 4]> y = gather(axis = ax, indices = p2, x = table)[name = string("y")];
            tensor<fp16, [8, 4]> z = gather(axis = ax, indices = p2, x = table)[name = string("z")];
        } -> (y, z);
}
"#;

const FRACTIONAL_POSITIONS: &str = r#"program(1.3)
{
    func main<ios18>(tensor<fp16, [8]> pos) {
            tensor<fp16, [64, 4]> table = const()[name = string("table"), val = tensor<fp16, [64, 4]>(BLOBFILE(path = string("@model_path/weights/weight.bin"), offset = uint64(64)))];
            int32 ax = const()[name = string("ax"), val = int32(0)];
            tensor<fp16, [8]> half = mul(x = pos, y = fp16(0.5))[name = string("half")];
            tensor<fp16, [8, 4]> y = gather(axis = ax, indices = half, x = table)[name = string("y")];
        } -> (y);
}
"#;

/// A text model: `model.mil` beside a weight file of one fp16 [64, 4] record at 64.
fn text_model(dir: &Path, mil: &str) -> PathBuf {
    let root = dir.join("m");
    fs::create_dir_all(root.join("weights")).unwrap();
    fs::write(root.join("model.mil"), mil).unwrap();
    let mut w = vec![0u8; 128];
    w[0] = 1;
    w[4] = 2;
    w[64..68].copy_from_slice(&0xDEAD_BEEFu32.to_le_bytes());
    w[68] = 1; // fp16
    w[72..80].copy_from_slice(&512u64.to_le_bytes());
    w[80..88].copy_from_slice(&128u64.to_le_bytes());
    w.extend(vec![0u8; 512]);
    fs::write(root.join("weights/weight.bin"), w).unwrap();
    root.join("model.mil")
}

#[test]
fn text_positions_shared_by_two_gathers_get_one_cast_by_span_edits() {
    let dir = tempfile::tempdir().unwrap();
    let mil = text_model(dir.path(), SHARED_FP16_POSITIONS);
    let before = findings(&mil);
    assert_eq!(before.get("gather-float-indices"), Some(&1), "{before:?}");
    let (code, _, err) = run(&["--fix"], &mil);
    assert!(err.contains("read by 2 gather(s)"), "{err}");
    assert_eq!(code, Some(0), "{err}");
    let text = fs::read_to_string(&mil).unwrap();
    assert_eq!(text.matches("= cast(").count(), 1, "{text}");
    assert_eq!(text.matches("indices = p2_to_int32").count(), 2, "{text}");
    // Span edits: the untouched lines are the author's.
    for line in SHARED_FP16_POSITIONS
        .lines()
        .filter(|l| !l.contains("gather("))
    {
        assert!(text.contains(line), "{line} kept");
    }
    assert_eq!(findings(&mil), without(before, "gather-float-indices"));
}

#[test]
fn indices_that_may_be_fractional_are_not_offered_the_cast() {
    let dir = tempfile::tempdir().unwrap();
    let mil = text_model(dir.path(), FRACTIONAL_POSITIONS);
    let d = diagnostics(&mil, "gather-float-indices");
    assert_eq!(d.len(), 1);
    assert!(d[0]["fix"].is_null(), "no fix offered: {}", d[0]);
    let (code, _, err) = run(&["--fix"], &mil);
    assert_eq!(code, Some(1), "{err}");
    assert!(!err.contains("rewrote"), "{err}");
    assert_eq!(fs::read_to_string(&mil).unwrap(), FRACTIONAL_POSITIONS);
}

#[test]
fn fp16_gather_indices_in_a_pipeline_stage_are_fixed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let src = common::corpus().join("packages/pipeline-gather-float-indices.mlpackage");
    let before = findings(&src);
    assert_eq!(before.get("gather-float-indices"), Some(&1), "{before:?}");
    let originals = common::files(&src);
    let (code, _, err) = run(&["--fix", "--output", out.to_str().unwrap()], &src);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        common::files(&src),
        originals,
        "the original is untouched with --output"
    );
    let fixed = out.join("pipeline-gather-float-indices.mlpackage");
    assert_eq!(findings(&fixed), without(before, "gather-float-indices"));
}

/// Checks that `fixed` dequantizes to what `orig` does: every weight's `q − zp` is unchanged (the
/// scales are the same literal), the data and zero point are uint8, and the weight file keeps its
/// length and every byte outside the edited payloads and storage codes.
fn assert_same_dequantized(orig: &Path, fixed: &Path) {
    let (a, b) = (common::read(orig), common::read(fixed));
    let (wa, wb) = (
        fs::read(weight_file(orig)).unwrap(),
        fs::read(weight_file(fixed)).unwrap(),
    );
    assert_eq!(wa.len(), wb.len(), "the weight file keeps its size");
    assert_eq!(
        attr(&a, "constexpr_affine_dequantize", "scale"),
        attr(&b, "constexpr_affine_dequantize", "scale")
    );
    let (qa, qb) = (
        int_elements(
            &attr(&a, "constexpr_affine_dequantize", "quantized_data"),
            &wa,
        ),
        int_elements(
            &attr(&b, "constexpr_affine_dequantize", "quantized_data"),
            &wb,
        ),
    );
    let (za, zb) = (
        int_elements(&attr(&a, "constexpr_affine_dequantize", "zero_point"), &wa),
        int_elements(&attr(&b, "constexpr_affine_dequantize", "zero_point"), &wb),
    );
    assert_eq!((qa.0, za.0), (DType::Int8, DType::Int8));
    assert_eq!((qb.0, zb.0), (DType::UInt8, DType::UInt8));
    let rows = za.1.len();
    assert_eq!(qa.1.len() % rows, 0);
    let cols = qa.1.len() / rows;
    for (i, (x, y)) in qa.1.iter().zip(&qb.1).enumerate() {
        let r = i / cols; // axis 0: one zero point per row
        assert_eq!(x - za.1[r], y - zb.1[r], "element {i}");
    }
    assert!(
        qa.1.contains(&-128) || qa.1.iter().any(|&q| q < 0),
        "the data holds negative bytes"
    );
    let changed = wa.iter().zip(&wb).filter(|(x, y)| x != y).count();
    assert_eq!(
        changed,
        qa.1.len() + za.1.len() + 2,
        "the payloads and the two storage codes"
    );
}

#[test]
fn signed_int8_affine_weights_become_uint8_with_the_same_values() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let src = common::corpus().join("packages/affine-dequantize-int8.mlpackage");
    let before = findings(&src);
    assert_eq!(before.get("affine-dequantize-int8"), Some(&1), "{before:?}");
    let originals = common::files(&src);

    let (code, diff, _) = run(&["--diff"], &src);
    assert_eq!(code, Some(0), "an info does not fail the run");
    assert!(
        diff.contains("quantized_data = tensor<uint8, [64, 64]>(BLOBFILE("),
        "{diff}"
    );
    assert!(diff.contains("@@ record at offset 64 (@model_path/weights/weight.bin): storage int8 → uint8; 4096 element(s) changed, 4096 of 4096 payload bytes rewritten in place @@"), "{diff}");
    assert!(diff.contains("@@ record at offset 4224 (@model_path/weights/weight.bin): storage int8 → uint8; 64 element(s) changed"), "{diff}");

    let (code, _, err) = run(&["--fix", "--output", out.to_str().unwrap()], &src);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("rewrote 1 signed-int8 constexpr_affine_dequantize weight(s) as uint8"),
        "{err}"
    );
    assert_eq!(
        common::files(&src),
        originals,
        "the original is untouched with --output"
    );
    let fixed = out.join("affine-dequantize-int8.mlpackage");
    let after = findings(&fixed);
    assert_eq!(after, without(before, "affine-dequantize-int8"));
    assert!(!after.keys().any(|r| r.starts_with("blob-")), "{after:?}");
    assert_same_dequantized(&src, &fixed);
}

/// A compiled folder made from a package: its program as `model.mil`, its weights, and an opaque
/// `coremldata.bin` (which an op fix leaves alone).
fn compiled_from(pkg: &Path, dir: &Path) -> PathBuf {
    let root = dir.join("model.mlmodelc");
    fs::create_dir_all(&root).unwrap();
    let dump = bin().arg("dump").arg(pkg).output().unwrap();
    assert!(dump.status.success());
    fs::write(root.join("model.mil"), &dump.stdout).unwrap();
    common::copy_tree(
        &pkg.join("Data/com.apple.CoreML/weights"),
        &root.join("weights"),
    );
    fs::write(root.join("coremldata.bin"), b"opaque").unwrap();
    root
}

#[test]
fn a_compiled_model_is_fixed_in_its_model_mil_and_weights() {
    let dir = tempfile::tempdir().unwrap();
    let src = common::corpus().join("packages/affine-dequantize-int8.mlpackage");
    let mlc = compiled_from(&src, dir.path());
    let before = findings(&mlc);
    assert_eq!(before.get("affine-dequantize-int8"), Some(&1), "{before:?}");
    let orig = dir.path().join("orig.mlmodelc");
    common::copy_tree(&mlc, &orig);
    let (code, _, err) = run(&["--fix"], &mlc);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(findings(&mlc), without(before, "affine-dequantize-int8"));
    assert_eq!(fs::read(mlc.join("coremldata.bin")).unwrap(), b"opaque");
    assert_same_dequantized(&orig, &mlc);
}

/// Every fp16 element of the record of the first `const` whose value is file-backed, in `model`.
fn mask_elements(model: &Path, name: &str) -> Vec<f64> {
    let m = common::read(model);
    let (_, op) = m.program.functions[0]
        .ops()
        .find(|(_, o)| o.display_name() == name)
        .unwrap();
    match &op.attributes["val"].payload {
        Payload::Blob(b) => record(&fs::read(weight_file(model)).unwrap(), b.offset)
            .1
            .chunks_exact(2)
            .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f64())
            .collect(),
        Payload::Tensor(TensorData::Floats(v)) => v.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_finfo_min_mask_gets_finite_sentinels_only_with_unsafe_fixes() {
    for (name, op) in [
        (
            "mask-nonfinite-const-finfo-static.mlpackage",
            "mask_to_fp16",
        ),
        (
            "mask-nonfinite-const-finfo-padding.mlpackage",
            "op_6_to_fp16",
        ),
        ("mask-nonfinite-const.mlpackage", "causal_mask"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let src = common::corpus().join("packages").join(name);
        let before = findings(&src);
        assert!(
            before.contains_key("mask-nonfinite-const"),
            "{name}: {before:?}"
        );
        let d = diagnostics(&src, "mask-nonfinite-const");
        assert_eq!(d[0]["fix"]["applicability"], "unsafe", "{name}");
        assert!(
            d[0]["fix"]["title"].as_str().unwrap().contains("unsafe"),
            "{name}"
        );
        let originals = common::files(&src);
        let out = dir.path().join("out");

        let (_, _, err) = run(&["--fix", "--output", out.to_str().unwrap()], &src);
        assert!(
            err.contains("the fix is unsafe; pass --unsafe-fixes"),
            "{name}: {err}"
        );
        assert!(
            !out.join(name).exists(),
            "{name}: nothing written without --unsafe-fixes"
        );

        let (_, _, err) = run(
            &["--fix", "--unsafe-fixes", "--output", out.to_str().unwrap()],
            &src,
        );
        assert!(err.contains("as finite sentinels"), "{name}: {err}");
        assert_eq!(
            common::files(&src),
            originals,
            "{name}: the original is untouched"
        );
        let fixed = out.join(name);
        let after = findings(&fixed);
        assert_eq!(after, without(before, "mask-nonfinite-const"), "{name}");
        let (old, new) = (mask_elements(&src, op), mask_elements(&fixed, op));
        assert!(old.iter().any(|x| !x.is_finite()), "{name}");
        assert!(new.iter().all(|x| x.is_finite()), "{name}: {new:?}");
        for (x, y) in old.iter().zip(&new) {
            let want = if x.is_finite() { *x } else { -1e4 };
            assert_eq!(
                *y, want,
                "{name}: finite elements are kept, -inf becomes -1e4"
            );
        }
        if weight_file(&src).exists() {
            assert_eq!(
                fs::metadata(weight_file(&src)).unwrap().len(),
                fs::metadata(weight_file(&fixed)).unwrap().len(),
                "{name}: the weight file keeps its size"
            );
        }
    }
}

const TEXT_MASK_AND_WEIGHTS: &str = r#"program(1.0)
{
    func main<ios17>(tensor<fp16, [1, 4, 2]> scores, tensor<fp16, [1, 1, 2]> keep, tensor<fp16, [1, 2]> x) {
            tensor<fp16, [1, 1, 2]> off = sub(x = fp16(1), y = keep)[name = string("off")];
            tensor<fp16, [1, 1, 2]> m = mul(x = off, y = fp16(-inf))[name = string("m")];
            tensor<fp16, [1, 4, 2]> s = add(x = scores, y = m)[name = string("s")];
            tensor<fp16, [2, 2]> w = constexpr_affine_dequantize()[axis = int32(0), name = string("w"), quantized_data = tensor<int8, [2, 2]>([-128, 0, 127, 5]), scale = tensor<fp16, [2]>([0.1, 0.1]), zero_point = tensor<int8, [2]>([0, -3])];
            tensor<fp16, [1, 2]> y = linear(weight = w, x = x)[name = string("y")];
        } -> (s, y);
}
"#;

#[test]
fn text_mil_inline_mask_operands_and_immediate_weights_are_edited_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("t");
    fs::create_dir_all(&root).unwrap();
    let mil = root.join("model.mil");
    fs::write(&mil, TEXT_MASK_AND_WEIGHTS).unwrap();
    let before = findings(&mil);
    assert_eq!(before.get("mask-nonfinite-const"), Some(&1), "{before:?}");
    assert_eq!(before.get("affine-dequantize-int8"), Some(&1), "{before:?}");
    let (code, _, err) = run(&["--fix", "--unsafe-fixes"], &mil);
    assert_eq!(code, Some(0), "{err}");
    let text = fs::read_to_string(&mil).unwrap();
    // The edited statements are rendered in the compiler's layout (program 1.0 writes scalars as
    // rank-0 tensors); the others keep the author's.
    assert!(
        text.contains("mul(x = off, y = tensor<fp16, []>(-0x1.388p+13))"),
        "{text}"
    );
    assert!(
        text.contains("quantized_data = tensor<uint8, [2, 2]>([[0, 128], [255, 133]])"),
        "{text}"
    );
    assert!(
        text.contains("zero_point = tensor<uint8, [2]>([128, 125])"),
        "{text}"
    );
    assert!(text.contains("            tensor<fp16, [1, 1, 2]> off = sub(x = fp16(1), y = keep)[name = string(\"off\")];"));
    let mut want = before.clone();
    want.remove("mask-nonfinite-const");
    want.remove("affine-dequantize-int8");
    assert_eq!(findings(&mil), want);
}

#[test]
fn a_compiled_models_mask_record_is_rewritten_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let src = common::corpus().join("packages/mask-nonfinite-const-finfo-static.mlpackage");
    let mlc = compiled_from(&src, dir.path());
    let before = findings(&mlc);
    assert_eq!(before.get("mask-nonfinite-const"), Some(&1), "{before:?}");
    let size = fs::metadata(weight_file(&mlc)).unwrap().len();
    let (_, diff, _) = run(&["--diff", "--select", "mask-nonfinite-const"], &mlc);
    assert!(
        diff.is_empty(),
        "an unsafe fix is not in a safe --diff: {diff}"
    );
    let (code, _, err) = run(&["--fix", "--unsafe-fixes"], &mlc);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(findings(&mlc), without(before, "mask-nonfinite-const"));
    assert_eq!(fs::metadata(weight_file(&mlc)).unwrap().len(), size);
    assert!(mask_elements(&mlc, "mask_to_fp16")
        .iter()
        .all(|x| x.is_finite()));
}

#[test]
fn output_refuses_a_bare_model_mil_whose_weights_it_would_edit_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let src = common::corpus().join("packages/mask-nonfinite-const.mlpackage");
    let mlc = compiled_from(&src, dir.path());
    let mil = mlc.join("model.mil");
    fs::remove_file(mlc.join("coremldata.bin")).unwrap();
    let bare = dir.path().join("bare");
    fs::create_dir_all(&bare).unwrap();
    fs::rename(&mil, bare.join("model.mil")).unwrap();
    fs::rename(mlc.join("weights"), bare.join("weights")).unwrap();
    let originals = common::files(&bare);
    let out = dir.path().join("out");
    let (code, _, err) = run(
        &["--fix", "--unsafe-fixes", "--output", out.to_str().unwrap()],
        &bare.join("model.mil"),
    );
    assert!(
        err.contains("is outside the model, so --output cannot copy it"),
        "{err}"
    );
    assert_eq!(code, Some(0), "a warning is left, not a failure: {err}");
    assert_eq!(
        common::files(&bare),
        originals,
        "nothing of the original is edited"
    );
    assert!(!out.join("model.mil").exists(), "no copy is left behind");
    assert_eq!(
        findings(&bare.join("model.mil")).get("mask-nonfinite-const"),
        Some(&1)
    );
}

#[test]
fn converter_made_packages_recheck_clean_after_the_fix() {
    for (name, rule, fixed_count) in [
        (
            "torch-exact-gather-fp16.mlpackage",
            "gather-float-indices",
            2,
        ),
        (
            "torch-exact-affine-int8-two.mlpackage",
            "affine-dequantize-int8",
            1,
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let src = common::corpus().join("packages").join(name);
        let before = findings(&src);
        assert_eq!(before.get(rule), Some(&fixed_count), "{name}: {before:?}");
        let originals = common::files(&src);
        let (code, _, err) = run(&["--fix", "--output", out.to_str().unwrap()], &src);
        assert_eq!(code, Some(0), "{name}: {err}");
        assert!(
            err.contains(&format!("({rule}: {fixed_count})")),
            "{name}: {err}"
        );
        assert_eq!(
            common::files(&src),
            originals,
            "{name}: the original is untouched"
        );
        assert_eq!(findings(&out.join(name)), without(before, rule), "{name}");
    }
}

const TWO_FUNCTIONS_ONE_RECORD: &str = r#"program(1.3)
{
    func main<ios18>(tensor<fp16, [1, 2]> x) {
            tensor<fp16, [2, 2]> w = constexpr_affine_dequantize()[axis = int32(0), name = string("w"), quantized_data = tensor<int8, [2, 2]>(BLOBFILE(path = string("@model_path/weights/weight.bin"), offset = uint64(64))), scale = tensor<fp16, [2]>([0.1, 0.1]), zero_point = tensor<int8, [2]>([0, 0])];
            tensor<fp16, [1, 2]> y = linear(weight = w, x = x)[name = string("y")];
        } -> (y);
    func other<ios18>(tensor<fp16, [1, 2]> x) {
            tensor<fp16, [2, 2]> v = constexpr_affine_dequantize()[axis = int32(0), name = string("v"), quantized_data = tensor<int8, [2, 2]>(BLOBFILE(path = string("@model_path/weights/weight.bin"), offset = uint64(64))), scale = tensor<fp16, [2]>([0.2, 0.2]), zero_point = tensor<int8, [2]>([1, -1])];
            tensor<fp16, [1, 2]> y = linear(weight = v, x = x)[name = string("y")];
        } -> (y);
}
"#;

#[test]
fn a_record_shared_by_two_functions_is_re_encoded_once_for_both() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("mf");
    fs::create_dir_all(root.join("weights")).unwrap();
    let mil = root.join("model.mil");
    fs::write(&mil, TWO_FUNCTIONS_ONE_RECORD).unwrap();
    let mut w = vec![0u8; 192];
    w[0] = 1;
    w[4] = 2;
    w[64..68].copy_from_slice(&0xDEAD_BEEFu32.to_le_bytes());
    w[68] = 4; // int8
    w[72..80].copy_from_slice(&4u64.to_le_bytes());
    w[80..88].copy_from_slice(&128u64.to_le_bytes());
    w[128..132].copy_from_slice(&[0x80, 0x00, 0x7f, 0x05]); // -128, 0, 127, 5
    fs::write(root.join("weights/weight.bin"), &w).unwrap();
    let before = findings(&mil);
    assert_eq!(
        before.get("affine-dequantize-int8"),
        Some(&2),
        "one per function: {before:?}"
    );
    let (code, _, err) = run(&["--fix"], &mil);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("(affine-dequantize-int8: 2)"), "{err}");
    assert!(
        err.contains("rewrote 2 signed-int8 constexpr_affine_dequantize weight(s) as uint8"),
        "{err}"
    );
    let after = findings(&mil);
    assert_eq!(after, without(before, "affine-dequantize-int8"));
    let fixed = fs::read(root.join("weights/weight.bin")).unwrap();
    assert_eq!(
        record(&fixed, 64),
        (3, &[0x00u8, 0x80, 0xff, 0x85][..]),
        "edited once, uint8"
    );
    let text = fs::read_to_string(&mil).unwrap();
    assert_eq!(
        text.matches("quantized_data = tensor<uint8, [2, 2]>(BLOBFILE(")
            .count(),
        2,
        "{text}"
    );
    assert!(
        text.contains("zero_point = tensor<uint8, [2]>([129, 127])"),
        "{text}"
    );
}

#[test]
fn a_record_also_read_by_another_constant_is_not_offered_the_re_encoding() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("shared");
    fs::create_dir_all(root.join("weights")).unwrap();
    let mil = root.join("model.mil");
    let text = TWO_FUNCTIONS_ONE_RECORD.replace(
        "            tensor<fp16, [1, 2]> y = linear(weight = w, x = x)[name = string(\"y\")];",
        "            tensor<int8, [2, 2]> raw = const()[name = string(\"raw\"), val = tensor<int8, [2, 2]>(BLOBFILE(path = string(\"@model_path/weights/weight.bin\"), offset = uint64(64)))];\n            tensor<fp16, [1, 2]> y = linear(weight = w, x = x)[name = string(\"y\")];",
    );
    fs::write(&mil, &text).unwrap();
    let mut w = vec![0u8; 192];
    w[0] = 1;
    w[4] = 2;
    w[64..68].copy_from_slice(&0xDEAD_BEEFu32.to_le_bytes());
    w[68] = 4;
    w[72..80].copy_from_slice(&4u64.to_le_bytes());
    w[80..88].copy_from_slice(&128u64.to_le_bytes());
    fs::write(root.join("weights/weight.bin"), &w).unwrap();
    let d = diagnostics(&mil, "affine-dequantize-int8");
    assert_eq!(d.len(), 2);
    assert!(d.iter().all(|x| x["fix"].is_null()), "{d:?}");
    let (_, _, err) = run(&["--fix"], &mil);
    assert!(!err.contains("rewrote"), "{err}");
    assert_eq!(fs::read_to_string(&mil).unwrap(), text);
    assert_eq!(fs::read(root.join("weights/weight.bin")).unwrap(), w);
}

#[test]
fn a_record_that_does_not_hold_the_declared_int8_is_not_offered_the_re_encoding() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("mismatch");
    fs::create_dir_all(root.join("weights")).unwrap();
    let mil = root.join("model.mil");
    fs::write(&mil, TWO_FUNCTIONS_ONE_RECORD).unwrap();
    let mut w = vec![0u8; 192];
    w[0] = 1;
    w[4] = 2;
    w[64..68].copy_from_slice(&0xDEAD_BEEFu32.to_le_bytes());
    w[68] = 3; // uint8, while the program says int8: blob-dtype-mismatch's, not this fix's
    w[72..80].copy_from_slice(&4u64.to_le_bytes());
    w[80..88].copy_from_slice(&128u64.to_le_bytes());
    fs::write(root.join("weights/weight.bin"), &w).unwrap();
    assert!(findings(&mil).contains_key("blob-dtype-mismatch"));
    let d = diagnostics(&mil, "affine-dequantize-int8");
    assert!(
        !d.is_empty() && d.iter().all(|x| x["fix"].is_null()),
        "{d:?}"
    );
    let (code, _, err) = run(&["--fix"], &mil);
    assert_ne!(code, Some(2), "not a failure: {err}");
    assert_eq!(fs::read(root.join("weights/weight.bin")).unwrap(), w);
}

#[test]
fn sarif_carries_a_text_replacement_only_for_fixes_without_weight_edits() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("t");
    fs::create_dir_all(&root).unwrap();
    let mil = root.join("model.mil");
    fs::write(&mil, TEXT_MASK_AND_WEIGHTS).unwrap();
    let blob = text_model(dir.path(), SHARED_FP16_POSITIONS);
    let replacement = |path: &Path, rule: &str| -> Option<String> {
        let out = bin()
            .args(["check", "--output-format", "sarif", "--select", rule])
            .arg(path)
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("sarif");
        let r = &v["runs"][0]["results"][0];
        r["fixes"][0]["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"]
            .as_str()
            .map(str::to_string)
    };
    let immediate = replacement(&mil, "affine-dequantize-int8").expect("a whole-file replacement");
    assert!(immediate.contains("tensor<uint8, [2, 2]>"), "{immediate}");
    let cast = replacement(&blob, "gather-float-indices").expect("a whole-file replacement");
    assert!(cast.contains("= cast("), "{cast}");

    // The same weights in a weight-file record: the text alone is not the fix.
    let w = dir.path().join("w");
    fs::create_dir_all(w.join("weights")).unwrap();
    fs::write(w.join("model.mil"), TWO_FUNCTIONS_ONE_RECORD).unwrap();
    let mut bytes = vec![0u8; 192];
    bytes[0] = 1;
    bytes[4] = 2;
    bytes[64..68].copy_from_slice(&0xDEAD_BEEFu32.to_le_bytes());
    bytes[68] = 4;
    bytes[72..80].copy_from_slice(&4u64.to_le_bytes());
    bytes[80..88].copy_from_slice(&128u64.to_le_bytes());
    fs::write(w.join("weights/weight.bin"), &bytes).unwrap();
    assert_eq!(
        replacement(&w.join("model.mil"), "affine-dequantize-int8"),
        None
    );
}
