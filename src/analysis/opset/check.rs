//! One function checked against the op table: one pass over its ops in program order. Each op's
//! table entry is looked up once and its bindings matched to the version's parameters by index;
//! every op, parameter and literal is described as an entity whose properties the `mil-*` rules
//! test.
//!
//! Whether a rule of the run may select an entity depends only on what its cheap properties are
//! made of ([`Facts`]: the op's table version, the parameter, the bound value's element type,
//! state-ness, run-time dependence and type group, a literal's counts, ...), and a 32-layer model
//! repeats a few hundred of those thousands of times: the demand is asked once per facts and the
//! answer kept for the function. What costs a lookup or an inference (run-time dependence, the
//! inferred output type) is worked out only when a rule may select the entity whatever it is.

use super::infer::{infer, passed_through, InferCx};
use super::table::{opset_position, OpTable, OpVersion, OpsetPos, ParamKind, MAX_GROUPS, OPSETS};
use super::values::FunctionValues;
use super::ENTITY_KINDS;
use crate::analysis::entity::{
    kind_named, Entity, EntityDemand, EntityKind, Partial, Slot, MAX_PROPERTIES,
};
use crate::analysis::FunctionAnalysis;
use crate::ir::render::text_opset;
use crate::ir::{Arg, DType, Function, Literal, Name, Op, Payload, TensorType, ValueType};
use rustc_hash::FxHashMap;

