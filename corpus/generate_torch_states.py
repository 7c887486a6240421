#!/usr/bin/env python3
"""Regenerate the converter-made state fixtures of the coreml-lint corpus (`torch-state-*`).

Each model is a small PyTorch module with a registered-buffer KV cache, converted with coremltools
through `torch.export` or `torch.jit.trace`, exactly as a user would (HAZARDS.md H4b):

- `torch-state-export-pos`: `torch.export` of `cache[:, :, p:p + 1] = k` with `p` a run-time
  position: an inner `slice_update` at `[p, p + 1)` wrapped in full-window `slice_update`s;
- `torch-state-export-padded`: the same with the cache padded by hand to N + 1 rows (reads `[0, N)`);
- `torch-state-trace-dropped-write`: `torch.jit.trace` of `cache[:, :, pos] = k` (`index_put_`
  through a tensor index): the converter drops the write, the state is read and never written;
- `torch-state-multifunction`: `prefill` writes all N rows, `infer` writes `[pos, pos + 1)` (both
  `torch.jit.trace`), joined with `ct.utils.save_multifunction`.

Writes `corpus/torch/<name>.mlpackage` and `corpus/expected/<name>.json`; packages are made
byte-stable with `generate.stabilize`. Needs torch (not in `corpus/requirements.txt`):
`/work/venv-torch/bin/python corpus/generate_torch_states.py`.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import generate  # noqa: E402  (sets up warnings/logging and imports coremltools)
from generate import ct, finding, package_record, reset, stabilize, write_expected  # noqa: E402

TORCH = generate.CORPUS / "torch"
HEADS = 2
HEAD_DIM = 32
N = 16  # context rows
STATE = "k_cache"


class Step(torch.nn.Module):
    """One decode step writing row `pos` of a `[1, HEADS, rows, HEAD_DIM]` cache."""

    def __init__(self, rows: int, how: str):
        super().__init__()
        self.how = how
        self.register_buffer(STATE, torch.zeros(1, HEADS, rows, HEAD_DIM, dtype=torch.float16))

    def forward(self, k, pos):
        if self.how == "item":  # torch.export: a Python int position
            p = pos.item()
            torch._check_is_size(p)
            torch._check(p < N)
            self.k_cache[:, :, p : p + 1] = k
        elif self.how == "slice":  # torch.jit.trace: a 0-d tensor position in a slice
            p = pos[0]
            self.k_cache[:, :, p : p + 1] = k
        elif self.how == "index":  # index_put_ through a tensor index
            self.k_cache[:, :, pos] = k
        return self.k_cache[:, :, :N].sum(dim=2)


class Prefill(torch.nn.Module):
    """Writes all N rows of the cache at once."""

    def __init__(self):
        super().__init__()
        self.register_buffer(STATE, torch.zeros(1, HEADS, N, HEAD_DIM, dtype=torch.float16))

    def forward(self, k):
        self.k_cache[:, :, 0:N] = k
        return self.k_cache.sum(dim=2)


def tensor(name, shape, dtype):
    return ct.TensorType(name=name, shape=shape, dtype=dtype)


def convert(module, example, inputs, rows):
    return ct.convert(
        module,
        inputs=inputs,
        outputs=[ct.TensorType(name="y", dtype=np.float16)],
        states=[
            ct.StateType(
                wrapped_type=ct.TensorType(shape=(1, HEADS, rows, HEAD_DIM), dtype=np.float16),
                name=STATE,
            )
        ],
        minimum_deployment_target=ct.target.iOS18,
        compute_precision=ct.precision.FLOAT16,
        convert_to="mlprogram",
    )


def k_row():
    return torch.zeros(1, HEADS, 1, HEAD_DIM, dtype=torch.float16)


def pos_example():
    return torch.tensor([3], dtype=torch.int32)


def step_inputs():
    return [tensor("k", (1, HEADS, 1, HEAD_DIM), np.float16), tensor("pos", (1,), np.int32)]


def exported_step(rows):
    module = Step(rows, "item").eval()
    program = torch.export.export(module, (k_row(), pos_example())).run_decompositions({})
    return convert(program, None, None, rows)


def traced(module, example, inputs, rows):
    return convert(torch.jit.trace(module.eval(), example), example, inputs, rows)


def save(model, name):
    path = TORCH / f"{name}.mlpackage"
    reset(path)
    model.save(str(path))
    return path


def writes(path, fn="main"):
    """Names of the write_state ops on the cache in `fn`."""
    return generate.writes_of(ct.utils.load_spec(str(path)), fn, STATE)


def first_read(path, fn="main"):
    spec = ct.utils.load_spec(str(path))
    return next(
        generate.op_name(op)
        for op in generate.fn_ops(spec, fn)
        if op.type == "read_state" and op.inputs["input"].arguments[0].name == STATE
    )


def record(path, findings):
    stabilize(path)
    name = path.name[: -len(".mlpackage")]
    write_expected(name, package_record(path, findings))


def main():
    reset(TORCH)
    TORCH.mkdir(parents=True)
    for old in generate.EXPECTED.glob("torch-state-*.json"):
        old.unlink()
    tmp = Path(tempfile.mkdtemp(prefix="coreml-lint-torch-"))
    try:
        # torch.export, run-time position: the written op is a full-window wrapper (H1) and the
        # inner begin is the position (H4).
        p = save(exported_step(N), "torch-state-export-pos")
        w = writes(p)[0]
        record(p, [finding("state-dynamic-begin", "main", w, STATE),
                   finding("state-full-extent-write", "main", w, STATE)])

        # The same cache padded by hand to N + 1 rows: only the wrappers cover the whole state.
        p = save(exported_step(N + 1), "torch-state-export-padded")
        w = writes(p)[0]
        record(p, [finding("state-dynamic-begin", "main", w, STATE),
                   finding("state-full-extent-write", "main", w, STATE)])

        # torch.jit.trace of index_put_: no write_state at all.
        m = traced(Step(N, "index"), (k_row(), pos_example()), step_inputs(), N)
        p = save(m, "torch-state-trace-dropped-write")
        record(p, [finding("state-never-written", "main", first_read(p), STATE)])

        # prefill (all N rows) + infer (row pos), sharing the cache.
        infer = save_tmp(traced(Step(N, "slice"), (k_row(), pos_example()), step_inputs(), N), tmp, "infer")
        prefill_inputs = [tensor("k", (1, HEADS, N, HEAD_DIM), np.float16)]
        prefill = save_tmp(
            traced(Prefill(), (torch.zeros(1, HEADS, N, HEAD_DIM, dtype=torch.float16),), prefill_inputs, N),
            tmp,
            "prefill",
        )
        p = TORCH / "torch-state-multifunction.mlpackage"
        generate.save_multi([(infer, "infer"), (prefill, "prefill")], "infer", p)
        record(p, [finding("state-dynamic-begin", "infer", writes(p, "infer")[0], STATE),
                   finding("state-full-extent-write", "prefill", writes(p, "prefill")[0], STATE)])
    finally:
        shutil.rmtree(tmp)
    print(f"torch state fixtures written to {TORCH}", file=sys.stderr)


def save_tmp(model, tmp, name):
    path = tmp / f"{name}.mlpackage"
    model.save(str(path))
    return path


if __name__ == "__main__":
    main()
