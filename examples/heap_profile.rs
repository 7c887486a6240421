//! A heap profile of one `check`: the library run with the system allocator, so that valgrind's
//! massif (or heaptrack) sees every allocation. Same options as `check --output-format json`.
//!
//! `cargo build --profile profiling --example heap_profile`, then
//! `valgrind --tool=massif --massif-out-file=massif.out target/profiling/examples/heap_profile
//! bench/out/decoder-32l.mlpackage` and `ms_print massif.out`.

use std::path::PathBuf;
use std::process::ExitCode;

use coreml_lint::check::{check, CheckOptions, ConfigFile, Keep, Rendering};

fn main() -> ExitCode {
    let paths: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let options = CheckOptions {
        config: ConfigFile::Isolated,
        keep: Keep::Reports,
        rendering: Rendering::Skip,
        ..CheckOptions::default()
    };
    match check(&paths, &options) {
        Ok(outcome) => {
            println!("{} findings", outcome.run.findings().count());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(2)
        }
    }
}