/// A parameter binding as the checks see it: a named value or a literal (inline argument, or an
/// attribute such as `const.val`).
#[derive(Clone, Copy)]
enum Bound<'a> {
    Name(&'a str),
    Literal(&'a Literal),
}

impl<'a> Bound<'a> {
    fn of(arg: &'a Arg) -> Bound<'a> {
        match arg {
            Arg::Name(n) => Bound::Name(n),
            Arg::Value(lit) => Bound::Literal(lit),
        }
    }

    fn shown(&self) -> String {
        match self {
            Bound::Name(n) => format!("`{n}`"),
            Bound::Literal(_) => "an inline literal".to_string(),
        }
    }
}

/// What one parameter of an op binds: the arguments of an input, or an attribute's literal.
#[derive(Clone, Copy)]
enum Bindings<'a> {
    Args(&'a [Arg]),
    Attribute(&'a Literal),
}

impl<'a> Bindings<'a> {
    fn iter(self) -> impl Iterator<Item = Bound<'a>> {
        let (args, attribute) = match self {
            Bindings::Args(args) => (args, None),
            Bindings::Attribute(lit) => (&[][..], Some(Bound::Literal(lit))),
        };
        args.iter().map(Bound::of).chain(attribute)
    }
}

/// Every parameter binding of `op`: inputs in source order, then attributes.
fn bindings(op: &Op) -> impl Iterator<Item = (&Name, Bindings<'_>)> {
    let inputs = op.inputs.iter().map(|p| (&p.name, Bindings::Args(&p.args)));
    let attributes = op
        .attributes
        .iter()
        .map(|(k, lit)| (k, Bindings::Attribute(lit)));
    inputs.chain(attributes)
}

/// Where an entity about `op` of `f` is reported.
fn at_op(kind: &'static EntityKind, f: &Function, op: &Op) -> Entity {
    let mut e = Entity::new(kind);
    e.function = Some(f.name.clone());
    e.op = Some(op.display_name().to_string());
    e.op_order = Some(op.order);
    e.span = Some(op.span);
    e
}

/// The op-set kinds an op's entities are of.
const MIL_OP: &EntityKind = &ENTITY_KINDS[1];
const MIL_PARAMETER: &EntityKind = &ENTITY_KINDS[2];
const MIL_LITERAL: &EntityKind = &ENTITY_KINDS[3];

/// The slots of the properties set while an entity is described in part.
mod slot {
    use super::{Slot, MAX_PROPERTIES, MIL_LITERAL, MIL_OP, MIL_PARAMETER};

    pub const OP_TYPE: Slot = MIL_OP.slot("op-type");
    pub const TEXT_PROGRAM: Slot = MIL_OP.slot("text-program");
    pub const KNOWN: Slot = MIL_OP.slot("known");
    pub const AVAILABLE: Slot = MIL_OP.slot("available");
    pub const NEEDS_STATE_OPSET: Slot = MIL_OP.slot("needs-state-opset");
    pub const OUTPUT_AGREES: Slot = MIL_OP.slot("output-agrees");
    pub const DATA_FITS_STATE: Slot = MIL_OP.slot("data-fits-state");

    pub const PARAM: Slot = MIL_PARAMETER.slot("param");
    pub const BOUND: Slot = MIL_PARAMETER.slot("bound");
    pub const IN_SIGNATURE: Slot = MIL_PARAMETER.slot("in-signature");
    pub const REQUIRED: Slot = MIL_PARAMETER.slot("required");
    pub const MISSPELLED: Slot = MIL_PARAMETER.slot("misspelled");
    pub const MUST_BE_CONST: Slot = MIL_PARAMETER.slot("must-be-const");
    pub const TAKES: Slot = MIL_PARAMETER.slot("takes");
    pub const IS_STATE: Slot = MIL_PARAMETER.slot("is-state");
    pub const EXPECTS: Slot = MIL_PARAMETER.slot("expects");
    pub const RUNTIME_DATA: Slot = MIL_PARAMETER.slot("runtime-data");
    pub const DTYPE: Slot = MIL_PARAMETER.slot("dtype");
    pub const DTYPE_ACCEPTED: Slot = MIL_PARAMETER.slot("dtype-accepted");
    pub const DEFERRED: Slot = MIL_PARAMETER.slot("deferred");
    pub const GROUP_PARAM: Slot = MIL_PARAMETER.slot("group-param");
    pub const GROUP_DTYPE: Slot = MIL_PARAMETER.slot("group-dtype");

    pub const LITERAL_PARAM: Slot = MIL_LITERAL.slot("param");

    pub const ELEMENTS: Slot = MIL_LITERAL.slot("elements");
    pub const SHAPE_ELEMENTS: Slot = MIL_LITERAL.slot("shape-elements");

    // `start` sets the op type in the same slot whatever the kind.
    const _: () =
        assert!(MIL_PARAMETER.slot("op-type") == OP_TYPE && MIL_LITERAL.slot("op-type") == OP_TYPE);
    // A `Partial` has a slot for each property of its kind.
    const _: () = assert!(
        MIL_OP.properties.len() <= MAX_PROPERTIES
            && MIL_PARAMETER.properties.len() <= MAX_PROPERTIES
            && MIL_LITERAL.properties.len() <= MAX_PROPERTIES
    );
}

/// The properties of each kind that are set only once an entity is wanted (texts for messages),
/// as a mask of slots.
fn pending(kind: &EntityKind) -> u64 {
    const OP: u64 = MIL_OP.slots(&[
        "hint",
        "since",
        "since-target",
        "opset",
        "opset-target",
        "output",
        "declared",
        "inferred",
        "contradiction",
        "state-type",
        "data",
        "data-type",
    ]);
    const PARAMETER: u64 =
        MIL_PARAMETER.slots(&["hint", "value", "got", "source", "accepted-dtypes"]);
    const LITERAL: u64 = MIL_LITERAL.slots(&["type"]);
    match kind.name {
        "mil-op" => OP,
        "mil-parameter" => PARAMETER,
        "mil-literal" => LITERAL,
        _ => 0,
    }
}

/// The op-set entities of one function as they are described: each first in part (the cheap
/// properties, by slot), then made whole and located only when a rule of the run may select it.
struct Described<'a> {
    f: &'a Function,
    table: &'a OpTable,
    demand: &'a dyn EntityDemand,
    partial: Partial<'a>,
    /// The demand's answer for the facts of each [`Key`] asked about: a 14 k-op program has a few
    /// hundred different ones.
    answers: Answers,
    out: Vec<Entity>,
}

impl<'a> Described<'a> {
    fn new(f: &'a Function, table: &'a OpTable, demand: &'a dyn EntityDemand) -> Described<'a> {
        Described {
            f,
            table,
            demand,
            partial: Partial::new(MIL_OP),
            answers: Answers::default(),
            out: Vec::new(),
        }
    }

    /// Starts an entity of `kind` about `op`; its cheap properties are set on what this returns.
    fn start(&mut self, kind: &'static EntityKind, op: &'a Op) -> &mut Partial<'a> {
        self.partial.reset(kind);
        // `op-type` has the same slot in each kind.
        self.partial.set(slot::OP_TYPE, &op.op_type)
    }

    /// Makes the entity started last whole when a rule may select it: its location, its cheap
    /// properties, then the costly ones `rest` sets (the kind's [`pending`] properties).
    fn finish(&mut self, op: &Op, rest: impl FnOnce(&mut Entity)) {
        let kind = self.partial.kind();
        if !self.demand.may_select(&self.partial, pending(kind)) {
            return;
        }
        let mut e = at_op(kind, self.f, op);
        self.partial.describe(&mut e);
        rest(&mut e);
        self.out.push(e);
    }

    /// Describes the entity `facts` make of `op` in part; returns the slots still to come.
    fn describe(&mut self, facts: &Facts<'a>, op: &'a Op) -> u64 {
        let table = self.table;
        let p = self.start(facts.kind(), op);
        facts.describe(table, &op.op_type, p);
        facts.slots_to_come()
    }

    /// Whether a rule of the run may select the entity `facts` make of `op`: asked of the demand
    /// once per facts (by their [`Key`]), the answer kept for the rest of the function.
    fn wanted(&mut self, facts: Facts<'a>, op: &'a Op) -> bool {
        let key = facts.key();
        if let Some(answer) = key.and_then(|k| self.answers.get(k)) {
            return answer;
        }
        let to_come = self.describe(&facts, op);
        let answer = self
            .demand
            .may_select(&self.partial, pending(facts.kind()) | to_come);
        if let Some(k) = key {
            self.answers.insert(k, answer);
        }
        answer
    }

    /// Makes the entity `facts` make of `op` whole (a rule may select it: [`Self::wanted`]): its
    /// location, its cheap properties, then the costly ones `rest` sets.
    fn make(&mut self, facts: Facts<'a>, op: &'a Op, rest: impl FnOnce(&mut Entity)) {
        self.describe(&facts, op);
        let mut e = at_op(facts.kind(), self.f, op);
        self.partial.describe(&mut e);
        rest(&mut e);
        self.out.push(e);
    }
}

/// The demand's answers kept for a function, by [`Key`]: the one asked last at each of
/// [`Answers::PLACES`] places (a few bits of the key), in front of a hash map of them all.
struct Answers {
    recent: Vec<Option<(Key, bool)>>,
    all: FxHashMap<Key, bool>,
}

impl Default for Answers {
    fn default() -> Answers {
        Answers {
            recent: vec![None; Answers::PLACES],
            all: FxHashMap::default(),
        }
    }
}

impl Answers {
    const PLACES: usize = 1 << 10;

    fn get(&mut self, key: Key) -> Option<bool> {
        let place = key.place();
        if let Some((recent, answer)) = self.recent[place] {
            if recent == key {
                return Some(answer);
            }
        }
        let answer = *self.all.get(&key)?;
        self.recent[place] = Some((key, answer));
        Some(answer)
    }

    fn insert(&mut self, key: Key, answer: bool) {
        self.recent[key.place()] = Some((key, answer));
        self.all.insert(key, answer);
    }
}

/// A value known now, still to come (the entity is asked about without it, which spares working
/// it out when no rule may select the entity whatever it is), or absent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Staged {
    Absent,
    ToCome,
    Is(bool),
}

