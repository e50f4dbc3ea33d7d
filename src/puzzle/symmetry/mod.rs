//! Symmetry: one table entry per class of positions under a puzzle's symmetries.
//!
//! A *symmetry* of a puzzle relabels its positions and pieces ([`Element`]) so that the start
//! stays the start and every move becomes a move: a position and its image lie at the same
//! distance. A family's symmetries form a group `G` ([`Symmetry`], from
//! [`crate::puzzle::StateSpace::symmetry`]); a *class* is a position with all its images.
//!
//! A [`Reduced`] space has one entry per class, numbered densely by a [`Classes`]: from a class
//! coordinate ([`ByCoordinate`], Kociemba's way) or the family's own numbering (the Towers of
//! Hanoi's). Its neighbours are the family's own moves from the position an entry holds, each
//! reduced to the entry of its class; that is a search of the whole space, one entry per
//! class, because symmetric positions lie at the same distance. An entry stands for the
//! positions of its class, `|G|` of them but for the few positions some symmetry keeps: the
//! level loop weighs each level's entries into positions ([`crate::puzzle::Weights`]).

pub mod base;
pub mod classes;
pub mod coordinate;
pub mod pieces;
pub mod relabel;

pub use base::{Base, Erased, Walker};
pub use classes::{ByCoordinate, Classes, Landing};
pub use coordinate::{Coordinate, Half, LABELS, Positions};
pub use pieces::{check, of_pieces};

use super::{Cursor, PuzzleInfo, Rate, StateSpace, Weights};
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

/// One symmetry: the piece at position `i` goes to position `positions[i]` and is relabelled
/// `labels[piece]` (pieces numbered as the family's states write them).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Element {
    /// Where each position's piece goes.
    pub positions: Vec<usize>,
    /// The new label of each label.
    pub labels: Vec<u32>,
}

impl Element {
    /// The image of `state` under this symmetry, into `out`.
    pub fn apply(&self, state: &[u32], out: &mut [u32]) {
        for (i, &x) in state.iter().enumerate() {
            out[self.positions[i]] = self.labels[x as usize];
        }
    }

    /// This symmetry followed by `then`.
    fn then(&self, then: &Element) -> Element {
        Element {
            positions: self.positions.iter().map(|&p| then.positions[p]).collect(),
            labels: self
                .labels
                .iter()
                .map(|&x| then.labels[x as usize])
                .collect(),
        }
    }

    /// The symmetry that leaves everything where it is, for states of `len` positions and
    /// labels up to `top`.
    pub fn identity(len: usize, top: u32) -> Element {
        Element {
            positions: (0..len).collect(),
            labels: (0..=top).collect(),
        }
    }
}

/// The group `generators` generate, the identity (of `len` positions and labels up to `top`)
/// first.
pub fn group(generators: &[Element], len: usize, top: u32) -> Vec<Element> {
    let mut elements = vec![Element::identity(len, top)];
    let mut seen: std::collections::HashSet<Element> = elements.iter().cloned().collect();
    let mut at = 0;
    while at < elements.len() {
        for g in generators {
            let next = elements[at].then(g);
            if seen.insert(next.clone()) {
                elements.push(next);
            }
        }
        at += 1;
    }
    elements
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
}

