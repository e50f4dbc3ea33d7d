//! Breadth-first search over a [`StateSpace`] into a [`DistanceTable`]: the level loop.
//!
//! [`drive`] is the one level loop. It turns level `d` into level `d + 1` pass by pass and
//! decides the kind of each pass ([`Step`]):
//! - **frontier list** (top-down from an explicit list of the states at level `d`) while levels
//!   are small: no scan of the table at all, which keeps long thin graphs linear;
//! - **top-down scan** until the unreached states are few compared with the last level, then
//!   **bottom-up scans** (direction-optimising BFS, [`prefer_bottom_up`]);
//! - **sweeps** instead of scans for spaces whose moves mostly act on whole runs of ranks (see
//!   [`crate::puzzle::Structure`]);
//! - **remaining list** once few states are left unreached: only those are checked, bottom-up.
//!
//! It keeps the level counts, progress, checkpoints and resuming, and the antipodes. An
//! [`Engine`] holds the table and carries the passes out: [`cpu::CpuEngine`] here, the GPU
//! engine in [`crate::gpu`].

pub mod bitmap;
mod choice;
#[cfg(feature = "mpi")]
pub mod cluster;
pub mod cpu;
pub mod disk;
pub mod engine;
mod error;
pub mod levels;
mod list;
pub mod segments;
pub mod slab;
pub mod smallest;
pub mod stop;
pub mod sweep;
pub mod weighing;
pub mod within;

use crate::puzzle::{Cursor, StateSpace};
use crate::setting::Setting;
use crate::table::{DistanceTable, TableSource, TableView};
use choice::Choice;
pub use engine::{Engine, InPlace, Passes};
pub use error::SearchError;
use levels::Levels;
use smallest::merge_smallest;
use weighing::Weighing;
use within::PassSaved;

/// How the level loop picks the kind of each pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassPolicy {
    /// Frontier lists while levels are small, then top-down or bottom-up scans by cost.
    Auto,
    /// Frontier lists only.
    Lists,
    /// Top-down scans only.
    TopDown,
    /// Bottom-up scans only.
    BottomUp,
    /// Sweeps only (for spaces with structure; the others scan as `Auto` does).
    Sweep,
}

/// The kind of one pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Top-down from an explicit list of the frontier.
    Frontier,
    /// Top-down over a scan of the whole table.
    TopDown,
    /// Bottom-up over a scan of the whole table.
    BottomUp,
    /// Bottom-up over a list of the states still unreached.
    Remaining,
    /// Block moves pulled in bulk, the rest state by state.
    Sweep,
}

impl Step {
    /// A short name for progress lines.
    pub fn name(self) -> &'static str {
        match self {
            Step::Frontier => "frontier",
            Step::TopDown => "top-down",
            Step::BottomUp => "bottom-up",
            Step::Remaining => "remaining",
            Step::Sweep => "sweep",
        }
    }
}

/// How much memory a search may use beyond its table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Footprint {
    /// The fastest: bitmaps of the last and the next level (sweeps) or of the unseen entries
    /// (top-down scans), one bit per entry each, and frontier lists up to 1/512 of the entries.
    Full,
    /// The leanest: nothing the size of the table besides the table. Passes read the last level
    /// from the table's values (entries holding `d mod 3`, which also holds levels `d - 3`,
    /// `d - 6`, ...: more work, the same result), and frontier lists stay within
    /// [`LEAN_LIST_SHARE`] of the table's bytes.
    Lean,
}

/// Under [`Footprint::Lean`], frontier lists (the list, its successor and its copy) take at most
/// this share of the table's bytes.
pub const LEAN_LIST_SHARE: f64 = 0.03;

/// Search settings.
#[derive(Clone, Debug)]
pub struct Options {
    /// How many antipodes to keep (the smallest ranks of the last level).
    pub antipode_limit: usize,
    /// How passes are chosen.
    pub policy: PassPolicy,
    /// What the search may keep beside the table.
    pub footprint: Footprint,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            antipode_limit: 100,
            policy: PassPolicy::Auto,
            footprint: Footprint::Full,
        }
    }
}

/// The largest level kept as a frontier list, in a space of `size` entries with `moves` moves.
pub fn list_limit(size: u64, moves: usize, footprint: Footprint) -> u64 {
    match footprint {
        Footprint::Full => (size / LIST_FRACTION).max(MIN_LIST),
        Footprint::Lean => {
            // A list of L ranks and its successor (at most L * moves), built in parts and then
            // joined: 8 bytes a rank, (1 + 2 * moves) * L ranks at once.
            let share = DistanceTable::bytes_for(size) as f64 * LEAN_LIST_SHARE;
            ((share / (8.0 * (1 + 2 * moves) as f64)) as u64).max(MIN_LIST)
        }
    }
}

