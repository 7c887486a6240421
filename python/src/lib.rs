//! `coreml_lint._native`: the Python module over the library, in process. The Python package
//! (`python/coreml_lint/`) wraps it: `check`, `fix`, `rules`, the `coreml-lint` command.
//!
//! Every call that lints releases the GIL; nothing here panics on bad input (the library does
//! not), and a model that cannot be read raises `ReadError` with the message the CLI prints.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use std::path::PathBuf;

use coreml_lint::check::{
    self, CheckOptions, CheckOutcome, CheckRun, ConfigFile, Keep, ModelOutcome, Rendering,
};
use coreml_lint::config::Overrides;
use coreml_lint::finding::{Applicability, Finding};
use coreml_lint::fix::run::FixOptions;
use coreml_lint::ir::Model;
use coreml_lint::report;
use coreml_lint::rules::{CacheDir, RuleInfo, RuleSet};

// The `coreml-lint` command of the wheel is the CLI itself, compiled in here (a wheel holds one
// native artifact); `main` is the binary's entry and unused in this crate.
#[path = "../../src/main.rs"]
#[allow(dead_code)]
mod cli;

create_exception!(
    coreml_lint,
    ReadError,
    PyValueError,
    "A model could not be read (the message is the one `coreml-lint check` prints)."
);
create_exception!(
    coreml_lint,
    ConfigError,
    PyValueError,
    "A config file or rule folder could not be used."
);

/// Runs the `coreml-lint` command line with `argv` (program name first); returns the exit code.
#[pyfunction]
fn run_cli(py: Python<'_>, argv: Vec<std::ffi::OsString>) -> u8 {
    py.detach(|| cli::run(argv))
}

/// The fix a diagnostic offers.
#[pyclass(frozen, eq, module = "coreml_lint", get_all)]
#[derive(Clone, Debug, PartialEq)]
struct Fix {
    /// The fix primitive (`pad-state`).
    kind: String,
    /// What applying it does.
    title: String,
    /// `safe` (applied by `fix`), `unsafe` (needs `unsafe_fixes=True`) or `display-only`.
    applicability: String,
}

#[pymethods]
impl Fix {
    fn __repr__(&self) -> String {
        format!(
            "Fix(kind={:?}, applicability={:?}, title={:?})",
            self.kind, self.applicability, self.title
        )
    }
}

fn applicability(a: Applicability) -> &'static str {
    match a {
        Applicability::Safe => "safe",
        Applicability::Unsafe => "unsafe",
        Applicability::DisplayOnly => "display-only",
    }
}

/// One finding of one rule in one model: the CLI's JSON record of it, whose fields are the
/// attributes (`report::json::finding` is their one definition).
#[pyclass(frozen, eq, module = "coreml_lint")]
#[derive(Clone, Debug, PartialEq)]
struct Diagnostic {
    record: serde_json::Map<String, serde_json::Value>,
    /// `record["fix"]` as an object.
    #[pyo3(get)]
    fix: Option<Fix>,
}

impl Diagnostic {
    fn new(model: &Model, f: &Finding) -> Diagnostic {
        let record = match report::json::finding(model, f) {
            serde_json::Value::Object(record) => record,
            _ => serde_json::Map::new(),
        };
        Diagnostic {
            record,
            fix: f.fix.as_ref().map(|x| Fix {
                kind: x.kind.clone(),
                title: x.title.clone(),
                applicability: applicability(x.applicability).into(),
            }),
        }
    }

    fn text(&self, key: &str) -> &str {
        self.record.get(key).and_then(|v| v.as_str()).unwrap_or("")
    }
}

/// A JSON value as Python data (through `json.loads`, as `to_dict` gives it).
fn to_python<'py>(py: Python<'py>, value: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?
        .call_method1("loads", (value.to_string(),))
}

#[pymethods]
impl Diagnostic {
    /// The diagnostic as one element of the CLI's JSON `diagnostics`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, &serde_json::Value::Object(self.record.clone()))
    }

    /// Every field of the JSON record is an attribute (`fix` is a `Fix`).
    fn __getattr__<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        match self.record.get(name) {
            Some(value) => to_python(py, value),
            None => Err(pyo3::exceptions::PyAttributeError::new_err(format!(
                "'Diagnostic' object has no attribute '{name}'"
            ))),
        }
    }

    fn __dir__(&self) -> Vec<String> {
        let mut names: Vec<String> = self.record.keys().cloned().collect();
        names.push("to_dict".into());
        names
    }

    fn __repr__(&self) -> String {
        let mut at = self.text("path").to_string();
        if let Some(func) = self.record.get("function").and_then(|v| v.as_str()) {
            at.push_str(&format!(" [{func}"));
            if let Some(op) = self.record.get("op").and_then(|v| v.as_str()) {
                at.push_str(&format!("/{op}"));
            }
            at.push(']');
        }
        format!(
            "<Diagnostic {} {} at {at}: {}>",
            self.text("severity"),
            self.text("rule"),
            self.text("message")
        )
    }
}

