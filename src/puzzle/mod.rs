//! Puzzles as state spaces: a dense rank for every position, and the moves between ranks.
//!
//! The level loop in [`crate::search`] only ever sees a [`StateSpace`]: how many ranks there are,
//! which rank is solved, and a [`Cursor`] that walks ranks and names their neighbours. Everything a
//! rank *means* lives here.

pub mod capability;
pub mod family;
pub mod hanoi;
pub mod key;
pub mod pancake;
pub mod path;
pub mod perm;
pub mod registry;
pub mod ring;
pub mod rings;
pub mod rotation;
pub mod sliding;
pub mod symmetry;
pub mod twisty;

use crate::rank::window::WindowMove;
use crate::table::DistanceTable;
pub use capability::{Blocks, Capabilities, Pages, Tiles, Transposition};
pub use key::Key;
pub use perm::Perm;
pub(crate) use registry::with_space;
pub use registry::{FAMILIES, Space};
pub use ring::{Metric, Ring};
pub use rings::Rings;
use serde::{Deserialize, Serialize};
pub use twisty::Twisty;

/// What a state space is, as written into reports and distance-file headers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PuzzleInfo {
    /// The puzzle family (`turnstyle`, `topspin`, `rotation`, `perm`, `rings`, `key`, `hanoi`,
    /// `sliding`, `pancake`; twisty puzzles from definitions are `perm`).
    pub puzzle: String,
    /// The family's size parameters, e.g. `{"n": 12}`.
    pub params: serde_json::Map<String, serde_json::Value>,
    /// The metric (which moves count).
    pub metric: String,
    /// Move names, in move-number order.
    pub moves: Vec<String>,
    /// How ranks map to positions.
    pub rank_order: String,
    /// The order of the group the moves generate (permutation puzzles; it equals the number of
    /// reachable positions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_order: Option<u64>,
    /// The symmetries the table is reduced by (one entry per class of positions), where it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symmetry: Option<symmetry::SymmetryInfo>,
}

impl PuzzleInfo {
    /// Whether a table of `other` is a table of this puzzle, entry for entry: everything alike
    /// but the path a definition was read from (its text is among the parameters), so that a
    /// run goes on, and `solve` reads its file, wherever the definition has moved to.
    pub fn same_table(&self, other: &PuzzleInfo) -> bool {
        let params = |p: &PuzzleInfo| {
            let mut params = p.params.clone();
            params.remove("definition");
            params
        };
        let without = |p: &PuzzleInfo| PuzzleInfo {
            params: serde_json::Map::new(),
            ..p.clone()
        };
        params(self) == params(other) && without(self) == without(other)
    }

    /// The size parameters to show in summaries and titles, as `(name, value)`: definitions
    /// (lists: moves, sets, a definition's lines) stay in the report.
    pub fn shown_params(&self) -> Vec<(String, String)> {
        (self.params.iter())
            .filter(|(_, v)| !v.is_array())
            .map(|(k, v)| (k.clone(), v.as_str().map_or(v.to_string(), str::to_string)))
            .collect()
    }

    /// The puzzle in a few words, e.g. `turnstyle n=12, metric lrf`.
    pub fn describe(&self) -> String {
        let params: Vec<String> = (self.shown_params().iter())
            .map(|(k, v)| format!(" {k}={v}"))
            .collect();
        let reduced = match &self.symmetry {
            Some(s) => format!(", one entry per class of its {} symmetries", s.order),
            None => String::new(),
        };
        format!(
            "{}{}, metric {}{reduced}",
            self.puzzle,
            params.concat(),
            self.metric
        )
    }
}

/// The way a pass follows the moves: a *push* goes from a state to its successors (the states
/// its moves make), a *pull* from a state to its predecessors (the states whose moves make it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// From a state to the states its moves make: top-down passes, frontier lists.
    Push,
    /// From a state to the states that make it by a move: bottom-up passes, the remaining
    /// list, `solve`'s walk down the table.
    Pull,
}

