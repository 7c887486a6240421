//! `--output-format github`: GitHub Actions workflow commands that annotate the changed files.
//!
//! One line per finding, `::error file=…,line=…,col=…,endLine=…,endColumn=…,title=…::message`
//! (`::warning` for warnings, `::notice` for infos); read errors become `::error file=…::…`, with
//! `line` and `col` when the reader knows where in the file the error is.
//! Lines and columns are given for text models only: `.mlpackage` findings name the binary
//! `model.mlmodel` without a line (a file-level annotation) and the sub-model, function and op in
//! the message.

use std::fmt::Write;
use std::path::{Component, Path};

use super::model_text::{github_data, github_property, terminal, workflow_data};
use super::sarif::{relative_path, text_range};
use crate::check::{CheckRun, ModelOutcome};
use crate::finding::{Finding, Severity};
use crate::ir::Model;

/// Renders every finding and read error as workflow commands, one per line.
pub fn render(run: &CheckRun, base: &Path) -> String {
    let mut out = String::new();
    for m in &run.models {
        match &m.outcome {
            ModelOutcome::Checked { model, findings } => {
                for f in findings {
                    out.push_str(&annotation(model, f, base));
                    out.push('\n');
                }
            }
            ModelOutcome::Failed(e) => {
                let mut props = format!("file={}", github_property(&display_path(e.path(), base)));
                if let Some((line, col)) = e.position() {
                    let _ = write!(props, ",line={line},col={col}");
                }
                let _ = writeln!(
                    out,
                    "::error {props},title={}::{}",
                    github_property("coreml-lint (read error)"),
                    github_data(&e.detail())
                );
            }
            ModelOutcome::Skipped(_) => {}
        }
    }
    out
}

fn command(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    }
}

fn annotation(model: &Model, f: &Finding, base: &Path) -> String {
    let mut props = format!(
        "file={}",
        github_property(&display_path(
            f.file.as_ref().unwrap_or(&model.source.file),
            base
        ))
    );
    let mut message = terminal(&f.message).into_owned();
    match f.span {
        Some(span) if model.source.is_file && f.file.is_none() => {
            let r = text_range(&model.source.text, span);
            let _ = write!(props, ",line={}", r.start_line);
            if r.end_line == r.start_line {
                let _ = write!(
                    props,
                    ",col={},endLine={},endColumn={}",
                    r.start_column, r.end_line, r.end_column
                );
            } else {
                let _ = write!(props, ",endLine={}", r.end_line);
            }
        }
        // A binary `model.mlmodel` (or no span): the file alone, the place in the message.
        _ => message.push_str(&terminal(&super::scope(f))),
    }
    // The line break between message and help is the renderer's, the only one left unescaped.
    if let Some(help) = &f.help {
        let _ = write!(message, "\n{}", terminal(help.trim_end()));
    }
    let _ = write!(
        props,
        ",title={}",
        github_property(&format!("coreml-lint ({})", f.rule))
    );
    format!(
        "::{} {props}::{}",
        command(f.severity),
        workflow_data(&message)
    )
}

/// The path as GitHub expects it: relative to the repository root (`base`), `/`-separated.
fn display_path(path: &Path, base: &Path) -> String {
    match relative_path(path, base) {
        Some(rel) => {
            let parts: Vec<String> = rel
                .components()
                .map(|c| match c {
                    Component::Normal(s) => s.to_string_lossy().into_owned(),
                    other => other.as_os_str().to_string_lossy().into_owned(),
                })
                .collect();
            parts.join("/")
        }
        None => path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_follows_the_workflow_command_rules() {
        assert_eq!(
            workflow_data("100% done\r\nnext: a,b"),
            "100%25 done%0D%0Anext: a,b"
        );
        // A model's line breaks are shown escaped before GitHub's escapes: one line per command.
        assert_eq!(github_property("a:b,c%\n"), "a%3Ab%2Cc%25\\n");
        // `%` is escaped first, so an existing escape is not decoded by the runner.
        assert_eq!(github_data("%0A"), "%250A");
    }

    #[test]
    fn paths_are_relative_to_the_base_with_forward_slashes() {
        assert_eq!(
            display_path(
                Path::new("/repo/a/b.mlmodelc/model.mil"),
                Path::new("/repo")
            ),
            "a/b.mlmodelc/model.mil"
        );
        assert_eq!(
            display_path(Path::new("/other/x.mil"), Path::new("/repo")),
            "/other/x.mil"
        );
    }
}
