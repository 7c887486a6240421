#!/usr/bin/env python3
"""Converter-made models for the catalog-3 hazards (FIELD-HAZARDS-3.md C1-C6): small PyTorch modules
traced and converted with coremltools 9.0 (torch 2.7), compressed with `coremltools.optimize.coreml`
where the hazard needs it, each with the clean twins the catalog names.

- `pow-const-base-two*` (C1): `torch.pow(2.0, h)`; twins `h ** 2`, `3 ** h`, `exp(h * ln 2)`.
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
SEQ = 16

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


def convert(model, inputs, target=IOS18, states=None, op_selector=None):
    precision = ct.precision.FLOAT16
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
    for kind in ("square", "base3", "exp"):
        yield f"pow-const-base-two-{kind}-clean", convert(traced(Pow(kind), x8), [tensor("x", (1, 8))])

    scores = torch.zeros((1, 4, SEQ))
    keep = torch.ones((1, 1, SEQ))
    pad_in = [tensor("scores", (1, 4, SEQ)), tensor("keep", (1, 1, SEQ))]
    yield "mask-nonfinite-const-finfo-padding", convert(traced(PaddingMask(FINFO_MIN), scores, keep), pad_in)
    yield "mask-nonfinite-const-finfo-padding-clean", convert(traced(PaddingMask(-1e4), scores, keep), pad_in)
    flex = ct.RangeDim(lower_bound=1, upper_bound=SEQ, default=SEQ)
    yield "mask-nonfinite-const-finfo-fill", convert(
        torch.jit.script(FlexibleCausal()) if False else traced(FlexibleCausal(), torch.zeros((1, SEQ, SEQ))),
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
    only = sys.argv[1:]
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


def all_findings(path):
    return []


if __name__ == "__main__":
    main()
