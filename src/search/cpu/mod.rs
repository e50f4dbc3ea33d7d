//! The CPU engine: the table in host memory, passes on the rayon pool.
//!
//! - **frontier list**: top-down from an explicit list of the last level's states; lists of a
//!   handful of states (a long thin graph) go through one cursor without the pool;
//! - **top-down scan**: every state of the last level is expanded and its unreached neighbours
//!   claimed with atomic operations; under [`Footprint::Full`] a bitmap of the states not yet
//!   seen keeps scans from expanding levels `d - 3`, `d - 6`, ... again;
//! - **bottom-up scan**: every unreached entry looks for a neighbour holding `d mod 3`; each
//!   worker writes only its own words;
//! - **remaining list**: the unreached states are listed once and only those are checked,
//!   bottom-up;
//! - **sweep**: block moves pulled 64 entries at a time, the rest state by state (see
//!   [`super::sweep`]); in a space with pages, the pages near the last level 64 entries at a
//!   time (`pages`).

pub mod footprint;
mod pages;
mod scan;

use super::bitmap::Bitmap;
use super::engine::Engine;
use super::levels::Levels;
use super::list::{self, STATES_PER_TASK};
use super::smallest::{Smallest, merge_smallest};
use super::sweep::Sweep;
use super::sweep::frontier::count_holding;
use super::within::Within;
use super::{Footprint, Options, Outcome, Progress, SearchError, Step, TINY_LEVEL};
use crate::puzzle::{Cursor, StateSpace, Structure, Way};
use crate::table::BATCH;
use crate::table::{
    DistanceTable, ENTRIES_PER_WORD, TableSource, TableView, UNREACHED, matches, spread, squeeze,
};
use pages::PageSweep;
use rayon::prelude::*;
use scan::*;
use std::ops::Range;

/// Table words per task when listing unreached ranks.
const WORDS_PER_LIST_TASK: usize = 1 << 14;
/// A claim of a top-down scan (a scattered neighbour) costs about as much as a sweep's pull of
/// this many entries through one block move. Measured lean on 13 pancakes (6 block moves of 12),
/// the level after 7 million states: swept in 7.7 s (0.21 ns an entry and block move), scanned
/// in 3.2 s (37 ns a claim).
const CLAIM_ENTRIES: u128 = 180;

/// The CPU engine on one space.
pub struct CpuEngine<'s, S: StateSpace> {
    space: &'s S,
    table: DistanceTable,
    footprint: Footprint,
    /// How many of the smallest ranks each pass keeps.
    limit: usize,
    /// The space's block moves, until the first sweep takes them.
    structure: Option<Structure>,
    /// How many entries a sweep pulls through its block moves, all moves together (0 without
    /// structure): a move split into many short ranges (the Towers of Hanoi's) pulls each entry
    /// once, not once a range.
    block_entries: u64,
    /// The last level as a list, after frontier passes.
    list: Option<Vec<u64>>,
    /// The entries not yet seen (top-down scans under the full footprint).
    unseen: Option<Unseen>,
    sweep: Option<Sweep>,
    /// Page sweeps, for a space with pages ([`crate::puzzle::Pages`]).
    pages: Option<PageSweep>,
    /// The states still unreached, once the remaining-list passes have begun.
    remaining: Option<Vec<u64>>,
    /// The smallest ranks set by the last pass that set any (when there is no list).
    smallest: Vec<u64>,
    /// A cursor for lists of a few states.
    cursor: S::Cursor<'s>,
    /// Whether the cursor has runs ([`Cursor::seek_run`]), which scans go through move by move.
    runs: bool,
}

/// Runs a full breadth-first search of `space` from its solved states on the CPU engine, in
/// the current rayon pool: [`super::drive`] on a [`CpuEngine`], without checkpoints.
///
/// Panics where a stop is asked for ([`super::stop`]): a search that may be stopped calls
/// [`try_search`].
pub fn search<S: StateSpace>(space: &S, options: &Options, progress: &dyn Progress) -> Outcome {
    try_search(space, options, progress).expect("no stop is asked for while this search runs")
}

