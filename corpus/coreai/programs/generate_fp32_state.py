#!/usr/bin/env python3
"""An fp32 decoder (`decoder-fp32.aimodel`): coreai-torch's default precision, with two fp32 KV
states. Valid for Core AI (coreai-core describes such states as `NDArray (Float32, …)`), so no rule
reports it; Core ML's `state-not-fp16` and `fp32-compute` concern Core ML programs only.

Run: `/work/venv-coreai/bin/python corpus/coreai/programs/generate_fp32_state.py`. It reuses
`generate.py`'s module and helpers and writes only `decoder-fp32.*`.
"""

from __future__ import annotations

import torch

from generate import D, Decoder, TorchConverter, export, save

SEQ, VOCAB, TOKENS = 256, 64, 1


def main():
    conv = TorchConverter(mode=TorchConverter.Mode.RELEASE)
    args = (
        torch.randn(1, TOKENS, D),
        torch.arange(TOKENS, dtype=torch.int64),
        torch.zeros(1, 1, TOKENS, SEQ),
    )
    conv.add_exported_program(
        export(Decoder(SEQ, VOCAB), args),
        input_names=["x", "pos", "mask"],
        output_names=["logits"],
        state_names=["k_cache", "v_cache"],
        entrypoint_name="decode",
    )
    save(conv.to_coreai(), "decoder-fp32")


if __name__ == "__main__":
    main()