/// A puzzle's positions, densely ranked `0..size()`, with moves between them.
///
/// The move graph is undirected (every move's inverse is a move, so a push and a pull follow
/// the same moves) unless [`StateSpace::moves_for`] says otherwise: a directed graph
/// (`--directed` generators) numbers its moves and then their inverses, pushes along the first
/// and pulls along the second, and offers no capability (sweeps, slab planes and symmetries
/// pair every move with its inverse).
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
    /// The moves, numbered as [`Cursor::neighbour`] numbers them, that a pass going `way`
    /// follows: every move in an undirected graph. In a directed one a push follows the
    /// generators and a pull their inverses, pull move `pull.start + i` undoing push move
    /// `push.start + i`.
    fn moves_for(&self, way: Way) -> std::ops::Range<usize> {
        let _ = way;
        0..self.move_count()
    }
    /// Whether the moves go one way only ([`StateSpace::moves_for`]): distances then run from
    /// the start to each position, not back.
    fn directed(&self) -> bool {
        self.moves_for(Way::Push) != self.moves_for(Way::Pull)
    }
    /// The rank of the solved position, where the search starts.
    fn solved(&self) -> u64;
    /// Every solved position (distance 0), ascending: most puzzles have one.
    fn starts(&self) -> Vec<u64> {
        vec![self.solved()]
    }
    /// A fresh cursor; call [`Cursor::seek`] before anything else.
    fn cursor(&self) -> Self::Cursor<'_>;
    /// The position with this rank, as the 1-based piece labels by position.
    fn state(&self, rank: u64) -> Vec<u32>;
    /// Move `mv` applied to a position given as its state (as [`StateSpace::state`] writes it),
    /// into `out` (a move that does not apply leaves it as it is), where the family applies
    /// moves to states directly: a reduced space's way to its neighbours without ranks
    /// ([`symmetry::Reduced`]). `false` (the default) where it does not.
    fn move_state(&self, state: &[u32], mv: usize, out: &mut [u32]) -> bool {
        let _ = (state, mv, out);
        false
    }

    /// Every position entry `rank` stands for, ascending, as the family writes positions in
    /// reports: the position itself, or in a table reduced by symmetry its class
    /// ([`symmetry::Reduced`]).
    fn positions_of(&self, rank: u64) -> Vec<Vec<u32>> {
        vec![self.state(rank)]
    }
    /// The rank of a position given as 1-based piece labels by position, or why it has none.
    fn rank(&self, state: &[u32]) -> Result<u64, String>;
    /// A state written out as the family's seed writes it (by default the numbers, spaced).
    fn format_state(&self, state: &[u32]) -> String {
        spaced(state)
    }
    /// A position of [`StateSpace::positions_of`] written out: as [`StateSpace::format_state`]
    /// but where a reduced space searches a view of the family in other states.
    fn format_position(&self, position: &[u32]) -> String {
        self.format_state(position)
    }
    /// A state read from text: numbers separated by spaces or commas (families may accept
    /// their own notation too).
    fn parse_state(&self, text: &str) -> Result<Vec<u32>, String> {
        numbers(text)
    }
    /// The description that goes into reports and file headers.
    fn info(&self) -> PuzzleInfo;
    /// The default output folder's name, e.g. `turnstyle-n12-lrf`.
    fn slug(&self) -> String;
    /// A drawing of the whole space from the finished table, as (file name, text), where the
    /// family has one (Free the Key's maze).
    fn picture(&self, table: &DistanceTable) -> Option<(&'static str, String)> {
        let _ = table;
        None
    }

    /// The speed-ups the space offers beyond its cursor's moves ([`capability`]): none by
    /// default.
    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities::default()
    }

    /// The shader that gives the GPU backend this space's ranks and moves, or `None` where the
    /// space has none.
    fn gpu_shader(&self) -> Option<GpuShader> {
        None
    }

    /// How many positions each entry stands for, where an entry may stand for more than one
    /// (a space reduced by its symmetries, [`symmetry::Reduced`]); `None` (the default) where
    /// each entry is one position.
    fn weights(&self) -> Option<Weights> {
        None
    }

    /// The entries a search may reach: every entry but those that hold no class
    /// ([`Weights::empty`]). What progress bars count down to.
    fn entries_to_reach(&self) -> u64 {
        self.size() - self.weights().map_or(0, |w| w.empty)
    }

    /// How fast its search ran on the CPU, measured: what `--dry-run` estimates a run's time
    /// from ([`crate::plan::Estimate`]). By default the generic path's, a permutation puzzle of
    /// generators without sweeps; a family with faster sweeps says its own.
    fn measured_rate(&self) -> Rate {
        GENERIC_RATE
    }
}

