//! `applies-to:`: the run's settings a rule (or a `help-when:` / `severity-when:` entry) concerns,
//! tested once per run rather than per node: the compute units, the chip families and OS ranges of
//! the deployment target; and once per model, the programs (Core ML's MIL, Core AI's) it concerns.
//! A rule whose `applies-to` does not hold for the run and the model reports nothing.

use std::collections::BTreeSet;
use std::fmt;

use super::compile_error::CompileError;
use super::schema::{OneOrMany, ProgramLanguage, SerAppliesTo, SerOsRange, SerOsRanges};
use super::target::{families_of, known_families, os_version, DeployTarget, Family, OsVersion};
use super::units::{ComputeUnits, Unit};
use crate::ir::{Model, ModelKind};
use crate::suggest::did_you_mean;

/// The language of `model`'s program: Core AI's for a `.aimodel`, Core ML's MIL otherwise.
pub fn program_of(model: &Model) -> ProgramLanguage {
    if model.kind == ModelKind::AiModel {
        ProgramLanguage::Coreai
    } else {
        ProgramLanguage::Mil
    }
}

/// A compiled `applies-to:`. Every key given must hold; an absent key always holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AppliesTo {
    /// The units the hazard concerns: holds when the run uses one of them (`None`: every unit).
    pub units: Option<BTreeSet<Unit>>,
    /// The run's `MLComputeUnits` setting is one of these.
    pub compute_units: Option<BTreeSet<ComputeUnits>>,
    /// Some chip family of the target is one of these (always when the target names none).
    pub families: Option<BTreeSet<Family>>,
    /// Every chip family of the target is one of these (never when it names none).
    pub only_families: Option<BTreeSet<Family>>,
    /// OS ranges: holds when the app may run an OS in one of them (its minimum for that platform
    /// is at most the range's end); always when the target names no OS.
    pub os: Vec<OsRange>,
    /// The programs the hazard concerns (`None`: both).
    pub programs: Option<BTreeSet<ProgramLanguage>>,
}

/// An inclusive range of one platform's versions (`macos26.4` … `macos26.5` covers every 26.5.x).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OsRange {
    /// The first version affected (`None`: every version up to `max`).
    pub min: Option<OsVersion>,
    /// The last version affected (`None`: every version from `min`).
    pub max: Option<OsVersion>,
}

impl OsRange {
    fn platform(&self) -> Option<super::target::Platform> {
        self.min.or(self.max).map(|v| v.platform)
    }

    /// True when an app whose oldest OS is `oldest` may run a version in the range.
    fn reachable_from(&self, oldest: OsVersion) -> bool {
        self.max
            .is_none_or(|max| (oldest.major, oldest.minor) <= (max.major, max.minor))
    }
}

impl fmt::Display for OsRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.min, self.max) {
            (Some(a), Some(b)) if a == b => write!(f, "{a}"),
            (Some(a), Some(b)) => write!(f, "{a}–{}.{}", b.major, b.minor),
            (Some(a), None) => write!(f, "{a} and later"),
            (None, Some(b)) => write!(f, "{b} and earlier"),
            (None, None) => f.write_str("every version"),
        }
    }
}

impl AppliesTo {
    /// True when the run (`None`: no target, every unit) meets every condition for a model whose
    /// program is `program`.
    pub fn holds_for(&self, run: Option<&DeployTarget>, program: ProgramLanguage) -> bool {
        self.concerns(program) && self.holds(run)
    }

    /// True when the hazard concerns `program` (`programs:`).
    pub fn concerns(&self, program: ProgramLanguage) -> bool {
        self.programs.as_ref().is_none_or(|p| p.contains(&program))
    }

