//! A synthetic program of one million ops reads and lints correctly (no recursion or quadratic
//! structure gives out on a long straight-line program). Timing lives in `bench/linear_ops.sh`; this
//! test asserts only what comes out.

use std::fmt::Write;

use coreml_lint::discover::Discovered;
use coreml_lint::ir::ModelKind;
use coreml_lint::read::{read_model, ReadOutcome};

const OPS: usize = 1_000_000;

/// Every this many ops, one is a `gather` with fp16 indices (a `gather-float-indices` finding).
const GATHER_EVERY: usize = 100_000;

/// `n` ops: a relu chain, with a `gather` on fp16 indices in place of every `GATHER_EVERY`-th op.
fn program(n: usize) -> String {
    let mut s = String::with_capacity(n * 96);
    s.push_str("program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1, 32]> x) {\n");
    let mut prev = "x".to_string();
    for i in 0..n {
        if i % GATHER_EVERY == GATHER_EVERY / 2 {
            let _ = writeln!(
                s,
                "            tensor<fp16, [1, 32, 32]> g{i} = gather(x = {prev}, indices = {prev}, axis = int32(0))[name = string(\"g{i}\")];"
            );
            continue;
        }
        let _ = writeln!(
            s,
            "            tensor<fp16, [1, 32]> v{i} = relu(x = {prev})[name = string(\"v{i}\")];"
        );
        prev = format!("v{i}");
    }
    let _ = write!(s, "        }} -> ({prev});\n}}\n");
    s
}

#[test]
#[ignore = "heavy (a 1M-op program): `cargo test -- --ignored heavy_` (.ci/run runs it)"]
fn heavy_one_million_ops_read_and_lint() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("long.mil");
    std::fs::write(&file, program(OPS)).unwrap();
    let Ok(ReadOutcome::Model(model)) = read_model(&Discovered {
        path: file,
        kind: ModelKind::MilText,
    }) else {
        panic!("does not read")
    };
    let f = &model.program.functions[0];
    assert_eq!(f.op_count(), OPS);
    assert_eq!(f.outputs(), [format!("v{}", OPS - 1)]);
    // Every op but the first reads the one before it.
    let last = f.def(&format!("v{}", OPS - 1)).unwrap().node;
    let prev = f.producer(last, "x").unwrap();
    assert_eq!(
        f.op(prev).unwrap().name.as_deref(),
        Some(&*format!("v{}", OPS - 2))
    );
    let linter = coreml_lint::lint::Linter::new(coreml_lint::rules::RuleSet::builtin().unwrap());
    let findings = linter.lint(&model);
    let got: Vec<(&str, Option<&str>)> = findings
        .iter()
        .map(|f| (f.rule.as_str(), f.op.as_deref()))
        .collect();
    let names: Vec<String> = (0..OPS / GATHER_EVERY)
        .map(|k| format!("g{}", k * GATHER_EVERY + GATHER_EVERY / 2))
        .collect();
    let want: Vec<(&str, Option<&str>)> = names
        .iter()
        .map(|n| ("gather-float-indices", Some(n.as_str())))
        .collect();
    assert_eq!(got, want);
}
