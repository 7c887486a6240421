#!/usr/bin/env python3
"""Converter-made Core AI programs (`.aimodel`) for the program-level reader and rules: tiny fp16
PyTorch decoders with two KV states, a two-entry-point asset, logits 1000 and 1024 wide, a split
with and without a zero-sized section. Each hazard has a twin that differs only in that property.

Beside each `X.aimodel` it writes what coreai-core itself reads from the asset, for the Rust tests
(which need no Python) to compare `dump` against:
  X.program.txt   `str(AIModelAsset.load(X).program)` (the `coreai` dialect as coreai-core prints it)
  X.summary.json  per function: inputs, outputs and states with shapes and dtypes, and the op count
                  (`summary(include_statistics=True).operation_distribution`, summed)

Run: `/work/venvs/coreai/bin/python corpus/coreai/programs/generate.py` (coreai-torch 0.4.3,
coreai-core 1.0.0b3, torch 2.13). `creationDate` is pinned so that re-runs only change what the
converter changes.
"""

from __future__ import annotations

import json
import re
import shutil
import warnings
from pathlib import Path

warnings.filterwarnings("ignore")

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import coreai_torch  # noqa: E402
from coreai_torch import TorchConverter  # noqa: E402
from coreai.authoring import AIModelAsset  # noqa: E402

HERE = Path(__file__).resolve().parent
HEADS, HEAD_DIM = 2, 8
D = HEADS * HEAD_DIM


class Decoder(nn.Module):
    """One attention step over two KV states `[1, heads, seq, head_dim]` written at `pos`."""

    def __init__(self, seq: int, vocab: int):
        super().__init__()
        torch.manual_seed(0)
        self.register_buffer("k_cache", torch.zeros(1, HEADS, seq, HEAD_DIM))
        self.register_buffer("v_cache", torch.zeros(1, HEADS, seq, HEAD_DIM))
        self.qkv = nn.Linear(D, 3 * D)
        self.head = nn.Linear(D, vocab)

    def forward(self, x, pos, mask):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).split(D, dim=-1)
        q = q.reshape(b, t, HEADS, HEAD_DIM).transpose(1, 2)
        k = k.reshape(b, t, HEADS, HEAD_DIM).transpose(1, 2)
        v = v.reshape(b, t, HEADS, HEAD_DIM).transpose(1, 2)
        self.k_cache.index_copy_(2, pos, k)
        self.v_cache.index_copy_(2, pos, v)
        att = F.scaled_dot_product_attention(q, self.k_cache, self.v_cache, attn_mask=mask)
        return self.head(att.transpose(1, 2).reshape(b, t, D))