    /// True when the run (`None`: no target, every unit) meets every condition on its settings
    /// (every key but `programs:`, which [`AppliesTo::concerns`] tests per model).
    pub fn holds(&self, run: Option<&DeployTarget>) -> bool {
        let setting = run.map_or(ComputeUnits::All, |r| r.units);
        if let Some(units) = &self.units {
            if !units.iter().any(|u| setting.uses(*u)) {
                return false;
            }
        }
        if let Some(allowed) = &self.compute_units {
            if !allowed.contains(&setting) {
                return false;
            }
        }
        let named = run.map(|r| &r.families).filter(|f| !f.is_empty());
        if let (Some(want), Some(have)) = (&self.families, named) {
            if want.is_disjoint(have) {
                return false;
            }
        }
        if let Some(only) = &self.only_families {
            if !named.is_some_and(|have| have.is_subset(only)) {
                return false;
            }
        }
        if !self.os.is_empty() {
            let oses = run.map_or(&[][..], |r| r.os.as_slice());
            if !oses.is_empty()
                && !self.os.iter().any(|range| {
                    oses.iter()
                        .any(|o| Some(o.platform) == range.platform() && range.reachable_from(*o))
                })
            {
                return false;
            }
        }
        true
    }

    /// "the GPU": the units, for `coreml-lint rule ID` (`None`: every unit).
    pub fn units_text(&self) -> Option<String> {
        let units = self.units.as_ref()?;
        let names: Vec<&str> = Unit::ALL
            .iter()
            .filter(|u| units.contains(u))
            .map(|u| match u {
                Unit::Cpu => "the CPU",
                Unit::Gpu => "the GPU",
                Unit::Ane => "the Neural Engine",
            })
            .collect();
        Some(match names.as_slice() {
            [one] => (*one).to_string(),
            [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
            [] => String::new(),
        })
    }

    /// What the conditions say, for `coreml-lint rule ID`: `the GPU; macOS 26.5–26.6` (empty when
    /// there is none).
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(u) = self.units_text() {
            parts.push(
                if self
                    .units
                    .as_ref()
                    .is_some_and(|u| u.len() == Unit::ALL.len())
                {
                    "every compute unit".to_string()
                } else {
                    u
                },
            );
        }
        if let Some(c) = &self.compute_units {
            let names: Vec<&str> = c.iter().map(|u| u.token()).collect();
            parts.push(format!("--compute-units {}", names.join(" or ")));
        }
        if let Some(f) = &self.families {
            parts.push(super::target::families_text(f));
        }
        if let Some(f) = &self.only_families {
            parts.push(format!("only {}", super::target::families_text(f)));
        }
        if let Some(os) = self.os_text() {
            parts.push(os);
        }
        if let Some(p) = self.programs_text() {
            parts.push(p);
        }
        parts.join("; ")
    }

    /// "Core ML programs", "Core AI programs", "Core ML and Core AI programs" (`None`: not said).
    pub fn programs_text(&self) -> Option<String> {
        let p = self.programs.as_ref()?;
        let names: Vec<&str> = p
            .iter()
            .map(|p| match p {
                ProgramLanguage::Mil => "Core ML",
                ProgramLanguage::Coreai => "Core AI",
            })
            .collect();
        Some(format!("{} programs", names.join(" and ")))
    }

    /// The OS ranges, comma-separated (`macOS 26.4–26.5, iOS 26.4–26.6`).
    pub fn os_text(&self) -> Option<String> {
        (!self.os.is_empty()).then(|| {
            self.os
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        })
    }
}

