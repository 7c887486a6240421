//! Fix safety beyond the fix helper's own tests (`src/fix/write.rs`, `tests/it/fix_text.rs` cover a
//! failing writer and a read-only folder for text models): the process killed while the fixed files
//! are being staged (before any rename), for text and protobuf models; a failing writer ("disk
//! full") and a read-only folder for `.mlpackage`; a failing writer under `--output`. Each leaves
//! every original file byte-identical, and the model still reads and lints as before.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use coreml_lint::discover::discover;
use coreml_lint::fix::{apply, apply_with_writer, FixMode, PadRequest};
use coreml_lint::ir::Model;
use coreml_lint::read::{read_model, ReadOutcome};

const COMPILED: &str = "compiled/mlmodelc-state-full-extent-write.mlmodelc";
const PACKAGE: &str = "packages/state-full-extent-write.mlpackage";
const STATE: &str = "kv_cache";

/// Every file under `root` with its bytes.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| (e.path().to_path_buf(), std::fs::read(e.path()).unwrap()))
        .collect()
}

/// The snapshot without files the fixer's temp-file prefix names (a killed fix can leave those).
fn without_leftovers(s: BTreeMap<PathBuf, Vec<u8>>) -> BTreeMap<PathBuf, Vec<u8>> {
    s.into_iter()
        .filter(|(p, _)| {
            !p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(".coreml-lint-"))
        })
        .collect()
}

fn read(root: &Path) -> Model {
    let d = discover(&[root.to_path_buf()]).pop().unwrap().unwrap();
    match read_model(&d).unwrap() {
        ReadOutcome::Model(m) => *m,
        ReadOutcome::Pipeline(_) => panic!("a pipeline"),
        ReadOutcome::NotMlProgram { what, .. } => panic!("{what}"),
    }
}

fn request() -> Vec<PadRequest> {
    vec![PadRequest {
        state: STATE.into(),
        axis: None,
    }]
}

fn rules_found(root: &Path) -> Vec<String> {
    let linter = coreml_lint::lint::Linter::new(coreml_lint::rules::RuleSet::builtin().unwrap());
    let mut v: Vec<String> = linter
        .lint(&read(root))
        .into_iter()
        .map(|f| f.rule)
        .collect();
    v.sort();
    v
}

/// A copy of a corpus model in a temp folder, checked to need the fix.
fn fixture(corpus_model: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let src = common::corpus().join(corpus_model);
    let root = dir.path().join(src.file_name().unwrap());
    common::copy_tree(&src, &root);
    assert!(rules_found(&root).contains(&"state-full-extent-write".to_string()));
    (dir, root)
}

/// Run as a child process by `killed_while_staging_leaves_the_originals`: fixes the model at
/// `$FIX_SAFETY_MODEL` in place with a writer that, on its `$FIX_SAFETY_HANG_AT`-th call, writes
/// half the bytes, creates `$FIX_SAFETY_READY` and sleeps until killed.
#[test]
#[ignore = "child process of killed_while_staging_leaves_the_originals"]
fn child_fix_hangs_while_staging() {
    let root = PathBuf::from(std::env::var("FIX_SAFETY_MODEL").unwrap());
    let hang_at: usize = std::env::var("FIX_SAFETY_HANG_AT")
        .unwrap()
        .parse()
        .unwrap();
    let ready = PathBuf::from(std::env::var("FIX_SAFETY_READY").unwrap());
    let model = read(&root);
    let mut calls = 0;
    let mut writer = |f: &mut std::fs::File, b: &[u8]| {
        calls += 1;
        if calls == hang_at {
            std::io::Write::write_all(f, &b[..b.len() / 2])?;
            f.sync_all()?;
            say_ready(&ready, b"staging");
            loop {
                std::thread::sleep(Duration::from_secs(1));
            }
        }
        std::io::Write::write_all(f, b)
    };
    let _ = apply_with_writer(&model, &request(), true, FixMode::InPlace, &mut writer);
    // Fewer staged files than `hang_at`: say so, so the parent does not wait for nothing.
    say_ready(&ready, b"finished");
}

/// Writes `what` to `ready` whole: the parent polls for the file, so it appears only by a rename
/// once its bytes are written (a plain write let the parent read it empty).
fn say_ready(ready: &Path, what: &[u8]) {
    let partial = ready.with_extension("partial");
    std::fs::write(&partial, what).unwrap();
    std::fs::rename(&partial, ready).unwrap();
}

