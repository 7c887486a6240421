#!/usr/bin/env python3
"""Fixtures of the field hazards A3 (`sdpa-fused-fp16`) and A8 (`conv-transpose-risky`) of
`FIELD-HAZARDS.md`: small PyTorch modules converted with coremltools (iOS18, fp16) the way users make
their models, plus two MIL-builder programs for conv_transpose parameterizations torch never writes
(a disagreeing `output_shape`, asymmetric custom pads). Each hazard has a clean twin that differs only
in the property.

Writes `packages/{sdpa-fused-fp16,conv-transpose-risky}*.mlpackage` and the matching
`expected/*.json` (record format of `generate.py`). The expected findings are computed here from the
saved spec, independently of the linter:

- sdpa-fused-fp16: per function, the fp16 `scaled_dot_product_attention` ops; with two or more whose
  query's last axis is >= 256, one finding at the first of them; and one at every op whose query has
  axis -2 >= 2 and last axis >= 128 (one finding per op at most).
- conv-transpose-risky: one finding per `conv_transpose` whose `output_shape` differs from
  (in - 1) * stride + dilation * (kernel - 1) + 1 - pad_begin - pad_end (in * stride for `same`), or
  that is fp16 with custom, asymmetric pads, or that has a stride >= 8.

The other rules' findings come from the helpers of `generate.py` / `generate_torch_origin.py`.

Run: `/work/venv/bin/python corpus/generate_field_attnconv.py` (torch 2.7 + coremltools 9.0).
Seeded and byte-stable (`generate.stabilize`).
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

os.environ.setdefault("TQDM_DISABLE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import coremltools as ct  # noqa: E402
from coremltools.converters.mil import Builder as mb  # noqa: E402
from coremltools.converters.mil.mil import types  # noqa: E402
from coremltools.proto import MIL_pb2  # noqa: E402

from generate import (  # noqa: E402
    EXPECTED,
    dims,
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
from generate_torch_origin import all_findings as origin_findings, fp16_tensor  # noqa: E402

warnings.filterwarnings("ignore")

PREFIXES = ("sdpa-fused-fp16", "conv-transpose-risky")
IOS18 = ct.target.iOS18

# ---------------------------------------------------------------------------------------------------
# PyTorch modules


class Attention(nn.Module):
    """`sites` fused attentions in a row (the output of one is the query of the next); `scale` given
    explicitly or left to torch (None), which decides whether the converter fuses."""

    def __init__(self, sites=1, scale=None):
        super().__init__()
        self.sites = sites
        self.scale = scale

    def forward(self, q, k, v):
        for _ in range(self.sites):
            q = F.scaled_dot_product_attention(q, k, v, scale=self.scale)
        return q


class Deconv(nn.Module):
    def __init__(self, channels, kernel, stride, padding=0, output_size=None):
        super().__init__()
        self.up = nn.ConvTranspose2d(channels, channels, kernel, stride=stride, padding=padding)
        self.output_size = output_size

    def forward(self, x):
        if self.output_size is None:
            return self.up(x)
        return self.up(x, output_size=self.output_size)


def traced(module, *examples):
    torch.manual_seed(0)
    module.eval()
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn_like(p) * 0.05)
    return torch.jit.trace(module, examples)


def convert(model, inputs):
    return ct.convert(
        model,
        inputs=inputs,
        outputs=[ct.TensorType(name="y", dtype=np.float16)],
        convert_to="mlprogram",
        minimum_deployment_target=IOS18,
        compute_precision=ct.precision.FLOAT16,
    )


def attention(query_len, head_dim, sites=1, scale=None, keys=32):
    """q [1, 2, query_len, head_dim] against keys/values [1, 2, keys, head_dim]."""
    q = torch.zeros(1, 2, query_len, head_dim)
    kv = torch.zeros(1, 2, keys, head_dim)
    model = traced(Attention(sites, scale), q, kv, kv)
    return convert(model, [fp16_tensor("q", q.shape), fp16_tensor("k", kv.shape), fp16_tensor("v", kv.shape)])


def deconv(x_shape, kernel, stride, padding=0, output_size=None):
    x = torch.zeros(x_shape)
    model = traced(Deconv(x_shape[1], kernel, stride, padding, output_size), x)
    return convert(model, [fp16_tensor("x", x_shape)])


def builder_deconv(pad, output_shape=None):
    """x [1, 32, 8, 32] fp16, weight [32, 32, 4, 4], stride 2, custom pads, written by the MIL builder."""
    rs = np.random.RandomState(22)
    weight = (rs.randn(32, 32, 4, 4) * 0.05).astype(np.float16)

    @mb.program(input_specs=[mb.TensorSpec((1, 32, 8, 32), dtype=types.fp16)], opset_version=IOS18)
    def prog(x):
        kwargs = {"output_shape": output_shape} if output_shape is not None else {}
        return mb.conv_transpose(x=x, weight=weight, strides=[2, 2], pad_type="custom", pad=pad,
                                 name="y", **kwargs)

    return ct.convert(prog, convert_to="mlprogram", minimum_deployment_target=IOS18,
                      compute_precision=ct.precision.FLOAT16)


# ---------------------------------------------------------------------------------------------------
# Expected findings of the two rules, from the saved spec


def const_values(spec, fn_name):
    """Inline-valued `const` ops: name -> list of numbers or a string."""
    out = {}
    for op in fn_ops(spec, fn_name):
        if op.type != "const":
            continue
        val = op.attributes["val"].immediateValue
        if val.WhichOneof("value") != "tensor":
            continue
        t = val.tensor
        kind = t.WhichOneof("value")
        if kind == "ints":
            out[op.outputs[0].name] = list(t.ints.values)
        elif kind == "strings":
            out[op.outputs[0].name] = str(t.strings.values[0]) if t.strings.values else ""
    return out


def arg(op, consts, types_, param):
    """(const value or None, value type or None) of the op's parameter `param`."""
    if param not in op.inputs:
        return None, None
    a = op.inputs[param].arguments[0]
    if a.WhichOneof("binding") == "name":
        return consts.get(a.name), types_.get(a.name)
    raise SystemExit(f"inline argument {param} of {op_name(op)}: not expected from coremltools")


