//! The CPU engine's scans of the whole table: top-down (every state of the last level expanded,
//! its unreached neighbours claimed atomically) and bottom-up (every unreached entry looks for a
//! neighbour in the last level; each worker writes only its own words).

use super::*;

/// A scan of the whole table, top-down or bottom-up, in tasks that own whole words.
pub(super) struct Scan<'a, S: StateSpace> {
    pub(super) space: &'a S,
    pub(super) table: &'a DistanceTable,
    /// Top-down under the full footprint: the entries not expanded yet.
    pub(super) unseen: Option<&'a Unseen>,
    /// Bottom-up under the full footprint: the entries holding `current`.
    pub(super) last: Option<&'a Bitmap>,
    /// The last level's value and the next one's.
    pub(super) current: u8,
    pub(super) next: u8,
}

impl<S: StateSpace> Scan<'_, S> {
    /// Scans the table from where `within` says, in parts of whole tasks in rank order,
    /// pausing for a checkpoint between parts when one is due: the states set and the smallest
    /// `limit` of them.
    pub(super) fn run(
        &self,
        step: Step,
        limit: usize,
        progress: &dyn Progress,
        within: Within,
    ) -> Result<(u64, Vec<u64>), String> {
        let words = self.table.word_count();
        let tasks = words.div_ceil(WORDS_PER_TASK);
        let from = within.from as usize;
        if !from.is_multiple_of(WORDS_PER_TASK) || from > words {
            return Err(format!(
                "the checkpoint's scan stopped at word {from}, not between two parts of a table of {words} words"
            ));
        }
        let part = tasks.div_ceil(PARTS).max(1);
        let (mut count, mut smallest) = (0, Vec::new());
        let mut task = from / WORDS_PER_TASK;
        while task < tasks {
            let end = (task + part).min(tasks);
            let (c, s) = self.tasks(task..end, step, limit, progress);
            count += c;
            smallest = merge_smallest(smallest, s, limit);
            task = end;
            if let Some(pause) = within.pause.filter(|p| task < tasks && p.due()) {
                pause.save(self.table, (task * WORDS_PER_TASK) as u64, count, &smallest)?;
            }
        }
        Ok((count, smallest))
    }

    /// Scans tasks `tasks` in parallel.
    fn tasks(
        &self,
        tasks: std::ops::Range<usize>,
        step: Step,
        limit: usize,
        progress: &dyn Progress,
    ) -> (u64, Vec<u64>) {
        let words = self.table.word_count();
        // A worker keeps its pass (its cursor, with what the cursor worked out, and its
        // buffers) from task to task: a reduced space's cursor works each move's route out
        // once a block, which costs about as much as a few thousand neighbours.
        tasks
            .into_par_iter()
            .map_init(
                || TaskPass::new(self, limit),
                |pass, task| {
                    let range = task * WORDS_PER_TASK..((task + 1) * WORDS_PER_TASK).min(words);
                    match step {
                        Step::BottomUp => pass.bottom_up(range, self.current),
                        _ => pass.top_down(range, self.current),
                    }
                    progress.found(pass.count);
                    pass.take_found(limit)
                },
            )
            .reduce(
                || (0, Vec::new()),
                |(ca, a), (cb, b)| (ca + cb, merge_smallest(a, b, limit)),
            )
    }
}

/// Parts a scan pauses between (at most): a part of Turnstyle 16's reduced table in the flips
/// metric is about 3.2e8 entries, a minute or two on two cores.
const PARTS: usize = 256;

/// Table words per scan task: an even number, so that a task owns whole words of the unseen
/// bitmap too.
pub(super) const WORDS_PER_TASK: usize = 256;
/// States of one run of the cursor that a top-down scan expands move by move; fewer go state by
/// state, their lookups batched (a pass over a run per move pays off only on many states).
pub(super) const RUN_STATES: usize = 32;
/// Neighbours a bottom-up scan checks together: 4 made the 2x2x2 cube's search about 10%
/// faster than 1 (one at a time) and than 8 or 16 (more loads than the early stop saves).
pub(super) const CHECKED: usize = 4;

