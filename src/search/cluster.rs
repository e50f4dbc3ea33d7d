//! The MPI engine: one search across the processes of an MPI job (`mpirun -np P gpusearch ...`).
//!
//! Each process owns a *slab* ([`super::slab`]): the same columns of every plane of the rank
//! space, whole table words (for a ring puzzle, whole arrangements with all their offsets, so
//! that `L` and `R` never leave it), and holds the table for it. A pass is top-down from the
//! last level's states in the slab (a neighbour in the slab is claimed at once, one outside goes
//! to its owner's outbox), or bottom-up from its unreached entries where the loop's switch rule
//! prefers it (a neighbour outside is asked of its owner, who answers one bit). Outboxes and
//! questions leave in bounded rounds (sorted, delta-coded, zstd-compressed; all-to-all), and the
//! level's count is summed across processes. The level loop runs in every process alike
//! ([`super::drive`]): its decisions follow from the counts, which every process has the same;
//! checkpoints are per process (its slab), saved after the same levels everywhere. At the end
//! every process writes the file's chunks whose first entry is in its slab at their offsets
//! ([`write_distances`]); process 0 writes the header and the other files.
//!
//! This module's [`ClusterEngine`] searches a slab on the CPU; a process with a GPU searches it
//! there ([`crate::gpu::cluster`]), with the same exchanges (`Cluster::send`,
//! `Cluster::ask`, `Cluster::rounds`).

use super::bitmap::Bitmap;
use super::engine::Engine;
use super::levels::Levels;
use super::slab::moves::SlabMoves;
use super::slab::{self, LIST_SHARE, ROUND_BYTES, Slab};
use super::table::{
    DistanceTable, ENTRIES_PER_WORD, TableSource, TableView, UNREACHED, spread, squeeze,
};
use super::{Checkpoints, Passes, Progress, Resume, Step};
use crate::puzzle::StateSpace;
use crate::store::{self, CHUNK_ENTRIES, Chunk, atomic::AtomicFile};
use ::mpi::Threading;
use ::mpi::collective::SystemOperation;
use ::mpi::datatype::{Partition, PartitionMut};
use ::mpi::topology::{Communicator, SimpleCommunicator};
use ::mpi::traits::*;
use rayon::prelude::*;
use std::io::Read;
use std::ops::ControlFlow;
use std::path::Path;

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
/// zstd's level for the exchanged chunks: fast, and sorted deltas compress well at any level.
const ZSTD_LEVEL: i32 = 1;

/// The MPI job this process belongs to, where it was started by `mpirun` (or `mpiexec`).
pub struct Cluster {
    _universe: ::mpi::environment::Universe,
    world: SimpleCommunicator,
    /// This process's number among the job's processes on its machine (those that share its
    /// memory), and how many they are.
    node: (usize, usize),
}

