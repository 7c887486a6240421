//! The layer each op of a function belongs to, as a slash path (`layers.3/self_attn`): the
//! namespaces of the Model Explorer export and the layers of the HTML overview.
//!
//! Converters keep the module path in the names of the weights an op reads: coremltools names a
//! parameter after its torch module (`layers_3_self_attn_q_proj_weight_to_fp16`,
//! `blocks_0_attn_q_weight`, `model_model_4_cv1_conv_weight_to_fp16_palettized`), while the ops
//! themselves get numbered names (`linear_5`, `op_227_cast_fp16`). An op reading a named weight
//! gets its module's layer; the ops between two of them (the attention arithmetic, activations,
//! residual adds) get the layer of the last named op before them.
//!
//! A program written without module names (the MIL builder's `linear_182`) falls back on its
//! repetition: when some op type occurs k ≥ 2 times at one spacing p and the op types repeat with
//! period p around it, the function is cut into k layers of p ops, where the fewest values cross
//! the cut (in a transformer, the hidden state alone).

use rustc_hash::FxHashMap;

use crate::analysis::placement::OpTable;
use crate::ir::{Arg, Function, NodeId, Op};

/// Where the layers came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayerSource {
    /// The module paths in the weights' names.
    Names,
    /// The repetition of op types.
    Repetition,
    /// Neither: every op is at the top level.
    None,
}

/// The layer of every drawn op of a function.
#[derive(Clone, Debug)]
pub struct Layers {
    /// Distinct namespaces, `""` (the top level) first.
    names: Vec<String>,
    /// Drawn op → index into `names`.
    of: FxHashMap<NodeId, u32>,
    /// The drawn ops (those the estimate counts: constants are not drawn), in program order.
    pub ops: Vec<NodeId>,
    /// How the layers were found.
    pub source: LayerSource,
}

impl Layers {
    /// The namespace of op `id` (`""` at the top level or for an op not drawn).
    pub fn of(&self, id: NodeId) -> &str {
        self.of
            .get(&id)
            .and_then(|&i| self.names.get(i as usize))
            .map_or("", String::as_str)
    }

    /// Every distinct namespace that holds an op, in order of first use (`""` excluded).
    pub fn namespaces(&self) -> impl Iterator<Item = &str> {
        self.names.iter().skip(1).map(String::as_str)
    }
}

/// Parameter names a weight's name ends with (after the converter's suffixes).
const PARAMETERS: &[&str] = &["weight", "bias", "mean", "var"];
/// Words coremltools appends to a weight's name (`_to_fp16`, `_palettized`, …).
const CONVERTER_SUFFIXES: &[&str] = &[
    "to",
    "fp16",
    "fp32",
    "int8",
    "uint8",
    "int4",
    "uint4",
    "palettized",
    "quantized",
    "sparsified",
    "dequantized",
    "promoted",
    "cast",
];
/// Last words of a module name that take the word before them (`q_proj`, `layer_norm`).
const TWO_WORD_LEAVES: &[&str] = &["proj", "norm", "layernorm"];

/// The layer a weight called `name` belongs to: `Some("layers.3/self_attn")`, `Some("")` for a
/// named top-level module (`embed_weight`), `None` when `name` is no parameter's name.
pub fn weight_layer(name: &str) -> Option<String> {
    let mut words: Vec<&str> = name.split('_').filter(|w| !w.is_empty()).collect();
    if words.len() > 2 && words[0] == "p" {
        // torch.export names parameters `p_<module path>`.
        words.remove(0);
    }
    while words.last().is_some_and(|w| CONVERTER_SUFFIXES.contains(w)) {
        words.pop();
    }
    let last = words.pop()?;
    if !PARAMETERS.contains(&last) {
        return None;
    }
    if matches!(last, "mean" | "var") {
        // `running_mean`, `running_var`.
        if words.pop() != Some("running") {
            return None;
        }
    }
    if words.is_empty() {
        return None;
    }
    let mut levels: Vec<String> = Vec::new();
    let mut segment: Vec<&str> = Vec::new();
    for w in &words {
        if w.bytes().all(|b| b.is_ascii_digit()) && !segment.is_empty() {
            levels.push(format!("{}.{w}", segment.join("_")));
            segment.clear();
        } else {
            segment.push(w);
        }
    }
    if levels.is_empty() {
        return Some(String::new());
    }
    // `segment` is the module under the last numbered level: its leaf (`q_proj`, with what is
    // under it: `q_proj_pretrained`) is dropped.
    let sub = match (1..segment.len()).find(|&i| TWO_WORD_LEAVES.contains(&segment[i])) {
        Some(i) => &segment[..i - 1],
        None => &segment[..segment.len().saturating_sub(1)],
    };
    if !sub.is_empty() {
        levels.push(sub.join("_"));
    }
    Some(levels.join("/"))
}

