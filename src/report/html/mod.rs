//! `--output-format html`: one self-contained page (styles and script inline, nothing fetched)
//! with the summary, the placement estimate per function, each finding with the text MIL around
//! it and a picture of its subgraph, an overview picture of each function, and the documentation
//! of every rule that fired. Filters by rule, severity and model run in the page's script.
//!
//! It reads the graphs after the run: the check must keep them (`Keep::Programs`) and render
//! protobuf programs as text (`Rendering::Text`) for the line numbers and excerpts.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use crate::analysis::placement::FunctionPlacement;
use crate::check::placement::{ane_excluded, place_function};
use crate::check::{CheckRun, ModelOutcome};
use crate::finding::{Finding, Severity};
use crate::ir::Model;
use crate::report::graph::{self, overview, select, svg};
use crate::report::model_text::{html as escape, html_text, xml as attribute};
use crate::rules::RuleInfo;

mod layered;
mod pictures;
mod placement_table;
mod style;
mod view;

use pictures::{draw_findings, store, zoom_box, Drawn};
use placement_table::PlacementLayout;
use style::scoped;
use view::{FunctionView, ModelRef, Page};

const STYLE: &str = include_str!("page.css");
/// The page around a report of its own (a fragment leaves the page's styles alone).
const PAGE_STYLE: &str =
    "body { margin: 0 auto; max-width: 1200px; padding: 0 1.5em 4em; background: #fff; }\n";
const SCRIPT: &str = include_str!("page.js");
/// Lines of text MIL shown before and after a finding's line.
const CONTEXT_LINES: usize = 3;

/// A path as the report shows it: relative to the folder `check` ran in (`../models/x` too),
/// as given when it has no relation to it.
fn shown_path(path: &std::path::Path) -> String {
    let relative = std::env::current_dir()
        .ok()
        .filter(|_| path.is_absolute())
        .and_then(|cwd| relative_to(path, &cwd));
    relative.unwrap_or_else(|| path.display().to_string())
}

/// `path` relative to the folder `base` (both absolute), `..` for each folder of `base` it is not
/// in; `None` when they share no first component.
fn relative_to(path: &std::path::Path, base: &std::path::Path) -> Option<String> {
    use std::path::Component;
    let p: Vec<Component<'_>> = path.components().collect();
    let b: Vec<Component<'_>> = base.components().collect();
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    // Only the root in common: the absolute path says more.
    if common <= 1 {
        return None;
    }
    let mut out = std::path::PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c.as_os_str());
    }
    Some(if out.as_os_str().is_empty() {
        ".".to_string()
    } else {
        out.display().to_string()
    })
}

fn model_title(m: &Model) -> String {
    match &m.sub_model {
        Some(sub) => format!("{} ({sub})", shown_path(&m.path)),
        None => shown_path(&m.path),
    }
}

fn severity_class(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
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

/// Where a report is shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A page of its own: filters, overviews and rule documentation included.
    Page,
    /// A part of another page (a notebook's output cell): the summary, placement and findings,
    /// every id starting with `id`, every style rule scoped to the report's element.
    Fragment {
        /// Unique in the page the fragment goes into.
        id: String,
    },
}

/// The class of the element every report sits in; the stylesheet is scoped to it.
const ROOT_CLASS: &str = "coreml-lint";

/// Renders the run as a page of its own. `rules` are every loaded rule (the documentation of
/// those that fired is embedded).
pub fn render(run: &CheckRun, rules: &[RuleInfo]) -> String {
    render_for(run, rules, &Target::Page)
}

