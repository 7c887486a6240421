#!/usr/bin/env python3
"""Fixtures for two items of FIELD-HAZARDS-3.md C9, written as rules over the model description and
over dimension comparisons (issue 42):

- `description-output-no-shape`: a static `[1, 64]` program output whose `ModelDescription` output
  lost its shape (the description edited, the program left alone): Swift clients fail with "Cannot
  obtain shape information" (huggingface/swift-chat #17, #28; pytorch/executorch#11541). One finding,
  at `main`.
- `description-output-no-shape-clean`: the same model as converted, the shape described.
- `description-output-no-shape-dynamic-clean`: an output of unknown length (the input has a
  `RangeDim` axis) whose description gives a shape: no finding of that rule (the ranged input is
  `flexible-input-shape`'s).
- `affine-dequantize-square-axis`: four iOS17 `constexpr_affine_dequantize` uint8 weights: 3×3 and
  64×64 with `axis = -1` (older converters scaled the wrong axis of a square weight, apple/coremltools
  PR #2589), 64×64 with `axis = 0` and 64×32 with `axis = -1`: two findings, at the square ones
  (and `io-last-axis-alignment`'s infos for the 3-wide input and output).

Expected findings are written by hand here, from what each fixture was built to hold, not computed
by the linter. Writes only `packages/{description-output-no-shape,affine-dequantize-square-axis}*`
and their `expected/*.json`. Run: `python corpus/generate_field_c9.py` (coremltools 9.0). Seeded and
byte-stable (`generate.stabilize`).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import generate  # noqa: E402  (sets up warnings/logging and imports coremltools)
from generate import ct, mb, finding, load, pkg, record, reset, save_model, save_spec, stabilize  # noqa: E402

FP16 = np.float16
WIDTH = 64


def prog_static():
    rs = np.random.RandomState(42)

    @mb.program(input_specs=[mb.TensorSpec(shape=(1, WIDTH), dtype=ct.converters.mil.mil.types.fp16)], opset_version=ct.target.iOS18)
    def prog(x):
        w = rs.standard_normal((WIDTH, WIDTH)).astype(FP16) * FP16(0.1)
        return mb.linear(x=x, weight=w, name="y")

    return prog


def save(model_or_spec, name, weights_dir=None):
    p = pkg(name)
    if weights_dir is None:
        save_model(model_or_spec, p)
    else:
        save_spec(model_or_spec, weights_dir, p)
    stabilize(p)
    return p


def description_fixtures(tmp: Path):
    clean = save(generate.convert(prog_static()), "description-output-no-shape-clean")
    spec = ct.utils.load_spec(str(clean))
    out = spec.description.output[0].type.multiArrayType
    assert list(out.shape) == [1, WIDTH], out
    record(clean, [])

    del out.shape[:]
    lost = save(spec, "description-output-no-shape", load(clean).weights_dir)
    record(lost, [finding("description-output-no-shape", "main")])

    seq = ct.RangeDim(lower_bound=1, upper_bound=512, default=8)
    dyn = generate.convert(
        prog_dynamic(), inputs=[ct.TensorType(name="x", shape=(1, seq), dtype=FP16)]
    )
    src = save_model(dyn, tmp / "dynamic.mlpackage")
    spec = ct.utils.load_spec(str(src))
    out = spec.description.output[0].type.multiArrayType
    if not out.shape:
        out.shape.extend([1, 8])
    p = save(spec, "description-output-no-shape-dynamic-clean", load(src).weights_dir)
    record(p, [finding("flexible-input-shape", "main", None, None)])


def prog_dynamic():
    @mb.program(
        input_specs=[mb.TensorSpec(shape=(1, ct.converters.mil.mil.get_new_symbol()), dtype=ct.converters.mil.mil.types.fp16)],
        opset_version=ct.target.iOS18,
    )
    def prog(x):
        return mb.relu(x=x, name="y")

    return prog


def affine(rs, rows, cols, axis, name):
    n = cols if axis in (-1, 1) else rows
    return mb.constexpr_affine_dequantize(
        quantized_data=rs.randint(0, 255, size=(rows, cols)).astype(np.uint8),
        zero_point=np.full((n,), 127, dtype=np.uint8),
        scale=np.full((n,), 0.01, dtype=FP16),
        axis=axis,
        name=name,
    )


def prog_square_axis():
    rs = np.random.RandomState(7)
    fp16 = ct.converters.mil.mil.types.fp16

    @mb.program(
        input_specs=[mb.TensorSpec(shape=(1, 3), dtype=fp16), mb.TensorSpec(shape=(1, WIDTH), dtype=fp16)],
        opset_version=ct.target.iOS17,
    )
    def prog(a, b):
        y3 = mb.linear(x=a, weight=affine(rs, 3, 3, -1, "w_3x3"), name="y3")
        h = mb.linear(x=b, weight=affine(rs, WIDTH, WIDTH, -1, "w_64x64"), name="h")
        h = mb.linear(x=h, weight=affine(rs, WIDTH, WIDTH, 0, "w_64x64_axis0"), name="h0")
        h = mb.linear(x=mb.slice_by_size(x=h, begin=[0, 0], size=[1, WIDTH // 2]), weight=affine(rs, WIDTH, WIDTH // 2, -1, "w_64x32"), name="y64")
        return y3, h

    return prog


def square_axis_fixture():
    model = ct.convert(
        prog_square_axis(),
        convert_to="mlprogram",
        minimum_deployment_target=ct.target.iOS17,
        compute_precision=ct.precision.FLOAT16,
        pass_pipeline=generate.pipeline(),
    )
    p = save(model, "affine-dequantize-square-axis")
    record(p, [
        finding("affine-dequantize-square-axis", "main", "w_3x3"),
        finding("affine-dequantize-square-axis", "main", "w_64x64"),
        # The 3-wide input `a` and output `y3` (`io-last-axis-alignment`'s infos).
        finding("io-last-axis-alignment", "main", None),
        finding("io-last-axis-alignment", "main", "y3"),
    ])


def main():
    names = ["description-output-no-shape", "affine-dequantize-square-axis"]
    for n in names:
        for old in list(generate.PACKAGES.glob(f"{n}*")) + list(generate.EXPECTED.glob(f"{n}*.json")):
            reset(old)
    with tempfile.TemporaryDirectory() as tmp:
        description_fixtures(Path(tmp))
    square_axis_fixture()


if __name__ == "__main__":
    main()
