//! The level loop: breadth-first search over a [`StateSpace`] into a [`DistanceTable`].
//!
//! Each pass turns level `d` into level `d + 1` in one of four ways:
//! - **frontier list** (top-down from an explicit list of the states at level `d`), while levels
//!   are small — no scan of the table at all, which keeps long thin graphs linear;
//! - **top-down scan**: every state at level `d` is expanded and its unreached neighbours
//!   claimed with atomic operations;
//! - **bottom-up scan**: every unreached entry looks for a neighbour holding `d mod 3`; each
//!   worker writes only its own words;
//! - **remaining list**: once few states are left unreached, they are listed and only those are
//!   checked, bottom-up;
//! - **sweep**, for spaces whose moves mostly act on whole runs of ranks (see
//!   [`crate::puzzle::Structure`]): those moves pulled 64 entries at a time, the rest state by
//!   state (see [`sweep`]). Sweeps replace the scans wherever the space has structure.
//!
//! The loop switches from top-down to bottom-up once the unreached states are few compared with
//! the last level (direction-optimising BFS). A bitmap of the states not yet seen keeps top-down
//! scans from expanding levels `d - 3`, `d - 6`, ... again.

pub mod bitmap;
pub mod levels;
pub mod path;
pub mod sweep;
pub mod table;

use crate::puzzle::{Cursor, StateSpace};
use bitmap::Bitmap;
use levels::Levels;
use rayon::prelude::*;
use std::collections::BinaryHeap;
use sweep::Sweep;
use table::{DistanceTable, ENTRIES_PER_WORD, UNREACHED, matches, spread, squeeze};

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
    /// Sweeps only (for spaces with structure; the others scan as `Auto` does).
    Sweep,
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
    /// Bottom-up over a list of the states still unreached.
    Remaining,
    /// Block moves pulled in bulk, the rest state by state.
    Sweep,
}

impl Step {
    /// A short name for progress lines.
    pub fn name(self) -> &'static str {
        match self {
            Step::Frontier => "frontier",
            Step::TopDown => "top-down",
            Step::BottomUp => "bottom-up",
            Step::Remaining => "remaining",
            Step::Sweep => "sweep",
        }
    }
}

/// How much memory a search may use beyond its table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Footprint {
    /// The fastest: bitmaps of the last and the next level (sweeps) or of the unseen entries
    /// (top-down scans), one bit per entry each, and frontier lists up to 1/512 of the entries.
    Full,
    /// The leanest: nothing the size of the table besides the table. Passes read the last level
    /// from the table's values (entries holding `d mod 3`, which also holds levels `d - 3`,
    /// `d - 6`, ...: more work, the same result), and frontier lists stay within
    /// [`LEAN_LIST_SHARE`] of the table's bytes.
    Lean,
}

/// Under [`Footprint::Lean`], frontier lists (the list, its successor and its copy) take at most
/// this share of the table's bytes.
pub const LEAN_LIST_SHARE: f64 = 0.03;

/// Search settings.
#[derive(Clone, Debug)]
pub struct Options {
    /// How many antipodes to keep (the smallest ranks of the last level).
    pub antipode_limit: usize,
    /// How passes are chosen.
    pub strategy: Strategy,
    /// What the search may keep beside the table.
    pub footprint: Footprint,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            antipode_limit: 100,
            strategy: Strategy::Auto,
            footprint: Footprint::Full,
        }
    }
}

/// The largest level kept as a frontier list, in a space of `size` entries with `moves` moves.
pub fn list_limit(size: u64, moves: usize, footprint: Footprint) -> u64 {
    match footprint {
        Footprint::Full => (size / LIST_FRACTION).max(MIN_LIST),
        Footprint::Lean => {
            // A list of L ranks and its successor (at most L * moves), built in parts and then
            // joined: 8 bytes a rank, (1 + 2 * moves) * L ranks at once.
            let share = DistanceTable::bytes_for(size) as f64 * LEAN_LIST_SHARE;
            ((share / (8.0 * (1 + 2 * moves) as f64)) as u64).max(MIN_LIST)
        }
    }
}

/// Receives progress while the search runs.
pub trait Progress: Sync {
    /// `states` more states were found in the current pass.
    fn found(&self, states: u64);
    /// Level `depth` is complete with `count` states.
    fn level(&self, depth: u64, count: u64, step: Step);
}

/// Progress that goes nowhere.
pub struct Silent;

