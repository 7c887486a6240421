//! "checked N/M models" on stderr while a long run is going, for people watching a terminal.
//!
//! Shown only when stderr is a terminal and there are many models; redrawn at most every
//! [`Progress::INTERVAL`]; the line is cleared when the run ends, so it never mixes with the
//! report. Safe to tick from the rayon workers.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A progress line on a writer (stderr in the CLI).
pub struct Progress {
    total: usize,
    done: AtomicUsize,
    enabled: bool,
    interval: Duration,
    state: Mutex<State>,
}

struct State {
    out: Box<dyn Write + Send>,
    last_draw: Option<Instant>,
    drawn: bool,
    finished: bool,
}

impl Progress {
    /// Fewest models for which progress is shown.
    pub(crate) const MIN_MODELS: usize = 20;
    /// Least time between two redraws (at most ~10 per second).
    pub(crate) const INTERVAL: Duration = Duration::from_millis(100);

    /// Progress on stderr for `total` models: enabled when stderr is a terminal and
    /// `total >= MIN_MODELS`.
    pub fn stderr(total: usize) -> Progress {
        let enabled = std::io::stderr().is_terminal() && total >= Self::MIN_MODELS;
        Progress::with_writer(total, Box::new(std::io::stderr()), enabled, Self::INTERVAL)
    }

    /// Progress on any writer; `enabled: false` writes nothing at all.
    pub(crate) fn with_writer(
        total: usize,
        out: Box<dyn Write + Send>,
        enabled: bool,
        interval: Duration,
    ) -> Progress {
        Progress {
            total,
            done: AtomicUsize::new(0),
            enabled,
            interval,
            state: Mutex::new(State {
                out,
                last_draw: None,
                drawn: false,
                finished: false,
            }),
        }
    }

    /// Whether anything will be drawn.
    #[cfg(test)]
    pub(crate) fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// How many models have been reported done.
    #[cfg(test)]
    pub(crate) fn done(&self) -> usize {
        self.done.load(Ordering::Relaxed)
    }

    /// Counts one more model as done and redraws if the last draw is old enough.
    pub fn tick(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed).saturating_add(1);
        if !self.enabled {
            return;
        }
        // A worker that finds the line busy skips its redraw; the next tick catches up.
        let Ok(mut state) = self.state.try_lock() else {
            return;
        };
        if state.finished {
            return;
        }
        let now = Instant::now();
        if state
            .last_draw
            .is_some_and(|t| now.duration_since(t) < self.interval)
        {
            return;
        }
        state.last_draw = Some(now);
        state.drawn = true;
        let total = self.total.max(done);
        let _ = write!(state.out, "\r\x1b[2Kchecked {done}/{total} models");
        let _ = state.out.flush();
    }

    /// Clears the line (if anything was drawn). Later ticks draw nothing.
    pub fn finish(&self) {
        let mut state = match self.state.lock() {
            Ok(s) => s,
            Err(poisoned) => poisoned.into_inner(),
        };
        if state.finished {
            return;
        }
        state.finished = true;
        if state.drawn {
            let _ = write!(state.out, "\r\x1b[2K");
            let _ = state.out.flush();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    /// A writer whose bytes the test can read back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .map_err(|_| std::io::ErrorKind::Other)?
                .extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Shared {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().map(|v| v.clone()).unwrap_or_default())
                .unwrap_or_default()
        }
    }

    #[test]
    fn draws_every_tick_without_a_throttle_and_clears_at_the_end() {
        let out = Shared::default();
        let p = Progress::with_writer(3, Box::new(out.clone()), true, Duration::ZERO);
        for _ in 0..3 {
            p.tick();
        }
        p.finish();
        assert_eq!(
            out.text(),
            "\r\x1b[2Kchecked 1/3 models\r\x1b[2Kchecked 2/3 models\r\x1b[2Kchecked 3/3 models\r\x1b[2K"
        );
        p.tick();
        p.finish();
        assert!(
            out.text().ends_with("3/3 models\r\x1b[2K"),
            "nothing after finish"
        );
        assert_eq!(p.done(), 4);
    }

    #[test]
    fn throttles_redraws() {
        let out = Shared::default();
        let p = Progress::with_writer(50, Box::new(out.clone()), true, Duration::from_secs(3600));
        for _ in 0..50 {
            p.tick();
        }
        drop(p);
        assert_eq!(out.text(), "\r\x1b[2Kchecked 1/50 models\r\x1b[2K");
    }

    #[test]
    fn disabled_progress_writes_nothing_but_counts() {
        let out = Shared::default();
        let p = Progress::with_writer(50, Box::new(out.clone()), false, Duration::ZERO);
        p.tick();
        p.tick();
        p.finish();
        assert_eq!(p.done(), 2);
        assert_eq!(out.text(), "");
    }

    #[test]
    fn ticks_from_many_threads_are_all_counted() {
        let out = Shared::default();
        let p = Progress::with_writer(64, Box::new(out.clone()), true, Duration::ZERO);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..16 {
                        p.tick();
                    }
                });
            }
        });
        p.finish();
        assert_eq!(p.done(), 64);
        assert!(out.text().ends_with("\r\x1b[2K"));
        assert!(!out.text().contains("/65"));
    }

    #[test]
    fn stderr_progress_is_off_for_few_models() {
        assert!(!Progress::stderr(Progress::MIN_MODELS - 1).is_enabled());
    }
}
