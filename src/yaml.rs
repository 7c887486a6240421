//! The one place that touches the YAML crate: serde_yaml_bw, a maintained fork of the deprecated
//! serde_yaml with the same API. Rule files, the config and the rule data under `rules/` (op set,
//! placement table) read YAML through it. The YAML files built into the binary were transcoded to
//! JSON by `build.rs`, and their JSON is what gets parsed: the same document, several times cheaper
//! to read at every start. The built-in rules' JSON is split apart (`build.rs`) and handed to
//! [`from_transcoding`] by the rule loader; the other files' is found here from their text.

mod builtin {
    include!(concat!(env!("OUT_DIR"), "/builtin_yaml.rs"));
}

/// A YAML document that did not deserialize, with its position when known.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub(crate) struct YamlError {
    pub message: String,
    /// 1-based line and column.
    pub location: Option<(usize, usize)>,
    /// Byte offset of the problem.
    pub offset: Option<usize>,
}

/// Deserializes one YAML document.
pub(crate) fn from_str<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, YamlError> {
    // A built-in file that does not deserialize as JSON falls through to the YAML parser, whose
    // error carries the location.
    if let Some(parsed) = transcoded(text).and_then(from_transcoding) {
        return Ok(parsed);
    }
    // Not `serde_yaml_bw::from_str`: on an error it parses again into a `Value` to resolve merge
    // keys, and the error of that second pass has no location.
    T::deserialize(serde_yaml_bw::Deserializer::from_str_with_options(
        text,
        &options(),
    ))
    .map_err(|e| {
        let loc = e.location();
        YamlError {
            message: e.to_string(),
            location: loc.as_ref().map(|l| (l.line(), l.column())),
            offset: loc.map(|l| l.index()),
        }
    })
}

/// The deserializer's settings: its default limits on nesting and on alias expansion (100 times
/// the document's events), without the pre-scan of the whole text by a second parser (its
/// "budget"), which cost more than the parse itself of a rule file (about 57 k instructions each)
/// and guards against nothing those limits let through.
fn options() -> serde_yaml_bw::DeserializerOptions {
    serde_yaml_bw::DeserializerOptions {
        budget: None,
        ..serde_yaml_bw::DeserializerOptions::default()
    }
}

/// Deserializes a built-in document from its JSON transcoding (made by `build.rs`). `None` if it does
/// not deserialize: the caller then reads the YAML text with [`from_str`] for the located error.
pub(crate) fn from_transcoding<T: serde::de::DeserializeOwned>(json: &str) -> Option<T> {
    serde_json::from_str(json).ok()
}

/// The JSON a YAML document reads as (what `build.rs` makes of the built-in files), for a cache
/// of parses; `None` when it is not valid YAML or holds a value JSON has no form for.
pub(crate) fn to_json(text: &str) -> Option<String> {
    from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| serde_json::to_string(&v).ok())
}

/// The JSON transcoding of `text` if it is one of the YAML files built into the binary.
fn transcoded(text: &str) -> Option<&'static str> {
    let i = builtin::TRANSCODED
        .binary_search_by(|(yaml, _)| (*yaml).cmp(text))
        .ok()?;
    builtin::TRANSCODED.get(i).map(|(_, json)| *json)
}

/// The byte range of the key at `path` (mapping keys, list items as decimal indices) in a
/// block-style YAML document, found by indentation. Falls back to the deepest key found on the way.
pub(crate) fn locate(text: &str, path: &[String]) -> Option<(usize, usize)> {
    let mut lines = Vec::new();
    let mut offset = 0usize;
    for line in text.split_inclusive('\n') {
        lines.push((offset, line.trim_end_matches(['\n', '\r'])));
        offset += line.len();
    }
    let indent_of = |l: &str| (l.len() - l.trim_start().len()) as isize;
    let mut best: Option<(usize, usize)> = None;
    let mut start = 0usize;
    let mut parent_indent: isize = -1;
    for seg in path {
        let mut found = None;
        if let Ok(index) = seg.parse::<usize>() {
            // The index-th `- ` item at the first indentation seen below the parent key.
            let mut count = 0usize;
            let mut item_indent = None;
            for (i, &(off, line)) in lines.iter().enumerate().skip(start + 1) {
                let t = line.trim_start();
                if t.is_empty() || t.starts_with('#') {
                    continue;
                }
                let ind = indent_of(line);
                if ind < parent_indent || (ind == parent_indent && !t.starts_with('-')) {
                    break;
                }
                if t.starts_with("- ") || t == "-" {
                    let ii = *item_indent.get_or_insert(ind);
                    if ind == ii {
                        if count == index {
                            found = Some((i, off + ind as usize, 1, ind + 1));
                            break;
                        }
                        count += 1;
                    }
                }
            }
        } else if let Some(at) = best.and_then(|(off, len)| flow_key(text, off + len, seg)) {
            // A key of a flow mapping on the line of its parent (`output: { dim: … }`).
            found = Some((start, at, seg.len(), parent_indent));
        } else {
            let first = if best.is_none() { 0 } else { start };
            for (i, &(off, line)) in lines.iter().enumerate().skip(first) {
                let t = line.trim_start();
                if t.is_empty() || t.starts_with('#') {
                    continue;
                }
                let mut ind = indent_of(line);
                let mut body = t;
                // `- key:` opens a mapping inside a list item.
                while let Some(rest) = body.strip_prefix("- ") {
                    ind += 2;
                    body = rest.trim_start();
                }
                if best.is_some() && i > start && ind <= parent_indent {
                    break;
                }
                let key = body
                    .split(':')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .trim_matches('"');
                if key == seg && body.contains(':') {
                    let key_off = off + (line.len() - body.len());
                    found = Some((i, key_off, seg.len(), ind));
                    break;
                }
            }
        }
        let Some((line_idx, off, len, ind)) = found else {
            break;
        };
        best = Some((off, len));
        start = line_idx;
        parent_indent = ind;
    }
    best
}

