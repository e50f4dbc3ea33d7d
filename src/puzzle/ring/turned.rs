//! The class coordinate of a ring read from piece 1 under turns of its labels.
//!
//! In the flips metric a ring's pieces may be relabelled by a turn (piece `x` becomes `x + d`,
//! counting round from `n` to 1) and the ring read from piece 1 again: a symmetry whose map of
//! positions depends on where the new piece 1 was, so no coordinate of a fixed set of positions
//! is kept. The positions of pieces `1, 1 + d, 1 + 2d, ...` (for `d` dividing `n`), counted
//! from piece 1, are: after a turn by `d` the ring is read from one of them, and their
//! positions from it follow from theirs from piece 1 ([`Turned`]). A mirror of the ring keeps
//! them too. So turns by multiples of `d`, `n / d` of them, and their mirrors act on this
//! coordinate alone, as Kociemba's class coordinates need.

use crate::puzzle::symmetry::{Coordinate, Element, Half, LABELS, Positions};
use crate::rank::MAX_LEN;

/// The positions of pieces `1 + d, 1 + 2d, ...` after piece 1 as the coordinate and the
/// order of the others as the rest ([`Positions`]), for a ring of `n` pieces written from any
/// piece: it is read from piece 1.
pub struct Turned {
    n: usize,
    positions: Positions,
}

impl Turned {
    /// The coordinate of turns by `d` (dividing `n`, less than `n`) of a ring of `n` pieces;
    /// `halved`: only one parity of each order is reachable (the solved ring's).
    pub fn new(n: usize, d: usize, halved: bool) -> Turned {
        let solved: Vec<u32> = (1..=n as u32).collect();
        let set = (1 + d as u32..=n as u32).step_by(d).collect();
        Turned {
            n,
            positions: Positions::new(&solved, 1, set, halved.then_some(Half::Parity)),
        }
    }

    /// The number of values of the coordinate of turns by `d` of a ring of `n` pieces.
    pub fn values(n: usize, d: usize) -> u64 {
        let free = n - 1;
        crate::rank::factorial(free) / crate::rank::factorial(free - (n / d - 1))
    }
}

impl Turned {
    /// `state` read from piece 1: itself, or turned into `read`.
    fn read_from_one<'a>(&self, state: &'a [u32], read: &'a mut [u32; MAX_LEN]) -> &'a [u32] {
        let one = state.iter().position(|&x| x == 1).unwrap_or(0);
        if one == 0 {
            return state;
        }
        (0..self.n).for_each(|i| read[i] = state[(one + i) % self.n]);
        &read[..self.n]
    }
}

impl Coordinate for Turned {
    fn values(&self) -> u64 {
        self.positions.values()
    }

    fn fibre(&self) -> u64 {
        self.positions.fibre()
    }

    fn order(&self, state: &[u32], order: &mut [u8; LABELS]) -> usize {
        let mut read = [0u32; MAX_LEN];
        self.positions
            .order(self.read_from_one(state, &mut read), order)
    }

    fn rest_of_order(&self, order: &[u8]) -> u64 {
        self.positions.rest_of_order(order)
    }

    fn order_of_rest(&self, r: u64, odd: bool, order: &mut [u8; LABELS]) -> usize {
        self.positions.order_of_rest(r, odd, order)
    }

    fn next_order(&self, odd: bool, order: &mut [u8; LABELS]) {
        self.positions.next_order(odd, order)
    }

    fn relabelling(&self, element: &Element) -> Vec<u8> {
        self.positions.relabelling(element)
    }

    fn value(&self, state: &[u32]) -> u64 {
        let mut read = [0u32; MAX_LEN];
        self.positions.value(self.read_from_one(state, &mut read))
    }

    fn join(&self, c: u64, r: u64, state: &mut [u32], reachable: &dyn Fn(&[u32]) -> bool) {
        self.positions.join(c, r, state, reachable);
    }

    fn describe(&self) -> String {
        format!("the ring read from piece 1; {}", self.positions.describe())
    }

    fn fixed(&self) -> usize {
        1
    }

    /// The ring turned by each number of places.
    fn writings(&self) -> Vec<Element> {
        let n = self.n;
        (1..n)
            .map(|q| Element {
                positions: (0..n).map(|p| (p + q) % n).collect(),
                labels: (0..=n as u32).collect(),
            })
            .collect()
    }
}
