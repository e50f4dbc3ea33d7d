//! The level loop: breadth-first search over a [`StateSpace`] into a [`DistanceTable`].
//!
//! Each pass turns level `d` into level `d + 1` in one of three ways:
//! - **frontier list** (top-down from an explicit list of the states at level `d`), while levels
//!   are small — no scan of the table at all, which keeps long thin graphs linear;
//! - **top-down scan**: every entry holding `d mod 3` is expanded and its unreached neighbours
//!   claimed (entries at `d - 3`, `d - 6`, ... are expanded again, harmlessly);
//! - **bottom-up scan**: every unreached entry looks for a neighbour holding `d mod 3`; each
//!   worker writes only its own words.
//!
//! The loop switches from top-down to bottom-up once the unreached states are fewer than the
//! entries a top-down pass would expand (direction-optimising BFS).

pub mod path;
pub mod table;

use crate::puzzle::{Cursor, StateSpace};
use rayon::prelude::*;
use std::collections::BinaryHeap;
use table::{DistanceTable, ENTRIES_PER_WORD, UNREACHED, matches};

/// How the level loop picks the kind of each pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Frontier lists while levels are small, then top-down or bottom-up scans by cost.
    Auto,
    /// Frontier lists only.
    Lists,
    /// Top-down scans only.
    TopDown,
    /// Bottom-up scans only.
    BottomUp,
}

/// The kind of one pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Top-down from an explicit list of the frontier.
    Frontier,
    /// Top-down over a scan of the whole table.
    TopDown,
    /// Bottom-up over a scan of the whole table.
    BottomUp,
}

impl Step {
    /// A short name for progress lines.
    pub fn name(self) -> &'static str {
        match self {
            Step::Frontier => "frontier",
            Step::TopDown => "top-down",
            Step::BottomUp => "bottom-up",
        }
    }
}

/// Search settings.
#[derive(Clone, Debug)]
pub struct Options {
    /// How many antipodes to keep (the smallest ranks of the last level).
    pub antipode_limit: usize,
    /// How passes are chosen.
    pub strategy: Strategy,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            antipode_limit: 100,
            strategy: Strategy::Auto,
        }
    }
}

/// Receives progress while the search runs.
pub trait Progress: Sync {
    /// `states` more states were found in the current pass.
    fn found(&self, states: u64);
    /// Level `depth` is complete with `count` states.
    fn level(&self, depth: usize, count: u64, step: Step);
}

/// Progress that goes nowhere.
pub struct Silent;

impl Progress for Silent {
    fn found(&self, _: u64) {}
    fn level(&self, _: usize, _: u64, _: Step) {}
}

/// What a search found.
pub struct Outcome {
    /// The distance table.
    pub table: DistanceTable,
    /// `levels[d]` = number of states at distance `d`.
    pub levels: Vec<u64>,
    /// The smallest ranks of the last level, ascending, at most `antipode_limit` of them.
    pub antipodes: Vec<u64>,
}

impl Outcome {
    /// Number of reachable states.
    pub fn reachable(&self) -> u64 {
        self.levels.iter().sum()
    }

    /// The largest distance (God's number).
    pub fn diameter(&self) -> usize {
        self.levels.len() - 1
    }
}

/// Frontier lists are kept while a level has at most this many states per table entry (and at
/// least `MIN_LIST` states are always allowed).
const LIST_FRACTION: u64 = 256;
const MIN_LIST: u64 = 4096;
/// Words per scan task: small enough to balance, large enough to amortise a cursor seek.
const WORDS_PER_TASK: usize = 2048;
/// Frontier states per list task.
const STATES_PER_TASK: usize = 4096;

/// Runs a full breadth-first search of `space` from its solved state, in the current rayon pool.
pub fn search<S: StateSpace>(space: &S, options: &Options, progress: &dyn Progress) -> Outcome {
    let size = space.size();
    let moves = space.move_names().len();
    let table = DistanceTable::new(size);
    let start = space.solved();
    table.claim(start, 0);
    progress.found(1);
    progress.level(0, 1, Step::Frontier);

    let list_limit = match options.strategy {
        Strategy::Lists => u64::MAX,
        Strategy::Auto => (size / LIST_FRACTION).max(MIN_LIST),
        Strategy::TopDown | Strategy::BottomUp => 0,
    };
    let limit = options.antipode_limit;
    let mut levels = vec![1u64];
    let mut antipodes = vec![start];
    let mut frontier = (list_limit > 0).then(|| vec![start]);
    let mut reached = 1u64;
    let mut bottom_up = options.strategy == Strategy::BottomUp;

    loop {
        let depth = levels.len() - 1;
        let current = (depth % 3) as u8;
        let next = ((depth + 1) % 3) as u8;
        let pass = if let Some(list) = frontier.take() {
            let mut pass = expand_list(space, &table, &list, next, progress);
            pass.new.par_sort_unstable();
            let keep = pass.new.len() as u64 <= list_limit;
            let new = std::mem::take(&mut pass.new);
            pass.smallest = new[..new.len().min(limit)].to_vec();
            frontier = keep.then_some(new);
            pass.step = Step::Frontier;
            pass
        } else {
            // Entries holding `current`: levels depth, depth - 3, ...
            let holding: u64 = levels.iter().rev().step_by(3).sum();
            let unreached = size - reached;
            if options.strategy == Strategy::Auto && unreached < holding * moves as u64 / 2 {
                bottom_up = true;
            }
            if bottom_up {
                scan(
                    space,
                    &table,
                    current,
                    next,
                    limit,
                    Step::BottomUp,
                    progress,
                )
            } else {
                scan(space, &table, current, next, limit, Step::TopDown, progress)
            }
        };
        if pass.count == 0 {
            break;
        }
        progress.level(depth + 1, pass.count, pass.step);
        levels.push(pass.count);
        reached += pass.count;
        antipodes = pass.smallest;
    }
    Outcome {
        table,
        levels,
        antipodes,
    }
}

