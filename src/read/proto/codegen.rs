//! Renders `table.rs` as `messages.rs`, the Rust declarations of the protobuf messages: the owned
//! messages at the root, `<Name>Outline` beside them, and the zero-copy views in `zero_copy`
//! (strings as unchecked `Bytes`, maps as their entries in file order). A view that would be the
//! same as the owned message (no string, bytes or map inside) is the owned one, re-exported.
//! The test at the bottom keeps `messages.rs` equal to what this renders.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::table::{Field, Label, Message, Outline, Ty, ENUMS, MESSAGES};

const HEADER: &str = "\
//! The Model.proto and MIL.proto messages (FORMAT.md §2–3), rendered by `codegen.rs` from
//! `table.rs`: do not edit;
//! change the table and run `COREML_LINT_BLESS=1 cargo test --lib read::proto::codegen`.
//!
//! Owned messages (what the fixer edits and re-encodes) are at the root; `<Name>Outline` is a
//! message whose sub-models or top-level operations stay undecoded; [`zero_copy`] holds the
//! views the reader decodes. Field names are the protobuf names in snake case (only the tags
//! matter on the wire); enum-typed fields are plain `i32`, so numbers newer than this file are
//! kept, not rejected.
";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Rendering {
    Owned,
    View,
    Outline,
}

fn message(path: &str) -> &'static Message {
    MESSAGES
        .iter()
        .find(|m| m.path == path)
        .unwrap_or_else(|| panic!("table.rs names a message it does not declare: {path}"))
}

fn name_of(path: &str) -> &str {
    path.rsplit("::").next().unwrap_or(path)
}

fn modules_of(path: &str) -> Vec<String> {
    let mut parts: Vec<String> = path.split("::").map(str::to_string).collect();
    parts.pop();
    parts
}

fn snake(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn ident(name: &str) -> String {
    match name {
        "type" => "r#type".to_string(),
        _ => name.to_string(),
    }
}

fn referenced(ty: Ty) -> Vec<&'static str> {
    match ty {
        Ty::Message(p) | Ty::Map(p) => vec![p],
        Ty::Oneof(_, members) => members
            .iter()
            .flat_map(|m| {
                referenced(m.ty)
                    .into_iter()
                    .chain(m.outline.map_or(vec![], referenced))
            })
            .collect(),
        _ => vec![],
    }
}

/// Messages with nothing a view would hold differently: their view is the owned message.
fn plain_messages() -> BTreeSet<&'static str> {
    let mut plain: BTreeSet<&str> = MESSAGES.iter().map(|m| m.path).collect();
    loop {
        let before = plain.len();
        for m in MESSAGES {
            let differs = m.fields.iter().any(|f| {
                let direct = |ty: Ty| matches!(ty, Ty::Str | Ty::Bytes | Ty::Map(_));
                direct(f.ty)
                    || matches!(f.ty, Ty::Oneof(_, ms) if ms.iter().any(|mb| direct(mb.ty)))
                    || referenced(f.ty).iter().any(|p| !plain.contains(p))
            });
            if differs {
                plain.remove(m.path);
            }
        }
        if plain.len() == before {
            return plain;
        }
    }
}

/// Messages some view or outline holds as a view: what an outline leaves undecoded and what its
/// view fields name, and everything those hold.
fn viewed_messages() -> BTreeSet<&'static str> {
    let mut todo: Vec<&str> = Vec::new();
    for m in MESSAGES.iter().filter(|m| m.outline.is_some()) {
        for f in m.fields {
            match f.outline {
                // What is left undecoded is decoded later as its outline, or else as a view.
                Outline::Undecoded => todo.extend(
                    referenced(f.ty)
                        .into_iter()
                        .filter(|p| message(p).outline.is_none()),
                ),
                Outline::View => todo.extend(
                    referenced(f.ty)
                        .into_iter()
                        .filter(|p| message(p).outline.is_none()),
                ),
                Outline::Owned | Outline::Skipped | Outline::Flattened => {}
            }
        }
    }
    let mut seen = BTreeSet::new();
    while let Some(p) = todo.pop() {
        if seen.insert(p) {
            for f in message(p).fields {
                todo.extend(referenced(f.ty));
            }
        }
    }
    seen
}

