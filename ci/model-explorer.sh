#!/usr/bin/env bash
# `coreml-lint graph --format model-explorer` checked by Model Explorer itself: each export loads
# strictly into the package's own classes, and renders in headless Chromium (Debian package,
# driven by playwright) with its node data: a torch-converted decoder of corpus/, and when
# ../shared/realworld is there, WhisperKit's encoder and silero-vad; the production-shaped decoder
# of bench/ when bench/out holds it.
#
#   ci/model-explorer.sh [--shots DIR]   also writes a screenshot of each into DIR (docs/ has them)
#
# Model Explorer gets a lean venv of its own (its adapter wheel, 600 MB, is not needed for a
# graph JSON): ME_VENV, default .venv-model-explorer.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null; then
  apt-get update -qq && apt-get install -y -qq chromium >/dev/null
fi
ME_VENV="${ME_VENV:-$PWD/.venv-model-explorer}"
if [[ ! -x "$ME_VENV/bin/model-explorer" ]]; then
  python3 -m venv "$ME_VENV"
  "$ME_VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps ai-edge-model-explorer==0.1.34
  "$ME_VENV/bin/pip" install --quiet --disable-pip-version-check flask dacite packaging portpicker \
    requests termcolor typing-extensions watchdog playwright
fi
cargo build --quiet
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
export_one() { # NAME MODEL
  ./target/debug/coreml-lint graph "$2" --format model-explorer -o "$out/$1.json"
  graphs+=("$out/$1.json")
}
graphs=()
export_one torch-decoder corpus/packages/torch-origin-decoder-fp32.mlpackage
if [[ -d ../shared/realworld ]]; then
  export_one whisperkit-tiny-encoder ../shared/realworld/whisperkit-tiny/AudioEncoder.mlmodelc
  export_one silero-vad \
    ../shared/realworld/mobius-silero-vad-mlpackage/silero-vad-unified-256ms-v6.0.0.mlpackage
fi
if [[ -d bench/out/decoder-32l.mlpackage ]]; then
  export_one decoder-32l bench/out/decoder-32l.mlpackage
fi
"$ME_VENV/bin/python" ci/model_explorer_check.py --browser "$@" "${graphs[@]}"
