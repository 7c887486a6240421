#!/usr/bin/env python3
"""Converter-made Core AI assets (`.aimodel`) for the `coreai-*` rules: tiny PyTorch modules converted
with coreai-torch, each with a clean twin that differs only in the property a rule checks.

Writes `coreai/*.aimodel` and `expected/coreai-*.json` (the findings each asset must give). Assets
whose defect is in the bundle rather than the program (hash, LFS pointer, missing file, symlink,
missing producer) are the clean asset with that one file changed.

Run: `/work/venv-coreai/bin/python corpus/coreai/generate.py` (coreai-torch 0.4.3, coreai-core
1.0.0b3, torch 2.13). `creationDate` is pinned so that re-runs only change what the converter changes.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import warnings
from pathlib import Path

import torch
import torch.nn as nn

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
warnings.filterwarnings("ignore")

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent
EXPECTED = CORPUS / "expected"
PREFIX = "coreai-"

import coreai_torch  # noqa: E402
from coreai_torch import TorchConverter  # noqa: E402


def reset(path: Path):
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


class LinearRelu(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return torch.relu(self.fc(x))


class LinearFloor(LinearRelu):
    def forward(self, x):
        return torch.floor(self.fc(x))


class LinearArgmax(LinearRelu):
    def forward(self, x):
        return torch.argmax(self.fc(x), dim=-1)


def convert(module, name, mode):
    path = HERE / f"{name}.aimodel"
    reset(path)
    args = (torch.randn(1, 8),)
    ep = torch.export.export(module.eval(), args).run_decompositions(coreai_torch.get_decomp_table())
    prog = (
        TorchConverter(mode=mode)
        .add_exported_program(ep, input_names=["x"], output_names=["y"])
        .to_coreai()
    )
    prog.save_asset(path)
    stabilize(path)
    return path


def stabilize(path: Path):
    """Pins `creationDate` (metadata.json is not covered by main.hash)."""
    meta_file = path / "metadata.json"
    meta = json.loads(meta_file.read_text())
    meta["creationDate"] = "20261201T000000Z"
    meta_file.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")


def copy_of(src: Path, name: str) -> Path:
    dst = HERE / f"{name}.aimodel"
    reset(dst)
    shutil.copytree(src, dst, symlinks=True)
    return dst


def write_expected(name, findings):
    """Every asset here is an fp32 Linear: fp32 is coreai-torch's default, and `fp32-compute` (a
    Core ML fact) is not reported on Core AI programs."""
    EXPECTED.mkdir(parents=True, exist_ok=True)
    record = {
        "kind": "aimodel",
        "path": f"coreai/{name}.aimodel",
        "specification_version": None,
        "functions": {},
        "states": {},
        "description_states": {},
        "findings": [{"rule": r, "function": None, "op": None, "state": None} for r in findings],
    }
    (EXPECTED / f"{PREFIX}{name}.json").write_text(json.dumps(record, indent=2) + "\n")


def main():
    release = TorchConverter.Mode.RELEASE
    clean = convert(LinearRelu(), "clean", release)
    write_expected("clean", [])
    convert(LinearRelu(), "debug", TorchConverter.Mode.DEBUG)
    write_expected("debug", ["coreai-debug-info"])
    convert(LinearFloor(), "floor", release)
    write_expected("floor", ["coreai-gpu-rounding"])
    convert(LinearArgmax(), "argmax", release)
    write_expected("argmax", ["coreai-argmax"])

    p = copy_of(clean, "no-producer")
    meta = json.loads((p / "metadata.json").read_text())
    del meta["producer"]
    (p / "metadata.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    write_expected("no-producer", ["coreai-no-producer"])

    p = copy_of(clean, "hash-mismatch")
    digest = bytearray((p / "main.hash").read_bytes())
    digest[0] ^= 0xFF
    (p / "main.hash").write_bytes(bytes(digest))
    write_expected("hash-mismatch", ["coreai-hash-mismatch"])

    p = copy_of(clean, "lfs-pointer")
    size = (p / "main.mlirb").stat().st_size
    oid = (p / "main.hash").read_bytes().hex()
    (p / "main.mlirb").write_text(
        f"version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize {size}\n"
    )
    write_expected("lfs-pointer", ["bundle-lfs-pointer"])

    p = copy_of(clean, "missing-hash")
    (p / "main.hash").unlink()
    write_expected("missing-hash", ["coreai-missing-file"])

    p = copy_of(clean, "symlink")
    (p / "metadata.json").unlink()
    os.symlink("../clean.aimodel/metadata.json", p / "metadata.json")
    write_expected("symlink", ["coreai-symlink"])


if __name__ == "__main__":
    main()
