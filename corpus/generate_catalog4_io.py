#!/usr/bin/env python3
"""Converter-made models for catalog-4 hazards G2 and G5 (FIELD-HAZARDS-4.md), each with the clean
twins the catalog names.

- `inline-weights-*` (G2): coremltools puts every const of 10 or more elements in weight.bin, so
  the hazard is written the way other writers (ONNX Runtime's Core ML provider) write it: the
  converted package's file-backed `const` values are moved into the protobuf as immediate values
  (fp16 `bytes`, the member coremltools' own writer uses for fp16), and weight.bin is rebuilt with
  the records that stay (the record layout coremltools writes; no record left unreferenced).
  `-large`: one [256, 256] fp16 weight (128 KiB) inline, the rest in weight.bin; `-many`: ten
  [128, 128] weights (32 KiB each, 320 KiB in all) inline, only the biases in weight.bin;
  `-no-blob`: the large model with every const inline, so the package has no weight.bin and its
  Manifest no weights item (`--fix` must create both); twins:
  `-small-clean` (two [64, 64] weights inline, 16 KiB in all) and `-blob-clean` (the large model as
  converted, every weight in weight.bin).
  `catalog4/inline-weights-large.mlmodelc` and `catalog4/inline-weights-large.mil`: the compiled
  and text forms (Linux cannot compile: `model.mil` written here as coremlc spells an inline
  weight, every element a hex float; the bare `.mil` has every weight inline, as it has no
  weight file beside it).
- `scatter-cache-*` (G5): `cache.scatter(2, index, k)` on a cache passed in and returned (a cache
  carried through I/O), converted (`tile(reshape(pos))` → `scatter_along_axis(data = k_cache)`);
  twin: a concat cache (`cat(cache[:, :, 1:], k)`). coremltools cannot convert a scatter into a
  registered buffer, so the state form is written with the MIL builder (`read_state` →
  `scatter_along_axis` → `coreml_update_state`), twin: `slice_update` at a constant window.

- `nms-pipeline-*` (G3): an ultralytics-style pipeline: a converted detector (`confidence` scores
  [16, C] and box `coordinates` [16, 4] from a strided conv) followed by a `nonMaximumSuppression`
  model built with coremltools' proto API as ultralytics' exporter builds it (its inputs the
  detector's outputs plus the two thresholds, one string label per class). `-3`: 3 classes;
  twins `-80-clean` (80 classes) and `-padded-clean` (3 classes padded with 77 zero columns, 80
  labels); bad input: `-missing-input` (the NMS reads `scores`, which no stage writes) and
  `-no-labels` (80 classes, no labels), `-padded-short-labels` (padded to 80, the 3 labels kept); `-3-classifier`: the 3-class
  pipeline held by a `PipelineClassifier`.

Writes only `packages/` and `expected/` files with those prefixes and `catalog4/` (record format of
`generate.py`). Each record's findings are computed here from the saved spec, independently of the
linter (the `*_findings` functions below).

Run: `/work/venv-torch/bin/python corpus/generate_catalog4_io.py` (torch 2.7 + coremltools 9.0).
Seeded and byte-stable (`generate.stabilize`).
"""

from __future__ import annotations

import json
import os
import struct
import sys
import warnings
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn

os.environ.setdefault("TQDM_DISABLE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import coremltools as ct  # noqa: E402
from coremltools.converters.mil import Builder as mb  # noqa: E402
from coremltools.converters.mil.mil import types  # noqa: E402
from coremltools.proto import MIL_pb2, Model_pb2  # noqa: E402

from generate import (  # noqa: E402
    CORPUS,
    EXPECTED,
    finding,
    fn_ops,
    op_name,
    package_record,
    pkg,
    reset,
    save_model,
    stabilize,
    write_expected,
)
from generate_catalog3 import all_findings as catalog3_findings  # noqa: E402

warnings.filterwarnings("ignore")

PREFIXES = ("inline-weights", "scatter-cache", "nms-pipeline")
IOS18 = ct.target.iOS18
CATALOG4 = CORPUS / "catalog4"
WEIGHTS = "Data/com.apple.CoreML/weights/weight.bin"
MODEL = "Data/com.apple.CoreML/model.mlmodel"
# G2's thresholds (FIELD-HAZARDS-4): one inline tensor over 64 KiB, or more than 256 KiB in all.
ONE_LIMIT = 64 * 1024
TOTAL_LIMIT = 256 * 1024
# Cache geometry for G5: [batch, heads, rows, head dim].
CACHE = (1, 2, 32, 64)

# ---------------------------------------------------------------------------------------------------
# PyTorch modules


class Mlp(nn.Module):
    """`widths[0]` → … → `widths[-1]` linears with relus between."""

    def __init__(self, widths):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(widths, widths[1:]))

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i + 1 < len(self.layers):
                x = torch.relu(x)
        return x


