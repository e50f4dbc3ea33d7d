//! Class coordinates: a part of a position that a puzzle's symmetries act on by themselves, and
//! the rest of the position beside it.
//!
//! A [`Coordinate`] splits a position into `(c, r)`: `c` in `0..values()`, which the symmetries
//! map among themselves (the `c` of a symmetric image of a position depends on the position's
//! `c` alone), and `r` in `0..fibre()`, the rest, the same count for every `c`. The reduced table
//! keeps one block of `fibre()` entries per class of `c` ([`super::Reduced`]). Each move, too,
//! takes `c` to a value that depends on `c` alone (Kociemba's coordinates each have a move
//! table): a cursor works out where a move lands once for a block ([`super::Landing`]), and
//! [`super::Reduced`] checks it on a sample of blocks as it is made.

use crate::rank::{factorial, lex_rank, lex_unrank, next_permutation};

/// A split of a family's positions (states as [`crate::puzzle::StateSpace::state`] writes them)
/// into a class coordinate and the rest.
pub trait Coordinate: Send + Sync {
    /// How many values the coordinate takes.
    fn values(&self) -> u64;
    /// How many rests each value has.
    fn fibre(&self) -> u64;
    /// The coordinate of `state`.
    fn value(&self, state: &[u32]) -> u64;
    /// The rest of `state`.
    fn rest(&self, state: &[u32]) -> u64 {
        let mut order = [0u8; LABELS];
        let k = self.order(state, &mut order);
        self.rest_of_order(&order[..k])
    }
    /// The rest as an order of pieces: for each of the rest's places in turn, the index of the
    /// piece there among the pieces the rest orders, into `order`; how many places there are.
    fn order(&self, state: &[u32], order: &mut [u8; LABELS]) -> usize;
    /// The rest of a state whose rest is `order` ([`Coordinate::order`]).
    fn rest_of_order(&self, order: &[u8]) -> u64;
    /// The order of rest `r` ([`Coordinate::order`]) in a block of odd orders (`odd`) or of
    /// even ones: where only one parity of orders is reachable (a halved rest), the block's
    /// positions hold orders of one parity (the coordinate's pieces fix the rest's).
    fn order_of_rest(&self, r: u64, odd: bool, order: &mut [u8; LABELS]) -> usize;
    /// The order of the rest after `order`'s, in a block of odd orders (`odd`) or of even ones
    /// ([`Coordinate::order_of_rest`]), into `order`; there is one.
    fn next_order(&self, odd: bool, order: &mut [u8; LABELS]);
    /// How `element` relabels the pieces the rest orders: piece `i` of an order becomes piece
    /// `relabelling[i]`.
    fn relabelling(&self, element: &super::Element) -> Vec<u8>;
    /// The coordinate and the rest of `state`.
    fn split(&self, state: &[u32]) -> (u64, u64) {
        (self.value(state), self.rest(state))
    }
    /// The state of coordinate `c` and rest `r` into `state`; `reachable` says whether a state
    /// is one of the space's, where a rest stands for one of two states of which one is.
    fn join(&self, c: u64, r: u64, state: &mut [u32], reachable: &dyn Fn(&[u32]) -> bool);
    /// How `c` and `r` are ranked, in a sentence for the rank order.
    fn describe(&self) -> String;
    /// How many first positions always hold the solved state's pieces.
    fn fixed(&self) -> usize;
    /// The other ways a position may be written that [`Coordinate::split`] reads as the same
    /// position, as maps of positions: none for most families; a ring read from one piece may
    /// be written turned.
    fn writings(&self) -> Vec<super::Element> {
        Vec::new()
    }
    /// Calls `each` with every state of the space (`in_space`, states as `solved` is written)
    /// that `element` keeps, until `each` says to stop: where each label is a piece, made
    /// cycle of positions by cycle ([`super::kept::kept_states`]).
    fn kept_states(
        &self,
        element: &super::Element,
        solved: &[u32],
        in_space: &dyn Fn(&[u32]) -> bool,
        each: &mut dyn FnMut(&[u32]) -> bool,
    ) {
        super::kept::kept_states(element, solved, self.fixed(), in_space, each)
    }
}

