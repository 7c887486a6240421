//! No allocation is sized by an attacker's dims: a model whose consts and ops declare shapes of 2^64
//! and more elements (immediate, file-backed, produced by `fill`, fed through elementwise ops) is
//! read, rendered and linted while the largest single allocation stays small. A counting global
//! allocator records the largest request; this binary holds only this test.

#[path = "it/common/mod.rs"]
mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use coreml_lint::discover::Discovered;
use coreml_lint::ir::render::render_to_string;
use coreml_lint::ir::ModelKind;
use coreml_lint::read::{read_model, ReadOutcome};

struct Largest;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Largest {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Largest = Largest;

/// Far below any size the declared shapes would ask for (2^65 bytes and up).
const MAX_ONE_ALLOCATION: usize = 16 << 20;

#[test]
fn shapes_of_2_64_elements_allocate_nothing_of_their_size() {
    let huge = "tensor<fp16, [4294967296, 4294967296]>";
    let big = "tensor<fp32, [1099511627776, 1099511627776]>";
    let ops = [
        format!("{huge} a = const()[name = string(\"a\"), val = {huge}([])];"),
        format!("{huge} b = const()[name = string(\"b\"), val = {huge}(BLOBFILE(path = string(\"@model_path/weights/weight.bin\"), offset = uint64(64)))];"),
        format!("{huge} c = add(x = a, y = b)[name = string(\"c\")];"),
        "tensor<int32, [2]> s = const()[name = string(\"s\"), val = tensor<int32, [2]>([1099511627776, 1099511627776])];".to_string(),
        format!("{big} f = fill(shape = s, value = fp32(0x1p+0))[name = string(\"f\")];"),
        format!("{big} g = mul(x = f, y = f)[name = string(\"g\")];"),
        format!("{big} h = reshape(x = g, shape = s)[name = string(\"h\")];"),
        format!("{big} i = slice_by_index(x = h, begin = tensor<int32, [2]>([0, 0]), end = s)[name = string(\"i\")];"),
        "tensor<int32, [1099511627776]> r = range_1d(start = int32(0), end = int32(2147483647), step = int32(1))[name = string(\"r\")];".to_string(),
        format!("{big} k = gather(x = i, indices = r, axis = int32(0))[name = string(\"k\")];"),
        format!("{big} t = tile(x = k, reps = tensor<int32, [2]>([2147483647, 2147483647]))[name = string(\"t\")];"),
    ];
    let body: String = ops.iter().map(|o| format!("            {o}\n")).collect();
    let text =
        format!("program(1.3)\n{{\n    func main<ios18>() {{\n{body}        }} -> (c, t);\n}}\n");
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("huge.mlmodelc");
    std::fs::create_dir_all(pkg.join("weights")).unwrap();
    std::fs::write(pkg.join("model.mil"), &text).unwrap();
    let weights = common::one_fp16_blob_file();
    std::fs::write(pkg.join("weights/weight.bin"), &weights).unwrap();
    let linter = coreml_lint::lint::Linter::new(coreml_lint::rules::RuleSet::builtin().unwrap());

    LARGEST.store(0, Ordering::Relaxed);
    let Ok(ReadOutcome::Model(model)) = read_model(&Discovered {
        path: pkg,
        kind: ModelKind::MlModelc,
    }) else {
        panic!("does not read")
    };
    let rendered = render_to_string(&model.program);
    let findings = linter.lint(&model);
    let largest = LARGEST.load(Ordering::Relaxed);

    assert!(rendered.contains(&format!("{huge}([])")));
    assert!(
        findings.iter().any(|f| f.rule == "blob-size-mismatch"),
        "{findings:#?}"
    );
    assert!(
        largest < MAX_ONE_ALLOCATION,
        "largest single allocation: {largest} bytes"
    );
}
