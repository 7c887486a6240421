//! Names in the IR (values, ops, parameters, op types, weight paths): shared strings, one allocation
//! per distinct name of a function. A value name is written once where it is defined and once per
//! use; with an [`Interner`] every use holds the definition's allocation.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use rustc_hash::FxHashMap;

/// An immutable name; cloning it copies a pointer.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name(Arc<str>);

impl Name {
    /// The name as a string slice.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for Name {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

// `Hash` and `Eq` are those of the `str`, so maps keyed by `Name` are searched with a `&str`.
impl Borrow<str> for Name {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Name {
        Name(Arc::from(s))
    }
}

impl From<String> for Name {
    fn from(s: String) -> Name {
        Name(Arc::from(s))
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        **self == *other.0
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

/// The names of one function: the same text always gives the same [`Name`]. Kept by their bytes,
/// so that a name read again from a file is found before its text is checked to be UTF-8.
#[derive(Debug, Default)]
pub struct Interner {
    names: FxHashMap<Box<[u8]>, Name>,
    /// Some name kept holds a line break.
    line_breaks: bool,
}

impl Interner {
    /// An interner with room for about `capacity` names.
    pub fn with_capacity(capacity: usize) -> Interner {
        Interner {
            names: FxHashMap::with_capacity_and_hasher(capacity, Default::default()),
            line_breaks: false,
        }
    }

    /// `name` itself when the interner has none equal to it yet, else the one it has.
    pub fn adopt(&mut self, name: Name) -> Name {
        match self.names.get(name.as_str().as_bytes()) {
            Some(known) => known.clone(),
            None => self.keep(name),
        }
    }

    /// The name of `text`: the one the interner has, else a new one it keeps (the one allocation
    /// of that text in the function).
    pub fn intern(&mut self, text: &str) -> Name {
        match self.names.get(text.as_bytes()) {
            Some(known) => known.clone(),
            None => self.keep(Name::from(text)),
        }
    }

    /// Keeps `name`, which the interner does not have yet.
    fn keep(&mut self, name: Name) -> Name {
        self.line_breaks |= holds_line_break(name.as_bytes());
        self.names
            .insert(name.as_str().as_bytes().into(), name.clone());
        name
    }

    /// Whether some name the interner keeps holds a line break.
    pub fn saw_line_break(&self) -> bool {
        self.line_breaks
    }

    /// [`Self::intern`] of the text `bytes` hold; `None` when they are not UTF-8 (checked only for
    /// a text the interner does not have yet).
    pub fn intern_utf8(&mut self, bytes: &[u8]) -> Option<Name> {
        if let Some(known) = self.names.get(bytes) {
            return Some(known.clone());
        }
        Some(self.intern(std::str::from_utf8(bytes).ok()?))
    }
}

/// Whether `bytes` hold a line break, eight at a time: names are short, and a library search
/// costs more in setting up than in searching them.
pub(crate) fn holds_line_break(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let words = bytes.chunks_exact(8);
    let rest = words.remainder();
    // A byte of `x` is zero where the word holds `\n`; `(x - ONES) & !x & HIGHS` is nonzero
    // exactly when some byte of `x` is zero.
    words.filter_map(|w| <[u8; 8]>::try_from(w).ok()).any(|w| {
        let x = u64::from_ne_bytes(w) ^ (ONES * u64::from(b'\n'));
        x.wrapping_sub(ONES) & !x & HIGHS != 0
    }) || rest.contains(&b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against a byte-by-byte search, on texts of every length to 40 made of the bytes around
    /// `\n` and the high bits (where a word-at-a-time test could carry or borrow wrongly).
    #[test]
    fn a_line_break_is_found_as_a_byte_search_finds_it() {
        const BYTES: &[u8] = &[
            0x00, 0x01, 0x09, 0x0A, 0x0B, 0x7F, 0x80, 0x8A, 0x8B, 0xFF, b'a',
        ];
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let (mut with, mut without) = (0, 0);
        for len in 0..40 {
            for _ in 0..500 {
                let text: Vec<u8> = (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        BYTES[(state % BYTES.len() as u64) as usize]
                    })
                    .collect();
                let expected = text.contains(&b'\n');
                assert_eq!(holds_line_break(&text), expected, "{text:?}");
                if expected {
                    with += 1;
                } else {
                    without += 1;
                }
            }
        }
        assert!(with > 1000 && without > 1000, "{with} / {without}");
    }

    #[test]
    fn interned_names_share_one_allocation() {
        let mut names = Interner::default();
        let a = names.adopt(Name::from("var_12"));
        let b = names.adopt(Name::from("var_12"));
        assert!(Arc::ptr_eq(&a.0, &b.0));
        assert!(!Arc::ptr_eq(&a.0, &names.adopt(Name::from("var_13")).0));
        assert!(Arc::ptr_eq(&a.0, &names.intern("var_12").0));
        let c = names.intern("var_14");
        assert!(Arc::ptr_eq(&c.0, &names.adopt(Name::from("var_14")).0));
        let d = names.intern_utf8(b"var_14").expect("UTF-8");
        assert!(Arc::ptr_eq(&c.0, &d.0));
        assert_eq!(names.intern_utf8(b"var_\xff"), None, "not UTF-8");
        let e = names.intern_utf8("vär".as_bytes()).expect("UTF-8");
        assert!(Arc::ptr_eq(&e.0, &names.intern("vär").0));
    }

    #[test]
    fn a_name_compares_and_hashes_as_its_text() {
        let mut map: rustc_hash::FxHashMap<Name, u32> = Default::default();
        map.insert(Name::from("x"), 1);
        assert_eq!(map.get("x"), Some(&1));
        assert_eq!(Name::from("x"), "x");
        assert_eq!(
            format!("{}/{:?}", Name::from("x"), Name::from("x")),
            "x/\"x\""
        );
    }
}