/// Compiles `applies-to:` (errors are labelled under `at`, e.g. `applies-to` or
/// `help-when.0.applies-to`).
pub fn compile(spec: &SerAppliesTo, at: &[String], errors: &mut Vec<CompileError>) -> AppliesTo {
    let mut err = |key: &str, message: String| {
        let mut path = at.to_vec();
        path.extend(key.split('.').filter(|k| !k.is_empty()).map(str::to_string));
        errors.push(CompileError { path, message });
    };
    let units = spec.units.as_ref().map(|list| {
        let mut out = BTreeSet::new();
        for w in list.to_vec() {
            match Unit::parse(&w) {
                Some(u) => {
                    out.insert(u);
                }
                None => err(
                    "units",
                    format!(
                        "unknown compute unit `{w}`{} (ane, gpu, cpu)",
                        did_you_mean(&w, Unit::ALL.iter().map(|u| u.token()))
                    ),
                ),
            }
        }
        out
    });
    let compute_units = spec.compute_units.as_ref().map(|list| {
        let mut out = BTreeSet::new();
        for w in list.to_vec() {
            match ComputeUnits::parse(&w) {
                Ok(u) => {
                    out.insert(u);
                }
                Err(e) => err("compute-units", e.to_string()),
            }
        }
        out
    });
    let mut families = |key: &str, list: &OneOrMany| {
        let mut out = BTreeSet::new();
        for w in list.to_vec() {
            match families_of(&w) {
                Some(f) => out.extend(f),
                None => {
                    let known = known_families();
                    err(
                        key,
                        format!(
                            "unknown chip family `{w}`{} (a12…a19, m1…m5, iphone, mac)",
                            did_you_mean(&w, known.iter().map(String::as_str))
                        ),
                    )
                }
            }
        }
        out
    };
    let fams = spec.families.as_ref().map(|l| families("families", l));
    let only = spec
        .only_families
        .as_ref()
        .map(|l| families("only-families", l));
    let mut os = Vec::new();
    for (i, range) in spec.os.iter().flat_map(SerOsRanges::iter).enumerate() {
        let mut version = |key: &str, w: &Option<String>| {
            w.as_ref().and_then(|w| {
                let v = os_version(&w.to_ascii_lowercase());
                if v.is_none() {
                    err(
                        &format!("os.{i}.{key}"),
                        format!("`{w}`: expected an OS version (ios26.4, macos26.6, visionos26)"),
                    );
                }
                v
            })
        };
        let (min, max) = (version("min", &range.min), version("max", &range.max));
        match (min, max) {
            (None, None) if range.min.is_none() && range.max.is_none() => {
                err(&format!("os.{i}"), "names neither `min` nor `max`".into())
            }
            (Some(a), Some(b)) if a.platform != b.platform => err(
                &format!("os.{i}"),
                format!("`min` and `max` name two platforms ({a}, {b})"),
            ),
            (Some(a), Some(b)) if (a.major, a.minor) > (b.major, b.minor) => err(
                &format!("os.{i}"),
                format!("`min` ({a}) is after `max` ({b})"),
            ),
            _ => os.push(OsRange { min, max }),
        }
    }
    let programs = spec.programs.as_ref().map(|list| {
        if list.is_empty() {
            err(
                "programs",
                "names no program (mil: Core ML's, coreai: Core AI's)".into(),
            );
        }
        list.iter().copied().collect::<BTreeSet<_>>()
    });
    let out = AppliesTo {
        units,
        compute_units,
        families: fams,
        only_families: only,
        os,
        programs,
    };
    if out == AppliesTo::default() && spec.os.is_none() {
        err(
            "",
            "names no condition (units, compute-units, families, only-families, os or programs)"
                .into(),
        );
    }
    out
}

