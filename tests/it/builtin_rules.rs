//! Checks of the built-in rules' texts. Their `tests:` cases run once, in `rule_snapshots.rs`.

use coreml_lint::rules::RuleSet;

/// The most characters a rendered help may have: a sentence or two that says what to change; the
/// evidence belongs in `why` / `description` (`coreml-lint rule ID`).
const MAX_HELP_CHARS: usize = 300;

#[test]
fn every_help_is_a_sentence_or_two() {
    use coreml_lint::check::{check, CheckOptions, ConfigFile};
    let rules = RuleSet::builtin().expect("rules");
    let mut long = Vec::new();
    for rule in rules.rules() {
        let help = rule.help_text.as_deref().unwrap_or_default();
        if help.chars().count() > MAX_HELP_CHARS {
            long.push(format!(
                "{} (template, {} chars)",
                rule.id,
                help.chars().count()
            ));
        }
    }
    let mut paths = vec![crate::common::corpus()];
    paths.extend(crate::common::shared().map(|s| s.join("realworld")));
    let options = CheckOptions {
        config: ConfigFile::Isolated,
        ..CheckOptions::default()
    };
    let outcome = check(&paths, &options).expect("check runs");
    let mut rendered = 0;
    for f in outcome.run.findings() {
        let help = f.help.as_deref().unwrap_or_default();
        rendered += usize::from(!help.is_empty());
        if help.chars().count() > MAX_HELP_CHARS {
            long.push(format!(
                "{} at {} ({} chars): {help}",
                f.rule,
                f.path.display(),
                help.chars().count()
            ));
        }
    }
    assert!(
        rendered > 50,
        "the corpus gives findings with help: {rendered}"
    );
    assert!(
        long.is_empty(),
        "helps over {MAX_HELP_CHARS} characters:\n{}",
        long.join("\n")
    );
}

/// README's rule table names every built-in rule: by its id, or by a family row (`blob-*`).
#[test]
fn readme_rule_table_names_every_builtin_rule() {
    let readme = std::fs::read_to_string(crate::common::repo().join("README.md")).unwrap();
    let start = readme.find("## Rules").expect("a Rules section");
    let table: Vec<&str> = readme[start..]
        .lines()
        .skip_while(|l| !l.starts_with("| id |"))
        .take_while(|l| l.starts_with('|'))
        .collect();
    let named: Vec<&str> = table
        .iter()
        .filter_map(|row| row.split('|').nth(1))
        .flat_map(|cell| cell.split('`').skip(1).step_by(2))
        .collect();
    let rules = RuleSet::builtin().expect("rules");
    let missing: Vec<&str> = rules
        .rules()
        .iter()
        .map(|r| r.id.as_str())
        .filter(|id| {
            !named.iter().any(|n| match n.strip_suffix('*') {
                Some(prefix) => id.starts_with(prefix),
                None => n == id,
            })
        })
        .collect();
    assert!(
        missing.is_empty(),
        "not in README's rule table: {missing:?}"
    );
}