/// The positions of a set of pieces as the coordinate, and the order of the others as the rest:
/// for a state of pieces by position, where the symmetries map that set of pieces onto itself.
///
/// `c` ranks the positions of the set's pieces, in the set's order, as a partial permutation
/// (the first piece's position among all free positions, the second's among the rest, ...);
/// `r` is the lexicographic rank of the other pieces' order (their labels in increasing order
/// numbered from 0), halved where only one parity of positions is reachable (of each pair of
/// orders `2r`, `2r + 1` the reachable one, told as [`Half`] says). The first `fixed` positions
/// always hold the same pieces and are left out of both.
pub struct Positions {
    /// Positions in a state.
    len: usize,
    fixed: Vec<u32>,
    set: Vec<u32>,
    others: Vec<u32>,
    /// The index of each label among `others` (`SKIP` for the set's and the fixed ones).
    other_index: [u8; LABELS],
    /// The index of each label in `set` (`SKIP` for the others).
    set_index: [u8; LABELS],
    /// The index of each label in the solved state.
    solved_index: Vec<u8>,
    /// Which of each two orders a halved rest holds; `None`: every order is reachable.
    halved: Option<Half>,
}

/// Room for the labels of a state (its pieces are numbered below `SKIP`), and for an order.
pub const LABELS: usize = 32;
/// The index of a label outside a list, and a slot written to and never read: the loops over
/// a state's positions run without a branch per position.
const SKIP: u8 = LABELS as u8 - 1;

/// Which of each two orders (the last two of the rest swapped) a halved rest holds: the one
/// the space holds, of the two states that differ by a swap of two pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Half {
    /// The one of the solved state's parity (as an arrangement of its pieces): where the moves
    /// reach exactly the arrangements of one parity (Turnstyle and TopSpin of an odd size, a
    /// permutation puzzle whose moves are even). Told from the state alone.
    Parity,
    /// The one the space says it holds, asked state by state (sliding tiles, where the blank's
    /// place counts too).
    Asked,
}

impl Positions {
    /// The coordinate of the pieces `set` among the positions after the first `fixed` of
    /// `solved` (which those always hold); `halved`: only one parity of each order is
    /// reachable, and which one.
    pub fn new(solved: &[u32], fixed: usize, set: Vec<u32>, halved: Option<Half>) -> Positions {
        let len = solved.len();
        let mut others: Vec<u32> = (solved[fixed..].iter().copied())
            .filter(|x| !set.contains(x))
            .collect();
        others.sort_unstable();
        let top = solved.iter().copied().max().unwrap_or(0) as usize;
        assert!(top < SKIP as usize, "labels below {SKIP}");
        let mut other_index = [SKIP; LABELS];
        for (i, &x) in others.iter().enumerate() {
            other_index[x as usize] = i as u8;
        }
        let mut set_index = [SKIP; LABELS];
        for (i, &x) in set.iter().enumerate() {
            set_index[x as usize] = i as u8;
        }
        let mut solved_index = vec![u8::MAX; top + 1];
        for (i, &x) in solved.iter().enumerate() {
            solved_index[x as usize] = i as u8;
        }
        Positions {
            len,
            fixed: solved[..fixed].to_vec(),
            set,
            others,
            other_index,
            set_index,
            solved_index,
            halved,
        }
    }

    /// Whether `state` is an odd arrangement of the solved state's pieces.
    fn is_odd(&self, state: &[u32]) -> bool {
        let mut labels = [0u8; crate::rank::MAX_LEN];
        for (label, &x) in labels.iter_mut().zip(state) {
            *label = self.solved_index[x as usize];
        }
        crate::rank::is_odd(&labels[..state.len()])
    }

    /// The free positions.
    fn free(&self) -> usize {
        self.len - self.fixed.len()
    }
}

impl Coordinate for Positions {
    fn values(&self) -> u64 {
        factorial(self.free()) / factorial(self.free() - self.set.len())
    }

