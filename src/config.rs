//! `coreml-lint.yaml`: what the file says ([`Options`]), merged with the command line into read-only
//! [`Settings`] (ruff's three layers).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobMatcher};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::finding::{Finding, Severity};
use crate::rules::schema::OneOrMany;
use crate::rules::{ComputeUnits, DeployTarget};

pub mod selectors;

/// Names the config file may have, looked up in this order in each folder.
pub(crate) const CONFIG_NAMES: &[&str] = &["coreml-lint.yaml", ".coreml-lint.yaml"];

/// One `ignores:` entry: a finding matching every given key is dropped (models have no comments for `noqa`).
#[derive(Clone, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct IgnoreEntry {
    /// Rule id (or prefix such as `state`); all rules when absent.
    pub rule: Option<String>,
    /// Glob over the model path, relative to the config file's folder.
    pub path: Option<String>,
    /// Function name; any function when absent.
    pub function: Option<String>,
    /// Op name; any op when absent.
    pub op: Option<String>,
    /// State name; any state when absent.
    pub state: Option<String>,
}

/// The config file as written. Every key is optional.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Options {
    /// Rule ids or prefixes to enable (default: all); `ALL` selects everything.
    pub select: Option<Vec<String>>,
    /// Rule ids or prefixes to disable.
    pub ignore: Option<Vec<String>>,
    /// Per-rule severity overrides.
    pub severity: Option<BTreeMap<String, Severity>>,
    /// Lowest severity that makes the exit code 1.
    pub fail_on: Option<Severity>,
    /// Extra rule folders, relative to the config file.
    pub rules: Option<Vec<PathBuf>>,
    /// Glob over model paths → rule ids or prefixes ignored there.
    pub per_path_ignores: Option<BTreeMap<String, Vec<String>>>,
    /// Fine-grained ignores by path, function, op and state.
    pub ignores: Option<Vec<IgnoreEntry>>,
    /// Deployment target: the app's minimum OS and chip families (`ios17`, `[macos14, m1]`).
    pub target: Option<OneOrMany>,
    /// Baseline file (`check --write-baseline FILE` writes one), relative to this file: only
    /// findings not in it are reported, as with `--baseline`.
    pub baseline: Option<PathBuf>,
    /// The compute units the app loads its models with (Core ML's `MLComputeUnits`): `all` (the
    /// default), `cpu-and-ne`, `cpu-and-gpu` or `cpu-only`.
    pub compute_units: Option<String>,
}

/// A config file that could not be used.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{}: {message}", path.display())]
#[diagnostic(code(config))]
pub struct ConfigError {
    /// The config file.
    pub path: PathBuf,
    /// What is wrong with it.
    pub message: String,
}

/// Reads a config file.
pub fn load(path: &Path) -> Result<Options, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
        path: path.into(),
        message: e.to_string(),
    })?;
    crate::yaml::from_str(&text).map_err(|e| ConfigError {
        path: path.into(),
        message: e.to_string(),
    })
}

/// The nearest config file in `start` or any folder above it.
pub(crate) fn find_upward(start: &Path) -> Option<PathBuf> {
    let start = std::fs::canonicalize(start).ok()?;
    let first = if start.is_dir() {
        start.as_path()
    } else {
        start.parent()?
    };
    first.ancestors().find_map(|dir| {
        CONFIG_NAMES
            .iter()
            .map(|n| dir.join(n))
            .find(|p| p.is_file())
    })
}

/// Rule selection and the CLI's overrides of the file.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    /// `--select`: replaces the config's `select`.
    pub select: Option<Vec<String>>,
    /// `--extend-select`: added to the selection.
    pub extend_select: Vec<String>,
    /// `--ignore`: added to the config's `ignore`.
    pub ignore: Vec<String>,
    /// `--fail-on`: replaces the config's `fail-on`.
    pub fail_on: Option<Severity>,
    /// `--rules`: rule folders added to the config's.
    pub rules: Vec<PathBuf>,
    /// `--target`: replaces the config's `target`.
    pub target: Option<DeployTarget>,
    /// `--compute-units`: replaces the config's `compute-units`.
    pub compute_units: Option<ComputeUnits>,
}

struct CompiledIgnore {
    entry: IgnoreEntry,
    path: Option<GlobMatcher>,
}

