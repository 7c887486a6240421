#!/usr/bin/env bash
# The HTML report in headless Chromium (Debian package): no console error, a picture per finding,
# working filters, a screenshot that is not blank; on corpus/ and on ../shared/realworld.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null; then
  apt-get update -qq && apt-get install -y -qq chromium >/dev/null
fi
cargo build --quiet
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
./target/debug/coreml-lint check corpus --output-format html --exit-zero > "$out/corpus.html"
python3 ci/html_browser.py "$out/corpus.html"
if [[ -d ../shared/realworld ]]; then
  ./target/debug/coreml-lint check ../shared/realworld --output-format html --exit-zero > "$out/realworld.html"
  python3 ci/html_browser.py "$out/realworld.html"
fi
