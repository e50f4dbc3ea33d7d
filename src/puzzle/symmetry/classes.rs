//! Class ranks: dense numbers for the classes of symmetric positions.
//!
//! A [`Classes`] numbers the classes of a space's positions under its symmetries, one table
//! entry each (a few entries may hold no class), and says how many positions each entry stands
//! for. [`ByCoordinate`] makes one from a class coordinate for any family whose symmetries act
//! on its states; a family may give its own (the Towers of Hanoi's pegs,
//! [`super::relabel::Relabelled`]).
//!
//! # Classes by a coordinate
//!
//! A [`Coordinate`] splits a position `p` into a coordinate `c(p)`, which the symmetries map
//! among its own values, and a rest `r(p)`. Each coordinate value `c` has a representative (the
//! least value of its orbit) and an element `s_c` taking `c` to it (the identity for a
//! representative). A position stands in the table as `s_c(p) · p`, whose coordinate is a
//! representative: `entry = block * fibre + r`, one block of `fibre` entries per orbit of
//! coordinate values, numbered by representative (Kociemba's class coordinates).
//!
//! Where a representative is itself symmetric (some elements `h` keep it), the positions `h · q`
//! of one class all lie in its block: the class's entry is the least of their rests, and the
//! other entries hold no class (no pass reaches them). Each entry stands for its class, `|G|`
//! positions but for the positions some symmetry keeps, which lie in those blocks only: they
//! are found as the space is made and listed with their classes' sizes
//! ([`crate::puzzle::Weights::special`]).

use super::{Coordinate, Element, LABELS, MAX_CLASS_WORK};
use crate::puzzle::Weights;
use rayon::prelude::*;
use std::collections::{BTreeSet, HashMap};

/// A dense numbering of the classes of a space's positions.
pub trait Classes: Send + Sync {
    /// The number of entries.
    fn size(&self) -> u64;
    /// The entry of the class of `state`; `image` and `other` are room for states.
    fn entry(&self, state: &[u32], image: &mut [u32], other: &mut [u32]) -> u64;
    /// The position of the class entry `entry` holds, into `state` (`image`: room for a state),
    /// and whether it holds one: where not, `state` is a position of a class another entry
    /// holds. `reachable` says whether a state is one of the space's.
    fn position(
        &self,
        entry: u64,
        state: &mut [u32],
        image: &mut [u32],
        reachable: &dyn Fn(&[u32]) -> bool,
    ) -> bool;
    /// How many positions the entries stand for.
    fn weights(&self) -> Weights;
    /// The number of positions of the space.
    fn positions(&self) -> u64;
    /// How entries are numbered, for the rank order.
    fn describe(&self) -> String;
    /// Where the class of `state` lies by a class coordinate alone ([`Landing`]), where the
    /// entries are numbered so; `None` where not.
    fn landing(&self, state: &[u32]) -> Option<Landing> {
        let _ = state;
        None
    }
    /// The entry of `state`, whose class lies at `landing` ([`Classes::landing`]).
    fn entry_at(
        &self,
        state: &[u32],
        landing: Landing,
        image: &mut [u32],
        other: &mut [u32],
    ) -> u64 {
        let _ = landing;
        self.entry(state, image, other)
    }
    /// The block of entry `entry`, where entries are numbered by landings.
    fn block(&self, entry: u64) -> u64 {
        let _ = entry;
        0
    }
    /// The entries of block `block`, where entries are numbered by landings.
    fn entries_of(&self, block: u64) -> std::ops::Range<u64> {
        let _ = block;
        0..self.size()
    }
    /// Where an entry's rest is an order of pieces ([`Coordinate::order`]): the order of the
    /// rest of `state` (a position in the block it lies in) into `order`, and its length; 0
    /// where rests are not orders.
    fn order(&self, state: &[u32], order: &mut [u8; LABELS]) -> usize {
        let _ = (state, order);
        0
    }
    /// The order of the rest of entry `entry`'s position ([`Coordinate::order_of_rest`]), in
    /// a block of odd orders or of even ones, and its length; 0 where rests are not orders.
    fn order_of_rest(&self, entry: u64, odd: bool, order: &mut [u8; LABELS]) -> usize {
        let _ = (entry, odd, order);
        0
    }
    /// The order of the rest of the entry after the one whose order is `order`, in the same
    /// block ([`Coordinate::next_order`]), where rests are orders.
    fn next_order(&self, odd: bool, order: &mut [u8; LABELS]) {
        let _ = (odd, order);
    }
    /// How symmetry `element` (an index into the group) relabels the pieces a rest orders
    /// ([`Coordinate::relabelling`]); empty where rests are not orders.
    fn relabelling(&self, element: u16) -> &[u8] {
        let _ = element;
        &[]
    }
    /// The entry of the class of block `block`'s position whose rest is `order`: that rest's
    /// entry where no symmetry but the identity keeps the block's coordinate value, else the
    /// entry of the least rest of the position's images by those that do. `None` where rests
    /// are not orders, or the symmetries that keep the block do not move its orders by one map.
    fn entry_of_order(&self, block: u32, order: &[u8]) -> Option<u64> {
        let _ = (block, order);
        None
    }
    /// Whether the position of block `block` whose rest is `order` holds its class's entry
    /// (its rest is the least of its class's in the block), where [`Classes::entry_of_order`]
    /// gives the block's entries; true where no symmetry keeps the block.
    fn holds_order(&self, block: u32, order: &[u8]) -> bool {
        let _ = (block, order);
        true
    }
    /// The symmetries (indices into the group) other than the identity that keep block
    /// `block`'s coordinate value, where entries are numbered by landings.
    fn stabilizer(&self, block: u32) -> &[u16] {
        let _ = block;
        &[]
    }
}

