//! What the level loop asks of an engine: the table and the passes over it.
//!
//! The level loop ([`super::drive`]) owns everything a search is besides the table: the level
//! counts, which pass comes next (frontier lists, top-down or bottom-up, sweeps, the last few
//! unreached), progress, checkpoints, resuming and the antipodes. An engine holds the table
//! wherever it lives (host memory, a GPU, slabs on several machines) and carries out one pass at
//! a time as the loop asks. Every engine gives the same table for the same passes.

use super::SearchError;
use super::levels::Levels;
use super::within::Within;
use super::{Checkpoints, Progress, Saving, Step};
use crate::table::{DistanceTable, TableSource, TableView};
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// Why an engine does not weigh a table reduced by symmetry (an MPI process's on a GPU).
pub const NOT_WEIGHED: &str = "an MPI process's GPU does not weigh a table reduced by symmetry: the CPU engines (in memory, in slabs on disk, and MPI processes) and one process's GPU do";

/// What an engine whose table stays where it lies between levels (slabs on disk) saves in a
/// checkpoint in place of the table: its own record of where the table lies, which the level
/// loop and the checkpoint carry without reading it ([`Engine::resume_in_place`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct InPlace(pub serde_json::Value);

/// The kinds of pass an engine carries out besides top-down scans, which every engine runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Passes {
    /// [`Step::Frontier`]: top-down from a list of the last level.
    pub frontier: bool,
    /// [`Step::Sweep`]: block moves in bulk.
    pub sweep: bool,
    /// [`Step::Remaining`]: bottom-up over a list of the unreached.
    pub remaining: bool,
    /// [`Step::BottomUp`]: a scan of the unreached for a neighbour in the last level.
    pub bottom_up: bool,
}

impl Passes {
    /// Every kind of pass.
    pub const ALL: Passes = Passes {
        frontier: true,
        sweep: true,
        remaining: true,
        bottom_up: true,
    };
    /// Top-down and bottom-up scans only (the engines of an MPI job's slabs).
    pub const SCANS: Passes = Passes {
        frontier: false,
        sweep: false,
        remaining: false,
        bottom_up: true,
    };

    /// Whether a pass of kind `step` is among these.
    pub fn runs(self, step: Step) -> bool {
        match step {
            Step::TopDown => true,
            Step::BottomUp => self.bottom_up,
            Step::Frontier => self.frontier,
            Step::Sweep => self.sweep,
            Step::Remaining => self.remaining,
        }
    }
}

/// Carries out passes on a table.
pub trait Engine {
    /// Puts the solved states `starts` (ascending) at level 0 of an empty table; level 0 is then
    /// the frontier list.
    fn start(&mut self, starts: &[u64]) -> Result<(), SearchError>;

    /// Takes over a saved table whose last level is `depth`. `list`: that level's states, where
    /// the loop keeps it as a list; otherwise passes read it from the table (every entry holding
    /// `depth mod 3`, which gives the same table).
    fn load(
        &mut self,
        table: Box<dyn TableSource>,
        depth: u64,
        list: Option<Vec<u64>>,
    ) -> Result<(), SearchError>;

    /// One pass of kind `step` (one of [`Engine::passes`]) from the last of `levels` (level `depth = levels.len() - 1`):
    /// every unreached state with a neighbour in level `depth` is set to level `depth + 1`.
    /// Returns how many were set. A [`Step::Frontier`] pass keeps the new level as a list for
    /// the next one; the other kinds may drop the list.
    fn pass(
        &mut self,
        step: Step,
        levels: &Levels,
        progress: &dyn Progress,
    ) -> Result<u64, SearchError>;

    /// A top-down or bottom-up scan, as [`Engine::pass`], from where `within` says, pausing
    /// there for checkpoints ([`super::within`]). By default the whole scan, without pauses
    /// (such an engine is never handed a scan begun before: `within.from` is 0).
    fn scan(
        &mut self,
        step: Step,
        levels: &Levels,
        progress: &dyn Progress,
        within: Within,
    ) -> Result<u64, SearchError> {
        let _ = within;
        self.pass(step, levels, progress)
    }

    /// Whether [`Engine::scan`] pauses for checkpoints within a scan and goes on from them
    /// (the loop refuses a checkpoint within a level for an engine that does not).
    fn pauses(&self) -> bool {
        false
    }

    /// The kinds of pass this engine carries out; the loop asks for no other.
    fn passes(&self) -> Passes {
        Passes::ALL
    }

