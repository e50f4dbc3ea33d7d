//! Symmetry: one table entry per class of positions under a puzzle's symmetries.
//!
//! A *symmetry* of a puzzle relabels its positions and pieces ([`Element`]) so that the start
//! stays the start and every move becomes a move: a position and its image lie at the same
//! distance. A family's symmetries form a group `G` ([`Symmetry`], from
//! the `symmetries` capability, [`crate::puzzle::Capabilities::symmetry`]); a *class* is a position with all its images.
//!
//! A [`Reduced`] space has one entry per class, numbered densely by a [`Classes`]: from a class
//! coordinate ([`ByCoordinate`], Kociemba's way) or the family's own numbering (the Towers of
//! Hanoi's). Its neighbours are the family's own moves from the position an entry holds, each
//! reduced to the entry of its class; that is a search of the whole space, one entry per
//! class, because symmetric positions lie at the same distance. An entry stands for the
//! positions of its class, `|G|` of them but for the few positions some symmetry keeps: the
//! level loop weighs each level's entries into positions ([`crate::puzzle::Weights`]).

mod automorphisms;
pub mod base;
mod checks;
pub mod classes;
pub mod coordinate;
mod cursor;
mod element;
pub(crate) mod gpu;
pub mod kept;
pub mod pieces;
pub mod relabel;
mod routes;
mod sweeps;

pub use automorphisms::automorphisms;
pub use base::{Base, Erased, Walker};
pub use classes::{ByCoordinate, Classes, Landing};
pub use coordinate::{Coordinate, Half, LABELS, Positions};
pub use cursor::ReducedCursor;
pub use element::{Element, group};
pub use pieces::{check, of_pieces};

use super::{Blocks, Capabilities, GpuShader, PuzzleInfo, Rate, StateSpace, Structure, Weights};
use serde::{Deserialize, Serialize};

/// Most coordinate values times symmetries whose classes a reduced space works out as it is
/// made (about half a minute of work on two cores).
pub const MAX_CLASS_WORK: u64 = 1 << 30;

/// Work on classes that is always worth it (under a second).
const SMALL_CLASS_WORK: u64 = 1 << 22;

/// Whether a class coordinate whose classes take `work` (its values times the symmetries) is
/// worth working out for a table of about `entries` entries: the work is small, or small beside
/// the search (at most an eighth of the entries).
pub fn worth(work: u64, entries: u64) -> bool {
    work <= MAX_CLASS_WORK && (work <= SMALL_CLASS_WORK || work <= entries / 8)
}

/// A family's symmetries and how its classes are numbered.
pub struct Symmetry {
    /// What the symmetries are, in a few words (for reports).
    pub name: String,
    /// The group, the identity first.
    pub elements: Vec<Element>,
    /// How the classes are numbered.
    pub rank: Rank,
    /// Whether each move, from the positions of one block of a class coordinate, takes the
    /// pieces a rest orders from place to place by one map, whatever their order: moves that
    /// permute places (rings, permutation puzzles), or that look only at pieces of the class
    /// coordinate (sliding tiles' blank). The cursor then works the map out once per block and
    /// move ([`ReducedCursor`]) instead of moving each position.
    pub moves_carry_rests: bool,
    /// The space as the symmetries see it, where they act on other states than the family
    /// writes (a twisty puzzle's stickers): [`Reduced::new`] searches it in place of the
    /// family's space, with the same ranks and moves.
    pub view: Option<Box<dyn Base>>,
    /// The shader that searches the classes as `rank` numbers them, where the family has one
    /// (the Towers of Hanoi's peg labellings). Tables numbered by a class coordinate need none:
    /// their moves are routed (`routes::Routes`).
    pub shader: Option<GpuShader>,
}

/// How a family's classes of symmetric positions are numbered.
pub enum Rank {
    /// By a class coordinate ([`ByCoordinate`]).
    Coordinate(Box<dyn Coordinate>),
    /// By the family's own numbering.
    Classes(Box<dyn Classes>),
}

/// A reduced table's symmetry, as reports and distances files record it: a file of another
/// symmetry (or of none) is another table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymmetryInfo {
    /// What the symmetries are.
    pub group: String,
    /// How many there are (the order of the group).
    pub order: u64,
    /// The number of positions the table stands for.
    pub positions: u64,
}