/// The offset of key `key` of a flow mapping (`{ key: …`, `, key: …`) between `from` and the end
/// of its line.
fn flow_key(text: &str, from: usize, key: &str) -> Option<usize> {
    let line = text.get(from..)?.split('\n').next()?;
    let mut search = 0;
    while let Some(i) = line.get(search..)?.find(key) {
        let at = search + i;
        let before = line[..at].trim_end_matches([' ', '"', '\'']);
        let after = line[at + key.len()..].trim_start_matches(['"', '\'']);
        if (before.ends_with('{') || before.ends_with(',')) && after.trim_start().starts_with(':') {
            return Some(from + at);
        }
        search = at + key.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    fn path(p: &[&str]) -> Vec<String> {
        p.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn every_built_in_file_reads_the_same_from_its_transcoding() {
        assert!(
            builtin::TRANSCODED.len() >= 2,
            "rules/ has the shared fragments and the placement table"
        );
        for (yaml, json) in builtin::TRANSCODED {
            let from_yaml: serde_json::Value =
                serde_json::Value::deserialize(serde_yaml_bw::Deserializer::from_str(yaml))
                    .unwrap();
            assert_eq!(transcoded(yaml), Some(*json));
            assert_eq!(from_str::<serde_json::Value>(yaml).unwrap(), from_yaml);
        }
        assert_eq!(transcoded("id: not-built-in\n"), None);
    }

    #[test]
    fn an_alias_bomb_is_refused_not_expanded() {
        // Nine levels of nine aliases: 9^9 strings if expanded.
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let p = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        let err = from_str::<serde_json::Value>(&text).unwrap_err();
        assert!(err.message.contains("repetition limit"), "{}", err.message);
    }

    #[test]
    fn syntax_errors_carry_an_offset() {
        let err = from_str::<std::collections::BTreeMap<String, String>>("a: [1,\n").unwrap_err();
        assert!(err.offset.is_some());
    }

    #[test]
    fn a_key_given_twice_is_an_error_at_the_second() {
        let err = from_str::<std::collections::BTreeMap<String, String>>("a: 1\nb: 2\na: 3\n")
            .unwrap_err();
        assert!(err.message.contains("duplicate"), "{}", err.message);
        assert_eq!(err.location.map(|(line, _)| line), Some(3));
    }

    #[test]
    fn errors_of_the_typed_pass_keep_their_location() {
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Two {
            a: u32,
            b: Option<bool>,
        }
        let err = from_str::<Two>("a: 1\nc: x\n").unwrap_err();
        assert!(err.message.contains("unknown field `c`"), "{}", err.message);
        assert_eq!((err.location, err.offset), (Some((2, 1)), Some(5)));
    }

    #[test]
    fn keys_are_located_by_path() {
        let text = "id: x\nmatch:\n  state-write:\n    full: true\n  op: a\nmessage: m\n";
        let at = |p: &[&str]| locate(text, &path(p)).map(|(o, l)| &text[o..o + l]);
        assert_eq!(at(&["match", "state-write", "full"]), Some("full"));
        assert_eq!(at(&["message"]), Some("message"));
        let off = locate(text, &path(&["match", "op"])).expect("found").0;
        assert_eq!(&text[off..off + 2], "op");
        assert!(off > text.find("full").expect("full"));
    }

    #[test]
    fn list_items_are_located() {
        let text = "match:\n  any:\n    - op: a\n    - op: b\n      name: z\nname: top\n";
        let (o, l) = locate(text, &path(&["match", "any", "1", "name"])).expect("found");
        assert_eq!(&text[o..o + l], "name");
        assert_eq!(o, text.find("name: z").expect("present"));
    }
}
