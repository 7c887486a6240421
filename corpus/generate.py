#!/usr/bin/env python3
"""Regenerate the coreml-lint model corpus.

Builds every committed model under `corpus/` from scratch:

- `packages/*.mlpackage`: ML programs built with the MIL Builder (no torch) and saved by coremltools;
  a few are then edited at the protobuf level to make hazards the builder refuses to write;
- `reference/*.mlpackage`: what a correctly padded (fixed) model looks like when coremltools writes it;
- `compiled/*.mlmodelc`: hand-written compiled models (`model.mil` text, `metadata.json`,
  `weights/weight.bin`) for the text path;
- `expected/<name>.json`: for each model, what coremltools itself reads from the saved spec (functions,
  op counts, op-type histograms, states) plus the findings the linter must report.

Run: `python corpus/generate.py` (needs `pip install -r corpus/requirements.txt`).
Everything is seeded; `compiled/` and `expected/` are byte-stable across runs. `.mlpackage` bytes are not
(protobuf map order, Manifest UUIDs, conversion date), but their programs are.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import shutil
import struct
import sys
import tempfile
import uuid
import warnings
from pathlib import Path

import numpy as np

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)
os.environ.setdefault("TQDM_DISABLE", "1")

import coremltools as ct  # noqa: E402
from coremltools.converters.mil import Builder as mb  # noqa: E402
from coremltools.converters.mil.mil import get_new_symbol, types  # noqa: E402
from coremltools.proto import MIL_pb2, Model_pb2  # noqa: E402

CORPUS = Path(__file__).resolve().parent
PACKAGES = CORPUS / "packages"
REFERENCE = CORPUS / "reference"
COMPILED = CORPUS / "compiled"
EXPECTED = CORPUS / "expected"

IOS18 = ct.target.iOS18
FP16 = np.float16

# Decode-step geometry: KV state [2 (k, v), 2 heads, N rows, 32 head dim], hidden 64.
HEADS = 2
HEAD_DIM = 32
HIDDEN = 64
N = 256  # context rows of the unpadded state
POS = 5  # the constant row a one-row decode write targets
PREFILL_T = 8  # rows written by prefill

# Passes that rewrite int32 gather indices into int16 casts with a negative-index guard: left out so
# that the gather fixtures keep their indices bound straight to the function input.
_DROPPED_PASSES = ["common::add_int16_cast", "common::guard_negative_gather_indices"]

# ---------------------------------------------------------------------------------------------------
# Conversion and saving


def pipeline():
    p = ct.PassPipeline.DEFAULT
    p.remove_passes(_DROPPED_PASSES)
    return p


def convert(prog, precision=ct.precision.FLOAT16, inputs=None):
    kwargs = {}
    if inputs is not None:
        kwargs["inputs"] = inputs
    return ct.convert(
        prog,
        convert_to="mlprogram",
        minimum_deployment_target=IOS18,
        compute_precision=precision,
        pass_pipeline=pipeline(),
        **kwargs,
    )


def reset(path: Path):
    if path.is_dir():
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()


def save_model(model, path: Path) -> Path:
    reset(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(path))
    return path


def save_spec(spec, weights_dir, path: Path) -> Path:
    """Save an (edited) spec with the weights of the package it came from."""
    model = ct.models.MLModel(spec, weights_dir=weights_dir, skip_model_load=True)
    return save_model(model, path)


def load(path: Path):
    return ct.models.MLModel(str(path), skip_model_load=True)


def save_multi(parts, default, path: Path) -> Path:
    """`parts`: list of (package path, target function name); each package's `main` becomes a function."""
    desc = ct.utils.MultiFunctionDescriptor()
    for pkg, fn in parts:
        desc.add_function(str(pkg), src_function_name="main", target_function_name=fn)
    desc.default_function_name = default
    reset(path)
    ct.utils.save_multifunction(desc, str(path))
    return path


# ---------------------------------------------------------------------------------------------------
# Building blocks (MIL Builder)


def rng(seed):
    return np.random.RandomState(seed)


def weight(rs, *shape):
    return (rs.randn(*shape) * 0.05).astype(FP16)


def kv_row(x, rs, lead=2, head_dim=HEAD_DIM):
    """x [1, HIDDEN] -> one KV row [lead, HEADS, 1, head_dim]."""
    width = lead * HEADS * head_dim
    y = mb.linear(x=x, weight=weight(rs, width, HIDDEN), bias=weight(rs, width))
    return mb.reshape(x=y, shape=[lead, HEADS, 1, head_dim])


def readout(cur, rs, lead=2, head_dim=HEAD_DIM, name="y"):
    """A state-shaped value [lead, HEADS, rows, head_dim] -> [1, HIDDEN] (mean over rows, linear)."""
    ctx = mb.reduce_mean(x=cur, axes=[2], keep_dims=False)
    width = lead * HEADS * head_dim
    flat = mb.reshape(x=ctx, shape=[1, width])
    return mb.linear(x=flat, weight=weight(rs, HIDDEN, width), bias=weight(rs, HIDDEN), name=name)


def first_rows(v, lead, rows, head_dim=HEAD_DIM):
    """slice_by_index of the first `rows` rows (axis 2): how a padded model reads its state back."""
    return mb.slice_by_index(x=v, begin=[0, 0, 0, 0], end=[lead, HEADS, rows, head_dim])


def shift_write(state, row, lead, window, padded_reads=False, end_mask=None):
    """Sliding-window decode write: drop row 0, append `row`, write rows [0, window).

    Returns the state as read back after the write (rows as the state has them).
    """
    old = mb.read_state(input=state)
    src = first_rows(old, lead, window) if padded_reads else old
    tail = mb.slice_by_index(x=src, begin=[0, 0, 1, 0], end=[lead, HEADS, window, HEAD_DIM])
    upd = mb.concat(values=[tail, row], axis=2)
    if end_mask is None:
        new = mb.slice_update(
            x=old, update=upd, begin=[0, 0, 0, 0], end=[lead, HEADS, window, HEAD_DIM]
        )
    else:
        end = [0 if m else e for m, e in zip(end_mask, [lead, HEADS, window, HEAD_DIM])]
        new = mb.slice_update(x=old, update=upd, begin=[0, 0, 0, 0], end=end, end_mask=end_mask)
    return mb.coreml_update_state(state=state, value=new)


def row_write(state, row, lead, pos, head_dim=HEAD_DIM, begin=None, end=None):
    """One-row decode write at row `pos` (constant unless begin/end are given)."""
    old = mb.read_state(input=state)
    if begin is None:
        begin = [0, 0, pos, 0]
        end = [lead, HEADS, pos + 1, head_dim]
    new = mb.slice_update(x=old, update=row, begin=begin, end=end)
    return mb.coreml_update_state(state=state, value=new)


def kv_spec(rows, lead=2, head_dim=HEAD_DIM):
    return mb.StateTensorSpec((lead, HEADS, rows, head_dim), dtype=types.fp16)


def x_spec(*shape):
    return mb.TensorSpec(shape or (1, HIDDEN), dtype=types.fp16)


# ---------------------------------------------------------------------------------------------------
# Programs


def prog_mlp(seed=1):
    rs = rng(seed)

    @mb.program(input_specs=[x_spec()], opset_version=IOS18)
    def prog(x):
        h = mb.linear(x=x, weight=weight(rs, 128, HIDDEN), bias=weight(rs, 128))
        h = mb.relu(x=h)
        return mb.linear(x=h, weight=weight(rs, HIDDEN, 128), bias=weight(rs, HIDDEN), name="y")

    return prog


def prog_shift(rows, window=N, padded_reads=False, end_mask=None, seed=2):
    """Decode step with a sliding-window write of `window` rows into a `rows`-row state."""
    rs = rng(seed)

    @mb.program(input_specs=[x_spec(), kv_spec(rows)], opset_version=IOS18)
    def prog(x, kv_cache):
        row = kv_row(x, rs)
        cur = shift_write(kv_cache, row, 2, window, padded_reads, end_mask)
        if padded_reads:
            cur = first_rows(cur, 2, window)
        return readout(cur, rs)

    return prog


