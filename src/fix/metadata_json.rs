//! Pads a state's entry in `metadata.json` `stateSchema` by splicing the text, so every other byte of
//! the file stays as the compiler wrote it.
//!
//! The scanner below is hand-written because serde_json (which reads the file in
//! `read::metadata`) reports no byte offsets of the values it parses, and the splice needs the
//! exact range of each shape string; re-serializing instead would rewrite the whole file.

/// A JSON value with the byte range it occupies.
#[derive(Debug)]
enum Node {
    Object(Vec<(String, Node)>),
    Array(Vec<Node>),
    String {
        value: String,
        start: usize,
        end: usize,
    },
    Other,
}

struct Scanner<'a> {
    text: &'a str,
    pos: usize,
    depth: usize,
}

const MAX_DEPTH: usize = 64;

impl Scanner<'_> {
    fn ws(&mut self) {
        while let Some(c) = self.text.as_bytes().get(self.pos) {
            if c.is_ascii_whitespace() {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        self.ws();
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(format!("expected `{}` at byte {}", c as char, self.pos))
        }
    }

    fn value(&mut self) -> Result<Node, String> {
        self.ws();
        match self.peek() {
            Some(b'{') => {
                self.enter()?;
                self.pos += 1;
                let mut members = Vec::new();
                self.ws();
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                } else {
                    loop {
                        self.ws();
                        let key = match self.value()? {
                            Node::String { value, .. } => value,
                            _ => return Err(format!("object key expected at byte {}", self.pos)),
                        };
                        self.expect(b':')?;
                        members.push((key, self.value()?));
                        self.ws();
                        match self.peek() {
                            Some(b',') => self.pos += 1,
                            Some(b'}') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(format!("`,` or `}}` expected at byte {}", self.pos)),
                        }
                    }
                }
                self.depth -= 1;
                Ok(Node::Object(members))
            }
            Some(b'[') => {
                self.enter()?;
                self.pos += 1;
                let mut items = Vec::new();
                self.ws();
                if self.peek() == Some(b']') {
                    self.pos += 1;
                } else {
                    loop {
                        items.push(self.value()?);
                        self.ws();
                        match self.peek() {
                            Some(b',') => self.pos += 1,
                            Some(b']') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(format!("`,` or `]` expected at byte {}", self.pos)),
                        }
                    }
                }
                self.depth -= 1;
                Ok(Node::Array(items))
            }
            Some(b'"') => {
                let start = self.pos;
                self.pos += 1;
                loop {
                    match self.peek() {
                        None => return Err("unterminated string".into()),
                        Some(b'\\') => self.pos += 2,
                        Some(b'"') => {
                            self.pos += 1;
                            break;
                        }
                        Some(_) => self.pos += 1,
                    }
                }
                let raw = self.text.get(start..self.pos).ok_or("bad string")?;
                let value: String = serde_json::from_str(raw).map_err(|e| e.to_string())?;
                Ok(Node::String {
                    value,
                    start,
                    end: self.pos,
                })
            }
            Some(_) => {
                while let Some(c) = self.peek() {
                    if matches!(c, b',' | b'}' | b']') || c.is_ascii_whitespace() {
                        break;
                    }
                    self.pos += 1;
                }
                Ok(Node::Other)
            }
            None => Err("unexpected end of file".into()),
        }
    }

    fn enter(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err("nested too deeply".into());
        }
        Ok(())
    }
}

fn get<'n>(members: &'n [(String, Node)], key: &str) -> Option<&'n Node> {
    members.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn dims_text(dims: &[u64], sep: &str) -> String {
    dims.iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(sep)
}