impl Staged {
    /// Sets `slot` on `p` when the value is known.
    fn set(self, p: &mut Partial<'_>, slot: Slot) {
        if let Staged::Is(b) = self {
            p.set(slot, b);
        }
    }

    /// Two bits.
    fn bits(self) -> u64 {
        match self {
            Staged::Absent => 0,
            Staged::ToCome => 1,
            Staged::Is(false) => 2,
            Staged::Is(true) => 3,
        }
    }

    /// `slot` as a mask when the value is still to come.
    fn to_come(self, slot: Slot) -> u64 {
        if self == Staged::ToCome {
            1 << slot
        } else {
            0
        }
    }
}

/// An op version, told from another by its address: each table entry owns its versions, so the
/// address names the op type and the function's opset as well as the parameters.
#[derive(Clone, Copy, Debug)]
struct VersionRef<'a>(&'a OpVersion);

impl VersionRef<'_> {
    fn address(self) -> u64 {
        std::ptr::from_ref(self.0) as usize as u64
    }
}

impl PartialEq for VersionRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for VersionRef<'_> {}

/// [`Facts`] as a few words, equal exactly when the facts are: an op version's address and its
/// other facts packed in bits, or a literal's texts by address and length (texts of the function,
/// which lives as long as the check: equal addresses and lengths are equal texts; equal texts at
/// other addresses only miss a kept answer).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    Version(u64, u64),
    Literal([u64; 6]),
}

impl Key {
    /// Its place among [`Answers::PLACES`]: the top bits of a multiplicative hash.
    fn place(&self) -> usize {
        const K: u64 = 0x9e37_79b9_7f4a_7c15;
        let folded = match self {
            Key::Version(address, bits) => address ^ bits.wrapping_mul(K),
            Key::Literal(words) => words.iter().fold(0, |h, w| (h ^ w).wrapping_mul(K)),
        };
        (folded.wrapping_mul(K) >> (64 - Answers::PLACES.trailing_zeros())) as usize
    }
}

/// What the cheap properties of one op-set entity are made of: [`Facts::describe`] reads nothing
/// else (but the op type, which `version` fixes), so the run's rules answer equal facts alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Facts<'a> {
    /// A binding of parameter `param` (an index into `version`'s parameters).
    Binding {
        version: VersionRef<'a>,
        param: usize,
        /// `None`: the bound value's type is not known.
        typed: Option<Typed>,
    },
    /// Parameter `param` of `version`, which the op leaves unbound.
    Unbound {
        version: VersionRef<'a>,
        param: usize,
        /// A misspelled binding stands for it.
        misspelled: bool,
    },
    /// An op its function's opset has (at `version`).
    Available {
        version: VersionRef<'a>,
        /// The program was read from text MIL.
        text: bool,
        /// The declared output type agrees with the inferred one.
        agrees: Staged,
        /// A state write: the data fits the state.
        fits: Option<bool>,
    },
    /// A tensor literal bound to `param` (a parameter or an attribute) of an op of `op_type`.
    Literal {
        op_type: &'a str,
        param: &'a str,
        elements: usize,
        shape_elements: u64,
    },
}