def prog_two_states(k_rows, v_rows, window=N, seed=3):
    rs = rng(seed)

    @mb.program(
        input_specs=[x_spec(), kv_spec(k_rows, lead=1), kv_spec(v_rows, lead=1)],
        opset_version=IOS18,
    )
    def prog(x, k_cache, v_cache):
        k = shift_write(k_cache, kv_row(x, rs, lead=1), 1, window)
        v = shift_write(v_cache, kv_row(x, rs, lead=1), 1, window)
        k_out = readout(k, rs, lead=1, name="k_out")
        v_out = readout(v, rs, lead=1, name="v_out")
        return mb.add(x=k_out, y=v_out, name="y")

    return prog


def prog_blend(kind, seed=4):
    """H2. kind: "unpadded" (blend over an N-row state, written whole), "padded" (blend of [0, N) into
    an N+1-row state through one slice_update), "clean" (padded, masked row written without the blend)."""
    rs = rng(seed)
    rows = N if kind == "unpadded" else N + 1

    @mb.program(
        input_specs=[x_spec(), mb.TensorSpec((1, 1, N, HEAD_DIM), dtype=types.fp16), kv_spec(rows)],
        opset_version=IOS18,
    )
    def prog(x, mask, kv_cache):
        row = kv_row(x, rs)
        old = mb.read_state(input=kv_cache)
        fresh = mb.mul(x=row, y=mask)
        if kind == "clean":
            upd = fresh
        else:
            src = old if kind == "unpadded" else first_rows(old, 2, N)
            keep = mb.sub(x=np.float16(1.0), y=mask)
            upd = mb.add(x=mb.mul(x=src, y=keep), y=fresh)
        if kind == "unpadded":
            cur = mb.coreml_update_state(state=kv_cache, value=upd)
        else:
            new = mb.slice_update(x=old, update=upd, begin=[0, 0, 0, 0], end=[2, HEADS, N, HEAD_DIM])
            cur = first_rows(mb.coreml_update_state(state=kv_cache, value=new), 2, N)
        return readout(cur, rs)

    return prog


def prog_row_step(writes=1, rows=N, head_dim=HEAD_DIM, seed=5):
    """Decode step writing one row at a constant position, either in one write or split in two
    (k half, then v half: H3)."""
    rs = rng(seed)

    @mb.program(input_specs=[x_spec(), kv_spec(rows, head_dim=head_dim)], opset_version=IOS18)
    def prog(x, kv_cache):
        row = kv_row(x, rs, head_dim=head_dim)
        if writes == 1:
            cur = row_write(kv_cache, row, 2, POS, head_dim)
        else:
            k = mb.slice_by_index(x=row, begin=[0, 0, 0, 0], end=[1, HEADS, 1, head_dim])
            v = mb.slice_by_index(x=row, begin=[1, 0, 0, 0], end=[2, HEADS, 1, head_dim])
            old = mb.read_state(input=kv_cache)
            new = mb.slice_update(
                x=old, update=k, begin=[0, 0, POS, 0], end=[1, HEADS, POS + 1, head_dim]
            )
            mid = mb.coreml_update_state(state=kv_cache, value=new)
            new = mb.slice_update(
                x=mid, update=v, begin=[1, 0, POS, 0], end=[2, HEADS, POS + 1, head_dim]
            )
            cur = mb.coreml_update_state(state=kv_cache, value=new)
        return readout(cur, rs, head_dim=head_dim)

    return prog


def prog_dynamic_begin(seed=5):
    """H4: the write begin is built from the `pos` input."""
    rs = rng(seed)

    @mb.program(
        input_specs=[x_spec(), mb.TensorSpec((1,), dtype=types.int32), kv_spec(N)],
        opset_version=IOS18,
    )
    def prog(x, pos, kv_cache):
        row = kv_row(x, rs)
        begin = mb.concat(
            values=[np.array([0, 0], dtype=np.int32), pos, np.array([0], dtype=np.int32)], axis=0
        )
        end = mb.add(x=begin, y=np.array([2, HEADS, 1, HEAD_DIM], dtype=np.int32))
        cur = row_write(kv_cache, row, 2, None, begin=begin, end=end)
        return readout(cur, rs)

    return prog


def prog_chunk(dynamic, shape_begin=False, seed=6):
    """A chunk x [1, T, HIDDEN] pooled into one row written into the state.

    dynamic: T is a symbol (flexible input, H15). shape_begin: the write row is T - 1 taken from
    `shape(x)` (H4, shape-derived); otherwise the constant POS.
    """
    rs = rng(seed)
    t = get_new_symbol() if dynamic else PREFILL_T

    @mb.program(
        input_specs=[mb.TensorSpec((1, t, HIDDEN), dtype=types.fp16), kv_spec(N)],
        opset_version=IOS18,
    )
    def prog(x, kv_cache):
        pooled = mb.reduce_mean(x=x, axes=[1], keep_dims=False)
        row = kv_row(pooled, rs)
        if shape_begin:
            length = mb.slice_by_index(x=mb.shape(x=x), begin=[1], end=[2])
            last = mb.sub(x=length, y=np.array([1], dtype=np.int32))
            begin = mb.concat(
                values=[np.array([0, 0], dtype=np.int32), last, np.array([0], dtype=np.int32)],
                axis=0,
            )
            end = mb.add(x=begin, y=np.array([2, HEADS, 1, HEAD_DIM], dtype=np.int32))
            cur = row_write(kv_cache, row, 2, None, begin=begin, end=end)
        else:
            cur = row_write(kv_cache, row, 2, POS)
        return readout(cur, rs)

    return prog


def chunk_inputs():
    """The flexible chunk input of prog_chunk: 1 to 64 rows, 8 by default."""
    return [
        ct.TensorType(name="x", shape=(1, ct.RangeDim(1, 64, default=PREFILL_T), HIDDEN), dtype=FP16),
    ]


def prog_prefill(rows, padded_reads=False, seed=7):
    """Prefill: PREFILL_T rows from x [PREFILL_T, HIDDEN] written into [0, PREFILL_T)."""
    rs = rng(seed)

    @mb.program(input_specs=[x_spec(PREFILL_T, HIDDEN), kv_spec(rows)], opset_version=IOS18)
    def prog(x, kv_cache):
        width = 2 * HEADS * HEAD_DIM
        h = mb.linear(x=x, weight=weight(rs, width, HIDDEN), bias=weight(rs, width))
        h = mb.reshape(x=h, shape=[PREFILL_T, 2 * HEADS, HEAD_DIM])
        h = mb.transpose(x=h, perm=[1, 0, 2])
        chunk = mb.reshape(x=h, shape=[2, HEADS, PREFILL_T, HEAD_DIM])
        old = mb.read_state(input=kv_cache)
        new = mb.slice_update(
            x=old, update=chunk, begin=[0, 0, 0, 0], end=[2, HEADS, PREFILL_T, HEAD_DIM]
        )
        cur = mb.coreml_update_state(state=kv_cache, value=new)
        if padded_reads:
            cur = first_rows(cur, 2, N)
        return readout(cur, rs)

    return prog


def prog_gather(table_rows, pos_dtype, cast_first, seed=8):
    """Embedding lookup of 32 positions `pos` in a [table_rows, 32] fp16 table (32 so that every fp16
    I/O tensor keeps a last axis that is a multiple of 32)."""
    rs = rng(seed)
    table = weight(rs, table_rows, HEAD_DIM)

    @mb.program(input_specs=[mb.TensorSpec((HEAD_DIM,), dtype=pos_dtype)], opset_version=IOS18)
    def prog(pos):
        idx = mb.cast(x=pos, dtype="int32") if cast_first else pos
        return mb.gather(x=table, indices=idx, axis=0, name="y")

    return prog


def prog_rank(rank, seed=9):
    """x [1, 2, 4, 32] reshaped to [2, 4, 32, 1, ...] of rank `rank`, relu, reshaped back."""

    @mb.program(input_specs=[x_spec(1, 2, 4, HEAD_DIM)], opset_version=IOS18)
    def prog(x):
        shape = [2, 4, HEAD_DIM] + [1] * (rank - 3)
        h = mb.reshape(x=x, shape=shape)
        h = mb.relu(x=h)
        return mb.reshape(x=h, shape=[1, 2, 4, HEAD_DIM], name="y")

    return prog