/// A rule and its documentation.
#[pyclass(frozen, module = "coreml_lint", get_all)]
#[derive(Clone, Debug)]
struct Rule {
    id: String,
    title: String,
    /// `error`, `warning` or `info`.
    severity: Option<String>,
    category: String,
    description: String,
    why: String,
    /// How to fix what it finds.
    fix_text: String,
    example: String,
    seen_on: Vec<String>,
    references: Vec<String>,
    /// The fix primitive the rule offers (`pad-state`), if any.
    fix: Option<String>,
    /// Everything `coreml-lint rule ID` prints.
    documentation: String,
}

#[pymethods]
impl Rule {
    fn __repr__(&self) -> String {
        format!(
            "<Rule {} ({}): {}>",
            self.id,
            self.severity.as_deref().unwrap_or("-"),
            self.title
        )
    }
}

/// Every built-in rule (and those in `rule_dirs`), sorted by id.
#[pyfunction]
#[pyo3(signature = (rule_dirs = Vec::new()))]
fn rules(rule_dirs: Vec<std::path::PathBuf>) -> PyResult<Vec<Rule>> {
    let set = RuleSet::load(&rule_dirs).map_err(|e| ConfigError::new_err(e.to_string()))?;
    Ok(set
        .infos()
        .iter()
        .map(|r| Rule {
            id: r.id.clone(),
            title: r.title.clone(),
            severity: r.default_severity.map(|s| s.to_string()),
            category: r.category.clone(),
            description: r.description.clone(),
            why: r.why.clone(),
            fix_text: r.fix_text.clone(),
            example: r.example.clone(),
            seen_on: r.seen_on.clone(),
            references: r.references.clone(),
            fix: r.fix.clone(),
            documentation: report::explain::explain(r),
        })
        .collect())
}

/// How a Python call checks: the keyword arguments, as the CLI's flags would give them.
fn options(
    select: Option<Vec<String>>,
    ignore: Vec<String>,
    config: Option<PathBuf>,
    isolated: bool,
    fix: Option<FixOptions>,
) -> CheckOptions {
    CheckOptions {
        config: match (config, isolated) {
            (_, true) => ConfigFile::Isolated,
            (Some(p), false) => ConfigFile::Path(p),
            (None, false) => ConfigFile::Find,
        },
        overrides: Overrides {
            select,
            ignore,
            ..Overrides::default()
        },
        fix,
        keep: Keep::Reports,
        // `Diagnostic.dump_line` / `.dump_column` point into the rendered text of a protobuf
        // program.
        rendering: Rendering::Text,
        baseline: None,
        cache: CacheDir::Default,
    }
}

/// What a check gave, as plain data (built with the GIL released).
struct Checked {
    diagnostics: Vec<Diagnostic>,
    /// The message of each model that could not be read, as the CLI prints it.
    read_errors: Vec<String>,
}

fn checked(outcome: &CheckOutcome) -> Checked {
    let mut out = Checked {
        diagnostics: Vec::new(),
        read_errors: Vec::new(),
    };
    for m in &outcome.run.models {
        match &m.outcome {
            ModelOutcome::Checked { model, findings } => out
                .diagnostics
                .extend(findings.iter().map(|f| Diagnostic::new(model, f))),
            ModelOutcome::Failed(e) => out.read_errors.push(e.to_string()),
            ModelOutcome::Skipped(_) => {}
        }
    }
    out
}

/// A check's run, its models' graphs included, kept by a `Report` to render itself as HTML.
#[pyclass(frozen, module = "coreml_lint")]
struct Run {
    run: CheckRun,
    rules: Vec<RuleInfo>,
}

#[pymethods]
impl Run {
    /// The HTML report as a part of another page (a notebook's output cell): the summary, the
    /// placement and each finding with its picture; every id starts with `id`.
    fn html_fragment(&self, py: Python<'_>, id: String) -> String {
        let target = report::html::Target::Fragment { id };
        py.detach(|| report::html::render_for(&self.run, &self.rules, &target))
    }

    /// The HTML report as a page of its own, as `check --output-format html` writes it.
    fn html_page(&self, py: Python<'_>) -> String {
        py.detach(|| report::html::render(&self.run, &self.rules))
    }
}

