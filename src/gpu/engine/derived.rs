//! The last level where the device holds 2 bits an entry. Without seen bits, the entries holding
//! level d's value `d mod 3` are levels d, d - 3, d - 6, ... together; the smallest ranks of level
//! d (the antipodes, and a checkpoint's) come from what the engine knows of the level:
//!
//! - its frontier list, where the level was listed whole (the first levels);
//! - the remaining list, where the last levels lie: every entry set after the list was made
//!   carries the tag of its level (`shaders/bfs.wgsl`, `remaining_list`);
//! - otherwise, by descent on the host's copy of the table (the plan keeps one with 2 bits on the
//!   device): an entry of level k > 0 has a neighbour in level k - 1, the only neighbour holding
//!   `(k - 1) mod 3` (neighbours lie in levels k - 1 to k + 1), so its path to a start takes k
//!   moves, and an entry holding `d mod 3` lies in level d exactly when its path takes d (in a
//!   directed graph the path is a walk through predecessors, [`crate::puzzle::path`]).

use super::*;
use crate::puzzle::path::path_from;

/// Tells, for each of the ranks (each holding `depth mod 3` in the table), whether it lies in
/// level `depth`, or why it cannot (a directed graph's walk grown too large).
pub type Descent<'g> =
    Box<dyn Fn(&DistanceTable, &[u64], u64) -> Result<Vec<bool>, String> + Sync + 'g>;

/// Ranks checked by descent at a time.
const DESCENT_BATCH: usize = 1 << 14;

/// Tags tell apart this many levels in a row (16 bits, 0 for untagged).
const TAGS: u64 = 0xffff;

/// The tag of the listed entries that join `level` in the remaining passes.
pub(super) fn tag(level: u64) -> u32 {
    (1 + level % TAGS) as u32
}

/// The [`Descent`] of `space`, on every thread: a rank lies in level `depth` where its path
/// to a start ([`path_from`], in a directed graph a walk through predecessors) takes `depth`
/// moves.
pub(super) fn descent<'a, S: StateSpace>(space: &'a S) -> Descent<'a> {
    Box::new(move |table, ranks, depth| {
        (ranks.par_iter())
            .map(|&rank| {
                let path = path_from(space, &mut &*table, rank)?;
                Ok(path.is_some_and(|p| p.len() as u64 == depth))
            })
            .collect()
    })
}

impl GpuEngine<'_> {
    /// [`Engine::smallest`] without seen bits: from the level's list, the remaining list's tags,
    /// or by descent.
    pub(super) fn smallest_derived(
        &mut self,
        depth: u64,
        limit: usize,
    ) -> Result<Vec<u64>, String> {
        let capacity = self.layout.list_capacity;
        // Where level d's list is whole: after level d - 1's, or (once a pass found no level
        // after it) in level d - 1's place.
        let lists = &self.listed;
        let listed = match self.listed_level {
            level if level == depth => lists.cur.map(|len| ((lists.rotation + 1) % 3, len)),
            level if level == depth + 1 => lists.prev.map(|len| (lists.rotation, len)),
            _ => None,
        };
        let mut smallest: Vec<u64> = if let Some((slot, len)) = listed {
            self.read_list(u64::from(slot) * capacity, u64::from(len))?
                .into_iter()
                .map(|(rank, _)| rank)
                .collect()
        } else if let Some(len) = self
            .remaining
            .filter(|_| depth > self.remaining_from && depth - self.remaining_from < TAGS)
        {
            let tag = tag(depth);
            self.read_list(2 * capacity, u64::from(len))?
                .into_iter()
                .filter(|&(_, t)| t == tag)
                .map(|(rank, _)| rank)
                .collect()
        } else {
            return self.descend(depth, limit);
        };
        smallest.sort_unstable();
        smallest.truncate(limit);
        Ok(smallest)
    }

    /// `len` ranks of the lists' buffer from rank place `first` on, each with its tag.
    fn read_list(&self, first: u64, len: u64) -> Result<Vec<(u64, u32)>, String> {
        if len == 0 {
            return Ok(Vec::new());
        }
        let back = read_back_buffer(&self.gpu.device, "list read-back", 8 * len);
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&self.lists, 4 + 8 * first, &back, 0, 8 * len);
        self.gpu.queue.submit([encoder.finish()]);
        map_read(&self.gpu.device, &back, |bytes| {
            bytemuck::cast_slice::<u8, u32>(bytes)
                .chunks_exact(2)
                .map(|w| (u64::from(w[0]) | u64::from(w[1] & 0xffff) << 32, w[1] >> 16))
                .collect()
        })
    }

    /// The smallest `limit` ranks of level `depth` by descent on the table read back (kept as
    /// the host's copy for the checkpoint or the file that asks next).
    fn descend(&mut self, depth: u64, limit: usize) -> Result<Vec<u64>, String> {
        let table = self.read_back(None, true)?.0.expect("kept");
        let descent = self.descent.as_ref().expect("a descent without seen bits");
        let value = (depth % 3) as u8;
        let mut found = Vec::new();
        let mut batch = Vec::with_capacity(DESCENT_BATCH);
        let units = table.entries().div_ceil(64) as usize;
        for unit in 0..units {
            let mut bits = table.value_bits(unit, value);
            while bits != 0 {
                batch.push(unit as u64 * 64 + u64::from(bits.trailing_zeros()));
                bits &= bits - 1;
            }
            if batch.len() >= DESCENT_BATCH || unit + 1 == units {
                let levels = descent(&table, &batch, depth)?;
                found.extend(batch.drain(..).zip(levels).filter(|p| p.1).map(|p| p.0));
                if found.len() >= limit {
                    break;
                }
            }
        }
        found.truncate(limit);
        self.read = Some(table);
        Ok(found)
    }
}
