//! Twisty puzzles from twsearch definitions: several sets of pieces, orientations, identical
//! pieces.
//!
//! A position is, for each set, the piece at each position and its orientation. Its rank is a
//! mixed-radix number of per-set coordinates, most significant first:
//!
//! - the index of the parity vector among those the moves can reach (the solved vector plus the
//!   span, over GF(2), of the moves'): a bit per set of distinct pieces, its permutation's
//!   parity, and a bit per set of two orientations whose sum the moves change, that sum;
//! - for each set, the rank of its pieces: the lexicographic rank halved where the pieces are
//!   distinct (its parity is the vector's), the rank among the arrangements of the multiset
//!   where some are identical; none where every move permutes the set's pieces as it permutes
//!   an earlier set's (the pyraminx's tips and axial pieces): they follow from those; then its
//!   orientations in base `o`, position by position, the last left out where no move changes
//!   their sum or the vector holds it (it follows from the others);
//! - for each block (`block`: sets the moves tie together beyond the vector, as the skewb's
//!   corners), the index of its sets' position among those they reach with its parities.
//!
//! Each coordinate and block moves on its own, so a move is a table lookup per coordinate where
//! the coordinate is small, and unrank-move-rank where it is not. Where ties remain that no
//! pair of sets shows, some entries are unreachable, and the report gives both counts.
//!
//! This module is the space itself and its ranks; its build from a definition, the moves,
//! coordinates, layout, cursor and shader data stand in their own.

mod block;
mod build;
mod coords;
mod cursor;
pub mod format;
pub(crate) mod gpu;
mod layout;
mod moves;
mod potential;
mod stickers;
mod symmetry;

use super::capability::{Capabilities, Symmetric, Symmetries};
use super::symmetry::Symmetry;
use super::{Cursor, GpuShader, PuzzleInfo, StateSpace};
use crate::puzzle::Rate;
use crate::rank;
use crate::rank::multiset::{multinomial, multiset_rank, multiset_unrank};
use block::{Block, Values};
use coords::Coords;
pub use cursor::TwistyCursor;
pub use format::{Move, PieceSet, SetPart, TwistyDefinition};
use layout::{plan_blocks, rank_order, table_bound};
use moves::{PIECES, TWISTS, group_order, move_table};
pub use moves::{metric_moves, permutation_moves};
use potential::Reduction;

/// Coordinates with at most this many values get a move table.
const TABLE_LIMIT: u64 = 1 << 20;

/// The most entries a table may have ([`super::MAX_ENTRIES`]; the plan checks the memory).
const MAX_ENTRIES: u128 = super::MAX_ENTRIES as u128;

/// The most pieces a set may have (lexicographic ranks of 20 pieces fit 64 bits).
const MAX_PIECES: usize = 20;

/// The most bits of the parity vector: parities and sums tracked (a table of 2^16 entries).
const MAX_VECTOR_BITS: usize = 16;

/// A twisty puzzle: its coordinates, the metric's moves and the rank's layout.
#[derive(Clone, Debug)]
pub struct Twisty {
    info: PuzzleInfo,
    slug: String,
    sets: Vec<PieceSet>,
    coords: Vec<Coords>,
    moves: Vec<Move>,
    /// Each move's parity vector (bit per tracked set: the move is odd there).
    move_parity: Vec<u32>,
    /// The reachable parity vectors, ascending (the rank's first digit is the index here).
    parities: Vec<u32>,
    /// Each parity vector's index in `parities` (`u32::MAX`: unreachable).
    parity_index: Vec<u32>,
    /// Per set, the weights of its pieces' digit and of its orientations' digit.
    weights: Vec<(u64, u64)>,
    /// The blocks, and the weights of their digits (the least significant).
    blocks: Vec<Block>,
    block_weights: Vec<u64>,
    /// The weight of the parity index (the most significant digit).
    parity_weight: u64,
    size: u64,
    /// The solved position, in reduced orientations.
    solved: Vec<SetPart>,
    /// How positions are taken into reduced orientations and back ([`potential`]); `sets`,
    /// `solved`, `moves` and the coordinates are the reduced ones.
    reduction: Reduction,
    /// The last digit's move table, move by move (`[mv * rows + row]`), where it has one: a pass
    /// over a run move by move reads it in order.
    low_by_move: Option<Vec<u32>>,
    /// The sets and the metric's moves as the definition writes them (before [`potential`]'s
    /// reduction): what the symmetries are found from.
    written_sets: Vec<PieceSet>,
    written_moves: Vec<Move>,
}

