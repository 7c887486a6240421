//! Lowers the serde mirror ([`schema`](super::schema)) into matchers, checking everything that can
//! be checked at load: unknown op-set names and dtypes, captures and their kinds, relation options
//! outside relations, rules made of `not:` alone.

use std::collections::BTreeMap;
use std::sync::Arc;

use regex::Regex;

use super::compare::Cmp;
use super::compile_error::{CompileError, ErrorPath};
use super::cost::cheapest_first;
use super::matcher::{
    CaptureNum, CompareOperand, Count, DTypePat, DimPat, FunctionM, Matcher, ModelM, Operand,
    OsBound, PeersM, Range, RangeM, Reason, Relation, RuntimePat, StateWriteM, StopBy, TargetM,
    ValueM, ValueNum, ValuePredM, Version, VersionRange,
};
use super::schema::{
    CountBound, CountSpec, DimSpec, FunctionSpec, ModelSpec, NumRange, OneOrMany, OpProps,
    OpsetSpec, PeerProps, PeersSpec, Props, ReasonsSpec, RuntimeSpec, Scalars, SerRule,
    StateWriteSpec, StopBySpec, TargetSpec, Utils, ValueSpec,
};
use super::template::Template;
use super::vars::{VarKind, Vars, GROUP_VAR, REGION_VAR, TARGET_VAR};
use crate::analysis::{WriteKind, WriteOp};
use crate::ir::DType;
use crate::suggest::did_you_mean;

/// Compiles rule objects, collecting every error instead of stopping at the first.
#[derive(Default)]
pub struct Compiler {
    pub errors: Vec<CompileError>,
    path: Vec<String>,
    /// Match fragments `matches:` can name.
    utils: Arc<Utils>,
    /// Fragments being expanded, outermost first (a fragment that names itself is an error).
    expanding: Vec<String>,
}

impl ErrorPath for Compiler {
    fn path(&mut self) -> &mut Vec<String> {
        &mut self.path
    }

    fn errors(&mut self) -> &mut Vec<CompileError> {
        &mut self.errors
    }
}

impl Compiler {
    /// A compiler whose error paths start at `root` (e.g. `match`).
    pub fn at(root: &str) -> Compiler {
        Compiler {
            path: vec![root.to_string()],
            ..Compiler::default()
        }
    }

    /// The same, with these match fragments for `matches:`.
    pub fn with_utils(root: &str, utils: Arc<Utils>) -> Compiler {
        Compiler {
            utils,
            ..Compiler::at(root)
        }
    }

    /// `matches: name`: the fragment compiled in place.
    fn fragment(&mut self, name: &str) -> Option<(Matcher, Vars)> {
        let body = match super::schema::fragment_body(&self.utils, &self.expanding, name) {
            Ok(body) => body,
            Err(e) => {
                self.error("matches", e);
                return None;
            }
        };
        self.expanding.push(name.to_string());
        let out = self.nested("matches", |c| c.rule(&body, false));
        self.expanding.pop();
        Some(out)
    }

    /// Reads the properties `props` (of `entity`, e.g. "values") into their registry `T`: a name
    /// `T` does not have is an error at its key naming the closest property; so is a value of the
    /// wrong form. `None` when any property is wrong.
    pub(crate) fn props<T: serde::de::DeserializeOwned + schemars::JsonSchema>(
        &mut self,
        entity: &str,
        props: &Props,
    ) -> Option<T> {
        let all = || serde_json::Map::from_iter(props.iter().map(|(k, v)| (k.clone(), v.clone())));
        // Most rules are right: read them whole (every `T` denies unknown fields), and key by key
        // only to locate what is wrong.
        if let Ok(t) = serde_json::from_value::<T>(serde_json::Value::Object(all())) {
            return Some(t);
        }
        let known = property_names::<T>();
        let mut ok = true;
        for (key, value) in props {
            if !known.iter().any(|k| k == key) {
                self.error(
                    key,
                    format!(
                        "`{key}` is not a property of {entity}{} (properties: {})",
                        did_you_mean(key, known.iter().map(String::as_str)),
                        known.join(", ")
                    ),
                );
                ok = false;
                continue;
            }
            let one = serde_json::Map::from_iter([(key.clone(), value.clone())]);
            if let Err(e) = serde_json::from_value::<T>(serde_json::Value::Object(one)) {
                self.error(key, super::schema::explain_forms(&e.to_string()));
                ok = false;
            }
        }
        if !ok {
            return None;
        }
        match serde_json::from_value::<T>(serde_json::Value::Object(all())) {
            Ok(t) => Some(t),
            Err(e) => {
                self.error("", e.to_string());
                None
            }
        }
    }

    /// The op's properties among a node rule object's other keys (the rest are errors).
    fn op_props(&mut self, props: &Props) -> OpProps {
        if props.is_empty() {
            return OpProps::default();
        }
        let known = property_names::<OpProps>();
        let mut ours = Props::new();
        for (key, value) in props {
            if known.iter().any(|k| k == key) {
                ours.insert(key.clone(), value.clone());
            } else {
                self.unknown_key(key);
            }
        }
        self.props::<OpProps>("ops", &ours).unwrap_or_default()
    }