/// The result of one pass.
struct Pass {
    step: Step,
    /// States set in this pass.
    count: u64,
    /// The smallest ranks set, ascending, capped at the antipode limit.
    smallest: Vec<u64>,
    /// Every rank set (frontier passes only).
    new: Vec<u64>,
}

/// Top-down from an explicit frontier list: claims every unreached neighbour.
fn expand_list<S: StateSpace>(
    space: &S,
    table: &DistanceTable,
    list: &[u64],
    next: u8,
    progress: &dyn Progress,
) -> Pass {
    let moves = space.move_names().len();
    let parts: Vec<Vec<u64>> = list
        .par_chunks(STATES_PER_TASK)
        .map(|chunk| {
            let mut cursor = space.cursor();
            let mut new = Vec::new();
            for &rank in chunk {
                cursor.seek(rank);
                for mv in 0..moves {
                    let neighbour = cursor.neighbour(mv);
                    if table.claim(neighbour, next) {
                        new.push(neighbour);
                    }
                }
            }
            progress.found(new.len() as u64);
            new
        })
        .collect();
    let new = parts.concat();
    Pass {
        step: Step::Frontier,
        count: new.len() as u64,
        smallest: Vec::new(),
        new,
    }
}

/// A scan of the whole table, top-down or bottom-up, in word-aligned tasks.
fn scan<S: StateSpace>(
    space: &S,
    table: &DistanceTable,
    current: u8,
    next: u8,
    limit: usize,
    step: Step,
    progress: &dyn Progress,
) -> Pass {
    let words = table.word_count();
    let tasks = words.div_ceil(WORDS_PER_TASK);
    let (count, smallest) = (0..tasks)
        .into_par_iter()
        .map(|task| {
            let range = task * WORDS_PER_TASK..((task + 1) * WORDS_PER_TASK).min(words);
            let mut smallest = Smallest::new(limit);
            let count = match step {
                Step::BottomUp => {
                    bottom_up_words(space, table, range, current, next, &mut smallest)
                }
                _ => top_down_words(space, table, range, current, next, &mut smallest),
            };
            progress.found(count);
            (count, smallest.into_sorted())
        })
        .reduce(
            || (0, Vec::new()),
            |(ca, a), (cb, b)| (ca + cb, merge_smallest(a, b, limit)),
        );
    Pass {
        step,
        count,
        smallest,
        new: Vec::new(),
    }
}

/// Top-down over words `range`: expands entries holding `current`.
fn top_down_words<S: StateSpace>(
    space: &S,
    table: &DistanceTable,
    range: std::ops::Range<usize>,
    current: u8,
    next: u8,
    smallest: &mut Smallest,
) -> u64 {
    let moves = space.move_names().len();
    let mut cursor = space.cursor();
    let mut count = 0;
    for w in range {
        let mut hits = matches(table.word(w), current) & table.valid(w);
        while hits != 0 {
            let rank = w as u64 * ENTRIES_PER_WORD + (hits.trailing_zeros() / 2) as u64;
            hits &= hits - 1;
            cursor.seek(rank);
            for mv in 0..moves {
                let neighbour = cursor.neighbour(mv);
                if table.claim(neighbour, next) {
                    count += 1;
                    smallest.push(neighbour);
                }
            }
        }
    }
    count
}

/// Bottom-up over words `range`: an unreached entry with a neighbour holding `current` is at
/// the next level. Only this worker writes these words during the pass.
fn bottom_up_words<S: StateSpace>(
    space: &S,
    table: &DistanceTable,
    range: std::ops::Range<usize>,
    current: u8,
    next: u8,
    smallest: &mut Smallest,
) -> u64 {
    let moves = space.move_names().len();
    let mut cursor = space.cursor();
    let mut count = 0;
    let clear = (UNREACHED ^ next) as u64;
    for w in range {
        let word = table.word(w);
        let mut todo = matches(word, UNREACHED) & table.valid(w);
        let mut updated = word;
        while todo != 0 {
            let slot = todo.trailing_zeros() as u64;
            todo &= todo - 1;
            let rank = w as u64 * ENTRIES_PER_WORD + slot / 2;
            cursor.seek(rank);
            if (0..moves).any(|mv| table.get(cursor.neighbour(mv)) == current) {
                updated &= !(clear << slot);
                count += 1;
                smallest.push(rank);
            }
        }
        if updated != word {
            table.store_word(w, updated);
        }
    }
    count
}

/// Keeps the `limit` smallest ranks pushed into it.
struct Smallest {
    limit: usize,
    heap: BinaryHeap<u64>,
}

impl Smallest {
    fn new(limit: usize) -> Smallest {
        Smallest {
            limit,
            heap: BinaryHeap::new(),
        }
    }

    fn push(&mut self, rank: u64) {
        if self.heap.len() < self.limit {
            self.heap.push(rank);
        } else if let Some(mut top) = self.heap.peek_mut() {
            if rank < *top {
                *top = rank;
            }
        }
    }

    fn into_sorted(self) -> Vec<u64> {
        self.heap.into_sorted_vec()
    }
}

/// The `limit` smallest of two ascending lists, ascending.
fn merge_smallest(a: Vec<u64>, b: Vec<u64>, limit: usize) -> Vec<u64> {
    let mut all = a;
    all.extend(b);
    all.sort_unstable();
    all.truncate(limit);
    all
}