/// A binding whose value's type is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Typed {
    is_state: bool,
    /// The value depends on a function input's data at run time.
    runtime: Staged,
    /// The one tensor bound to a tensor parameter: its element type, and the earlier parameter of
    /// its type group (an index into the version's parameters) with that one's element type.
    tensor: Option<(DType, Option<(usize, DType)>)>,
}

/// A known element type in 5 bits (`None`: [`DType::Unknown`], whose facts are not kept).
fn dtype_bits(d: DType) -> Option<u64> {
    Some(match d {
        DType::Bool => 1,
        DType::String => 2,
        DType::Fp16 => 3,
        DType::Fp32 => 4,
        DType::Fp64 => 5,
        DType::Bf16 => 6,
        DType::Fp8E4M3Fn => 7,
        DType::Fp8E5M2 => 8,
        DType::Int4 => 9,
        DType::Int8 => 10,
        DType::Int16 => 11,
        DType::Int32 => 12,
        DType::Int64 => 13,
        DType::UInt1 => 14,
        DType::UInt2 => 15,
        DType::UInt3 => 16,
        DType::UInt4 => 17,
        DType::UInt6 => 18,
        DType::UInt8 => 19,
        DType::UInt16 => 20,
        DType::UInt32 => 21,
        DType::UInt64 => 22,
        DType::Unknown(_) => return None,
    })
}

/// A text as two words: its address and its length.
fn text_words(t: &str) -> [u64; 2] {
    [t.as_ptr() as usize as u64, t.len() as u64]
}

impl<'a> Facts<'a> {
    /// The facts as a [`Key`]; `None` for a binding of an unknown element type (asked afresh).
    fn key(&self) -> Option<Key> {
        // A parameter index is below 64 (`MAX_PARAMS`): 6 bits. The variant is in bits 0-1.
        match *self {
            Facts::Binding {
                version,
                param,
                typed,
            } => {
                let mut bits = (param as u64) << 2;
                if let Some(t) = typed {
                    bits |= 1 << 8 | u64::from(t.is_state) << 9 | t.runtime.bits() << 10;
                    if let Some((dtype, group)) = t.tensor {
                        bits |= 1 << 12 | dtype_bits(dtype)? << 13;
                        if let Some((other, other_dtype)) = group {
                            bits |= 1 << 18 | (other as u64) << 19 | dtype_bits(other_dtype)? << 25;
                        }
                    }
                }
                Some(Key::Version(version.address(), bits))
            }
            Facts::Unbound {
                version,
                param,
                misspelled,
            } => Some(Key::Version(
                version.address(),
                1 | (param as u64) << 2 | u64::from(misspelled) << 8,
            )),
            Facts::Available {
                version,
                text,
                agrees,
                fits,
            } => {
                let fits = fits.map_or(0, |f| 2 | u64::from(f));
                Some(Key::Version(
                    version.address(),
                    2 | u64::from(text) << 2 | agrees.bits() << 3 | fits << 5,
                ))
            }
            Facts::Literal {
                op_type,
                param,
                elements,
                shape_elements,
            } => {
                let ([a, b], [c, d]) = (text_words(op_type), text_words(param));
                Some(Key::Literal([a, b, c, d, elements as u64, shape_elements]))
            }
        }
    }

