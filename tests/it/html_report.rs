//! `check --output-format html` and `coreml-lint graph` end to end: one self-contained page with a
//! picture per finding and an overview per function; the pictures of a region on demand.

use crate::common;

/// `coreml-lint ARGS PATHS` in the repository: exit code, stdout, stderr. Every run here only
/// reads, so the same run asked by several tests is made once (`common::cli_run`).
fn run(args: &[&str], paths: &[std::path::PathBuf]) -> (i32, String, String) {
    let argv: Vec<std::ffi::OsString> = args
        .iter()
        .map(|a| a.into())
        .chain(paths.iter().map(|p| p.into()))
        .collect();
    let out = common::once::cli_run(&common::repo(), &argv);
    (out.code, out.stdout.clone(), out.stderr.clone())
}

fn json_count(paths: &[std::path::PathBuf]) -> usize {
    let (_, json, _) = run(&["check", "--output-format", "json", "--exit-zero"], paths);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v["diagnostics"].as_array().unwrap().len()
}

/// The text of each `<article class="finding" …>…</article>`.
fn findings(html: &str) -> Vec<&str> {
    html.split("<article class=\"finding\"")
        .skip(1)
        .map(|a| &a[..a.find("</article>").unwrap()])
        .collect()
}

/// The picture of a finding's article: drawn in it, or stored once for several findings and
/// `<use>`d.
fn picture<'h>(html: &'h str, article: &'h str) -> &'h str {
    let svg = &article[article.find("<svg class=\"graph\"").expect("a picture")..];
    let svg = &svg[..svg.find("</svg>").unwrap()];
    match svg.split("<use href=\"#").nth(1) {
        Some(id) => {
            let id = &id[..id.find('"').unwrap()];
            let at = html
                .find(&format!("<g id=\"{id}\">"))
                .unwrap_or_else(|| panic!("{id} is not stored"));
            &html[at..at + html[at..].find("</defs>").unwrap()]
        }
        None => svg,
    }
}

#[test]
fn corpus_report_has_a_picture_per_finding_and_nothing_external() {
    let corpus = vec![common::corpus()];
    let (code, html, stderr) = run(
        &["check", "--output-format", "html", "--exit-zero"],
        &corpus,
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(html.starts_with("<!DOCTYPE html>") && html.trim_end().ends_with("</html>"));
    let articles = findings(&html);
    assert_eq!(articles.len(), json_count(&corpus));
    for a in &articles {
        // A finding about the whole model (a Core AI asset, a bundle file) has no graph to draw,
        // and says so.
        if a.contains("class=\"picture none\"") {
            assert!(a.contains("not about a function's graph"), "{a}");
            continue;
        }
        assert!(a.contains("<svg class=\"graph\""), "no picture in {a}");
        assert!(
            picture(&html, a).contains("<g class=\"node"),
            "an empty picture in {a}"
        );
    }
    let drawn = articles
        .iter()
        .filter(|a| a.contains("<svg class=\"graph\""))
        .count();
    assert!(
        drawn * 10 >= articles.len() * 8,
        "{drawn} of {} drawn",
        articles.len()
    );
    // Findings about an op highlight it.
    let highlighted = articles
        .iter()
        .filter(|a| a.contains("<svg class=\"graph\""))
        .map(|a| picture(&html, a))
        .filter(|p| p.contains(" hl\"") || p.contains(" hl "))
        .count();
    assert!(
        highlighted * 2 > articles.len(),
        "{highlighted} of {}",
        articles.len()
    );
    // Self-contained: nothing fetched (rule documentation may cite web pages as text).
    for needle in [
        "<link",
        " src=",
        "@import",
        "url(http",
        "url(//",
        "fetch(",
        "XMLHttpRequest",
        "srcset",
    ] {
        assert!(!html.contains(needle), "the page references {needle}");
    }
    let overviews = html.matches("<article class=\"overview").count();
    let placement_rows = html.matches("<tr class=\"model-row\"").count();
    assert_eq!(overviews, placement_rows, "one overview per function");
    // Each placement row ends with the ANE share of compute and its bar of MACs by class.
    assert!(html.contains("<th>boundaries</th><th>ANE compute</th></tr>"));
    let shares = html
        .split("<tr class=\"model-row\"")
        .skip(1)
        .filter(|row| {
            // `*`: the share leaves out ops whose cost is unknown.
            [
                " %<div class=\"bar\">",
                " %*<div class=\"bar\">",
                "n/a<div",
                "n/a*<div",
            ]
            .iter()
            .any(|share| row.contains(share))
        })
        .count();
    assert_eq!(
        shares, placement_rows,
        "an ANE share on every placement row"
    );
    assert!(html.contains("title=\"likely ANE: "), "no compute bar");
    assert!(html.contains(" MACs\"></span>"), "no compute bar");
    // Every fired rule's documentation is embedded and linked.
    for a in &articles {
        let rule = a
            .split("data-rule=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert!(html.contains(&format!("<article class=\"rule-doc\" id=\"rule-{rule}\">")));
    }
}

