"""coreml-lint: static analysis of Core ML models, from Python.

Lint right after conversion::

    import coremltools as ct
    import coreml_lint

    mlmodel = ct.convert(traced, inputs=..., states=..., minimum_deployment_target=ct.target.iOS18)
    assert not coreml_lint.check(mlmodel, select=["state"])

``check`` and ``fix`` run the same engine as the ``coreml-lint`` command, in process, with the GIL
released while they lint.
"""

from __future__ import annotations

import os
import secrets
import tempfile
from typing import Any, Iterable, List, Optional, Sequence, Union

from coreml_lint._native import (
    ConfigError,
    Diagnostic,
    Fix,
    ReadError,
    Rule,
    Run,
    __version__,
    _check,
    _fix,
    rules,
)

__all__ = [
    "ConfigError",
    "Diagnostic",
    "Fix",
    "FixError",
    "FixReport",
    "ReadError",
    "Report",
    "Rule",
    "__version__",
    "check",
    "fix",
    "rules",
]

#: What ``check`` and ``fix`` accept: a path to a ``.mlpackage``, ``.mlmodelc``, ``.mlmodel``,
#: ``.mil`` or Core AI ``.aimodel`` (or a folder of them), or a coremltools ``MLModel``.
Model = Union[str, "os.PathLike[str]", Any]


class FixError(RuntimeError):
    """A fix could not be written (the original is left as it was)."""


class FixReport:
    """What ``fix`` did.

    Attributes:
        written: the fixed models' paths (the input, or copies under ``output``).
        sources: for each of ``written``, the model it was fixed from.
        messages: one line per model fixed, held back or refused (as the CLI prints them).
        diagnostics: what remains after the fixes: the fixed models re-checked, the others as
            they were checked.
    """

    __slots__ = ("written", "sources", "messages", "diagnostics")

    def __init__(
        self,
        written: List[str],
        sources: List[str],
        messages: List[str],
        diagnostics: List[Diagnostic],
    ) -> None:
        self.written = written
        self.sources = sources
        self.messages = messages
        self.diagnostics = diagnostics

    @property
    def changed(self) -> bool:
        """True when some model was fixed."""
        return bool(self.written)

    def __repr__(self) -> str:
        return (
            f"<FixReport {len(self.written)} fixed, "
            f"{len(self.diagnostics)} diagnostics remaining, messages={self.messages!r}>"
        )


class Report(List[Diagnostic]):
    """What ``check`` found: a list of ``Diagnostic`` (iterate, index, ``len``, ``not report``
    as with any list) that renders itself as the HTML report in a notebook.

    It keeps the checked models' graphs to draw the pictures.
    """

    def __init__(self, diagnostics: Iterable[Diagnostic] = (), run: Optional[Run] = None) -> None:
        super().__init__(diagnostics)
        self._run = run

    def to_html(self) -> str:
        """The HTML report as a page of its own (what ``check --output-format html`` writes):
        summary, placement, each finding with its picture, an overview of each function, the
        documentation of the rules that fired."""
        if self._run is None:
            raise ValueError("this report was not made by check(): it has no run to render")
        return str(self._run.html_page())

    def _repr_html_(self) -> Optional[str]:
        """The summary, placement and each finding with its picture, for a notebook's output
        cell: one element, its styles scoped to it, its ids unique in the page."""
        if self._run is None:
            return None
        return str(self._run.html_fragment(f"coreml-lint-{secrets.token_hex(6)}"))


def _selectors(value: Union[None, str, Sequence[str]]) -> Optional[List[str]]:
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def _units(value: Any) -> Optional[str]:
    """``compute_units`` as text: a string, or coremltools' ``ct.ComputeUnit`` member (its name)."""
    if value is None or isinstance(value, str):
        return value
    return str(getattr(value, "name", value))


def _config(config: Union[None, bool, str, "os.PathLike[str]"]) -> "tuple[Optional[str], bool]":
    """(config file, isolated) from ``config``: None finds one, False ignores them, else a path."""
    if config is None or config is True:
        return None, False
    if config is False:
        return None, True
    return os.fspath(config), False


class _ModelPath:
    """The path behind ``model``; an ``MLModel`` without a package is saved to a temporary file."""

    def __init__(self, model: Model) -> None:
        self._tmp: Optional[tempfile.TemporaryDirectory] = None  # type: ignore[type-arg]
        self.is_mlmodel = False
        if isinstance(model, (str, os.PathLike)):
            self.path = os.fspath(model)
            return
        if hasattr(model, "get_spec") and hasattr(model, "save"):
            self.is_mlmodel = True
            package = getattr(model, "package_path", None)
            if package:
                self.path = os.fspath(package)
                return
            # A neural network (no package): its spec is what there is to read.
            self._tmp = tempfile.TemporaryDirectory(prefix="coreml-lint-")
            self.path = os.path.join(self._tmp.name, "model.mlmodel")
            model.save(self.path)
            return
        raise TypeError(
            "coreml_lint expects a path (str or os.PathLike) or a coremltools MLModel, "
            f"not {type(model).__name__}"
        )

    def __enter__(self) -> "_ModelPath":
        return self

    def __exit__(self, *exc: object) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()


