//! No two source files import each other, directly or around a circle: the graph of `use
//! crate::…`, `use super::…`, `use self::…` and inline `crate::…` / `super::…` paths between files
//! of `src/` (non-test code only, as in `layers.rs`) has no cycle.
//!
//! A `mod.rs` and its children: declaring `mod child;` is no import; `use child::X` or `pub use
//! child::X` in the parent is an edge to the child, and a child's `super::X` is an edge to the
//! parent, or to the file `X` comes from when the parent only re-exports it. So a parent that
//! uses its children cannot also define what they use: that goes in a file of its own.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::layers::{non_test_code, rust_files, test_only_paths};

/// The module path of a file: `src/ir/render.rs` → `[ir, render]`, `src/ir/mod.rs` → `[ir]`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|l| l == "mod" || l == "lib") {
        parts.pop();
    }
    parts
}

/// The file that defines module `path`, if one does.
fn file_of(src: &Path, path: &[String]) -> Option<PathBuf> {
    if path.is_empty() {
        return None;
    }
    let base = path.iter().fold(src.to_path_buf(), |p, s| p.join(s));
    let flat = base.with_extension("rs");
    if flat.is_file() {
        return Some(flat);
    }
    let nested = base.join("mod.rs");
    nested.is_file().then_some(nested)
}

/// The deepest module a path names, starting from module `from`: `crate::a::b::Item` → `a::b`
/// when `a/b.rs` exists. `None` for a path outside the crate.
fn resolve(src: &Path, from: &[String], segments: &[&str]) -> Option<PathBuf> {
    let mut cur: Vec<String> = match segments.first()? {
        &"crate" => Vec::new(),
        &"super" | &"self" => from.to_vec(),
        // A path relative to the current module (`use child::Item` in a `mod.rs`).
        first => {
            let mut child = from.to_vec();
            child.push((*first).to_string());
            file_of(src, &child)?;
            from.to_vec()
        }
    };
    let rest = match segments[0] {
        "crate" | "self" => &segments[1..],
        _ => segments,
    };
    for seg in rest {
        match *seg {
            "super" => {
                cur.pop()?;
            }
            "self" => {}
            s => {
                let mut next = cur.clone();
                next.push(s.to_string());
                if file_of(src, &next).is_none() {
                    break;
                }
                cur = next;
            }
        }
    }
    file_of(src, &cur)
}