#[test]
fn a_state_finding_draws_its_read_to_write_chain_with_labels() {
    let model = vec![common::corpus().join("packages/state-blend-rmw.mlpackage")];
    let (_, html, _) = run(&["check", "--output-format", "html", "--exit-zero"], &model);
    let a = findings(&html)
        .into_iter()
        .find(|a| a.contains("data-rule=\"state-blend-rmw\""))
        .expect("the blend finding");
    let picture = picture(&html, a);
    for op in [
        "read_state_0",
        "mul_1",
        "add_0",
        "coreml_update_state_1_write_state",
        "kv_cache",
    ] {
        assert!(
            picture.contains(&format!("data-name=\"{op}\"")),
            "{op} missing from the chain"
        );
    }
    assert!(
        picture.contains("class=\"node risk hl")
            || picture.contains("class=\"node ane hl")
            || picture.contains("class=\"node unknown hl"),
        "the write is highlighted"
    );
    assert!(picture.contains("▸ "), "the finding's labels are drawn");
    assert!(
        picture.contains(">fp16 [2, 2, 256, 32]<"),
        "edges carry types"
    );
    // The source excerpt marks the write's line.
    assert!(a.contains("<span class=\"at\">") && a.contains("write_state(data = add_0"));
    // Its link points at the write's box in the overview.
    assert!(a.contains("data-box=\"ov0-0-n"), "{a}");
}

#[test]
fn graph_draws_a_region_in_every_format() {
    let model = vec![common::corpus().join("packages/state-blend-rmw.mlpackage")];
    let (code, svg, err) = run(&["graph", "--around", "mul_1", "--depth", "1"], &model);
    assert_eq!(code, 0, "{err}");
    assert!(svg.starts_with("<?xml") && svg.contains("<svg") && svg.contains("<style>"));
    // mul_1 and its neighbours (read_state_0, sub_0, add_0), nothing two hops away.
    for op in ["mul_1", "read_state_0", "sub_0", "add_0"] {
        assert!(svg.contains(&format!("data-name=\"{op}\"")), "{op}: {svg}");
    }
    assert!(!svg.contains("data-name=\"linear_0\""));
    assert_eq!(svg.matches("<g class=\"node").count(), 4);
    let (code, dot, _) = run(&["graph", "--format", "dot"], &model);
    assert_eq!(code, 0);
    assert!(dot.starts_with("digraph") && dot.contains("read_state") && dot.contains("->"));
    let (code, page, _) = run(&["graph", "--format", "html", "--function", "main"], &model);
    assert_eq!(code, 0);
    assert!(page.contains("<svg class=\"graph\"") && page.contains("<script>"));
}