/// Rewrites the `shape` (and the dimensions in `formattedType`) of `state`'s `stateSchema` entries.
/// Returns `Ok(None)` when no entry names the state, an error when the file is not the JSON the
/// compiler writes or an entry's shape is not `old`.
pub(crate) fn pad_state_schema(
    text: &str,
    state: &str,
    old: &[u64],
    new: &[u64],
) -> Result<Option<String>, String> {
    // Validate as JSON first so the scanner only ever sees well-formed text.
    serde_json::from_str::<serde_json::Value>(text).map_err(|e| e.to_string())?;
    let mut sc = Scanner {
        text,
        pos: 0,
        depth: 0,
    };
    let root = sc.value()?;
    let objects: Vec<&Vec<(String, Node)>> = match &root {
        Node::Array(items) => items
            .iter()
            .filter_map(|n| match n {
                Node::Object(m) => Some(m),
                _ => None,
            })
            .collect(),
        Node::Object(m) => vec![m],
        _ => return Err("top level is neither an array nor an object".into()),
    };
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for obj in objects {
        let Some(Node::Array(entries)) = get(obj, "stateSchema") else {
            continue;
        };
        for entry in entries {
            let Node::Object(m) = entry else { continue };
            if !matches!(get(m, "name"), Some(Node::String { value, .. }) if value == state) {
                continue;
            }
            if let Some(Node::String { value, start, end }) = get(m, "shape") {
                let want = format!("[{}]", dims_text(old, ", "));
                if *value != want {
                    return Err(format!(
                        "stateSchema shape of `{state}` is {value}, expected {want}"
                    ));
                }
                let new_value = format!("[{}]", dims_text(new, ", "));
                edits.push((
                    *start,
                    *end,
                    serde_json::to_string(&new_value).map_err(|e| e.to_string())?,
                ));
            }
            if let Some(Node::String { value, start, end }) = get(m, "formattedType") {
                let old_dims = dims_text(old, " × ");
                if value.contains(&old_dims) {
                    let replaced = value.replacen(&old_dims, &dims_text(new, " × "), 1);
                    // Keep the original escaping style: splice only the raw text of the dims.
                    let raw = text.get(*start..*end).ok_or("bad span")?;
                    let spliced = if raw.contains(&old_dims) {
                        raw.replacen(&old_dims, &dims_text(new, " × "), 1)
                    } else {
                        serde_json::to_string(&replaced).map_err(|e| e.to_string())?
                    };
                    edits.push((*start, *end, spliced));
                }
            }
        }
    }
    if edits.is_empty() {
        return Ok(None);
    }
    edits.sort_by_key(|e| e.0);
    let mut out = String::with_capacity(text.len() + 16);
    let mut at = 0;
    for (start, end, rep) in edits {
        out.push_str(text.get(at..start).ok_or("overlapping edits")?);
        out.push_str(&rep);
        at = end;
    }
    out.push_str(text.get(at..).unwrap_or(""));
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    const APPLE: &str = "[\n  {\n    \"stateSchema\" : [\n      {\n        \"formattedType\" : \"State (Float16 1 × 8 × 4)\",\n        \"shape\" : \"[1, 8, 4]\",\n        \"name\" : \"s\"\n      }\n    ],\n    \"inputSchema\" : [\n\n    ]\n  }\n]";

    #[test]
    fn pads_only_the_state_entry_and_keeps_the_rest() {
        let out = pad_state_schema(APPLE, "s", &[1, 8, 4], &[1, 9, 4])
            .unwrap()
            .unwrap();
        assert_eq!(
            out,
            APPLE
                .replace("[1, 8, 4]", "[1, 9, 4]")
                .replace("1 × 8 × 4", "1 × 9 × 4")
        );
    }

    #[test]
    fn other_states_and_bad_shapes() {
        assert_eq!(
            pad_state_schema(APPLE, "t", &[1, 8, 4], &[1, 9, 4]).unwrap(),
            None
        );
        assert!(pad_state_schema(APPLE, "s", &[1, 7, 4], &[1, 8, 4]).is_err());
        assert!(pad_state_schema("[{", "s", &[1], &[2]).is_err());
    }
}
