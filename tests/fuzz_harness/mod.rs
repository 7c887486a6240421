//! What each fuzz target checks, shared by the libFuzzer targets (`fuzz/fuzz_targets/*.rs`, which
//! include this file by path) and by `tests/it/fuzz_regressions.rs`, which replays every saved crashing
//! input through the same code. Each function panics when the library misbehaves on its input.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use coreml_lint::analysis::blobs::blob_entities;
use coreml_lint::discover::Discovered;
use coreml_lint::ir::compare::same_program;
use coreml_lint::ir::render::render_to_string;
use coreml_lint::ir::ModelKind;
use coreml_lint::read::blob::BlobFile;
use coreml_lint::read::miltext::parse_program;
use coreml_lint::read::{read_model, ReadOutcome};

/// Text MIL: any bytes through the parser; a program that parses must render to text that parses
/// back to the same program.
pub fn mil_text(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = Path::new("fuzz.mil");
    let Ok(program) = parse_program(text, path) else {
        return;
    };
    let rendered = render_to_string(&program);
    let again = match parse_program(&rendered, path) {
        Ok(p) => p,
        Err(e) => panic!("rendered program does not parse: {e}\n--- rendered:\n{rendered}"),
    };
    if let Err(diff) = same_program(&program, &again) {
        panic!("render + re-parse changed the program: {diff}\n--- rendered:\n{rendered}");
    }
}

/// Storage dtypes first (in storage-code order), then two a blob cannot hold.
const BLOB_DTYPES: &[&str] = &[
    "fp16",
    "fp32",
    "uint8",
    "int8",
    "bf16",
    "int16",
    "uint16",
    "int4",
    "uint1",
    "uint2",
    "uint4",
    "uint3",
    "uint6",
    "int32",
    "uint32",
    "fp8e4m3fn",
    "fp8e5m2",
    "bool",
    "int64",
];

const BLOB_PATHS: &[&str] = &[
    "@model_path/weights/weight.bin",
    "@model_path/weights/../weights/weight.bin",
    "@model_path/./weights//weight.bin",
    "@model_path/../x.mlmodelc/weights/weight.bin",
    "@model_path/../../etc/passwd",
    "/etc/passwd",
    "weights/weight.bin",
    "@model_path/weights",
];

/// Reads little-endian integers off the front of the input, zero when it runs out.
struct Take<'a>(&'a [u8]);

impl Take<'_> {
    fn u8(&mut self) -> u8 {
        let (b, rest) = self.0.split_first().map_or((0, &[][..]), |(b, r)| (*b, r));
        self.0 = rest;
        b
    }

    fn u64(&mut self) -> u64 {
        (0..8).fold(0u64, |acc, i| acc | u64::from(self.u8()) << (8 * i))
    }
}

/// A compiled-model folder `x.mlmodelc` with a `weights/` folder, inside `dir`.
pub fn blob_package(dir: &Path) -> PathBuf {
    let pkg = dir.join("x.mlmodelc");
    std::fs::create_dir_all(pkg.join("weights")).expect("weights folder");
    pkg
}

