//! The deployment target a run checks for (`--target`, `target:` in `coreml-lint.yaml`): the
//! oldest OS the app supports and the chip families it runs on. Rules test it with the `target:`
//! key; without a target every family-dependent limit applies (the strictest one).

use std::collections::BTreeSet;
use std::fmt;

use super::schema::ProgramLanguage;
use super::units::ComputeUnits;
use crate::os_level::opset_level;
use crate::suggest::did_you_mean;

/// A chip family with a Neural Engine: the A-series (iPhone, iPad) and the M-series (Mac, iPad).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// A-series chip A12 … A19.
    A(u8),
    /// M-series chip M1 … M5.
    M(u8),
}

/// The A-series families known, with the first and last iPhone of each.
const A_SERIES: &[(u8, &str, &str)] = &[
    (12, "XS", "XR"),
    (13, "11", "11"),
    (14, "12", "12"),
    (15, "13", "14"),
    (16, "14 Pro", "15"),
    (17, "15 Pro", "15 Pro"),
    (18, "16", "16 Pro"),
    (19, "17", "17 Pro"),
];
/// The M-series families known.
const M_SERIES: std::ops::RangeInclusive<u8> = 1..=5;

impl Family {
    /// Every known family, A-series first.
    pub fn all() -> Vec<Family> {
        let mut out: Vec<Family> = A_SERIES.iter().map(|(n, _, _)| Family::A(*n)).collect();
        out.extend(M_SERIES.map(Family::M));
        out
    }

    fn is_a(self) -> bool {
        matches!(self, Family::A(_))
    }

    fn number(self) -> u8 {
        match self {
            Family::A(n) | Family::M(n) => n,
        }
    }

    fn phones(self) -> Option<(&'static str, &'static str)> {
        let Family::A(n) = self else { return None };
        A_SERIES
            .iter()
            .find(|(m, _, _)| *m == n)
            .map(|(_, first, last)| (*first, *last))
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Family::A(n) => write!(f, "A{n}"),
            Family::M(n) => write!(f, "M{n}"),
        }
    }
}

/// An operating system of Apple's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Platform {
    /// iOS and iPadOS.
    Ios,
    /// macOS.
    Macos,
    /// tvOS.
    Tvos,
    /// visionOS.
    Visionos,
    /// watchOS.
    Watchos,
}

/// Per platform: its token prefix, display name, and the major versions known with the iOS
/// release each ships with (the Core ML generation: macOS 14 = iOS 17 = `CoreML7`).
/// A platform, its token prefix, its display name and (major version, iOS level) pairs.
type PlatformEntry = (Platform, &'static str, &'static str, &'static [(u32, u32)]);

const PLATFORMS: &[PlatformEntry] = &[
    (
        Platform::Ios,
        "ios",
        "iOS",
        &[(15, 15), (16, 16), (17, 17), (18, 18), (26, 26), (27, 27)],
    ),
    (
        Platform::Macos,
        "macos",
        "macOS",
        &[(12, 15), (13, 16), (14, 17), (15, 18), (26, 26), (27, 27)],
    ),
    (
        Platform::Tvos,
        "tvos",
        "tvOS",
        &[(15, 15), (16, 16), (17, 17), (18, 18), (26, 26), (27, 27)],
    ),
    (
        Platform::Visionos,
        "visionos",
        "visionOS",
        &[(1, 17), (2, 18), (26, 26), (27, 27)],
    ),
    (
        Platform::Watchos,
        "watchos",
        "watchOS",
        &[(8, 15), (9, 16), (10, 17), (11, 18), (26, 26), (27, 27)],
    ),
];

/// An OS version: platform, major and minor (`ios17.4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OsVersion {
    /// The platform.
    pub platform: Platform,
    /// Major version.
    pub major: u32,
    /// Minor version (0 when not given).
    pub minor: u32,
}

