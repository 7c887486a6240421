#!/usr/bin/env python3
"""Converter-made models for the exact value fixes (issue 44): PyTorch modules traced and converted
with coremltools 9.0 (torch 2.7), edited where the converter cannot write the hazard itself.

- `torch-exact-gather-fp16`: two `nn.Embedding(64, 32)` lookups of one int32 `pos`, converted for
  iOS18; coremltools writes each gather's indices through a `cast` to int16 / uint16, and the spec
  edit makes both casts fp16 (what a writer that casts positions to the table's dtype produces; the
  MIL builder refuses float indices). Two `gather-float-indices`, each fixed by one int32 cast.
- `torch-exact-affine-int8-two`: two `nn.Linear(64, 64)` layers (iOS17), `linear_quantize_weights`
  int8 `linear_symmetric`: two int8 weights, one `affine-dequantize-int8` (once per function), one
  fix for both.

Writes only `packages/torch-exact-*.mlpackage` and `expected/torch-exact-*.json` (record format of
`generate.py`, which leaves `torch-*` alone); the findings are computed here from the saved spec.

Run: `/work/venvs/torch/bin/python corpus/generate_exact_fixes.py` (torch 2.7 + coremltools 9.0).
Seeded and byte-stable (`generate.stabilize`).
"""

from __future__ import annotations

import os
import sys
import tempfile
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
    fn_ops,
    load,
    op_name,
    package_record,
    pkg,
    reset,
    save_model,
    save_spec,
    stabilize,
    write_expected,
)
from generate_catalog3 import convert, quantized, tensor, traced  # noqa: E402

warnings.filterwarnings("ignore")

PREFIX = "torch-exact-"
GATHERS = ("gather", "gather_along_axis", "gather_nd")
FLOATS = (MIL_pb2.FLOAT16, MIL_pb2.FLOAT32)


class TwoLookups(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Embedding(64, 32)
        self.b = nn.Embedding(64, 32)

    def forward(self, pos):
        return self.a(pos) + self.b(pos)


class TwoLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(64, 64)
        self.l2 = nn.Linear(64, 64)

    def forward(self, x):
        return self.l2(torch.relu(self.l1(x)))


def casts_to_fp16(spec):
    """Every `cast` that feeds a gather's indices casts to fp16 instead (its dtype const and type)."""
    ops = fn_ops(spec, "main")
    producer = {o.name: op for op in ops for o in op.outputs}
    for op in ops:
        if op.type not in GATHERS:
            continue
        cast = producer.get(op.inputs["indices"].arguments[0].name)
        if cast is None or cast.type != "cast":
            continue
        dtype = producer[cast.inputs["dtype"].arguments[0].name]
        dtype.attributes["val"].immediateValue.tensor.strings.values[0] = "fp16"
        cast.outputs[0].type.tensorType.dataType = MIL_pb2.FLOAT16


def gather_findings(spec):
    """gather-float-indices: one finding per float indices value, at its first gather."""
    ops = fn_ops(spec, "main")
    types = {o.name: o.type.tensorType.dataType for op in ops for o in op.outputs}
    seen, out = set(), []
    for op in ops:
        if op.type in GATHERS:
            idx = op.inputs["indices"].arguments[0].name
            if types.get(idx) in FLOATS and idx not in seen:
                seen.add(idx)
                out.append(finding("gather-float-indices", "main", op_name(op)))
    return out


def affine_findings(spec):
    """affine-dequantize-int8: once per function, at its first int8 constexpr_affine_dequantize."""
    for op in fn_ops(spec, "main"):
        q = op.attributes.get("quantized_data")
        if op.type == "constexpr_affine_dequantize" and q is not None and q.type.tensorType.dataType == MIL_pb2.INT8:
            return [finding("affine-dequantize-int8", "main", op_name(op))]
    return []


def build(tmp: Path):
    src = save_model(convert(traced(TwoLookups(), torch.zeros(32, dtype=torch.int32)),
                             [tensor("pos", (32,), np.int32)]), tmp / "lookups.mlpackage")
    spec = ct.utils.load_spec(str(src))
    casts_to_fp16(spec)
    path = save_spec(spec, load(src).weights_dir, pkg(PREFIX + "gather-fp16"))
    yield path, gather_findings

    model = traced(TwoLinear(), torch.zeros(1, 64))
    q = quantized(convert(model, [tensor("x", (1, 64))], target=ct.target.iOS17), "int8")
    path = save_model(q, pkg(PREFIX + "affine-int8-two"))
    yield path, affine_findings


def main():
    for old in sorted(EXPECTED.glob(f"{PREFIX}*.json")):
        old.unlink()
    for old in sorted(pkg(PREFIX).parent.glob(f"{PREFIX}*.mlpackage")):
        reset(old)
    with tempfile.TemporaryDirectory(prefix="coreml-lint-exact-") as tmp:
        for path, findings in build(Path(tmp)):
            stabilize(path)
            spec = ct.utils.load_spec(str(path))
            write_expected(path.name[: -len(".mlpackage")], package_record(path, findings(spec)))
            print(f"wrote {path.name}", file=sys.stderr)


if __name__ == "__main__":
    main()
