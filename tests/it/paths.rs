//! Path safety through the CLI: symlinks and `..` in Manifest items, in the files of a compiled
//! folder and in BLOBFILE paths never lead `check` outside the package; special files never block it.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;

const SECRET: &str = "top-secret-line-7f3a";

/// Runs `coreml-lint check` on `path`; returns (exit code, stdout + stderr).
fn check(path: &Path) -> (i32, String) {
    let out = Command::cargo_bin("coreml-lint")
        .unwrap()
        .arg("check")
        .arg(path)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    // Diagnostics wrap long lines behind a `│` gutter: join them back.
    let flat = text
        .replace('│', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    (out.status.code().unwrap_or(-1), flat)
}

/// A temp folder holding `outside/secret.txt` (and a valid weight file beside it) and a copy of a
/// corpus model.
fn setup(corpus_model: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), SECRET).unwrap();
    let src = common::corpus().join(corpus_model);
    let model = dir.path().join(src.file_name().unwrap());
    common::copy_tree(&src, &model);
    (dir, outside, model)
}

const COMPILED: &str = "compiled/mlmodelc-mlp-blobfile-clean.mlmodelc";
const PACKAGE: &str = "packages/mlp-clean.mlpackage";

#[cfg(unix)]
#[test]
fn compiled_files_symlinked_outside_are_not_read() {
    use std::os::unix::fs::symlink;
    for file in ["model.mil", "metadata.json"] {
        let (_d, outside, model) = setup(COMPILED);
        let (code, _) = check(&model);
        assert_eq!(code, 0, "the copy is clean before the symlink");
        std::fs::remove_file(model.join(file)).unwrap();
        symlink(outside.join("secret.txt"), model.join(file)).unwrap();
        let (code, text) = check(&model);
        assert_eq!(code, 2, "{file}: {text}");
        assert!(text.contains("outside the package"), "{file}: {text}");
        assert!(
            !text.contains(SECRET),
            "{file}: the secret was read: {text}"
        );
    }
}

#[cfg(unix)]
#[test]
fn weight_files_symlinked_outside_are_not_opened() {
    use std::os::unix::fs::symlink;
    // The file behind the link is the model's own valid weight file: following it would be silent.
    let (_d, outside, model) = setup(COMPILED);
    std::fs::rename(model.join("weights/weight.bin"), outside.join("weight.bin")).unwrap();
    symlink(outside.join("weight.bin"), model.join("weights/weight.bin")).unwrap();
    let (code, text) = check(&model);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("blob-path-escape"), "{text}");
    // The whole weights folder linked out.
    let (_d, outside, model) = setup(COMPILED);
    std::fs::rename(model.join("weights"), outside.join("weights")).unwrap();
    symlink(outside.join("weights"), model.join("weights")).unwrap();
    let (code, text) = check(&model);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("blob-path-escape"), "{text}");
    // A link to /etc/passwd.
    let (_d, _outside, model) = setup(COMPILED);
    std::fs::remove_file(model.join("weights/weight.bin")).unwrap();
    symlink("/etc/passwd", model.join("weights/weight.bin")).unwrap();
    let (code, text) = check(&model);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("blob-path-escape"), "{text}");
}

#[test]
fn blobfile_paths_climbing_out_are_findings() {
    for written in [
        "@model_path/../../x",
        "@model_path/../outside/weight.bin",
        "/etc/passwd",
    ] {
        let (_d, outside, model) = setup(COMPILED);
        std::fs::copy(model.join("weights/weight.bin"), outside.join("weight.bin")).unwrap();
        let mil = std::fs::read_to_string(model.join("model.mil")).unwrap();
        let mil = mil.replacen("@model_path/weights/weight.bin", written, 1);
        std::fs::write(model.join("model.mil"), mil).unwrap();
        let (code, text) = check(&model);
        assert_eq!(code, 1, "{written}: {text}");
        assert!(text.contains("blob-path-escape"), "{written}: {text}");
    }
}

#[cfg(unix)]
#[test]
fn manifest_items_and_links_leading_outside_are_refused() {
    use std::os::unix::fs::symlink;
    let manifest = |model: &Path| model.join("Manifest.json");
    // `..` in the root model item.
    let (_d, outside, model) = setup(PACKAGE);
    std::fs::copy(
        model.join("Data/com.apple.CoreML/model.mlmodel"),
        outside.join("model.mlmodel"),
    )
    .unwrap();
    let text = std::fs::read_to_string(manifest(&model)).unwrap();
    std::fs::write(
        manifest(&model),
        text.replace(
            "com.apple.CoreML/model.mlmodel",
            "../../outside/model.mlmodel",
        ),
    )
    .unwrap();
    let (code, out) = check(&model);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("Manifest.json"), "{out}");
    // The root model file linked to /etc/passwd, and to a valid model outside.
    for target in [PathBuf::from("/etc/passwd"), outside.join("model.mlmodel")] {
        let (_d, _o, model) = setup(PACKAGE);
        let file = model.join("Data/com.apple.CoreML/model.mlmodel");
        std::fs::remove_file(&file).unwrap();
        symlink(&target, &file).unwrap();
        let (code, out) = check(&model);
        assert_eq!(code, 2, "{}: {out}", target.display());
        assert!(out.contains("outside the package"), "{out}");
    }
    // The Data folder linked outside.
    let (_d, outside, model) = setup(PACKAGE);
    std::fs::rename(model.join("Data"), outside.join("Data")).unwrap();
    symlink(outside.join("Data"), model.join("Data")).unwrap();
    let (code, out) = check(&model);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("outside the package"), "{out}");
    // Manifest.json itself linked outside.
    let (_d, outside, model) = setup(PACKAGE);
    std::fs::rename(manifest(&model), outside.join("Manifest.json")).unwrap();
    symlink(outside.join("Manifest.json"), manifest(&model)).unwrap();
    let (code, out) = check(&model);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("outside the package"), "{out}");
}

#[cfg(unix)]
#[test]
fn fifos_in_place_of_files_do_not_block() {
    let fifo = |p: &Path| {
        let _ = std::fs::remove_file(p);
        let ok = std::process::Command::new("mkfifo")
            .arg(p)
            .status()
            .unwrap()
            .success();
        assert!(ok, "mkfifo {}", p.display());
    };
    for file in ["metadata.json", "model.mil", "weights/weight.bin"] {
        let (_d, _o, model) = setup(COMPILED);
        fifo(&model.join(file));
        let (code, out) = check(&model);
        assert!(code == 1 || code == 2, "{file}: {code} {out}");
    }
    let (_d, _o, model) = setup(PACKAGE);
    fifo(&model.join("Manifest.json"));
    let (code, out) = check(&model);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("not a regular file"), "{out}");
}
