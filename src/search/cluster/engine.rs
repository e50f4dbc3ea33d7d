//! One process's slab of the table on its CPU ([`CpuSlabEngine`]): passes in rounds, the
//! neighbours outside the slab sent to their owners or asked of them.

use super::transport::{Exchanged, MpiJob, answers, owner};
use crate::puzzle::{StateSpace, Way};
use crate::search::SearchError;
use crate::search::bitmap::Bitmap;
use crate::search::engine::Engine;
use crate::search::levels::Levels;
use crate::search::slab::moves::{SlabMoves, plane_pass, unreached_bits};
use crate::search::slab::{self, LIST_SHARE, ROUND_BYTES, Slab};
use crate::search::sweep::frontier::count_holding;
use crate::search::{Passes, Progress, Step};
use crate::table::{DistanceTable, ENTRIES_PER_WORD, TableSource, TableView, UNREACHED};
use rayon::prelude::*;
use std::ops::{ControlFlow, Range};

/// Frontier states per rayon task within a round, from a list.
const STATES_PER_TASK: usize = 4096;
/// Bitmap words per block: a rayon task within a round, from bits, and the unit rounds are cut
/// in (at most 2^18 states a block).
const BLOCK_WORDS: usize = 4096;
/// Table words per block of a bottom-up pass: a rayon task within a round, and the unit rounds
/// are cut in (2^18 entries a block).
const TABLE_BLOCK_WORDS: usize = 8192;
/// Levels this short stay lists in any slab (long thin graphs: the Chinese rings).
const MIN_LIST: u64 = 4096;
/// The engine of one process: its slab of the table and the last level's states in it.
pub struct CpuSlabEngine<'s, 'c, S: StateSpace> {
    space: &'s S,
    cluster: &'c MpiJob,
    /// The first column of each process's slab, and the end.
    bounds: Vec<u64>,
    slab: Slab,
    /// The table of the slab, plane by plane ([`Slab::local`], [`Slab::global`]).
    table: DistanceTable,
    /// The last level's states in this slab.
    last: Frontier,
    /// An empty bitmap of the slab, kept for the next level found as bits.
    spare: Option<Bitmap>,
    /// The space's moves as the passes apply them: the plane moves a table word at a time from
    /// a level in bits ([`plane_pass`]), the others state by state.
    moves: SlabMoves,
    /// The moves a bottom-up round pulls along, where they are not `moves` (a directed space's
    /// inverses, [`StateSpace::moves_for`]).
    pulled: Option<SlabMoves>,
    exchanged: Exchanged,
}

impl<'s, 'c, S: StateSpace> CpuSlabEngine<'s, 'c, S> {
    /// This process's engine on its `slab` of `space`, in the job `cluster`, or why the slab's
    /// table cannot be allocated.
    pub fn new(space: &'s S, cluster: &'c MpiJob, slab: Slab) -> Result<Self, String> {
        let bounds = slab::bounds(slab.width, cluster.size());
        Ok(CpuSlabEngine {
            moves: SlabMoves::new(space, &slab, Way::Push),
            pulled: (space.directed()).then(|| SlabMoves::new(space, &slab, Way::Pull)),
            space,
            cluster,
            table: DistanceTable::try_new(slab.entries())?,
            slab,
            bounds,
            last: Frontier::List(Vec::new()),
            spare: None,
            exchanged: Exchanged::default(),
        })
    }

    /// The most states a process expands in one round.
    fn states_per_round(&self) -> u64 {
        (ROUND_BYTES / (8 * self.space.move_count() as u64)).max(1)
    }

    /// The rounds this process expands the last level in: `tasks` of each (a list's chunks or
    /// the bitmap's blocks), cut where a round would expand more than
    /// [`CpuSlabEngine::states_per_round`] states.
    fn rounds(&self) -> Vec<std::ops::Range<usize>> {
        let per_round = self.states_per_round();
        match &self.last {
            Frontier::List(list) => {
                let per = (per_round as usize).div_ceil(STATES_PER_TASK);
                let tasks = list.len().div_ceil(STATES_PER_TASK);
                (0..tasks.div_ceil(per))
                    .map(|r| r * per..((r + 1) * per).min(tasks))
                    .collect()
            }
            Frontier::Bits(bits) => {
                let blocks = bits.word_count().div_ceil(BLOCK_WORDS);
                let counts: Vec<u64> = (0..blocks)
                    .into_par_iter()
                    .map(|b| {
                        let words = b * BLOCK_WORDS..((b + 1) * BLOCK_WORDS).min(bits.word_count());
                        words.map(|w| u64::from(bits.word(w).count_ones())).sum()
                    })
                    .collect();
                group_rounds(&counts, per_round)
            }
        }
    }