impl Reduced {
    /// `base` reduced by `symmetry`, or why it cannot be.
    pub fn new(base: Box<dyn Base>, symmetry: Symmetry) -> Result<Reduced, String> {
        let solved = base.state(base.solved());
        let classes = match symmetry.rank {
            Rank::Coordinate(coordinate) => {
                // A state of the space as it writes its states (Turnstyle's flips metric ranks a
                // ring read from anywhere, and writes it from piece 1).
                let in_space = |s: &[u32]| base.rank(s).is_ok_and(|r| base.state(r) == s);
                let elements = symmetry.elements.clone();
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
        let ordered = classes.order(&solved, &mut [0; LABELS]) > 0;
        let mut reduced = Reduced {
            base,
            name: symmetry.name,
            elements: symmetry.elements,
            classes,
            solved: 0,
            carries: symmetry.moves_carry_rests && ordered,
        };
        reduced.solved = reduced.entry(&solved);
        reduced.check_landings()?;
        reduced.check_carries()?;
        Ok(reduced)
    }

    /// Whether each move takes the positions of a block to one landing ([`Landing`]), as the
    /// cursor assumes: on pairs of positions of a spread of blocks (the lib tests check every
    /// position). Nothing to check where entries are not numbered by landings.
    fn check_landings(&self) -> Result<(), String> {
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
    fn check_carries(&self) -> Result<(), String> {
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

    /// The entry that stands for the position of rank `rank` of the space without symmetry.
    pub fn entry_of_rank(&self, rank: u64) -> u64 {
        self.entry(&self.base.state(rank))
    }
}

/// Blocks whose moves [`Reduced::check_landings`] (on pairs of their positions) and
/// [`Reduced::check_carries`] check.
const CHECKED_PAIRS: u64 = 64;

/// The cursor of a [`Reduced`] space: the family's moves applied to the position an entry
/// holds ([`StateSpace::move_state`]), each neighbour reduced to the entry of its class. An
/// entry that holds no class has no neighbours but itself, so no pass ever reaches it.
///
/// Where entries are numbered by landings ([`Landing`]), the cursor keeps each move's route
/// from the block it is in ([`Route`]): passes go through the entries in order, so a block's
/// many positions look their landings up once (a table of a class coordinate's values is too
/// large for a cache from about 14 pieces on), and where moves carry rests by one map
/// ([`Symmetry::moves_carry_rests`]) a neighbour's rest is the entry's own order, permuted
/// and relabelled, with no position moved.
pub struct ReducedCursor<'a> {
    space: &'a Reduced,
    /// The entry sought, where it holds no class.
    unused: Option<u64>,
    /// Whether entries are numbered by landings.
    by_landing: bool,
    /// The entry sought.
    entry: u64,
    /// The block of the entry sought.
    block: u64,
    /// Each move's route from that block, once worked out.
    routes: Vec<Route<'a>>,
    /// Whether moves carry the rests of the block and every entry of it holds a class: an
    /// entry's order is then worked out from its rest alone, its position only where needed.
    plain: bool,
    /// Whether the block's orders are odd ([`Classes::order_of_rest`]).
    odd: bool,
    /// The position of the entry sought, where `fresh`.
    state: Vec<u32>,
    fresh: bool,
    /// The order of the entry's rest, where moves carry rests ([`Classes::order`]).
    order: [u8; LABELS],
    /// The neighbour's state.
    next: Vec<u32>,
    image: Vec<u32>,
    other: Vec<u32>,
    /// The ranks of the run last walked ([`Cursor::each_neighbour_in_run`]), ascending, and
    /// their orders (each `order_len` long, one after the other), kept for its next moves.
    run: Vec<u64>,
    run_orders: Vec<u8>,
    /// The orders of the ranks a move is walking, taken from `run_orders`.
    picked: Vec<u8>,
    order_len: usize,
}

/// How a move takes the positions of the cursor's block to their neighbours.
#[derive(Clone, Copy)]
enum Route<'a> {
    /// Not worked out yet.
    Unknown,
    /// To one landing; each neighbour moved and its rest read.
    Landing(Landing),
    /// To one block, the rest carried: slot `j` of the neighbour's order holds piece
    /// `relabel[order[from[j]]]`, `order` the entry's own.
    Carried {
        block: u32,
        from: [u8; LABELS],
        relabel: &'a [u8],
    },
}

impl<'a> ReducedCursor<'a> {
    /// The position of the entry sought, into `state`.
    fn refresh(&mut self) {
        if !self.fresh {
            (self.space).position(self.entry, &mut self.state, &mut self.image);
            self.fresh = true;
        }
    }

    /// The neighbour along `mv` of the entry's position, moved and reduced; `landing`: the
    /// move's landing from the position's block, where known.
    fn moved(&mut self, mv: usize, landing: Option<Landing>) -> u64 {
        self.refresh();
        let classes = &self.space.classes;
        self.space.base.move_state(&self.state, mv, &mut self.next);
        match landing {
            Some(landing) => {
                debug_assert_eq!(
                    classes.landing(&self.next),
                    Some(landing),
                    "a move takes a block's positions to one landing"
                );
                classes.entry_at(&self.next, landing, &mut self.image, &mut self.other)
            }
            None => classes.entry(&self.next, &mut self.image, &mut self.other),
        }
    }

    /// The orders of `ranks` (ascending, in the cursor's block, which is plain) into
    /// `picked`: from the run kept where they are among its ranks (a pass walks a run move by
    /// move, bottom-up dropping the ranks it has found), or worked out, `ranks` then kept.
    fn pick_orders(&mut self, ranks: &[u64]) {
        let k = self.order_len;
        self.picked.clear();
        let mut at = 0;
        for &rank in ranks {
            while at < self.run.len() && self.run[at] < rank {
                at += 1;
            }
            if self.run.get(at) != Some(&rank) {
                break;
            }
            self.picked
                .extend_from_slice(&self.run_orders[at * k..(at + 1) * k]);
        }
        if self.picked.len() == ranks.len() * k {
            return;
        }
        let classes = &self.space.classes;
        self.run.clear();
        self.run_orders.clear();
        let mut order = [0u8; LABELS];
        for &rank in ranks {
            match self.run.last() {
                Some(&last) if rank == last + 1 => classes.next_order(self.odd, &mut order),
                _ => _ = classes.order_of_rest(rank, self.odd, &mut order),
            }
            self.run.push(rank);
            self.run_orders.extend_from_slice(&order[..k]);
        }
        self.picked.clone_from(&self.run_orders);
    }

    /// The entry a carried route takes the cursor's entry to.
    fn carried(&self, block: u32, from: &[u8; LABELS], relabel: &[u8], order: &[u8]) -> u64 {
        let mut next = [0u8; LABELS];
        let k = relabel.len();
        for (slot, &j) in next[..k].iter_mut().zip(&from[..k]) {
            *slot = relabel[usize::from(order[usize::from(j) % LABELS])];
        }
        let entry = self.space.classes.entry_of_order(block, &next[..k]);
        entry.expect("a carried route lands in a block no symmetry keeps")
    }

    /// Works out move `mv`'s route from the cursor's block, from the position it holds.
    fn route(&mut self, mv: usize) -> Route<'a> {
        debug_assert!(self.block != u64::MAX, "a neighbour asked before any seek");
        self.refresh();
        let space = self.space;
        let classes = &space.classes;
        self.space.base.move_state(&self.state, mv, &mut self.next);
        let landing = classes.landing(&self.next).expect("numbered by landings");
        if !space.carries {
            return Route::Landing(landing);
        }
        // The neighbour's order, read in its block.
        space.elements[landing.element as usize].apply(&self.next, &mut self.image);
        let mut next = [0u8; LABELS];
        let k = classes.order(&self.image, &mut next);
        if classes.entry_of_order(landing.block, &next[..k]).is_none() {
            return Route::Landing(landing);
        }
        let relabel = classes.relabelling(landing.element);
        // The slot of the entry's order each piece is in, and the piece each relabels.
        let (mut slot_of, mut unlabel) = ([0u8; LABELS], [0u8; LABELS]);
        for (slot, &piece) in self.order[..k].iter().enumerate() {
            slot_of[usize::from(piece) % LABELS] = slot as u8;
        }
        for (piece, &image) in relabel.iter().enumerate() {
            unlabel[usize::from(image) % LABELS] = piece as u8;
        }
        let mut from = [0u8; LABELS];
        for (j, &piece) in next[..k].iter().enumerate() {
            from[j] = slot_of[usize::from(unlabel[usize::from(piece) % LABELS]) % LABELS];
        }
        Route::Carried {
            block: landing.block,
            from,
            relabel,
        }
    }
}

impl Cursor for ReducedCursor<'_> {
    fn seek(&mut self, entry: u64) {
        let (space, classes) = (self.space, &self.space.classes);
        let block = classes.block(entry);
        let new_block = block != self.block;
        if new_block {
            self.block = block;
            self.routes.fill(Route::Unknown);
            self.plain = false;
        }
        let after = entry == self.entry + 1;
        self.entry = entry;
        if self.plain && !new_block {
            self.unused = None;
            self.fresh = false;
            // Passes go through entries in order: most follow the one before.
            match after {
                true => classes.next_order(self.odd, &mut self.order),
                false => _ = classes.order_of_rest(entry, self.odd, &mut self.order),
            }
            #[cfg(debug_assertions)]
            {
                let mut order = [0; LABELS];
                self.refresh();
                let k = classes.order(&self.state, &mut order);
                debug_assert_eq!(order[..k], self.order[..k], "the order of entry {entry}");
            }
            return;
        }
        let holds = space.position(entry, &mut self.state, &mut self.image);
        self.unused = (!holds).then_some(entry);
        self.fresh = true;
        if space.carries {
            let k = classes.order(&self.state, &mut self.order);
            if new_block {
                // The parity of the block's orders (one, where only one is reachable), and
                // whether each of its entries holds a class.
                self.odd = crate::rank::is_odd(&self.order[..k]);
                let kept = classes.entry_of_order(block as u32, &self.order[..k]);
                self.plain = kept.is_some();
            }
        }
    }

