//! The `coreml-lint` command line: parses arguments, calls the library, maps results to exit codes.
//!
//! Exit codes: 0 no finding at or above the fail level; 1 findings at or above it; 2 usage or input
//! error (a model that could not be read, a bad config or rule file, a refused fix).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::OnceLock;

use clap::{Args, Parser, Subcommand, ValueEnum};
use coreml_lint::baseline::{BaselineMode, BaselineOutcome};
use coreml_lint::check::{self, CheckOptions, CheckOutcome, ConfigFile, Keep, Observer, Rendering};
use coreml_lint::config::Overrides;
use coreml_lint::finding::Severity;
use coreml_lint::fix::run::{fixed_texts, FixOptions};
use coreml_lint::report;
use coreml_lint::rules::{CacheDir, ComputeUnits, DeployTarget, RuleSet};

#[derive(Parser)]
#[command(
    name = "coreml-lint",
    version,
    about = "Static analyzer for Core ML models: finds Neural Engine hazards and fixes the one-row KV-state pad"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check models for hazards (and fix them with --fix).
    Check(CheckArgs),
    /// Print each model's program as text MIL.
    Dump {
        /// Models or folders.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Explain a rule, or list every rule with --all.
    #[command(alias = "explain")]
    Rule {
        /// Rule id.
        id: Option<String>,
        /// List every rule.
        #[arg(long)]
        all: bool,
        /// Extra rule folders.
        #[arg(long = "rules", value_name = "DIR")]
        rules: Vec<PathBuf>,
    },
    /// Draw a function's graph (or the region around an op), coloured by the placement estimate.
    Graph(GraphArgs),
    /// Run the `tests:` of rules (built-ins, or the rule files in DIR).
    TestRules {
        /// Folders of rule files (default: the built-in rules).
        dirs: Vec<PathBuf>,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
enum OutputFormat {
    Human,
    Concise,
    Json,
    Sarif,
    Github,
    /// One self-contained HTML page with pictures.
    Html,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
enum GraphFormat {
    Dot,
    Svg,
    Html,
    /// Google's Model Explorer: the graph JSON at --output and its node data files beside it.
    ModelExplorer,
}

#[derive(Args)]
struct GraphArgs {
    /// The model.
    model: PathBuf,
    /// The function to draw (default: every function; dot and svg draw the first).
    #[arg(long, value_name = "F")]
    function: Option<String>,
    /// Draw the ops within --depth hops of this op (or input) instead of the whole function.
    #[arg(long, value_name = "OP")]
    around: Option<String>,
    /// Hops around --around.
    #[arg(long, default_value_t = 2, value_name = "N")]
    depth: usize,
    /// Output format.
    #[arg(long, value_enum, default_value = "svg")]
    format: GraphFormat,
    /// Write to FILE instead of standard output (model-explorer: the graph JSON; its node data
    /// files are written beside it, FILE's stem with .units.json, .reasons.json, …).
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    /// The compute units the app loads the model with (as `check --compute-units`).
    #[arg(long, value_name = "UNITS", value_parser = valid_units)]
    compute_units: Option<ComputeUnits>,
    /// Deployment target (as `check --target`).
    #[arg(long, value_name = "TARGET", value_parser = valid_target)]
    target: Option<String>,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
enum Level {
    Info,
    Warning,
    Error,
}

impl From<Level> for Severity {
    fn from(l: Level) -> Severity {
        match l {
            Level::Info => Severity::Info,
            Level::Warning => Severity::Warning,
            Level::Error => Severity::Error,
        }
    }
}

#[derive(Args)]
struct CheckArgs {
    /// Models, folders holding models, or files inside a package (default: the current folder).
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    output_format: OutputFormat,
    /// Rules to enable (ids or prefixes such as `state`), replacing the config's list.
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    select: Option<Vec<String>>,
    /// Rules to enable in addition to those selected.
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    extend_select: Vec<String>,
    /// Rules to disable.
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    ignore: Vec<String>,
    /// Lowest severity that makes the exit code 1.
    #[arg(long, value_enum)]
    fail_on: Option<Level>,
    /// Exit 0 even when there are findings (input errors still exit 2).
    #[arg(long)]
    exit_zero: bool,
    /// Config file (default: coreml-lint.yaml found upward from the first path).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Ignore every config file.
    #[arg(long, conflicts_with = "config")]
    isolated: bool,
    /// Extra folders of YAML rules.
    #[arg(long = "rules", value_name = "DIR")]
    rules: Vec<PathBuf>,
    /// Keep the rule folders' parsed YAML in DIR between runs (default: $COREML_LINT_CACHE_DIR,
    /// else the user's cache folder, e.g. ~/.cache/coreml-lint).
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// Neither read nor write the cache of parsed rule files.
    #[arg(long, conflicts_with = "cache_dir")]
    no_cache: bool,
    /// Deployment target: the app's minimum OS and the chip families it runs on, comma-separated
    /// (`ios17`, `macos14,m1`, `iphone`, `a15,a17`); replaces the config's `target`.
    #[arg(long, value_name = "TARGET", value_parser = valid_target)]
    target: Option<String>,
    /// The compute units the app loads the models with (Core ML's MLComputeUnits): all (the
    /// default, as Core ML's), cpu-and-ne, cpu-and-gpu, cpu-only; replaces the config's
    /// `compute-units`. Rules about units the app does not use stay quiet.
    #[arg(long, value_name = "UNITS", value_parser = valid_units)]
    compute_units: Option<ComputeUnits>,
    /// Apply safe fixes.
    #[arg(long)]
    fix: bool,
    /// Also apply unsafe fixes (implies --fix; with --diff, shows them without writing).
    #[arg(long)]
    unsafe_fixes: bool,
    /// Print the changes fixes would make as a unified diff of the text MIL, without writing.
    #[arg(long)]
    diff: bool,
    /// Write fixed copies into DIR instead of changing the input.
    #[arg(long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// Axis to pad a state on when the write window does not say.
    #[arg(long, value_name = "AXIS")]
    pad_axis: Option<usize>,
    /// Print only the summary line (and errors).
    #[arg(short, long)]
    quiet: bool,
    /// Print only a table of findings per rule, instead of the report. Columns: findings (count),
    /// ops (the ops they cover: one fp32 region is one finding over many ops), rule (id), fix
    /// (`[*]` when the rule offers a fix), title.
    #[arg(long)]
    statistics: bool,
    /// Print an estimate of where each op is likely to run (ANE / CPU / at risk), with the reason,
    /// the ANE↔CPU boundaries and the ANE share of compute, and the CPU ops named; with
    /// `--output-format json`, as the document's `placement` member (per function counts, MACs by
    /// device and boundaries, per op device, reason and MACs). An estimate, not Core ML's placement.
    #[arg(long)]
    placement: bool,
    /// Report only the findings not in this baseline file (and ops that left the Neural Engine
    /// since it was written); replaces the config's `baseline`.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Write every finding of the run and the placement estimate to this baseline file (exit 0
    /// once written); the config's `baseline` is not compared with.
    #[arg(long, value_name = "FILE", conflicts_with = "baseline")]
    write_baseline: Option<PathBuf>,
    /// When to use colour (also honours NO_COLOR).
    #[arg(long, value_enum, default_value = "auto")]
    color: ColorChoice,
}

/// Writes to stdout; a closed pipe (`| head`) ends the program quietly instead of panicking.
fn emit(text: &str) {
    let mut out = std::io::stdout().lock();
    if out
        .write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .is_err()
    {
        std::process::exit(0);
    }
}

fn report_error(e: impl miette::Diagnostic + Send + Sync + 'static) {
    // An error quoting a model's strings with a control or bidi character is shown escaped,
    // without colours.
    let mut plain = String::new();
    let _ = miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .render_report(&mut plain, &e);
    if report::model_text::lines_need_escape(&plain) {
        eprint!("{}", report::model_text::terminal_lines(&plain));
        return;
    }
    eprintln!("{:?}", miette::Report::new(e));
}

fn use_color(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stdout().is_terminal()
        }
    }
}

// The reader builds many small allocations (graph nodes, names); mimalloc (v2: v3's huge-page arenas
// raise peak RSS by a third) costs less CPU than glibc's allocator (BENCHMARKS.md).
#[global_allocator]
static GLOBAL: coreml_lint::allocator::Mimalloc = coreml_lint::allocator::Mimalloc;

fn main() -> ExitCode {
    coreml_lint::allocator::purge_freed_memory_at_once();
    ExitCode::from(run(std::env::args_os()))
}

/// The program for these arguments (the first is the program name), returning the exit code. The
/// Python package's `coreml-lint` command compiles this file into its native module and calls it.
pub fn run(args: impl IntoIterator<Item = std::ffi::OsString>) -> u8 {
    let cli = Cli::parse_from(args);
    let color = match &cli.command {
        Command::Check(a) => use_color(a.color),
        _ => use_color(ColorChoice::Auto),
    };
    let _ = miette::set_hook(Box::new(move |_| {
        Box::new(
            miette::MietteHandlerOpts::new()
                .wrap_lines(false)
                .color(color)
                .unicode(color)
                .build(),
        )
    }));
    match cli.command {
        Command::Check(args) => check(args),
        Command::Dump { paths } => dump(&paths),
        Command::Rule { id, all, rules } => rule(id, all, &rules),
        Command::TestRules { dirs } => test_rules(&dirs),
        Command::Graph(args) => graph(&args),
    }
}

fn load_rules(dirs: &[PathBuf]) -> Option<RuleSet> {
    match RuleSet::load(dirs) {
        Ok(r) => Some(r),
        Err(e) => {
            report_error(e);
            None
        }
    }
}

/// The progress line on stderr, once the number of models is known.
#[derive(Default)]
struct StderrProgress(OnceLock<report::progress::Progress>);

impl Observer for StderrProgress {
    fn started(&self, models: usize) {
        let _ = self.0.set(report::progress::Progress::stderr(models));
    }
    fn model_done(&self) {
        if let Some(p) = self.0.get() {
            p.tick();
        }
    }
    fn finished(&self) {
        if let Some(p) = self.0.get() {
            p.finish();
        }
    }
}

/// `--target` as given, once it parses (unknown tokens are clap's usage errors).
fn valid_target(text: &str) -> Result<String, String> {
    DeployTarget::parse(&[text])
        .map(|_| text.to_string())
        .map_err(|e| e.to_string())
}

/// `--compute-units`, with a suggestion for an unknown value (clap's usage error, exit 2).
fn valid_units(text: &str) -> Result<ComputeUnits, String> {
    ComputeUnits::parse(text).map_err(|e| e.to_string())
}

fn check(args: CheckArgs) -> u8 {
    // `--unsafe-fixes` implies `--fix`, unless `--diff` asks only to show the changes.
    let fixing = args.fix || args.unsafe_fixes || args.diff;
    let diff_only = args.diff && !args.fix;
    let options = CheckOptions {
        config: match (&args.config, args.isolated) {
            (_, true) => ConfigFile::Isolated,
            (Some(p), false) => ConfigFile::Path(p.clone()),
            (None, false) => ConfigFile::Find,
        },
        overrides: Overrides {
            select: args.select.clone(),
            extend_select: args.extend_select.clone(),
            ignore: args.ignore.clone(),
            fail_on: args.fail_on.map(Severity::from),
            rules: args.rules.clone(),
            target: args
                .target
                .as_deref()
                .and_then(|t| DeployTarget::parse(&[t]).ok()),
            compute_units: args.compute_units,
        },
        fix: fixing.then(|| FixOptions {
            allow_unsafe: args.unsafe_fixes,
            diff_only,
            output: args.output.clone(),
            pad_axis: args.pad_axis,
        }),
        // SARIF (which carries each text model's fixed `model.mil`) and the placement estimate
        // read the graphs after the run.
        keep: if args.placement
            || matches!(args.output_format, OutputFormat::Sarif | OutputFormat::Html)
        {
            Keep::Programs
        } else {
            Keep::Reports
        },
        // Only the human and HTML reports show a protobuf program's text (line numbers and
        // snippets): the human one only the lines it quotes; JSON and SARIF give its
        // `dump_line`s, which need the lines but not the text.
        rendering: if args.output_format == OutputFormat::Html && !args.quiet {
            Rendering::Text
        } else if args.output_format == OutputFormat::Human && !args.quiet {
            Rendering::Quoted
        } else if matches!(args.output_format, OutputFormat::Json | OutputFormat::Sarif) {
            Rendering::Lines
        } else {
            Rendering::Skip
        },
        cache: match (&args.cache_dir, args.no_cache) {
            (_, true) => CacheDir::Off,
            (Some(dir), false) => CacheDir::Dir(dir.clone()),
            (None, false) => CacheDir::Default,
        },
        baseline: match (&args.baseline, &args.write_baseline) {
            (_, Some(file)) => Some(BaselineMode::Write(file.clone())),
            (Some(file), None) => Some(BaselineMode::Compare(file.clone())),
            (None, None) => None,
        },
    };
    let outcome = match check::check_observed(&args.paths, &options, &StderrProgress::default()) {
        Ok(o) => o,
        Err(e) => {
            report_error(e);
            return 2;
        }
    };
    if let Some(fixed) = &outcome.fixes {
        // The model's lines and names, for the terminal.
        if diff_only {
            emit(&report::model_text::terminal_lines(&fixed.diff));
        }
        eprint!(
            "{}",
            report::model_text::terminal_lines(&fixed.render_messages())
        );
    }
    if !diff_only {
        print_run(&outcome, &args);
    }
    let written = matches!(outcome.run.baseline, Some(BaselineOutcome::Written(_)));
    let code = if outcome.has_errors() {
        2
    } else if !args.exit_zero && !written && outcome.has_failing_findings() {
        1
    } else {
        0
    };
    // The process ends right after this: freeing every model's graph one node at a time would
    // cost about a tenth of a large model's check (BENCHMARKS.md); the OS reclaims it at once.
    std::mem::forget(outcome);
    code
}

/// `$COLUMNS` when set, else the terminal's width when stdout is one (the report falls back to 100).
fn output_width() -> Option<usize> {
    let columns = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse().ok());
    columns.filter(|&c: &usize| c > 0).or_else(|| {
        std::io::stdout()
            .is_terminal()
            .then(|| terminal_size::terminal_size().map(|(w, _)| usize::from(w.0)))
            .flatten()
    })
}

fn print_run(outcome: &CheckOutcome, args: &CheckArgs) {
    let run = &outcome.run;
    let infos = &outcome.rules;
    let base = std::env::current_dir().unwrap_or_default();
    let text = match args.output_format {
        OutputFormat::Human => report::human::render(
            run,
            report::human::HumanOptions {
                color: use_color(args.color),
                width: output_width(),
                quiet: args.quiet,
            },
        ),
        OutputFormat::Concise => report::concise::render(run),
        OutputFormat::Json if args.placement => {
            let mut doc = report::json::document(run);
            doc["placement"] = report::placement::json(run);
            report::json::to_text(&doc)
        }
        OutputFormat::Json => report::json::render(run),
        OutputFormat::Sarif => report::sarif::render(
            run,
            infos,
            &base,
            &fixed_texts(run.checked(), args.pad_axis),
        ),
        OutputFormat::Github => report::github::render(run, &base),
        OutputFormat::Html => report::html::render(run, infos),
    };
    if args.statistics {
        emit(&report::statistics::render(run, infos));
    } else {
        emit(&text);
    }
    // The human report ends with it; JSON carries it; other stdout stays one document.
    if args.statistics || !matches!(args.output_format, OutputFormat::Human | OutputFormat::Json) {
        eprint!("{}", report::baseline::summary(run));
    }
    if args.placement {
        let table = report::placement::render(run);
        match args.output_format {
            // JSON carries it in the document; other machine-readable stdout stays one document.
            OutputFormat::Json => {}
            OutputFormat::Sarif | OutputFormat::Github | OutputFormat::Html => eprint!("{table}"),
            OutputFormat::Human | OutputFormat::Concise => emit(&table),
        }
    }
}

fn dump(paths: &[PathBuf]) -> u8 {
    use coreml_lint::read::{read_model, ReadOutcome, Stage};
    let mut code = 0;
    let found = coreml_lint::discover::discover(paths);
    let many = found.len() > 1;
    let program = |m: &coreml_lint::ir::Model| {
        // A pipeline's sub-models are told apart by a heading even when only one model is dumped.
        let heading = match (many, &m.sub_model) {
            (true, Some(sub)) => Some(format!("// {} {sub}\n", m.path.display())),
            (true, None) => Some(format!("// {}\n", m.path.display())),
            (false, Some(sub)) => Some(format!("// {sub}\n")),
            (false, None) => None,
        };
        // The model's names with their controls and bidi characters shown escaped.
        let terminal = report::model_text::terminal_lines;
        emit(&terminal(&heading.unwrap_or_default()));
        if m.kind == coreml_lint::ir::ModelKind::AiModel {
            emit(&terminal(&m.source.text));
        } else {
            emit(&terminal(&coreml_lint::ir::render::render_to_string(
                &m.program,
            )));
        }
        emit("\n");
    };
    for d in found {
        let read = d.and_then(|d| read_model(&d).map(|o| (d.path, o)));
        match read {
            Ok((_, ReadOutcome::Model(m))) => program(&m),
            Ok((path, ReadOutcome::Pipeline(stages))) => {
                for stage in stages {
                    match stage {
                        Stage::Program(m) => program(&m),
                        Stage::Other {
                            sub_model,
                            what,
                            read,
                        } => {
                            let skip = coreml_lint::check::Skip {
                                what: format!("{}: {sub_model}: {what}", path.display()),
                                read,
                            };
                            eprintln!("{}", report::model_text::terminal(&skip.note()))
                        }
                    }
                }
            }
            Ok((_, ReadOutcome::NotMlProgram { path, what })) => {
                let line = format!("{}: {what}: not an ML Program, not checked", path.display());
                eprintln!("{}", report::model_text::terminal(&line))
            }
            Err(e) => {
                report_error(e);
                code = 2;
            }
        }
    }
    code
}

fn rule(id: Option<String>, all: bool, dirs: &[PathBuf]) -> u8 {
    let Some(rules) = load_rules(dirs) else {
        return 2;
    };
    let infos = rules.infos();
    match (id, all) {
        (Some(id), _) => {
            let id = rules.resolve(&id).to_string();
            match infos.iter().find(|r| r.id == id) {
                Some(info) => {
                    emit(&report::explain::explain(info));
                    0
                }
                None => {
                    let suggestion = coreml_lint::suggest::did_you_mean(
                        &id,
                        infos.iter().map(|r| r.id.as_str()),
                    );
                    eprintln!("error: no rule `{id}`{suggestion} (see `coreml-lint rule --all`)");
                    2
                }
            }
        }
        (None, true) => {
            emit(&report::explain::list(&infos));
            0
        }
        (None, false) => {
            eprintln!("error: give a rule id, or --all to list every rule");
            2
        }
    }
}

fn graph(args: &GraphArgs) -> u8 {
    use report::graph::{pictures, GraphRequest};
    use report::pictures::render_pictures;
    if args.format == GraphFormat::ModelExplorer && args.output.is_none() {
        eprintln!(
            "error: --format model-explorer writes several files: give the graph's with --output FILE.json"
        );
        return 2;
    }
    let options = CheckOptions {
        keep: Keep::Programs,
        rendering: Rendering::Skip,
        // The picture shows every finding, baselined or not.
        baseline: Some(BaselineMode::Off),
        overrides: Overrides {
            target: args
                .target
                .as_deref()
                .and_then(|t| DeployTarget::parse(&[t]).ok()),
            compute_units: args.compute_units,
            ..Overrides::default()
        },
        ..CheckOptions::default()
    };
    let outcome = match check::check(std::slice::from_ref(&args.model), &options) {
        Ok(o) => o,
        Err(e) => {
            report_error(e);
            return 2;
        }
    };
    for m in &outcome.run.models {
        if let check::ModelOutcome::Failed(e) = &m.outcome {
            eprintln!(
                "{}",
                report::model_text::terminal(&format!("{}: {e}", m.path.display()))
            );
            return 2;
        }
    }
    if let (GraphFormat::ModelExplorer, Some(out)) = (args.format, &args.output) {
        return model_explorer(args, &outcome.run, out);
    }
    let request = GraphRequest {
        function: args.function.clone(),
        around: args.around.clone(),
        depth: args.depth,
    };
    let format = match args.format {
        GraphFormat::Dot => report::graph::GraphFormat::Dot,
        GraphFormat::Svg => report::graph::GraphFormat::Svg,
        GraphFormat::Html | GraphFormat::ModelExplorer => report::graph::GraphFormat::Html,
    };
    match pictures(&outcome.run, &request) {
        Ok(p) => {
            if let Some(excluded) = report::placement::excluded_text(&outcome.run) {
                eprintln!("note: {excluded}; the ops are drawn uncoloured");
            }
            if p.len() > 1 && format != report::graph::GraphFormat::Html {
                eprintln!(
                    "note: {} pictures match; drawing the first ({}); use --function or --format html",
                    p.len(),
                    report::model_text::terminal(&p[0].0)
                );
            }
            let text = render_pictures(&p, format);
            match &args.output {
                Some(out) => write_output(out, &text),
                None => {
                    emit(&text);
                    0
                }
            }
        }
        Err(what) => {
            let what = format!("{}: {what}", args.model.display());
            eprintln!("error: {}", report::model_text::terminal(&what));
            2
        }
    }
}

/// Writes `text` to `path` through a temporary file beside it (a reader never sees half a file).
fn write_file(path: &Path, text: &str) -> std::io::Result<()> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = path.with_file_name(format!(".{name}.coreml-lint-tmp"));
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, path))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
}

