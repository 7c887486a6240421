#!/usr/bin/env bash
# The HTML report in headless Chromium (Debian package) at a 1300 px window: no console error, a
# picture per finding, every picture inside its box and legible, working filters, a screenshot
# that is not blank; on corpus/ and on corpus/ + tests/fixtures + ../shared/realworld.
#
#   ci/html-browser.sh [--shots DIR]   also writes the screenshots of corpus/'s report into DIR
#                                      (docs/html-report.png comes from `--shots docs`)
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null; then
  apt-get update -qq && apt-get install -y -qq chromium >/dev/null
fi
cargo build --quiet
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
./target/debug/coreml-lint check corpus --output-format html --exit-zero > "$out/corpus.html"
python3 ci/html_browser.py "$out/corpus.html" "$@"
if [[ -d ../shared/realworld ]]; then
  ./target/debug/coreml-lint check corpus tests/fixtures ../shared/realworld --output-format html \
    --exit-zero > "$out/realworld.html"
  size="$(wc -c < "$out/realworld.html")"
  echo "corpus + tests/fixtures + realworld: $size bytes"
  if (( size > 3000000 )); then
    echo "FAIL: the report of corpus/, tests/fixtures and ../shared/realworld is over 3 MB" >&2
    exit 1
  fi
  python3 ci/html_browser.py "$out/realworld.html"
fi
