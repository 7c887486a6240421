"""Writes ML programs with coremltools' own builder and converter, one per opset (iOS15 … iOS18) and
precision, using the ops whose output types coreml-lint infers (and a few more), plus their
weight-compressed forms (palettized, quantized, pruned, iOS18 blockwise), into OUT. The CI
then lints them with `--select mil`: what coremltools writes must give no `mil-*` finding.

    python opset_programs.py OUT
"""

import sys
from pathlib import Path

import numpy as np
import coremltools as ct
import coremltools.optimize.coreml as cto
from coremltools.converters.mil import Builder as mb
from coremltools.converters.mil.mil import types

TARGETS = {
    "ios15": ct.target.iOS15,
    "ios16": ct.target.iOS16,
    "ios17": ct.target.iOS17,
    "ios18": ct.target.iOS18,
}


def program(target):
    rng = np.random.default_rng(0)
    w = rng.standard_normal((6, 8)).astype(np.float32)
    conv_w = rng.standard_normal((4, 2, 3, 3)).astype(np.float32)

    @mb.program(
        input_specs=[
            mb.TensorSpec(shape=(2, 3, 8), dtype=types.fp32),
            mb.TensorSpec(shape=(3, 1), dtype=types.fp32),
            mb.TensorSpec(shape=(5,), dtype=types.int32),
            mb.TensorSpec(shape=(1, 2, 6, 6), dtype=types.fp32),
        ],
        opset_version=target,
    )
    def prog(x, b, idx, img):
        s = mb.add(x=mb.mul(x=x, y=mb.reduce_mean(x=x, axes=[2], keep_dims=True)), y=b)
        t = mb.transpose(x=s, perm=[0, 2, 1])
        m = mb.matmul(x=t, y=s, transpose_x=False, transpose_y=False)
        m2 = mb.matmul(x=s, y=s, transpose_x=False, transpose_y=True)
        l = mb.linear(x=s, weight=w)
        c = mb.concat(values=[l, mb.slice_by_index(x=s, begin=[0, 0, 0], end=[2, 3, 6])], axis=1)
        r = mb.reshape(x=c, shape=[-1, 6])
        sl = mb.slice_by_index(
            x=r, begin=[1, 0], end=[0, 4], end_mask=[True, False], stride=[2, 1]
        )
        g = mb.gather(x=mb.reshape(x=s, shape=[6, 8]), indices=idx, axis=0)
        red = mb.reduce_sum(x=g, axes=[-1], keep_dims=False)
        cmp = mb.cast(x=mb.greater(x=red, y=0.0), dtype="fp32")
        sm = mb.softmax(x=m, axis=-1)
        ln = mb.layer_norm(x=l, axes=[-1], epsilon=1e-5)
        cv = mb.relu(x=mb.conv(x=img, weight=conv_w, pad_type="same"))
        sq = mb.squeeze(x=mb.expand_dims(x=red, axes=[0]), axes=[0])
        parts = mb.split(x=sm, num_splits=2, axis=-1)
        return sl, cmp, ln, cv, sq, mb.sigmoid(x=m2), parts[0], parts[1]

    return prog


def state_program():
    @mb.program(
        input_specs=[
            mb.TensorSpec(shape=(1, 4), dtype=types.fp16),
            mb.StateTensorSpec(shape=(1, 8, 4), dtype=types.fp16),
        ],
        opset_version=ct.target.iOS18,
    )
    def prog(x, kv):
        old = mb.read_state(input=kv)
        upd = mb.slice_update(x=old, update=mb.expand_dims(x=x, axes=[0]), begin=[0, 2, 0], end=[1, 3, 4])
        new = mb.coreml_update_state(state=kv, value=upd)
        return mb.reduce_sum(x=new, axes=[1])

    return prog


def compressed(model, out, name):
    """The weight-compression forms coremltools writes for the opset (constexpr_* ops)."""
    configs = {
        "palettized": cto.OpPalettizerConfig(mode="uniform", nbits=4, weight_threshold=32),
        "quantized": cto.OpLinearQuantizerConfig(weight_threshold=32),
        "pruned": cto.OpMagnitudePrunerConfig(target_sparsity=0.5, weight_threshold=32),
    }
    if name == "ios18":
        configs["blockwise"] = cto.OpLinearQuantizerConfig(
            dtype="int4", granularity="per_block", block_size=4, weight_threshold=32
        )
    for kind, config in configs.items():
        optimize = {
            cto.OpPalettizerConfig: cto.palettize_weights,
            cto.OpLinearQuantizerConfig: cto.linear_quantize_weights,
            cto.OpMagnitudePrunerConfig: cto.prune_weights,
        }[type(config)]
        small = optimize(model, cto.OptimizationConfig(global_config=config))
        small.save(str(out / f"ops-{name}-{kind}.mlpackage"))


def main(out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for name, target in TARGETS.items():
        for precision in (ct.precision.FLOAT16, ct.precision.FLOAT32):
            model = ct.convert(
                program(target),
                convert_to="mlprogram",
                minimum_deployment_target=target,
                compute_precision=precision,
            )
            model.save(str(out / f"ops-{name}-{precision.value}.mlpackage"))
            if precision == ct.precision.FLOAT16 and name != "ios15":
                compressed(model, out, name)
    model = ct.convert(
        state_program(),
        convert_to="mlprogram",
        minimum_deployment_target=ct.target.iOS18,
        compute_precision=ct.precision.FLOAT16,
    )
    model.save(str(out / "state-ios18.mlpackage"))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