    /// A key of a node rule object that is neither the language's nor a property of the op (a
    /// misspelling, or a property that only an entity rule has).
    fn unknown_key(&mut self, key: &str) {
        if key == "fact" {
            self.error(
                key,
                "`fact:` is gone: a model-level rule names its entity with `kind:` and tests its \
                 properties (docs/rule-language.md, \"Model-level entities\")",
            );
            return;
        }
        let own = property_names::<SerRule>();
        let op = property_names::<OpProps>();
        self.error(
            key,
            format!(
                "unknown key `{key}`{} (a node rule object takes {}, and the op's properties {}; \
                 properties of model-level entities need `kind:`)",
                did_you_mean(key, own.iter().chain(&op).map(String::as_str)),
                own.join(", "),
                op.join(", ")
            ),
        );
    }

    fn capture(&mut self, key: &str, raw: &str, kind: VarKind, vars: &mut Vars) -> Option<String> {
        let Some(name) = raw.strip_prefix('$') else {
            self.error(
                key,
                format!("capture `{raw}` must start with `$`, e.g. `$S`"),
            );
            return None;
        };
        let ok = name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            && name
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
        if !ok {
            self.error(
                key,
                format!("capture `{raw}`: use `$` and upper-case letters, digits or `_`"),
            );
            return None;
        }
        if name == "FUNCTION" {
            self.error(key, "`$FUNCTION` is reserved for the function's name");
            return None;
        }
        if name == REGION_VAR {
            self.error(
                key,
                "`$REGION` is reserved for the region of an `origin:` rule",
            );
            return None;
        }
        if name == GROUP_VAR {
            self.error(
                key,
                "`$GROUP` is reserved for the other matches of `group-by:`",
            );
            return None;
        }
        if name == TARGET_VAR {
            self.error(
                key,
                "`$TARGET` is reserved for the deployment target (`target:`)",
            );
            return None;
        }
        if name == "OP" && kind != VarKind::Node {
            self.error(key, "`$OP` is reserved for the matched op");
            return None;
        }
        self.bind(key, name, kind, vars);
        Some(name.to_string())
    }

    fn bind(&mut self, key: &str, name: &str, kind: VarKind, vars: &mut Vars) {
        if let Some(prev) = vars.insert(name.to_string(), kind) {
            if prev != kind {
                self.error(
                    key,
                    format!(
                        "`${name}` is bound to {} and to {}",
                        prev.as_str(),
                        kind.as_str()
                    ),
                );
            }
        }
    }

    fn merge(&mut self, key: &str, into: &mut Vars, from: Vars) {
        for (k, v) in from {
            self.bind(key, &k, v, into);
        }
    }

    /// A count whose bounds are numbers.
    fn count(&mut self, key: &str, c: &CountSpec) -> Count {
        self.count_in(key, c, false)
    }

    /// A count of a value: a bound may also name another number of the value (`dim.1`).
    fn value_count(&mut self, key: &str, c: &CountSpec) -> Count {
        self.count_in(key, c, true)
    }

    fn count_in(&mut self, key: &str, c: &CountSpec, in_value: bool) -> Count {
        let r = match c {
            CountSpec::Exact(n) => return Count::exactly(*n),
            CountSpec::Range(r) => r,
        };
        let mut conds = Vec::new();
        for (name, cmp, bound) in r.bounds() {
            let Some(bound) = bound else { continue };
            let operand = match bound {
                CountBound::Num(0) if matches!(cmp, Cmp::MultipleOf | Cmp::NotMultipleOf) => {
                    self.nested(key, |c| c.error(name, format!("`{name}` must not be 0")));
                    continue;
                }
                CountBound::Num(n) => Operand::Num(*n),
                CountBound::Name(p) => match ValueNum::parse(p) {
                    Some(v) if in_value => Operand::Value(v),
                    Some(_) => {
                        self.nested(key, |c| {
                            c.error(
                                name,
                                format!(
                                    "`{p}` is a number of a value: here `{name}` takes a number \
                                     (a value's counts, under `input:`, `output:`, `param:`, \
                                     `attr:`, compare with its other numbers)"
                                ),
                            )
                        });
                        continue;
                    }
                    None if p.starts_with('$') => {
                        self.nested(key, |c| {
                            c.error(
                                name,
                                format!(
                                    "`{p}` names a capture: compare captures' numbers under \
                                     `compare:` at the top of `match` (`compare: {{ $I.value.max: \
                                     {{ below: $X.dim.0 }} }}`)"
                                ),
                            )
                        });
                        continue;
                    }
                    None => {
                        let what = if in_value {
                            format!(
                                "a number or another number of the value: {}",
                                ValueNum::NAMES
                            )
                        } else {
                            "a number".to_string()
                        };
                        self.nested(key, |c| {
                            c.error(
                                name,
                                format!("`{p}` is not a count bound: `{name}` takes {what}"),
                            )
                        });
                        continue;
                    }
                },
            };
            conds.push((cmp, operand));
        }
        Count { conds }
    }