/// How a definition is named in reports.
pub struct Naming {
    /// The family (`perm`).
    pub family: String,
    /// The size parameters for reports.
    pub params: serde_json::Map<String, serde_json::Value>,
    /// The default output folder's name.
    pub slug: String,
}

impl Twisty {
    /// The puzzle of `def` in `metric` (`htm` or `qtm`).
    pub fn new(def: &TwistyDefinition, metric: &str, naming: Naming) -> Result<Twisty, String> {
        Twisty::build(def, metric, naming, true)
    }

    /// The same puzzle numbered by per-set coordinates alone, without blocks: a larger table
    /// where the moves tie sets together, with the same levels (the tests check the
    /// coordinates with it).
    pub fn without_blocks(
        def: &TwistyDefinition,
        metric: &str,
        naming: Naming,
    ) -> Result<Twisty, String> {
        Twisty::build(def, metric, naming, false)
    }

    /// How many values the rank's last digit has (the last block's class, else the last set's
    /// orientations), and its move table where it has one.
    fn low_table(&self) -> (u64, Option<&[u32]>) {
        match self.blocks.last() {
            Some(b) => (b.class_size, Some(&b.table[..])),
            None => {
                let c = &self.coords[self.coords.len() - 1];
                (c.ori_size, c.ori_table.as_deref())
            }
        }
    }

    /// The rank of a position given per set, or why it has none.
    fn rank_parts(&self, parts: &[SetPart]) -> Result<u64, String> {
        let mut rank = 0;
        let mut vector = 0;
        // Per set, its pieces' (full) and orientations' coordinates, as one value.
        let mut values = Vec::new();
        for (s, (((c, part), solved), (set, &(wp, wo)))) in (self.coords.iter())
            .zip(parts)
            .zip(&self.solved)
            .zip(self.sets.iter().zip(&self.weights))
            .enumerate()
        {
            let mut have = part.pieces.clone();
            let mut want = solved.pieces.clone();
            have.sort_unstable();
            want.sort_unstable();
            if have != want {
                return Err(format!(
                    "the pieces of {} are not those of the solved position",
                    set.name
                ));
            }
            if let Some(t) = c.follows
                && part.pieces != self.following(t, s, &parts[t].pieces)
            {
                return Err(format!(
                    "the pieces of {} always move with those of {}: given those, not these",
                    set.name, self.sets[t].name
                ));
            }
            if part.twists.iter().any(|&t| t >= set.orientations) {
                return Err(format!(
                    "an orientation of {} is not below {}",
                    set.name, set.orientations
                ));
            }
            let sum = part.twists.iter().map(|&t| u32::from(t)).sum::<u32>()
                % u32::from(set.orientations);
            if c.ori_digits < c.count && c.sum_bit.is_none() && sum != u32::from(c.ori_sum) {
                return Err(format!(
                    "the orientations of {} add up to {sum} (mod {}), but every move keeps their sum at {}",
                    set.name, set.orientations, c.ori_sum
                ));
            }
            let p = c.rank_pieces(&part.pieces);
            let q = c.rank_twists(&part.twists);
            values.extend([p, q]);
            if let Some(b) = c.sum_bit {
                vector |= (sum % 2) << b;
            }
            let digit = match c.parity_bit {
                Some(b) => {
                    vector |= (rank::is_odd(&part.pieces) as u32) << b;
                    p / 2
                }
                None => p,
            };
            if !c.pieces_in_block {
                rank += digit * wp;
            }
            if !c.twists_in_block {
                rank += q % c.ori_size * wo;
            }
        }
        let index = match self.parity_index[vector as usize] {
            u32::MAX => {
                return Err(
                    "the pieces' permutation parities are not those the moves can reach".into(),
                );
            }
            index => index,
        };
        for (b, w) in self.blocks.iter().zip(&self.block_weights) {
            let members: Vec<u64> = b.members.iter().map(|&m| values[m]).collect();
            let Some(position) = b.position(vector, &members) else {
                let names: Vec<String> = b.members.iter().map(|&m| self.part_name(m)).collect();
                return Err(format!(
                    "the moves never bring {} to this position",
                    names.join(" and ")
                ));
            };
            rank += position % b.class_size * w;
        }
        Ok(rank + u64::from(index) * self.parity_weight)
    }

