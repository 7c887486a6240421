//! `--statistics`: the number of findings per rule, most frequent first.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::check::CheckRun;
use crate::rules::RuleInfo;

/// One line per rule that fired: count, id, `[*]` when a fix exists, title.
pub fn render(run: &CheckRun, rules: &[RuleInfo]) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for f in run.findings() {
        *counts.entry(f.rule.as_str()).or_default() += 1;
    }
    let mut rows: Vec<(&str, usize)> = counts.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let id_width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    let num_width = rows
        .iter()
        .map(|r| r.1.to_string().len())
        .max()
        .unwrap_or(1);
    let mut out = String::new();
    for (id, n) in rows {
        let info = rules.iter().find(|r| r.id == id);
        let fix = if info.is_some_and(|r| r.fix.is_some()) {
            "[*]"
        } else {
            "   "
        };
        let title = info.map_or("", |r| r.title.as_str());
        let line = format!("{n:>num_width$}  {id:<id_width$}  {fix}  {title}");
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{ModelOutcome, ModelResult};
    use crate::finding::Finding;

    fn finding(rule: &str) -> Finding {
        Finding::bare(rule, "m.mlpackage")
    }

    #[test]
    fn counts_per_rule_most_frequent_first() {
        let model = crate::read::miltext::parse_program(
            "program(1.3)\n{\n}",
            std::path::Path::new("m.mil"),
        )
        .unwrap();
        let model = crate::ir::Model {
            path: "m.mil".into(),
            kind: crate::ir::ModelKind::MilText,
            spec_version: None,
            description: Default::default(),
            program: model,
            source: crate::ir::SourceText {
                name: "m.mil".into(),
                file: "m.mil".into(),
                text: "".into(),
                is_file: true,
            },
            model_path: ".".into(),
            root: ".".into(),
        };
        let run = CheckRun {
            models: vec![ModelResult {
                path: "m.mil".into(),
                outcome: ModelOutcome::Checked {
                    model: Box::new(model),
                    findings: vec![finding("b-rule"), finding("a-rule"), finding("b-rule")],
                },
            }],
            elapsed: Default::default(),
        };
        let rules = vec![RuleInfo {
            id: "b-rule".into(),
            title: "B".into(),
            fix: Some("pad-state".into()),
            ..Default::default()
        }];
        assert_eq!(render(&run, &rules), "2  b-rule  [*]  B\n1  a-rule\n");
    }
}
