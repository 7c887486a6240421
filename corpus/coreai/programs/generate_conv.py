#!/usr/bin/env python3
"""`conv.aimodel`, two entry points whose ops have named parameters, so the tests check `dump`'s
parameter names against coreai-core's printed program: `conv`, an fp16 padded `Conv2d`
(coreai-torch writes `pad` then `conv2d`), and `dims`, an `unsqueeze` / `squeeze` pair on an input
of dynamic width (`expand_dims` / `shrink_dims`; with static shapes they become reshapes).

Run: `/work/venv-coreai2/bin/python corpus/coreai/programs/generate_conv.py` (coreai-torch 0.4.3,
coreai-core 1.0.0b3, torch 2.13). It reuses `generate.py`'s helpers and writes only `conv.*`.
"""

from __future__ import annotations

import torch
import torch.nn as nn

import coreai_torch
from generate import TorchConverter, export, save


class Conv(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = nn.Conv2d(4, 8, kernel_size=3, padding=1)

    def forward(self, x):
        return self.conv(x)


class Dims(nn.Module):
    def forward(self, x):
        return (x.unsqueeze(1) * 2.0).squeeze(1)


def main():
    conv = TorchConverter(mode=TorchConverter.Mode.RELEASE)
    x = torch.randn(1, 4, 8, 8, dtype=torch.float16)
    conv.add_exported_program(
        export(Conv().half(), (x,)), input_names=["x"], output_names=["y"], entrypoint_name="conv"
    )
    width = torch.export.Dim("width", min=2, max=64)
    dims = torch.export.export(
        Dims().eval(), (torch.randn(2, 8, dtype=torch.float16),), dynamic_shapes={"x": {1: width}}
    ).run_decompositions(coreai_torch.get_decomp_table())
    conv.add_exported_program(dims, input_names=["x"], output_names=["y"], entrypoint_name="dims")
    save(conv.to_coreai(), "conv")


if __name__ == "__main__":
    main()