/// A puzzle's space reduced by its symmetries: one entry per class of positions.
pub struct Reduced {
    base: Box<dyn Base>,
    name: String,
    elements: Vec<Element>,
    classes: Box<dyn Classes>,
    solved: u64,
    /// Whether moves carry the rests of a block by one map ([`Symmetry::moves_carry_rests`])
    /// and the classes' rests are orders.
    carries: bool,
    /// The length of a rest's order ([`Classes::order`]); 0 where rests are not orders.
    order_len: usize,
    /// The routes the GPU's shader and the sweeps read, once worked out ([`routes::Routes`]).
    routes: std::sync::OnceLock<Option<routes::Routes>>,
    /// The block moves and residual moves the table is swept by, made once ([`Reduced::sweeps`]).
    sweeps: std::sync::OnceLock<Option<Structure>>,
    /// The family's shader of its classes ([`Symmetry::shader`]).
    shader: Option<GpuShader>,
}

impl Reduced {
    /// `base` reduced by `symmetry`, or why it cannot be.
    pub fn new(base: Box<dyn Base>, symmetry: Symmetry) -> Result<Reduced, String> {
        let Symmetry {
            name,
            elements,
            rank,
            moves_carry_rests,
            view,
            shader,
        } = symmetry;
        let base = view.unwrap_or(base);
        let solved = base.state(base.solved());
        let classes = match rank {
            Rank::Coordinate(coordinate) => {
                // A state of the space as it writes its states (Turnstyle's flips metric ranks a
                // ring read from anywhere, and writes it from piece 1).
                let in_space = |s: &[u32]| base.rank(s).is_ok_and(|r| base.state(r) == s);
                let elements = elements.clone();
                Box::new(ByCoordinate::new(elements, coordinate, &solved, &in_space)?)
            }
            Rank::Classes(classes) => classes,
        };
        if !base.move_state(&solved, 0, &mut solved.clone()) {
            return Err("its family does not apply moves to positions as they are written".into());
        }
        if base.starts().len() > 1 {
            return Err("it starts from several positions".into());
        }
        if classes.positions() != base.size() {
            return Err(format!(
                "its classes stand for {} positions, not the {} of its table",
                classes.positions(),
                base.size()
            ));
        }
        let order_len = classes.order(&solved, &mut [0; LABELS]);
        let mut reduced = Reduced {
            base,
            name,
            elements,
            classes,
            solved: 0,
            carries: moves_carry_rests && order_len > 0,
            order_len,
            routes: std::sync::OnceLock::new(),
            sweeps: std::sync::OnceLock::new(),
            shader,
        };
        reduced.solved = reduced.entry(&solved);
        reduced.check_landings()?;
        reduced.check_carries()?;
        Ok(reduced)
    }

    /// The symmetries, the identity first.
    pub fn elements(&self) -> &[Element] {
        &self.elements
    }

    /// The number of positions the table stands for.
    pub fn positions(&self) -> u64 {
        self.classes.positions()
    }

    /// The entry that stands for `state`, a position of the space written as the family writes
    /// it ([`StateSpace::state`]; [`StateSpace::rank`] takes other writings too).
    pub fn entry(&self, state: &[u32]) -> u64 {
        let (mut image, mut other) = (state.to_vec(), state.to_vec());
        self.classes.entry(state, &mut image, &mut other)
    }

    /// The position entry `entry` holds, into `state` (`image`: room for a state), and whether
    /// it holds a class.
    fn position(&self, entry: u64, state: &mut [u32], image: &mut [u32]) -> bool {
        let reachable = |s: &[u32]| self.base.rank(s).is_ok();
        self.classes.position(entry, state, image, &reachable)
    }

    /// Every position of the class of `state` (its images), ascending.
    pub fn class(&self, state: &[u32]) -> Vec<Vec<u32>> {
        let mut image = state.to_vec();
        let mut class: Vec<Vec<u32>> = (self.elements.iter())
            .map(|g| {
                g.apply(state, &mut image);
                // As the family writes it (an image of a ring read from piece 1 may start
                // elsewhere).
                (self.base.rank(&image)).map_or_else(|_| image.clone(), |r| self.base.state(r))
            })
            .collect();
        class.sort_unstable();
        class.dedup();
        class
    }

    /// The space without symmetry, whose positions the entries stand for.
    pub fn base(&self) -> &(dyn Base + 'static) {
        &*self.base
    }

    /// The table's routes, worked out on first use, where its moves have them
    /// ([`routes::Routes::of`]).
    fn routes(&self) -> Option<&routes::Routes> {
        self.routes
            .get_or_init(|| routes::Routes::of(self))
            .as_ref()
    }

    /// The entry that stands for the position of rank `rank` of the space without symmetry.
    pub fn entry_of_rank(&self, rank: u64) -> u64 {
        self.entry(&self.base.state(rank))
    }
}