class IoCache(nn.Module):
    """A KV cache passed in and returned: `scatter` writes row `pos`, or `concat` shifts in the row."""

    def __init__(self, kind):
        super().__init__()
        self.kind = kind

    def forward(self, k_cache, k, pos):
        if self.kind == "scatter":
            index = pos.long().reshape(1, 1, 1, 1).expand(1, CACHE[1], 1, CACHE[3])
            cache = k_cache.scatter(2, index, k)
        else:
            cache = torch.cat([k_cache[:, :, 1:], k], 2)
        return (cache * 0.5).sum(2), cache


class Detector(nn.Module):
    """A strided conv over a [1, 3, 32, 32] image: 16 boxes, each with `classes` sigmoid scores
    (zero columns appended up to `padded` when given) and 4 coordinates."""

    def __init__(self, classes, padded=None):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 8, stride=8)
        self.cls = nn.Linear(8, classes)
        self.box = nn.Linear(8, 4)
        self.classes, self.padded = classes, padded

    def forward(self, x):
        f = self.conv(x).reshape(8, 16).transpose(0, 1)
        conf = torch.sigmoid(self.cls(f))
        if self.padded:
            conf = torch.cat([conf, torch.zeros(16, self.padded - self.classes)], 1)
        return conf, self.box(f)


def traced(module, *examples):
    torch.manual_seed(0)
    module.eval()
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn_like(p) * 0.05)
    return torch.jit.trace(module, examples)


def tensor(name, shape, dtype=np.float16):
    return ct.TensorType(name=name, shape=shape, dtype=dtype)


def convert(model, inputs, states=None, outputs=None):
    kwargs = {"outputs": outputs} if outputs else {}
    return ct.convert(model, inputs=inputs, states=states, convert_to="mlprogram",
                      minimum_deployment_target=IOS18, compute_precision=ct.precision.FLOAT16, **kwargs)


def mlp(widths):
    return convert(traced(Mlp(widths), torch.zeros((1, widths[0]))), [tensor("x", (1, widths[0]))],
                   outputs=[tensor("y", None)])


def state_program(kind):
    """read_state → scatter_along_axis (or slice_update at row 0) → coreml_update_state."""

    @mb.program(input_specs=[mb.StateTensorSpec(CACHE, dtype=types.fp16),
                             mb.TensorSpec((1, CACHE[1], 1, CACHE[3]), dtype=types.fp16),
                             mb.TensorSpec((1,), dtype=types.int32)],
                opset_version=IOS18)
    def prog(k_cache, k, pos):
        old = mb.read_state(input=k_cache)
        if kind == "scatter":
            index = mb.tile(x=mb.reshape(x=pos, shape=[1, 1, 1, 1]), reps=[1, CACHE[1], 1, CACHE[3]])
            new = mb.scatter_along_axis(data=old, indices=index, updates=k, axis=2, mode="update")
        else:
            new = mb.slice_update(x=old, update=k, begin=[0, 0, 0, 0], end=[1, CACHE[1], 1, CACHE[3]])
        cur = mb.coreml_update_state(state=k_cache, value=new)
        return mb.reduce_sum(x=mb.mul(x=cur, y=np.float16(0.5)), axes=[2], name="y")

    return ct.convert(prog, convert_to="mlprogram", minimum_deployment_target=IOS18,
                      compute_precision=ct.precision.FLOAT16)


