//! What a checkpoint of a search from disk names ([`SlabsState`]).

use super::io::Io;
use crate::search::InPlace;
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
    /// Whether each slab's inbox for the next level has bits (`super::SlabStore` merges its
    /// batches into them); empty in checkpoints saved before there were any.
    #[serde(default)]
    pub merged: Vec<bool>,
    /// The bytes read and written by each step so far ([`super::DiskEngine::steps`]).
    pub steps: Vec<[u64; 2]>,
    /// The bytes read and written so far, and the seconds it took.
    pub io: Io,
}

impl SlabsState {
    /// The engine's record of its slabs, as a checkpoint carries it.
    pub fn in_place(&self) -> InPlace {
        InPlace(serde_json::to_value(self).expect("a slabs' state has a JSON form"))
    }

    /// The slabs' state a checkpoint's record holds.
    pub fn of(state: InPlace) -> Result<SlabsState, String> {
        serde_json::from_value(state.0)
            .map_err(|e| format!("the checkpoint's record of its slabs is not valid: {e}"))
    }
}
