#!/usr/bin/env python3
"""Converter-made fixtures for `int16-narrowing` on real conversions (FIELD-HAZARDS-3.md, "What the
converter does": coremltools' `common::add_int16_cast` narrows run-time int32 token ids to uint16
before the embedding `gather`, and the cache position before the state-write arithmetic, when the
gathered axis / the state axis fits).

- `torch-int16-decoder-export`: a tiny stateful decoder (token-id embedding of 32,000 rows, hidden
  size 8, a `[1, 256, 32]` K and V cache written at a run-time position) through `torch.export`;
- `torch-int16-decoder-trace`: the same decoder through `torch.jit.trace`;
- `torch-int16-table-1000`: token ids looked up in a 1,000-row embedding (the converter casts them
  to uint16);
- `torch-int16-table-1000-uint16`: the same conversion with the converter's two int16 casts of the
  ids (before and after the negative-index guard) made uint16 casts (`retarget`; coremltools 9.0
  picks uint16 or int16 by a parameter seen earlier, PR #2626);
- `torch-int16-table-70000-uint16`: its twin with the table grown to 70,000 rows (`retarget`): the
  same uint16 casts, now into an axis longer than 65,535.

- `torch-int16-rangedim-256`: ids of a `RangeDim(1, 256)` sequence axis embedded, projected by a
  `linear`, and positions `arange(h.shape[1])`: the converter narrows `shape(linear_0)` of
  `[1, ?, 64]` to uint16; the description bounds the `?` to 256, so no `int16-narrowing` (only
  `flexible-input-shape`'s finding on the ranged input).

All but the last are correct: no `int16-narrowing` finding (the decoders have the state rules'
findings of a run-time position write, as `generate_torch_states.py`'s). The twin has one `int16-narrowing`, at the first uint16
cast of the ids (the second, after the guard, is the same cause). Expected findings are written by hand here, from what the converter does
(above), not computed by the linter.

Writes only `packages/torch-int16-*.mlpackage` and `expected/torch-int16-*.json`. Run:
`/work/venvs/torch/bin/python corpus/generate_torch_int16.py` (torch 2.7 + coremltools 9.0). Seeded
and byte-stable (`generate.stabilize`).
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
import generate  # noqa: E402  (sets up warnings/logging and imports coremltools)
from generate import ct, mb, finding, fn_ops, op_name, package_record, reset, stabilize, write_expected  # noqa: E402

PACKAGES = generate.CORPUS / "packages"
VOCAB = 32_000
HIDDEN = 8  # the embedding width: keeps the 32,000-row table at 512 KB
LOOKUP_WIDTH = 4  # the lookups' tables: the 70,000-row one stays at 560 KB
WIDTH = 32  # K, V and the outputs: last axes of 32 fp16 (64 bytes), as the ANE wants them
CTX = 256
SHORT_TABLE = 1_000
LONG_TABLE = 70_000


class Decoder(nn.Module):
    """One decode step: embed the token, write K and V at `pos`, attend over the cache."""

    def __init__(self, how: str):
        super().__init__()
        self.how = how
        self.emb = nn.Embedding(VOCAB, HIDDEN)
        self.wq = nn.Linear(HIDDEN, WIDTH, bias=False)
        self.wk = nn.Linear(HIDDEN, WIDTH, bias=False)
        self.wv = nn.Linear(HIDDEN, WIDTH, bias=False)
        self.register_buffer("k_cache", torch.zeros(1, CTX, WIDTH, dtype=torch.float16))
        self.register_buffer("v_cache", torch.zeros(1, CTX, WIDTH, dtype=torch.float16))

    def forward(self, ids, pos):
        x = self.emb(ids)  # [1, 1, HIDDEN]
        if self.how == "export":
            p = pos.item()
            torch._check_is_size(p)
            torch._check(p < CTX)
        else:
            p = pos[0]
        self.k_cache[:, p : p + 1] = self.wk(x).half()
        self.v_cache[:, p : p + 1] = self.wv(x).half()
        q = self.wq(x).half()
        att = torch.softmax(q @ self.k_cache.transpose(1, 2), dim=-1)
        return att @ self.v_cache


class Lookup(nn.Module):
    """Token ids looked up in an embedding table."""

    def __init__(self, rows):
        super().__init__()
        self.emb = nn.Embedding(rows, LOOKUP_WIDTH)
        self.out = nn.Linear(LOOKUP_WIDTH, WIDTH, bias=False)

    def forward(self, ids):
        return self.out(self.emb(ids))


class Positions(nn.Module):
    """Token ids of a flexible length, embedded and projected, plus a position embedding of
    `arange(length)` (the converter reads the length with `shape` of the projection)."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(SHORT_TABLE, WIDTH)
        self.lin = nn.Linear(WIDTH, WIDTH)
        self.pos = nn.Embedding(CTX, WIDTH)

    def forward(self, ids):
        h = self.lin(self.emb(ids))
        return h + self.pos(torch.arange(h.shape[1]))


def seeded(module):
    torch.manual_seed(0)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn_like(p) * 0.05)
    for p in module.parameters():
        p.requires_grad_(False)
    return module.eval()


def ids_example():
    return torch.tensor([[5]], dtype=torch.int32)


def pos_example():
    return torch.tensor([3], dtype=torch.int32)


def cache_states():
    return [
        ct.StateType(wrapped_type=ct.TensorType(shape=(1, CTX, WIDTH), dtype=np.float16), name=n)
        for n in ("k_cache", "v_cache")
    ]


def convert(model, inputs=None, states=None):
    return ct.convert(
        model,
        inputs=inputs,
        outputs=[ct.TensorType(name="y", dtype=np.float16)],
        states=states,
        minimum_deployment_target=ct.target.iOS18,
        compute_precision=ct.precision.FLOAT16,
        convert_to="mlprogram",
    )


