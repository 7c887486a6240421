//! The compute units the app loads the model with (Core ML's `MLComputeUnits`: `--compute-units`,
//! `compute-units:` in `coreml-lint.yaml`). Each rule names the units its hazard concerns
//! (`applies-to: { units: … }`); a run reports only the rules that concern a unit it uses.

use std::collections::BTreeSet;
use std::fmt;

use crate::suggest::did_you_mean;

/// One compute unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Unit {
    /// The CPU (BNNS, Accelerate).
    Cpu,
    /// The GPU (Metal Performance Shaders Graph).
    Gpu,
    /// The Neural Engine.
    Ane,
}

impl Unit {
    /// Every unit.
    pub const ALL: [Unit; 3] = [Unit::Cpu, Unit::Gpu, Unit::Ane];

    /// The token rule files use: `cpu`, `gpu`, `ane`.
    pub fn token(self) -> &'static str {
        match self {
            Unit::Cpu => "cpu",
            Unit::Gpu => "gpu",
            Unit::Ane => "ane",
        }
    }

    /// The unit a rule file's token names.
    pub fn parse(w: &str) -> Option<Unit> {
        Unit::ALL
            .into_iter()
            .find(|u| u.token().eq_ignore_ascii_case(w.trim()))
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

/// The app's `MLComputeUnits` (coremltools' `ComputeUnit`). Core ML's default, and the run's
/// default, is `all`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ComputeUnits {
    /// `.all`: the CPU, the GPU and the Neural Engine.
    #[default]
    All,
    /// `.cpuAndNeuralEngine`.
    CpuAndNe,
    /// `.cpuAndGPU`.
    CpuAndGpu,
    /// `.cpuOnly`.
    CpuOnly,
}

/// A `--compute-units` value that names no setting.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown compute units `{given}`{suggestion} (all, cpu-and-ne, cpu-and-gpu, cpu-only: Core ML's MLComputeUnits)")]
pub struct ComputeUnitsError {
    /// The value given.
    pub given: String,
    suggestion: String,
}

impl ComputeUnits {
    /// Every setting, in Core ML's order.
    pub const ALL: [ComputeUnits; 4] = [
        ComputeUnits::All,
        ComputeUnits::CpuAndNe,
        ComputeUnits::CpuAndGpu,
        ComputeUnits::CpuOnly,
    ];

