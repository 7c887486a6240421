#!/usr/bin/env python3
"""Converter-made models for the weight-compression and integer-narrowing field hazards
(FIELD-HAZARDS.md A1, B2, A6): small PyTorch modules traced and converted with coremltools (iOS18
unless noted), then compressed with `coremltools.optimize.coreml` the way users do it.

- `quant-per-block-on-ane*`: a conv + linear model, `linear_quantize_weights` per block (int4, int8),
  and its clean twins per channel, per tensor and palettized.
- `lut-scale-wrapper*`: the same model palettized with `enable_per_channel_scale=True` for iOS18 (the
  scale sits on the lookup table) and iOS26 (the scale wraps the dequantized weight), clean twins
  without the per-channel scale.
- `int16-narrowing*`: an explicit `.to(torch.int16)` on ids into a 70,000-row table; run-time int32
  data gathered (the converter's `add_int16_cast` narrows it, to uint16 after a constant gather);
  clean twins: int32 ids into the long table, int16 ids into a 64-row table, and the data gather
  converted without `common::add_int16_cast`.

Writes only `packages/{quant-per-block-on-ane,lut-scale-wrapper,int16-narrowing}*.mlpackage` and the
matching `expected/*.json` (record format of `generate.py`). The expected findings are computed here
from the saved spec, independently of the linter (see `quant_findings`, `lut_findings`,
`narrowing_findings`).

Run: `/work/venv/bin/python corpus/generate_field_quant.py` (torch 2.7 + coremltools 9.0). Seeded and
byte-stable (`generate.stabilize`).
"""

from __future__ import annotations

import os
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