impl OsVersion {
    fn entry(self) -> &'static PlatformEntry {
        PLATFORMS
            .iter()
            .find(|(p, ..)| *p == self.platform)
            .unwrap_or(&PLATFORMS[0])
    }

    /// The platform's display name (`macOS`).
    pub fn platform_name(self) -> &'static str {
        self.entry().2
    }

    /// The iOS major version of the same Core ML generation (macOS 14 → 17).
    pub fn ios_level(self) -> u32 {
        self.entry()
            .3
            .iter()
            .find(|(major, _)| *major == self.major)
            .map_or(self.major, |(_, level)| *level)
    }
}

impl fmt::Display for OsVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.entry().2, self.major)?;
        if self.minor > 0 {
            write!(f, ".{}", self.minor)?;
        }
        Ok(())
    }
}

/// The run's deployment target.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeployTarget {
    /// The tokens as given, lower-case, in order (for reports).
    pub tokens: Vec<String>,
    /// The oldest OS versions the app supports, one per platform named.
    pub os: Vec<OsVersion>,
    /// The chip families it runs on: the ones named, else those the named platforms imply
    /// (iOS, tvOS: the A-series; macOS, visionOS: the M-series); empty when unknown.
    pub families: BTreeSet<Family>,
    /// The compute units the app loads the model with (`--compute-units`; default `all`). Rules
    /// concerning no unit of the setting do not run.
    pub units: ComputeUnits,
}

/// A `--target` token that names no OS, family or shorthand.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown target `{token}`{suggestion} (OS versions such as ios17, macos14, tvos18, visionos2, watchos11; chip families a12…a19, m1…m5; `iphone`, `mac`)")]
pub struct TargetError {
    /// The token.
    pub token: String,
    suggestion: String,
}

/// Every token `parse` accepts.
pub fn known_tokens() -> Vec<String> {
    let mut out = vec!["iphone".to_string(), "mac".to_string()];
    for (_, prefix, _, versions) in PLATFORMS {
        out.extend(versions.iter().map(|(v, _)| format!("{prefix}{v}")));
    }
    out.extend(Family::all().iter().map(|f| f.to_string().to_lowercase()));
    out
}

impl DeployTarget {
    /// Parses tokens; each may hold several separated by commas or spaces (`ios17,a15,m1`).
    pub fn parse<S: AsRef<str>>(tokens: &[S]) -> Result<DeployTarget, TargetError> {
        let mut t = DeployTarget::default();
        let mut named = BTreeSet::new();
        let mut implied = BTreeSet::new();
        let words = tokens
            .iter()
            .flat_map(|s| {
                s.as_ref()
                    .split([',', ' '])
                    .map(|w| w.trim().to_ascii_lowercase())
                    .collect::<Vec<_>>()
            })
            .filter(|w| !w.is_empty());
        for w in words {
            if let Some(families) = shorthand(&w).or_else(|| family(&w).map(|f| vec![f])) {
                named.extend(families);
            } else if let Some(os) = os_version(&w) {
                implied.extend(implied_families(os));
                match t.os.iter_mut().find(|o| o.platform == os.platform) {
                    Some(prev) => *prev = (*prev).min(os),
                    None => t.os.push(os),
                }
            } else {
                return Err(TargetError {
                    suggestion: suggestion(&w),
                    token: w,
                });
            }
            if !t.tokens.contains(&w) {
                t.tokens.push(w);
            }
        }
        t.families = if named.is_empty() { implied } else { named };
        Ok(t)
    }

    /// The oldest iOS-equivalent level among the OS versions given (`None`: no OS given).
    pub fn min_level(&self) -> Option<u32> {
        self.os.iter().map(|o| o.ios_level()).min()
    }