/// Renders the run for `target`.
pub fn render_for(run: &CheckRun, rules: &[RuleInfo], target: &Target) -> String {
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
                title: model_title(model),
                ane_excluded: ane_excluded(run, model),
            });
        }
    }
    // Findings are numbered through the page in model order, from 1.
    let mut first_finding = 1;
    let views: Vec<Vec<FunctionView<'_>>> = models
        .iter()
        .map(|m| {
            let first = first_finding;
            first_finding += m.findings.len();
            m.model
                .program
                .functions
                .iter()
                .enumerate()
                .map(|(fi, f)| {
                    // Units without the Neural Engine: nothing to estimate, every op drawn uncoloured.
                    let placement = match m.ane_excluded {
                        Some(_) => FunctionPlacement::default(),
                        None => place_function(f, m.findings),
                    };
                    let placements = placement.by_node();
                    let drawn = f.ops().filter(|(_, op)| op.op_type != "const").count();
                    // A large function is shown by layer, not drawn.
                    let (overview, layered) = if drawn > overview::FULL_UP_TO {
                        let id = format!("ov{}-{fi}", m.result);
                        let l = layered::layered(f, &placement, m.findings, first, &id);
                        (overview::Overview::default(), Some(l))
                    } else {
                        (overview::overview(f, &placements, m.findings), None)
                    };
                    FunctionView {
                        function: f,
                        index: select::FunctionIndex::new(f),
                        placement,
                        placements,
                        overview,
                        layered,
                    }
                })
                .collect()
        })
        .collect();

    let (ids, fragment) = match target {
        Target::Page => (String::new(), false),
        Target::Fragment { id } => (format!("{id}-"), true),
    };
    let mut page = Page {
        out: String::with_capacity(1 << 16),
        arrow: format!("{ids}arrow"),
        ids,
        fragment,
        linked: BTreeMap::new(),
    };
    let style = format!(
        "{}{}",
        scoped(STYLE, ROOT_CLASS),
        scoped(svg::STANDALONE_STYLE, ROOT_CLASS)
    );
    let root_id = format!("{}report", page.ids);
    if fragment {
        let _ = write!(
            page.out,
            "<div class=\"{ROOT_CLASS}\" id=\"{root_id}\"><style>{style}</style>"
        );
    } else {
        page.out
            .push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
        page.out
            .push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
        let _ = write!(
            page.out,
            "<title>coreml-lint report</title><style>{PAGE_STYLE}{style}</style></head><body>\n\
             <div class=\"{ROOT_CLASS}\" id=\"{root_id}\">"
        );
    }
    let version = env!("CARGO_PKG_VERSION");
    if fragment {
        // A notebook cell: no page title.
        let _ = writeln!(
            page.out,
            "<p class=\"version\">coreml-lint {version} report</p>"
        );
    } else {
        let _ = writeln!(
            page.out,
            "<header><h1>coreml-lint report</h1><p class=\"version\">coreml-lint {version}</p></header>"
        );
    }
    // A fragment draws every picture in place: a notebook may show it without running its script.
    let drawn = draw_findings(&models, &views, &page.arrow, !fragment);
    store(&mut page, &drawn);
    summary(&mut page, run, &models, &views, rules);
    if !fragment {
        filters(&mut page.out, run, &paths);
    }
    findings_section(&mut page, &models, &views, &drawn);
    if fragment {
        // A notebook cell: the findings first, then the estimate in a table that fits the cell.
        let _ = write!(
            page.out,
            "<section class=\"placement\" id=\"{}placement\">",
            page.ids
        );
        placement_table::placement(
            &mut page.out,
            run,
            &models,
            &views,
            PlacementLayout::Compact,
        );
        page.out.push_str("</section>\n");
    }
    if !fragment {
        overviews(&mut page, &models, &views);
        rule_docs(&mut page.out, run, rules);
    }
    let _ = write!(
        page.out,
        "<script>{SCRIPT}(document.getElementById(\"{root_id}\"));</script></div>"
    );
    if !fragment {
        page.out.push_str("</body></html>\n");
    }
    page.out
}