def nms_pipeline(detector, labels, confidence_input=None):
    """`detector` followed by a nonMaximumSuppression model, as ultralytics' exporter builds it."""
    spec = detector.get_spec()
    out0, out1 = spec.description.output
    nms_spec = Model_pb2.Model()
    nms_spec.specificationVersion = 5
    for i in range(2):
        nms_spec.description.input.add().ParseFromString(spec.description.output[i].SerializeToString())
        nms_spec.description.output.add().ParseFromString(spec.description.output[i].SerializeToString())
    nms_spec.description.output[0].name = "confidence_out"
    nms_spec.description.output[1].name = "coordinates_out"
    for name in ("iouThreshold", "confidenceThreshold"):
        f = nms_spec.description.input.add()
        f.name = name
        f.type.doubleType.SetInParent()
    nms = nms_spec.nonMaximumSuppression
    nms.confidenceInputFeatureName = confidence_input or out0.name
    nms.coordinatesInputFeatureName = out1.name
    nms.confidenceOutputFeatureName = "confidence_out"
    nms.coordinatesOutputFeatureName = "coordinates_out"
    nms.iouThresholdInputFeatureName = "iouThreshold"
    nms.confidenceThresholdInputFeatureName = "confidenceThreshold"
    nms.iouThreshold = 0.45
    nms.confidenceThreshold = 0.25
    nms.pickTop.perClass = True
    nms.stringClassLabels.vector.extend(labels)
    nms_model = ct.models.MLModel(nms_spec, skip_model_load=True)
    pipe = ct.models.pipeline.Pipeline(
        input_features=[("image", ct.models.datatypes.Array(1, 3, 32, 32)),
                        ("iouThreshold", ct.models.datatypes.Double()),
                        ("confidenceThreshold", ct.models.datatypes.Double())],
        output_features=["confidence_out", "coordinates_out"])
    pipe.add_model(detector)
    pipe.add_model(nms_model)
    pipe.spec.description.input[0].ParseFromString(spec.description.input[0].SerializeToString())
    pipe.spec.description.output[0].ParseFromString(nms_spec.description.output[0].SerializeToString())
    pipe.spec.description.output[1].ParseFromString(nms_spec.description.output[1].SerializeToString())
    pipe.spec.specificationVersion = 9
    return ct.models.MLModel(pipe.spec, weights_dir=detector.weights_dir, skip_model_load=True)


def detector(classes, padded=None):
    x = torch.zeros((1, 3, 32, 32))
    return convert(traced(Detector(classes, padded), x), [tensor("image", (1, 3, 32, 32))],
                   outputs=[tensor("confidence", None, np.float32), tensor("coordinates", None, np.float32)])


# ---------------------------------------------------------------------------------------------------
# Weight edits: file-backed consts made immediate, weight.bin rebuilt with the records that stay


def blob_values(spec):
    """Every BLOBFILE Value of the program's consts, in program order: (op, value)."""
    out = []
    for name in sorted(spec.mlProgram.functions):
        for op in fn_ops(spec, name):
            if op.type == "const" and op.attributes["val"].WhichOneof("value") == "blobFileValue":
                out.append((op, op.attributes["val"]))
    return out


def payload(blob, offset):
    sentinel, code, size, data = struct.unpack_from("<IIQQ", blob, offset)
    assert sentinel == 0xDEADBEEF, offset
    return code, blob[data: data + size]


def inline(path, move):
    """Makes the consts `move(op, nbytes)` picks immediate (fp16 `bytes`), keeps the others in a
    rebuilt weight.bin (or none when none stay)."""
    model_file = path / MODEL
    spec = Model_pb2.Model()
    spec.ParseFromString(model_file.read_bytes())
    blob = (path / WEIGHTS).read_bytes()
    kept = []
    for op, value in blob_values(spec):
        code, data = payload(blob, value.blobFileValue.offset)
        if move(op, len(data)):
            assert value.type.tensorType.dataType == MIL_pb2.FLOAT16 and code == 1
            value.ClearField("blobFileValue")
            value.immediateValue.tensor.bytes.values = data
        else:
            kept.append((value, code, data))
    out = bytearray(struct.pack("<II", len({id(v) for v, _, _ in kept}), 2) + bytes(56))
    for value, code, data in kept:
        offset = len(out)
        out += struct.pack("<IIQQQ", 0xDEADBEEF, code, len(data), offset + 64, 0) + bytes(32)
        out += data
        out += bytes(-len(out) % 64)
        value.blobFileValue.offset = offset
    model_file.write_bytes(spec.SerializeToString(deterministic=True))
    if kept:
        # The file ends right after the last payload (no tail pad).
        last = kept[-1]
        end = last[0].blobFileValue.offset + 64 + len(last[2])
        (path / WEIGHTS).write_bytes(bytes(out[:end]))
    else:
        (path / WEIGHTS).unlink()
    return path


