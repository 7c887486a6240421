"""Checks coreml-lint's exact value fixes (issue 44) with coremltools, independently of our reader.

For every corpus `.mlpackage` whose expected findings include `gather-float-indices`,
`affine-dequantize-int8` or `mask-nonfinite-const` (pipelines: each ML-program stage), the copy in
FIXED_DIR (written by `check --select RULES --fix --unsafe-fixes --output FIXED_DIR`) must:
  1. load with `ct.models.MLModel(path, skip_model_load=True)`;
  2. be accepted by coremltools' type-checking MIL re-load (`milproto.load`), weights included;
  3. keep the model description and `Manifest.json`, and every weight file's size;
  gather-float-indices:
  4. every gather / gather_along_axis / gather_nd reads int32 indices;
  affine-dequantize-int8:
  5. no constexpr_affine_dequantize has int8 data; each one dequantizes (coremltools'
     `materialized_val_inference`) to bit-identical weights before and after;
  mask-nonfinite-const:
  6. each reported const holds only finite values, equal to the original's where those were finite
     and -1e4 where they were -inf; no op has a non-finite inline float argument.

Usage: exact_fix_crosscheck.py CORPUS_DIR FIXED_DIR
"""

import filecmp
import json
import os
import sys

import numpy as np
import coremltools as ct
from coremltools.converters.mil.frontend.milproto.load import load as milproto_load
from coremltools.converters.mil.mil import types
from coremltools.proto import Model_pb2

RULES = ("gather-float-indices", "affine-dequantize-int8", "mask-nonfinite-const")
GATHERS = ("gather", "gather_along_axis", "gather_nd")

failures = []


def fail(name, msg):
    failures.append(f"{name}: {msg}")
    print(f"FAIL {name}: {msg}")


def spec_of(pkg):
    spec = Model_pb2.Model()
    with open(os.path.join(pkg, "Data", "com.apple.CoreML", "model.mlmodel"), "rb") as f:
        spec.ParseFromString(f.read())
    return spec


def programs(spec):
    """The ML-program specs of a model: itself, or each stage of a pipeline (depth first)."""
    kind = spec.WhichOneof("Type")
    if kind == "mlProgram":
        return [spec]
    if kind == "pipeline":
        return [p for m in spec.pipeline.models for p in programs(m)]
    return []


def load(spec, pkg):
    weights = os.path.join(pkg, "Data", "com.apple.CoreML", "weights")
    return milproto_load(spec, specification_version=spec.specificationVersion, file_weights_dir=weights)


def ops(prog):
    for f in prog.functions.values():
        yield from walk(f.operations)


def walk(operations):
    for op in operations:
        yield op
        for b in op.blocks:
            yield from walk(b.operations)


def check_gathers(name, prog):
    n = 0
    for op in ops(prog):
        if op.op_type in GATHERS:
            n += 1
            if op.indices.dtype != types.int32:
                fail(name, f"`{op.name}` reads {types.builtin_to_string(op.indices.dtype)} indices")
    return n


def dequantized(prog):
    return {op.name: op.materialized_val_inference() for op in ops(prog) if op.op_type == "constexpr_affine_dequantize"}


def check_affine(name, before, after):
    for op in ops(after):
        if op.op_type == "constexpr_affine_dequantize" and op.quantized_data.dtype == types.int8:
            fail(name, f"`{op.name}` still has int8 data")
    a, b = dequantized(before), dequantized(after)
    if a.keys() != b.keys():
        return fail(name, f"the affine weights differ: {sorted(a)} != {sorted(b)}")
    for k in a:
        if a[k].dtype != b[k].dtype or a[k].shape != b[k].shape or a[k].tobytes() != b[k].tobytes():
            fail(name, f"`{k}` dequantizes differently after the fix")
    return len(a)


def float_values(op):
    """(label, array) of every float constant an op holds: a const's value, inline arguments."""
    out = []
    if op.op_type == "const":
        v = op.outputs[0].val
        if isinstance(v, (np.ndarray, np.generic, float)) and np.issubdtype(np.asarray(v).dtype, np.floating):
            out.append((op.name, np.asarray(v)))
    return out


