"""Checks coreml-lint's exact rewrites of fp16 softplus, Mish, logsumexp and log_softmax into their
shifted forms (`ane-fp16-exp-overflow`, FIELD-HAZARDS-4.md G1) with coremltools and numpy,
independently of our own reader.

For every corpus package whose expected findings include `ane-fp16-exp-overflow` at a softplus,
a reduce_log_sum_exp or a softmax, the fixed copy in FIXED_DIR must:
  1. load with `ct.models.MLModel(path, skip_model_load=True)`;
  2. be accepted by coremltools' type-checking MIL re-load (`milproto.load`);
  3. keep the function's inputs, outputs and the model description, and hold no `softplus`,
     `reduce_log_sum_exp` or `softmax` read by a `log` any more;
  4. compute what the original computes: both programs are evaluated by a small numpy interpreter
     of the MIL ops they hold,
       a. in fp32 (every op in float32), on inputs where the original is finite: equal up to
          rounding;
       b. with every result rounded to fp16, as the Neural Engine computes, on inputs where the
          original overflows (softplus / logsumexp of 12 … 40) or underflows (log_softmax with one
          dominant class): the fixed program stays within fp16 rounding of the exact (float64)
          function, and the original does not (the hazard is real in this arithmetic; an overflowed
          naive softplus or logsumexp is taken as 0, what the reports saw the Neural Engine return).

Usage: stable_fix_crosscheck.py CORPUS_DIR FIXED_DIR
"""

import glob
import json
import os
import sys

import numpy as np
import coremltools as ct
from coremltools.converters.mil.frontend.milproto.load import load as milproto_load
from coremltools.proto import MIL_pb2, Model_pb2

RULE = "ane-fp16-exp-overflow"
FIXABLE = ("softplus", "reduce_log_sum_exp", "softmax")
failures = []


def fail(name, msg):
    failures.append(f"{name}: {msg}")
    print(f"FAIL {name}: {msg}")


def spec_of(pkg):
    spec = Model_pb2.Model()
    with open(os.path.join(pkg, "Data", "com.apple.CoreML", "model.mlmodel"), "rb") as f:
        spec.ParseFromString(f.read())
    return spec


def main_fn(spec):
    f = spec.mlProgram.functions["main"]
    return f, list(f.block_specializations[f.opset].operations), list(f.block_specializations[f.opset].outputs)


def immediate(value):
    """A numpy array of an immediate MIL value."""
    tt = value.type.tensorType
    shape = [d.constant.size for d in tt.dimensions]
    t = value.immediateValue.tensor
    kind = t.WhichOneof("value")
    if tt.dataType == MIL_pb2.FLOAT16:
        arr = np.frombuffer(t.bytes.values, dtype=np.float16).astype(np.float64)
    elif kind == "floats":
        arr = np.array(t.floats.values, dtype=np.float64)
    elif kind == "ints":
        arr = np.array(t.ints.values, dtype=np.int64)
    elif kind == "bools":
        arr = np.array(t.bools.values, dtype=bool)
    elif kind == "strings":
        return list(t.strings.values)
    else:
        raise ValueError(f"immediate of kind {kind}")
    return arr.reshape(shape) if shape else arr.reshape(())


