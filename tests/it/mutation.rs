//! Mutation test: every corpus model (`corpus/packages/*.mlpackage`, `corpus/compiled/*.mlmodelc`)
//! is copied once to a temp folder, then mutated a few hundred ways, deterministically: bit flips
//! and truncations of the model file, corrupted length fields in the protobuf, swapped and shifted
//! blob offsets in `model.mil` and in `weight.bin` records, garbage in `Manifest.json` and
//! `metadata.json`. Each mutant goes through the library pipeline (check: discover, read, every
//! built-in rule; then the fixes, diff only) and must end in findings or a clean error, never a
//! panic or a hang. A sample also goes through the CLI binary, which must exit 0, 1 or 2 (never 101
//! for a panic, never a signal). The per-case timeout only detects hangs; it asserts no speed.

use crate::common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use coreml_lint::check::ModelOutcome;
use coreml_lint::check::{Checker, Keep};
use coreml_lint::config::Settings;
use coreml_lint::fix::run::FixOptions;

/// Mutants per model through the library (the CLI gets every `CLI_EVERY`-th one).
const PER_MODEL: usize = 300;
const CLI_EVERY: usize = 150;
/// Far above any real case: only a hang gets here.
const HANG: Duration = Duration::from_secs(60);

/// xorshift64*: deterministic, seeded per model.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn seed(name: &str) -> u64 {
    name.bytes()
        .fold(0x9E37_79B9_7F4A_7C15u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01B3)
        })
        .max(1)
}

/// The varint at `i` (the crate's reader) and where it ends.
fn read_varint(b: &[u8], i: usize) -> Option<(u64, usize)> {
    let mut rest = b.get(i..)?;
    let v = coreml_lint::read::proto::wire::varint(&mut rest)?;
    Some((v, b.len() - rest.len()))
}

fn varint(mut v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
    out
}

/// Every length field of a protobuf, as (position, width, value), descending into payloads that
/// parse as messages. Returns false when `b[start..end]` is not a message.
fn length_fields(
    b: &[u8],
    start: usize,
    end: usize,
    depth: usize,
    out: &mut Vec<(usize, usize, u64)>,
) -> bool {
    let mut i = start;
    while i < end {
        let Some((key, next)) = read_varint(b, i) else {
            return false;
        };
        if key >> 3 == 0 {
            return false;
        }
        i = next;
        match key & 7 {
            0 => match read_varint(b, i) {
                Some((_, n)) => i = n,
                None => return false,
            },
            1 => i += 8,
            5 => i += 4,
            2 => {
                let Some((len, body)) = read_varint(b, i) else {
                    return false;
                };
                let Some(stop) = usize::try_from(len).ok().and_then(|l| body.checked_add(l)) else {
                    return false;
                };
                if stop > end {
                    return false;
                }
                out.push((i, body - i, len));
                if depth < 12 {
                    let mark = out.len();
                    if !length_fields(b, body, stop, depth + 1, out) {
                        out.truncate(mark);
                    }
                }
                i = stop;
            }
            _ => return false,
        }
    }
    i == end
}

/// The model's files that mutations target.
struct Files {
    /// `model.mlmodel` or `model.mil`.
    model: PathBuf,
    weights: Option<PathBuf>,
    /// `Manifest.json` or `metadata.json`.
    json: Option<PathBuf>,
    is_proto: bool,
}

fn files(root: &Path) -> Files {
    let proto = root.join("Data/com.apple.CoreML/model.mlmodel");
    if proto.is_file() {
        let w = root.join("Data/com.apple.CoreML/weights/weight.bin");
        Files {
            model: proto,
            weights: w.is_file().then_some(w),
            json: Some(root.join("Manifest.json")),
            is_proto: true,
        }
    } else {
        let w = root.join("weights/weight.bin");
        let m = root.join("metadata.json");
        Files {
            model: root.join("model.mil"),
            weights: w.is_file().then_some(w),
            json: m.is_file().then_some(m),
            is_proto: false,
        }
    }
}

fn flip(rng: &mut Rng, b: &mut [u8], flips: usize) {
    for _ in 0..flips {
        if b.is_empty() {
            return;
        }
        let i = rng.below(b.len());
        b[i] ^= 1 << rng.below(8);
    }
}

