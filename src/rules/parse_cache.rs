//! The parses of rule-folder YAML files, kept between runs (as ruff keeps its results): a file's
//! full text maps to the JSON its YAML reads as, which deserializes several times cheaper than
//! the YAML (`yaml::from_transcoding`, the built-in rules' path). An entry is used only for a
//! text equal byte for byte, and written only when its JSON deserializes to what the YAML does,
//! so a cached load is the uncached one. One file per cache folder and crate version, replaced
//! atomically; a cache that cannot be read or written is as if empty, never an error.

use std::fmt::Debug;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::yaml;

/// Entries kept in the file: those the last run used, then the older ones, to this many.
const MAX_ENTRIES: usize = 1024;

/// The cache file's name: another version of coreml-lint (whose YAML reading may differ) keeps
/// its own.
fn file_name() -> String {
    format!("rule-parses-{}.postcard", env!("CARGO_PKG_VERSION"))
}

/// Where the cache lives, or that there is none.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum CacheDir {
    /// `COREML_LINT_CACHE_DIR`, else the user's cache folder (`$XDG_CACHE_HOME/coreml-lint`,
    /// `~/.cache/coreml-lint`; `~/Library/Caches/coreml-lint` on macOS,
    /// `%LOCALAPPDATA%\coreml-lint` on Windows).
    #[default]
    Default,
    /// This folder (`--cache-dir`).
    Dir(PathBuf),
    /// No cache (`--no-cache`).
    Off,
}

impl CacheDir {
    /// The folder, if there is one.
    pub fn resolve(&self) -> Option<PathBuf> {
        match self {
            CacheDir::Off => None,
            CacheDir::Dir(d) => Some(d.clone()),
            CacheDir::Default => default_dir(),
        }
    }
}

