//! Resource limits on hostile input: nesting (text and protobuf), declared dims, immediate sizes,
//! file sizes. Each input here is refused with a clear error or read within bounded memory and stack;
//! none may crash the (2 MiB-stack) test thread.

use crate::common;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use coreml_lint::discover::Discovered;
use coreml_lint::ir::render::render_to_string;
use coreml_lint::ir::ModelKind;
use coreml_lint::limits::{MAX_BLOCK_NESTING, MAX_FILE_BYTES, MAX_IMMEDIATE_ELEMENTS, MAX_NESTING};
use coreml_lint::read::miltext::parse_program;
use coreml_lint::read::{read_model, ReadError, ReadOutcome};

const DEEP: usize = 100_000;

/// A program whose `main` has these attributes (text) and body statements.
fn program(attrs: &str, body: &str) -> String {
    format!(
        "program(1.3)\n{{\n    func main<ios18>(bool p){attrs} {{\n{body}\n        }} -> (p);\n}}\n"
    )
}

fn nested_blocks(depth: usize) -> String {
    let mut s = String::new();
    for i in 0..depth {
        s.push_str(&format!("bool o{i} = cond(pred = p) {{\n"));
    }
    for _ in 0..depth {
        s.push_str("} -> (p);\n");
    }
    s
}

fn attr(lit: &str) -> String {
    format!(" [a = {lit}]")
}

/// Each deeply nested construct of text MIL, `depth` levels deep.
fn nested_texts(depth: usize) -> Vec<(&'static str, String)> {
    let d = depth;
    vec![
        ("blocks", program("", &nested_blocks(d))),
        (
            "brackets",
            program(
                &attr(&format!(
                    "tensor<int32, [1]>({}1{})",
                    "[".repeat(d),
                    "]".repeat(d)
                )),
                "",
            ),
        ),
        (
            "parens",
            program(
                &attr(&format!(
                    "tensor<int32, [1]>({}1{})",
                    "(".repeat(d),
                    ")".repeat(d)
                )),
                "",
            ),
        ),
        (
            "dicts",
            program(
                &attr(&format!(
                    "dict<int32, int32>({}{{1, 1}}{})",
                    "{{1, ".repeat(d),
                    "}}".repeat(d)
                )),
                "",
            ),
        ),
        (
            "state types",
            program(
                &attr(&format!(
                    "{}tensor<int32, [1]>{}([1])",
                    "state<".repeat(d),
                    ">".repeat(d)
                )),
                "",
            ),
        ),
        (
            "list types",
            program(
                &attr(&format!(
                    "{}int32{}([])",
                    "list<".repeat(d),
                    ", 1>".repeat(d)
                )),
                "",
            ),
        ),
        (
            "tuple types",
            program(
                &attr(&format!("{}int32{}(1)", "tuple<".repeat(d), ">".repeat(d))),
                "",
            ),
        ),
        (
            "typed literals",
            program(
                &attr(&format!(
                    "{}1{}",
                    "tensor<int32, [1]>(".repeat(d),
                    ")".repeat(d)
                )),
                "",
            ),
        ),
        (
            "input types",
            format!(
                "program(1.3)\n{{\n    func main<ios18>({}fp16{} x) {{\n        }} -> (x);\n}}\n",
                "tuple<".repeat(d),
                ">".repeat(d)
            ),
        ),
    ]
}

#[test]
fn text_nested_100k_deep_is_refused_for_every_construct() {
    for (what, text) in nested_texts(DEEP) {
        let err = parse_program(&text, Path::new("deep.mil"))
            .err()
            .unwrap_or_else(|| panic!("{what}: 100k levels parsed"));
        let msg = err.to_string();
        assert!(msg.contains("nest"), "{what}: {msg}");
    }
}

/// Just under the caps, every construct reads, renders, reads back, and lints: the recursion the caps
/// allow fits a 2 MiB thread stack in a debug build.
#[test]
fn text_nested_just_under_the_cap_reads_renders_and_lints() {
    let linter = coreml_lint::lint::Linter::new(coreml_lint::rules::RuleSet::builtin().unwrap());
    // Types and literals share the nesting budget with the function body and the literal's parens.
    let depth = MAX_NESTING - 8;
    let mut texts = nested_texts(depth);
    texts[0].1 = program("", &nested_blocks(MAX_BLOCK_NESTING - 1));
    for (what, text) in texts {
        let path = Path::new("deep.mil");
        let program = match parse_program(&text, path) {
            Ok(p) => p,
            // Some constructs do not type-check at any depth; they must still fail cleanly.
            Err(e) => {
                assert!(!e.to_string().contains("nest"), "{what}: {e}");
                continue;
            }
        };
        let rendered = render_to_string(&program);
        let again = parse_program(&rendered, path)
            .unwrap_or_else(|e| panic!("{what}: rendered text does not parse: {e}"));
        coreml_lint::ir::compare::same_program(&program, &again).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("deep.mil");
        std::fs::write(&file, &text).unwrap();
        let Ok(ReadOutcome::Model(model)) = read_model(&Discovered {
            path: file,
            kind: ModelKind::MilText,
        }) else {
            panic!("{what}: does not read as a model")
        };
        let _ = linter.lint(&model);
    }
}