def evaluate(spec, x, rounding):
    """Runs `main` on input `x` (float64 array) with numpy; `rounding` rounds every float result
    (np.float32 or np.float16). Returns the first output."""
    fn, ops, outputs = main_fn(spec)
    env = {fn.inputs[0].name: rounding(x)}

    def arg(op, p, default=None):
        if p not in op.inputs:
            return default
        a = op.inputs[p].arguments[0]
        if a.WhichOneof("binding") == "name":
            return env[a.name]
        return immediate(a.value)

    def axes_of(op, rank):
        axes = arg(op, "axes")
        axes = range(rank) if axes is None else [int(a) % rank for a in np.atleast_1d(axes)]
        return tuple(sorted(axes))

    with np.errstate(over="ignore", divide="ignore", invalid="ignore", under="ignore"):
        for op in ops:
            t = op.type
            if t == "const":
                out = immediate(op.attributes["val"])
            else:
                xv = arg(op, "x")
                if t == "softplus":
                    # The naive form, each step rounded: exp, then log(1 + ·); where exp overflowed
                    # the Neural Engine returns 0 (FIELD-HAZARDS-4 G1: "drops to 0 above 10.4").
                    e = rounding(np.exp(xv))
                    out = np.where(np.isinf(e), 0.0, np.log(1 + e))
                elif t == "relu":
                    out = np.maximum(xv, 0)
                elif t == "abs":
                    out = np.abs(xv)
                elif t == "exp":
                    out = np.exp(xv)
                elif t == "tanh":
                    out = np.tanh(xv)
                elif t == "log":
                    out = np.log(xv + arg(op, "epsilon", 1e-45))
                elif t in ("mul", "add", "sub", "maximum", "minimum"):
                    yv = arg(op, "y")
                    out = {"mul": np.multiply, "add": np.add, "sub": np.subtract,
                           "maximum": np.maximum, "minimum": np.minimum}[t](xv, yv)
                elif t == "clip":
                    out = np.clip(xv, arg(op, "alpha"), arg(op, "beta"))
                elif t in ("reduce_max", "reduce_sum", "reduce_log_sum_exp"):
                    axes = axes_of(op, xv.ndim)
                    keep = bool(arg(op, "keep_dims", False))
                    if t == "reduce_max":
                        out = np.max(xv, axis=axes, keepdims=keep)
                    elif t == "reduce_sum":
                        out = np.sum(xv, axis=axes, keepdims=keep)
                    else:
                        # The naive form, each step rounded: exp, Σ, log; 0 where the sum
                        # overflowed, as the Neural Engine returns (FIELD-HAZARDS-4 G1).
                        total = rounding(np.sum(rounding(np.exp(xv)), axis=axes, keepdims=keep))
                        out = np.where(np.isinf(total), 0.0, np.log(total))
                elif t == "softmax":
                    axis = int(arg(op, "axis", -1))
                    e = rounding(np.exp(xv - np.max(xv, axis=axis, keepdims=True)))
                    out = e / rounding(np.sum(e, axis=axis, keepdims=True))
                else:
                    raise ValueError(f"the interpreter has no `{t}`")
            if isinstance(out, np.ndarray) and out.dtype.kind == "f" or isinstance(out, float):
                out = rounding(np.asarray(out, dtype=np.float64))
            env[op.outputs[0].name] = out
    return np.asarray(env[outputs[0]], dtype=np.float64)


def f32(v):
    return np.asarray(v, dtype=np.float64).astype(np.float32).astype(np.float64)


def f16(v):
    return np.asarray(v, dtype=np.float64).astype(np.float16).astype(np.float64)


def exact(kind, x):
    """The function in float64."""
    m = np.max(x, axis=-1, keepdims=True)
    if kind == "softplus":
        return np.logaddexp(0, x)
    if kind == "mish":
        return x * np.tanh(np.logaddexp(0, x))
    if kind == "softplus-beta":
        return np.logaddexp(0, 2 * x) / 2
    if kind == "logsumexp":
        return (m + np.log(np.sum(np.exp(x - m), axis=-1, keepdims=True)))[..., 0]
    if kind == "log-softmax":
        return x - m - np.log(np.sum(np.exp(x - m), axis=-1, keepdims=True))
    raise ValueError(kind)


def inputs(kind, shape):
    """(finite-range input, input where the fp16 original is wrong)."""
    rs = np.random.RandomState(47)
    moderate = rs.uniform(-6, 6, size=shape)
    if kind == "log-softmax":
        hard = rs.uniform(-2, 2, size=shape)
        hard[..., 0] = 24.0  # one dominant class: the others' probabilities round to 0 in fp16
    else:
        hard = rs.uniform(12, 40, size=shape)  # exp overflows fp16 (above 11.09)
    return moderate, hard


