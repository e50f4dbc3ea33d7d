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
//! - for each block ([`block`]: sets the moves tie together beyond the vector, as the skewb's
//!   corners), the index of its sets' position among those they reach with its parities.
//!
//! Each coordinate and block moves on its own, so a move is a table lookup per coordinate where
//! the coordinate is small, and unrank-move-rank where it is not. Where ties remain that no
//! pair of sets shows, some entries are unreachable, and the report gives both counts.
//!
//! This module is the space itself (its build from a definition and its ranks), one idea a little
//! over 600 lines; the moves, coordinates, layout, cursor and shader data stand in their own.

mod block;
mod coords;
mod cursor;
pub mod format;
mod gpu;
mod layout;
mod moves;
mod potential;

use super::{Cursor, GpuShader, PuzzleInfo, StateSpace};
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

/// The most entries a table may have (ranks are 64-bit; the plan checks the memory).
const MAX_ENTRIES: u128 = 1 << 48;

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

    fn build(
        def: &TwistyDefinition,
        metric: &str,
        naming: Naming,
        blocks: bool,
    ) -> Result<Twisty, String> {
        // Orientations that follow the positions are numbered by what the moves leave free;
        // everything below works on that reduced definition, positions in and out excepted.
        let original = def;
        let reduction = Reduction::new(original);
        let reduced = reduction.definition(original);
        let def = &reduced;
        // Far too large a table is refused with its size before anything is built.
        let (least, words) = table_bound(def);
        if least > (MAX_ENTRIES as f64).log10() {
            return Err(format!(
                "the puzzle's table would have at least {words}: gpusearch searches tables of up to 2^48 entries"
            ));
        }
        if let Some(s) = def.sets.iter().find(|s| s.count > MAX_PIECES) {
            return Err(format!(
                "the set {} has {} pieces: gpusearch ranks sets of up to {MAX_PIECES}",
                s.name, s.count
            ));
        }
        let original_moves = metric_moves(original, metric)?;
        let moves: Vec<Move> = original_moves
            .iter()
            .map(|m| reduction.move_of(m))
            .collect();
        let mut coords = Vec::new();
        let mut tracked = 0;
        for (set, solved) in def.sets.iter().zip(&def.solved) {
            let n = set.count;
            let mut multiplicity = vec![0u8; n];
            for &l in &solved.pieces {
                multiplicity[l as usize] += 1;
            }
            multiplicity.retain(|&c| c > 0);
            let s = coords.len();
            let follows = (0..s).find(|&t| {
                let leader: &Coords = &coords[t];
                leader.distinct()
                    && leader.count == n
                    && def
                        .moves
                        .iter()
                        .all(|(_, parts)| parts[t].pieces == parts[s].pieces)
            });
            let distinct = multiplicity.len() == n && follows.is_none();
            let perm_size = match follows {
                Some(_) => 1,
                None => multinomial(n, &multiplicity),
            };
            let parity_bit = (distinct && n >= 2 && tracked < MAX_VECTOR_BITS).then(|| {
                tracked += 1;
                tracked as u32 - 1
            });
            let fixed_sum = moves.iter().all(|(_, parts)| {
                parts[s].twists.iter().map(|&t| u32::from(t)).sum::<u32>()
                    % u32::from(set.orientations)
                    == 0
            });
            let sum_bit =
                (set.orientations == 2 && !fixed_sum && tracked < MAX_VECTOR_BITS).then(|| {
                    tracked += 1;
                    tracked as u32 - 1
                });
            let ori_digits = match (set.orientations, fixed_sum || sum_bit.is_some()) {
                (1, _) => 0,
                (_, true) => n - 1,
                (_, false) => n,
            };
            let ori_sum = (solved.twists.iter().map(|&t| u32::from(t)).sum::<u32>()
                % u32::from(set.orientations)) as u8;
            coords.push(Coords {
                count: n,
                orientations: set.orientations,
                multiplicity,
                perm_size,
                parity_bit,
                ori_digits,
                ori_sum,
                sum_bit,
                ori_size: u64::from(set.orientations).pow(ori_digits as u32),
                perm_table: None,
                follows,
                odd: None,
                ori_table: None,
                pieces_in_block: false,
                twists_in_block: false,
            });
        }
        // A position's parities and sums, or a move's changes to them.
        let vector = |parts: &[SetPart]| -> u32 {
            (coords.iter().zip(parts))
                .map(|(c, p)| {
                    let twists: u32 = p.twists.iter().map(|&t| u32::from(t)).sum();
                    c.parity_bit
                        .map_or(0, |b| (rank::is_odd(&p.pieces) as u32) << b)
                        | c.sum_bit.map_or(0, |b| (twists % 2) << b)
                })
                .sum()
        };
        let move_parity: Vec<u32> = moves.iter().map(|(_, parts)| vector(parts)).collect();
        // The solved parities plus the moves' span.
        let mut reached = vec![false; 1 << tracked];
        let mut parities = vec![vector(&def.solved)];
        reached[parities[0] as usize] = true;
        let mut i = 0;
        while i < parities.len() {
            for &v in &move_parity {
                let w = parities[i] ^ v;
                if !std::mem::replace(&mut reached[w as usize], true) {
                    parities.push(w);
                }
            }
            i += 1;
        }
        parities.sort_unstable();
        let m = moves.len();
        for (s, c) in coords.iter_mut().enumerate() {
            let mut scratch = [0u8; 2 * MAX_PIECES];
            if c.perm_size <= TABLE_LIMIT && c.parity_bit.is_some() {
                let mut odd = vec![0u64; c.perm_size.div_ceil(64) as usize];
                let mut labels = [0u8; MAX_PIECES];
                for r in 0..c.perm_size {
                    rank::lex_unrank(r, &mut labels[..c.count]);
                    odd[(r / 64) as usize] |=
                        u64::from(rank::is_odd(&labels[..c.count])) << (r % 64);
                }
                c.odd = Some(odd);
            }
            let pieces = move_table(c.perm_size, m, |p, mv| {
                c.move_pieces(p, mv, m, &moves[mv].1[s], &mut scratch)
            });
            let twists = move_table(c.ori_values(), m, |q, mv| {
                c.move_twists(q, mv, m, &moves[mv].1[s], &mut scratch)
            });
            (c.perm_table, c.ori_table) = (pieces, twists);
        }
        let blocks = match blocks {
            true => plan_blocks(def, &coords, &moves),
            false => Vec::new(),
        };
        for &member in blocks.iter().flat_map(|b| &b.members) {
            let c = &mut coords[member / 2];
            match member % 2 == PIECES {
                true => (c.pieces_in_block, c.perm_table) = (true, None),
                false => (c.twists_in_block, c.ori_table) = (true, None),
            }
        }
        // Weights, from the least significant digit: the blocks', last first; then the last
        // set's orientations, its pieces, the set before's, ..., the parity index.
        let mut weight = 1u128;
        let mut block_weights = vec![0; blocks.len()];
        for (b, w) in blocks.iter().zip(block_weights.iter_mut()).rev() {
            *w = weight as u64;
            weight *= u128::from(b.class_size);
        }
        let mut weights = vec![(0, 0); coords.len()];
        for (c, w) in coords.iter().zip(weights.iter_mut()).rev() {
            let (pieces, twists) = c.sizes();
            w.1 = weight as u64;
            weight *= u128::from(twists);
            w.0 = weight as u64;
            weight *= u128::from(pieces);
            if weight > MAX_ENTRIES {
                break;
            }
        }
        let parity_weight = weight as u64;
        weight *= parities.len() as u128;
        if weight > MAX_ENTRIES {
            return Err(format!(
                "the puzzle's table would have {weight} entries or more: gpusearch searches tables of up to 2^48 entries"
            ));
        }
        let mut info_params = naming.params;
        info_params.insert(
            "sets".into(),
            (original.sets.iter())
                .map(|s| serde_json::json!([s.name, s.count, s.orientations]))
                .collect::<Vec<_>>()
                .into(),
        );
        let info = PuzzleInfo {
            puzzle: naming.family,
            params: info_params,
            metric: metric.into(),
            moves: moves.iter().map(|(n, _)| n.clone()).collect(),
            rank_order: rank_order(&def.sets, &blocks, &reduction),
            group_order: group_order(&original.sets, &coords, &original_moves),
        };
        let mut parity_index = vec![u32::MAX; 1 << tracked];
        for (i, &v) in parities.iter().enumerate() {
            parity_index[v as usize] = i as u32;
        }
        let mut twisty = Twisty {
            info,
            slug: naming.slug,
            sets: def.sets.clone(),
            coords,
            moves,
            move_parity,
            parities,
            parity_index,
            weights,
            blocks,
            block_weights,
            parity_weight,
            size: weight as u64,
            solved: def.solved.clone(),
            reduction,
            low_by_move: None,
        };
        let m = twisty.moves.len();
        twisty.low_by_move = twisty.low_table().1.map(|t| {
            let rows = t.len() / m;
            (0..m * rows).map(|i| t[i % rows * m + i / rows]).collect()
        });
        Ok(twisty)
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
            let text = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(" ");
            out.push(format!(
                "{} {} / {}",
                set.name,
                text(&state[at..at + n]),
                text(&state[at + n..at + 2 * n])
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

    fn gpu_shader(&self) -> Option<GpuShader> {
        self.shader()
    }
}

#[cfg(test)]
mod tests;
