#!/usr/bin/env bash
# The Python package as users get it, with no Rust on their side:
#   1. `maturin sdist`, then a wheel built from that sdist through pip (PEP 517, as `pip install .`
#      builds; dev profile here to reuse the debug build of `cargo test`);
#   2. the wheel installed into a fresh venv: pytest over the `coreml-lint` command and the whole
#      API (tests/python/test_package.py), and the notebook view of corpus/packages in headless
#      Chromium (ci/html_browser.py --notebook: the findings first, the placement table inside
#      560-900 px output cells);
#   3. action.yml's steps run against the wheel (tests/python/action_steps.py), and action.yml and
#      the release workflow validated against the GitHub schemas;
#   4. the `language: python` pre-commit hook (pre-commit-mirror/) tried with `pre-commit
#      try-repo`, pip finding only the wheel just built (PIP_FIND_LINKS, no index).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
TOOLS="${VENV:?run from .ci/run, which sets VENV}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}"
pip_quiet=(--quiet --disable-pip-version-check)

"$TOOLS/bin/pip" install "${pip_quiet[@]}" "maturin>=1.5,<2" check-jsonschema pyyaml

echo "-- sdist"
"$TOOLS/bin/maturin" sdist --out "$scratch/dist"
sdist=("$scratch"/dist/coreml_lint-*.tar.gz)
listing="$(tar -tzf "${sdist[0]}")"
for f in pyproject.toml python/Cargo.toml python/src/lib.rs python/coreml_lint/__init__.py \
  Cargo.toml Cargo.lock src/main.rs build.rs rules/state-full-extent-write.yaml README.md; do
  grep -q "^coreml_lint-[^/]*/$f\$" <<<"$listing" || { echo "FAIL: sdist lacks $f" >&2; exit 1; }
done
if grep -q "/corpus/" <<<"$listing"; then
  echo "FAIL: the sdist carries the test corpus" >&2
  exit 1
fi

echo "-- wheel from the sdist (pip, PEP 517)"
MATURIN_PEP517_ARGS="--profile dev" "$TOOLS/bin/pip" wheel "${pip_quiet[@]}" --no-deps \
  --wheel-dir "$scratch/wheels" "${sdist[0]}"
wheel=("$scratch"/wheels/coreml_lint-*.whl)
[[ -f "${wheel[0]}" ]] || { echo "FAIL: no wheel built" >&2; exit 1; }

echo "-- fresh venv with the wheel"
python3 -m venv "$scratch/venv"
"$scratch/venv/bin/pip" install "${pip_quiet[@]}" "${wheel[0]}" -r corpus/requirements.txt \
  pytest jsonschema pyyaml
"$scratch/venv/bin/python" -m pytest -q -p no:cacheprovider tests/python/test_package.py

echo "-- the notebook view (Report._repr_html_) in headless Chromium, in narrow output cells"
if ! command -v chromium >/dev/null; then
  apt-get update -qq && apt-get install -y -qq chromium >/dev/null
fi
"$scratch/venv/bin/python" -c 'import sys, coreml_lint; open(sys.argv[1], "w").write(coreml_lint.check("corpus/packages", config=False)._repr_html_())' \
  "$scratch/notebook.html"
python3 ci/html_browser.py --notebook "$scratch/notebook.html"

echo "-- action.yml and the release workflow"
"$TOOLS/bin/check-jsonschema" --builtin-schema vendor.github-actions action.yml
"$TOOLS/bin/check-jsonschema" --builtin-schema vendor.github-workflows .github/workflows/release.yml
work="$scratch/action-work"
mkdir -p "$work/Models"
cp -R corpus/packages/state-full-extent-write.mlpackage "$work/Models/"
cp -R corpus/packages/mlp-clean.mlpackage "$work/Models/"
status=0
PIP_NO_INDEX=1 PIP_FIND_LINKS="$scratch/wheels" "$TOOLS/bin/python" tests/python/action_steps.py \
  "$repo" "$work" "paths=Models/" "sarif-file=out.sarif" "html-report=true" \
  >"$scratch/action.json" 2>"$scratch/action.log" || status=$?