def check_mask(name, before, after, reported):
    finals = {op.name: op for op in ops(after)}
    originals = {op.name: op for op in ops(before)}
    checked = 0
    for label in reported:
        op, orig = finals.get(label), originals.get(label)
        if op is None or orig is None:
            # An inline operand: no const of that name; any non-finite const is caught below.
            continue
        for (_, new), (_, old) in zip(float_values(op), float_values(orig)):
            checked += 1
            if not np.all(np.isfinite(new)):
                fail(name, f"`{label}` still holds a non-finite value")
            want = np.where(np.isfinite(old), old, np.where(old < 0, -1e4, np.where(old > 0, 1e4, 0))).astype(old.dtype)
            if want.tobytes() != new.astype(old.dtype).tobytes():
                fail(name, f"`{label}`: the finite values changed or -inf did not become -1e4")
    for op in ops(after):
        for label, v in float_values(op):
            if not np.all(np.isfinite(v)):
                fail(name, f"`{label}` holds a non-finite value after the fix")
        if op.op_type != "const":
            for inp in op.inputs.values():
                vs = inp if isinstance(inp, (list, tuple)) else [inp]
                for var in vs:
                    if getattr(var, "op", None) is None and var.val is not None:
                        arr = np.asarray(var.val)
                        if np.issubdtype(arr.dtype, np.floating) and not np.all(np.isfinite(arr)):
                            fail(name, f"`{op.name}` has a non-finite inline argument")
    return checked


def check(name, rel, reported, corpus, fixed_dir):
    orig_pkg = os.path.join(corpus, rel)
    pkg = os.path.join(fixed_dir, os.path.basename(rel))
    failed_before = len(failures)
    if not os.path.isdir(pkg):
        return fail(name, "no fixed copy was written")
    # Before MLModel, which re-writes Manifest.json in its own layout.
    if not filecmp.cmp(os.path.join(orig_pkg, "Manifest.json"), os.path.join(pkg, "Manifest.json"), shallow=False):
        fail(name, "Manifest.json changed")
    try:
        ct.models.MLModel(pkg, skip_model_load=True)
    except Exception as e:  # noqa: BLE001
        return fail(name, f"MLModel refuses the fixed package: {e}")
    spec0, spec1 = spec_of(orig_pkg), spec_of(pkg)
    if spec0.description != spec1.description:
        fail(name, "the model description changed")
    w0 = os.path.join(orig_pkg, "Data", "com.apple.CoreML", "weights")
    if os.path.isdir(w0):
        for fn in os.listdir(w0):
            a, b = os.path.join(w0, fn), os.path.join(pkg, "Data", "com.apple.CoreML", "weights", fn)
            if os.path.getsize(a) != os.path.getsize(b):
                fail(name, f"weights/{fn} changed size")
    said = []
    for p0, p1 in zip(programs(spec0), programs(spec1)):
        try:
            after = load(p1, pkg)
        except Exception as e:  # noqa: BLE001
            fail(name, f"milproto.load refuses the fixed program: {e}")
            continue
        if "gather-float-indices" in reported:
            said.append(f"{check_gathers(name, after)} gather(s) read int32")
        if "affine-dequantize-int8" in reported:
            said.append(f"{check_affine(name, load(p0, orig_pkg), after)} weight(s) dequantize bit-identically")
        if "mask-nonfinite-const" in reported:
            try:
                before = load(p0, orig_pkg)
            except Exception as e:  # noqa: BLE001
                fail(name, f"milproto.load refuses the original: {e}")
                continue
            said.append(f"{check_mask(name, before, after, reported['mask-nonfinite-const'])} mask const(s) finite")
    if len(failures) == failed_before:
        print(f"ok   {name}: {'; '.join(said)}")


def main():
    corpus, fixed_dir = sys.argv[1], sys.argv[2]
    exp = os.path.join(corpus, "expected")
    checked = {r: 0 for r in RULES}
    for fn in sorted(os.listdir(exp)):
        rec = json.load(open(os.path.join(exp, fn)))
        if rec.get("kind") not in ("mlpackage", "pipeline"):
            continue
        reported = {}
        for f in rec["findings"]:
            if f["rule"] in RULES:
                reported.setdefault(f["rule"], set()).add(f.get("op"))
        if reported:
            check(fn[: -len(".json")], rec["path"], reported, corpus, fixed_dir)
            for r in reported:
                checked[r] += 1
    for r, n in checked.items():
        if n == 0:
            fail("corpus", f"no package with {r}")
    if failures:
        sys.exit(f"{len(failures)} failure(s)")


if __name__ == "__main__":
    main()