    fn fibre(&self) -> u64 {
        let rest = factorial(self.others.len());
        if self.halved.is_some() {
            rest / 2
        } else {
            rest
        }
    }

    fn value(&self, state: &[u32]) -> u64 {
        let free = &state[self.fixed.len()..];
        let m = free.len() as u64;
        // Where each piece of the set is, in one reading (the others' written to `SKIP`).
        let mut at = [0u32; LABELS];
        for (p, &x) in free.iter().enumerate() {
            debug_assert!(x < u32::from(SKIP), "label {x} below {SKIP}");
            at[usize::from(self.set_index[x as usize % LABELS]) % LABELS] = p as u32;
        }
        debug_assert!(
            (self.set.iter()).all(|x| free.contains(x)),
            "every piece of the set is free"
        );
        let mut used = 0u32;
        let mut c = 0u64;
        for (i, &p) in at[..self.set.len()].iter().enumerate() {
            let digit = p - (used & ((1 << p) - 1)).count_ones();
            c = c * (m - i as u64) + u64::from(digit);
            used |= 1 << p;
        }
        c
    }

    fn order(&self, state: &[u32], order: &mut [u8; LABELS]) -> usize {
        let free = &state[self.fixed.len()..];
        // The others' indices in order, each set's written and then written over.
        let mut k = 0;
        for &x in free {
            debug_assert!(x < u32::from(SKIP), "label {x} below {SKIP}");
            let i = self.other_index[x as usize % LABELS];
            order[k % LABELS] = i;
            k += usize::from(i != SKIP);
        }
        k
    }

    fn rest_of_order(&self, order: &[u8]) -> u64 {
        let r = lex_rank(order);
        if self.halved.is_some() { r / 2 } else { r }
    }

    fn order_of_rest(&self, r: u64, odd: bool, order: &mut [u8; LABELS]) -> usize {
        let k = self.others.len();
        let order = &mut order[..k];
        match self.halved {
            None => lex_unrank(r, order),
            Some(_) => {
                // Of orders 2r and 2r + 1 (the last two swapped), the one of the block's parity.
                lex_unrank(2 * r, order);
                if crate::rank::is_odd(order) != odd {
                    order.swap(k - 2, k - 1);
                }
            }
        }
        k
    }

    fn next_order(&self, odd: bool, order: &mut [u8; LABELS]) {
        let k = self.others.len();
        let order = &mut order[..k];
        let last = "a rest after it";
        match self.halved {
            None => {
                next_permutation(order).expect(last);
            }
            Some(_) => {
                // Orders 2r and 2r + 1 differ in their last two pieces, ascending in 2r. From
                // 2r + 1 to its successor, 2r + 2, then to 2r + 3 where that is of the other
                // parity.
                let mut odd_now = odd;
                if order[k - 2] < order[k - 1] {
                    order.swap(k - 2, k - 1);
                    odd_now = !odd_now;
                }
                if next_permutation(order).expect(last) {
                    odd_now = !odd_now;
                }
                if odd_now != odd {
                    order.swap(k - 2, k - 1);
                }
            }
        }
    }

    fn relabelling(&self, element: &super::Element) -> Vec<u8> {
        (self.others.iter())
            .map(|&x| self.other_index[element.labels[x as usize] as usize])
            .collect()
    }