/// Every path of a `use` tree: `a::{b, c::{d, self}}` → `a::b`, `a::c::d`, `a::c`.
fn expand_use(tree: &str) -> Vec<Vec<String>> {
    fn split_top(s: &str) -> Vec<&str> {
        let (mut depth, mut start, mut parts) = (0, 0, Vec::new());
        for (i, c) in s.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(&s[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        parts.push(&s[start..]);
        parts
    }
    // `a as b` keeps `a`: marked before the spaces go.
    let tree: String = tree
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace(" as ", "@")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let mut out = Vec::new();
    for part in split_top(&tree) {
        if part.is_empty() {
            continue;
        }
        match part.find('{') {
            Some(open) => {
                let prefix: Vec<String> = part[..open]
                    .trim_end_matches("::")
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect();
                let inner = &part[open + 1..part.rfind('}').unwrap_or(part.len())];
                for sub in expand_use(inner) {
                    let mut p = prefix.clone();
                    p.extend(sub.into_iter().filter(|s| s != "self"));
                    out.push(p);
                }
            }
            None => {
                let path = part.split('@').next().unwrap_or(part);
                out.push(path.split("::").map(str::to_string).collect());
            }
        }
    }
    out
}

/// The `use` trees of `code` and the code outside them.
fn use_trees(code: &str) -> (Vec<String>, String) {
    let mut trees = Vec::new();
    let mut rest = String::with_capacity(code.len());
    let mut i = 0;
    let bytes = code.as_bytes();
    while i < code.len() {
        let at_word = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        // A `use` item starts a line, or follows a visibility or a brace (not `"<use href…"`
        // inside a string literal).
        let line_start = code[..i].rfind('\n').map_or(0, |n| n + 1);
        let before = code[line_start..i].trim();
        let item_start = before.is_empty()
            || before.ends_with('{')
            || before.ends_with('}')
            || before.ends_with(';')
            || before.ends_with("pub")
            || before.ends_with(')') && before.starts_with("pub(");
        if at_word && item_start && code[i..].starts_with("use ") {
            if let Some(end) = code[i..].find(';') {
                trees.push(code[i + 4..i + end].to_string());
                i += end + 1;
                continue;
            }
        }
        let c = code[i..].chars().next().unwrap();
        rest.push(c);
        i += c.len_utf8();
    }
    (trees, rest)
}

/// Inline paths that start with `crate::` or `super::` (`self::` only reaches the file itself or
/// its children).
fn inline_paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    for start in ["crate::", "super::"] {
        for (pos, _) in code.match_indices(start) {
            if pos > 0 && (bytes[pos - 1].is_ascii_alphanumeric() || bytes[pos - 1] == b'_') {
                continue;
            }
            let path: String = code[pos..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            out.push(
                path.split("::")
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect(),
            );
        }
    }
    out
}

/// The file's non-test code in chunks, each with the module path it is in: an inline `mod x {`
/// block is module `x` inside the file's (so `super::` there is the file itself).
fn chunks(file_module: &[String], code: &[&str]) -> Vec<(Vec<String>, String)> {
    let mut out: Vec<(Vec<String>, String)> = Vec::new();
    // Inline modules open: (name, brace depth before its opening line).
    let mut open: Vec<(String, i64)> = Vec::new();
    let mut depth: i64 = 0;
    for line in code {
        let t = line.trim_start();
        let t = t
            .strip_prefix("pub(crate) ")
            .or_else(|| t.strip_prefix("pub "))
            .unwrap_or(t);
        let opening = t
            .strip_prefix("mod ")
            .and_then(|r| r.strip_suffix('{'))
            .map(|r| r.trim().to_string());
        if let Some(name) = &opening {
            open.push((name.clone(), depth));
        }
        let mut module = file_module.to_vec();
        module.extend(open.iter().map(|(n, _)| n.clone()));
        match out.last_mut() {
            Some((m, text)) if *m == module => {
                text.push('\n');
                text.push_str(line);
            }
            _ => out.push((module, line.to_string())),
        }
        if !open.is_empty() {
            depth += line.matches('{').count() as i64 - line.matches('}').count() as i64;
            while open.last().is_some_and(|(_, d)| depth <= *d) && opening.is_none() {
                open.pop();
            }
        }
    }
    out
}

/// Item name → the file it comes from, for the `pub use` items of each file (`pub use
/// error::ReadError` in `read/mod.rs`: `ReadError` is in `read/error.rs`).
type Reexports = BTreeMap<PathBuf, BTreeMap<String, PathBuf>>;

/// Follows `path` from module `from` to the file that defines what it names.
fn target(src: &Path, reexports: &Reexports, from: &[String], path: &[String]) -> Option<PathBuf> {
    let segments: Vec<&str> = path.iter().map(String::as_str).collect();
    let mut file = resolve(src, from, &segments)?;
    // The segment after the module is an item; a re-exported one is defined elsewhere.
    for _ in 0..4 {
        let found = reexports
            .get(&file)
            .and_then(|r| path.iter().find_map(|s| r.get(s)));
        match found {
            Some(next) if *next != file => file = next.clone(),
            _ => break,
        }
    }
    Some(file)
}

/// One chunk of a file: its module, its `use` paths, its inline paths.
type ChunkPaths = (Vec<String>, Vec<Vec<String>>, Vec<Vec<String>>);

/// File → the files its non-test code imports.
pub(crate) fn import_graph(src: &Path) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    // Per file: its chunks' paths (module, use paths, inline paths).
    let mut parsed: Vec<(PathBuf, Vec<ChunkPaths>)> = Vec::new();
    let mut reexports: Reexports = BTreeMap::new();
    let code_of: BTreeMap<PathBuf, String> = files
        .iter()
        .map(|f| (f.clone(), std::fs::read_to_string(f).unwrap()))
        .collect();
    let test_only = test_only_paths(&code_of);
    for (f, text) in &code_of {
        let name = f.file_name().unwrap();
        if name == "main.rs" || name == "lib.rs" || test_only.iter().any(|t| f.starts_with(t)) {
            continue;
        }
        let (code, _) = non_test_code(text);
        let code: Vec<&str> = code
            .iter()
            .map(|l| l.split(" // ").next().unwrap_or(l))
            .collect();
        let mut per_chunk = Vec::new();
        for (module, chunk) in chunks(&module_of(src, f), &code) {
            let (trees, rest) = use_trees(&chunk);
            let uses: Vec<Vec<String>> = trees.iter().flat_map(|t| expand_use(t)).collect();
            if module == module_of(src, f) {
                let starts = chunk
                    .match_indices("pub use ")
                    .map(|(p, m)| p + m.len())
                    .chain(
                        chunk
                            .match_indices("pub(crate) use ")
                            .map(|(p, m)| p + m.len()),
                    );
                for start in starts {
                    let Some(end) = chunk[start..].find(';') else {
                        continue;
                    };
                    for p in expand_use(&chunk[start..start + end]) {
                        let segments: Vec<&str> = p.iter().map(String::as_str).collect();
                        if let (Some(item), Some(to)) = (p.last(), resolve(src, &module, &segments))
                        {
                            reexports
                                .entry(f.clone())
                                .or_default()
                                .insert(item.clone(), to);
                        }
                    }
                }
            }
            per_chunk.push((module, uses, inline_paths(&rest)));
        }
        parsed.push((f.clone(), per_chunk));
    }
    let mut graph = BTreeMap::new();
    for (f, per_chunk) in parsed {
        let mut to = BTreeSet::new();
        for (module, uses, inline) in &per_chunk {
            for p in uses.iter().chain(inline) {
                if let Some(t) = target(src, &reexports, module, p) {
                    if t != f {
                        to.insert(t);
                    }
                }
            }
        }
        graph.insert(f, to);
    }
    graph
}

/// The strongly connected components of more than one file (Tarjan's algorithm).
fn circles(graph: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<BTreeSet<PathBuf>> {
    struct State<'g> {
        graph: &'g BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        index: BTreeMap<&'g PathBuf, usize>,
        low: BTreeMap<&'g PathBuf, usize>,
        stack: Vec<&'g PathBuf>,
        on_stack: BTreeSet<&'g PathBuf>,
        out: Vec<BTreeSet<PathBuf>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g PathBuf) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        let graph = s.graph;
        for w in graph.get(v).into_iter().flatten() {
            let Some((w, _)) = graph.get_key_value(w) else {
                continue;
            };
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = BTreeSet::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.insert(w.clone());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn no_source_files_import_each_other_in_a_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = import_graph(&src);
    assert!(graph.len() > 50, "only {} files read", graph.len());
    let edges: usize = graph.values().map(BTreeSet::len).sum();
    assert!(edges > 200, "only {edges} imports found");
    let found: Vec<BTreeSet<String>> = circles(&graph)
        .into_iter()
        .map(|c| {
            c.iter()
                .map(|f| f.strip_prefix(&src).unwrap().display().to_string())
                .collect()
        })
        .collect();
    let describe = |c: &BTreeSet<String>| {
        // One edge of the circle per file, to say where to cut.
        let mut lines = Vec::new();
        for f in c {
            let targets: Vec<String> = graph[&src.join(f)]
                .iter()
                .map(|t| t.strip_prefix(&src).unwrap().display().to_string())
                .filter(|t| c.contains(t))
                .collect();
            lines.push(format!("    {f} → {}", targets.join(", ")));
        }
        lines.join("\n")
    };
    let described: Vec<String> = found.iter().map(describe).collect();
    assert!(
        described.is_empty(),
        "source files importing each other in a circle:\n{}",
        described.join("\n\n")
    );
}

#[test]
fn circles_are_the_components_of_more_than_one_file() {
    let graph: BTreeMap<PathBuf, BTreeSet<PathBuf>> = [
        ("a", &["b"][..]),
        ("b", &["c"]),
        ("c", &["a", "d"]),
        ("d", &[]),
        ("e", &["e", "a"]),
    ]
    .into_iter()
    .map(|(f, to)| (PathBuf::from(f), to.iter().map(PathBuf::from).collect()))
    .collect();
    let found: Vec<BTreeSet<PathBuf>> = circles(&graph);
    let want: BTreeSet<PathBuf> = ["a", "b", "c"].into_iter().map(PathBuf::from).collect();
    assert_eq!(found, [want]);
}

#[test]
fn use_trees_and_paths_resolve_to_files() {
    assert_eq!(
        expand_use("crate::ir::{self, Function, graph::{Op, Node}}"),
        [
            vec!["crate", "ir"],
            vec!["crate", "ir", "Function"],
            vec!["crate", "ir", "graph", "Op"],
            vec!["crate", "ir", "graph", "Node"],
        ]
    );
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let from = module_of(&src, &src.join("report/graph/svg.rs"));
    assert_eq!(from, ["report", "graph", "svg"]);
    let at = |p: &[&str]| {
        resolve(&src, &from, p).map(|f| f.strip_prefix(&src).unwrap().display().to_string())
    };
    assert_eq!(
        at(&["super", "Picture"]).as_deref(),
        Some("report/graph/mod.rs")
    );
    assert_eq!(
        at(&["crate", "ir", "render", "x"]).as_deref(),
        Some("ir/render.rs")
    );
    assert_eq!(at(&["rustc_hash", "FxHashMap"]), None);
    let (trees, rest) = use_trees("use a::b;\nfn f() { crate::x::y(); }\npub use c::{d, e};");
    assert_eq!(trees, ["a::b", "c::{d, e}"]);
    assert!(rest.contains("crate::x::y") && !rest.contains("a::b"));
}

/// Layers inside a top-level module, lowest first: a file of a listed submodule imports only
/// files of its own module that are listed at its level or below. Submodules not listed (and the
/// module's `mod.rs`) sit on top and may import any of them.
const SUBLAYERS: &[(&str, &[&[&str]])] = &[
    (
        "analysis",
        &[
            &["consteval", "dependence"],
            &["blob_values", "implied_shape", "placement"],
        ],
    ),
    (
        "baseline",
        &[&["ane_digest", "error"], &["file"], &["key", "placement"]],
    ),
    (
        "read",
        &[
            &["error"],
            &["lfs", "limits", "nms", "outcome", "proto"],
            &["blob", "lower", "manifest", "miltext"],
            &["coremldata", "metadata"],
        ],
    ),
    (
        "rules",
        &[
            &[
                "compare",
                "compile_error",
                "info",
                "parse_cache",
                "region",
                "units",
                "vars",
            ],
            &["fixes", "schema", "target"],
            &["applies", "bindings", "context", "entity_rule"],
            &["template"],
            &["matcher"],
            &["cost", "guard"],
            &["compile"],
            &["loader"],
            &["demand", "engine"],
            &["testing"],
        ],
    ),
    (
        "report",
        &[
            &["explain", "location", "model_text", "source"],
            &["graph", "placement", "snippet"],
            &["html"],
        ],
    ),
];

/// `report/graph/svg.rs` → (`report`, `graph`); a module's own `mod.rs` → (`report`, ``).
fn module_and_sub(src: &Path, file: &Path) -> (String, String) {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned());
    let top = parts.next().unwrap_or_default();
    let sub = parts.next().unwrap_or_default();
    let sub = if sub == "mod.rs" {
        String::new()
    } else {
        sub.trim_end_matches(".rs").to_string()
    };
    (top.trim_end_matches(".rs").to_string(), sub)
}

#[test]
fn submodules_import_only_lower_submodules() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let level = |top: &str, sub: &str| -> Option<usize> {
        let (_, layers) = SUBLAYERS.iter().find(|(m, _)| *m == top)?;
        layers.iter().position(|l| l.contains(&sub))
    };
    let mut violations = Vec::new();
    let mut checked = 0;
    for (from, targets) in import_graph(&src) {
        let (top, sub) = module_and_sub(&src, &from);
        let Some(from_level) = level(&top, &sub) else {
            continue;
        };
        for to in targets {
            let (to_top, to_sub) = module_and_sub(&src, &to);
            if to_top != top || to_sub == sub {
                continue;
            }
            checked += 1;
            if level(&top, &to_sub).is_none_or(|l| l > from_level) {
                violations.push(format!(
                    "{} imports {} ({top}::{to_sub} is not below {top}::{sub})",
                    from.strip_prefix(&src).unwrap().display(),
                    to.strip_prefix(&src).unwrap().display()
                ));
            }
        }
    }
    assert!(checked > 10, "only {checked} imports checked");
    assert!(
        violations.is_empty(),
        "submodule imports against SUBLAYERS:\n{}",
        violations.join("\n")
    );
}
