//! The benchmark floor: read `model.mlmodel` into memory and decode it with prost, nothing else.
//!
//! `cargo build --release --example decode_floor`, then
//! `target/release/examples/decode_floor <package.mlpackage | model.mlmodel>`. Prints the number of
//! operations in every function's blocks so that the decode cannot be optimised away. Uses the
//! same allocator as `coreml-lint` and, like it, does not free the decoded model before exiting.

use std::process::ExitCode;

#[path = "floor/mod.rs"]
mod floor;

use coreml_lint::read::proto::{self, model::Type, Block};

// Same allocator as `coreml-lint`, so that the floor and the lint are compared like for like.
#[global_allocator]
static GLOBAL: coreml_lint::allocator::Mimalloc = coreml_lint::allocator::Mimalloc;

fn count_ops(block: &Block) -> usize {
    block
        .operations
        .iter()
        .map(|op| 1 + op.blocks.iter().map(count_ops).sum::<usize>())
        .sum()
}

fn main() -> ExitCode {
    let (file, bytes) = match floor::read_model_file("decode_floor") {
        Ok(read) => read,
        Err(code) => return code,
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
