//! The progress bar on stderr: level, states found so far, rate, elapsed time and ETA.
//!
//! The ETA is the states still unreached times what one more state has cost lately: the slope
//! of pass time over states found, fitted to the last passes that sweep or scan the table. A
//! pass costs a fixed scan of the table plus a part that grows with the states it finds, and
//! levels range from a handful of states to a seventh of the space, so neither the average rate
//! nor the last pass's rate says much; the slope does. The fixed part of the passes still to
//! come is not in it: the ETA runs short by a few passes at the very end.

use crate::search::{Progress, Step};
use indicatif::{
    HumanCount, HumanDuration, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle,
};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Levels that each get a line; after them, a line a second at most.
const DETAILED_LEVELS: u64 = 1000;
/// Seconds between the lines a log (stderr not a terminal) gets within a long level.
const LOG_NOTE_SECONDS: u64 = 600;

/// A progress bar over the table's entries, with one line printed per finished level (also when
/// stderr is not a terminal, so batch logs keep them, with a line every `LOG_NOTE_SECONDS`
/// within a long level). Past the first `DETAILED_LEVELS` levels (a long thin graph), a line
/// a second sums up the levels since the last one.
pub struct LevelBar {
    bar: ProgressBar,
    quiet: bool,
    last: Mutex<Last>,
    /// Levels reported since the clock was last read.
    unread: AtomicU64,
    /// States found in the levels since the last line.
    pending: AtomicU64,
    /// Seconds a state costs at the margin (`f64` bits; 0 until known), shared with the bar.
    per_state: Arc<AtomicU64>,
    /// What an entry is counted as: "states", or "classes" in a reduced table.
    unit: &'static str,
    /// When the search started, and the second after it when a log gets its next line within
    /// a level.
    started: Instant,
    next_note: AtomicU64,
}

/// Passes fitted for the ETA.
const FITTED_PASSES: usize = 6;

/// When and where the last line was printed.
struct Last {
    at: Instant,
    depth: u64,
    /// The last passes that sweep or scan the table: (states found, seconds).
    passes: Vec<(f64, f64)>,
}

/// The slope of seconds over states of `passes` (least squares), where it is positive.
fn marginal_cost(passes: &[(f64, f64)]) -> Option<f64> {
    if passes.len() < 2 {
        return None;
    }
    let n = passes.len() as f64;
    let (mx, my) = passes
        .iter()
        .fold((0.0, 0.0), |(x, y), &(c, t)| (x + c / n, y + t / n));
    let (sxy, sxx) = passes.iter().fold((0.0, 0.0), |(xy, xx), &(c, t)| {
        (xy + (c - mx) * (t - my), xx + (c - mx) * (c - mx))
    });
    (sxx > 0.0 && sxy > 0.0).then(|| sxy / sxx)
}

/// The ETA of `left` states at `per_state` seconds each, or `-` while unknown.
fn eta(left: u64, per_state: f64) -> String {
    if per_state > 0.0 {
        HumanDuration(Duration::from_secs_f64(left as f64 * per_state)).to_string()
    } else {
        "-".into()
    }
}

/// What the entries of `space` are counted as on the bar: "classes" where the table is reduced
/// by symmetry (each entry weighs several positions), else "states".
pub fn unit<S: crate::puzzle::StateSpace + ?Sized>(space: &S) -> &'static str {
    match space.info().symmetry {
        Some(_) => "classes",
        None => "states",
    }
}