/// Receives progress while the search runs.
pub trait Progress: Sync {
    /// `states` more states were found in the current pass.
    fn found(&self, states: u64);
    /// Level `depth` is complete with `count` states (table entries); `positions`: the
    /// positions they stand for, in a table whose entries stand for several each (reduced by
    /// symmetry).
    fn level(&self, depth: u64, count: u64, positions: Option<u64>, step: Step);
}

/// Progress that goes nowhere.
pub struct Silent;

impl Progress for Silent {
    fn found(&self, _: u64) {}
    fn level(&self, _: u64, _: u64, _: Option<u64>, _: Step) {}
}

/// What a search found.
pub struct Outcome {
    /// The distance table.
    pub table: DistanceTable,
    /// The number of states at each distance.
    pub levels: Levels,
    /// The smallest ranks of the last level, ascending, at most `antipode_limit` of them.
    pub antipodes: Vec<u64>,
}

impl Outcome {
    /// Number of reachable states.
    pub fn reachable(&self) -> u64 {
        self.levels.total()
    }

    /// The largest distance (God's number).
    pub fn diameter(&self) -> u64 {
        self.levels.len() - 1
    }
}

/// Frontier lists are kept while a level has at most this many states per table entry (and at
/// least `MIN_LIST` states are always allowed).
const LIST_FRACTION: u64 = 512;
const MIN_LIST: u64 = 4096;
/// Frontier lists this short are thin levels (a long thin graph: the Chinese rings): the loop
/// checks for checkpoints only every `THIN_CHECK` states there, and engines expand them
/// without their parallel machinery.
pub const TINY_LEVEL: usize = 64;
/// States found in thin levels between two looks at the checkpoint clock.
const THIN_CHECK: u64 = 1 << 16;

/// Whether `rank`'s only predecessor is itself, through `cursor` pulling along `moves`
/// ([`StateSpace::moves_for`]): no pass reaches such an entry but from the start (in a table
/// reduced by symmetry, an entry that holds no class), so the lists of the unreached leave it
/// out.
pub fn isolated<C: Cursor>(cursor: &mut C, rank: u64, moves: std::ops::Range<usize>) -> bool {
    cursor.seek(rank);
    moves.into_iter().all(|mv| cursor.neighbour(mv) == rank)
}

/// The switch to bottom-up passes (for good: the unreached only get fewer): when the unreached
/// entries, each costing `weight` (the engine's [`Engine::bottom_up_weight`], or in a table
/// reduced by symmetry the moves: a check costs what an expansion does there), are few compared
/// with the `expanded` entries a top-down pass would expand with all `moves` moves
/// (direction-optimising BFS).
pub fn prefer_bottom_up(unreached: u64, expanded: u64, moves: usize, weight: u64) -> bool {
    weight * unreached < expanded * (moves as u64 + 1)
}

/// A search's state after a complete level: enough to go on from there. The level's states are
/// the entries holding its distance mod 3 that no earlier pass could reach; passes after a
/// resume treat all entries holding that value as the last level, which gives the same table.
pub struct Resume {
    /// The table after the level.
    pub table: Saved,
    /// The counts up to that level.
    pub levels: Levels,
    /// The smallest ranks of that level (the antipodes, should no level follow).
    pub antipodes: Vec<u64>,
    /// The scan that finds the next level, where it was saved part way.
    pub pass: Option<PassSaved>,
}

/// The table of a saved state, as it was saved.
pub enum Saved {
    /// The table itself (the host's, or a checkpoint read chunk by chunk).
    Table(Box<dyn TableSource>),
    /// Where the engine that saved it left it (slabs on disk), as its record says.
    InPlace(InPlace),
}