if [[ $status -ne 1 ]] || ! grep -q '^::error file=Models/state-full-extent-write.mlpackage/.*state-full-extent-write' "$scratch/action.log" \
  || ! grep -q '"exit-code": "1"' "$scratch/action.json"; then
  cat "$scratch/action.log" "$scratch/action.json"
  echo "FAIL: the action did not report the bad model (status $status)" >&2
  exit 1
fi
"$TOOLS/bin/python" - "$work/out.sarif" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
rules = [r["ruleId"] for r in doc["runs"][0]["results"]]
assert doc["version"] == "2.1.0" and rules == ["state-full-extent-write"], rules
PY
# html-report: true wrote the page after the failing check and hands it to upload-artifact.
"$TOOLS/bin/python" - "$work" "$scratch/action.json" <<'PY'
import json, sys
from pathlib import Path
work, out = Path(sys.argv[1]), json.load(open(sys.argv[2]))
page = (work / "coreml-lint-report.html").read_text()
assert page.startswith("<!DOCTYPE html>") and page.count('<article class="finding"') == 1, page[:300]
assert 'data-rule="state-full-extent-write"' in page and '<div class="picture"' in page
assert out["html"]["html-report"] == "coreml-lint-report.html", out
upload = [u for u in out["uses"] if u["uses"].startswith("actions/upload-artifact@")]
assert upload == [{"uses": upload[0]["uses"], "with": {"name": "coreml-lint-report",
    "path": "coreml-lint-report.html", "if-no-files-found": "error"}}], out["uses"]
PY
rm -f "$work/coreml-lint-report.html"
# With a baseline that holds the bad model's finding the action passes, and its SARIF says so.
(cd "$work" && "$scratch/venv/bin/coreml-lint" check --write-baseline b.json Models/) >"$scratch/write.log" 2>&1 \
  || { cat "$scratch/write.log"; echo "FAIL: --write-baseline failed" >&2; exit 1; }
PIP_NO_INDEX=1 PIP_FIND_LINKS="$scratch/wheels" "$TOOLS/bin/python" tests/python/action_steps.py \
  "$repo" "$work" "paths=Models/" "baseline=b.json" "sarif-file=base.sarif" >"$scratch/action.json" 2>"$scratch/action.log" \
  || { cat "$scratch/action.log"; echo "FAIL: the action failed on a baselined finding" >&2; exit 1; }
"$TOOLS/bin/python" - "$work/base.sarif" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
states = [(r["ruleId"], r["baselineState"]) for r in doc["runs"][0]["results"]]
assert states == [("state-full-extent-write", "unchanged")], states
PY
rm -rf "$work/Models/state-full-extent-write.mlpackage" "$work/b.json"
PIP_NO_INDEX=1 PIP_FIND_LINKS="$scratch/wheels" "$TOOLS/bin/python" tests/python/action_steps.py \
  "$repo" "$work" "paths=Models/" >"$scratch/action.json" 2>"$scratch/action.log" \
  || { cat "$scratch/action.log"; echo "FAIL: the action failed on a clean model" >&2; exit 1; }
# No html-report: no page, nothing uploaded.
"$TOOLS/bin/python" - "$work" "$scratch/action.json" <<'PY'
import json, sys
from pathlib import Path
work, out = Path(sys.argv[1]), json.load(open(sys.argv[2]))
assert not (work / "coreml-lint-report.html").exists() and "html" not in out, out
assert not [u for u in out["uses"] if u["uses"].startswith("actions/upload-artifact@")], out["uses"]
PY

echo "-- the language: python pre-commit hook, from the wheel"
mirror="$scratch/mirror"
cp -R pre-commit-mirror "$mirror"
git -C "$mirror" init --quiet
git -C "$mirror" add -A
git -C "$mirror" -c user.name=ci -c user.email=ci@localhost commit --quiet -m mirror
# The mirror's build backend and the wheel are all pip may use: nothing is compiled.
"$TOOLS/bin/pip" download "${pip_quiet[@]}" --dest "$scratch/wheels" --only-binary :all: "setuptools>=61"
HOOK_REPO="$mirror" COREML_LINT_BIN="$scratch/venv/bin/coreml-lint" PIP_NO_INDEX=1 PIP_FIND_LINKS="$scratch/wheels" \
  PRE_COMMIT_HOME="$scratch/pre-commit-home" bash ci/precommit-test.sh
echo "python package tests passed"