    /// `compare:`: each key a capture's number, each value a count whose bounds may name other
    /// captures' numbers; every capture must be one the match always binds (a value or a node).
    fn compare(&mut self, list: &BTreeMap<String, CountSpec>, vars: &Vars) -> Option<Matcher> {
        let mut ok = true;
        let capture_num = |c: &mut Compiler, key: &str, text: &str| -> Option<CaptureNum> {
            let parsed = match CaptureNum::parse(text) {
                Some(Ok(n)) => n,
                Some(Err(e)) => {
                    c.error(key, e);
                    return None;
                }
                None => {
                    c.error(
                        key,
                        format!(
                            "`{text}` is not a capture's number: write `$X.<number>` ({})",
                            CaptureNum::NAMES
                        ),
                    );
                    return None;
                }
            };
            match vars.get(&parsed.capture) {
                Some(VarKind::Value | VarKind::Node) => Some(parsed),
                Some(other) => {
                    c.error(
                        key,
                        format!(
                            "`${}` is {}: `compare:` reads the numbers of a value or an op",
                            parsed.capture,
                            other.as_str()
                        ),
                    );
                    None
                }
                None => {
                    let known: Vec<String> = vars
                        .iter()
                        .filter(|(_, k)| matches!(k, VarKind::Value | VarKind::Node))
                        .map(|(n, _)| format!("${n}"))
                        .collect();
                    c.error(
                        key,
                        format!(
                            "`${}` is not a capture every match binds (known: {})",
                            parsed.capture,
                            if known.is_empty() {
                                "none".to_string()
                            } else {
                                known.join(", ")
                            }
                        ),
                    );
                    None
                }
            }
        };
        let mut out = Vec::new();
        for (left, count) in list {
            let Some(l) = capture_num(self, left, left) else {
                ok = false;
                continue;
            };
            let range = match count {
                CountSpec::Exact(n) => {
                    out.push((l, vec![(Cmp::Equals, CompareOperand::Num(*n))]));
                    continue;
                }
                CountSpec::Range(r) => r,
            };
            let mut conds = Vec::new();
            for (name, cmp, bound) in range.bounds() {
                let Some(bound) = bound else { continue };
                let o = match bound {
                    CountBound::Num(n) => CompareOperand::Num(*n),
                    CountBound::Name(p) => match self.nested(left, |c| capture_num(c, name, p)) {
                        Some(n) => CompareOperand::Capture(n),
                        None => {
                            ok = false;
                            continue;
                        }
                    },
                };
                conds.push((cmp, o));
            }
            if range.bounds().iter().all(|(_, _, b)| b.is_none()) {
                self.error(left, "names no comparison");
                ok = false;
            }
            out.push((l, conds));
        }
        (ok && !out.is_empty()).then_some(Matcher::Compare(out))
    }

    fn versions(&mut self, v: &super::schema::VersionRangeSpec) -> VersionRange {
        let mut parse = |key: &str, text: &Option<String>| {
            let text = text.as_deref()?;
            let parsed = Version::parse(text);
            if parsed.is_none() {
                self.error(
                    key,
                    format!("`{text}` is not a dotted version such as \"9.0\""),
                );
            }
            parsed
        };
        VersionRange {
            min: parse("min", &v.min),
            max: parse("max", &v.max),
            before: parse("before", &v.before),
        }
    }

    fn opset(&mut self, key: &str, o: &OpsetSpec) -> Option<(u32, u32)> {
        let mut num = |s: &str| {
            let n = crate::os_level::opset_number(s);
            if n.is_none() {
                self.error(
                    key,
                    format!("unknown opset `{s}` (use ios15…ios18 or CoreML5…CoreML9)"),
                );
            }
            n
        };
        match o {
            OpsetSpec::Exact(s) => num(s).map(|n| (n, n)),
            OpsetSpec::Range(r) => {
                let lo = match &r.min {
                    Some(s) => num(s)?,
                    None => 0,
                };
                let hi = match &r.max {
                    Some(s) => num(s)?,
                    None => u32::MAX,
                };
                Some((lo, hi))
            }
        }
    }

    fn regex(&mut self, key: &str, re: &str) -> Option<Regex> {
        match Regex::new(re) {
            Ok(r) => Some(r),
            Err(e) => {
                self.error(key, format!("bad regular expression: {e}"));
                None
            }
        }
    }

    fn runtime(&mut self, key: &str, r: &RuntimeSpec) -> Option<RuntimePat> {
        match r {
            RuntimeSpec::Flag(true) => Some(RuntimePat::Yes),
            RuntimeSpec::Flag(false) => Some(RuntimePat::No),
            RuntimeSpec::Word(w) if w == "data" => Some(RuntimePat::Data),
            RuntimeSpec::Word(w) if w == "shape" => Some(RuntimePat::Shape),
            RuntimeSpec::Word(w) => {
                self.error(
                    key,
                    format!("`{w}`: expected true, false, `data` or `shape`"),
                );
                None
            }
        }
    }

    fn dtypes(&mut self, key: &str, d: &OneOrMany) -> Vec<DTypePat> {
        d.to_vec()
            .iter()
            .filter_map(|s| match s.as_str() {
                "float" => Some(DTypePat::Float),
                "int" => Some(DTypePat::Int),
                other => match DType::from_text(other) {
                    Some(t) => Some(DTypePat::Exact(t)),
                    None => {
                        self.error(
                            key,
                            format!(
                                "unknown dtype `{other}` (e.g. fp16, int32, or `float`, `int`)"
                            ),
                        );
                        None
                    }
                },
            })
            .collect()
    }