def prog_tile(reps):
    @mb.program(input_specs=[x_spec()], opset_version=IOS18)
    def prog(x):
        wide = mb.tile(x=x, reps=[1, reps])
        scale = mb.reduce_mean(x=wide, axes=[-1], keep_dims=True)
        return mb.mul(x=x, y=scale, name="y")

    return prog


def prog_linear(dtype, seed=10):
    rs = rng(seed)
    np_dtype = np.float32 if dtype == types.fp32 else FP16

    @mb.program(input_specs=[mb.TensorSpec((1, HIDDEN), dtype=dtype)], opset_version=IOS18)
    def prog(x):
        w = (rs.randn(HIDDEN, HIDDEN) * 0.05).astype(np_dtype)
        b = (rs.randn(HIDDEN) * 0.05).astype(np_dtype)
        return mb.linear(x=x, weight=w, bias=b, name="y")

    return prog


def prog_fp32_island():
    """fp16 program whose softmax runs in fp32 between two casts."""

    @mb.program(input_specs=[x_spec()], opset_version=IOS18)
    def prog(x):
        wide = mb.cast(x=x, dtype="fp32", name="to_fp32")
        probs = mb.softmax(x=wide, axis=-1, name="softmax_fp32")
        return mb.cast(x=probs, dtype="fp16", name="y")

    return prog


def causal(fill):
    m = np.zeros((1, 1, HEAD_DIM, HEAD_DIM), dtype=FP16)
    m[0, 0][np.triu_indices(HEAD_DIM, k=1)] = fill
    return m


def prog_mask(kind):
    """Attention scores [1, 1, 32, 32] masked then softmaxed.

    kind: "blob" (-inf causal mask const, stored in weight.bin), "immediate" (select against an
    immediate -inf scalar), "clean" (the causal mask with -30000).
    """

    @mb.program(input_specs=[x_spec(1, 1, HEAD_DIM, HEAD_DIM)], opset_version=IOS18)
    def prog(scores):
        if kind == "immediate":
            keep = ~np.triu(np.ones((HEAD_DIM, HEAD_DIM), dtype=bool), k=1)
            neg = mb.fill_like(ref_tensor=scores, value=mb.const(val=np.float16(-np.inf), name="neg_inf"))
            masked = mb.select(cond=keep.reshape(1, 1, HEAD_DIM, HEAD_DIM), a=scores, b=neg)
        else:
            fill = -np.inf if kind == "blob" else -30000.0
            mask = mb.const(val=causal(fill), name="causal_mask")
            masked = mb.add(x=scores, y=mask)
        return mb.softmax(x=masked, axis=-1, name="y")

    return prog


# ---------------------------------------------------------------------------------------------------
# Reading specs back (coremltools' own protobuf classes)

DTYPE_NAMES = {
    MIL_pb2.BOOL: "bool",
    MIL_pb2.STRING: "string",
    MIL_pb2.FLOAT16: "fp16",
    MIL_pb2.FLOAT32: "fp32",
    MIL_pb2.FLOAT64: "fp64",
    MIL_pb2.INT8: "int8",
    MIL_pb2.INT16: "int16",
    MIL_pb2.INT32: "int32",
    MIL_pb2.INT64: "int64",
    MIL_pb2.UINT8: "uint8",
    MIL_pb2.UINT16: "uint16",
    MIL_pb2.UINT32: "uint32",
    MIL_pb2.UINT64: "uint64",
}
ARRAY_DTYPE_NAMES = {65552: "fp16", 65568: "fp32", 65600: "fp64", 131104: "int32", 131080: "int8"}


def op_name(op):
    attr = op.attributes.get("name")
    if attr is not None and attr.immediateValue.tensor.strings.values:
        return attr.immediateValue.tensor.strings.values[0]
    return op.outputs[0].name if op.outputs else None


def walk_ops(block):
    for op in block.operations:
        yield op
        for inner in op.blocks:
            yield from walk_ops(inner)


def main_block(fn):
    return fn.block_specializations[fn.opset]


def fn_ops(spec, fn):
    return list(walk_ops(main_block(spec.mlProgram.functions[fn])))


def value_types(spec, fn_name):
    """Name -> MIL ValueType of every function input and op output."""
    fn = spec.mlProgram.functions[fn_name]
    types = {i.name: i.type for i in fn.inputs}
    for op in fn_ops(spec, fn_name):
        for o in op.outputs:
            types[o.name] = o.type
    return types


def dims(tensor_type):
    return [d.constant.size if d.WhichOneof("dimension") == "constant" else None
            for d in tensor_type.dimensions]


def program_states(spec):
    out = {}
    for name in sorted(spec.mlProgram.functions):
        fn = spec.mlProgram.functions[name]
        states = {}
        for inp in fn.inputs:
            if inp.type.WhichOneof("type") == "stateType":
                tt = inp.type.stateType.wrappedType.tensorType
                states[inp.name] = {"dtype": DTYPE_NAMES[tt.dataType], "shape": dims(tt)}
        out[name] = states
    return out


def description_states(spec):
    d = spec.description

    def conv(features):
        return {
            f.name: {
                "dtype": ARRAY_DTYPE_NAMES[f.type.stateType.arrayType.dataType],
                "shape": list(f.type.stateType.arrayType.shape),
            }
            for f in features
        }

    if len(d.functions):
        return {f.name: conv(f.state) for f in sorted(d.functions, key=lambda f: f.name)}
    return {"main": conv(d.state)}


def package_record(path: Path, findings):
    spec = ct.utils.load_spec(str(path))
    functions = {}
    for name in sorted(spec.mlProgram.functions):
        hist = {}
        ops = fn_ops(spec, name)
        for op in ops:
            hist[op.type] = hist.get(op.type, 0) + 1
        functions[name] = {"op_count": len(ops), "histogram": dict(sorted(hist.items()))}
    return {
        "kind": "mlpackage",
        "path": str(path.relative_to(CORPUS)),
        "specification_version": spec.specificationVersion,
        "functions": functions,
        "states": program_states(spec),
        "description_states": description_states(spec),
        "findings": sort_findings(findings),
    }


def sort_findings(findings):
    key = lambda f: (f["rule"], f["function"] or "", f["op"] or "", f["state"] or "")  # noqa: E731
    return sorted(findings, key=key)


def finding(rule, function="main", op=None, state=None):
    return {"rule": rule, "function": function, "op": op, "state": state}


def writes_of(spec, fn, state):
    """Names of the write_state ops on `state` in function `fn`, in program order."""
    names = [
        op_name(op)
        for op in fn_ops(spec, fn)
        if op.type == "write_state" and op.inputs["input"].arguments[0].name == state
    ]
    if not names:
        raise SystemExit(f"no write_state on {state} in {fn}")
    return names


def only_op(spec, fn, pred, what):
    found = [op for op in fn_ops(spec, fn) if pred(op)]
    if len(found) != 1:
        raise SystemExit(f"expected exactly one {what} in {fn}, found {len(found)}")
    return found[0]


def out_rank(op):
    return op.outputs[0].type.tensorType.rank if op.outputs else 0


def out_dtype(op):
    return op.outputs[0].type.tensorType.dataType if op.outputs else None


# ---------------------------------------------------------------------------------------------------
# Findings of `origin:` rules (fp32-compute, tensor-rank, tensor-dim-limit): one per connected region of
# values with the rule's property, at its origin (the first function input, else the first op in
# program order whose inputs do not have the property).


def computed(op):
    return op.type != "const" and not op.type.startswith("constexpr_")


def tensor_of(value_type):
    kind = value_type.WhichOneof("type")
    if kind == "tensorType":
        return value_type.tensorType
    if kind == "stateType":
        return value_type.stateType.wrappedType.tensorType
    return None