/// Weight files. Input: a count byte (1–3 consts), then per const a dtype byte, a path byte, a rank
/// byte (0–3), rank × u64 dims (masked to 41 bits, both sides of the 2^40 cap) and a u64 offset; the
/// rest is `weights/weight.bin`. The model is written to `pkg` (from [`blob_package`]), read, and
/// every weight entity described; the blob reader is also driven directly at the chosen offsets.
pub fn blob_file(data: &[u8], pkg: &Path) {
    let mut t = Take(data);
    let count = 1 + usize::from(t.u8() % 3);
    let mut consts = String::new();
    let mut offsets = Vec::new();
    for i in 0..count {
        let dtype = BLOB_DTYPES[usize::from(t.u8()) % BLOB_DTYPES.len()];
        let path = BLOB_PATHS[usize::from(t.u8()) % BLOB_PATHS.len()];
        let rank = usize::from(t.u8() % 4);
        let dims: Vec<String> = (0..rank)
            .map(|_| (t.u64() & ((1 << 41) - 1)).to_string())
            .collect();
        let offset = t.u64();
        offsets.push(offset);
        let ty = format!("tensor<{dtype}, [{}]>", dims.join(", "));
        consts.push_str(&format!(
            "            {ty} c{i} = const()[name = string(\"c{i}\"), val = {ty}(BLOBFILE(path = string(\"{path}\"), offset = uint64({offset})))];\n"
        ));
    }
    let outputs: Vec<String> = (0..count).map(|i| format!("c{i}")).collect();
    let mil = format!(
        "program(1.3)\n{{\n    func main<ios18>() {{\n{consts}        }} -> ({});\n}}\n",
        outputs.join(", ")
    );
    let weights = pkg.join("weights/weight.bin");
    std::fs::write(pkg.join("model.mil"), &mil).expect("write model.mil");
    std::fs::write(&weights, t.0).expect("write weight.bin");

    if let Ok(file) = BlobFile::open(&weights, pkg) {
        let _ = file.header();
        let walk = file.walk();
        for &off in &offsets {
            let _ = file.record_at(off);
            let _ = walk.locate(off);
            let _ = walk.record(off);
        }
        for w in walk.records.windows(2) {
            assert!(w[0].offset < w[1].offset, "walk went backwards: {walk:?}");
        }
    }
    let found = Discovered {
        path: pkg.to_path_buf(),
        kind: ModelKind::MlModelc,
    };
    if let Ok(ReadOutcome::Model(model)) = read_model(&found) {
        for e in blob_entities(&model) {
            assert!(
                e.op.is_some() && e.span.is_some(),
                "entity without a location: {e:?}"
            );
        }
    }
}

/// The built-in rules, loaded once per process.
pub fn linter() -> &'static coreml_lint::lint::Linter {
    static LINTER: std::sync::OnceLock<coreml_lint::lint::Linter> = std::sync::OnceLock::new();
    LINTER.get_or_init(|| {
        let rules = coreml_lint::rules::RuleSet::builtin().expect("built-in rules load");
        coreml_lint::lint::Linter::new(rules)
    })
}

/// Default settings and the built-in rules, loaded once per process.
pub fn checker() -> &'static coreml_lint::check::Checker {
    static CHECKER: std::sync::OnceLock<coreml_lint::check::Checker> = std::sync::OnceLock::new();
    CHECKER.get_or_init(|| {
        let settings = coreml_lint::config::Settings::resolve(None, Default::default())
            .expect("default settings");
        let rules = coreml_lint::rules::RuleSet::builtin().expect("built-in rules load");
        coreml_lint::check::Checker::with_rules(settings, rules)
    })
}

/// `Model` protobufs: bytes → decode → lower → render → every rule (on a model whose folders do
/// not exist, so weight files are reported missing, never opened).
pub fn model_proto(data: &[u8]) {
    use coreml_lint::read::lower::{lower_bytes, Lowered, StageContent};

    let path = Path::new("/nonexistent/fuzz.mlmodel");
    // A pipeline's ML-program sub-models are linted one by one, as `check` does.
    let programs = match lower_bytes(data.to_vec().into(), path) {
        Ok(Lowered::Program(p)) => vec![(*p, None)],
        Ok(Lowered::Pipeline(stages)) => stages
            .into_iter()
            .filter_map(|s| match s.content {
                StageContent::Program(p) => Some((*p, Some(s.sub_model))),
                StageContent::NotMlProgram(_) => None,
            })
            .collect(),
        _ => return,
    };
    for (lowered, sub_model) in programs {
        let mut program = lowered.program;
        let text = coreml_lint::ir::render::render_program(&mut program);
        let model = coreml_lint::ir::Model {
            path: path.to_path_buf(),
            kind: ModelKind::MlModel,
            spec_version: Some(lowered.spec_version),
            description: lowered.description,
            program,
            source: coreml_lint::ir::SourceText {
                name: "fuzz.mlmodel (rendered)".into(),
                file: path.to_path_buf(),
                text: std::sync::Arc::from(text),
                is_file: false,
                lines: None,
            },
            model_path: PathBuf::from("/nonexistent"),
            root: PathBuf::from("/nonexistent"),
            sub_model,
            bundle: Vec::new(),
        };
        let _ = linter().lint(&model);
    }
}

/// Files of a package in the `pipeline` input, by id.
fn pipeline_file(kind: u8, id: u8) -> Option<&'static str> {
    Some(match (kind, id) {
        (0, 0) => "Manifest.json",
        (0, 1) => "Data/com.apple.CoreML/model.mlmodel",
        (0, 2) => "Data/com.apple.CoreML/weights/weight.bin",
        (1, 2) => "weights/weight.bin",
        (1, 3) => "model.mil",
        (1, 4) => "metadata.json",
        _ => return None,
    })
}