def decoder(how):
    module = seeded(Decoder(how))
    if how == "export":
        program = torch.export.export(module, (ids_example(), pos_example())).run_decompositions({})
        return convert(program, states=cache_states())
    traced = torch.jit.trace(module, (ids_example(), pos_example()))
    inputs = [
        ct.TensorType(name="ids", shape=(1, 1), dtype=np.int32),
        ct.TensorType(name="pos", shape=(1,), dtype=np.int32),
    ]
    return convert(traced, inputs, cache_states())


def lookup(rows):
    traced = torch.jit.trace(seeded(Lookup(rows)), (ids_example(),))
    return convert(traced, [ct.TensorType(name="ids", shape=(1, 1), dtype=np.int32)])


def save(model, name):
    path = PACKAGES / f"{name}.mlpackage"
    reset(path)
    model.save(str(path))
    return path


def narrowing_casts(path):
    """Names of the casts of int32 values to uint16 / int16 in `main`."""
    spec = ct.utils.load_spec(str(path))
    return [
        op_name(op)
        for op in fn_ops(spec, "main")
        if op.type == "cast"
        and op.outputs[0].type.tensorType.dataType in (generate.MIL_pb2.UINT16, generate.MIL_pb2.INT16)
    ]


def retarget(model, rows, dtype):
    """The converted 1,000-row lookup `model` with its embedding grown to `rows` rows (the same
    values, repeated) and the converter's int16 casts of the ids made `dtype` casts: the casts the
    converter wrote for 1,000 rows, now into the given axis and type."""
    from coremltools.converters.mil.mil.scope import ScopeInfo, ScopeSource

    prog = copy.deepcopy(model._mil_program)
    fn = prog.functions["main"]
    scopes = [
        ScopeInfo(source=ScopeSource.TORCHSCRIPT_MODULE_TYPE, data=["Embedding"]),
        ScopeInfo(source=ScopeSource.TORCHSCRIPT_MODULE_NAME, data=["emb"]),
    ]
    with fn, mb.scope(*scopes):
        for cast in [op for op in fn.operations if op.op_type == "cast" and op.dtype.val == "int16"]:
            if dtype == "int16":
                continue
            out = mb.cast(x=cast.x, dtype=dtype, name=cast.name + "_" + dtype, before_op=cast)
            cast.enclosing_block.replace_uses_of_var_after_op(
                anchor_op=cast, old_var=cast.outputs[0], new_var=out, no_check_var_types=True
            )
            fn.remove_ops([cast])
        gather = next(op for op in fn.operations if op.op_type == "gather")
        table = gather.x.val
        if rows != table.shape[0]:
            grown = np.resize(table, (rows, table.shape[1])).astype(table.dtype)
            new = mb.const(val=grown, name=gather.x.name + "_grown", before_op=gather)
            out = mb.gather(x=new, indices=gather.indices, axis=gather.axis, name=gather.name + "_grown",
                            before_op=gather)
            gather.enclosing_block.replace_uses_of_var_after_op(
                anchor_op=gather, old_var=gather.outputs[0], new_var=out
            )
            fn.remove_ops([gather, gather.x.op])
    return ct.convert(prog, minimum_deployment_target=ct.target.iOS18, convert_to="mlprogram",
                      pass_pipeline=ct.PassPipeline.EMPTY)


def record(path, findings):
    stabilize(path)
    name = path.name[: -len(".mlpackage")]
    write_expected(name, package_record(path, findings))


def main():
    for old in list(PACKAGES.glob("torch-int16-*")) + list(generate.EXPECTED.glob("torch-int16-*.json")):
        reset(old)
    for how in ("export", "trace"):
        p = save(decoder(how), f"torch-int16-decoder-{how}")
        print(p.name, "narrowing casts:", narrowing_casts(p), file=sys.stderr)
        # The state rules' findings of a run-time position write (HAZARDS.md H4b, as in
        # generate_torch_states.py): a run-time begin; torch.export wraps it in full-window updates.
        spec = ct.utils.load_spec(str(p))
        found = []
        for state in ("k_cache", "v_cache"):
            for w in generate.writes_of(spec, "main", state):
                found.append(finding("state-dynamic-begin", "main", w, state))
                if how == "export":
                    found.append(finding("state-full-extent-write", "main", w, state))
        record(p, found)
    converted = lookup(SHORT_TABLE)
    short = save(converted, "torch-int16-table-1000")
    casts = narrowing_casts(short)
    print(short.name, "narrowing casts:", casts, file=sys.stderr)
    record(short, [])
    short16 = save(retarget(converted, SHORT_TABLE, "uint16"), "torch-int16-table-1000-uint16")
    print(short16.name, "narrowing casts:", narrowing_casts(short16), file=sys.stderr)
    record(short16, [])
    long = save(retarget(converted, LONG_TABLE, "uint16"), "torch-int16-table-70000-uint16")
    long_casts = narrowing_casts(long)
    print(long.name, "narrowing casts:", long_casts, file=sys.stderr)
    # Reported once, where it starts: the first cast (the ids), not the one after the guard.
    record(long, [finding("int16-narrowing", "main", long_casts[0])])
    traced = torch.jit.trace(seeded(Positions()), (torch.zeros(1, 8, dtype=torch.int32),))
    ranged = save(
        convert(traced, [ct.TensorType(name="ids", shape=(1, ct.RangeDim(1, CTX, default=8)), dtype=np.int32)]),
        "torch-int16-rangedim-256",
    )
    print(ranged.name, "narrowing casts:", narrowing_casts(ranged), file=sys.stderr)
    record(ranged, [finding("flexible-input-shape", "main", None)])


if __name__ == "__main__":
    main()
