//! `coreml-lint rule ID` and `coreml-lint rule --all`.

use std::fmt::Write;

use crate::rules::RuleInfo;

/// The full explanation of one rule.
pub fn explain(rule: &RuleInfo) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {} ({})\n", rule.title, rule.id);
    let mut sev = rule
        .default_severity
        .map_or_else(|| "-".to_string(), |s| s.to_string());
    if !rule.conditional_severities.is_empty() {
        let others: Vec<String> = rule
            .conditional_severities
            .iter()
            .map(ToString::to_string)
            .collect();
        let _ = write!(
            sev,
            " ({} when its `severity-when` case holds)",
            others.join(" or ")
        );
    }
    let _ = writeln!(out, "Severity: {sev}    Category: {}", rule.category);
    if !rule.applies_to.is_empty() {
        let _ = writeln!(out, "Applies to: {}", rule.applies_to);
    }
    if !rule.tested_on.is_empty() {
        let _ = writeln!(out, "Tested on: {}", rule.tested_on);
    }
    let _ = writeln!(out, "Fix: {}\n", rule.fix.as_deref().unwrap_or("none"));
    for (title, body) in [
        ("What it does", &rule.description),
        ("Why", &rule.why),
        ("Example", &rule.example),
        ("How to fix", &rule.fix_text),
    ] {
        if !body.trim().is_empty() {
            let _ = writeln!(out, "## {title}\n{}\n", body.trim_end());
        }
    }
    if !rule.seen_on.is_empty() {
        let _ = writeln!(
            out,
            "## Seen on\n{}\n",
            rule.seen_on
                .iter()
                .map(|s| format!("- {s}"))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    if !rule.references.is_empty() {
        let _ = writeln!(
            out,
            "## References\n{}\n",
            rule.references
                .iter()
                .map(|s| format!("- {s}"))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    out.push_str("Static findings are hazards, not proof: confirm placement with MLComputePlan on the target device.\n");
    out
}

/// One line per rule: id, severity, fix marker, title.
pub fn list(rules: &[RuleInfo]) -> String {
    let width = rules.iter().map(|r| r.id.len()).max().unwrap_or(0);
    let mut out = String::new();
    for r in rules {
        let sev = r
            .default_severity
            .map_or_else(|| "-".to_string(), |s| s.to_string());
        let fix = if r.fix.is_some() { "fix" } else { "   " };
        let _ = writeln!(out, "{:<width$}  {sev:<7}  {fix}  {}", r.id, r.title);
    }
    out
}