    /// The kind of the entity.
    fn kind(&self) -> &'static EntityKind {
        match self {
            Facts::Binding { .. } | Facts::Unbound { .. } => MIL_PARAMETER,
            Facts::Available { .. } => MIL_OP,
            Facts::Literal { .. } => MIL_LITERAL,
        }
    }

    /// The slots whose values are still to come.
    fn slots_to_come(&self) -> u64 {
        match self {
            Facts::Binding { typed: Some(t), .. } => t.runtime.to_come(slot::RUNTIME_DATA),
            Facts::Available { agrees, .. } => agrees.to_come(slot::OUTPUT_AGREES),
            _ => 0,
        }
    }

    /// Sets the cheap properties on `p` (started with the kind and the op type, `op_type`).
    fn describe(&self, table: &OpTable, op_type: &str, p: &mut Partial<'a>) {
        match *self {
            Facts::Binding {
                version: VersionRef(version),
                param,
                typed,
            } => {
                let spec = &version.params()[param];
                p.set(slot::BOUND, true)
                    .set(slot::IN_SIGNATURE, true)
                    .set(slot::REQUIRED, !spec.optional)
                    .set(slot::MUST_BE_CONST, spec.constant)
                    .set(slot::PARAM, spec.name.as_str())
                    .set(slot::TAKES, takes(spec.kind));
                let Some(t) = typed else { return };
                p.set(slot::IS_STATE, t.is_state).set(
                    slot::EXPECTS,
                    if spec.kind == ParamKind::State {
                        "a state"
                    } else {
                        "a tensor"
                    },
                );
                t.runtime.set(p, slot::RUNTIME_DATA);
                if let Some((dtype, group)) = t.tensor {
                    p.set(slot::DTYPE, dtype)
                        .set(slot::DTYPE_ACCEPTED, spec.accepts(dtype))
                        .set(
                            slot::DEFERRED,
                            table.deferred(op_type, &spec.name, dtype).is_some(),
                        );
                    if let Some((other, other_dtype)) = group {
                        p.set(slot::GROUP_PARAM, version.params()[other].name.as_str())
                            .set(slot::GROUP_DTYPE, other_dtype);
                    }
                }
            }
            Facts::Unbound {
                version: VersionRef(version),
                param,
                misspelled,
            } => {
                p.set(slot::BOUND, false)
                    .set(slot::IN_SIGNATURE, true)
                    .set(slot::REQUIRED, version.required() & (1 << param) != 0)
                    .set(slot::MISSPELLED, misspelled)
                    .set(slot::PARAM, version.params()[param].name.as_str());
            }
            Facts::Available {
                text, agrees, fits, ..
            } => {
                p.set(slot::TEXT_PROGRAM, text)
                    .set(slot::KNOWN, true)
                    .set(slot::AVAILABLE, true);
                agrees.set(p, slot::OUTPUT_AGREES);
                if let Some(fits) = fits {
                    p.set(slot::DATA_FITS_STATE, fits);
                }
            }
            Facts::Literal {
                param,
                elements,
                shape_elements,
                ..
            } => {
                p.set(slot::LITERAL_PARAM, param)
                    .set(slot::ELEMENTS, elements)
                    .set(slot::SHAPE_ELEMENTS, shape_elements);
            }
        }
    }
}

/// Every op-set entity of `f` that `demand` may select: the function, and for each op the op, its
/// parameters and its literals, as the op table sees them. `text`: the program was read from text
/// MIL. `analysis`: the function's analysis, when it was computed already.
pub(super) fn check_function(
    table: &OpTable,
    f: &Function,
    analysis: Option<&FunctionAnalysis>,
    text: bool,
    demand: &dyn EntityDemand,
) -> Vec<Entity> {
    let mut function = Entity::new(const { kind_named(ENTITY_KINDS, "mil-function") })
        .with("opset", f.opset.as_str())
        .with("known-opsets", OPSETS.join(", "));
    function.function = Some(f.name.clone());
    function.span = Some(f.span);
    let at = match opset_position(&f.opset) {
        OpsetPos::Known(i) => i,
        OpsetPos::NotDescribed => return vec![function.with("described", false)],
    };
    let old_opset_with_states = at + 1 < OPSETS.len() && f.inputs().any(|(_, i)| i.ty.is_state());
    let values = FunctionValues::new(f, analysis);
    let cx = InferCx { f, values: &values };
    let mut d = Described::new(f, table, demand);
    d.out.push(function.with("described", true));
    for (_, op) in f.ops() {
        literal_counts(op, &mut d);
        let Some(entry) = table.entry(&op.op_type) else {
            d.start(MIL_OP, op)
                .set(slot::TEXT_PROGRAM, text)
                .set(slot::KNOWN, false);
            d.finish(op, |e| {
                let hint = suggest(&op.op_type, table.op_names())
                    .map_or("no op of that name exists in any opset".to_string(), |s| {
                        format!("did you mean `{s}`?")
                    });
                e.set("hint", hint);
            });
            continue;
        };
        let Some(version) = entry.version(at) else {
            let since = entry.first_opset().unwrap_or("?");
            d.start(MIL_OP, op)
                .set(slot::TEXT_PROGRAM, text)
                .set(slot::KNOWN, true)
                .set(slot::AVAILABLE, false)
                .set(
                    slot::NEEDS_STATE_OPSET,
                    old_opset_with_states && Some(since) == OPSETS.last().copied(),
                );
            d.finish(op, |e| {
                e.set("since", since);
                e.set("since-target", target_name(since));
                e.set("opset", f.opset.as_str());
                e.set("opset-target", target_name(text_opset(&f.opset)));
            });
            continue;
        };
        check_params(&values, op, version, &mut d);
        let write = matches!(op.op_type.as_str(), "write_state" | "coreml_update_state")
            .then(|| write_type(f, op))
            .flatten();
        // The first output's declared type, when the table infers the op's: a type the op
        // passes on unchanged agrees at once; another is inferred only when a rule may select
        // the op whatever the answer.
        let declared = entry
            .inference()
            .and_then(|how| Some((how, declared_output(op)?)));
        let at_once = declared.is_some_and(|(how, (_, t))| passed_through(&cx, op, how) == Some(t));
        let available = |agrees| Facts::Available {
            version: VersionRef(version),
            text,
            agrees,
            fits: write.as_ref().map(|w| w.fits),
        };
        let to_infer = declared.filter(|_| !at_once);
        if to_infer.is_some() && !d.wanted(available(Staged::ToCome), op) {
            continue;
        }
        let disagreement = to_infer.and_then(|(how, (_, t))| disagreement(&cx, op, how, t));
        let facts = available(match declared {
            Some(_) => Staged::Is(disagreement.is_none()),
            None => Staged::Absent,
        });
        if !d.wanted(facts, op) {
            continue;
        }
        d.make(facts, op, |e| {
            if let Some((_, (name, declared))) = declared {
                e.set("output", name);
                e.set("declared", declared.to_string());
                if let Some((inferred, detail)) = disagreement {
                    e.set("inferred", inferred);
                    e.set("contradiction", detail);
                }
            }
            if let Some(w) = write {
                e.state = Some(w.state.to_string());
                e.set("state-type", w.state_type.to_string());
                e.set("data", w.data);
                e.set("data-type", w.data_type.to_string());
            }
        });
    }
    d.out
}