/// A path from the rendering's root, written from a module `depth` levels below it.
fn from_depth(depth: usize, path: &str) -> String {
    format!("{}{path}", "super::".repeat(depth))
}

struct Out {
    text: String,
    indent: usize,
}

impl Out {
    fn line(&mut self, s: &str) {
        if s.is_empty() {
            self.text.push('\n');
        } else {
            let _ = writeln!(self.text, "{}{s}", "    ".repeat(self.indent));
        }
    }

    fn doc(&mut self, doc: &str) {
        self.line(&format!("/// {doc}"));
    }
}

fn scalar(ty: Ty, r: Rendering) -> Option<(String, String)> {
    let owned = r == Rendering::Owned;
    let (attr, rust) = match ty {
        Ty::Int32 => ("int32".to_string(), "i32"),
        Ty::Int64 => ("int64".to_string(), "i64"),
        Ty::Uint64 => ("uint64".to_string(), "u64"),
        Ty::Bool => ("bool".to_string(), "bool"),
        Ty::Float => ("float".to_string(), "f32"),
        Ty::Double => ("double".to_string(), "f64"),
        Ty::Enum(e) if owned => (format!("enumeration = \"{e}\""), "i32"),
        Ty::Enum(_) => ("int32".to_string(), "i32"),
        Ty::Str if owned => ("string".to_string(), "String"),
        Ty::Bytes if owned => ("bytes = \"vec\"".to_string(), "Vec<u8>"),
        Ty::Str | Ty::Bytes => ("bytes = \"bytes\"".to_string(), "::prost::bytes::Bytes"),
        Ty::Message(_) | Ty::Map(_) | Ty::StrMap | Ty::Oneof(..) => return None,
    };
    Some((attr, rust.to_string()))
}

/// The prost attribute and the Rust type of field `f` of `m`, written from `depth` below the root of
/// rendering `r` (an outline is rendered at the owned root).
fn field_type(m: &Message, f: &Field, r: Rendering, depth: usize) -> (String, String) {
    let tag = f.tag;
    if r == Rendering::Outline && f.outline == Outline::Undecoded {
        return (
            format!("bytes = \"bytes\", repeated, tag = \"{tag}\""),
            "Vec<::prost::bytes::Bytes>".to_string(),
        );
    }
    let r = match (r, f.outline) {
        (Rendering::Outline, Outline::Owned) => Rendering::Owned,
        (r, _) => r,
    };
    let msg_path = |p: &str| -> String {
        match r {
            Rendering::Outline if message(p).outline.is_some() => format!("{}Outline", name_of(p)),
            Rendering::Outline => format!("zero_copy::{p}"),
            _ => from_depth(depth, p),
        }
    };
    if let Some((attr, rust)) = scalar(f.ty, r) {
        return match f.label {
            Label::Repeated => (
                format!("{attr}, repeated, tag = \"{tag}\""),
                format!("Vec<{rust}>"),
            ),
            Label::Single | Label::Boxed => (format!("{attr}, tag = \"{tag}\""), rust),
        };
    }
    match f.ty {
        Ty::Message(p) => {
            let t = msg_path(p);
            match f.label {
                Label::Single => (
                    format!("message, optional, tag = \"{tag}\""),
                    format!("Option<{t}>"),
                ),
                Label::Boxed => (
                    format!("message, optional, boxed, tag = \"{tag}\""),
                    format!("Option<Box<{t}>>"),
                ),
                Label::Repeated => (
                    format!("message, repeated, tag = \"{tag}\""),
                    format!("Vec<{t}>"),
                ),
            }
        }
        Ty::Map(p) => match r {
            Rendering::Owned => (
                format!("btree_map = \"string, message\", tag = \"{tag}\""),
                format!("::std::collections::BTreeMap<String, {}>", msg_path(p)),
            ),
            Rendering::Outline if message(p).outline.is_some() => (
                format!("btree_map = \"string, message\", tag = \"{tag}\""),
                format!("::std::collections::BTreeMap<String, {}>", msg_path(p)),
            ),
            Rendering::Outline => (
                format!("message, repeated, tag = \"{tag}\""),
                format!("Vec<zero_copy::{}Entry>", name_of(p)),
            ),
            Rendering::View => (
                format!("message, repeated, tag = \"{tag}\""),
                format!(
                    "Vec<{}>",
                    from_depth(depth, &format!("{}Entry", name_of(p)))
                ),
            ),
        },
        Ty::StrMap => (
            format!("btree_map = \"string, string\", tag = \"{tag}\""),
            "::std::collections::BTreeMap<String, String>".to_string(),
        ),
        Ty::Oneof(e, members) => {
            let tags: Vec<String> = members.iter().map(|m| m.tag.to_string()).collect();
            (
                format!(
                    "oneof = \"{}::{e}\", tags = \"{}\"",
                    snake(name_of(m.path)),
                    tags.join(", ")
                ),
                format!("Option<{}::{e}>", snake(name_of(m.path))),
            )
        }
        _ => unreachable!("scalars are handled above"),
    }
}

