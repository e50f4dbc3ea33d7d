//! The progress bar on stderr: level, states found so far, rate, elapsed time and ETA.

use crate::search::{Progress, Step};
use indicatif::{HumanCount, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::sync::Mutex;
use std::time::Instant;

/// A progress bar over the table's entries, with one line printed per finished level (also when
/// stderr is not a terminal, so batch logs keep them).
pub struct LevelBar {
    bar: ProgressBar,
    quiet: bool,
    level_start: Mutex<Instant>,
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
            level_start: Mutex::new(Instant::now()),
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

    fn level(&self, depth: usize, count: u64, step: Step) {
        let mut start = self.level_start.lock().unwrap_or_else(|e| e.into_inner());
        let seconds = start.elapsed().as_secs_f64();
        *start = Instant::now();
        let line = format!(
            "level {depth:>3}: {:>15} states  {:<9} {seconds:8.3} s",
            HumanCount(count).to_string(),
            step.name()
        );
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
