"""Writes the seed inputs of one fuzz target (called by seed.sh). Input encodings mirror the
targets: see the doc comment at the top of each fuzz_targets/<target>.rs."""
import hashlib
import pathlib
import re
import struct
import sys

import wire_variants as wire

BLOB_DTYPES = ["fp16", "fp32", "uint8", "int8", "bf16", "int16", "uint16", "int4", "uint1", "uint2",
               "uint4", "uint3", "uint6", "int32", "uint32", "fp8e4m3fn", "fp8e5m2", "bool", "int64"]
CONST = re.compile(r"tensor<(\w+), \[([0-9, ]*)\]>\(BLOBFILE\(path = string\(\"@model_path/weights/"
                   r"weight\.bin\"\), offset = uint64\((\d+)\)\)\)")


def put(out: pathlib.Path, data: bytes) -> None:
    (out / hashlib.sha1(data).hexdigest()).write_bytes(data)


def compiled(repo: pathlib.Path):
    return sorted((repo / "corpus" / "compiled").glob("*.mlmodelc"))


def packages(repo: pathlib.Path):
    return sorted(list((repo / "corpus" / "packages").glob("*.mlpackage"))
                  + list((repo / "corpus" / "reference").glob("*.mlpackage")))


def mil_text(repo, out):
    for f in sorted((repo / "fuzz" / "seeds" / "mil_text").glob("*.mil")):
        put(out, f.read_bytes())
    for m in compiled(repo):
        put(out, (m / "model.mil").read_bytes())
    shared = repo.parent / "shared" / "realworld"
    if shared.is_dir():
        for mil in sorted(shared.rglob("model.mil")):
            if mil.stat().st_size <= 200_000:
                put(out, mil.read_bytes())


def blob_file(repo, out):
    for m in compiled(repo):
        if not (m / "weights" / "weight.bin").is_file():
            continue  # a model without weights has no blob file to seed
        weights = (m / "weights" / "weight.bin").read_bytes()
        consts = CONST.findall((m / "model.mil").read_text())
        for start in range(0, max(1, len(consts)), 3):
            group = consts[start:start + 3]
            head = bytes([(len(group) - 1) % 3])
            for dtype, dims, offset in group:
                dims = [int(d) for d in dims.split(",") if d.strip()]
                head += bytes([BLOB_DTYPES.index(dtype), 0, len(dims) % 4])
                head += b"".join(struct.pack("<Q", d) for d in dims[:3])
                head += struct.pack("<Q", int(offset))
            put(out, head + weights)


def wire_variants(repo):
    """Re-encodings of corpus models through the corners of the protobuf wire format
    (wire_variants.py): each package gets one variant in turn, the two smallest ML programs
    (and two with immediate tensors) every variant, a few truncations and an 11-byte varint."""
    models = [f.read_bytes() for p in packages(repo) for f in sorted(p.rglob("model.mlmodel"))]
    programs = sorted((m for m in models if wire.has_program(m)), key=len)
    # the two smallest ML programs and the two smallest with packed scalars (immediate tensors)
    packed = [m for m in programs if wire.variant(m, "unpacked") != m]
    programs = programs[:2] + packed[:2]
    for i, m in enumerate(models):
        v = wire.variant(m, wire.VARIANTS[i % len(wire.VARIANTS)])
        if v is not None and len(v) <= 65536:
            yield v
    for m in programs:
        for name in wire.VARIANTS:
            v = wire.variant(m, name)
            if v is not None:
                yield v
        yield from wire.truncations(m)
        v = wire.overlong_eleven(m)
        if v is not None:
            yield v


def model_proto(repo, out):
    for p in packages(repo):
        for f in sorted(p.rglob("model.mlmodel")):
            put(out, f.read_bytes())
    for v in wire_variants(repo):
        put(out, v)


def pipeline(repo, out):
    # A package as records: kind byte (0 = .mlpackage, 1 = .mlmodelc), then (file id, u32 LE length,
    # bytes)*; file ids are listed in fuzz_targets/pipeline.rs.
    def rec(file_id, data):
        return bytes([file_id]) + struct.pack("<I", len(data)) + data
    for i, p in enumerate(packages(repo)):
        data = bytes([0])
        data += rec(0, (p / "Manifest.json").read_bytes())
        for f in sorted(p.rglob("model.mlmodel")):
            data += rec(1, f.read_bytes())
        for f in sorted(p.rglob("weight.bin")):
            data += rec(2, f.read_bytes())
        put(out, data)
        if i % 4 == 0:
            # every fourth package again with its model re-encoded (wire_variants.py)
            name = wire.VARIANTS[i // 4 % len(wire.VARIANTS)]
            data = bytes([0]) + rec(0, (p / "Manifest.json").read_bytes())
            for f in sorted(p.rglob("model.mlmodel")):
                data += rec(1, wire.variant(f.read_bytes(), name) or f.read_bytes())
            for f in sorted(p.rglob("weight.bin")):
                data += rec(2, f.read_bytes())
            put(out, data)
    for m in compiled(repo):
        data = bytes([1]) + rec(3, (m / "model.mil").read_bytes())
        if (m / "weights" / "weight.bin").is_file():
            data += rec(2, (m / "weights" / "weight.bin").read_bytes())
        data += rec(4, (m / "metadata.json").read_bytes())
        put(out, data)


def aimodel_bytecode(repo, out):
    # Core AI assets' `main.mlirb` (MLIR bytecode); identical files are written once.
    for f in sorted((repo / "corpus" / "coreai").glob("**/*.aimodel/main.mlirb")):
        if f.is_file() and not f.is_symlink():
            put(out, f.read_bytes())
    shared = repo.parent / "shared" / "realworld"
    if shared.is_dir():
        for f in sorted(shared.rglob("*.mlirb")):
            if f.stat().st_size <= 1_000_000:
                put(out, f.read_bytes())


def aimodel_program(repo, out):
    # The same programs: the target writes each into a bundle with a matching hash.
    aimodel_bytecode(repo, out)


if __name__ == "__main__":
    target, repo, out = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
    globals()[target](repo, out)