/// The generic path's rate: a permutation puzzle from generators, without sweeps.
pub const GENERIC_RATE: Rate = Rate {
    per_thread: 5.0e6,
    run: "LRX 12 from generators, without sweeps: 4.8e8 states in 48.8 s",
};

/// A search's rate on the CPU in memory, as the published runs measured it on the 2-core, 24 GiB
/// development VMs that made them (2026-11-24 to 28): the reachable states a second of the
/// family's largest published run, per worker thread.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    /// States a second a worker thread.
    pub per_thread: f64,
    /// The run it was measured on: puzzle, states and search time.
    pub run: &'static str,
}

/// How many positions the entries of a table stand for ([`StateSpace::weights`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Weights {
    /// Ranges of entries, together all of them, with the positions each entry of the range
    /// stands for, the heaviest range first.
    pub ranges: Vec<(std::ops::Range<u64>, u64)>,
    /// Entries that stand for other numbers of positions than their range says, each with its
    /// own, ascending.
    pub special: Vec<(u64, u64)>,
    /// How many entries hold no class (in a block some symmetry keeps, every entry but the
    /// least of a class's rests): no pass ever reaches them, so a search counts them out of
    /// the entries it has still to reach.
    pub empty: u64,
}

/// A puzzle family's shader and what one space of it sets in it.
#[derive(Clone)]
pub struct GpuShader {
    /// The WGSL (a file under `shaders/`): `MOVES`, `fn load_state(rank: u64)` and
    /// `fn neighbour(m: u32) -> u64` (the rank after move `m` from the loaded state, numbered
    /// like [`Cursor::neighbour`] or not: only the set of neighbours matters).
    pub source: &'static str,
    /// The values of its pipeline-overridable constants (`override` declarations).
    pub constants: Vec<(&'static str, f64)>,
    /// The words it reads as `puzzle_data` (a uniform buffer of at most 16,384 words), e.g. a
    /// permutation puzzle's moves.
    pub data: Vec<u32>,
    /// The words it reads as `puzzle_tables` (a read-only storage buffer at binding 6, as large
    /// as the device binds), e.g. a twisty puzzle's move tables; empty where it reads none.
    pub tables: Vec<u32>,
    /// In a directed graph ([`StateSpace::moves_for`]), how many moves a push follows: moves
    /// `0..pushed` (the generators) are pushed and the others (their inverses) pulled; `None`
    /// where every move goes both ways.
    pub pushed: Option<u32>,
}

/// The 0-based pieces of a state that must list each of `1..=n` once, or why it does not.
pub fn pieces(state: &[u32], n: usize) -> Result<Vec<u8>, String> {
    if state.len() != n {
        return Err(format!(
            "the state has {} pieces but this puzzle has {n}: list each of 1..{n} once",
            state.len()
        ));
    }
    let labels: Vec<u8> = state
        .iter()
        .map(|&x| x.wrapping_sub(1).min(255) as u8)
        .collect();
    if !crate::rank::is_permutation(&labels) {
        return Err(format!(
            "the state is not a permutation of 1..{n}: list each piece exactly once"
        ));
    }
    Ok(labels)
}

/// A state as its numbers, spaced (how a state is written where its family has no notation).
pub fn spaced(state: &[u32]) -> String {
    let words: Vec<String> = state.iter().map(u32::to_string).collect();
    words.join(" ")
}

/// Numbers separated by spaces or commas.
pub fn numbers(text: &str) -> Result<Vec<u32>, String> {
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .map(|w| {
            w.parse()
                .map_err(|_| format!("'{w}' in the state is not a number: write the state as numbers separated by spaces"))
        })
        .collect()
}

/// Walks ranks in any order and names each rank's neighbours.
///
/// Walking ranks in increasing order is cheap (amortised O(1) per step); jumping is allowed.
pub trait Cursor {
    /// Moves the cursor to `rank`.
    fn seek(&mut self, rank: u64);
    /// The rank reached from the cursor's rank by move `mv`.
    fn neighbour(&mut self, mv: usize) -> u64;

