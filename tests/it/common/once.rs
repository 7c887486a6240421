//! What several tests need and is costly to make, made once per test binary: the ML programs read
//! from a folder, and the output of a read-only CLI run. Tests run in parallel threads; the first
//! to ask makes the value while the others wait for it.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use coreml_lint::discover::discover;
use coreml_lint::ir::Model;
use coreml_lint::read::{read_model, ReadOutcome};

/// The value for `key`, made by `make` the first time any test asks for it.
/// (Each value lives until the test binary exits.)
fn memo<K, V>(table: &'static Table<K, V>, key: K, make: impl FnOnce() -> V) -> &'static V
where
    K: std::hash::Hash + Eq,
{
    let cell: &'static OnceLock<V> = {
        let mut map = table.get_or_init(Default::default).lock().unwrap();
        map.entry(key).or_insert_with(|| Box::leak(Box::default()))
    };
    cell.get_or_init(make)
}

type Table<K, V> = OnceLock<Mutex<HashMap<K, &'static OnceLock<V>>>>;

/// Every model under `root` that reads as one ML program (`read_model` gives
/// `ReadOutcome::Model`), in discovery order; what discovery or reading refuses is left out.
pub fn models_under(root: &Path) -> &'static [Model] {
    static MODELS: Table<PathBuf, Vec<Model>> = OnceLock::new();
    memo::<PathBuf, Vec<Model>>(&MODELS, root.to_path_buf(), || {
        discover(&[root.to_path_buf()])
            .into_iter()
            .flatten()
            .filter_map(|d| match read_model(&d) {
                Ok(ReadOutcome::Model(m)) => Some(*m),
                _ => None,
            })
            .collect()
    })
}

/// Exit code, stdout and stderr of one run of the CLI.
pub struct CliRun {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// `coreml-lint ARGS` run in `cwd`, once per binary whatever the number of tests that ask: only
/// for runs that change no file (no `--fix`, no `--output`, no `--write-baseline`).
pub fn cli_run(cwd: &Path, args: &[OsString]) -> &'static CliRun {
    static RUNS: Table<(PathBuf, Vec<OsString>), CliRun> = OnceLock::new();
    assert!(
        !args.iter().any(|a| {
            let a = a.to_string_lossy();
            a == "--fix"
                || a == "--unsafe-fixes"
                || a.starts_with("--output=")
                || a == "--output"
                || a.starts_with("--write-baseline")
        }),
        "a run that writes files is not shared: {args:?}"
    );
    memo(&RUNS, (cwd.to_path_buf(), args.to_vec()), || {
        let out = assert_cmd::Command::cargo_bin("coreml-lint")
            .unwrap()
            .current_dir(cwd)
            .args(args)
            .output()
            .unwrap();
        CliRun {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8(out.stdout).unwrap(),
            stderr: String::from_utf8(out.stderr).unwrap(),
        }
    })
}