# ---------------------------------------------------------------------------------------------------
# Hand-written compiled and text forms of the large inline model


def hex_float(x):
    """A float as coremlc spells it (`0x1.d040b6p-6`, `0x0p+0`)."""
    x = float(x)
    if x == 0.0:
        return "-0x0p+0" if str(x).startswith("-") else "0x0p+0"
    h = x.hex()  # e.g. 0x1.d040b60000000p-6
    mant, exp = h.split("p")
    if "." in mant:
        mant = mant.rstrip("0").rstrip(".")
    return f"{mant}p{int(exp):+d}"


def mil_text(path, inline_all=False):
    """The program of package `path` in compiled text MIL (ios18 dialect), inline fp16 weights
    spelled element by element (with `inline_all`, the file-backed ones too)."""
    spec = Model_pb2.Model()
    spec.ParseFromString((path / MODEL).read_bytes())
    blob = (path / WEIGHTS).read_bytes() if (path / WEIGHTS).exists() else b""
    fn = spec.mlProgram.functions["main"]
    lines = []

    def ty(t):
        dt = {MIL_pb2.FLOAT16: "fp16", MIL_pb2.FLOAT32: "fp32", MIL_pb2.INT32: "int32"}[t.dataType]
        return f"tensor<{dt}, [{', '.join(str(d.constant.size) for d in t.dimensions)}]>"

    def value(v):
        t = v.type.tensorType
        if v.WhichOneof("value") == "blobFileValue" and not inline_all:
            return (f'{ty(t)}(BLOBFILE(path = string("{v.blobFileValue.fileName}"), '
                    f'offset = uint64({v.blobFileValue.offset})))')
        if v.WhichOneof("value") == "blobFileValue":
            data = np.frombuffer(payload(blob, v.blobFileValue.offset)[1], dtype=np.float16)
        else:
            data = np.frombuffer(v.immediateValue.tensor.bytes.values, dtype=np.float16)
        return f"{ty(t)}([{', '.join(hex_float(x) for x in data)}])"

    for op in fn_ops(spec, "main"):
        out = op.outputs[0]
        args = [(k, a.arguments[0].name) for k, a in sorted(op.inputs.items())]
        attrs = [("name", f'string("{op_name(op)}")')]
        if op.type == "const":
            attrs.append(("val", value(op.attributes["val"])))
        call = ", ".join(f"{k} = {v}" for k, v in args)
        block = ", ".join(f"{k} = {v}" for k, v in attrs)
        lines.append(f"            {ty(out.type.tensorType)} {out.name} = {op.type}({call})[{block}];")
    inputs = ", ".join(f"{ty(i.type.tensorType)} {i.name}" for i in fn.inputs)
    outputs = ", ".join(fn.block_specializations["CoreML8"].outputs)
    return ("program(1.3)\n"
            '[buildInfo = dict<string, string>({{"coremlc-component-MIL", "3520.4.1"}, '
            '{"coremlc-version", "3520.5.1"}, {"coremltools-version", "9.0"}})]\n'
            "{\n"
            f"    func main<ios18>({inputs}) {{\n" + "\n".join(lines) + f"\n        }} -> ({outputs});\n}}")


