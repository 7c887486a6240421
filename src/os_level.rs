//! Core ML generations as OS levels: the iOS major version a specification version or an ML
//! program opset needs (FORMAT.md's version table), and how to name it ("iOS 18 / macOS 15").

/// The macOS release of each iOS-equivalent level.
const MACOS_OF_LEVEL: &[(u32, u32)] = &[(15, 12), (16, 13), (17, 14), (18, 15), (26, 26), (27, 27)];

/// "iOS 18 / macOS 15" for an iOS-equivalent level (`CoreML8` = 18; `CoreML9` = 26).
pub fn level_text(level: u32) -> String {
    match MACOS_OF_LEVEL.iter().find(|(l, _)| *l == level) {
        Some((_, mac)) => format!("iOS {level} / macOS {mac}"),
        None => format!("iOS {level}"),
    }
}

/// The iOS-equivalent level of an opset number (`ios18` = `CoreML8` = 18; `CoreML9`, which
/// follows 18, is iOS 26).
pub fn opset_level(opset: u32) -> u32 {
    if opset == 19 {
        26
    } else {
        opset
    }
}

/// The iOS-equivalent level of an opset name: `ios15`…`ios26` or `CoreML5`…`CoreML9`.
pub fn opset_name_level(opset: &str) -> Option<u32> {
    let lower = opset.to_ascii_lowercase();
    if let Some(n) = lower.strip_prefix("ios") {
        return n.parse().ok();
    }
    lower
        .strip_prefix("coreml")?
        .parse::<u32>()
        .ok()
        .map(|n| opset_level(n + 10))
}

/// The protobuf opset name of a level (`CoreML8` for 18, `CoreML9` for 26).
pub fn level_opset_name(level: u32) -> String {
    match level {
        26 => "CoreML9".to_string(),
        n => format!("CoreML{}", n.saturating_sub(10)),
    }
}

/// The iOS-equivalent level a `specificationVersion` needs (FORMAT.md's version table).
pub fn spec_version_level(spec: i64) -> Option<u32> {
    Some(match spec {
        ..=0 => return None,
        1 | 2 => 11,
        3 => 12,
        4 => 13,
        5 => 14,
        6 => 15,
        7 => 16,
        8 => 17,
        9 => 18,
        _ => 26,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels() {
        assert_eq!(level_text(18), "iOS 18 / macOS 15");
        assert_eq!(level_text(26), "iOS 26 / macOS 26");
        assert_eq!(opset_name_level("CoreML8"), Some(18));
        assert_eq!(opset_name_level("CoreML9"), Some(26));
        assert_eq!(opset_name_level("ios17"), Some(17));
        assert_eq!(level_opset_name(18), "CoreML8");
        assert_eq!(level_opset_name(26), "CoreML9");
        assert_eq!(spec_version_level(9), Some(18));
        assert_eq!(spec_version_level(10), Some(26));
    }
}
