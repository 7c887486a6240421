//! The `coreml-lint` command line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use coreml_lint::discover::discover;
use coreml_lint::read::{read_model, ReadOutcome};

#[derive(Parser)]
#[command(
    name = "coreml-lint",
    version,
    about = "Static analyzer for Core ML models"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print each model's program as text MIL.
    Dump { paths: Vec<PathBuf> },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let _ = miette::set_hook(Box::new(|_| {
        Box::new(miette::MietteHandlerOpts::new().wrap_lines(false).build())
    }));
    match cli.command {
        Command::Dump { paths } => {
            let mut failed = false;
            let found = discover(&paths);
            let many = found.len() > 1;
            for d in found {
                match d.and_then(|d| read_model(&d)) {
                    Ok(ReadOutcome::Model(m)) => {
                        if many {
                            println!("// {}", m.path.display());
                        }
                        println!("{}", coreml_lint::ir::render::render_to_string(&m.program));
                    }
                    Ok(ReadOutcome::NotMlProgram { path, what }) => {
                        eprintln!("{}: {what}: not an ML Program, not checked", path.display())
                    }
                    Err(e) => {
                        eprintln!("{:?}", miette::Report::new(e));
                        failed = true;
                    }
                }
            }
            if failed {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            }
        }
    }
}
