//! `--output-format html`: one self-contained page (styles and script inline, nothing fetched)
//! with the summary, the placement estimate per function, each finding with the text MIL around
//! it and a picture of its subgraph, an overview picture of each function, and the documentation
//! of every rule that fired. Filters by rule, severity and model run in the page's script.
//!
//! It reads the graphs after the run: the check must keep them (`Keep::Programs`) and render
//! protobuf programs as text (`Rendering::Text`) for the line numbers and excerpts.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::analysis::placement::{Counts, FunctionPlacement, Macs};
use crate::check::placement::place_function;
use crate::check::{CheckRun, ModelOutcome};
use crate::finding::{Finding, Severity};
use crate::ir::{Function, Model};
use crate::report::graph::{self, escape, overview, select, svg, Placements};
use crate::rules::RuleInfo;

const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");
/// Lines of text MIL shown before and after a finding's line.
const CONTEXT_LINES: usize = 3;

/// Where a model result is: its index in the run and the index of its path (the sub-models of
/// one pipeline share a path, so the model filter treats them as one model).
struct ModelRef<'r> {
    result: usize,
    path_index: usize,
    model: &'r Model,
    findings: &'r [Finding],
}

/// The per-function data every picture of a function needs.
struct FunctionView<'f> {
    function: &'f Function,
    index: select::FunctionIndex<'f>,
    placement: FunctionPlacement,
    placements: Placements,
    overview: overview::Overview,
}

fn model_title(m: &Model) -> String {
    match &m.sub_model {
        Some(sub) => format!("{} ({sub})", m.path.display()),
        None => m.path.display().to_string(),
    }
}