    fn neighbour(&mut self, mv: usize) -> u64 {
        if let Some(entry) = self.unused {
            return entry;
        }
        if !self.by_landing {
            return self.moved(mv, None);
        }
        match self.routes[mv] {
            Route::Carried {
                block,
                ref from,
                relabel,
            } => {
                let entry = self.carried(block, from, relabel, &self.order);
                debug_assert_eq!(entry, self.moved(mv, None), "move {mv} carries the rest");
                entry
            }
            Route::Landing(landing) => self.moved(mv, Some(landing)),
            Route::Unknown => {
                self.routes[mv] = self.route(mv);
                self.neighbour(mv)
            }
        }
    }

    /// Where moves carry the rests of a plain block, the run is the block: each move's
    /// neighbours of many of its entries lie in one block, whose entries stay in cache.
    fn seek_run(&mut self, rank: u64) -> u64 {
        self.seek(rank);
        match self.plain {
            true => self.space.classes.entries_of(self.block).end,
            false => rank + 1,
        }
    }

    fn each_neighbour_in_run(&mut self, ranks: &[u64], mv: usize, mut f: impl FnMut(u64, u64)) {
        if let (true, Route::Unknown) = (self.plain, self.routes[mv]) {
            self.routes[mv] = self.route(mv);
        }
        let Route::Carried {
            block,
            from,
            relabel,
        } = self.routes[mv]
        else {
            for &rank in ranks {
                self.seek(rank);
                f(rank, self.neighbour(mv));
            }
            return;
        };
        self.pick_orders(ranks);
        let k = self.order_len;
        for (&rank, order) in ranks.iter().zip(self.picked.chunks_exact(k)) {
            let neighbour = self.carried(block, &from, relabel, order);
            #[cfg(debug_assertions)]
            {
                let mut again = self.space.cursor();
                again.seek(rank);
                debug_assert_eq!(neighbour, again.moved(mv, None), "move {mv} from {rank}");
            }
            f(rank, neighbour);
        }
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
        let solved = self.base.state(self.base.solved());
        ReducedCursor {
            space: self,
            unused: None,
            by_landing: self.classes.landing(&solved).is_some(),
            entry: 0,
            block: u64::MAX,
            routes: vec![Route::Unknown; self.base.move_count()],
            plain: false,
            odd: false,
            fresh: false,
            order: [0; LABELS],
            run: Vec::new(),
            run_orders: Vec::new(),
            picked: Vec::new(),
            order_len: self.classes.order(&solved, &mut [0; LABELS]),
            image: solved.clone(),
            other: solved.clone(),
            next: solved.clone(),
            state: solved,
        }
    }