def is_fp16(value_type):
    return value_type is not None and value_type.tensorType.dataType == MIL_pb2.FLOAT16


def sdpa_findings(spec, fn_name):
    types_ = value_types(spec, fn_name)
    consts = const_values(spec, fn_name)
    sdpas = []
    for op in fn_ops(spec, fn_name):
        if op.type != "scaled_dot_product_attention":
            continue
        _, qt = arg(op, consts, types_, "query")
        if is_fp16(qt):
            sdpas.append((op_name(op), dims(qt.tensorType)))
    flagged = set()
    large = [name for name, q in sdpas if q[-1] is not None and q[-1] >= 256]
    if len(large) >= 2:
        flagged.add(large[0])
    for name, q in sdpas:
        if q[-1] is not None and q[-2] is not None and q[-1] >= 128 and q[-2] >= 2:
            flagged.add(name)
    return [finding("sdpa-fused-fp16", fn_name, name) for name, _ in sdpas if name in flagged]


def implied_deconv_shape(x, weight, strides, pads, dilations, pad_type, groups):
    spatial = len(x) - 2
    out = [x[0], weight[1] * groups]
    for i in range(spatial):
        if pad_type in ("same", "same_lower"):
            out.append(x[2 + i] * strides[i])
        else:
            begin, end = (pads[2 * i], pads[2 * i + 1]) if pad_type == "custom" else (0, 0)
            out.append((x[2 + i] - 1) * strides[i] + dilations[i] * (weight[2 + i] - 1) + 1 - begin - end)
    return out


