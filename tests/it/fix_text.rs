//! The one-row state pad on text models (`.mlmodelc` folders written in temp dirs, and corpus
//! compiled fixtures): the result parses, only the state's values change type, windows stay put, a
//! second fix is a no-op, refusals change nothing.

use crate::common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use coreml_lint::discover::Discovered;
use coreml_lint::finding::Applicability;
use coreml_lint::fix::{apply, apply_with_writer, plan_pad, FixError, FixMode, PadRequest};
use coreml_lint::ir::{Function, Model, ModelKind, Program, ValueType};
use coreml_lint::read::{read_model, ReadOutcome};

const HEAD: &str =
    "program(1.3)\n[buildInfo = dict<string, string>({{\"coremltools-version\", \"9.0\"}})]\n{\n";

fn c3(name: &str, v: [i64; 3]) -> String {
    format!(
        "            tensor<int32, [3]> {name} = const()[name = string(\"{name}\"), val = tensor<int32, [3]>([{}, {}, {}])];\n",
        v[0], v[1], v[2]
    )
}

fn b3(name: &str, v: [bool; 3]) -> String {
    format!(
        "            tensor<bool, [3]> {name} = const()[name = string(\"{name}\"), val = tensor<bool, [3]>([{}, {}, {}])];\n",
        v[0], v[1], v[2]
    )
}

const T: &str = "tensor<fp16, [1, 8, 4]>";

/// A decode function: full-extent write over the state `s` [1, 8, 4] with window params `window`
/// (extra const lines + the slice_update parameter list), then a read used with the old read.
fn decode(fname: &str, consts: &str, window: &str) -> String {
    format!(
        "    func {fname}<ios18>(state<{T}> s, {T} u) {{\n{consts}            {T} old = read_state(input = s)[name = string(\"old\")];\n            {T} new = slice_update({window}, update = u, x = old)[name = string(\"upd\")];\n            write_state(data = new, input = s)[name = string(\"w\")];\n            {T} cur = read_state(input = s)[name = string(\"cur\")];\n            {T} y = add(x = old, y = cur)[name = string(\"y\")];\n        }} -> (y);\n"
    )
}

fn single() -> String {
    format!(
        "{HEAD}{}}}",
        decode(
            "main",
            &(c3("b", [0, 0, 0]) + &c3("e", [1, 8, 4])),
            "begin = b, end = e"
        )
    )
}

/// `prefill` writes rows [0, 2) of the same state.
fn prefill(end: [i64; 3], rows: u64) -> String {
    format!(
        "    func prefill<ios18>(state<{T}> s, tensor<fp16, [1, {rows}, 4]> u) {{\n{}{}            {T} old = read_state(input = s)[name = string(\"old\")];\n            {T} new = slice_update(begin = pb, end = pe, update = u, x = old)[name = string(\"upd\")];\n            write_state(data = new, input = s)[name = string(\"w\")];\n            {T} cur = read_state(input = s)[name = string(\"cur\")];\n            tensor<fp16, [1, 1, 4]> z = slice_by_index(begin = pb, end = one, x = cur)[name = string(\"z\")];\n        }} -> (z);\n",
        c3("pb", [0, 0, 0]) + &c3("pe", end),
        c3("one", [1, 1, 4]),
    )
}

fn metadata(shape: &str) -> String {
    format!(
        "[\n  {{\n    \"specificationVersion\" : 9,\n    \"stateSchema\" : [\n      {{\n        \"formattedType\" : \"State (Float16 {})\",\n        \"shape\" : \"{shape}\",\n        \"name\" : \"s\",\n        \"type\" : \"State\"\n      }}\n    ],\n    \"outputSchema\" : [\n\n    ]\n  }}\n]",
        shape
            .trim_matches(|c| c == '[' || c == ']')
            .replace(", ", " × ")
    )
}

fn write_mlmodelc(dir: &Path, name: &str, mil: &str) -> PathBuf {
    let root = dir.join(format!("{name}.mlmodelc"));
    fs::create_dir_all(root.join("weights")).unwrap();
    fs::write(root.join("model.mil"), mil).unwrap();
    fs::write(root.join("metadata.json"), metadata("[1, 8, 4]")).unwrap();
    fs::write(root.join("weights/weight.bin"), b"not touched").unwrap();
    root
}