fn summary(
    page: &mut Page,
    run: &CheckRun,
    models: &[ModelRef<'_>],
    views: &[Vec<FunctionView<'_>>],
    rules: &[RuleInfo],
) {
    let (ids, fragment) = (page.ids.as_str(), page.fragment);
    let out = &mut page.out;
    let s = run.summary();
    let functions: usize = views.iter().map(Vec::len).sum();
    let _ = write!(
        out,
        "<section class=\"summary\" id=\"{ids}summary\"><h2>Summary</h2><ul class=\"counts\">"
    );
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
    // The rules with errors first, then warnings, then infos.
    let mut by_rule: Vec<(&str, (usize, Severity))> = by_rule.into_iter().collect();
    by_rule.sort_by_key(|&(rule, (_, sev))| (std::cmp::Reverse(sev), rule));
    if !by_rule.is_empty() {
        out.push_str(
            "<table class=\"rules\"><tr><th>rule</th><th>findings</th><th>title</th></tr>",
        );
        for (rule, (n, sev)) in &by_rule {
            let title = rules
                .iter()
                .find(|r| r.id == *rule)
                .map_or("", |r| r.title.as_str());
            let sev = severity_class(*sev);
            let rule = attribute(rule);
            let _ = if fragment {
                write!(out, "<tr><td><span class=\"sev {sev}\">{rule}</span></td>")
            } else {
                write!(
                    out,
                    "<tr><td><a class=\"sev {sev}\" href=\"#rule-{rule}\">{rule}</a></td>"
                )
            };
            let _ = write!(out, "<td>{n}</td><td>{}</td></tr>", escape(title));
        }
        out.push_str("</table>");
    }
    let failed: Vec<String> = run
        .models
        .iter()
        .filter_map(|m| match &m.outcome {
            ModelOutcome::Failed(e) => Some(format!("{}: {e}", shown_path(&m.path))),
            ModelOutcome::Skipped(why) => Some(format!("{}: skipped: {why}", shown_path(&m.path))),
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
    if !fragment {
        placement_table::placement(out, run, models, views, PlacementLayout::Page);
    }
    out.push_str("</section>\n");
}

fn filters(out: &mut String, run: &CheckRun, paths: &[&std::path::Path]) {
    out.push_str("<section class=\"filters\" id=\"filters\"><h2>Filter</h2><div class=\"filter-group\" data-dim=\"severity\"><b>severity</b>");
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
            attribute(r),
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
            escape(&shown_path(p))
        );
    }
    out.push_str("</details><p class=\"shown\"></p></section>\n");
}

fn findings_section(
    page: &mut Page,
    models: &[ModelRef<'_>],
    views: &[Vec<FunctionView<'_>>],
    drawn: &[Option<Drawn>],
) {
    let _ = write!(
        page.out,
        "<section class=\"findings\" id=\"{}findings\"><h2>Findings</h2>",
        page.ids
    );
    // Errors first, then warnings, then infos; by model and place within each. A card keeps
    // its number (its id, its picture) from the order by place.
    let mut cards: Vec<(usize, usize, &Finding)> = Vec::new();
    for (mi, m) in models.iter().enumerate() {
        for x in m.findings {
            cards.push((cards.len(), mi, x));
        }
    }
    cards.sort_by_key(|&(i, _, x)| (std::cmp::Reverse(x.severity), i));
    for &(i, mi, x) in &cards {
        let d = drawn.get(i).and_then(Option::as_ref);
        finding(page, i + 1, &models[mi], &views[mi], x, d);
    }
    if cards.is_empty() {
        page.out.push_str("<p class=\"clean\">No findings.</p>");
    }
    page.out.push_str("</section>\n");
}

fn finding(
    page: &mut Page,
    n: usize,
    m: &ModelRef<'_>,
    fs: &[FunctionView<'_>],
    x: &Finding,
    drawn: Option<&Drawn>,
) {
    let (ids, fragment) = (page.ids.as_str(), page.fragment);
    let out = &mut page.out;
    let sev = severity_class(x.severity);
    let rule = attribute(&x.rule);
    let title = if fragment {
        rule.clone()
    } else {
        format!("<a href=\"#rule-{rule}\">{rule}</a>")
    };
    let _ = write!(
        out,
        "<article class=\"finding\" id=\"{ids}f{n}\" data-severity=\"{sev}\" data-rule=\"{rule}\" data-model=\"{}\">\
         <h3><span class=\"sev {sev}\">{sev}</span> {title}</h3><p class=\"message\">{}</p>",
        m.path_index,
        html_text(&x.message)
    );
    if let Some(help) = &x.help {
        let _ = write!(
            out,
            "<p class=\"help\"><b>help:</b> {}</p>",
            html_text(help)
        );
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
    let file = shown_path(&m.model.source.file);
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
        None => match &x.file {
            // A finding about another file of the model (a pointer `metadata.json`).
            Some(file) => {
                let _ = write!(
                    out,
                    "<p class=\"location\">{} · <code>{}</code></p>",
                    escape(&location),
                    escape(&file.display().to_string())
                );
            }
            None => {
                let _ = write!(out, "<p class=\"location\">{}</p>", escape(&location));
            }
        },
    }
    if !lines.is_empty() {
        out.push_str("<pre class=\"source\">");
        for (i, l) in lines {
            let class = if Some(i) == line { " class=\"at\"" } else { "" };
            let _ = write!(
                out,
                "<span{class}><i>{i:>5}</i> {}</span>",
                html_text(&shortened(l))
            );
        }
        out.push_str("</pre>");
    }
    let view = x
        .function
        .as_deref()
        .and_then(|name| fs.iter().position(|v| v.function.name == name))
        .or(if fs.len() == 1 { Some(0) } else { None });
    match (view, drawn) {
        (Some(fi), Some(d)) => {
            let v = &fs[fi];
            let whole = format!("0 0 {:.0} {:.0}", d.drawing.width, d.drawing.height);
            let view_box = d.view.view_box();
            // The page's "whole" button needs it only when the first view is a part.
            let whole = if whole == view_box {
                String::new()
            } else {
                format!(" data-whole=\"{whole}\"")
            };
            let _ = write!(
                out,
                "<div class=\"picture\" data-nodes=\"{}\"><svg class=\"graph\" viewBox=\"{view_box}\" width=\"{:.0}\" height=\"{:.0}\"{whole}>",
                d.nodes,
                d.view.width,
                d.view.height
            );
            match d.stored {
                Some(k) => {
                    let _ = write!(out, "<use href=\"#{ids}pic{k}\"/>");
                }
                None => out.push_str(&d.drawing.body),
            }
            out.push_str("</svg></div>");
            if !d.view.whole {
                let _ = write!(
                    out,
                    "<p class=\"note\">The neighbourhood of the finding, at a legible size: the region is {whole_w:.0} × {whole_h:.0} px. \
                     Ctrl/⌘ + scroll to zoom, drag to pan, <i>whole</i> to see all of it.</p>",
                    whole_w = d.drawing.width,
                    whole_h = d.drawing.height
                );
            }
            if d.omitted > 0 {
                let _ = write!(
                    out,
                    "<p class=\"note\">{} more nodes of the region are not drawn (`coreml-lint graph --around`).</p>",
                    d.omitted
                );
            }
            if !fragment {
                let name = x.op.as_deref().or(x.state.as_deref());
                let target = match &v.layered {
                    Some(l) => name.and_then(|n| l.row_of(n)).map(str::to_string),
                    None => name.and_then(|n| v.overview.box_of(n)).map(|b| {
                        let overview = format!("ov{}-{fi}", m.result);
                        let id = format!("{overview}-n{b}");
                        page.linked.entry(overview).or_default().insert(b);
                        id
                    }),
                };
                let _ = write!(
                    out,
                    "<p><a class=\"to-overview\" href=\"#ov{}-{fi}\" data-box=\"{}\">show in the overview of {}</a></p>",
                    m.result,
                    target.unwrap_or_default(),
                    escape(&v.function.name)
                );
            }
        }
        _ => out.push_str("<div class=\"picture none\"><p class=\"note\">This finding is about the model, not about a function's graph.</p></div>"),
    }
    out.push_str("</article>\n");
}

fn overviews(page: &mut Page, models: &[ModelRef<'_>], views: &[Vec<FunctionView<'_>>]) {
    let out = &mut page.out;
    out.push_str("<section class=\"overviews\" id=\"overviews\"><h2>Overview of each function</h2>\
        <p class=\"note\">Small functions are drawn op by op: scroll to zoom, drag to pan, double-click to reset. \
        Large functions are shown by layer (the module paths in the weights' names, else the repetition of the ops): \
        each row's strip is its ops in program order coloured by the estimate, its colour the ANE's share of its compute \
        (green: all, orange: none); a red badge counts its findings; open a row for its sub-layers, the ops not likely \
        on the ANE and its findings.</p>");
    for (m, fs) in models.iter().zip(views) {
        let uncoloured = m.ane_excluded.map_or_else(String::new, |u| {
            format!(
                "; not coloured: <code>--compute-units {}</code> leaves the Neural Engine out",
                u.token()
            )
        });
        for (fi, v) in fs.iter().enumerate() {
            let id = format!("ov{}-{fi}", m.result);
            if let Some(l) = &v.layered {
                let _ = writeln!(
                    out,
                    "<article class=\"overview layered\" id=\"{id}-section\" data-model=\"{}\"><h3>{} · {}</h3><p class=\"note\">{} ops in {} rows{}{uncoloured}</p><div class=\"layers\">{}</div></article>",
                    m.path_index,
                    escape(&model_title(m.model)),
                    escape(&v.function.name),
                    v.function.op_count(),
                    l.rows,
                    match l.source {
                        graph::layers::LayerSource::Names => ", layers from the weights' module paths",
                        graph::layers::LayerSource::Repetition => ", layers from the repetition of the ops",
                        graph::layers::LayerSource::None => " of consecutive ops",
                    },
                    l.html
                );
                continue;
            }
            let o = &v.overview;
            let none = BTreeSet::new();
            let ids = svg::NodeIds {
                prefix: &id,
                only: Some(page.linked.get(&id).unwrap_or(&none)),
            };
            let d = svg::draw(&o.picture, Some(ids), &page.arrow);
            let _ = writeln!(
                out,
                "<article class=\"overview\" id=\"{id}-section\" data-model=\"{}\"><h3>{} · {}</h3><p class=\"note\">{} ops{}{uncoloured}</p>{}</article>",
                m.path_index,
                escape(&model_title(m.model)),
                escape(&v.function.name),
                v.function.op_count(),
                if o.grouped {
                    format!(", drawn as {} groups", o.picture.nodes.iter().filter(|n| n.counts.is_some()).count())
                } else {
                    String::new()
                },
                zoom_box(&d)
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
    out.push_str("<section class=\"rules\" id=\"rules\"><h2>Rules</h2>");
    for id in fired {
        let text = rules.iter().find(|r| r.id == id).map_or_else(
            || format!("{id}: not a loaded rule"),
            crate::report::explain::explain,
        );
        let _ = write!(
            out,
            "<article class=\"rule-doc\" id=\"rule-{}\"><pre>{}</pre></article>",
            attribute(id),
            html_text(&text)
        );
    }
    out.push_str("</section>\n");
}

/// `coreml-lint graph --format html`: the pictures, titled, each zoomable.
pub fn pictures_page(pictures: &[(String, graph::Picture)]) -> String {
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>coreml-lint graph</title><style>{PAGE_STYLE}{}{}</style></head><body>\
         <div class=\"{ROOT_CLASS}\" id=\"report\"><h1>coreml-lint graph</h1><p class=\"note\">Ops coloured by the placement ESTIMATE (not Core ML's placement). Scroll to zoom, drag to pan, double-click to reset.</p>\
         <svg class=\"graph store\" width=\"0\" height=\"0\" aria-hidden=\"true\"><defs>{}</defs></svg>",
        scoped(STYLE, ROOT_CLASS),
        scoped(svg::STANDALONE_STYLE, ROOT_CLASS),
        svg::marker("arrow")
    );
    for (title, p) in pictures {
        let d = svg::draw(p, None, "arrow");
        let _ = write!(
            out,
            "<article class=\"overview\"><h3>{}</h3>{}{}</article>",
            escape(title),
            if p.omitted > 0 {
                format!("<p class=\"note\">{} more nodes not drawn.</p>", p.omitted)
            } else {
                String::new()
            },
            zoom_box(&d)
        );
    }
    let _ = writeln!(
        out,
        "<script>{SCRIPT}(document.getElementById(\"report\"));</script></div></body></html>"
    );
    out
}

/// Longest source line the page quotes whole: a `model.mil` line spelling a whole weight inline
/// (`inline-weights`) runs to megabytes.
const MAX_QUOTED_LINE: usize = 1000;

/// `line`, cut after [`MAX_QUOTED_LINE`] characters with a note of how many were left out.
fn shortened(line: &str) -> std::borrow::Cow<'_, str> {
    match line.char_indices().nth(MAX_QUOTED_LINE) {
        None => std::borrow::Cow::Borrowed(line),
        Some((at, _)) => {
            let rest = line.get(at..).map_or(0, |r| r.chars().count());
            std::borrow::Cow::Owned(format!(
                "{} … ({rest} more characters)",
                line.get(..at).unwrap_or_default()
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_source_lines_are_cut_with_a_count() {
        assert_eq!(shortened("short"), "short");
        let line = "é".repeat(MAX_QUOTED_LINE + 7);
        let cut = shortened(&line);
        assert!(cut.starts_with(&"é".repeat(MAX_QUOTED_LINE)));
        assert!(cut.ends_with(" … (7 more characters)"), "{cut}");
        assert_eq!(
            shortened(&"x".repeat(MAX_QUOTED_LINE)).len(),
            MAX_QUOTED_LINE
        );
    }

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