def check(name, rel, corpus, fixed_dir):
    kind = name[len("torch-cat4-"):]
    orig_pkg = os.path.join(corpus, rel)
    pkg = os.path.join(fixed_dir, os.path.basename(rel))
    if not os.path.isdir(pkg):
        return fail(name, "no fixed copy was written")
    try:
        ct.models.MLModel(pkg, skip_model_load=True)
    except Exception as e:  # noqa: BLE001
        return fail(name, f"MLModel refuses the fixed package: {e}")
    spec, orig = spec_of(pkg), spec_of(orig_pkg)
    try:
        milproto_load(spec, specification_version=spec.specificationVersion,
                      file_weights_dir=os.path.join(pkg, "Data", "com.apple.CoreML", "weights"))
    except Exception as e:  # noqa: BLE001
        fail(name, f"milproto.load refuses the fixed program: {e}")
    if orig.description != spec.description:
        fail(name, "the model description changed")
    f0, ops0, out0 = main_fn(orig)
    f1, ops1, out1 = main_fn(spec)
    if list(f0.inputs) != list(f1.inputs) or out0 != out1:
        fail(name, "inputs or outputs changed")
    log_reads = {a.name for op in ops1 if op.type == "log" for a in op.inputs["x"].arguments}
    for op in ops1:
        if op.type in ("softplus", "reduce_log_sum_exp") or (
                op.type == "softmax" and op.outputs[0].name in log_reads):
            fail(name, f"a naive `{op.type}` is left")
    shape = [d.constant.size for d in f0.inputs[0].type.tensorType.dimensions]
    moderate, hard = inputs(kind, shape)
    # a. fp32: the rewrite is the same function up to rounding where the original is finite.
    a, b = evaluate(orig, moderate, f32), evaluate(spec, moderate, f32)
    if not np.all(np.isfinite(a)) or not np.allclose(a, b, rtol=1e-5, atol=1e-5):
        fail(name, f"fp32: fixed differs from the original by {np.max(np.abs(a - b))}")
    # b. fp16 rounding of every result: the fixed program is right where the original overflows.
    want = exact(kind, hard)
    got, naive = evaluate(spec, hard, f16), evaluate(orig, hard, f16)
    tol = 4e-3 * np.maximum(1, np.abs(want))  # a few fp16 ulps through a handful of ops
    if not np.all(np.isfinite(got)) or not np.all(np.abs(got - want) <= tol):
        fail(name, f"fp16: fixed is off the exact function by {np.nanmax(np.abs(got - want))}")
    if np.all(np.isfinite(naive)) and np.all(np.abs(naive - want) <= tol):
        fail(name, "fp16: the original is right on the overflowing inputs: the check tests nothing")
    print(f"ok {name}: fp32 max diff {np.max(np.abs(a - b)):.2e}; fp16 fixed max err "
          f"{np.max(np.abs(got - want)):.2e}, original max err {np.nanmax(np.abs(naive - want))}")


def main(corpus, fixed_dir):
    checked = 0
    for rec_path in sorted(glob.glob(os.path.join(corpus, "expected", "*.json"))):
        with open(rec_path) as f:
            rec = json.load(f)
        name = os.path.basename(rec_path)[: -len(".json")]
        reported = [x for x in rec["findings"] if x["rule"] == RULE]
        if not reported or rec["kind"] != "mlpackage":
            continue
        orig = spec_of(os.path.join(corpus, rec["path"]))
        _, ops, _ = main_fn(orig)
        names = {(op.attributes["name"].immediateValue.tensor.strings.values[0]
                  if "name" in op.attributes else op.outputs[0].name): op.type for op in ops}
        if not all(names.get(x["op"]) in FIXABLE for x in reported):
            continue
        check(name, rec["path"], corpus, fixed_dir)
        checked += 1
    if checked < 5:
        fail("corpus", f"only {checked} fixable packages checked (softplus, beta, Mish, logsumexp, log_softmax)")
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print(f"stable exp-log fix cross-check: {checked} packages OK")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
