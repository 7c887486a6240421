//! The benchmark floor: read `model.mlmodel` into memory and decode it with prost, nothing else.
//!
//! `cargo build --release --example decode_floor`, then
//! `target/release/examples/decode_floor <package.mlpackage | model.mlmodel>`. Prints the number of
//! operations in every function's blocks so that the decode cannot be optimised away. Uses the
//! same allocator as `coreml-lint` and, like it, does not free the decoded model before exiting.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use coreml_lint::read::proto::{self, model::Type, Block};

// Same allocator as `coreml-lint`, so that the floor and the lint are compared like for like.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn model_file(arg: &Path) -> PathBuf {
    if arg.is_dir() {
        arg.join("Data")
            .join("com.apple.CoreML")
            .join("model.mlmodel")
    } else {
        arg.to_path_buf()
    }
}

fn count_ops(block: &Block) -> usize {
    block
        .operations
        .iter()
        .map(|op| 1 + op.blocks.iter().map(count_ops).sum::<usize>())
        .sum()
}

fn main() -> ExitCode {
    let Some(arg) = std::env::args_os().nth(1) else {
        eprintln!("usage: decode_floor <package.mlpackage | model.mlmodel>");
        return ExitCode::from(2);
    };
    let file = model_file(Path::new(&arg));
    let bytes = match std::fs::read(&file) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{}: {e}", file.display());
            return ExitCode::from(2);
        }
    };
    let model = match proto::decode_model(&bytes, &file) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let ops: usize = match &model.r#type {
        Some(Type::MlProgram(p)) => p
            .functions
            .values()
            .flat_map(|f| f.block_specializations.values())
            .map(count_ops)
            .sum(),
        _ => 0,
    };
    println!("{} bytes, {ops} operations", bytes.len());
    // Like `coreml-lint check`, leave the freeing to the OS at exit.
    std::mem::forget(model);
    ExitCode::SUCCESS
}
