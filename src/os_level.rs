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

/// An opset name split into its spelling and number: `ios18` → (text, 18), `CoreML8` → (protobuf,
/// 8); case-insensitive, without a lower-case copy (`target:` asks once per node).
fn split_opset(opset: &str) -> Option<(bool, u32)> {
    let after = |prefix: &str| {
        opset
            .get(..prefix.len())
            .filter(|p| p.eq_ignore_ascii_case(prefix))
            .map(|_| &opset[prefix.len()..])
    };
    if let Some(n) = after("ios") {
        return n.parse().ok().map(|n| (true, n));
    }
    after("coreml")?.parse().ok().map(|n| (false, n))
}

/// The opset number of `ios15`…`ios18` / `CoreML5`…`CoreML9` (`ios18` = 18 = `CoreML8`,
/// `CoreML9` = 19).
pub fn opset_number(opset: &str) -> Option<u32> {
    match split_opset(opset)? {
        (true, n) => Some(n),
        (false, n) => n.checked_add(10),
    }
}

/// The iOS-equivalent level of an opset name: `ios15`…`ios26` or `CoreML5`…`CoreML9`.
pub fn opset_name_level(opset: &str) -> Option<u32> {
    match split_opset(opset)? {
        (true, n) => Some(n),
        (false, n) => n.checked_add(10).map(opset_level),
    }
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

    #[test]
    fn opset_names_in_both_spellings_and_any_case() {
        assert_eq!(opset_number("ios18"), Some(18));
        assert_eq!(opset_number("iOS17"), Some(17));
        assert_eq!(opset_number("CoreML8"), Some(18));
        assert_eq!(opset_number("coreml9"), Some(19));
        assert_eq!(opset_name_level("COREML9"), Some(26));
        for bad in ["", "ios", "macos15", "CoreMLx", "coreml4294967295"] {
            assert_eq!(opset_number(bad), None, "{bad}");
        }
        assert_eq!(opset_name_level("coreml4294967295"), None);
    }
}
