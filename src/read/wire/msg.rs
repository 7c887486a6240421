//! A message as the decoders see it: the bytes of each time it occurs in its parent, in file
//! order (protobuf merges a non-repeated message field that occurs more than once: the result is
//! that of reading the occurrences one after another), and the budget of its fields.
//!
//! A decoder reads a message once into a [`View`]: every field checked (a known field's wire type,
//! an unknown field's recursion budget) and, per field number, how many times it occurs and its last
//! value. Fields that occur once are then read from the view; a field that occurs more than once is
//! read again from the bytes in file order. Nothing is copied.

use super::cursor::{nested, Cursor, Field, Value, WireError, WireType};
use super::fields::{Kind, Message, MAX_FIELD_NUMBER};
use super::validate::validate;
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

    /// The message's bytes when it occurs once.
    pub(crate) fn only_part(&self) -> Option<&'a [u8]> {
        match self.parts {
            Parts::One(b) => Some(b),
            _ => None,
        }
    }

    /// The recursion budget of the message's fields.
    pub(crate) fn budget(&self) -> u32 {
        self.budget
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

    /// Checks every occurrence of the message as a `message`, as prost decodes it, for a message
    /// that is not lowered.
    pub(crate) fn validate(&self, message: Message) -> Result<(), Fault> {
        self.parts()
            .iter()
            .try_for_each(|p| Ok(validate(p, message, self.budget)?))
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

const SLOTS: usize = MAX_FIELD_NUMBER as usize + 1;

/// A message read once: its fields checked, and per field number how many times it occurs (up to
/// 255) and its last value.
pub(crate) struct View<'m, 'a> {
    msg: &'m Msg<'a>,
    message: Message,
    counts: [u8; SLOTS],
    last: [Value<'a>; SLOTS],
}

/// Refuses a known field written with another wire type than its declaration's.
#[inline]
fn check_wire_type(f: &Field<'_>, kind: Kind) -> Result<(), WireError> {
    let expected = match (kind, f.value) {
        (Kind::Varint, Value::Varint(_))
        | (Kind::Bytes | Kind::Message(_), Value::LengthDelimited(_))
        | (
            Kind::PackedVarint | Kind::PackedFixed32 | Kind::PackedFixed64,
            Value::LengthDelimited(_),
        )
        | (Kind::PackedVarint, Value::Varint(_))
        | (Kind::PackedFixed32, Value::ThirtyTwoBit(_))
        | (Kind::PackedFixed64, Value::SixtyFourBit(_)) => return Ok(()),
        (Kind::Varint | Kind::PackedVarint, _) => WireType::Varint,
        (Kind::PackedFixed32, _) => WireType::ThirtyTwoBit,
        (Kind::PackedFixed64, _) => WireType::SixtyFourBit,
        (Kind::Bytes | Kind::Message(_), _) => WireType::LengthDelimited,
    };
    Err(WireError::UnexpectedWireType {
        actual: f.wire_type(),
        expected,
    })
}

impl<'a> Msg<'a> {
    /// Reads the message, a `message`, once: every field is checked as prost would (known fields
    /// of their declared wire type, unknown fields skipped within the recursion budget).
    #[inline(always)]
    pub(crate) fn view(&self, message: Message) -> Result<View<'_, 'a>, Fault> {
        // Built in the caller's frame, then filled: a view is too large to return by copy cheaply.
        let mut view = View {
            msg: self,
            message,
            counts: [0; SLOTS],
            last: [Value::Group; SLOTS],
        };
        view.scan()?;
        Ok(view)
    }
}

/// One field number of a [`View`].
#[derive(Clone, Copy)]
struct Slot<'a> {
    count: u32,
    last: Value<'a>,
}

impl<'a> Msg<'a> {
    /// Reads a `message` whose one declared field is `number` (a list: `Argument.arguments`,
    /// `TupleValue.values`, …) in one pass: every field checked as [`Msg::view`] checks it, and
    /// `each` called with each occurrence of `number`, in file order.
    pub(crate) fn each_of(
        &self,
        message: Message,
        number: u32,
        mut each: impl FnMut(Field<'a>) -> Result<(), Fault>,
    ) -> Result<(), Fault> {
        debug_assert!(message.kind(number).is_some());
        for part in self.parts() {
            let mut c = Cursor::new(part, self.budget);
            while let Some(f) = c.next_field()? {
                let Some(kind) = message.kind(f.number) else {
                    c.unknown()?;
                    continue;
                };
                check_wire_type(&f, kind)?;
                if f.number == number {
                    each(f)?;
                }
            }
        }
        Ok(())
    }

    /// [`Msg::each_of`] for a list of messages: `each` gets each nested message.
    pub(crate) fn each_message_of(
        &self,
        message: Message,
        number: u32,
        mut each: impl FnMut(Msg<'a>) -> Result<(), Fault>,
    ) -> Result<(), Fault> {
        self.each_of(message, number, |f| each(self.child(&f)?))
    }
}

impl<'a> View<'_, 'a> {
    fn scan(&mut self) -> Result<(), Fault> {
        for part in self.msg.parts() {
            let mut c = Cursor::new(part, self.msg.budget);
            while let Some(f) = c.next_field()? {
                let Some(kind) = self.message.kind(f.number) else {
                    c.unknown()?;
                    continue;
                };
                check_wire_type(&f, kind)?;
                let n = f.number as usize;
                if let (Some(count), Some(last)) = (self.counts.get_mut(n), self.last.get_mut(n)) {
                    *count = count.saturating_add(1);
                    *last = f.value;
                }
            }
        }
        Ok(())
    }

    fn slot(&self, number: u32) -> Slot<'a> {
        let n = number as usize;
        Slot {
            count: self.counts.get(n).copied().unwrap_or(0).into(),
            last: self.last.get(n).copied().unwrap_or(Value::Group),
        }
    }

    /// How many times field `number` occurs (255 standing for 255 or more).
    pub(crate) fn count(&self, number: u32) -> u32 {
        self.slot(number).count
    }

    /// The non-repeated `bytes`/`string` field `number`: its last occurrence, empty when absent.
    #[inline]
    pub(crate) fn bytes(&self, number: u32) -> &'a [u8] {
        match self.slot(number).last {
            Value::LengthDelimited(b) => b,
            _ => &[],
        }
    }

    /// The non-repeated varint field `number`: its last occurrence, 0 when absent.
    #[inline]
    pub(crate) fn varint(&self, number: u32) -> u64 {
        match self.slot(number).last {
            Value::Varint(v) => v,
            _ => 0,
        }
    }

    /// The message nested in field `f` of this one.
    fn child(&self, payload: &'a [u8]) -> Result<Msg<'a>, Fault> {
        Ok(Msg::new(payload, nested(self.msg.budget)?))
    }

    /// The non-repeated message field `number`, its occurrences merged; `None` when absent.
    #[inline]
    pub(crate) fn message(&self, number: u32) -> Result<Option<Msg<'a>>, Fault> {
        let slot = self.slot(number);
        match (slot.count, slot.last) {
            (0, _) => Ok(None),
            (1, Value::LengthDelimited(b)) => self.child(b).map(Some),
            _ => self.msg.message(number),
        }
    }

    /// Calls `each` with every occurrence of field `number`, in file order.
    #[inline]
    pub(crate) fn each(
        &self,
        number: u32,
        mut each: impl FnMut(Field<'a>) -> Result<(), Fault>,
    ) -> Result<(), Fault> {
        let slot = self.slot(number);
        match slot.count {
            0 => Ok(()),
            1 => each(Field {
                number,
                value: slot.last,
            }),
            _ => self.msg.each(number, each),
        }
    }

    /// Calls `each` with every occurrence of the message field `number`, in file order.
    #[inline]
    pub(crate) fn each_message(
        &self,
        number: u32,
        mut each: impl FnMut(Msg<'a>) -> Result<(), Fault>,
    ) -> Result<(), Fault> {
        self.each(number, |f| each(self.child(f.bytes()?)?))
    }

    /// The oneof whose members are the message fields `numbers` (see [`Msg::oneof`]). When members
    /// occur more than once, the ones that lose are still checked, as prost decodes them.
    pub(crate) fn oneof(&self, numbers: &[u32]) -> Result<Option<(u32, Msg<'a>)>, Fault> {
        let mut total = 0;
        let mut only = None;
        for &n in numbers {
            let slot = self.slot(n);
            total += slot.count;
            if slot.count == 1 {
                only = Some((n, slot.last));
            }
        }
        match (total, only) {
            (0, _) => Ok(None),
            (1, Some((n, Value::LengthDelimited(b)))) => Ok(Some((n, self.child(b)?))),
            _ => {
                for &n in numbers {
                    self.validate_all(n)?;
                }
                self.msg.oneof(numbers)
            }
        }
    }

    /// Checks every occurrence of the message field `number` as prost would decode it, for parts
    /// of a message that are not lowered.
    pub(crate) fn validate_all(&self, number: u32) -> Result<(), Fault> {
        let Some(Kind::Message(inner)) = self.message.kind(number) else {
            return Ok(());
        };
        let budget = nested(self.msg.budget);
        self.each(number, |f| {
            Ok(validate(f.bytes()?, inner, budget.clone()?)?)
        })
    }
}
