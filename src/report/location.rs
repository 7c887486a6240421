//! Where a finding is, as every format states it: the file on disk, its real line and column when
//! that file is text MIL, and for a program read from protobuf (a binary `model.mlmodel`) the line
//! and column in the text `coreml-lint dump` prints, which is the text the human report quotes.

use std::path::Path;

use crate::finding::Finding;
use crate::ir::span::line_col;
use crate::ir::Model;

/// The place of one finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place<'a> {
    /// The file on disk: `model.mil` of a text model, `model.mlmodel` of a protobuf one.
    pub file: &'a Path,
    /// 1-based line and column (in bytes) in `file`; only when `file` is text.
    pub text: Option<(usize, usize)>,
    /// 1-based line and column in the program `coreml-lint dump` prints (for a pipeline, in the
    /// program of the finding's sub-model); only for a protobuf program rendered for the report.
    pub dump: Option<(usize, usize)>,
}

/// Where `f` is in `model`.
pub fn place<'a>(model: &'a Model, f: &'a Finding) -> Place<'a> {
    match &model.source.lines {
        Some(lines) => place_with(model, f, |offset| lines.line_col(offset)),
        None => place_with(model, f, |offset| line_col(&model.source.text, offset)),
    }
}

/// [`place`], with the line and column of a byte offset computed by `line_col`.
pub(crate) fn place_with<'a>(
    model: &'a Model,
    f: &'a Finding,
    line_col: impl Fn(usize) -> (usize, usize),
) -> Place<'a> {
    let source = &model.source;
    // A finding about another file of the model (a pointer `metadata.json`) is at that file.
    if let Some(file) = &f.file {
        return Place {
            file,
            text: None,
            dump: None,
        };
    }
    // A protobuf program the run did not render has no text its spans could point into.
    let at = f
        .span
        .filter(|_| !source.text.is_empty() || source.lines.is_some())
        .map(|span| line_col(span.start));
    Place {
        file: &source.file,
        text: at.filter(|_| source.is_file),
        dump: at.filter(|_| !source.is_file),
    }
}

/// `the program of sub-model 1 "dec" in `coreml-lint dump X.mlpackage`` (or just the command):
/// what the human report's line numbers of a protobuf program count in.
pub(crate) fn dump_text(f: &Finding) -> String {
    let command = format!("`coreml-lint dump {}`", f.path.display());
    match &f.sub_model {
        Some(sub) => format!("the program of {sub} in {command}"),
        None => command,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Span;

    fn model_with(text: &str) -> Model {
        let program = crate::read::miltext::parse_program("program(1.3)\n{\n}", Path::new("m.mil"))
            .expect("parses");
        Model {
            path: "x.mlmodelc".into(),
            kind: crate::ir::ModelKind::MilText,
            spec_version: None,
            description: Default::default(),
            program,
            source: crate::ir::SourceText {
                name: "x.mlmodelc/model.mil".into(),
                file: "x.mlmodelc/model.mil".into(),
                text: text.into(),
                is_file: true,
                lines: None,
            },
            model_path: ".".into(),
            root: ".".into(),
            sub_model: None,
            bundle: Vec::new(),
        }
    }

    #[test]
    fn text_models_get_file_positions_and_protobuf_ones_dump_positions() {
        let text = "program(1.3)\n{\n    func main() {\n        relu\n";
        let at = text.find("relu").unwrap_or_default();
        let mut model = model_with(text);
        let mut f = Finding::bare("r", "x.mlmodelc");
        f.span = Some(Span::new(at, at + 4));

        model.source.is_file = true;
        let p = place(&model, &f);
        assert_eq!((p.text, p.dump), (Some((4, 9)), None));

        model.source.is_file = false;
        let p = place(&model, &f);
        assert_eq!((p.text, p.dump), (None, Some((4, 9))));
        assert_eq!(p.file, model.source.file.as_path());

        // Not rendered: no text to count lines in.
        model.source.text = "".into();
        assert_eq!(place(&model, &f).dump, None);
        // No span: no line.
        model.source.is_file = true;
        model.source.text = text.into();
        f.span = None;
        assert_eq!(place(&model, &f).text, None);
    }
}