    /// The position the entry holds (one of its class).
    fn state(&self, entry: u64) -> Vec<u32> {
        let mut state = self.base.state(self.base.solved());
        let mut image = state.clone();
        self.position(entry, &mut state, &mut image);
        state
    }

    fn positions_of(&self, entry: u64) -> Vec<Vec<u32>> {
        self.class(&self.state(entry))
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

    fn measured_rate(&self) -> Rate {
        match self.carries {
            true => CARRIED_RATE,
            false => REDUCED_RATE,
        }
    }
}

/// The rate of a reduced search, entry by entry through the family's moves: the slowest
/// measured, the Towers of Hanoi's.
pub const REDUCED_RATE: Rate = Rate {
    per_thread: 1.1e6,
    run: "the Towers of Hanoi, 5 pegs, 13 discs, with symmetry: 5.1e7 entries in 23.3 s",
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
    use crate::puzzle::hanoi::Hanoi;
    use crate::puzzle::sliding::Sliding;
    use crate::puzzle::{Metric, Ring};
    use crate::search::{Options, Silent, search};

    /// Searches `space` with and without its symmetries: the same positions at each distance,
    /// and each position's entry holding the position's distance.
    fn same_levels<S: StateSpace + Clone + Send + 'static>(space: S) -> Reduced {
        let symmetry = space.symmetry().unwrap();
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
        let symmetry = space.symmetry().unwrap();
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
        let wide = Sliding::new(2, 3).unwrap().symmetry().err().unwrap();
        assert!(wide.contains("square"), "{wide}");
    }
}
