#!/usr/bin/env python3
"""Baseline (b): coremltools loads a package's spec and walks every op of every function.

`python bench/walk_coremltools.py PATH [PATH ...]`: `ct.models.MLModel(path, skip_model_load=True)`,
then every operation of every block of every function (nested blocks included) is visited and its
type, inputs and outputs touched. Prints the op count and the in-process time (after `import
coremltools`) on stderr, so that the whole-process time measured outside and the load-and-walk time
measured inside can both be reported.
"""

import os
import sys
import time
import warnings

warnings.filterwarnings("ignore")
os.environ.setdefault("TQDM_DISABLE", "1")

t_start = time.perf_counter()
import coremltools as ct  # noqa: E402

t_imported = time.perf_counter()


def walk(block):
    n = 0
    for op in block.operations:
        n += 1
        _ = op.type
        for arg in op.inputs.values():
            for a in arg.arguments:
                _ = a.name
        for out in op.outputs:
            _ = out.name
        for b in op.blocks:
            n += walk(b)
    return n


total = 0
loading = 0.0
for path in sys.argv[1:]:
    t0 = time.perf_counter()
    spec = ct.models.MLModel(path, skip_model_load=True).get_spec()
    loading += time.perf_counter() - t0
    for fn in spec.mlProgram.functions.values():
        for block in fn.block_specializations.values():
            total += walk(block)
t_done = time.perf_counter()
print(
    f"{total} ops; import {1000 * (t_imported - t_start):.0f} ms; "
    f"load+walk {1000 * (t_done - t_imported):.0f} ms; load {1000 * loading:.0f} ms",
    file=sys.stderr,
)
