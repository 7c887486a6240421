#!/usr/bin/env python3
"""Compare the findings of two `coreml-lint check --output-format json` outputs as multisets of
(rule, path, sub-model, function, op, message, severity): issue 37's "every finding unchanged" check.

    bench/findings_multiset.py BEFORE.json AFTER.json   # exit 1 and list the differences
"""
import json
import sys
from collections import Counter


def findings(path):
    with open(path) as f:
        doc = json.load(f)
    return Counter(
        (d["rule"], d["path"], json.dumps(d.get("sub_model"), sort_keys=True), d.get("function"), d.get("op"), d.get("message"), d.get("severity"))
        for d in doc["diagnostics"]
    )


before, after = findings(sys.argv[1]), findings(sys.argv[2])
gone, new = before - after, after - before
for k, n in sorted(gone.items(), key=str):
    print(f"- {n}x {k}")
for k, n in sorted(new.items(), key=str):
    print(f"+ {n}x {k}")
print(f"{sum(before.values())} before, {sum(after.values())} after, {sum(gone.values())} gone, {sum(new.values())} new")
sys.exit(1 if gone or new else 0)