impl Progress for Silent {
    fn found(&self, _: u64) {}
    fn level(&self, _: u64, _: u64, _: Step) {}
}

/// What a search found.
pub struct Outcome {
    /// The distance table.
    pub table: DistanceTable,
    /// The number of states at each distance.
    pub levels: Levels,
    /// The smallest ranks of the last level, ascending, at most `antipode_limit` of them.
    pub antipodes: Vec<u64>,
}

impl Outcome {
    /// Number of reachable states.
    pub fn reachable(&self) -> u64 {
        self.levels.total()
    }

    /// The largest distance (God's number).
    pub fn diameter(&self) -> u64 {
        self.levels.len() - 1
    }
}

/// Frontier lists are kept while a level has at most this many states per table entry (and at
/// least `MIN_LIST` states are always allowed).
const LIST_FRACTION: u64 = 512;
const MIN_LIST: u64 = 4096;
/// Frontier states per list task.
const STATES_PER_TASK: usize = 4096;
/// Table words per task when listing unreached ranks.
const WORDS_PER_LIST_TASK: usize = 1 << 14;

/// The switch to bottom-up passes (for good: the unreached only get fewer): when the unreached
/// entries are few compared with the `expanded` entries a top-down pass would expand with all
/// `moves` moves (direction-optimising BFS).
pub fn prefer_bottom_up(unreached: u64, expanded: u64, moves: usize) -> bool {
    2 * unreached < expanded * (moves as u64 + 1)
}

/// A search's state after a complete level: enough to go on from there. The level's states are
/// the entries holding its distance mod 3 that no earlier pass could reach; passes after a
/// resume treat all entries holding that value as the last level, which gives the same table.
pub struct Resume {
    /// The table after the level.
    pub table: DistanceTable,
    /// The counts up to that level.
    pub levels: Levels,
    /// The smallest ranks of that level (the antipodes, should no level follow).
    pub antipodes: Vec<u64>,
}

/// Where a run saves its state after levels, so that it can go on after an interruption.
pub trait Checkpoints: Sync {
    /// Whether to save after the level about to be found.
    fn due(&self) -> bool;
    /// Saves the state after a level: the table, the counts and the level's smallest ranks.
    fn save(&self, table: &DistanceTable, levels: &Levels, antipodes: &[u64])
    -> Result<(), String>;
}

/// Runs a full breadth-first search of `space` from its solved states, in the current rayon
/// pool.
pub fn search<S: StateSpace>(space: &S, options: &Options, progress: &dyn Progress) -> Outcome {
    search_from(space, options, progress, None, None)
        .expect("without checkpoints a search cannot fail")
}

