//! The characters a model's strings may hold that a terminal must not be shown as they are
//! (controls, bidi overrides, invisible characters): `report::model_text` escapes them; the
//! renderer of a protobuf program notes whether its text holds any while it writes it.

/// Whether `c` is shown escaped outside JSON and SARIF.
pub fn is_unsafe(c: char) -> bool {
    matches!(c,
        // C0 controls, DEL, C1 controls.
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        // Bidi embeddings, overrides and isolates (what rustc's `text_direction_codepoint_in_literal` flags),
        // the bidi marks.
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}'
        // Zero-width characters, the line and paragraph separators (line breaks in editors),
        // the byte-order mark, interlinear annotations.
        | '\u{200b}'..='\u{200d}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}')
}

/// Whether a text's lines hold a character shown escaped (its `\n` and `\r\n` line ends aside).
pub fn lines_need_escape(text: &str) -> bool {
    // Printable ASCII and `\n` are never escaped: only from the first other byte on are the
    // characters decoded (a rendered program is megabytes of ASCII).
    first_not_plain(text.as_bytes()).is_some_and(|first| chars_need_escape(&text[first..]))
}

/// Whether `text` is printable ASCII and `\n` only: no character in it is shown escaped.
pub fn is_plain(text: &str) -> bool {
    first_not_plain(text.as_bytes()).is_none()
}

/// [`lines_need_escape`] character by character.
fn chars_need_escape(text: &str) -> bool {
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => {}
            '\r' if chars.peek() == Some(&'\n') => {}
            c if is_unsafe(c) => return true,
            _ => {}
        }
    }
    false
}

/// Whether `b` is printable ASCII or `\n`.
fn plain(b: u8) -> bool {
    b == b'\n' || (b' '..=b'~').contains(&b)
}

/// The first byte of `bytes` that is not [`plain`], testing eight at a time.
fn first_not_plain(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Whether every byte of `w` is printable ASCII (`\n` fails it too: one word a line).
    let printable = |w: u64| {
        let del = w ^ (0x7f * ONES);
        w & HIGH == 0
            && w.wrapping_sub(0x20 * ONES) & !w & HIGH == 0
            && del.wrapping_sub(ONES) & !del & HIGH == 0
    };
    let mut words = bytes.chunks_exact(8);
    let mut at = 0;
    for word in words.by_ref() {
        let w = u64::from_le_bytes(word.try_into().unwrap_or_default());
        if !printable(w) {
            if let Some(i) = word.iter().position(|&b| !plain(b)) {
                return Some(at + i);
            }
        }
        at += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&b| !plain(b))
        .map(|i| at + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ascii_fast_path_agrees_with_the_scan_of_every_character() {
        let texts = [
            "",
            "plain\n",
            "a\r\nb",
            "a\rb",
            "\r",
            "\r\n",
            "tab\there",
            "del\u{7f}",
            "c1 \u{85}",
            "bidi \u{202e}x",
            "é ü ß",
            "zero\u{200b}width",
            "\n\u{feff}",
            "~ \u{1b}[0m",
        ];
        for text in texts {
            assert_eq!(lines_need_escape(text), chars_need_escape(text), "{text:?}");
            let long = format!("{}{text}", "x = relu(y)\n".repeat(100));
            assert_eq!(
                lines_need_escape(&long),
                chars_need_escape(&long),
                "{long:?}"
            );
        }
        // Every byte value at every place of an eight-byte word and of the remainder.
        for len in [8, 16, 21] {
            for at in 0..len {
                for b in 0..=0x7fu8 {
                    let mut bytes = vec![b'a'; len];
                    bytes[at] = b;
                    let text = std::str::from_utf8(&bytes).expect("ASCII");
                    let want = (b != b'\n' && !(b' '..=b'~').contains(&b)).then_some(at);
                    assert_eq!(
                        first_not_plain(text.as_bytes()),
                        want,
                        "{b:#x} at {at} of {len}"
                    );
                }
            }
        }
    }
}