    /// The rounds of a bottom-up pass over this slab: blocks of its table, cut where a round
    /// would check more than [`CpuSlabEngine::states_per_round`] unreached entries.
    fn unreached_rounds(&self) -> Vec<std::ops::Range<usize>> {
        let table = &self.table;
        let blocks = table.word_count().div_ceil(TABLE_BLOCK_WORDS);
        let counts: Vec<u64> = (0..blocks)
            .into_par_iter()
            .map(|b| {
                let words =
                    b * TABLE_BLOCK_WORDS..((b + 1) * TABLE_BLOCK_WORDS).min(table.word_count());
                words
                    .map(|w| u64::from(unreached_bits(table, w).count_ones()))
                    .sum()
            })
            .collect();
        group_rounds(&counts, self.states_per_round())
    }

    /// One bottom-up round over the table's `blocks`: each unreached entry checks its
    /// predecessors in this slab (by the plane moves too where `planes`) against the last level,
    /// and one with none there asks the owners of the others (sorted, delta-coded, compressed
    /// ranks; each owner answers one bit a distinct rank). Returns the states this process set
    /// (into `bits` where given), and the bytes and ranks it sent.
    fn bottom_up_round(
        &self,
        blocks: std::ops::Range<usize>,
        planes: bool,
        next: u8,
        bits: Option<&Bitmap>,
    ) -> (Found, u64, u64) {
        let processes = self.bounds.len() - 1;
        let (space, table, bounds) = (self.space, &self.table, &self.bounds);
        let (slab, last) = (&self.slab, &self.last);
        let moves = self.pulled.as_ref().unwrap_or(&self.moves);
        let parts: Vec<RoundShare<(u64, u64)>> = blocks
            .into_par_iter()
            .map(|b| {
                let mut walker = moves.walker(space.cursor());
                let mut set = Found::default();
                let mut asks = vec![Vec::new(); processes];
                let mut elsewhere = Vec::with_capacity(space.move_count());
                let words =
                    b * TABLE_BLOCK_WORDS..((b + 1) * TABLE_BLOCK_WORDS).min(table.word_count());
                for w in words {
                    let mut open = unreached_bits(table, w);
                    while open != 0 {
                        let local =
                            w as u64 * ENTRIES_PER_WORD + u64::from(open.trailing_zeros() / 2);
                        open &= open - 1;
                        let rank = slab.global(local);
                        elsewhere.clear();
                        let found = walker.each(rank, planes, |n| {
                            let (plane, column) = slab.place(n);
                            let owner = owner(bounds, column);
                            if owner != slab.index {
                                elsewhere.push((owner, n));
                            } else if last.contains(n, slab.entry(plane, column)) {
                                return ControlFlow::Break(());
                            }
                            ControlFlow::Continue(())
                        });
                        if found.is_break() {
                            if table.claim(local, next) {
                                set.keep(bits, local, rank);
                            }
                        } else {
                            elsewhere
                                .iter()
                                .for_each(|&(o, n)| asks[o].push((n, local)));
                        }
                    }
                }
                (set, asks)
            })
            .collect();
        let (mut set, asks) = merge(parts, processes);
        let answer = |ranks: &[u64]| answers(ranks, |n| last.contains(n, slab.local(n)));
        let (yes, sent_bytes, sent_ranks) = self.cluster.ask(asks, &mut |r| answer(r));
        let parts = yes.chunks(STATES_PER_TASK).collect();
        set.join(self.claim(parts, |local| (local, slab.global(local)), next, bits));
        (set, sent_bytes, sent_ranks)
    }