fn read(path: &Path) -> Model {
    let kind = if path.extension().is_some_and(|e| e == "mil") {
        ModelKind::MilText
    } else {
        ModelKind::MlModelc
    };
    match read_model(&Discovered {
        path: path.to_path_buf(),
        kind,
    }) {
        Ok(ReadOutcome::Model(m)) => *m,
        Ok(other) => panic!("not a model: {other:?}"),
        Err(e) => panic!("{:?}", miette::Report::new(e)),
    }
}

fn req(state: &str) -> Vec<PadRequest> {
    vec![PadRequest {
        state: state.into(),
        axis: None,
    }]
}

/// Every op output's type, by function and name.
fn types(p: &Program) -> BTreeMap<(String, String), ValueType> {
    let mut m = BTreeMap::new();
    for f in &p.functions {
        for (_, op) in f.ops() {
            for o in &op.outputs {
                m.insert((f.name.clone(), o.name.to_string()), o.ty.clone());
            }
        }
    }
    m
}

fn state_dims(f: &Function, s: &str) -> Vec<u64> {
    f.inputs()
        .find(|(_, i)| i.name == s)
        .and_then(|(_, i)| i.ty.tensor())
        .and_then(|t| t.known_dims())
        .unwrap()
}

/// Resolved windows of every slice_update, by function and output name.
fn windows(p: &Program, state: &str) -> BTreeMap<(String, String), Vec<(i64, i64)>> {
    let mut m = BTreeMap::new();
    for f in &p.functions {
        let dims = state_dims(f, state);
        for (id, op) in f.ops() {
            if op.op_type != "slice_update" {
                continue;
            }
            // Run-time windows are compared by their bindings, not here.
            let Some(ranges) = common::const_window(f, id, &dims) else {
                continue;
            };
            m.insert((f.name.clone(), op.outputs[0].name.to_string()), ranges);
        }
    }
    m
}