    /// Compiles a value object (properties of a value); returns its matcher and the captures it
    /// binds.
    pub fn value(&mut self, props: &Props) -> (ValueM, Vars) {
        let Some(v) = self.props::<ValueSpec>("values", props) else {
            return (ValueM::default(), Vars::new());
        };
        self.value_spec(&v)
    }

    fn value_spec(&mut self, v: &ValueSpec) -> (ValueM, Vars) {
        let mut vars = Vars::new();
        let mut m = ValueM {
            dtype: v.dtype.as_ref().map(|d| self.dtypes("dtype", d)),
            rank: v.rank.as_ref().map(|c| self.value_count("rank", c)),
            dynamic: v.dynamic,
            max_dim: v.max_dim.as_ref().map(|c| self.value_count("max-dim", c)),
            last_dim: v.last_dim.as_ref().map(|c| self.value_count("last-dim", c)),
            elements: v.elements.as_ref().map(|c| self.value_count("elements", c)),
            state: v.state,
            constant: v.constant,
            function_output: v.function_output,
            inline: v.inline,
            name: v
                .name
                .as_ref()
                .and_then(|n| self.regex("name", n.pattern())),
            ..ValueM::default()
        };
        if let Some(d) = &v.dim {
            m.dims = d
                .iter()
                .map(|(axis, c)| {
                    (
                        *axis,
                        self.nested("dim", |cc| cc.value_count(&axis.to_string(), c)),
                    )
                })
                .collect();
        }
        if let Some(shape) = &v.shape {
            let mut dims = Vec::new();
            for d in shape {
                match d {
                    DimSpec::Size(n) => dims.push(DimPat::Size(*n)),
                    DimSpec::Word(w) if w == "?" => dims.push(DimPat::Unknown),
                    DimSpec::Word(w) if w == "_" => dims.push(DimPat::Any),
                    DimSpec::Word(w) => {
                        self.error("shape", format!("`{w}`: a dim is a number, `?` or `_`"))
                    }
                }
            }
            m.shape = Some(dims);
        }
        if let Some(p) = &v.value {
            let range = |r: &Option<NumRange>| {
                r.as_ref().map(|r| Range {
                    min: r.min,
                    max: r.max,
                })
            };
            let mut pred = ValuePredM {
                min: range(&p.min),
                max: range(&p.max),
                max_abs: range(&p.max_abs),
                integral: p.integral,
                nonfinite: p.nonfinite,
                unequal_pairs: p.unequal_pairs,
                masked_row: p.masked_row,
                ..ValuePredM::default()
            };
            if let Some(eq) = &p.equals {
                let mut nums = Vec::new();
                let mut strs = Vec::new();
                flatten(eq, &mut nums, &mut strs);
                if !strs.is_empty() && !nums.is_empty() {
                    self.nested("value", |c| c.error("equals", "mixes strings and numbers"));
                } else if !strs.is_empty() {
                    pred.equals_str = Some(strs);
                } else {
                    pred.equals = Some(nums);
                }
            }
            if let Some(any_of) = &p.contains {
                let mut nums = Vec::new();
                let mut strs = Vec::new();
                flatten(any_of, &mut nums, &mut strs);
                if !strs.is_empty() || nums.is_empty() {
                    self.nested("value", |c| {
                        c.error("contains", "takes one or more numbers")
                    });
                }
                pred.contains = Some(nums);
            }
            m.value = Some(pred);
        }
        if let Some(r) = &v.runtime {
            m.runtime = self.runtime("runtime", r);
        }
        if let Some(r) = &v.range {
            if r.min.is_none() && r.max.is_none() {
                self.error("range", "names no bound (min or max)");
            }
            m.range = Some(self.nested("range", |c| RangeM {
                min: r.min.as_ref().map(|x| c.count("min", x)),
                max: r.max.as_ref().map(|x| c.count("max", x)),
            }));
        }
        if let Some(p) = &v.producer {
            let (pm, pv) = self.nested("producer", |c| c.rule(p, false));
            self.merge("producer", &mut vars, pv);
            m.producer = Some(Box::new(pm));
        }
        if let Some(all) = &v.all {
            for (i, spec) in all.iter().enumerate() {
                let (one, one_vars) =
                    self.nested("all", |c| c.nested(&i.to_string(), |c| c.value_spec(spec)));
                self.merge("all", &mut vars, one_vars);
                m.all.push(one);
            }
        }
        if let Some(any) = &v.any {
            if any.is_empty() {
                self.error("any", "lists no value object");
            }
            let branches = any
                .iter()
                .enumerate()
                .map(|(i, spec)| {
                    self.nested("any", |c| {
                        c.nested(&i.to_string(), |c| c.uncaptured(spec, "any"))
                    })
                })
                .collect();
            m.any = Some(branches);
        }
        if let Some(not) = &v.not {
            m.not = Some(Box::new(self.nested("not", |c| c.uncaptured(not, "not"))));
        }
        if let Some(c) = &v.capture {
            m.capture = self.capture("capture", c, VarKind::Value, &mut vars);
        }
        (m, vars)
    }

