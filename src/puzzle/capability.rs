//! What a space offers beyond its cursor's moves, one capability each: a pass asks
//! [`StateSpace::capabilities`](super::StateSpace::capabilities) once and takes the speed-ups
//! there, and `--symmetry` takes the symmetries. A family that adds a speed-up adds a
//! capability here and offers it; no other space gains a method.

use super::Structure;
use super::symmetry::Symmetry;
use crate::table::Holding;

/// Moves that act on whole runs of consecutive ranks (block moves), so that a pass applies them
/// to many states at once: the ring puzzles, pancakes, generator puzzles ranked in lexicographic
/// or even order, sliding tiles on boards of odd width, and tables reduced by symmetry whose
/// routes sweep.
pub trait Blocks: Sync {
    /// The block moves and the rest of the moves ([`Structure`]); building them can take a
    /// while (their move tables).
    fn structure(&self) -> Structure;

    /// The bytes that the block moves keep beside the table, where they are more than the
    /// plan's fixed room holds (a table reduced by symmetry's maps of a block's rests,
    /// [`super::symmetry::Reduced`]); 0 by default.
    fn bytes(&self) -> u64 {
        0
    }
}

/// Moves that transpose tiles of the table over the whole space (the pancakes' flips that are
/// not block moves): a sweep moves whole tiles of bits at a time.
pub trait Tiles: Sync {
    /// Residual move `mv` as a transposition, where it is one over the whole space (its only
    /// residual range `0..size`): the move keeps each block of [`Transposition::period`]
    /// consecutive ranks in place, and within a block the ranks fall into
    /// [`Transposition::tiles`] tiles, tile `t` a set of rows ([`Tiles::tile_rows`]) of
    /// [`Transposition::cols`] consecutive ranks each, whose neighbours form rows the other way:
    /// for `R` rows there are ranks `s_j` and an order `p` of `0..R` such that the neighbour of
    /// rank `j` of row `i` is `s_j + p(i)`. Every block has the same tiles, shifted: the
    /// neighbour of rank `b + x` of the block from `b` is `b` plus that of `x`. `None` where
    /// the move is no such transposition.
    fn transposition(&self, mv: usize) -> Option<Transposition>;

    /// The first ranks of the rows of tile `t` of move `mv`'s transposition in the first block,
    /// in any order, replacing `rows`' contents (`mv` has a transposition).
    fn tile_rows(&self, mv: usize, t: usize, rows: &mut Vec<u64>);
}

/// How a residual move falls into tiles that it transposes ([`Tiles::transposition`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transposition {
    /// The number of tiles of a block.
    pub tiles: usize,
    /// The ranks of each row of a tile.
    pub cols: u64,
    /// The ranks of a block (the space's size where there is one block).
    pub period: u64,
}

/// Moves that act 64 ranks at a time within pages of `2^bits` consecutive ranks (the Towers of
/// Hanoi with 4 or 8 pegs): a 64-rank unit's neighbours lie in a few units, the same few bits of
/// each, so that a level reaches only the pages that hold it and their neighbours, and a sweep
/// visits only those.
pub trait Pages: Sync {
    /// The bits of a page's ranks: a page holds `2^bits` ranks (at least 64).
    fn bits(&self) -> u32;

    /// For each 64-rank unit `i` of page `page` (ranks `page * 2^bits + 64 i ..`) with
    /// unreached entries (`unreached[i]` not 0), the bits of its ranks with a neighbour in the
    /// frontier, into `found[i]` (anything where `unreached[i]` is 0); `frontier.unit(u)` gives
    /// the frontier's bits of any unit `u` of the table.
    fn pull_page(&self, page: u64, frontier: Holding<'_>, unreached: &[u64], found: &mut [u64]);

    /// The other pages that hold a neighbour of a rank of page `page` (a page is among those
    /// of each of its own), replacing `out`'s contents.
    fn page_neighbours(&self, page: u64, out: &mut Vec<u64>);
}

/// The symmetries of a space's graph that fix its start ([`super::symmetry`]), stated or found
/// by its family.
pub trait Symmetric: Sync {
    /// The symmetries with the class coordinate they act on, or why there are none after all
    /// (a sliding board that is not square, a definition whose moves no relabelling keeps):
    /// finding them can take a while.
    fn symmetry(&self) -> Result<Symmetry, String>;
}

/// Whether a space offers symmetries ([`Capabilities::symmetries`]): every family says, and
/// where it has none, why (the reason `--symmetry`'s refusal gives).
#[derive(Clone, Copy)]
pub enum Symmetries<'a> {
    /// Symmetries the family states or finds.
    Offered(&'a dyn Symmetric),
    /// Why the family has none.
    None(&'static str),
}

impl Default for Symmetries<'_> {
    fn default() -> Self {
        Symmetries::None("no symmetry maps its moves onto its moves and its start onto its start")
    }
}

/// The capabilities a space offers; none by default.
#[derive(Clone, Copy, Default)]
pub struct Capabilities<'a> {
    /// Moves that act on whole runs of ranks.
    pub blocks: Option<&'a dyn Blocks>,
    /// Moves that transpose tiles over the whole space.
    pub tiles: Option<&'a dyn Tiles>,
    /// Moves that act within pages.
    pub pages: Option<&'a dyn Pages>,
    /// The planes the ranks fall into for slabs ([`crate::search::slab`]): `rank = plane *
    /// (size / planes) + column`, where most moves keep a state's column (a ring puzzle's
    /// offsets of one arrangement); a plane's width is a multiple of 32 (whole table words).
    /// `None`: slabs are ranges of ranks.
    pub planes: Option<u64>,
    /// The symmetries that fix the start, or why there are none.
    pub symmetries: Symmetries<'a>,
}

impl Capabilities<'_> {
    /// The block moves, where the space offers them (built now: it can take a while).
    pub fn structure(&self) -> Option<Structure> {
        self.blocks.map(Blocks::structure)
    }

    /// Whether a sweep can pass over the space: it has block moves or pages.
    pub fn sweeps(&self) -> bool {
        self.blocks.is_some() || self.pages.is_some()
    }

    /// The bytes the block moves keep beside the table ([`Blocks::bytes`]); 0 without them.
    pub fn structure_bytes(&self) -> u64 {
        self.blocks.map_or(0, Blocks::bytes)
    }

    /// The planes of the slabs ([`Capabilities::planes`]); 1 where slabs are ranges of ranks.
    pub fn slab_planes(&self) -> u64 {
        self.planes.unwrap_or(1)
    }

    /// The symmetries that fix the start ([`Symmetric::symmetry`]), or why there are none.
    pub fn symmetry(&self) -> Result<Symmetry, String> {
        match self.symmetries {
            Symmetries::Offered(family) => family.symmetry(),
            Symmetries::None(why) => Err(why.into()),
        }
    }
}