/// The resolved, read-only settings a check runs with.
pub struct Settings {
    select: Vec<String>,
    ignore: Vec<String>,
    severity: BTreeMap<String, Severity>,
    /// Lowest severity that counts as a failure (exit code 1).
    pub fail_on: Severity,
    /// Extra rule folders (already resolved against the config file's folder).
    pub rule_dirs: Vec<PathBuf>,
    /// The deployment target (`None`: every family, any OS).
    pub target: Option<DeployTarget>,
    /// The config's baseline file, resolved against the config file's folder.
    pub baseline: Option<PathBuf>,
    /// The compute units the app loads its models with (default `all`).
    pub compute_units: ComputeUnits,
    ignores: Vec<CompiledIgnore>,
    per_path: Vec<(GlobMatcher, Vec<String>)>,
    /// Folder the config's globs are relative to.
    base: PathBuf,
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("select", &self.select)
            .field("ignore", &self.ignore)
            .field("fail_on", &self.fail_on)
            .finish_non_exhaustive()
    }
}

fn matches_selector(id: &str, sel: &str) -> bool {
    sel == "ALL"
        || id == sel
        || (id.starts_with(sel) && (sel.ends_with('-') || id[sel.len()..].starts_with('-')))
}

fn glob(pattern: &str, path: &Path) -> Result<GlobMatcher, ConfigError> {
    Glob::new(pattern)
        .map(|g| g.compile_matcher())
        .map_err(|e| ConfigError {
            path: path.into(),
            message: format!("bad glob `{pattern}`: {e}"),
        })
}

impl Settings {
    /// Merges the file (if any) and the command line.
    pub fn resolve(
        file: Option<(&Path, Options)>,
        cli: Overrides,
    ) -> Result<Settings, ConfigError> {
        let (config_path, opts) = match file {
            Some((p, o)) => (p.to_path_buf(), o),
            None => (PathBuf::new(), Options::default()),
        };
        let base = config_path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let mut select = cli
            .select
            .or(opts.select)
            .unwrap_or_else(|| vec!["ALL".into()]);
        select.extend(cli.extend_select);
        let mut ignore = opts.ignore.unwrap_or_default();
        ignore.extend(cli.ignore);
        let mut rule_dirs: Vec<PathBuf> = opts
            .rules
            .unwrap_or_default()
            .into_iter()
            .map(|d| base.join(d))
            .collect();
        rule_dirs.extend(cli.rules);
        let ignores = opts
            .ignores
            .unwrap_or_default()
            .into_iter()
            .map(|entry| {
                let path = entry
                    .path
                    .as_deref()
                    .map(|p| glob(p, &config_path))
                    .transpose()?;
                Ok(CompiledIgnore { entry, path })
            })
            .collect::<Result<_, ConfigError>>()?;
        let per_path = opts
            .per_path_ignores
            .unwrap_or_default()
            .into_iter()
            .map(|(pat, ids)| Ok((glob(&pat, &config_path)?, ids)))
            .collect::<Result<_, ConfigError>>()?;
        let target =
            match (cli.target, opts.target) {
                (Some(t), _) => Some(t),
                (None, Some(tokens)) => Some(DeployTarget::parse(&tokens.to_vec()).map_err(
                    |e| ConfigError {
                        path: config_path.clone(),
                        message: format!("`target`: {e}"),
                    },
                )?),
                (None, None) => None,
            };
        let compute_units = match (cli.compute_units, opts.compute_units) {
            (Some(u), _) => u,
            (None, Some(text)) => ComputeUnits::parse(&text).map_err(|e| ConfigError {
                path: config_path.clone(),
                message: format!("`compute-units`: {e}"),
            })?,
            (None, None) => ComputeUnits::default(),
        };
        Ok(Settings {
            target,
            baseline: opts.baseline.map(|b| base.join(b)),
            compute_units,
            select,
            ignore,
            severity: opts.severity.unwrap_or_default(),
            fail_on: cli.fail_on.or(opts.fail_on).unwrap_or(Severity::Error),
            rule_dirs,
            ignores,
            per_path,
            base,
        })
    }

    /// Whether the rule with this id runs at all.
    pub(crate) fn is_enabled(&self, id: &str) -> bool {
        self.select.iter().any(|s| matches_selector(id, s))
            && !self.ignore.iter().any(|s| matches_selector(id, s))
    }

    /// The severity a rule's findings get.
    pub(crate) fn severity_of(&self, id: &str, default: Severity) -> Severity {
        self.severity.get(id).copied().unwrap_or(default)
    }

