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
//!   [`super::sweep`]).

use super::bitmap::Bitmap;
use super::engine::Engine;
use super::levels::Levels;
use super::smallest::{Smallest, merge_smallest};
use super::sweep::Sweep;
use super::{Footprint, Progress, Step, TINY_LEVEL};
use crate::puzzle::{Cursor, StateSpace, Structure};
use crate::table::BATCH;
use crate::table::{
    DistanceTable, ENTRIES_PER_WORD, TableSource, TableView, UNREACHED, matches, spread, squeeze,
};
use rayon::prelude::*;

/// Frontier states per list task.
const STATES_PER_TASK: usize = 4096;
/// Table words per task when listing unreached ranks.
const WORDS_PER_LIST_TASK: usize = 1 << 14;

/// The CPU engine on one space.
pub struct CpuEngine<'s, S: StateSpace> {
    space: &'s S,
    table: DistanceTable,
    footprint: Footprint,
    /// How many of the smallest ranks each pass keeps.
    limit: usize,
    /// The space's block moves, until the first sweep takes them.
    structure: Option<Structure>,
    /// The last level as a list, after frontier passes.
    list: Option<Vec<u64>>,
    /// The entries not yet seen (top-down scans under the full footprint).
    unseen: Option<Unseen>,
    sweep: Option<Sweep>,
    /// The states still unreached, once the remaining-list passes have begun.
    remaining: Option<Vec<u64>>,
    /// The smallest ranks set by the last pass that set any (when there is no list).
    smallest: Vec<u64>,
    /// A cursor for lists of a few states.
    cursor: S::Cursor<'s>,
    /// Whether the cursor has runs ([`Cursor::seek_run`]), which scans go through move by move.
    runs: bool,
}

