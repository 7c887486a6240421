//! A message as the decoders see it: the bytes of each time it occurs in its parent, in file
//! order (protobuf merges a non-repeated message field that occurs more than once: the result is
//! that of reading the occurrences one after another), and the budget of its fields.
//!
//! Fields are read straight from those bytes each time a decoder asks for them; nothing is copied.

use super::cursor::{nested, Cursor, Field, WireError};
use super::Fault;

/// The occurrences of one message.
#[derive(Clone, Debug)]
enum Parts<'a> {
    /// Absent: the message's defaults.
    None,
    /// Once (what writers write).
    One(&'a [u8]),
    /// More than once: merged.
    Many(Vec<&'a [u8]>),
}

/// One message, possibly merged from several occurrences.
#[derive(Clone, Debug)]
pub(crate) struct Msg<'a> {
    parts: Parts<'a>,
    budget: u32,
}

impl<'a> Msg<'a> {
    /// The message `bytes`, whose fields have `budget` levels left.
    pub(crate) fn new(bytes: &'a [u8], budget: u32) -> Msg<'a> {
        Msg {
            parts: Parts::One(bytes),
            budget,
        }
    }

    /// A message with every field at its default (an absent map value).
    pub(crate) fn empty(budget: u32) -> Msg<'a> {
        Msg {
            parts: Parts::None,
            budget,
        }
    }

    /// The fields of a message nested in this one, given by field `f`: refused at the recursion
    /// limit or when `f` is not length-delimited.
    pub(crate) fn child(&self, f: &Field<'a>) -> Result<Msg<'a>, Fault> {
        Ok(Msg::new(f.bytes()?, nested(self.budget)?))
    }

    /// An absent message nested in this one: every field at its default.
    pub(crate) fn empty_child(&self) -> Msg<'a> {
        Msg::empty(self.budget.saturating_sub(1))
    }

    /// Merges one more occurrence into this message.
    pub(crate) fn merge_occurrence(&mut self, bytes: &'a [u8]) {
        self.parts = match std::mem::replace(&mut self.parts, Parts::None) {
            Parts::None => Parts::One(bytes),
            Parts::One(first) => Parts::Many(vec![first, bytes]),
            Parts::Many(mut all) => {
                all.push(bytes);
                Parts::Many(all)
            }
        };
    }

    fn parts(&self) -> &[&'a [u8]] {
        match &self.parts {
            Parts::None => &[],
            Parts::One(b) => std::slice::from_ref(b),
            Parts::Many(all) => all,
        }
    }

    /// Every field, in file order.
    pub(crate) fn fields(&self) -> Fields<'_, 'a> {
        Fields {
            parts: self.parts(),
            cursor: Cursor::new(&[], self.budget),
            budget: self.budget,
            failed: false,
        }
    }

    /// Calls `each` with every occurrence of field `number`, in file order.
    #[inline]
    pub(crate) fn each(
        &self,
        number: u32,
        mut each: impl FnMut(Field<'a>) -> Result<(), Fault>,
    ) -> Result<(), Fault> {
        for f in self.fields() {
            let f = f?;
            if f.number == number {
                each(f)?;
            }
        }
        Ok(())
    }

    /// Calls `each` with every occurrence of the message field `number`, in file order.
    #[inline]
    pub(crate) fn each_message(
        &self,
        number: u32,
        mut each: impl FnMut(Msg<'a>) -> Result<(), Fault>,
    ) -> Result<(), Fault> {
        self.each(number, |f| each(self.child(&f)?))
    }

    /// The non-repeated `bytes`/`string` field `number`: its last occurrence, empty when absent.
    pub(crate) fn bytes(&self, number: u32) -> Result<&'a [u8], Fault> {
        let mut last: &'a [u8] = &[];
        self.each(number, |f| {
            last = f.bytes()?;
            Ok(())
        })?;
        Ok(last)
    }

    /// The non-repeated varint field `number`: its last occurrence, 0 when absent.
    pub(crate) fn varint(&self, number: u32) -> Result<u64, Fault> {
        let mut last = 0;
        self.each(number, |f| {
            last = f.varint()?;
            Ok(())
        })?;
        Ok(last)
    }

    /// The non-repeated message field `number`, its occurrences merged; `None` when absent.
    pub(crate) fn message(&self, number: u32) -> Result<Option<Msg<'a>>, Fault> {
        let mut out: Option<Msg<'a>> = None;
        self.each(number, |f| {
            let bytes = f.bytes()?;
            match &mut out {
                Some(m) => m.merge_occurrence(bytes),
                None => out = Some(Msg::new(bytes, nested(self.budget)?)),
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// The oneof whose members are the message fields `numbers`: the member set last, and its
    /// message (a member set several times in a row is merged; another member in between starts
    /// it afresh). `None` when no member is set.
    pub(crate) fn oneof(&self, numbers: &[u32]) -> Result<Option<(u32, Msg<'a>)>, Fault> {
        let mut out: Option<(u32, Msg<'a>)> = None;
        for f in self.fields() {
            let f = f?;
            if !numbers.contains(&f.number) {
                continue;
            }
            let bytes = f.bytes()?;
            match &mut out {
                Some((n, m)) if *n == f.number => m.merge_occurrence(bytes),
                _ => out = Some((f.number, Msg::new(bytes, nested(self.budget)?))),
            }
        }
        Ok(out)
    }
}

/// The fields of a [`Msg`], over all its occurrences; stops after the first error.
pub(crate) struct Fields<'m, 'a> {
    parts: &'m [&'a [u8]],
    cursor: Cursor<'a>,
    budget: u32,
    failed: bool,
}

impl<'a> Iterator for Fields<'_, 'a> {
    type Item = Result<Field<'a>, WireError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        loop {
            match self.cursor.next_field() {
                Ok(Some(f)) => return Some(Ok(f)),
                Ok(None) => {
                    let (first, rest) = self.parts.split_first()?;
                    self.cursor = Cursor::new(first, self.budget);
                    self.parts = rest;
                }
                Err(e) => {
                    self.failed = true;
                    return Some(Err(e));
                }
            }
        }
    }
}