/// As [`search`], but a stop asked for ends it with [`SearchError::Interrupted`] (the only way
/// a search without checkpoints fails).
pub fn try_search<S: StateSpace>(
    space: &S,
    options: &Options,
    progress: &dyn Progress,
) -> Result<Outcome, SearchError> {
    let mut engine = CpuEngine::new(space, options.footprint, options.antipode_limit);
    let (levels, antipodes) = super::drive(space, &mut engine, options, progress, None, None)?;
    Ok(Outcome {
        table: engine
            .into_table()
            .expect("the CPU engine's table is in memory"),
        levels,
        antipodes,
    })
}

impl<'s, S: StateSpace> CpuEngine<'s, S> {
    /// An engine on `space` with an empty table, keeping the `limit` smallest ranks of each
    /// level, within `footprint`.
    pub fn new(space: &'s S, footprint: Footprint, limit: usize) -> Self {
        let mut cursor = space.cursor();
        let runs = cursor.seek_run(0) > 1;
        let structure = space.capabilities().structure();
        CpuEngine {
            space,
            table: DistanceTable::new(space.size()),
            footprint,
            limit,
            block_entries: structure
                .as_ref()
                .map_or(0, |s| s.blocks.iter().map(|b| b.len).sum()),
            structure,
            list: None,
            unseen: None,
            sweep: None,
            pages: None,
            remaining: None,
            smallest: Vec::new(),
            cursor,
            runs,
        }
    }

    fn lean(&self) -> bool {
        self.footprint == Footprint::Lean
    }

    /// A frontier pass; keeps the new level as the list (the old one when none is found).
    fn frontier(&mut self, current: u8, next: u8, progress: &dyn Progress) -> u64 {
        let list = match self.list.take() {
            Some(list) => list,
            None => ranks_holding(&self.table, current),
        };
        let mut new = if list.len() <= TINY_LEVEL {
            let moves = self.space.moves_for(Way::Push);
            let mut new = Vec::new();
            for &rank in &list {
                self.cursor.seek(rank);
                for mv in moves.clone() {
                    let n = self.cursor.neighbour(mv);
                    if self.table.claim(n, next) {
                        new.push(n);
                    }
                }
            }
            progress.found(new.len() as u64);
            new
        } else {
            list::expand(self.space, &list, |n| self.table.claim(n, next), progress)
        };
        if new.is_empty() {
            self.list = Some(list);
            return 0;
        }
        if new.len() <= TINY_LEVEL {
            new.sort_unstable();
        } else {
            new.par_sort_unstable();
        }
        let count = new.len() as u64;
        self.list = Some(new);
        count
    }

    /// The last level's list, taken for a pass of another kind: its smallest ranks are kept,
    /// the level's antipodes should that pass find nothing.
    fn take_list(&mut self) -> Option<Vec<u64>> {
        let list = self.list.take()?;
        // Lists are ascending.
        self.smallest = list[..list.len().min(self.limit)].to_vec();
        Some(list)
    }

    /// Keeps a pass's result: its smallest ranks, unless it found nothing.
    fn found(&mut self, (count, smallest): (u64, Vec<u64>)) -> u64 {
        if count > 0 {
            self.smallest = smallest;
        }
        count
    }

