"""Reads coremltools' MIL op registry (never its source) and compares it with rules/opset/ops.yaml.

    python opset_table.py check rules/opset/ops.yaml   # exit 1 on any difference
    python opset_table.py emit > ops.yaml              # the registry's facts in the table's layout

For every op of every opset from iOS15 on, the table must list the same serialized parameters, with
the same required flags, compile-time-constant flags, kinds (tensor, state, tuple, list, any) and
accepted dtypes. Builder-only parameters (Python callables, internal bookkeeping) are not part of a
serialized program and are left out, except `const`'s `val`, which the program carries as an
attribute. `write_state` is the serialized form of the builder's `coreml_update_state`; it is not in
the registry, so the table describes it by hand and this check skips it.
"""

import sys

import yaml
from coremltools.converters.mil.mil import types
from coremltools.converters.mil.mil.input_type import (
    InternalInputType,
    ListInputType,
    ListOrTensorOrDictInputType,
    PyFunctionInputType,
    StateInputType,
    TensorInputType,
    TupleInputType,
)
from coremltools.converters.mil.mil.ops.registry import SSAOpRegistry
from coremltools.converters.mil.mil.ops import defs  # noqa: F401  (registers every op)

OPSETS = ["ios15", "ios16", "ios17", "ios18"]
FIRST_TARGET = 6  # AvailableTarget.iOS15
NOT_IN_REGISTRY = {"write_state"}


def targets():
    return [t for t in SSAOpRegistry.SUPPORTED_OPSET_VERSIONS if t.value >= FIRST_TARGET]


def op_classes():
    """op name -> [class or None per opset]."""
    out = {}
    for name, by_target in SSAOpRegistry.core_ops.items():
        out[name] = [by_target.get(t) for t in targets()]
    for name, cls in SSAOpRegistry.dialect_ops.items():
        if name == "coreml_update_state":
            # Registered for iOS18 programs only; other dialect ops never reach a serialized program.
            out[name] = [None, None, None, cls]
    return out


def param_facts(cls):
    params = {}
    domains = getattr(cls, "type_domains", {}) or {}
    for name, it in cls.input_spec.input_types.items():
        if isinstance(it, PyFunctionInputType):
            continue
        if isinstance(it, InternalInputType) and not (cls.__name__ == "const" and name == "val"):
            continue
        p = {}
        if isinstance(it, StateInputType):
            p["kind"] = "state"
        elif isinstance(it, TupleInputType):
            p["kind"] = "tuple"
        elif isinstance(it, ListInputType):
            p["kind"] = "list"
        elif isinstance(it, (ListOrTensorOrDictInputType, InternalInputType)):
            p["kind"] = "any"
        if isinstance(it, TensorInputType):
            group = it._type_domain_id
            dom = domains.get(group) if group else it._type_domain
            if dom:
                p["dtype"] = sorted({types.builtin_to_string(t) for t in dom})
            if group:
                p["group"] = group
        if it.optional:
            p["optional"] = True
        if it.const:
            p["const"] = True
        params[name] = p
    return params


def registry_table():
    table = {}
    for name, classes in sorted(op_classes().items()):
        versions = []
        prev = None
        for opset, cls in zip(OPSETS, classes):
            if cls is None:
                if prev is not None:
                    versions[-1]["until"] = opset
                prev = None
                continue
            if cls is prev:
                continue
            versions.append({"since": opset, "params": param_facts(cls)})
            prev = cls
        if versions:
            table[name] = versions
    return table


def flow(p):
    parts = []
    for key in ("kind", "dtype", "group", "optional", "const"):
        if key not in p:
            continue
        v = p[key]
        if isinstance(v, list):
            v = "[" + ", ".join(v) + "]"
        elif isinstance(v, bool):
            v = "true" if v else "false"
        parts.append(f"{key}: {v}")
    return "{ " + ", ".join(parts) + " }" if parts else "{}"


def emit():
    print("ops:")
    for name, versions in registry_table().items():
        print(f"  {name}:")
        for v in versions:
            print(f"    - since: {v['since']}")
            if "until" in v:
                print(f"      until: {v['until']}")
            if not v["params"]:
                print("      params: {}")
                continue
            print("      params:")
            for pname, p in v["params"].items():
                print(f"        {pname}: {flow(p)}")


def norm(p):
    return {
        "kind": p.get("kind", "tensor"),
        "optional": bool(p.get("optional", False)),
        "const": bool(p.get("const", False)),
        "dtype": sorted(p.get("dtype", [])),
        "group": p.get("group"),
    }


def check(path):
    with open(path) as f:
        ours = yaml.safe_load(f)["ops"]
    theirs = registry_table()
    problems = []
    for name in sorted(set(ours) | set(theirs)):
        if name in NOT_IN_REGISTRY:
            continue
        if name not in ours:
            problems.append(f"{name}: registered by coremltools, missing from the table")
            continue
        if name not in theirs:
            problems.append(f"{name}: in the table, not registered by coremltools")
            continue
        for opset in OPSETS:
            a = version_at(ours[name], opset)
            b = version_at(theirs[name], opset)
            if (a is None) != (b is None):
                problems.append(f"{name} in {opset}: table {'has' if a else 'lacks'} it, coremltools {'has' if b else 'lacks'} it")
                continue
            if a is None:
                continue
            pa = {k: norm(v or {}) for k, v in (a.get("params") or {}).items()}
            pb = {k: norm(v) for k, v in b["params"].items()}
            for p in sorted(set(pa) | set(pb)):
                if p not in pa or p not in pb:
                    where = "table" if p in pa else "coremltools"
                    problems.append(f"{name} in {opset}: parameter `{p}` only in {where}")
                elif pa[p] != pb[p]:
                    problems.append(f"{name} in {opset}: `{p}` is {pa[p]} in the table, {pb[p]} in coremltools")
    checked = sum(1 for n in theirs for o in OPSETS if version_at(theirs[n], o))
    for line in problems:
        print(line)
    print(f"{len(theirs)} ops, {checked} (op, opset) pairs compared with coremltools; {len(problems)} differences")
    return 1 if problems else 0


def version_at(versions, opset):
    idx = OPSETS.index(opset)
    found = None
    for v in versions:
        if OPSETS.index(v["since"]) <= idx and ("until" not in v or idx < OPSETS.index(v["until"])):
            found = v
    return found


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "emit":
        emit()
    elif len(sys.argv) == 3 and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2]))
    else:
        sys.exit(__doc__)
