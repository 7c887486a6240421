//! Constant values and run-time dependence of one function, as the op-set checks ask for them.
//! When the function's [`FunctionAnalysis`] was computed already (the rules need it), every answer
//! comes from it: one pass per function serves both. Otherwise they are computed only as far as
//! the checks ask. The checks ask about constant parameters (`shape`, `perm`, `axis`, …), which are
//! almost always bound to a `const` op: such a value is answered from the op itself, and anything
//! else runs the whole-function pass ([`consteval::evaluate`], [`dependence::analyze`]) once. The
//! shortcut is taken only in functions without nested blocks, where every name has one definition,
//! so it answers exactly as the pass does.

use std::cell::OnceCell;

use crate::analysis::consteval::{self, ConstData, ConstEnv, ConstLookup, ConstValue};
use crate::analysis::dependence::{self, Dependence, DependenceMap};
use crate::analysis::FunctionAnalysis;
use crate::ir::{Arg, Function, Op};

/// How many ops up a value is traced before the dependence pass is asked instead.
const TRACE_DEPTH: u32 = 4;

/// The op-set checks' view of a function's constant values and run-time dependence.
pub(crate) struct FunctionValues<'a> {
    f: &'a Function,
    /// The function's analysis, when it was computed already.
    shared: Option<&'a FunctionAnalysis>,
    /// No nested blocks: every name has one definition.
    flat: bool,
    consts: OnceCell<ConstEnv>,
    deps: OnceCell<DependenceMap>,
}

impl<'a> FunctionValues<'a> {
    /// Answers from `shared`, the analysis of `f`, when given; otherwise nothing is computed until
    /// it is asked for.
    pub(crate) fn new(f: &'a Function, shared: Option<&'a FunctionAnalysis>) -> FunctionValues<'a> {
        FunctionValues {
            f,
            shared,
            flat: f.blocks.len() <= 1,
            consts: OnceCell::new(),
            deps: OnceCell::new(),
        }
    }

    /// The function.
    pub(crate) fn function(&self) -> &'a Function {
        self.f
    }

    /// The defining op of `name` and which of its results it is, in a flat function.
    fn defining_op(&self, name: &str) -> Option<(&'a Op, u32)> {
        if !self.flat {
            return None;
        }
        let def = self.f.def(name)?;
        Some((self.f.op(def.node)?, def.output))
    }

    /// `read` of the constant value bound to a single-binding parameter of `op` (as
    /// [`ConstEnv::param`]), read where the function's analysis keeps it when it does.
    pub(crate) fn param<R>(
        &self,
        op: &Op,
        param: &str,
        read: impl FnOnce(&ConstValue) -> Option<R>,
    ) -> Option<R> {
        let arg = op.arg(param)?;
        match (self.shared, arg) {
            (Some(a), Arg::Name(name)) => read(a.consts.get(name)?),
            _ => read(&self.arg(arg)?),
        }
    }

    /// [`ConstEnv::partial_ints`] of a parameter of `op`.
    pub(crate) fn partial_ints(&self, op: &Op, param: &str, len: usize) -> Vec<Option<i64>> {
        // A named integer constant of rank 0 or 1 the analysis keeps, read in place: what the
        // general path gives for it (its elements when there are `len`).
        if let (Some(a), Some(Arg::Name(name))) = (self.shared, op.arg(param)) {
            if let Some(ConstValue {
                shape,
                data: ConstData::Ints(ints),
                ..
            }) = a.consts.get(name)
            {
                if shape.len() <= 1 {
                    return if ints.len() == len {
                        ints.iter().map(|&i| Some(i)).collect()
                    } else {
                        vec![None; len]
                    };
                }
            }
        }
        consteval::partial_ints(self, self.f, op, param, len)
    }

    /// The run-time dependence of a named value, as [`DependenceMap::get`] (`None`: compile-time).
    pub(crate) fn dependence(&self, name: &str) -> Option<&Dependence> {
        if let Some(a) = self.shared {
            return a.deps.get(name);
        }
        if self.compile_time(name, TRACE_DEPTH) {
            return None;
        }
        self.deps
            .get_or_init(|| dependence::analyze(self.f))
            .get(name)
    }

    /// True when `name` is computed from constants only, within `depth` ops up; false when that
    /// is not known this way.
    fn compile_time(&self, name: &str, depth: u32) -> bool {
        let Some((op, _)) = self.defining_op(name) else {
            return false;
        };
        // `shape` depends on the type of its input, and nested blocks on their contents.
        if depth == 0 || op.op_type == "shape" || !op.blocks.is_empty() {
            return false;
        }
        op.inputs.iter().flat_map(|p| &p.args).all(|a| match a {
            Arg::Name(n) => self.compile_time(n, depth - 1),
            Arg::Value(_) => true,
        })
    }
}

impl ConstLookup for FunctionValues<'_> {
    fn arg(&self, arg: &Arg) -> Option<ConstValue> {
        let name = match arg {
            Arg::Name(n) => n,
            Arg::Value(lit) => return ConstValue::from_literal(lit),
        };
        if let Some(a) = self.shared {
            return a.consts.get(name).cloned();
        }
        match self.defining_op(name) {
            // What the pass stores for a `const` op's result.
            Some((op, output)) if op.op_type == "const" => (output == 0)
                .then(|| op.attributes.get("val"))
                .flatten()
                .and_then(ConstValue::from_literal),
            _ => self
                .consts
                .get_or_init(|| consteval::evaluate(self.f))
                .get(name)
                .cloned(),
        }
    }
}