    /// A value object of `any:` / `not:`, which may not capture: a branch that does not hold
    /// binds nothing, so a capture there could be unbound in the message.
    fn uncaptured(&mut self, spec: &ValueSpec, key: &str) -> ValueM {
        let (m, vars) = self.value_spec(spec);
        if let Some(name) = vars.keys().next() {
            let at = if spec.capture.is_some() {
                "capture"
            } else {
                ""
            };
            self.error(
                at,
                format!("`${name}` is captured inside `{key}:`: capture the value beside `{key}:` instead"),
            );
        }
        m
    }

    fn function(&mut self, props: &Props) -> FunctionM {
        self.nested("function", |c| {
            let f = c
                .props::<FunctionSpec>("functions", props)
                .unwrap_or_default();
            c.function_spec(&f)
        })
    }

    fn function_spec(&mut self, f: &FunctionSpec) -> FunctionM {
        let c = self;
        FunctionM {
            name: f.name.as_ref().and_then(|r| c.regex("name", r.pattern())),
            opset: f.opset.as_ref().and_then(|o| c.opset("opset", o)),
            states: f.states.as_ref().map(|x| c.count("states", x)),
            max_state_dim: f
                .max_state_dim
                .as_ref()
                .map(|x| c.count("max-state-dim", x)),
            dynamic_inputs: f.dynamic_inputs,
        }
    }

    /// `target:`; binds `TARGET`.
    pub fn target(&mut self, props: &Props, vars: &mut Vars) -> TargetM {
        self.bind("target", TARGET_VAR, VarKind::Target, vars);
        self.nested("target", |c| {
            let errors = c.errors.len();
            let t = c
                .props::<TargetSpec>("the deployment target", props)
                .unwrap_or_default();
            let mut families = |key: &str, list: &OneOrMany| {
                let mut out = std::collections::BTreeSet::new();
                for w in list.to_vec() {
                    match super::target::families_of(&w) {
                        Some(f) => out.extend(f),
                        None => {
                            let known = super::target::known_families();
                            c.error(
                                key,
                                format!(
                                    "unknown chip family `{w}`{} (a12…a19, m1…m5, iphone, mac)",
                                    did_you_mean(&w, known.iter().map(String::as_str))
                                ),
                            )
                        }
                    }
                }
                out
            };
            let fams = t.families.as_ref().map(|l| families("families", l));
            let only = t.only_families.as_ref().map(|l| families("only-families", l));
            let os_before = t.os_before.as_ref().and_then(|w| {
                if w == "required" {
                    return Some(OsBound::Required);
                }
                let level = super::target::os_level_of(w);
                if level.is_none() {
                    c.error(
                        "os-before",
                        format!("`{w}`: expected an opset or OS (ios18, CoreML8, macos15) or `required`"),
                    );
                }
                level.map(OsBound::Level)
            });
            let units = t.units.as_ref().map(|list| {
                let mut out = std::collections::BTreeSet::new();
                for w in list.to_vec() {
                    match super::units::Unit::parse(&w) {
                        Some(u) => {
                            out.insert(u);
                        }
                        None => c.error("units", format!("unknown compute unit `{w}` (ane, gpu, cpu)")),
                    }
                }
                out
            });
            if fams.is_none()
                && only.is_none()
                && os_before.is_none()
                && units.is_none()
                && c.errors.len() == errors
            {
                c.error("", "names no condition (families, only-families, os-before or units)");
            }
            TargetM {
                units,
                families: fams,
                only,
                os_before,
            }
        })
    }

    fn state_write(&mut self, props: &Props, vars: &mut Vars) -> StateWriteM {
        self.nested("state-write", |c| {
            let s = c
                .props::<StateWriteSpec>("state writes", props)
                .unwrap_or_default();
            let mut m = StateWriteM {
                full: s.full,
                known: s.known,
                rmw: s.rmw,
                partial_axes: s.partial_axes.as_ref().map(|x| c.count("partial-axes", x)),
                uncovered: s.uncovered.as_ref().map(|x| c.count("uncovered", x)),
                writes: s.writes.as_ref().map(|x| c.count("writes", x)),
                nth: s.nth.as_ref().map(|x| c.count("nth", x)),
                first: s.first,
                runtime_begin: s
                    .runtime_begin
                    .as_ref()
                    .and_then(|r| c.runtime("runtime-begin", r)),
                runtime_end: s
                    .runtime_end
                    .as_ref()
                    .and_then(|r| c.runtime("runtime-end", r)),
                ..StateWriteM::default()
            };
            if let Some(k) = &s.kind {
                let mut kinds = Vec::new();
                for w in k.to_vec() {
                    match WriteKind::parse(&w) {
                        Some(kind) => kinds.push(kind),
                        None => c.error(
                            "kind",
                            format!(
                                "`{w}`: expected slice-update, blend, scatter, concat or fresh"
                            ),
                        ),
                    }
                }
                m.kind = Some(kinds);
            }
            if let Some(k) = &s.write_op {
                let mut ops = Vec::new();
                for w in k.to_vec() {
                    match w.as_str() {
                        "write-state" => ops.push(WriteOp::WriteState),
                        "coreml-update-state" => ops.push(WriteOp::CoremlUpdateState),
                        other => c.error(
                            "write-op",
                            format!("`{other}`: expected write-state or coreml-update-state"),
                        ),
                    }
                }
                m.write_op = Some(ops);
            }
            if let Some(t) = &s.state_type {
                let (vm, vv) = c.nested("state-type", |c| c.value_spec(t));
                c.merge("state-type", vars, vv);
                m.state_type = Some(vm);
            }
            if let Some(st) = &s.state {
                m.state = c.capture("state", st, VarKind::State, vars);
            }
            if let Some(w) = &s.window {
                m.window = c.capture("window", w, VarKind::Write, vars);
            }
            m
        })
    }