/// [`search`], saving checkpoints where `checkpoints` asks and going on from `resume` if given
/// (which yields the same table as an uninterrupted search). Fails only when a checkpoint cannot
/// be saved.
pub fn search_from<S: StateSpace>(
    space: &S,
    options: &Options,
    progress: &dyn Progress,
    checkpoints: Option<&dyn Checkpoints>,
    resume: Option<Resume>,
) -> Result<Outcome, String> {
    let size = space.size();
    let moves = space.move_count();
    let limit = options.antipode_limit;
    let structure = match options.strategy {
        Strategy::Auto | Strategy::Sweep => space.structure(),
        _ => None,
    };
    let swept = options.strategy == Strategy::Sweep && structure.is_some();
    let lean = options.footprint == Footprint::Lean;
    let list_limit = match options.strategy {
        Strategy::Lists => u64::MAX,
        Strategy::Auto => list_limit(size, moves, options.footprint),
        Strategy::Sweep if swept => 0,
        Strategy::Sweep => list_limit(size, moves, options.footprint),
        Strategy::TopDown | Strategy::BottomUp => 0,
    };
    // The states of the last level, listed while few. After a resume without a list, the last
    // level is read from the table where a pass needs it: every entry holding its value.
    let (table, mut levels, mut frontier, mut antipodes) = match resume {
        None => {
            let table = DistanceTable::new(size);
            let starts = space.starts();
            for &s in &starts {
                table.claim(s, 0);
            }
            let first = starts.len() as u64;
            progress.found(first);
            progress.level(0, first, Step::Frontier);
            let antipodes = starts[..starts.len().min(limit)].to_vec();
            let levels = Levels::from_counts(&[first]);
            (table, levels, Some(starts), antipodes)
        }
        Some(r) => {
            progress.found(r.levels.total());
            let value = ((r.levels.len() - 1) % 3) as u8;
            let holding = r.levels.sum_mod3(value as u64);
            let list = if r.levels.last() <= r.antipodes.len() as u64 {
                // A level of a few states is all in its smallest ranks: exactly the list (a
                // long thin graph goes on in tiny levels, not in scans).
                Some(r.antipodes.clone())
            } else {
                (holding <= list_limit && !swept).then(|| ranks_holding(&r.table, value))
            };
            (r.table, r.levels, list, r.antipodes)
        }
    };
    let mut unseen: Option<Unseen> = None;
    let mut sweep: Option<Sweep> = None;
    // The states still unreached, once few enough to list.
    let mut remaining: Option<Vec<u64>> = None;
    let mut reached = levels.total();
    let mut bottom_up = options.strategy == Strategy::BottomUp;

    loop {
        if let Some(list) = frontier.as_mut()
            && list.len() <= TINY_LEVEL
            && !swept
        {
            // Levels of a handful of states (a long thin graph): many in a tight loop.
            let done = tiny_levels(
                space,
                &table,
                list,
                &mut levels,
                limit,
                progress,
                checkpoints,
            )?;
            antipodes = list[..list.len().min(limit)].to_vec();
            reached = levels.total();
            if done {
                break;
            }
        }
        let saving = checkpoints.filter(|c| c.due());
        let depth = levels.len() - 1;
        let current = (depth % 3) as u8;
        let next = ((depth + 1) % 3) as u8;
        let listed = frontier.as_ref().map_or(0, |l| l.len() as u64);
        let unreached = size - reached;
        let pass = if frontier.is_some() && listed <= list_limit && !swept {
            let list = frontier.take().unwrap_or_default();
            let mut pass = expand_list(space, &table, &list, next, progress);
            pass.new.par_sort_unstable();
            let new = std::mem::take(&mut pass.new);
            pass.smallest = new[..new.len().min(limit)].to_vec();
            frontier = Some(new);
            pass
        } else {
            if structure.is_none() && options.strategy == Strategy::Auto {
                // A top-down scan expands the entries of the last level (or of the list it is
                // built from); without the unseen bitmap (never there when lean) also those of
                // levels depth - 3, depth - 6, ...
                let expanded = match (&unseen, &frontier) {
                    _ if lean => levels.sum_mod3(depth % 3),
                    (Some(_), _) => levels.last(),
                    (None, Some(_)) => listed,
                    (None, None) => levels.sum_mod3(depth % 3),
                };
                bottom_up |= prefer_bottom_up(unreached, expanded, moves);
            }
            let tail = bottom_up || structure.is_some();
            if remaining.is_some() || (tail && unreached <= list_limit) {
                // The last few unreached states: list them once, then check only those.
                (sweep, unseen, frontier) = (None, None, None);
                let list = remaining.take().unwrap_or_else(|| unreached_ranks(&table));
                let (pass, left) = check_list(space, &table, &list, current, next, limit, progress);
                remaining = Some(left);
                pass
            } else if let Some(structure) = &structure {
                let sweep = sweep.get_or_insert_with(|| {
                    let list = frontier.take();
                    let last = (!lean).then(|| last_level(&table, list, current));
                    Sweep::new(structure.clone(), size, last)
                });
                sweep.pass(space, &table, current, next, limit, progress)
            } else if bottom_up {
                // Bottom-up passes need neither.
                (unseen, frontier) = (None, None);
                scan(
                    space,
                    &table,
                    None,
                    current,
                    next,
                    limit,
                    Step::BottomUp,
                    progress,
                )
            } else {
                // The first scan: the last level as a bitmap, and from it the unseen entries.
                let list = frontier.take();
                if !lean && unseen.is_none() {
                    unseen = Some(Unseen::new(&table, &last_level(&table, list, current)));
                }
                let unseen = unseen.as_ref();
                scan(
                    space,
                    &table,
                    unseen,
                    current,
                    next,
                    limit,
                    Step::TopDown,
                    progress,
                )
            }
        };
        if pass.count == 0 {
            break;
        }
        progress.level(depth + 1, pass.count, pass.step);
        levels.push(pass.count);
        reached += pass.count;
        antipodes = pass.smallest;
        if let Some(c) = saving {
            c.save(&table, &levels, &antipodes)?;
        }
    }
    Ok(Outcome {
        table,
        levels,
        antipodes,
    })
}