/// Where a position's class lies by its class coordinate alone: the block of the coordinate's
/// orbit, and the symmetry that takes the coordinate to the block's representative. A move
/// takes every position of a block to one landing (the coordinate's moves act on it alone, as
/// Kociemba's coordinates do, each with its move table): a cursor works it out once a block
/// and move, not once a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Landing {
    /// The block.
    pub block: u32,
    /// The symmetry (an index into the group).
    pub element: u16,
}

// Coordinate values are held in 32 bits: the work limit keeps them fewer.
const _: () = assert!(MAX_CLASS_WORK <= u32::MAX as u64);

/// Classes numbered by a class coordinate (see the module's documentation).
pub struct ByCoordinate {
    elements: Vec<Element>,
    coordinate: Box<dyn Coordinate>,
    /// For each coordinate value, its block and the element that takes it to the block's
    /// representative.
    block_of: Vec<(u32, u16)>,
    /// Each block's representative coordinate value.
    representatives: Vec<u64>,
    /// For each block, the elements other than the identity that keep its representative.
    stabilizers: Vec<Vec<u16>>,
    /// The entries of positions some symmetry keeps, with the positions each stands for.
    special: Vec<(u64, u64)>,
    positions: u64,
    /// How many entries hold a class (the others lie in symmetric blocks).
    classes: u64,
    fibre: u64,
    /// How each element relabels the pieces a rest orders.
    relabellings: Vec<Vec<u8>>,
    /// For each block, the slots each element of its stabilizer reads a rest's order from
    /// ([`ByCoordinate::kept_slots`]); every one empty where rests are not moved so.
    kept_slots: Vec<Vec<[u8; LABELS]>>,
}