    /// A top-down or bottom-up scan from level `depth`, from and pausing where `within` says.
    fn scan_pass(
        &mut self,
        step: Step,
        depth: u64,
        progress: &dyn Progress,
        within: Within,
    ) -> Result<u64, String> {
        let current = (depth % 3) as u8;
        let next = ((depth + 1) % 3) as u8;
        let list = self.take_list();
        let (table, limit) = (&self.table, self.limit);
        let found = if step == Step::BottomUp {
            self.unseen = None;
            // The entries holding `current` as bits: half the table's bytes, so that more of
            // what the checks load stays in cache.
            let last = (!self.lean())
                .then(|| Bitmap::from_fn(table.entries(), |w| table.value_bits(w, current)));
            let scan = Scan {
                space: self.space,
                table,
                unseen: None,
                last: last.as_ref(),
                current,
                next,
            };
            scan.run(step, limit, progress, within)?
        } else {
            // The first scan: the last level as a bitmap, and from it the unseen entries; with
            // the next level's value too where a scan saved part way has set some of it.
            if !self.lean() && self.unseen.is_none() {
                let mut last = last_level(table, list.as_deref(), current);
                if within.from > 0 {
                    last = Bitmap::from_fn(table.entries(), |w| {
                        last.word(w) | table.value_bits(w, next)
                    });
                }
                self.unseen = Some(Unseen::new(table, &last));
            }
            let scan = Scan {
                space: self.space,
                table,
                unseen: self.unseen.as_ref(),
                last: None,
                current,
                next,
            };
            scan.run(step, limit, progress, within)?
        };
        Ok(self.found(found))
    }
}

impl<S: StateSpace> Engine for CpuEngine<'_, S> {
    fn start(&mut self, starts: &[u64]) -> Result<(), SearchError> {
        for &s in starts {
            self.table.claim(s, 0);
        }
        self.list = Some(starts.to_vec());
        Ok(())
    }

    fn load(
        &mut self,
        table: Box<dyn TableSource>,
        _depth: u64,
        list: Option<Vec<u64>>,
    ) -> Result<(), SearchError> {
        // The fresh table goes first: the loaded one takes its place, not room beside it.
        self.table = DistanceTable::new(0);
        self.table = table.into_table()?;
        self.list = list;
        Ok(())
    }

    fn pass(
        &mut self,
        step: Step,
        levels: &Levels,
        progress: &dyn Progress,
    ) -> Result<u64, SearchError> {
        let depth = levels.len() - 1;
        let current = (depth % 3) as u8;
        let next = ((depth + 1) % 3) as u8;
        // Every pass but a frontier pass takes the last level's list (if any) for its own.
        let list = match step {
            Step::Frontier => None,
            _ => self.take_list(),
        };
        let (table, limit) = (&self.table, self.limit);
        let count = match step {
            Step::Frontier => self.frontier(current, next, progress),
            Step::Remaining => {
                (self.sweep, self.unseen) = (None, None);
                let list = self.remaining.take();
                let (found, left) = check_unreached(
                    self.space,
                    table,
                    list.as_deref(),
                    current,
                    next,
                    limit,
                    progress,
                );
                self.remaining = Some(left);
                self.found(found)
            }
            Step::Sweep if let Some(paged) = self.space.capabilities().pages => {
                let entries = table.entries();
                let pages =
                    (self.pages).get_or_insert_with(|| PageSweep::new(paged.bits(), entries));
                let found = pages.pass(paged, table, depth, current, next, limit, progress);
                self.found(found)
            }
            Step::Sweep => {
                if self.sweep.is_none() {
                    let structure = self
                        .structure
                        .take()
                        .ok_or("a sweep of a space without block moves")?;
                    let last = (!self.lean()).then(|| last_level(table, list.as_deref(), current));
                    self.sweep = Some(Sweep::new(structure, table.entries(), last));
                }
                let sweep = self.sweep.as_mut().expect("just made");
                let found = sweep.pass(self.space, table, depth, list.as_deref(), limit, progress);
                self.found(found)
            }
            Step::BottomUp | Step::TopDown => {
                self.list = list;
                return Ok(self.scan_pass(step, depth, progress, Within::default())?);
            }
        };
        Ok(count)
    }

    fn scan(
        &mut self,
        step: Step,
        levels: &Levels,
        progress: &dyn Progress,
        within: Within,
    ) -> Result<u64, SearchError> {
        Ok(self.scan_pass(step, levels.len() - 1, progress, within)?)
    }

    fn pauses(&self) -> bool {
        true
    }

    fn let_go_of_list(&mut self) -> bool {
        self.take_list().is_some()
    }

    fn bottom_up_weight(&self, moves: usize) -> u64 {
        if self.runs {
            // Passes over runs move by move make a claim cost about what a check costs, and a
            // check goes through about half the moves (measured on the 2x2x2 cube: 8.9 of 18).
            (moves as u64 / 2).max(2)
        } else {
            2
        }
    }

    /// Lean only: a sweep under the full footprint keeps bitmaps of the last level, which a
    /// scan between two sweeps would leave behind.
    fn scan_costs_less(&self, expanded: u64) -> bool {
        let claims = u128::from(expanded) * self.space.move_count() as u128 * CLAIM_ENTRIES;
        let pulls = u128::from(self.block_entries);
        self.lean() && claims < pulls
    }

    fn smallest(&mut self, _depth: u64, limit: usize) -> Result<Vec<u64>, SearchError> {
        let smallest = match &self.list {
            Some(list) => list,
            None => &self.smallest,
        };
        Ok(smallest[..smallest.len().min(limit)].to_vec())
    }

    fn count_holding(&mut self, ranges: &[Range<u64>], value: u8) -> Result<Vec<u64>, SearchError> {
        Ok((ranges.iter())
            .map(|r| count_holding(&self.table, value, r.clone()))
            .collect())
    }

    fn values_at(&mut self, ranks: &[u64]) -> Result<Vec<u8>, SearchError> {
        Ok(ranks.iter().map(|&r| self.table.get(r)).collect())
    }

    fn with_table(
        &mut self,
        f: &mut dyn FnMut(&dyn TableView) -> Result<(), String>,
    ) -> Result<(), SearchError> {
        Ok(f(&self.table)?)
    }

    fn into_table(self) -> Result<DistanceTable, SearchError> {
        Ok(self.table)
    }
}

