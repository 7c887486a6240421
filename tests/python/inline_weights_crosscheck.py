"""Checks coreml-lint's `inline-weights` fix (issue 47, G2) with coremltools, independently of our
reader.

For every corpus `.mlpackage` whose expected findings include `inline-weights`, the copy in
FIXED_DIR (written by `check --select inline-weights --fix --output FIXED_DIR`) must:
  1. load with `ct.models.MLModel(path, skip_model_load=True)`;
  2. be accepted by coremltools' type-checking MIL re-load (`milproto.load`), weights included;
  3. keep the model description and `Manifest.json`;
  4. hold no const with an immediate tensor of 10 or more elements (coremltools' own rule);
  5. give every const the same value, bit for bit, before and after (the original read with its
     inline values, the fixed one from weight.bin).

Usage: inline_weights_crosscheck.py CORPUS_DIR FIXED_DIR
"""

import json
import os
import sys

import numpy as np
import coremltools as ct

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exact_fix_crosscheck import load, spec_of  # noqa: E402

failures = []


def fail(name, msg):
    failures.append(f"{name}: {msg}")
    print(f"FAIL {name}: {msg}")


def consts(prog):
    out = {}
    for f in prog.functions.values():
        for op in f.operations:
            if op.op_type == "const":
                out[op.name] = np.asarray(op.outputs[0].val)
    return out


def main(corpus, fixed):
    checked = 0
    for rec_name in sorted(os.listdir(os.path.join(corpus, "expected"))):
        rec = json.load(open(os.path.join(corpus, "expected", rec_name)))
        if rec["kind"] != "mlpackage" or not any(f["rule"] == "inline-weights" for f in rec["findings"]):
            continue
        name = os.path.basename(rec["path"])
        orig, out = os.path.join(corpus, rec["path"]), os.path.join(fixed, name)
        if not os.path.isdir(out):
            fail(name, "not written by the fix")
            continue
        ct.models.MLModel(out, skip_model_load=True)
        before_spec, after_spec = spec_of(orig), spec_of(out)
        if before_spec.description != after_spec.description:
            fail(name, "the model description changed")
        if open(os.path.join(orig, "Manifest.json")).read() != open(os.path.join(out, "Manifest.json")).read():
            fail(name, "Manifest.json changed")
        for fn in after_spec.mlProgram.functions.values():
            for op in fn.block_specializations[fn.opset].operations:
                v = op.attributes.get("val") if op.type == "const" else None
                if v is not None and v.WhichOneof("value") == "immediateValue":
                    n = int(np.prod([d.constant.size for d in v.type.tensorType.dimensions]))
                    if n >= 10:
                        fail(name, f"`{op.outputs[0].name}` still holds {n} elements inline")
        before, after = consts(load(before_spec, orig)), consts(load(after_spec, out))
        if before.keys() != after.keys():
            fail(name, f"the consts differ: {sorted(before)} != {sorted(after)}")
        for k in before:
            a, b = before[k], after.get(k)
            if b is None or a.dtype != b.dtype or a.shape != b.shape or a.tobytes() != b.tobytes():
                fail(name, f"`{k}` holds other values after the fix")
        checked += 1
        print(f"ok {name}: {len(before)} consts bit-identical")
    if checked == 0:
        fail("corpus", "no package with inline-weights")
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
