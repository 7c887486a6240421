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
        self.line_breaks |= memchr::memchr(b'\n', name.as_bytes()).is_some();
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

#[cfg(test)]
mod tests {
    use super::*;

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
