//! `coreml-lint graph`'s output: the pictures of `report::graph` in the format asked, the HTML page
//! being `report::html`'s (so the pictures need not know the page).

use crate::report::graph::{dot, svg, GraphFormat, Picture};
use crate::report::html;

/// The pictures in `format`: DOT and SVG hold the first, HTML every one.
pub fn render_pictures(pictures: &[(String, Picture)], format: GraphFormat) -> String {
    match format {
        GraphFormat::Dot => pictures
            .first()
            .map(|(t, p)| dot::render(p, t))
            .unwrap_or_default(),
        GraphFormat::Svg => pictures
            .first()
            .map(|(_, p)| svg::document(p, "g"))
            .unwrap_or_default(),
        GraphFormat::Html => html::pictures_page(pictures),
    }
}
