//! The pictures of the HTML report: each finding's drawn and fitted to its box, those several
//! findings draw stored once, the overviews' zoomable boxes.

use std::fmt::Write;

use rustc_hash::{FxHashMap, FxHashSet};

use super::view::{FunctionView, ModelRef, Page};
use crate::finding::Finding;
use crate::report::graph::{self, svg};

/// A finding's picture: drawn, its default view, its region's size, and where it is stored.
pub(super) struct Drawn {
    pub(super) drawing: svg::Drawing,
    pub(super) view: svg::View,
    pub(super) nodes: usize,
    pub(super) omitted: usize,
    /// The index of its stored copy when another finding draws the same picture.
    pub(super) stored: Option<usize>,
}

/// The picture of every finding that has one, in report order; with `share`, those several
/// findings draw are marked to be stored once.
pub(super) fn draw_findings(
    models: &[ModelRef<'_>],
    views: &[Vec<FunctionView<'_>>],
    arrow: &str,
    share: bool,
) -> Vec<Option<Drawn>> {
    let mut drawn = Vec::new();
    for (m, fs) in models.iter().zip(views) {
        let all: Vec<&Finding> = m.findings.iter().collect();
        for x in m.findings {
            let view = x
                .function
                .as_deref()
                .and_then(|name| fs.iter().position(|v| v.function.name == name))
                .or(if fs.len() == 1 { Some(0) } else { None });
            drawn.push(view.map(|fi| {
                let v = &fs[fi];
                let picture = graph::finding_picture(&v.index, v.function, &v.placements, x, &all);
                let drawing = svg::draw(&picture, None, arrow);
                let view = svg::fit(&drawing, &picture.focus, svg::BOX_WIDTH, svg::BOX_HEIGHT);
                Drawn {
                    drawing,
                    view,
                    nodes: picture.nodes.len(),
                    omitted: picture.omitted,
                    stored: None,
                }
            }));
        }
    }
    if !share {
        return drawn;
    }
    // Pictures drawn by more than one finding (two rules at one write, one model in two
    // places) are stored once.
    let mut seen: FxHashMap<&str, (usize, usize)> = FxHashMap::default();
    for (i, d) in drawn.iter().enumerate() {
        if let Some(d) = d {
            seen.entry(d.drawing.body.as_str()).or_insert((i, 0)).1 += 1;
        }
    }
    let mut shared: Vec<usize> = seen
        .into_values()
        .filter(|&(_, uses)| uses > 1)
        .map(|(first, _)| first)
        .collect();
    shared.sort_unstable();
    let stored: FxHashMap<String, usize> = shared
        .iter()
        .enumerate()
        .filter_map(|(k, &i)| drawn[i].as_ref().map(|d| (d.drawing.body.clone(), k)))
        .collect();
    for d in drawn.iter_mut().flatten() {
        d.stored = stored.get(&d.drawing.body).copied();
    }
    drawn
}

/// The arrow marker and the pictures more than one finding draws, once each, in a hidden
/// `<svg>` that the findings' pictures `<use>`.
pub(super) fn store(page: &mut Page, drawn: &[Option<Drawn>]) {
    let _ = write!(
        page.out,
        "<svg class=\"graph store\" width=\"0\" height=\"0\" aria-hidden=\"true\"><defs>{}",
        svg::marker(&page.arrow)
    );
    let mut written = FxHashSet::default();
    for d in drawn.iter().flatten() {
        if let Some(k) = d.stored {
            if written.insert(k) {
                let _ = write!(
                    page.out,
                    "<g id=\"{}pic{k}\">{}</g>",
                    page.ids, d.drawing.body
                );
            }
        }
    }
    page.out.push_str("</defs></svg>\n");
}

/// The most height an overview's box takes (px).
const ZOOM_HEIGHT: f64 = 640.0;

/// A zoomable box with the whole of `d` fitted into it, as tall as the picture needs at the
/// report's width, at most `ZOOM_HEIGHT`.
pub(super) fn zoom_box(d: &svg::Drawing) -> String {
    let scale = (svg::BOX_WIDTH / d.width.max(1.0)).min(1.0);
    let height = (d.height * scale).clamp(120.0, ZOOM_HEIGHT);
    format!(
        "<div class=\"zoom\" style=\"height:{height:.0}px\"><svg class=\"graph\" viewBox=\"0 0 {:.0} {:.0}\">{}</svg></div>",
        d.width, d.height, d.body
    )
}