/// Every `offset = uint64(N)` in text MIL: (start, end) of the digits.
fn text_offsets(text: &[u8]) -> Vec<(usize, usize)> {
    let pat = b"offset = uint64(";
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(p) = text[i..].windows(pat.len()).position(|w| w == pat) {
        let s = i + p + pat.len();
        let e = s + text[s..].iter().take_while(|c| c.is_ascii_digit()).count();
        out.push((s, e));
        i = e;
    }
    out
}

/// Record offsets of a weight file's chain (header at 0, records every align_up(payload end)).
fn record_offsets(w: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut at = 64usize;
    while at + 64 <= w.len() && w[at..at + 4] == 0xDEAD_BEEFu32.to_le_bytes() {
        out.push(at);
        let size = u64::from_le_bytes(w[at + 8..at + 16].try_into().unwrap()) as usize;
        let data = u64::from_le_bytes(w[at + 16..at + 24].try_into().unwrap()) as usize;
        let next = (data + size).div_ceil(64) * 64;
        if next <= at {
            break;
        }
        at = next;
    }
    out
}

/// One mutation: which file gets which bytes, and what was done.
struct Mutant {
    file: PathBuf,
    bytes: Vec<u8>,
    what: String,
}

fn mutate(rng: &mut Rng, f: &Files, originals: &Originals) -> Mutant {
    let model = &originals.model;
    loop {
        let kind = rng.below(9);
        match kind {
            0 => {
                let mut b = model.clone();
                let n = 1 + rng.below(8);
                flip(rng, &mut b, n);
                return Mutant {
                    file: f.model.clone(),
                    bytes: b,
                    what: format!("{n} bit flips in the model file"),
                };
            }
            1 => {
                let at = rng.below(model.len());
                return Mutant {
                    file: f.model.clone(),
                    bytes: model[..at].to_vec(),
                    what: format!("model file truncated at {at}"),
                };
            }
            2 if f.is_proto && !originals.lengths.is_empty() => {
                let (pos, width, len) = originals.lengths[rng.below(originals.lengths.len())];
                let new = match rng.below(6) {
                    0 => 0,
                    1 => len + 1,
                    2 => len.saturating_sub(1),
                    3 => len * 2 + 7,
                    4 => u64::from(u32::MAX),
                    _ => rng.next() >> rng.below(64),
                };
                let mut b = model[..pos].to_vec();
                b.extend(varint(new));
                b.extend_from_slice(&model[pos + width..]);
                return Mutant {
                    file: f.model.clone(),
                    bytes: b,
                    what: format!("length field at {pos}: {len} → {new}"),
                };
            }
            3 if !f.is_proto && !originals.text_offsets.is_empty() => {
                let offs = &originals.text_offsets;
                let (s, e) = offs[rng.below(offs.len())];
                let old: u64 = std::str::from_utf8(&model[s..e]).unwrap().parse().unwrap();
                let new = match rng.below(5) {
                    0 => {
                        let (s2, e2) = offs[rng.below(offs.len())];
                        std::str::from_utf8(&model[s2..e2])
                            .unwrap()
                            .parse()
                            .unwrap()
                    }
                    1 => old + 1,
                    2 => old.saturating_sub(64),
                    3 => old + 64 * (1 + rng.below(4) as u64),
                    _ => u64::MAX - rng.below(100) as u64,
                };
                let mut b = model[..s].to_vec();
                b.extend(new.to_string().bytes());
                b.extend_from_slice(&model[e..]);
                return Mutant {
                    file: f.model.clone(),
                    bytes: b,
                    what: format!("BLOBFILE offset {old} → {new}"),
                };
            }
            4 | 5 if f.weights.is_some() && !originals.records.is_empty() => {
                let mut w = originals.weights.clone();
                let recs = &originals.records;
                let r = recs[rng.below(recs.len())];
                // sentinel, dtype, size, data offset, padding, or the header's count/version.
                let (field, at, width) = match rng.below(6) {
                    0 => ("sentinel", r, 4),
                    1 => ("dtype", r + 4, 4),
                    2 => ("size", r + 8, 8),
                    3 => ("data offset", r + 16, 8),
                    4 => ("padding", r + 24, 8),
                    _ => ("header", rng.below(2) * 4, 4),
                };
                let value: u64 = match rng.below(5) {
                    0 => 0,
                    1 => u64::MAX >> (64 - 8 * width),
                    2 => recs[rng.below(recs.len())] as u64,
                    3 => w.len() as u64 + rng.below(200) as u64,
                    _ => rng.next() >> (64 - 8 * width),
                };
                w[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]);
                return Mutant {
                    file: f.weights.clone().unwrap(),
                    bytes: w,
                    what: format!("weight record {r}: {field} = {value}"),
                };
            }
            6 if f.weights.is_some() => {
                let w = &originals.weights;
                let what;
                let bytes = match rng.below(3) {
                    0 => {
                        let at = rng.below(w.len());
                        what = format!("weight.bin truncated at {at}");
                        w[..at].to_vec()
                    }
                    1 => {
                        let shift = 1 + rng.below(128);
                        what = format!("weight.bin shifted by {shift} bytes");
                        let mut b = vec![0u8; shift];
                        b.extend_from_slice(w);
                        b
                    }
                    _ => {
                        let mut b = w.clone();
                        let n = 1 + rng.below(16);
                        flip(rng, &mut b[..w.len().min(4096)], n);
                        what = format!("{n} bit flips in weight.bin's first 4 KiB");
                        b
                    }
                };
                return Mutant {
                    file: f.weights.clone().unwrap(),
                    bytes,
                    what,
                };
            }
            7 | 8 if f.json.is_some() => {
                let j = &originals.json;
                let text = String::from_utf8_lossy(j).into_owned();
                let (what, bytes) = match rng.below(6) {
                    0 => {
                        let at = rng.below(j.len());
                        (format!("json truncated at {at}"), j[..at].to_vec())
                    }
                    1 => {
                        let mut b = j.clone();
                        let at = rng.below(b.len());
                        let junk = b"{}[]\",:\\\x00\xff";
                        b[at] = junk[rng.below(junk.len())];
                        (format!("json byte {at} replaced"), b)
                    }
                    2 => (
                        "json paths climb out".into(),
                        text.replace("\"com.apple.CoreML/", "\"../../../etc/")
                            .replace("\"model.mil\"", "\"../model.mil\"")
                            .into_bytes(),
                    ),
                    3 => (
                        "json paths absolute".into(),
                        text.replace("\"com.apple.CoreML/model.mlmodel\"", "\"/etc/passwd\"")
                            .into_bytes(),
                    ),
                    4 => ("json is a list".into(), format!("[{text}]").into_bytes()),
                    _ => ("json numbers become strings".into(), {
                        let mut s = String::new();
                        for c in text.chars() {
                            if c.is_ascii_digit() && rng.below(3) == 0 {
                                s.push_str("\"x\"");
                            } else {
                                s.push(c);
                            }
                        }
                        s.into_bytes()
                    }),
                };
                return Mutant {
                    file: f.json.clone().unwrap(),
                    bytes,
                    what,
                };
            }
            _ => continue,
        }
    }
}