/// The last level as a bitmap: its list where there is one, else (after a resume) every entry
/// holding its value `current`, levels `d - 3`, `d - 6`, ... too, which passes may expand again
/// without finding anything more.
fn last_level(table: &DistanceTable, list: Option<Vec<u64>>, current: u8) -> Bitmap {
    match list {
        Some(list) => Bitmap::from_ranks(table.entries(), &list),
        None => Bitmap::from_fn(table.entries(), |w| table.value_bits(w, current)),
    }
}

/// Frontier lists this short are expanded in [`tiny_levels`].
const TINY_LEVEL: usize = 64;

/// Levels whose frontier lists hold at most [`TINY_LEVEL`] states, one after another without
/// the level loop's machinery: on a graph that is one long path (the Chinese rings) a billion
/// levels of one state each take a few tens of nanoseconds each. Stops when a level grows past
/// that (leaving it in `list`) or none is found (returns true: the search is over).
fn tiny_levels<S: StateSpace>(
    space: &S,
    table: &DistanceTable,
    list: &mut Vec<u64>,
    levels: &mut Levels,
    limit: usize,
    progress: &dyn Progress,
    checkpoints: Option<&dyn Checkpoints>,
) -> Result<bool, String> {
    let moves = space.move_count();
    let mut cursor = space.cursor();
    let mut new = Vec::with_capacity(TINY_LEVEL * moves);
    // Found states are reported in batches: progress updates cost more than a level here.
    let mut unreported = 0u64;
    let finished = loop {
        let next = (levels.len() % 3) as u8;
        new.clear();
        for &rank in list.iter() {
            cursor.seek(rank);
            for mv in 0..moves {
                let n = cursor.neighbour(mv);
                if table.claim(n, next) {
                    new.push(n);
                }
            }
        }
        if new.is_empty() {
            break true;
        }
        new.sort_unstable();
        let count = new.len() as u64;
        progress.level(levels.len(), count, Step::Frontier);
        levels.push(count);
        unreported += count;
        std::mem::swap(list, &mut new);
        if unreported >= 1 << 16 {
            progress.found(unreported);
            unreported = 0;
            if let Some(c) = checkpoints.filter(|c| c.due()) {
                c.save(table, levels, &list[..list.len().min(limit)])?;
            }
        }
        if list.len() > TINY_LEVEL {
            break false;
        }
    };
    progress.found(unreported);
    Ok(finished)
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
    let moves = space.move_count();
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

/// Every unreached rank, ascending.
fn unreached_ranks(table: &DistanceTable) -> Vec<u64> {
    ranks_holding(table, UNREACHED)
}

/// Every rank whose entry holds `value`, ascending.
fn ranks_holding(table: &DistanceTable, value: u8) -> Vec<u64> {
    let words = table.word_count();
    (0..words.div_ceil(WORDS_PER_LIST_TASK))
        .into_par_iter()
        .flat_map_iter(|task| {
            let mut ranks = Vec::new();
            for w in task * WORDS_PER_LIST_TASK..((task + 1) * WORDS_PER_LIST_TASK).min(words) {
                let mut todo = matches(table.word(w), value) & table.valid(w);
                while todo != 0 {
                    ranks.push(w as u64 * ENTRIES_PER_WORD + (todo.trailing_zeros() / 2) as u64);
                    todo &= todo - 1;
                }
            }
            ranks
        })
        .collect()
}

/// Bottom-up over a list of unreached ranks (ascending): returns the pass and the ranks still
/// unreached (ascending).
fn check_list<S: StateSpace>(
    space: &S,
    table: &DistanceTable,
    list: &[u64],
    current: u8,
    next: u8,
    limit: usize,
    progress: &dyn Progress,
) -> (Pass, Vec<u64>) {
    let moves = space.move_count();
    let parts: Vec<(Vec<u64>, Vec<u64>)> = list
        .par_chunks(STATES_PER_TASK)
        .map(|chunk| {
            let mut cursor = space.cursor();
            let (mut new, mut left) = (Vec::new(), Vec::new());
            for &rank in chunk {
                cursor.seek(rank);
                if (0..moves).any(|mv| table.get(cursor.neighbour(mv)) == current) {
                    // Holding `next` now cannot make another state of this pass look found.
                    table.claim(rank, next);
                    new.push(rank);
                } else {
                    left.push(rank);
                }
            }
            progress.found(new.len() as u64);
            (new, left)
        })
        .collect();
    let (new, left): (Vec<Vec<u64>>, Vec<Vec<u64>>) = parts.into_iter().unzip();
    let new = new.concat();
    let pass = Pass {
        step: Step::Remaining,
        count: new.len() as u64,
        smallest: new[..new.len().min(limit)].to_vec(),
        new: Vec::new(),
    };
    (pass, left.concat())
}

/// A scan of the whole table, top-down or bottom-up, in tasks that own whole words.
#[allow(clippy::too_many_arguments)]
fn scan<S: StateSpace>(
    space: &S,
    table: &DistanceTable,
    unseen: Option<&Unseen>,
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
            let mut pass = TaskPass::new(space, table, unseen, next, limit);
            match step {
                Step::BottomUp => pass.bottom_up(range, current),
                _ => pass.top_down(range, current),
            }
            progress.found(pass.count);
            (pass.count, pass.smallest.into_sorted())
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

/// Table words per scan task: an even number, so that a task owns whole words of the unseen
/// bitmap too.
const WORDS_PER_TASK: usize = 256;
/// Neighbours looked up together, their cache lines prefetched first so that the misses overlap.
pub(crate) const BATCH: usize = 64;

/// One worker's share of a scan pass.
struct TaskPass<'a, S: StateSpace + 'a> {
    table: &'a DistanceTable,
    unseen: Option<&'a Unseen>,
    cursor: S::Cursor<'a>,
    next: u8,
    moves: usize,
    /// (rank, neighbour) pairs waiting for their lookups.
    batch: Vec<(u64, u64)>,
    count: u64,
    smallest: Smallest,
}

impl<'a, S: StateSpace> TaskPass<'a, S> {
    fn new(
        space: &'a S,
        table: &'a DistanceTable,
        unseen: Option<&'a Unseen>,
        next: u8,
        limit: usize,
    ) -> Self {
        TaskPass {
            table,
            unseen,
            cursor: space.cursor(),
            next,
            moves: space.move_count(),
            batch: Vec::with_capacity(BATCH + 16),
            count: 0,
            smallest: Smallest::new(limit),
        }
    }

    /// Queues the neighbours of `rank` and prefetches them.
    fn queue(&mut self, rank: u64) {
        self.cursor.seek(rank);
        for mv in 0..self.moves {
            let neighbour = self.cursor.neighbour(mv);
            self.table.prefetch(neighbour);
            self.batch.push((rank, neighbour));
        }
    }

    /// Top-down over table words `words`: claims the unreached neighbours of entries holding
    /// `current`.
    fn top_down(&mut self, words: std::ops::Range<usize>, current: u8) {
        for w in words {
            let mut frontier = matches(self.table.word(w), current) & self.table.valid(w);
            if let Some(unseen) = self.unseen {
                // Only the entries first reached at the last level; and they are seen now.
                frontier &= unseen.take(w, frontier);
            }
            while frontier != 0 {
                self.queue(w as u64 * ENTRIES_PER_WORD + (frontier.trailing_zeros() / 2) as u64);
                frontier &= frontier - 1;
                if self.batch.len() >= BATCH {
                    self.claim_batch();
                }
            }
        }
        self.claim_batch();
    }

    fn claim_batch(&mut self) {
        for i in 0..self.batch.len() {
            let neighbour = self.batch[i].1;
            if self.table.claim(neighbour, self.next) {
                self.found(neighbour);
            }
        }
        self.batch.clear();
    }

    /// Bottom-up over table words `words`: an unreached entry with a neighbour holding `current`
    /// is at the next level. This task owns the words: it edits a copy and stores it back.
    fn bottom_up(&mut self, range: std::ops::Range<usize>, current: u8) {
        let first = range.start;
        let mut words: Vec<u64> = range.clone().map(|w| self.table.word(w)).collect();
        for w in range {
            let mut open = matches(words[w - first], UNREACHED) & self.table.valid(w);
            while open != 0 {
                let rank = w as u64 * ENTRIES_PER_WORD + (open.trailing_zeros() / 2) as u64;
                open &= open - 1;
                if self.moves == 1 {
                    // One move: batch it so the cache misses overlap.
                    self.queue(rank);
                    if self.batch.len() >= BATCH {
                        self.check_batch(&mut words, first, current);
                    }
                } else {
                    // Several: stopping at the first neighbour found saves more.
                    self.cursor.seek(rank);
                    let (table, cursor) = (self.table, &mut self.cursor);
                    if (0..self.moves).any(|mv| table.get(cursor.neighbour(mv)) == current) {
                        self.set_own(&mut words, first, rank);
                    }
                }
            }
        }
        self.check_batch(&mut words, first, current);
        for (i, &word) in words.iter().enumerate() {
            if word != self.table.word(first + i) {
                self.table.store_word(first + i, word);
            }
        }
    }

    fn check_batch(&mut self, words: &mut [u64], first: usize, current: u8) {
        for i in 0..self.batch.len() {
            let (rank, neighbour) = self.batch[i];
            let w = (rank / ENTRIES_PER_WORD) as usize - first;
            let shift = 2 * (rank % ENTRIES_PER_WORD);
            if (words[w] >> shift) & 3 == UNREACHED as u64 && self.table.get(neighbour) == current {
                self.set_own(words, first, rank);
            }
        }
        self.batch.clear();
    }

    /// Sets an unreached entry in this task's own words to the next level.
    fn set_own(&mut self, words: &mut [u64], first: usize, rank: u64) {
        let w = (rank / ENTRIES_PER_WORD) as usize - first;
        let shift = 2 * (rank % ENTRIES_PER_WORD);
        words[w] &= !(((UNREACHED ^ self.next) as u64) << shift);
        self.found(rank);
    }

    fn found(&mut self, rank: u64) {
        self.count += 1;
        self.smallest.push(rank);
    }
}

/// One bit per entry, set while the entry was unreached at the start of the previous pass:
/// an entry holding `d mod 3` whose bit is set is at level `d` exactly, not `d - 3`, `d - 6`, ...
/// So top-down scans expand only the last level. Scan tasks own whole words of it, as of the
/// table.
struct Unseen {
    bits: Bitmap,
}

impl Unseen {
    /// The entries unreached now, plus `last` (the states of the level just found).
    fn new(table: &DistanceTable, last: &Bitmap) -> Unseen {
        Unseen {
            bits: Bitmap::from_fn(table.entries(), |w| {
                table.value_bits(w, UNREACHED) | last.word(w)
            }),
        }
    }

    /// Of the entries `mask` (one low bit each, as in the table) of table word `w`, those still
    /// unseen; they are marked seen.
    fn take(&self, w: usize, mask: u64) -> u64 {
        let (unit, shift) = (w / 2, 32 * (w % 2) as u32);
        let word = self.bits.word(unit);
        let found = (word >> shift) as u32 & squeeze(mask);
        if found != 0 {
            // Only the task that owns this word writes it: no read-modify-write needed.
            self.bits
                .store_word(unit, word & !((found as u64) << shift));
        }
        spread(found)
    }
}

/// Keeps the `limit` smallest ranks pushed into it.
pub(crate) struct Smallest {
    limit: usize,
    heap: BinaryHeap<u64>,
    /// Ranks at or above this cannot enter (the largest kept, once full).
    bound: u64,
}

impl Smallest {
    pub(crate) fn new(limit: usize) -> Smallest {
        Smallest {
            limit,
            heap: BinaryHeap::new(),
            bound: if limit == 0 { 0 } else { u64::MAX },
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, rank: u64) {
        if rank >= self.bound {
            return;
        }
        if self.heap.len() < self.limit {
            self.heap.push(rank);
        } else if let Some(mut top) = self.heap.peek_mut() {
            *top = rank;
        }
        if self.heap.len() == self.limit {
            self.bound = *self.heap.peek().unwrap_or(&0);
        }
    }

    pub(crate) fn into_sorted(self) -> Vec<u64> {
        self.heap.into_sorted_vec()
    }
}

/// The `limit` smallest of two ascending lists, ascending.
pub(crate) fn merge_smallest(a: Vec<u64>, b: Vec<u64>, limit: usize) -> Vec<u64> {
    if b.is_empty() || a.last().is_some_and(|&x| b[0] > x && a.len() >= limit) {
        return a;
    }
    if a.is_empty() || b.last().is_some_and(|&x| a[0] > x && b.len() >= limit) {
        return b;
    }
    let mut out = Vec::with_capacity((a.len() + b.len()).min(limit));
    let (mut i, mut j) = (0, 0);
    while out.len() < limit && (i < a.len() || j < b.len()) {
        if j == b.len() || (i < a.len() && a[i] <= b[j]) {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out
}