impl StateSpace for Reduced {
    type Cursor<'a> = ReducedCursor<'a>;

    fn size(&self) -> u64 {
        self.classes.size()
    }

    fn move_names(&self) -> Vec<String> {
        self.base.move_names()
    }

    fn move_count(&self) -> usize {
        self.base.move_count()
    }

    fn solved(&self) -> u64 {
        self.solved
    }

    fn cursor(&self) -> ReducedCursor<'_> {
        ReducedCursor::new(self)
    }

    /// The position the entry holds (one of its class).
    fn state(&self, entry: u64) -> Vec<u32> {
        let mut state = self.base.state(self.base.solved());
        let mut image = state.clone();
        self.position(entry, &mut state, &mut image);
        state
    }

    fn positions_of(&self, entry: u64) -> Vec<Vec<u32>> {
        let class = self.class(&self.state(entry));
        let mut written: Vec<Vec<u32>> = class.iter().map(|s| self.base.written(s)).collect();
        written.sort_unstable();
        written
    }

    fn rank(&self, state: &[u32]) -> Result<u64, String> {
        // The position as the family writes it (Turnstyle's flips metric takes a ring read from
        // anywhere).
        let rank = self.base.rank(state)?;
        Ok(self.entry_of_rank(rank))
    }

    fn format_state(&self, state: &[u32]) -> String {
        self.base.format_state(state)
    }

    fn format_position(&self, position: &[u32]) -> String {
        self.base.format_written(position)
    }

    fn parse_state(&self, text: &str) -> Result<Vec<u32>, String> {
        self.base.parse_state(text)
    }

    fn info(&self) -> PuzzleInfo {
        let base = self.base.info();
        PuzzleInfo {
            rank_order: format!(
                "one entry per class of positions under the symmetries: {}",
                self.classes.describe()
            ),
            symmetry: Some(SymmetryInfo {
                group: self.name.clone(),
                order: self.elements.len() as u64,
                positions: self.positions(),
            }),
            ..base
        }
    }

    fn slug(&self) -> String {
        format!("{}-sym", self.base.slug())
    }

    fn weights(&self) -> Option<Weights> {
        Some(self.classes.weights())
    }

    /// Block moves where routes need no symmetry and keep a window of an order's slots
    /// (`sweeps`).
    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities {
            blocks: self
                .sweeps_routes()
                .is_some()
                .then_some(self as &dyn Blocks),
            ..Capabilities::default()
        }
    }

    /// The family's shader of its classes where it has one ([`Symmetry::shader`]); else, where
    /// moves carry rests by one map and entries are numbered by landings, the routes of every
    /// block (`routes::Routes`).
    fn gpu_shader(&self) -> Option<GpuShader> {
        if let Some(shader) = &self.shader {
            return Some(shader.clone());
        }
        self.routes().map(routes::Routes::shader)
    }

    fn measured_rate(&self) -> Rate {
        match self.carries {
            true if self.sweeps_routes().is_some() => SWEPT_RATE,
            true => CARRIED_RATE,
            false => REDUCED_RATE,
        }
    }
}

impl Blocks for Reduced {
    fn structure(&self) -> Structure {
        self.swept().cloned().expect("routes that sweep")
    }

    fn bytes(&self) -> u64 {
        self.map_bytes()
    }
}

/// The rate of a reduced search, entry by entry through the family's moves: the slowest
/// measured, the Towers of Hanoi's.
pub const REDUCED_RATE: Rate = Rate {
    per_thread: 1.1e6,
    run: "the Towers of Hanoi, 5 pegs, 13 discs, with symmetry: 5.1e7 entries in 23.3 s",
};

/// The rate of a reduced search swept through its block moves (`Reduced::sweeps`): the
/// slowest measured, Turnstyle 14 lrf's under the lean footprint (under the full one it went
/// 4.8e7 entries a second a thread, Turnstyle 12 lrf 6.0e7).
pub const SWEPT_RATE: Rate = Rate {
    per_thread: 2.8e7,
    run: "Turnstyle 14, lrf, with symmetry, lean: 4.4e10 entries in 780 s",
};

