#!/usr/bin/env python3
"""Converter-made models for the origin rules (`fp32-compute`, `tensor-rank`, `tensor-dim-limit`,
`io-last-axis-alignment`): small PyTorch modules traced and converted with coremltools, the way users
make their models, so that a property spreads over many ops the way it does in real conversions.

Writes `packages/torch-origin-*.mlpackage` and `expected/torch-origin-*.json` (same record format as
`generate.py`). The expected findings are computed here from the saved spec, independently of the
linter: for each rule, the values having the rule's property are grouped into connected regions (an op
is joined to the producers of its inputs that have the property too), and each region is reported
once, at its first origin (a function input first, else the first op in program order whose inputs do
not have the property).

Run: `/work/venv-torch/bin/python corpus/generate_torch_origin.py` (needs torch next to
`corpus/requirements.txt`). Seeded and byte-stable (`generate.stabilize`).
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
from coremltools.proto import MIL_pb2  # noqa: E402

from generate import (  # noqa: E402
    EXPECTED,
    finding,
    fp32_findings,
    fn_ops,
    main_block,
    op_name,
    package_record,
    pkg,
    rank_findings,
    region_findings,
    reset,
    save_model,
    stabilize,
    tensor_of,
    write_expected,
)

warnings.filterwarnings("ignore")

PREFIX = "torch-origin-"
IOS18 = ct.target.iOS18

# Tiny decoder geometry.
VOCAB = 64
HIDDEN = 32
HEADS = 2
SEQ = 8
LAYERS = 2

# ---------------------------------------------------------------------------------------------------
# PyTorch modules


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(HIDDEN, HIDDEN)
        self.k = nn.Linear(HIDDEN, HIDDEN)
        self.v = nn.Linear(HIDDEN, HIDDEN)
        self.o = nn.Linear(HIDDEN, HIDDEN)
        mask = torch.triu(torch.full((SEQ, SEQ), -1e4), diagonal=1)
        self.register_buffer("mask", mask)

    def forward(self, x):
        b, t, _ = x.shape
        d = HIDDEN // HEADS
        q = self.q(x).view(b, t, HEADS, d).transpose(1, 2)
        k = self.k(x).view(b, t, HEADS, d).transpose(1, 2)
        v = self.v(x).view(b, t, HEADS, d).transpose(1, 2)
        scores = q @ k.transpose(-1, -2) / (d**0.5) + self.mask
        p = torch.softmax(scores, dim=-1)
        y = (p @ v).transpose(1, 2).reshape(b, t, HIDDEN)
        return self.o(y)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(HIDDEN)
        self.attn = Attention()
        self.ln2 = nn.LayerNorm(HIDDEN)
        self.mlp = nn.Sequential(nn.Linear(HIDDEN, 2 * HIDDEN), nn.GELU(), nn.Linear(2 * HIDDEN, HIDDEN))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class TinyDecoder(nn.Module):
    """Token ids -> logits: embedding, two pre-norm transformer blocks, final norm, LM head."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, HIDDEN)
        self.blocks = nn.ModuleList([Block() for _ in range(LAYERS)])
        self.norm = nn.LayerNorm(HIDDEN)
        self.head = nn.Linear(HIDDEN, VOCAB)

    def forward(self, ids):
        x = self.embed(ids)
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.norm(x))


class IslandAttention(nn.Module):
    """One attention whose score matmul, softmax and value matmul are kept in fp32 (the fp32 island)."""

    def __init__(self):
        super().__init__()
        self.attn = Attention()

    def forward(self, x):
        return self.attn(x)


