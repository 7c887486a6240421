//! The read path from the command line: `dump`, and hostile input giving clear errors with exit code 2.

use std::path::Path;

use assert_cmd::Command;

const GOOD: &str = r#"program(1.3)
{
    func main<ios18>(tensor<fp16, [1, 4]> x) {
            tensor<fp16, [1, 4]> y = relu(x = x)[name = string("r")];
        } -> (y);
}"#;

fn bin() -> Command {
    Command::cargo_bin("coreml-lint").unwrap()
}

/// Runs `dump` on `path`, expects exit code 2, and returns stderr.
fn dump_fails(path: &Path) -> Vec<u8> {
    bin()
        .arg("dump")
        .arg(path)
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone()
}

fn write_compiled(dir: &Path, name: &str, mil: &[u8]) -> std::path::PathBuf {
    let pkg = dir.join(name);
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(pkg.join("model.mil"), mil).unwrap();
    pkg
}

#[test]
fn dump_prints_text_mil_that_parses_back() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = write_compiled(dir.path(), "a.mlmodelc", GOOD.as_bytes());
    let out = bin()
        .arg("dump")
        .arg(&pkg)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(text.trim_end(), GOOD);
}

#[test]
fn syntax_error_names_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let broken = GOOD.replace("[name = string(\"r\")];", "[name = string(\"r\")]");
    let pkg = write_compiled(dir.path(), "b.mlmodelc", broken.as_bytes());
    let out = dump_fails(&pkg);
    let err = String::from_utf8_lossy(&out);
    assert!(err.contains("b.mlmodelc/model.mil:5:9"), "{err}");
    assert!(err.contains("expected `;`"), "{err}");
}

#[test]
fn non_utf8_missing_and_foreign_paths_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = write_compiled(dir.path(), "c.mlmodelc", b"program(1.3)\n{\xff\xfe}");
    let out = dump_fails(&pkg);
    assert!(String::from_utf8_lossy(&out).contains("not UTF-8"));
    let out = dump_fails(&dir.path().join("nope.mlpackage"));
    assert!(String::from_utf8_lossy(&out).contains("cannot read"));
    std::fs::write(dir.path().join("x.txt"), "hi").unwrap();
    let out = dump_fails(&dir.path().join("x.txt"));
    assert!(String::from_utf8_lossy(&out).contains("not a Core ML model"));
    let empty = dir.path().join("d.mlmodelc");
    std::fs::create_dir_all(&empty).unwrap();
    let out = dump_fails(&empty);
    assert!(String::from_utf8_lossy(&out).contains("no model.mil"));
}

#[test]
fn one_broken_model_does_not_hide_the_others() {
    let dir = tempfile::tempdir().unwrap();
    write_compiled(dir.path(), "good.mlmodelc", GOOD.as_bytes());
    write_compiled(dir.path(), "bad.mlmodelc", b"program(1.3) { func");
    let assert = bin().arg("dump").arg(dir.path()).assert().code(2);
    let out = assert.get_output();
    assert!(String::from_utf8_lossy(&out.stdout).contains("relu(x = x)"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.mlmodelc/model.mil"));
}

#[test]
fn deep_nesting_and_absurd_dims_do_not_crash() {
    let dir = tempfile::tempdir().unwrap();
    let deep = format!(
        "program(1.3)\n{{\n func main<ios18>() [a = tensor<int32, [1]>({}1{})] {{\n }} -> ();\n}}",
        "[".repeat(200_000),
        "]".repeat(200_000)
    );
    let pkg = write_compiled(dir.path(), "deep.mlmodelc", deep.as_bytes());
    let out = dump_fails(&pkg);
    assert!(String::from_utf8_lossy(&out).contains("nesting deeper"));
    let huge = GOOD.replace("[1, 4]> x", "[4294967296, 4294967296, 1099511627777]> x");
    let pkg = write_compiled(dir.path(), "huge.mlmodelc", huge.as_bytes());
    let out = dump_fails(&pkg);
    assert!(String::from_utf8_lossy(&out).contains("larger than 2^40"));
}

/// A `model.mlmodel` cut short (an interrupted download) says so and what to do, in the user's
/// words: no decoder type names, at every length it can be cut to.
#[test]
fn a_truncated_protobuf_says_it_is_cut_short() {
    let whole = std::fs::read(
        crate::common::corpus()
            .join("packages/state-blend-rmw.mlpackage/Data/com.apple.CoreML/model.mlmodel"),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("model.mlmodel");
    for keep in [whole.len() / 4, whole.len() / 2, whole.len() - 3] {
        std::fs::write(&file, &whole[..keep]).unwrap();
        let out = bin()
            .args(["check", "--output-format", "concise"])
            .arg(&file)
            .assert()
            .code(2)
            .get_output()
            .stdout
            .clone();
        let text = String::from_utf8_lossy(&out);
        assert!(text.contains("model.mlmodel: error: "), "{text}");
        assert!(
            text.contains("cut short") || text.contains("damaged"),
            "{keep}: {text}"
        );
        for internal in [
            "Outline",
            "buffer underflow",
            "failed to decode Protobuf message",
        ] {
            assert!(!text.contains(internal), "{keep}: {text}");
        }
    }
    std::fs::write(&file, &whole[..whole.len() / 2]).unwrap();
    let err = dump_fails(&file);
    let err = String::from_utf8_lossy(&err);
    assert!(err.contains("the file is cut short"), "{err}");
    assert!(err.contains("download the model again"), "{err}");
}
