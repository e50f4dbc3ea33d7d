//! The twisty puzzles' GPU shader (`shaders/twisty.wgsl`): one shader for every definition,
//! reading the puzzle's coordinates, blocks and move tables from a storage buffer written here.

use super::{Coords, Twisty};
use crate::puzzle::GpuShader;

/// "None" in the records: no table, no parity bit.
pub(crate) const NONE: u32 = u32::MAX;
/// The words of a set's, a block's and a digit's record (as in the shader).
pub(crate) const SET_WORDS: usize = 17;
pub(crate) const BLOCK_WORDS: usize = 3;
pub(crate) const DIGIT_WORDS: usize = 4;
/// The shader's private arrays: coordinates per set and positions per block (16 each), and the
/// pieces and orientations of the sets whose coordinates it computes without a table.
pub(crate) const MAX_SETS: usize = 16;
pub(crate) const MAX_BLOCKS: usize = 16;
pub(crate) const MAX_UNPACKED: usize = 64;

/// A set's kind of pieces' coordinate (`S_KIND`).
pub(crate) const DISTINCT: u32 = 0;
pub(crate) const MULTISET: u32 = 1;
pub(crate) const FOLLOWS: u32 = 2;

/// A digit's part (`D_BLOCK`, `D_PIECES`, `D_TWISTS`).
pub(crate) const D_BLOCK: u32 = 0;
pub(crate) const D_PIECES: u32 = 1;
pub(crate) const D_TWISTS: u32 = 2;

/// The words the shader reads, region by region.
struct Words(Vec<u32>);

impl Words {
    /// Appends `words`, returning their offset.
    fn push(&mut self, words: impl IntoIterator<Item = u32>) -> u32 {
        let at = self.0.len() as u32;
        self.0.extend(words);
        at
    }

    /// Appends a table where there is one, returning its offset or [`NONE`].
    fn table(&mut self, table: Option<&Vec<u32>>) -> u32 {
        table.map_or(NONE, |t| self.push(t.iter().copied()))
    }
}

fn split(x: u64) -> [u32; 2] {
    [x as u32, (x >> 32) as u32]
}

impl Twisty {
    /// The shader and its words, or `None` where the puzzle passes the shader's fixed sizes
    /// (sets, blocks, or pieces it would unpack).
    pub(super) fn shader(&self) -> Option<GpuShader> {
        if self.coords.len() > MAX_SETS || self.blocks.len() > MAX_BLOCKS {
            return None;
        }
        let m = self.moves.len();
        let mut words = Words(Vec::new());
        let parity_index = words.push(self.parity_index.iter().copied());
        let parities = words.push(self.parities.iter().copied());
        let move_parity = words.push(self.move_parity.iter().copied());
        let mut unpacked = 0;
        let mut sets = Vec::new();
        for (s, c) in self.coords.iter().enumerate() {
            let kind = match (c.follows, c.distinct()) {
                (Some(_), _) => FOLLOWS,
                (None, true) => DISTINCT,
                (None, false) => MULTISET,
            };
            let perm_table = words.table(c.perm_table.as_ref());
            let ori_table = words.table(c.ori_table.as_ref());
            let odd = match &c.odd {
                Some(bits) => words.push(bits.iter().flat_map(|&b| split(b))),
                None => NONE,
            };
            let multiplicity = words.push(
                std::iter::once(c.multiplicity.len() as u32)
                    .chain(c.multiplicity.iter().map(|&k| u32::from(k))),
            );
            let from = words.push(self.moves.iter().flat_map(|(_, parts)| {
                let part = &parts[s];
                (part.pieces.iter().chain(&part.twists)).map(|&x| u32::from(x))
            }));
            // Where a coordinate outside the blocks has no table, the shader unpacks the set.
            let unpacks = (!c.pieces_in_block && kind != FOLLOWS && c.perm_table.is_none())
                || (!c.twists_in_block && c.ori_table.is_none());
            let at = match unpacks {
                true => {
                    unpacked += c.count;
                    unpacked - c.count
                }
                false => 0,
            };
            sets.push(set_record(
                c,
                kind,
                [perm_table, ori_table, odd, multiplicity, from, at as u32],
            ));
        }
        if unpacked > MAX_UNPACKED {
            return None;
        }
        let mut blocks = Vec::with_capacity(BLOCK_WORDS * self.blocks.len());
        for b in &self.blocks {
            let table = words.push(b.table.iter().copied());
            // Where each reachable parity vector's class starts, by the vector's index.
            let starts = words.push(
                self.parities
                    .iter()
                    .map(|&v| b.class_start(v).expect("a reachable vector's class") as u32),
            );
            blocks.extend([b.class_size as u32, table, starts]);
        }
        // The digits, least significant first, as the rank's weights are built.
        let mut digits = Vec::new();
        for (i, b) in self.blocks.iter().enumerate().rev() {
            digits.extend([D_BLOCK, i as u32]);
            digits.extend(split(b.class_size));
        }
        for (s, c) in self.coords.iter().enumerate().rev() {
            if !c.twists_in_block {
                digits.extend([D_TWISTS, s as u32]);
                digits.extend(split(c.ori_size));
            }
            if !c.pieces_in_block {
                digits.extend([D_PIECES, s as u32]);
                digits.extend(split(c.perm_digits()));
            }
        }
        let set_records = words.push(sets.into_iter().flatten());
        let block_records = words.push(blocks);
        let digit_records = words.push(digits.iter().copied());
        let [weight_lo, weight_hi] = split(self.parity_weight);
        let constants = [
            ("MOVES", m as u32),
            ("SETS", self.coords.len() as u32),
            ("BLOCKS", self.blocks.len() as u32),
            ("DIGITS", (digits.len() / DIGIT_WORDS) as u32),
            ("PARITY_INDEX", parity_index),
            ("PARITIES", parities),
            ("MOVE_PARITY", move_parity),
            ("SET_RECORDS", set_records),
            ("BLOCK_RECORDS", block_records),
            ("DIGIT_RECORDS", digit_records),
            ("PARITY_WEIGHT_LO", weight_lo),
            ("PARITY_WEIGHT_HI", weight_hi),
        ];
        Some(GpuShader {
            source: include_str!("../../../shaders/twisty.wgsl"),
            constants: constants
                .into_iter()
                .map(|(name, v)| (name, f64::from(v)))
                .collect(),
            data: Vec::new(),
            tables: words.0,
            pushed: None,
        })
    }
}

/// A set's record: `offsets` are its pieces' and orientations' tables, its odd ranks' bits,
/// multiplicities, moves, and where the shader unpacks it.
fn set_record(c: &Coords, kind: u32, offsets: [u32; 6]) -> [u32; SET_WORDS] {
    let bit = |b: Option<u32>| b.unwrap_or(NONE);
    let [ori_lo, ori_hi] = split(c.ori_size);
    let [perm_lo, perm_hi] = split(c.perm_size);
    let [perm_table, ori_table, odd, multiplicity, from, at] = offsets;
    [
        c.count as u32,
        u32::from(c.orientations),
        kind,
        bit(c.parity_bit),
        bit(c.sum_bit),
        c.ori_digits as u32,
        u32::from(c.ori_sum),
        ori_lo,
        ori_hi,
        perm_lo,
        perm_hi,
        perm_table,
        ori_table,
        odd,
        multiplicity,
        from,
        at,
    ]
}
