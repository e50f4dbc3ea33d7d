//! A reduced table's routes: how each move takes each block of a class coordinate, worked out
//! once for the whole table where moves carry rests ([`super::Symmetry::moves_carry_rests`]) and
//! entries are numbered by landings. A route says the block a move lands in, the symmetry that
//! takes the neighbour there, and the slots of the entry's order the neighbour's order is read
//! from (slot `j` holds `relabel[order[from[j]]]`), so that an entry's neighbours are rank
//! arithmetic on its order alone, as the CPU's cursor finds them ([`super::ReducedCursor`]).
//!
//! Two readers: the GPU's shader (`shaders/reduced.wgsl`, the words in [`super::gpu`]), and the
//! sweeps, which take the routes that need no symmetry and keep a window of slots as block
//! moves ([`super::sweeps`]).
//!
//! A symmetric block's entry is the least rest of its class: its neighbours are the least of the
//! rests of the images of an order under the block's stabilizer (the symmetries other than the
//! identity that keep its representative), and an entry that is not the least of its class (it
//! holds none) is its own only neighbour, as on the CPU.

use super::{LABELS, Reduced, cursor};
use crate::rank::{factorial, is_odd, lex_rank, lex_unrank};

/// Most pieces a rest may order (one nibble each in a u64 on the GPU).
pub(super) const MAX_ORDER: usize = 16;

/// Entries of a spread of blocks whose routed neighbours [`Routes::check`] compares with the
/// cursor's.
const CHECKED_BLOCKS: u64 = 64;

/// A map of an order's slots, or a relabelling of its pieces: one byte each, 16 at most.
pub(super) type Slots = [u8; MAX_ORDER];

/// A block: the parity of its orders, and its stabilizer's records (symmetry, the slots it
/// reads an order from).
pub(super) struct Block {
    pub odd: bool,
    pub stabilizer: Vec<(u16, Slots)>,
}

/// A table's routes.
pub(super) struct Routes {
    /// Pieces an order holds.
    pub k: usize,
    /// Entries a block.
    pub fibre: u64,
    /// Whether a rest is an order's rank halved.
    pub halved: bool,
    /// Moves from each block.
    pub moves: usize,
    /// Each symmetry's relabelling of the pieces a rest orders.
    pub relabels: Vec<Slots>,
    pub blocks: Vec<Block>,
    /// Each block's route along each move: block, symmetry, slots.
    pub routes: Vec<(u32, u16, Slots)>,
}

/// The order whose slot `j` holds `relabel[order[from[j]]]` ([`cursor::carry`]).
fn carried(order: &[u8], from: &[u8], relabel: &[u8]) -> Slots {
    let mut next: Slots = [0; MAX_ORDER];
    cursor::carry(order, from, relabel, &mut next[..from.len()]);
    next
}

/// The slots of `order` that `next` is read from ([`cursor::slots`]).
fn slots(order: &[u8], next: &[u8], relabel: &[u8]) -> Slots {
    let mut from: Slots = [0; MAX_ORDER];
    cursor::slots(order, next, relabel, &mut from[..next.len()]);
    from
}

impl Routes {
    /// The routes of `space`, or `None` where the shader cannot search it: rests that are not
    /// orders carried by moves, entries not numbered by landings, orders of more than 16 pieces,
    /// or more than 2^32 blocks or entries a block.
    pub(super) fn of(space: &Reduced) -> Option<Routes> {
        let classes = &*space.classes;
        let (k, moves) = (space.order_len, space.base.move_count());
        let fibre = classes.entries_of(0).end;
        let blocks = classes.size() / fibre;
        let solved = space.base.state(space.base.solved());
        // Rests of no pieces (one entry a block) are carried whatever the moves.
        let fits = (space.carries || k == 0)
            && k <= MAX_ORDER
            && [factorial(k), factorial(k) / 2].contains(&fibre);
        let numbered = classes.landing(&solved).is_some() && blocks * fibre == classes.size();
        if !fits || !numbered || fibre > u64::from(u32::MAX) || blocks > u64::from(u32::MAX) {
            return None;
        }
        let relabels = (0..space.elements.len())
            .map(|g| {
                let mut relabel: Slots = [0; MAX_ORDER];
                relabel[..k].copy_from_slice(classes.relabelling(g as u16));
                relabel
            })
            .collect();
        let mut routes = Routes {
            k,
            fibre,
            halved: fibre * 2 == factorial(k),
            moves,
            relabels,
            blocks: Vec::with_capacity(blocks as usize),
            routes: Vec::with_capacity((blocks as usize) * moves),
        };
        let (mut state, mut image, mut next) = (solved.clone(), solved.clone(), solved.clone());
        let (mut order, mut moved) = ([0u8; LABELS], [0u8; LABELS]);
        for block in 0..blocks {
            space.position(block * fibre, &mut state, &mut image);
            classes.order(&state, &mut order);
            let order = &order[..k];
            let stabilizer = (classes.stabilizer(block as u32).iter())
                .map(|&h| {
                    space.elements[usize::from(h)].apply(&state, &mut image);
                    classes.order(&image, &mut moved);
                    (h, slots(order, &moved[..k], classes.relabelling(h)))
                })
                .collect();
            routes.blocks.push(Block {
                odd: is_odd(order),
                stabilizer,
            });
            for mv in 0..moves {
                space.base.move_state(&state, mv, &mut next);
                let landing = classes.landing(&next).expect("numbered by landings");
                space.elements[usize::from(landing.element)].apply(&next, &mut image);
                classes.order(&image, &mut moved);
                let relabel = classes.relabelling(landing.element);
                let from = slots(order, &moved[..k], relabel);
                routes.routes.push((landing.block, landing.element, from));
            }
        }
        routes.check(space).then_some(routes)
    }