#[test]
fn graph_names_the_model_when_the_op_or_model_is_missing() {
    let model = vec![common::corpus().join("packages/state-blend-rmw.mlpackage")];
    let (code, out, err) = run(&["graph", "--around", "no_such_op"], &model);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(
        err.contains("state-blend-rmw.mlpackage") && err.contains("no_such_op"),
        "{err}"
    );
    // A near miss names the closest op, input or function.
    let (code, _, err) = run(&["graph", "--around", "mul_11"], &model);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean `mul_1`?"), "{err}");
    let (_, _, err) = run(&["graph", "--around", "kv_cach"], &model);
    assert!(err.contains("did you mean `kv_cache`?"), "{err}");
    let (_, _, err) = run(&["graph", "--function", "mains"], &model);
    assert!(
        err.contains("no function `mains`; did you mean `main`?"),
        "{err}"
    );
    let (code, _, err) = run(&["graph", "--function", "nope"], &model);
    assert_eq!(code, 2);
    assert!(err.contains("no function `nope`"), "{err}");
    let missing = vec![common::corpus().join("packages/does-not-exist.mlpackage")];
    let (code, _, err) = run(&["graph"], &missing);
    assert_eq!(code, 2);
    assert!(err.contains("does-not-exist"), "{err}");
}

/// The `coreml-lint graph` line of README's usage runs as written, from the repository's root.
#[test]
fn readme_graph_example_draws_its_region() {
    let readme = std::fs::read_to_string(common::repo().join("README.md")).unwrap();
    let line = readme
        .lines()
        .find(|l| l.starts_with("coreml-lint graph "))
        .expect("a graph example");
    let command = line.split(['#', '>']).next().unwrap();
    let args: Vec<&str> = command.split_whitespace().skip(1).collect();
    let (code, svg, stderr) = run(&args, &[]);
    assert_eq!(code, 0, "{line}: {stderr}");
    assert!(
        svg.contains("<svg") && svg.contains("class=\"node"),
        "{svg}"
    );
}

#[test]
fn realworld_report_covers_pipelines_and_multifunction_models() {
    let Some(shared) = common::shared() else {
        return;
    };
    let realworld = vec![shared.join("realworld")];
    let (code, html, stderr) = run(
        &["check", "--output-format", "html", "--exit-zero"],
        &realworld,
    );
    assert_eq!(code, 0, "{stderr}");
    let articles = findings(&html);
    assert_eq!(articles.len(), json_count(&realworld));
    assert!(articles.iter().all(|a| a.contains("<svg class=\"graph\"")));
    // The sub-models of a pipeline each have their overview.
    assert!(
        html.contains("(sub-model 0)")
            && html.contains("sub-model 1: a non-maximum suppression model")
    );
    // Large functions are shown by layer, not drawn: WhisperKit's encoder in its four layers
    // (from the weights' module paths), each row with its strip of ops and ANE share.
    let encoder = html
        .split("<article class=\"overview")
        .skip(1)
        .find(|a| a.contains("whisperkit-tiny/AudioEncoder.mlmodelc · main"))
        .expect("the encoder's overview");
    assert!(
        encoder.starts_with(" layered\""),
        "{}",
        &encoder[..200.min(encoder.len())]
    );
    assert!(encoder.contains("layers from the weights' module paths"));
    for l in 0..4 {
        let row = format!("<span class=ln>layers.{l}</span>");
        assert!(encoder.contains(&row), "no row {row}");
    }
    assert!(encoder.contains("<span class=ln>self_attn</span>"));
    assert!(encoder.contains("<span class=sh ") && !encoder.contains("<svg"));
    // Model paths (titles, locations, the placement table, the model filter) are relative to
    // where `check` ran (the repository), not absolute as given.
    assert!(html.contains("../shared/realworld/whisperkit-tiny/"));
    let absolute = common::repo().display().to_string();
    for (open, close) in [
        ("<h3>", "</h3>"),
        ("<p class=\"location\">", "</p>"),
        ("<tr class=\"model-row\"", "</tr>"),
        ("<label>", "</label>"),
    ] {
        for part in html.split(open).skip(1) {
            let text = part.split(close).next().unwrap_or("");
            assert!(!text.contains(&absolute), "an absolute path: {text}");
        }
    }
}