impl Cluster {
    /// Joins the MPI job where this process was started as one of its processes (Open MPI's
    /// or a PMI launcher's environment says so); `None` for a plain process.
    pub fn join() -> Option<Cluster> {
        let launched = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"]
            .iter()
            .any(|v| std::env::var_os(v).is_some());
        if !launched {
            return None;
        }
        // The level loop runs on a worker of the job's thread pool, not on the main thread.
        let (universe, _) = ::mpi::initialize_with_threading(Threading::Serialized)?;
        let world = universe.world();
        // A process that panics (a bug) ends the whole job, named, instead of leaving the others
        // waiting in a collective for ever.
        let rank = world.rank();
        let report = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            report(info);
            eprintln!("gpusearch: error: process {rank}: a bug in gpusearch ends the job");
            // SAFETY: MPI is initialised before this hook is set; MPI_Abort does not return.
            unsafe { ::mpi::ffi::MPI_Abort(::mpi::ffi::RSMPI_COMM_WORLD, 101) };
        }));
        let machine = world.split_shared(world.rank());
        let node = (machine.rank() as usize, machine.size() as usize);
        Some(Cluster {
            _universe: universe,
            world,
            node,
        })
    }

    /// This process's number, 0 to `size - 1`.
    pub fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    /// How many processes the job has.
    pub fn size(&self) -> usize {
        self.world.size() as usize
    }

    /// This process's number among the job's processes on its machine (those that share its
    /// memory), 0 first.
    pub fn node_rank(&self) -> usize {
        self.node.0
    }

    /// A note where this process's threads are held to fewer cores than its share of those its
    /// launcher (mpirun's daemon, unbound) may use: mpirun binds each process to a core or a
    /// socket by default.
    pub fn cores_note(&self) -> Option<String> {
        // SAFETY: getppid only reads this process's parent's id.
        let parent = unsafe { libc::getppid() };
        let (allowed, all) = (affinity(0)?, affinity(parent)?);
        cores_note(self.rank(), allowed, all, self.node.1)
    }

    /// Ends the whole job with `code` (every process), after `message` on this one's stderr.
    pub fn abort(&self, message: &str, code: i32) -> ! {
        eprintln!("gpusearch: error: process {}: {message}", self.rank());
        self.world.abort(code)
    }

    /// `value` as process 0 has it, on every process: for a decision all must take alike (a
    /// checkpoint's clock differs a little from process to process).
    pub fn decide(&self, value: bool) -> bool {
        let mut v = u8::from(value);
        self.world.process_at_rank(0).broadcast_into(&mut v);
        v != 0
    }

    /// Waits for every process to get here; a process whose `result` is an error ends the whole
    /// job with it, naming itself (the others end with it).
    pub fn everywhere(&self, result: Result<(), String>) {
        if let Err(e) = result {
            self.abort(&e, 1)
        }
        self.world.barrier();
    }

    /// The lowest-numbered process whose check failed, and its exit code: every process calls
    /// it with its own code (0 where its check passed).
    pub fn first_failure(&self, code: i32) -> Option<(usize, i32)> {
        let mut codes = vec![0i32; self.size()];
        self.world.all_gather_into(&code, &mut codes[..]);
        codes.iter().position(|&c| c != 0).map(|p| (p, codes[p]))
    }

    /// Each value summed over the processes, in one collective.
    pub(crate) fn sum<const N: usize>(&self, values: [u64; N]) -> [u64; N] {
        let mut total = [0; N];
        self.world
            .all_reduce_into(&values[..], &mut total[..], SystemOperation::sum());
        total
    }

    /// The smallest `limit` of the ranks every process gives (its own smallest `limit`).
    pub(crate) fn smallest(&self, mine: &[u64], limit: usize) -> Vec<u64> {
        // Each process's are ascending; slabs of columns interleave.
        let mut all = self.gather_all(mine);
        all.sort_unstable();
        all.truncate(limit);
        all
    }

    /// Sends `outgoing[q]` to each process `q` (all-to-all): what each process sent this one,
    /// in process order, and how many items came from each.
    fn exchange<T: Equivalence + Copy + Default>(&self, outgoing: &[Vec<T>]) -> (Vec<T>, Vec<i32>) {
        let processes = self.size();
        let send_counts: Vec<i32> = outgoing.iter().map(|c| c.len() as i32).collect();
        let mut recv_counts = vec![0i32; processes];
        self.world
            .all_to_all_into(&send_counts[..], &mut recv_counts[..]);
        // An item beyond keeps the buffers distinct allocations even when empty (MPI refuses a
        // send buffer that is its receive buffer, as two empty vectors would be).
        let mut send: Vec<T> = outgoing.concat();
        send.push(T::default());
        let total: usize = recv_counts.iter().map(|&c| c as usize).sum();
        let mut received = vec![T::default(); total + 1];
        {
            let send_displs = displacements(&send_counts);
            let recv_displs = displacements(&recv_counts);
            let out = Partition::new(&send[..], &send_counts[..], &send_displs[..]);
            let mut into = PartitionMut::new(&mut received[..], &recv_counts[..], &recv_displs[..]);
            self.world.all_to_all_varcount_into(&out, &mut into);
        }
        received.truncate(total);
        (received, recv_counts)
    }

    /// Every process's `mine`, in process order (all-gather).
    pub(crate) fn gather_all<T: Equivalence + Copy + Default>(&self, mine: &[T]) -> Vec<T> {
        let count = mine.len() as i32;
        let mut counts = vec![0i32; self.size()];
        self.world.all_gather_into(&count, &mut counts[..]);
        let total: usize = counts.iter().map(|&c| c as usize).sum();
        // One item beyond: never the same (empty) buffer as `mine`.
        let mut all = vec![T::default(); total + 1];
        {
            let displs = displacements(&counts);
            let mut into = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
            self.world.all_gather_varcount_into(mine, &mut into);
        }
        all.truncate(total);
        all
    }

    /// Sends each process `q` the ranks `outboxes[q]` (sorted, delta-coded, compressed):
    /// the ranks every process sent this one (each process's sorted, without duplicates), and
    /// the bytes and ranks this one sent.
    pub(crate) fn send(&self, outboxes: Vec<Vec<u64>>) -> (Vec<Vec<u64>>, u64, u64) {
        let ranks: u64 = outboxes.iter().map(|b| b.len() as u64).sum();
        let chunks: Vec<Vec<u8>> = outboxes.into_par_iter().map(encode).collect();
        let bytes: u64 = chunks.iter().map(|c| c.len() as u64).sum();
        let (received, counts) = self.exchange(&chunks);
        let ranks_in = split(&received, &counts)
            .into_par_iter()
            .map(decode)
            .collect();
        (ranks_in, bytes, ranks)
    }

    /// Asks each process `q` whether the ranks of `asks[q]` (pairs of a rank in `q`'s slab
    /// and the entry of this process's that asks) are in the last level: each process answers
    /// what it is asked with `answer` (one bit a rank it is given, in order: see [`answers`]).
    /// Returns this process's entries whose question was answered yes (one per yes pair), and
    /// the bytes and ranks it sent.
    pub(crate) fn ask(
        &self,
        mut asks: Vec<Vec<(u64, u64)>>,
        answer: &mut dyn FnMut(&[u64]) -> Vec<u8>,
    ) -> (Vec<u64>, u64, u64) {
        asks.par_iter_mut().for_each(|a| a.sort_unstable());
        let outboxes = asks
            .iter()
            .map(|a| a.iter().map(|&(n, _)| n).collect())
            .collect();
        let (questions, asked_bytes, ranks) = self.send(outboxes);
        let replies: Vec<Vec<u8>> = questions.iter().map(|q| answer(q)).collect();
        let (answered, counts) = self.exchange(&replies);
        let yes: Vec<Vec<u64>> = (asks.par_iter().zip(split(&answered, &counts)))
            .map(|(asked, bits)| {
                let mut yes = Vec::new();
                let mut distinct = 0;
                for (i, &(n, local)) in asked.iter().enumerate() {
                    if i > 0 && asked[i - 1].0 != n {
                        distinct += 1;
                    }
                    if bits[distinct / 8] >> (distinct % 8) & 1 == 1 {
                        yes.push(local);
                    }
                }
                yes
            })
            .collect();
        let bytes = asked_bytes + replies.iter().map(|r| r.len() as u64).sum::<u64>();
        (yes.concat(), bytes, ranks)
    }

    /// Runs a pass's rounds until no process has any left (a process out of its own still
    /// takes part, with nothing to send): `round(r)` runs round `r` and returns the states it
    /// set in this process, the bytes and ranks it sent, and whether this process has more. After
    /// each round `progress` shows the states the job set in it. Returns the three figures summed
    /// over the rounds and the processes.
    pub(crate) fn rounds(
        &self,
        progress: &dyn Progress,
        round: &mut dyn FnMut(usize) -> ([u64; 3], bool),
    ) -> [u64; 3] {
        let mut totals = [0; 3];
        for r in 0.. {
            let (figures, more) = round(r);
            let [everywhere, more] = self.sum([figures[0], u64::from(more)]);
            progress.found(everywhere);
            (totals.iter_mut().zip(figures)).for_each(|(t, f)| *t += f);
            if more == 0 {
                break;
            }
        }
        self.sum(totals)
    }

    /// Process 0's `bytes` on every process (the others' are ignored).
    fn broadcast_bytes(&self, bytes: Vec<u8>) -> Vec<u8> {
        let root = self.world.process_at_rank(0);
        let mut len = bytes.len() as u64;
        root.broadcast_into(&mut len);
        let mut all = if self.rank() == 0 {
            bytes
        } else {
            vec![0u8; len as usize]
        };
        if len > 0 {
            root.broadcast_into(&mut all[..]);
        }
        all
    }
}