    fn join(&self, c: u64, r: u64, state: &mut [u32], reachable: &dyn Fn(&[u32]) -> bool) {
        state[..self.fixed.len()].copy_from_slice(&self.fixed);
        let m = self.free();
        let k = self.set.len();
        // The set's digits, last first.
        let mut digits = [0u32; crate::rank::MAX_LEN];
        let mut rest = c;
        for i in (0..k).rev() {
            let (quotient, digit) = crate::rank::div_rem_small(rest, m - i);
            digits[i] = digit as u32;
            rest = quotient;
        }
        let free = &mut state[self.fixed.len()..];
        let mut used = 0u32;
        for (&digit, &piece) in digits[..k].iter().zip(&self.set) {
            let p = crate::rank::nth_set_bit(!used & ((1u32 << m) - 1), digit);
            free[p as usize] = piece;
            used |= 1 << p;
        }
        let mut order = [0u8; crate::rank::MAX_LEN];
        let order = &mut order[..self.others.len()];
        lex_unrank(if self.halved.is_some() { 2 * r } else { r }, order);
        let mut slots = [0usize; crate::rank::MAX_LEN];
        let mut j = 0;
        for (p, slot) in free.iter_mut().enumerate() {
            if used & (1 << p) == 0 {
                *slot = self.others[order[j] as usize];
                slots[j] = p;
                j += 1;
            }
        }
        let swap = match self.halved {
            None => false,
            Some(Half::Parity) => self.is_odd(state),
            Some(Half::Asked) => !reachable(state),
        };
        if swap {
            let (a, b) = (
                self.fixed.len() + slots[j - 2],
                self.fixed.len() + slots[j - 1],
            );
            state.swap(a, b);
        }
        debug_assert!(reachable(state), "{state:?} is one of the space's states");
    }

    fn describe(&self) -> String {
        let set: Vec<String> = self.set.iter().map(u32::to_string).collect();
        format!(
            "c ranks the positions of pieces {} (in that order) among the {} free positions as a partial permutation; r is the lexicographic rank of the other pieces' order{}",
            set.join(", "),
            self.free(),
            // The same numbering however the reachable one is told.
            match self.halved {
                None => "",
                Some(_) => ", halved (of orders 2r and 2r + 1 the reachable one)",
            }
        )
    }

    fn fixed(&self) -> usize {
        self.fixed.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(coord: &dyn Coordinate, solved: &[u32], reachable: &dyn Fn(&[u32]) -> bool) {
        let mut state = solved.to_vec();
        let mut seen = std::collections::HashSet::new();
        for c in 0..coord.values() {
            for r in 0..coord.fibre() {
                coord.join(c, r, &mut state, reachable);
                assert!(reachable(&state), "{state:?}");
                assert_eq!(coord.split(&state), (c, r), "{state:?}");
                assert!(seen.insert(state.clone()));
            }
        }
        orders_follow(coord, solved, reachable);
    }

    /// Each rest's order, unranked from the rest or stepped to from the rest before, is the
    /// order read from its position.
    fn orders_follow(coord: &dyn Coordinate, solved: &[u32], reachable: &dyn Fn(&[u32]) -> bool) {
        let mut state = solved.to_vec();
        let (mut read, mut unranked, mut stepped) = ([0; LABELS], [0; LABELS], [0; LABELS]);
        for c in 0..coord.values() {
            coord.join(c, 0, &mut state, reachable);
            let k = coord.order(&state, &mut stepped);
            let odd = crate::rank::is_odd(&stepped[..k]);
            for r in 0..coord.fibre() {
                coord.join(c, r, &mut state, reachable);
                assert_eq!(coord.order(&state, &mut read), k);
                assert_eq!(coord.order_of_rest(r, odd, &mut unranked), k);
                if r > 0 {
                    coord.next_order(odd, &mut stepped);
                }
                assert_eq!(read[..k], unranked[..k], "{c} {r}");
                assert_eq!(read[..k], stepped[..k], "{c} {r}");
                assert_eq!(coord.rest_of_order(&read[..k]), r);
            }
        }
    }

    #[test]
    fn positions_split_and_join_every_state_once() {
        let solved = [1, 2, 3, 4, 5, 6];
        round_trip(
            &Positions::new(&solved, 0, vec![4, 1], None),
            &solved,
            &|_| true,
        );
        // Position 0 always holds piece 1.
        round_trip(
            &Positions::new(&solved, 1, vec![2, 6], None),
            &solved,
            &|s| s[0] == 1,
        );
        // Even states only.
        let even = |s: &[u32]| {
            let labels: Vec<u8> = s.iter().map(|&x| x as u8 - 1).collect();
            !crate::rank::is_odd(&labels)
        };
        for half in [Half::Parity, Half::Asked] {
            let halved = Positions::new(&solved, 0, vec![3], Some(half));
            assert_eq!(halved.values() * halved.fibre(), 360);
            round_trip(&halved, &solved, &even);
        }
    }
}