    /// "iOS 17 / macOS 14": the OS versions given.
    pub fn os_text(&self) -> String {
        if self.os.is_empty() {
            return "not given".to_string();
        }
        self.os
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" / ")
    }

    /// The run's target as a model of `program` is loaded under it: its compute units as that
    /// program's runtime honours them ([`ComputeUnits::for_program`]); `None` stays `None`.
    pub fn for_program(
        run: Option<&DeployTarget>,
        program: ProgramLanguage,
    ) -> Option<std::borrow::Cow<'_, DeployTarget>> {
        let t = run?;
        let units = match program {
            ProgramLanguage::Mil => t.units,
            ProgramLanguage::Coreai => t.units.for_core_ai(),
        };
        Some(if units == t.units {
            std::borrow::Cow::Borrowed(t)
        } else {
            std::borrow::Cow::Owned(DeployTarget { units, ..t.clone() })
        })
    }

    /// The run's target with these compute units: `None` when there is neither a target nor a
    /// setting other than the default (every family, any OS, every unit).
    pub fn with_units(target: Option<DeployTarget>, units: ComputeUnits) -> Option<DeployTarget> {
        match target {
            None if units == ComputeUnits::default() => None,
            t => Some(DeployTarget {
                units,
                ..t.unwrap_or_default()
            }),
        }
    }

    /// True when `--target` tokens were given (not only compute units).
    pub fn is_given(&self) -> bool {
        !self.tokens.is_empty()
    }

    /// The tokens as given, comma-separated (`ios17,a15`).
    pub fn text(&self) -> String {
        self.tokens.join(",")
    }
}

impl fmt::Display for DeployTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

/// The families a `target:` list item names: a family or `iphone` / `mac`.
pub fn families_of(w: &str) -> Option<Vec<Family>> {
    let w = w.to_ascii_lowercase();
    shorthand(&w).or_else(|| family(&w).map(|f| vec![f]))
}

/// The family tokens and shorthands.
pub fn known_families() -> Vec<String> {
    let mut out = vec!["iphone".to_string(), "mac".to_string()];
    out.extend(Family::all().iter().map(|f| f.to_string().to_lowercase()));
    out
}

/// The iOS-equivalent level of an opset (`ios18`, `CoreML8`) or an OS token (`macos15`).
pub fn os_level_of(w: &str) -> Option<u32> {
    let lower = w.to_ascii_lowercase();
    os_version(&lower)
        .map(OsVersion::ios_level)
        .or_else(|| crate::os_level::opset_number(&lower).map(opset_level))
}

/// The closest known token, else the versions of the platform the token starts with.
fn suggestion(w: &str) -> String {
    let known = known_tokens();
    let close = did_you_mean(w, known.iter().map(String::as_str));
    if !close.is_empty() {
        return close;
    }
    let letters: String = w.chars().take_while(char::is_ascii_alphabetic).collect();
    let same: Vec<String> = known
        .iter()
        .filter(|k| {
            k.starts_with(&letters)
                && k[letters.len()..].chars().all(|c| c.is_ascii_digit())
                && !letters.is_empty()
        })
        .map(|k| format!("`{k}`"))
        .collect();
    if same.is_empty() {
        String::new()
    } else {
        format!("; did you mean one of {}?", same.join(", "))
    }
}

fn shorthand(w: &str) -> Option<Vec<Family>> {
    let all = Family::all();
    match w {
        "iphone" => Some(all.into_iter().filter(|f| f.is_a()).collect()),
        "mac" => Some(all.into_iter().filter(|f| !f.is_a()).collect()),
        _ => None,
    }
}

/// `a15` or `m3`.
pub fn family(w: &str) -> Option<Family> {
    let (kind, n) = w.split_at_checked(1)?;
    let n: u8 = n.parse().ok()?;
    let f = match kind {
        "a" | "A" => Family::A(n),
        "m" | "M" => Family::M(n),
        _ => return None,
    };
    Family::all().contains(&f).then_some(f)
}

/// `ios17`, `macos26.4`: an OS version of a known platform and major version.
pub fn os_version(w: &str) -> Option<OsVersion> {
    PLATFORMS
        .iter()
        .find_map(|(platform, prefix, _, versions)| {
            let rest = w.strip_prefix(prefix)?;
            let (major, minor) = match rest.split_once('.') {
                Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
                None => (rest.parse().ok()?, 0),
            };
            versions
                .iter()
                .any(|(v, _)| *v == major)
                .then_some(OsVersion {
                    platform: *platform,
                    major,
                    minor,
                })
        })
}