/// Appends a length-delimited protobuf field.
fn field(out: &mut Vec<u8>, tag: u32, bytes: &[u8]) {
    varint(out, u64::from(tag << 3 | 2));
    varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A `Model` whose `main` function's block holds an op whose block holds an op … `depth` deep,
/// encoded by hand from the inside out (an encoder would recurse as deeply as the decoder).
fn nested_proto_blocks(depth: usize) -> Vec<u8> {
    let mut block = Vec::new(); // empty Block
    for _ in 0..depth {
        let mut op = Vec::new();
        field(&mut op, 1, b"cond"); // Operation.type
        field(&mut op, 4, &block); // Operation.blocks
        let mut outer = Vec::new();
        field(&mut outer, 3, &op); // Block.operations
        block = outer;
    }
    let mut entry = Vec::new(); // map<string, Block> entry
    field(&mut entry, 1, b"CoreML8");
    field(&mut entry, 2, &block);
    let mut function = Vec::new();
    field(&mut function, 2, b"CoreML8"); // Function.opset
    field(&mut function, 3, &entry); // Function.block_specializations
    let mut fentry = Vec::new();
    field(&mut fentry, 1, b"main");
    field(&mut fentry, 2, &function);
    let mut program = vec![0x08, 0x01]; // Program.version = 1
    field(&mut program, 2, &fentry); // Program.functions
    let mut model = vec![0x08, 0x09]; // specificationVersion = 9
    field(&mut model, 502, &program); // Model.mlProgram
    model
}

#[test]
fn protobuf_nested_blocks_over_the_cap_are_refused() {
    refuses_nested_proto_blocks(&[1_000, MAX_BLOCK_NESTING + 1]);
}

/// 100k levels take about 100 s in a debug build.
#[test]
#[ignore = "heavy (100k nested protobuf blocks): `cargo test -- --ignored heavy_` (.ci/run runs it)"]
fn heavy_protobuf_nested_100k_blocks_is_refused() {
    refuses_nested_proto_blocks(&[DEEP]);
}

fn refuses_nested_proto_blocks(depths: &[usize]) {
    let dir = tempfile::tempdir().unwrap();
    for &depth in depths {
        let file = dir.path().join(format!("deep{depth}.mlmodel"));
        std::fs::write(&file, nested_proto_blocks(depth)).unwrap();
        let err = match read_model(&Discovered {
            path: file,
            kind: ModelKind::MlModel,
        }) {
            Err(e) => e,
            Ok(_) => panic!("{depth} nested blocks read"),
        };
        assert!(
            matches!(err, ReadError::Protobuf { .. } | ReadError::Program { .. }),
            "{depth}: {err}"
        );
    }
    // The shallow one decodes: the refusal above is about depth, not about the encoding.
    let file = dir.path().join("shallow.mlmodel");
    std::fs::write(&file, nested_proto_blocks(3)).unwrap();
    let r = read_model(&Discovered {
        path: file,
        kind: ModelKind::MlModel,
    });
    assert!(
        !matches!(r, Err(ReadError::Protobuf { .. })),
        "{:?}",
        r.err()
    );
}

#[test]
fn immediate_tensors_at_the_cap_are_accepted() {
    let text = program(&attr("tensor<uint8, [4]>([0, 1, 2, 3])"), "");
    parse_program(&text, Path::new("ok.mil")).unwrap();
}

#[test]
#[ignore = "heavy (16M-element literals parsed): `cargo test -- --ignored heavy_` (.ci/run runs it)"]
fn heavy_immediate_tensors_over_the_cap_are_refused_before_allocation() {
    let n = MAX_IMMEDIATE_ELEMENTS as usize + 1;
    let mut data = String::with_capacity(2 * n);
    for i in 0..n {
        if i > 0 {
            data.push(',');
        }
        data.push('0');
    }
    let text = program(&attr(&format!("tensor<uint8, [{n}]>([{data}])")), "");
    let err = parse_program(&text, Path::new("big.mil")).unwrap_err();
    assert!(
        err.to_string().contains("more than 16777216 elements"),
        "{err}"
    );
    // Split across nested lists and nested literals, the same count is still refused.
    let half = n / 2 + 1;
    let zeros = vec!["0"; half].join(",");
    let text = program(
        &attr(&format!(
            "tuple<tensor<uint8, [{half}]>, tensor<uint8, [{half}]>>(([{zeros}], tensor<uint8, [{half}]>([{zeros}])))"
        )),
        "",
    );
    assert!(parse_program(&text, Path::new("big.mil")).is_err());
}

/// A sparse file of `len` bytes (no disk used).
fn sparse(path: &Path, len: u64) {
    let f = std::fs::File::create(path).unwrap();
    f.set_len(len).unwrap();
}

fn check_cmd(path: &Path) -> (i32, String) {
    let out = Command::cargo_bin("coreml-lint")
        .unwrap()
        .arg("check")
        .arg(path)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout),
    )
}

