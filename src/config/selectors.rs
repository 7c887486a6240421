//! Every rule selector the settings name must name a rule: an unknown id or prefix is refused
//! with the nearest known one (as ruff does), instead of silently selecting nothing.

use std::collections::BTreeMap;
use std::path::Path;

use super::{matches_selector, Options, Overrides};

/// A rule id or prefix, in the config or on the command line, that names no rule.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{origin}: unknown rule selector `{selector}`")]
#[diagnostic(code(config), help("{help}"))]
pub struct UnknownSelector {
    /// Where it was written: a flag such as `--select`, or the config file and its key.
    pub origin: String,
    /// The selector as written.
    pub selector: String,
    /// The nearest rule id or prefix, when one is close.
    pub suggestion: Option<String>,
    help: String,
}

/// Checks every selector of the command line and of the config file against the loaded rule
/// ids and the redirects (old ids). `ALL` is always known.
pub fn check(
    file: Option<(&Path, &Options)>,
    cli: &Overrides,
    ids: &[&str],
    redirects: &BTreeMap<String, String>,
) -> Result<(), UnknownSelector> {
    let known = |sel: &str| {
        sel == "ALL"
            || redirects.contains_key(sel)
            || ids.iter().any(|id| matches_selector(id, sel))
    };
    let mut named: Vec<(String, &str)> = Vec::new();
    for (flag, list) in [
        ("--select", cli.select.as_deref().unwrap_or_default()),
        ("--extend-select", &cli.extend_select[..]),
        ("--ignore", &cli.ignore[..]),
    ] {
        named.extend(list.iter().map(|s| (flag.to_string(), s.as_str())));
    }
    if let Some((path, opts)) = file {
        let at = |key: &str| format!("{}: `{key}`", path.display());
        for (key, list) in [("select", &opts.select), ("ignore", &opts.ignore)] {
            let list = list.as_deref().unwrap_or_default();
            named.extend(list.iter().map(|s| (at(key), s.as_str())));
        }
        for id in opts.severity.iter().flat_map(BTreeMap::keys) {
            named.push((at("severity"), id));
        }
        for (glob, list) in opts.per_path_ignores.iter().flatten() {
            let key = format!("per-path-ignores: {glob}");
            named.extend(list.iter().map(|s| (at(&key), s.as_str())));
        }
        for rule in opts
            .ignores
            .iter()
            .flatten()
            .filter_map(|e| e.rule.as_deref())
        {
            named.push((at("ignores: rule"), rule));
        }
    }
    match named.into_iter().find(|(_, sel)| !known(sel)) {
        None => Ok(()),
        Some((origin, selector)) => {
            let suggestion = nearest(selector, ids, redirects);
            let help = match &suggestion {
                Some(s) => format!("did you mean `{s}`? (`coreml-lint rule --all` lists every rule)"),
                None => "`coreml-lint rule --all` lists every rule id; a prefix such as `state` selects the ids that start with `state-`".into(),
            };
            Err(UnknownSelector {
                origin,
                selector: selector.into(),
                suggestion,
                help,
            })
        }
    }
}

/// The rule id, id prefix (`state`, `blob-`...) or old id closest to `selector`, if it is close.
fn nearest(selector: &str, ids: &[&str], redirects: &BTreeMap<String, String>) -> Option<String> {
    let prefixes = ids
        .iter()
        .flat_map(|id| id.match_indices('-').map(move |(i, _)| &id[..i]));
    let candidates = ids
        .iter()
        .copied()
        .chain(prefixes)
        .chain(redirects.keys().map(String::as_str));
    crate::suggest::closest(selector, candidates).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    const IDS: &[&str] = &[
        "state-full-extent-write",
        "state-dynamic-begin",
        "blob-overlap",
    ];

    fn cli_select(sel: &str) -> Overrides {
        Overrides {
            select: Some(vec![sel.into()]),
            ..Overrides::default()
        }
    }

    #[test]
    fn ids_prefixes_all_and_old_ids_are_known() {
        let redirects = BTreeMap::from([("old-id".to_string(), "blob-overlap".to_string())]);
        for sel in [
            "state",
            "state-",
            "state-dynamic-begin",
            "ALL",
            "old-id",
            "blob",
        ] {
            assert!(
                check(None, &cli_select(sel), IDS, &redirects).is_ok(),
                "{sel}"
            );
        }
    }

    #[test]
    fn a_misspelt_id_is_refused_with_the_nearest_id() {
        let e = check(
            None,
            &cli_select("state-ful-extent-write"),
            IDS,
            &BTreeMap::new(),
        )
        .expect_err("unknown id");
        assert_eq!(e.origin, "--select");
        assert_eq!(e.suggestion.as_deref(), Some("state-full-extent-write"));
    }

    #[test]
    fn a_part_of_a_word_is_not_a_prefix() {
        let e = check(None, &cli_select("stat"), IDS, &BTreeMap::new()).expect_err("not a prefix");
        assert_eq!(e.suggestion.as_deref(), Some("state"));
        let e = check(None, &cli_select("zzzzzz"), IDS, &BTreeMap::new()).expect_err("unknown");
        assert_eq!(e.suggestion, None);
    }

    #[test]
    fn every_config_key_that_names_rules_is_checked() {
        let with = |opts: Options| {
            check(
                Some((Path::new("c.yaml"), &opts)),
                &Overrides::default(),
                IDS,
                &BTreeMap::new(),
            )
        };
        let bad = || vec!["blob-overlapp".to_string()];
        let cases = [
            (
                "select",
                Options {
                    select: Some(bad()),
                    ..Options::default()
                },
            ),
            (
                "ignore",
                Options {
                    ignore: Some(bad()),
                    ..Options::default()
                },
            ),
            (
                "per-path-ignores: *.mil",
                Options {
                    per_path_ignores: Some(BTreeMap::from([("*.mil".into(), bad())])),
                    ..Options::default()
                },
            ),
            (
                "ignores: rule",
                Options {
                    ignores: Some(vec![super::super::IgnoreEntry {
                        rule: Some("blob-overlapp".into()),
                        ..Default::default()
                    }]),
                    ..Options::default()
                },
            ),
            (
                "severity",
                Options {
                    severity: Some(BTreeMap::from([(
                        "blob-overlapp".into(),
                        crate::finding::Severity::Info,
                    )])),
                    ..Options::default()
                },
            ),
        ];
        for (key, opts) in cases {
            let e = with(opts).expect_err(key);
            assert_eq!(e.origin, format!("c.yaml: `{key}`"));
            assert_eq!(e.suggestion.as_deref(), Some("blob-overlap"));
        }
        assert!(with(Options {
            select: Some(vec!["blob".into()]),
            ..Options::default()
        })
        .is_ok());
    }
}