    fn relation(&mut self, key: &str, r: &SerRule) -> (Relation, Vars) {
        self.nested(key, |c| {
            let (rule, vars) = c.rule(r, true);
            let stop = match &r.stop_by {
                None => StopBy::Neighbor,
                Some(StopBySpec::Word(w)) if w == "neighbor" => StopBy::Neighbor,
                Some(StopBySpec::Word(w)) if w == "end" => StopBy::End,
                Some(StopBySpec::Word(w)) => {
                    c.error(
                        "stop-by",
                        format!("`{w}`: expected neighbor, end or a rule object"),
                    );
                    StopBy::Neighbor
                }
                Some(StopBySpec::Rule(sr)) => {
                    // Captures inside stop-by are not bound by the relation. `not:` alone is
                    // allowed: "stop at anything but these ops" walks only through them.
                    let (m, _) = c.nested("stop-by", |c| c.rule_object(sr, false, true));
                    StopBy::Rule(Box::new(m))
                }
            };
            (
                Relation {
                    rule: Box::new(rule),
                    stop,
                    via: r.via.clone(),
                },
                vars,
            )
        })
    }

    /// `reasons:`: each entry's rule object with its text, checked against the entry's own
    /// captures; binds the list of texts.
    fn reasons(&mut self, rs: &ReasonsSpec, vars: &mut Vars) -> Option<Matcher> {
        let mut entries = Vec::new();
        for (i, e) in rs.of.iter().enumerate() {
            let entry = self.nested("of", |c| {
                c.nested(&i.to_string(), |c| {
                    let (rule, own) = c.nested("match", |c| c.rule(&e.matcher, false));
                    let text = match Template::parse(&e.text) {
                        Ok(t) => t,
                        Err(err) => {
                            c.error("text", err);
                            return None;
                        }
                    };
                    for err in text.check(&own) {
                        c.error("text", err);
                    }
                    Some(Reason { rule, text })
                })
            });
            entries.extend(entry);
        }
        if rs.of.is_empty() {
            self.error("of", "is empty");
        }
        let capture = self.capture("capture", &rs.capture, VarKind::Reasons, vars)?;
        Some(Matcher::Reasons { capture, entries })
    }

    /// `peers:`: the rule object the function's ops are tested with, and the count and position
    /// asked for.
    fn peers(&mut self, p: &PeersSpec, vars: &mut Vars) -> Matcher {
        let (rule, _) = self.nested("match", |c| c.rule(&p.matcher, false));
        let props = self
            .props::<PeerProps>("peers", &p.props)
            .unwrap_or_default();
        let count = props.count.as_ref().map(|c| self.count("count", c));
        let nth = props.nth.as_ref().map(|c| self.count("nth", c));
        let capture = p
            .capture
            .as_ref()
            .and_then(|c| self.capture("capture", c, VarKind::Peers, vars));
        Matcher::Peers(Box::new(PeersM {
            rule,
            count,
            nth,
            capture,
        }))
    }

    /// Compiles a rule object found under `key` (captures it binds are ignored).
    pub fn nested_rule(&mut self, key: &str, r: &SerRule) -> (Matcher, Vars) {
        self.nested(key, |c| c.rule(r, false))
    }

    /// Compiles a rule object. `relation` allows `stop-by` / `via` (the object is a relation body).
    pub fn rule(&mut self, r: &SerRule, relation: bool) -> (Matcher, Vars) {
        self.rule_object(r, relation, false)
    }

