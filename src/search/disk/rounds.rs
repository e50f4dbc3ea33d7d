//! A slab's moves that leave it, in rounds: its states of the last level pushed along them state
//! by state, the neighbours in the slab set at once, the others gathered, sorted by slab and
//! appended to their slabs' inboxes.

use super::{DiskEngine, IO_BYTES};
use crate::puzzle::StateSpace;
use crate::search::bitmap::{Bitmap, mask};
use crate::search::slab::{Slab, gaps};
use crate::table::DistanceTable;
use rayon::prelude::*;
use std::ops::{ControlFlow, Range};

impl<S: StateSpace> DiskEngine<'_, S> {
    /// Pushes the states of `level` at the entries of `tasks` of `slab` along the pushed moves:
    /// their unreached neighbours in the slab join the next level (`next`, `value` in `table`),
    /// the others are appended to the round's buffer. Returns how many joined.
    pub(super) fn push(
        &self,
        slab: &Slab,
        tasks: &[Range<u64>],
        table: &DistanceTable,
        level: &Bitmap,
        next: &Bitmap,
        value: u8,
    ) -> u64 {
        // A task's neighbours elsewhere gather in a buffer its worker keeps from task to task.
        (tasks.par_iter())
            .map_init(Vec::new, |mine: &mut Vec<u64>, task| {
                let mut walker = self.pushed.walker(self.space.cursor());
                let mut here = 0u64;
                mine.clear();
                for w in task.start / 64..=(task.end - 1) / 64 {
                    let lo = (w * 64).max(task.start);
                    let hi = (w * 64 + 64).min(task.end);
                    let mut bits = level.word(w as usize) & mask(lo - w * 64, hi - lo);
                    while bits != 0 {
                        let local = w * 64 + u64::from(bits.trailing_zeros());
                        bits &= bits - 1;
                        let _ = walker.each(slab.global(local), true, |n| {
                            if !slab.contains(n) {
                                mine.push(n);
                            } else if table.claim(slab.local(n), value) {
                                next.insert(slab.local(n));
                                here += 1;
                            }
                            ControlFlow::Continue(())
                        });
                    }
                }
                let mut away = self.round.lock().unwrap_or_else(|e| e.into_inner());
                away.extend_from_slice(mine);
                here
            })
            .sum()
    }

    /// Sends the round's neighbours in other slabs (the engine's round buffer, ranks of level
    /// `depth`) to their slabs' inboxes, each slab's ascending. The buffer is kept from round to
    /// round (no fresh pages for the kernel to zero); each rank is tagged with its slab in the
    /// bits above the ranks', so that one sort orders them by slab, then rank; each slab's are
    /// then coded as gaps in their own memory, batch by batch on every worker.
    pub(super) fn send(&mut self, depth: u64) -> Result<(), String> {
        let mut round = std::mem::take(self.round.get_mut().unwrap_or_else(|e| e.into_inner()));
        let shift = self.owner_shift;
        (round.par_iter_mut()).for_each(|r| *r |= (self.owner(*r) as u64) << shift);
        round.par_sort_unstable();
        // Each slab's ranks, untagged, in batches.
        let mut batches: Vec<(u64, &mut [u64])> = Vec::new();
        let mut rest = &mut round[..];
        while let Some(&first) = rest.first() {
            let owner = first >> shift;
            let (mine, after) = rest.split_at_mut(rest.partition_point(|&r| r >> shift == owner));
            batches.extend(mine.chunks_mut(IO_BYTES / 8).map(|b| (owner, b)));
            rest = after;
        }
        let coded: Vec<(u64, u64, usize)> = (batches.par_iter_mut())
            .map(|(owner, ranks)| {
                ranks.iter_mut().for_each(|r| *r &= (1 << shift) - 1);
                (*owner, ranks.len() as u64, gaps::encode_in_place(ranks))
            })
            .collect();
        let mut at = 0;
        while at < coded.len() {
            let owner = coded[at].0;
            let n = coded[at..].iter().take_while(|c| c.0 == owner).count();
            let mine: Vec<(u64, &[u8])> = (coded[at..at + n].iter().zip(&batches[at..at + n]))
                .map(|(&(_, count, len), (_, ranks))| {
                    (count, &bytemuck::cast_slice::<u64, u8>(ranks)[..len])
                })
                .collect();
            let owner = owner as usize;
            if self.files.send(owner, depth, &mine)? {
                let slab = &self.slabs[owner];
                self.files.merge(owner, depth, &|r| slab.local(r))?;
            }
            at += n;
        }
        drop(batches);
        round.clear();
        *self.round.get_mut().unwrap_or_else(|e| e.into_inner()) = round;
        Ok(())
    }
}
