//! `--statistics`: instead of the report, the number of findings per rule, most frequent first, and the number of ops they
//! cover (an origin finding stands for its whole region).

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::check::CheckRun;
use crate::rules::RuleInfo;

/// The table's column names, as its header and `--help` give them.
pub const COLUMNS: [&str; 5] = ["findings", "ops", "rule", "fix", "title"];

/// A header naming the columns, then one line per rule that fired: findings, ops covered, id,
/// `[*]` when a fix exists, title.
pub fn render(run: &CheckRun, rules: &[RuleInfo]) -> String {
    let mut counts: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for f in run.findings() {
        let c = counts.entry(f.rule.as_str()).or_default();
        c.0 += 1;
        c.1 += f.ops_covered();
    }
    let mut rows: Vec<(&str, (usize, usize))> = counts.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let [findings, ops, rule, fix, title] = COLUMNS;
    let id_width = rows
        .iter()
        .map(|r| r.0.len())
        .chain([rule.len()])
        .max()
        .unwrap_or(0);
    let width = |col: fn(&(usize, usize)) -> usize, header: &str| {
        rows.iter()
            .map(|r| col(&r.1).to_string().len())
            .chain([header.len()])
            .max()
            .unwrap_or(1)
    };
    let (num_width, ops_width) = (width(|c| c.0, findings), width(|c| c.1, ops));
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{findings:>num_width$}  {ops:>ops_width$}  {rule:<id_width$}  {fix}  {title}"
    );
    for (id, (n, ops)) in rows {
        let info = rules.iter().find(|r| r.id == id);
        let fix = if info.is_some_and(|r| r.fix.is_some()) {
            "[*]"
        } else {
            "   "
        };
        let title = info.map_or("", |r| r.title.as_str());
        let line = format!("{n:>num_width$}  {ops:>ops_width$}  {id:<id_width$}  {fix}  {title}");
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
                lines: None,
            },
            model_path: ".".into(),
            root: ".".into(),
            sub_model: None,
            bundle: Vec::new(),
        };
        let run = CheckRun {
            models: vec![ModelResult {
                path: "m.mil".into(),
                outcome: ModelOutcome::Checked {
                    model: Box::new(model),
                    findings: vec![
                        finding("b-rule"),
                        Finding {
                            covered: Some(crate::finding::Covered {
                                names: vec!["x".into(), "y".into(), "z".into()],
                            }),
                            ..finding("a-rule")
                        },
                        finding("b-rule"),
                        finding("c-rule"),
                    ],
                },
            }],
            elapsed: Default::default(),
            target: None,
            baseline: None,
            compute_units: Default::default(),
        };
        let rules = vec![RuleInfo {
            id: "b-rule".into(),
            title: "B".into(),
            fix: Some("pad-state".into()),
            ..Default::default()
        }];
        // a-rule's one finding covers 4 ops: it sorts by findings, then ops.
        assert_eq!(
            render(&run, &rules),
            "findings  ops  rule    fix  title\n       2    2  b-rule  [*]  B\n       1    4  a-rule\n       1    1  c-rule\n"
        );
    }
}
