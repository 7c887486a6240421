//! The baseline file (`check --write-baseline FILE`): every finding of a run keyed by what
//! survives a re-export, with how many findings share each key, and each function's placement
//! estimate op by op. Sorted, pretty JSON with a version; no line numbers, no absolute paths.
//! `schemas/baseline.schema.json` is generated from these types.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::BaselineError;

/// The format version this build reads and writes.
pub const VERSION: u32 = 1;

/// A baseline file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BaselineFile {
    /// The format version: 1.
    #[schemars(range(min = 1, max = 1))]
    pub version: u32,
    /// Every finding of the run, one entry per key, sorted by key.
    pub findings: Vec<Entry>,
    /// Each checked function's placement estimate, sorted by model, sub-model and function.
    #[serde(default)]
    pub placement: Vec<FunctionPlacement>,
}

/// What identifies a finding across re-exports: never a line, an offset or an absolute path.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    /// The model's path relative to the baseline file's folder, `/`-separated.
    pub model: String,
    /// The pipeline sub-model's position (`1`, `0.2`).
    pub sub_model: Option<String>,
    /// The function.
    pub function: Option<String>,
    /// The op (its `name`; a constant's name for a weight).
    pub op: Option<String>,
    /// The state.
    pub state: Option<String>,
    /// The rule id.
    pub rule: String,
}

/// The findings of one key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The model's path relative to the baseline file's folder, `/`-separated (`Models/A.mlpackage`).
    pub model: String,
    /// The pipeline sub-model's position (`1`, `0.2` in a nested pipeline); `null` for a model of
    /// its own.
    #[serde(default)]
    pub sub_model: Option<String>,
    /// The function the findings are in; `null` for a model-level finding (weights, bundle).
    #[serde(default)]
    pub function: Option<String>,
    /// The op's `name` (a constant's for a weight finding).
    #[serde(default)]
    pub op: Option<String>,
    /// The state the findings are about.
    #[serde(default)]
    pub state: Option<String>,
    /// The rule id.
    pub rule: String,
    /// How many findings of the run have this key (at least 1).
    #[schemars(range(min = 1))]
    pub count: usize,
}

impl Entry {
    /// The key the entry counts.
    pub fn key(&self) -> Key {
        Key {
            model: self.model.clone(),
            sub_model: self.sub_model.clone(),
            function: self.function.clone(),
            op: self.op.clone(),
            state: self.state.clone(),
            rule: self.rule.clone(),
        }
    }

    /// The entry of `count` findings with `key`.
    pub fn of(key: Key, count: usize) -> Entry {
        Entry {
            model: key.model,
            sub_model: key.sub_model,
            function: key.function,
            op: key.op,
            state: key.state,
            rule: key.rule,
            count,
        }
    }
}

/// One function's placement estimate: its counted ops by where they are likely to run (constants
/// are not counted): the ops off the Neural Engine by name, each list sorted; the ops likely on
/// it counted and fingerprinted (`ane_digest`), since they are most of a model.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FunctionPlacement {
    /// The model's path relative to the baseline file's folder.
    pub model: String,
    /// The pipeline sub-model's position, or `null`.
    #[serde(default)]
    pub sub_model: Option<String>,
    /// The function.
    pub function: String,
    /// Ops likely on the Neural Engine, by name: what baselines written before `ane_digest` hold
    /// (still read; not written).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ane: Vec<String>,
    /// Ops likely on the CPU.
    #[serde(default)]
    pub cpu: Vec<String>,
    /// Ops at risk: ANE ops a rule reports (or whose function it reports).
    #[serde(default)]
    pub at_risk: Vec<String>,
    /// Ops whose type the op table does not list.
    #[serde(default)]
    pub unknown: Vec<String>,
    /// How many ops are likely on the Neural Engine (besides any listed in `ane`).
    #[serde(default)]
    pub ane_ops: usize,
    /// The 32-bit fingerprints of their names (FNV-1a), sorted, packed big-endian, in base64.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub ane_digest: String,
}

impl FunctionPlacement {
    /// Ops likely on the Neural Engine.
    pub fn ane_count(&self) -> usize {
        self.ane.len() + self.ane_ops
    }

    /// Ops counted.
    pub fn total(&self) -> usize {
        self.ane_count() + self.cpu.len() + self.at_risk.len() + self.unknown.len()
    }
}

impl BaselineFile {
    /// A file of these entries and placements, sorted.
    pub fn new(mut findings: Vec<Entry>, mut placement: Vec<FunctionPlacement>) -> BaselineFile {
        findings.sort_by_key(Entry::key);
        for p in &mut placement {
            for list in [&mut p.ane, &mut p.cpu, &mut p.at_risk, &mut p.unknown] {
                list.sort();
            }
        }
        placement.sort_by(|a, b| {
            (&a.model, &a.sub_model, &a.function).cmp(&(&b.model, &b.sub_model, &b.function))
        });
        BaselineFile {
            version: VERSION,
            findings,
            placement,
        }
    }