    /// A rule object. A member of an `all` list (`conjunct`) may be negative only (`not: …`): the
    /// list as a whole must have a positive member.
    fn rule_object(&mut self, r: &SerRule, relation: bool, conjunct: bool) -> (Matcher, Vars) {
        let mut vars = Vars::new();
        let mut atomic = Vec::new();
        let mut composite = Vec::new();
        let mut relational = Vec::new();
        if !relation && (r.stop_by.is_some() || r.via.is_some()) {
            self.error(
                if r.stop_by.is_some() {
                    "stop-by"
                } else {
                    "via"
                },
                "only allowed inside fed-by, feeds, inside or has",
            );
        }
        let op_props = self.op_props(&r.props);
        let opset = op_props.opset.as_ref().and_then(|o| self.opset("opset", o));
        if let Some(op) = &r.op {
            let types = op.to_vec();
            if types.is_empty() {
                self.error("op", "names no op type");
            }
            atomic.push(Matcher::OpType { types, opset });
        } else if op_props.opset.is_some() {
            self.error(
                "opset",
                "`opset:` goes with `op:` (the function's opset alone is `function: { opset }`)",
            );
        }
        if let Some(v) = &r.input {
            let (m, vv) = self.nested("input", |c| c.value(v));
            self.merge("input", &mut vars, vv);
            atomic.push(Matcher::Input(Box::new(m)));
        }
        if let Some(s) = &r.state_write {
            let m = self.state_write(s, &mut vars);
            atomic.push(Matcher::StateWrite(Box::new(m)));
        }
        if let Some(params) = &r.param {
            for (name, v) in params {
                let (m, vv) = self.nested("param", |c| c.nested(name, |c| c.value(v)));
                self.merge("param", &mut vars, vv);
                atomic.push(Matcher::Param(name.clone(), Box::new(m)));
            }
        }
        if let Some(v) = &r.output {
            let (m, vv) = self.nested("output", |c| c.value(v));
            self.merge("output", &mut vars, vv);
            atomic.push(Matcher::Output(Box::new(m)));
        }
        if let Some(attrs) = &r.attr {
            for (name, v) in attrs {
                let (m, vv) = self.nested("attr", |c| c.nested(name, |c| c.value(v)));
                self.merge("attr", &mut vars, vv);
                atomic.push(Matcher::Attr(name.clone(), Box::new(m)));
            }
        }
        if let Some(a) = &op_props.axis_dim {
            let size = self.nested("axis-dim", |c| c.count("size", &a.size));
            atomic.push(Matcher::AxisDim {
                of: a.of.clone(),
                axis: a.axis.clone(),
                size,
            });
        }
        if let Some(i) = &op_props.implied_shape {
            let capture = i.capture.as_ref().and_then(|c| {
                self.nested("implied-shape", |cc| {
                    cc.capture("capture", c, VarKind::Value, &mut vars)
                })
            });
            atomic.push(Matcher::ImpliedShape {
                differs_from: i.differs_from.clone(),
                capture,
            });
        }
        if let Some(a) = &op_props.blocked_axes {
            let count = self.nested("blocked-axes", |c| c.count("count", &a.count));
            atomic.push(Matcher::BlockedAxes {
                of: a.of.clone(),
                over: a.over.clone(),
                except: a.except.clone(),
                count,
            });
        }
        if let Some(re) = &r.name {
            if let Some(re) = self.regex("name", re.pattern()) {
                atomic.push(Matcher::Name(re));
            }
        }
        if let Some(f) = &r.function {
            atomic.push(Matcher::Function(Box::new(self.function(f))));
        }
        if let Some(props) = &r.model {
            let m = self
                .nested("model", |c| c.props::<ModelSpec>("models", props))
                .unwrap_or_default();
            let spec_version = m
                .spec_version
                .as_ref()
                .map(|c| self.nested("model", |cc| cc.count("spec-version", c)));
            let converter_version = m.converter_version.as_ref().map(|v| {
                self.nested("model", |cc| {
                    cc.nested("converter-version", |c| c.versions(v))
                })
            });
            let coreai = m
                .program
                .map(|p| p == super::schema::ProgramLanguage::Coreai);
            atomic.push(Matcher::Model(ModelM {
                spec_version,
                converter_version,
                coreai,
            }));
        }
        if let Some(t) = &r.target {
            let m = self.target(t, &mut vars);
            atomic.push(Matcher::Target(Box::new(m)));
        }
        if let Some(list) = &r.all {
            let mut ms = Vec::new();
            for (i, sub) in list.iter().enumerate() {
                let (m, vv) = self.nested("all", |c| {
                    c.nested(&i.to_string(), |c| c.rule_object(sub, false, true))
                });
                self.merge("all", &mut vars, vv);
                ms.push(m);
            }
            if ms.is_empty() {
                self.error("all", "is empty");
            } else if !ms.iter().any(is_positive) {
                self.error(
                    "all",
                    "needs at least one positive member; `not` alone matches everything else",
                );
            }
            composite.push(Matcher::All(ms));
        }
        if let Some(list) = &r.any {
            let mut ms = Vec::new();
            let mut common: Option<Vars> = None;
            for (i, sub) in list.iter().enumerate() {
                let (m, vv) =
                    self.nested("any", |c| c.nested(&i.to_string(), |c| c.rule(sub, false)));
                common = Some(match common {
                    None => vv,
                    Some(prev) => prev
                        .into_iter()
                        .filter(|(k, kind)| vv.get(k) == Some(kind))
                        .collect(),
                });
                ms.push(m);
            }
            if ms.is_empty() {
                self.error("any", "is empty");
            }
            self.merge("any", &mut vars, common.unwrap_or_default());
            composite.push(any_of(ms));
        }
        if let Some(n) = &r.not {
            let (m, _) = self.nested("not", |c| c.rule(n, false));
            composite.push(Matcher::Not(Box::new(m)));
        }
        if let Some(rs) = &r.reasons {
            if let Some(m) = self.nested("reasons", |c| c.reasons(rs, &mut vars)) {
                composite.push(m);
            }
        }
        if let Some(name) = &r.matches {
            if let Some((m, vv)) = self.fragment(name) {
                self.merge("matches", &mut vars, vv);
                composite.push(m);
            }
        }
        for (key, body, make) in [
            (
                "fed-by",
                &r.fed_by,
                Matcher::FedBy as fn(Relation) -> Matcher,
            ),
            ("feeds", &r.feeds, Matcher::Feeds),
            ("inside", &r.inside, Matcher::Inside),
            ("has", &r.has, Matcher::Has),
        ] {
            if let Some(body) = body {
                let (rel, vv) = self.relation(key, body);
                self.merge(key, &mut vars, vv);
                relational.push(make(rel));
            }
        }
        if let Some(p) = &r.peers {
            let m = self.nested("peers", |c| c.peers(p, &mut vars));
            relational.push(m);
        }
        if let Some(c) = &r.capture {
            let name = self.capture("capture", c, VarKind::Node, &mut vars);
            if let Some(name) = name {
                relational.push(Matcher::Capture(name));
            }
        }
        if let Some(o) = &r.origin {
            let top = self.path.len() == 1 && self.path[0] == "match";
            let alone = atomic.is_empty() && composite.is_empty() && relational.is_empty();
            if !top || !alone {
                self.error(
                    "origin",
                    "`origin:` must be the only key of `match` (put the other keys inside it)",
                );
            }
            let (m, vv) = self.nested("origin", |c| c.rule(o, false));
            self.merge("origin", &mut vars, vv);
            self.bind("origin", REGION_VAR, VarKind::Region, &mut vars);
            atomic.push(Matcher::Origin(Box::new(m)));
        }
        if let Some(list) = &r.compare {
            let top = self.path.len() == 1 && self.path[0] == "match";
            if !top || r.origin.is_some() {
                self.error(
                    "compare",
                    "`compare:` goes at the top of `match`, beside the keys that bind its \
                     captures (not inside `origin:`, `any:`, `not:` or a relation)",
                );
            } else if let Some(m) = self.nested("compare", |c| c.compare(list, &vars)) {
                relational.push(m);
            }
        }
        let positive = !atomic.is_empty()
            || composite.iter().any(is_positive)
            || relational.iter().any(is_positive);
        if !positive && !conjunct && r.matches.is_none() && r.props.is_empty() {
            self.error(
                "",
                "a rule object needs a positive matcher (op, input, state-write, param, output, \
                 attr, name, function, model, target, all, any, axis-dim, implied-shape, blocked-axes, \
                 reasons, matches, fed-by, feeds, inside, has, peers or origin); \
                 `not` alone matches everything else",
            );
        }
        let mut all = atomic;
        all.extend(composite);
        all.extend(relational);
        let mut all = cheapest_first(all);
        let m = if all.len() == 1 {
            all.pop().unwrap_or(Matcher::All(Vec::new()))
        } else {
            Matcher::All(all)
        };
        (m, vars)
    }
}

