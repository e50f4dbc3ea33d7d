//! The slabs on disk as the checkpoint: after each level the engine puts its files on the disk
//! and the run's checkpoint names them ([`SlabsState`]), with no copy of the table; a run that
//! goes on takes them up as they were named. Slabs held in host memory save the table instead.

use super::DiskEngine;
use super::state::SlabsState;
use crate::puzzle::StateSpace;
use crate::search::SearchError;
use crate::search::levels::Levels;
use crate::search::{Checkpoints, Saving};

impl<S: StateSpace> DiskEngine<'_, S> {
    /// Saves the state after the last of `levels` in `checkpoints`: the slabs' files as they
    /// are. While the first levels are lists (until the search is `over`, when they are laid
    /// out) and among the last ones (in memory, [`super::Tail`]) nothing is saved: the last
    /// checkpoint stands, and a run that goes on from it finds the last levels again, which
    /// costs less than writing every slab once more.
    pub(super) fn save_slabs(
        &mut self,
        checkpoints: &dyn Checkpoints,
        levels: &Levels,
        antipodes: &[u64],
        over: bool,
    ) -> Result<(), SearchError> {
        if (!over && self.lists.is_some()) || self.tail.is_some() {
            return Ok(());
        }
        if self.store.in_memory() {
            // The table at its last whole level; nothing once the search is over.
            if over {
                return Ok(());
            }
            let view = self.view_at_level()?;
            return Ok(checkpoints.save(Saving::Table(&view), levels, antipodes)?);
        }
        self.lay_out()?;
        self.store.sync()?;
        let named = self.store.named(levels.len())?;
        let state = SlabsState {
            slabs: self.slabs.len(),
            unit: self.unit,
            generations: named.generations,
            found: self.found.clone(),
            inboxes: named.inboxes,
            merged: named.merged,
            steps: self.steps.clone(),
            io: self.store.io,
        };
        checkpoints.save(Saving::InPlace(&state.in_place()), levels, antipodes)?;
        Ok(self.store.commit()?)
    }

    /// Takes up the slabs' files as `state` names them, after level `depth` (whose smallest
    /// ranks are `antipodes`).
    pub(super) fn take_up(
        &mut self,
        state: SlabsState,
        depth: u64,
        antipodes: &[u64],
    ) -> Result<(), String> {
        if self.store.in_memory() {
            return Err("the checkpoint names slabs on disk, and this run keeps its slabs in host memory: go on with the memory budget of the run that saved it".into());
        }
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
        (self.store).resume(&state.generations, &state.inboxes, &state.merged, depth + 1)?;
        self.found = state.found;
        self.steps = state.steps;
        self.store.io = state.io;
        self.smallest = antipodes.iter().copied().take(self.limit).collect();
        self.lists = None;
        self.tail = None;
        self.resumed = true;
        Ok(())
    }
}