def write_compiled(path, name):
    """catalog4/<name>.mlmodelc (model.mil, metadata.json, weights/weight.bin) and <name>.mil."""
    CATALOG4.mkdir(parents=True, exist_ok=True)
    text = mil_text(path)
    root = CATALOG4 / f"{name}.mlmodelc"
    reset(root)
    (root / "weights").mkdir(parents=True)
    (root / "model.mil").write_text(text)
    (root / "weights" / "weight.bin").write_bytes((path / WEIGHTS).read_bytes())
    spec = ct.utils.load_spec(str(path))

    def schema(f):
        shape = [d for d in f.type.multiArrayType.shape]
        return {"hasShapeFlexibility": "0", "isOptional": "0", "dataType": "Float16",
                "formattedType": f"MultiArray (Float16 {' × '.join(map(str, shape))})",
                "shortDescription": "", "shape": str(shape), "name": f.name, "type": "MultiArray"}

    meta = {
        "metadataOutputVersion": "3.0", "specificationVersion": spec.specificationVersion,
        "modelType": {"name": "MLModelType_mlProgram"}, "computePrecision": "Mixed (Float16, Int32)",
        "isUpdatable": "0",
        "availability": {"macOS": "15.0", "tvOS": "18.0", "visionOS": "2.0", "watchOS": "11.0",
                         "iOS": "18.0", "macCatalyst": "18.0"},
        "inputSchema": [schema(f) for f in spec.description.input],
        "outputSchema": [schema(f) for f in spec.description.output],
        "stateSchema": [], "modelParameters": [],
        "userDefinedMetadata": {"com.github.apple.coremltools.version": "9.0"},
        "mlProgramOperationTypeHistogram": {"Ios16.relu": 1, "Ios17.linear": 2},
        "generatedClassName": name.replace("-", "_"), "method": "predict",
    }
    (root / "metadata.json").write_text(json.dumps([meta], indent=2, ensure_ascii=False) + "\n")
    (CATALOG4 / f"{name}.mil").write_text(mil_text(path, inline_all=True))


# ---------------------------------------------------------------------------------------------------
# Expected findings, from the saved spec


def inline_bytes(value):
    t = value.immediateValue.tensor
    which = t.WhichOneof("value")
    if which == "bytes":
        return len(t.bytes.values)
    if which in ("floats", "ints"):
        return 4 * len(getattr(t, which).values)
    if which in ("longInts", "doubles"):
        return 8 * len(getattr(t, which).values)
    return 0


def inline_findings(spec, path):
    """inline-weights: the immediate tensor values of every op (attributes and arguments) total more
    than 256 KiB or one exceeds 64 KiB: one finding, at the op holding the largest (first on ties)."""
    sizes = []
    for name in sorted(spec.mlProgram.functions):
        for op in fn_ops(spec, name):
            values = list(op.attributes.values())
            values += [a.value for arg in op.inputs.values() for a in arg.arguments
                       if a.WhichOneof("binding") == "value"]
            for v in values:
                if v.WhichOneof("value") == "immediateValue" and v.immediateValue.WhichOneof("value") == "tensor":
                    sizes.append((inline_bytes(v), name, op_name(op)))
    if not sizes:
        return []
    total = sum(s for s, _, _ in sizes)
    largest = max(s for s, _, _ in sizes)
    if total <= TOTAL_LIMIT and largest <= ONE_LIMIT:
        return []
    _, fn, op = next(x for x in sizes if x[0] == largest)
    return [finding("inline-weights", fn, op)]


def scatter_findings(spec):
    """scatter-into-cache: a scatter whose data is a state read (written back) or a function input
    that the function also returns (through the scatter)."""
    out = []
    for name in sorted(spec.mlProgram.functions):
        fn = spec.mlProgram.functions[name]
        ops = fn_ops(spec, name)
        producer = {o.name: op for op in ops for o in op.outputs}
        inputs = {i.name for i in fn.inputs}
        returned = set(fn.block_specializations[fn.opset].outputs)
        for op in ops:
            if op.type not in ("scatter", "scatter_nd", "scatter_along_axis"):
                continue
            data = op.inputs["data"].arguments[0].name
            src = producer.get(data)
            if src is not None and src.type == "read_state":
                out.append(finding("scatter-into-cache", name, op_name(op)))
            elif data in inputs and op.outputs[0].name in returned:
                out.append(finding("scatter-into-cache", name, op_name(op)))
    return out


