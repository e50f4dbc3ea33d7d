//! A reduced table on the GPU (`shaders/reduced.wgsl`): each block's moves as routes, worked out
//! here once for the whole table, so that the shader finds an entry's neighbours by rank
//! arithmetic on the entry's order alone, as the CPU's cursor does where moves carry rests
//! ([`super::ReducedCursor`]).
//!
//! The shader reads, from `puzzle_tables`:
//! - each symmetry's relabelling of the pieces a rest orders, as nibbles (two words);
//! - each block's parity of orders and its stabilizer (the symmetries other than the identity
//!   that keep its representative): `odd | count << 1`, then where its records begin;
//! - each block's route along each move: the block it lands in, the symmetry that takes the
//!   neighbour there, and the slots of the entry's order the neighbour's order is read from
//!   (slot `j` holds `relabel[order[from[j]]]`), as nibbles;
//! - the stabilizers' records: the symmetry, and the slots it reads an order from.
//!
//! A symmetric block's entry is the least rest of its class: the shader takes the least of the
//! rests of the images of an order under the block's stabilizer, and an entry that is not the
//! least of its class (it holds none) is its own only neighbour, as on the CPU.

use super::{LABELS, Reduced, cursor};
use crate::puzzle::GpuShader;
use crate::rank::{factorial, is_odd, lex_rank, lex_unrank};

/// Most pieces a rest may order on the GPU (one nibble each in a u64).
const MAX_ORDER: usize = 16;

/// Words of a route's record and of a stabilizer's.
const ROUTE_WORDS: usize = 4;
const STABILIZER_WORDS: usize = 3;

/// Entries of a spread of blocks whose shader neighbours [`Routes::check`] compares with the
/// cursor's.
const CHECKED_BLOCKS: u64 = 64;

/// A map of an order's slots, or a relabelling of its pieces: one byte each, 16 at most.
type Slots = [u8; MAX_ORDER];

/// A block as the shader reads it: the parity of its orders, and its stabilizer's records
/// (symmetry, the slots it reads an order from).
struct Block {
    odd: bool,
    stabilizer: Vec<(u16, Slots)>,
}

/// A table's routes, as the shader reads them.
pub(super) struct Routes {
    /// Pieces an order holds.
    k: usize,
    fibre: u64,
    halved: bool,
    moves: usize,
    relabels: Vec<Slots>,
    blocks: Vec<Block>,
    /// Each block's route along each move: block, symmetry, slots.
    routes: Vec<(u32, u16, Slots)>,
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

/// `x`'s first `k` bytes as nibbles, split into two words.
fn nibbles(x: &[u8]) -> [u32; 2] {
    let packed = (x.iter().enumerate()).fold(0u64, |v, (i, &n)| v | u64::from(n) << (4 * i));
    [packed as u32, (packed >> 32) as u32]
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
    fn rest(&self, order: &[u8]) -> u64 {
        let lex = lex_rank(&order[..self.k]);
        if self.halved { lex / 2 } else { lex }
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

    /// The neighbours of `entry` as the shader finds them.
    fn neighbours(&self, entry: u64) -> Vec<u64> {
        let (block, r) = (entry / self.fibre, entry % self.fibre);
        let k = self.k;
        let odd = self.blocks[block as usize].odd;
        let mut order: Slots = [0; MAX_ORDER];
        lex_unrank(if self.halved { 2 * r } else { r }, &mut order[..k]);
        if self.halved && is_odd(&order[..k]) != odd {
            order.swap(k - 2, k - 1);
        }
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

    /// Whether the shader's neighbours are the cursor's, on a spread of entries of a spread of
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

    /// The shader and its words.
    pub(super) fn shader(&self) -> GpuShader {
        let mut tables: Vec<u32> = Vec::new();
        let relabels = tables.len();
        for relabel in &self.relabels {
            tables.extend(nibbles(&relabel[..self.k]));
        }
        let info = tables.len();
        let mut records = 0u32;
        for block in &self.blocks {
            let count = block.stabilizer.len() as u32;
            tables.extend([u32::from(block.odd) | count << 1, records]);
            records += count;
        }
        let routes = tables.len();
        tables.reserve(self.routes.len() * ROUTE_WORDS);
        for (block, g, from) in &self.routes {
            tables.extend([*block, u32::from(*g)]);
            tables.extend(nibbles(&from[..self.k]));
        }
        let stabilizers = tables.len();
        for block in &self.blocks {
            for (h, from) in &block.stabilizer {
                tables.push(u32::from(*h));
                tables.extend(nibbles(&from[..self.k]));
            }
        }
        debug_assert_eq!(
            tables.len(),
            stabilizers + records as usize * STABILIZER_WORDS
        );
        GpuShader {
            source: include_str!("../../../shaders/reduced.wgsl"),
            constants: vec![
                ("MOVES", self.moves as f64),
                ("K", self.k as f64),
                ("FIBRE", self.fibre as f64),
                ("HALVED", f64::from(u8::from(self.halved))),
                ("RELABELS", relabels as f64),
                ("INFO", info as f64),
                ("ROUTES", routes as f64),
                ("STABILIZERS", stabilizers as f64),
            ],
            data: Vec::new(),
            tables,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::hanoi::Hanoi;
    use crate::puzzle::sliding::Sliding;
    use crate::puzzle::{Cursor, Metric, Ring, StateSpace};

    /// Every entry's neighbours as the shader finds them are the cursor's.
    fn every_neighbour_agrees<S: StateSpace + Clone + Send + 'static>(space: S) {
        let symmetry = space.symmetry().unwrap();
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
        let symmetry = hanoi.symmetry().unwrap();
        let reduced = Reduced::new(Box::new(super::super::Erased(hanoi)), symmetry).unwrap();
        assert!(Routes::of(&reduced).is_none());
    }
}