/// The last level as a bitmap: its list where there is one, else (after a resume) every entry
/// holding its value `current`, levels `d - 3`, `d - 6`, ... too, which passes may expand again
/// without finding anything more.
fn last_level(table: &DistanceTable, list: Option<&[u64]>, current: u8) -> Bitmap {
    match list {
        Some(list) => Bitmap::from_ranks(table.entries(), list),
        None => Bitmap::from_fn(table.entries(), |w| table.value_bits(w, current)),
    }
}

/// Every rank whose entry holds `value`, ascending.
fn ranks_holding(table: &DistanceTable, value: u8) -> Vec<u64> {
    (0..table.word_count().div_ceil(WORDS_PER_LIST_TASK))
        .into_par_iter()
        .flat_map_iter(|task| {
            let mut ranks = Vec::new();
            task_ranks_holding(table, task, value, &mut ranks);
            ranks
        })
        .collect()
}

/// Appends to `ranks` the ranks of list task `task`'s words ([`WORDS_PER_LIST_TASK`] of them)
/// whose entries hold `value`, ascending.
fn task_ranks_holding(table: &DistanceTable, task: usize, value: u8, ranks: &mut Vec<u64>) {
    let start = task * WORDS_PER_LIST_TASK;
    for w in start..(start + WORDS_PER_LIST_TASK).min(table.word_count()) {
        let mut todo = matches(table.word(w), value) & table.valid(w);
        while todo != 0 {
            ranks.push(w as u64 * ENTRIES_PER_WORD + (todo.trailing_zeros() / 2) as u64);
            todo &= todo - 1;
        }
    }
}