/// The rate of a reduced search whose moves carry rests: the slowest measured (Turnstyle 12 lrf
/// went 6.2e6 entries a second a thread).
pub const CARRIED_RATE: Rate = Rate {
    per_thread: 3.3e6,
    run: "Turnstyle 14, flips, with symmetry: 4.5e8 entries in 66 s",
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::Cursor;
    use crate::puzzle::hanoi::Hanoi;
    use crate::puzzle::sliding::Sliding;
    use crate::puzzle::{Metric, Ring};
    use crate::search::cpu::search;
    use crate::search::{Options, Silent};

    /// Searches `space` with and without its symmetries: the same positions at each distance,
    /// and each position's entry holding the position's distance.
    fn same_levels<S: StateSpace + Clone + Send + 'static>(space: S) -> Reduced {
        let symmetry = space.capabilities().symmetry().unwrap();
        let reduced = Reduced::new(Box::new(Erased(space.clone())), symmetry).unwrap();
        assert_eq!(reduced.positions(), space.size(), "{}", space.slug());
        let whole = search(&space, &Options::default(), &Silent);
        let classes = search(&reduced, &Options::default(), &Silent);
        assert_eq!(
            classes.levels.positions().iter().collect::<Vec<_>>(),
            whole.levels.iter().collect::<Vec<_>>(),
            "{}",
            space.slug()
        );
        assert!(classes.levels.total() < whole.levels.total());
        // The entries that hold no class, counted one by one, are those the weights say; where
        // every position is reached, so is every other entry.
        let (mut state, mut image) = (space.state(0), space.state(0));
        let empty = (0..reduced.size())
            .filter(|&e| !reduced.position(e, &mut state, &mut image))
            .count() as u64;
        assert_eq!(reduced.weights().unwrap().empty, empty, "{}", space.slug());
        if whole.levels.total() == space.size() {
            assert_eq!(classes.levels.total() + empty, reduced.size());
        }
        for rank in 0..space.size() {
            let entry = reduced.entry(&space.state(rank));
            assert_eq!(classes.table.get(entry), whole.table.get(rank));
        }
        reduced
    }

    #[test]
    fn turnstyle_and_topspin_by_their_mirror() {
        for n in [6, 7, 8] {
            let reduced = same_levels(Ring::turnstyle(n, Metric::Lrf).unwrap());
            assert_eq!(reduced.elements().len(), 2);
            same_levels(Ring::topspin(n, 4, Metric::Lrf).unwrap());
        }
    }

    /// Of `reduced`'s blocks some symmetry keeps, how many have their entries found from their
    /// orders ([`Classes::entry_of_order`]), and how many there are.
    fn kept_by_orders(reduced: &Reduced) -> (usize, usize) {
        let classes = &reduced.classes;
        let fibre = classes.entries_of(0).end;
        let (mut state, mut image) = (reduced.base.state(0), reduced.base.state(0));
        let mut order = [0u8; LABELS];
        let symmetric: Vec<u64> = (0..classes.size() / fibre)
            .filter(|&b| !classes.stabilizer(b as u32).is_empty())
            .collect();
        let found = (symmetric.iter())
            .filter(|&&block| {
                reduced.position(block * fibre, &mut state, &mut image);
                let k = classes.order(&state, &mut order);
                classes.entry_of_order(block as u32, &order[..k]).is_some()
            })
            .count();
        (found, symmetric.len())
    }

    #[test]
    fn symmetric_blocks_are_searched_by_their_orders() {
        // (Not the flips metric: there an image is read from piece 1 again, wherever the rest
        // puts it, and its symmetric blocks' entries are found from their positions.)
        for space in [
            Ring::turnstyle(8, Metric::Lrf).unwrap(),
            Ring::topspin(8, 4, Metric::Lrf).unwrap(),
        ] {
            let symmetry = space.capabilities().symmetry().unwrap();
            let reduced = Reduced::new(Box::new(Erased(space)), symmetry).unwrap();
            let (found, symmetric) = kept_by_orders(&reduced);
            assert!(symmetric > 0);
            assert_eq!(found, symmetric, "{}", reduced.slug());
        }
    }

    #[test]
    fn flips_by_the_turns_of_the_labels_and_their_mirrors() {
        // All n turns where the classes are cheap to work out and no parity is lost (6 and 8
        // pieces), turns by 3 for 9, by 2 for 10, and the mirror alone for 7 (halved, prime).
        for (n, order) in [(6, 12), (7, 2), (8, 16), (9, 6), (10, 10)] {
            let reduced = same_levels(Ring::turnstyle(n, Metric::Flips).unwrap());
            assert_eq!(reduced.elements().len(), order, "{n}");
            let topspin = same_levels(Ring::topspin(n, 4, Metric::Flips).unwrap());
            assert_eq!(topspin.elements().len(), order, "{n}");
        }
    }

    /// A reduced table's entries, read at the entry each position stands for.
    struct ByPosition<'a> {
        reduced: &'a Reduced,
        table: &'a crate::table::DistanceTable,
    }

    impl crate::puzzle::path::Entries for ByPosition<'_> {
        fn entry(&mut self, rank: u64) -> Result<u8, String> {
            Ok(self.table.get(self.reduced.entry_of_rank(rank)))
        }
    }

    #[test]
    fn every_position_is_solved_from_a_reduced_table_as_from_the_whole() {
        solves_alike(Ring::turnstyle(7, Metric::Lrf).unwrap());
        solves_alike(Ring::topspin(7, 4, Metric::Flips).unwrap());
        solves_alike(Ring::turnstyle(8, Metric::Flips).unwrap());
        solves_alike(Hanoi::new(4, 5).unwrap());
        solves_alike(Sliding::new(3, 3).unwrap());
        solves_alike(crate::puzzle::rotation::board(2, 4, 2).unwrap());
    }

    /// From every position of `space`, the path read off its reduced table is as short as the
    /// whole table's and replays to solved.
    fn solves_alike<S: StateSpace + Clone + Send + 'static>(space: S) {
        let whole = search(&space, &Options::default(), &Silent);
        let symmetry = space.capabilities().symmetry().unwrap();
        let reduced = Reduced::new(Box::new(Erased(space.clone())), symmetry).unwrap();
        let classes = search(&reduced, &Options::default(), &Silent);
        let mut entries = ByPosition {
            reduced: &reduced,
            table: &classes.table,
        };
        let mut cursor = space.cursor();
        for rank in (0..space.size()).filter(|&r| whole.table.get(r) != 3) {
            let path = crate::puzzle::path::path_from(reduced.base(), &mut entries, rank);
            let path = path
                .unwrap()
                .unwrap_or_else(|| panic!("{} {rank}", space.slug()));
            let shortest = crate::puzzle::path::path_to_solved(&space, &whole.table, rank);
            assert_eq!(path.len(), shortest.unwrap().len());
            let mut at = rank;
            for &mv in &path {
                cursor.seek(at);
                at = cursor.neighbour(mv);
            }
            assert!(space.starts().contains(&at));
        }
    }

    #[test]
    fn moves_on_states_are_the_cursors_moves() {
        fn agree<S: StateSpace>(space: S) {
            let mut cursor = space.cursor();
            let mut out = space.state(0);
            for rank in 0..space.size() {
                let state = space.state(rank);
                if space.rank(&state) != Ok(rank) {
                    continue;
                }
                cursor.seek(rank);
                for mv in 0..space.move_count() {
                    assert!(space.move_state(&state, mv, &mut out));
                    let want = space.state(cursor.neighbour(mv));
                    assert_eq!(out, want, "{} {state:?} move {mv}", space.slug());
                }
            }
        }
        for metric in [Metric::Lrf, Metric::Flips] {
            agree(Ring::turnstyle(7, metric).unwrap());
            agree(Ring::turnstyle(6, metric).unwrap());
            agree(Ring::topspin(7, 4, metric).unwrap());
        }
        agree(Hanoi::new(4, 4).unwrap());
        agree(Hanoi::new(3, 5).unwrap());
        agree(Sliding::new(3, 3).unwrap());
        agree(Sliding::new(2, 3).unwrap());
        agree(crate::puzzle::rotation::board(2, 4, 2).unwrap());
    }

    #[test]
    fn towers_of_hanoi_by_their_pegs() {
        for (pegs, discs) in [(3, 6), (4, 5), (5, 4)] {
            let reduced = same_levels(Hanoi::new(pegs, discs).unwrap());
            let order: usize = (1..pegs).product();
            assert_eq!(reduced.elements().len(), order);
        }
    }

    #[test]
    fn rotation_boards_by_the_symmetries_found_from_their_moves() {
        for (rows, cols, order) in [(3, 3, 8), (2, 4, 4)] {
            let board = crate::puzzle::rotation::board(rows, cols, 2).unwrap();
            let reduced = same_levels(board);
            assert_eq!(reduced.elements().len(), order, "{rows}x{cols}");
        }
    }

    #[test]
    fn square_sliding_boards_by_their_diagonal() {
        for m in [2, 3] {
            let reduced = same_levels(Sliding::new(m, m).unwrap());
            assert_eq!(reduced.elements().len(), 2);
        }
        let wide = Sliding::new(2, 3)
            .unwrap()
            .capabilities()
            .symmetry()
            .err()
            .unwrap();
        assert!(wide.contains("square"), "{wide}");
    }
}