/// The whole pipeline. Input: a kind byte (even: `.mlpackage`, odd: `.mlmodelc`), then records
/// (file id byte, u32 LE length, bytes) written into a fresh package under `dir`; then
/// `check` (discover, read, every rule) and `--fix --unsafe-fixes --output` into a fresh folder.
/// The input package must come out byte-identical.
pub fn pipeline(data: &[u8], dir: &Path) {
    use coreml_lint::check::Keep;
    use coreml_lint::fix::run::FixOptions;

    let _ = std::fs::remove_dir_all(dir);
    let kind = data.first().copied().unwrap_or(0) % 2;
    let pkg = dir.join(if kind == 0 {
        "x.mlpackage"
    } else {
        "x.mlmodelc"
    });
    let out = dir.join("out");
    std::fs::create_dir_all(&pkg).expect("package folder");
    std::fs::create_dir_all(&out).expect("output folder");
    let mut rest = data.get(1..).unwrap_or_default();
    let mut written: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    while let [id, a, b, c, d, tail @ ..] = rest {
        let len = u32::from_le_bytes([*a, *b, *c, *d]) as usize;
        let len = len.min(tail.len());
        let (bytes, next) = tail.split_at(len);
        rest = next;
        let Some(name) = pipeline_file(kind, *id) else {
            continue;
        };
        let file = pkg.join(name);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent).expect("folder");
        }
        std::fs::write(&file, bytes).expect("write package file");
        written.retain(|(p, _)| *p != file);
        written.push((file, bytes.to_vec()));
    }
    let opts = FixOptions {
        allow_unsafe: true,
        output: Some(out.clone()),
        ..FixOptions::default()
    };
    // Checks, fixes into `out` and re-checks what was written.
    let _ = checker().check(std::slice::from_ref(&pkg), Some(&opts), Keep::Programs, &());
    for (file, bytes) in &written {
        let now = std::fs::read(file).expect("input file still there");
        assert!(
            now == *bytes,
            "{} changed by check/fix --output",
            file.display()
        );
    }
}

/// A Core AI bundle whose `main.mlirb` is the input (its `main.hash` the input's SHA-256, so the
/// program is read, and its `metadata.json` a fixed, valid one), written into a fresh `x.aimodel`
/// under `dir`; then `check` reads it (inventory, container, program, lowering into the IR) and
/// runs every rule. Nothing may panic, and the bundle must not change.
pub fn aimodel_program(data: &[u8], dir: &Path) {
    use coreml_lint::check::Keep;
    use coreml_lint::read::aimodel::sha256::sha256;

    let _ = std::fs::remove_dir_all(dir);
    let bundle = dir.join("x.aimodel");
    std::fs::create_dir_all(&bundle).expect("bundle folder");
    let metadata = br#"{"assetVersion": "2.0", "creationDate": "20261201T000000Z", "producer": "coreai-core 1.0.0b3"}"#;
    std::fs::write(bundle.join("metadata.json"), metadata).expect("metadata.json");
    std::fs::write(bundle.join("main.hash"), sha256(data)).expect("main.hash");
    std::fs::write(bundle.join("main.mlirb"), data).expect("main.mlirb");
    let _ = checker().check(std::slice::from_ref(&bundle), None, Keep::Programs, &());
    assert!(
        std::fs::read(bundle.join("main.mlirb")).expect("main.mlirb still there") == data,
        "check changed the bundle"
    );
}

/// Core AI `main.mlirb` bytes through the MLIR bytecode container reader and, when the container
/// reads, the program reader (IR section, `aicode` types and attributes, properties, lowering into
/// the IR): each must return an error with an offset inside the input, never panic.
pub fn aimodel_bytecode(data: &[u8]) {
    use coreml_lint::read::aimodel::{bytecode, program};
    match bytecode::parse(data) {
        Err(e) => assert!(e.offset <= data.len()),
        Ok(b) => {
            let mut text = String::new();
            if let Err(e) = program::lower(data, &b, &mut text) {
                assert!(e.offset <= data.len());
            }
        }
    }
}