    /// One round: expands the last level's states in `tasks` (by the plane moves too where
    /// `planes`), claims the local neighbours and sends the others to their owners; returns the
    /// states this process set (into `bits` where given), and the bytes and ranks it sent.
    fn round(
        &self,
        tasks: std::ops::Range<usize>,
        planes: bool,
        next: u8,
        bits: Option<&Bitmap>,
    ) -> (Found, u64, u64) {
        let processes = self.bounds.len() - 1;
        let slab = &self.slab;
        // The workers see the space, the table and the bounds, not the communicator.
        let (space, table, bounds) = (self.space, &self.table, &self.bounds);
        let (last, moves) = (&self.last, &self.moves);
        let parts: Vec<RoundShare<u64>> = tasks
            .into_par_iter()
            .map(|t| {
                let mut walker = moves.walker(space.cursor());
                let mut set = Found::default();
                let mut outboxes = vec![Vec::new(); processes];
                last.visit(slab, t, &mut |rank| {
                    let _ = walker.each(rank, planes, |n| {
                        let (plane, column) = slab.place(n);
                        let owner = owner(bounds, column);
                        if owner != slab.index {
                            outboxes[owner].push(n);
                        } else {
                            let local = slab.entry(plane, column);
                            if table.claim(local, next) {
                                set.keep(bits, local, n);
                            }
                        }
                        ControlFlow::Continue(())
                    });
                });
                (set, outboxes)
            })
            .collect();
        let (mut set, outboxes) = merge(parts, processes);
        let (received, sent_bytes, sent_ranks) = self.cluster.send(outboxes);
        let parts = (received.iter())
            .flat_map(|ranks| ranks.chunks(STATES_PER_TASK))
            .collect();
        set.join(self.claim(parts, |n| (slab.local(n), n), next, bits));
        (set, sent_bytes, sent_ranks)
    }

    /// Claims for level `next` the entries of `parts` (`place` gives an item's entry and its
    /// global rank), a rayon task a part: the states set (into `bits` where given).
    fn claim(
        &self,
        parts: Vec<&[u64]>,
        place: impl Fn(u64) -> (u64, u64) + Sync,
        next: u8,
        bits: Option<&Bitmap>,
    ) -> Vec<Found> {
        (parts.into_par_iter())
            .map(|part| {
                let mut set = Found::default();
                for &item in part {
                    let (local, rank) = place(item);
                    if self.table.claim(local, next) {
                        set.keep(bits, local, rank);
                    }
                }
                set
            })
            .collect()
    }
}

/// The last level's states in a slab: a list of global ranks (ascending) while it is short, else
/// one bit an entry of the slab.
enum Frontier {
    List(Vec<u64>),
    Bits(Bitmap),
}

impl Frontier {
    /// Whether `rank`, entry `local` of the slab's table, is one of its states.
    fn contains(&self, rank: u64, local: u64) -> bool {
        match self {
            Frontier::List(list) => list.binary_search(&rank).is_ok(),
            Frontier::Bits(bits) => bits.contains(local),
        }
    }

    /// Calls `each` with the global rank of every state in task `t` (a list's chunk or a
    /// block of the bits of `slab`).
    fn visit(&self, slab: &Slab, t: usize, each: &mut dyn FnMut(u64)) {
        match self {
            Frontier::List(list) => {
                let end = ((t + 1) * STATES_PER_TASK).min(list.len());
                list[t * STATES_PER_TASK..end].iter().for_each(|&r| each(r));
            }
            Frontier::Bits(bits) => {
                let end = ((t + 1) * BLOCK_WORDS).min(bits.word_count());
                for w in t * BLOCK_WORDS..end {
                    let mut word = bits.word(w);
                    while word != 0 {
                        each(slab.global(w as u64 * 64 + u64::from(word.trailing_zeros())));
                        word &= word - 1;
                    }
                }
            }
        }
    }
}

/// A worker's part of a round: the states it set, and per process what it would send it.
type RoundShare<T> = (Found, Vec<Vec<T>>);

/// The workers' parts of a round joined.
fn merge<T>(parts: Vec<RoundShare<T>>, processes: usize) -> RoundShare<T> {
    let mut outgoing: Vec<Vec<T>> = (0..processes).map(|_| Vec::new()).collect();
    let mut sets = Vec::with_capacity(parts.len());
    for (set, boxes) in parts {
        sets.push(set);
        for (all, b) in outgoing.iter_mut().zip(boxes) {
            all.extend(b);
        }
    }
    let mut set = Found::default();
    set.join(sets);
    (set, outgoing)
}

/// The states a round set: how many, and their global ranks unless they went straight into
/// the new level's bits.
#[derive(Default)]
struct Found {
    count: u64,
    ranks: Vec<u64>,
}

impl Found {
    /// Keeps the state of global rank `rank`, entry `local` of the slab: in `bits`, where the
    /// new level is bits already.
    fn keep(&mut self, bits: Option<&Bitmap>, local: u64, rank: u64) {
        self.count += 1;
        match bits {
            Some(bits) => bits.insert(local),
            None => self.ranks.push(rank),
        }
    }

    /// Adds the states of `others`.
    fn join(&mut self, others: Vec<Found>) {
        for other in others {
            self.count += other.count;
            self.ranks.extend(other.ranks);
        }
    }
}

