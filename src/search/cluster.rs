//! The MPI engine: one search across the processes of an MPI job (`mpirun -np P gpusearch ...`).
//!
//! Each process owns a *slab*, a range of ranks (whole table words, in rank order: a ring
//! puzzle's offsets of one arrangement are consecutive, so L and R mostly stay inside), and
//! holds the table for it. Every pass is top-down from the last level's local states: a
//! neighbour in the slab is claimed at once; one outside goes to its owner's outbox. The
//! outboxes leave in bounded rounds (sorted, delta-coded, zstd-compressed; all-to-all), each
//! process claims what it receives, and the level's count is summed across processes. The
//! level loop runs in every process alike ([`super::drive`]): its decisions follow from the
//! counts, which every process has the same. At the end the slabs are gathered to process 0,
//! which writes the files.

use super::engine::Engine;
use super::levels::Levels;
use super::table::{DistanceTable, ENTRIES_PER_WORD, TableSource, TableView};
use super::{Progress, Step};
use crate::puzzle::{Cursor, StateSpace};
use ::mpi::Threading;
use ::mpi::collective::SystemOperation;
use ::mpi::datatype::{Partition, PartitionMut};
use ::mpi::topology::{Communicator, SimpleCommunicator};
use ::mpi::traits::*;
use rayon::prelude::*;

/// Frontier states each process expands per exchange round: bounds the outboxes (at most this
/// many states times the moves, 8 bytes each, before compression).
const STATES_PER_ROUND: usize = 1 << 18;
/// Frontier states per rayon task within a round.
const STATES_PER_TASK: usize = 4096;
/// zstd's level for the exchanged chunks: fast, and sorted deltas compress well at any level.
const ZSTD_LEVEL: i32 = 1;

