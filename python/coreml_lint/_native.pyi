"""Type stubs of the native module (PyO3). Use the names re-exported by ``coreml_lint``."""

from typing import Any, Dict, List, Optional, Sequence, Tuple

__version__: str

class ReadError(ValueError):
    """A model could not be read (the message is the one ``coreml-lint check`` prints)."""

class ConfigError(ValueError):
    """A config file or rule folder could not be used."""

class Fix:
    """The fix a diagnostic offers."""

    @property
    def kind(self) -> str:
        """The fix primitive (``pad-state``)."""
    @property
    def title(self) -> str:
        """What applying it does."""
    @property
    def applicability(self) -> str:
        """``safe`` (applied by ``fix``), ``unsafe`` (needs ``unsafe_fixes=True``) or ``display-only``."""

class Diagnostic:
    """One finding of one rule in one model. Its attributes are the fields of the CLI's JSON
    record (``to_dict()``), one for one."""

    @property
    def rule(self) -> str: ...
    @property
    def severity(self) -> str:
        """``error``, ``warning`` or ``info``."""
    @property
    def path(self) -> str:
        """The model as discovered (a package root, a ``.mlmodel`` or ``.mil`` file)."""
    @property
    def file(self) -> str:
        """The file the finding is in: ``model.mil``, or a package's binary ``model.mlmodel``."""
    @property
    def line(self) -> Optional[int]:
        """1-based line of the op in ``file`` when it is text (``model.mil``); ``None`` for a
        protobuf model and for findings about the whole model."""
    @property
    def column(self) -> Optional[int]:
        """1-based column (in bytes) that goes with ``line``."""
    @property
    def dump_line(self) -> Optional[int]:
        """For a protobuf model: 1-based line of the op in the program ``coreml-lint dump PATH``
        prints (for a pipeline, in the program of ``sub_model``)."""
    @property
    def dump_column(self) -> Optional[int]: ...
    @property
    def sub_model(self) -> Optional[Dict[str, Any]]:
        """The pipeline sub-model (``{"position": [1], "name": "dec"}``), ``None`` for a model of
        its own."""
    @property
    def function(self) -> Optional[str]: ...
    @property
    def op(self) -> Optional[str]:
        """The op's ``name`` attribute."""
    @property
    def state(self) -> Optional[str]: ...
    @property
    def message(self) -> str: ...
    @property
    def help(self) -> Optional[str]:
        """How to fix it: leads to a model no rule reports."""
    @property
    def fix(self) -> Optional[Fix]:
        """The fix offered (``to_dict()["fix"]`` also carries its plan)."""
    @property
    def covered(self) -> Optional[Dict[str, Any]]:
        """For a finding that stands for a region: ``{"count": n, "ops": [first names]}``."""
    def to_dict(self) -> Dict[str, Any]:
        """The diagnostic as one element of the CLI's JSON ``diagnostics``."""

class Rule:
    """A rule and its documentation."""

    @property
    def id(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def severity(self) -> Optional[str]:
        """The default severity (``error``, ``warning`` or ``info``)."""
    @property
    def category(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def why(self) -> str:
        """Why it matters, with the evidence."""
    @property
    def fix_text(self) -> str:
        """How to fix what it finds."""
    @property
    def example(self) -> str: ...
    @property
    def seen_on(self) -> List[str]: ...
    @property
    def references(self) -> List[str]: ...
    @property
    def fix(self) -> Optional[str]:
        """The fix primitive the rule offers (``pad-state``), if any."""
    @property
    def documentation(self) -> str:
        """Everything ``coreml-lint rule ID`` prints."""

class Run:
    """A check's run, its models' graphs kept, that ``Report`` renders as HTML."""

    def html_fragment(self, id: str) -> str:
        """The summary, placement and findings with pictures as one element for a notebook's
        output cell; every id starts with ``id``."""
    def html_page(self) -> str:
        """The page ``check --output-format html`` writes."""

def rules(rule_dirs: Sequence[str] = ...) -> List[Rule]:
    """Every built-in rule (and those in ``rule_dirs``), sorted by id."""

def run_cli(argv: Sequence[str]) -> int:
    """Runs the ``coreml-lint`` command line (program name first); returns the exit code."""

def _check(
    path: str,
    select: Optional[List[str]],
    ignore: List[str],
    config: Optional[str],
    isolated: bool,
    target: Optional[List[str]] = None,
    baseline: Optional[str] = None,
    compute_units: Optional[str] = None,
) -> Tuple[List[Diagnostic], Run]: ...
def _fix(
    path: str,
    output: Optional[str],
    unsafe_fixes: bool,
    select: Optional[List[str]],
    config: Optional[str],
    isolated: bool,
) -> Tuple[List[str], List[str], List[str], int, List[Diagnostic]]: ...