impl ByCoordinate {
    /// The classes of `elements` (the identity first) by `coordinate`, for a space whose solved
    /// state is `solved` and whose states, as it writes them, `in_space` tells; or why they
    /// cannot be numbered.
    pub fn new(
        elements: Vec<Element>,
        coordinate: Box<dyn Coordinate>,
        solved: &[u32],
        in_space: &(dyn Fn(&[u32]) -> bool + Sync),
    ) -> Result<ByCoordinate, String> {
        let (values, order) = (coordinate.values(), elements.len() as u64);
        if values.saturating_mul(order) > MAX_CLASS_WORK || order > u64::from(u16::MAX) {
            return Err(format!(
                "its class coordinate takes {values} values under {order} symmetries, more than the {MAX_CLASS_WORK} a reduced table works out"
            ));
        }
        // Each value's representative (the least value of its orbit) and the element that takes
        // it there, 8 bytes a value.
        let mut block_of: Vec<(u32, u16)> = (0..values)
            .into_par_iter()
            .map_init(
                || (solved.to_vec(), solved.to_vec()),
                |(state, image), c| {
                    coordinate.join(c, 0, state, &|_| true);
                    let mut best = (c, 0u16);
                    for (g, element) in elements.iter().enumerate().skip(1) {
                        element.apply(state, image);
                        let value = coordinate.value(image);
                        if value < best.0 {
                            best = (value, g as u16);
                        }
                    }
                    (best.0 as u32, best.1)
                },
            )
            .collect();
        let representatives: Vec<u64> = (block_of.iter().enumerate())
            .filter(|&(c, &(rep, _))| rep as usize == c)
            .map(|(c, _)| c as u64)
            .collect();
        // Blocks are numbered by their representatives, ascending.
        block_of.par_iter_mut().for_each(|(rep, _)| {
            *rep = representatives.partition_point(|&r| r < u64::from(*rep)) as u32;
        });
        // The elements that keep each representative.
        let stabilizers: Vec<Vec<u16>> = (representatives.par_iter())
            .map_init(
                || (solved.to_vec(), solved.to_vec()),
                |(state, image), &c| {
                    coordinate.join(c, 0, state, &|_| true);
                    (1..elements.len() as u16)
                        .filter(|&g| {
                            elements[g as usize].apply(state, image);
                            coordinate.value(image) == c
                        })
                        .collect()
                },
            )
            .collect();
        let fibre = coordinate.fibre();
        let relabellings = elements.iter().map(|g| coordinate.relabelling(g)).collect();
        let mut classes = ByCoordinate {
            relabellings,
            elements,
            coordinate,
            block_of,
            representatives,
            stabilizers,
            special: Vec::new(),
            positions: 0,
            classes: 0,
            fibre,
            kept_slots: Vec::new(),
        };
        classes.kept_slots = classes.kept_slots(solved, in_space);
        classes.find_special(solved, in_space)?;
        Ok(classes)
    }