/// Runs the library's one entry with the GIL released; a config or rules error, or a model that
/// could not be read, becomes the Python exception.
fn run_check(
    py: Python<'_>,
    path: PathBuf,
    options: CheckOptions,
) -> PyResult<(Checked, Option<coreml_lint::fix::run::FixRun>, Run)> {
    let result = py.detach(move || {
        check::check(&[path], &options).map(|outcome| {
            let c = checked(&outcome);
            let run = Run {
                run: outcome.run,
                rules: outcome.rules,
            };
            (c, outcome.fixes, run)
        })
    });
    let (c, fixes, run) = result.map_err(|e| config_error(&e))?;
    if !c.read_errors.is_empty() {
        return Err(ReadError::new_err(c.read_errors.join("\n")));
    }
    Ok((c, fixes, run))
}

/// A config, rule or selector error as Python's `ConfigError`: the message, then its help (the
/// did-you-mean of an unknown selector).
fn config_error(e: &coreml_lint::check::CheckError) -> PyErr {
    use miette::Diagnostic as _;
    match e.help() {
        Some(help) => ConfigError::new_err(format!("{e}\n{help}")),
        None => ConfigError::new_err(e.to_string()),
    }
}

/// `coreml_lint.check`: the diagnostics of every model under `path`, and the run they came
/// from (its graphs kept, for the HTML report).
#[pyfunction]
#[pyo3(signature = (path, select, ignore, config, isolated, target=None, baseline=None, compute_units=None))]
#[allow(clippy::too_many_arguments)]
fn _check(
    py: Python<'_>,
    path: PathBuf,
    select: Option<Vec<String>>,
    ignore: Vec<String>,
    config: Option<PathBuf>,
    isolated: bool,
    target: Option<Vec<String>>,
    baseline: Option<PathBuf>,
    compute_units: Option<String>,
) -> PyResult<(Vec<Diagnostic>, Run)> {
    let mut options = options(select, ignore, config, isolated, None);
    // Only the findings not in the baseline file (`check --baseline FILE`).
    options.baseline = baseline.map(coreml_lint::baseline::BaselineMode::Compare);
    // The HTML report draws the graphs, and shows a protobuf program's text.
    options.keep = Keep::Programs;
    options.overrides.target = target
        .map(|t| coreml_lint::rules::DeployTarget::parse(&t))
        .transpose()
        .map_err(|e| ConfigError::new_err(e.to_string()))?;
    options.overrides.compute_units = compute_units
        .map(|u| coreml_lint::rules::ComputeUnits::parse(&u))
        .transpose()
        .map_err(|e| ConfigError::new_err(e.to_string()))?;
    let (c, _, run) = run_check(py, path, options)?;
    Ok((c.diagnostics, run))
}

/// What `_fix` returns: written roots, the model each came from, messages, failures, and the
/// diagnostics after the re-check.
type FixResult = (
    Vec<String>,
    Vec<String>,
    Vec<String>,
    usize,
    Vec<Diagnostic>,
);

/// `coreml_lint.fix`: `check --fix` (or `--unsafe-fixes`, `--output`) on `path`.
#[pyfunction]
#[pyo3(signature = (path, output, unsafe_fixes, select, config, isolated))]
fn _fix(
    py: Python<'_>,
    path: PathBuf,
    output: Option<PathBuf>,
    unsafe_fixes: bool,
    select: Option<Vec<String>>,
    config: Option<PathBuf>,
    isolated: bool,
) -> PyResult<FixResult> {
    let fix = FixOptions {
        allow_unsafe: unsafe_fixes,
        diff_only: false,
        output,
        pad_axis: None,
    };
    let options = options(select, Vec::new(), config, isolated, Some(fix));
    let (c, fixes, _) = run_check(py, path, options)?;
    let fixes = fixes.unwrap_or_default();
    let paths = |v: &[PathBuf]| v.iter().map(|p| p.display().to_string()).collect();
    Ok((
        paths(&fixes.written),
        paths(&fixes.written_from),
        fixes.messages,
        fixes.failures,
        c.diagnostics,
    ))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("ReadError", m.py().get_type::<ReadError>())?;
    m.add("ConfigError", m.py().get_type::<ConfigError>())?;
    m.add_class::<Diagnostic>()?;
    m.add_class::<Fix>()?;
    m.add_class::<Rule>()?;
    m.add_class::<Run>()?;
    m.add_function(wrap_pyfunction!(run_cli, m)?)?;
    m.add_function(wrap_pyfunction!(rules, m)?)?;
    m.add_function(wrap_pyfunction!(_check, m)?)?;
    m.add_function(wrap_pyfunction!(_fix, m)?)?;
    Ok(())
}