    /// The token: `all`, `cpu-and-ne`, `cpu-and-gpu`, `cpu-only`.
    pub fn token(self) -> &'static str {
        match self {
            ComputeUnits::All => "all",
            ComputeUnits::CpuAndNe => "cpu-and-ne",
            ComputeUnits::CpuAndGpu => "cpu-and-gpu",
            ComputeUnits::CpuOnly => "cpu-only",
        }
    }

    /// Core ML's name for the setting (`.cpuAndGPU`).
    pub fn swift_name(self) -> &'static str {
        match self {
            ComputeUnits::All => ".all",
            ComputeUnits::CpuAndNe => ".cpuAndNeuralEngine",
            ComputeUnits::CpuAndGpu => ".cpuAndGPU",
            ComputeUnits::CpuOnly => ".cpuOnly",
        }
    }

    /// The units the setting lets Core ML use.
    pub fn units(self) -> BTreeSet<Unit> {
        let list: &[Unit] = match self {
            ComputeUnits::All => &Unit::ALL,
            ComputeUnits::CpuAndNe => &[Unit::Cpu, Unit::Ane],
            ComputeUnits::CpuAndGpu => &[Unit::Cpu, Unit::Gpu],
            ComputeUnits::CpuOnly => &[Unit::Cpu],
        };
        list.iter().copied().collect()
    }

    /// True when the setting lets Core ML use `unit`.
    pub fn uses(self, unit: Unit) -> bool {
        self.units().contains(&unit)
    }

    /// Parses a token (case-insensitive; `_` for `-`, and Core ML's and coremltools' spellings
    /// `cpuAndGPU`, `CPU_AND_GPU`, `cpuAndNeuralEngine` are accepted).
    pub fn parse(text: &str) -> Result<ComputeUnits, ComputeUnitsError> {
        let w = text.trim().trim_start_matches('.');
        let normal: String = w
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        let found = match normal.as_str() {
            "all" => Some(ComputeUnits::All),
            "cpuandne" | "cpuandneuralengine" => Some(ComputeUnits::CpuAndNe),
            "cpuandgpu" => Some(ComputeUnits::CpuAndGpu),
            "cpuonly" => Some(ComputeUnits::CpuOnly),
            _ => None,
        };
        found.ok_or_else(|| {
            let given = w.to_ascii_lowercase();
            ComputeUnitsError {
                suggestion: did_you_mean(&given, ComputeUnits::ALL.iter().map(|u| u.token())),
                given: text.trim().to_string(),
            }
        })
    }

    /// The setting as Core AI honours it. Core AI has no mode that leaves the GPU or the Neural
    /// Engine out: preferring one still lets the runtime fall back to the others, and only
    /// `.cpuOnly` excludes units (Apple developer forums thread 831967).
    pub fn for_core_ai(self) -> ComputeUnits {
        match self {
            ComputeUnits::CpuAndNe | ComputeUnits::CpuAndGpu => ComputeUnits::All,
            _ => self,
        }
    }

    /// "the CPU and the GPU": the units, for the human summary.
    pub fn describe(self) -> &'static str {
        match self {
            ComputeUnits::All => "the CPU, the GPU and the Neural Engine",
            ComputeUnits::CpuAndNe => "the CPU and the Neural Engine",
            ComputeUnits::CpuAndGpu => "the CPU and the GPU",
            ComputeUnits::CpuOnly => "the CPU only",
        }
    }
}

impl fmt::Display for ComputeUnits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_ai_excludes_units_only_for_cpu_only() {
        let coreai = ComputeUnits::for_core_ai;
        assert_eq!(coreai(ComputeUnits::CpuAndNe), ComputeUnits::All);
        assert_eq!(coreai(ComputeUnits::CpuAndGpu), ComputeUnits::All);
        assert_eq!(coreai(ComputeUnits::CpuOnly), ComputeUnits::CpuOnly);
        assert_eq!(coreai(ComputeUnits::All), ComputeUnits::All);
    }

    #[test]
    fn tokens_parse_and_round_trip() {
        for u in ComputeUnits::ALL {
            assert_eq!(ComputeUnits::parse(u.token()), Ok(u));
        }
        assert_eq!(
            ComputeUnits::parse("CPU_AND_GPU"),
            Ok(ComputeUnits::CpuAndGpu)
        );
        assert_eq!(
            ComputeUnits::parse(".cpuAndNeuralEngine"),
            Ok(ComputeUnits::CpuAndNe)
        );
        assert_eq!(ComputeUnits::default(), ComputeUnits::All);
    }

    #[test]
    fn units_of_each_setting() {
        assert!(ComputeUnits::All.uses(Unit::Ane) && ComputeUnits::All.uses(Unit::Gpu));
        assert!(!ComputeUnits::CpuAndGpu.uses(Unit::Ane));
        assert!(!ComputeUnits::CpuAndNe.uses(Unit::Gpu));
        assert_eq!(ComputeUnits::CpuOnly.units().len(), 1);
    }

    #[test]
    fn unknown_values_suggest() {
        let e = ComputeUnits::parse("cpu-and-nu").unwrap_err();
        assert_eq!(e.given, "cpu-and-nu");
        assert!(e.to_string().contains("did you mean `cpu-and-ne`?"), "{e}");
        let e = ComputeUnits::parse("gpu").unwrap_err();
        assert!(e.to_string().contains("unknown compute units `gpu`"), "{e}");
    }
}