from generate import (  # noqa: E402
    EXPECTED,
    finding,
    fn_ops,
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

PREFIXES = ("quant-per-block-on-ane", "lut-scale-wrapper", "int16-narrowing")
IOS18 = ct.target.iOS18
IOS26 = ct.target.iOS26

CHANNELS = 64
IDS = 32
LONG_TABLE = 70_000
SHORT_TABLE = 64

# ---------------------------------------------------------------------------------------------------
# PyTorch modules


class ConvLinear(nn.Module):
    """x [1, 64, 2, 64] -> 3x3 conv (64 -> 64) -> relu -> linear over the last axis (64 -> 64)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(CHANNELS, CHANNELS, 3, padding=1)
        self.lin = nn.Linear(CHANNELS, CHANNELS)

    def forward(self, x):
        return self.lin(torch.relu(self.conv(x)))


class NarrowedIds(nn.Module):
    """Token ids stored as int16 by the user (`.to(torch.int16)`), looked up in an embedding table."""

    def __init__(self, rows, narrow):
        super().__init__()
        self.emb = nn.Embedding(rows, 1)
        self.narrow = narrow

    def forward(self, ids):
        if self.narrow:
            ids = ids.to(torch.int16).to(torch.int32)  # torch's embedding takes no int16 indices
        return self.emb(ids).reshape(1, IDS)


class GatheredCodes(nn.Module):
    """Run-time int32 data gathered: `codes` reordered by a constant permutation, `offsets` picked by
    run-time positions."""

    def __init__(self):
        super().__init__()
        self.register_buffer("perm", torch.arange(IDS - 1, -1, -1))

    def forward(self, codes, offsets, idx):
        return codes[:, self.perm] + torch.gather(offsets, 1, idx)


# ---------------------------------------------------------------------------------------------------
# Conversion and compression


def traced(module, *examples):
    torch.manual_seed(0)
    module.eval()
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn_like(p) * 0.05)
    return torch.jit.trace(module, examples)


def convert(model, inputs, target=IOS18, drop_int16_cast=False):
    kwargs = {}
    if drop_int16_cast:
        pipeline = ct.PassPipeline.DEFAULT
        pipeline.remove_passes(["common::add_int16_cast"])
        kwargs["pass_pipeline"] = pipeline
    return ct.convert(
        model,
        inputs=inputs,
        convert_to="mlprogram",
        minimum_deployment_target=target,
        compute_precision=ct.precision.FLOAT16,
        **kwargs,
    )


def quantized(model, granularity, dtype, block_size=None):
    kw = {"block_size": block_size} if block_size else {}
    op = cto.OpLinearQuantizerConfig(mode="linear_symmetric", dtype=dtype, granularity=granularity, **kw)
    return cto.linear_quantize_weights(model, cto.OptimizationConfig(global_config=op))


def palettized(model, per_channel_scale):
    # "uniform" needs no scikit-learn; the saved ops are the same as with k-means.
    op = cto.OpPalettizerConfig(mode="uniform", nbits=4, enable_per_channel_scale=per_channel_scale)
    return cto.palettize_weights(model, cto.OptimizationConfig(global_config=op))


# ---------------------------------------------------------------------------------------------------
# Expected findings, from the saved spec


def arg_names(op, param):
    arg = op.inputs.get(param)
    return [a.name for a in arg.arguments if a.WhichOneof("binding") == "name"] if arg else []


def param_shape(op, param, types):
    arg = op.inputs[param].arguments[0]
    if arg.WhichOneof("binding") == "name":
        t = types[arg.name].tensorType
    else:
        t = arg.value.type.tensorType
    return [d.constant.size for d in t.dimensions]


def consumers(ops, value):
    """(op, parameter) pairs reading `value`."""
    return [(op, p) for op in ops for p in op.inputs if value in arg_names(op, p)]


def const_bool(op, param, ops):
    """The constant bool `param` of `op` (False when absent)."""
    arg = op.inputs.get(param)
    if arg is None:
        return False
    a = arg.arguments[0]
    if a.WhichOneof("binding") == "value":
        return a.value.immediateValue.tensor.bools.values[0]
    producer = next(p for p in ops if any(o.name == a.name for o in p.outputs))
    return producer.attributes["val"].immediateValue.tensor.bools.values[0]


def output_axis(consumer, param, ops):
    """The output-channel axis of a weight read by `consumer` through `param`, or None for an op
    that is no compute op."""
    if consumer.type in ("linear", "conv") and param == "weight":
        return 0
    if consumer.type == "conv_transpose" and param == "weight":
        return 1
    if consumer.type == "matmul" and param == "y":
        return -2 if const_bool(consumer, "transpose_y", ops) else -1
    if consumer.type == "matmul" and param == "x":
        return -1 if const_bool(consumer, "transpose_x", ops) else -2
    return None


def quant_findings(spec, fn_name):
    """quant-per-block-on-ane: a constexpr_blockwise_shift_scale read as a compute op's weight whose
    scale has 1 < scale[i] < data[i] on an axis i other than that op's output axis."""
    ops = fn_ops(spec, fn_name)
    types = value_types(spec, fn_name)
    out = []
    for op in ops:
        if op.type != "constexpr_blockwise_shift_scale":
            continue
        scale, data = param_shape(op, "scale", types), param_shape(op, "data", types)
        for consumer, param in consumers(ops, op.outputs[0].name):
            axis = output_axis(consumer, param, ops)
            if axis is None:
                continue
            axis %= len(data)
            if any(1 < s < d for i, (s, d) in enumerate(zip(scale, data)) if i != axis):
                out.append(finding("quant-per-block-on-ane", fn_name, op_name(op)))
                break
    return out


def lut_findings(spec, fn_name):
    """lut-scale-wrapper: a constexpr_blockwise_shift_scale on a lookup table (feeding
    constexpr_lut_to_dense's `lut`) or on a constexpr_lut_to_dense result."""
    ops = fn_ops(spec, fn_name)
    lut_outputs = {o.name for op in ops if op.type == "constexpr_lut_to_dense" for o in op.outputs}
    out = []
    for op in ops:
        if op.type != "constexpr_blockwise_shift_scale":
            continue
        wraps = any(n in lut_outputs for n in arg_names(op, "data"))
        scales_lut = any(c.type == "constexpr_lut_to_dense" and p == "lut"
                         for c, p in consumers(ops, op.outputs[0].name))
        if wraps or scales_lut:
            out.append(finding("lut-scale-wrapper", fn_name, op_name(op)))
    return out


GATHERS = ("gather", "gather_nd", "gather_along_axis", "squeeze", "topk")
INDEX_PATH = ("cast", "select", "add", "greater_equal")  # the negative-index guard and casts back
LIMITS = {MIL_pb2.INT16: 32767, MIL_pb2.UINT16: 65535}
# Non-negative by construction: the negative-index guard, index outputs, shapes.
NON_NEGATIVE = ("select", "reduce_argmax", "reduce_argmin", "argsort", "shape", "non_zero")


def narrowing_findings(spec, fn_name):
    """int16-narrowing: a cast of run-time int32 values to int16/uint16 whose values for valid inputs
    can leave the narrow type. Ids that reach the indices of a gather / gather_along_axis (through
    the casts and the negative-index guard) are valid in [0, L - 1] for the shortest such axis L;
    run-time data that reaches no indices keeps int32's range, except values non-negative by
    construction (the guard `select`, an argmax / argsort, a shape, non_zero) narrowed to uint16.
    Reported once, at the first narrowing cast (not at one fed by another through that path)."""
    fn = spec.mlProgram.functions[fn_name]
    ops = fn_ops(spec, fn_name)
    types = value_types(spec, fn_name)
    runtime = {i.name for i in fn.inputs}
    producer = {}
    for op in ops:
        if any(n in runtime for p in op.inputs for n in arg_names(op, p)):
            runtime.update(o.name for o in op.outputs)
        for o in op.outputs:
            producer[o.name] = op

    def axis_len(gather):
        axis = gather.inputs["axis"].arguments[0]
        a = (axis.value.immediateValue.tensor.ints.values[0] if axis.WhichOneof("binding") == "value"
             else producer[axis.name].attributes["val"].immediateValue.tensor.ints.values[0])
        return param_shape(gather, "x", types)[a]

    def indexed_axes(value):
        todo, seen, out = [value], set(), []
        while todo:
            v = todo.pop()
            for c, p in consumers(ops, v):
                if c.type in ("gather", "gather_along_axis") and p == "indices":
                    out.append(axis_len(c))
                if c.type in INDEX_PATH and c.outputs[0].name not in seen:
                    seen.add(c.outputs[0].name)
                    todo.append(c.outputs[0].name)
        return out

    def narrowing(op):
        return op.type == "cast" and op.outputs[0].type.tensorType.dataType in LIMITS

    def after_narrowing(value):
        todo, seen = [value], set()
        while todo:
            src = producer.get(todo.pop())
            if src is None or src.outputs[0].name in seen or src.type not in INDEX_PATH:
                continue
            if narrowing(src):
                return True
            seen.add(src.outputs[0].name)
            todo.extend(n for p in src.inputs for n in arg_names(src, p))
        return False

    out = []
    for op in ops:
        if not narrowing(op):
            continue
        dtype = op.outputs[0].type.tensorType.dataType
        [x] = arg_names(op, "x") or [None]
        if x not in runtime or types[x].tensorType.dataType != MIL_pb2.INT32 or after_narrowing(x):
            continue
        axes = indexed_axes(op.outputs[0].name)
        src = producer.get(x)
        if axes:
            leaves = min(axes) - 1 > LIMITS[dtype]
        else:
            leaves = src is None or src.type not in NON_NEGATIVE or dtype == MIL_pb2.INT16
        if leaves:
            out.append(finding("int16-narrowing", fn_name, op_name(op)))
    return out


CHECKED_OPSETS = ("CoreML5", "CoreML6", "CoreML7", "CoreML8")  # ios15..ios18, the op table's


def all_findings(path):
    spec = ct.utils.load_spec(str(path))
    out = []
    for fn in sorted(spec.mlProgram.functions):
        out += quant_findings(spec, fn) + lut_findings(spec, fn) + narrowing_findings(spec, fn)
        # The iOS26 packages: one info that the op set of a newer opset was not checked.
        if spec.mlProgram.functions[fn].opset not in CHECKED_OPSETS:
            out.append(finding("mil-opset-not-checked", fn))
    return out


# ---------------------------------------------------------------------------------------------------
# The models


def build():
    x = torch.zeros((1, CHANNELS, 2, CHANNELS))
    x_in = [ct.TensorType(name="x", shape=tuple(x.shape), dtype=np.float16)]
    net = traced(ConvLinear(), x)
    base = convert(net, x_in)
    yield "quant-per-block-on-ane", quantized(base, "per_block", "int4", block_size=16)
    yield "quant-per-block-on-ane-int8", quantized(base, "per_block", "int8", block_size=32)
    yield "quant-per-block-on-ane-clean", quantized(base, "per_channel", "int4")
    yield "quant-per-block-on-ane-per-tensor-clean", quantized(base, "per_tensor", "int8")
    yield "quant-per-block-on-ane-palettized-clean", palettized(base, per_channel_scale=False)

    yield "lut-scale-wrapper", palettized(base, per_channel_scale=True)
    yield "lut-scale-wrapper-clean", palettized(base, per_channel_scale=False)
    base26 = convert(net, x_in, target=IOS26)
    yield "lut-scale-wrapper-ios26", palettized(base26, per_channel_scale=True)
    yield "lut-scale-wrapper-ios26-clean", palettized(base26, per_channel_scale=False)

    ids = torch.zeros((1, IDS), dtype=torch.int32)
    ids_in = [ct.TensorType(name="ids", shape=(1, IDS), dtype=np.int32)]
    yield "int16-narrowing", convert(traced(NarrowedIds(LONG_TABLE, narrow=True), ids), ids_in)
    yield "int16-narrowing-clean", convert(traced(NarrowedIds(LONG_TABLE, narrow=False), ids), ids_in)
    yield "int16-narrowing-short-table-clean", convert(traced(NarrowedIds(SHORT_TABLE, narrow=True), ids),
                                                        ids_in)
    codes_in = [ct.TensorType(name=n, shape=(1, IDS), dtype=np.int32) for n in ("codes", "offsets", "idx")]
    codes = traced(GatheredCodes(), ids, ids, ids.long())
    yield "int16-narrowing-data", convert(codes, codes_in)
    yield "int16-narrowing-data-clean", convert(codes, codes_in, drop_int16_cast=True)


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


if __name__ == "__main__":
    main()