impl SerOsRanges {
    /// The ranges, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, SerOsRange> {
        match self {
            SerOsRanges::One(r) => std::slice::from_ref(r).iter(),
            SerOsRanges::Many(v) => v.iter(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn applies(yaml: &str) -> AppliesTo {
        let spec: SerAppliesTo = crate::yaml::from_str(yaml).unwrap();
        let mut errors = Vec::new();
        let a = compile(&spec, &["applies-to".to_string()], &mut errors);
        assert!(errors.is_empty(), "{errors:?}");
        a
    }

    fn run(tokens: &[&str], units: ComputeUnits) -> DeployTarget {
        let mut t = DeployTarget::parse(tokens).unwrap();
        t.units = units;
        t
    }

    #[test]
    fn units_follow_the_run() {
        let gpu = applies("units: [gpu]");
        assert!(gpu.holds(None), "no setting: every unit");
        assert!(gpu.holds(Some(&run(&[], ComputeUnits::CpuAndGpu))));
        assert!(!gpu.holds(Some(&run(&[], ComputeUnits::CpuAndNe))));
        assert!(!gpu.holds(Some(&run(&[], ComputeUnits::CpuOnly))));
        let setting = applies("compute-units: [all]");
        assert!(setting.holds(None));
        assert!(!setting.holds(Some(&run(&[], ComputeUnits::CpuAndGpu))));
    }

    #[test]
    fn os_ranges_against_the_oldest_os() {
        let a = applies("os: [{ min: macos26.4, max: macos26.5 }, { min: ios26.4, max: ios26.6 }]");
        assert!(a.holds(None), "no OS given: every range may apply");
        assert!(a.holds(Some(&run(&["macos15"], ComputeUnits::All))));
        assert!(a.holds(Some(&run(&["ios26.6"], ComputeUnits::All))));
        assert!(!a.holds(Some(&run(&["ios27"], ComputeUnits::All))));
        assert!(!a.holds(Some(&run(&["macos26.6"], ComputeUnits::All))));
        assert!(!a.holds(Some(&run(&["visionos2"], ComputeUnits::All))));
        assert!(
            a.holds(Some(&run(&["a17"], ComputeUnits::All))),
            "families only"
        );
        assert_eq!(
            a.os_text().unwrap(),
            "macOS 26.4–26.5, iOS 26.4–26.6",
            "ranges read as versions"
        );
    }

    #[test]
    fn families_as_target() {
        let mac = applies("only-families: [mac]");
        assert!(!mac.holds(None));
        assert!(mac.holds(Some(&run(&["macos14"], ComputeUnits::All))));
        assert!(!mac.holds(Some(&run(&["ios18"], ComputeUnits::All))));
        let m5 = applies("families: [m5]");
        assert!(m5.holds(None));
        assert!(!m5.holds(Some(&run(&["ios18"], ComputeUnits::All))));
    }

    const RELU: &str = "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1, 32]> x) {\n            tensor<fp16, [1, 32]> y = relu(x = x)[name = string(\"r\")];\n        } -> (y);\n}";

    fn rule(extra: &str) -> Result<super::super::Rule, super::super::LoadError> {
        let text = format!(
            "id: t\ntitle: t\nseverity: warning\nmatch: {{ op: relu }}\nmessage: m\nhelp: default\n{extra}"
        );
        super::super::load_rule_text("t.yaml", &text, None, false)
    }

    fn run_rule(r: super::super::Rule, run: Option<&DeployTarget>) -> Vec<crate::finding::Finding> {
        let model = super::super::testing::snippet_model("t.mil", RELU).unwrap();
        let set = super::super::RuleSet::from_rules(vec![r]).unwrap();
        super::super::match_model_for(&model, &set, &Default::default(), run)
    }

    #[test]
    fn rules_help_and_severities_follow_the_run() {
        let gpu = run(&[], ComputeUnits::CpuAndGpu);
        let ne = run(&[], ComputeUnits::CpuAndNe);
        let ane_only = || rule("applies-to: { units: ane }\n").unwrap();
        assert_eq!(
            run_rule(ane_only(), None).len(),
            1,
            "no setting: every unit"
        );
        assert!(run_rule(ane_only(), Some(&gpu)).is_empty());
        assert_eq!(run_rule(ane_only(), Some(&ne)).len(), 1);
        let help = || {
            rule("help-when:\n  - applies-to: { compute-units: cpu-and-gpu }\n    help: \"for the GPU: `{OP}`\"\n")
                .unwrap()
        };
        assert_eq!(
            run_rule(help(), Some(&gpu))[0].help.as_deref(),
            Some("for the GPU: `r`")
        );
        assert_eq!(run_rule(help(), None)[0].help.as_deref(), Some("default"));
        let sev = || {
            rule("severity-when:\n  - severity: info\n    applies-to: { only-families: mac }\n")
                .unwrap()
        };
        let mac = run(&["macos15"], ComputeUnits::All);
        assert_eq!(
            run_rule(sev(), Some(&mac))[0].severity,
            crate::finding::Severity::Info
        );
        assert_eq!(
            run_rule(sev(), None)[0].severity,
            crate::finding::Severity::Warning
        );
    }

    #[test]
    fn programs_select_the_models_a_rule_and_its_help_concern() {
        let mil = super::super::testing::snippet_model("t.mil", RELU).unwrap();
        assert_eq!(program_of(&mil), ProgramLanguage::Mil);
        let coreai_only = rule("applies-to: { programs: [coreai] }\n").unwrap();
        assert!(run_rule(coreai_only, None).is_empty());
        let both = rule("applies-to: { programs: [mil, coreai] }\n").unwrap();
        assert_eq!(run_rule(both, None).len(), 1);
        let a = applies("programs: [coreai]");
        assert!(a.concerns(ProgramLanguage::Coreai));
        assert!(!a.concerns(ProgramLanguage::Mil));
        assert!(!a.holds_for(None, ProgramLanguage::Mil));
        assert!(
            a.holds(None),
            "the run's settings alone say nothing of programs"
        );
        assert_eq!(a.describe(), "Core AI programs");
        assert!(AppliesTo::default().concerns(ProgramLanguage::Coreai));
        let help = rule(
            "help-when:\n  - applies-to: { programs: [coreai] }\n    help: \"Core AI terms\"\n",
        )
        .unwrap();
        assert_eq!(
            run_rule(help, None)[0].help.as_deref(),
            Some("default"),
            "a Core ML model gets the other help"
        );
    }

    #[test]
    fn rule_files_name_what_is_wrong() {
        let e = rule("applies-to: { units: [gpu, neural-engine] }\n").unwrap_err();
        assert!(e.to_string().contains("applies-to.units"), "{e}");
        let e = rule("applies-to: { os: { min: macos26.4, max: ios26.6 } }\n").unwrap_err();
        assert!(e.to_string().contains("two platforms"), "{e}");
        let e = rule("applies-to: {}\n").unwrap_err();
        assert!(e.to_string().contains("names no condition"), "{e}");
        let e = rule("help-when:\n  - applies-to: { compute-units: cpu-and-nu }\n    help: x\n")
            .unwrap_err();
        assert!(e.to_string().contains("did you mean `cpu-and-ne`?"), "{e}");
        let e = rule("severity-when:\n  - severity: info\n").unwrap_err();
        assert!(
            e.to_string().contains("needs `match:` or `applies-to:`"),
            "{e}"
        );
        let builtin = |applies: &str| {
            let text = format!("id: t\ntitle: t\nseverity: warning\ncategory: c\ndescription: d\nwhy: w\nhelp: h\nmatch: {{ op: relu }}\nmessage: m\n{applies}tests: {{ valid: [{{ mil: x }}], invalid: [{{ mil: x }}] }}\n");
            super::super::load_rule_text("t.yaml", &text, None, true)
        };
        let e = builtin("applies-to: { programs: [mil] }\n").unwrap_err();
        assert!(e.to_string().contains("name the compute units"), "{e}");
        let e = builtin("applies-to: { units: [ane] }\n").unwrap_err();
        assert!(
            e.to_string().contains("name the programs they concern"),
            "{e}"
        );
        builtin("applies-to: { units: [ane], programs: [mil, coreai] }\n").unwrap();
        let e = rule("applies-to: { programs: [] }\n").unwrap_err();
        assert!(e.to_string().contains("names no program"), "{e}");
        let e = rule("applies-to: { programs: [coreml] }\n").unwrap_err();
        assert!(e.to_string().contains("applies-to.programs"), "{e}");
    }

    #[test]
    fn bad_values_are_named() {
        let spec: SerAppliesTo =
            crate::yaml::from_str("{ units: [gpu, gppu], os: { min: ios27, max: ios26 } }")
                .unwrap();
        let mut errors = Vec::new();
        compile(&spec, &["applies-to".to_string()], &mut errors);
        let text = format!("{errors:?}");
        assert!(
            text.contains("unknown compute unit `gppu`; did you mean `gpu`?"),
            "{text}"
        );
        assert!(text.contains("is after `max`"), "{text}");
    }
}