def full_extent_findings(spec):
    """state-full-extent-write: a state write whose data is not a slice_update (a scatter writes the
    whole state), at the write."""
    out = []
    for name in sorted(spec.mlProgram.functions):
        ops = fn_ops(spec, name)
        producer = {o.name: op for op in ops for o in op.outputs}
        for op in ops:
            if op.type == "write_state":
                src = producer.get(op.inputs["data"].arguments[0].name)
                if src is None or src.type != "slice_update":
                    state = op.inputs["input"].arguments[0].name
                    out.append(finding("state-full-extent-write", name, op_name(op), state))
    return out


def nms_findings(spec):
    """nms-class-count and nms-stage-inputs of a pipeline: each NMS stage against the program stage
    returning its confidence input (its last axis is the class count), at the op returning it."""
    out = []
    stages = stages_of(spec)
    for i, m in enumerate(stages):
        if m.WhichOneof("Type") != "nonMaximumSuppression":
            continue
        nms = m.nonMaximumSuppression
        labels = len(nms.stringClassLabels.vector) or len(nms.int64ClassLabels.vector)
        feeding = [(j, p) for j, p in enumerate(stages) if p.WhichOneof("Type") == "mlProgram"
                   and nms.confidenceInputFeatureName in main_block(p).outputs]
        if not feeding:
            out.append(pipe_finding("nms-stage-inputs", 0, None))
            continue
        j, p = feeding[0]
        op = next(o for o in fn_ops(p, "main") if nms.confidenceInputFeatureName in [x.name for x in o.outputs])
        t = next(x for x in op.outputs if x.name == nms.confidenceInputFeatureName).type.tensorType
        classes = t.dimensions[-1].constant.size
        if classes % 80:
            out.append(pipe_finding("nms-class-count", j, op_name(op)))
        if labels != classes:
            out.append(pipe_finding("nms-stage-inputs", j, op_name(op)))
    return out


def main_block(program_model):
    fn = program_model.mlProgram.functions["main"]
    return fn.block_specializations[fn.opset]


def pipe_finding(rule, position, op):
    return {"rule": rule, "sub_model": [position], "function": "main", "op": op, "state": None}


def pipeline_record(path, name):
    """`expected/<name>.json` of a pipeline: its program stages as coremltools reads them (the NMS
    stage has no program) and the findings, each with its sub-model's position."""
    spec = Model_pb2.Model()
    spec.ParseFromString((path / MODEL).read_bytes())
    subs = []
    findings = []
    for i, m in enumerate(stages_of(spec)):
        if m.WhichOneof("Type") != "mlProgram":
            continue
        rec = package_record_of_spec(m)
        subs.append({"position": [i], "name": None, **rec})
        # Findings of the other rules, as for a package (a program stage on its own).
        for f in catalog3_stage_findings(m, path):
            findings.append({**f, "sub_model": [i]})
    findings += nms_findings(spec)
    findings.sort(key=lambda f: (f["sub_model"], f["rule"], f["function"] or "", f["op"] or "", f["state"] or ""))
    write_expected(name, {
        "kind": "pipeline",
        "path": str(path.relative_to(CORPUS)),
        "pipeline_kind": spec.WhichOneof("Type"),
        "specification_version": spec.specificationVersion,
        "sub_models": subs,
        "findings": findings,
    })


def package_record_of_spec(m):
    from generate import description_states, program_states
    functions = {}
    for fn in sorted(m.mlProgram.functions):
        ops = fn_ops(m, fn)
        hist = {}
        for op in ops:
            hist[op.type] = hist.get(op.type, 0) + 1
        functions[fn] = {"op_count": len(ops), "histogram": dict(sorted(hist.items()))}
    return {"specification_version": m.specificationVersion, "functions": functions,
            "states": program_states(m), "description_states": description_states(m)}


def catalog3_stage_findings(m, path):
    """The per-program findings of a stage (the same functions as for a package's spec)."""
    from generate import fp32_findings
    from generate_torch_origin import io_findings
    out = []
    for name in sorted(m.mlProgram.functions):
        out += fp32_findings(m, name) + io_findings(m, name)
    return out


def all_findings(path):
    spec = ct.utils.load_spec(str(path))
    return (catalog3_findings(path) + inline_findings(spec, path) + scatter_findings(spec)
            + full_extent_findings(spec))


# ---------------------------------------------------------------------------------------------------
# The models


