//! What the two floor examples share: the model file named on the command line, read into memory
//! (`decode_floor`) or mapped (`wire_walk`).

// Each example uses one of the two readers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use memmap2::Mmap;

/// `model.mlmodel` of the package (or the file) named by the first argument; on a missing
/// argument the usage is printed and the exit code returned.
fn model_file(example: &str) -> Result<PathBuf, ExitCode> {
    let Some(arg) = std::env::args_os().nth(1) else {
        eprintln!("usage: {example} <package.mlpackage | model.mlmodel>");
        return Err(ExitCode::from(2));
    };
    let arg = Path::new(&arg);
    Ok(if arg.is_dir() {
        arg.join("Data")
            .join("com.apple.CoreML")
            .join("model.mlmodel")
    } else {
        arg.to_path_buf()
    })
}

fn read_error(file: &Path, e: std::io::Error) -> ExitCode {
    eprintln!("{}: {e}", file.display());
    ExitCode::from(2)
}

/// The model file and its bytes, read into memory.
pub fn read_model_file(example: &str) -> Result<(PathBuf, Vec<u8>), ExitCode> {
    let file = model_file(example)?;
    match std::fs::read(&file) {
        Ok(bytes) => Ok((file, bytes)),
        Err(e) => Err(read_error(&file, e)),
    }
}

/// The model file and its bytes, mapped read-only: no copy and no allocation for the content.
pub fn map_model_file(example: &str) -> Result<(PathBuf, Mmap), ExitCode> {
    let file = model_file(example)?;
    let opened = std::fs::File::open(&file).map_err(|e| read_error(&file, e))?;
    // SAFETY: the benchmark's input is not changed while it runs; a file truncated under the map
    // would fault, as it would for Core ML's own mmap reader.
    match unsafe { Mmap::map(&opened) } {
        Ok(map) => Ok((file, map)),
        Err(e) => Err(read_error(&file, e)),
    }
}
