//! Text MIL (`model.mil`): lexer and parser with byte spans (FORMAT.md §5, SYNTAX-NOTES.md).

mod lexer;
mod parser;

use std::path::Path;

use miette::NamedSource;

use super::error::MilSyntax;
use super::ReadError;
use crate::ir::build::build_function;
use crate::ir::span::line_col;
use crate::ir::{Program, Span};

/// Parses a whole `model.mil` into the IR. Errors carry a labelled span (line, column, what was expected).
pub fn parse_program(text: &str, path: &Path) -> Result<Program, ReadError> {
    let syntax_error = |span: Span, message: String, label: String| {
        let (line, column) = line_col(text, span.start);
        ReadError::MilSyntax(Box::new(MilSyntax {
            path: path.to_path_buf(),
            message,
            src: NamedSource::new(path.display().to_string(), text.to_string()),
            span: span.into(),
            label,
            line,
            column,
            help: None,
        }))
    };
    if let Some(span) = printed_program(text) {
        let mut e = syntax_error(
            span,
            "this is a program printed by coremltools (`print(prog)`), not serialized text MIL"
                .into(),
            "printed program".into(),
        );
        if let ReadError::MilSyntax(e) = &mut e {
            e.help = Some(
                "save the model with `ct.convert(...).save(\"model.mlpackage\")` and check the package; `coreml-lint dump model.mlpackage` prints its text MIL".into(),
            );
        }
        return Err(e);
    }
    let toks = lexer::lex(text).map_err(|e| syntax_error(e.span, e.message, "here".into()))?;
    let syntax = parser::Parser::new(text, toks)
        .program()
        .map_err(|e| syntax_error(e.span, e.message, e.label))?;
    let mut functions = Vec::with_capacity(syntax.functions.len());
    for f in syntax.functions {
        if functions
            .iter()
            .any(|g: &crate::ir::Function| g.name == f.name)
        {
            return Err(syntax_error(
                f.span,
                format!("function `{}` is defined twice", f.name),
                "second definition".into(),
            ));
        }
        let name = f.name.clone();
        let func = build_function(f).map_err(|e| {
            syntax_error(
                e.span(),
                format!("in function `{name}`: {e}"),
                e.to_string(),
            )
        })?;
        functions.push(func);
    }
    Ok(Program {
        version: syntax.version,
        attributes: syntax.attributes,
        functions,
    })
}

/// The span of the heading of a coremltools `print(prog)` dump (`main[CoreML8](%x: ...`), if the
/// text starts with one.
fn printed_program(text: &str) -> Option<Span> {
    let start = text.len() - text.trim_start().len();
    let line = text[start..].lines().next()?;
    let name_end = line.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
    let rest = &line[name_end..];
    let printed = name_end > 0 && (rest.starts_with("[CoreML") || rest.starts_with("(%"));
    printed.then(|| Span::new(start, start + line.len()))
}

#[cfg(test)]
mod tests;