/// Bottom-up over the unreached ranks: those of `list` (ascending), or where there is none yet
/// every entry of the table still unreached, listed task by task as they are checked. Returns
/// the states set, the smallest `limit` of them and the ranks still unreached (ascending),
/// less those whose every neighbour is themselves: no pass reaches such an entry (in a table
/// reduced by symmetry, an entry that holds no class), so the list never carries them.
fn check_unreached<S: StateSpace>(
    space: &S,
    table: &DistanceTable,
    list: Option<&[u64]>,
    current: u8,
    next: u8,
    limit: usize,
    progress: &dyn Progress,
) -> ((u64, Vec<u64>), Vec<u64>) {
    let check = |cursor: &mut S::Cursor<'_>, ranks: &[u64]| {
        let (new, left) = check_ranks(
            cursor,
            table,
            space.moves_for(Way::Pull),
            ranks,
            current,
            next,
        );
        progress.found(new.len() as u64);
        (new, left)
    };
    let parts: Vec<(Vec<u64>, Vec<u64>)> = match list {
        Some(list) => list
            .par_chunks(STATES_PER_TASK)
            .map_init(|| space.cursor(), |cursor, chunk| check(cursor, chunk))
            .collect(),
        None => (0..table.word_count().div_ceil(WORDS_PER_LIST_TASK))
            .into_par_iter()
            .map_init(
                || (space.cursor(), Vec::new()),
                |(cursor, ranks), task| {
                    ranks.clear();
                    task_ranks_holding(table, task, UNREACHED, ranks);
                    check(cursor, ranks)
                },
            )
            .collect(),
    };
    let (new, left): (Vec<Vec<u64>>, Vec<Vec<u64>>) = parts.into_iter().unzip();
    let new = new.concat();
    let smallest = new[..new.len().min(limit)].to_vec();
    ((new.len() as u64, smallest), left.concat())
}

/// Checks the unreached `ranks` (ascending) bottom-up through `cursor`, pulling along `moves`:
/// sets to `next` those with a predecessor holding `current`, and returns them and the others,
/// less those whose every predecessor is themselves ([`crate::search::isolated`]'s test, made
/// here with the check's own predecessors rather than by moving each entry a second time).
fn check_ranks<C: Cursor>(
    cursor: &mut C,
    table: &DistanceTable,
    moves: Range<usize>,
    ranks: &[u64],
    current: u8,
    next: u8,
) -> (Vec<u64>, Vec<u64>) {
    let (mut new, mut left) = (Vec::new(), Vec::new());
    for &rank in ranks {
        cursor.seek(rank);
        let mut isolated = true;
        let mut found = false;
        for mv in moves.clone() {
            let neighbour = cursor.neighbour(mv);
            if neighbour != rank {
                isolated = false;
                if table.get(neighbour) == current {
                    found = true;
                    break;
                }
            }
        }
        if found {
            // Holding `next` now cannot make another state of this pass look found.
            table.claim(rank, next);
            new.push(rank);
        } else if !isolated {
            left.push(rank);
        }
    }
    (new, left)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::symmetry::{Erased, Reduced};
    use crate::puzzle::{Metric, Ring};
    use crate::search::Silent;

    /// The first remaining-list pass lists the unreached from the table and checks them, and
    /// keeps none of the entries that hold no class (each its own only neighbour): the list
    /// holds the entries still to reach, no more.
    #[test]
    fn the_remaining_list_leaves_out_entries_that_hold_no_class() {
        let space = Ring::turnstyle(10, Metric::Lrf).unwrap();
        let symmetry = space.capabilities().symmetry().unwrap();
        let reduced = Reduced::new(Box::new(Erased(space)), symmetry).unwrap();
        let empty = reduced.weights().unwrap().empty;
        assert!(empty > 0, "Turnstyle 10 lrf has blocks the mirror keeps");
        let table = DistanceTable::new(reduced.size());
        table.claim(reduced.solved(), 0);
        let ((found, _), left) = check_unreached(&reduced, &table, None, 0, 1, 8, &Silent);
        // The solved position's neighbours: L and R are one class, F another.
        assert_eq!(found, 2);
        assert_eq!(left.len() as u64, reduced.size() - empty - 1 - found);
        assert!(left.windows(2).all(|w| w[0] < w[1]));
        // The next pass, from the list, finds the next level and keeps the rest.
        let ((next, _), rest) = check_unreached(&reduced, &table, Some(&left), 1, 2, 8, &Silent);
        assert_eq!(next, 3);
        assert_eq!(rest.len(), left.len() - 3);
    }
}
