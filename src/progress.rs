//! The progress bar on stderr: level, states found so far, rate, elapsed time and ETA.

use crate::search::{Progress, Step};
use indicatif::{HumanCount, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

/// Levels that each get a line; after them, a line a second at most.
const DETAILED_LEVELS: u64 = 1000;

/// A progress bar over the table's entries, with one line printed per finished level (also when
/// stderr is not a terminal, so batch logs keep them). Past the first [`DETAILED_LEVELS`]
/// levels (a long thin graph), a line a second sums up the levels since the last one.
pub struct LevelBar {
    bar: ProgressBar,
    quiet: bool,
    last: Mutex<Last>,
    /// Levels reported since the clock was last read.
    unread: AtomicU64,
    /// States found in the levels since the last line.
    pending: AtomicU64,
}

/// When and where the last line was printed.
struct Last {
    at: Instant,
    depth: u64,
}

impl LevelBar {
    /// A bar for a search over `entries` ranks; hidden when `quiet`.
    pub fn new(entries: u64, quiet: bool) -> LevelBar {
        let target = if quiet {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        let bar = ProgressBar::with_draw_target(Some(entries), target);
        bar.set_style(
            ProgressStyle::with_template(
                "level {msg:>4} [{bar:30}] {human_pos}/{human_len} states, {rate}, {elapsed_precise} elapsed, ETA {eta}",
            )
            .expect("the template is valid")
            .with_key("rate", |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{} states/s", HumanCount(state.per_sec() as u64));
            })
            .progress_chars("=> "),
        );
        bar.set_message("1");
        LevelBar {
            bar,
            quiet,
            last: Mutex::new(Last {
                at: Instant::now(),
                depth: 0,
            }),
            unread: AtomicU64::new(0),
            pending: AtomicU64::new(0),
        }
    }

    /// Clears the bar at the end of the search.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Progress for LevelBar {
    fn found(&self, states: u64) {
        self.bar.inc(states);
    }

    fn level(&self, depth: u64, count: u64, step: Step) {
        if depth > DETAILED_LEVELS && !self.unread.fetch_add(1, Relaxed).is_multiple_of(1024) {
            // Reading the clock costs more than a level of a long path: count them instead.
            self.pending.fetch_add(count, Relaxed);
            return;
        }
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        let seconds = last.at.elapsed().as_secs_f64();
        let line = if depth <= DETAILED_LEVELS {
            format!(
                "level {depth:>3}: {:>15} states  {:<9} {seconds:8.3} s",
                HumanCount(count).to_string(),
                step.name()
            )
        } else if seconds >= 1.0 || last.depth <= DETAILED_LEVELS {
            format!(
                "level {}: {} states  {:<9} (levels {} to {}: {} states in {seconds:.3} s)",
                HumanCount(depth),
                HumanCount(count),
                step.name(),
                HumanCount(last.depth + 1),
                HumanCount(depth),
                HumanCount(self.pending.swap(0, Relaxed) + count),
            )
        } else {
            self.pending.fetch_add(count, Relaxed);
            return;
        };
        self.pending.store(0, Relaxed);
        *last = Last {
            at: Instant::now(),
            depth,
        };
        if self.bar.is_hidden() {
            if !self.quiet {
                eprintln!("{line}");
            }
        } else {
            self.bar.println(line);
        }
        self.bar.set_message((depth + 1).to_string());
    }
}
