//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

pub mod once;

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared` beside the repository (or `$COREML_LINT_SHARED`), when it exists.
pub fn shared() -> Option<PathBuf> {
    let dir = std::env::var_os("COREML_LINT_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("../shared"));
    dir.is_dir().then_some(dir)
}

/// `corpus/` in the repository.
pub fn corpus() -> PathBuf {
    repo().join("corpus")
}

/// The official SARIF 2.1.0 schema (draft-04) from `../shared`, compiled; `None` without it.
pub fn sarif_validator() -> Option<jsonschema::Validator> {
    let Some(shared) = shared() else {
        eprintln!("../shared not present: schema validation not run");
        return None;
    };
    let schema_text = std::fs::read_to_string(shared.join("schemas/sarif-schema-2.1.0.json"))
        .expect("schema is readable");
    let schema: serde_json::Value = serde_json::from_str(&schema_text).expect("schema is JSON");
    Some(
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft4)
            .build(&schema)
            .expect("schema compiles"),
    )
}

/// Reads the one model at `path` (discovered as the CLI would), panicking with the diagnostic.
pub fn read(path: &std::path::Path) -> coreml_lint::ir::Model {
    use coreml_lint::read::{read_model, ReadOutcome};
    let found = coreml_lint::discover::discover(&[path.to_path_buf()]);
    let d = match found.as_slice() {
        [Ok(d)] => d.clone(),
        other => panic!("{}: discovery gave {other:?}", path.display()),
    };
    match read_model(&d) {
        Ok(ReadOutcome::Model(m)) => *m,
        Ok(ReadOutcome::Pipeline(_)) => panic!("{}: is a pipeline", path.display()),
        Ok(ReadOutcome::NotMlProgram { what, .. }) => {
            panic!("{}: read as not an ML program ({what})", path.display())
        }
        Err(e) => panic!("{}: {:?}", path.display(), miette::Report::new(e)),
    }
}

/// Reads the one model at `path`: the model itself, or every ML program of a pipeline in order.
pub fn read_programs(path: &std::path::Path) -> Vec<coreml_lint::ir::Model> {
    let found = coreml_lint::discover::discover(&[path.to_path_buf()]);
    let d = match found.as_slice() {
        [Ok(d)] => d.clone(),
        other => panic!("{}: discovery gave {other:?}", path.display()),
    };
    let models = coreml_lint::read::read_model(&d)
        .unwrap_or_else(|e| panic!("{}: {:?}", path.display(), miette::Report::new(e)))
        .into_programs();
    assert!(!models.is_empty(), "{}: no ML program", path.display());
    models
}

/// The records of `corpus/expected`, sorted by name: `(name, record)`.
pub fn expected_records() -> Vec<(String, serde_json::Value)> {
    let dir = corpus().join("expected");
    let mut out: Vec<(String, serde_json::Value)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let v = serde_json::from_str(&text).unwrap();
            (p.file_stem().unwrap().to_string_lossy().into_owned(), v)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Copies a folder (a package) to `dst` with writable files.
pub fn copy_tree(src: &std::path::Path, dst: &std::path::Path) {
    for entry in walkdir::WalkDir::new(src) {
        let entry = entry.unwrap();
        let to = dst.join(entry.path().strip_prefix(src).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
            let mut perm = std::fs::metadata(&to).unwrap().permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perm.set_readonly(false);
            std::fs::set_permissions(&to, perm).unwrap();
        }
    }
}

/// A blob-storage-v2 weight file holding one fp16 blob of one element (record at 64, payload at 128).
pub fn one_fp16_blob_file() -> Vec<u8> {
    let mut weights = vec![0u8; 64];
    weights[0] = 1; // blob count
    weights[4] = 2; // version
    weights.extend_from_slice(&0xDEAD_BEEFu32.to_le_bytes());
    weights.extend_from_slice(&1u32.to_le_bytes()); // fp16
    weights.extend_from_slice(&2u64.to_le_bytes()); // payload bytes
    weights.extend_from_slice(&128u64.to_le_bytes()); // payload offset
    weights.resize(130, 0);
    weights
}

/// The constant window `[lo, hi)` per axis of the slice op `id` of `f` over a tensor of `dims`
/// (from the analysis), `None` when some axis is not constant.
pub fn const_window(
    f: &coreml_lint::ir::Function,
    id: coreml_lint::ir::NodeId,
    dims: &[u64],
) -> Option<Vec<(i64, i64)>> {
    use coreml_lint::analysis::AxisWindow;
    let dims: Vec<Option<u64>> = dims.iter().map(|&d| Some(d)).collect();
    let consts = coreml_lint::analysis::analyze(f).consts;
    let w = coreml_lint::analysis::state_writes::window_of(f, &consts, id, &dims)?;
    w.axes
        .iter()
        .map(|a| match *a {
            AxisWindow::Known { lo, hi, .. } => Some((lo as i64, hi as i64)),
            AxisWindow::Runtime { .. } => None,
        })
        .collect()
}

/// Re-encodes the description and program of the ML program `spec` (decoded from `bytes`) into
/// `bytes` and checks the result decodes to the same model with the same length: our structs
/// model every field of the parts the fixer replaces (map order may differ; map entries and packed
/// fields have the same size either way). Returns the re-encoded bytes.
pub fn assert_reencodes_losslessly(
    bytes: &[u8],
    spec: &coreml_lint::read::proto::Model,
    what: &std::path::Path,
) -> Vec<u8> {
    use coreml_lint::fix::splice;
    use coreml_lint::read::proto::{self, model::Type};
    use prost::Message;
    let Some(Type::MlProgram(program)) = &spec.r#type else {
        panic!("{}: not an ML program", what.display())
    };
    let out =
        splice::encode_model_preserving(bytes, spec.description.as_ref(), Some(program)).unwrap();
    assert_eq!(
        &proto::Model::decode(out.as_slice()).unwrap(),
        spec,
        "{}",
        what.display()
    );
    assert_eq!(out.len(), bytes.len(), "{}", what.display());
    out
}

/// Every function of `after` returns the same values as in `before`.
pub fn assert_outputs_unchanged(before: &coreml_lint::ir::Model, after: &coreml_lint::ir::Model) {
    assert_eq!(
        before.program.functions.len(),
        after.program.functions.len()
    );
    for (fb, fa) in before
        .program
        .functions
        .iter()
        .zip(&after.program.functions)
    {
        assert_eq!(fb.outputs(), fa.outputs(), "function `{}`", fb.name);
    }
}

/// Every file under `root`, by path relative to it, with its bytes.
pub fn files(root: &std::path::Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(root).unwrap().to_path_buf();
            (rel, std::fs::read(e.path()).unwrap())
        })
        .collect()
}