    /// The file as written: pretty JSON with a final newline.
    pub fn to_text(&self) -> String {
        let mut out = serde_json::to_string_pretty(self).unwrap_or_default();
        out.push('\n');
        out
    }

    /// Parses a baseline file's text; `path` names it in errors.
    pub fn parse(path: &Path, text: &str) -> Result<BaselineFile, BaselineError> {
        let bad = |message: String| BaselineError::new(path, message);
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| bad(format!("is not JSON: {e}")))?;
        match value.get("version").and_then(serde_json::Value::as_u64) {
            Some(v) if v == u64::from(VERSION) => {}
            Some(v) => {
                return Err(bad(format!(
                    "is a version {v} baseline; this coreml-lint reads version {VERSION}"
                )))
            }
            None => {
                return Err(bad(
                    "is not a coreml-lint baseline: it has no `version` number".into(),
                ))
            }
        }
        let file: BaselineFile = serde_json::from_value(value)
            .map_err(|e| bad(format!("is not a coreml-lint baseline: {e}")))?;
        if let Some(e) = file.findings.iter().find(|e| e.count == 0) {
            return Err(bad(format!(
                "the entry of `{}` in {} has count 0 (at least 1)",
                e.rule, e.model
            )));
        }
        let digest_fits = |p: &FunctionPlacement| {
            p.ane_digest.is_empty() && p.ane_ops == 0
                || super::ane_digest::decode(&p.ane_digest).is_some_and(|d| d.len() == p.ane_ops)
        };
        if let Some(p) = file.placement.iter().find(|p| !digest_fits(p)) {
            return Err(bad(format!(
                "the placement of `{}` in {} has an `ane_digest` that is not {} fingerprints",
                p.function, p.model, p.ane_ops
            )));
        }
        Ok(file)
    }

    /// Reads the baseline file at `path`.
    pub fn read(path: &Path) -> Result<BaselineFile, BaselineError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            let hint = if e.kind() == std::io::ErrorKind::NotFound {
                " (write one with `coreml-lint check --write-baseline FILE`)"
            } else {
                ""
            };
            BaselineError::new(path, format!("cannot read the baseline: {e}{hint}"))
        })?;
        BaselineFile::parse(path, &text)
    }

    /// Renames the entries of a rule whose id changed through `redirects` (old id → new id), so a
    /// baseline written before the change still holds its findings (rules/redirects.yaml).
    pub fn redirect(&mut self, redirects: &BTreeMap<String, String>) {
        for e in &mut self.findings {
            if let Some(new) = redirects.get(&e.rule) {
                e.rule.clone_from(new);
            }
        }
    }

    /// Writes the file to `path` atomically (a temporary file beside it, then a rename).
    pub fn write(&self, path: &Path) -> Result<(), BaselineError> {
        let files = [(PathBuf::from(path), self.to_text().into_bytes())];
        crate::fix::write::replace_all(&files, &mut crate::fix::write::plain_write).map_err(|e| {
            BaselineError::new(path, format!("cannot write the baseline: {}", e.message))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(model: &str, rule: &str, count: usize) -> Entry {
        Entry {
            model: model.into(),
            sub_model: None,
            function: Some("main".into()),
            op: Some("x".into()),
            state: None,
            rule: rule.into(),
            count,
        }
    }

    #[test]
    fn the_text_is_sorted_and_reads_back() {
        let file = BaselineFile::new(
            vec![entry("b.mil", "r", 1), entry("a.mil", "r", 2)],
            vec![FunctionPlacement {
                model: "a.mil".into(),
                function: "main".into(),
                cpu: vec!["z".into(), "a".into()],
                ..FunctionPlacement::default()
            }],
        );
        assert_eq!(file.findings[0].model, "a.mil");
        assert_eq!(file.placement[0].cpu, ["a", "z"]);
        let text = file.to_text();
        assert!(text.starts_with("{\n  \"version\": 1,"), "{text}");
        assert_eq!(
            BaselineFile::parse(Path::new("b.json"), &text).unwrap(),
            file
        );
    }

    #[test]
    fn bad_files_name_the_file_and_what_is_wrong() {
        let p = Path::new("zoo/b.json");
        let cases = [
            ("not json", "is not JSON"),
            ("{\"version\": 7, \"findings\": []}", "version 7 baseline"),
            ("{\"findings\": []}", "no `version`"),
            ("{\"version\": 1, \"findigs\": []}", "not a coreml-lint baseline"),
            (
                "{\"version\": 1, \"findings\": [{\"model\": \"a\", \"rule\": \"r\", \"count\": 0}]}",
                "count 0",
            ),
        ];
        for (text, want) in cases {
            let e = BaselineFile::parse(p, text).unwrap_err().to_string();
            assert!(
                e.starts_with("zoo/b.json: ") && e.contains(want),
                "{text}: {e}"
            );
        }
        let missing = BaselineFile::read(Path::new("/nonexistent/b.json")).unwrap_err();
        assert!(
            missing.to_string().contains("--write-baseline"),
            "{missing}"
        );
    }
}