/// One worker's share of a scan pass.
pub(super) struct TaskPass<'a, S: StateSpace + 'a> {
    pub(super) table: &'a DistanceTable,
    pub(super) unseen: Option<&'a Unseen>,
    /// Bottom-up: the entries holding `current` (else the table is read).
    pub(super) last: Option<&'a Bitmap>,
    pub(super) cursor: S::Cursor<'a>,
    pub(super) next: u8,
    /// The moves a top-down scan pushes along, and those a bottom-up scan pulls along
    /// ([`StateSpace::moves_for`]).
    pub(super) pushed: std::ops::Range<usize>,
    pub(super) pulled: std::ops::Range<usize>,
    /// (rank, neighbour) pairs waiting for their lookups.
    pub(super) batch: Vec<(u64, u64)>,
    /// Bottom-up: the task's unreached ranks, those of a run not yet joined, and those joined.
    pub(super) open: Vec<u64>,
    pub(super) left: Vec<u64>,
    pub(super) hits: Vec<u64>,
    /// Those of `left` not joined by the move at hand.
    pub(super) kept: Vec<u64>,
    pub(super) count: u64,
    pub(super) smallest: Smallest,
}

impl<'a, S: StateSpace> TaskPass<'a, S> {
    pub(super) fn new(scan: &Scan<'a, S>, limit: usize) -> Self {
        let space = scan.space;
        TaskPass {
            table: scan.table,
            unseen: scan.unseen,
            last: scan.last,
            cursor: space.cursor(),
            next: scan.next,
            pushed: space.moves_for(Way::Push),
            pulled: space.moves_for(Way::Pull),
            batch: Vec::with_capacity(BATCH + 16),
            open: Vec::new(),
            left: Vec::new(),
            hits: Vec::new(),
            kept: Vec::new(),
            count: 0,
            smallest: Smallest::new(limit),
        }
    }

    /// Queues the neighbours of `rank` along `moves` and prefetches them.
    pub(super) fn queue(&mut self, rank: u64, moves: std::ops::Range<usize>) {
        self.cursor.seek(rank);
        for mv in moves {
            let neighbour = self.cursor.neighbour(mv);
            self.table.prefetch(neighbour);
            self.batch.push((rank, neighbour));
        }
    }

