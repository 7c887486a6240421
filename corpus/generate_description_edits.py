#!/usr/bin/env python3
"""Description-only edits of committed corpus models (H14, `description-signature-mismatch*`).

Each fixture is a committed corpus model whose model description (the `ModelDescription` of
`model.mlmodel`, or a compiled model's `metadata.json`) is edited while the program and the
weights stay as converted. No dependencies: the protobuf is edited at the wire level (the
description is field 2 of `Model`), so this runs without coremltools.

- `packages/description-signature-mismatch-features.mlpackage` (from
  `description-signature-mismatch-clean`): input `x` described as fp32 with the ranges
  `[1, 1...32]` (the program's `x` is `tensor<fp16, [1, 64]>`), an input `mask` the program lacks,
  the state `kv_cache` also described as an input, and the output `y` left out of the
  description: one finding each.
- `packages/description-signature-mismatch-functions.mlpackage` (from
  `multifunction-state-full-extent-write-clean`): `defaultFunctionName` `decode` (no such
  function) and no `FunctionDescription` for `prefill`: one finding each
  (`description-signature-mismatch-functions`).
- `compiled/mlmodelc-description-signature-mismatch.mlmodelc` (from
  `mlmodelc-state-full-extent-write-clean`): `metadata.json` describes the state with 256 rows,
  the program declares 257.

    python3 corpus/generate_description_edits.py    # from the repository root
"""
import json
import shutil
import sys
from pathlib import Path

CORPUS = Path(__file__).resolve().parent
FP32 = 65568  # ArrayFeatureType.ArrayDataType.FLOAT32


# --- protobuf wire format: fuzz/wire_variants.py's reader and writer (stdlib only) ---------

sys.path.insert(0, str(CORPUS.parent / "fuzz"))
from wire_variants import Writer, parse as parse_fields  # noqa: E402


def parse(b):
    """A message as a list of [field number, wire type, value] (values replaced in place)."""
    return [list(f) for f in parse_fields(b)]


def encode(fields):
    w = Writer("")
    return b"".join(w.field(num, wt, v) for num, wt, v in fields)


def get(fields, num):
    return [f for f in fields if f[0] == num]


def text(s):
    return s.encode()


# --- the model description -------------------------------------------------------------------

def edit_package(src, dst, edit):
    """Copies package `src` to `dst` and rewrites its ModelDescription with `edit(desc fields)`."""
    src, dst = CORPUS / "packages" / src, CORPUS / "packages" / dst
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst)
    path = dst / "Data" / "com.apple.CoreML" / "model.mlmodel"
    model = parse(path.read_bytes())
    (desc,) = get(model, 2)
    d = parse(desc[2])
    edit(d)
    desc[2] = encode(d)
    path.write_bytes(encode(model))
    print(f"wrote {dst.relative_to(CORPUS)}")


def feature_name(f):
    return get(parse(f[2]), 1)[0][2].decode()


def renamed(f, name):
    fields = parse(f[2])
    get(fields, 1)[0][2] = text(name)
    return [f[0], 2, encode(fields)]


def features_edit(d):
    # ModelDescription: input = 1, output = 10, state = 13.
    inputs = get(d, 1)
    (x,) = [f for f in inputs if feature_name(f) == "x"]
    fd = parse(x[2])
    (ftype,) = get(fd, 3)
    ft = parse(ftype[2])
    (arr,) = get(ft, 5)  # FeatureType.multiArrayType
    a = [f for f in parse(arr[2]) if f[0] not in (2, 21, 31)]
    a.append([2, 0, FP32])  # dataType
    # shapeRange (31): sizeRanges [1, 1] and [1, 32].
    ranges = [[1, 2, encode([[1, 0, 1], [2, 0, 1]])], [1, 2, encode([[1, 0, 1], [2, 0, 32]])]]
    a.append([31, 2, encode(ranges)])
    arr[2] = encode(a)
    ftype[2] = encode(ft)
    x[2] = encode(fd)
    # `mask`: an input the program lacks; `kv_cache`: the program's state, also as an input.
    extra = [renamed(x, "mask"), renamed(x, "kv_cache")]
    at = max(i for i, f in enumerate(d) if f[0] == 1) + 1
    d[at:at] = extra
    d[:] = [f for f in d if f[0] != 10]  # no outputs


def functions_edit(d):
    # ModelDescription: functions = 20 (FunctionDescription: name = 1), defaultFunctionName = 21.
    d[:] = [
        f for f in d
        if f[0] != 21 and not (f[0] == 20 and get(parse(f[2]), 1)[0][2] == b"prefill")
    ]
    d.append([21, 2, text("decode")])


def edit_compiled(src, dst):
    src, dst = CORPUS / "compiled" / src, CORPUS / "compiled" / dst
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst)
    path = dst / "metadata.json"
    meta = json.loads(path.read_text())
    (state,) = [s for s in meta[0]["stateSchema"] if s["name"] == "kv_cache"]
    assert "257" in state["shape"], state
    for key in ("shape", "formattedType"):
        state[key] = state[key].replace("257", "256")
    path.write_text(json.dumps(meta, indent=2) + "\n")
    print(f"wrote {dst.relative_to(CORPUS)}")


def record(src, dst, path, edit, findings):
    """`expected/<dst>.json`: the source model's record (the program is the same) with the edited
    description's states and the findings."""
    rec = json.loads((CORPUS / "expected" / f"{src}.json").read_text())
    rec["path"] = path
    edit(rec["description_states"])
    rec["findings"] = [
        {"rule": rule, "function": function, "op": None, "state": state}
        for rule, function, state in findings
    ]
    (CORPUS / "expected" / f"{dst}.json").write_text(json.dumps(rec, indent=2) + "\n")


def main():
    # Four findings at function `main`, three of them without a state: `tests:` of
    # rules/description-signature-mismatch.yaml expects them (a corpus record holds one per key).
    edit_package("description-signature-mismatch-clean.mlpackage",
                 "description-signature-mismatch-features.mlpackage", features_edit)
    edit_package("multifunction-state-full-extent-write-clean.mlpackage",
                 "description-signature-mismatch-functions.mlpackage", functions_edit)
    rule = "description-signature-mismatch-functions"
    record("multifunction-state-full-extent-write-clean", "description-signature-mismatch-functions",
           "packages/description-signature-mismatch-functions.mlpackage",
           lambda states: states.update(prefill={}),
           [(rule, None, None), (rule, "prefill", None)])
    edit_compiled("mlmodelc-state-full-extent-write-clean.mlmodelc",
                  "mlmodelc-description-signature-mismatch.mlmodelc")
    record("mlmodelc-state-full-extent-write-clean", "mlmodelc-description-signature-mismatch",
           "compiled/mlmodelc-description-signature-mismatch.mlmodelc",
           lambda states: states["main"]["kv_cache"].update(shape=[2, 2, 256, 32]),
           [("description-signature-mismatch", "main", "kv_cache")])


if __name__ == "__main__":
    main()
