//! Micro-benchmarks of the `check` pipeline, one stage at a time: protobuf decode, IR build
//! (lowering), text-MIL parse (+ IR build), analysis passes, weight entities, rules, and the whole read.
//!
//! Models: a multifunction package from `corpus/`, and the 1.8B-shaped decoder from `bench/out/`
//! when `bench/generate.py` has been run (skipped otherwise). Run: `cargo bench --bench pipeline`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use coreml_lint::analysis::{analyze, blobs::blob_entities, FunctionAnalysis};
use coreml_lint::discover::Discovered;
use coreml_lint::ir::{render, Model, ModelKind};
use coreml_lint::read::{lower, miltext, proto, read_model, ReadOutcome};
use coreml_lint::rules::schema::Status;
use coreml_lint::rules::{match_function, Rule, RuleSet};
use divan::{black_box, Bencher};

const CORPUS: &str = "corpus/packages/multifunction-state-full-extent-write.mlpackage";
const BIG: &str = "bench/out/decoder-32l.mlpackage";

/// Everything one model's stages need, prepared once.
struct Prepared {
    package: PathBuf,
    bytes: Vec<u8>,
    text: String,
    model: Model,
    facts: Vec<FunctionAnalysis>,
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn prepare(rel: &str) -> Option<Prepared> {
    let package = root().join(rel);
    let file = package.join("Data/com.apple.CoreML/model.mlmodel");
    let bytes = std::fs::read(&file).ok()?;
    let d = Discovered {
        path: package.clone(),
        kind: ModelKind::MlPackage,
    };
    let Ok(ReadOutcome::Model(model)) = read_model(&d) else {
        return None;
    };
    let text = render::render_to_string(&model.program);
    let facts = model.program.functions.iter().map(analyze).collect();
    Some(Prepared {
        package,
        bytes,
        text,
        model: *model,
        facts,
    })
}

fn models() -> &'static [(&'static str, Prepared)] {
    static MODELS: OnceLock<Vec<(&'static str, Prepared)>> = OnceLock::new();
    MODELS.get_or_init(|| {
        let mut out = Vec::new();
        for (name, rel) in [("corpus", CORPUS), ("decoder-32l", BIG)] {
            match prepare(rel) {
                Some(p) => out.push((name, p)),
                None => eprintln!("skipping {name}: {rel} is absent or unreadable"),
            }
        }
        out
    })
}

fn names() -> Vec<&'static str> {
    models().iter().map(|(n, _)| *n).collect()
}

fn get(name: &str) -> &'static Prepared {
    models()
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, p)| p)
        .expect("benchmark argument names a prepared model")
}

fn node_rules() -> &'static [&'static Rule] {
    static RULES: OnceLock<RuleSet> = OnceLock::new();
    static NODE: OnceLock<Vec<&'static Rule>> = OnceLock::new();
    let set = RULES.get_or_init(|| RuleSet::builtin().expect("built-in rules load"));
    NODE.get_or_init(|| {
        set.rules()
            .iter()
            .map(std::sync::Arc::as_ref)
            .filter(|r| r.status != Status::Removed && !r.is_entity_rule())
            .collect()
    })
}

// The same allocator as the `coreml-lint` binary, so that stage times add up to what it spends.
#[global_allocator]
static GLOBAL: coreml_lint::allocator::Mimalloc = coreml_lint::allocator::Mimalloc;

fn main() {
    divan::main();
}

/// `model.mlmodel` bytes → prost `Model`.
#[divan::bench(args = names())]
fn decode_protobuf(b: Bencher, name: &str) {
    let p = get(name);
    b.bench(|| proto::decode_model(black_box(&p.bytes), &p.package));
}

/// `model.mlmodel` bytes → IR: the outline decode, then each operation decoded and lowered in
/// turn, every function's graph built (functions in parallel).
#[divan::bench(args = names())]
fn build_ir(b: Bencher, name: &str) {
    let p = get(name);
    b.bench(|| lower::lower_bytes(black_box(p.bytes.clone().into()), &p.package));
}

/// Text MIL (the model rendered as `model.mil`) → IR: lexing, parsing and graph building.
#[divan::bench(args = names())]
fn parse_text_mil(b: Bencher, name: &str) {
    let p = get(name);
    b.bench(|| miltext::parse_program(black_box(&p.text), &p.package));
}

/// IR → rendered text (the reader renders every program for spans).
#[divan::bench(args = names())]
fn render_text(b: Bencher, name: &str) {
    let p = get(name);
    b.bench(|| render::render_to_string(black_box(&p.model.program)));
}

/// Analysis passes (const evaluation, run-time dependence, state writes) of every function.
#[divan::bench(args = names())]
fn analysis(b: Bencher, name: &str) {
    let p = get(name);
    b.bench(|| {
        p.model
            .program
            .functions
            .iter()
            .map(analyze)
            .collect::<Vec<_>>()
    });
}

/// Weight entities (maps `weight.bin`, reads header and records only).
#[divan::bench(args = names())]
fn blob_entities_all(b: Bencher, name: &str) {
    let p = get(name);
    b.bench(|| blob_entities(black_box(&p.model)));
}

/// Node rules over every function, facts already computed.
#[divan::bench(args = names())]
fn rules(b: Bencher, name: &str) {
    let p = get(name);
    let rules = node_rules();
    b.bench(|| {
        p.model
            .program
            .functions
            .iter()
            .zip(&p.facts)
            .map(|(f, facts)| match_function(&p.model, f, facts, rules).len())
            .sum::<usize>()
    });
}

/// The whole read: manifest, file, decode, lowering, rendering.
#[divan::bench(args = names(), sample_count = 20)]
fn read_whole(b: Bencher, name: &str) {
    let p = get(name);
    let d = Discovered {
        path: p.package.clone(),
        kind: ModelKind::MlPackage,
    };
    b.bench(|| read_model(black_box(&d)).is_ok());
}
