//! Run-time dependence: which values depend on a function input when the function runs.
//!
//! A value depends on an input through its data (it is computed from the input's elements, or from a
//! state's content) or through its shape only (`shape(x)` of a dynamically shaped `x`). `shape(x)` of a
//! statically shaped `x` is a constant whatever `x` holds. One forward pass in program order.

use rustc_hash::FxHashMap;

use crate::ir::{Function, Name, Node, Op, ValueType};

/// How a value depends on run-time data.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dependence {
    /// Computed from the elements of a function input or a state's content.
    pub data: bool,
    /// Computed from the (dynamic) shape of a value.
    pub shape: bool,
    /// The first function input the value was traced to.
    pub source: Option<Name>,
}

impl Dependence {
    /// True when the value changes from one run to the next.
    pub fn runtime(&self) -> bool {
        self.data || self.shape
    }

    /// A short description: ``function input `pos` `` or ``the shape of `x` ``.
    pub fn describe(&self) -> String {
        let src = self.source.as_deref().unwrap_or("?");
        match (self.data, self.shape) {
            (true, _) => format!("function input `{src}`"),
            (false, true) => format!("the shape of `{src}`"),
            _ => "constants only".to_string(),
        }
    }
}

/// Value name → dependence, for every run-time value (values not listed are compile-time).
#[derive(Clone, Debug, Default)]
pub struct DependenceMap {
    values: FxHashMap<Name, Dependence>,
}

impl DependenceMap {
    /// The dependence of a named value (`None`: compile-time).
    pub fn get(&self, name: &str) -> Option<&Dependence> {
        self.values.get(name)
    }

    /// True when the value depends on run-time data or shapes.
    pub fn is_runtime(&self, name: &str) -> bool {
        self.get(name).is_some_and(Dependence::runtime)
    }
}

fn is_dynamic(ty: Option<&ValueType>) -> bool {
    match ty.and_then(ValueType::tensor) {
        Some(t) => t.is_dynamic(),
        None => true,
    }
}

/// Computes the run-time dependence of every value of `f`.
pub fn analyze(f: &Function) -> DependenceMap {
    let mut map = DependenceMap::default();
    // Most values of a function are run-time values: the table is sized once.
    map.values.reserve(f.values.len());
    for (_, inp) in f.inputs() {
        map.values.insert(
            inp.name.clone(),
            Dependence {
                data: true,
                shape: false,
                source: Some(inp.name.clone()),
            },
        );
    }
    // Block parameters (loop variables) are run-time values.
    for block in f.blocks.iter().skip(1) {
        for &id in &block.inputs {
            if let Some(Node::Input(inp)) = f.node(id) {
                map.values.insert(
                    inp.name.clone(),
                    Dependence {
                        data: true,
                        shape: false,
                        source: Some(inp.name.clone()),
                    },
                );
            }
        }
    }
    for (_, op) in f.ops() {
        let Some(dep) = op_dependence(f, &map, op) else {
            continue;
        };
        if let Some((last, rest)) = op.outputs.split_last() {
            for out in rest {
                map.values.insert(out.name.clone(), dep.clone());
            }
            map.values.insert(last.name.clone(), dep);
        }
    }
    map
}

/// The dependence of `op`'s results, when they are run-time values.
fn op_dependence(f: &Function, map: &DependenceMap, op: &Op) -> Option<Dependence> {
    if op.op_type == "shape" {
        let x = op.arg_name("x")?;
        if !is_dynamic(f.value_type(x)) {
            return None;
        }
        let source = map.get(x).and_then(|d| d.source.clone());
        return Some(Dependence {
            data: false,
            shape: true,
            source: source.or_else(|| Some(Name::from(x))),
        });
    }
    let (mut data, mut shape) = (false, false);
    // The source of the first run-time argument that has one.
    let mut source: Option<&Name> = None;
    for p in &op.inputs {
        for arg in &p.args {
            if let crate::ir::Arg::Name(n) = arg {
                if let Some(d) = map.get(n) {
                    data |= d.data;
                    shape |= d.shape;
                    source = source.or(d.source.as_ref());
                }
            }
        }
    }
    if data || shape {
        return Some(Dependence {
            data,
            shape,
            source: source.cloned(),
        });
    }
    // Results of ops with nested blocks come from the blocks: assume run-time.
    (!op.blocks.is_empty()).then(|| Dependence {
        data: true,
        shape: false,
        source: Some(op.display_name().into()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::testutil::*;
    use crate::ir::{DType, Dim, TensorType};

    #[test]
    fn data_and_shape_dependence() {
        let dynamic = ValueType::Tensor(TensorType {
            dtype: DType::Fp16,
            shape: Some(vec![Dim::Known(1), Dim::Unknown]),
        });
        let f = func(
            vec![
                input("pos", tensor(DType::Int32, &[1])),
                input("x", dynamic),
                input("y", tensor(DType::Fp16, &[1, 4])),
            ],
            vec![
                konst("one", scalar_int(1)),
                op(
                    "add",
                    "p1",
                    &[("x", "pos"), ("y", "one")],
                    tensor(DType::Int32, &[1]),
                ),
                op("shape", "sx", &[("x", "x")], tensor(DType::Int32, &[2])),
                op(
                    "sub",
                    "sx1",
                    &[("x", "sx"), ("y", "one")],
                    tensor(DType::Int32, &[2]),
                ),
                op("shape", "sy", &[("x", "y")], tensor(DType::Int32, &[2])),
                op(
                    "add",
                    "c",
                    &[("x", "one"), ("y", "one")],
                    tensor(DType::Int32, &[]),
                ),
            ],
        );
        let m = analyze(&f);
        let p1 = m.get("p1").expect("p1 is run-time");
        assert!(p1.data && !p1.shape);
        assert_eq!(p1.source.as_deref(), Some("pos"));
        let sx1 = m.get("sx1").expect("shape of a dynamic input is run-time");
        assert!(sx1.shape && !sx1.data);
        assert_eq!(sx1.source.as_deref(), Some("x"));
        assert!(!m.is_runtime("sy"), "shape of a static input is constant");
        assert!(!m.is_runtime("c"));
    }
}
