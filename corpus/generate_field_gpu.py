#!/usr/bin/env python3
"""Fixtures of catalog 3's C7 (`FIELD-HAZARDS-3.md`): hazards that depend on the compute units the
app loads the model with. Small PyTorch modules converted with coremltools (iOS18, fp16) the way
users make their models; each hazard has a clean twin that differs only in the property.

- gpu-unfused-attention: hand-written attention (`q @ k.transpose(-1, -2)` -> softmax -> `@ v`, which
  the converter writes as matmul(transpose_y = true) -> mul -> softmax -> matmul) after a deep stack
  of layers (a function of 100 or more non-constant ops). Twins: the same stack with
  `F.scaled_dot_product_attention` (the fused op), and the hand-written attention after a shallow
  stack. The stack is element-wise (relu(x * 1.5 - 0.25)), so the packages hold almost no weights.
- gpu-rnn-abort: `nn.LSTM` (the converter's `lstm` op) and `nn.RNN` (`rnn`); twin: a Linear layer.
- cpu-istft-crash: an iSTFT written as an overlap-add `conv_transpose1d` (one output channel, a
  16-wide window, hop 4) and trimmed; twin: the same transposed convolution with 8 output channels
  (an upsampler, not a waveform synthesis).

Writes `packages/{gpu-unfused-attention,gpu-rnn-abort,cpu-istft-crash}*.mlpackage` and the matching
`expected/*.json` (record format of `generate.py`). The expected findings of the three rules are
computed here from the saved spec, independently of the linter; `conv-kernel-width` (the 16-wide
window is over the ANE's cap of 13) too; the origin rules' by the helpers of
`generate_torch_origin.py`.

Run: `/work/venvs/torch/bin/python corpus/generate_field_gpu.py` (torch 2.7 + coremltools 9.0).
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

PREFIXES = ("gpu-unfused-attention", "gpu-rnn-abort", "cpu-istft-crash")
IOS18 = ct.target.iOS18
TOKENS, WIDTH = 16, 32
# "Deep": a function of 100 or more non-constant ops (rules/gpu-unfused-attention.yaml).
DEEP = 100

# ---------------------------------------------------------------------------------------------------
# PyTorch modules


class Stack(nn.Module):
    """`steps` x relu(x * 1.5 - 0.25): three ops each in the converted program, and no weights."""

    def __init__(self, steps):
        super().__init__()
        self.steps = steps

    def forward(self, x):
        for _ in range(self.steps):
            x = torch.relu(x * 1.5 - 0.25)
        return x


class Attention(nn.Module):
    """A stack, then one attention over its output: hand-written or fused."""

    def __init__(self, steps, fused):
        super().__init__()
        self.stack = Stack(steps)
        self.fused = fused

    def forward(self, x):
        h = self.stack(x).reshape(1, TOKENS, 2, WIDTH // 2).transpose(1, 2)
        if self.fused:
            a = F.scaled_dot_product_attention(h, h, h)
        else:
            a = torch.softmax(h @ h.transpose(-1, -2) * (WIDTH // 2) ** -0.5, dim=-1) @ h
        return a.transpose(1, 2).reshape(1, TOKENS, WIDTH)


class Recurrent(nn.Module):
    """A recurrent layer (`lstm`, `rnn`) or, for the twin, a Linear layer."""

    def __init__(self, kind):
        super().__init__()
        self.kind = kind
        if kind == "lstm":
            self.layer = nn.LSTM(WIDTH, WIDTH, batch_first=True)
        elif kind == "rnn":
            self.layer = nn.RNN(WIDTH, WIDTH, batch_first=True)
        else:
            self.layer = nn.Linear(WIDTH, WIDTH)

    def forward(self, x):
        y = self.layer(x)
        return y[0] if isinstance(y, tuple) else y


class Synthesis(nn.Module):
    """An iSTFT's overlap-add: spectrum frames [1, 18, 64] (9 bins, real and imaginary) through a
    16-wide window at hop 4, trimmed to 256 samples. `channels` > 1 makes it an upsampler instead."""

    N_FFT, HOP, FRAMES = 16, 4, 64

    def __init__(self, channels):
        super().__init__()
        self.up = nn.ConvTranspose1d(self.N_FFT + 2, channels, self.N_FFT, stride=self.HOP, bias=False)

    def forward(self, spec):
        return self.up(spec)[..., 6:262]


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


def attention(steps, fused):
    x = torch.zeros(1, TOKENS, WIDTH)
    return convert(traced(Attention(steps, fused), x), [fp16_tensor("x", x.shape)])


def recurrent(kind):
    x = torch.zeros(1, TOKENS, WIDTH)
    return convert(traced(Recurrent(kind), x), [fp16_tensor("x", x.shape)])


def synthesis(channels):
    spec = torch.zeros(1, Synthesis.N_FFT + 2, Synthesis.FRAMES)
    return convert(traced(Synthesis(channels), spec), [fp16_tensor("spec", spec.shape)])


# ---------------------------------------------------------------------------------------------------
# Expected findings, from the saved spec


def bool_consts(spec, fn_name):
    out = {}
    for op in fn_ops(spec, fn_name):
        if op.type == "const":
            t = op.attributes["val"].immediateValue.tensor
            if t.WhichOneof("value") == "bools" and len(t.bools.values) == 1:
                out[op.outputs[0].name] = bool(t.bools.values[0])
    return out


def attention_findings(spec, fn_name):
    """A softmax reached from a matmul through element-wise ops and read by a matmul (through
    casts), one of the two matmuls with a transposed operand, in a function of DEEP or more
    non-constant ops: one finding per function, at the first such softmax in program order."""
    ops = [op for op in fn_ops(spec, fn_name) if op.type != "const"]
    bools = bool_consts(spec, fn_name)
    producer = {o.name: op for op in ops for o in op.outputs}
    consumers = {}
    for op in ops:
        for binding in op.inputs.values():
            for a in binding.arguments:
                if a.WhichOneof("binding") == "name":
                    consumers.setdefault(a.name, []).append(op)

    def transposed(op):
        return any(bools.get(a.name) for p in ("transpose_x", "transpose_y") if p in op.inputs
                   for a in op.inputs[p].arguments)

    def first_up(op):
        while True:
            x = op.inputs["x"].arguments[0].name if "x" in op.inputs else None
            nxt = producer.get(x)
            if nxt is None or nxt.type not in ("mul", "add", "sub", "real_div", "cast", "matmul"):
                return None
            if nxt.type == "matmul":
                return nxt
            op = nxt

    def first_down(op):
        for c in consumers.get(op.outputs[0].name, []):
            if c.type == "matmul":
                return c
            if c.type == "cast":
                found = first_down(c)
                if found is not None:
                    return found
        return None

    if len(ops) < DEEP:
        return []
    for op in ops:
        if op.type != "softmax":
            continue
        score, mix = first_up(op), first_down(op)
        if score is not None and mix is not None and (transposed(score) or transposed(mix)):
            return [finding("gpu-unfused-attention", fn_name, op_name(op))]
    return []


def rnn_findings(spec, fn_name):
    """One finding per function, at its first recurrent op."""
    recurrent = [op for op in fn_ops(spec, fn_name) if op.type in ("lstm", "gru", "rnn")]
    return [finding("gpu-rnn-abort", fn_name, op_name(recurrent[0]))] if recurrent else []


def deconv_findings(spec, fn_name):
    """cpu-istft-crash: a conv_transpose with a rank-3 weight at least 8 wide whose output has one
    channel; conv-kernel-width: a conv / conv_transpose weight more than 13 wide."""
    types_ = value_types(spec, fn_name)
    out = []
    for op in fn_ops(spec, fn_name):
        if op.type not in ("conv", "conv_transpose"):
            continue
        w = dims(types_[op.inputs["weight"].arguments[0].name].tensorType)
        y = dims(op.outputs[0].type.tensorType)
        if w[-1] >= 14:
            out.append(finding("conv-kernel-width", fn_name, op_name(op)))
        if op.type == "conv_transpose" and len(w) == 3 and w[-1] >= 8 and y[1] == 1:
            out.append(finding("cpu-istft-crash", fn_name, op_name(op)))
    return out


def all_findings(path):
    spec = ct.utils.load_spec(str(path))
    out = origin_findings(path)
    for fn in sorted(spec.mlProgram.functions):
        out += attention_findings(spec, fn) + rnn_findings(spec, fn) + deconv_findings(spec, fn)
    return sorted(out, key=lambda f: (f["rule"], f["function"], f["op"] or "", f["state"] or ""))


# ---------------------------------------------------------------------------------------------------
# The models


def build():
    # C7: hand-written attention after 40 steps (120 ops), the fused op after the same stack, and
    # the hand-written one after 3 steps (C2PSA alone did not abort in ultralytics PR #25860).
    yield "gpu-unfused-attention", attention(steps=40, fused=False)
    yield "gpu-unfused-attention-fused-clean", attention(steps=40, fused=True)
    yield "gpu-unfused-attention-shallow-clean", attention(steps=3, fused=False)
    # C7: LSTM / RNN layers (FluidAudio PR #818: GPURNNOps "JIT not supported" on macOS 26.5-26.6).
    yield "gpu-rnn-abort", recurrent("lstm")
    yield "gpu-rnn-abort-rnn", recurrent("rnn")
    yield "gpu-rnn-abort-clean", recurrent("linear")
    # C7: the iSTFT overlap-add the CPU (BNNS) path runs.
    yield "cpu-istft-crash", synthesis(channels=1)
    yield "cpu-istft-crash-clean", synthesis(channels=8)


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
