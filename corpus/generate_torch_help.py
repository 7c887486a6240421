#!/usr/bin/env python3
"""Converter-made twins showing that a rule's help, followed, gives a model the rule no longer
reports: each pair is one PyTorch module converted as the finding's model was, then again as the
help says.

- `torch-help-fp32-lstm-ios16`: a two-layer `nn.LSTM` (and a linear head) converted with
  `compute_precision=FLOAT16` for iOS16. coremltools casts around every `lstm` of an iOS15/iOS16
  program (MIL's fp16 `lstm` came with iOS17), so the FLOAT16 program computes its LSTMs in fp32:
  one `fp32-compute` finding for `main`, whose help names the iOS17 target;
- `torch-help-fp32-lstm-ios17-clean`: the same module converted for iOS17, as the help says: no
  `fp32-compute` finding.

Both have `gpu-rnn-abort`'s info (any LSTM, on macOS 26.5–26.6's GPU).

- `torch-help-logits-linear`: a `Linear(1, 16416)` head giving `[1, 1, 16416]` logits: W = 16416
  is over the 16384 limit through A15 / M3, one `tensor-dim-limit` finding;
- `torch-help-logits-conv-clean`: the same head as a 1×1 `Conv2d` over `[1, 1, 1, 1]`, as the help
  says: `[1, 16416, 1, 1]`, the vocabulary on the channel axis (≤ 65536): no `tensor-dim-limit`.
  (Both have `io-last-axis-alignment`'s infos for their 1-wide last axes.)

And the findings of one cause, once each:
- `torch-help-blend-inplace`: `k.mul_(0.5); k.add_(x)` on a `[1, 2, 16, 32]` cache buffer
  (`torch.jit.trace`, `ct.StateType`): coremltools writes the state once per in-place op. One
  blend, whole-state: one `state-blend-rmw` and one `state-full-extent-write`, at the first write
  (no `state-multiple-writes`: the second write is the same blend);
- `torch-help-accumulator`: the same in-place update of a `[32]` running sum: not a cache, so no
  `state-blend-rmw` (its element-wise update is the computation); the whole-state write stays.

Expected findings are written by hand here from what the converter does, not computed by the
linter. Writes only `packages/torch-help-*.mlpackage` and `expected/torch-help-*.json`. Run:
`/work/venvs/torch/bin/python corpus/generate_torch_help.py` (torch 2.7 + coremltools 9.0). Seeded
and byte-stable (`generate.stabilize`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
from coremltools.proto import MIL_pb2

sys.path.insert(0, str(Path(__file__).resolve().parent))
import generate  # noqa: E402  (sets up warnings/logging and imports coremltools)
from generate import ct, finding, fn_ops, op_name, package_record, reset, stabilize, write_expected, writes_of  # noqa: E402

PACKAGES = generate.CORPUS / "packages"
FEATURES, HIDDEN, STEPS = 32, 32, 4  # last axes of 32 fp16 (64 bytes), as the ANE wants them


class Lstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(FEATURES, HIDDEN, num_layers=2, batch_first=True)
        self.head = nn.Linear(HIDDEN, 32)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.head(y)


VOCAB, HEAD_IN = 16_416, 1  # just over 16384 (a multiple of 32); one input feature keeps it small


class LinearHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(HEAD_IN, VOCAB)

    def forward(self, h):
        return self.head(h)


class ConvHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Conv2d(HEAD_IN, VOCAB, 1)

    def forward(self, h):
        return self.head(h)


def head(module, shape):
    x = torch.zeros(*shape)
    traced = torch.jit.trace(seeded(module), (x,))
    return ct.convert(
        traced,
        inputs=[ct.TensorType(name="h", shape=shape, dtype=np.float16)],
        outputs=[ct.TensorType(name="y", dtype=np.float16)],
        minimum_deployment_target=ct.target.iOS18,
        compute_precision=ct.precision.FLOAT16,
        convert_to="mlprogram",
    )


class InPlace(nn.Module):
    """`state = state * 0.5 + x`, written as PyTorch's two in-place ops on a buffer."""

    def __init__(self, shape):
        super().__init__()
        self.register_buffer("k_cache", torch.zeros(*shape, dtype=torch.float16))

    def forward(self, x):
        self.k_cache.mul_(0.5)
        self.k_cache.add_(x)
        return self.k_cache * 2.0


