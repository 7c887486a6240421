"""Checks coreml-lint's rewrite of `pow(x = 2, y)` into `exp(mul(y, ln 2))` (pow-const-base-two,
FIELD-HAZARDS-3.md C1) with coremltools, independently of our own reader.

For every corpus package whose expected findings include `pow-const-base-two`, the fixed copy in
FIXED_DIR must:
  1. load with `ct.models.MLModel(path, skip_model_load=True)`;
  2. be accepted by coremltools' type-checking MIL re-load (`milproto.load`);
  3. hold no `pow` whose base is a constant of 2s; where each reported `pow` was, an `exp` with the
     pow's output name, type and `name` attribute, reading `mul(x = y, y = c)` where `y` is the
     pow's exponent and `c` a scalar const of y's dtype equal to ln 2 rounded to that dtype;
  4. otherwise keep every op (the pow's constant base may go when nothing else read it), the
     function's inputs, outputs and description;
  5. keep `Manifest.json` and `weights/` byte-identical;
  6. compute the same as 2^y: the rewritten expression, evaluated with numpy in y's dtype on a grid
     of exponents, is within one ulp-scale of numpy's 2 ** y.

Usage: pow_fix_crosscheck.py CORPUS_DIR FIXED_DIR
"""

import filecmp
import json
import math
import os
import sys

import numpy as np
import coremltools as ct
from coremltools.converters.mil.frontend.milproto.load import load as milproto_load
from coremltools.proto import MIL_pb2, Model_pb2

failures = []


def fail(name, msg):
    failures.append(f"{name}: {msg}")
    print(f"FAIL {name}: {msg}")


def spec_of(pkg):
    spec = Model_pb2.Model()
    with open(os.path.join(pkg, "Data", "com.apple.CoreML", "model.mlmodel"), "rb") as f:
        spec.ParseFromString(f.read())
    return spec


def ops_of(spec, fn):
    f = spec.mlProgram.functions[fn]
    return list(f.block_specializations[f.opset].operations)


def name_of(op):
    v = op.attributes.get("name")
    return v.immediateValue.tensor.strings.values[0] if v is not None else op.outputs[0].name


def arg(op, param):
    a = op.inputs[param].arguments[0]
    return a.name if a.WhichOneof("binding") == "name" else None


def scalar(op):
    """The value and dtype of a scalar const op."""
    val = op.attributes["val"]
    t = val.immediateValue.tensor
    dtype = val.type.tensorType.dataType
    if dtype == MIL_pb2.FLOAT16:
        return float(np.frombuffer(t.bytes.values, dtype=np.float16)[0]), np.float16
    return float(t.floats.values[0]), np.float32


