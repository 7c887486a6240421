//! Models whose names carry controls, bidi overrides, line breaks, workflow-command lookalikes and
//! markup: no terminal format (human, concise, GitHub, `dump`, `graph`) shows such a character
//! raw, the HTML page shows it escaped, JSON and SARIF keep the exact name. The names come from a
//! seeded generator, so a failure names its seed and repeats.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use coreml_lint::check::{check, CheckOptions, CheckOutcome, ConfigFile, Keep, Rendering};
use coreml_lint::report::{self, human::HumanOptions, model_text};
use serde_json::Value;

/// xorshift64*: the cases repeat from their seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const BIDI: &[char] = &[
    '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}', '\u{202e}', '\u{2066}', '\u{2067}', '\u{2068}',
    '\u{2069}',
];

const PIECES: &[&str] = &[
    "\u{1b}]0;PWNED\u{7}",
    "\u{1b}[31mRED",
    "\u{1b}]52;c;cHduZWQ=\u{7}",
    "\n::error file=x::forged",
    "::warning::x",
    "%0A::error::y",
    "<img src=x onerror=alert(1)>",
    "</pre><script>alert(1)</script>",
    "&amp;",
    "\\u{202e}",
    "\"quoted\"",
    "名前",
    "\r\n",
    "\t",
    "kv_cache_update",
];

/// One name of 1 to 6 random pieces: control characters (C0, DEL, C1), bidi controls, pieces of
/// escapes and markup, sometimes 3,000 characters long.
fn name(rng: &mut Rng) -> String {
    let mut s = String::new();
    for _ in 0..1 + rng.below(6) {
        match rng.below(6) {
            0 => s.push(char::from_u32(rng.below(0x20) as u32).unwrap_or('?')),
            1 => s.push(char::from_u32(0x7f + rng.below(0x21) as u32).unwrap_or('?')),
            2 => s.push(BIDI[rng.below(BIDI.len())]),
            3 if rng.below(8) == 0 => s.push_str(&"w".repeat(3000)),
            _ => s.push_str(PIECES[rng.below(PIECES.len())]),
        }
    }
    s
}

/// `s` as a text-MIL string literal's content.
fn mil_string(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
        .replace('\t', "\\t")
}

/// A model whose blend write (`state-full-extent-write`, `state-blend-rmw`) and add are named
/// `write` and `add`.
fn model(dir: &Path, write: &str, add: &str) -> PathBuf {
    let path = dir.join("hostile.mil");
    let text = format!(
        "program(1.3)\n{{\n    func main<ios18>(state<tensor<fp16, [2, 8, 4]>> s, tensor<fp16, [2, 8, 4]> u) {{\n            tensor<fp16, [2, 8, 4]> old = read_state(input = s)[name = string(\"old\")];\n            tensor<fp16, [2, 8, 4]> new = add(x = old, y = u)[name = string(\"{}\")];\n            write_state(data = new, input = s)[name = string(\"{}\")];\n        }} -> (u);\n}}\n",
        mil_string(add),
        mil_string(write)
    );
    std::fs::write(&path, text).unwrap();
    path
}

fn run(path: &Path) -> CheckOutcome {
    let options = CheckOptions {
        config: ConfigFile::Isolated,
        keep: Keep::Programs,
        rendering: Rendering::Text,
        ..CheckOptions::default()
    };
    check(&[path.to_path_buf()], &options).expect("check runs")
}

/// The first character a terminal must not get raw, other than the line breaks of the output.
fn raw(text: &str) -> Option<(usize, char)> {
    text.char_indices()
        .find(|&(_, c)| c != '\n' && model_text::is_unsafe(c))
}