fn render_struct(out: &mut Out, m: &'static Message, r: Rendering, depth: usize) {
    let name = match r {
        Rendering::Outline => format!("{}Outline", name_of(m.path)),
        _ => name_of(m.path).to_string(),
    };
    out.doc(match r {
        Rendering::Outline => m.outline.unwrap_or(m.doc),
        _ => m.doc,
    });
    out.line("#[derive(Clone, PartialEq, ::prost::Message)]");
    if m.fields.is_empty() {
        out.line(&format!("pub struct {name} {{}}"));
        return;
    }
    out.line(&format!("pub struct {name} {{"));
    out.indent += 1;
    for f in m.fields {
        if r == Rendering::Outline && f.outline == Outline::Skipped {
            continue;
        }
        if r == Rendering::Outline && f.outline == Outline::Flattened {
            render_flattened(out, m, f);
            continue;
        }
        let (attr, rust) = field_type(m, f, r, depth);
        if r == Rendering::Outline && f.outline == Outline::Undecoded {
            out.doc(&format!("{} Each one's undecoded bytes.", f.doc));
        } else {
            out.doc(f.doc);
        }
        out.line(&format!("#[prost({attr})]"));
        out.line(&format!("pub {}: {rust},", ident(f.name)));
    }
    out.indent -= 1;
    out.line("}");
}

/// The members of oneof `f` that hold an outlined message, each an optional field of its own.
fn render_flattened(out: &mut Out, m: &Message, f: &Field) {
    let Ty::Oneof(_, members) = f.ty else {
        panic!("{}.{}: only a oneof is flattened", m.path, f.name)
    };
    for mb in members {
        let held = match (mb.outline, mb.ty) {
            (Some(Ty::Message(p)), _) | (None, Ty::Message(p)) => p,
            _ => continue,
        };
        if message(held).outline.is_none() {
            continue;
        }
        out.doc(&format!(
            "`{}.{}` (tag {}), as its outline; `None` when the model is another kind.",
            name_of(m.path),
            mb.variant,
            mb.tag
        ));
        out.line(&format!(
            "#[prost(message, optional, tag = \"{}\")]",
            mb.tag
        ));
        out.line(&format!(
            "pub {}: Option<{}Outline>,",
            snake(mb.variant),
            name_of(held)
        ));
    }
}

fn render_oneof(out: &mut Out, m: &'static Message, f: &Field, r: Rendering, depth: usize) {
    let Ty::Oneof(e, members) = f.ty else { return };
    out.doc(&format!("`{}.{}`.", name_of(m.path), f.name));
    out.line("#[derive(Clone, PartialEq, ::prost::Oneof)]");
    out.line(&format!("pub enum {e} {{"));
    out.indent += 1;
    for mb in members {
        let (attr, rust) = match scalar(mb.ty, r) {
            Some(s) => s,
            None => match mb.ty {
                Ty::Message(p) => ("message".to_string(), from_depth(depth, p)),
                _ => panic!("a oneof member is a scalar or a message"),
            },
        };
        out.doc(mb.doc);
        out.line(&format!("#[prost({attr}, tag = \"{}\")]", mb.tag));
        out.line(&format!("{}({rust}),", mb.variant));
    }
    out.indent -= 1;
    out.line("}");
}