def in_place(shape):
    x = torch.zeros(*shape, dtype=torch.float16)
    traced = torch.jit.trace(InPlace(shape).eval(), (x,))
    return ct.convert(
        traced,
        inputs=[ct.TensorType(name="x", shape=shape, dtype=np.float16)],
        outputs=[ct.TensorType(name="y", dtype=np.float16)],
        states=[ct.StateType(wrapped_type=ct.TensorType(shape=shape, dtype=np.float16), name="k_cache")],
        minimum_deployment_target=ct.target.iOS18,
        compute_precision=ct.precision.FLOAT16,
        convert_to="mlprogram",
    )


def first_write(path):
    return writes_of(ct.utils.load_spec(str(path)), "main", "k_cache")[0]


def seeded(module):
    torch.manual_seed(0)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn_like(p) * 0.05)
    return module.eval()


def convert(traced, target):
    return ct.convert(
        traced,
        inputs=[ct.TensorType(name="x", shape=(1, STEPS, FEATURES), dtype=np.float16)],
        outputs=[ct.TensorType(name="y", dtype=np.float16)],
        minimum_deployment_target=target,
        compute_precision=ct.precision.FLOAT16,
        convert_to="mlprogram",
    )


def save(model, name, findings):
    path = PACKAGES / f"{name}.mlpackage"
    reset(path)
    model.save(str(path))
    stabilize(path)
    reset(generate.EXPECTED / f"{name}.json")
    write_expected(name, package_record(path, findings(path)))
    return path


def first_op(path, op_type):
    spec = ct.utils.load_spec(str(path))
    return next(op_name(op) for op in fn_ops(spec, "main") if op.type == op_type)


def first_cast_to_fp32(path):
    spec = ct.utils.load_spec(str(path))
    for op in fn_ops(spec, "main"):
        if op.type == "cast" and op.outputs[0].type.tensorType.dataType == MIL_pb2.FLOAT32:
            return op_name(op)
    raise SystemExit(f"{path.name}: no cast to fp32")


def main():
    x = torch.randn(1, STEPS, FEATURES)
    traced = torch.jit.trace(seeded(Lstm()), (x,))
    save(
        convert(traced, ct.target.iOS16),
        "torch-help-fp32-lstm-ios16",
        lambda p: [
            finding("fp32-compute", "main", first_cast_to_fp32(p)),
            finding("gpu-rnn-abort", "main", first_op(p, "lstm")),
        ],
    )
    # Clean for fp32-compute; every LSTM is gpu-rnn-abort's (an info for macOS 26.5–26.6).
    save(
        convert(traced, ct.target.iOS17),
        "torch-help-fp32-lstm-ios17-clean",
        lambda p: [finding("gpu-rnn-abort", "main", first_op(p, "lstm"))],
    )
    save(
        head(LinearHead(), (1, 1, HEAD_IN)),
        "torch-help-logits-linear",
        lambda p: [
            finding("tensor-dim-limit", "main", first_op(p, "linear")),
            finding("io-last-axis-alignment", "main", None),
        ],
    )
    save(
        head(ConvHead(), (1, HEAD_IN, 1, 1)),
        "torch-help-logits-conv-clean",
        lambda p: [
            finding("io-last-axis-alignment", "main", None),
            finding("io-last-axis-alignment", "main", first_op(p, "conv")),
        ],
    )
    save(
        in_place((1, 2, 16, 32)),
        "torch-help-blend-inplace",
        lambda p: [
            finding("state-blend-rmw", "main", first_write(p), "k_cache"),
            finding("state-full-extent-write", "main", first_write(p), "k_cache"),
        ],
    )
    save(
        in_place((32,)),
        "torch-help-accumulator",
        lambda p: [finding("state-full-extent-write", "main", first_write(p), "k_cache")],
    )


if __name__ == "__main__":
    main()