struct Originals {
    model: Vec<u8>,
    weights: Vec<u8>,
    json: Vec<u8>,
    lengths: Vec<(usize, usize, u64)>,
    text_offsets: Vec<(usize, usize)>,
    records: Vec<usize>,
}

/// How a mutant ended: 0 read with no findings, 1 findings, 2 an error (or skipped).
type Ending = usize;

/// The library pipeline on one model root; panics propagate.
fn library(root: &Path, checker: &Checker) -> Ending {
    let opts = FixOptions {
        allow_unsafe: true,
        diff_only: true,
        ..FixOptions::default()
    };
    let outcome = checker.check(&[root.to_path_buf()], Some(&opts), Keep::Programs, &());
    let run = &outcome.run;
    // One result, or one per sub-model of a pipeline.
    assert!(!run.models.is_empty());
    let ending = run
        .models
        .iter()
        .map(|m| match &m.outcome {
            ModelOutcome::Failed(e) => {
                // A clean error names a file.
                assert!(!e.path().as_os_str().is_empty(), "{e}");
                2
            }
            ModelOutcome::Checked { findings, .. } => usize::from(!findings.is_empty()),
            _ => 2,
        })
        .max()
        .unwrap_or(2);
    ending
}

/// Runs the CLI on `root`; returns the exit code, or a description of the signal/hang.
fn cli(root: &Path) -> Result<i32, String> {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_coreml-lint"))
        .arg("check")
        .arg(root)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status
                .code()
                .ok_or_else(|| format!("killed by a signal: {status}"));
        }
        if started.elapsed() > HANG {
            let _ = child.kill();
            let _ = child.wait();
            return Err("hung".into());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn corpus_models() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for (dir, ext) in [("packages", "mlpackage"), ("compiled", "mlmodelc")] {
        for e in std::fs::read_dir(common::corpus().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Mutates one model `PER_MODEL` times; returns failures as text and how many mutants ended each way.
fn mutate_model(src: &Path, checker: &Checker) -> (Vec<String>, [usize; 3]) {
    let name = src.file_name().unwrap().to_string_lossy().into_owned();
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join(&name);
    common::copy_tree(src, &root);
    let f = files(&root);
    let model = std::fs::read(&f.model).unwrap();
    let weights = f
        .weights
        .as_ref()
        .map(|w| std::fs::read(w).unwrap())
        .unwrap_or_default();
    let mut lengths = Vec::new();
    if f.is_proto {
        assert!(
            length_fields(&model, 0, model.len(), 0, &mut lengths),
            "{name}"
        );
    }
    let originals = Originals {
        text_offsets: if f.is_proto {
            Vec::new()
        } else {
            text_offsets(&model)
        },
        records: record_offsets(&weights),
        json: f
            .json
            .as_ref()
            .map(|j| std::fs::read(j).unwrap())
            .unwrap_or_default(),
        lengths,
        weights,
        model,
    };
    let mut rng = Rng(seed(&name));
    let mut failures = Vec::new();
    let mut endings = [0usize; 3];
    for i in 0..PER_MODEL {
        let m = mutate(&mut rng, &f, &originals);
        let original = std::fs::read(&m.file).unwrap_or_default();
        std::fs::write(&m.file, &m.bytes).unwrap();
        let outcome = catch_unwind(AssertUnwindSafe(|| library(&root, checker)));
        match outcome {
            Ok(e) => endings[e] += 1,
            Err(p) => {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push(format!("{name} #{i} ({}): panic: {msg}", m.what));
            }
        }
        if i % CLI_EVERY == CLI_EVERY / 2 {
            match cli(&root) {
                Ok(0..=2) => {}
                Ok(code) => failures.push(format!("{name} #{i} ({}): CLI exit {code}", m.what)),
                Err(e) => failures.push(format!("{name} #{i} ({}): CLI {e}", m.what)),
            }
        }
        std::fs::write(&m.file, &original).unwrap();
    }
    (failures, endings)
}

#[test]
#[ignore = "heavy (15,000 mutants): `cargo test -- --ignored heavy_` (.ci/run runs it)"]
fn heavy_corpus_mutants_end_in_findings_or_clean_errors() {
    let models = corpus_models();
    assert!(models.len() >= 40, "corpus has {} models", models.len());
    let checker = Checker::with_rules(
        Settings::resolve(None, Default::default()).unwrap(),
        coreml_lint::rules::RuleSet::builtin().unwrap(),
    );
    let (tx, rx) = mpsc::channel();
    let started = Instant::now();
    let mut failures = Vec::new();
    let mut endings = [0usize; 3];
    std::thread::scope(|s| {
        let checker = &checker;
        s.spawn(move || {
            for m in &models {
                let f = mutate_model(m, checker);
                tx.send((m.clone(), f)).unwrap();
            }
        });
        loop {
            match rx.recv_timeout(HANG * 3) {
                Ok((_, (f, e))) => {
                    failures.extend(f);
                    for (total, n) in endings.iter_mut().zip(e) {
                        *total += n;
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    // The worker is stuck; report and stop the whole test binary.
                    eprintln!("a model's mutants did not finish in {:?}: hang", HANG * 3);
                    std::process::exit(1);
                }
            }
        }
    });
    eprintln!(
        "mutation test: {:?}; mutants clean {}, with findings {}, errors {}",
        started.elapsed(),
        endings[0],
        endings[1],
        endings[2]
    );
    // The mutations reach past the readers: some mutants still read and lint.
    assert!(endings[1] > 0 && endings[2] > 0, "{endings:?}");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