#[test]
fn two_findings_at_one_write_store_one_picture() {
    let model = vec![common::corpus().join("packages/state-blend-rmw.mlpackage")];
    let (_, html, _) = run(&["check", "--output-format", "html", "--exit-zero"], &model);
    let at_write: Vec<&str> = findings(&html)
        .into_iter()
        .filter(|a| a.contains("coreml_update_state_1_write_state"))
        .collect();
    let rules: Vec<&str> = at_write
        .iter()
        .map(|a| {
            a.split("data-rule=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
        })
        .collect();
    assert!(
        rules.contains(&"state-blend-rmw") && rules.contains(&"state-full-extent-write"),
        "{rules:?}"
    );
    let store = &html[html.find("<svg class=\"graph store\"").unwrap()..];
    let store = &store[..store.find("</svg>").unwrap()];
    assert_eq!(store.matches("<g id=\"pic").count(), 1, "{store}");
    assert!(store.contains("data-name=\"coreml_update_state_1_write_state\""));
    for a in &at_write {
        assert!(a.contains("<use href=\"#pic0\"/>"), "{a}");
        assert!(!a.contains("<g class=\"node"), "drawn again in {a}");
    }
    // Each finding's picture is still fitted by itself: whole (no `data-whole`, which is written
    // only when the first view is a part) or a part of it.
    assert!(at_write
        .iter()
        .all(|a| a.contains("viewBox=\"0 0 ") || a.contains("data-whole=\"0 0 ")));
}

/// Bytes of the HTML report of `paths`, with its findings and functions.
fn report_size(paths: &[std::path::PathBuf]) -> (usize, usize, usize) {
    let (code, html, stderr) = run(&["check", "--output-format", "html", "--exit-zero"], paths);
    assert_eq!(code, 0, "{stderr}");
    let functions = html.matches("<article class=\"overview\"").count();
    (html.len(), findings(&html).len(), functions)
}

#[test]
fn report_size_stays_within_its_bound() {
    // Measured (docs/html-report.md): corpus/ 1.02 MB for 100 findings and 144 functions
    // (4.2 KB each), 1.34 MB before pictures were fitted, stored once and written compactly.
    let (bytes, n, functions) = report_size(&[common::corpus()]);
    assert!(
        n > 50 && functions > 50,
        "{n} findings, {functions} functions"
    );
    let per = bytes / (n + functions);
    assert!(per <= 5_000, "{bytes} bytes: {per} a finding or function");
    let Some(shared) = common::shared() else {
        return;
    };
    // The measure: corpus/, the torch fixtures and ../shared/realworld in one report,
    // at most 3 MB (2.35 MB for 277 findings and 174 functions; 3.17 MB before; 2.997 MB for 284
    // findings and 278 functions once a picture shown whole stopped repeating its viewBox as
    // `data-whole`; 3.04 MB for 291 findings and 282 functions with the description fixtures, then
    // 2.978 MB once quotes in element text stayed unescaped and only linked overview boxes kept
    // an id). The per-item bound below is the one that scales with the corpus.
    let (bytes, n, functions) = report_size(&[
        common::corpus(),
        common::repo().join("tests/fixtures"),
        shared.join("realworld"),
    ]);
    assert!(bytes <= 3_000_000, "{bytes} bytes for {n} findings");
    assert!(
        bytes / (n + functions) <= 6_500,
        "{bytes} bytes for {n} findings and {functions} functions"
    );
}

#[test]
fn a_picture_fits_its_box_by_default() {
    let (_, html, _) = run(
        &["check", "--output-format", "html", "--exit-zero"],
        &[common::corpus()],
    );
    let mut neighbourhoods = 0;
    for a in findings(&html) {
        let Some(at) = a.find("<div class=\"picture\"") else {
            continue;
        };
        let svg = &a[at..];
        let svg = &svg[svg.find("<svg").unwrap()..];
        let svg = &svg[..svg.find('>').unwrap()];
        let attr = |name: &str| -> Option<Vec<f64>> {
            let v = svg.split(&format!(" {name}=\"")).nth(1)?;
            Some(
                v[..v.find('"').unwrap()]
                    .split(' ')
                    .map(|x| x.parse().unwrap())
                    .collect(),
            )
        };
        let view = attr("viewBox").unwrap();
        // Written only when the first view is a part of the whole.
        let whole = attr("data-whole").unwrap_or_else(|| view.clone());
        let (w, h) = (attr("width").unwrap()[0], attr("height").unwrap()[0]);
        assert!(w <= 1080.0 && h <= 560.0, "{w} × {h}: {a}");
        let scale = w / view[2];
        assert!((0.745..=1.0001).contains(&scale), "drawn at {scale}: {a}");
        if view != whole {
            neighbourhoods += 1;
            assert!(a.contains("The neighbourhood of the finding"), "{a}");
        }
    }
    assert!(
        neighbourhoods > 0,
        "no picture of the corpus is too large to show whole"
    );
}

#[test]
fn a_fragment_keeps_its_styles_and_ids_to_itself() {
    use coreml_lint::check::{check, CheckOptions, ConfigFile, Keep, Rendering};
    use coreml_lint::report::html::{render_for, Target};
    let options = CheckOptions {
        config: ConfigFile::Isolated,
        keep: Keep::Programs,
        rendering: Rendering::Text,
        ..CheckOptions::default()
    };
    let model = common::corpus().join("packages/state-blend-rmw.mlpackage");
    let outcome = check(&[model], &options).unwrap();
    let target = Target::Fragment {
        id: "cell-7".into(),
    };
    let html = render_for(&outcome.run, &outcome.rules, &target);
    assert!(html.starts_with("<div class=\"coreml-lint\" id=\"cell-7-report\"><style>"));
    assert!(html.ends_with("</div>") && !html.contains("<body") && !html.contains("<html"));
    // The summary, the placement and each finding with its picture; no filters, overviews or
    // rule pages (a notebook cell shows one model).
    assert!(html.contains("Likely placement per function") && html.contains("<div class=\"bar\">"));
    assert_eq!(findings(&html).len(), 2);
    assert_eq!(html.matches("<div class=\"picture\"").count(), 2);
    // Both findings are at one write and draw one picture: in place in each, so that a notebook
    // that does not run the script still colours them.
    assert!(!html.contains("<use ") && !html.contains("<g id=\"cell-7-pic"));
    assert_eq!(
        html.matches("data-name=\"coreml_update_state_1_write_state\"")
            .count(),
        2
    );
    assert!(!html.contains("class=\"filter-group\"") && !html.contains("class=\"overview\""));
    let style = &html[html.find("<style>").unwrap() + 7..html.find("</style>").unwrap()];
    for rule in style.split('}').filter(|r| r.contains('{')) {
        for selector in rule[..rule.find('{').unwrap()].split(',') {
            assert!(selector.trim().starts_with(".coreml-lint"), "{selector}");
        }
    }
    let ids: Vec<&str> = html
        .split(" id=\"")
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
        .collect();
    assert!(
        ids.len() > 3 && ids.iter().all(|i| i.starts_with("cell-7-")),
        "{ids:?}"
    );
    for r in html.split("href=\"#").skip(1) {
        assert!(
            r.starts_with("cell-7-"),
            "a link out of the fragment: {}",
            &r[..40]
        );
    }
    assert!(html.contains("(document.getElementById(\"cell-7-report\"))"));
}

/// The page and the notebook's fragment list errors first, then warnings, then infos (the
/// corpus has all three in most of its folders), and the summary's rule table likewise.
#[test]
fn findings_are_listed_errors_first() {
    use coreml_lint::check::{check, CheckOptions, ConfigFile, Keep, Rendering};
    use coreml_lint::report::html::{render_for, Target};
    let options = CheckOptions {
        config: ConfigFile::Isolated,
        keep: Keep::Programs,
        rendering: Rendering::Text,
        ..CheckOptions::default()
    };
    let paths = [
        "affine-dequantize-int8.mlpackage",
        "state-blend-rmw.mlpackage",
    ]
    .map(|p| common::corpus().join("packages").join(p));
    let outcome = check(&paths, &options).unwrap();
    let rank = |s: &str| {
        ["error", "warning", "info"]
            .iter()
            .position(|x| *x == s)
            .unwrap()
    };
    for target in [Target::Page, Target::Fragment { id: "nb".into() }] {
        let html = render_for(&outcome.run, &outcome.rules, &target);
        let severities: Vec<usize> = findings(&html)
            .iter()
            .map(|a| {
                let s = a.split("data-severity=\"").nth(1).unwrap();
                rank(&s[..s.find('"').unwrap()])
            })
            .collect();
        assert_eq!(severities.len(), outcome.run.findings().count());
        assert!(
            severities.contains(&0) && severities.contains(&2),
            "{severities:?}"
        );
        assert!(severities.is_sorted(), "{target:?}: {severities:?}");
        let table = &html[html.find("<table class=\"rules\">").unwrap()..];
        let table = &table[..table.find("</table>").unwrap()];
        let rows: Vec<usize> = table
            .split("class=\"sev ")
            .skip(1)
            .map(|r| rank(&r[..r.find('"').unwrap()]))
            .collect();
        assert!(rows.is_sorted() && !rows.is_empty(), "{rows:?}");
    }
}

/// The page's placement follows `--compute-units`: units that leave the Neural Engine out give no
/// ANE estimate (the table says why, no op is drawn `likely ANE`, in the page or by `graph`); an
/// ANE share that leaves ops out (flexible shapes) is marked `*` and says how many.
#[test]
fn placement_follows_the_compute_units() {
    let packages = common::corpus().join("packages");
    let decoder = [packages.join("torch-origin-decoder-fp16-clean.mlpackage")];
    let placement_table = |html: &str| -> String {
        let t = &html[html
            .find("<table class=\"placement\">")
            .expect("a placement table")..];
        t[..t.find("</table>").unwrap()].to_string()
    };
    let (_, all, _) = run(
        &["check", "--isolated", "--output-format", "html"],
        &decoder,
    );
    assert!(
        all.contains("<g class=\"node ane\""),
        "likely-ANE ops drawn"
    );
    assert!(!placement_table(&all).contains("not estimated"));
    for units in ["cpu-and-gpu", "cpu-only"] {
        let (code, html, err) = run(
            &[
                "check",
                "--isolated",
                "--output-format",
                "html",
                "--compute-units",
                units,
            ],
            &decoder,
        );
        assert_eq!(code, 0, "{err}");
        let table = placement_table(&html);
        assert!(
            table.contains(&format!(
                "not estimated: <code>--compute-units {units}</code> leaves the Neural Engine out"
            )),
            "{table}"
        );
        assert!(!table.contains("class=\"ane\""), "{table}");
        assert!(
            !html.contains("<g class=\"node ane\""),
            "{units}: an op drawn likely ANE"
        );
        assert!(
            html.contains("leaves the Neural Engine out: 1 model not estimated"),
            "{units}"
        );
    }
    // `graph` draws with the same estimate.
    let (_, svg, _) = run(&["graph", "--format", "svg"], &decoder);
    assert!(svg.contains("<g class=\"node ane\""));
    let (code, svg, err) = run(
        &["graph", "--format", "svg", "--compute-units", "cpu-only"],
        &decoder,
    );
    assert_eq!(code, 0, "{err}");
    assert!(!svg.contains("<g class=\"node ane\"") && svg.contains("<g class=\"node unknown\""));
    assert!(
        err.contains("`--compute-units cpu-only` leaves the Neural Engine out")
            && err.contains("the ops are drawn uncoloured"),
        "{err}"
    );
    let (_, flexible, _) = run(
        &["check", "--isolated", "--output-format", "html"],
        &[packages.join("flexible-input-shape.mlpackage")],
    );
    let table = placement_table(&flexible);
    assert!(table.contains("n/a*"), "{table}");
    assert!(
        flexible.contains("* the ANE compute share leaves out the ops whose cost is unknown"),
        "the caveat"
    );
}

/// The notebook view (`Report._repr_html_`, a fragment) shows the findings first, errors first,
/// then the placement estimate in a table that shares the cell's width: fixed layout, five columns
/// in shares that add up to the whole, bars as wide as their cells, no width in pixels.
#[test]
fn the_notebook_view_lists_findings_before_a_placement_table_that_fits() {
    use coreml_lint::check::{check, CheckOptions, ConfigFile, Keep, Rendering};
    use coreml_lint::report::html::{render_for, Target};
    let options = CheckOptions {
        config: ConfigFile::Isolated,
        keep: Keep::Programs,
        rendering: Rendering::Text,
        ..CheckOptions::default()
    };
    let paths = [
        "torch-origin-decoder-fp16-clean.mlpackage",
        "affine-dequantize-int8.mlpackage",
        "state-blend-rmw.mlpackage",
    ]
    .map(|p| common::corpus().join("packages").join(p));
    let outcome = check(&paths, &options).unwrap();
    let html = render_for(
        &outcome.run,
        &outcome.rules,
        &Target::Fragment { id: "nb".into() },
    );
    let first_finding = html.find("<article class=\"finding\"").expect("findings");
    let placement = html
        .find("Likely placement per function")
        .expect("the estimate");
    assert!(
        first_finding < placement,
        "the placement table comes before the findings"
    );
    let table = &html[html
        .find("<table class=\"placement compact\">")
        .expect("compact")..];
    let table = &table[..table.find("</table>").unwrap()];
    let shares: Vec<f64> = table
        .split("<col style=\"width:")
        .skip(1)
        .map(|c| c[..c.find('%').unwrap()].parse().unwrap())
        .collect();
    assert_eq!(shares.len(), 5);
    assert!(
        (shares.iter().sum::<f64>() - 100.0).abs() < 1e-9,
        "{shares:?}"
    );
    assert!(!table.contains("px"), "a width in pixels: {table}");
    for row in table.split("<tr").skip(2) {
        let cells = row.matches("<td").count();
        assert_eq!(cells, 5, "{row}");
    }
    assert!(table.contains("<span class=\"counts\">"), "{table}");
    let style = &html[html.find("<style>").unwrap()..html.find("</style>").unwrap()];
    for rule in [
        ".coreml-lint table.placement { width: 100%; }",
        ".coreml-lint table.placement.compact { table-layout: fixed; }",
        ".coreml-lint table.placement.compact div.bar { width: 100%; }",
    ] {
        assert!(style.contains(rule), "{rule}");
    }
    // The page keeps its table (a column per class) in the summary, before the findings.
    let page = render_for(&outcome.run, &outcome.rules, &Target::Page);
    assert!(
        page.find("<table class=\"placement\">").unwrap()
            < page.find("<article class=\"finding\"").unwrap()
    );
}

/// Each finding's "show in the overview" link names a box the page has, and only linked boxes
/// carry an id.
#[test]
fn every_overview_link_finds_its_box() {
    let (_, html, _) = run(
        &["check", "--output-format", "html", "--exit-zero"],
        &[common::corpus()],
    );
    let targets: std::collections::BTreeSet<&str> = html
        .split("class=\"to-overview\"")
        .skip(1)
        .filter_map(|a| a.split("data-box=\"").nth(1)?.split('"').next())
        .filter(|id| id.contains("-n"))
        .collect();
    assert!(targets.len() > 10, "{targets:?}");
    let box_ids: std::collections::BTreeSet<&str> = html
        .split("<g class=\"node")
        .skip(1)
        .filter_map(|g| {
            let head = &g[..g.find('>').unwrap()];
            head.split(" id=\"").nth(1)?.split('"').next()
        })
        .collect();
    assert_eq!(box_ids, targets);
}