/// `text` without the SGR colour sequences (`ESC [ … m`) the human report writes itself.
fn without_colours(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("\u{1b}[") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        match after.find(|c: char| !(c.is_ascii_digit() || c == ';')) {
            Some(end) if after[end..].starts_with('m') => rest = &after[end + 1..],
            _ => {
                out.push_str("\u{1b}[");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn assert_terminal_safe(format: &str, seed: u64, text: &str) {
    if let Some((at, c)) = raw(text) {
        let before: String = text[..at]
            .chars()
            .rev()
            .take(60)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let after: String = text[at..].chars().take(20).collect();
        panic!("seed {seed}: {format} output has {c:?} raw at byte {at}: {before:?} {after:?}");
    }
}

fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

#[test]
fn random_hostile_names_never_reach_a_terminal_raw_and_stay_exact_in_json_and_sarif() {
    let dir = tempfile::tempdir().unwrap();
    for seed in 1..=24u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let (write, add) = (name(&mut rng), name(&mut rng));
        let path = model(dir.path(), &write, &add);
        let outcome = run(&path);
        let run = &outcome.run;
        let findings: Vec<_> = run.findings().collect();
        assert!(
            findings
                .iter()
                .any(|f| f.op.as_deref() == Some(write.as_str())),
            "seed {seed}: the write is reported under its exact name"
        );

        for color in [false, true] {
            let human = report::human::render(
                run,
                HumanOptions {
                    color,
                    width: Some(100),
                    quiet: false,
                },
            );
            assert_terminal_safe("human", seed, &without_colours(&human));
            assert!(
                human.contains("shown escaped"),
                "seed {seed}: the summary says names were escaped"
            );
        }
        let concise = report::concise::render(run);
        assert_terminal_safe("concise", seed, &concise);
        assert_eq!(
            concise
                .lines()
                .filter(|l| l.contains("hostile.mil:"))
                .count(),
            findings.len(),
            "seed {seed}: one line per finding\n{concise}"
        );
        let github = report::github::render(run, dir.path());
        assert_terminal_safe("github", seed, &github);
        let lines: Vec<&str> = github.lines().collect();
        assert_eq!(lines.len(), findings.len(), "seed {seed}: {github}");
        for line in lines {
            let (command, rest) = line.split_once(' ').unwrap();
            assert!(
                ["::error", "::warning", "::notice"].contains(&command),
                "seed {seed}: {line}"
            );
            // The properties end at the first `::`: a name cannot add one before it.
            let props = rest.split("::").next().unwrap();
            assert!(
                props.starts_with("file=hostile.mil,"),
                "seed {seed}: {line}"
            );
        }

        let json: Value = serde_json::from_str(&report::json::render(run)).unwrap();
        let ops: Vec<&str> = json["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|d| d["op"].as_str())
            .collect();
        assert!(ops.contains(&write.as_str()), "seed {seed}: JSON is exact");
        let sarif: Value = serde_json::from_str(&report::sarif::render(
            run,
            &outcome.rules,
            dir.path(),
            &Default::default(),
        ))
        .unwrap();
        let mut texts = Vec::new();
        strings(&sarif, &mut texts);
        assert!(
            texts.iter().any(|t| t == &write),
            "seed {seed}: SARIF is exact"
        );

        let html = report::html::render(run, &outcome.rules);
        assert_terminal_safe("html", seed, &html.replace('\t', " "));
        if model_text::needs_escape(&write) {
            assert!(html.contains("<span class=\"esc\">"), "seed {seed}");
            // Inline, also inside the quoted source, whose line spans are blocks.
            assert!(html.contains("span.esc { display: inline;"), "seed {seed}");
        }
        assert!(
            !html.contains("<img src=x") && !html.contains("<script>alert"),
            "seed {seed}: markup of a name stays text"
        );
    }
}

/// A model without such names gets no note, and its report is what it always was.
#[test]
fn clean_names_get_no_note() {
    let dir = tempfile::tempdir().unwrap();
    let path = model(dir.path(), "kv_update\\x", "add_0");
    let outcome = run(&path);
    let human = report::human::render(
        &outcome.run,
        HumanOptions {
            color: false,
            width: Some(100),
            quiet: false,
        },
    );
    assert!(!human.contains("shown escaped"), "{human}");
    assert!(human.contains("[main/kv_update\\x]"), "{human}");
    let corpus = run(&crate::common::corpus().join("packages/state-blend-rmw.mlpackage"));
    assert!(!report::concise::render(&corpus.run).contains("shown escaped"));
}

#[test]
fn dump_and_graph_show_names_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let write = "w\u{1b}]0;PWNED\u{7}\u{202e}<b>\u{9b}";
    let path = model(dir.path(), write, "a\u{1b}[31m");
    let out = |args: &[&str]| {
        let o = Command::cargo_bin("coreml-lint")
            .unwrap()
            .args(args)
            .arg(&path)
            .output()
            .unwrap();
        String::from_utf8(o.stdout).unwrap()
    };
    let dump = out(&["dump"]);
    assert_terminal_safe("dump", 0, &dump);
    assert!(
        dump.contains("w\\u{1b}]0;PWNED\\u{7}\\u{202e}<b>\\u{9b}"),
        "{dump}"
    );
    for format in ["dot", "svg", "html"] {
        let picture = out(&["graph", "--format", format]);
        assert!(!picture.is_empty(), "{format}");
        assert_terminal_safe(format, 0, &picture);
        assert!(picture.contains("\\u{202e}"), "{format}: {picture}");
    }
    // The human report in a terminal: the title and colours of the name are text.
    let human = Command::cargo_bin("coreml-lint")
        .unwrap()
        .args(["check", "--color", "never"])
        .arg(&path)
        .output()
        .unwrap();
    let human = String::from_utf8(human.stdout).unwrap();
    assert_terminal_safe("human", 0, &human);
    assert!(
        human.contains("[main/w\\u{1b}]0;PWNED\\u{7}\\u{202e}<b>\\u{9b}]"),
        "{human}"
    );
}

#[test]
fn a_read_error_quoting_a_hostile_name_is_shown_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.mil");
    std::fs::write(
        &path,
        "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [2]> x) {\n            tensor<fp16, [2]> y = relu(x = nope\u{1b}]0;T\u{7})[name = string(\"y\")];\n        } -> (y);\n}\n",
    )
    .unwrap();
    for format in ["human", "concise", "github"] {
        let o = Command::cargo_bin("coreml-lint")
            .unwrap()
            .args(["check", "--color", "always", "--output-format", format])
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{format}");
        let text = String::from_utf8(o.stdout).unwrap() + &String::from_utf8(o.stderr).unwrap();
        assert_terminal_safe(format, 0, &without_colours(&text));
    }
}
