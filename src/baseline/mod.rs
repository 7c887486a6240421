//! Baselines: adopting coreml-lint on a zoo of models that already have findings.
//!
//! `check --write-baseline FILE` records every finding of the run ([`file::BaselineFile`]: keyed by
//! model path relative to the file, sub-model, function, op, state and rule, with a count, as
//! ruff's and ESLint's suppressions count) and each function's placement estimate op by op.
//! `check --baseline FILE` then reports only the findings that are not in it ([`compare`]): a key
//! found more often than the baseline counts reports the extra findings; a baselined key found
//! fewer times (or whose model is gone) is fixed; and an op likely on the ANE then and likely on
//! the CPU or at risk now is a `placement-regression` finding.

pub mod ane_digest;
mod error;
pub mod file;
pub mod key;
pub mod placement;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::analysis::entity::Entity;
use crate::finding::Finding;
use crate::ir::{Model, SubModel};
pub use error::BaselineError;
pub use file::{BaselineFile, Entry, FunctionPlacement, Key};
pub use key::Keyer;
pub use placement::Share;

/// What a check does with a baseline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BaselineMode {
    /// Report only the findings that are not in this file.
    Compare(PathBuf),
    /// Write every finding and the placement estimate to this file.
    Write(PathBuf),
    /// No baseline, not even the config's (`graph`, which draws every finding).
    Off,
}

/// What the baseline did in a run.
#[derive(Clone, Debug, PartialEq)]
pub enum BaselineOutcome {
    /// The run was compared with a baseline.
    Compared(Comparison),
    /// The run's findings were written as a baseline.
    Written(Written),
}

/// A run compared with a baseline.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    /// The baseline file, as given.
    pub file: PathBuf,
    /// The findings the run reports: not in the baseline, or found more often than it counts
    /// (placement regressions included).
    pub new: usize,
    /// Findings in the baseline and found again: not reported.
    pub unchanged: Vec<Finding>,
    /// Baselined findings no longer found in a checked model (or whose model is gone), with how
    /// many of each key.
    pub fixed: Vec<Entry>,
    /// The functions with a placement regression: their ANE share then and now.
    pub placement: Vec<ShareChange>,
}

impl Comparison {
    /// How many baselined findings are gone.
    pub fn fixed_count(&self) -> usize {
        self.fixed.iter().map(|e| e.count).sum()
    }
}

/// One function's ANE share at the baseline and now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShareChange {
    /// The model, as discovered.
    pub path: PathBuf,
    /// The pipeline sub-model.
    pub sub_model: Option<SubModel>,
    /// The function.
    pub function: String,
    /// At the baseline.
    pub then: Share,
    /// In this run.
    pub now: Share,
}

/// A baseline written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// The file, as given.
    pub file: PathBuf,
    /// Findings recorded.
    pub findings: usize,
    /// Functions whose placement was recorded.
    pub functions: usize,
}

/// The baseline of `models` (each checked model with its findings), keyed relative to `keyer`'s file.
pub fn record<'a>(
    models: impl IntoIterator<Item = (&'a Model, &'a [Finding])>,
    keyer: &Keyer,
) -> Result<BaselineFile, BaselineError> {
    let mut counts: BTreeMap<Key, usize> = BTreeMap::new();
    let mut functions = Vec::new();
    for (model, findings) in models {
        for f in findings {
            *counts.entry(keyer.finding(f)?).or_default() += 1;
        }
        let name = keyer.model(&model.path)?;
        let sub = key::sub_model_key(model.sub_model.as_ref());
        for f in &model.program.functions {
            let ops = placement::estimate(f, findings);
            functions.push(placement::record(&name, sub.clone(), f, &ops));
        }
    }
    let entries = counts.into_iter().map(|(k, n)| Entry::of(k, n)).collect();
    Ok(BaselineFile::new(entries, functions))
}

