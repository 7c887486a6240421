"""Checks coreml-lint's one-row state pad with coremltools, independently of our own reader.

For every corpus package (MIL Builder or converter-made, `corpus/packages` and `corpus/torch`) whose
expected findings include `state-full-extent-write`, the fixed copy in FIXED_DIR must:
  1. load with `ct.models.MLModel(path, skip_model_load=True)`;
  2. be accepted by coremltools' type-checking MIL re-load (`milproto.load`);
  3. differ from the original spec (protobuf -> dict) only by the intended changes: the state's
     shape (MIL inputs and description), the types of the state's values, inserted ops, and
     bindings renamed to inserted values, and removed full-window `slice_update` wrappers whose
     consumers now take the wrapper's `update`;
  4. have the state padded by one row (or, when only wrappers were removed, unchanged) in every
     function and every description;
  5. keep `Manifest.json` and `weights/` byte-identical;
  6. where coremltools made a padded reference (`corpus/reference/`), match its state shapes,
     write windows and function output types.

Usage: fix_crosscheck.py CORPUS_DIR FIXED_DIR
"""

import filecmp
import json
import os
import sys

import coremltools as ct
from coremltools.converters.mil.frontend.milproto.load import load as milproto_load
from coremltools.proto import Model_pb2
from google.protobuf.json_format import MessageToDict

REFERENCES = {
    "state-full-extent-write": "h1-padded-by-coremltools",
    "multifunction-state-full-extent-write": "multifunction-h1-padded-by-coremltools",
}

failures = []


def fail(name, msg):
    failures.append(f"{name}: {msg}")
    print(f"FAIL {name}: {msg}")


def h1_packages(corpus):
    out = []
    exp = os.path.join(corpus, "expected")
    for fn in sorted(os.listdir(exp)):
        rec = json.load(open(os.path.join(exp, fn)))
        if rec.get("kind") != "mlpackage":
            continue
        states = sorted(
            {f["state"] for f in rec["findings"] if f["rule"] == "state-full-extent-write"}
        )
        if states:
            out.append((fn[: -len(".json")], states, rec["path"]))
    return out


def spec_of(pkg):
    """The Model protobuf of a package, parsed from its bytes. (`ct.utils.load_spec` and
    `MLModel` open the package through ModelPackage, which rewrites Manifest.json: never call them
    on the corpus itself.)"""
    spec = Model_pb2.Model()
    with open(model_file(pkg), "rb") as f:
        spec.ParseFromString(f.read())
    return spec


def model_file(pkg):
    return os.path.join(pkg, "Data", "com.apple.CoreML", "model.mlmodel")


def weights_dir(pkg):
    return os.path.join(pkg, "Data", "com.apple.CoreML", "weights")


def weight_files(pkg):
    """The package's weight files (none for a model without weights, e.g. the torch fixtures)."""
    d = weights_dir(pkg)
    return sorted(os.listdir(d)) if os.path.isdir(d) else []


def dims_of_value_type(vt):
    """Dimensions of a MIL ValueType dict (tensor or state of tensor), or None."""
    if "stateType" in vt:
        vt = vt["stateType"]["wrappedType"]
    t = vt.get("tensorType")
    if t is None:
        return None
    return [int(d["constant"]["size"]) if "constant" in d else None for d in t.get("dimensions", [])]


def body(fn):
    blocks = fn["blockSpecializations"]
    return blocks.get(fn["opset"]) or next(iter(blocks.values()))


def op_name(op):
    try:
        return op["attributes"]["name"]["immediateValue"]["tensor"]["strings"]["values"][0]
    except KeyError:
        return None