    /// Finds the positions some symmetry keeps (the special entries) and counts the classes
    /// and positions the table stands for: each symmetry's kept positions are made cycle by
    /// cycle ([`super::kept::kept_states`]), never the blocks searched through; a symmetric block's classes
    /// are the orbits of its representative's stabilizer, counted by Burnside's lemma from the
    /// positions of the block each element keeps.
    fn find_special(
        &mut self,
        solved: &[u32],
        in_space: &(dyn Fn(&[u32]) -> bool + Sync),
    ) -> Result<(), String> {
        let order = self.elements.len() as u64;
        let writings = self.coordinate.writings();
        // Element by element, side by side: how many positions it keeps, how many of them lie
        // in each symmetric block it keeps, and their entries.
        let kept: Vec<(u64, HashMap<u32, u64>, Vec<u64>)> = (1..self.elements.len())
            .into_par_iter()
            .map(|h| {
                let element = &self.elements[h];
                let (mut image, mut other) = (solved.to_vec(), solved.to_vec());
                let (mut found, mut fixed, mut entries) = (0u64, HashMap::new(), Vec::new());
                // A position the element keeps is kept as written, or written another way.
                let written = writings.iter().map(|w| element.then(w));
                for kept_by in std::iter::once(element.clone()).chain(written) {
                    let coordinate = &self.coordinate;
                    coordinate.kept_states(&kept_by, solved, in_space, &mut |state| {
                        found += 1;
                        let (block, g) = self.block_of[self.coordinate.value(state) as usize];
                        if g == 0 && self.stabilizers[block as usize].contains(&(h as u16)) {
                            *fixed.entry(block).or_default() += 1;
                        }
                        entries.push(self.entry(state, &mut image, &mut other));
                        found <= MAX_KEPT
                    });
                }
                entries.sort_unstable();
                entries.dedup();
                (found, fixed, entries)
            })
            .collect();
        if kept.iter().any(|&(found, _, _)| found > MAX_KEPT) {
            return Err(format!(
                "a symmetry keeps more than {MAX_KEPT} positions, more than a reduced table lists"
            ));
        }
        // For each symmetric block, the positions of the block its stabilizer's elements keep.
        let mut fixed: HashMap<u32, u64> = HashMap::new();
        let mut entries = BTreeSet::new();
        for (_, kept_fixed, kept_entries) in kept {
            for (block, count) in kept_fixed {
                *fixed.entry(block).or_default() += count;
            }
            entries.extend(kept_entries);
        }
        // Each kept position's class, at its entry, weighs the positions of the class.
        let entries: Vec<u64> = entries.into_iter().collect();
        self.special = (entries.par_iter())
            .map_init(
                || (solved.to_vec(), solved.to_vec()),
                |(state, image), &entry| {
                    self.join(entry, state, in_space);
                    let split = self.coordinate.split(state);
                    let kept = (self.elements.iter())
                        .filter(|g| {
                            g.apply(state, image);
                            self.coordinate.split(image) == split
                        })
                        .count() as u64;
                    (entry, order / kept)
                },
            )
            .collect();
        let mut classes = self.size();
        for (k, stabilizer) in self.stabilizers.iter().enumerate() {
            if !stabilizer.is_empty() {
                let kept = fixed.get(&(k as u32)).copied().unwrap_or(0);
                let elements = 1 + stabilizer.len() as u64;
                if !(self.fibre + kept).is_multiple_of(elements) {
                    return Err("its class coordinate does not split the positions evenly".into());
                }
                let orbits = (self.fibre + kept) / elements;
                classes -= self.fibre - orbits;
            }
        }
        let lighter: u64 = self.special.iter().map(|&(_, w)| order - w).sum();
        self.positions = classes * order - lighter;
        self.classes = classes;
        Ok(())
    }

    /// The position of `entry`'s block and rest, into `state`.
    fn join(&self, entry: u64, state: &mut [u32], reachable: &dyn Fn(&[u32]) -> bool) {
        let c = self.representatives[(entry / self.fibre) as usize];
        (self.coordinate).join(c, entry % self.fibre, state, reachable);
    }

