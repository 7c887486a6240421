"""Checks coreml-lint's fix of pipeline packages with coremltools.

For every corpus pipeline whose expected findings include `state-full-extent-write`, the fixed copy
in FIXED_DIR must:
  1. load with `ct.models.MLModel(path, skip_model_load=True)`;
  2. have every ML-program sub-model accepted by coremltools' type-checking MIL re-load
     (`milproto.load`) with the package's weights;
  3. have each flagged state padded by one row, in its sub-model's program inputs and in that
     sub-model's own description, and every other sub-model unchanged;
  4. keep `Manifest.json` and every file under `weights/` byte-identical.
Every corpus pipeline must also load as generated.

Usage: pipeline_crosscheck.py CORPUS_DIR FIXED_DIR
"""

import json
import os
import shutil
import sys
import tempfile

import coremltools as ct
from coremltools.converters.mil.frontend.milproto.load import load as milproto_load

from fix_crosscheck import (
    check_untouched_and_loads,
    fail,
    failures,
    finish,
    fixed_pairs,
    spec_of,
    weights_dir,
)


def sub_models(spec):
    kind = spec.WhichOneof("Type")
    pipeline = spec.pipeline if kind == "pipeline" else getattr(spec, kind).pipeline
    return list(pipeline.models)


def program_state(sub, state):
    for fn in sub.mlProgram.functions.values():
        for inp in fn.inputs:
            if inp.name == state and inp.type.WhichOneof("type") == "stateType":
                return [d.constant.size for d in inp.type.stateType.wrappedType.tensorType.dimensions]
    return None


def described_state(sub, state):
    for feat in sub.description.state:
        if feat.name == state:
            return list(feat.type.stateType.arrayType.shape)
    return None


def cases(corpus):
    out = []
    exp = os.path.join(corpus, "expected")
    for fn in sorted(os.listdir(exp)):
        rec = json.load(open(os.path.join(exp, fn)))
        if rec.get("kind") != "pipeline":
            continue
        flagged = sorted(
            {(f["sub_model"][0], f["state"]) for f in rec["findings"] if f["rule"] == "state-full-extent-write"}
        )
        if flagged:
            out.append((fn[: -len(".json")], flagged, rec["path"]))
    return out


def check_corpus_pipelines_load(corpus):
    """Every corpus pipeline, as generated, loads with coremltools (from a copy: MLModel rewrites
    Manifest.json)."""
    packages = os.path.join(corpus, "packages")
    names = sorted(n for n in os.listdir(packages) if n.startswith("pipeline-"))
    if not names:
        fail("corpus", "no pipeline packages")
    with tempfile.TemporaryDirectory() as tmp:
        for n in names:
            copy = os.path.join(tmp, n)
            shutil.copytree(os.path.join(packages, n), copy)
            try:
                ct.models.MLModel(copy, skip_model_load=True)
            except Exception as e:  # noqa: BLE001
                fail(n, f"the corpus package does not load: {e}")


def main():
    corpus, fixed_dir = sys.argv[1], sys.argv[2]
    check_corpus_pipelines_load(corpus)
    todo = cases(corpus)
    if not todo:
        fail("corpus", "no pipeline with state-full-extent-write")
    for name, flagged, orig, fixed in fixed_pairs(corpus, fixed_dir, todo):
        failed_before = len(failures)
        check_untouched_and_loads(name, orig, fixed)
        before, after = sub_models(spec_of(orig)), sub_models(spec_of(fixed))
        if len(before) != len(after):
            fail(name, "sub-models added or removed")
            continue
        wa = weights_dir(fixed)
        touched = {i for i, _ in flagged}
        for i, (b, a) in enumerate(zip(before, after)):
            if a.WhichOneof("Type") == "mlProgram":
                try:
                    milproto_load(a, a.specificationVersion, wa)
                except Exception as e:  # noqa: BLE001
                    fail(name, f"sub-model {i}: milproto.load rejected it: {e}")
            if i not in touched and a != b:
                fail(name, f"sub-model {i} has no finding but changed")
        for i, state in flagged:
            old, new = program_state(before[i], state), program_state(after[i], state)
            if old is None or new is None:
                fail(name, f"sub-model {i}: no state {state}")
                continue
            if sum(1 for x, y in zip(old, new) if x != y) != 1 or sum(new) != sum(old) + 1:
                fail(name, f"sub-model {i}: {state} {old} -> {new} is not a one-row pad")
            if described_state(after[i], state) != new:
                fail(name, f"sub-model {i}: description of {state} is {described_state(after[i], state)}, program {new}")
        if len(failures) == failed_before:
            print(f"ok   {name}")
    finish("pipeline fix cross-check", len(todo))


if __name__ == "__main__":
    main()