    /// The position of rank `rank`, per set.
    fn unrank_parts(&self, rank: u64) -> Vec<SetPart> {
        let vector = self.parities[(rank / self.parity_weight) as usize];
        // The block members' values, from their blocks' digits.
        let mut values = vec![None; 2 * self.coords.len()];
        for (b, w) in self.blocks.iter().zip(&self.block_weights) {
            let position = self.block_position(b, vector, rank / w % b.class_size);
            for (&m, v) in b.members.iter().zip(b.values(position)) {
                values[m] = Some(v);
            }
        }
        let mut parts: Vec<SetPart> = Vec::new();
        for (s, (c, &(wp, wo))) in self.coords.iter().zip(&self.weights).enumerate() {
            let mut part = SetPart::identity(c.count);
            let (p, q) = self.digits(c, rank, wp, wo);
            let p = values[2 * s + PIECES].unwrap_or(p);
            let q = values[2 * s + TWISTS].unwrap_or(q + c.sum_part(vector));
            match (c.follows, c.parity_bit) {
                (Some(t), _) => part.pieces = self.following(t, s, &parts[t].pieces),
                (None, Some(b)) if !c.pieces_in_block => {
                    c.unrank_pieces(c.lex_of(p, (vector >> b) & 1 == 1), &mut part.pieces)
                }
                (None, _) => c.unrank_pieces(p, &mut part.pieces),
            }
            c.unrank_twists(q, &mut part.twists);
            parts.push(part);
        }
        parts
    }

    /// A block member's name: a set's pieces or orientations.
    fn part_name(&self, member: usize) -> String {
        let set = &self.sets[member / 2].name;
        match member % 2 == PIECES {
            true => format!("the pieces of {set}"),
            false => format!("the orientations of {set}"),
        }
    }

    /// The position of block `b` whose digit is `digit`, under the parity vector `vector`.
    fn block_position(&self, b: &Block, vector: u32, digit: u64) -> u64 {
        b.class_start(vector).expect("a reachable vector's class") + digit
    }

    /// The pieces of set `s`, which follows set `t`, where `t`'s pieces are `leader`: every move
    /// took both sets' pieces from the same positions.
    fn following(&self, t: usize, s: usize, leader: &[u8]) -> Vec<u8> {
        let solved = &self.solved[t].pieces;
        (leader.iter())
            .map(|&l| {
                let from = solved
                    .iter()
                    .position(|&x| x == l)
                    .expect("distinct pieces");
                self.solved[s].pieces[from]
            })
            .collect()
    }

    /// A set's pieces digit and orientations digit in `rank`.
    fn digits(&self, c: &Coords, rank: u64, wp: u64, wo: u64) -> (u64, u64) {
        let (pieces, twists) = c.sizes();
        ((rank / wp) % pieces, (rank / wo) % twists)
    }
}

impl Symmetric for Twisty {
    fn symmetry(&self) -> Result<Symmetry, String> {
        self.symmetries()
    }
}

