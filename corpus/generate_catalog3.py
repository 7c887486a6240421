#!/usr/bin/env python3
"""Converter-made models for the catalog-3 hazards (FIELD-HAZARDS-3.md C1-C6): small PyTorch modules
traced and converted with coremltools 9.0 (torch 2.7), compressed with `coremltools.optimize.coreml`
where the hazard needs it, each with the clean twins the catalog names.

- `pow-const-base-two*` (C1): `torch.pow(2.0, h)` (fp16, and fp32 with FLOAT32 precision); twins
  `h ** 2`, `3 ** h`, `exp(h * ln 2)`.
- `mask-nonfinite-const-finfo-*` (C2): `torch.finfo(torch.float32).min` masks in fp16: a padding
  mask (`mul`), a causal mask of flexible length (`fill` then `x - band_part(x)`), `masked_fill`
  (`select`), a static causal mask (folded to an fp16 const in weight.bin); twin: a finite -1e4 mask.
- `const-fp16-overflow*` (C2): the static finfo.min mask kept in fp32 (an fp32 island, the `add`
  excluded from FP16ComputePrecision) and cast into fp16 compute; twin: the same with -1e4.
- `zero-sized-dim*` (C3): `torch.split(x, [4, 80, 0], 1)` concatenated again (the empty part
  dropped from the concat, kept by the split), and returned; twin: `split(x, [4, 80], 1)`.
- `affine-dequantize-int8*` (C4): iOS17 `linear_quantize_weights` int8 (constexpr_affine_dequantize
  with int8 data); twin: uint8.
- `hardswish-rank2*` (C5): `hardswish(linear(x))` on a rank-2 `x`; twin: the same at rank 4.
- `converter-known-bad*` (C6): a stateful module, 4-bit palettized with coremltools 9.0; twins:
  the same stateful model unpalettized, the palettized model without state.

Writes only `packages/` and `expected/` files with those prefixes (record format of `generate.py`).
Each record's findings are computed here from the saved spec, independently of the linter (the
`*_findings` functions below).

Run: `/work/venvs/torch/bin/python corpus/generate_catalog3.py` (torch 2.7 + coremltools 9.0).
Seeded and byte-stable (`generate.stabilize`).
"""

from __future__ import annotations

import math
import os
import struct
import sys
import warnings
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn

os.environ.setdefault("TQDM_DISABLE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import coremltools as ct  # noqa: E402
import coremltools.optimize.coreml as cto  # noqa: E402
from coremltools.proto import MIL_pb2  # noqa: E402

from generate_torch_origin import io_findings  # noqa: E402
from generate import (  # noqa: E402
    EXPECTED,
    finding,
    fn_ops,
    fp32_findings,
    op_name,
    package_record,
    pkg,
    reset,
    save_model,
    stabilize,
    value_types,
    write_expected,
)

warnings.filterwarnings("ignore")

PREFIXES = (
    "pow-const-base-two",
    "mask-nonfinite-const-finfo",
    "const-fp16-overflow",
    "zero-sized-dim",
    "affine-dequantize-int8",
    "hardswish-rank2",
    "converter-known-bad",
)
IOS17 = ct.target.iOS17
IOS18 = ct.target.iOS18
FINFO_MIN = torch.finfo(torch.float32).min
HIDDEN = 64
SEQ = 32

# ---------------------------------------------------------------------------------------------------
# PyTorch modules


class Pow(nn.Module):
    """linear(x) -> `kind`: 'base2' 2 ** h, 'square' h ** 2, 'base3' 3 ** h, 'exp' exp(h * ln 2)."""

    def __init__(self, kind):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.kind = kind

    def forward(self, x):
        h = self.lin(x)
        if self.kind == "base2":
            return torch.pow(2.0, h)
        if self.kind == "square":
            return h**2
        if self.kind == "base3":
            return torch.pow(3.0, h)
        return torch.exp(h * math.log(2.0))


class PaddingMask(nn.Module):
    """HF-style padding mask: scores + (1 - keep) * finfo.min (run-time `keep`)."""

    def __init__(self, fill):
        super().__init__()
        self.fill = fill

    def forward(self, scores, keep):
        return torch.softmax(scores + (1.0 - keep) * self.fill, dim=-1)


class FlexibleCausal(nn.Module):
    """A causal mask of the run-time length: full((t, t), finfo.min).triu(1)."""

    def forward(self, scores):
        t = scores.shape[-1]
        mask = torch.full((t, t), FINFO_MIN).triu(1)
        return torch.softmax(scores + mask, dim=-1)


class MaskedFill(nn.Module):
    """scores.masked_fill(masked, finfo.min) with a run-time bool mask."""

    def forward(self, scores, masked):
        return torch.softmax(scores.masked_fill(masked, FINFO_MIN), dim=-1)


class StaticCausal(nn.Module):
    """linear scores + a registered causal mask buffer filled with `fill` above the diagonal."""

    def __init__(self, fill):
        super().__init__()
        self.lin = nn.Linear(SEQ, SEQ)
        self.register_buffer("mask", torch.full((SEQ, SEQ), fill).triu(1))

    def forward(self, x):
        return torch.softmax(self.lin(x) + self.mask, dim=-1)


class Split(nn.Module):
    """torch.split(x, sizes, 1) concatenated again (ultralytics' NMS head); `ret` returns the parts."""

    def __init__(self, sizes, ret=False):
        super().__init__()
        self.sizes = sizes
        self.ret = ret

    def forward(self, x):
        parts = torch.split(x, self.sizes, 1)
        if self.ret:
            return parts
        return torch.cat(parts, 1) * 2.0


class Linear(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(HIDDEN, HIDDEN)

    def forward(self, x):
        return self.lin(x)


class HardswishLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(HIDDEN, HIDDEN)

    def forward(self, x):
        return nn.functional.hardswish(self.lin(x))


class StatefulLinear(nn.Module):
    """One-row cache write of a linear's output, read back summed (a decode step's shape)."""

    def __init__(self, state):
        super().__init__()
        self.lin = nn.Linear(HIDDEN, HIDDEN)
        self.state = state
        if state:
            self.register_buffer("cache", torch.zeros(1, SEQ + 1, HIDDEN))

    def forward(self, x):
        y = self.lin(x)
        if not self.state:
            return y.sum(1)
        self.cache[:, 3:4, :] = y
        return self.cache[:, 0:SEQ, :].sum(1)


# ---------------------------------------------------------------------------------------------------
# Conversion


def traced(module, *examples):
    torch.manual_seed(0)
    module.eval()
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn_like(p) * 0.05)
    return torch.jit.trace(module, examples)


def tensor(name, shape, dtype=np.float16):
    return ct.TensorType(name=name, shape=shape, dtype=dtype)


def convert(model, inputs, target=IOS18, states=None, op_selector=None, precision=ct.precision.FLOAT16):
    if op_selector is not None:
        precision = ct.transform.FP16ComputePrecision(op_selector=op_selector)
    return ct.convert(
        model,
        inputs=inputs,
        states=states,
        convert_to="mlprogram",
        minimum_deployment_target=target,
        compute_precision=precision,
    )


def palettized(model):
    # "uniform" needs no scikit-learn; the saved ops are those of k-means.
    op = cto.OpPalettizerConfig(mode="uniform", nbits=4)
    return cto.palettize_weights(model, cto.OptimizationConfig(global_config=op))


def quantized(model, dtype):
    op = cto.OpLinearQuantizerConfig(mode="linear_symmetric", dtype=dtype)
    return cto.linear_quantize_weights(model, cto.OptimizationConfig(global_config=op))


def build():
    x8 = torch.zeros((1, 8))
    yield "pow-const-base-two", convert(traced(Pow("base2"), x8), [tensor("x", (1, 8))])
    yield "pow-const-base-two-fp32", convert(traced(Pow("base2"), x8), [tensor("x", (1, 8), np.float32)],
                                             precision=ct.precision.FLOAT32)
    for kind in ("square", "base3", "exp"):
        yield f"pow-const-base-two-{kind}-clean", convert(traced(Pow(kind), x8), [tensor("x", (1, 8))])

    scores = torch.zeros((1, 4, SEQ))
    keep = torch.ones((1, 1, SEQ))
    pad_in = [tensor("scores", (1, 4, SEQ)), tensor("keep", (1, 1, SEQ))]
    yield "mask-nonfinite-const-finfo-padding", convert(traced(PaddingMask(FINFO_MIN), scores, keep), pad_in)
    yield "mask-nonfinite-const-finfo-padding-clean", convert(traced(PaddingMask(-1e4), scores, keep), pad_in)
    flex = ct.RangeDim(lower_bound=1, upper_bound=SEQ, default=SEQ)
    yield "mask-nonfinite-const-finfo-fill", convert(
        traced(FlexibleCausal(), torch.zeros((1, SEQ, SEQ))),
        [tensor("scores", (1, flex, flex))])
    masked = torch.zeros((1, 4, SEQ), dtype=torch.bool)
    yield "mask-nonfinite-const-finfo-select", convert(
        traced(MaskedFill(), scores, masked), [tensor("scores", (1, 4, SEQ)), tensor("masked", (1, 4, SEQ), bool)])
    xs = torch.zeros((1, SEQ, SEQ))
    yield "mask-nonfinite-const-finfo-static", convert(traced(StaticCausal(FINFO_MIN), xs), [tensor("x", (1, SEQ, SEQ))])
    yield "mask-nonfinite-const-finfo-static-clean", convert(traced(StaticCausal(-1e4), xs), [tensor("x", (1, SEQ, SEQ))])
    keep_fp32 = lambda op: op.op_type != "add"  # noqa: E731
    yield "const-fp16-overflow", convert(traced(StaticCausal(FINFO_MIN), xs), [tensor("x", (1, SEQ, SEQ))],
                                         op_selector=keep_fp32)
    yield "const-fp16-overflow-clean", convert(traced(StaticCausal(-1e4), xs), [tensor("x", (1, SEQ, SEQ))],
                                               op_selector=keep_fp32)

    xz = torch.zeros((1, 84, 32))
    yield "zero-sized-dim", convert(traced(Split([4, 80, 0]), xz), [tensor("x", (1, 84, 32))])
    yield "zero-sized-dim-output", convert(traced(Split([4, 80, 0], ret=True), xz), [tensor("x", (1, 84, 32))])
    yield "zero-sized-dim-clean", convert(traced(Split([4, 80]), xz), [tensor("x", (1, 84, 32))])

    x = torch.zeros((1, HIDDEN))
    lin17 = convert(traced(Linear(), x), [tensor("x", (1, HIDDEN))], target=IOS17)
    yield "affine-dequantize-int8", quantized(lin17, "int8")
    yield "affine-dequantize-int8-uint8-clean", quantized(lin17, "uint8")

    yield "hardswish-rank2", convert(traced(HardswishLinear(), torch.zeros((4, HIDDEN))), [tensor("x", (4, HIDDEN))])
    yield "hardswish-rank2-rank4-clean", convert(traced(HardswishLinear(), torch.zeros((1, 1, 4, HIDDEN))),
                                                 [tensor("x", (1, 1, 4, HIDDEN))])

    xd = torch.zeros((1, 1, HIDDEN))
    cache = [ct.StateType(wrapped_type=ct.TensorType(shape=(1, SEQ + 1, HIDDEN), dtype=np.float16), name="cache")]
    stateful = convert(traced(StatefulLinear(True), xd), [tensor("x", (1, 1, HIDDEN))], states=cache)
    stateless = convert(traced(StatefulLinear(False), xd), [tensor("x", (1, 1, HIDDEN))])
    yield "converter-known-bad", palettized(stateful)
    yield "converter-known-bad-unpalettized-clean", stateful
    yield "converter-known-bad-stateless-clean", palettized(stateless)


def main():
    for prefix in PREFIXES:
        for old in sorted(EXPECTED.glob(f"{prefix}*.json")):
            old.unlink()
        for old in sorted(pkg(prefix).parent.glob(f"{prefix}*.mlpackage")):
            reset(old)
    for name, model in build():
        path = save_model(model, pkg(name))
        stabilize(path)
        write_expected(name, package_record(path, all_findings(path)))
        print(f"wrote {path.name}", file=sys.stderr)


# ---------------------------------------------------------------------------------------------------
# Expected findings, from the saved spec


def binding(op, param):
    """The first argument of `param`: ("name", value name) or ("value", MIL Value), or None."""
    arg = op.inputs.get(param)
    if arg is None or not arg.arguments:
        return None
    a = arg.arguments[0]
    return ("name", a.name) if a.WhichOneof("binding") == "name" else ("value", a.value)


def numbers(path, value):
    """The elements of a MIL Value (immediate, or a blob in weight.bin) as a float array, or None."""
    tt = value.type.tensorType
    kind = value.WhichOneof("value")
    if kind == "immediateValue":
        t = value.immediateValue.tensor
        which = t.WhichOneof("value")
        if which == "floats":
            return np.array(t.floats.values, dtype=np.float64)
        if which == "ints":
            return np.array(t.ints.values, dtype=np.float64)
        if which == "bytes" and tt.dataType == MIL_pb2.FLOAT16:
            return np.frombuffer(t.bytes.values, dtype=np.float16).astype(np.float64)
        if which == "bytes" and tt.dataType == MIL_pb2.INT8:
            return np.frombuffer(t.bytes.values, dtype=np.int8).astype(np.float64)
        return None
    if kind == "blobFileValue":
        dt = {MIL_pb2.FLOAT16: np.float16, MIL_pb2.FLOAT32: np.float32, MIL_pb2.INT8: np.int8,
              MIL_pb2.UINT8: np.uint8}.get(tt.dataType)
        if dt is None:
            return None
        blob = (path / "Data/com.apple.CoreML/weights/weight.bin").read_bytes()
        _, _, size, data_off = struct.unpack_from("<IIQQ", blob, value.blobFileValue.offset)
        return np.frombuffer(blob[data_off: data_off + size], dtype=dt).astype(np.float64)
    return None


class Fn:
    """One function of a saved spec: its ops, value types, producers and consumers."""

    def __init__(self, path, spec, name):
        self.path, self.name = path, name
        self.fn = spec.mlProgram.functions[name]
        self.ops = fn_ops(spec, name)
        self.types = value_types(spec, name)
        self.producer = {o.name: op for op in self.ops for o in op.outputs}
        self.outputs = set(self.fn.block_specializations[self.fn.opset].outputs)

    def consumers(self, value):
        return [(op, p) for op in self.ops for p, arg in op.inputs.items()
                for a in arg.arguments if a.WhichOneof("binding") == "name" and a.name == value]

    def const_numbers(self, op, param):
        """The elements of a constant parameter (inline, or a `const` op's value)."""
        b = binding(op, param)
        if b is None:
            return None
        if b[0] == "value":
            return numbers(self.path, b[1])
        src = self.producer.get(b[1])
        if src is None or src.type != "const":
            return None
        return numbers(self.path, src.attributes["val"])

    def runtime(self, value):
        """Whether `value` depends on a function input."""
        todo, seen = [value], set()
        inputs = {i.name for i in self.fn.inputs}
        while todo:
            v = todo.pop()
            if v in inputs:
                return True
            op = self.producer.get(v)
            if op is None or v in seen:
                continue
            seen.add(v)
            todo += [a.name for arg in op.inputs.values() for a in arg.arguments
                     if a.WhichOneof("binding") == "name"]
        return False


def pow_findings(f):
    """pow-const-base-two: `pow` whose base is a constant of 2s and whose exponent is computed."""
    out = []
    for op in f.ops:
        if op.type != "pow":
            continue
        base = f.const_numbers(op, "x")
        y = binding(op, "y")
        if base is not None and base.size and np.all(base == 2.0) and y and y[0] == "name" and f.runtime(y[1]):
            out.append(finding("pow-const-base-two", f.name, op_name(op)))
    return out


WEIGHT_OPS = ("constexpr_affine_dequantize", "constexpr_cast", "constexpr_lut_to_dense",
              "constexpr_sparse_to_dense", "constexpr_blockwise_shift_scale", "constexpr_lut_to_sparse",
              "constexpr_sparse_blockwise_shift_scale")
FLOATS = (MIL_pb2.FLOAT16, MIL_pb2.FLOAT32)


def mask_findings(f):
    """mask-nonfinite-const: float `const` ops with -inf/inf/NaN that feed no weight decompression and
    are no clip bound, and inline float arguments with one (outside const, clip and decompression)."""
    out = []
    for op in f.ops:
        if op.type == "const":
            o = op.outputs[0]
            readers = f.consumers(o.name)
            if o.type.tensorType.dataType not in FLOATS or any(c.type in WEIGHT_OPS for c, _ in readers):
                continue
            if any(c.type == "clip" and p in ("alpha", "beta") for c, p in readers):
                continue
            vals = numbers(f.path, op.attributes["val"])
            if vals is not None and not np.all(np.isfinite(vals)):
                out.append(finding("mask-nonfinite-const", f.name, op_name(op)))
        elif op.type != "clip" and op.type not in WEIGHT_OPS:
            for arg in op.inputs.values():
                for a in arg.arguments:
                    if a.WhichOneof("binding") != "value" or a.value.type.tensorType.dataType not in FLOATS:
                        continue
                    vals = numbers(f.path, a.value)
                    if vals is not None and not np.all(np.isfinite(vals)):
                        out.append(finding("mask-nonfinite-const", f.name, op_name(op)))
    return out


CARRIERS = ("add", "sub", "mul", "real_div", "select", "maximum", "minimum", "band_part", "fill", "fill_like",
            "reshape", "expand_dims", "squeeze", "transpose", "tile", "concat", "slice_by_index", "identity",
            "broadcast_to")


def overflow_findings(f):
    """const-fp16-overflow: an fp32 const with a finite |v| > 65504 whose values reach a cast to fp16
    through the carrier ops only."""
    out = []
    for op in f.ops:
        if op.type != "const" or op.outputs[0].type.tensorType.dataType != MIL_pb2.FLOAT32:
            continue
        if any(c.type in WEIGHT_OPS for c, _ in f.consumers(op.outputs[0].name)):
            continue
        vals = numbers(f.path, op.attributes["val"])
        if vals is None or not vals.size or not np.all(np.isfinite(vals)) or np.max(np.abs(vals)) <= 65504:
            continue
        todo, seen, hit = [op.outputs[0].name], set(), False
        while todo and not hit:
            for c, _ in f.consumers(todo.pop()):
                if c.type == "cast" and c.outputs[0].type.tensorType.dataType == MIL_pb2.FLOAT16:
                    hit = True
                elif c.type in CARRIERS and c.outputs[0].name not in seen:
                    seen.add(c.outputs[0].name)
                    todo.append(c.outputs[0].name)
        if hit:
            out.append(finding("const-fp16-overflow", f.name, op_name(op)))
    return out


def empty(value_type):
    t = value_type.tensorType if value_type.WhichOneof("type") == "tensorType" else None
    return t is not None and any(d.WhichOneof("dimension") == "constant" and d.constant.size == 0
                                 for d in t.dimensions)


def zero_findings(f):
    """zero-sized-dim: inputs and non-weight ops making a tensor with a 0 dimension (or a split with 0
    in split_sizes), once per chain: not an op one of whose inputs comes from another such op."""
    out = [finding("zero-sized-dim", f.name) for i in f.fn.inputs if empty(i.type)]
    flagged = set(i.name for i in f.fn.inputs if empty(i.type))
    for op in f.ops:
        if op.type == "const" or op.type in WEIGHT_OPS:
            continue
        sizes = f.const_numbers(op, "split_sizes") if op.type == "split" else None
        if not (any(empty(o.type) for o in op.outputs) or (sizes is not None and np.any(sizes <= 0))):
            continue
        reads = [a.name for arg in op.inputs.values() for a in arg.arguments if a.WhichOneof("binding") == "name"]
        fed = any(f.producer.get(r) is not None and id(f.producer[r]) in flagged or r in flagged for r in reads)
        flagged.add(id(op))
        flagged.update(o.name for o in op.outputs)
        if not fed:
            out.append(finding("zero-sized-dim", f.name, op_name(op)))
    return out


def affine_findings(f):
    """affine-dequantize-int8: constexpr_affine_dequantize with int8 quantized_data, once per function
    (at the first)."""
    out = []
    for op in f.ops:
        if op.type != "constexpr_affine_dequantize":
            continue
        q = op.attributes.get("quantized_data")
        if q is None and "quantized_data" in op.inputs:
            b = binding(op, "quantized_data")
            q = b[1] if b[0] == "value" else f.producer[b[1]].attributes["val"]
        if q is not None and q.type.tensorType.dataType == MIL_pb2.INT8:
            out.append(finding("affine-dequantize-int8", f.name, op_name(op)))
    return out[:1]


def hardswish_findings(f):
    """hardswish-rank2: thresholded_relu(alpha = -3) of an fp16 rank-2 linear/matmul output, feeding
    sigmoid_hard, feeding mul."""
    out = []
    for op in f.ops:
        if op.type != "thresholded_relu":
            continue
        alpha = f.const_numbers(op, "alpha")
        x = binding(op, "x")
        if alpha is None or not np.all(alpha == -3.0) or not x or x[0] != "name":
            continue
        t = f.types[x[1]].tensorType
        src = f.producer.get(x[1])
        if t.rank != 2 or t.dataType != MIL_pb2.FLOAT16 or src is None or src.type not in ("linear", "matmul"):
            continue
        chain = any(c.type == "sigmoid_hard" and any(m.type == "mul" for m, _ in f.consumers(c.outputs[0].name))
                    for c, _ in f.consumers(op.outputs[0].name))
        if chain:
            out.append(finding("hardswish-rank2", f.name, op_name(op)))
    return out


def known_bad_findings(f, spec):
    """converter-known-bad: coremltools 9.0 in the metadata, a state input, and 4-bit palettized weights
    (constexpr_lut_to_dense with uint4 indices): once, at the first such op."""
    version = spec.description.metadata.userDefined.get("com.github.apple.coremltools.version", "")
    stateful = any(i.type.WhichOneof("type") == "stateType" for i in f.fn.inputs)
    if not stateful or version.split(".")[:2] != ["9", "0"] or version.count(".") > 1:
        return []
    for op in f.ops:
        if op.type == "constexpr_lut_to_dense":
            b = binding(op, "indices")
            t = b[1].type if b[0] == "value" else f.types[b[1]]
            if t.tensorType.dataType == MIL_pb2.UINT4:
                return [finding("converter-known-bad", f.name, op_name(op))]
    return []


def flexible_findings(f):
    """flexible-input-shape: a function input with a dimension that is not fixed."""
    flexible = any(d.WhichOneof("dimension") != "constant" for i in f.fn.inputs
                   if i.type.WhichOneof("type") == "tensorType" for d in i.type.tensorType.dimensions)
    return [finding("flexible-input-shape", f.name)] if flexible else []


def all_findings(path):
    spec = ct.utils.load_spec(str(path))
    out = []
    for name in sorted(spec.mlProgram.functions):
        f = Fn(path, spec, name)
        out += pow_findings(f) + mask_findings(f) + overflow_findings(f) + zero_findings(f)
        out += affine_findings(f) + hardswish_findings(f) + known_bad_findings(f, spec)
        out += flexible_findings(f) + fp32_findings(spec, name) + io_findings(spec, name)
    return out


if __name__ == "__main__":
    main()