#[cfg(unix)]
#[test]
fn killed_while_staging_leaves_the_originals() {
    // `.mlmodelc` stages model.mil then metadata.json; `.mlpackage` stages model.mlmodel.
    for (model, hang_points) in [(COMPILED, &[1usize, 2][..]), (PACKAGE, &[1][..])] {
        for &hang_at in hang_points {
            let (dir, root) = fixture(model);
            let before = snapshot(&root);
            let findings_before = rules_found(&root);
            let ready = dir.path().join("ready");
            let mut child = Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "fix_safety::child_fix_hangs_while_staging",
                    "--ignored",
                    "--nocapture",
                ])
                .env("FIX_SAFETY_MODEL", &root)
                .env("FIX_SAFETY_HANG_AT", hang_at.to_string())
                .env("FIX_SAFETY_READY", &ready)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            let started = Instant::now();
            while !ready.exists() {
                assert!(
                    started.elapsed() < Duration::from_secs(120),
                    "child never got to staging"
                );
                if let Some(status) = child.try_wait().unwrap() {
                    panic!("child exited early: {status}");
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            assert_eq!(
                std::fs::read(&ready).unwrap(),
                b"staging",
                "{model}: the fix staged fewer than {hang_at} files"
            );
            child.kill().unwrap(); // SIGKILL: no destructor, no cleanup runs.
            child.wait().unwrap();
            let after = snapshot(&root);
            // A kill leaves the staged work behind: a temp file in the package (one-file fixes) or
            // the staged package folder beside it (several files, swapped in together).
            let staged_beside = std::fs::read_dir(dir.path()).unwrap().any(|e| {
                e.unwrap()
                    .file_name()
                    .to_string_lossy()
                    .contains(".coreml-lint-fix-")
            });
            assert!(
                after.len() > before.len() || staged_beside,
                "{model} @{hang_at}: the staged work should be left behind by a kill"
            );
            assert_eq!(
                without_leftovers(after),
                before,
                "{model} @{hang_at}: originals changed"
            );
            assert_eq!(rules_found(&root), findings_before, "{model} @{hang_at}");
            // A later fix succeeds despite the leftovers.
            apply(&read(&root), &request(), true, FixMode::InPlace).unwrap();
            assert!(!rules_found(&root).contains(&"state-full-extent-write".to_string()));
        }
    }
}

#[test]
fn package_failing_writer_and_read_only_folder_leave_the_originals() {
    let (_dir, root) = fixture(PACKAGE);
    let before = snapshot(&root);
    let model = read(&root);
    let mut disk_full = |f: &mut std::fs::File, b: &[u8]| {
        std::io::Write::write_all(f, &b[..b.len() / 3])?;
        Err(std::io::Error::new(
            std::io::ErrorKind::StorageFull,
            "no space left on device (injected)",
        ))
    };
    let e =
        apply_with_writer(&model, &request(), true, FixMode::InPlace, &mut disk_full).unwrap_err();
    assert!(e.to_string().contains("injected"), "{e}");
    assert_eq!(
        snapshot(&root),
        before,
        "no originals changed, no temp files left"
    );

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let data = root.join("Data/com.apple.CoreML");
        std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o555)).unwrap();
        let r = apply(&model, &request(), true, FixMode::InPlace);
        std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).unwrap();
        let e = r.unwrap_err();
        assert!(e.to_string().contains("read-only"), "{e}");
        assert_eq!(snapshot(&root), before);
    }
}

#[test]
fn output_copy_with_failing_writer_leaves_no_copy_and_the_input_alone() {
    for model in [COMPILED, PACKAGE] {
        let (dir, root) = fixture(model);
        let before = snapshot(&root);
        let out = dir.path().join("out");
        std::fs::create_dir(&out).unwrap();
        let mut failing = |_: &mut std::fs::File, _: &[u8]| -> std::io::Result<()> {
            Err(std::io::Error::other("injected failure"))
        };
        let e = apply_with_writer(
            &read(&root),
            &request(),
            true,
            FixMode::Output(out.clone()),
            &mut failing,
        )
        .unwrap_err();
        assert!(e.to_string().contains("injected"), "{model}: {e}");
        assert_eq!(snapshot(&root), before, "{model}");
        assert_eq!(
            std::fs::read_dir(&out).unwrap().count(),
            0,
            "{model}: a half-written copy was left in the output folder"
        );
    }
}