    /// How the symmetries that keep each block's representative move the orders of the block's
    /// rests: for each block, each stabilizer element's slots (an image's order is the order
    /// carried by them and the element's relabelling, [`super::cursor::carry`], as a move
    /// carries it). Worked out from each symmetric block's first position and checked on a
    /// spread of entries of a spread of symmetric blocks; none (every block's list empty) where
    /// rests are not orders or a check fails, and entries are then found from positions.
    fn kept_slots(
        &self,
        solved: &[u32],
        in_space: &(dyn Fn(&[u32]) -> bool + Sync),
    ) -> Vec<Vec<[u8; LABELS]>> {
        let blocks = self.representatives.len() as u64;
        let none = || vec![Vec::new(); blocks as usize];
        let state = solved.to_vec();
        if self.coordinate.order(&state, &mut [0; LABELS]) == 0 {
            return none();
        }
        let slots: Vec<Vec<[u8; LABELS]>> = (0..blocks)
            .into_par_iter()
            .map_init(
                || (state.clone(), state.clone()),
                |(state, image), block| {
                    let stabilizer = &self.stabilizers[block as usize];
                    if stabilizer.is_empty() {
                        return Vec::new();
                    }
                    self.join(block * self.fibre, state, in_space);
                    let (mut order, mut moved) = ([0u8; LABELS], [0u8; LABELS]);
                    let k = self.coordinate.order(state, &mut order);
                    (stabilizer.iter())
                        .map(|&h| {
                            self.elements[h as usize].apply(state, image);
                            self.coordinate.order(image, &mut moved);
                            let mut from = [0u8; LABELS];
                            let relabel = &self.relabellings[h as usize];
                            super::cursor::slots(&order[..k], &moved[..k], relabel, &mut from[..k]);
                            from
                        })
                        .collect()
                },
            )
            .collect();
        // The check: on up to CHECKED_KEPT symmetric blocks, a spread of rests each, the least
        // rest by orders is the least rest by positions.
        let symmetric: Vec<u64> = (0..blocks)
            .filter(|&b| !self.stabilizers[b as usize].is_empty())
            .collect();
        let step = symmetric.len().div_ceil(CHECKED_KEPT).max(1);
        let last = self.fibre - 1;
        let sound = symmetric.par_iter().step_by(step).all(|&block| {
            let (mut state, mut image, mut other) = (state.clone(), state.clone(), state.clone());
            let mut order = [0u8; LABELS];
            [0, 1.min(last), last / 3, last / 2, last * 2 / 3, last]
                .iter()
                .all(|&r| {
                    self.join(block * self.fibre + r, &mut state, in_space);
                    let k = self.coordinate.order(&state, &mut order);
                    let landing = Landing {
                        block: block as u32,
                        element: 0,
                    };
                    let by_positions = self.entry_at(&state, landing, &mut image, &mut other);
                    let by_orders = self.least_of_order(block as u32, &order[..k], &slots);
                    by_orders == Some(by_positions)
                })
        });
        match sound {
            true => slots,
            false => none(),
        }
    }

    /// The entry of the class of block `block`'s position whose rest is `order`, by `slots`
    /// ([`ByCoordinate::kept_slots`]): the least rest of its images by the block's stabilizer.
    /// `None` where `slots` does not give the block's stabilizer.
    fn least_of_order(&self, block: u32, order: &[u8], slots: &[Vec<[u8; LABELS]>]) -> Option<u64> {
        let slots = slots.get(block as usize)?;
        if slots.len() != self.stabilizers[block as usize].len() {
            return None;
        }
        let own = self.coordinate.rest_of_order(order);
        let r = self.image_rests(block, order, slots).fold(own, u64::min);
        Some(u64::from(block) * self.fibre + r)
    }

    /// The rests of the images of block `block`'s position whose rest is `order` by the
    /// elements of the block's stabilizer, each read through its `slots`.
    fn image_rests<'a>(
        &'a self,
        block: u32,
        order: &'a [u8],
        slots: &'a [[u8; LABELS]],
    ) -> impl Iterator<Item = u64> + 'a {
        let k = order.len();
        let stabilizer = &self.stabilizers[block as usize];
        stabilizer.iter().zip(slots).map(move |(&h, from)| {
            let mut image = [0u8; LABELS];
            let relabel = &self.relabellings[h as usize];
            super::cursor::carry(order, &from[..k], relabel, &mut image[..k]);
            self.coordinate.rest_of_order(&image[..k])
        })
    }

    /// Whether `entry`, whose position is `state`, holds a class: its position has the least
    /// rest of its class in the block.
    fn holds_class(&self, entry: u64, state: &[u32], image: &mut [u32]) -> bool {
        let r = entry % self.fibre;
        (self.stabilizers[(entry / self.fibre) as usize].iter()).all(|&h| {
            self.elements[h as usize].apply(state, image);
            self.coordinate.rest(image) >= r
        })
    }
}

