//! Has the linker lay out the functions a check runs side by side (`bench/symbol-order.txt`, made
//! by `bench/symbol-order.sh`): the kernel maps a binary's code 64 KB at a time around each page a
//! process runs, so a check's code spread over the whole binary kept twice its size resident
//! (BENCHMARKS.md, session 14).
//!
//! Only release builds, and only when the linker takes `--symbol-ordering-file` (lld, which Rust
//! uses on x86_64 Linux; mold documents it too): the build links a small probe program with the
//! flags first and passes them on only when that links. With another linker (GNU ld, gold, Apple's, MSVC's) the
//! file is not used and the binary is laid out as before. A name the binary lacks is skipped, so
//! a stale file costs memory, never correctness.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Passes the ordering to the linker of the `coreml-lint` binary when it can take it.
pub fn order_hot_functions() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let file = manifest.join("bench/symbol-order.txt");
    if !file.is_file() {
        // (Cargo would rerun the build script on every build for a path that does not exist.)
        return;
    }
    println!("cargo:rerun-if-changed={}", file.display());
    if std::env::var("PROFILE").as_deref() != Ok("release") {
        return;
    }
    let args = [
        format!("-Wl,--symbol-ordering-file={}", file.display()),
        "-Wl,--no-warn-symbol-ordering".to_string(),
    ];
    if links_with(&args) {
        for arg in &args {
            println!("cargo:rustc-link-arg-bin=coreml-lint={arg}");
        }
    }
}

/// Whether rustc links an empty program for the target, with the build's flags and linker, when
/// the linker is also given `link_args`.
fn links_with(link_args: &[String]) -> bool {
    let var = |name: &str| std::env::var(name).ok();
    let (Some(rustc), Some(target), Some(out_dir)) = (var("RUSTC"), var("TARGET"), var("OUT_DIR"))
    else {
        return false;
    };
    let dir = Path::new(&out_dir).join("symbol-order-probe");
    if std::fs::create_dir_all(&dir).is_err() {
        return false;
    }
    let source = dir.join("probe.rs");
    if std::fs::write(&source, "fn main() {}\n").is_err() {
        return false;
    }
    let mut cmd = Command::new(rustc);
    cmd.arg("--target").arg(&target);
    cmd.args([
        "--crate-type",
        "bin",
        "--crate-name",
        "probe",
        "--edition",
        "2021",
    ]);
    let flags = var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    cmd.args(flags.split('\x1f').filter(|f| !f.is_empty()));
    if let Some(linker) = var("RUSTC_LINKER") {
        cmd.arg("-C").arg(format!("linker={linker}"));
    }
    for arg in link_args {
        cmd.arg("-C").arg(format!("link-arg={arg}"));
    }
    cmd.arg("-o").arg(dir.join("probe")).arg(&source);
    cmd.current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd.status().is_ok_and(|s| s.success())
}