// SAFETY: MPI is initialised for serialized calls from any thread, and only the thread that
// runs the level loop calls MPI, one call at a time (the workers of a pass see the table, never
// the communicator).
unsafe impl Sync for Cluster {}
unsafe impl Send for Cluster {}

/// Bytes each exchange moved, level by level (summed over the processes).
#[derive(Clone, Debug, Default)]
pub struct Exchanged {
    /// Per level found, the compressed bytes sent between processes.
    pub compressed: Vec<u64>,
    /// Per level found, the neighbour ranks sent (8 bytes each uncompressed).
    pub ranks: Vec<u64>,
}

impl Exchanged {
    /// Adds a pass's figures (summed over the processes), where it found `count` states.
    pub(crate) fn add(&mut self, count: u64, bytes: u64, ranks: u64) {
        if count > 0 {
            self.compressed.push(bytes);
            self.ranks.push(ranks);
        }
    }
}

/// The engine of one process: its slab of the table and the last level's states in it.
pub struct ClusterEngine<'s, 'c, S: StateSpace> {
    space: &'s S,
    cluster: &'c Cluster,
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
    /// a level in bits ([`ClusterEngine::plane_round`]), the others state by state.
    moves: SlabMoves,
    exchanged: Exchanged,
}

impl<'s, 'c, S: StateSpace> ClusterEngine<'s, 'c, S> {
    /// This process's engine on its `slab` of `space`, in the job `cluster`, or why the slab's
    /// table cannot be allocated.
    pub fn new(space: &'s S, cluster: &'c Cluster, slab: Slab) -> Result<Self, String> {
        let bounds = slab::bounds(slab.width, cluster.size());
        Ok(ClusterEngine {
            moves: SlabMoves::new(space, &slab),
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
    /// [`ClusterEngine::states_per_round`] states.
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
                cut(&counts, per_round)
            }
        }
    }

