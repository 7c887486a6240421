#!/usr/bin/env python3
"""Converter-made image models for `fp32-compute`: coremltools' image preprocessing.

A small PyTorch conv net traced and converted with a `ct.ImageType` input (`scale`, `bias`), the way
users convert vision models. coremltools scales and biases the image in fp32 (`image__scaled__` mul,
`image__biased__` add, on the image input) before the cast to fp16 where the fp16 program starts;
that is not fp32 compute the user can change, and `fp32-compute` stays silent on it. The twin is
the same conversion with `compute_precision=FLOAT32`, whose fp32 region starts at the same mul.

Writes `packages/torch-image-*.mlpackage` and `expected/torch-image-*.json` (the record format of
`generate.py`). The expected findings are computed here from the saved spec: the fp32 regions of
`generate.fp32_findings`, except that the preprocessing ops (a mul/add named `image__scaled__` /
`image__biased__` whose value reaches a cast to fp16 through preprocessing ops only) have no fp32
compute; the other origin rules as `generate_torch_origin.all_findings` computes them.

Run: `/work/venv/bin/python corpus/generate_image_inputs.py`. Seeded and byte-stable
(`generate.stabilize`).
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

import torch
import torch.nn as nn

os.environ.setdefault("TQDM_DISABLE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import coremltools as ct  # noqa: E402
from coremltools.proto import MIL_pb2  # noqa: E402

from generate import (  # noqa: E402
    EXPECTED,
    fn_ops,
    main_block,
    package_record,
    pkg,
    region_findings,
    reset,
    save_model,
    stabilize,
    tensor_of,
    write_expected,
)
from generate_torch_origin import all_findings  # noqa: E402

warnings.filterwarnings("ignore")

PREFIX = "torch-image-"
PREPROCESSING = ("image__scaled__", "image__biased__")


class TinyVision(nn.Module):
    """RGB image [1, 3, 32, 32] -> conv 3x3 to 32 channels -> relu."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 32, 3, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x))


def convert(precision):
    torch.manual_seed(0)
    model = TinyVision().eval()
    traced = torch.jit.trace(model, torch.rand(1, 3, 32, 32))
    image = ct.ImageType(name="image", shape=(1, 3, 32, 32), scale=1 / 255.0, bias=[-0.5, -0.4, -0.3],
                         color_layout=ct.colorlayout.RGB)
    return ct.convert(traced, inputs=[image], convert_to="mlprogram", compute_precision=precision,
                      minimum_deployment_target=ct.target.iOS17)


def preprocessing_ops(spec, fn_name):
    """Names of the image preprocessing ops whose value reaches a cast to fp16 through
    preprocessing ops only."""
    ops = fn_ops(spec, fn_name)
    consumers = {}
    for op in ops:
        for arg in op.inputs.values():
            for a in arg.arguments:
                if a.WhichOneof("binding") == "name":
                    consumers.setdefault(a.name, []).append(op)

    def to_fp16(op):
        if op.type == "cast":
            t = tensor_of(op.outputs[0].type)
            return t is not None and t.dataType == MIL_pb2.FLOAT16
        if op.type in ("mul", "add") and op.outputs[0].name.startswith(PREPROCESSING):
            return all(to_fp16(c) for c in consumers.get(op.outputs[0].name, [])) and bool(
                consumers.get(op.outputs[0].name))
        return False

    return {op.outputs[0].name for op in ops
            if op.type in ("mul", "add") and op.outputs[0].name.startswith(PREPROCESSING) and to_fp16(op)}


def fp32_findings(spec, fn_name):
    outputs = set(main_block(spec.mlProgram.functions[fn_name]).outputs)
    skip = preprocessing_ops(spec, fn_name)

    def out(op, o):
        t = tensor_of(o.type)
        if t is None or t.dataType != MIL_pb2.FLOAT32 or o.name in skip:
            return False
        return not (op.type == "cast" and o.name in outputs)

    return region_findings(spec, fn_name, "fp32-compute", lambda _inp: False, out)


def findings(path):
    spec = ct.utils.load_spec(str(path))
    out = [f for f in all_findings(path) if f["rule"] != "fp32-compute"]
    for fn in sorted(spec.mlProgram.functions):
        out += fp32_findings(spec, fn)
    return out


def main():
    for old in sorted(EXPECTED.glob(f"{PREFIX}*.json")):
        old.unlink()
    for old in sorted(pkg(PREFIX + "*").parent.glob(f"{PREFIX}*.mlpackage")):
        reset(old)
    for name, precision in [("preprocessing", ct.precision.FLOAT16),
                            ("preprocessing-fp32", ct.precision.FLOAT32)]:
        path = save_model(convert(precision), pkg(PREFIX + name))
        stabilize(path)
        write_expected(PREFIX + name, package_record(path, findings(path)))
        print(f"wrote {path.name}", file=sys.stderr)


if __name__ == "__main__":
    main()
