#!/usr/bin/env python3
"""Regenerate the pipeline part of the coreml-lint corpus.

Each `packages/pipeline-*.mlpackage` is written by `ct.utils.make_pipeline` from ML programs built with
`generate.py`'s programs: a clean first stage (the MLP) and a second stage that carries one hazard, or
its clean twin. Hazards the builder refuses to write are made by editing the second stage's protobuf
after saving, as `generate.py` does for plain packages. `expected/pipeline-*.json` records what
coremltools reads from each sub-model and the findings the linter must report (each naming the
sub-model by its position).

Run: `python corpus/generate_pipelines.py` (also run at the end of `generate.py`, which clears
`packages/` and `expected/` first). Byte-stable, like the rest of the corpus.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate as g  # noqa: E402
from generate import ct, types  # noqa: E402
from coremltools.proto import Model_pb2  # noqa: E402

PREFIX = "pipeline-"


def make(stages, path: Path, names=None, holder=None) -> Path:
    """Saves `make_pipeline(*stages)` at `path`; `names` are written into `Pipeline.names`, and
    `holder` ("regressor") moves the pipeline into a `PipelineRegressor`."""
    pipe = ct.utils.make_pipeline(*stages)
    g.save_model(pipe, path)
    if names is None and holder is None:
        return path
    spec = read_spec(path)
    if names is not None:
        spec.pipeline.names.extend(names)
    if holder == "regressor":
        inner = Model_pb2.Pipeline()
        inner.CopyFrom(spec.pipeline)
        spec.pipelineRegressor.pipeline.CopyFrom(inner)
    write_spec(path, spec)
    return path


def model_file(path: Path) -> Path:
    return path / "Data" / "com.apple.CoreML" / "model.mlmodel"


def read_spec(path: Path):
    """The Model protobuf parsed from the package's bytes (never through `ct.utils.load_spec`, which
    opens the package through ModelPackage and rewrites its Manifest.json)."""
    spec = Model_pb2.Model()
    spec.ParseFromString(model_file(path).read_bytes())
    return spec


def write_spec(path: Path, spec):
    model_file(path).write_bytes(spec.SerializeToString())


def pipeline_of(spec):
    kind = spec.WhichOneof("Type")
    if kind == "pipeline":
        return spec.pipeline
    if kind in ("pipelineClassifier", "pipelineRegressor"):
        return getattr(spec, kind).pipeline
    raise SystemExit(f"not a pipeline: {kind}")


def stage(spec, i):
    return pipeline_of(spec).models[i]


def edit_stage(path: Path, i, edit):
    """Applies `edit` to the protobuf of sub-model `i`; the weight files are left alone."""
    spec = read_spec(path)
    edit(stage(spec, i))
    write_spec(path, spec)


def drop_conversion_dates(path: Path):
    """`generate.stabilize` drops the top-level conversion date; a pipeline also carries one per
    sub-model."""
    spec = read_spec(path)
    for _, _, m in leaves(pipeline_of(spec)):
        user = m.description.metadata.userDefined
        if "com.github.apple.coremltools.conversion_date" in user:
            del user["com.github.apple.coremltools.conversion_date"]
    write_spec(path, spec)


def leaves(pipeline, at=()):
    """(position, name, model) of every sub-model that is not itself a pipeline, depth first."""
    names = list(pipeline.names)
    for i, m in enumerate(pipeline.models):
        kind = m.WhichOneof("Type")
        if kind in ("pipeline", "pipelineClassifier", "pipelineRegressor"):
            yield from leaves(pipeline_of(m), at + (i,))
        else:
            yield list(at + (i,)), (names[i] if i < len(names) else None), m


def sub_record(position, name, m):
    functions = {}
    for fn in sorted(m.mlProgram.functions):
        ops = g.fn_ops(m, fn)
        hist = {}
        for op in ops:
            hist[op.type] = hist.get(op.type, 0) + 1
        functions[fn] = {"op_count": len(ops), "histogram": dict(sorted(hist.items()))}
    return {
        "position": position,
        "name": name,
        "specification_version": m.specificationVersion,
        "functions": functions,
        "states": g.program_states(m),
        "description_states": g.description_states(m),
    }


def record(path: Path, findings):
    """`expected/<name>.json` of a pipeline: every sub-model as coremltools reads it, and the
    findings, each with the position of its sub-model."""
    spec = read_spec(path)
    subs = [sub_record(*leaf) for leaf in leaves(pipeline_of(spec))]
    findings = sorted(findings, key=lambda f: (f["sub_model"], f["rule"], f["function"] or "",
                                               f["op"] or "", f["state"] or ""))
    g.write_expected(path.name[: -len(".mlpackage")], {
        "kind": "pipeline",
        "path": str(path.relative_to(g.CORPUS)),
        "pipeline_kind": spec.WhichOneof("Type"),
        "specification_version": spec.specificationVersion,
        "sub_models": subs,
        "findings": findings,
    })


def finding(rule, position, function="main", op=None, state=None):
    """`position`: the sub-model's index, or its list of indices in nested pipelines."""
    at = position if isinstance(position, list) else [position]
    return {"rule": rule, "sub_model": at, "function": function, "op": op, "state": state}


def write_of(path: Path, i, state="kv_cache"):
    return g.writes_of(stage(read_spec(path), i), "main", state)[0]


def pkg(name):
    return g.PACKAGES / f"{PREFIX}{name}.mlpackage"


def first_blob_const(m):
    for op in g.fn_ops(m, "main"):
        if op.type == "const" and op.attributes["val"].WhichOneof("value") == "blobFileValue":
            return op
    raise SystemExit("no blob-backed const")