    /// The rounds of a bottom-up pass over this slab: blocks of its table, cut where a round
    /// would check more than [`ClusterEngine::states_per_round`] unreached entries.
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
        cut(&counts, self.states_per_round())
    }

    /// Sets to `next` the unreached entries that the plane moves take the states of `last` (the
    /// last level in bits) to, a table word at a time, and adds them to `found`: how many it
    /// set. The same whichever way the pass goes, as the plane moves hold their inverses.
    fn plane_round(&self, last: &Bitmap, found: &Bitmap, next: u8) -> u64 {
        let (table, sources) = (&self.table, self.moves.sources());
        let columns = self.slab.columns();
        let words = table.word_count();
        let clear = u64::from(UNREACHED ^ next);
        (0..words.div_ceil(TABLE_BLOCK_WORDS))
            .into_par_iter()
            .map(|b| {
                let mut set = 0;
                for w in b * TABLE_BLOCK_WORDS..((b + 1) * TABLE_BLOCK_WORDS).min(words) {
                    let first = w as u64 * ENTRIES_PER_WORD;
                    let (plane, column) = (first / columns, first % columns);
                    let from = (sources[plane as usize].iter()).fold(0, |f, &p| {
                        f | last.bits_at(p * columns + column, ENTRIES_PER_WORD)
                    });
                    let new = from & u64::from(squeeze(unreached_bits(table, w)));
                    if new != 0 {
                        table.clear_bits(w, spread(new as u32) * clear);
                        found.or_word((first / 64) as usize, new << (first % 64));
                        set += u64::from(new.count_ones());
                    }
                }
                set
            })
            .sum()
    }

    /// One bottom-up round over the table's `blocks`: each unreached entry checks its
    /// neighbours in this slab (by the plane moves too where `planes`) against the last level,
    /// and one with none there asks the owners of the others (sorted, delta-coded, compressed
    /// ranks; each owner answers one bit a distinct rank). Returns the states this process set
    /// (into `bits` where given), and the bytes and ranks it sent.
    fn bottom_up_round(
        &self,
        blocks: std::ops::Range<usize>,
        planes: bool,
        next: u8,
        bits: Option<&Bitmap>,
    ) -> (Set, u64, u64) {
        let processes = self.bounds.len() - 1;
        let (space, table, bounds) = (self.space, &self.table, &self.bounds);
        let (slab, last, moves) = (&self.slab, &self.last, &self.moves);
        let parts: Vec<Part<(u64, u64)>> = blocks
            .into_par_iter()
            .map(|b| {
                let mut walker = moves.walker(space.cursor());
                let mut set = Set::default();
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
                            if owner != slab.process {
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
    ) -> (Set, u64, u64) {
        let processes = self.bounds.len() - 1;
        let slab = &self.slab;
        // The workers see the space, the table and the bounds, not the communicator.
        let (space, table, bounds) = (self.space, &self.table, &self.bounds);
        let (last, moves) = (&self.last, &self.moves);
        let parts: Vec<Part<u64>> = tasks
            .into_par_iter()
            .map(|t| {
                let mut walker = moves.walker(space.cursor());
                let mut set = Set::default();
                let mut outboxes = vec![Vec::new(); processes];
                last.visit(slab, t, &mut |rank| {
                    let _ = walker.each(rank, planes, |n| {
                        let (plane, column) = slab.place(n);
                        let owner = owner(bounds, column);
                        if owner != slab.process {
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
    ) -> Vec<Set> {
        (parts.into_par_iter())
            .map(|part| {
                let mut set = Set::default();
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
type Part<T> = (Set, Vec<Vec<T>>);

/// The workers' parts of a round joined.
fn merge<T>(parts: Vec<Part<T>>, processes: usize) -> Part<T> {
    let mut outgoing: Vec<Vec<T>> = (0..processes).map(|_| Vec::new()).collect();
    let mut sets = Vec::with_capacity(parts.len());
    for (set, boxes) in parts {
        sets.push(set);
        for (all, b) in outgoing.iter_mut().zip(boxes) {
            all.extend(b);
        }
    }
    let mut set = Set::default();
    set.join(sets);
    (set, outgoing)
}

/// The states a round set: how many, and their global ranks unless they went straight into
/// the new level's bits.
#[derive(Default)]
struct Set {
    count: u64,
    ranks: Vec<u64>,
}

impl Set {
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
    fn join(&mut self, others: Vec<Set>) {
        for other in others {
            self.count += other.count;
            self.ranks.extend(other.ranks);
        }
    }
}

/// Blocks, with `counts` states each, grouped into rounds in order: a round ends before the
/// block that would take it beyond `per_round` states (a block alone may exceed it).
fn cut(counts: &[u64], per_round: u64) -> Vec<std::ops::Range<usize>> {
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

/// Word `w` of `table` with the low bit of each unreached entry's two set (entries past the
/// table's end are not entries).
fn unreached_bits(table: &DistanceTable, w: usize) -> u64 {
    let word = table.word(w);
    let mut open = word & (word >> 1) & 0x5555_5555_5555_5555;
    let entries = table.entries() - w as u64 * ENTRIES_PER_WORD;
    if entries < ENTRIES_PER_WORD {
        open &= (1 << (2 * entries)) - 1;
    }
    open
}

/// How many cores process `pid` (0: this one) may run on.
fn affinity(pid: libc::pid_t) -> Option<usize> {
    // SAFETY: an all-zero cpu_set_t is an empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: `set` is a cpu_set_t of `size` bytes, written by the call only.
    let found = unsafe { libc::sched_getaffinity(pid, size, &mut set) } == 0;
    // SAFETY: counts the members of the set the call filled.
    found.then(|| unsafe { libc::CPU_COUNT(&set) } as usize)
}

/// The note for process `rank` where the `allowed` cores its threads may run on are fewer than
/// its share of the `online` cores among the `here` processes on its machine.
fn cores_note(rank: usize, allowed: usize, online: usize, here: usize) -> Option<String> {
    let share = (online / here.max(1)).max(1);
    let processes = if here == 1 { "process" } else { "processes" };
    (allowed < share).then(|| {
        format!(
            "process {rank} may use {allowed} of the {online} cores here, fewer than its \
             share of {share} ({here} {processes} here): mpirun binds processes to cores by \
             default; `mpirun --bind-to none ...` gives each its share"
        )
    })
}

/// What each process sent, `counts[q]` bytes from `q`, one slice each.
fn split<'a>(received: &'a [u8], counts: &[i32]) -> Vec<&'a [u8]> {
    let mut at = 0;
    counts
        .iter()
        .map(|&c| {
            let part = &received[at..at + c as usize];
            at += c as usize;
            part
        })
        .collect()
}

/// The answers to `ranks` asked of this process: one bit a rank, in order, set where `holds`.
pub(crate) fn answers(ranks: &[u64], holds: impl Fn(u64) -> bool + Sync) -> Vec<u8> {
    (ranks.par_chunks(8))
        .map(|eight| (eight.iter().enumerate()).fold(0u8, |b, (i, &n)| b | u8::from(holds(n)) << i))
        .collect()
}

/// The process whose slab holds `column`.
pub(crate) fn owner(bounds: &[u64], column: u64) -> usize {
    bounds.partition_point(|&b| b <= column) - 1
}

/// Offsets of consecutive chunks of these lengths.
fn displacements(counts: &[i32]) -> Vec<i32> {
    counts
        .iter()
        .scan(0, |at, &c| {
            let d = *at;
            *at += c;
            Some(d)
        })
        .collect()
}

/// Ranks for one process: sorted, duplicates dropped, delta-coded as LEB128 varints, then
/// zstd-compressed (empty for none).
fn encode(mut ranks: Vec<u64>) -> Vec<u8> {
    if ranks.is_empty() {
        return Vec::new();
    }
    ranks.sort_unstable();
    ranks.dedup();
    let mut bytes = Vec::with_capacity(ranks.len() * 2);
    let mut previous = 0;
    for r in ranks {
        let mut delta = r - previous;
        previous = r;
        while delta >= 0x80 {
            bytes.push((delta as u8) | 0x80);
            delta >>= 7;
        }
        bytes.push(delta as u8);
    }
    zstd::bulk::compress(&bytes, ZSTD_LEVEL).expect("zstd compresses a buffer in memory")
}

/// The ranks of an [`encode`]d chunk.
fn decode(chunk: &[u8]) -> Vec<u64> {
    if chunk.is_empty() {
        return Vec::new();
    }
    let bytes = zstd::stream::decode_all(chunk).expect("a chunk this job's processes encoded");
    let mut ranks = Vec::new();
    let (mut value, mut shift, mut previous) = (0u64, 0, 0u64);
    for b in bytes {
        value |= u64::from(b & 0x7f) << shift;
        shift += 7;
        if b & 0x80 == 0 {
            previous += value;
            ranks.push(previous);
            (value, shift) = (0, 0);
        }
    }
    ranks
}

impl<S: StateSpace> Engine for ClusterEngine<'_, '_, S> {
    fn start(&mut self, starts: &[u64]) -> Result<(), String> {
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
    ) -> Result<(), String> {
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
    /// plane moves, as an expansion does for a state (measured on Turnstyle 12, where 2 moves
    /// level 33 bottom-up too: 17.0 against 18.7 s on one process, 11.1–11.7 s either way on
    /// two).
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
    ) -> Result<u64, String> {
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
                set = self.plane_round(last, &bits, next);
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

    fn smallest(&mut self, _: u64, limit: usize) -> Result<Vec<u64>, String> {
        let mine = match &self.last {
            Frontier::List(list) => list[..list.len().min(limit)].to_vec(),
            Frontier::Bits(bits) => (bits.smallest(limit).into_iter())
                .map(|r| self.slab.global(r))
                .collect(),
        };
        Ok(self.cluster.smallest(&mine, limit))
    }

    /// Calls `f` with this process's slab of the table.
    fn with_table(
        &mut self,
        f: &mut dyn FnMut(&dyn TableView) -> Result<(), String>,
    ) -> Result<(), String> {
        f(&self.table)
    }

    /// This process's slab of the table.
    fn into_table(self) -> Result<DistanceTable, String> {
        Ok(self.table)
    }
}

/// What one process of a search across processes ends with.
pub struct Searched {
    /// The level counts (of the whole space).
    pub levels: Levels,
    /// The smallest ranks of the last level.
    pub antipodes: Vec<u64>,
    /// This process's slab.
    pub slab: Slab,
    /// The table of the slab.
    pub table: DistanceTable,
    /// The bytes the exchanges moved, level by level.
    pub exchanged: Exchanged,
}

/// The engine of one process's slab: its CPU's ([`ClusterEngine`]) or its GPU's
/// ([`crate::gpu::cluster::GpuClusterEngine`]).
pub trait SlabEngine: Engine {
    /// Its slab.
    fn slab(&self) -> &Slab;
    /// The bytes its exchanges moved so far.
    fn exchanged(&self) -> &Exchanged;
}

impl<S: StateSpace> SlabEngine for ClusterEngine<'_, '_, S> {
    fn slab(&self) -> &Slab {
        &self.slab
    }

    fn exchanged(&self) -> &Exchanged {
        &self.exchanged
    }
}

/// A search of `space` across the processes of an MPI job by each process's `engine` (every
/// process calls it), saving checkpoints of each slab where `checkpoints` asks, from `resume`
/// (this process's slab) if given.
pub fn search<S: StateSpace, E: SlabEngine>(
    space: &S,
    mut engine: E,
    options: &super::Options,
    progress: &dyn Progress,
    checkpoints: Option<&dyn Checkpoints>,
    resume: Option<Resume>,
) -> Result<Searched, String> {
    let (levels, antipodes) =
        super::drive(space, &mut engine, options, progress, checkpoints, resume)?;
    let exchanged = engine.exchanged().clone();
    let slab = engine.slab().clone();
    Ok(Searched {
        levels,
        antipodes,
        slab,
        table: engine.into_table()?,
        exchanged,
    })
}

/// Writes the distances file `gsd` of a search across the processes of `cluster`, every
/// process from its slab's `table` (every process calls it). A chunk of the file belongs to the
/// process whose slab holds its first entry: the others send it their words of the chunk, and
/// it compresses the chunk. Process 0 gathers every chunk's entry, writes the header (which
/// `header` makes from them) into a temporary file and sends every chunk's offset; each process
/// writes its frames there. Process 0 returns the file, to be committed, and its SHA-256 (read
/// back); the others `None`. Fails with this process's error (the caller ends the job: the
/// others wait in a collective).
pub fn write_distances(
    cluster: &Cluster,
    slab: &Slab,
    table: &DistanceTable,
    entries: u64,
    header: impl FnOnce(Vec<Chunk>) -> std::io::Result<Vec<u8>>,
    gsd: &Path,
    frame_memory: u64,
) -> std::io::Result<Option<(AtomicFile, String)>> {
    use std::os::unix::fs::FileExt;
    let bounds = slab::bounds(slab.width, slab.processes);
    let words_per_chunk = (CHUNK_ENTRIES / ENTRIES_PER_WORD) as usize;
    let chunk_owner = |c: usize| owner(&bounds, (c as u64 * CHUNK_ENTRIES) % slab.width);
    let runs = slab.word_runs();
    // This slab's words of the chunks other processes own, to them: (first word, words, the
    // words) in the order of the whole table.
    let mut outgoing = vec![Vec::new(); slab.processes];
    for &(start, local, len) in &runs {
        let mut w = start;
        while w < start + len {
            let c = w / words_per_chunk;
            let end = (start + len).min((c + 1) * words_per_chunk);
            let owner = chunk_owner(c);
            if owner != slab.process {
                let piece = &mut outgoing[owner];
                piece.extend([w as u64, (end - w) as u64]);
                piece.extend((w..end).map(|g| table.word(local + g - start)));
            }
            w = end;
        }
    }
    let (received, _) = cluster.exchange(&outgoing);
    let mut pieces = Vec::new();
    let mut rest = &received[..];
    while let [start, len, tail @ ..] = rest {
        let (words, after) = tail.split_at(*len as usize);
        pieces.push((*start as usize, words.to_vec()));
        rest = after;
    }
    pieces.sort_unstable_by_key(|&(start, _)| start);
    let mine: Vec<usize> = (0..entries.div_ceil(CHUNK_ENTRIES) as usize)
        .filter(|&c| chunk_owner(c) == slab.process)
        .collect();
    let view = Assembled {
        table,
        runs,
        pieces,
    };
    let frames = store::compress_chunks(&view, entries, mine, frame_memory)?;
    let listed: Vec<(usize, &Chunk)> = frames.chunks().iter().copied().zip(frames.list()).collect();
    let list = serde_json::to_vec(&listed).map_err(std::io::Error::other)?;
    let lists = cluster.gather_all(&list[..]);
    // Process 0 makes the header, the file and every chunk's offset; they and the file's name
    // go to all.
    let mut file = None;
    let mut start = Vec::new();
    if cluster.rank() == 0 {
        let mut all: Vec<(usize, Chunk)> = Vec::new();
        let stream =
            serde_json::Deserializer::from_slice(&lists).into_iter::<Vec<(usize, Chunk)>>();
        for part in stream {
            all.extend(part.map_err(std::io::Error::other)?);
        }
        all.sort_unstable_by_key(|&(c, _)| c);
        let lengths: Vec<u64> = all.iter().map(|(_, c)| c.compressed_bytes).collect();
        let bytes = header(all.into_iter().map(|(_, c)| c).collect())?;
        let mut f = AtomicFile::create(gsd)?;
        std::io::Write::write_all(f.writer(), &bytes)?;
        std::io::Write::flush(f.writer())?;
        let mut at = bytes.len() as u64;
        start.extend((lengths.len() as u64).to_le_bytes());
        for length in lengths {
            start.extend(at.to_le_bytes());
            at += length;
        }
        start.extend(std::os::unix::ffi::OsStrExt::as_bytes(
            f.temp_path().as_os_str(),
        ));
        file = Some(f);
    }
    let start = cluster.broadcast_bytes(start);
    let number =
        |i: usize| u64::from_le_bytes(start[8 * i..8 * i + 8].try_into().expect("8 bytes"));
    let count = number(0) as usize;
    let temp = Path::new(
        <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(&start[8 * (count + 1)..]),
    );
    let part = std::fs::OpenOptions::new().write(true).open(temp)?;
    frames.write(&view, entries, &mut |c, frame| {
        part.write_all_at(frame, number(c + 1))
    })?;
    part.sync_all()?;
    cluster.everywhere(Ok(()));
    let Some(file) = file else {
        return Ok(None);
    };
    // The checksum of the whole file, as it lies on the disk.
    let mut sha = <sha2::Sha256 as sha2::Digest>::new();
    let mut reader = std::fs::File::open(temp)?;
    let mut buffer = vec![0u8; 1 << 22];
    loop {
        let n = reader.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        sha2::Digest::update(&mut sha, &buffer[..n]);
    }
    Ok(Some((file, store::hex(&sha2::Digest::finalize(sha)))))
}

/// The words of the chunks a process owns, by their index in the whole table: its slab's
/// (`runs`, as [`Slab::word_runs`]) and those the other processes sent (`pieces`: first word
/// and words, ascending).
struct Assembled<'a> {
    table: &'a DistanceTable,
    runs: Vec<(usize, usize, usize)>,
    pieces: Vec<(usize, Vec<u64>)>,
}

impl Assembled<'_> {
    /// Calls `each` with word `w` of the whole table and those after it up to `end` that lie in
    /// the same run or piece (one of the chunks this process owns); returns where it stopped.
    fn span(&self, w: usize, end: usize, each: &mut dyn FnMut(u64)) -> usize {
        let run = self.runs.partition_point(|&(start, _, _)| start <= w);
        if let Some(&(start, local, len)) = run.checked_sub(1).map(|r| &self.runs[r])
            && w < start + len
        {
            let stop = end.min(start + len);
            (w..stop).for_each(|g| each(self.table.word(local + g - start)));
            return stop;
        }
        let p = self.pieces.partition_point(|(start, _)| *start <= w) - 1;
        let (start, words) = &self.pieces[p];
        let stop = end.min(start + words.len());
        words[w - start..stop - start].iter().for_each(|&x| each(x));
        stop
    }
}

impl TableView for Assembled<'_> {
    fn entries(&self) -> u64 {
        self.table.entries()
    }

    fn append_le_bytes(
        &self,
        words: std::ops::Range<usize>,
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        out.reserve(words.len() * 8);
        let mut w = words.start;
        while w < words.end {
            w = self.span(w, words.end, &mut |x| {
                out.extend_from_slice(&x.to_le_bytes())
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_bound_to_fewer_cores_than_its_share_is_told_how_to_free_them() {
        let note = cores_note(0, 1, 64, 4).unwrap();
        assert!(note.contains("1 of the 64 cores here"), "{note}");
        assert!(
            note.contains("share of 16") && note.contains("--bind-to none"),
            "{note}"
        );
        assert_eq!(cores_note(3, 16, 64, 4), None);
        assert_eq!(cores_note(0, 1, 2, 2), None);
        assert_eq!(cores_note(0, 2, 2, 1), None);
    }

    #[test]
    fn chunks_decode_to_their_ranks_sorted_once() {
        let ranks = vec![5, 1 << 40, 3, 5, 0, 127, 128, u64::MAX >> 1];
        let mut want = ranks.clone();
        want.sort_unstable();
        want.dedup();
        assert_eq!(decode(&encode(ranks)), want);
        assert!(encode(Vec::new()).is_empty());
    }

    #[test]
    fn each_rank_has_the_slab_that_holds_it() {
        for (entries, p) in [(1000, 3), (64, 4), (31, 2), (10_000_019, 7)] {
            let b = slab::bounds(entries, p);
            for rank in [0, entries / 2, entries - 1] {
                let o = owner(&b, rank);
                assert!(b[o] <= rank && rank < b[o + 1], "{entries} {p} {rank}");
            }
        }
    }
}