def region_findings(spec, fn_name, rule, input_pred, output_pred):
    """One finding per connected region. `input_pred(input)` / `output_pred(op, output)` say whether a
    function input / an op output has the property."""
    fn = spec.mlProgram.functions[fn_name]
    nodes = []  # (op name or None, state or None)
    has = {}  # value name -> node index, for values with the property
    for inp in fn.inputs:
        if input_pred(inp):
            has[inp.name] = len(nodes)
            state = inp.name if inp.type.WhichOneof("type") == "stateType" else None
            nodes.append((None, state))
    ops = fn_ops(spec, fn_name)
    op_nodes = {}
    for i, op in enumerate(ops):
        if computed(op) and any(output_pred(op, o) for o in op.outputs):
            op_nodes[i] = len(nodes)
            nodes.append((op_name(op), None))
            for o in op.outputs:
                has[o.name] = op_nodes[i]
    parent = list(range(len(nodes)))

    def root(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    origins = set(range(len(nodes))) - set(op_nodes.values())  # inputs are origins
    for i, op in enumerate(ops):
        if i not in op_nodes:
            continue
        me = op_nodes[i]
        fed = False
        for arg in op.inputs.values():
            for a in arg.arguments:
                if a.WhichOneof("binding") == "name" and a.name in has and has[a.name] != me:
                    fed = True
                    parent[root(has[a.name])] = root(me)
        if not fed:
            origins.add(me)
    first = {}
    for n in sorted(origins):
        first.setdefault(root(n), n)
    for n in range(len(nodes)):  # a region without an origin (a cycle) is reported at its first node
        first.setdefault(root(n), n)
    return [finding(rule, fn_name, nodes[n][0], nodes[n][1]) for n in sorted(set(first.values()))]


def rank_at_least(n):
    def pred(value_type):
        t = tensor_of(value_type)
        return t is not None and t.rank >= n
    return pred


def fp32_findings(spec, fn_name):
    outputs = set(main_block(spec.mlProgram.functions[fn_name]).outputs)

    def out(op, o):
        t = tensor_of(o.type)
        if t is None or t.dataType != MIL_pb2.FLOAT32:
            return False
        # The final cast of a function output to fp32 converts the result for the caller.
        return not (op.type == "cast" and o.name in outputs)

    return region_findings(spec, fn_name, "fp32-compute", lambda _inp: False, out)


def rank_findings(spec, fn_name):
    pred = rank_at_least(5)
    return region_findings(spec, fn_name, "tensor-rank", lambda i: pred(i.type), lambda _op, o: pred(o.type))


def write_expected(name, record):
    EXPECTED.mkdir(parents=True, exist_ok=True)
    if (EXPECTED / f"{name}.json").exists():
        raise SystemExit(f"two models named {name}")
    (EXPECTED / f"{name}.json").write_text(json.dumps(record, indent=2, sort_keys=False) + "\n")


# ---------------------------------------------------------------------------------------------------
# Spec edits


def set_dims(tensor_type, shape):
    del tensor_type.dimensions[:]
    tensor_type.rank = len(shape)
    for s in shape:
        tensor_type.dimensions.add().constant.size = s


def find_op(spec, fn, name):
    for op in fn_ops(spec, fn):
        if op_name(op) == name or (op.outputs and op.outputs[0].name == name):
            return op
    raise SystemExit(f"op {name} not found in {fn}")


def edit_rank6(spec):
    """rank-5 program -> rank 6: the first reshape gets a 6-element shape const, and the rank-5 values
    produced by it and by the relu after it become rank 6."""
    ops = fn_ops(spec, "main")
    first = next(op for op in ops if op.type == "reshape")
    shape_name = first.inputs["shape"].arguments[0].name
    shape_op = find_op(spec, "main", shape_name)
    val = shape_op.attributes["val"]
    new_shape = list(val.immediateValue.tensor.ints.values) + [1]
    del val.immediateValue.tensor.ints.values[:]
    val.immediateValue.tensor.ints.values.extend(new_shape)
    set_dims(val.type.tensorType, [6])
    set_dims(shape_op.outputs[0].type.tensorType, [6])
    for op in ops:
        if op.outputs and out_rank(op) == 5:
            set_dims(op.outputs[0].type.tensorType, dims(op.outputs[0].type.tensorType) + [1])


def edit_pos_to_fp16(spec):
    """Make the `pos` input fp16 in the program and in the description (so they still agree)."""
    fn = spec.mlProgram.functions["main"]
    for inp in fn.inputs:
        if inp.name == "pos":
            inp.type.tensorType.dataType = MIL_pb2.FLOAT16
    for feat in spec.description.input:
        if feat.name == "pos":
            feat.type.multiArrayType.dataType = 65552  # FLOAT16


# ---------------------------------------------------------------------------------------------------
# The package corpus


# Models other scripts write: `generate_torch_*.py` (`torch-*`), `generate_field_attnconv.py`,
# `generate_field_quant.py`, `generate_targets.py`.
OTHER_GENERATORS = (
    "torch-",
    "gpu-unfused-attention",
    "gpu-rnn-abort",
    "cpu-istft-crash",
    "sdpa-fused-fp16",
    "conv-transpose-risky",
    "quant-per-block-on-ane",
    "lut-scale-wrapper",
    "int16-narrowing",
    "requires-newer-os",
    "tensor-dim-limit-wide",
    "conv-kernel-width",
    "flexible-input-shape",
    "inline-weights",
    "scatter-cache",
    "nms-pipeline",
)


def reset_generated(folder: Path):
    """Empty `folder` except the models the other generator scripts write (`OTHER_GENERATORS`)."""
    for entry in sorted(folder.glob("*")) if folder.is_dir() else []:
        if not entry.name.startswith(OTHER_GENERATORS):
            reset(entry)


def build_packages():
    reset_generated(PACKAGES)
    reset(REFERENCE)
    reset_generated(EXPECTED)
    tmp = Path(tempfile.mkdtemp(prefix="coreml-lint-corpus-"))
    try:
        _build_packages(tmp)
    finally:
        shutil.rmtree(tmp)
    for path in sorted(PACKAGES.glob("*.mlpackage")) + sorted(REFERENCE.glob("*.mlpackage")):
        if not path.name.startswith(OTHER_GENERATORS):
            stabilize(path)


def stabilize(path: Path):
    """Make a saved package byte-stable across runs and days: deterministic protobuf serialization
    without the `conversion_date` metadata entry, and Manifest identifiers derived from the package
    name instead of random UUIDs. Nothing else changes."""
    model_file = path / "Data" / "com.apple.CoreML" / "model.mlmodel"
    spec = Model_pb2.Model()
    spec.ParseFromString(model_file.read_bytes())
    user = spec.description.metadata.userDefined
    if "com.github.apple.coremltools.conversion_date" in user:
        del user["com.github.apple.coremltools.conversion_date"]
    model_file.write_bytes(spec.SerializeToString(deterministic=True))

    manifest_file = path / "Manifest.json"
    manifest = json.loads(manifest_file.read_text())
    drop_empty_items(path, manifest)
    renamed = {
        old: str(uuid.uuid5(uuid.NAMESPACE_URL, f"coreml-lint-corpus/{path.name}/{entry['name']}"))
        for old, entry in manifest["itemInfoEntries"].items()
    }
    manifest["itemInfoEntries"] = {renamed[k]: v for k, v in manifest["itemInfoEntries"].items()}
    manifest["rootModelIdentifier"] = renamed[manifest["rootModelIdentifier"]]
    manifest_file.write_text(json.dumps(manifest, indent=4, sort_keys=True))


def drop_empty_items(path: Path, manifest: dict):
    """Remove Manifest items whose folder is empty or missing (the `weights` folder of a model
    without weights): git keeps no empty folder, so a clone would hold a Manifest naming a path
    that does not exist, which coremltools refuses to load."""
    for key, entry in list(manifest["itemInfoEntries"].items()):
        item = path / "Data" / entry["path"]
        if item.is_dir() and not any(item.iterdir()):
            item.rmdir()
        if not item.exists() and key != manifest["rootModelIdentifier"]:
            del manifest["itemInfoEntries"][key]


def pkg(name):
    return PACKAGES / f"{name}.mlpackage"


def record(path, findings, name=None):
    write_expected(name or path.name[: -len(".mlpackage")], package_record(path, findings))


def state_finding(rule, path, state="kv_cache", fn="main", index=0):
    spec = ct.utils.load_spec(str(path))
    return finding(rule, fn, writes_of(spec, fn, state)[index], state)


def _build_packages(tmp: Path):
    # Clean models.
    p = save_model(convert(prog_mlp()), pkg("mlp-clean"))
    record(p, [])
    config = ct.optimize.coreml.OptimizationConfig(
        global_config=ct.optimize.coreml.OpPalettizerConfig(mode="uniform", nbits=4)
    )
    lut = ct.optimize.coreml.palettize_weights(convert(prog_mlp()), config)
    record(save_model(lut, pkg("mlp-lut4-clean")), [])
    record(save_model(convert(prog_row_step()), pkg("decode-step-clean")), [])

    # H1: full-extent write.
    p = save_model(convert(prog_shift(N)), pkg("state-full-extent-write"))
    record(p, [state_finding("state-full-extent-write", p)])
    record(save_model(convert(prog_shift(N + 1)), pkg("state-full-extent-write-clean")), [])
    p = save_model(
        convert(prog_shift(N, end_mask=[True, True, True, True])),
        pkg("state-full-extent-write-endmask"),
    )
    record(p, [state_finding("state-full-extent-write", p)])
    p = save_model(
        convert(prog_shift(N + 1, end_mask=[True, True, False, True])),
        pkg("state-full-extent-write-endmask-clean"),
    )
    record(p, [])
    p = save_model(convert(prog_two_states(N, N + 1)), pkg("state-full-extent-write-two-states"))
    record(p, [state_finding("state-full-extent-write", p, "k_cache")])
    record(save_model(convert(prog_two_states(N + 1, N + 1)), pkg("state-full-extent-write-two-states-clean")), [])

    # H1 padded the way coremltools would write it (reference for the fixer).
    p = save_model(convert(prog_shift(N + 1, padded_reads=True)), REFERENCE / "h1-padded-by-coremltools.mlpackage")
    record(p, [])

    # H2: blend read-modify-write.
    p = save_model(convert(prog_blend("unpadded")), pkg("state-blend-rmw"))
    record(p, [state_finding("state-blend-rmw", p), state_finding("state-full-extent-write", p)])
    p = save_model(convert(prog_blend("padded")), pkg("state-blend-rmw-padded"))
    record(p, [state_finding("state-blend-rmw", p)])
    record(save_model(convert(prog_blend("clean")), pkg("state-blend-rmw-clean")), [])

    # H3: two writes into one state.
    p = save_model(convert(prog_row_step(writes=2)), pkg("state-multiple-writes"))
    record(p, [state_finding("state-multiple-writes", p, index=1)])
    record(save_model(convert(prog_row_step(writes=1)), pkg("state-multiple-writes-clean")), [])

    # H4: run-time write begin.
    p = save_model(convert(prog_dynamic_begin()), pkg("state-dynamic-begin"))
    record(p, [state_finding("state-dynamic-begin", p)])
    record(save_model(convert(prog_row_step()), pkg("state-dynamic-begin-clean")), [])
    p = save_model(convert(prog_chunk(dynamic=True, shape_begin=True), inputs=chunk_inputs()),
                   pkg("state-dynamic-begin-shape"))
    record(p, [state_finding("state-dynamic-begin", p), finding("dynamic-shape-with-state")])

    # H15: flexible input together with a state.
    p = save_model(convert(prog_chunk(dynamic=True), inputs=chunk_inputs()), pkg("dynamic-shape-with-state"))
    record(p, [finding("dynamic-shape-with-state")])
    record(save_model(convert(prog_chunk(dynamic=False)), pkg("dynamic-shape-with-state-clean")), [])

    # H5: float gather indices (spec edit; the builder refuses them) and its untouched twin.
    src = save_model(convert(prog_gather(64, types.int32, False)), tmp / "gather.mlpackage")
    weights_dir = load(src).weights_dir
    spec = ct.utils.load_spec(str(src))
    p = save_spec(spec, weights_dir, pkg("gather-float-indices-clean"))
    record(p, [])
    edit_pos_to_fp16(spec)
    p = save_spec(spec, weights_dir, pkg("gather-float-indices"))
    g = only_op(spec, "main", lambda op: op.type == "gather", "gather")
    record(p, [finding("gather-float-indices", op=op_name(g))])

    # H5 related: an fp16 position into a 4096-row table.
    p = save_model(convert(prog_gather(4096, types.fp16, True)), pkg("fp16-integer-precision"))
    spec = ct.utils.load_spec(str(p))
    c = only_op(spec, "main", lambda op: op.type == "cast", "cast")
    record(p, [finding("fp16-integer-precision", op=op_name(c))])
    p = save_model(convert(prog_gather(4096, types.int32, False)), pkg("fp16-integer-precision-clean"))
    record(p, [])

    # Multifunction infer + prefill sharing kv_cache.
    parts = {}
    for rows, tag in ((N, "h1"), (N + 1, "clean")):
        parts[tag] = (
            save_model(convert(prog_shift(rows)), tmp / f"infer-{tag}.mlpackage"),
            save_model(convert(prog_prefill(rows)), tmp / f"prefill-{tag}.mlpackage"),
        )
    p = save_multi([(parts["h1"][0], "infer"), (parts["h1"][1], "prefill")], "infer",
                   pkg("multifunction-state-full-extent-write"))
    record(p, [state_finding("state-full-extent-write", p, fn="infer")])
    p = save_multi([(parts["clean"][0], "infer"), (parts["clean"][1], "prefill")], "infer",
                   pkg("multifunction-state-full-extent-write-clean"))
    record(p, [])
    infer_ref = save_model(convert(prog_shift(N + 1, padded_reads=True)), tmp / "infer-ref.mlpackage")
    prefill_ref = save_model(convert(prog_prefill(N + 1, padded_reads=True)), tmp / "prefill-ref.mlpackage")
    p = save_multi([(infer_ref, "infer"), (prefill_ref, "prefill")], "infer",
                   REFERENCE / "multifunction-h1-padded-by-coremltools.mlpackage")
    record(p, [])

    # state-shape-mismatch: infer declares kv_cache with N+1 rows, prefill with N.
    p = save_multi([(parts["clean"][0], "infer"), (parts["h1"][1], "prefill")], "infer",
                   pkg("state-shape-mismatch"))
    spec = ct.utils.load_spec(str(p))
    st = program_states(spec)
    assert st["infer"]["kv_cache"]["shape"] != st["prefill"]["kv_cache"]["shape"], st
    record(p, [finding("state-shape-mismatch", "prefill", None, "kv_cache")])

    # Issue 9 hazards.
    p = save_model(convert(prog_rank(5)), pkg("tensor-rank-5"))
    spec = ct.utils.load_spec(str(p))
    rank5 = [op_name(op) for op in fn_ops(spec, "main") if op.type != "const" and out_rank(op) == 5]
    # The reshape and the relu after it are one region, reported at the reshape.
    record(p, rank_findings(spec, "main"))
    edit_rank6(spec)
    p6 = save_spec(spec, load(p).weights_dir, pkg("tensor-rank"))
    rank6 = [op_name(op) for op in fn_ops(spec, "main") if op.type != "const" and out_rank(op) == 6]
    assert rank6 == rank5, (rank5, rank6)
    record(p6, rank_findings(spec, "main"))
    record(save_model(convert(prog_rank(4)), pkg("tensor-rank-clean")), [])

    p = save_model(convert(prog_tile(320)), pkg("tensor-dim-limit"))
    spec = ct.utils.load_spec(str(p))
    t = only_op(spec, "main", lambda op: op.type == "tile", "tile")
    record(p, [finding("tensor-dim-limit", op=op_name(t))])
    record(save_model(convert(prog_tile(256)), pkg("tensor-dim-limit-clean")), [])

    p = save_model(convert(prog_linear(types.fp32), precision=ct.precision.FLOAT32), pkg("fp32-compute"))
    spec = ct.utils.load_spec(str(p))
    record(p, fp32_findings(spec, "main"))
    record(save_model(convert(prog_linear(types.fp16)), pkg("fp32-compute-clean")), [])
    island = ct.transform.FP16ComputePrecision(op_selector=lambda op: op.op_type != "softmax")
    p = save_model(convert(prog_fp32_island(), precision=island), pkg("fp32-compute-island"))
    spec = ct.utils.load_spec(str(p))
    fp32_ops = [op_name(op) for op in fn_ops(spec, "main")
                if op.type != "const" and out_dtype(op) == MIL_pb2.FLOAT32]
    assert fp32_ops, "fp32 island was optimised away"
    record(p, fp32_findings(spec, "main"))  # one region: the cast up and the softmax

    for kind, name in (("blob", "mask-nonfinite-const"), ("immediate", "mask-nonfinite-const-immediate")):
        p = save_model(convert(prog_mask(kind)), pkg(name))
        spec = ct.utils.load_spec(str(p))
        bad = [op_name(op) for op in fn_ops(spec, "main") if op.type == "const" and has_nonfinite(p, op)]
        assert len(bad) == 1, (name, bad)
        record(p, [finding("mask-nonfinite-const", op=bad[0])])
    record(save_model(convert(prog_mask("clean")), pkg("mask-nonfinite-const-clean")), [])

    p = save_model(convert(prog_row_step(rows=N + 1, head_dim=40)), pkg("state-last-axis-alignment"))
    # Reported at the state's declaration (op null), whether or not the state is written.
    record(p, [finding("state-last-axis-alignment", state="kv_cache")])
    record(save_model(convert(prog_row_step(rows=N + 1)), pkg("state-last-axis-alignment-clean")), [])

    # H14: the description's state shape edited, the program left alone.
    src = save_model(convert(prog_row_step(rows=N + 1)), tmp / "desc.mlpackage")
    weights_dir = load(src).weights_dir
    spec = ct.utils.load_spec(str(src))
    record(save_spec(spec, weights_dir, pkg("description-signature-mismatch-clean")), [])
    spec.description.state[0].type.stateType.arrayType.shape[2] = N
    p = save_spec(spec, weights_dir, pkg("description-signature-mismatch"))
    record(p, [finding("description-signature-mismatch", "main", None, "kv_cache")])


def has_nonfinite(path, op):
    """Whether a const holds -inf/inf/NaN, reading immediates and (small) blobs."""
    val = op.attributes["val"]
    kind = val.WhichOneof("value")
    tt = val.type.tensorType
    if kind == "immediateValue":
        t = val.immediateValue.tensor
        which = t.WhichOneof("value")
        if which == "floats":
            data = np.array(t.floats.values, dtype=np.float32)
        elif which == "bytes" and tt.dataType == MIL_pb2.FLOAT16:
            data = np.frombuffer(t.bytes.values, dtype=np.float16)
        else:
            return False
        return bool(np.any(~np.isfinite(data)))
    if kind == "blobFileValue" and tt.dataType in (MIL_pb2.FLOAT16, MIL_pb2.FLOAT32):
        blob = (path / "Data/com.apple.CoreML/weights/weight.bin").read_bytes()
        off = val.blobFileValue.offset
        _, _, size, data_off = struct.unpack_from("<IIQQ", blob, off)
        dt = np.float16 if tt.dataType == MIL_pb2.FLOAT16 else np.float32
        data = np.frombuffer(blob[data_off : data_off + size], dtype=dt)
        return bool(np.any(~np.isfinite(data)))
    return False


# ---------------------------------------------------------------------------------------------------
# Hand-written compiled models (.mlmodelc)

BLOB_CODES = {"fp16": 1, "fp32": 2, "uint8": 3, "int8": 4, "int32": 14}
NP_DTYPES = {"fp16": np.float16, "fp32": np.float32, "uint8": np.uint8, "int8": np.int8, "int32": np.int32}

# metadata.json histogram keys, in the form Apple's compiler writes them for ios17+ programs (see
# ../shared/realworld: Ios17.* for ops revised in iOS 17, Ios16.* for reduce/activation ops, no prefix
# for ops unchanged since iOS 15). The Ios18 keys for state ops are from field reports; const is never
# counted.
HISTOGRAM_KEYS = {
    "add": "Ios17.add",
    "concat": "Ios17.concat",
    "linear": "Ios17.linear",
    "mul": "Ios17.mul",
    "read_state": "Ios18.readState",
    "reduce_mean": "Ios16.reduceMean",
    "relu": "Ios16.relu",
    "reshape": "Ios17.reshape",
    "slice_by_index": "Ios17.sliceByIndex",
    "slice_update": "Ios18.sliceUpdate",
    "transpose": "Ios17.transpose",
    "write_state": "Ios18.writeState",
}


def hexfloat(v):
    v = float(v)
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == 0.0:
        return "-0x0p+0" if math.copysign(1.0, v) < 0 else "0x0p+0"
    return _c_hex(v)


def _c_hex(v):
    """C99 %a spelling, as the compiler prints floats: 0x1.8p+1, -0x1p-2."""
    s = v.hex()  # e.g. '0x1.8000000000000p+1'
    sign = ""
    if s.startswith("-"):
        sign, s = "-", s[1:]
    mant, exp = s[2:].split("p")
    if "." in mant:
        whole, frac = mant.split(".")
        frac = frac.rstrip("0")
        mant = whole + ("." + frac if frac else "")
    e = int(exp)
    return f"{sign}0x{mant}p{'+' if e >= 0 else '-'}{abs(e)}"


class Blobs:
    """weight.bin writer (blob storage v2, FORMAT.md §4)."""

    def __init__(self):
        self.body = bytearray()
        self.count = 0

    def add(self, dtype, array):
        payload = np.ascontiguousarray(array).tobytes()
        offset = 64 + len(self.body) + (-len(self.body) % 64)
        meta = struct.pack("<IIQQQ", 0xDEADBEEF, BLOB_CODES[dtype], len(payload), offset + 64, 0)
        meta += b"\0" * (64 - len(meta))
        self.body += b"\0" * (-len(self.body) % 64)  # the next record starts 64-aligned
        self.body += meta + payload
        self.count += 1
        return offset

    def data(self):
        """The file: header, then records and payloads; it ends right after the last payload."""
        return struct.pack("<II", self.count, 2) + b"\0" * 56 + bytes(self.body)


class Mil:
    """A tiny text-MIL writer for one function, in compiled (`program(1.3)`) spelling.

    Keeps the statements, the op types in order, and the blob file being written.
    """

    def __init__(self, blobs):
        self.lines = []
        self.ops = []  # (type, name)
        self.blobs = blobs

    @staticmethod
    def ttype(dtype, shape):
        if shape is None:
            return dtype
        return f"tensor<{dtype}, [{', '.join(str(s) for s in shape)}]>"

    def literal(self, dtype, shape, values):
        if shape is None:
            return f"{dtype}({self.scalar(dtype, values)})"
        flat = np.asarray(values).reshape(-1).tolist()
        if not shape:
            return f"{self.ttype(dtype, shape)}({self.scalar(dtype, flat[0])})"
        return f"{self.ttype(dtype, shape)}({self.nested(dtype, flat, shape)})"

    def nested(self, dtype, flat, shape):
        if len(shape) == 1:
            return "[" + ", ".join(self.scalar(dtype, v) for v in flat) + "]"
        step = len(flat) // shape[0]
        return "[" + ", ".join(
            self.nested(dtype, flat[i * step : (i + 1) * step], shape[1:]) for i in range(shape[0])
        ) + "]"

    @staticmethod
    def scalar(dtype, v):
        if dtype == "bool":
            return "true" if v else "false"
        if dtype == "string":
            return json.dumps(v)
        if dtype.startswith("fp"):
            return hexfloat(v)
        return str(int(v))

    def const(self, name, dtype, shape, values):
        lit = self.literal(dtype, shape, values)
        self.lines.append(
            f"{self.ttype(dtype, shape)} {name} = const()[name = string(\"{name}\"), val = {lit}];"
        )
        self.ops.append(("const", name))
        return name

    def blob_const(self, name, dtype, array):
        offset = self.blobs.add(dtype, array)
        shape = list(array.shape)
        t = self.ttype(dtype, shape)
        self.lines.append(
            f"{t} {name} = const()[name = string(\"{name}\"), val = {t}(BLOBFILE("
            f"path = string(\"@model_path/weights/weight.bin\"), offset = uint64({offset})))];"
        )
        self.ops.append(("const", name))
        return name

    def op(self, op_type, out, dtype, shape, /, name=None, **args):
        name = name or out
        rendered = ", ".join(f"{k} = {self.arg(v)}" for k, v in sorted(args.items()))
        if out is None:
            self.lines.append(f"{op_type}({rendered})[name = string(\"{name}\")];")
        else:
            self.lines.append(
                f"{self.ttype(dtype, shape)} {out} = {op_type}({rendered})[name = string(\"{name}\")];"
            )
        self.ops.append((op_type, name))
        return out

    @staticmethod
    def arg(v):
        if isinstance(v, (list, tuple)):
            return "(" + ", ".join(v) + ")"
        return v

    def ints(self, name, values):
        return self.const(name, "int32", [len(values)], values)


class Fn:
    def __init__(self, name, params, outputs, mil, opset="ios18"):
        self.name, self.params, self.outputs, self.mil = name, params, outputs, mil
        self.opset = opset

    def text(self):
        params = ", ".join(f"{t} {n}" for n, t in sorted(self.params.items()))
        body = "\n".join("            " + line for line in self.mil.lines)
        return (
            f"    func {self.name}<{self.opset}>({params}) {{\n{body}\n"
            f"        }} -> ({', '.join(self.outputs)});\n"
        )


def kv_shape(rows, lead=2, head_dim=HEAD_DIM):
    return [lead, HEADS, rows, head_dim]


def text_readout(m, cur, rows, rs, prefix=""):
    axes = m.ints(f"{prefix}mean_axes", [2])
    keep = m.const(f"{prefix}mean_keep_dims", "bool", None, False)
    m.op("reduce_mean", f"{prefix}ctx", "fp16", [2, HEADS, HEAD_DIM], axes=axes, keep_dims=keep, x=cur)
    shp = m.ints(f"{prefix}ctx_shape", [1, 2 * HEADS * HEAD_DIM])
    m.op("reshape", f"{prefix}ctx_flat", "fp16", [1, 2 * HEADS * HEAD_DIM], shape=shp, x=f"{prefix}ctx")
    w = m.blob_const(f"{prefix}out_weight", "fp16", weight(rs, HIDDEN, 2 * HEADS * HEAD_DIM))
    b = m.blob_const(f"{prefix}out_bias", "fp16", weight(rs, HIDDEN))
    return m.op("linear", f"{prefix}y", "fp16", [1, HIDDEN], bias=b, weight=w, x=f"{prefix}ctx_flat")


def text_decode(blobs, rows, seed, fn="main", prefix=""):
    """Sliding-window decode step (as prog_shift) in text: window [0, N) into a `rows`-row state."""
    rs = rng(seed)
    m = Mil(blobs)
    width = 2 * HEADS * HEAD_DIM
    w = m.blob_const("kv_weight", "fp16", weight(rs, width, HIDDEN))
    b = m.blob_const("kv_bias", "fp16", weight(rs, width))
    m.op("linear", "kv_row_flat", "fp16", [1, width], bias=b, weight=w, x="x")
    shp = m.ints("kv_row_shape", [2, HEADS, 1, HEAD_DIM])
    m.op("reshape", "kv_row", "fp16", [2, HEADS, 1, HEAD_DIM], shape=shp, x="kv_row_flat")
    m.op("read_state", "kv_old", "fp16", kv_shape(rows), input="kv_cache")
    tb = m.ints("tail_begin", [0, 0, 1, 0])
    te = m.ints("tail_end", kv_shape(N))
    m.op("slice_by_index", "tail", "fp16", kv_shape(N - 1), begin=tb, end=te, x="kv_old")
    ax = m.const("cat_axis", "int32", None, 2)
    il = m.const("cat_interleave", "bool", None, False)
    m.op("concat", "kv_upd", "fp16", kv_shape(N), axis=ax, interleave=il, values=["tail", "kv_row"])
    wb = m.ints("window_begin", [0, 0, 0, 0])
    we = m.ints("window_end", kv_shape(N))
    m.op("slice_update", "kv_new", "fp16", kv_shape(rows), begin=wb, end=we, update="kv_upd", x="kv_old")
    m.op("write_state", None, None, None, name="kv_cache_update_write_state", data="kv_new", input="kv_cache")
    m.op("read_state", "kv_cur", "fp16", kv_shape(rows), name="kv_cache_update", input="kv_cache")
    y = text_readout(m, "kv_cur", rows, rs)
    params = {"x": "tensor<fp16, [1, 64]>", "kv_cache": f"state<{Mil.ttype('fp16', kv_shape(rows))}>"}
    return Fn(fn, params, [y], m)


def text_prefill(blobs, rows, seed):
    rs = rng(seed)
    m = Mil(blobs)
    width = 2 * HEADS * HEAD_DIM
    w = m.blob_const("kv_weight", "fp16", weight(rs, width, HIDDEN))
    b = m.blob_const("kv_bias", "fp16", weight(rs, width))
    m.op("linear", "kv_rows", "fp16", [PREFILL_T, width], bias=b, weight=w, x="x")
    s1 = m.ints("heads_shape", [PREFILL_T, 2 * HEADS, HEAD_DIM])
    m.op("reshape", "kv_heads", "fp16", [PREFILL_T, 2 * HEADS, HEAD_DIM], shape=s1, x="kv_rows")
    perm = m.ints("heads_perm", [1, 0, 2])
    m.op("transpose", "kv_heads_t", "fp16", [2 * HEADS, PREFILL_T, HEAD_DIM], perm=perm, x="kv_heads")
    s2 = m.ints("chunk_shape", kv_shape(PREFILL_T))
    m.op("reshape", "kv_chunk", "fp16", kv_shape(PREFILL_T), shape=s2, x="kv_heads_t")
    m.op("read_state", "kv_old", "fp16", kv_shape(rows), input="kv_cache")
    # Window given as inline literals (compiled program(1.3) text often inlines small constants).
    wb = m.literal("int32", [4], [0, 0, 0, 0])
    we = m.literal("int32", [4], kv_shape(PREFILL_T))
    m.op("slice_update", "kv_new", "fp16", kv_shape(rows), begin=wb, end=we, update="kv_chunk", x="kv_old")
    m.op("write_state", None, None, None, name="kv_cache_prefill_write_state", data="kv_new", input="kv_cache")
    m.op("read_state", "kv_cur", "fp16", kv_shape(rows), name="kv_cache_prefill", input="kv_cache")
    y = text_readout(m, "kv_cur", rows, rs)
    params = {"x": f"tensor<fp16, [{PREFILL_T}, 64]>", "kv_cache": f"state<{Mil.ttype('fp16', kv_shape(rows))}>"}
    return Fn("prefill", params, [y], m)


def text_state_dtype(blobs, dtype):
    """A one-row state write whose state is not fp16 (`state-not-fp16`); 32-wide so only the
    dtype is at fault."""
    m = Mil(blobs)
    m.op("read_state", "old", dtype, [2, 32], input="s")
    b = m.ints("window_begin", [1, 0])
    e = m.ints("window_end", [2, 32])
    m.op("slice_update", "new", dtype, [2, 32], begin=b, end=e, update="u", x="old")
    m.op("write_state", None, None, None, name="s_write_state", data="new", input="s")
    m.op("read_state", "y", dtype, [2, 32], name="s_read", input="s")
    params = {"s": f"state<{Mil.ttype(dtype, [2, 32])}>", "u": Mil.ttype(dtype, [1, 32])}
    return Fn("main", params, ["y"], m)


def text_mlp(blobs, seed):
    rs = rng(seed)
    m = Mil(blobs)
    w1 = m.blob_const("fc1_weight", "fp16", weight(rs, 128, HIDDEN))
    b1 = m.blob_const("fc1_bias", "fp16", weight(rs, 128))
    m.op("linear", "h", "fp16", [1, 128], bias=b1, weight=w1, x="x")
    m.op("relu", "h_relu", "fp16", [1, 128], x="h")
    w2 = m.blob_const("fc2_weight", "fp16", weight(rs, HIDDEN, 128))
    b2 = m.blob_const("fc2_bias", "fp16", weight(rs, HIDDEN))
    m.op("linear", "h2", "fp16", [1, HIDDEN], bias=b2, weight=w2, x="h_relu")
    # Scalars: one through a const statement, one inline (hex-float literals both ways).
    s = m.const("out_scale", "fp16", None, np.float16(0.5))
    m.op("mul", "h3", "fp16", [1, HIDDEN], x="h2", y=s)
    m.op("add", "y", "fp16", [1, HIDDEN], x="h3", y=m.literal("fp16", None, np.float16(-0.375)))
    return Fn("main", {"x": "tensor<fp16, [1, 64]>"}, ["y"], m)


BUILD_INFO = (
    '[buildInfo = dict<string, string>({{"coremlc-component-MIL", "3520.4.1"}, '
    '{"coremlc-version", "3520.5.1"}, {"coremltools-component-milinternal", ""}, '
    '{"coremltools-version", "9.0"}})]'
)


def schema_entry(name, shape, dtype="Float16"):
    # A feature described without a shape is `[]`, formatted without dimensions.
    dims_txt = "".join(" " + " × ".join(str(s) for s in shape) for _ in shape[:1])
    return {
        "hasShapeFlexibility": "0",
        "isOptional": "0",
        "dataType": dtype,
        "formattedType": f"MultiArray ({dtype}{dims_txt})",
        "shortDescription": "",
        "shape": "[" + ", ".join(str(s) for s in shape) + "]",
        "name": name,
        "type": "MultiArray",
    }


def state_entry(name, shape, dtype="Float16"):
    e = schema_entry(name, shape, dtype)
    e["type"] = "State"
    e["formattedType"] = f"State ({dtype} {' × '.join(str(s) for s in shape)})"
    return e


BLOBFILE_RE = re.compile(
    r"tensor<(\w+), \[([0-9, ]*)\]>\(BLOBFILE\(path = string\(\"@model_path/weights/weight.bin\"\), "
    r"offset = uint64\((\d+)\)\)\)"
)


def check_blobs(text, blob):
    """Self-check of a hand-written fixture: every BLOBFILE offset lands on a record that agrees with
    the tensor type, inside the file (FORMAT.md §4.5)."""
    count, version = struct.unpack_from("<II", blob, 0)
    assert version == 2
    offsets = set()
    for dtype, shape, off in BLOBFILE_RE.findall(text):
        off = int(off)
        sentinel, code, size, data = struct.unpack_from("<IIQQ", blob, off)
        n = int(np.prod([int(d) for d in shape.split(", ")]))
        assert sentinel == 0xDEADBEEF and code == BLOB_CODES[dtype], (off, sentinel, code)
        assert size == n * np.dtype(NP_DTYPES[dtype]).itemsize and data == off + 64
        assert off % 64 == 0 and data + size <= len(blob)
        offsets.add(off)
    assert len(offsets) == count, (len(offsets), count)


def write_compiled(name, fns, inputs, outputs, states, findings, data_type="Float16"):
    """Write X.mlmodelc (model.mil, metadata.json, weights/weight.bin) and expected/X.json."""
    root = COMPILED / f"{name}.mlmodelc"
    reset(root)
    root.mkdir(parents=True)
    text = "program(1.3)\n" + BUILD_INFO + "\n{\n" + "".join(f.text() for f in fns) + "}"
    (root / "model.mil").write_text(text)
    blobs = fns[0].mil.blobs
    if blobs.count:
        (root / "weights").mkdir()
        (root / "weights" / "weight.bin").write_bytes(blobs.data())
        check_blobs(text, blobs.data())

    hist = {}
    functions = {}
    states_rec = {}
    for f in fns:
        per = {}
        for op_type, _ in f.mil.ops:
            per[op_type] = per.get(op_type, 0) + 1
            if op_type != "const":
                key = HISTOGRAM_KEYS[op_type]
                hist[key] = hist.get(key, 0) + 1
        functions[f.name] = {"op_count": len(f.mil.ops), "histogram": dict(sorted(per.items()))}
        states_rec[f.name] = {
            n: {"dtype": t[len("state<tensor<"):].split(",")[0], "shape": parse_state_shape(t)}
            for n, t in sorted(f.params.items())
            if t.startswith("state<")
        }
    meta = {
        "metadataOutputVersion": "3.0",
        "specificationVersion": 9,
        "modelType": {"name": "MLModelType_mlProgram"},
        "computePrecision": "Mixed (Float16, Int32)",
        "isUpdatable": "0",
        "availability": {
            "macOS": "15.0", "tvOS": "18.0", "visionOS": "2.0",
            "watchOS": "11.0", "iOS": "18.0", "macCatalyst": "18.0",
        },
        "inputSchema": [schema_entry(n, s, data_type) for n, s in inputs],
        "outputSchema": [schema_entry(n, s, data_type) for n, s in outputs],
        "stateSchema": [state_entry(n, s, data_type) for n, s in states],
        "modelParameters": [],
        "userDefinedMetadata": {"com.github.apple.coremltools.version": "9.0"},
        "mlProgramOperationTypeHistogram": dict(sorted(hist.items())),
        "generatedClassName": name.replace("-", "_"),
        "method": "predict",
    }
    (root / "metadata.json").write_text(json.dumps([meta], indent=2, ensure_ascii=False) + "\n")
    write_expected(
        name,
        {
            "kind": "mlmodelc",
            "path": str(root.relative_to(CORPUS)),
            "specification_version": 9,
            "functions": functions,
            "states": states_rec,
            "description_states": {f.name: states_rec[f.name] for f in fns},
            "findings": sort_findings(findings),
        },
    )


def parse_state_shape(t):
    inner = t[t.index("[") + 1 : t.index("]")]
    return [int(s) for s in inner.split(", ")]


def build_compiled():
    reset(COMPILED)
    COMPILED.mkdir(parents=True)
    io = ([("x", [1, HIDDEN])], [("y", [1, HIDDEN])])

    for rows, name, findings in (
        (N, "mlmodelc-state-full-extent-write", [finding("state-full-extent-write", "main",
                                                        "kv_cache_update_write_state", "kv_cache")]),
        (N + 1, "mlmodelc-state-full-extent-write-clean", []),
    ):
        f = text_decode(Blobs(), rows, seed=20)
        write_compiled(name, [f], *io, [("kv_cache", kv_shape(rows))], findings)

    for rows, name, findings in (
        (N, "mlmodelc-multifunction-state-full-extent-write", [finding("state-full-extent-write", "infer",
                                                               "kv_cache_update_write_state", "kv_cache")]),
        (N + 1, "mlmodelc-multifunction-state-full-extent-write-clean", []),
    ):
        blobs = Blobs()
        infer = text_decode(blobs, rows, seed=21, fn="infer")
        prefill = text_prefill(blobs, rows, seed=22)
        # The schema of a multifunction compiled model describes its default function (infer).
        write_compiled(name, [infer, prefill], *io, [("kv_cache", kv_shape(rows))], findings)

    f = text_mlp(Blobs(), seed=23)
    write_compiled("mlmodelc-mlp-blobfile-clean", [f], *io, [], [])
    # The same model whose metadata.json describes its static [1, 64] output without a shape
    # (C9): description-output-no-shape, with the help for a compiled model.
    f = text_mlp(Blobs(), seed=23)
    write_compiled("mlmodelc-description-output-no-shape", [f], io[0], [("y", [])], [], [
        finding("description-output-no-shape", "main")])

    # States in an iOS 17 function: the padded (clean) decode step, with only the opset changed.
    for opset, name, findings in (
        ("ios17", "mlmodelc-opset-too-old-for-states", [finding("opset-too-old-for-states", "main", None, "kv_cache")]),
        ("ios18", "mlmodelc-opset-too-old-for-states-clean", []),
    ):
        f = text_decode(Blobs(), N + 1, seed=24)
        f.opset = opset
        write_compiled(name, [f], *io, [("kv_cache", kv_shape(N + 1))], findings)

    # An fp32 state (and so fp32 state ops, which fp32-compute reports too: two regions, the read
    # and slice_update of the write, and the read after it, one finding for the function) vs the
    # fp16 twin.
    fp32_ops = [finding("fp32-compute", "main", "old")]
    for dtype, data_type, name, findings in (
        ("fp32", "Float32", "mlmodelc-state-not-fp16", [finding("state-not-fp16", "main", None, "s")] + fp32_ops),
        ("fp16", "Float16", "mlmodelc-state-not-fp16-clean", []),
    ):
        f = text_state_dtype(Blobs(), dtype)
        write_compiled(name, [f], [("u", [1, 32])], [("y", [2, 32])], [("s", [2, 32])], findings, data_type)


def main():
    build_packages()
    build_compiled()
    # build_packages clears packages/ and expected/, pipelines included: write them again.
    from generate_pipelines import build_pipelines

    build_pipelines()
    print(f"corpus written to {CORPUS}", file=sys.stderr)


if __name__ == "__main__":
    main()