class LongAxis(nn.Module):
    """audio [1, 20480] (a long input), and a branch that makes a long axis from short features."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(640, HIDDEN)

    def forward(self, audio, feats):
        frames = torch.abs(audio * 0.5 + 0.1).reshape(1, 32, 640)
        energy = self.proj(frames).mean(dim=1)  # [1, 32]
        wide = feats.repeat(1, 640)  # [1, 20480]: the long axis starts here
        gain = torch.sigmoid(wide).mean(dim=-1, keepdim=True)  # [1, 1]
        return energy * gain


class StatefulRank5(nn.Module):
    """Apple's stateful-Llama cache layout: k/v caches [layers, batch, heads, ctx, head_dim] (rank 5),
    one layer, a one-row write at a constant position, attention over the whole cache. Widths are
    multiples of 32 so that only the rank is reported."""

    WIDTH = 2 * HIDDEN
    LAYOUT = (1, 1, HEADS, 16, WIDTH // HEADS)

    def __init__(self):
        super().__init__()
        self.k = nn.Linear(self.WIDTH, self.WIDTH)
        self.v = nn.Linear(self.WIDTH, self.WIDTH)
        self.register_buffer("k_cache", torch.zeros(self.LAYOUT))
        self.register_buffer("v_cache", torch.zeros(self.LAYOUT))

    def forward(self, x):
        d = self.WIDTH // HEADS
        q = x.view(1, 1, HEADS, d).transpose(1, 2)  # [1, heads, 1, d]
        k = self.k(x).view(1, 1, HEADS, d).transpose(1, 2)
        v = self.v(x).view(1, 1, HEADS, d).transpose(1, 2)
        self.k_cache[0:1, :, :, 4:5, :] = k.unsqueeze(0)
        self.v_cache[0:1, :, :, 4:5, :] = v.unsqueeze(0)
        keys = self.k_cache[0]
        values = self.v_cache[0]
        p = torch.softmax(q @ keys.transpose(-1, -2), dim=-1)
        return (p @ values).transpose(1, 2).reshape(1, 1, self.WIDTH)


# ---------------------------------------------------------------------------------------------------
# Conversion


def traced(module, *examples):
    torch.manual_seed(0)
    m = module()
    m.eval()
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.randn_like(p) * 0.05)
    return torch.jit.trace(m, examples)


def convert(model, inputs, precision=ct.precision.FLOAT16, states=None, outputs=None):
    kwargs = {"states": states} if states else {}
    if outputs:
        kwargs["outputs"] = outputs
    return ct.convert(
        model,
        inputs=inputs,
        convert_to="mlprogram",
        minimum_deployment_target=IOS18,
        compute_precision=precision,
        **kwargs,
    )


def fp16_tensor(name, shape):
    return ct.TensorType(name=name, shape=shape, dtype=np.float16)


# ---------------------------------------------------------------------------------------------------
# Expected findings: one per connected region of values with the rule's property, at its origin

def shape_of(tensor_type):
    return [d.constant.size if d.WhichOneof("dimension") == "constant" else None
            for d in tensor_type.dimensions]


def dim_over_limit(value_type):
    """tensor-dim-limit: rank 4 read as N, C, H, W (C up to 65536, the others 16384); other ranks
    16384 on every axis."""
    t = tensor_of(value_type)
    if t is None:
        return False
    dims = shape_of(t)
    if t.rank == 4:
        return any(d is not None and d > (65536 if i == 1 else 16384) for i, d in enumerate(dims))
    return any(d is not None and d > 16384 for d in dims)


def dim_findings(spec, fn_name):
    return region_findings(spec, fn_name, "tensor-dim-limit", lambda i: dim_over_limit(i.type),
                           lambda _op, o: dim_over_limit(o.type))


def io_findings(spec, fn_name):
    """io-last-axis-alignment: fp16 inputs and outputs whose last axis is not a multiple of 32 (these
    models have none in common between functions: one function each)."""
    fn = spec.mlProgram.functions[fn_name]
    block = main_block(fn)

    def unaligned(value_type):
        t = tensor_of(value_type)
        dims = shape_of(t) if t is not None else []
        return (t is not None and t.dataType == MIL_pb2.FLOAT16 and dims and dims[-1] is not None
                and dims[-1] % 32 != 0)

    out = [finding("io-last-axis-alignment", fn_name)
           for inp in fn.inputs if inp.type.WhichOneof("type") == "tensorType" and unaligned(inp.type)]
    for op in fn_ops(spec, fn_name):
        for o in op.outputs:
            if o.name in block.outputs and unaligned(o.type):
                out.append(finding("io-last-axis-alignment", fn_name, op_name(op)))
    return out


def all_findings(path):
    spec = ct.utils.load_spec(str(path))
    out = []
    for fn in sorted(spec.mlProgram.functions):
        out += fp32_findings(spec, fn) + rank_findings(spec, fn) + dim_findings(spec, fn)
        out += io_findings(spec, fn)
    return out


# ---------------------------------------------------------------------------------------------------
# The models


def build():
    ids = torch.zeros((1, SEQ), dtype=torch.int32)
    ids_in = [ct.TensorType(name="ids", shape=(1, SEQ), dtype=np.int32)]
    decoder = traced(TinyDecoder, ids)
    yield "decoder-fp32", convert(decoder, ids_in, precision=ct.precision.FLOAT32)
    yield "decoder-fp16-clean", convert(decoder, ids_in)

    x = torch.zeros((1, SEQ, HIDDEN))
    island = ct.transform.FP16ComputePrecision(
        op_selector=lambda op: op.op_type not in ("matmul", "real_div", "mul", "add", "softmax")
    )
    attn = traced(IslandAttention, x)
    yield "fp32-island", convert(attn, [fp16_tensor("x", (1, SEQ, HIDDEN))], precision=island,
                                 outputs=[ct.TensorType(name="y", dtype=np.float16)])

    audio = torch.zeros((1, 20480))
    feats = torch.zeros((1, 32))
    long_axis = traced(LongAxis, audio, feats)
    yield "long-axis", convert(long_axis, [fp16_tensor("audio", (1, 20480)), fp16_tensor("feats", (1, 32))],
                               outputs=[ct.TensorType(name="y", dtype=np.float16)])

    step = torch.zeros((1, 1, StatefulRank5.WIDTH))
    layout = StatefulRank5.LAYOUT
    states = [ct.StateType(wrapped_type=ct.TensorType(shape=layout, dtype=np.float16), name=n)
              for n in ("k_cache", "v_cache")]
    stateful = traced(StatefulRank5, step)
    yield "stateful-rank5", convert(stateful, [fp16_tensor("x", (1, 1, StatefulRank5.WIDTH))], states=states,
                                    outputs=[ct.TensorType(name="y", dtype=np.float16)])


def main():
    for old in sorted(EXPECTED.glob(f"{PREFIX}*.json")):
        old.unlink()
    for old in sorted(pkg(PREFIX + "*").parent.glob(f"{PREFIX}*.mlpackage")):
        reset(old)
    for name, model in build():
        path = save_model(model, pkg(PREFIX + name))
        stabilize(path)
        write_expected(PREFIX + name, package_record(path, all_findings(path)))
        print(f"wrote {path.name}", file=sys.stderr)


if __name__ == "__main__":
    main()
