"""Runs the `run:` steps of the composite action in `action.yml` as a runner would: each step's
`env:` with `${{ inputs.* }}` and `${{ github.action_path }}` substituted, `GITHUB_PATH` and
`GITHUB_OUTPUT` files honoured, `if:` conditions evaluated (`always()`, `==` / `!=` between
`inputs.*` or `steps.*.outputs.*` and a quoted string, joined by `&&`; without `always()` a step
runs only while every step before it passed). Steps that `uses:` another action are not run:
those whose condition holds are listed, their `with:` expanded, under `"uses"` in the JSON.
Prints the steps' outputs as JSON; exits with the action's status.

    python action_steps.py ACTION_DIR WORKDIR key=value...   (inputs; defaults from action.yml)
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml


def main() -> int:
    action_dir = Path(sys.argv[1]).resolve()
    workdir = Path(sys.argv[2]).resolve()
    action = yaml.safe_load((action_dir / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    inputs = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    for arg in sys.argv[3:]:
        key, value = arg.split("=", 1)
        assert key in inputs, f"no input {key}"
        inputs[key] = value
    temp = Path(tempfile.mkdtemp(prefix="action-"))
    path_file = temp / "path"
    path_file.touch()
    outputs: dict[str, dict[str, str]] = {}

    def value(expr: str) -> str:
        expr = expr.strip()
        if expr.startswith("inputs."):
            return inputs[expr[len("inputs.") :]]
        if expr == "github.action_path":
            return str(action_dir)
        m = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expr)
        if m:
            return outputs.get(m.group(1), {}).get(m.group(2), "")
        m = re.fullmatch(r"'([^']*)'", expr)
        if m:
            return m.group(1)
        raise SystemExit(f"unsupported expression {expr}")

    def expand(text: str) -> str:
        return re.sub(r"\$\{\{(.*?)\}\}", lambda m: value(m.group(1)), text)

    def holds(condition: str, failed: bool) -> bool:
        terms = [t.strip() for t in condition.split("&&")] if condition else []
        if failed and "always()" not in terms:
            return False
        for term in terms:
            if term == "always()":
                continue
            m = re.fullmatch(r"(.+?)\s*(==|!=)\s*(.+)", term)
            if not m:
                raise SystemExit(f"unsupported condition {term}")
            equal = value(m.group(1)) == value(m.group(3))
            if equal != (m.group(2) == "=="):
                return False
        return True

    uses: list[dict] = []
    failed = False
    for step in action["runs"]["steps"]:
        if not holds(str(step.get("if", "")), failed):
            print(f"-- skipped: {step['name']}", file=sys.stderr)
            continue
        if "uses" in step:
            print(f"-- not run here: uses {step['uses']}", file=sys.stderr)
            uses.append({"uses": step["uses"], "with": {k: expand(str(v)) for k, v in step.get("with", {}).items()}})
            continue
        assert "${{" not in step["run"], "run scripts take inputs through env, never inline"
        out_file = temp / f"out-{len(outputs)}"
        out_file.touch()
        env = {**os.environ, "RUNNER_TEMP": str(temp), "GITHUB_PATH": str(path_file), "GITHUB_OUTPUT": str(out_file)}
        extra = [p for p in path_file.read_text().splitlines() if p]
        env["PATH"] = os.pathsep.join([*reversed(extra), env["PATH"]])
        env.update({k: expand(str(v)) for k, v in step.get("env", {}).items()})
        print(f"-- {step['name']}", file=sys.stderr)
        # The steps' output is the job log (stderr here); stdout carries only the outputs.
        code = subprocess.run(
            [step.get("shell", "bash"), "-c", step["run"]], cwd=workdir, env=env, stdout=sys.stderr
        ).returncode
        if step.get("id"):
            outputs[step["id"]] = dict(
                line.split("=", 1) for line in out_file.read_text().splitlines() if "=" in line
            )
        if code != 0:
            failed = True
    print(json.dumps({**outputs, "uses": uses}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
