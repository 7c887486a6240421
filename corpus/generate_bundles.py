#!/usr/bin/env python3
"""Bundle-completeness fixtures (FIELD-HAZARDS A7) for `bundle-lfs-pointer` and
`bundle-manifest-missing-item`, each beside the clean model it was made from.

Writes only `corpus/bundles/` and `corpus/expected/bundle-*.json` (same record format as
`generate.py`):
- `bundle-no-weights-clean.mlpackage`: a converted model without weights, stabilized as
  `generate.stabilize` does (the Manifest item of its empty `weights/` folder dropped), and
  `bundle-manifest-missing-item.mlpackage`: the same package as a git checkout leaves it when the
  converter's Manifest is kept: the item names `weights/`, which git did not keep (no empty folders).
- `bundle-lfs-pointer-weights.mlpackage`: a copy of `packages/mlp-clean.mlpackage` (its clean twin)
  whose `weight.bin` is the Git LFS pointer git leaves when the object was never fetched.
- `bundle-lfs-pointer-metadata.mlmodelc`: a copy of `compiled/mlmodelc-mlp-blobfile-clean.mlmodelc`
  (its clean twin) whose `metadata.json` is such a pointer.

Expected findings are computed here from the saved spec and the files, not by the linter.
Run after `generate.py`: `/work/venv/bin/python corpus/generate_bundles.py`. Byte-stable.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import uuid
import warnings
from pathlib import Path

os.environ.setdefault("TQDM_DISABLE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from coremltools.converters.mil import Builder as mb  # noqa: E402
from coremltools.proto import Model_pb2  # noqa: E402

from generate import (  # noqa: E402
    COMPILED,
    CORPUS,
    EXPECTED,
    IOS18,
    PACKAGES,
    convert,
    fn_ops,
    op_name,
    package_record,
    reset,
    save_model,
    stabilize,
    write_expected,
    x_spec,
)

warnings.filterwarnings("ignore")

BUNDLES = CORPUS / "bundles"
WEIGHTS_ITEM = "com.apple.CoreML/weights"


def lfs_pointer(real: bytes) -> bytes:
    """The pointer file git-lfs writes for `real` (spec v1)."""
    oid = hashlib.sha256(real).hexdigest()
    return (
        "version https://git-lfs.github.com/spec/v1\n"
        f"oid sha256:{oid}\n"
        f"size {len(real)}\n"
    ).encode()


def prog_no_weights():
    @mb.program(input_specs=[x_spec()], opset_version=IOS18)
    def prog(x):
        return mb.relu(x=x, name="y")

    return prog


def record_of(path: Path, findings, like: Path | None = None):
    """The record of `path`, read from a scratch copy of `like` (else of `path`): coremltools
    rewrites the Manifest.json of a package it opens, and cannot open a broken one."""
    scratch = BUNDLES / ".scratch.mlpackage"
    reset(scratch)
    shutil.copytree(like or path, scratch)
    try:
        rec = package_record(scratch, findings)
    finally:
        reset(scratch)
    rec["path"] = str(path.relative_to(CORPUS))
    return rec


def load_spec_of(package: Path):
    spec = Model_pb2.Model()
    spec.ParseFromString((package / "Data" / "com.apple.CoreML" / "model.mlmodel").read_bytes())
    return spec


def finding(rule, function=None, op=None):
    return {"rule": rule, "function": function, "op": op, "state": None}


def first_blob_user(spec, weight_file: str):
    """Name of the first op (program order) whose BLOBFILE value names `weight_file`."""
    for op in fn_ops(spec, "main"):
        for attr in op.attributes.values():
            if attr.blobFileValue.fileName.endswith(weight_file):
                return op_name(op)
    raise SystemExit(f"no op reads {weight_file}")


def missing_item_pair():
    clean = BUNDLES / "bundle-no-weights-clean.mlpackage"
    save_model(convert(prog_no_weights()), clean)
    manifest_file = clean / "Manifest.json"
    converter_manifest = json.loads(manifest_file.read_text())
    weights = [
        (k, v) for k, v in converter_manifest["itemInfoEntries"].items() if v["path"] == WEIGHTS_ITEM
    ]
    if len(weights) != 1 or any((clean / "Data" / WEIGHTS_ITEM).iterdir()):
        raise SystemExit("expected the converter to write one empty weights item")
    stabilize(clean)  # drops the empty folder and its item
    write_expected(clean.name[: -len(".mlpackage")], record_of(clean, []))

    broken = BUNDLES / "bundle-manifest-missing-item.mlpackage"
    reset(broken)
    shutil.copytree(clean, broken)
    manifest = json.loads((broken / "Manifest.json").read_text())
    item_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"coreml-lint-corpus/{broken.name}/weights"))
    manifest["itemInfoEntries"][item_id] = weights[0][1]
    (broken / "Manifest.json").write_text(json.dumps(manifest, indent=4, sort_keys=True))
    assert not (broken / "Data" / WEIGHTS_ITEM).exists()
    write_expected(
        broken.name[: -len(".mlpackage")],
        record_of(broken, [finding("bundle-manifest-missing-item")], like=clean),
    )


def lfs_weights():
    clean = PACKAGES / "mlp-clean.mlpackage"
    broken = BUNDLES / "bundle-lfs-pointer-weights.mlpackage"
    reset(broken)
    shutil.copytree(clean, broken)
    weight = broken / "Data" / WEIGHTS_ITEM / "weight.bin"
    weight.write_bytes(lfs_pointer(weight.read_bytes()))
    spec = load_spec_of(clean)
    first = first_blob_user(spec, "weights/weight.bin")
    write_expected(
        broken.name[: -len(".mlpackage")],
        record_of(broken, [finding("bundle-lfs-pointer", "main", first)], like=clean),
    )


def lfs_metadata():
    clean = COMPILED / "mlmodelc-mlp-blobfile-clean.mlmodelc"
    broken = BUNDLES / "bundle-lfs-pointer-metadata.mlmodelc"
    reset(broken)
    shutil.copytree(clean, broken)
    meta = broken / "metadata.json"
    meta.write_bytes(lfs_pointer(meta.read_bytes()))
    rec = json.loads((EXPECTED / "mlmodelc-mlp-blobfile-clean.json").read_text())
    rec["path"] = str(broken.relative_to(CORPUS))
    # Without metadata.json (and with no coremldata.bin) nothing gives the version.
    rec["specification_version"] = None
    rec["findings"] = [finding("bundle-lfs-pointer")]
    write_expected(broken.name[: -len(".mlmodelc")], rec)


def main():
    reset(BUNDLES)
    for old in EXPECTED.glob("bundle-*.json"):
        old.unlink()
    BUNDLES.mkdir(parents=True)
    missing_item_pair()
    lfs_weights()
    lfs_metadata()


if __name__ == "__main__":
    main()
