#!/usr/bin/env python3
"""`dtypes.aimodel`: a program returning one constant of each 64-bit and sub-byte element type
coreai-core writes (f64, si64, ui64, si4 — one listing and one splat —, ui1, ui2, ui3, ui4, ui6,
and i1), for the reader's element types and their inline encodings. torch narrows 64-bit types
and has no sub-byte ones, so the program is written in the `coreai` dialect and saved with
coreai-core (`AIProgram.save_asset`), without coreai-torch.

Run: `/work/venv-coreai2/bin/python corpus/coreai/programs/generate_dtypes.py` (coreai-core
1.0.0b3). It reuses `generate.py`'s `save` and writes only `dtypes.*`.
"""

from __future__ import annotations

from coreai._compiler import ir
from coreai.authoring.asset import AIProgram
from coreai.authoring.context import Context

from generate import save

CONSTANTS = [
    ("f64", "f64", "[1.5, -2.0]", 2),
    ("si64", "si64", "[3, -4]", 2),
    ("ui64", "ui64", "[5, 6]", 2),
    ("si4", "si4", "[1, -2, 3, -8]", 4),
    ("si4_splat", "si4", "-3", 4),
    ("ui1", "ui1", "[true, false, true, true, false, false, false, false, true]", 9),
    ("ui2", "ui2", "[1, 2, 3, 0]", 4),
    ("ui3", "ui3", "[1, 2, 7, 5]", 4),
    ("ui4", "ui4", "[1, 2, 3, 15]", 4),
    ("ui6", "ui6", "[1, 2, 63, 5]", 4),
    ("bool", "i1", "[true, false, true, true, false, false, false, false, true]", 9),
]


def program_text() -> str:
    results = ['tensor<2xf16> {coreai.name = "y"}'] + [
        f'tensor<{n}x{ty}> {{coreai.name = "{name}"}}' for name, ty, _, n in CONSTANTS
    ]
    body = [
        f"    %{i} = coreai.constant dense<{values}> : tensor<{n}x{ty}>"
        for i, (_, ty, values, n) in enumerate(CONSTANTS)
    ]
    returned = ", ".join(["%arg0"] + [f"%{i}" for i in range(len(CONSTANTS))])
    types = ", ".join(["tensor<2xf16>"] + [f"tensor<{n}x{ty}>" for _, ty, _, n in CONSTANTS])
    return "\n".join(
        [
            "module {",
            f'  coreai.graph @main(%arg0: tensor<2xf16> {{coreai.name = "x"}}) -> ({", ".join(results)}) {{',
            *body,
            f"    coreai.output {returned} : {types}",
            "  }",
            "}",
        ]
    )


def main():
    with Context()._mlir_context:  # noqa: SLF001
        module = ir.Module.parse(program_text())
    save(AIProgram._from_mlir_module(module), "dtypes")  # noqa: SLF001


if __name__ == "__main__":
    main()