fn severity_class(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

/// A `--placement` bar with its counts.
fn bar(c: &Counts) -> String {
    let n = |x: usize| x as f64;
    segments([
        (n(c.ane), "ane", "likely ANE", c.ane.to_string()),
        (n(c.cpu), "cpu", "likely CPU", c.cpu.to_string()),
        (n(c.at_risk), "risk", "at risk", c.at_risk.to_string()),
        (n(c.unknown), "unknown", "unknown", c.unknown.to_string()),
    ])
}

/// The bar of the multiply-accumulates by class.
fn compute_bar(m: &Macs) -> String {
    let n = |x: u64| x as f64;
    let what = |x: u64| format!("{x} MACs");
    segments([
        (n(m.ane), "ane", "likely ANE", what(m.ane)),
        (n(m.cpu), "cpu", "likely CPU", what(m.cpu)),
        (n(m.at_risk), "risk", "at risk", what(m.at_risk)),
        (n(m.unknown), "unknown", "unknown", what(m.unknown)),
    ])
}

/// A bar of segments (size, CSS class, class name, size as the tooltip says it).
fn segments(parts: [(f64, &str, &str, String); 4]) -> String {
    let total = parts.iter().map(|p| p.0).sum::<f64>().max(1.0);
    let mut out = String::from("<div class=\"bar\">");
    for (n, class, what, shown) in parts {
        if n > 0.0 {
            let _ = write!(
                out,
                "<span class=\"{class}\" style=\"width:{:.2}%\" title=\"{what}: {shown}\"></span>",
                100.0 * n / total
            );
        }
    }
    out.push_str("</div>");
    out
}

/// The 1-based line of byte `offset`, and the lines around it (number, text).
fn excerpt(text: &str, offset: usize) -> (usize, Vec<(usize, &str)>) {
    let (line, _) = crate::ir::span::line_col(text, offset);
    let first = line.saturating_sub(CONTEXT_LINES).max(1);
    let lines = text
        .lines()
        .enumerate()
        .skip(first - 1)
        .take(line + CONTEXT_LINES + 1 - first)
        .map(|(i, l)| (i + 1, l))
        .collect();
    (line, lines)
}

/// Renders the run. `rules` are every loaded rule (the documentation of those that fired is
/// embedded).
pub fn render(run: &CheckRun, rules: &[RuleInfo]) -> String {
    let mut paths: Vec<&std::path::Path> = Vec::new();
    let mut models: Vec<ModelRef<'_>> = Vec::new();
    for (result, m) in run.models.iter().enumerate() {
        let path_index = match paths.iter().position(|p| *p == m.path.as_path()) {
            Some(i) => i,
            None => {
                paths.push(&m.path);
                paths.len() - 1
            }
        };
        if let ModelOutcome::Checked { model, findings } = &m.outcome {
            models.push(ModelRef {
                result,
                path_index,
                model,
                findings,
            });
        }
    }
    let views: Vec<Vec<FunctionView<'_>>> = models
        .iter()
        .map(|m| {
            m.model
                .program
                .functions
                .iter()
                .map(|f| {
                    let placement = place_function(f, m.findings);
                    let placements = placement.by_node();
                    let overview = overview::overview(f, &placements, m.findings);
                    FunctionView {
                        function: f,
                        index: select::FunctionIndex::new(f),
                        placement,
                        placements,
                        overview,
                    }
                })
                .collect()
        })
        .collect();

    let mut out = String::with_capacity(1 << 16);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
    out.push_str("<title>coreml-lint report</title><style>");
    out.push_str(STYLE);
    out.push_str(svg::STANDALONE_STYLE);
    out.push_str("</style></head><body>\n");
    let _ = writeln!(
        out,
        "<header><h1>coreml-lint report</h1><p class=\"version\">coreml-lint {}</p></header>",
        env!("CARGO_PKG_VERSION")
    );
    summary(&mut out, run, &models, &views, &paths, rules);
    filters(&mut out, run, &paths);
    findings_section(&mut out, &models, &views);
    overviews(&mut out, &models, &views);
    rule_docs(&mut out, run, rules);
    out.push_str("<script>");
    out.push_str(SCRIPT);
    out.push_str("</script></body></html>\n");
    out
}

fn summary(
    out: &mut String,
    run: &CheckRun,
    models: &[ModelRef<'_>],
    views: &[Vec<FunctionView<'_>>],
    paths: &[&std::path::Path],
    rules: &[RuleInfo],
) {
    let s = run.summary();
    let functions: usize = views.iter().map(Vec::len).sum();
    out.push_str("<section id=\"summary\"><h2>Summary</h2><ul class=\"counts\">");
    let _ = write!(
        out,
        "<li><b>{}</b> models checked</li><li><b>{}</b> skipped</li><li><b>{}</b> failed</li>\
         <li><b>{functions}</b> functions</li><li class=\"error\"><b>{}</b> errors</li>\
         <li class=\"warning\"><b>{}</b> warnings</li><li class=\"info\"><b>{}</b> infos</li></ul>",
        s.checked, s.skipped, s.failed, s.errors, s.warnings, s.infos
    );
    let mut by_rule: BTreeMap<&str, (usize, Severity)> = BTreeMap::new();
    for x in run.findings() {
        let e = by_rule.entry(&x.rule).or_insert((0, x.severity));
        e.0 += 1;
        e.1 = e.1.max(x.severity);
    }
    if !by_rule.is_empty() {
        out.push_str(
            "<table class=\"rules\"><tr><th>rule</th><th>findings</th><th>title</th></tr>",
        );
        for (rule, (n, sev)) in &by_rule {
            let title = rules
                .iter()
                .find(|r| r.id == *rule)
                .map_or("", |r| r.title.as_str());
            let _ = write!(
                out,
                "<tr><td><a class=\"sev {}\" href=\"#rule-{}\">{}</a></td><td>{n}</td><td>{}</td></tr>",
                severity_class(*sev),
                escape(rule),
                escape(rule),
                escape(title)
            );
        }
        out.push_str("</table>");
    }
    let failed: Vec<String> = run
        .models
        .iter()
        .filter_map(|m| match &m.outcome {
            ModelOutcome::Failed(e) => Some(format!("{}: {e}", m.path.display())),
            ModelOutcome::Skipped(why) => Some(format!("{}: skipped: {why}", m.path.display())),
            ModelOutcome::Checked { .. } => None,
        })
        .collect();
    if !failed.is_empty() {
        out.push_str("<h3>Not checked</h3><ul class=\"failed\">");
        for f in failed {
            let _ = write!(out, "<li>{}</li>", escape(&f));
        }
        out.push_str("</ul>");
    }
    out.push_str(
        "<h3 id=\"placement\">Likely placement per function</h3><p class=\"note\">An ESTIMATE from \
         the op table and the findings, not Core ML's placement: confirm with MLComputePlan on the \
         target device.</p><div class=\"legend\"><span class=\"ane\"></span>likely ANE \
         <span class=\"cpu\"></span>likely CPU <span class=\"risk\"></span>at risk \
         <span class=\"unknown\"></span>unknown <span class=\"input\"></span>input</div>",
    );
    out.push_str("<table class=\"placement\"><tr><th>model</th><th>function</th><th>ops</th><th>estimate</th><th>ANE</th><th>CPU</th><th>at risk</th><th>unknown</th><th>boundaries</th><th>ANE compute</th></tr>");
    for (m, fs) in models.iter().zip(views) {
        for (fi, v) in fs.iter().enumerate() {
            let (c, macs) = (&v.placement.counts, &v.placement.macs);
            let _ = write!(
                out,
                "<tr class=\"model-row\" data-model=\"{}\"><td>{}</td><td><a href=\"#ov{}-{fi}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}{}</td></tr>",
                m.path_index,
                escape(&model_title(m.model)),
                m.result,
                escape(&v.function.name),
                c.total(),
                bar(c),
                c.ane,
                c.cpu,
                c.at_risk,
                c.unknown,
                v.placement.boundaries,
                crate::report::placement::ane_share(macs),
                compute_bar(macs)
            );
        }
    }
    out.push_str("</table>");
    let _ = paths;
    out.push_str("</section>\n");
}

fn filters(out: &mut String, run: &CheckRun, paths: &[&std::path::Path]) {
    out.push_str("<section id=\"filters\"><h2>Filter</h2><div class=\"filter-group\" data-dim=\"severity\"><b>severity</b>");
    for s in ["error", "warning", "info"] {
        let _ = write!(
            out,
            "<label><input type=\"checkbox\" checked value=\"{s}\"> {s}</label>"
        );
    }
    out.push_str("</div><div class=\"filter-group\" data-dim=\"rule\"><b>rule</b>");
    let mut rules: Vec<&str> = run.findings().map(|x| x.rule.as_str()).collect();
    rules.sort_unstable();
    rules.dedup();
    for r in rules {
        let _ = write!(
            out,
            "<label><input type=\"checkbox\" checked value=\"{}\"> {}</label>",
            escape(r),
            escape(r)
        );
    }
    let _ = write!(
        out,
        "</div><details class=\"filter-group\" data-dim=\"model\"{}><summary>model ({})</summary>",
        if paths.len() <= 8 { " open" } else { "" },
        paths.len()
    );
    for (i, p) in paths.iter().enumerate() {
        let _ = write!(
            out,
            "<label><input type=\"checkbox\" checked value=\"{i}\"> {}</label>",
            escape(&p.display().to_string())
        );
    }
    out.push_str("</details><p id=\"shown\"></p></section>\n");
}

fn findings_section(out: &mut String, models: &[ModelRef<'_>], views: &[Vec<FunctionView<'_>>]) {
    out.push_str("<section id=\"findings\"><h2>Findings</h2>");
    let mut n = 0;
    for (m, fs) in models.iter().zip(views) {
        let all: Vec<&Finding> = m.findings.iter().collect();
        for x in m.findings {
            n += 1;
            finding(out, n, m, fs, x, &all);
        }
    }
    if n == 0 {
        out.push_str("<p class=\"clean\">No findings.</p>");
    }
    out.push_str("</section>\n");
}

fn finding(
    out: &mut String,
    n: usize,
    m: &ModelRef<'_>,
    fs: &[FunctionView<'_>],
    x: &Finding,
    all: &[&Finding],
) {
    let sev = severity_class(x.severity);
    let _ = write!(
        out,
        "<article class=\"finding\" id=\"f{n}\" data-severity=\"{sev}\" data-rule=\"{}\" data-model=\"{}\">\
         <h3><span class=\"sev {sev}\">{sev}</span> <a href=\"#rule-{}\">{}</a></h3><p class=\"message\">{}</p>",
        escape(&x.rule),
        m.path_index,
        escape(&x.rule),
        escape(&x.rule),
        escape(&x.message)
    );
    if let Some(help) = &x.help {
        let _ = write!(out, "<p class=\"help\"><b>help:</b> {}</p>", escape(help));
    }
    if let Some(fix) = &x.fix {
        let _ = write!(
            out,
            "<p class=\"fix\"><b>fix ({}, {}):</b> {}</p>",
            escape(&fix.kind),
            escape(&format!("{:?}", fix.applicability).to_lowercase()),
            escape(&fix.title)
        );
    }
    let text = &m.model.source.text;
    let mut location = model_title(m.model);
    if let Some(func) = &x.function {
        let _ = write!(location, " · {func}");
        if let Some(op) = &x.op {
            let _ = write!(location, "/{op}");
        }
    }
    let (line, lines) = match x.span.filter(|s| s.start < text.len()) {
        Some(span) => {
            let (line, lines) = excerpt(text, span.start);
            (Some(line), lines)
        }
        None => (None, Vec::new()),
    };
    let file = m.model.source.file.display().to_string();
    match line {
        Some(l) => {
            let _ = write!(
                out,
                "<p class=\"location\">{} · <code>{}:{l}</code>{}</p>",
                escape(&location),
                escape(&file),
                if m.model.source.is_file {
                    ""
                } else {
                    " (the program rendered as text MIL)"
                }
            );
        }
        None => {
            let _ = write!(out, "<p class=\"location\">{}</p>", escape(&location));
        }
    }
    if !lines.is_empty() {
        out.push_str("<pre class=\"source\">");
        for (i, l) in lines {
            let class = if Some(i) == line { " class=\"at\"" } else { "" };
            let _ = writeln!(out, "<span{class}><i>{i:>5}</i> {}</span>", escape(l));
        }
        out.push_str("</pre>");
    }
    let view = x
        .function
        .as_deref()
        .and_then(|name| fs.iter().position(|v| v.function.name == name))
        .or(if fs.len() == 1 { Some(0) } else { None });
    if let Some(fi) = view {
        let v = &fs[fi];
        let picture = graph::finding_picture(&v.index, v.function, &v.placements, x, all);
        let id = format!("f{n}g");
        let _ = write!(
            out,
            "<div class=\"picture\" data-nodes=\"{}\">{}</div>",
            picture.nodes.len(),
            svg::render(&picture, &id)
        );
        if picture.omitted > 0 {
            let _ = write!(
                out,
                "<p class=\"note\">{} more nodes of the region are not drawn (`coreml-lint graph --around`).</p>",
                picture.omitted
            );
        }
        let target =
            x.op.as_deref()
                .or(x.state.as_deref())
                .and_then(|name| v.overview.box_of(name));
        let _ = write!(
            out,
            "<p><a class=\"to-overview\" href=\"#ov{}-{fi}\" data-box=\"{}\">show in the overview of {}</a></p>",
            m.result,
            target.map_or(String::new(), |b| format!("ov{}-{fi}-n{b}", m.result)),
            escape(&v.function.name)
        );
    } else {
        out.push_str("<div class=\"picture none\"><p class=\"note\">This finding is about the model, not about a function's graph.</p></div>");
    }
    out.push_str("</article>\n");
}

fn overviews(out: &mut String, models: &[ModelRef<'_>], views: &[Vec<FunctionView<'_>>]) {
    out.push_str("<section id=\"overviews\"><h2>Overview of each function</h2>\
        <p class=\"note\">Scroll to zoom, drag to pan, double-click to reset. Large functions are drawn as groups of consecutive ops, each with its placement bar; a red badge counts the findings in a box.</p>");
    for (m, fs) in models.iter().zip(views) {
        for (fi, v) in fs.iter().enumerate() {
            let id = format!("ov{}-{fi}", m.result);
            let o = &v.overview;
            let _ = writeln!(
                out,
                "<article class=\"overview\" id=\"{id}-section\" data-model=\"{}\"><h3>{} · {}</h3><p class=\"note\">{} ops{}</p><div class=\"zoom\">{}</div></article>",
                m.path_index,
                escape(&model_title(m.model)),
                escape(&v.function.name),
                v.function.op_count(),
                if o.grouped {
                    format!(", drawn as {} groups", o.picture.nodes.iter().filter(|n| n.counts.is_some()).count())
                } else {
                    String::new()
                },
                svg::render(&o.picture, &id)
            );
        }
    }
    out.push_str("</section>\n");
}

fn rule_docs(out: &mut String, run: &CheckRun, rules: &[RuleInfo]) {
    let mut fired: Vec<&str> = run.findings().map(|x| x.rule.as_str()).collect();
    fired.sort_unstable();
    fired.dedup();
    if fired.is_empty() {
        return;
    }
    out.push_str("<section id=\"rules\"><h2>Rules</h2>");
    for id in fired {
        let text = rules.iter().find(|r| r.id == id).map_or_else(
            || format!("{id}: not a loaded rule"),
            crate::report::explain::explain,
        );
        let _ = write!(
            out,
            "<article class=\"rule-doc\" id=\"rule-{}\"><pre>{}</pre></article>",
            escape(id),
            escape(&text)
        );
    }
    out.push_str("</section>\n");
}

/// `coreml-lint graph --format html`: the pictures, titled, each zoomable.
pub fn pictures_page(pictures: &[(String, graph::Picture)]) -> String {
    let mut out = String::from("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>coreml-lint graph</title><style>");
    out.push_str(STYLE);
    out.push_str(svg::STANDALONE_STYLE);
    out.push_str("</style></head><body><h1>coreml-lint graph</h1><p class=\"note\">Ops coloured by the placement ESTIMATE (not Core ML's placement). Scroll to zoom, drag to pan, double-click to reset.</p>");
    for (i, (title, p)) in pictures.iter().enumerate() {
        let _ = write!(
            out,
            "<article class=\"overview\"><h3>{}</h3>{}<div class=\"zoom\">{}</div></article>",
            escape(title),
            if p.omitted > 0 {
                format!("<p class=\"note\">{} more nodes not drawn.</p>", p.omitted)
            } else {
                String::new()
            },
            svg::render(p, &format!("p{i}"))
        );
    }
    out.push_str("<script>");
    out.push_str(SCRIPT);
    out.push_str("</script></body></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpt_shows_the_line_and_its_neighbours() {
        let text = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let (line, lines) = excerpt(text, text.find('e').unwrap());
        assert_eq!(line, 5);
        let numbers: Vec<usize> = lines.iter().map(|l| l.0).collect();
        assert_eq!(numbers, [2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(lines[3].1, "e");
        let (line, lines) = excerpt(text, 0);
        assert_eq!((line, lines.len()), (1, 4));
    }
}