def build_pipelines():
    for old in sorted(g.PACKAGES.glob(f"{PREFIX}*.mlpackage")):
        shutil.rmtree(old)
    for old in sorted(g.EXPECTED.glob(f"{PREFIX}*.json")):
        old.unlink()
    made = []

    def mlp():
        return g.convert(g.prog_mlp())

    # H1: the second stage writes its state over the whole extent; the stages are named.
    p = make([mlp(), g.convert(g.prog_shift(g.N))], pkg("state-full-extent-write"),
             names=["embed", "decode"])
    made.append((p, [finding("state-full-extent-write", 1, op=write_of(p, 1), state="kv_cache")]))
    p = make([mlp(), g.convert(g.prog_shift(g.N + 1))], pkg("state-full-extent-write-clean"),
             names=["embed", "decode"])
    made.append((p, []))

    # H1 in both stages (two sub-models fixed in one package), as a pipeline regressor.
    p = make([g.convert(g.prog_shift(g.N)), g.convert(g.prog_two_states(g.N, g.N + 1))],
             pkg("regressor-state-full-extent-write"), holder="regressor")
    made.append((p, [
        finding("state-full-extent-write", 0, op=write_of(p, 0), state="kv_cache"),
        finding("state-full-extent-write", 1, op=write_of(p, 1, "k_cache"), state="k_cache"),
    ]))
    p = make([g.convert(g.prog_shift(g.N + 1)), g.convert(g.prog_two_states(g.N + 1, g.N + 1))],
             pkg("regressor-state-full-extent-write-clean"), holder="regressor")
    made.append((p, []))

    # H5: fp16 gather indices in the second stage (protobuf edit, as for the plain package).
    p = make([mlp(), g.convert(g.prog_gather(64, types.int32, False))], pkg("gather-float-indices"))
    edit_stage(p, 1, g.edit_pos_to_fp16)
    gather = g.only_op(stage(read_spec(p), 1), "main", lambda op: op.type == "gather", "gather")
    made.append((p, [finding("gather-float-indices", 1, op=g.op_name(gather))]))
    p = make([mlp(), g.convert(g.prog_gather(64, types.int32, False))],
             pkg("gather-float-indices-clean"))
    made.append((p, []))

    # Rank 6 in the second stage (rank-5 build, then the protobuf edit of generate.py).
    p = make([mlp(), g.convert(g.prog_rank(5))], pkg("tensor-rank"))
    edit_stage(p, 1, g.edit_rank6)
    m = stage(read_spec(p), 1)
    # tensor-rank reports each connected region once, at its origin (generate.py's rank_findings).
    rank = [finding("tensor-rank", 1, op=f["op"], state=f["state"]) for f in g.rank_findings(m, "main")]
    assert rank, "no rank-6 op"
    made.append((p, rank))
    p = make([mlp(), g.convert(g.prog_rank(4))], pkg("tensor-rank-clean"))
    made.append((p, []))

    # A weight offset that points at the first blob's payload instead of its metadata record.
    p = make([mlp(), g.convert(g.prog_row_step(rows=g.N + 1))], pkg("blob-bad-offset"))
    bad = {}

    def shift_offset(m):
        op = first_blob_const(m)
        op.attributes["val"].blobFileValue.offset += 64
        bad["op"] = g.op_name(op)

    edit_stage(p, 1, shift_offset)
    # The record the offset should name is then used by no constant: an info, reported on the first
    # op that reads the file (the same const).
    made.append((p, [finding("blob-bad-sentinel", 1, op=bad["op"]),
                     finding("blob-unreferenced", 1, op=bad["op"])]))
    p = make([mlp(), g.convert(g.prog_row_step(rows=g.N + 1))], pkg("blob-bad-offset-clean"))
    made.append((p, []))

    # H14: the second stage's own description gives its state 256 rows, its program 257.
    def shrink_state(m):
        m.description.state[0].type.stateType.arrayType.shape[2] = g.N

    p = make([mlp(), g.convert(g.prog_row_step(rows=g.N + 1))],
             pkg("description-signature-mismatch"))
    edit_stage(p, 1, shrink_state)
    made.append((p, [finding("description-signature-mismatch", 1, state="kv_cache")]))
    p = make([mlp(), g.convert(g.prog_row_step(rows=g.N + 1))],
             pkg("description-signature-mismatch-clean"))
    made.append((p, []))

    # Nested make_pipeline, as coremltools 9 writes it: the inner pipeline was saved with
    # 0-/1-weight.bin, but the outer save writes only 1-weight.bin (its own second stage), so
    # sub-model 0.0 names a weight file that does not exist (and 0.1 reads stage 1's weights).
    tmp = Path(tempfile.mkdtemp(prefix="coreml-lint-pipelines-"))
    try:
        inner = make([mlp(), g.convert(g.prog_mlp(seed=11))], tmp / "inner.mlpackage")
        outer = ct.utils.make_pipeline(g.load(inner), g.convert(g.prog_mlp(seed=11)))
        p = g.save_model(outer, pkg("nested-blob-missing-file"))
    finally:
        shutil.rmtree(tmp)
    first = g.op_name(first_blob_const(pipeline_of(stage(read_spec(p), 0)).models[0]))
    assert not (p / "Data/com.apple.CoreML/weights/0-weight.bin").exists(), "coremltools fixed nesting"
    made.append((p, [finding("blob-missing-file", [0, 0], op=first)]))

    for path, findings in made:
        record(path, findings)
        drop_conversion_dates(path)
        g.stabilize(path)


def main():
    build_pipelines()
    print(f"pipelines written to {g.PACKAGES}", file=sys.stderr)


if __name__ == "__main__":
    main()
