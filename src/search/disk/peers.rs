//! A table on disk shared by the processes of an MPI job ([`Peers`]): each process owns a run of
//! the slabs, on its own disk; a pass sends the neighbours it finds in another process's slabs to
//! that process at its end ([`DiskEngine::ship`]), where they join the slabs' inboxes as if
//! found there, and the job's level is the sum of the processes' counts.

use super::{DiskEngine, IO_BYTES};
use crate::puzzle::StateSpace;
use crate::search::SearchError;
use std::fs::File;
use std::ops::Range;
use std::os::unix::fs::FileExt;

/// The other processes of a job whose table is cut into slabs on their disks, as the disk
/// engine needs them: every call is collective (every process makes it, in the same order).
pub trait Peers: Sync {
    /// This process's number, 0 to `size - 1`.
    fn rank(&self) -> usize;

    /// How many processes the job has.
    fn size(&self) -> usize;

    /// `value` summed over the processes.
    fn total(&self, value: u64) -> u64;

    /// Every process's `mine`, in process order.
    fn gather(&self, mine: &[u64]) -> Vec<u64>;

    /// Sends `outgoing[q]` to each process `q`: what each process sent this one, in process
    /// order.
    fn swap(&self, outgoing: Vec<Vec<u8>>) -> Vec<Vec<u8>>;
}

/// Bytes of batches a process sends each other process in one exchange at the end of a pass
/// (a piece beyond it at most).
pub const SHIP_BYTES: usize = 16 << 20;

/// The slabs process `process` of `processes` owns, of `slabs`: a run of them, as even as the
/// count allows.
pub fn owned(slabs: usize, process: usize, processes: usize) -> Range<usize> {
    slabs * process / processes..slabs * (process + 1) / processes
}

/// A slab's inbox batches in its spool file, sent a piece at a time.
struct Spool {
    slab: usize,
    file: File,
    len: u64,
    at: u64,
}

impl<'s, S: StateSpace> DiskEngine<'s, S> {
    /// This engine as one process of a job of `peers`: it searches its own run of the slabs
    /// ([`owned`]), in its folder, and sends the others the neighbours it finds in theirs.
    pub fn across(mut self, peers: &'s dyn Peers) -> Self {
        self.peers = Some(peers);
        self.store.own = self.mine();
        self
    }

    /// The first column of each process's slabs, and the end.
    pub fn process_bounds(&self) -> Vec<u64> {
        let processes = self.peers.map_or(1, |p| p.size());
        let width = self.slabs[0].width;
        (0..processes)
            .map(|q| owned(self.slabs.len(), q, processes))
            .map(|run| self.slabs.get(run.start).map_or(width, |s| s.first))
            .chain([width])
            .collect()
    }

    /// The slabs this process owns: all of them, alone.
    pub(super) fn mine(&self) -> Range<usize> {
        match self.peers {
            Some(peers) => owned(self.slabs.len(), peers.rank(), peers.size()),
            None => 0..self.slabs.len(),
        }
    }

    /// The process that owns slab `i`.
    fn owner(&self, i: usize) -> usize {
        let (n, p) = (self.slabs.len(), self.peers.map_or(1, |p| p.size()));
        // The last process whose run starts at or before `i`.
        (0..p).rev().find(|&q| n * q / p <= i).unwrap_or(0)
    }

    /// `count` summed over the job's processes (itself, alone).
    pub(super) fn job_total(&self, count: u64) -> u64 {
        self.peers.map_or(count, |p| p.total(count))
    }

    /// The job's smallest ranks of a level, of each process's `smallest` (itself, alone).
    pub(super) fn job_smallest(&self, smallest: Vec<u64>) -> Vec<u64> {
        let Some(peers) = self.peers else {
            return smallest;
        };
        let mut all = peers.gather(&smallest);
        all.sort_unstable();
        all.truncate(self.limit);
        all
    }

