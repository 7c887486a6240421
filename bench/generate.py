#!/usr/bin/env python3
"""Generate the benchmark models into `bench/out/` (git-ignored, never committed).

The models have the shape of the 1.8B translation model of HAZARDS.md H1: a multifunction ML program
with `infer` (one decode step, one-row state write) and `prefill` (64 tokens) sharing one KV state
`[2 * layers, 4, 1024, 128]` (K and V of every layer stacked), hidden 2048, 16 query heads in 4 KV
groups of head dim 128, RoPE tables, RMSNorm, SwiGLU MLP (5632), tied 4-bit embedding / LM head
(vocab 32000), all weights 4-bit LUT-palettized (`constexpr_lut_to_dense`, as in production).

To keep generation quick and `weight.bin` small, every weight of one shape shares one blob (the
coremltools `weight_id` mechanism that `save_multifunction` uses for deduplication): the graph has one
`constexpr_lut_to_dense` per weight per layer, exactly as a real model, but only one payload per shape.

Outputs (`bench/out/`):
- `decoder-32l.mlpackage`: the 1.8B-shaped model, small `weight.bin`;
- `decoder-32l-1gb.mlpackage`: the same program with a `weight.bin` >= 1 GiB: the last blob is moved
  behind a 1 GiB filler blob (a sparse hole) and the consts that referenced it are re-pointed there,
  so `model.mlmodel` differs from the small variant in that one offset value only;
- `decoder-{1,8,64}l.mlpackage`: the scaling set (32 layers is the model above);
- `folder-100/model-NNN.mlpackage`: 100 small models (2 layers, hidden 256) for the folder run;
- `summary.json`: op counts per function (every operation of the function's block, `const` and
  `write_state` included, as coremltools' protobuf classes see them) and `weight.bin` sizes.

Run: `/work/venv/bin/python bench/generate.py [--only NAME]` (needs `corpus/requirements.txt`).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import struct
import sys
import time
import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)
os.environ.setdefault("TQDM_DISABLE", "1")

import coremltools as ct  # noqa: E402
from coremltools.converters.mil import Builder as mb  # noqa: E402
from coremltools.converters.mil.converter import mil_convert  # noqa: E402
from coremltools.converters.mil.mil import Function, Program, types  # noqa: E402
from coremltools.proto import Model_pb2  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"
IOS18 = ct.target.iOS18
FP16 = np.float16
FILLER_BYTES = 1 << 30  # the hole that makes the big variant's weight.bin >= 1 GiB


@dataclass(frozen=True)
class Shape:
    """Geometry of one decoder."""

    layers: int
    hidden: int = 2048
    kv_heads: int = 4
    group: int = 4  # query heads per KV head
    head_dim: int = 128
    context: int = 1024
    mlp: int = 5632
    vocab: int = 32000
    prefill: int = 64

    @property
    def q_heads(self):
        return self.kv_heads * self.group

    @property
    def state_shape(self):
        return (2 * self.layers, self.kv_heads, self.context, self.head_dim)


SMALL = Shape(layers=2, hidden=256, kv_heads=2, group=2, head_dim=64, context=256, mlp=512,
              vocab=1024, prefill=16)


class Weights:
    """One seeded 4-bit palettized tensor per (role, shape); every use shares its blob."""

    def __init__(self, seed=0):
        self.rs = np.random.RandomState(seed)
        self.cache = {}

    def lut4(self, role, rows, cols):
        key = f"{role}_{rows}x{cols}"
        if key not in self.cache:
            idx = self.rs.randint(0, 16, size=(rows, cols)).astype(types.np_uint4_dtype)
            lut = (np.linspace(-1, 1, 16) * 0.02).astype(FP16).reshape(1, 1, 16, 1)
            self.cache[key] = (idx, lut)
        idx, lut = self.cache[key]
        i = mb.const(val=idx)
        i.op.weight_id = key + "_indices"
        t = mb.const(val=lut)
        t.op.weight_id = key + "_lut"
        return mb.constexpr_lut_to_dense(indices=i, lut=t)

    def linear(self, x, role, rows, cols, name=None):
        """`linear` with a palettized weight and a small shared bias (the builder would otherwise
        add a zero bias const per use)."""
        kwargs = {"name": name} if name else {}
        return mb.linear(x=x, weight=self.lut4(role, rows, cols),
                         bias=self.vector(role + "_bias", rows, base=0.0), **kwargs)

    def vector(self, role, n, base=1.0):
        key = f"{role}_{n}"
        if key not in self.cache:
            self.cache[key] = (base + self.rs.randn(n) * 0.01).astype(FP16)
        c = mb.const(val=self.cache[key])
        c.op.weight_id = key
        return c

    def table(self, role, array):
        if role not in self.cache:
            self.cache[role] = array
        c = mb.const(val=self.cache[role])
        c.op.weight_id = role
        return c


def rope_tables(s: Shape):
    inv = 1.0 / (10000 ** (np.arange(0, s.head_dim, 2) / s.head_dim))
    ang = np.outer(np.arange(s.context), inv)
    ang = np.concatenate([ang, ang], axis=1)
    return np.cos(ang).astype(FP16), np.sin(ang).astype(FP16)


def rms_norm(x, w: Weights, s: Shape, role):
    sq = mb.mul(x=x, y=x)
    ms = mb.reduce_mean(x=sq, axes=[-1], keep_dims=True)
    r = mb.rsqrt(x=mb.add(x=ms, y=FP16(1e-6)))
    return mb.mul(x=mb.mul(x=x, y=r), y=w.vector(role, s.hidden))


def rope(x, cos, sin, s: Shape, heads, t):
    """x [1, heads, t, head_dim]; cos/sin [1, 1, t, head_dim]."""
    half = s.head_dim // 2
    x1 = mb.slice_by_index(x=x, begin=[0, 0, 0, 0], end=[1, heads, t, half])
    x2 = mb.slice_by_index(x=x, begin=[0, 0, 0, half], end=[1, heads, t, s.head_dim])
    rot = mb.concat(values=[mb.mul(x=x2, y=FP16(-1.0)), x1], axis=3)
    return mb.add(x=mb.mul(x=x, y=cos), y=mb.mul(x=rot, y=sin))


def heads_first(x, s: Shape, heads, t):
    """[1, t, heads * head_dim] -> [1, heads, t, head_dim]."""
    return mb.transpose(x=mb.reshape(x=x, shape=[1, t, heads, s.head_dim]), perm=[0, 2, 1, 3])


def layer(x, li, old, cos, sin, mask, w: Weights, s: Shape, t):
    """One decoder layer over t tokens; returns (x, k rows, v rows) with rows [1, kv_heads, t, hd]."""
    h = rms_norm(x, w, s, "attn_norm")
    q = heads_first(w.linear(h, "wq", s.hidden, s.hidden), s, s.q_heads, t)
    kv_width = s.kv_heads * s.head_dim
    k = heads_first(w.linear(h, "wk", kv_width, s.hidden), s, s.kv_heads, t)
    v = heads_first(w.linear(h, "wv", kv_width, s.hidden), s, s.kv_heads, t)
    q = rope(q, cos, sin, s, s.q_heads, t)
    k = rope(k, cos, sin, s, s.kv_heads, t)

    scale = FP16(1.0 / np.sqrt(s.head_dim))
    outs = []
    for g in range(s.kv_heads):
        qg = mb.slice_by_index(
            x=q, begin=[0, g * s.group, 0, 0], end=[1, (g + 1) * s.group, t, s.head_dim]
        )
        kc = mb.slice_by_index(
            x=old, begin=[2 * li, g, 0, 0], end=[2 * li + 1, g + 1, s.context, s.head_dim]
        )
        vc = mb.slice_by_index(
            x=old, begin=[2 * li + 1, g, 0, 0], end=[2 * li + 2, g + 1, s.context, s.head_dim]
        )
        kg = mb.slice_by_index(x=k, begin=[0, g, 0, 0], end=[1, g + 1, t, s.head_dim])
        vg = mb.slice_by_index(x=v, begin=[0, g, 0, 0], end=[1, g + 1, t, s.head_dim])
        keys = mb.concat(values=[kc, kg], axis=2)
        vals = mb.concat(values=[vc, vg], axis=2)
        sc = mb.matmul(x=qg, y=keys, transpose_x=False, transpose_y=True)
        sc = mb.add(x=mb.mul(x=sc, y=scale), y=mask)
        p = mb.softmax(x=sc, axis=-1)
        outs.append(mb.matmul(x=p, y=vals, transpose_x=False, transpose_y=False))
    o = mb.concat(values=outs, axis=1)
    o = mb.reshape(x=mb.transpose(x=o, perm=[0, 2, 1, 3]), shape=[1, t, s.hidden])
    x = mb.add(x=x, y=w.linear(o, "wo", s.hidden, s.hidden))

    h = rms_norm(x, w, s, "mlp_norm")
    gate = mb.silu(x=w.linear(h, "w_gate", s.mlp, s.hidden))
    up = w.linear(h, "w_up", s.mlp, s.hidden)
    x = mb.add(x=x, y=w.linear(mb.mul(x=gate, y=up), "w_down", s.hidden, s.mlp))
    return x, k, v


def decoder(s: Shape, w: Weights, t, cos_t, sin_t):
    """A function over t tokens. infer (t == 1) writes one row at the `pos` input; prefill writes
    rows [0, t) at positions 0..t-1."""
    specs = {"tokens": mb.TensorSpec((1, t), dtype=types.int32)}
    if t == 1:
        specs["pos"] = mb.TensorSpec((1,), dtype=types.int32)
    specs["mask"] = mb.TensorSpec((1, 1, t, s.context + t), dtype=types.fp16)
    specs["kv_cache"] = mb.StateTensorSpec(s.state_shape, dtype=types.fp16)

    with Function(specs, IOS18) as func:
        func.set_outputs(list(body(s, w, t, cos_t, sin_t, func.inputs)))
    return func


def body(s: Shape, w: Weights, t, cos_t, sin_t, inputs):
    tokens, mask, kv = inputs["tokens"], inputs["mask"], inputs["kv_cache"]
    pos = inputs.get("pos")
    if t == 1:
        positions = pos
    else:
        positions = mb.const(val=np.arange(t, dtype=np.int32))
    emb = w.lut4("embed", s.vocab, s.hidden)
    x = mb.gather(x=emb, indices=tokens, axis=0)  # [1, t, hidden]
    cos = mb.reshape(
        x=mb.gather(x=w.table("rope_cos", cos_t), indices=positions, axis=0),
        shape=[1, 1, t, s.head_dim],
    )
    sin = mb.reshape(
        x=mb.gather(x=w.table("rope_sin", sin_t), indices=positions, axis=0),
        shape=[1, 1, t, s.head_dim],
    )
    old = mb.read_state(input=kv)
    rows = []
    for li in range(s.layers):
        x, k, v = layer(x, li, old, cos, sin, mask, w, s, t)
        rows += [k, v]
    update = mb.concat(values=rows, axis=0)  # [2 * layers, kv_heads, t, head_dim]
    if t == 1:
        begin = mb.concat(values=[np.array([0, 0], np.int32), pos, np.array([0], np.int32)],
                          axis=0)
        end = mb.concat(
            values=[np.array([2 * s.layers, s.kv_heads], np.int32), mb.add(x=pos, y=1),
                    np.array([s.head_dim], np.int32)],
            axis=0,
        )
    else:
        begin = [0, 0, 0, 0]
        end = [2 * s.layers, s.kv_heads, t, s.head_dim]
    new = mb.slice_update(x=old, update=update, begin=begin, end=end)
    mb.coreml_update_state(state=kv, value=new)
    h = rms_norm(x, w, s, "final_norm")
    logits = w.linear(h, "embed", s.vocab, s.hidden, name="logits")
    token = mb.reduce_argmax(x=logits, axis=-1, keep_dims=False, name="next_token")
    return logits, token


def build(s: Shape, path: Path):
    w = Weights(seed=s.layers)
    cos_t, sin_t = rope_tables(s)
    prog = Program()
    prog.add_function("infer", decoder(s, w, 1, cos_t, sin_t))
    prog.add_function("prefill", decoder(s, w, s.prefill, cos_t, sin_t))
    prog.default_function_name = "infer"
    prog.export_as_multifunction = True
    prog.skip_all_passes = True
    model = mil_convert(
        prog,
        convert_to="mlprogram",
        convert_from="milinternal",
        specification_version=ct.target.iOS18,
        compute_units=ct.ComputeUnit.CPU_ONLY,
        skip_model_load=True,
    )
    if path.exists():
        shutil.rmtree(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(path))
    return path


# ---------------------------------------------------------------------------------------------------
# Inspection (what coremltools itself reads) and the >= 1 GiB variant


def model_file(pkg: Path) -> Path:
    return pkg / "Data" / "com.apple.CoreML" / "model.mlmodel"


def weight_file(pkg: Path) -> Path:
    return pkg / "Data" / "com.apple.CoreML" / "weights" / "weight.bin"


def walk_ops(block):
    for op in block.operations:
        yield op
        for b in op.blocks:
            yield from walk_ops(b)


def op_counts(spec):
    out = {}
    for name, fn in spec.mlProgram.functions.items():
        ops = list(walk_ops(fn.block_specializations[fn.opset]))
        out[name] = {"ops": len(ops), "histogram": dict(sorted(Counter(o.type for o in ops).items()))}
    return out


def blob_values(spec):
    """Every blobFileValue in the program (const attributes and inline op arguments)."""
    for fn in spec.mlProgram.functions.values():
        for op in walk_ops(fn.block_specializations[fn.opset]):
            for attr in op.attributes.values():
                if attr.HasField("blobFileValue"):
                    yield attr.blobFileValue
            for arg in op.inputs.values():
                for a in arg.arguments:
                    if a.HasField("value") and a.value.HasField("blobFileValue"):
                        yield a.value.blobFileValue


def records(data: bytes):
    """(metadata offset, payload offset, size) of every blob, walking the chain from 64."""
    count, version = struct.unpack_from("<II", data, 0)
    assert version == 2, version
    out, at = [], 64
    for _ in range(count):
        sentinel, _dtype, size, payload = struct.unpack_from("<IIQQ", data, at)
        assert sentinel == 0xDEADBEEF, hex(sentinel)
        out.append((at, payload, size))
        at = (payload + size + 63) // 64 * 64
    return out


def make_big(small: Path, big: Path):
    """Copy `small` and put a 1 GiB sparse filler blob before its last blob (see module doc)."""
    if big.exists():
        shutil.rmtree(big)
    shutil.copytree(small, big)
    wpath = weight_file(big)
    data = wpath.read_bytes()
    recs = records(data)
    last_meta, last_payload, last_size = recs[-1]
    last = data[last_meta : last_payload + last_size]
    count = struct.unpack_from("<I", data, 0)[0]

    filler_meta = last_meta
    filler_payload = filler_meta + 64
    moved_meta = filler_payload + FILLER_BYTES  # FILLER_BYTES is a multiple of 64
    filler = struct.pack("<IIQQQ", 0xDEADBEEF, 3, FILLER_BYTES, filler_payload, 0) + bytes(24)
    moved = bytearray(last)
    struct.pack_into("<Q", moved, 16, moved_meta + 64)
    with open(wpath, "r+b") as f:
        f.seek(0)
        f.write(struct.pack("<I", count + 1))
        f.truncate(filler_meta)
        f.seek(filler_meta)
        f.write(filler)
        f.truncate(moved_meta)  # sparse hole: the filler's payload
        f.seek(moved_meta)
        f.write(moved)

    spec = Model_pb2.Model()
    spec.ParseFromString(model_file(big).read_bytes())
    n = 0
    for bv in blob_values(spec):
        if bv.offset == last_meta:
            bv.offset = moved_meta
            n += 1
    assert n > 0
    model_file(big).write_bytes(spec.SerializeToString())
    return {"moved_blob_from": last_meta, "moved_blob_to": moved_meta, "consts_repointed": n}


def verify(pkg: Path):
    """Load the package as coremltools does (spec + MIL re-load and type check)."""
    from coremltools.converters.mil.frontend.milproto.load import load as milproto_load

    m = ct.models.MLModel(str(pkg), skip_model_load=True)
    spec = m.get_spec()
    milproto_load(spec, spec.specificationVersion, str(weight_file(pkg).parent))
    recs = records(weight_file(pkg).read_bytes())
    metas = {r[0] for r in recs}
    refs = {bv.offset for bv in blob_values(spec)}
    assert refs <= metas, sorted(refs - metas)[:5]
    return spec, len(recs), len(refs)


def describe(pkg: Path, extra=None):
    spec, nrec, nref = verify(pkg)
    st = weight_file(pkg).stat()
    d = {
        "functions": op_counts(spec),
        "weight_bin_bytes": st.st_size,
        "weight_bin_allocated_bytes": st.st_blocks * 512,
        "model_mlmodel_bytes": model_file(pkg).stat().st_size,
        "blob_records": nrec,
        "distinct_offsets_referenced": nref,
    }
    d.update(extra or {})
    return d


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=["main", "scaling", "folder"], action="append")
    args = ap.parse_args()
    parts = args.only or ["main", "scaling", "folder"]
    OUT.mkdir(parents=True, exist_ok=True)
    summary_path = OUT / "summary.json"
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else {}

    def step(name, fn):
        t0 = time.time()
        summary[name] = fn()
        summary[name]["generate_seconds"] = round(time.time() - t0, 1)
        f = summary[name]["functions"]
        print(f"{name}: " + ", ".join(f"{k} {v['ops']} ops" for k, v in f.items())
              + f", weight.bin {summary[name]['weight_bin_bytes']} bytes", flush=True)
        summary_path.write_text(json.dumps(summary, indent=2, sort_keys=True))

    if "main" in parts:
        small = OUT / "decoder-32l.mlpackage"
        step("decoder-32l", lambda: describe(build(Shape(layers=32), small)))
        big = OUT / "decoder-32l-1gb.mlpackage"
        step("decoder-32l-1gb", lambda: describe(big, make_big(small, big)))
    if "scaling" in parts:
        for n in (1, 8, 64):
            step(f"decoder-{n}l", lambda n=n: describe(build(Shape(layers=n),
                                                            OUT / f"decoder-{n}l.mlpackage")))
    if "folder" in parts:
        folder = OUT / "folder-100"
        if folder.exists():
            shutil.rmtree(folder)
        first = build(SMALL, folder / "model-000.mlpackage")
        for i in range(1, 100):
            shutil.copytree(first, folder / f"model-{i:03d}.mlpackage")
        step("folder-100/model-000", lambda: describe(first, {"copies": 100}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