    /// Whether the engine has room to find the next level from its list of the last (`listed`
    /// states long), where its own memory decides (the slabs' engine, whose lists take the room
    /// of a slab); `None` (the default): the loop's list limit decides.
    fn lists_next(&self, listed: u64) -> Option<bool> {
        let _ = listed;
        None
    }

    /// Whether the engine lists the `unreached` states for the passes that find the last levels
    /// among them ([`Step::Remaining`]), where its own memory and costs decide (the slabs'
    /// engine); `None` (the default): the loop's rule decides.
    fn lists_remaining(&self, unreached: u64) -> Option<bool> {
        let _ = unreached;
        None
    }

    /// What one unreached entry costs a bottom-up pass, in neighbours a top-down pass expands
    /// (for the switch rule, [`super::prefer_bottom_up`]), in a space of `moves` moves: 2 where
    /// a check costs far less than a claim and stops at the first neighbour found. The loop
    /// weighs a table reduced by symmetry itself.
    fn bottom_up_weight(&self, moves: usize) -> u64 {
        let _ = moves;
        2
    }

    /// Whether, in a space with block moves, a top-down scan that expands `expanded` entries
    /// costs less here than a sweep pass, whose pulls through the block moves cost the same
    /// whatever the frontier (a claim per neighbour against an entry per block move). By
    /// default never: the loop sweeps whenever it can.
    fn scan_costs_less(&self, expanded: u64) -> bool {
        let _ = expanded;
        false
    }

    /// Whether a top-down scan expands every entry holding the last level's value (levels
    /// `d - 3`, `d - 6`, ... too), as the lean footprint does whatever the engine.
    fn expands_older_levels(&self) -> bool {
        false
    }

    /// Takes over the table where [`Engine::save`] left it, as its record `state` says, after
    /// level `depth`, whose smallest ranks are `antipodes`. Only an engine whose checkpoints are
    /// its files can (the slabs on disk).
    fn resume_in_place(
        &mut self,
        state: InPlace,
        depth: u64,
        antipodes: &[u64],
    ) -> Result<(), SearchError> {
        let _ = (state, depth, antipodes);
        Err("the checkpoint's table is in slabs on disk: go on with the memory budget of the run that saved it".into())
    }

    /// Lets go of the last level's list, where the engine holds one in host memory (the loop
    /// asks once a level is longer than it expands as a list); whether it held one. Its
    /// smallest ranks stay, the level's antipodes should no later level be found.
    fn let_go_of_list(&mut self) -> bool {
        false
    }

    /// Whether a checkpoint costs next to nothing here (the table is already where it is
    /// saved): the level loop then saves after every level, and once more when the search is
    /// over.
    fn saves_in_place(&self) -> bool {
        false
    }

    /// Saves the state after the last level found (`levels`, whose last level's smallest ranks
    /// are `antipodes`) in `checkpoints`; `over`: the search is over (no level follows). By
    /// default the whole table as it is now, and nothing once the search is over.
    fn save(
        &mut self,
        checkpoints: &dyn Checkpoints,
        levels: &Levels,
        antipodes: &[u64],
        over: bool,
    ) -> Result<(), SearchError> {
        if over {
            return Ok(());
        }
        self.with_table(&mut |table| checkpoints.save(Saving::Table(table), levels, antipodes))
    }

    /// The smallest `limit` ranks of level `depth`, the last level found (the last pass that
    /// found anything), ascending.
    fn smallest(&mut self, depth: u64, limit: usize) -> Result<Vec<u64>, SearchError>;

    /// For each of `ranges` (of ranks), how many of its entries hold `value`: what the level
    /// loop weighs a table reduced by symmetry with ([`super::weighing`]). The CPU engines weigh
    /// (one process's in memory, an MPI process's slab with the others', and slabs on disk), and
    /// so does one process's GPU; an MPI process's GPU refuses (a run refuses it such a table
    /// first).
    fn count_holding(&mut self, ranges: &[Range<u64>], value: u8) -> Result<Vec<u64>, SearchError> {
        let _ = (ranges, value);
        Err(NOT_WEIGHED.into())
    }

    /// The values of the entries `ranks` ([`Engine::count_holding`]'s companion).
    fn values_at(&mut self, ranks: &[u64]) -> Result<Vec<u8>, SearchError> {
        let _ = ranks;
        Err(NOT_WEIGHED.into())
    }

    /// Calls `f` with the table as it is now (read back where it lives elsewhere).
    fn with_table(
        &mut self,
        f: &mut dyn FnMut(&dyn TableView) -> Result<(), String>,
    ) -> Result<(), SearchError>;

    /// The finished table.
    fn into_table(self) -> Result<DistanceTable, SearchError>;
}