    fn relative<'p>(&self, path: &'p Path) -> std::borrow::Cow<'p, Path> {
        if self.base.as_os_str().is_empty() {
            return path.into();
        }
        let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let base = std::fs::canonicalize(&self.base).unwrap_or_else(|_| self.base.clone());
        match abs.strip_prefix(&base) {
            Ok(rel) => rel.to_path_buf().into(),
            Err(_) => path.into(),
        }
    }

    /// Rewrites every rule id the settings name (select, ignore, severity, per-path ignores,
    /// `ignores:`) through `redirects` (old id → new id), so a renamed rule stays selected or
    /// ignored. Prefixes and `ALL` are not ids and stay as written.
    pub(crate) fn redirect(&mut self, redirects: &BTreeMap<String, String>) {
        let map = |id: &mut String| {
            if let Some(new) = redirects.get(id.as_str()) {
                id.clone_from(new);
            }
        };
        self.select.iter_mut().for_each(map);
        self.ignore.iter_mut().for_each(map);
        for (_, ids) in &mut self.per_path {
            ids.iter_mut().for_each(map);
        }
        for ig in &mut self.ignores {
            if let Some(rule) = &mut ig.entry.rule {
                map(rule);
            }
        }
        self.severity = std::mem::take(&mut self.severity)
            .into_iter()
            .map(|(mut id, s)| {
                map(&mut id);
                (id, s)
            })
            .collect();
    }

    /// Applies enablement, severity overrides and ignores to a model's findings.
    pub(crate) fn apply(&self, findings: Vec<Finding>) -> Vec<Finding> {
        findings
            .into_iter()
            .filter(|f| self.is_enabled(&f.rule))
            .filter(|f| {
                let rel = self.relative(&f.path);
                let by_path = self.per_path.iter().any(|(g, ids)| {
                    g.is_match(&*rel) && ids.iter().any(|s| matches_selector(&f.rule, s))
                });
                let by_entry = self.ignores.iter().any(|ig| {
                    let e = &ig.entry;
                    e.rule
                        .as_deref()
                        .is_none_or(|r| matches_selector(&f.rule, r))
                        && ig.path.as_ref().is_none_or(|g| g.is_match(&*rel))
                        && e.function
                            .as_ref()
                            .is_none_or(|x| f.function.as_ref() == Some(x))
                        && e.op.as_ref().is_none_or(|x| f.op.as_ref() == Some(x))
                        && e.state.as_ref().is_none_or(|x| f.state.as_ref() == Some(x))
                });
                !by_path && !by_entry
            })
            .map(|mut f| {
                f.severity = self.severity_of(&f.rule, f.severity);
                f
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_match_ids_and_prefixes() {
        assert!(matches_selector("state-full-extent-write", "state"));
        assert!(matches_selector(
            "state-full-extent-write",
            "state-full-extent-write"
        ));
        assert!(matches_selector("blob-overlap", "ALL"));
        assert!(!matches_selector("statement", "state"));
        assert!(!matches_selector("blob-overlap", "state"));
    }

    #[test]
    fn redirects_apply_to_every_id_the_settings_name() {
        let file = Options {
            severity: Some(BTreeMap::from([("old-id".to_string(), Severity::Info)])),
            per_path_ignores: Some(BTreeMap::from([(
                "*.mil".to_string(),
                vec!["old-id".into()],
            )])),
            ignores: Some(vec![IgnoreEntry {
                rule: Some("old-id".into()),
                ..IgnoreEntry::default()
            }]),
            ..Options::default()
        };
        let cli = Overrides {
            select: Some(vec!["old-id".into(), "state".into()]),
            ignore: vec!["old-id".into()],
            ..Overrides::default()
        };
        let mut s = Settings::resolve(Some((Path::new("c.yaml"), file)), cli).expect("settings");
        assert!(!s.is_enabled("new-id"));
        s.redirect(&BTreeMap::from([(
            "old-id".to_string(),
            "new-id".to_string(),
        )]));
        assert_eq!(s.select, vec!["new-id".to_string(), "state".to_string()]);
        assert_eq!(s.ignore, vec!["new-id".to_string()]);
        assert_eq!(s.severity_of("new-id", Severity::Error), Severity::Info);
        assert_eq!(s.per_path[0].1, vec!["new-id".to_string()]);
        assert_eq!(s.ignores[0].entry.rule.as_deref(), Some("new-id"));
    }
}
