"""The Python package as a user gets it from a wheel: the ``coreml-lint`` command it installs and
the ``coreml_lint`` API (``check``, ``fix``, ``rules``, ``ReadError``), against the CLI's JSON on
the corpus, on coremltools ``MLModel``s, on broken packages, and the JSON Schemas in ``schemas/``.

Run by ``ci/python-package.sh`` in a venv where the freshly built wheel is installed.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import threading
import time
from pathlib import Path

import pytest

import coreml_lint
from coreml_lint import _native

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus"
MODELS = sorted(CORPUS.glob("packages/*.mlpackage")) + sorted(CORPUS.glob("compiled/*.mlmodelc"))
AIMODELS = sorted(CORPUS.glob("coreai/*.aimodel")) + sorted(CORPUS.glob("coreai/programs/*.aimodel"))
COMMAND = Path(sysconfig.get_path("scripts")) / "coreml-lint"


def cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """The ``coreml-lint`` command the wheel installed."""
    return subprocess.run(
        [str(COMMAND), *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"}
    )


def cli_json(*args: str) -> tuple[int, dict]:
    out = cli("check", "--output-format", "json", *args)
    return out.returncode, json.loads(out.stdout)


def tree_digest(path: Path) -> dict[str, str]:
    return {
        str(p.relative_to(path)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(path.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(autouse=True, scope="session")
def corpus_unchanged():
    """No test (nor coremltools) writes into the corpus."""
    before = tree_digest(CORPUS)
    yield
    assert tree_digest(CORPUS) == before, "a test changed corpus/"


# --- the command -------------------------------------------------------------------------------


def test_the_command_is_installed_and_is_the_cli() -> None:
    assert COMMAND.is_file()
    out = cli("--version")
    assert out.returncode == 0
    assert out.stdout.strip() == f"coreml-lint {coreml_lint.__version__}"
    code, doc = cli_json("corpus/packages/state-full-extent-write.mlpackage")
    assert code == 1
    assert [d["rule"] for d in doc["diagnostics"]] == ["state-full-extent-write"]
    assert cli("check", "corpus/packages/mlp-clean.mlpackage").returncode == 0
    assert cli("check", "no/such/model.mlpackage").returncode == 2
    assert cli("check", "--no-such-flag").returncode == 2
    # `python -m coreml_lint` is the same command.
    out = subprocess.run(
        [sys.executable, "-m", "coreml_lint", "rule", "state-full-extent-write"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0 and "state-full-extent-write" in out.stdout


def test_concise_output_is_compiler_style() -> None:
    out = cli("check", "--output-format", "concise", "corpus/compiled/mlmodelc-state-full-extent-write.mlmodelc")
    assert out.returncode == 1
    first = out.stdout.splitlines()[0]
    location, rest = first.split(": error: ", 1)
    path, line, col = location.rsplit(":", 2)
    assert Path(ROOT / path).is_file() and int(line) > 1 and int(col) >= 1
    assert rest.endswith("[state-full-extent-write]")


# --- check ---------------------------------------------------------------------------------------


def check_from_root(rel: str) -> list:
    """`coreml_lint.check` of a path relative to the repository, run from its root (as the CLI
    runs here), so the diagnostics' paths are the CLI's."""
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        return coreml_lint.check(rel, config=False)
    finally:
        os.chdir(cwd)


@pytest.mark.parametrize("model", MODELS + AIMODELS, ids=lambda p: p.name)
def test_check_equals_the_cli_json(model: Path) -> None:
    rel = str(model.relative_to(ROOT))
    _, doc = cli_json("--isolated", rel)
    got = check_from_root(rel)
    assert [d.to_dict() for d in got] == doc["diagnostics"]


def test_check_on_a_folder_equals_the_cli_json_and_takes_path_objects() -> None:
    _, doc = cli_json("--isolated", str(CORPUS / "packages"))
    got = coreml_lint.check(CORPUS / "packages", config=False)
    assert len(got) == len(doc["diagnostics"]) > 20
    assert [d.to_dict() for d in got] == doc["diagnostics"]


def test_check_returns_a_report_that_is_a_list_and_renders_itself() -> None:
    report = coreml_lint.check(CORPUS / "packages/state-blend-rmw.mlpackage", config=False)
    assert isinstance(report, coreml_lint.Report) and isinstance(report, list)
    rules = sorted(d.rule for d in report)
    assert rules == ["state-blend-rmw", "state-full-extent-write"]
    assert len(report) == 2 and report[0] in list(report) and report == list(report)
    html = report._repr_html_()
    # One element for a notebook's output cell: the summary, the placement, a picture per
    # finding; nothing of a page of its own.
    assert html.startswith('<div class="coreml-lint" id="coreml-lint-')
    assert html.rstrip().endswith("</div>")
    for part in ("<h2>Summary</h2>", "Likely placement per function", "<h2>Findings</h2>"):
        assert part in html, part
    # The findings before the estimate, whose table shares the cell's width.
    assert html.index('<article class="finding"') < html.index("Likely placement per function")
    assert '<table class="placement compact">' in html
    assert html.count('<article class="finding"') == 2
    assert html.count('<div class="picture"') == 2 and 'data-name="coreml_update_state_1_write_state"' in html
    assert "<html" not in html and "<body" not in html and 'class="filter-group' not in html
    # Styles stay inside the report's element; ids are the report's own, unique per rendering.
    style = html[html.index("<style>") + 7 : html.index("</style>")]
    selectors = [s.strip() for rule in style.split("}") if "{" in rule for s in rule.split("{")[0].split(",")]
    assert selectors and all(s.startswith(".coreml-lint") for s in selectors), selectors
    prefix = re.match(r'<div class="coreml-lint" id="(coreml-lint-[0-9a-f]+)-report"', html).group(1)
    ids = re.findall(r' id="([^"]+)"', html)
    assert ids and all(i.startswith(prefix + "-") for i in ids), ids
    assert len(ids) == len(set(ids))
    assert prefix not in report._repr_html_(), "a second rendering has ids of its own"
    page = report.to_html()
    assert page.startswith("<!DOCTYPE html>") and page.count('<article class="finding"') == 2
    # A clean model: an empty report, still rendered (summary and placement).
    clean = coreml_lint.check(CORPUS / "packages/mlp-clean.mlpackage", config=False)
    assert not clean and clean == [] and "No findings." in clean._repr_html_()
    # A copy renders too; a Report made by hand is a list with nothing to render.
    other = copy.copy(report)
    assert other == report and isinstance(other, coreml_lint.Report) and other._repr_html_()
    assert coreml_lint.Report(list(report))._repr_html_() is None


def test_diagnostic_fields() -> None:
    (d,) = coreml_lint.check(CORPUS / "compiled/mlmodelc-state-full-extent-write.mlmodelc")
    assert isinstance(d, coreml_lint.Diagnostic)
    assert (d.rule, d.severity, d.function, d.state) == ("state-full-extent-write", "error", "main", "kv_cache")
    assert d.op and d.message and d.help
    mil = (CORPUS / "compiled/mlmodelc-state-full-extent-write.mlmodelc/model.mil").read_text()
    assert d.op in mil.splitlines()[d.line - 1]
    assert d.column >= 1
    assert isinstance(d.fix, coreml_lint.Fix)
    assert (d.fix.kind, d.fix.applicability) == ("pad-state", "safe")
    assert "state-full-extent-write" in repr(d) and "kv_cache" in repr(d)
    assert d == coreml_lint.check(CORPUS / "compiled/mlmodelc-state-full-extent-write.mlmodelc")[0]


def stub_properties(cls: str) -> set[str]:
    """The properties ``_native.pyi`` declares on class ``cls``."""
    stub = ast.parse((Path(coreml_lint.__file__).parent / "_native.pyi").read_text())
    (node,) = [n for n in stub.body if isinstance(n, ast.ClassDef) and n.name == cls]
    return {
        f.name
        for f in node.body
        if isinstance(f, ast.FunctionDef) and any(getattr(d, "id", "") == "property" for d in f.decorator_list)
    }


@pytest.mark.parametrize(
    "rel",
    ["corpus/packages/state-full-extent-write.mlpackage", "corpus/compiled/mlmodelc-state-full-extent-write.mlmodelc"],
)
def test_a_diagnostic_is_the_json_record_field_for_field(rel: str) -> None:
    _, doc = cli_json("--isolated", rel)
    (record,) = doc["diagnostics"]
    (d,) = check_from_root(rel)
    # One record: the same keys in the JSON, in to_dict(), as attributes and in the stubs.
    assert list(d.to_dict()) == list(record)
    assert stub_properties("Diagnostic") == set(record)
    assert set(dir(d)) == set(record) | {"to_dict"}
    for key, value in record.items():
        if key == "fix":
            assert (d.fix.kind, d.fix.title, d.fix.applicability) == (value["kind"], value["title"], value["applicability"])
        else:
            assert getattr(d, key) == value, key
    with pytest.raises(AttributeError):
        d.no_such_field  # noqa: B018
    # The line is real: in model.mil for a text model, in `coreml-lint dump` for a package.
    assert (ROOT / d.file).is_file()
    if rel.endswith(".mlpackage"):
        assert d.file.endswith("model.mlmodel") and d.line is None and d.column is None
        dump = cli("dump", rel).stdout.splitlines()
        assert d.op in dump[d.dump_line - 1]
        assert dump[d.dump_line - 1][d.dump_column - 1 :].startswith("write_state(")
    else:
        assert d.file.endswith("model.mil") and d.dump_line is None
        line = (ROOT / d.file).read_text().splitlines()[d.line - 1]
        assert d.op in line and line[d.column - 1 :].startswith("write_state(")


# --- Core AI assets ---------------------------------------------------------------------------


def test_a_core_ai_diagnostic_is_at_its_line_in_the_dump() -> None:
    rel = "corpus/coreai/programs/metal-kernel.aimodel"
    (d,) = check_from_root(rel)
    assert (d.rule, d.function, d.op) == ("coreai-metal-kernel", "main", "%5")
    # The bytecode is binary: no line in it; the op's line is the one `coreml-lint dump` prints.
    assert d.file.endswith("metal-kernel.aimodel/main.mlirb") and d.line is None and d.column is None
    dump = cli("dump", rel).stdout.splitlines()
    assert dump[d.dump_line - 1][d.dump_column - 1 :].startswith("%5, %6, %7 = metal4_kernel(")
    # The decoders' KV states: one diagnostic per state for the GPU, none for cpu-only.
    kv = CORPUS / "coreai/programs/kv2048-ios.aimodel"
    states = [(d.rule, d.state) for d in coreml_lint.check(kv, config=False)]
    assert states == [("coreai-kv-state-length", "k_cache"), ("coreai-kv-state-length", "v_cache")]
    assert coreml_lint.check(kv, config=False, compute_units="cpu-only") == []
    assert coreml_lint.check(CORPUS / "coreai/programs/kv1024-ios.aimodel", config=False) == []


def test_select_and_ignore() -> None:
    model = CORPUS / "packages/state-blend-rmw.mlpackage"
    everything = {d.rule for d in coreml_lint.check(model)}
    assert {"state-blend-rmw", "state-full-extent-write"} <= everything
    assert {d.rule for d in coreml_lint.check(model, select="state-blend-rmw")} == {"state-blend-rmw"}
    assert "state-blend-rmw" not in {d.rule for d in coreml_lint.check(model, ignore=["state-blend"])}
    assert coreml_lint.check(model, select=["tensor"]) == []
    with pytest.raises(coreml_lint.ConfigError, match="did you mean `state-blend-rmw`"):
        coreml_lint.check(model, select=["state-blend-rwm"])


def test_compute_units_follow_the_app() -> None:
    import coremltools as ct

    attention = CORPUS / "packages/gpu-unfused-attention.mlpackage"
    blend = CORPUS / "packages/state-blend-rmw.mlpackage"
    assert {d.rule for d in coreml_lint.check(attention)} == {"gpu-unfused-attention"}
    assert coreml_lint.check(attention, compute_units="cpu-and-ne") == []
    # An ANE-only hazard is not reported for an app that loads the model on the CPU and the GPU.
    assert "state-full-extent-write" in {d.rule for d in coreml_lint.check(blend)}
    assert coreml_lint.check(blend, compute_units="cpu-and-gpu") == []
    sdpa = CORPUS / "packages/sdpa-fused-fp16.mlpackage"
    (gpu,) = coreml_lint.check(sdpa, compute_units=ct.ComputeUnit.CPU_AND_GPU)
    (ane,) = coreml_lint.check(sdpa, compute_units="cpu-and-ne")
    assert "Keep it fused" in gpu.help and "decompose" in ane.help
    with pytest.raises(coreml_lint.ConfigError, match="did you mean `cpu-and-ne`"):
        coreml_lint.check(sdpa, compute_units="cpu-and-nu")


def test_a_config_file_is_found_or_named(tmp_path: Path) -> None:
    pkg = tmp_path / "m.mlpackage"
    shutil.copytree(CORPUS / "packages/state-full-extent-write.mlpackage", pkg)
    assert [d.rule for d in coreml_lint.check(pkg)] == ["state-full-extent-write"]
    (tmp_path / "coreml-lint.yaml").write_text("ignore: [state-full-extent-write]\n")
    assert coreml_lint.check(pkg) == []
    assert [d.rule for d in coreml_lint.check(pkg, config=False)] == ["state-full-extent-write"]
    bad = tmp_path / "bad.yaml"
    bad.write_text("selct: [state]\n")
    with pytest.raises(coreml_lint.ConfigError, match="selct"):
        coreml_lint.check(pkg, config=bad)


def test_check_with_a_baseline_returns_only_what_is_new(tmp_path: Path) -> None:
    models = tmp_path / "Models"
    shutil.copytree(CORPUS / "packages/state-full-extent-write.mlpackage", models / "old.mlpackage")
    baseline = tmp_path / "b.json"
    written = cli("check", "--write-baseline", str(baseline), str(models))
    assert written.returncode == 0, written.stderr
    assert coreml_lint.check(models, baseline=baseline) == []
    shutil.copytree(CORPUS / "packages/state-full-extent-write.mlpackage", models / "new.mlpackage")
    new = coreml_lint.check(models, baseline=str(baseline))
    assert [(Path(d.path).name, d.rule) for d in new] == [("new.mlpackage", "state-full-extent-write")]
    # The config's `baseline:`, relative to the config file.
    (tmp_path / "coreml-lint.yaml").write_text("baseline: b.json\n")
    assert [Path(d.path).name for d in coreml_lint.check(models)] == ["new.mlpackage"]
    (tmp_path / "bad.json").write_text("not json")
    with pytest.raises(coreml_lint.ConfigError, match="bad.json.*not JSON"):
        coreml_lint.check(models, baseline=tmp_path / "bad.json")


def loaded_copy(ct, tmp_path: Path, name: str):
    """An MLModel of a copy of a corpus package (coremltools rewrites the Manifest.json it loads)."""
    path = tmp_path / name
    shutil.copytree(CORPUS / "packages" / name, path)
    return path, ct.models.MLModel(str(path), skip_model_load=True)


def test_check_an_mlmodel_loaded_with_coremltools(tmp_path: Path) -> None:
    ct = pytest.importorskip("coremltools")
    path, mlmodel = loaded_copy(ct, tmp_path, "state-full-extent-write.mlpackage")
    got = coreml_lint.check(mlmodel, select=["state"])
    assert [d.to_dict() | {"path": ""} for d in got] == [
        d.to_dict() | {"path": ""} for d in coreml_lint.check(path, select=["state"])
    ]
    assert Path(got[0].path).resolve() == Path(mlmodel.package_path).resolve()


def decode_step(rows: int):
    """A one-state decode step written with coremltools' MIL builder: it writes rows [0, 256) of a
    `rows`-row KV state (the whole state when rows == 256) and reads the first 256 rows back."""
    from coremltools.converters.mil import Builder as mb
    from coremltools.converters.mil.mil import types
    import coremltools as ct

    shape = (2, 2, rows, 32)

    @mb.program(
        input_specs=[
            mb.TensorSpec((2, 2, 1, 32), dtype=types.fp16),
            mb.StateTensorSpec(shape, dtype=types.fp16),
        ],
        opset_version=ct.target.iOS18,
    )
    def prog(row, kv):
        old = mb.read_state(input=kv)
        tail = mb.slice_by_index(x=old, begin=[0, 0, 1, 0], end=[2, 2, 256, 32])
        window = mb.concat(values=[tail, row], axis=2)
        new = mb.slice_update(x=old, update=window, begin=[0, 0, 0, 0], end=[2, 2, 256, 32])
        cur = mb.coreml_update_state(state=kv, value=new)
        if rows != 256:
            cur = mb.slice_by_index(x=cur, begin=[0, 0, 0, 0], end=[2, 2, 256, 32])
        return mb.reduce_mean(x=cur, axes=[2], keep_dims=False, name="y")

    return ct.convert(
        prog,
        convert_to="mlprogram",
        minimum_deployment_target=ct.target.iOS18,
        compute_precision=ct.precision.FLOAT16,
    )


def test_lint_right_after_ct_convert() -> None:
    pytest.importorskip("coremltools")
    bad = decode_step(256)
    assert [d.rule for d in coreml_lint.check(bad, select=["state"])] == ["state-full-extent-write"]
    # The README's assertion, on the layout its help leads to.
    assert not coreml_lint.check(decode_step(257), select=["state"])


def test_an_unreadable_model_raises_read_error_with_the_cli_message(tmp_path: Path) -> None:
    pkg = tmp_path / "broken.mlpackage"
    shutil.copytree(CORPUS / "packages/mlp-clean.mlpackage", pkg)
    model = pkg / "Data/com.apple.CoreML/model.mlmodel"
    model.write_bytes(model.read_bytes()[:100])
    with pytest.raises(coreml_lint.ReadError) as raised:
        coreml_lint.check(pkg)
    assert isinstance(raised.value, ValueError)
    code, doc = cli_json(str(pkg))
    assert code == 2
    assert [e["message"] for e in doc["errors"]] == [str(raised.value)]
    (pkg / "Manifest.json").write_text("{not json")
    with pytest.raises(coreml_lint.ReadError, match="Manifest.json"):
        coreml_lint.check(pkg)
    with pytest.raises(coreml_lint.ReadError, match="cannot read"):
        coreml_lint.check(tmp_path / "missing.mlpackage")
    with pytest.raises(TypeError):
        coreml_lint.check(42)  # type: ignore[arg-type]


def test_the_gil_is_released_while_linting() -> None:
    # With a 10 s switch interval a thread that keeps the GIL in native code blocks every other
    # thread until it returns; with the GIL released this thread runs while the other lints.
    done = threading.Event()

    def lint_many() -> None:
        for _ in range(30):
            _native._check(str(CORPUS / "packages"), None, [], None, True)
        done.set()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(10)
    try:
        worker = threading.Thread(target=lint_many)
        worker.start()
        time.sleep(0.05)
        ran_while_linting = not done.is_set()
        worker.join()
    finally:
        sys.setswitchinterval(interval)
    assert ran_while_linting


# --- fix -----------------------------------------------------------------------------------------


def test_fix_to_an_output_folder(tmp_path: Path) -> None:
    src = CORPUS / "packages/state-full-extent-write.mlpackage"
    before = tree_digest(src)
    report = coreml_lint.fix(src, output=tmp_path / "fixed")
    assert isinstance(report, coreml_lint.FixReport) and report.changed
    assert tree_digest(src) == before, "the input changed"
    (written,) = report.written
    assert Path(written).is_relative_to(tmp_path / "fixed")
    assert [Path(s).resolve() for s in report.sources] == [src.resolve()]
    assert any("padded" in m for m in report.messages)
    assert all(m in repr(report) for m in report.messages)
    assert report.diagnostics == []
    assert coreml_lint.check(written) == []
    # The same bytes as the CLI's --fix --output.
    out = cli("check", "--fix", "--output", str(tmp_path / "by-cli"), str(src))
    assert out.returncode == 0, out.stderr
    assert tree_digest(Path(written)) == tree_digest(tmp_path / "by-cli" / src.name)
    # Fixing the fixed copy changes nothing.
    again = coreml_lint.fix(written)
    assert not again.changed and again.diagnostics == []


def test_fix_in_place_and_unsafe_fixes(tmp_path: Path) -> None:
    # The whole-state blend's pad is a safe fix (the padded blend still costs O(context) per token,
    # so its warning remains); `unsafe_fixes` applies the same plan, as every built-in fix is safe.
    results = []
    for unsafe in (False, True):
        pkg = tmp_path / f"blend-{unsafe}.mlpackage"
        shutil.copytree(CORPUS / "packages/state-blend-rmw.mlpackage", pkg)
        before = tree_digest(pkg)
        report = coreml_lint.fix(pkg, unsafe_fixes=unsafe)
        assert report.changed and tree_digest(pkg) != before
        assert [d.rule for d in report.diagnostics] == ["state-blend-rmw"]
        assert [d.to_dict() for d in report.diagnostics] == [d.to_dict() for d in coreml_lint.check(pkg)]
        again = coreml_lint.fix(pkg, unsafe_fixes=unsafe)
        assert not again.changed
        results.append(tree_digest(pkg))
    assert results[0] == results[1]


def test_fix_an_mlmodel_needs_an_output(tmp_path: Path) -> None:
    ct = pytest.importorskip("coremltools")
    _, mlmodel = loaded_copy(ct, tmp_path, "state-full-extent-write.mlpackage")
    with pytest.raises(ValueError, match="output"):
        coreml_lint.fix(mlmodel)
    report = coreml_lint.fix(mlmodel, output=tmp_path / "fixed")
    assert report.changed and report.diagnostics == []


# --- rules, stubs ----------------------------------------------------------------------------------


def test_rules_carry_their_documentation() -> None:
    rules = coreml_lint.rules()
    ids = [r.id for r in rules]
    not_rules = {"redirects", "utils"}  # rule-folder files that are not rules
    assert ids == sorted(p.stem for p in (ROOT / "rules").glob("*.yaml") if p.stem not in not_rules)
    rule = next(r for r in rules if r.id == "state-full-extent-write")
    assert rule.severity == "error" and rule.fix == "pad-state" and rule.why and rule.title
    out = cli("rule", "state-full-extent-write")
    assert out.stdout == rule.documentation


def test_the_stubs_name_what_the_module_has() -> None:
    stub = ast.parse((Path(coreml_lint.__file__).parent / "_native.pyi").read_text())
    names = set()
    for node in stub.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    public = {n for n in dir(_native) if not n.startswith("__") or n == "__version__"}
    assert names == public
    assert (Path(coreml_lint.__file__).parent / "py.typed").is_file()
    for name in coreml_lint.__all__:
        assert hasattr(coreml_lint, name), name
        assert getattr(coreml_lint, name).__doc__ or name == "__version__", name


# --- schemas -------------------------------------------------------------------------------------


def readme_config() -> str:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("### Configuration") :]
    start = section.index("```yaml\n") + len("```yaml\n")
    return section[start : section.index("```", start)]


def test_the_schemas_validate_the_builtin_rules_and_the_readme_config() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    yaml = pytest.importorskip("yaml")
    rule_schema = json.loads((ROOT / "schemas/rule.schema.json").read_text())
    config_schema = json.loads((ROOT / "schemas/coreml-lint.schema.json").read_text())
    jsonschema.Draft7Validator.check_schema(rule_schema)
    jsonschema.Draft7Validator.check_schema(config_schema)
    utils_schema = json.loads((ROOT / "schemas/utils.schema.json").read_text())
    jsonschema.Draft7Validator.check_schema(utils_schema)
    jsonschema.Draft7Validator.check_schema(json.loads((ROOT / "schemas/baseline.schema.json").read_text()))
    rules = jsonschema.Draft7Validator(rule_schema)
    utils = jsonschema.Draft7Validator(utils_schema)
    files = sorted(p for p in (ROOT / "rules").glob("*.yaml") if p.stem != "redirects")
    assert len(files) >= 30
    for path in files:
        # As JSON, where mapping keys are strings (`dim: {2: …}`), as YAML editors see it.
        doc = json.loads(json.dumps(yaml.safe_load(path.read_text())))
        validator = utils if path.stem == "utils" else rules
        errors = list(validator.iter_errors(doc))
        assert not errors, (path.name, [e.message for e in errors])
    config = jsonschema.Draft7Validator(config_schema)
    assert not list(config.iter_errors(yaml.safe_load(readme_config())))
    assert list(config.iter_errors({"selct": ["state"]}))