/// The names of `T`'s properties as written (its schema's `properties`), generated once per type:
/// every value object of every rule asks.
pub(crate) fn property_names<T: schemars::JsonSchema>() -> Vec<String> {
    static NAMES: std::sync::OnceLock<
        std::sync::Mutex<BTreeMap<std::borrow::Cow<'static, str>, Vec<String>>>,
    > = std::sync::OnceLock::new();
    let cache = NAMES.get_or_init(Default::default);
    let mut cache = cache
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    cache
        .entry(T::schema_id())
        .or_insert_with(|| {
            schemars::schema_for!(T)
                .get("properties")
                .and_then(serde_json::Value::as_object)
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default()
        })
        .clone()
}

/// `any:` whose alternatives are all op types (with no opset range) is one op-type test: every
/// node skips a test per alternative (`weight-op` is such a fragment).
fn any_of(alternatives: Vec<Matcher>) -> Matcher {
    let mut all_types = Vec::new();
    for m in &alternatives {
        match m {
            Matcher::OpType { types, opset: None } => all_types.extend(types.iter().cloned()),
            _ => return Matcher::Any(alternatives),
        }
    }
    if all_types.is_empty() {
        return Matcher::Any(alternatives);
    }
    Matcher::OpType {
        types: all_types,
        opset: None,
    }
}

/// False for matchers that only exclude (`not`) or only capture: they cannot select a node alone.
fn is_positive(m: &Matcher) -> bool {
    match m {
        Matcher::Not(_) | Matcher::Capture(_) | Matcher::Compare(_) => false,
        Matcher::All(list) => list.iter().any(is_positive),
        _ => true,
    }
}

fn flatten(s: &Scalars, nums: &mut Vec<f64>, strs: &mut Vec<String>) {
    match s {
        Scalars::Bool(b) => nums.push(f64::from(u8::from(*b))),
        Scalars::Int(i) => nums.push(*i as f64),
        Scalars::Float(x) => nums.push(*x),
        Scalars::Str(x) => strs.push(x.clone()),
        Scalars::List(v) => v.iter().for_each(|x| flatten(x, nums, strs)),
    }
}