/// Blocks, with `counts` states each, grouped into rounds in order: a round ends before the
/// block that would take it beyond `per_round` states (a block alone may exceed it).
fn group_rounds(counts: &[u64], per_round: u64) -> Vec<std::ops::Range<usize>> {
    let mut rounds = Vec::new();
    let (mut start, mut held) = (0, 0);
    for (b, &c) in counts.iter().enumerate() {
        if held > 0 && held + c > per_round {
            rounds.push(start..b);
            (start, held) = (b, 0);
        }
        held += c;
    }
    if held > 0 {
        rounds.push(start..counts.len());
    }
    rounds
}

impl<S: StateSpace> Engine for CpuSlabEngine<'_, '_, S> {
    fn start(&mut self, starts: &[u64]) -> Result<(), SearchError> {
        let mine: Vec<u64> = (starts.iter().copied())
            .filter(|&s| self.slab.contains(s))
            .collect();
        for &s in &mine {
            self.table.claim(self.slab.local(s), 0);
        }
        self.last = Frontier::List(mine);
        Ok(())
    }

    /// Takes over this process's slab from its checkpoint; the last level's states in it are
    /// `list`'s, or else every entry holding `depth mod 3` (levels `depth - 3`, ... too, whose
    /// neighbours are all reached: the same table).
    fn load(
        &mut self,
        table: Box<dyn TableSource>,
        depth: u64,
        list: Option<Vec<u64>>,
    ) -> Result<(), SearchError> {
        let table = table.into_table()?;
        self.slab.holds(table.entries())?;
        let slab = &self.slab;
        self.last = match list {
            Some(list) => Frontier::List(list.into_iter().filter(|&s| slab.contains(s)).collect()),
            None => {
                let value = (depth % 3) as u8;
                let entries = table.entries();
                Frontier::Bits(Bitmap::from_fn(entries, |w| {
                    let ranks = w as u64 * 64..(w as u64 * 64 + 64).min(entries);
                    (ranks.filter(|&i| table.get(i) == value))
                        .fold(0, |bits, i| bits | 1 << (i % 64))
                }))
            }
        };
        self.table = table;
        Ok(())
    }

    /// Top-down and bottom-up scans of the slab, in rounds.
    fn passes(&self) -> Passes {
        Passes::SCANS
    }

    /// 3: an unreached entry not found at this level checks every move it has outside the
    /// plane moves, as an expansion does for a state (2 moved a level of Turnstyle 12
    /// bottom-up too early, which measured slower on one process).
    fn bottom_up_weight(&self, _: usize) -> u64 {
        3
    }

    /// Top-down from the last level's states, or bottom-up from the unreached entries: the
    /// loop asks every process for the same from the same counts.
    fn pass(
        &mut self,
        step: Step,
        levels: &Levels,
        progress: &dyn Progress,
    ) -> Result<u64, SearchError> {
        let depth = levels.len() - 1;
        let next = ((depth + 1) % 3) as u8;
        let bottom_up = step == Step::BottomUp;
        let rounds = if bottom_up {
            self.unreached_rounds()
        } else {
            self.rounds()
        };
        let list_limit = (self.slab.entries() / LIST_SHARE).max(MIN_LIST);
        // From bits, the plane moves go by words before the first round, the others state by
        // state.
        let by_words = !self.moves.sources().is_empty() && matches!(self.last, Frontier::Bits(_));
        // The new level: a list until it outgrows the limit (or from the words), then bits.
        let mut found = Frontier::List(Vec::new());
        let mut spare = self.spare.take();
        let mut count = 0;
        let [count_all, bytes, ranks] = self.cluster.rounds(progress, &mut |r| {
            let slab = &self.slab;
            let mut set = 0;
            if let (0, true, Frontier::Bits(last)) = (r, by_words, &self.last) {
                let bits = spare.take().unwrap_or_else(|| Bitmap::new(slab.entries()));
                set = plane_pass(&self.moves, slab, &self.table, last, &bits, next);
                found = Frontier::Bits(bits);
            }
            let tasks = rounds.get(r).cloned().unwrap_or(0..0);
            let bits = match &found {
                Frontier::Bits(bits) => Some(bits),
                Frontier::List(_) => None,
            };
            let (new, bytes, ranks) = if bottom_up {
                self.bottom_up_round(tasks, !by_words, next, bits)
            } else {
                self.round(tasks, !by_words, next, bits)
            };
            set += new.count;
            count += set;
            let new = new.ranks;
            found = match std::mem::replace(&mut found, Frontier::List(Vec::new())) {
                Frontier::List(mut list) if count <= list_limit => {
                    list.extend(new);
                    Frontier::List(list)
                }
                Frontier::List(list) => {
                    let bits = spare.take().unwrap_or_else(|| Bitmap::new(slab.entries()));
                    for r in list.into_iter().chain(new) {
                        bits.insert(slab.local(r));
                    }
                    Frontier::Bits(bits)
                }
                Frontier::Bits(bits) => {
                    new.into_par_iter().for_each(|r| bits.insert(slab.local(r)));
                    Frontier::Bits(bits)
                }
            };
            ([set, bytes, ranks], r + 1 < rounds.len())
        });
        self.exchanged.add(count_all, bytes, ranks);
        // A level short enough for a list that went into bits goes back to a list.
        if let Frontier::Bits(bits) = &found
            && count <= list_limit
        {
            let list = (bits.smallest(count as usize).into_iter())
                .map(|local| self.slab.global(local))
                .collect();
            if let Frontier::Bits(bits) = std::mem::replace(&mut found, Frontier::List(list)) {
                bits.clear();
                spare = Some(bits);
            }
        }
        self.spare = spare;
        if count_all > 0 {
            if let Frontier::List(list) = &mut found {
                list.par_sort_unstable();
            }
            if let Frontier::Bits(old) = std::mem::replace(&mut self.last, found) {
                old.clear();
                self.spare = Some(old);
            }
        }
        Ok(count_all)
    }