fn implied_families(os: OsVersion) -> Vec<Family> {
    let all = Family::all();
    match os.platform {
        // iOS 26 dropped the A12 phones.
        Platform::Ios | Platform::Tvos => all
            .into_iter()
            .filter(|f| f.is_a() && !(os.ios_level() >= 26 && *f == Family::A(12)))
            .collect(),
        Platform::Macos | Platform::Visionos => all.into_iter().filter(|f| !f.is_a()).collect(),
        Platform::Watchos => Vec::new(),
    }
}

/// "A13–A15 (iPhone 11–14) and M1–M3": consecutive families as ranges, A-series with phones.
pub fn families_text(families: &BTreeSet<Family>) -> String {
    if families.is_empty() {
        return "every chip family".to_string();
    }
    let mut runs: Vec<(Family, Family)> = Vec::new();
    for &f in families {
        match runs.last_mut() {
            Some((_, last)) if last.is_a() == f.is_a() && last.number() + 1 == f.number() => {
                *last = f
            }
            _ => runs.push((f, f)),
        }
    }
    let parts: Vec<String> = runs
        .iter()
        .map(|&(lo, hi)| {
            let chips = if lo == hi {
                lo.to_string()
            } else {
                format!("{lo}–{hi}")
            };
            match (lo.phones(), hi.phones()) {
                (Some((first, _)), Some((_, last))) if first == last => {
                    format!("{chips} (iPhone {first})")
                }
                (Some((first, _)), Some((_, last))) => format!("{chips} (iPhone {first}–{last})"),
                _ => chips,
            }
        })
        .collect();
    match parts.as_slice() {
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
        [] => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_and_families() {
        let t = DeployTarget::parse(&["ios17,a15", "m1"]).unwrap();
        assert_eq!(t.min_level(), Some(17));
        assert_eq!(t.os_text(), "iOS 17");
        assert_eq!(
            t.families,
            [Family::A(15), Family::M(1)].into_iter().collect()
        );
        let mac = DeployTarget::parse(&["macos14"]).unwrap();
        assert_eq!(mac.min_level(), Some(17));
        assert!(mac.families.iter().all(|f| !f.is_a()));
        assert_eq!(mac.families.len(), 5);
        let both = DeployTarget::parse(&["ios18 macos14"]).unwrap();
        assert_eq!(both.min_level(), Some(17), "the oldest of the two");
        assert_eq!(both.families.len(), 13);
        assert_eq!(
            DeployTarget::parse(&["ios26"]).unwrap().families.len(),
            7,
            "iOS 26 needs A13+"
        );
        let minor = DeployTarget::parse(&["ios17.4"]).unwrap();
        assert_eq!(minor.os_text(), "iOS 17.4");
    }

    #[test]
    fn unknown_tokens_suggest() {
        let e = DeployTarget::parse(&["ios71"]).unwrap_err();
        assert_eq!(e.token, "ios71");
        assert!(
            e.to_string().contains(
                "did you mean one of `ios15`, `ios16`, `ios17`, `ios18`, `ios26`, `ios27`?"
            ),
            "{e}"
        );
        let e = DeployTarget::parse(&["iphon"]).unwrap_err();
        assert!(e.to_string().contains("did you mean `iphone`?"), "{e}");
        let e = DeployTarget::parse(&["a20"]).unwrap_err();
        assert!(e.to_string().contains("unknown target `a20`"), "{e}");
        assert!(DeployTarget::parse(&["iphone", "mac"]).is_ok());
    }

    #[test]
    fn family_ranges_read_as_phones() {
        let t = DeployTarget::parse(&["a13,a14,a15,m1,m2,m3"]).unwrap();
        assert_eq!(
            families_text(&t.families),
            "A13–A15 (iPhone 11–14) and M1–M3"
        );
        let t = DeployTarget::parse(&["a17,m4"]).unwrap();
        assert_eq!(families_text(&t.families), "A17 (iPhone 15 Pro) and M4");
    }
}