fn describe(ty: &ValueType) -> String {
    match ty {
        ValueType::Tensor(t) => t.to_string(),
        ValueType::State(inner) => match inner.tensor() {
            Some(t) => format!("state<{t}>"),
            None => "a state".to_string(),
        },
        ValueType::List { .. } => "a list".to_string(),
        ValueType::Tuple(_) => "a tuple".to_string(),
        ValueType::Dict { .. } => "a dict".to_string(),
        ValueType::Token => "a token".to_string(),
    }
}

/// The `mil-parameter` entities of `op`: each binding of a parameter (one the signature has or
/// not), then each parameter of the signature the op leaves unbound.
fn check_params<'a>(
    values: &FunctionValues<'a>,
    op: &'a Op,
    version: &'a OpVersion,
    d: &mut Described<'a>,
) {
    let params = version.params();
    let mut bound = 0u64;
    let mut unknown = 0usize;
    // The parameter of each binding, looked up once (of the first 16; the rest again below).
    let mut positions = [None; 16];
    for (k, (name, _)) in bindings(op).enumerate() {
        let at = version.position(name);
        if let Some(p) = positions.get_mut(k) {
            *p = at;
        }
        match at {
            Some(i) => bound |= 1 << i,
            None => unknown += 1,
        }
    }
    let missing = version.required() & !bound;
    let missing_names = || {
        params
            .iter()
            .enumerate()
            .filter(move |(i, _)| missing & (1 << i) != 0)
            .map(|(_, p)| p.name.as_str())
    };
    // A misspelled parameter stands for the closest name, or for the one required parameter left
    // out: that parameter is then `misspelled`, not simply missing.
    let mut meant: Vec<&str> = Vec::new();
    if unknown > 0 {
        let unknown: Vec<&Name> = bindings(op)
            .map(|(n, _)| n)
            .filter(|n| version.position(n).is_none())
            .collect();
        let missing: Vec<&str> = missing_names().collect();
        let known: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
        let one_unknown = unknown.len() == 1;
        for name in unknown {
            let guess = suggest(name, known.iter().copied()).or(match missing.as_slice() {
                [only] if one_unknown => Some(*only),
                _ => None,
            });
            let hint = match guess {
                Some(s) => format!("did you mean `{s}`?"),
                None if known.is_empty() => format!("`{}` takes no parameters", op.op_type),
                None => format!("`{}` takes {}", op.op_type, known.join(", ")),
            };
            meant.extend(guess);
            d.start(MIL_PARAMETER, op)
                .set(slot::BOUND, true)
                .set(slot::IN_SIGNATURE, false)
                .set(slot::PARAM, name);
            d.finish(op, |e| e.set("hint", hint));
        }
    }
    let mut groups = [None; MAX_GROUPS];
    for (k, (name, binds)) in bindings(op).enumerate() {
        let param = match positions.get(k) {
            Some(&at) => at,
            None => version.position(name),
        };
        if let Some(param) = param {
            check_binding(values, op, version, param, binds, &mut groups, d);
        }
    }
    for (i, p) in params.iter().enumerate() {
        if bound & (1 << i) == 0 {
            let facts = Facts::Unbound {
                version: VersionRef(version),
                param: i,
                misspelled: meant.contains(&p.name.as_str()),
            };
            if d.wanted(facts, op) {
                d.make(facts, op, |_| {});
            }
        }
    }
}

/// The type of a binding: the named value's, or the literal's.
fn bound_type<'a>(f: &'a Function, b: &Bound<'a>) -> Option<&'a ValueType> {
    match b {
        Bound::Name(n) => f.value_type(n),
        Bound::Literal(lit) => Some(&lit.ty),
    }
}

/// What a parameter of `kind` takes, as `mil-parameter`'s `takes` says it.
fn takes(kind: ParamKind) -> &'static str {
    match kind {
        ParamKind::Tensor => "tensor",
        ParamKind::State => "state",
        ParamKind::Tuple => "tuple",
        ParamKind::List => "list",
        ParamKind::Any => "any",
    }
}

