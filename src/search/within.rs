//! Checkpoints within a level: a long scan saved part way, and gone on with from where it
//! stopped.
//!
//! A level of a large table can take hours to scan (Turnstyle 16 in the flips metric, reduced
//! by symmetry: 8e10 entries on two cores), longer than a run may last before it is stopped; a
//! checkpoint only after each level would then never be reached. So the CPU engine scans the
//! table in parts, in rank order, and between parts, when a checkpoint is due, saves the table
//! as it is with how far the scan got ([`PassSaved`]).
//!
//! Either kind of scan may stop after any part and go on: every entry of the parts done has
//! been expanded (top-down) or checked (bottom-up) against the last level, which no pass
//! changes, and the entries the scan set hold the next level's value, which neither kind reads
//! as the last level. Only the CPU engine goes on from such a checkpoint ([`Engine::pauses`]):
//! the others keep what their last pass set as the next frontier (the GPU's seen bits, the
//! slabs' next level), which would leave out the entries set before the checkpoint.

use super::levels::Levels;
use super::smallest::merge_smallest;
use super::weighing::Weighing;
use super::{Checkpoints, Engine, Progress, Saving, SearchError, Step};
use crate::table::TableView;
use serde::{Deserialize, Serialize};

/// A scan saved part way (in a checkpoint within the level it finds).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PassSaved {
    /// Whether the scan is bottom-up (else top-down).
    pub bottom_up: bool,
    /// The table words scanned: every entry of words `0..words`.
    pub words: u64,
    /// The states the scan has set so far.
    pub found: u64,
    /// The smallest ranks of those, ascending.
    pub smallest: Vec<u64>,
    /// For a table reduced by symmetry, its weighing as the scan started
    /// ([`super::weighing::Weighing::saved`]): each lighter range's entries holding 0, 1 and 2.
    #[serde(default)]
    pub held: Vec<[u64; 3]>,
    /// Likewise, the special entries unreached as the scan started.
    #[serde(default)]
    pub special: Vec<u64>,
}

impl PassSaved {
    /// The kind of scan saved.
    pub fn step(&self) -> Step {
        if self.bottom_up {
            Step::BottomUp
        } else {
            Step::TopDown
        }
    }

    /// How far the scan got, in percent of a table of `words` words, for messages.
    pub fn percent(&self, words: u64) -> f64 {
        100.0 * self.words as f64 / words.max(1) as f64
    }
}

/// Where a scan saves itself part way.
pub trait Pause: Sync {
    /// Whether a checkpoint is due.
    fn due(&self) -> bool;
    /// Saves `table` after every entry of its words `0..words` was scanned, with what this
    /// scan set so far (`found` states, whose smallest ranks are `smallest`).
    fn save(
        &self,
        table: &dyn TableView,
        words: u64,
        found: u64,
        smallest: &[u64],
    ) -> Result<(), String>;
}

/// Where a scan starts and where it may pause.
#[derive(Clone, Copy, Default)]
pub struct Within<'a> {
    /// The table words scanned before (by a run interrupted part way): the scan starts after
    /// them. Only engines that pause are handed a scan begun before.
    pub from: u64,
    /// Where to save part way, when a checkpoint is due.
    pub pause: Option<&'a dyn Pause>,
}

/// The level loop's pause: checkpoints within the scan that finds the level after `levels`.
pub(super) struct LevelPause<'a> {
    pub(super) checkpoints: &'a dyn Checkpoints,
    pub(super) levels: &'a Levels,
    /// The smallest ranks of the last of `levels`.
    pub(super) last: &'a [u64],
    /// The scan as saved before this run (its `words` where this run's scan started), or as
    /// it starts: the kind, what was found, the weighing at its start.
    pub(super) carried: &'a PassSaved,
    pub(super) limit: usize,
}

impl Pause for LevelPause<'_> {
    fn due(&self) -> bool {
        self.checkpoints.due()
    }

    fn save(
        &self,
        table: &dyn TableView,
        words: u64,
        found: u64,
        smallest: &[u64],
    ) -> Result<(), String> {
        let carried = self.carried;
        let pass = PassSaved {
            words,
            found: carried.found + found,
            smallest: merge_smallest(carried.smallest.clone(), smallest.to_vec(), self.limit),
            ..carried.clone()
        };
        (self.checkpoints).save_within(Saving::Table(table), self.levels, self.last, &pass)
    }
}

/// A top-down or bottom-up scan that finds the level after `levels`, going on from `start`
/// (a scan saved part way, or one not begun), pausing for `checkpoints` where the engine can
/// ([`Engine::pauses`]). `last`: the last level's smallest ranks where the loop has them.
/// Returns the states set in this run.
#[allow(clippy::too_many_arguments)]
pub(super) fn scan<E: Engine>(
    engine: &mut E,
    step: Step,
    levels: &Levels,
    progress: &dyn Progress,
    checkpoints: Option<&dyn Checkpoints>,
    weighing: Option<&Weighing>,
    last: Option<&Vec<u64>>,
    start: &PassSaved,
    limit: usize,
) -> Result<u64, SearchError> {
    let from = start.words;
    let Some(checkpoints) = checkpoints.filter(|_| engine.pauses()) else {
        return engine.scan(step, levels, progress, Within { from, pause: None });
    };
    let last = match last {
        Some(last) => last.clone(),
        None => engine.smallest(levels.len() - 1, limit)?,
    };
    // The weighing is as the scan started: a resumed run restored it from `start`.
    let (held, special) = weighing.map(Weighing::saved).unwrap_or_default();
    let carried = PassSaved {
        bottom_up: step == Step::BottomUp,
        held,
        special,
        ..start.clone()
    };
    let pause = LevelPause {
        checkpoints,
        levels,
        last: &last,
        carried: &carried,
        limit,
    };
    let within = Within {
        from,
        pause: Some(&pause),
    };
    engine.scan(step, levels, progress, within)
}