#[test]
#[ignore = "heavy (2 GiB sparse files): `cargo test -- --ignored heavy_` (.ci/run runs it)"]
fn heavy_files_over_2_gib_are_refused_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let big = MAX_FILE_BYTES + 1;
    let bare = dir.path().join("big.mlmodel");
    sparse(&bare, big);
    let compiled = dir.path().join("big.mlmodelc");
    std::fs::create_dir(&compiled).unwrap();
    sparse(&compiled.join("model.mil"), big);
    let pkg: PathBuf = dir.path().join("big.mlpackage");
    std::fs::create_dir_all(pkg.join("Data/com.apple.CoreML")).unwrap();
    std::fs::write(
        pkg.join("Manifest.json"),
        r#"{"fileFormatVersion": "1.0.0", "itemInfoEntries": {"A": {"author": "com.apple.CoreML", "description": "CoreML Model Specification", "name": "model.mlmodel", "path": "com.apple.CoreML/model.mlmodel"}}, "rootModelIdentifier": "A"}"#,
    )
    .unwrap();
    sparse(&pkg.join("Data/com.apple.CoreML/model.mlmodel"), big);
    for (path, kind, file) in [
        (&bare, ModelKind::MlModel, bare.clone()),
        (&compiled, ModelKind::MlModelc, compiled.join("model.mil")),
        (
            &pkg,
            ModelKind::MlPackage,
            pkg.join("Data/com.apple.CoreML/model.mlmodel"),
        ),
    ] {
        let err = read_model(&Discovered {
            path: path.clone(),
            kind,
        })
        .err()
        .unwrap_or_else(|| panic!("{} read", path.display()));
        match &err {
            ReadError::TooLarge { size, limit, .. } => {
                assert_eq!((*size, *limit), (big, MAX_FILE_BYTES));
                assert_eq!(err.path(), file, "{err}");
            }
            other => panic!("{}: {other}", path.display()),
        }
        let (code, text) = check_cmd(path);
        assert_eq!(code, 2, "{text}");
        assert!(text.contains("file is 2147483649 bytes"), "{text}");
        assert!(text.contains("over the 2147483648-byte"), "{text}");
    }
}

/// A const whose declared shape has 2^64 elements, immediate and file-backed, and ops over it:
/// read, rendered and linted without trying to materialise anything.
#[test]
fn absurd_declared_shapes_read_and_lint() {
    let huge = "tensor<fp16, [4294967296, 4294967296]>";
    let biggest = "tensor<fp16, [1099511627776, 1099511627776, 1099511627776]>";
    let body = format!(
        "            {huge} a = const()[name = string(\"a\"), val = {huge}([])];\n\
         \x20           {huge} b = const()[name = string(\"b\"), val = {huge}(BLOBFILE(path = string(\"@model_path/weights/weight.bin\"), offset = uint64(64)))];\n\
         \x20           {huge} c = add(x = a, y = b)[name = string(\"c\")];\n\
         \x20           {biggest} d = const()[name = string(\"d\"), val = {biggest}([1])];\n\
         \x20           {biggest} e = mul(x = d, y = d)[name = string(\"e\")];\n\
         \x20           tensor<int32, [2]> s = const()[name = string(\"s\"), val = tensor<int32, [2]>([4294967296, 4294967296])];\n\
         \x20           {huge} f = fill(shape = s, value = fp16(0x1p+0))[name = string(\"f\")];"
    );
    let text = program("", &body);
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("huge.mlmodelc");
    std::fs::create_dir_all(pkg.join("weights")).unwrap();
    std::fs::write(pkg.join("model.mil"), &text).unwrap();
    let weights = common::one_fp16_blob_file();
    std::fs::write(pkg.join("weights/weight.bin"), &weights).unwrap();
    let Ok(ReadOutcome::Model(model)) = read_model(&Discovered {
        path: pkg.clone(),
        kind: ModelKind::MlModelc,
    }) else {
        panic!("does not read")
    };
    let rendered = render_to_string(&model.program);
    assert!(rendered.contains(&format!("{huge}([])")), "{rendered}");
    let linter = coreml_lint::lint::Linter::new(coreml_lint::rules::RuleSet::builtin().unwrap());
    let findings = linter.lint(&model);
    assert!(
        findings.iter().any(|f| f.rule == "blob-size-mismatch"),
        "{findings:#?}"
    );
    let (code, out) = check_cmd(&pkg);
    assert_eq!(code, 1, "{out}");
}
