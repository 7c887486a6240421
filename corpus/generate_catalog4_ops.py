#!/usr/bin/env python3
"""Fixtures of the catalog-4 hazards G1, G4 and G6 of `FIELD-HAZARDS-4.md` (issue 47): small
PyTorch modules converted with coremltools 9.0 (iOS18 ML programs) the way users make their models,
each hazard with clean twins that differ only in the hazardous property.

- G1 (`ane-fp16-exp-overflow`): fp16 `F.softplus` (and `beta = 2`), `F.mish`, `torch.logsumexp`,
  `F.log_softmax`, `torch.logcumsumexp`, a global-max-shifted logcumsumexp (an info); twins: the
  input clamped (`torch.clamp(max = 10)` → `clip`, `torch.minimum(x, 10)` → `minimum`), the stable
  forms written in torch (`relu(x) + log1p(exp(−|x|))`, max-shifted logsumexp and log_softmax), and
  softplus, log_softmax and logcumsumexp converted with `compute_precision=FLOAT32` (those get
  `fp32-compute` instead).
- G4 (`gpu-attention-batch`): `F.scaled_dot_product_attention` (fused at iOS18) and the hand-written
  `q @ kᵀ + bias → softmax → @ v` with a leading batch of 10; twins with batch 9.
- G6 (`conv-stride-ane-compile`, `conv-stride-slow-compile`): `nn.Conv2d` with strides 5, (2, 7)
  and 10, `nn.Conv1d` with stride 5; twins with strides 4 and 6.

Writes only `packages/torch-cat4-*.mlpackage` and `expected/torch-cat4-*.json` (the `torch-`
prefix: `generate.py` leaves them alone). The expected findings are computed here from the saved
spec, independently of the linter (the rules' conditions, written again in Python below), plus the
`origin:` rules' findings of `generate_torch_origin.py` (`fp32-compute` on the FLOAT32 twins).

Run: `/work/venv-torch/bin/python corpus/generate_catalog4_ops.py` (torch 2.7 + coremltools 9.0).
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

PREFIX = "torch-cat4-"
IOS18 = ct.target.iOS18
G1, G4 = "ane-fp16-exp-overflow", "gpu-attention-batch"
G6_HANG, G6_SLOW = "conv-stride-ane-compile", "conv-stride-slow-compile"

# ---------------------------------------------------------------------------------------------------
# PyTorch modules


class Fn(nn.Module):
    """A parameter-free function of one input."""

    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, x):
        return self.f(x)


def stable_softplus(x):
    return F.relu(x) + torch.log1p(torch.exp(-x.abs()))


def shifted_logsumexp(x):
    m = x.amax(dim=-1, keepdim=True)
    return (m + torch.log(torch.exp(x - m).sum(dim=-1, keepdim=True))).squeeze(-1)


def shifted_log_softmax(x):
    d = x - x.amax(dim=-1, keepdim=True)
    return d - torch.log(torch.exp(d).sum(dim=-1, keepdim=True))


def shifted_logcumsumexp(x):
    m = x.amax(dim=-1, keepdim=True)
    return m + torch.log(torch.cumsum(torch.exp(x - m), dim=-1))


class Sdpa(nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v)


class HandAttention(nn.Module):
    """`q @ kᵀ + bias → softmax → @ v` (q pre-scaled), as users write it for iOS17-style exports."""

    def __init__(self, seq):
        super().__init__()
        self.register_buffer("bias", torch.triu(torch.full((seq, seq), -1e4), diagonal=1))

    def forward(self, q, k, v):
        s = torch.matmul(q, k.transpose(-1, -2)) + self.bias
        return torch.matmul(torch.softmax(s, dim=-1), v)


class Conv(nn.Module):
    def __init__(self, conv):
        super().__init__()
        self.conv = conv

    def forward(self, x):
        return self.conv(x)


def traced(module, *examples):
    torch.manual_seed(0)
    module.eval()
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn_like(p) * 0.05)
    return torch.jit.trace(module, examples)


def convert(model, inputs, precision=ct.precision.FLOAT16):
    out_dtype = np.float16 if precision == ct.precision.FLOAT16 else np.float32
    return ct.convert(
        model,
        inputs=inputs,
        outputs=[ct.TensorType(name="y", dtype=out_dtype)],
        convert_to="mlprogram",
        minimum_deployment_target=IOS18,
        compute_precision=precision,
    )


X_SHAPE = (1, 32, 32)  # every input and output 32-aligned: no io-last-axis-alignment


def unary(f, precision=ct.precision.FLOAT16):
    x = torch.zeros(X_SHAPE)
    dtype = np.float16 if precision == ct.precision.FLOAT16 else np.float32
    return convert(traced(Fn(f), x), [ct.TensorType(name="x", shape=X_SHAPE, dtype=dtype)], precision)


def attention(module, batch, seq=32, heads=2, head_dim=32):
    q = torch.zeros(batch, heads, seq, head_dim)
    model = traced(module, q, q, q)
    return convert(model, [fp16_tensor(n, q.shape) for n in ("q", "k", "v")])


def conv2d(stride):
    """A 3x3 conv over a width of 32 · stride: the output is 32 wide, so input and output stay
    32-aligned (no io-last-axis-alignment) whatever the stride."""
    sh, sw = stride if isinstance(stride, tuple) else (stride, stride)
    x = torch.zeros(1, 3, 32, 32 * sw)
    model = traced(Conv(nn.Conv2d(3, 8, 3, stride=(sh, sw))), x)
    return convert(model, [fp16_tensor("x", x.shape)])


def conv1d(stride):
    x = torch.zeros(1, 3, 32 * stride)
    model = traced(Conv(nn.Conv1d(3, 8, 3, stride=stride)), x)
    return convert(model, [fp16_tensor("x", x.shape)])


# ---------------------------------------------------------------------------------------------------
# Expected findings, from the saved spec


def const_numbers(spec, fn_name):
    """Output name -> list of numbers of every immediate-valued `const` op."""
    out = {}
    for op in fn_ops(spec, fn_name):
        if op.type != "const":
            continue
        t = op.attributes["val"].immediateValue.tensor
        kind = t.WhichOneof("value")
        if kind in ("floats", "ints", "doubles", "longInts"):
            out[op.outputs[0].name] = [float(v) for v in getattr(t, kind).values]
        elif kind == "bytes":
            # fp16 immediates are raw little-endian bytes.
            vt = op.outputs[0].type.tensorType
            fp16 = vt.dataType == MIL_pb2.FLOAT16
            out[op.outputs[0].name] = [float(v) for v in np.frombuffer(t.bytes.values, np.float16)] if fp16 else None
    return out


def binding(op, param):
    """The name bound to `param` (None when absent or inline)."""
    if param not in op.inputs or not op.inputs[param].arguments:
        return None
    a = op.inputs[param].arguments[0]
    return a.name if a.WhichOneof("binding") == "name" else None


def is_fp16(value_type):
    return value_type is not None and value_type.tensorType.dataType == MIL_pb2.FLOAT16


def bounded_at_most(values, name, limit):
    v = values.get(name)
    return v is not None and len(v) > 0 and max(v) <= limit


def graph(spec, fn_name):
    """(ops, value types, producer op by value name, reader ops by value name) of a function."""
    ops = fn_ops(spec, fn_name)
    producer = {o.name: op for op in ops for o in op.outputs}
    readers = {}
    for op in ops:
        for p in op.inputs.values():
            for a in p.arguments:
                if a.WhichOneof("binding") == "name":
                    readers.setdefault(a.name, []).append(op)
    return ops, value_types(spec, fn_name), producer, readers


def g1_findings(spec, fn_name):
    """fp16 softplus (input not clamped to <= 11), reduce_log_sum_exp, softmax read by a log, exp
    read by a cumsum read by a log (not of −|x|); one finding per op where the form starts."""
    ops, types_, producer, readers = graph(spec, fn_name)
    consts = const_numbers(spec, fn_name)
    out = []
    for op in ops:
        y = op.outputs[0].name if op.outputs else None
        if not is_fp16(types_.get(y)):
            continue
        flagged = False
        if op.type == "softplus":
            src = producer.get(binding(op, "x"))
            clamped = src is not None and (
                (src.type == "clip" and bounded_at_most(consts, binding(src, "beta"), 11))
                or (src.type == "minimum" and any(bounded_at_most(consts, binding(src, p), 11) for p in ("x", "y")))
            )
            flagged = not clamped
        elif op.type == "reduce_log_sum_exp":
            flagged = True
        elif op.type == "softmax":
            flagged = any(r.type == "log" for r in readers.get(y, []))
        elif op.type == "exp":
            src = producer.get(binding(op, "x"))
            negated_abs = (
                src is not None and src.type == "mul"
                and any(producer.get(binding(src, p)) is not None and producer[binding(src, p)].type == "abs"
                        for p in ("x", "y"))
            )
            cumsums = [r for r in readers.get(y, []) if r.type == "cumsum"]
            flagged = not negated_abs and any(
                r.type == "log" for c in cumsums for r in readers.get(c.outputs[0].name, []))
        if flagged:
            out.append(finding(G1, fn_name, op_name(op)))
    return out


def g4_findings(spec, fn_name):
    """fp16 or fp32 attention with a leading batch of 10 or more: a scaled_dot_product_attention
    (query dim 0), or a rank-4 softmax fed by an add of a matmul and read by a matmul."""
    ops, types_, producer, readers = graph(spec, fn_name)
    out = []
    for op in ops:
        if op.type == "scaled_dot_product_attention":
            q = dims(types_[binding(op, "query")].tensorType)
            if len(q) >= 3 and q[0] is not None and q[0] >= 10:
                out.append(finding(G4, fn_name, op_name(op)))
        elif op.type == "softmax":
            y = dims(op.outputs[0].type.tensorType)
            add = producer.get(binding(op, "x"))
            fed = add is not None and add.type == "add" and any(
                producer.get(binding(add, p)) is not None and producer[binding(add, p)].type == "matmul"
                for p in ("x", "y"))
            feeds = any(r.type == "matmul" for r in readers.get(op.outputs[0].name, []))
            if fed and feeds and len(y) == 4 and y[0] is not None and y[0] >= 10:
                out.append(finding(G4, fn_name, op_name(op)))
    return out


def g6_findings(spec, fn_name):
    """conv strides: 5 or 7 on some axis (the hang), else 10 or 11 (the slow compile)."""
    consts = const_numbers(spec, fn_name)
    out = []
    for op in fn_ops(spec, fn_name):
        if op.type != "conv":
            continue
        strides = consts.get(binding(op, "strides")) or []
        if any(s in (5, 7) for s in strides):
            out.append(finding(G6_HANG, fn_name, op_name(op)))
        elif any(s in (10, 11) for s in strides):
            out.append(finding(G6_SLOW, fn_name, op_name(op)))
    return out


def all_findings(path):
    spec = ct.utils.load_spec(str(path))
    out = origin_findings(path)
    for fn in sorted(spec.mlProgram.functions):
        out += g1_findings(spec, fn) + g4_findings(spec, fn) + g6_findings(spec, fn)
    return out


# ---------------------------------------------------------------------------------------------------
# The models


def build():
    fp32 = ct.precision.FLOAT32
    ten = torch.tensor(10.0)
    # G1: the naive forms in fp16 ...
    yield "softplus", unary(F.softplus)
    yield "softplus-beta", unary(lambda x: F.softplus(x, beta=2.0))
    yield "mish", unary(F.mish)
    yield "logsumexp", unary(lambda x: torch.logsumexp(x, dim=-1))
    yield "log-softmax", unary(lambda x: F.log_softmax(x, dim=-1))
    yield "logcumsumexp", unary(lambda x: torch.logcumsumexp(x, dim=-1))
    # ... the global-max shift of PR #2727: no overflow, but prefixes underflow (an info) ...
    yield "logcumsumexp-shifted", unary(shifted_logcumsumexp)
    # ... twins: the input bounded above by 10, the stable forms, fp32 compute.
    yield "softplus-clamped-clean", unary(lambda x: F.softplus(torch.clamp(x, max=10.0)))
    yield "softplus-minimum-clean", unary(lambda x: F.softplus(torch.minimum(x, ten)))
    yield "softplus-stable-clean", unary(stable_softplus)
    yield "mish-stable-clean", unary(lambda x: x * torch.tanh(stable_softplus(x)))
    yield "logsumexp-shifted-clean", unary(shifted_logsumexp)
    yield "log-softmax-shifted-clean", unary(shifted_log_softmax)
    yield "softplus-fp32", unary(F.softplus, fp32)
    yield "log-softmax-fp32", unary(lambda x: F.log_softmax(x, dim=-1), fp32)
    yield "logcumsumexp-fp32", unary(lambda x: torch.logcumsumexp(x, dim=-1), fp32)

    # G4: a leading batch of 10 against 9, fused and hand-written.
    yield "sdpa-batch10", attention(Sdpa(), batch=10)
    yield "sdpa-batch9-clean", attention(Sdpa(), batch=9)
    yield "attention-batch10", attention(HandAttention(32), batch=10)
    yield "attention-batch9-clean", attention(HandAttention(32), batch=9)

    # G6: strides 5 and 7 (the compile that never finishes), 10 and 11 (slow), 4 and 6 (clean).
    yield "conv-stride5", conv2d(5)
    yield "conv-stride2x7", conv2d((2, 7))
    yield "conv1d-stride5", conv1d(5)
    yield "conv-stride10", conv2d(10)
    yield "conv-stride4-clean", conv2d(4)
    yield "conv-stride6-clean", conv2d(6)


def main():
    for old in sorted(EXPECTED.glob(f"{PREFIX}*.json")):
        old.unlink()
    for old in sorted(pkg(PREFIX).parent.glob(f"{PREFIX}*.mlpackage")):
        reset(old)
    for name, model in build():
        path = save_model(model, pkg(PREFIX + name))
        stabilize(path)
        write_expected(PREFIX + name, package_record(path, all_findings(path)))
        print(f"wrote {path.name}", file=sys.stderr)


if __name__ == "__main__":
    main()