/// Fixes `root` in place and checks everything the pad promises; returns the fixed model.
fn fix_and_check(root: &Path, state: &str, allow_unsafe: bool, padded_values: &[&str]) -> Model {
    let before = read(root);
    let weights = fs::read(root.join("weights/weight.bin")).ok();
    let out = apply(&before, &req(state), allow_unsafe, FixMode::InPlace).unwrap();
    assert_eq!(out.applied.len(), 1, "{:?}", out.notes);
    assert!(out.diff.contains("+++ b/"), "{}", out.diff);
    let after = read(root);
    let plan = &out.applied[0];
    // The state is one row deeper in every function that declares it.
    for f in &after.program.functions {
        assert_eq!(state_dims(f, state), plan.new_shape, "function {}", f.name);
    }
    assert_eq!(plan.new_shape[plan.axis], plan.old_shape[plan.axis] + 1);
    // Every other value keeps its type; the padded ones gain the row.
    let (tb, ta) = (types(&before.program), types(&after.program));
    for ((f, v), ty) in &tb {
        let now = ta
            .get(&(f.clone(), v.clone()))
            .unwrap_or_else(|| panic!("{f}/{v} vanished"));
        if padded_values.contains(&v.as_str()) {
            assert_eq!(
                now.tensor().unwrap().known_dims().unwrap(),
                plan.new_shape,
                "{f}/{v}"
            );
        } else {
            assert_eq!(now, ty, "{f}/{v} changed type");
        }
    }
    // Windows name the same rows as before.
    let (wb, wa) = (
        windows(&before.program, state),
        windows(&after.program, state),
    );
    for (k, w) in &wb {
        assert_eq!(wa.get(k), Some(w), "window of {k:?} moved");
    }
    common::assert_outputs_unchanged(&before, &after);
    // metadata.json follows, weights untouched.
    if root.join("metadata.json").exists() {
        let meta = fs::read_to_string(root.join("metadata.json")).unwrap();
        let want = format!(
            "[{}]",
            plan.new_shape
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
        assert!(meta.contains(&want), "{meta}");
    }
    assert_eq!(fs::read(root.join("weights/weight.bin")).ok(), weights);
    // A second fix changes nothing.
    let mil = fs::read(root.join("model.mil")).unwrap();
    let again = apply(&after, &req(state), allow_unsafe, FixMode::InPlace).unwrap();
    assert!(again.applied.is_empty() && again.diff.is_empty());
    assert_eq!(again.noops.len(), 1);
    assert_eq!(fs::read(root.join("model.mil")).unwrap(), mil);
    after
}

#[test]
fn single_function_pad() {
    let dir = tempfile::tempdir().unwrap();
    let root = write_mlmodelc(dir.path(), "single", &single());
    let after = fix_and_check(&root, "s", false, &["old", "new", "cur"]);
    let text = fs::read_to_string(root.join("model.mil")).unwrap();
    assert!(text.contains("state<tensor<fp16, [1, 9, 4]>> s"), "{text}");
    // Both reads are sliced back for `y`; the chain itself is not.
    let f = &after.program.functions[0];
    let (_, y) = f
        .ops()
        .find(|(_, o)| o.name.as_deref() == Some("y"))
        .unwrap();
    assert_eq!(y.arg_name("x"), Some("old_unpadded"));
    assert_eq!(y.arg_name("y"), Some("cur_unpadded"));
    let (_, upd) = f
        .ops()
        .find(|(_, o)| o.name.as_deref() == Some("upd"))
        .unwrap();
    assert_eq!(upd.arg_name("x"), Some("old"));
    let meta = fs::read_to_string(root.join("metadata.json")).unwrap();
    assert_eq!(
        meta,
        metadata("[1, 8, 4]")
            .replace("[1, 8, 4]", "[1, 9, 4]")
            .replace("1 × 8 × 4", "1 × 9 × 4")
    );
}

#[test]
fn two_functions_share_the_state() {
    let dir = tempfile::tempdir().unwrap();
    let mil = format!(
        "{HEAD}{}{}}}",
        decode(
            "infer",
            &(c3("b", [0, 0, 0]) + &c3("e", [1, 8, 4])),
            "begin = b, end = e"
        ),
        prefill([1, 2, 4], 2)
    );
    let root = write_mlmodelc(dir.path(), "multi", &mil);
    let before = read(&root);
    let plan = plan_pad(&before, "s", None).unwrap();
    assert_eq!(plan.axis, 1, "{:?}", plan.notes);
    assert_eq!(plan.functions.len(), 2);
    fix_and_check(&root, "s", false, &["old", "new", "cur"]);
}

#[test]
fn end_mask_window_is_pinned() {
    let dir = tempfile::tempdir().unwrap();
    let consts = c3("b", [0, 0, 0]) + &c3("e", [0, 0, 0]) + &b3("em", [true, true, true]);
    let mil = format!(
        "{HEAD}{}}}",
        decode("main", &consts, "begin = b, end = e, end_mask = em")
    );
    let root = write_mlmodelc(dir.path(), "endmask", &mil);
    let after = fix_and_check(&root, "s", false, &["old", "new", "cur"]);
    let f = &after.program.functions[0];
    let (_, upd) = f
        .ops()
        .find(|(_, o)| o.name.as_deref() == Some("upd"))
        .unwrap();
    assert_ne!(upd.arg_name("end"), Some("e"));
    assert_ne!(upd.arg_name("end_mask"), Some("em"));
}

#[test]
fn negative_indices_are_pinned() {
    let dir = tempfile::tempdir().unwrap();
    // infer: begin -8 (full); prefill: end -1 (rows [0, 7)) must not grow to [0, 8).
    let mil = format!(
        "{HEAD}{}{}}}",
        decode(
            "infer",
            &(c3("b", [0, -8, 0]) + &c3("e", [1, 8, 4])),
            "begin = b, end = e"
        ),
        prefill([1, -1, 4], 7)
    );
    let root = write_mlmodelc(dir.path(), "negative", &mil);
    fix_and_check(&root, "s", false, &["old", "new", "cur"]);
}

#[test]
fn blend_write_is_fixed_safely() {
    let dir = tempfile::tempdir().unwrap();
    let mil = format!(
        "{HEAD}    func main<ios18>(state<{T}> s, {T} k, {T} u) {{\n            {T} old = read_state(input = s)[name = string(\"old\")];\n            {T} keep = mul(x = old, y = k)[name = string(\"keep\")];\n            {T} blend = add(x = keep, y = u)[name = string(\"blend\")];\n            write_state(data = blend, input = s)[name = string(\"w\")];\n        }} -> (blend);\n}}"
    );
    let root = write_mlmodelc(dir.path(), "blend", &mil);
    let model = read(&root);
    let original = fs::read(root.join("model.mil")).unwrap();
    // Writing the blend into [0, N) of the padded state is exact: a safe fix, applied by --fix.
    let planned = apply(&model, &req("s"), false, FixMode::DiffOnly).unwrap();
    assert!(planned.held_back.is_empty());
    assert_eq!(planned.applied.len(), 1);
    assert_eq!(planned.applied[0].applicability, Applicability::Safe);
    assert_eq!(fs::read(root.join("model.mil")).unwrap(), original);
    let after = fix_and_check(&root, "s", false, &["old"]);
    let f = &after.program.functions[0];
    let (_, w) = f.ops().find(|(_, o)| o.op_type == "write_state").unwrap();
    let data = w.arg_name("data").unwrap();
    let (_, su) = f
        .ops()
        .find(|(_, o)| o.outputs.first().is_some_and(|x| x.name == data))
        .unwrap();
    assert_eq!(su.op_type, "slice_update");
    assert_eq!(su.arg_name("update"), Some("blend"));
    assert_eq!(su.arg_name("x"), Some("old"));
}

#[test]
fn coreml_update_state_form() {
    let dir = tempfile::tempdir().unwrap();
    let mil = format!(
        "{HEAD}    func main<ios18>(state<{T}> s, {T} u) {{\n{}{}            {T} old = read_state(input = s)[name = string(\"old\")];\n            {T} new = slice_update(begin = b, end = e, update = u, x = old)[name = string(\"upd\")];\n            {T} v = coreml_update_state(state = s, value = new)[name = string(\"v\")];\n            {T} y = add(x = v, y = u)[name = string(\"y\")];\n        }} -> (y);\n}}",
        c3("b", [0, 0, 0]),
        c3("e", [1, 8, 4])
    );
    let root = write_mlmodelc(dir.path(), "update", &mil);
    let after = fix_and_check(&root, "s", false, &["old", "new", "v"]);
    let f = &after.program.functions[0];
    let (_, y) = f
        .ops()
        .find(|(_, o)| o.name.as_deref() == Some("y"))
        .unwrap();
    assert_eq!(y.arg_name("x"), Some("v_unpadded"));
}

#[test]
fn bare_mil_file_and_output_copy() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("m.mil");
    fs::write(&file, single()).unwrap();
    let model = read(&file);
    let out_dir = dir.path().join("out");
    fs::create_dir(&out_dir).unwrap();
    let out = apply(&model, &req("s"), false, FixMode::Output(out_dir.clone())).unwrap();
    assert_eq!(out.written, Some(out_dir.join("m.mil")));
    assert_eq!(fs::read_to_string(&file).unwrap(), single());
    let fixed = read(&out_dir.join("m.mil"));
    assert_eq!(state_dims(&fixed.program.functions[0], "s"), [1, 9, 4]);
    // Diff only writes nothing.
    let d = apply(&model, &req("s"), false, FixMode::DiffOnly).unwrap();
    assert!(
        d.diff
            .contains("+    func main<ios18>(state<tensor<fp16, [1, 9, 4]>> s"),
        "{}",
        d.diff
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), single());
}