/// One `mil-parameter` entity per binding of parameter `param` (an index into `version`'s
/// parameters). The element type is described for a parameter bound to one tensor; `group-param`
/// / `group-dtype` name the first parameter of its type group and that parameter's element type
/// (`groups`: the first of each group so far, by index, with its element type).
fn check_binding<'a>(
    values: &FunctionValues<'a>,
    op: &'a Op,
    version: &'a OpVersion,
    param: usize,
    binds: Bindings<'a>,
    groups: &mut [Option<(usize, DType)>; MAX_GROUPS],
    d: &mut Described<'a>,
) {
    let f = values.function();
    let spec = &version.params()[param];
    let single = binds.iter().nth(1).is_none();
    let version = VersionRef(version);
    for b in binds.iter() {
        let Some(ty) = bound_type(f, &b) else {
            let facts = Facts::Binding {
                version,
                param,
                typed: None,
            };
            if d.wanted(facts, op) {
                d.make(facts, op, |e| e.set("value", b.shown()));
            }
            continue;
        };
        let tensor = match (single, spec.kind, ty) {
            (true, ParamKind::Tensor, ValueType::Tensor(t)) => Some(t),
            _ => None,
        };
        let tensor_facts = tensor.map(|t| {
            let group = match (
                spec.accepts(t.dtype),
                spec.group.and_then(|g| groups.get_mut(g)),
            ) {
                (true, Some(slot)) => match *slot {
                    Some(first) => Some(first),
                    None => {
                        *slot = Some((param, t.dtype));
                        None
                    }
                },
                _ => None,
            };
            (t.dtype, group)
        });
        let typed = |runtime| Facts::Binding {
            version,
            param,
            typed: Some(Typed {
                is_state: ty.is_state(),
                runtime,
                tensor: tensor_facts,
            }),
        };
        // Run-time dependence is looked up only when a rule may select the binding whatever it is.
        let runtime = match b {
            Bound::Name(n) => {
                if !d.wanted(typed(Staged::ToCome), op) {
                    continue;
                }
                values.dependence(n).filter(|d| d.data)
            }
            Bound::Literal(_) => None,
        };
        let facts = typed(Staged::Is(runtime.is_some()));
        if !d.wanted(facts, op) {
            continue;
        }
        d.make(facts, op, |e| {
            e.set("value", b.shown());
            e.set("got", describe(ty));
            if let Some(dep) = runtime {
                e.set("source", dep.describe());
            }
            if tensor.is_some() {
                e.set("accepted-dtypes", spec.dtypes.join(", "));
            }
        });
    }
}

/// The name and declared type of `op`'s first output, when that is a tensor.
fn declared_output(op: &Op) -> Option<(&Name, &TensorType)> {
    let first = op.outputs.first()?;
    match &first.ty {
        ValueType::Tensor(t) => Some((&first.name, t)),
        _ => None,
    }
}

/// The type inferred for `op`'s first output and why `declared` contradicts it, when it does.
fn disagreement(
    cx: &InferCx<'_>,
    op: &Op,
    how: super::table::Inference,
    declared: &TensorType,
) -> Option<(String, String)> {
    match infer(cx, op, how) {
        Ok(Some(t)) => t.contradiction(declared).map(|why| (t.to_string(), why)),
        Ok(None) => None,
        Err(why) => Some(("no valid type".to_string(), why)),
    }
}

/// A state write: the state, its tensor type, the data written and its type, and whether the
/// data fits the state.
struct WriteType<'a> {
    state: &'a str,
    state_type: &'a TensorType,
    data: String,
    data_type: &'a TensorType,
    fits: bool,
}

/// The state a write op writes and the data it writes.
fn write_type<'a>(f: &'a Function, op: &'a Op) -> Option<WriteType<'a>> {
    let (state_param, data_param) = if op.op_type == "write_state" {
        ("input", "data")
    } else {
        ("state", "value")
    };
    let (state, data) = (op.arg_name(state_param)?, op.arg(data_param)?);
    let Some(ValueType::State(inner)) = f.value_type(state) else {
        return None;
    };
    let st = inner.tensor()?;
    let (shown, ty) = match data {
        Arg::Name(n) => (format!("`{n}`"), f.value_type(n)),
        Arg::Value(lit) => ("an inline literal".to_string(), Some(&lit.ty)),
    };
    let Some(ValueType::Tensor(dt)) = ty else {
        return None;
    };
    let shapes_differ = match (&st.shape, &dt.shape) {
        (Some(a), Some(b)) => {
            a.len() != b.len()
                || a.iter()
                    .zip(b)
                    .any(|(x, y)| matches!((x.known(), y.known()), (Some(p), Some(q)) if p != q))
        }
        _ => false,
    };
    Some(WriteType {
        state,
        state_type: st,
        data: shown,
        data_type: dt,
        fits: st.dtype == dt.dtype && !shapes_differ,
    })
}