/// The MPI job this process belongs to, where it was started by `mpirun` (or `mpiexec`).
pub struct Cluster {
    _universe: ::mpi::environment::Universe,
    world: SimpleCommunicator,
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
        Some(Cluster {
            _universe: universe,
            world,
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

    /// Ends the whole job with `code` (every process), after `message` on this one's stderr.
    pub fn abort(&self, message: &str, code: i32) -> ! {
        eprintln!("gpusearch: process {}: {message}", self.rank());
        self.world.abort(code)
    }

    /// The communicator the engine uses.
    pub fn world(&self) -> &SimpleCommunicator {
        &self.world
    }
}

// SAFETY: MPI is initialised for serialized calls from any thread, and only the thread that
// runs the level loop calls MPI, one call at a time (the workers of a pass see the table, never
// the communicator).
unsafe impl Sync for Cluster {}
unsafe impl Send for Cluster {}

/// The first rank of each process's slab, and the end: `P + 1` bounds at table words.
pub fn slab_bounds(entries: u64, processes: usize) -> Vec<u64> {
    let words = entries.div_ceil(ENTRIES_PER_WORD);
    (0..=processes as u64)
        .map(|p| (words * p / processes as u64 * ENTRIES_PER_WORD).min(entries))
        .collect()
}

/// Bytes each exchange moved, level by level (summed over the processes).
#[derive(Clone, Debug, Default)]
pub struct Exchanged {
    /// Per level found, the compressed bytes sent between processes.
    pub compressed: Vec<u64>,
    /// Per level found, the neighbour ranks sent (8 bytes each uncompressed).
    pub ranks: Vec<u64>,
}

/// The engine of one process: its slab of the table and the last level's states in it.
pub struct ClusterEngine<'s, 'c, S: StateSpace> {
    space: &'s S,
    world: &'c SimpleCommunicator,
    bounds: Vec<u64>,
    me: usize,
    table: DistanceTable,
    /// The last level's states in this slab (global ranks), ascending.
    last: Vec<u64>,
    exchanged: Exchanged,
}

impl<'s, 'c, S: StateSpace> ClusterEngine<'s, 'c, S> {
    /// This process's engine on `space`, in the job `cluster`.
    pub fn new(space: &'s S, cluster: &'c Cluster) -> Self {
        let bounds = slab_bounds(space.size(), cluster.size());
        let me = cluster.rank();
        ClusterEngine {
            space,
            world: cluster.world(),
            table: DistanceTable::new(bounds[me + 1] - bounds[me]),
            bounds,
            me,
            last: Vec::new(),
            exchanged: Exchanged::default(),
        }
    }

    /// The bytes the exchanges moved so far.
    pub fn exchanged(&self) -> &Exchanged {
        &self.exchanged
    }

    fn first(&self) -> u64 {
        self.bounds[self.me]
    }

    /// Each value summed over the processes, in one collective.
    fn sum<const N: usize>(&self, values: [u64; N]) -> [u64; N] {
        let mut total = [0; N];
        self.world
            .all_reduce_into(&values[..], &mut total[..], SystemOperation::sum());
        total
    }

    /// One round: expands `states`, claims the local neighbours and sends the others to their
    /// owners; returns the states this process set, and the bytes and ranks it sent.
    fn round(&self, states: &[u64], next: u8) -> (Vec<u64>, u64, u64) {
        let processes = self.bounds.len() - 1;
        let first = self.first();
        // The workers see the space, the table and the bounds, not the communicator.
        let (space, table, bounds, me) = (self.space, &self.table, &self.bounds, self.me);
        let moves = space.move_count();
        let parts: Vec<(Vec<u64>, Vec<Vec<u64>>)> = states
            .par_chunks(STATES_PER_TASK)
            .map(|chunk| {
                let mut cursor = space.cursor();
                let mut new = Vec::new();
                let mut outboxes = vec![Vec::new(); processes];
                for &rank in chunk {
                    cursor.seek(rank);
                    for mv in 0..moves {
                        let n = cursor.neighbour(mv);
                        let owner = owner(bounds, n);
                        if owner != me {
                            outboxes[owner].push(n);
                        } else if table.claim(n - first, next) {
                            new.push(n);
                        }
                    }
                }
                (new, outboxes)
            })
            .collect();
        let mut new = Vec::new();
        let mut outboxes = vec![Vec::new(); processes];
        for (n, boxes) in parts {
            new.extend(n);
            for (all, b) in outboxes.iter_mut().zip(boxes) {
                all.extend(b);
            }
        }
        let sent_ranks: u64 = outboxes.iter().map(|b| b.len() as u64).sum();
        let chunks: Vec<Vec<u8>> = outboxes.into_par_iter().map(encode).collect();
        let send_counts: Vec<i32> = chunks.iter().map(|c| c.len() as i32).collect();
        let sent_bytes: u64 = chunks.iter().map(|c| c.len() as u64).sum();
        let mut recv_counts = vec![0i32; processes];
        self.world
            .all_to_all_into(&send_counts[..], &mut recv_counts[..]);
        // A byte beyond the chunks keeps the buffers distinct allocations even when empty (MPI
        // refuses a send buffer that is its receive buffer, as two empty vectors would be).
        let mut send: Vec<u8> = chunks.concat();
        send.push(0);
        let mut received = vec![0u8; recv_counts.iter().map(|&c| c as usize).sum::<usize>() + 1];
        {
            let send_displs = displacements(&send_counts);
            let recv_displs = displacements(&recv_counts);
            let out = Partition::new(&send[..], &send_counts[..], &send_displs[..]);
            let mut into = PartitionMut::new(&mut received[..], &recv_counts[..], &recv_displs[..]);
            self.world.all_to_all_varcount_into(&out, &mut into);
        }
        let mut at = 0;
        let mut incoming = Vec::new();
        for &c in &recv_counts {
            incoming.push(&received[at..at + c as usize]);
            at += c as usize;
        }
        let claimed: Vec<Vec<u64>> = incoming
            .into_par_iter()
            .map(|bytes| {
                decode(bytes)
                    .into_iter()
                    .filter(|&n| table.claim(n - first, next))
                    .collect()
            })
            .collect();
        new.extend(claimed.into_iter().flatten());
        (new, sent_bytes, sent_ranks)
    }
}

/// The process whose slab holds `rank`.
fn owner(bounds: &[u64], rank: u64) -> usize {
    bounds.partition_point(|&b| b <= rank) - 1
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
        let slab = self.bounds[self.me]..self.bounds[self.me + 1];
        self.last = starts
            .iter()
            .copied()
            .filter(|s| slab.contains(s))
            .collect();
        for &s in &self.last {
            self.table.claim(s - slab.start, 0);
        }
        Ok(())
    }

    fn load(&mut self, _: Box<dyn TableSource>, _: u64, _: Option<Vec<u64>>) -> Result<(), String> {
        Err("--resume across MPI processes is not supported yet: run again without --resume".into())
    }

    fn pass(&mut self, _: Step, levels: &Levels, progress: &dyn Progress) -> Result<u64, String> {
        let depth = levels.len() - 1;
        let next = ((depth + 1) % 3) as u8;
        let last = std::mem::take(&mut self.last);
        let mine = last.len().div_ceil(STATES_PER_ROUND) as u64;
        let mut rounds = 0;
        self.world
            .all_reduce_into(&mine, &mut rounds, SystemOperation::max());
        let (mut new, mut bytes, mut ranks) = (Vec::new(), 0, 0);
        for r in 0..rounds as usize {
            let start = (r * STATES_PER_ROUND).min(last.len());
            let end = ((r + 1) * STATES_PER_ROUND).min(last.len());
            let (found, b, n) = self.round(&last[start..end], next);
            progress.found(found.len() as u64);
            new.extend(found);
            (bytes, ranks) = (bytes + b, ranks + n);
        }
        new.par_sort_unstable();
        let [count, bytes, ranks] = self.sum([new.len() as u64, bytes, ranks]);
        if count > 0 {
            self.exchanged.compressed.push(bytes);
            self.exchanged.ranks.push(ranks);
            self.last = new;
        } else {
            self.last = last;
        }
        Ok(count)
    }

    fn smallest(&mut self, _: u64, limit: usize) -> Result<Vec<u64>, String> {
        let mine = &self.last[..self.last.len().min(limit)];
        let processes = self.bounds.len() - 1;
        let count = mine.len() as i32;
        let mut counts = vec![0i32; processes];
        self.world.all_gather_into(&count, &mut counts[..]);
        // One element beyond: never the same (empty) buffer as `mine`.
        let mut all = vec![0u64; counts.iter().map(|&c| c as usize).sum::<usize>() + 1];
        {
            let displs = displacements(&counts);
            let mut into = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
            self.world.all_gather_varcount_into(mine, &mut into);
        }
        // Slabs are in rank order, so the concatenation is ascending.
        all.truncate(limit.min(all.len() - 1));
        Ok(all)
    }

    fn with_table(
        &mut self,
        _: &mut dyn FnMut(&dyn TableView) -> Result<(), String>,
    ) -> Result<(), String> {
        Err("checkpoints across MPI processes are not supported yet".into())
    }

    /// The whole table on process 0 (its slab gathered from every process); an empty one on
    /// the others.
    fn into_table(self) -> Result<DistanceTable, String> {
        let words: Vec<u64> = (0..self.table.word_count())
            .map(|w| self.table.word(w))
            .collect();
        let root = self.world.process_at_rank(0);
        if self.me != 0 {
            root.gather_varcount_into(&words[..]);
            return Ok(DistanceTable::new(0));
        }
        let counts: Vec<i32> = (self.bounds.windows(2))
            .map(|b| (b[1] - b[0]).div_ceil(ENTRIES_PER_WORD) as i32)
            .collect();
        let mut all = vec![0u64; counts.iter().map(|&c| c as usize).sum()];
        {
            let displs = displacements(&counts);
            let mut into = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
            root.gather_varcount_into_root(&words[..], &mut into);
        }
        Ok(DistanceTable::from_words(self.space.size(), all))
    }
}

/// A search of `space` across the processes of `cluster` (every process calls it): the
/// outcome, with the whole table on process 0 only, and the bytes exchanged per level.
pub fn search<S: StateSpace>(
    space: &S,
    cluster: &Cluster,
    options: &super::Options,
    progress: &dyn Progress,
) -> Result<(super::Outcome, Exchanged), String> {
    let mut engine = ClusterEngine::new(space, cluster);
    let (levels, antipodes) = super::drive(space, &mut engine, options, progress, None, None)?;
    let exchanged = engine.exchanged().clone();
    let table = engine.into_table()?;
    Ok((
        super::Outcome {
            table,
            levels,
            antipodes,
        },
        exchanged,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn slabs_cover_the_table_in_whole_words() {
        for (entries, p) in [(1000, 3), (64, 4), (31, 2), (10_000_019, 7)] {
            let b = slab_bounds(entries, p);
            assert_eq!((b[0], b[p]), (0, entries));
            assert!(b.windows(2).all(|w| w[0] <= w[1]));
            assert!(
                b[..p]
                    .iter()
                    .all(|&x| x % ENTRIES_PER_WORD == 0 || x == entries)
            );
            assert_eq!(
                owner(&b, entries - 1),
                (0..p).rev().find(|&q| b[q] < b[q + 1]).unwrap()
            );
        }
    }
}