impl StateSpace for Twisty {
    type Cursor<'a> = TwistyCursor<'a>;

    fn size(&self) -> u64 {
        self.size
    }

    fn move_names(&self) -> Vec<String> {
        self.info.moves.clone()
    }

    fn move_count(&self) -> usize {
        self.moves.len()
    }

    fn solved(&self) -> u64 {
        self.rank_parts(&self.solved)
            .expect("the solved position has a rank")
    }

    fn cursor(&self) -> TwistyCursor<'_> {
        let (low, low_table) = self.low_table();
        TwistyCursor {
            space: self,
            pieces: vec![0; self.coords.len()],
            twists: vec![0; self.coords.len()],
            blocks: vec![0; self.blocks.len()],
            vector: 0,
            run: 0..0,
            base: vec![0; self.moves.len()],
            low,
            low_table,
            low_by_move: self.low_by_move.as_deref(),
            low_start: 0,
            row: 0,
            scratch: [0; 2 * MAX_PIECES],
        }
    }

    /// For each set, its pieces' labels (from 1), then their orientations.
    fn state(&self, rank: u64) -> Vec<u32> {
        (self.reduction.original(&self.unrank_parts(rank)).iter())
            .flat_map(|p| {
                (p.pieces.iter().map(|&l| u32::from(l) + 1))
                    .chain(p.twists.iter().map(|&t| u32::from(t)))
            })
            .collect()
    }

    fn rank(&self, state: &[u32]) -> Result<u64, String> {
        let want: usize = self.sets.iter().map(|s| 2 * s.count).sum();
        if state.len() != want {
            return Err(format!(
                "the state has {} numbers but this puzzle takes {want}: for each set, its pieces' labels (from 1), then their orientations",
                state.len()
            ));
        }
        let mut parts = Vec::new();
        let mut at = 0;
        for set in &self.sets {
            let n = set.count;
            let byte = |v: u32| u8::try_from(v).unwrap_or(u8::MAX);
            let pieces = state[at..at + n]
                .iter()
                .map(|&v| byte(v.wrapping_sub(1)))
                .collect();
            let twists = state[at + n..at + 2 * n].iter().map(|&v| byte(v)).collect();
            parts.push(SetPart { pieces, twists });
            at += 2 * n;
        }
        self.rank_parts(&self.reduction.position(&parts)?)
    }

    fn format_state(&self, state: &[u32]) -> String {
        let mut at = 0;
        let mut out = Vec::new();
        for set in &self.sets {
            let n = set.count;
            out.push(format!(
                "{} {} / {}",
                set.name,
                super::spaced(&state[at..at + n]),
                super::spaced(&state[at + n..at + 2 * n])
            ));
            at += 2 * n;
        }
        out.join("; ")
    }

    fn parse_state(&self, text: &str) -> Result<Vec<u32>, String> {
        // The format_state form: set names and separators are skipped.
        let mut numbers = Vec::new();
        for word in text.split(|c: char| c.is_whitespace() || c == ',' || c == ';' || c == '/') {
            if word.is_empty() || self.sets.iter().any(|s| s.name == word) {
                continue;
            }
            numbers.push(word.parse().map_err(|_| {
                format!("'{word}' in the state is not a number or a set's name: for each set, its name, its pieces' labels, then their orientations")
            })?);
        }
        Ok(numbers)
    }

    fn info(&self) -> PuzzleInfo {
        self.info.clone()
    }

    fn slug(&self) -> String {
        self.slug.clone()
    }

    /// The symmetries found from the moves ([`Symmetric`]).
    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities {
            symmetries: Symmetries::Offered(self),
            ..Capabilities::default()
        }
    }

    fn measured_rate(&self) -> Rate {
        Rate {
            per_thread: 31.0e6,
            run: "the pyraminx: 7.6e7 states in 1.2 s",
        }
    }

    fn gpu_shader(&self) -> Option<GpuShader> {
        self.shader()
    }
}

#[cfg(test)]
mod tests;