fn write_output(path: &Path, text: &str) -> u8 {
    match write_file(path, text) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: cannot write {}: {e}", path.display());
            2
        }
    }
}

/// `graph --format model-explorer`: the graph JSON at `out`, the node data files beside it, and
/// the command that opens them.
fn model_explorer(args: &GraphArgs, run: &check::CheckRun, out: &Path) -> u8 {
    use report::graph::model_explorer::export;
    let export = match export(run, args.function.as_deref()) {
        Ok(e) => e,
        Err(what) => {
            eprintln!("error: {}: {what}", args.model.display());
            return 2;
        }
    };
    let stem = out.file_stem().unwrap_or_default().to_string_lossy();
    let stem = stem.strip_suffix(".graph").unwrap_or(&stem).to_string();
    let mut files = vec![(out.to_path_buf(), export.graph)];
    for (suffix, text) in export.node_data {
        files.push((out.with_file_name(format!("{stem}.{suffix}.json")), text));
    }
    for (path, text) in &files {
        if write_output(path, text) != 0 {
            return 2;
        }
    }
    let data: Vec<String> = files[1..]
        .iter()
        .map(|(p, _)| p.display().to_string())
        .collect();
    eprintln!(
        "wrote {} ({} graphs, {} nodes) and {} node data files; open it with\n  model-explorer {} --node_data_paths={}",
        out.display(),
        export.graphs,
        export.nodes,
        data.len(),
        out.display(),
        data.join(","),
    );
    0
}

fn test_rules(dirs: &[PathBuf]) -> u8 {
    let rules = if dirs.is_empty() {
        RuleSet::builtin()
    } else {
        RuleSet::load_dirs_only(dirs)
    };
    let rules = match rules {
        Ok(r) => r,
        Err(e) => {
            report_error(e);
            return 2;
        }
    };
    let report =
        coreml_lint::rules::run_rule_tests_with(&rules, &coreml_lint::lint::model_entities);
    emit(&format!("{report}\n"));
    if report.passed() {
        0
    } else {
        1
    }
}