    fn smallest(&mut self, _: u64, limit: usize) -> Result<Vec<u64>, SearchError> {
        let mine = match &self.last {
            Frontier::List(list) => list[..list.len().min(limit)].to_vec(),
            Frontier::Bits(bits) => (bits.smallest(limit).into_iter())
                .map(|r| self.slab.global(r))
                .collect(),
        };
        Ok(self.cluster.smallest(&mine, limit))
    }

    /// Each process counts its slab's part of each range, summed over the processes.
    fn count_holding(&mut self, ranges: &[Range<u64>], value: u8) -> Result<Vec<u64>, SearchError> {
        let slab = &self.slab;
        let mine: Vec<u64> = (ranges.iter())
            .map(|range| {
                // The range's part in each plane's columns of this slab, local entries in a row.
                let planes = match range.is_empty() {
                    true => 0..0,
                    false => range.start / slab.width..(range.end - 1) / slab.width + 1,
                };
                (planes.map(|plane| {
                    let base = plane * slab.width;
                    let lo = range.start.max(base + slab.first);
                    let hi = range.end.min(base + slab.end);
                    match lo < hi {
                        true => {
                            let local = slab.local(lo);
                            count_holding(&self.table, value, local..local + (hi - lo))
                        }
                        false => 0,
                    }
                }))
                .sum()
            })
            .collect();
        let all = self.cluster.gather_all(&mine);
        Ok((0..ranges.len())
            .map(|i| all.iter().skip(i).step_by(ranges.len()).sum())
            .collect())
    }

    /// Each entry's value from the process that holds it.
    fn values_at(&mut self, ranks: &[u64]) -> Result<Vec<u8>, SearchError> {
        // 0 where another process holds the entry, else its value plus one.
        let mine: Vec<u8> = (ranks.iter())
            .map(|&r| match self.slab.contains(r) {
                true => self.table.get(self.slab.local(r)) + 1,
                false => 0,
            })
            .collect();
        let all = self.cluster.gather_all(&mine);
        Ok((0..ranks.len())
            .map(|i| {
                let held = all.iter().skip(i).step_by(ranks.len()).max();
                // Every entry is some process's.
                held.map_or(UNREACHED, |v| v.saturating_sub(1))
            })
            .collect())
    }

    /// Calls `f` with this process's slab of the table.
    fn with_table(
        &mut self,
        f: &mut dyn FnMut(&dyn TableView) -> Result<(), String>,
    ) -> Result<(), SearchError> {
        Ok(f(&self.table)?)
    }

    /// This process's slab of the table.
    fn into_table(self) -> Result<DistanceTable, SearchError> {
        Ok(self.table)
    }
}

/// The engine of one process's slab: its CPU's ([`CpuSlabEngine`]) or its GPU's
/// ([`crate::gpu::cluster::GpuSlabEngine`]).
pub trait SlabEngine: Engine {
    /// Its slab.
    fn slab(&self) -> &Slab;
    /// The bytes its exchanges moved so far.
    fn exchanged(&self) -> &Exchanged;
}

impl<S: StateSpace> SlabEngine for CpuSlabEngine<'_, '_, S> {
    fn slab(&self) -> &Slab {
        &self.slab
    }

    fn exchanged(&self) -> &Exchanged {
        &self.exchanged
    }
}