    /// Top-down over table words `words`: claims the unreached neighbours of entries holding
    /// `current`.
    pub(super) fn top_down(&mut self, words: std::ops::Range<usize>, current: u8) {
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
                    self.queue(rank, self.pushed.clone());
                    if self.batch.len() >= BATCH {
                        self.claim_batch();
                    }
                }
            } else {
                // A run: each move takes it to one place, whose entries stay in cache where
                // the place is small, and are fetched ahead where not.
                let (table, next, cursor) = (self.table, self.next, &mut self.cursor);
                let (count, smallest) = (&mut self.count, &mut self.smallest);
                let mut claim = |_, neighbour| {
                    if table.claim(neighbour, next) {
                        *count += 1;
                        smallest.push(neighbour);
                    }
                };
                for mv in self.pushed.clone() {
                    walk_run(cursor, &open[i..j], mv, |n| table.prefetch(n), &mut claim);
                }
            }
            i = j;
        }
        self.claim_batch();
        self.open = open;
    }

    pub(super) fn claim_batch(&mut self) {
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
    pub(super) fn bottom_up(&mut self, range: std::ops::Range<usize>, current: u8) {
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
        if self.pulled.len() == 1 {
            // One move: batch it so the cache misses overlap.
            for &rank in &open {
                self.queue(rank, self.pulled.clone());
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
    pub(super) fn joins(&mut self, holds: Holds) -> bool {
        let cursor = &mut self.cursor;
        let mut mv = self.pulled.start;
        while mv < self.pulled.end {
            let end = (mv + CHECKED).min(self.pulled.end);
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
    pub(super) fn check_run(&mut self, run: &[u64], holds: Holds) {
        let cursor = &mut self.cursor;
        let (left, kept, hits) = (&mut self.left, &mut self.kept, &mut self.hits);
        left.clear();
        left.extend_from_slice(run);
        hits.resize(run.len(), 0);
        let mut found = 0;
        for mv in self.pulled.clone() {
            kept.resize(left.len(), 0);
            let mut k = 0;
            let mut look = |rank, neighbour| {
                let hit = holds.get(neighbour);
                hits[found] = rank;
                found += usize::from(hit);
                kept[k] = rank;
                k += usize::from(!hit);
            };
            walk_run(cursor, left, mv, |n| holds.prefetch(n), &mut look);
            std::mem::swap(left, kept);
            left.truncate(k);
            if k == 0 {
                break;
            }
        }
        hits.truncate(found);
    }

    pub(super) fn check_batch(&mut self, words: &mut [u64], first: usize, holds: Holds) {
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
    pub(super) fn set_own(&mut self, words: &mut [u64], first: usize, rank: u64) {
        let w = (rank / ENTRIES_PER_WORD) as usize - first;
        let shift = 2 * (rank % ENTRIES_PER_WORD);
        words[w] &= !(((UNREACHED ^ self.next) as u64) << shift);
        self.found(rank);
    }

    /// The states this pass set since the last call and the smallest `limit` of them; it
    /// starts counting again.
    pub(super) fn take_found(&mut self, limit: usize) -> (u64, Vec<u64>) {
        let smallest = std::mem::replace(&mut self.smallest, Smallest::new(limit));
        (std::mem::take(&mut self.count), smallest.into_sorted())
    }

    pub(super) fn found(&mut self, rank: u64) {
        self.count += 1;
        self.smallest.push(rank);
    }
}

/// One bit per entry, set while the entry was unreached at the start of the previous pass:
/// an entry holding `d mod 3` whose bit is set is at level `d` exactly, not `d - 3`, `d - 6`, ...
/// So top-down scans expand only the last level. Scan tasks own whole words of it, as of the
/// table.
pub(super) struct Unseen {
    pub(super) bits: Bitmap,
}

impl Unseen {
    /// The entries unreached now, plus `last` (the states of the level just found).
    pub(super) fn new(table: &DistanceTable, last: &Bitmap) -> Unseen {
        Unseen {
            bits: Bitmap::from_fn(table.entries(), |w| {
                table.value_bits(w, UNREACHED) | last.word(w)
            }),
        }
    }

    /// Of the entries `mask` (one low bit each, as in the table) of table word `w`, those still
    /// unseen; they are marked seen.
    pub(super) fn take(&self, w: usize, mask: u64) -> u64 {
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
pub(super) enum Holds<'a> {
    Bits(&'a Bitmap),
    Table(&'a DistanceTable, u8),
}

impl Holds<'_> {
    #[inline]
    pub(super) fn get(self, rank: u64) -> bool {
        match self {
            Holds::Bits(bits) => bits.contains(rank),
            Holds::Table(table, current) => table.get(rank) == current,
        }
    }

    /// Asks the processor to bring what `get` reads for `rank` into cache.
    #[inline]
    pub(super) fn prefetch(self, rank: u64) {
        match self {
            Holds::Bits(bits) => bits.prefetch(rank),
            Holds::Table(table, _) => table.prefetch(rank),
        }
    }
}

/// Calls `look` with each of `run`'s ranks and its neighbour along `mv`, in order: where the
/// cursor's runs scatter their neighbours, each is prefetched (`prefetch`) as it is made and
/// looked up [`AHEAD`] neighbours later, so that the cache misses overlap.
fn walk_run<C: Cursor>(
    cursor: &mut C,
    run: &[u64],
    mv: usize,
    prefetch: impl Fn(u64),
    look: &mut impl FnMut(u64, u64),
) {
    if !cursor.scatters_runs() {
        cursor.each_neighbour_in_run(run, mv, look);
        return;
    }
    let mut ahead = Ahead::new();
    cursor.each_neighbour_in_run(run, mv, |rank, neighbour| {
        prefetch(neighbour);
        ahead.push((rank, neighbour), look);
    });
    ahead.drain(look);
}

/// Neighbours looked up a few after they are made: each is prefetched as it is made and
/// looked up `AHEAD` neighbours later, so that the cache misses of a run's neighbours overlap
/// (a reduced space's run, a block of its table, takes its neighbours all over another block,
/// tens of megabytes). The lookups keep the order the neighbours were made in.
struct Ahead {
    ring: [(u64, u64); AHEAD],
    made: usize,
}

/// Neighbours made ahead of their lookups ([`Ahead`]).
const AHEAD: usize = 16;

impl Ahead {
    fn new() -> Ahead {
        Ahead {
            ring: [(0, 0); AHEAD],
            made: 0,
        }
    }

    /// Queues a (rank, neighbour) pair, handing `look` the pair made `AHEAD` before it.
    #[inline]
    fn push(&mut self, pair: (u64, u64), look: &mut impl FnMut(u64, u64)) {
        let slot = &mut self.ring[self.made % AHEAD];
        if self.made >= AHEAD {
            look(slot.0, slot.1);
        }
        *slot = pair;
        self.made += 1;
    }

    /// Hands `look` the pairs still queued, in the order they were made; none are left.
    fn drain(&mut self, look: &mut impl FnMut(u64, u64)) {
        for at in self.made.saturating_sub(AHEAD)..self.made {
            let (rank, neighbour) = self.ring[at % AHEAD];
            look(rank, neighbour);
        }
        self.made = 0;
    }
}
