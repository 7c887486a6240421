#!/usr/bin/env python3
"""Decoders whose KV states have Apple's iOS cache layout, `[n_layers, batch, n_kv_heads*head_dim,
1, max_seq_len]` (apple/coreai-models `primitives/ios/cache.py`: on iOS the cache is updated on
the last axis): `kv2048-ios.aimodel` binds 2048 positions, its twin `kv1024-ios.aimodel` 1024.

Run: `/work/venv-coreai2/bin/python corpus/coreai/programs/generate_ios_cache.py` (coreai-torch
0.4.3, coreai-core 1.0.0b3, torch 2.13). It reuses `generate.py`'s helpers and writes only
`kv*-ios.*`.
"""

from __future__ import annotations

import torch
import torch.nn as nn

from generate import D, TorchConverter, export, save

LAYERS = 2


class IosCacheDecoder(nn.Module):
    """One decode step of layer 0 over two KV states in the iOS layout, written at `pos`."""

    def __init__(self, seq: int):
        super().__init__()
        torch.manual_seed(0)
        self.register_buffer("k_cache", torch.zeros(LAYERS, 1, D, 1, seq))
        self.register_buffer("v_cache", torch.zeros(LAYERS, 1, D, 1, seq))
        self.qkv = nn.Linear(D, 3 * D)

    def forward(self, x, pos):
        q, k, v = self.qkv(x).split(D, dim=-1)
        self.k_cache.index_copy_(4, pos, k.reshape(1, 1, D, 1, 1).expand(LAYERS, 1, D, 1, 1))
        self.v_cache.index_copy_(4, pos, v.reshape(1, 1, D, 1, 1).expand(LAYERS, 1, D, 1, 1))
        keys, values = self.k_cache[0], self.v_cache[0]  # [1, D, 1, seq]
        scores = (q.reshape(1, D, 1, 1) * keys).sum(dim=1, keepdim=True)
        probs = torch.softmax(scores, dim=-1)
        return (values * probs).sum(dim=-1).reshape(1, 1, D)


def ios_decoder(name: str, seq: int):
    conv = TorchConverter(mode=TorchConverter.Mode.RELEASE)
    args = (torch.randn(1, 1, D, dtype=torch.float16), torch.tensor([3], dtype=torch.int64))
    conv.add_exported_program(
        export(IosCacheDecoder(seq).half(), args),
        input_names=["x", "pos"],
        output_names=["y"],
        state_names=["k_cache", "v_cache"],
        entrypoint_name="decode",
    )
    return save(conv.to_coreai(), name)


def main():
    ios_decoder("kv2048-ios", 2048)
    ios_decoder("kv1024-ios", 1024)


if __name__ == "__main__":
    main()