/// What a module of one rendering holds.
#[derive(Default)]
struct Module {
    structs: Vec<&'static Message>,
    oneofs: Vec<(&'static Message, &'static Field)>,
    reexports: Vec<String>,
    children: BTreeMap<String, Module>,
}

impl Module {
    fn at(&mut self, path: &[String]) -> &mut Module {
        path.iter()
            .fold(self, |m, p| m.children.entry(p.clone()).or_default())
    }
}

fn tree(messages: &[&'static Message]) -> Module {
    let mut root = Module::default();
    for &m in messages {
        let mods = modules_of(m.path);
        root.at(&mods).structs.push(m);
        for f in m.fields {
            if matches!(f.ty, Ty::Oneof(..)) {
                let mut inner = mods.clone();
                inner.push(snake(name_of(m.path)));
                root.at(&inner).oneofs.push((m, f));
            }
        }
    }
    root
}

fn render_module(out: &mut Out, module: &Module, r: Rendering, depth: usize) {
    let mut first = true;
    let mut gap = |out: &mut Out| {
        if !std::mem::replace(&mut first, false) {
            out.line("");
        }
    };
    if !module.reexports.is_empty() {
        gap(out);
        for re in &module.reexports {
            out.line(&format!("pub use {re};"));
        }
    }
    for &m in &module.structs {
        gap(out);
        render_struct(out, m, r, depth);
    }
    for &(m, f) in &module.oneofs {
        gap(out);
        render_oneof(out, m, f, r, depth);
    }
    for (name, child) in &module.children {
        gap(out);
        let owner = module
            .structs
            .iter()
            .find(|m| snake(name_of(m.path)) == *name)
            .map(|m| name_of(m.path));
        match owner {
            Some(o) => out.doc(&format!("Nested types of [`{o}`].")),
            None => out.doc("Nested types."),
        }
        out.line(&format!("pub mod {name} {{"));
        out.indent += 1;
        render_module(out, child, r, depth + 1);
        out.indent -= 1;
        out.line("}");
    }
}

fn render_enums(out: &mut Out) {
    for e in ENUMS {
        out.line("");
        out.doc(e.doc);
        out.line("#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ::prost::Enumeration)]");
        out.line("#[repr(i32)]");
        out.line(&format!("pub enum {} {{", e.name));
        out.indent += 1;
        for (name, number, doc) in e.values {
            out.doc(doc);
            out.line(&format!("{name} = {number},"));
        }
        out.indent -= 1;
        out.line("}");
    }
}

/// The view tree: non-plain viewed messages declared, plain ones re-exported (a module whose
/// every item is plain, whole), and one entry struct per map value type.
fn view_tree() -> Module {
    let plain = plain_messages();
    let viewed = viewed_messages();
    let declared: Vec<&'static Message> = MESSAGES
        .iter()
        .filter(|m| viewed.contains(m.path) && !plain.contains(m.path))
        .collect();
    let mut root = tree(&declared);
    let reexported: Vec<&'static Message> = MESSAGES
        .iter()
        .filter(|m| viewed.contains(m.path) && plain.contains(m.path))
        .collect();
    let owned_tree = tree(&MESSAGES.iter().collect::<Vec<_>>());
    let mut whole_modules = BTreeSet::new();
    for m in &reexported {
        let mods = modules_of(m.path);
        // The oneof module of a plain message at the root, and a nested module all of whose
        // messages are plain, are re-exported whole.
        let candidate = if mods.is_empty() {
            Some(vec![snake(name_of(m.path))])
        } else {
            Some(mods.clone())
        };
        if let Some(module) = candidate {
            let owned = owned_tree.children.get(&module[0]);
            let all_plain = owned.is_some_and(|o| {
                o.structs.iter().all(|s| plain.contains(s.path))
                    && o.oneofs.iter().all(|(s, _)| plain.contains(s.path))
                    && o.children.is_empty()
            });
            if all_plain && module.len() == 1 {
                whole_modules.insert(module[0].clone());
            }
        }
    }
    for m in &reexported {
        let mods = modules_of(m.path);
        if mods.first().is_some_and(|m| whole_modules.contains(m)) {
            continue;
        }
        let depth = mods.len();
        root.at(&mods).reexports.push(from_depth(depth + 1, m.path));
    }
    for module in &whole_modules {
        root.reexports.push(from_depth(1, module));
    }
    root.reexports.sort();
    root
}

fn map_values() -> BTreeSet<&'static str> {
    let viewed = viewed_messages();
    let mut values = BTreeSet::new();
    for m in MESSAGES {
        for f in m.fields {
            if let Ty::Map(v) = f.ty {
                let in_view = viewed.contains(m.path);
                let in_outline = m.outline.is_some()
                    && f.outline == Outline::View
                    && message(v).outline.is_none();
                if in_view || in_outline {
                    values.insert(v);
                }
            }
        }
    }
    values
}