    /// The rest of `order`: its lexicographic rank, halved where the fibre is.
    pub(super) fn rest(&self, order: &[u8]) -> u64 {
        let lex = lex_rank(&order[..self.k]);
        if self.halved { lex / 2 } else { lex }
    }

    /// The order of rest `r` in a block of odd orders (`odd`) or of even ones, into `order`.
    pub(super) fn order_of(&self, r: u64, odd: bool, order: &mut Slots) {
        let k = self.k;
        lex_unrank(if self.halved { 2 * r } else { r }, &mut order[..k]);
        if self.halved && is_odd(&order[..k]) != odd {
            order.swap(k - 2, k - 1);
        }
    }

    /// The least rest of the class of `order` in `block` (its own where no symmetry keeps the
    /// block).
    fn least_rest(&self, block: u32, order: &[u8]) -> u64 {
        (self.blocks[block as usize].stabilizer.iter())
            .map(|(h, from)| {
                let relabel = &self.relabels[usize::from(*h)];
                self.rest(&carried(order, &from[..self.k], relabel))
            })
            .fold(self.rest(order), u64::min)
    }

    /// The neighbours of `entry` as the routes give them (as the shader finds them).
    fn neighbours(&self, entry: u64) -> Vec<u64> {
        let (block, r) = (entry / self.fibre, entry % self.fibre);
        let k = self.k;
        let mut order: Slots = [0; MAX_ORDER];
        self.order_of(r, self.blocks[block as usize].odd, &mut order);
        if self.least_rest(block as u32, &order) < r {
            return vec![entry; self.moves];
        }
        let routes = &self.routes[block as usize * self.moves..][..self.moves];
        (routes.iter())
            .map(|&(to, g, from)| {
                let next = carried(&order, &from[..k], &self.relabels[usize::from(g)]);
                u64::from(to) * self.fibre + self.least_rest(to, &next)
            })
            .collect()
    }

    /// Whether the routed neighbours are the cursor's, on a spread of entries of a spread of
    /// blocks: the routes assume rests ranked as [`super::Positions`] ranks them.
    fn check(&self, space: &Reduced) -> bool {
        use crate::puzzle::{Cursor, StateSpace};
        let blocks = self.blocks.len() as u64;
        let mut cursor = space.cursor();
        let spread =
            (0..CHECKED_BLOCKS.min(blocks)).map(|i| i * blocks / CHECKED_BLOCKS.min(blocks));
        let symmetric = (0..blocks).filter(|&b| !self.blocks[b as usize].stabilizer.is_empty());
        spread
            .chain(symmetric.take(CHECKED_BLOCKS as usize))
            .all(|block| {
                let last = self.fibre - 1;
                [0, 1.min(last), last / 3, last / 2, last]
                    .iter()
                    .all(|&at| {
                        let entry = block * self.fibre + at;
                        cursor.seek(entry);
                        let want: Vec<u64> =
                            (0..self.moves).map(|mv| cursor.neighbour(mv)).collect();
                        let got = self.neighbours(entry);
                        want == got
                    })
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::hanoi::Hanoi;
    use crate::puzzle::sliding::Sliding;
    use crate::puzzle::{Cursor, Metric, Ring, StateSpace};

    /// Every entry's neighbours as the routes give them are the cursor's.
    fn every_neighbour_agrees<S: StateSpace + Clone + Send + 'static>(space: S) {
        let symmetry = space.capabilities().symmetry().unwrap();
        let reduced = Reduced::new(Box::new(super::super::Erased(space)), symmetry).unwrap();
        let routes = Routes::of(&reduced).expect("routes");
        let mut cursor = reduced.cursor();
        for entry in 0..reduced.size() {
            cursor.seek(entry);
            let want: Vec<u64> = (0..reduced.move_count())
                .map(|mv| cursor.neighbour(mv))
                .collect();
            assert_eq!(routes.neighbours(entry), want, "entry {entry}");
        }
    }

    #[test]
    fn routes_give_the_cursors_neighbours() {
        for n in [7, 8] {
            every_neighbour_agrees(Ring::turnstyle(n, Metric::Lrf).unwrap());
            every_neighbour_agrees(Ring::turnstyle(n, Metric::Flips).unwrap());
            every_neighbour_agrees(Ring::topspin(n, 4, Metric::Lrf).unwrap());
        }
        every_neighbour_agrees(Ring::turnstyle(9, Metric::Flips).unwrap());
        every_neighbour_agrees(Ring::turnstyle(10, Metric::Flips).unwrap());
        every_neighbour_agrees(Sliding::new(3, 3).unwrap());
        every_neighbour_agrees(crate::puzzle::rotation::board(3, 3, 2).unwrap());
    }

    #[test]
    fn classes_not_numbered_by_landings_have_no_routes() {
        let hanoi = Hanoi::new(4, 4).unwrap();
        let symmetry = hanoi.capabilities().symmetry().unwrap();
        let reduced = Reduced::new(Box::new(super::super::Erased(hanoi)), symmetry).unwrap();
        assert!(Routes::of(&reduced).is_none());
    }
}