def state_shapes(d, state):
    """{function: dims} from the MIL inputs, and a list of description shapes."""
    mil = {}
    for fname, fn in d["mlProgram"]["functions"].items():
        for i in fn.get("inputs", []):
            if i["name"] == state:
                mil[fname] = dims_of_value_type(i["type"])
    desc = []
    description = d.get("description", {})
    for feat in description.get("state", []):
        if feat["name"] == state:
            desc.append(("<model>", [int(x) for x in feat["type"]["stateType"]["arrayType"]["shape"]]))
    for f in description.get("functions", []):
        for feat in f.get("state", []):
            if feat["name"] == state:
                desc.append((f["name"], [int(x) for x in feat["type"]["stateType"]["arrayType"]["shape"]]))
    return mil, desc


def const_values(ops):
    vals = {}
    for op in ops:
        if op["type"] != "const":
            continue
        t = op["attributes"]["val"].get("immediateValue", {}).get("tensor", {})
        for key in ("ints", "longInts", "bools"):
            if key in t:
                vals[op["outputs"][0]["name"]] = [int(v) for v in t[key].get("values", [])]
    return vals


def arg_values(op, param, consts):
    arg = op.get("inputs", {}).get(param)
    if arg is None:
        return None
    b = arg["arguments"][0]
    if "name" in b:
        return consts.get(b["name"])
    t = b["value"]["immediateValue"]["tensor"]
    for key in ("ints", "longInts", "bools"):
        if key in t:
            return [int(v) for v in t[key].get("values", [])]
    return None


def windows(d, state):
    """Resolved [begin, end) per axis of every slice_update whose output has the state's shape."""
    out = {}
    for fname, fn in d["mlProgram"]["functions"].items():
        sdims = None
        for i in fn.get("inputs", []):
            if i["name"] == state:
                sdims = dims_of_value_type(i["type"])
        ops = body(fn)["operations"]
        consts = const_values(ops)
        for op in ops:
            if op["type"] != "slice_update" or dims_of_value_type(op["outputs"][0]["type"]) != sdims:
                continue
            begin = arg_values(op, "begin", consts)
            end = arg_values(op, "end", consts)
            if begin is None or end is None:
                continue  # a run-time window: its bindings are compared by check_spec_diff
            bm = arg_values(op, "begin_mask", consts) or [0] * len(sdims)
            em = arg_values(op, "end_mask", consts) or [0] * len(sdims)
            win = []
            for ax, n in enumerate(sdims):
                b = 0 if bm[ax] else (begin[ax] + n if begin[ax] < 0 else begin[ax])
                e = n if em[ax] else (end[ax] + n if end[ax] < 0 else end[ax])
                win.append((max(0, min(b, n)), max(0, min(e, n))))
            out.setdefault(fname, []).append((op_name(op), win))
    return out


def full_window_wrappers(d):
    """{function: {op name: its `update` binding}} of every slice_update whose constant window is
    all of its output (begin 0, end = the output's dims, no masks): the ops the fix may remove."""
    out = {}
    for fname, fn in d["mlProgram"]["functions"].items():
        ops = body(fn)["operations"]
        consts = const_values(ops)
        for op in ops:
            if op["type"] != "slice_update" or "begin_mask" in op.get("inputs", {}) or "end_mask" in op.get("inputs", {}):
                continue
            dims = dims_of_value_type(op["outputs"][0]["type"])
            if arg_values(op, "begin", consts) == [0] * len(dims) and arg_values(op, "end", consts) == dims:
                out.setdefault(fname, {})[op_name(op)] = op["inputs"]["update"]["arguments"][0].get("name")
    return out


def win_list(ws, skip=()):
    return [w for n, w in ws if n not in skip]


def output_types(d):
    out = {}
    for fname, fn in d["mlProgram"]["functions"].items():
        ops = body(fn)["operations"]
        types = {o["name"]: o["type"] for op in ops for o in op.get("outputs", [])}
        types.update({i["name"]: i["type"] for i in fn.get("inputs", [])})
        out[fname] = [types.get(n) for n in body(fn).get("outputs", [])]
    return out


INSERTED_SUFFIXES = ("_unpadded", "_unpadded_begin", "_unpadded_end")