def build():
    yield "inline-weights-large", mlp([256, 256, 64]), lambda _op, n: n > ONE_LIMIT
    yield "inline-weights-blob-clean", mlp([256, 256, 64]), None
    yield "inline-weights-many", mlp([128] * 11), lambda _op, n: n > 1024
    yield "inline-weights-no-blob", mlp([256, 256, 64]), lambda _op, _n: True
    yield "inline-weights-small-clean", mlp([64, 64, 64]), lambda _op, _n: True

    cache, k, pos = torch.zeros(CACHE), torch.zeros((1, CACHE[1], 1, CACHE[3])), torch.zeros((1,), dtype=torch.int32)
    io = [tensor("k_cache", CACHE), tensor("k", (1, CACHE[1], 1, CACHE[3])), tensor("pos", (1,), np.int32)]
    outs = [tensor("y", None), tensor("k_cache_out", None)]
    yield "scatter-cache-io", convert(traced(IoCache("scatter"), cache, k, pos), io, outputs=outs), None
    yield "scatter-cache-io-concat-clean", convert(traced(IoCache("concat"), cache, k, pos), io, outputs=outs), None
    yield "scatter-cache-state", state_program("scatter"), None
    yield "scatter-cache-state-slice-update-clean", state_program("slice_update"), None


def build_pipelines():
    names = [f"class{i}" for i in range(80)]
    yield "nms-pipeline-3", nms_pipeline(detector(3), names[:3])
    yield "nms-pipeline-80-clean", nms_pipeline(detector(80), names)
    yield "nms-pipeline-padded-clean", nms_pipeline(detector(3, padded=80), names)
    yield "nms-pipeline-missing-input", nms_pipeline(detector(80), names, confidence_input="scores")
    yield "nms-pipeline-no-labels", nms_pipeline(detector(80), [])
    yield "nms-pipeline-padded-short-labels", nms_pipeline(detector(3, padded=80), names[:3])
    yield "nms-pipeline-3-classifier", as_classifier(nms_pipeline(detector(3), names[:3]))


def as_classifier(model):
    """The pipeline held by a `PipelineClassifier` instead (the spec edited: coremltools' Pipeline
    API writes a plain pipeline)."""
    spec = model.get_spec()
    inner = Model_pb2.Pipeline()
    inner.CopyFrom(spec.pipeline)
    spec.pipelineClassifier.pipeline.CopyFrom(inner)
    return ct.models.MLModel(spec, weights_dir=model.weights_dir, skip_model_load=True)


def stages_of(spec):
    kind = spec.WhichOneof("Type")
    return list((spec.pipeline if kind == "pipeline" else getattr(spec, kind).pipeline).models)


def main():
    for prefix in PREFIXES:
        for old in sorted(EXPECTED.glob(f"{prefix}*.json")):
            old.unlink()
        for old in sorted(pkg(prefix).parent.glob(f"{prefix}*.mlpackage")):
            reset(old)
    reset(CATALOG4)
    for name, model, move in build():
        path = save_model(model, pkg(name))
        if move is not None:
            inline(path, move)
        stabilize(path)
        write_expected(name, package_record(path, all_findings(path)))
        # coremltools loads the edited package and its program type-checks.
        ct.models.MLModel(str(path), skip_model_load=True)
        print(f"wrote {path.name}", file=sys.stderr)
    write_compiled(pkg("inline-weights-large"), "inline-weights-large")
    for name, model in build_pipelines():
        path = save_model(model, pkg(name))
        drop_sub_dates(path)
        stabilize(path)
        pipeline_record(path, name)
        ct.models.MLModel(str(path), skip_model_load=True)
        print(f"wrote {path.name}", file=sys.stderr)


def drop_sub_dates(path):
    """`stabilize` drops the top-level conversion date; a pipeline's stages carry one each."""
    spec = Model_pb2.Model()
    spec.ParseFromString((path / MODEL).read_bytes())
    for m in stages_of(spec):
        user = m.description.metadata.userDefined
        if "com.github.apple.coremltools.conversion_date" in user:
            del user["com.github.apple.coremltools.conversion_date"]
    (path / MODEL).write_bytes(spec.SerializeToString(deterministic=True))


if __name__ == "__main__":
    main()
