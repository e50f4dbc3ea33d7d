//! The slabs on disk as the checkpoint: after each level the engine puts its files on the disk
//! and the run's checkpoint names them ([`SlabsState`]), with no copy of the table; a run that
//! goes on takes them up as they were named.

use super::DiskEngine;
use crate::puzzle::StateSpace;
use crate::search::levels::Levels;
use crate::search::{Checkpoints, Saving};
use serde::{Deserialize, Serialize};

/// What a checkpoint of a search from disk holds besides the levels and the antipodes: which
/// of the slabs' files hold the table after the level, and what the engine counted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SlabsState {
    /// How many slabs the table is cut into.
    pub slabs: usize,
    /// The columns the cuts are multiples of.
    pub unit: u64,
    /// Each slab's generation of files (0 or 1) that holds it.
    pub generations: Vec<u8>,
    /// The states of the next level each slab found in itself.
    pub found: Vec<u64>,
    /// The ranks and the bytes of each slab's inbox for the next level.
    pub inboxes: Vec<[u64; 2]>,
    /// The bytes read and written by each step so far ([`DiskEngine::steps`]).
    pub steps: Vec<[u64; 2]>,
    /// The bytes read and written so far, and the seconds it took.
    pub io: (u64, u64, f64),
}

impl<S: StateSpace> DiskEngine<'_, S> {
    /// Saves the state after the last of `levels` in `checkpoints`: the slabs' files as they
    /// are. While the first levels are lists, and among the last ones (in memory), nothing is
    /// saved: the last checkpoint stands until the search is `over`, when the levels found in
    /// memory are written into the slabs first.
    pub(super) fn save_slabs(
        &mut self,
        checkpoints: &dyn Checkpoints,
        levels: &Levels,
        antipodes: &[u64],
        over: bool,
    ) -> Result<(), String> {
        if !over && (self.lists.is_some() || self.tail.is_some()) {
            return Ok(());
        }
        self.lay_out()?;
        self.write_tail()?;
        self.files.sync()?;
        let (generations, inboxes) = self.files.holding(levels.len());
        let io = self.files.io;
        let state = SlabsState {
            slabs: self.slabs.len(),
            unit: self.unit,
            generations,
            found: self.found.clone(),
            inboxes,
            steps: self.steps.clone(),
            io: (io.read, io.written, io.seconds),
        };
        checkpoints.save(Saving::Slabs(&state), levels, antipodes)?;
        self.files.commit()
    }

    /// Takes up the slabs' files as `state` names them, after level `depth` (whose smallest
    /// ranks are `antipodes`).
    pub(super) fn take_up(
        &mut self,
        state: SlabsState,
        depth: u64,
        antipodes: &[u64],
    ) -> Result<(), String> {
        let n = self.slabs.len();
        if (state.slabs, state.unit) != (n, self.unit)
            || [
                state.generations.len(),
                state.found.len(),
                state.inboxes.len(),
            ] != [n; 3]
        {
            return Err(format!(
                "the checkpoint's table is in {} slabs and this run plans {n}: go on with the memory budget of the run that saved it",
                state.slabs
            ));
        }
        let entries: Vec<u64> = self.slabs.iter().map(|s| s.entries()).collect();
        (self.files).resume(&state.generations, &state.inboxes, depth + 1, &entries)?;
        self.found = state.found;
        self.steps = state.steps;
        let (read, written, seconds) = state.io;
        self.files.io = super::Io {
            read,
            written,
            seconds,
        };
        self.smallest = antipodes.iter().copied().take(self.limit).collect();
        self.lists = None;
        self.tail = None;
        Ok(())
    }
}