def is_inserted(op, original_names):
    name = op_name(op)
    return name is not None and name not in original_names and (
        name.endswith(INSERTED_SUFFIXES) or "_pad_" in name
    )


def check_spec_diff(name, state, before, after, old, new):
    """Only the intended changes between the two spec dicts."""
    strip = lambda d: {k: v for k, v in d.items() if k not in ("description", "mlProgram")}
    if strip(before) != strip(after):
        fail(name, "fields other than description/mlProgram changed")
    db, da = dict(before.get("description", {})), dict(after.get("description", {}))
    for d in (db, da):
        d.pop("state", None)
        d["functions"] = [{k: v for k, v in f.items() if k != "state"} for f in d.get("functions", [])]
    if db != da:
        fail(name, "the description changed beyond the state features")
    pb, pa = before["mlProgram"], after["mlProgram"]
    if {k: v for k, v in pb.items() if k != "functions"} != {k: v for k, v in pa.items() if k != "functions"}:
        fail(name, "program attributes changed")
    if set(pb["functions"]) != set(pa["functions"]):
        fail(name, "functions added or removed")
        return
    for fname in pb["functions"]:
        fb, fa = pb["functions"][fname], pa["functions"][fname]
        for ib, ia in zip(fb.get("inputs", []), fa.get("inputs", [])):
            if ib != ia and not (ib["name"] == state and dims_of_value_type(ia["type"]) == new):
                fail(name, f"{fname}: input {ib['name']} changed")
        oa = body(fa)["operations"]
        after_names = {op_name(op) for op in oa}
        wrappers = full_window_wrappers(before).get(fname, {})
        removed = {op_name(op) for op in body(fb)["operations"]} - after_names
        for r in removed - set(wrappers):
            fail(name, f"{fname}: op {r} removed, and it is not a full-window wrapper")
        # Consumers of a removed wrapper take what it passed on: its `update`.
        passed_on = {wrappers[r] for r in removed if r in wrappers}
        ob = [op for op in body(fb)["operations"] if op_name(op) not in removed]
        original_names = {op_name(op) for op in ob}
        kept = [op for op in oa if not is_inserted(op, original_names)]
        inserted = {o["name"] for op in oa if is_inserted(op, original_names) for o in op["outputs"]}
        if len(kept) != len(ob):
            fail(name, f"{fname}: {len(ob)} original ops, {len(kept)} kept after the fix")
            continue
        for x, y in zip(ob, kept):
            if x == y:
                continue
            if x["type"] != y["type"] or x.get("attributes") != y.get("attributes"):
                fail(name, f"{fname}: op {op_name(x)} changed type or attributes")
            for ox, oy in zip(x.get("outputs", []), y.get("outputs", [])):
                if ox != oy and not (dims_of_value_type(ox["type"]) == old and dims_of_value_type(oy["type"]) == new):
                    fail(name, f"{fname}: output {ox['name']} changed beyond the pad")
            for param, arg in x.get("inputs", {}).items():
                arg2 = y.get("inputs", {}).get(param)
                if arg == arg2:
                    continue
                for bx, by in zip(arg["arguments"], arg2["arguments"] if arg2 else []):
                    if bx != by and by.get("name") not in inserted | passed_on:
                        fail(name, f"{fname}: {op_name(x)}.{param} rebound to {by}")


def fixed_pairs(corpus, fixed_dir, cases):
    """(name, what, original package, fixed package) of each `(name, what, path in the corpus)`
    case; a case without a fixed copy is a failure."""
    for name, what, rel in cases:
        orig = os.path.join(corpus, rel)
        fixed = os.path.join(fixed_dir, f"{name}.mlpackage")
        if os.path.isdir(fixed):
            yield name, what, orig, fixed
        else:
            fail(name, f"no fixed package at {fixed}")