def check(
    model: Model,
    *,
    select: Union[None, str, Sequence[str]] = None,
    ignore: Union[None, str, Sequence[str]] = None,
    config: Union[None, bool, str, "os.PathLike[str]"] = None,
    target: Union[None, str, Sequence[str]] = None,
    baseline: Union[None, str, "os.PathLike[str]"] = None,
    compute_units: Union[None, str, Any] = None,
) -> Report:
    """Lints a model and returns its diagnostics (an empty list when no rule reports anything)
    as a ``Report``: a list of ``Diagnostic`` that shows the HTML report in a notebook
    (``_repr_html_``) and writes it with ``to_html()``.

    Args:
        model: a path to a ``.mlpackage``, ``.mlmodelc``, ``.mlmodel``, ``.mil`` or Core AI
            ``.aimodel``, a folder (walked for models), or a coremltools ``MLModel`` (the package
            behind it is linted).
        select: rule ids or prefixes to run (``"state"``, ``["blob", "tensor-rank"]``); all by
            default, or what ``coreml-lint.yaml`` selects.
        ignore: rule ids or prefixes not to run.
        config: a ``coreml-lint.yaml`` to use; ``None`` finds one upward from the model as the
            command line does; ``False`` ignores config files.
        target: the deployment target, as ``--target`` takes it (``"ios17,a15"``,
            ``["macos14", "m1"]``); replaces the config's ``target``.
        baseline: a baseline file (``coreml-lint check --write-baseline FILE`` writes one): only
            the diagnostics not in it are returned, and ``placement-regression`` ones for ops
            that left the Neural Engine since; replaces the config's ``baseline``.
        compute_units: the compute units the app loads the model with, as ``--compute-units``
            takes them (``"all"``, the default as in Core ML, ``"cpu-and-ne"``, ``"cpu-and-gpu"``,
            ``"cpu-only"``; coremltools' ``ct.ComputeUnit.CPU_AND_GPU`` or its name too);
            rules about units the app does not use report nothing. Replaces the config's
            ``compute-units``.

    Raises:
        ReadError: a model could not be read (the message is the one the CLI prints).
        ConfigError: the config file or a rule folder it names could not be used, ``target``
            names an unknown OS or chip family, ``compute_units`` an unknown setting, or the
            baseline file is missing or not one.
    """
    config_file, isolated = _config(config)
    with _ModelPath(model) as package:
        diagnostics, run = _check(
            package.path,
            _selectors(select),
            _selectors(ignore) or [],
            config_file,
            isolated,
            _selectors(target),
            None if baseline is None else os.fspath(baseline),
            _units(compute_units),
        )
    return Report(diagnostics, run)


def fix(
    model: Model,
    *,
    output: Union[None, str, "os.PathLike[str]"] = None,
    unsafe_fixes: bool = False,
    select: Union[None, str, Sequence[str]] = None,
    config: Union[None, bool, str, "os.PathLike[str]"] = None,
) -> FixReport:
    """Applies the fixes ``coreml-lint check --fix`` applies, then re-checks what it wrote.

    Writes are atomic: a fix that fails leaves the original as it was. Fixing a fixed model
    changes nothing.

    Args:
        model: as for ``check``. An ``MLModel`` needs ``output``: its files stay as loaded.
        output: a folder to write fixed copies into; the input is then never written.
        unsafe_fixes: also apply unsafe fixes (the blend rewrite), as ``--unsafe-fixes``.
        select: rule ids or prefixes whose findings are fixed and reported.
        config: as for ``check``.

    Raises:
        ReadError: a model could not be read.
        ConfigError: the config file or a rule folder could not be used.
        FixError: a fix could not be written.
    """
    config_file, isolated = _config(config)
    with _ModelPath(model) as target:
        if target.is_mlmodel and output is None:
            raise ValueError(
                "fixing an MLModel needs output=: the files behind a loaded model are not changed"
            )
        written, sources, messages, failures, diagnostics = _fix(
            target.path,
            None if output is None else os.fspath(output),
            unsafe_fixes,
            _selectors(select),
            config_file,
            isolated,
        )
    if failures:
        raise FixError("\n".join(messages))
    return FixReport(written, sources, messages, diagnostics)