/// The table of a state being saved ([`Checkpoints::save`]).
pub enum Saving<'a> {
    /// The table, read where it lies.
    Table(&'a dyn TableView),
    /// Where the engine left it (slabs on disk), committed as this record says (the checkpoint
    /// is this record).
    InPlace(&'a InPlace),
}

/// Where a run saves its state after levels, so that it can go on after an interruption.
pub trait Checkpoints: Sync {
    /// Whether to save after the level about to be found (an engine whose checkpoints cost
    /// nothing, [`Engine::saves_in_place`], saves after every level whatever this says).
    fn due(&self) -> bool;
    /// Saves the state after a level: the table, the counts and the level's smallest ranks.
    fn save(&self, table: Saving, levels: &Levels, antipodes: &[u64]) -> Result<(), String>;
    /// Saves the state within the scan that finds the level after `levels` (the last of which
    /// has the smallest ranks `antipodes`), as far as `pass` says ([`within`]). Checkpoints
    /// kept only at the ends of levels ignore it (the default).
    fn save_within(
        &self,
        table: Saving,
        levels: &Levels,
        antipodes: &[u64],
        pass: &PassSaved,
    ) -> Result<(), String> {
        let _ = (table, levels, antipodes, pass);
        Ok(())
    }
}

/// The level loop, the one entry point of every search: searches `space` on `engine` (the
/// CPU's, a GPU's, an MPI job's slab) level by level until a pass finds nothing, from its solved
/// states or from `resume` (which yields the same table as an uninterrupted search), saving
/// checkpoints where `checkpoints` asks. Returns the level counts and the antipodes (the
/// smallest ranks of the last level); the table stays in the engine. Fails where the engine or
/// a checkpoint does, or with [`SearchError::Interrupted`] where a stop was asked for
/// ([`stop`]), which it looks for before each level.
pub fn drive<S: StateSpace, E: Engine>(
    space: &S,
    engine: &mut E,
    options: &Options,
    progress: &dyn Progress,
    checkpoints: Option<&dyn Checkpoints>,
    resume: Option<Resume>,
) -> Result<(Levels, Vec<u64>), SearchError> {
    let size = space.size();
    let limit = options.antipode_limit;
    let weights = space.weights();
    // Entries that hold no class are never reached: the unreached are counted without them.
    let empty = weights.as_ref().map_or(0, |w| w.empty);
    let mut weighing = Weighing::of(weights);
    let mut choice = Choice::new(space, engine.passes(), options, weighing.is_some());
    let (list_limit, passes) = (choice.list_limit, choice.passes);
    let Begun {
        mut levels,
        mut listed,
        mut antipodes,
        mut carried,
    } = begin(
        space,
        engine,
        progress,
        &mut weighing,
        resume,
        (list_limit, choice.swept),
    )?;
    // Checkpoints that cost nothing are saved after every level, and once the search is over.
    let in_place = engine.saves_in_place();
    let mut reached = levels.total();
    // States found in thin levels since the checkpoint clock was last read.
    let mut thin_found = 0u64;
    loop {
        // Between levels the table is whole: a stop asked for ends the search here.
        if stop::asked() {
            return Err(SearchError::Interrupted);
        }
        let depth = levels.len() - 1;
        let unreached = size - empty - reached;
        let step = choice.next(engine, &levels, listed, carried.as_ref(), unreached);
        debug_assert!(passes.runs(step), "{step:?} is not among {passes:?}");
        let (count, carried_smallest) = match step {
            Step::TopDown | Step::BottomUp => {
                let start = carried.take().unwrap_or_else(|| PassSaved {
                    bottom_up: step == Step::BottomUp,
                    words: 0,
                    found: 0,
                    smallest: Vec::new(),
                    held: Vec::new(),
                    special: Vec::new(),
                });
                let (w, last) = (weighing.as_ref(), antipodes.as_ref());
                let new = within::scan(
                    engine,
                    step,
                    &levels,
                    progress,
                    checkpoints,
                    w,
                    last,
                    &start,
                    limit,
                )?;
                let smallest = (start.found > 0).then_some(start.smallest);
                (start.found + new, smallest.map(|s| (s, new)))
            }
            _ => (engine.pass(step, &levels, progress)?, None),
        };
        if count == 0 {
            break;
        }
        let positions = match &mut weighing {
            Some(w) => Some(w.level(engine, depth + 1, count)?),
            None => None,
        };
        progress.level(depth + 1, count, positions, step);
        match positions {
            Some(positions) => levels.push_weighed(count, positions),
            None => levels.push(count),
        }
        reached += count;
        listed = (step == Step::Frontier).then_some(count);
        // A list longer than the loop expands as one goes now: no such list is held beside the
        // bitmaps the next pass makes (the plan counts one of at most `list_limit` ranks), which
        // reads the level from the table instead.
        let long = |n: u64| n > list_limit && n > TINY_LEVEL as u64;
        if listed.is_some_and(long) && engine.let_go_of_list() {
            listed = None;
        }
        // A scan gone on from part way: its smallest ranks with those saved.
        antipodes = match carried_smallest {
            Some((saved, 0)) => Some(saved),
            Some((saved, _)) => Some(merge_smallest(
                saved,
                engine.smallest(depth + 1, limit)?,
                limit,
            )),
            None => None,
        };
        let thin = step == Step::Frontier && count <= TINY_LEVEL as u64;
        thin_found = if thin { thin_found + count } else { 0 };
        if thin && thin_found < THIN_CHECK {
            continue;
        }
        thin_found = 0;
        if let Some(c) = checkpoints.filter(|c| in_place || c.due()) {
            let smallest = match &antipodes {
                Some(a) => a.clone(),
                None => engine.smallest(depth + 1, limit)?,
            };
            engine.save(c, &levels, &smallest, false)?;
        }
    }
    let antipodes = match antipodes {
        Some(a) => a,
        None => engine.smallest(levels.len() - 1, limit)?,
    };
    if let Some(c) = checkpoints.filter(|_| in_place) {
        engine.save(c, &levels, &antipodes, true)?;
    }
    Ok((levels, antipodes))
}

/// Where the level loop begins: the levels found, the length of the last one's list where the
/// engine holds one (`listed`), its smallest ranks where found before this run (`antipodes`),
/// and the scan that finds the next level as saved part way before this run (`carried`).
struct Begun {
    levels: Levels,
    listed: Option<u64>,
    antipodes: Option<Vec<u64>>,
    carried: Option<PassSaved>,
}

/// Puts the search's start on `engine`: the solved states at level 0, or the table `resume`
/// saved, kept as a list where its last level is one the loop expands as a list (at most
/// `list_limit` entries, and no sweep `swept` every pass), weighed where `weighing` is.
fn begin<S: StateSpace, E: Engine>(
    space: &S,
    engine: &mut E,
    progress: &dyn Progress,
    weighing: &mut Option<Weighing>,
    resume: Option<Resume>,
    (list_limit, swept): (u64, bool),
) -> Result<Begun, SearchError> {
    Ok(match resume {
        None => {
            let starts = space.starts();
            engine.start(&starts)?;
            let first = starts.len() as u64;
            progress.found(first);
            let mut levels = Levels::new();
            let positions = weighing.as_mut().map(|w| w.start(&starts));
            progress.level(0, first, positions, Step::Frontier);
            match positions {
                Some(positions) => levels.push_weighed(first, positions),
                None => levels.push(first),
            }
            Begun {
                levels,
                listed: Some(first),
                antipodes: None,
                carried: None,
            }
        }
        Some(r) => {
            if r.pass.is_some() && !engine.pauses() {
                // Other engines keep what the last pass set as its frontier (the GPU's seen
                // bits, the slabs' next level), not entries a CPU scan set before it stopped.
                return Err(format!(
                    "the checkpoint was saved part way through level {}'s scan by the CPU engine, which alone can go on from there: go on with {} and a {} that holds the table",
                    r.levels.len(),
                    Setting::Backend.to("cpu"),
                    Setting::Memory
                )
                .into());
            }
            progress.found(r.levels.total() + r.pass.as_ref().map_or(0, |p| p.found));
            let depth = r.levels.len() - 1;
            let holding = r.levels.sum_mod3(depth % 3);
            let (listed, list) = if r.pass.is_some() {
                // The scan goes on: no list.
                (None, None)
            } else if r.levels.last() <= r.antipodes.len() as u64 {
                // A level of a few states is all in its smallest ranks: exactly the list (a
                // long thin graph goes on in tiny levels, not in scans).
                (Some(r.levels.last()), Some(r.antipodes.clone()))
            } else if holding <= list_limit && !swept {
                // Listed from the table: every entry holding the level's value.
                (Some(holding), None)
            } else {
                (None, None)
            };
            match r.table {
                Saved::Table(table) => engine.load(table, depth, list)?,
                Saved::InPlace(state) => engine.resume_in_place(state, depth, &r.antipodes)?,
            }
            if let Some(w) = weighing {
                w.take_from(engine)?;
                if let Some(p) = &r.pass {
                    w.restore(&p.held, &p.special)?;
                }
            }
            Begun {
                levels: r.levels,
                listed,
                antipodes: Some(r.antipodes),
                carried: r.pass,
            }
        }
    })
}