fn arg_names(op: &Op) -> impl Iterator<Item = &str> {
    op.inputs.iter().flat_map(|p| {
        p.args.iter().filter_map(|a| match a {
            Arg::Name(n) => Some(n.as_str()),
            Arg::Value(_) => None,
        })
    })
}

/// The layer of the first named weight `op` reads.
fn named_layer(f: &Function, t: &OpTable, op: &Op) -> Option<String> {
    arg_names(op).find_map(|a| {
        let producer = f.op(f.def(a)?.node)?;
        if !t.not_counted(&producer.op_type) {
            return None;
        }
        weight_layer(producer.display_name()).or_else(|| weight_layer(a))
    })
}

/// Fewest ops a repeated layer has.
const MIN_PERIOD: usize = 6;
/// Share of positions of the repeated stretch whose op type must equal the type one period on.
const MIN_REPEAT_SHARE: f64 = 0.9;

/// The layers of `f`.
pub fn layers(f: &Function) -> Layers {
    let t = OpTable::builtin();
    let ops: Vec<NodeId> = f
        .ops()
        .filter(|(_, op)| !t.not_counted(&op.op_type))
        .map(|(id, _)| id)
        .collect();
    let named: Vec<Option<String>> = ops
        .iter()
        .map(|&id| f.op(id).and_then(|op| named_layer(f, t, op)))
        .collect();
    let numbered = {
        let mut seen: Vec<&str> = named
            .iter()
            .flatten()
            .filter(|n| !n.is_empty())
            .map(|n| n.split('/').next().unwrap_or(""))
            .collect();
        seen.sort_unstable();
        seen.dedup();
        seen.len()
    };
    let mut out = Layers {
        names: vec![String::new()],
        of: FxHashMap::default(),
        ops,
        source: LayerSource::None,
    };
    let mut index: FxHashMap<String, u32> = FxHashMap::default();
    index.insert(String::new(), 0);
    let mut assign = |out: &mut Layers, id: NodeId, name: &str| {
        let i = match index.get(name) {
            Some(&i) => i,
            None => {
                let i = out.names.len() as u32;
                out.names.push(name.to_string());
                index.insert(name.to_string(), i);
                i
            }
        };
        if i != 0 {
            out.of.insert(id, i);
        }
    };
    if numbered >= 2 {
        out.source = LayerSource::Names;
        let mut current = String::new();
        for (k, id) in out.ops.clone().into_iter().enumerate() {
            if let Some(n) = &named[k] {
                current.clone_from(n);
            }
            assign(&mut out, id, &current);
        }
        return out;
    }
    if let Some((start, period, count)) = repetition(f, &out.ops) {
        out.source = LayerSource::Repetition;
        let ops = out.ops.clone();
        for j in 0..count {
            let name = format!("layers.{j}");
            for &id in &ops[start + j * period..start + (j + 1) * period] {
                assign(&mut out, id, &name);
            }
        }
    }
    out
}