    /// Moves the cursor to `rank` and returns the end of its *run*: the ranks from `rank` up to
    /// there whose neighbours [`Cursor::each_neighbour_in_run`] names without another seek
    /// (`rank + 1` where the cursor has no runs).
    fn seek_run(&mut self, rank: u64) -> u64 {
        self.seek(rank);
        rank + 1
    }

    /// Whether the neighbours of a run along one move lie too far apart to stay in cache (a
    /// reduced space's run is a block of its table, and lands all over another block): a pass
    /// then fetches them ahead of their lookups.
    fn scatters_runs(&self) -> bool {
        false
    }

    /// Calls `f(rank, n)` for each of `ranks` and its neighbour `n` by move `mv`; the ranks lie
    /// in the run of the last [`Cursor::seek_run`].
    fn each_neighbour_in_run(&mut self, ranks: &[u64], mv: usize, mut f: impl FnMut(u64, u64))
    where
        Self: Sized,
    {
        for &rank in ranks {
            self.seek(rank);
            f(rank, self.neighbour(mv));
        }
    }
}

/// A move restricted to a range of ranks on which it is a [`WindowMove`]: rank `from + i` goes
/// to rank `to + window.apply(i)`, for `i < len`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockMove {
    /// First rank of the range the move is taken from.
    pub from: u64,
    /// First rank of the range it lands in.
    pub to: u64,
    /// Ranks in each range (a multiple of `window.block`).
    pub len: u64,
    /// How ranks move within the range.
    pub window: WindowMove,
    /// The window's block that the range starts at: its prefix digits decide the parity of
    /// each block's map. 0 for a whole move; a part of one (a slab's) starts further on.
    pub first_block: u64,
}

/// The most entries a space's table may have: 2^48, a table of 64 TiB at 2 bits an entry, more
/// than any plan holds on one machine's disk (the largest tables searched so far are near 2^37).
/// Families refuse larger spaces as they build them where they can, and the plan refuses the
/// others at once, before it fits slabs to them.
pub const MAX_ENTRIES: u64 = 1 << 48;

/// Runs shorter than this move bit by bit through a table of positions in a sweep.
pub const SHORT_RUN: u64 = 16;
/// The largest block that gets tables of positions; blocks of short runs beyond it move run by
/// run (correct, only slower). Large enough for a window starting at the third of 12 pieces
/// (10!/2 ranks): the dino cube's moves then all fit some numbering.
pub const MAX_TABLE_BLOCK: u64 = 1 << 21;

/// True when a block move with blocks of `block` ranks and runs of `run` is applied in bulk
/// efficiently (long runs, or blocks small enough for a table of positions); other moves are
/// better applied state by state, as residual moves.
pub fn applies_in_bulk(block: u64, run: u64) -> bool {
    run >= SHORT_RUN || block <= MAX_TABLE_BLOCK
}

/// A space's moves split into block moves and the rest.
///
/// For every rank and every move, the neighbour is given either by exactly one block move whose
/// `from` range holds the rank, or by exactly one `residual` entry (ranks, move) that holds it;
/// those are applied with a [`Cursor`], state by state (or a tile at a time where the move
/// transposes tiles: [`Tiles::transposition`]). The residual set must be closed under
/// inverse moves: when `(r, m)` is residual, so is the way back from the neighbour to `r`.
/// Two residual ranges are the same range or disjoint. Block moves' ranges may overlap in part
/// (the passes cut them apart), but not inside a block of a move of short runs.
#[derive(Clone, Debug)]
pub struct Structure {
    /// The block moves.
    pub blocks: Vec<BlockMove>,
    /// Ranges of ranks and the move to apply there through a cursor.
    pub residual: Vec<(std::ops::Range<u64>, usize)>,
}
