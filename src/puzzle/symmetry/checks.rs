//! Checks of a reduced space as it is made: that its moves take a block's positions to one
//! landing, and carry rests as its family says ([`Reduced::new`] runs them).

use super::Reduced;
use crate::puzzle::{Cursor, StateSpace};

/// Blocks whose moves [`Reduced::check_landings`] (on pairs of their positions) and
/// [`Reduced::check_carries`] check.
const CHECKED_PAIRS: u64 = 64;

impl Reduced {
    /// Whether each move takes the positions of a block to one landing ([`Landing`]), as the
    /// cursor assumes: on pairs of positions of a spread of blocks (the lib tests check every
    /// position). Nothing to check where entries are not numbered by landings.
    pub(super) fn check_landings(&self) -> Result<(), String> {
        let size = self.classes.size();
        let mut state = self.base.state(self.base.solved());
        if self.classes.landing(&state).is_none() {
            return Ok(());
        }
        let (mut other, mut image, mut next) = (state.clone(), state.clone(), state.clone());
        for i in 0..CHECKED_PAIRS.min(size) {
            let entry = i * (size / CHECKED_PAIRS.min(size));
            let block = self.classes.block(entry);
            for step in [1, 7, 5_040] {
                let twin = entry + step;
                if twin >= size || self.classes.block(twin) != block {
                    continue;
                }
                self.position(entry, &mut state, &mut image);
                self.position(twin, &mut other, &mut image);
                for mv in 0..self.base.move_count() {
                    self.base.move_state(&state, mv, &mut next);
                    let landing = self.classes.landing(&next);
                    self.base.move_state(&other, mv, &mut next);
                    if landing != self.classes.landing(&next) {
                        return Err(format!(
                            "its moves do not take the positions of a block of its class coordinate to one block (move {mv} from {state:?} and {other:?})"
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether moves carry rests as the family says ([`Symmetry::moves_carry_rests`]): on
    /// entries spread through a spread of blocks, each move's carried route (worked out here
    /// from the block's first entry; in a pass, from the first entry met) gives what moving the
    /// position gives (debug builds check every neighbour).
    pub(super) fn check_carries(&self) -> Result<(), String> {
        if !self.carries {
            return Ok(());
        }
        let size = self.classes.size();
        let blocks = CHECKED_PAIRS.min(size);
        let mut cursor = self.cursor();
        for i in 0..blocks {
            let entries = self
                .classes
                .entries_of(self.classes.block(i * (size / blocks)));
            let last = entries.end - entries.start - 1;
            for mv in 0..self.base.move_count() {
                for at in [0, last / 3, last * 2 / 3, last] {
                    cursor.seek(entries.start + at);
                    let carried = cursor.neighbour(mv);
                    if cursor.unused.is_none() && carried != cursor.moved(mv, None) {
                        return Err(format!(
                            "its move {mv} does not carry the rests of a block by one map (entry {})",
                            entries.start + at
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}