pub fn render() -> String {
    let mut out = Out {
        text: HEADER.to_string(),
        indent: 0,
    };
    out.line("");
    let owned = tree(&MESSAGES.iter().collect::<Vec<_>>());
    render_module(&mut out, &owned, Rendering::Owned, 0);
    render_enums(&mut out);
    for m in MESSAGES.iter().filter(|m| m.outline.is_some()) {
        assert!(
            modules_of(m.path).is_empty(),
            "outlined messages are at the root"
        );
        out.line("");
        render_struct(&mut out, m, Rendering::Outline, 0);
    }
    out.line("");
    out.doc("The messages of an operation as the reader decodes them: strings as unchecked bytes,");
    out.doc("maps as their entries in file order, everything borrowed from the file's buffer.");
    out.line("pub mod zero_copy {");
    out.indent += 1;
    let view = view_tree();
    render_module(&mut out, &view, Rendering::View, 0);
    for v in map_values() {
        let name = name_of(v);
        out.line("");
        out.doc(&format!(
            "One entry of a `map<string, {name}>`, in file order."
        ));
        out.line("#[derive(Clone, PartialEq, ::prost::Message)]");
        out.line(&format!("pub struct {name}Entry {{"));
        out.indent += 1;
        out.doc("The key, as unchecked bytes.");
        out.line("#[prost(bytes = \"bytes\", tag = \"1\")]");
        out.line("pub key: ::prost::bytes::Bytes,");
        out.doc("The value.");
        out.line("#[prost(message, required, tag = \"2\")]");
        out.line(&format!("pub value: {v},"));
        out.indent -= 1;
        out.line("}");
    }
    out.indent -= 1;
    out.line("}");
    out.text
}

/// `fields.rs`'s header.
const FIELDS_HEADER: &str = "\
//! Each message's fields by key (field number and wire type), rendered by `codegen.rs` from
//! `table.rs`: do not edit; change the table and run
//! `COREML_LINT_BLESS=1 cargo test --lib read::proto::codegen`.
//!
//! A module per message (nested as in `messages.rs`, snake case): a constant per field holding its
//! key (`number << 3 | wire type`), and `Field`, the fields as read ([`super::wire::Read`]), each
//! with its payload borrowed: a varint as `u64`, a length-delimited field (strings, bytes,
//! messages, map entries, packed repeated numbers) as its bytes, `float` and `double` as their
//! bits. A oneof's members are fields of their own. A key the table does not give the message
//! (unpacked repeated numbers included) reads as `None`. `map_entry` is the entry of every
//! `map<string, _>`.
";