fn env_dir(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

fn default_dir() -> Option<PathBuf> {
    if let Some(d) = env_dir("COREML_LINT_CACHE_DIR") {
        return Some(d);
    }
    let base = if cfg!(target_os = "macos") {
        env_dir("HOME").map(|h| h.join("Library/Caches"))
    } else if cfg!(windows) {
        env_dir("LOCALAPPDATA")
    } else {
        env_dir("XDG_CACHE_HOME").or_else(|| env_dir("HOME").map(|h| h.join(".cache")))
    };
    base.map(|b| b.join("coreml-lint"))
}

/// The file's content: (YAML text, its JSON) pairs.
#[derive(Serialize, Deserialize)]
struct Entries<T> {
    entries: Vec<(T, T)>,
}

/// A run's view of the cache: the entries read at the start, those this run parsed anew, and which
/// it used.
pub(crate) struct ParseCache {
    path: Option<PathBuf>,
    found: FxHashMap<Box<str>, Box<str>>,
    run: Mutex<RunEntries>,
}

#[derive(Default)]
struct RunEntries {
    /// The texts of `found` this run read, by the address of their key.
    used: FxHashSet<usize>,
    added: Vec<(String, String)>,
}

impl ParseCache {
    /// The cache in `dir` (`None`: no cache; every parse is of the YAML).
    pub(crate) fn open(dir: Option<&Path>) -> ParseCache {
        let path = dir.map(|d| d.join(file_name()));
        let bytes = path
            .as_deref()
            .and_then(|p| crate::read::limits::read_capped(p).ok())
            .unwrap_or_default();
        let found = postcard::from_bytes::<Entries<Box<str>>>(&bytes)
            .map(|e| e.entries.into_iter().collect())
            .unwrap_or_default();
        ParseCache {
            path,
            found,
            run: Mutex::new(RunEntries::default()),
        }
    }

    /// A cache that is never read or written.
    pub(crate) fn none() -> ParseCache {
        ParseCache::open(None)
    }

    /// Deserializes `text` through its cached JSON when the cache has it; otherwise through the
    /// YAML, keeping its JSON for the next run when that reads the same.
    pub(crate) fn parse<T: DeserializeOwned + Debug>(
        &self,
        text: &str,
    ) -> Result<T, yaml::YamlError> {
        if let Some((key, json)) = self.found.get_key_value(text) {
            if let Some(parsed) = yaml::from_transcoding(json) {
                self.lock().used.insert(key.as_ptr() as usize);
                return Ok(parsed);
            }
        }
        let parsed: T = yaml::from_str(text)?;
        if self.path.is_some() {
            if let Some(json) = yaml::to_json(text) {
                let same = yaml::from_transcoding::<T>(&json)
                    .is_some_and(|t| format!("{t:?}") == format!("{parsed:?}"));
                if same {
                    self.lock().added.push((text.to_string(), json));
                }
            }
        }
        Ok(parsed)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, RunEntries> {
        self.run.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes the cache file when this run parsed a text it did not have: this run's entries
    /// first, then the older ones, up to [`MAX_ENTRIES`]. Failures are ignored: the next run
    /// parses the YAML again.
    pub(crate) fn save(&self) {
        let run = self.lock();
        let Some(path) = &self.path else { return };
        if run.added.is_empty() {
            return;
        }
        let mut entries: Vec<(&str, &str)> = run
            .added
            .iter()
            .map(|(t, j)| (t.as_str(), j.as_str()))
            .collect();
        let (used, unused): (Vec<_>, Vec<_>) = self
            .found
            .iter()
            .map(|(t, j)| (&**t, &**j))
            .partition(|&(t, _)| run.used.contains(&(t.as_ptr() as usize)));
        entries.extend(used);
        entries.extend(unused);
        entries.truncate(MAX_ENTRIES);
        if let Ok(bytes) = postcard::to_allocvec(&Entries { entries }) {
            let _ = write_atomically(path, &bytes);
        }
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder, renamed over it; makes
/// the folder, marked as a cache (`CACHEDIR.TAG`) and ignored by git, when it is missing.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(Path::new("."));
    if !dir.is_dir() {
        std::fs::create_dir_all(dir)?;
        std::fs::write(dir.join(".gitignore"), "# Made by coreml-lint.\n*\n")?;
        std::fs::write(
            dir.join("CACHEDIR.TAG"),
            "Signature: 8a477f597d28d172789f06886806bc55\n\
             # This file marks coreml-lint's cache folder (https://bford.info/cachedir/).\n",
        )?;
    }
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    type Map = BTreeMap<String, String>;

    fn entries_in(dir: &Path) -> Vec<(String, String)> {
        let bytes = std::fs::read(dir.join(file_name())).expect("the cache file");
        postcard::from_bytes::<Entries<String>>(&bytes)
            .expect("decodes")
            .entries
    }

    fn write_entries(dir: &Path, entries: &[(&str, &str)]) {
        let bytes = postcard::to_allocvec(&Entries {
            entries: entries.to_vec(),
        })
        .unwrap();
        std::fs::write(dir.join(file_name()), bytes).unwrap();
    }

    #[test]
    fn a_parse_is_kept_and_read_back_as_its_json() {
        let parent = tempfile::tempdir().unwrap();
        let dir = parent.path().join("cache");
        let cache = ParseCache::open(Some(&dir));
        let parsed: Map = cache.parse("a: b\nc: 'd'\n").unwrap();
        cache.save();
        assert_eq!(parsed["c"], "d");
        assert_eq!(
            entries_in(&dir),
            vec![(
                "a: b\nc: 'd'\n".to_string(),
                r#"{"a":"b","c":"d"}"#.to_string()
            )]
        );
        // The folder it made is marked as a cache and ignored by git; a folder that was there
        // already is not marked.
        assert!(dir.join("CACHEDIR.TAG").is_file());
        assert!(std::fs::read_to_string(dir.join(".gitignore"))
            .unwrap()
            .contains("\n*\n"));
        assert!(!parent.path().join(".gitignore").exists());
    }

    #[test]
    fn an_entry_is_read_for_the_same_text_only() {
        let dir = tempfile::tempdir().unwrap();
        // A JSON that is not the text's: seen only if the entry is what the cache answers.
        write_entries(dir.path(), &[("a: b\n", r#"{"a":"from the cache"}"#)]);
        let cache = ParseCache::open(Some(dir.path()));
        assert_eq!(cache.parse::<Map>("a: b\n").unwrap()["a"], "from the cache");
        assert_eq!(cache.parse::<Map>("a: b \n").unwrap()["a"], "b");
        assert_eq!(cache.parse::<Map>("a:  b\n").unwrap()["a"], "b");
    }

    #[test]
    fn the_file_keeps_what_the_run_used_first_and_drops_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        write_entries(
            dir.path(),
            &[("x: a\n", r#"{"x":"a"}"#), ("y: b\n", r#"{"y":"b"}"#)],
        );
        let cache = ParseCache::open(Some(dir.path()));
        cache.parse::<Map>("y: b\n").unwrap();
        cache.parse::<Map>("z: c\n").unwrap();
        cache.save();
        let texts: Vec<String> = entries_in(dir.path()).into_iter().map(|e| e.0).collect();
        assert_eq!(texts, ["z: c\n", "y: b\n", "x: a\n"]);
    }

    #[test]
    fn the_file_holds_at_most_max_entries_the_new_ones_first() {
        let dir = tempfile::tempdir().unwrap();
        let old: Vec<(String, String)> = (0..MAX_ENTRIES + 5)
            .map(|i| (format!("k{i}: v\n"), format!(r#"{{"k{i}":"v"}}"#)))
            .collect();
        let old_refs: Vec<(&str, &str)> =
            old.iter().map(|(t, j)| (t.as_str(), j.as_str())).collect();
        write_entries(dir.path(), &old_refs);
        let cache = ParseCache::open(Some(dir.path()));
        cache.parse::<Map>("new: v\n").unwrap();
        cache.save();
        let kept = entries_in(dir.path());
        assert_eq!(kept.len(), MAX_ENTRIES);
        assert_eq!(kept[0].0, "new: v\n");
    }

    #[test]
    fn invalid_yaml_is_an_error_with_its_location_and_is_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ParseCache::open(Some(dir.path()));
        let e = cache.parse::<Map>("a: [b\n").unwrap_err();
        assert!(e.location.is_some(), "{e}");
        // A mapping where strings are expected: the YAML's typed error, never a cached value.
        assert!(cache.parse::<Map>("a: {b: c}\n").is_err());
        cache.save();
        assert!(!dir.path().join(file_name()).exists());
    }

    #[test]
    fn a_parse_whose_json_reads_otherwise_is_not_kept() {
        // `1.50` reads as the string "1.50" from YAML into a string, but its JSON holds the number
        // 1.5, which a string does not take: the entry would not read back the same.
        let dir = tempfile::tempdir().unwrap();
        let cache = ParseCache::open(Some(dir.path()));
        assert_eq!(cache.parse::<Map>("a: 1.50\n").unwrap()["a"], "1.50");
        cache.save();
        assert!(!dir.path().join(file_name()).exists());
    }

    #[test]
    fn a_damaged_or_missing_cache_is_as_if_empty() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(file_name()), b"\xff\xff\xff\xffgarbage").unwrap();
        let cache = ParseCache::open(Some(dir.path()));
        assert_eq!(cache.parse::<Map>("a: b\n").unwrap()["a"], "b");
        cache.save();
        assert_eq!(entries_in(dir.path()).len(), 1);
        // A cache folder that cannot be made (a file is in its way): no error, nothing written.
        let blocked = dir.path().join("file");
        std::fs::write(&blocked, "").unwrap();
        let cache = ParseCache::open(Some(&blocked.join("cache")));
        assert_eq!(cache.parse::<Map>("a: b\n").unwrap()["a"], "b");
        cache.save();
    }

    #[test]
    fn no_cache_reads_and_writes_nothing() {
        assert_eq!(CacheDir::Off.resolve(), None);
        let cache = ParseCache::none();
        assert_eq!(cache.parse::<Map>("a: b\n").unwrap()["a"], "b");
        cache.save();
    }
}
