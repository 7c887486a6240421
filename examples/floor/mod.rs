//! What the two floor examples share: the model file named on the command line, read into memory.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `model.mlmodel` of the package (or the file) named by the first argument, and its bytes; on a
/// missing argument or a read error, the message is printed and the exit code returned.
pub fn read_model_file(example: &str) -> Result<(PathBuf, Vec<u8>), ExitCode> {
    let Some(arg) = std::env::args_os().nth(1) else {
        eprintln!("usage: {example} <package.mlpackage | model.mlmodel>");
        return Err(ExitCode::from(2));
    };
    let arg = Path::new(&arg);
    let file = if arg.is_dir() {
        arg.join("Data")
            .join("com.apple.CoreML")
            .join("model.mlmodel")
    } else {
        arg.to_path_buf()
    };
    match std::fs::read(&file) {
        Ok(bytes) => Ok((file, bytes)),
        Err(e) => {
            eprintln!("{}: {e}", file.display());
            Err(ExitCode::from(2))
        }
    }
}
