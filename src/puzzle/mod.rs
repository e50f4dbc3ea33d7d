//! Puzzles as state spaces: a dense rank for every position, and the moves between ranks.
//!
//! The level loop in [`crate::search`] only ever sees a [`StateSpace`]: how many ranks there are,
//! which rank is solved, and a [`Cursor`] that walks ranks and names their neighbours. Everything a
//! rank *means* lives here.

pub mod turnstyle;

use serde::{Deserialize, Serialize};
pub use turnstyle::{Metric, Turnstyle};

/// What a state space is, as written into reports and distance-file headers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PuzzleInfo {
    /// The puzzle family (`turnstyle`).
    pub puzzle: String,
    /// The family's size parameters, e.g. `{"n": 12}`.
    pub params: serde_json::Map<String, serde_json::Value>,
    /// The metric (which moves count).
    pub metric: String,
    /// Move names, in move-number order.
    pub moves: Vec<String>,
    /// How ranks map to positions.
    pub rank_order: String,
}

/// A puzzle's positions, densely ranked `0..size()`, with moves between them.
///
/// The move graph must be undirected (every move's inverse is a move), which the bottom-up level
/// step relies on.
pub trait StateSpace: Sync {
    /// The walker over ranks handed to each worker.
    type Cursor<'a>: Cursor
    where
        Self: 'a;

    /// Number of table entries (ranks). Some ranks may be unreachable.
    fn size(&self) -> u64;
    /// The names of the moves, in the order [`Cursor::neighbour`] numbers them.
    fn move_names(&self) -> Vec<String>;
    /// The number of moves, without building their names.
    fn move_count(&self) -> usize {
        self.move_names().len()
    }
    /// The rank of the solved position, where the search starts.
    fn solved(&self) -> u64;
    /// A fresh cursor; call [`Cursor::seek`] before anything else.
    fn cursor(&self) -> Self::Cursor<'_>;
    /// The position with this rank, as the 1-based piece labels by position.
    fn state(&self, rank: u64) -> Vec<u32>;
    /// The rank of a position given as 1-based piece labels by position, or why it has none.
    fn rank(&self, state: &[u32]) -> Result<u64, String>;
    /// The description that goes into reports and file headers.
    fn info(&self) -> PuzzleInfo;

    /// Ranks come in groups of this many consecutive ranks (at most 16), starting at rank 0,
    /// which the *local* moves `0..first_far_move()` permute among themselves. The level loop
    /// applies local moves to a whole group at once with bit operations.
    fn group_size(&self) -> usize {
        1
    }

    /// Moves numbered below this are local (see [`StateSpace::group_size`]).
    fn first_far_move(&self) -> usize {
        0
    }

    /// The offsets within a group one local move away from the offsets in `mask`, where group
    /// offset `k` is bit `2k` (the low bit of its 2-bit table entry).
    fn local_step(&self, mask: u32) -> u32 {
        let _ = mask;
        0
    }

    /// The WGSL that gives the GPU backend this space's ranks and moves: a constant `MOVES`,
    /// `fn load_state(rank: u64)` and `fn neighbour(m: u32) -> u64` (the rank after move `m`
    /// from the loaded state, numbered like [`Cursor::neighbour`] or not: only the set of
    /// neighbours matters). `None` where the space has no shader.
    fn gpu_source(&self) -> Option<String> {
        None
    }
}

/// Walks ranks in any order and names each rank's neighbours.
///
/// Walking ranks in increasing order is cheap (amortised O(1) per step); jumping is allowed.
pub trait Cursor {
    /// Moves the cursor to `rank`.
    fn seek(&mut self, rank: u64);
    /// The rank reached from the cursor's rank by move `mv`.
    fn neighbour(&mut self, mv: usize) -> u64;
}
