//! The processes of an MPI job and what passes between them: sums and maxima, ranks sent to
//! their owners in sorted, delta-coded, zstd-compressed chunks, questions and one-bit answers,
//! and the rounds a pass is cut into.

use crate::search::Progress;
use crate::search::slab::gaps;
use ::mpi::Threading;
use ::mpi::collective::SystemOperation;
use ::mpi::datatype::{Partition, PartitionMut};
use ::mpi::topology::{Communicator, SimpleCommunicator};
use ::mpi::traits::*;
use rayon::prelude::*;

/// zstd's level for the exchanged chunks: fast, and sorted deltas compress well at any level.
const ZSTD_LEVEL: i32 = 1;

/// The MPI job this process belongs to, where it was started by `mpirun` (or `mpiexec`).
pub struct MpiJob {
    _universe: ::mpi::environment::Universe,
    world: SimpleCommunicator,
    /// This process's number among the job's processes on its machine (those that share its
    /// memory), and how many they are.
    node: (usize, usize),
}

impl MpiJob {
    /// Joins the MPI job where this process was started as one of its processes (Open MPI's
    /// or a PMI launcher's environment says so); `None` for a plain process.
    pub fn join() -> Option<MpiJob> {
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
        Some(MpiJob {
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
    pub(crate) fn exchange<T: Equivalence + Copy + Default>(
        &self,
        outgoing: &[Vec<T>],
    ) -> (Vec<T>, Vec<i32>) {
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
        let ranks_in = per_sender(&received, &counts)
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
        let yes: Vec<Vec<u64>> = (asks.par_iter().zip(per_sender(&answered, &counts)))
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
    pub(crate) fn broadcast_bytes(&self, bytes: Vec<u8>) -> Vec<u8> {
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

/// A job's processes as the disk engine's slabs see them: one table, each process's slabs on
/// its disk.
impl crate::search::disk::Peers for MpiJob {
    fn rank(&self) -> usize {
        MpiJob::rank(self)
    }

    fn size(&self) -> usize {
        MpiJob::size(self)
    }

    fn total(&self, value: u64) -> u64 {
        self.sum([value])[0]
    }

    fn gather(&self, mine: &[u64]) -> Vec<u64> {
        self.gather_all(mine)
    }

    fn swap(&self, outgoing: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        let (received, counts) = self.exchange(&outgoing);
        per_sender(&received, &counts)
            .into_iter()
            .map(<[u8]>::to_vec)
            .collect()
    }
}

// SAFETY: MPI is initialised for serialized calls from any thread, and only the thread that
// runs the level loop calls MPI, one call at a time (the workers of a pass see the table, never
// the communicator).
unsafe impl Sync for MpiJob {}
unsafe impl Send for MpiJob {}

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
pub fn cores_note(rank: usize, allowed: usize, online: usize, here: usize) -> Option<String> {
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
fn per_sender<'a>(received: &'a [u8], counts: &[i32]) -> Vec<&'a [u8]> {
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
pub fn owner(bounds: &[u64], column: u64) -> usize {
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
pub fn encode(mut ranks: Vec<u64>) -> Vec<u8> {
    if ranks.is_empty() {
        return Vec::new();
    }
    ranks.sort_unstable();
    ranks.dedup();
    let mut bytes = Vec::with_capacity(ranks.len() * 2);
    gaps::encode(&ranks, &mut bytes);
    zstd::bulk::compress(&bytes, ZSTD_LEVEL).expect("zstd compresses a buffer in memory")
}

/// The ranks of an [`encode`]d chunk.
pub fn decode(chunk: &[u8]) -> Vec<u64> {
    if chunk.is_empty() {
        return Vec::new();
    }
    let bytes = zstd::stream::decode_all(chunk).expect("a chunk this job's processes encoded");
    let mut ranks = Vec::new();
    let whole = gaps::decode(&bytes, &mut ranks);
    debug_assert!(whole, "a chunk this job's processes encoded");
    ranks
}
