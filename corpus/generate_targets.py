#!/usr/bin/env python3
"""Converter-made models for the deployment-target rules (`requires-newer-os`, `tensor-dim-limit`'s
per-family limits, `conv-kernel-width`, `flexible-input-shape`): small PyTorch modules traced and
converted with coremltools, each with a clean twin that differs only in the property.

Writes `packages/<rule>*.mlpackage` and `expected/<rule>*.json` (the record format of
`generate.py`, plus `target`: the `--target` tokens the findings are expected for; a model may have
one record per target). Expected findings are computed here from the saved spec, independently of
the linter.

Run: `/work/venv/bin/python corpus/generate_targets.py`. Seeded and byte-stable
(`generate.stabilize`).
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
    write_expected,
)

from generate_torch_origin import fp16_tensor, traced  # noqa: E402

warnings.filterwarnings("ignore")

# Every model this script writes starts with one of these (the rules' ids).
PREFIXES = (
    "requires-newer-os", "tensor-dim-limit-wide", "conv-kernel-width", "flexible-input-shape",
)

# iOS18-only ops (rules/opset/ops.yaml `since: ios18`) a converter emits.
IOS18_OPS = {"scaled_dot_product_attention", "slice_update", "read_state", "write_state"}


class Attention(nn.Module):
    """torch's fused attention: coremltools emits `scaled_dot_product_attention` for iOS18 only."""

    def forward(self, q, k, v):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v)


class Scale(nn.Module):
    def forward(self, x):
        return torch.relu(x * 2.0 + 1.0)


def framing(kernel, stride):
    class Framing(nn.Module):
        """An STFT-style front end: the window is the conv kernel."""

        def __init__(self):
            super().__init__()
            self.conv = nn.Conv1d(1, 32, kernel_size=kernel, stride=stride, bias=False)

        def forward(self, audio):
            return self.conv(audio)

    return Framing


class Projection(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(32, 32)

    def forward(self, x):
        return torch.relu(self.proj(x))


def convert(model, inputs, target=ct.target.iOS18):
    return ct.convert(
        model,
        inputs=inputs,
        convert_to="mlprogram",
        minimum_deployment_target=target,
        compute_precision=ct.precision.FLOAT16,
    )


def first_op(spec, types):
    return next(op_name(op) for op in fn_ops(spec, "main") if op.type in types)


def save(name, model):
    path = save_model(model, pkg(name))
    stabilize(path)
    return path


def record(name, path, findings, target=None):
    rec = package_record(path, findings)
    if target is not None:
        rec["target"] = target
    write_expected(name, rec)


def build():
    # requires-newer-os: the same attention converted for iOS18 (fused op) and for iOS17.
    shape = (1, 2, 8, 32)
    qkv = [torch.randn(*shape) for _ in range(3)]
    inputs = [fp16_tensor(n, shape) for n in ("q", "k", "v")]
    attn = traced(Attention, *qkv)
    new = save("requires-newer-os", convert(attn, inputs, ct.target.iOS18))
    spec = ct.utils.load_spec(str(new))
    assert spec.specificationVersion == 9
    record("requires-newer-os", new, [])
    record("requires-newer-os-ios17", new,
           [finding("requires-newer-os", "main", first_op(spec, IOS18_OPS))], "ios17")
    record("requires-newer-os-ios18", new, [], "ios18")
    old = save("requires-newer-os-clean", convert(attn, inputs, ct.target.iOS17))
    assert ct.utils.load_spec(str(old)).specificationVersion == 8
    record("requires-newer-os-clean-ios17", old, [], "ios17")

    # tensor-dim-limit: a 20000-sample waveform (W = 20000): over 16384 through A15 / M3, within
    # 65536 from A16 / M4. Reported at the input (its origin).
    wide = save("tensor-dim-limit-wide",
                convert(traced(Scale, torch.randn(1, 20000)), [fp16_tensor("audio", (1, 20000))]))
    record("tensor-dim-limit-wide", wide, [finding("tensor-dim-limit", "main")])
    record("tensor-dim-limit-wide-a15", wide, [finding("tensor-dim-limit", "main")], "a15")
    record("tensor-dim-limit-wide-a17", wide, [], "a17,m4")
    narrow = save("tensor-dim-limit-wide-clean",
                  convert(traced(Scale, torch.randn(1, 16000)), [fp16_tensor("audio", (1, 16000))]))
    record("tensor-dim-limit-wide-clean", narrow, [])

    # conv-kernel-width: a 512-wide window (over every cap), a 15-wide one (over 13, within 15),
    # and an 8-wide clean twin; every output is [1, 32, 32].
    for name, kernel, stride, length in (
        ("conv-kernel-width", 512, 128, 4480),
        ("conv-kernel-width-15", 15, 32, 1024),
        ("conv-kernel-width-clean", 8, 140, 4480),
    ):
        model = traced(framing(kernel, stride), torch.randn(1, 1, length))
        path = save(name, convert(model, [fp16_tensor("audio", (1, 1, length))]))
        spec = ct.utils.load_spec(str(path))
        conv = first_op(spec, {"conv"})
        over13 = [finding("conv-kernel-width", "main", conv)] if kernel > 13 else []
        over15 = [finding("conv-kernel-width", "main", conv)] if kernel > 15 else []
        record(name, path, over13)
        record(name + "-a15", path, over13, "a15")
        record(name + "-a17", path, over15, "a17")

    # flexible-input-shape: a RangeDim and EnumeratedShapes sequence axis, and the fixed twin.
    proj = traced(Projection, torch.randn(1, 8, 32))
    for name, shape in (
        ("flexible-input-shape", ct.Shape((1, ct.RangeDim(1, 64, default=8), 32))),
        ("flexible-input-shape-enumerated",
         ct.EnumeratedShapes([(1, 8, 32), (1, 16, 32), (1, 32, 32)], default=(1, 8, 32))),
        ("flexible-input-shape-clean", (1, 8, 32)),
    ):
        path = save(name, convert(proj, [fp16_tensor("x", shape)]))
        flexible = not name.endswith("-clean")
        found = [finding("flexible-input-shape", "main")] if flexible else []
        record(name, path, found)
        if flexible:
            record(name + "-mac", path, found, "mac")


def main():
    for folder in (pkg("x").parent, EXPECTED):
        for entry in sorted(folder.glob("*")):
            if entry.name.startswith(PREFIXES):
                reset(entry)
    build()


if __name__ == "__main__":
    main()