def deconv_findings(spec, fn_name):
    types_ = value_types(spec, fn_name)
    consts = const_values(spec, fn_name)
    out = []
    for op in fn_ops(spec, fn_name):
        if op.type != "conv_transpose":
            continue
        _, xt = arg(op, consts, types_, "x")
        _, wt = arg(op, consts, types_, "weight")
        x, w = dims(xt.tensorType), dims(wt.tensorType)
        spatial = len(x) - 2
        strides = arg(op, consts, types_, "strides")[0] or [1] * spatial
        dilations = arg(op, consts, types_, "dilations")[0] or [1] * spatial
        pads = arg(op, consts, types_, "pad")[0] or [0] * (2 * spatial)
        pad_type = arg(op, consts, types_, "pad_type")[0] or "valid"
        groups = (arg(op, consts, types_, "groups")[0] or [1])[0]
        output_shape = arg(op, consts, types_, "output_shape")[0]
        implied = implied_deconv_shape(x, w, strides, pads, dilations, pad_type, groups)
        disagrees = output_shape is not None and list(output_shape) != implied
        asymmetric = (pad_type == "custom" and is_fp16(xt)
                      and any(pads[2 * i] != pads[2 * i + 1] for i in range(spatial)))
        wide = any(s >= 8 for s in strides)
        if disagrees or asymmetric or wide:
            out.append(finding("conv-transpose-risky", fn_name, op_name(op)))
    return out


def all_findings(path):
    spec = ct.utils.load_spec(str(path))
    out = origin_findings(path)
    for fn in sorted(spec.mlProgram.functions):
        out += sdpa_findings(spec, fn) + deconv_findings(spec, fn)
    return out


# ---------------------------------------------------------------------------------------------------
# The models


def build():
    # A3 (b): one fused fp16 SDPA over 8 query rows with head dim 128 (a prefill).
    yield "sdpa-fused-fp16", attention(query_len=8, head_dim=128)
    yield "sdpa-fused-fp16-clean", attention(query_len=8, head_dim=64)
    yield "sdpa-fused-fp16-decode-clean", attention(query_len=1, head_dim=128)
    # An explicit scale: the converter decomposes into matmul / softmax / matmul.
    yield "sdpa-fused-fp16-scale-clean", attention(query_len=8, head_dim=128, scale=128 ** -0.5)
    # A3 (a): two fused SDPAs with head dim 256 in one function, one query row (so only (a) applies).
    yield "sdpa-fused-fp16-two-sites", attention(query_len=1, head_dim=256, sites=2)
    yield "sdpa-fused-fp16-two-sites-clean", attention(query_len=1, head_dim=128, sites=2)

    # A8 (3): the iPhone 15 Pro Max report of coremltools#2450, kernel 16 / stride 16 on H.
    yield "conv-transpose-risky", deconv((1, 32, 4, 32), kernel=(16, 1), stride=(16, 1))
    yield "conv-transpose-risky-clean", deconv((1, 32, 4, 32), kernel=(4, 1), stride=(4, 1))
    # A plain deconvolution: the converter's output_shape agrees with the implied shape.
    yield "conv-transpose-risky-plain-clean", deconv((1, 32, 8, 32), kernel=4, stride=2, padding=1)
    # torch's output_size=: pad 0 + crop, the crop's output_shape matching the implied shape.
    yield "conv-transpose-risky-output-size-clean", deconv((1, 32, 8, 32), kernel=4, stride=2, padding=1,
                                                           output_size=[17, 64])
    # A8 (1): an output_shape that disagrees with the implied [1, 32, 16, 64] (coremltools#2281).
    yield "conv-transpose-risky-output-shape", builder_deconv([1, 1, 1, 1], output_shape=[1, 32, 18, 64])
    yield "conv-transpose-risky-output-shape-clean", builder_deconv([1, 1, 1, 1], output_shape=[1, 32, 16, 64])
    # A8 (2): fp16, custom pads 0 before / 1 after on H (coremltools#2324); W stays 64 wide.
    yield "conv-transpose-risky-asymmetric-pad", builder_deconv([0, 1, 1, 1])
    yield "conv-transpose-risky-asymmetric-pad-clean", builder_deconv([1, 1, 1, 1])


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