def check_untouched_and_loads(name, orig, fixed):
    """`Manifest.json` and every weight file unchanged; the fixed package loads."""
    if not filecmp.cmp(os.path.join(orig, "Manifest.json"), os.path.join(fixed, "Manifest.json"), shallow=False):
        fail(name, "Manifest.json changed")
    wb, wa = weights_dir(orig), weights_dir(fixed)
    if weight_files(orig) != weight_files(fixed):
        fail(name, "weight files added or removed")
    for fn in weight_files(orig):
        if not filecmp.cmp(os.path.join(wb, fn), os.path.join(wa, fn), shallow=False):
            fail(name, f"weights/{fn} changed")
    try:
        ct.models.MLModel(fixed, skip_model_load=True)
    except Exception as e:  # noqa: BLE001 - report any loader error
        fail(name, f"MLModel(skip_model_load=True) failed: {e}")


def main():
    corpus, fixed_dir = sys.argv[1], sys.argv[2]
    cases = h1_packages(corpus)
    if not cases:
        fail("corpus", "no package with state-full-extent-write")
    for name, states, orig, fixed in fixed_pairs(corpus, fixed_dir, cases):
        failed_before = len(failures)
        check_untouched_and_loads(name, orig, fixed)
        spec_fixed = spec_of(fixed)
        try:
            milproto_load(spec_fixed, spec_fixed.specificationVersion, weights_dir(fixed))
        except Exception as e:  # noqa: BLE001
            fail(name, f"milproto.load rejected it: {e}")
        before = MessageToDict(spec_of(orig))
        after = MessageToDict(spec_fixed)
        for state in states:
            mil_b, _ = state_shapes(before, state)
            mil_a, desc_a = state_shapes(after, state)
            old = next(iter(mil_b.values()))
            new = next(iter(mil_a.values()))
            removed_ops = {
                op_name(op)
                for fn in before["mlProgram"]["functions"].values()
                for op in body(fn)["operations"]
            } - {
                op_name(op)
                for fn in after["mlProgram"]["functions"].values()
                for op in body(fn)["operations"]
            }
            unwrap_only = old == new and removed_ops
            if not unwrap_only and (sum(1 for x, y in zip(old, new) if x != y) != 1 or sum(new) != sum(old) + 1):
                fail(name, f"{state}: {old} -> {new} is not a one-row pad (nor a wrapper removal)")
            for fname, dims in mil_a.items():
                if dims != new:
                    fail(name, f"{state}: function {fname} has {dims}, not {new}")
            if not desc_a or any(d != new for _, d in desc_a):
                fail(name, f"{state}: descriptions {desc_a}, expected all {new}")
            wb_, wa_ = windows(before, state), windows(after, state)
            for fname, ws in wb_.items():
                for w in win_list(ws, removed_ops):
                    if w not in win_list(wa_.get(fname, [])):
                        fail(name, f"{fname}: window {w} moved ({wa_.get(fname)})")
            check_spec_diff(name, state, before, after, old, new)
        if output_types(before) != output_types(after):
            fail(name, "function output types changed")
        ref = REFERENCES.get(name)
        if ref:
            refd = MessageToDict(spec_of(os.path.join(corpus, "reference", f"{ref}.mlpackage")))
            for state in states:
                if state_shapes(refd, state) != state_shapes(after, state):
                    fail(name, f"state shapes differ from {ref}: {state_shapes(refd, state)} vs {state_shapes(after, state)}")
                wr = {f: win_list(w) for f, w in windows(refd, state).items()}
                wf = {f: win_list(w) for f, w in windows(after, state).items()}
                if wr != wf:
                    fail(name, f"windows differ from {ref}: {windows(refd, state)} vs {windows(after, state)}")
            if output_types(refd) != output_types(after):
                fail(name, f"output types differ from {ref}")
        if len(failures) == failed_before:
            print(f"ok   {name}")
    finish("fix cross-check", len(cases))


def finish(what, packages):
    """Exits 1 when any check failed, else says how many packages passed."""
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print(f"{what} passed ({packages} packages)")


if __name__ == "__main__":
    main()
