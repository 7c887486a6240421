"""Checks coreml-lint's `inline-weights` fix (issue 47, G2) with coremltools, independently of our
reader.

For every corpus `.mlpackage` whose expected findings include `inline-weights`, the copy in
FIXED_DIR (written by `check --select inline-weights --fix --output FIXED_DIR`) must:
  1. load with `ct.models.MLModel(path, skip_model_load=True)`;
  2. be accepted by coremltools' type-checking MIL re-load (`milproto.load`), weights included;
  3. keep the model description and `Manifest.json`; a package that had no weights item gains
     exactly one, as coremltools lists it (a UUID-shaped identifier, author `com.apple.CoreML`,
     description `CoreML Model Weights`, name `weights`, path `com.apple.CoreML/weights`), and
     `weights/weight.bin` exists;
  4. hold no const with an immediate tensor of 10 or more elements (coremltools' own rule);
  5. give every const the same value, bit for bit, before and after (the original read with its
     inline values, the fixed one from weight.bin).

Usage: inline_weights_crosscheck.py CORPUS_DIR FIXED_DIR
"""

import json
import os
import re
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


WEIGHTS_ITEM = {
    "author": "com.apple.CoreML",
    "description": "CoreML Model Weights",
    "name": "weights",
    "path": "com.apple.CoreML/weights",
}
UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def check_manifest(name, orig, out):
    before_text = open(os.path.join(orig, "Manifest.json")).read()
    after_text = open(os.path.join(out, "Manifest.json")).read()
    if not os.path.isfile(os.path.join(out, "Data", "com.apple.CoreML", "weights", "weight.bin")):
        fail(name, "no weights/weight.bin after the fix")
    before, after = json.loads(before_text), json.loads(after_text)
    had = any(e.get("name") == "weights" for e in before["itemInfoEntries"].values())
    if had:
        if before_text != after_text:
            fail(name, "Manifest.json changed")
        return
    added = {k: v for k, v in after["itemInfoEntries"].items() if k not in before["itemInfoEntries"]}
    kept = {k: v for k, v in after["itemInfoEntries"].items() if k in before["itemInfoEntries"]}
    if kept != before["itemInfoEntries"] or {k: v for k, v in after.items() if k != "itemInfoEntries"} != {
        k: v for k, v in before.items() if k != "itemInfoEntries"
    }:
        fail(name, "Manifest.json lost or changed an entry")
    if len(added) != 1 or list(added.values())[0] != WEIGHTS_ITEM or not UUID.match(list(added)[0]):
        fail(name, f"Manifest.json should gain one weights item, gained {added}")
    if after_text != json.dumps(after, indent=4, sort_keys=True) + ("\n" if before_text.endswith("\n") else ""):
        fail(name, "Manifest.json is not written as coremltools writes it (sorted keys, 4-space indent)")


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
        check_manifest(name, orig, out)
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