fn assert_untouched(root: &Path, mil: &str) {
    assert_eq!(fs::read_to_string(root.join("model.mil")).unwrap(), mil);
    assert_eq!(
        fs::read_to_string(root.join("metadata.json")).unwrap(),
        metadata("[1, 8, 4]")
    );
}

#[test]
fn window_from_a_shape_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    // begin = shape(old) - [1, 8, 4] is [0, 0, 0] now, [0, 1, 0] once the state has 9 rows.
    let mil = format!(
        "{HEAD}    func main<ios18>(state<{T}> s, {T} u) {{\n{}{}            {T} old = read_state(input = s)[name = string(\"old\")];\n            tensor<int32, [3]> sx = shape(x = old)[name = string(\"sx\")];\n            tensor<int32, [3]> b = sub(x = sx, y = d)[name = string(\"b\")];\n            {T} new = slice_update(begin = b, end = e, update = u, x = old)[name = string(\"upd\")];\n            write_state(data = new, input = s)[name = string(\"w\")];\n        }} -> (u);\n}}",
        c3("d", [1, 8, 4]),
        c3("e", [1, 8, 4])
    );
    let root = write_mlmodelc(dir.path(), "shaped", &mil);
    let model = read(&root);
    match apply(&model, &req("s"), true, FixMode::InPlace) {
        Err(FixError::Refused(r, _)) => {
            assert!(r.reason.contains("computed from a shape"), "{r}");
            assert!(r.reason.contains("`upd`"), "the refusal names the op: {r}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert_untouched(&root, &mil);
}

#[test]
fn run_time_begin_with_explicit_bounds_is_padded() {
    let dir = tempfile::tempdir().unwrap();
    // begin = pos (an input), end = [1, 8, 4]: explicit bounds name the same rows in 9 rows.
    let mil = format!(
        "{HEAD}    func main<ios18>(tensor<int32, [3]> pos, state<{T}> s, {T} u) {{\n{}            {T} old = read_state(input = s)[name = string(\"old\")];\n            {T} new = slice_update(begin = pos, end = e, update = u, x = old)[name = string(\"upd\")];\n            write_state(data = new, input = s)[name = string(\"w\")];\n        }} -> (u);\n}}",
        c3("e", [1, 8, 4])
    );
    let root = write_mlmodelc(dir.path(), "dynamic", &mil);
    let after = fix_and_check(&root, "s", false, &["old", "new"]);
    let f = &after.program.functions[0];
    let (_, su) = f.ops().find(|(_, o)| o.op_type == "slice_update").unwrap();
    assert_eq!(
        su.arg_name("begin"),
        Some("pos"),
        "the run-time begin is kept"
    );
    assert_eq!(su.arg_name("end"), Some("e"), "the explicit end is kept");
}

#[test]
fn coremldata_bin_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = write_mlmodelc(dir.path(), "compiled", &single());
    fs::write(root.join("coremldata.bin"), b"\xf6\x01\0\0").unwrap();
    let model = read(&root);
    let e = apply(&model, &req("s"), false, FixMode::InPlace).unwrap_err();
    assert!(e.to_string().contains("recompile"), "{e}");
    assert_untouched(&root, &single());
}

#[test]
fn read_only_and_failing_writer_leave_the_model_intact() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let root = write_mlmodelc(dir.path(), "ro", &single());
    let model = read(&root);
    fs::set_permissions(&root, fs::Permissions::from_mode(0o555)).unwrap();
    let e = apply(&model, &req("s"), false, FixMode::InPlace).unwrap_err();
    fs::set_permissions(&root, fs::Permissions::from_mode(0o755)).unwrap();
    assert!(e.to_string().contains("read-only"), "{e}");
    assert_untouched(&root, &single());

    // The second staged file (metadata.json) fails half-written: nothing changes.
    let mut n = 0;
    let mut failing = |f: &mut fs::File, b: &[u8]| {
        n += 1;
        if n == 2 {
            std::io::Write::write_all(f, &b[..b.len() / 2])?;
            return Err(std::io::Error::other("injected failure"));
        }
        std::io::Write::write_all(f, b)
    };
    let e =
        apply_with_writer(&model, &req("s"), false, FixMode::InPlace, &mut failing).unwrap_err();
    assert!(e.to_string().contains("injected"), "{e}");
    assert_untouched(&root, &single());
    let leftovers: Vec<_> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().starts_with(".coreml-lint"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn corpus_compiled_fixtures() {
    for name in [
        "mlmodelc-state-full-extent-write",
        "mlmodelc-multifunction-state-full-extent-write",
    ] {
        let src = common::corpus().join(format!("compiled/{name}.mlmodelc"));
        if !src.is_dir() {
            eprintln!("skipping: {} not found", src.display());
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let model = read(&src);
        let out = apply(
            &model,
            &req("kv_cache"),
            false,
            FixMode::Output(dir.path().to_path_buf()),
        )
        .unwrap();
        let root = out.written.clone().unwrap();
        assert_eq!(out.applied[0].new_shape, [2, 2, 257, 32], "{name}");
        assert_eq!(
            fs::read(root.join("weights/weight.bin")).unwrap(),
            fs::read(src.join("weights/weight.bin")).unwrap()
        );
        // The fixed copy equals the `-clean` twin in state shape.
        let clean = read(&common::corpus().join(format!("compiled/{name}-clean.mlmodelc")));
        let fixed = read(&root);
        for (fc, ff) in clean.program.functions.iter().zip(&fixed.program.functions) {
            assert_eq!(state_dims(fc, "kv_cache"), state_dims(ff, "kv_cache"));
        }
        let rules = coreml_lint::rules::loader::RuleSet::builtin().unwrap();
        let left: Vec<_> =
            coreml_lint::rules::engine::match_model(&fixed, &rules, &Default::default())
                .into_iter()
                .filter(|f| f.rule == "state-full-extent-write")
                .collect();
        assert!(left.is_empty(), "{name}: {left:?}");
        let again = apply(&fixed, &req("kv_cache"), false, FixMode::DiffOnly).unwrap();
        assert!(again.applied.is_empty() && again.diff.is_empty(), "{name}");
    }
}

#[test]
fn hand_written_layout_is_kept_and_only_changed_spans_move() {
    let dir = tempfile::tempdir().unwrap();
    // 2-space indentation, no spaces around `=`, arguments in the author's order, a final newline.
    let mil = "program(1.3)\n{\n  func main<ios18>(state<tensor<fp16, [2,6,4]>> s, tensor<fp16, [2,6,4]> u) {\n    tensor<int32, [3]> e = const()[name=string(\"e\"), val=tensor<int32, [3]>([2,6,4])];\n    tensor<int32, [3]> b = const()[name=string(\"b\"), val=tensor<int32, [3]>([0,0,0])];\n    tensor<fp16, [2,6,4]> old = read_state(input=s)[name=string(\"old\")];\n    tensor<fp16, [2,6,4]> new = slice_update(x=old, update=u, end=e, begin=b)[name=string(\"upd\")];\n    write_state(input=s, data=new)[name=string(\"w\")];\n    tensor<fp16, [2,6,4]> cur = read_state(input=s)[name=string(\"cur\")];\n    tensor<fp16, [2,6,4]> y = add(x=cur, y=old)[name=string(\"y\")];\n  } -> (y);\n}\n";
    let file = dir.path().join("odd.mil");
    fs::write(&file, mil).unwrap();
    let model = read(&file);
    let out = apply(&model, &req("s"), false, FixMode::InPlace).unwrap();
    assert!(
        out.notes.iter().all(|n| !n.contains("re-rendered")),
        "{:?}",
        out.notes
    );
    let fixed = fs::read_to_string(&file).unwrap();
    assert!(fixed.ends_with("}\n"), "the final newline is kept");
    let kept = |line: &str| fixed.lines().any(|l| l == line);
    // Untouched statements are byte-identical; changed ones change only their spans.
    for line in mil
        .lines()
        .filter(|l| !l.contains("[2,6,4]") || l.contains("const()"))
    {
        assert!(kept(line), "{line:?} changed:\n{fixed}");
    }
    assert!(kept("    tensor<fp16, [2,7,4]> new = slice_update(x=old, update=u, end=e, begin=b)[name=string(\"upd\")];"), "{fixed}");
    assert!(
        kept("  func main<ios18>(state<tensor<fp16, [2,7,4]>> s, tensor<fp16, [2,6,4]> u) {"),
        "{fixed}"
    );
    assert!(kept("    tensor<fp16, [2,6,4]> y = add(x=cur_unpadded, y=old_unpadded)[name=string(\"y\")];"), "{fixed}");
    // The diff names only the changed lines.
    assert_eq!(
        out.diff
            .lines()
            .filter(|l| l.starts_with('-') && !l.starts_with("---"))
            .count(),
        5,
        "{}",
        out.diff
    );
}