    /// The job's `remaining` ranks (each process's ascending), ascending (itself, alone).
    pub(super) fn job_ranks(&self, remaining: Vec<u64>) -> Vec<u64> {
        match self.peers {
            Some(peers) => peers.gather(&remaining),
            None => remaining,
        }
    }

    /// Sends the batches this process's pass appended to other processes' slabs' inboxes for
    /// level `depth` (kept in its folder meanwhile) to their owners, [`SHIP_BYTES`] at most to
    /// each in one exchange, until no process has any left; the batches it receives join its
    /// slabs' inboxes. Alone, nothing moves.
    pub(super) fn ship(&mut self, depth: u64) -> Result<(), SearchError> {
        let Some(peers) = self.peers else {
            return Ok(());
        };
        let parity = (depth % 2) as usize;
        let mine = self.mine();
        let mut spools = Vec::new();
        for slab in (0..self.slabs.len()).filter(|i| !mine.contains(i)) {
            let len = self.store.inbox_bytes[slab][parity];
            if len > 0 {
                let path = self.store.inbox(slab, depth % 2);
                let file = File::open(&path)
                    .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                spools.push(Spool {
                    slab,
                    file,
                    len,
                    at: 0,
                });
            }
        }
        loop {
            let mut outgoing = vec![Vec::new(); peers.size()];
            let mut more = false;
            for spool in spools.iter_mut().filter(|s| s.at < s.len) {
                let to = self.owner(spool.slab);
                if outgoing[to].len() >= SHIP_BYTES {
                    more = true;
                    continue;
                }
                let piece = self.store.spooled(spool, SHIP_BYTES)?;
                let out = &mut outgoing[to];
                out.extend((spool.slab as u64).to_le_bytes());
                out.extend((piece.len() as u64).to_le_bytes());
                out.extend(piece);
                more |= spool.at < spool.len;
            }
            let received = peers.swap(outgoing);
            for from in &received {
                let mut rest = &from[..];
                while rest.len() >= 16 {
                    let field = |i: usize| u64::from_le_bytes(rest[i..i + 8].try_into().unwrap());
                    let (slab, len) = (field(0) as usize, field(8) as usize);
                    let batches = &rest[16..16 + len];
                    if !mine.contains(&slab) {
                        return Err(
                            format!("batches for slab {slab} came to the wrong process").into()
                        );
                    }
                    if self.store.append(slab, depth, batches)? {
                        let s = &self.slabs[slab];
                        self.store.merge(slab, depth, &|r| s.local(r))?;
                    }
                    rest = &rest[16 + len..];
                }
            }
            if peers.total(u64::from(more)) == 0 {
                break;
            }
        }
        for spool in spools {
            self.store.drop_spool(spool.slab, depth)?;
        }
        Ok(())
    }
}

impl super::store::SlabStore {
    /// The next whole batches of `spool`, at most `most` bytes of them (at least one batch).
    fn spooled(&mut self, spool: &mut Spool, most: usize) -> Result<Vec<u8>, String> {
        let fail = |e: std::io::Error| format!("cannot read slab {}'s batches: {e}", spool.slab);
        let n = ((spool.len - spool.at) as usize).min(most.max(2 * IO_BYTES));
        let mut piece = vec![0u8; n];
        spool
            .file
            .read_exact_at(&mut piece, spool.at)
            .map_err(fail)?;
        // Whole batches only: each its count and its length, then its bytes.
        let mut whole = 0;
        while piece.len() - whole >= 16 {
            let len = u64::from_le_bytes(piece[whole + 8..whole + 16].try_into().unwrap());
            if whole + 16 + len as usize > piece.len() {
                break;
            }
            whole += 16 + len as usize;
        }
        if whole == 0 {
            return Err(format!("slab {}'s batches are damaged", spool.slab));
        }
        piece.truncate(whole);
        spool.at += whole as u64;
        self.io.read += whole as u64;
        Ok(piece)
    }
}
