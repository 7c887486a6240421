//! Tokens of text MIL, each with its byte span.

use crate::ir::Span;

/// A token kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    Ident,
    /// Integer, decimal or hexadecimal float, optionally signed.
    Number,
    /// A double-quoted string (span includes the quotes).
    Str,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Lt,
    Gt,
    Comma,
    Eq,
    Semi,
    Question,
    Arrow,
    Eof,
}

impl Tok {
    /// How the token is named in "expected …" messages.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Tok::Ident => "a name",
            Tok::Number => "a number",
            Tok::Str => "a string",
            Tok::LParen => "`(`",
            Tok::RParen => "`)`",
            Tok::LBracket => "`[`",
            Tok::RBracket => "`]`",
            Tok::LBrace => "`{`",
            Tok::RBrace => "`}`",
            Tok::Lt => "`<`",
            Tok::Gt => "`>`",
            Tok::Comma => "`,`",
            Tok::Eq => "`=`",
            Tok::Semi => "`;`",
            Tok::Question => "`?`",
            Tok::Arrow => "`->`",
            Tok::Eof => "end of file",
        }
    }
}

/// A token and where it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub kind: Tok,
    pub span: Span,
}

/// A character that starts no token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LexError {
    pub span: Span,
    pub message: String,
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'@'
}

/// Splits `text` into tokens; `//` comments and whitespace are skipped. Ends with one `Eof`.
pub(crate) fn lex(text: &str) -> Result<Vec<Token>, LexError> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(text.len() / 4);
    let mut i = 0;
    let at = |i: usize| bytes.get(i).copied().unwrap_or(0);
    while i < bytes.len() {
        let b = at(i);
        let start = i;
        let single = |kind| Some((kind, 1usize));
        let punct = match b {
            b'(' => single(Tok::LParen),
            b')' => single(Tok::RParen),
            b'[' => single(Tok::LBracket),
            b']' => single(Tok::RBracket),
            b'{' => single(Tok::LBrace),
            b'}' => single(Tok::RBrace),
            b'<' => single(Tok::Lt),
            b'>' => single(Tok::Gt),
            b',' => single(Tok::Comma),
            b'=' => single(Tok::Eq),
            b';' => single(Tok::Semi),
            b'?' => single(Tok::Question),
            b'-' if at(i + 1) == b'>' => Some((Tok::Arrow, 2)),
            _ => None,
        };
        if let Some((kind, len)) = punct {
            out.push(Token {
                kind,
                span: Span::new(start, start + len),
            });
            i += len;
            continue;
        }
        if b.is_ascii_whitespace() {
            i += 1;
        } else if b == b'/' && at(i + 1) == b'/' {
            while i < bytes.len() && at(i) != b'\n' {
                i += 1;
            }
        } else if b == b'"' {
            i += 1;
            loop {
                match at(i) {
                    0 if i >= bytes.len() => {
                        return Err(LexError {
                            span: Span::new(start, i),
                            message: "unterminated string".into(),
                        })
                    }
                    b'\\' => i += 2,
                    b'"' => {
                        i += 1;
                        break;
                    }
                    _ => i += 1,
                }
            }
            out.push(Token {
                kind: Tok::Str,
                span: Span::new(start, i.min(bytes.len())),
            });
        } else if b.is_ascii_digit()
            || ((b == b'-' || b == b'+')
                && (at(i + 1).is_ascii_digit() || is_ident_start(at(i + 1))))
        {
            let signed = b == b'-' || b == b'+';
            i += 1;
            if signed && is_ident_start(at(i)) {
                // `-inf`, `-nan`: a sign before a word.
                while i < bytes.len() && is_ident_char(at(i)) {
                    i += 1;
                }
            } else {
                let digits = if signed { start + 1 } else { start };
                let hex = at(digits) == b'0' && matches!(at(digits + 1), b'x' | b'X');
                while i < bytes.len() {
                    let c = at(i);
                    let sign_ok = (c == b'-' || c == b'+')
                        && match at(i - 1) {
                            b'p' | b'P' => true,
                            b'e' | b'E' => !hex,
                            _ => false,
                        };
                    if c.is_ascii_alphanumeric() || c == b'.' || sign_ok {
                        i += 1;
                    } else {
                        break;
                    }
                }
            }
            out.push(Token {
                kind: Tok::Number,
                span: Span::new(start, i),
            });
        } else if is_ident_start(b) {
            i += 1;
            while i < bytes.len() && is_ident_char(at(i)) {
                i += 1;
            }
            out.push(Token {
                kind: Tok::Ident,
                span: Span::new(start, i),
            });
        } else {
            let ch = text[i..].chars().next().unwrap_or('?');
            return Err(LexError {
                span: Span::new(i, i + ch.len_utf8()),
                message: format!("unexpected character {ch:?}"),
            });
        }
    }
    out.push(Token {
        kind: Tok::Eof,
        span: Span::new(bytes.len(), bytes.len()),
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<Tok> {
        lex(s).unwrap().into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn lexes_numbers_and_punctuation() {
        assert_eq!(
            kinds("x = f(a = -0x1.5p-17, b = 3) -> (y); // c"),
            vec![
                Tok::Ident,
                Tok::Eq,
                Tok::Ident,
                Tok::LParen,
                Tok::Ident,
                Tok::Eq,
                Tok::Number,
                Tok::Comma,
                Tok::Ident,
                Tok::Eq,
                Tok::Number,
                Tok::RParen,
                Tok::Arrow,
                Tok::LParen,
                Tok::Ident,
                Tok::RParen,
                Tok::Semi,
                Tok::Eof
            ]
        );
        let t = lex("-inf, 1e-3").unwrap();
        assert_eq!(t[0].kind, Tok::Number);
        assert_eq!(&"-inf, 1e-3"[t[0].span.start..t[0].span.end()], "-inf");
        assert_eq!(&"-inf, 1e-3"[t[2].span.start..t[2].span.end()], "1e-3");
    }

    #[test]
    fn strings_and_errors() {
        assert_eq!(kinds(r#""a\"b""#), vec![Tok::Str, Tok::Eof]);
        assert!(lex("\"open").is_err());
        assert!(lex("a $ b").is_err());
    }
}