/// What a field's payload is on the wire: its wire type, the `wire` reader and the Rust type.
fn wire_of(ty: Ty, label: Label) -> (u64, &'static str, &'static str, &'static str) {
    const LEN: (u64, &str, &str, &str) = (2, "len", "&'a [u8]", "length-delimited");
    match (ty, label) {
        (
            Ty::Int32 | Ty::Int64 | Ty::Uint64 | Ty::Bool | Ty::Enum(_) | Ty::Float | Ty::Double,
            Label::Repeated,
        ) => LEN,
        (Ty::Int32 | Ty::Int64 | Ty::Uint64 | Ty::Bool | Ty::Enum(_), _) => {
            (0, "varint", "u64", "varint")
        }
        (Ty::Float, _) => (5, "fixed32", "u32", "32-bit"),
        (Ty::Double, _) => (1, "fixed64", "u64", "64-bit"),
        (Ty::Str | Ty::Bytes | Ty::Message(_) | Ty::Map(_) | Ty::StrMap, _) => LEN,
        (Ty::Oneof(..), _) => unreachable!("a oneof's members are read as fields"),
    }
}

fn camel(snake_name: &str) -> String {
    snake_name
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// A message's fields as `fields.rs` reads them, oneof members flattened: (protobuf name, tag,
/// constant, variant, type, label).
fn wire_fields(m: &Message) -> Vec<(String, u32, String, String, Ty, Label)> {
    let mut out = Vec::new();
    for f in m.fields {
        match f.ty {
            Ty::Oneof(_, members) => {
                for mb in members {
                    out.push((
                        format!("{}.{}", f.name, mb.variant),
                        mb.tag,
                        snake(mb.variant).to_ascii_uppercase(),
                        mb.variant.to_string(),
                        mb.ty,
                        Label::Single,
                    ));
                }
            }
            _ => out.push((
                f.name.to_string(),
                f.tag,
                f.name.to_ascii_uppercase(),
                camel(f.name),
                f.ty,
                f.label,
            )),
        }
    }
    out
}

/// A module of `fields.rs`: the message it reads (if any) and its nested modules, in table order.
#[derive(Default)]
struct FieldsModule {
    message: Option<&'static Message>,
    children: Vec<(String, FieldsModule)>,
}

impl FieldsModule {
    fn at(&mut self, path: &[String]) -> &mut FieldsModule {
        let Some((first, rest)) = path.split_first() else {
            return self;
        };
        let i = match self.children.iter().position(|(n, _)| n == first) {
            Some(i) => i,
            None => {
                self.children.push((first.clone(), FieldsModule::default()));
                self.children.len() - 1
            }
        };
        self.children[i].1.at(rest)
    }

    fn is_empty(&self) -> bool {
        self.message.is_none_or(|m| m.fields.is_empty()) && self.children.is_empty()
    }
}

/// The constants, `Field` and its reader of one message: `(protobuf name, tag, constant, variant, type,
/// label)` per field.
fn render_field_reader(
    out: &mut Out,
    what: &str,
    fields: &[(String, u32, String, String, Ty, Label)],
) {
    out.line("use crate::read::proto::wire::{self, Read};");
    for (name, tag, konst, _, ty, label) in fields {
        let (wire, _, _, wire_name) = wire_of(*ty, *label);
        out.line("");
        out.doc(&format!("`{name}`: field {tag}, {wire_name}."));
        out.line(&format!(
            "pub const {konst}: u64 = {};",
            (u64::from(*tag) << 3) | wire
        ));
    }
    out.line("");
    out.doc(&format!("A field of {what} as read, its payload borrowed."));
    // A message of numbers only borrows nothing.
    let borrows = fields
        .iter()
        .any(|(_, _, _, _, ty, label)| wire_of(*ty, *label).0 == 2);
    let generics = if borrows { "<'a>" } else { "" };
    out.line("#[derive(Clone, Copy, Debug, PartialEq)]");
    out.line(&format!("pub enum Field{generics} {{"));
    out.indent += 1;
    for (name, _, _, variant, ty, label) in fields {
        let (_, _, rust, wire_name) = wire_of(*ty, *label);
        out.doc(&format!("`{name}` ({wire_name})."));
        out.line(&format!("{variant}({rust}),"));
    }
    out.indent -= 1;
    out.line("}");
    out.line("");
    out.line(&format!("impl<'a> Read<'a> for Field{generics} {{"));
    out.indent += 1;
    out.line("#[inline(always)]");
    out.line("fn read(b: &mut &'a [u8]) -> Option<Self> {");
    out.indent += 1;
    out.line("Some(match wire::varint(b)? {");
    out.indent += 1;
    for (_, _, konst, variant, ty, label) in fields {
        let (_, reader, _, _) = wire_of(*ty, *label);
        out.line(&format!("{konst} => Self::{variant}(wire::{reader}(b)?),"));
    }
    out.line("_ => return None,");
    out.indent -= 1;
    out.line("})");
    out.indent -= 1;
    out.line("}");
    out.indent -= 1;
    out.line("}");
}

fn render_fields_module(out: &mut Out, module: &FieldsModule) {
    let mut first = true;
    if let Some(m) = module.message.filter(|m| !m.fields.is_empty()) {
        let fields = wire_fields(m);
        let mut seen = BTreeSet::new();
        for (name, _, konst, variant, _, _) in &fields {
            assert!(
                seen.insert(konst.clone()) && seen.insert(variant.clone()),
                "{}.{name}: its constant or variant is another field's",
                m.path
            );
        }
        render_field_reader(out, &format!("a `{}`", name_of(m.path)), &fields);
        first = false;
    }
    for (name, child) in &module.children {
        if child.is_empty() {
            continue;
        }
        if !std::mem::replace(&mut first, false) {
            out.line("");
        }
        match child.message {
            Some(m) => out.doc(m.doc),
            None => out.doc("Nested messages."),
        }
        out.line(&format!("pub mod {name} {{"));
        out.indent += 1;
        render_fields_module(out, child);
        out.indent -= 1;
        out.line("}");
    }
}

/// `fields.rs`: every message's fields by key, and the entry of a map.
pub fn render_fields() -> String {
    let mut out = Out {
        text: FIELDS_HEADER.to_string(),
        indent: 0,
    };
    let mut root = FieldsModule::default();
    for m in MESSAGES {
        let path: Vec<String> = m.path.split("::").map(snake).collect();
        root.at(&path).message = Some(m);
    }
    out.line("");
    render_fields_module(&mut out, &root);
    out.line("");
    out.doc("The entry of a `map<string, _>`: the key, then the value.");
    out.line("pub mod map_entry {");
    out.indent += 1;
    render_field_reader(
        &mut out,
        "a map entry",
        &[
            (
                "key".to_string(),
                1,
                "KEY".to_string(),
                "Key".to_string(),
                Ty::Str,
                Label::Single,
            ),
            (
                "value".to_string(),
                2,
                "VALUE".to_string(),
                "Value".to_string(),
                Ty::Bytes,
                Label::Single,
            ),
        ],
    );
    out.indent -= 1;
    out.line("}");
    out.text
}

/// `path` (under `src/read/proto/`) equals `text`, or is rewritten when blessing.
fn check_committed(file: &str, text: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/read/proto")
        .join(file);
    if std::env::var_os("COREML_LINT_BLESS").is_some() {
        std::fs::write(&path, text).expect("write the rendered file");
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == text,
        "src/read/proto/{file} is out of date: run COREML_LINT_BLESS=1 cargo test --lib read::proto::codegen"
    );
}

#[test]
fn committed_fields_rs_is_the_rendered_table() {
    check_committed("fields.rs", &render_fields());
}

#[test]
fn committed_messages_rs_is_the_rendered_table() {
    check_committed("messages.rs", &render());
}

#[test]
fn every_message_is_named_once_and_every_tag_once_per_message() {
    let mut paths = BTreeSet::new();
    for m in MESSAGES {
        assert!(paths.insert(m.path), "{} declared twice", m.path);
        let mut tags = BTreeSet::new();
        for f in m.fields {
            let field_tags: Vec<u32> = match f.ty {
                Ty::Oneof(_, ms) => ms.iter().map(|mb| mb.tag).collect(),
                _ => vec![f.tag],
            };
            for t in field_tags {
                assert!(
                    t > 0 && tags.insert(t),
                    "{}.{}: tag {t} reused or zero",
                    m.path,
                    f.name
                );
            }
        }
        for f in m.fields {
            for p in referenced(f.ty) {
                message(p);
            }
        }
    }
}