/// Most positions one symmetry may keep: they are listed as the space is made.
const MAX_KEPT: u64 = 1 << 26;

/// Symmetric blocks on which [`ByCoordinate::kept_slots`] are checked.
const CHECKED_KEPT: usize = 256;

impl Classes for ByCoordinate {
    fn size(&self) -> u64 {
        self.representatives.len() as u64 * self.fibre
    }

    fn entry(&self, state: &[u32], image: &mut [u32], other: &mut [u32]) -> u64 {
        let (block, element) = self.block_of[self.coordinate.value(state) as usize];
        self.entry_at(state, Landing { block, element }, image, other)
    }

    fn landing(&self, state: &[u32]) -> Option<Landing> {
        let (block, element) = self.block_of[self.coordinate.value(state) as usize];
        Some(Landing { block, element })
    }

    fn block(&self, entry: u64) -> u64 {
        entry / self.fibre
    }

    fn entries_of(&self, block: u64) -> std::ops::Range<u64> {
        block * self.fibre..(block + 1) * self.fibre
    }

    fn order(&self, state: &[u32], order: &mut [u8; LABELS]) -> usize {
        self.coordinate.order(state, order)
    }

    fn order_of_rest(&self, entry: u64, odd: bool, order: &mut [u8; LABELS]) -> usize {
        self.coordinate
            .order_of_rest(entry % self.fibre, odd, order)
    }

    fn next_order(&self, odd: bool, order: &mut [u8; LABELS]) {
        self.coordinate.next_order(odd, order)
    }

    fn relabelling(&self, element: u16) -> &[u8] {
        &self.relabellings[element as usize]
    }

    fn stabilizer(&self, block: u32) -> &[u16] {
        &self.stabilizers[block as usize]
    }

    fn entry_of_order(&self, block: u32, order: &[u8]) -> Option<u64> {
        self.least_of_order(block, order, &self.kept_slots)
    }

    fn holds_order(&self, block: u32, order: &[u8]) -> bool {
        let own = self.coordinate.rest_of_order(order);
        // Most entries of a symmetric block hold no class: the first smaller image tells.
        let slots = &self.kept_slots[block as usize];
        self.image_rests(block, order, slots).all(|r| r >= own)
    }

    fn entry_at(
        &self,
        state: &[u32],
        landing: Landing,
        image: &mut [u32],
        other: &mut [u32],
    ) -> u64 {
        let coordinate = &self.coordinate;
        let Landing { block, element: g } = landing;
        // The rest is read once, from the image in the block.
        let (mut r, moved) = match g {
            0 => (coordinate.rest(state), state),
            g => {
                self.elements[g as usize].apply(state, image);
                (coordinate.rest(image), &*image)
            }
        };
        // A symmetric representative: the least rest of the class in the block.
        for &h in &self.stabilizers[block as usize] {
            self.elements[h as usize].apply(moved, other);
            r = r.min(coordinate.rest(other));
        }
        u64::from(block) * self.fibre + r
    }

    fn position(
        &self,
        entry: u64,
        state: &mut [u32],
        image: &mut [u32],
        reachable: &dyn Fn(&[u32]) -> bool,
    ) -> bool {
        self.join(entry, state, reachable);
        self.holds_class(entry, state, image)
    }

    fn weights(&self) -> Weights {
        Weights {
            ranges: vec![(0..self.size(), self.elements.len() as u64)],
            special: self.special.clone(),
            empty: self.size() - self.classes,
        }
    }

    fn positions(&self) -> u64 {
        self.positions
    }

    fn describe(&self) -> String {
        format!(
            "entry = block * {} + r, where a position's coordinate c and rest r are taken after the symmetry that makes c the least of its orbit, blocks are numbered by that least c, and a class whose c is kept by symmetries takes the least of its rests; {}",
            self.fibre,
            self.coordinate.describe()
        )
    }
}