/// Compares a run with `baseline`: removes from each checked model's findings those the baseline
/// holds (into [`Comparison::unchanged`]), adds the findings `regressions` makes of each model's
/// `placement-regression` facts, and collects the baselined findings that are gone. `roots` are
/// the paths the run checked: a baselined model under them that no longer exists is fixed; one
/// outside them was not checked, and its entries are neither.
pub fn compare<'a>(
    baseline: &BaselineFile,
    keyer: &Keyer,
    file: &Path,
    models: impl IntoIterator<Item = (&'a Model, &'a mut Vec<Finding>)>,
    roots: &[PathBuf],
    regressions: &dyn Fn(&Model, Vec<Entity>) -> Vec<Finding>,
) -> Result<Comparison, BaselineError> {
    // Two entries may share a key once an old rule id is redirected: their counts add up.
    let mut remaining: BTreeMap<Key, usize> = BTreeMap::new();
    for e in &baseline.findings {
        *remaining.entry(e.key()).or_default() += e.count;
    }
    let recorded: BTreeMap<(&str, Option<&str>, &str), &FunctionPlacement> = baseline
        .placement
        .iter()
        .map(|p| {
            (
                (
                    p.model.as_str(),
                    p.sub_model.as_deref(),
                    p.function.as_str(),
                ),
                p,
            )
        })
        .collect();
    let mut out = Comparison {
        file: file.to_path_buf(),
        ..Comparison::default()
    };
    let mut checked: BTreeSet<(String, Option<String>)> = BTreeSet::new();
    for (model, findings) in models {
        let name = keyer.model(&model.path)?;
        let sub = key::sub_model_key(model.sub_model.as_ref());
        // The estimate sees every finding, baselined or not, as it did when the baseline was written.
        let mut moved = Vec::new();
        for f in &model.program.functions {
            let Some(then) = recorded.get(&(name.as_str(), sub.as_deref(), f.name.as_str())) else {
                continue;
            };
            let now = placement::estimate(f, findings);
            let (facts, before, after) = placement::regressions(f, then, &now);
            if facts.is_empty() {
                continue;
            }
            // Findings only where the rule runs (`--ignore placement-regression` drops them).
            let found = regressions(model, facts);
            if !found.is_empty() {
                out.placement.push(ShareChange {
                    path: model.path.clone(),
                    sub_model: model.sub_model.clone(),
                    function: f.name.to_string(),
                    then: before,
                    now: after,
                });
            }
            moved.extend(found);
        }
        let mut kept = Vec::with_capacity(findings.len());
        for f in findings.drain(..) {
            match remaining.get_mut(&keyer.finding(&f)?) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    out.unchanged.push(f);
                }
                _ => kept.push(f),
            }
        }
        if !moved.is_empty() {
            kept.extend(moved);
            kept.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        }
        out.new += kept.len();
        *findings = kept;
        checked.insert((name, sub));
    }
    let roots: Vec<PathBuf> = roots.iter().map(|r| key::absolute(r)).collect();
    let gone = |model: &str| {
        let path = keyer.model_path(model);
        !path.exists() && roots.iter().any(|r| path.starts_with(r))
    };
    out.fixed = remaining
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .filter(|(k, _)| {
            checked.contains(&(k.model.clone(), k.sub_model.clone())) || gone(&k.model)
        })
        .map(|(k, n)| Entry::of(k, n))
        .collect();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::snippet_model;

    const MIL: &str = "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1, 4]> x) {\n            tensor<fp16, [1, 4]> y = relu(x = x)[name = string(\"y\")];\n        } -> (y);\n}\n";

    fn finding(dir: &Path, rule: &str) -> Finding {
        let mut f = Finding::bare(rule, &dir.join("m.mil").display().to_string());
        f.function = Some("main".into());
        f.op = Some("y".into());
        f
    }

    /// Compares `now` (findings of `m.mil` in `dir`) with a baseline of `then`.
    fn compared(dir: &Path, then: Vec<Finding>, now: Vec<Finding>) -> (Vec<Finding>, Comparison) {
        let mut model = snippet_model("m", MIL).unwrap();
        model.path = dir.join("m.mil");
        let keyer = Keyer::new(&dir.join("b.json"));
        let file = record([(&model, then.as_slice())], &keyer).unwrap();
        let mut findings = now;
        let c = compare(
            &file,
            &keyer,
            Path::new("b.json"),
            [(&model, &mut findings)],
            &[dir.to_path_buf()],
            &|_, _| Vec::new(),
        )
        .unwrap();
        (findings, c)
    }

    #[test]
    fn findings_with_one_key_are_counted_as_a_multiset() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let (new, c) = compared(
            d,
            vec![finding(d, "r")],
            vec![finding(d, "r"), finding(d, "r")],
        );
        assert_eq!(
            (new.len(), c.new, c.unchanged.len(), c.fixed_count()),
            (1, 1, 1, 0)
        );
        let (new, c) = compared(
            d,
            vec![finding(d, "r"), finding(d, "r")],
            vec![finding(d, "r")],
        );
        assert_eq!((new.len(), c.unchanged.len(), c.fixed_count()), (0, 1, 1));
        assert_eq!(c.fixed[0].count, 1);
        let (new, c) = compared(d, vec![finding(d, "r")], vec![finding(d, "other")]);
        assert_eq!((new.len(), c.fixed_count()), (1, 1));
    }
}