/// A `mil-literal` entity per tensor literal (inline argument or attribute) of `op` whose shape is
/// fully known: how many elements it lists and how many its shape holds.
fn literal_counts<'a>(op: &'a Op, d: &mut Described<'a>) {
    for (name, binds) in bindings(op) {
        for b in binds.iter() {
            let Bound::Literal(lit) = b else { continue };
            let (ValueType::Tensor(t), Payload::Tensor(data)) = (&lit.ty, &lit.payload) else {
                continue;
            };
            let Some(found) = data.len() else { continue };
            // The element count of a fully known shape, `None` on overflow.
            let Some(expected) = t
                .shape
                .as_ref()
                .and_then(|dims| dims.iter().try_fold(1u64, |n, d| n.checked_mul(d.known()?)))
            else {
                continue;
            };
            let facts = Facts::Literal {
                op_type: &op.op_type,
                param: name,
                elements: found,
                shape_elements: expected,
            };
            if d.wanted(facts, op) {
                d.make(facts, op, |e| e.set("type", t.to_string()));
            }
        }
    }
}

/// coremltools' spelling of an opset (`ios18` → `iOS18`).
fn target_name(opset: &str) -> String {
    match opset.strip_prefix("ios") {
        Some(n) => format!("iOS{n}"),
        None => opset.to_string(),
    }
}

/// The closest candidate by edit distance, when it is close enough to be a likely typo.
fn suggest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    crate::suggest::closest_within(name, candidates, (name.chars().count() / 3).clamp(1, 3))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two facts have the same key exactly when they are equal: over two versions, every
    /// parameter index up to 3, each staged value, two element types (and an unknown one, which
    /// has no key) and two texts at two addresses each.
    #[test]
    fn keys_are_equal_exactly_when_facts_are() {
        let table = OpTable::builtin();
        let add = table.version("add", 3).expect("add");
        let relu = table.version("relu", 3).expect("relu");
        let staged = [
            Staged::Absent,
            Staged::ToCome,
            Staged::Is(false),
            Staged::Is(true),
        ];
        let dtypes = [DType::Fp16, DType::Int32, DType::Unknown(99)];
        let mut facts = Vec::new();
        for version in [VersionRef(add), VersionRef(relu)] {
            for param in 0..4 {
                facts.push(Facts::Binding {
                    version,
                    param,
                    typed: None,
                });
                for is_state in [false, true] {
                    for runtime in staged {
                        let mut tensors = vec![None];
                        for dtype in dtypes {
                            tensors.push(Some((dtype, None)));
                            for other in 0..2 {
                                for other_dtype in dtypes {
                                    tensors.push(Some((dtype, Some((other, other_dtype)))));
                                }
                            }
                        }
                        for tensor in tensors {
                            let typed = Some(Typed {
                                is_state,
                                runtime,
                                tensor,
                            });
                            facts.push(Facts::Binding {
                                version,
                                param,
                                typed,
                            });
                        }
                    }
                }
                for misspelled in [false, true] {
                    facts.push(Facts::Unbound {
                        version,
                        param,
                        misspelled,
                    });
                }
            }
            for text in [false, true] {
                for agrees in staged {
                    for fits in [None, Some(false), Some(true)] {
                        facts.push(Facts::Available {
                            version,
                            text,
                            agrees,
                            fits,
                        });
                    }
                }
            }
        }
        let texts = ["add", "val"].map(String::from);
        let copies = texts.clone();
        for op_type in texts.iter().chain(&copies) {
            for param in texts.iter().chain(&copies) {
                for (elements, shape_elements) in [(3, 3), (3, 4), (4, 3)] {
                    facts.push(Facts::Literal {
                        op_type,
                        param,
                        elements,
                        shape_elements,
                    });
                }
            }
        }
        let mut keyed = 0;
        for a in &facts {
            let Some(ka) = a.key() else { continue };
            keyed += 1;
            for b in &facts {
                let Some(kb) = b.key() else { continue };
                // Literals' texts are told apart by address: equal keys are equal facts, and
                // equal facts of other addresses may have other keys.
                let same_text = match (a, b) {
                    (
                        Facts::Literal {
                            op_type: t,
                            param: p,
                            ..
                        },
                        Facts::Literal {
                            op_type: u,
                            param: q,
                            ..
                        },
                    ) => std::ptr::eq(*t, *u) && std::ptr::eq(*p, *q),
                    _ => true,
                };
                assert_eq!(ka == kb, a == b && same_text, "{a:?} / {b:?}");
            }
        }
        assert!(keyed > 500, "{keyed} facts keyed");
        let unknown = Facts::Binding {
            version: VersionRef(add),
            param: 0,
            typed: Some(Typed {
                is_state: false,
                runtime: Staged::ToCome,
                tensor: Some((DType::Unknown(99), None)),
            }),
        };
        assert!(unknown.key().is_none());
    }
}