impl<'s, S: StateSpace> CpuEngine<'s, S> {
    /// An engine on `space` with an empty table, keeping the `limit` smallest ranks of each
    /// level, within `footprint`.
    pub fn new(space: &'s S, footprint: Footprint, limit: usize) -> Self {
        let mut cursor = space.cursor();
        let runs = cursor.seek_run(0) > 1;
        CpuEngine {
            space,
            table: DistanceTable::new(space.size()),
            footprint,
            limit,
            structure: space.structure(),
            list: None,
            unseen: None,
            sweep: None,
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
            let moves = self.space.move_count();
            let mut new = Vec::new();
            for &rank in &list {
                self.cursor.seek(rank);
                for mv in 0..moves {
                    let n = self.cursor.neighbour(mv);
                    if self.table.claim(n, next) {
                        new.push(n);
                    }
                }
            }
            progress.found(new.len() as u64);
            new
        } else {
            expand_list(self.space, &self.table, &list, next, progress)
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

    /// Keeps a pass's result: its smallest ranks, unless it found nothing.
    fn found(&mut self, (count, smallest): (u64, Vec<u64>)) -> u64 {
        if count > 0 {
            self.smallest = smallest;
        }
        count
    }
}

impl<S: StateSpace> Engine for CpuEngine<'_, S> {
    fn start(&mut self, starts: &[u64]) -> Result<(), String> {
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
    ) -> Result<(), String> {
        self.table = table.into_table()?;
        self.list = list;
        Ok(())
    }

    fn pass(
        &mut self,
        step: Step,
        levels: &Levels,
        progress: &dyn Progress,
    ) -> Result<u64, String> {
        let depth = levels.len() - 1;
        let current = (depth % 3) as u8;
        let next = ((depth + 1) % 3) as u8;
        let (table, limit) = (&self.table, self.limit);
        let count = match step {
            Step::Frontier => self.frontier(current, next, progress),
            Step::Remaining => {
                (self.sweep, self.unseen, self.list) = (None, None, None);
                let list = self
                    .remaining
                    .take()
                    .unwrap_or_else(|| ranks_holding(table, UNREACHED));
                let (found, left) =
                    check_list(self.space, table, &list, current, next, limit, progress);
                self.remaining = Some(left);
                self.found(found)
            }
            Step::Sweep => {
                if self.sweep.is_none() {
                    let structure = self
                        .structure
                        .take()
                        .ok_or("a sweep of a space without block moves")?;
                    let list = self.list.take();
                    let last = (!self.lean()).then(|| last_level(table, list, current));
                    self.sweep = Some(Sweep::new(structure, table.entries(), last));
                }
                let sweep = self.sweep.as_mut().expect("just made");
                let found = sweep.pass(self.space, &self.table, current, next, limit, progress);
                self.found(found)
            }
            Step::BottomUp => {
                (self.unseen, self.list) = (None, None);
                // The entries holding `current` as bits: half the table's bytes, so that more of
                // what the checks load stays in cache.
                let last = (!self.lean())
                    .then(|| Bitmap::from_fn(table.entries(), |w| table.value_bits(w, current)));
                let found = scan(
                    self.space,
                    table,
                    None,
                    last.as_ref(),
                    current,
                    next,
                    limit,
                    step,
                    progress,
                );
                self.found(found)
            }
            Step::TopDown => {
                // The first scan: the last level as a bitmap, and from it the unseen entries.
                let list = self.list.take();
                if !self.lean() && self.unseen.is_none() {
                    self.unseen = Some(Unseen::new(table, &last_level(table, list, current)));
                }
                let unseen = self.unseen.as_ref();
                let found = scan(
                    self.space, table, unseen, None, current, next, limit, step, progress,
                );
                self.found(found)
            }
        };
        Ok(count)
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

    fn smallest(&mut self, _depth: u64, limit: usize) -> Result<Vec<u64>, String> {
        let smallest = match &self.list {
            Some(list) => list,
            None => &self.smallest,
        };
        Ok(smallest[..smallest.len().min(limit)].to_vec())
    }

    fn with_table(
        &mut self,
        f: &mut dyn FnMut(&dyn TableView) -> Result<(), String>,
    ) -> Result<(), String> {
        f(&self.table)
    }

    fn into_table(self) -> Result<DistanceTable, String> {
        Ok(self.table)
    }
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

/// Top-down from an explicit frontier list: claims every unreached neighbour.
fn expand_list<S: StateSpace>(
    space: &S,
    table: &DistanceTable,
    list: &[u64],
    next: u8,
    progress: &dyn Progress,
) -> Vec<u64> {
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
    parts.concat()
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

/// Bottom-up over a list of unreached ranks (ascending): returns the states set, the smallest
/// `limit` of them and the ranks still unreached (ascending).
fn check_list<S: StateSpace>(
    space: &S,
    table: &DistanceTable,
    list: &[u64],
    current: u8,
    next: u8,
    limit: usize,
    progress: &dyn Progress,
) -> ((u64, Vec<u64>), Vec<u64>) {
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
    let smallest = new[..new.len().min(limit)].to_vec();
    ((new.len() as u64, smallest), left.concat())
}

/// A scan of the whole table, top-down or bottom-up, in tasks that own whole words: the states
/// set and the smallest `limit` of them.
#[allow(clippy::too_many_arguments)]
fn scan<S: StateSpace>(
    space: &S,
    table: &DistanceTable,
    unseen: Option<&Unseen>,
    last: Option<&Bitmap>,
    current: u8,
    next: u8,
    limit: usize,
    step: Step,
    progress: &dyn Progress,
) -> (u64, Vec<u64>) {
    let words = table.word_count();
    let tasks = words.div_ceil(WORDS_PER_TASK);
    (0..tasks)
        .into_par_iter()
        .map(|task| {
            let range = task * WORDS_PER_TASK..((task + 1) * WORDS_PER_TASK).min(words);
            let mut pass = TaskPass::new(space, table, unseen, last, next, limit);
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
        )
}

/// Table words per scan task: an even number, so that a task owns whole words of the unseen
/// bitmap too.
const WORDS_PER_TASK: usize = 256;
/// States of one run of the cursor that a top-down scan expands move by move; fewer go state by
/// state, their lookups batched (a pass over a run per move pays off only on many states).
const RUN_STATES: usize = 32;
/// Neighbours a bottom-up scan checks together: 4 made the 2x2x2 cube's search about 10%
/// faster than 1 (one at a time) and than 8 or 16 (more loads than the early stop saves).
const CHECKED: usize = 4;

/// One worker's share of a scan pass.
struct TaskPass<'a, S: StateSpace + 'a> {
    table: &'a DistanceTable,
    unseen: Option<&'a Unseen>,
    /// Bottom-up: the entries holding `current` (else the table is read).
    last: Option<&'a Bitmap>,
    cursor: S::Cursor<'a>,
    next: u8,
    moves: usize,
    /// (rank, neighbour) pairs waiting for their lookups.
    batch: Vec<(u64, u64)>,
    /// Bottom-up: the task's unreached ranks, those of a run not yet joined, and those joined.
    open: Vec<u64>,
    left: Vec<u64>,
    hits: Vec<u64>,
    /// Those of `left` not joined by the move at hand.
    kept: Vec<u64>,
    count: u64,
    smallest: Smallest,
}

impl<'a, S: StateSpace> TaskPass<'a, S> {
    fn new(
        space: &'a S,
        table: &'a DistanceTable,
        unseen: Option<&'a Unseen>,
        last: Option<&'a Bitmap>,
        next: u8,
        limit: usize,
    ) -> Self {
        TaskPass {
            table,
            unseen,
            last,
            cursor: space.cursor(),
            next,
            moves: space.move_count(),
            batch: Vec::with_capacity(BATCH + 16),
            open: Vec::new(),
            left: Vec::new(),
            hits: Vec::new(),
            kept: Vec::new(),
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
        let mut open = std::mem::take(&mut self.open);
        open.clear();
        for w in words {
            let mut frontier = matches(self.table.word(w), current) & self.table.valid(w);
            if let Some(unseen) = self.unseen {
                // Only the entries first reached at the last level; and they are seen now.
                frontier &= unseen.take(w, frontier);
            }
            while frontier != 0 {
                open.push(w as u64 * ENTRIES_PER_WORD + (frontier.trailing_zeros() / 2) as u64);
                frontier &= frontier - 1;
            }
        }
        let mut i = 0;
        while i < open.len() {
            let end = self.cursor.seek_run(open[i]);
            let j = i + open[i..].partition_point(|&r| r < end);
            if j - i < RUN_STATES {
                for &rank in &open[i..j] {
                    self.queue(rank);
                    if self.batch.len() >= BATCH {
                        self.claim_batch();
                    }
                }
            } else {
                // A run: each move takes it to one place, whose entries stay in cache.
                let (table, next, cursor) = (self.table, self.next, &mut self.cursor);
                let (count, smallest) = (&mut self.count, &mut self.smallest);
                for mv in 0..self.moves {
                    cursor.each_neighbour_in_run(&open[i..j], mv, |_, neighbour| {
                        if table.claim(neighbour, next) {
                            *count += 1;
                            smallest.push(neighbour);
                        }
                    });
                }
            }
            i = j;
        }
        self.claim_batch();
        self.open = open;
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
        let mut open = std::mem::take(&mut self.open);
        open.clear();
        for w in range {
            let mut bits = matches(words[w - first], UNREACHED) & self.table.valid(w);
            while bits != 0 {
                open.push(w as u64 * ENTRIES_PER_WORD + (bits.trailing_zeros() / 2) as u64);
                bits &= bits - 1;
            }
        }
        let holds = match self.last {
            Some(bits) => Holds::Bits(bits),
            None => Holds::Table(self.table, current),
        };
        if self.moves == 1 {
            // One move: batch it so the cache misses overlap.
            for &rank in &open {
                self.queue(rank);
                if self.batch.len() >= BATCH {
                    self.check_batch(&mut words, first, holds);
                }
            }
            self.check_batch(&mut words, first, holds);
        } else {
            let mut i = 0;
            while i < open.len() {
                let end = self.cursor.seek_run(open[i]);
                let j = i + open[i..].partition_point(|&r| r < end);
                if j - i == 1 {
                    if self.joins(holds) {
                        self.set_own(&mut words, first, open[i]);
                    }
                } else {
                    self.check_run(&open[i..j], holds);
                    for h in 0..self.hits.len() {
                        self.set_own(&mut words, first, self.hits[h]);
                    }
                }
                i = j;
            }
        }
        self.open = open;
        for (i, &word) in words.iter().enumerate() {
            if word != self.table.word(first + i) {
                self.table.store_word(first + i, word);
            }
        }
    }

    /// Whether the cursor's state has a neighbour in the last level: CHECKED neighbours at a
    /// time, their entries loaded together (the cache misses overlap), stopping after the first
    /// group that holds one.
    fn joins(&mut self, holds: Holds) -> bool {
        let cursor = &mut self.cursor;
        let mut mv = 0;
        while mv < self.moves {
            let end = (mv + CHECKED).min(self.moves);
            let mut held = [false; CHECKED];
            for (h, m) in held.iter_mut().zip(mv..end) {
                *h = holds.get(cursor.neighbour(m));
            }
            if held[..end - mv].contains(&true) {
                return true;
            }
            mv = end;
        }
        false
    }

    /// Bottom-up over unreached ranks of one run of the cursor, move by move: each move takes
    /// the whole run to one place, so its entries stay in cache, and the loop drops a state
    /// without a branch once a neighbour is in the last level. Leaves the states found in `hits`.
    fn check_run(&mut self, run: &[u64], holds: Holds) {
        let cursor = &mut self.cursor;
        let (left, kept, hits) = (&mut self.left, &mut self.kept, &mut self.hits);
        left.clear();
        left.extend_from_slice(run);
        hits.resize(run.len(), 0);
        let mut found = 0;
        for mv in 0..self.moves {
            kept.resize(left.len(), 0);
            let mut k = 0;
            cursor.each_neighbour_in_run(left, mv, |rank, neighbour| {
                let hit = holds.get(neighbour);
                hits[found] = rank;
                found += usize::from(hit);
                kept[k] = rank;
                k += usize::from(!hit);
            });
            std::mem::swap(left, kept);
            left.truncate(k);
            if k == 0 {
                break;
            }
        }
        hits.truncate(found);
    }

    fn check_batch(&mut self, words: &mut [u64], first: usize, holds: Holds) {
        for i in 0..self.batch.len() {
            let (rank, neighbour) = self.batch[i];
            let w = (rank / ENTRIES_PER_WORD) as usize - first;
            let shift = 2 * (rank % ENTRIES_PER_WORD);
            if (words[w] >> shift) & 3 == UNREACHED as u64 && holds.get(neighbour) {
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

/// Where a bottom-up check reads whether a neighbour is in the last level: the bitmap of the
/// entries holding `d mod 3` where there is one, else the table.
#[derive(Clone, Copy)]
enum Holds<'a> {
    Bits(&'a Bitmap),
    Table(&'a DistanceTable, u8),
}

impl Holds<'_> {
    #[inline]
    fn get(self, rank: u64) -> bool {
        match self {
            Holds::Bits(bits) => bits.contains(rank),
            Holds::Table(table, current) => table.get(rank) == current,
        }
    }
}
