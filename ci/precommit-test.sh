#!/usr/bin/env bash
# The pre-commit hook for real: `pre-commit try-repo` builds coreml-lint from this checkout
# (language: rust) and runs it on a scratch git repo holding a bad and a good compiled model.
# Expects the hook to fail while the bad model is there, to pass once a baseline holds its finding
# (`baseline:` in coreml-lint.yaml) but fail on a new bad model, and to pass once it is removed.
# HOOK_REPO names another hook repository to try the same way (ci/python-package.sh passes the
# wheel-installed `language: python` mirror).
#
# Uses $VENV (made by .ci/run) when it has pre-commit, else makes a venv in a temp folder.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
hook_repo="${HOOK_REPO:-$repo}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

if [[ -n "${VENV:-}" && -x "$VENV/bin/pre-commit" ]]; then
  precommit="$VENV/bin/pre-commit"
else
  venv="${VENV:-$scratch/venv}"
  [[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check pre-commit
  precommit="$venv/bin/pre-commit"
fi
# Keep pre-commit's clones and the built hook out of the user's cache; keep the release build of
# the hook (`cargo install`) in this checkout's target/ so that the next run only relinks.
export PRE_COMMIT_HOME="${PRE_COMMIT_HOME:-$scratch/pre-commit-home}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target/precommit}"

bad="$repo/corpus/compiled/mlmodelc-state-full-extent-write.mlmodelc"
good="$repo/corpus/compiled/mlmodelc-state-full-extent-write-clean.mlmodelc"
for m in "$bad" "$good"; do
  [[ -f "$m/model.mil" ]] || { echo "missing corpus model: $m" >&2; exit 1; }
done

work="$scratch/work"
mkdir -p "$work/models"
cp -R "$bad" "$work/models/bad.mlmodelc"
cp -R "$good" "$work/models/good.mlmodelc"
echo "not a model" > "$work/README.txt"
git -C "$work" init --quiet
git -C "$work" add -A

run_hook() {
  (cd "$work" && "$precommit" try-repo "$hook_repo" coreml-lint --all-files --verbose) \
    >"$scratch/out.txt" 2>&1
}

echo "-- with the bad model: the hook must fail"
if run_hook; then
  cat "$scratch/out.txt"
  echo "FAIL: the hook passed with models/bad.mlmodelc present" >&2
  exit 1
fi
# A failure for the right reason: the finding on the bad model, not a build or usage error.
if ! grep -q "state-full-extent-write" "$scratch/out.txt" || ! grep -q "bad.mlmodelc" "$scratch/out.txt"; then
  cat "$scratch/out.txt"
  echo "FAIL: the hook failed without reporting state-full-extent-write on bad.mlmodelc" >&2
  exit 1
fi
if grep -q "good.mlmodelc.*state-full-extent-write" "$scratch/out.txt"; then
  cat "$scratch/out.txt"
  echo "FAIL: the clean model was flagged" >&2
  exit 1
fi

echo "-- with a baseline of it (coreml-lint.yaml's baseline:): the hook must pass"
# try-repo installs the hook in a store it deletes: the baseline is written by the same source's
# binary (COREML_LINT_BIN, default the debug build `cargo test` leaves in target/).
hook_bin="${COREML_LINT_BIN:-$repo/target/debug/coreml-lint}"
[[ -x "$hook_bin" ]] || { echo "FAIL: no coreml-lint at $hook_bin (build it, or set COREML_LINT_BIN)" >&2; exit 1; }
(cd "$work" && "$hook_bin" check --write-baseline coreml-lint-baseline.json models) >"$scratch/out.txt" 2>&1 || {
  cat "$scratch/out.txt"; echo "FAIL: --write-baseline failed" >&2; exit 1; }
echo "baseline: coreml-lint-baseline.json" > "$work/coreml-lint.yaml"
git -C "$work" add -A
if ! run_hook; then
  cat "$scratch/out.txt"
  echo "FAIL: the hook failed on a baselined finding" >&2
  exit 1
fi
echo "-- a new bad model beside the baselined one: the hook must fail on it"
cp -R "$bad" "$work/models/new.mlmodelc"
git -C "$work" add -A
if run_hook || ! grep -q "new.mlmodelc" "$scratch/out.txt"; then
  cat "$scratch/out.txt"
  echo "FAIL: the hook did not report the new model's finding" >&2
  exit 1
fi
git -C "$work" rm -r -f --quiet models/new.mlmodelc coreml-lint.yaml coreml-lint-baseline.json

echo "-- without it: the hook must pass"
git -C "$work" rm -r -f --quiet models/bad.mlmodelc
if ! run_hook; then
  cat "$scratch/out.txt"
  echo "FAIL: the hook failed with only the clean model" >&2
  exit 1
fi
echo "pre-commit hook test passed"