/// `(first op, period, layers)` of the repeated stretch of `ops`, when there is one.
fn repetition(f: &Function, ops: &[NodeId]) -> Option<(usize, usize, usize)> {
    let n = ops.len();
    let mut type_ids: FxHashMap<&str, u32> = FxHashMap::default();
    let types: Vec<u32> = ops
        .iter()
        .map(|&id| {
            let ty = f.op(id).map_or("", |o| o.op_type.as_str());
            let next = type_ids.len() as u32;
            *type_ids.entry(ty).or_insert(next)
        })
        .collect();
    let mut positions: Vec<Vec<usize>> = vec![Vec::new(); type_ids.len()];
    for (i, &ty) in types.iter().enumerate() {
        positions[ty as usize].push(i);
    }
    let mut candidates: Vec<&Vec<usize>> = positions.iter().filter(|p| p.len() >= 2).collect();
    // The coarsest repetition first: the type occurring fewest times.
    candidates.sort_by_key(|p| (p.len(), p[0]));
    let (first, period, count) = candidates.into_iter().find_map(|p| {
        let period = p[1] - p[0];
        if period < MIN_PERIOD || p.windows(2).any(|w| w[1] - w[0] != period) {
            return None;
        }
        let stretch = p[0]..p[p.len() - 1].min(n - period);
        let same = stretch
            .clone()
            .filter(|&i| types[i] == types[i + period])
            .count();
        (same as f64 >= MIN_REPEAT_SHARE * stretch.len() as f64).then_some((p[0], period, p.len()))
    })?;
    // Values live across each cut: cut c lies before op c.
    let position: FxHashMap<NodeId, usize> =
        ops.iter().enumerate().map(|(i, &id)| (id, i)).collect();
    let mut last_use = vec![0usize; n];
    for (b, &id) in ops.iter().enumerate() {
        for (src, _) in f.producers(id) {
            if let Some(&a) = position.get(&src) {
                last_use[a] = last_use[a].max(b);
            }
        }
    }
    let mut delta = vec![0i64; n + 2];
    for (a, &last) in last_use.iter().enumerate() {
        if last > a {
            delta[a + 1] += 1;
            delta[last + 1] -= 1;
        }
    }
    let mut live = Vec::with_capacity(n + 1);
    let mut running = 0i64;
    for d in delta.iter().take(n + 1) {
        running += d;
        live.push(running);
    }
    // The repeated stretch starts where the op types stop repeating, going back from the first
    // anchor; the first layer starts at its first cut with the fewest live values.
    let mut s = first;
    while s > 0 && types[s - 1] == types[s - 1 + period] {
        s -= 1;
    }
    let start = (s..s + period).min_by_key(|&c| (live[c], c))?;
    let count = count.min((n - start) / period);
    (count >= 2).then_some((start, period, count))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::snippet_model;

    #[test]
    fn weight_names_give_module_paths() {
        let cases = [
            (
                "layers_3_self_attn_q_proj_weight_to_fp16",
                Some("layers.3/self_attn"),
            ),
            (
                "layers_0_self_attn_layer_norm_bias_to_fp16",
                Some("layers.0/self_attn"),
            ),
            ("layers_0_fc1_weight_to_fp16", Some("layers.0")),
            ("blocks_0_attn_q_weight", Some("blocks.0/attn")),
            ("blocks_1_mlp_0_bias", Some("blocks.1/mlp.0")),
            (
                "model_model_15_m_0_cv2_conv_weight_to_fp16_palettized",
                Some("model_model.15/m.0/cv2"),
            ),
            ("p_layers_2_mlp_gate_proj_weight", Some("layers.2/mlp")),
            (
                "layers_0_self_attn_q_proj_pretrained_weight_to_fp16_palettized",
                Some("layers.0/self_attn"),
            ),
            ("layers_0_fc1_loraA_weight_to_fp16", Some("layers.0/fc1")),
            ("layers_1_input_layernorm_weight", Some("layers.1")),
            (
                "encoder_layers_1_norm_running_mean",
                Some("encoder_layers.1"),
            ),
            ("embed_weight", Some("")),
            ("op_34", None),
            ("var_227_end_0", None),
            ("weight", None),
            ("running_weight_mean", None),
        ];
        for (name, want) in cases {
            assert_eq!(weight_layer(name).as_deref(), want, "{name}");
        }
    }

    fn layer_program(layers: usize) -> String {
        let mut body = String::new();
        let mut h = "x".to_string();
        for l in 0..layers {
            body.push_str(&format!(
                "            tensor<fp16, [1, 64]> w{l} = const()[name = string(\"blocks_{l}_fc_weight\"), val = tensor<fp16, [1, 64]>(BLOBFILE(path = string(\"@model_path/weights/weight.bin\"), offset = uint64(64)))];\n\
                 \x20           tensor<fp16, [1, 64]> a{l} = mul(x = {h}, y = w{l})[name = string(\"a{l}\")];\n\
                 \x20           tensor<fp16, [1, 64]> r{l} = relu(x = a{l})[name = string(\"r{l}\")];\n\
                 \x20           tensor<fp16, [1, 64]> s{l} = add(x = r{l}, y = {h})[name = string(\"s{l}\")];\n"
            ));
            h = format!("s{l}");
        }
        format!("program(1.3)\n{{\n    func main<ios18>(tensor<fp16, [1, 64]> x) {{\n            tensor<fp16, [1, 64]> e = relu(x = x)[name = string(\"e\")];\n{body}        }} -> ({h});\n}}\n")
    }

    #[test]
    fn ops_between_named_weights_take_the_layer_before_them() {
        let m = snippet_model("m", &layer_program(3)).unwrap();
        let f = &m.program.functions[0];
        let l = layers(f);
        assert_eq!(l.source, LayerSource::Names);
        let of = |name: &str| {
            let id = f.ops().find(|(_, o)| o.display_name() == name).unwrap().0;
            l.of(id).to_string()
        };
        assert_eq!(of("e"), "");
        assert_eq!(of("a0"), "blocks.0");
        assert_eq!(of("s0"), "blocks.0");
        assert_eq!(of("r2"), "blocks.2");
        assert_eq!(
            l.namespaces().collect::<Vec<_>>(),
            ["blocks.0", "blocks.1", "blocks.2"]
        );
    }

    /// Layers of a pre-norm block without module names: norm (mul, reduce_mean, rsqrt, mul),
    /// a projection, an activation and the residual add.
    fn unnamed_program(layers: usize) -> String {
        let mut body = String::new();
        let mut h = "e".to_string();
        for l in 0..layers {
            body.push_str(&format!(
                "            tensor<fp16, [1, 64]> sq{l} = mul(x = {h}, y = {h})[name = string(\"mul_{a}\")];\n\
                 \x20           tensor<fp16, [1, 1]> m{l} = reduce_mean(x = sq{l}, axes = tensor<int32, [1]>([-1]), keep_dims = bool(true))[name = string(\"reduce_mean_{l}\")];\n\
                 \x20           tensor<fp16, [1, 1]> q{l} = rsqrt(x = m{l})[name = string(\"rsqrt_{l}\")];\n\
                 \x20           tensor<fp16, [1, 64]> n{l} = mul(x = {h}, y = q{l})[name = string(\"mul_{b}\")];\n\
                 \x20           tensor<fp16, [1, 64]> p{l} = matmul(x = n{l}, y = n{l}, transpose_x = bool(false), transpose_y = bool(true))[name = string(\"matmul_{l}\")];\n\
                 \x20           tensor<fp16, [1, 64]> g{l} = silu(x = p{l})[name = string(\"silu_{l}\")];\n\
                 \x20           tensor<fp16, [1, 64]> s{l} = add(x = g{l}, y = {h})[name = string(\"add_{l}\")];\n",
                a = 2 * l,
                b = 2 * l + 1,
            ));
            h = format!("s{l}");
        }
        format!("program(1.3)\n{{\n    func main<ios18>(tensor<fp16, [1, 64]> x) {{\n            tensor<fp16, [1, 64]> e = relu(x = x)[name = string(\"relu_0\")];\n{body}            tensor<fp16, [1, 64]> y = softmax(x = {h}, axis = int32(-1))[name = string(\"softmax_0\")];\n        }} -> (y);\n}}\n")
    }

    #[test]
    fn unnamed_layers_are_cut_where_only_the_hidden_state_crosses() {
        let m = snippet_model("m", &unnamed_program(4)).unwrap();
        let f = &m.program.functions[0];
        let l = layers(f);
        assert_eq!(l.source, LayerSource::Repetition);
        let of = |name: &str| {
            let id = f.ops().find(|(_, o)| o.display_name() == name).unwrap().0;
            l.of(id).to_string()
        };
        assert_eq!(of("relu_0"), "");
        assert_eq!(of("mul_0"), "layers.0", "a layer starts at its norm");
        assert_eq!(of("add_0"), "layers.0", "and ends with its residual add");
        assert_eq!(of("mul_2"), "layers.1");
        assert_eq!(of("add_3"), "layers.3");
        assert_eq!(of("softmax_0"), "");
    }

    #[test]
    fn a_program_without_repetition_has_no_layers() {
        let m = snippet_model("m", &layer_program(1)).unwrap();
        let f = &m.program.functions[0];
        let l = layers(f);
        assert_eq!(l.source, LayerSource::None);
        assert_eq!(l.namespaces().count(), 0);
    }
}