class Split(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.sizes = sizes

    def forward(self, x):
        parts = torch.split(x, self.sizes, dim=-1)
        return torch.cat([p * 2.0 for p in parts], dim=-1)


class Fp32Island(nn.Module):
    """An fp16 program with a softmax computed in fp32 (cast up, softmax, cast down)."""

    def forward(self, x):
        return torch.softmax(x.float(), dim=-1).half() * 2.0


def metal_kernel(name: str):
    """An fp16 program calling an inline Metal kernel (`aicode.metal.metal4_kernel_v1`) of two
    arguments and three results: coreai-core prints its operands as `kernel_args(2),
    threads_per_grid, threads_per_thread_group, result_shapes(3)`, the stored op as seven operands
    with no group sizes (the dump's named parameters are checked against the printout)."""
    from coreai.authoring import MetalParameter
    from coreai_torch import TorchMetalKernel

    def three(
        x: torch.Tensor, w: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return x * w, x + w, x - w

    kernel = TorchMetalKernel(
        "three",
        input_names=["x", "w"],
        result_names=["a", "b", "c"],
        src="a[gid] = x[gid] * w[gid]; b[gid] = x[gid] + w[gid]; c[gid] = x[gid] - w[gid];",
        torch_defn=three,
        metal_params=[MetalParameter("gid", "uint", "thread_position_in_grid")],
    )

    class Kernel(nn.Module):
        def forward(self, x, w):
            grid = dict(threads_per_grid=(64, 1, 1), threads_per_thread_group=(32, 1, 1))
            return kernel(x, w, result_shapes=[(1, 64)] * 3, **grid)

    conv = TorchConverter(mode=TorchConverter.Mode.RELEASE)
    conv.register_custom_kernels([kernel])
    x = torch.randn(1, 64, dtype=torch.float16)
    w = torch.randn(1, 64, dtype=torch.float16)
    conv.add_exported_program(
        export(Kernel(), (x, w)), input_names=["x", "w"], output_names=["a", "b", "c"]
    )
    return save(conv.to_coreai(), name)


def decoder_args(seq: int, tokens: int):
    return (
        torch.randn(1, tokens, D, dtype=torch.float16),
        torch.arange(tokens, dtype=torch.int64),
        torch.zeros(1, 1, tokens, seq, dtype=torch.float16),
    )


def export(module, args):
    ep = torch.export.export(module.eval(), args)
    return ep.run_decompositions(coreai_torch.get_decomp_table())


def save(prog, name: str) -> Path:
    path = HERE / f"{name}.aimodel"
    if path.exists():
        shutil.rmtree(path)
    prog.save_asset(path)
    meta_file = path / "metadata.json"
    meta = json.loads(meta_file.read_text())
    meta["creationDate"] = "20261201T000000Z"
    meta_file.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    record(path, name)
    return path


def decoder(name: str, seq: int, vocab: int, entry_points):
    conv = TorchConverter(mode=TorchConverter.Mode.RELEASE)
    for entry, tokens in entry_points:
        module = Decoder(seq, vocab).half()
        conv.add_exported_program(
            export(module, decoder_args(seq, tokens)),
            input_names=["x", "pos", "mask"],
            output_names=["logits"],
            state_names=["k_cache", "v_cache"],
            entrypoint_name=entry,
        )
    return save(conv.to_coreai(), name)


def fp32_island(name: str):
    conv = TorchConverter(mode=TorchConverter.Mode.RELEASE)
    x = torch.randn(1, 64, dtype=torch.float16)
    conv.add_exported_program(export(Fp32Island(), (x,)), input_names=["x"], output_names=["y"])
    return save(conv.to_coreai(), name)


def split(name: str, sizes):
    conv = TorchConverter(mode=TorchConverter.Mode.RELEASE)
    x = torch.randn(1, sum(sizes), dtype=torch.float16)
    conv.add_exported_program(export(Split(sizes), (x,)), input_names=["x"], output_names=["y"])
    return save(conv.to_coreai(), name)


def record(path: Path, name: str):
    asset = AIModelAsset.load(path)
    text = LONG_LITERAL.sub(r'\1"0x…"', str(asset.program))
    (HERE / f"{name}.program.txt").write_text(text + "\n")
    summary = asset.summary(include_statistics=True)
    functions = []
    for fname, ops in stored_op_counts(path):
        entry = {"name": fname, "ops": ops}
        if fname in summary.function_names:
            entry["inputs"] = summary.function_inputs(fname)
            entry["outputs"] = summary.function_outputs(fname)
            entry["states"] = summary.function_states(fname)
        functions.append(entry)
    facts = {
        "function_names": summary.function_names,
        "functions": functions,
        "operation_distribution": summary.operation_distribution,
        "compute_types": summary.compute_types,
    }
    assert sum(f["ops"] for f in functions) == sum(n for _, n in summary.operation_distribution)
    (HERE / f"{name}.summary.json").write_text(json.dumps(facts, indent=1) + "\n")


def stored_op_counts(path: Path):
    """Per graph of the stored `aicode` module (private composites included), the ops nested in it
    at any depth except the `output_v1` / `yield_v1` terminators: the count coreai-core's
    `operation_distribution` sums over the asset."""
    from coreai.authoring import context
    from coreai._compiler import ir

    def walk(op, acc):
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    acc.append(inner.operation.name)
                    walk(inner.operation, acc)

    out = []
    with context.Context():
        module = ir.Module.parse((path / "main.mlirb").read_bytes())
        asset = module.body.operations[0]
        for block in asset.regions[0].blocks:
            for graph in block.operations:
                names = []
                walk(graph.operation, names)
                fname = str(graph.operation.attributes["name"]).split('"')[1]
                out.append((fname, sum(1 for n in names if n not in TERMINATORS)))
    return out


TERMINATORS = {"aicode.dataflow.output_v1", "aicode.dataflow.yield_v1"}
LONG_LITERAL = re.compile(r'(dense<|: )"0x[0-9A-F]{64,}"')


def main():
    decoder("decoder", 1024, 1024, [("prefill", 4), ("decode", 1)])
    decoder("kv2048", 2048, 1024, [("decode", 1)])
    decoder("logits1000", 1024, 1000, [("decode", 1)])
    split("split", [4, 4])
    split("split-zero", [4, 0, 4])
    fp32_island("fp32-island")
    metal_kernel("metal-kernel")


if __name__ == "__main__":
    main()