def check(name, rel, reported, corpus, fixed_dir):
    orig_pkg = os.path.join(corpus, rel)
    pkg = os.path.join(fixed_dir, os.path.basename(rel))
    if not os.path.isdir(pkg):
        return fail(name, "no fixed copy was written")
    try:
        ct.models.MLModel(pkg, skip_model_load=True)
    except Exception as e:  # noqa: BLE001
        return fail(name, f"MLModel refuses the fixed package: {e}")
    spec = spec_of(pkg)
    try:
        milproto_load(spec, specification_version=spec.specificationVersion,
                      file_weights_dir=os.path.join(pkg, "Data", "com.apple.CoreML", "weights"))
    except Exception as e:  # noqa: BLE001
        fail(name, f"milproto.load refuses the fixed program: {e}")
    orig = spec_of(orig_pkg)
    if orig.description != spec.description:
        fail(name, "the model description changed")
    for fn in orig.mlProgram.functions:
        before, after = ops_of(orig, fn), ops_of(spec, fn)
        f0, f1 = orig.mlProgram.functions[fn], spec.mlProgram.functions[fn]
        if list(f0.inputs) != list(f1.inputs) or list(f0.block_specializations[f0.opset].outputs) != list(
                f1.block_specializations[f1.opset].outputs):
            fail(name, f"{fn}: inputs or outputs changed")
        producer = {o.name: op for op in after for o in op.outputs}
        for op in after:
            if op.type == "pow" and name_of(op) in reported:
                fail(name, f"{fn}: `{name_of(op)}` is still a pow")
        for pow_op in (op for op in before if op.type == "pow" and name_of(op) in reported):
            out = pow_op.outputs[0]
            exp = producer.get(out.name)
            if exp is None or exp.type != "exp" or name_of(exp) != name_of(pow_op) or exp.outputs[0] != out:
                fail(name, f"{fn}: `{out.name}` is not made by an exp keeping the pow's name and type")
                continue
            mul = producer.get(arg(exp, "x"))
            y = arg(pow_op, "y")
            if mul is None or mul.type != "mul" or arg(mul, "x") != y:
                fail(name, f"{fn}: the exp does not read mul(x = {y}, …)")
                continue
            c = producer.get(arg(mul, "y"))
            if c is None or c.type != "const":
                fail(name, f"{fn}: the mul's y is not a const")
                continue
            value, dtype = scalar(c)
            y_dtype = next(o.type.tensorType.dataType for op in before for o in op.outputs if o.name == y) \
                if any(o.name == y for op in before for o in op.outputs) else \
                next(i.type.tensorType.dataType for i in f0.inputs if i.name == y)
            want_dtype = np.float16 if y_dtype == MIL_pb2.FLOAT16 else np.float32
            if dtype is not want_dtype:
                fail(name, f"{fn}: ln 2 is {dtype.__name__}, y is {want_dtype.__name__}")
            if value != float(want_dtype(math.log(2))):
                fail(name, f"{fn}: the constant is {value}, not ln 2 in {want_dtype.__name__}")
            grid = np.linspace(-8, 8, 161).astype(want_dtype)
            got = np.exp(grid * want_dtype(value)).astype(np.float64)
            ref = np.power(2.0, grid.astype(np.float64))
            rel_err = np.max(np.abs(got - ref) / ref)
            tol = 4e-3 if want_dtype is np.float16 else 1e-6
            if rel_err > tol:
                fail(name, f"{fn}: exp(y · ln 2) differs from 2^y by {rel_err:.2e} (> {tol})")
        kept = [(o.type, name_of(o)) for o in after if o.type not in ("exp", "mul", "const")]
        want = [(o.type, name_of(o)) for o in before
                if o.type not in ("exp", "mul", "const") and not (o.type == "pow" and name_of(o) in reported)]
        if kept != want:
            fail(name, f"{fn}: other ops changed: {kept} != {want}")
    if not filecmp.cmp(os.path.join(orig_pkg, "Manifest.json"), os.path.join(pkg, "Manifest.json"), shallow=False):
        fail(name, "Manifest.json changed")
    w0 = os.path.join(orig_pkg, "Data", "com.apple.CoreML", "weights")
    w1 = os.path.join(pkg, "Data", "com.apple.CoreML", "weights")
    if os.path.isdir(w0):
        cmp = filecmp.dircmp(w0, w1)
        if cmp.diff_files or cmp.left_only or cmp.right_only:
            fail(name, "weights changed")
    print(f"ok   {name}: {len(reported)} pow rewritten")


def main():
    corpus, fixed_dir = sys.argv[1], sys.argv[2]
    exp = os.path.join(corpus, "expected")
    checked = 0
    for fn in sorted(os.listdir(exp)):
        rec = json.load(open(os.path.join(exp, fn)))
        reported = {f["op"] for f in rec["findings"] if f["rule"] == "pow-const-base-two"}
        if rec.get("kind") == "mlpackage" and reported:
            check(fn[: -len(".json")], rec["path"], reported, corpus, fixed_dir)
            checked += 1
    if checked == 0:
        fail("corpus", "no package with pow-const-base-two")
    if failures:
        sys.exit(f"{len(failures)} failure(s)")


if __name__ == "__main__":
    main()