impl LevelBar {
    /// A bar for a search over `entries` ranks, each counted as one of `unit` ("states", or
    /// "classes" in a table reduced by symmetry); hidden when `quiet`.
    pub fn new(entries: u64, unit: &'static str, quiet: bool) -> LevelBar {
        let target = if quiet {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        let bar = ProgressBar::with_draw_target(Some(entries), target);
        let per_state = Arc::new(AtomicU64::new(0));
        let shared = per_state.clone();
        bar.set_style(
            ProgressStyle::with_template(&format!(
                "level {{msg:>4}} [{{bar:30}}] {{human_pos}}/{{human_len}} {unit}, {{rate}}, {{elapsed_precise}} elapsed, ETA {{marginal_eta}}",
            ))
            .expect("the template is valid")
            .with_key(
                "rate",
                move |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{} {unit}/s", HumanCount(state.per_sec() as u64));
                },
            )
            .with_key(
                "marginal_eta",
                move |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let left = state.len().unwrap_or(0).saturating_sub(state.pos());
                    let _ = write!(w, "{}", eta(left, f64::from_bits(shared.load(Relaxed))));
                },
            )
            .progress_chars("=> "),
        );
        bar.set_message("1");
        LevelBar {
            bar,
            quiet,
            last: Mutex::new(Last {
                at: Instant::now(),
                depth: 0,
                passes: Vec::new(),
            }),
            unread: AtomicU64::new(0),
            pending: AtomicU64::new(0),
            per_state,
            unit,
            started: Instant::now(),
            next_note: AtomicU64::new(LOG_NOTE_SECONDS),
        }
    }

    /// Whether it prints nothing (`--quiet`, or an MPI job's processes but the first).
    pub fn quiet(&self) -> bool {
        self.quiet
    }

    /// A line for a log within a long level, every [`LOG_NOTE_SECONDS`]: the bar shows none.
    fn note(&self) {
        let now = self.started.elapsed().as_secs();
        let due = self.next_note.load(Relaxed);
        if now < due
            || (self.next_note)
                .compare_exchange(due, now + LOG_NOTE_SECONDS, Relaxed, Relaxed)
                .is_err()
        {
            return;
        }
        let (pos, total) = (self.bar.position(), self.bar.length().unwrap_or(0));
        eprintln!(
            "searching: {} of {} {} found ({:.1}%), {} elapsed",
            HumanCount(pos),
            HumanCount(total),
            self.unit,
            100.0 * pos as f64 / total.max(1) as f64,
            HumanDuration(self.started.elapsed())
        );
    }

    /// Clears the bar at the end of the search.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Progress for LevelBar {
    fn found(&self, states: u64) {
        self.bar.inc(states);
        if self.bar.is_hidden() && !self.quiet {
            self.note();
        }
    }

    fn level(&self, depth: u64, count: u64, positions: Option<u64>, step: Step) {
        if depth > DETAILED_LEVELS && !self.unread.fetch_add(1, Relaxed).is_multiple_of(1024) {
            // Reading the clock costs more than a level of a long path: count them instead.
            self.pending.fetch_add(count, Relaxed);
            return;
        }
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        let seconds = last.at.elapsed().as_secs_f64();
        let (pos, total) = (self.bar.position(), self.bar.length().unwrap_or(0));
        if matches!(step, Step::Sweep | Step::TopDown | Step::BottomUp) {
            last.passes.push((count as f64, seconds));
            let from = last.passes.len().saturating_sub(FITTED_PASSES);
            last.passes.drain(..from);
            if let Some(cost) = marginal_cost(&last.passes) {
                self.per_state.store(cost.to_bits(), Relaxed);
            }
        }
        // Logs (stderr not a terminal) show no bar: each line carries the share found and the
        // ETA.
        let per_state = f64::from_bits(self.per_state.load(Relaxed));
        let eta = if per_state > 0.0 {
            format!(", ETA {}", eta(total.saturating_sub(pos), per_state))
        } else {
            String::new()
        };
        let unit = self.unit;
        // A reduced table's classes, with the positions they stand for.
        let standing =
            positions.map_or(String::new(), |p| format!(" ({} positions)", HumanCount(p)));
        let line = if depth <= DETAILED_LEVELS {
            format!(
                "level {depth:>3}: {:>15} {unit}{standing}  {:<9} {seconds:8.3} s  ({:.1}% of {}{eta})",
                HumanCount(count).to_string(),
                step.name(),
                100.0 * pos as f64 / total.max(1) as f64,
                HumanCount(total)
            )
        } else if seconds >= 1.0 || last.depth <= DETAILED_LEVELS {
            format!(
                "level {}: {} {unit}{standing}  {:<9} (levels {} to {}: {} {unit} in {seconds:.3} s)",
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
        last.at = Instant::now();
        last.depth = depth;
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
