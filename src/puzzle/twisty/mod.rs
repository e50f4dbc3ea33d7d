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

mod block;
pub mod format;
mod gpu;
mod potential;

use super::{Cursor, GpuShader, PuzzleInfo, StateSpace};
use crate::rank;
use block::{Block, Values};
pub use format::{Move, PieceSet, SetPart, TwistyDefinition};
use potential::Reduction;

/// Coordinates with at most this many values get a move table.
const TABLE_LIMIT: u64 = 1 << 20;
/// The most entries a table may have (ranks are 64-bit; the plan checks the memory).
const MAX_ENTRIES: u128 = 1 << 48;
/// The most pieces a set may have (lexicographic ranks of 20 pieces fit 64 bits).
const MAX_PIECES: usize = 20;
/// The most bits of the parity vector: parities and sums tracked (a table of 2^16 entries).
const MAX_VECTOR_BITS: usize = 16;

/// How a metric counts moves: `htm` every power of a move that is not the identity (`F`, `F2`,
/// `F'`), `qtm` a move and its inverse.
pub fn metric_moves(def: &TwistyDefinition, metric: &str) -> Result<Vec<Move>, String> {
    let quarter = match metric {
        "htm" => false,
        "qtm" => true,
        other => {
            return Err(format!(
                "unknown metric '{other}': a definition's metrics are htm (every power of a move) and qtm (a move and its inverse)"
            ));
        }
    };
    let mut out: Vec<Move> = Vec::new();
    for (name, parts) in &def.moves {
        let mut powers = vec![parts.clone()];
        loop {
            let next = compose(&def.sets, powers.last().expect("one power"), parts);
            if is_identity(&next) {
                break;
            }
            powers.push(next);
        }
        // powers[p - 1] is the move to the power p; the order is k.
        let k = powers.len() + 1;
        let mut named: Vec<(String, usize)> = (1..=k / 2)
            .map(|p| (power_name(name, p, ""), p))
            .chain((1..=(k - 1) / 2).map(|q| (power_name(name, q, "'"), k - q)))
            .collect();
        if quarter {
            named.retain(|(_, p)| *p == 1 || *p == k - 1);
        }
        for (power, p) in named {
            if out.iter().any(|(m, _)| *m == power) {
                return Err(format!(
                    "the move {power} ({name} to the power {p}) has the name of another move: rename one in the definition"
                ));
            }
            out.push((power, powers[p - 1].clone()));
        }
    }
    Ok(out)
}

/// [`metric_moves`] of a definition of one set without orientations: each move's from array.
pub fn permutation_moves(
    def: &TwistyDefinition,
    metric: &str,
) -> Result<Vec<(String, crate::group::Perm)>, String> {
    Ok(metric_moves(def, metric)?
        .into_iter()
        .map(|(name, mut parts)| (name, parts.swap_remove(0).pieces))
        .collect())
}

/// `F`, `F2`, `F'`, `F2'`: base move `name` turned `p` times in the direction `suffix` names.
fn power_name(name: &str, p: usize, suffix: &str) -> String {
    match p {
        1 => format!("{name}{suffix}"),
        _ => format!("{name}{p}{suffix}"),
    }
}

/// Move `a`, then move `b`.
fn compose(sets: &[PieceSet], a: &[SetPart], b: &[SetPart]) -> Vec<SetPart> {
    sets.iter()
        .zip(a.iter().zip(b))
        .map(|(set, (a, b))| SetPart {
            pieces: b.pieces.iter().map(|&f| a.pieces[f as usize]).collect(),
            twists: (b.pieces.iter().zip(&b.twists))
                .map(|(&f, &t)| (a.twists[f as usize] + t) % set.orientations)
                .collect(),
        })
        .collect()
}

fn is_identity(parts: &[SetPart]) -> bool {
    parts
        .iter()
        .all(|p| crate::group::is_identity(&p.pieces) && p.twists.iter().all(|&t| t == 0))
}

/// One set's coordinates.
#[derive(Clone, Debug)]
struct Coords {
    count: usize,
    orientations: u8,
    /// The solved labels' multiplicities (all 1: distinct pieces).
    multiplicity: Vec<u8>,
    /// The values of the pieces' coordinate (lexicographic or multiset rank).
    perm_size: u64,
    /// Its bit in the parity vector, where the parity is tracked (the rank digit is then the
    /// lexicographic rank halved).
    parity_bit: Option<u32>,
    /// Orientation digits in the rank: `count - 1` where the sum is fixed or in the parity
    /// vector, else `count`; 0 without orientations.
    ori_digits: usize,
    /// The orientations' sum (mod `orientations`) where it is fixed.
    ori_sum: u8,
    /// Its bit in the parity vector, where the set has two orientations and moves change their
    /// sum: the vector then holds the sum (mod 2).
    sum_bit: Option<u32>,
    /// `orientations ^ ori_digits`: the values of the orientations' digit.
    ori_size: u64,
    /// `[coordinate * moves + move]`: the coordinate after the move, where small enough.
    perm_table: Option<Vec<u32>>,
    /// The earlier set of distinct pieces whose pieces this set's always move with (every move
    /// permutes both alike): this set's pieces follow from that set's, and have no digit.
    follows: Option<usize>,
    /// Bit `r`: the lexicographic rank `r` is an odd permutation (tracked sets with a table).
    odd: Option<Vec<u64>>,
    ori_table: Option<Vec<u32>>,
    /// Whether a block numbers this set's pieces, and its orientations (the set then has no
    /// digit of its own for them).
    pieces_in_block: bool,
    twists_in_block: bool,
}

impl Coords {
    /// Whether the set's pieces are distinct and ranked by their own (lexicographic) digit.
    fn distinct(&self) -> bool {
        self.follows.is_none() && self.multiplicity.len() == self.count
    }

    /// Whether the lexicographic rank `r` is an odd permutation.
    fn odd_rank(&self, r: u64) -> bool {
        match &self.odd {
            Some(bits) => (bits[(r / 64) as usize] >> (r % 64)) & 1 == 1,
            None => {
                let mut labels = [0u8; MAX_PIECES];
                rank::lex_unrank(r, &mut labels[..self.count]);
                rank::is_odd(&labels[..self.count])
            }
        }
    }

    /// The lexicographic rank of the pieces whose halved digit is `p`, of parity `odd`: the
    /// ranks 2p and 2p + 1 have opposite parities.
    fn lex_of(&self, p: u64, odd: bool) -> u64 {
        2 * p + u64::from(self.odd_rank(2 * p) != odd)
    }

    fn perm_digits(&self) -> u64 {
        match self.parity_bit {
            Some(_) => self.perm_size / 2,
            None => self.perm_size,
        }
    }

    /// The sizes of the set's pieces digit and orientations digit (1 for a part in a block).
    fn sizes(&self) -> (u64, u64) {
        (
            if self.pieces_in_block {
                1
            } else {
                self.perm_digits()
            },
            if self.twists_in_block {
                1
            } else {
                self.ori_size
            },
        )
    }

    fn rank_pieces(&self, labels: &[u8]) -> u64 {
        if self.follows.is_some() {
            0
        } else if self.distinct() {
            rank::lex_rank(labels)
        } else {
            multiset_rank(labels, &self.multiplicity)
        }
    }

    fn unrank_pieces(&self, r: u64, labels: &mut [u8]) {
        if self.follows.is_some() {
            // Set from the followed set's pieces (Twisty::unrank_parts).
        } else if self.distinct() {
            rank::lex_unrank(r, labels)
        } else {
            multiset_unrank(r, &self.multiplicity, labels)
        }
    }

    /// The values of the orientations' coordinate: the digit's, times the two sums where the
    /// vector holds the sum.
    fn ori_values(&self) -> u64 {
        match self.sum_bit {
            Some(_) => 2 * self.ori_size,
            None => self.ori_size,
        }
    }

    /// The orientations' coordinate: their digit, plus their sum times the digit's values
    /// where the vector holds the sum.
    fn rank_twists(&self, twists: &[u8]) -> u64 {
        let o = u64::from(self.orientations);
        let digit = (twists[..self.ori_digits].iter()).fold(0, |r, &t| r * o + u64::from(t));
        match self.sum_bit {
            Some(_) => {
                digit
                    + u64::from(twists.iter().map(|&t| u32::from(t)).sum::<u32>() % 2)
                        * self.ori_size
            }
            None => digit,
        }
    }

    fn unrank_twists(&self, coordinate: u64, twists: &mut [u8]) {
        let o = u64::from(self.orientations);
        let mut r = coordinate % self.ori_size;
        for t in twists[..self.ori_digits].iter_mut().rev() {
            *t = (r % o) as u8;
            r /= o;
        }
        if self.ori_digits < self.count {
            let total = match self.sum_bit {
                Some(_) => (coordinate / self.ori_size) as u32,
                None => u32::from(self.ori_sum),
            };
            let sum: u32 = twists[..self.ori_digits]
                .iter()
                .map(|&t| u32::from(t))
                .sum();
            let o = u32::from(self.orientations);
            twists[self.count - 1] = ((total + o * 256 - sum) % o) as u8;
        }
    }

    /// The sum part of the orientations' coordinate under the parity vector `vector`.
    fn sum_part(&self, vector: u32) -> u64 {
        self.sum_bit
            .map_or(0, |b| u64::from((vector >> b) & 1) * self.ori_size)
    }

    /// The pieces' coordinate after move `mv` (`part`, its `m`-th).
    fn move_pieces(
        &self,
        p: u64,
        m: usize,
        moves: usize,
        part: &SetPart,
        scratch: &mut [u8; 2 * MAX_PIECES],
    ) -> u64 {
        if let Some(t) = &self.perm_table {
            return u64::from(t[p as usize * moves + m]);
        }
        if self.follows.is_some() {
            return 0;
        }
        let n = self.count;
        let (old, new) = scratch.split_at_mut(MAX_PIECES);
        self.unrank_pieces(p, &mut old[..n]);
        for (slot, &f) in new[..n].iter_mut().zip(&part.pieces) {
            *slot = old[f as usize];
        }
        self.rank_pieces(&new[..n])
    }

    /// The orientations' coordinate after move `part` (the `m`-th).
    fn move_twists(
        &self,
        q: u64,
        m: usize,
        moves: usize,
        part: &SetPart,
        scratch: &mut [u8; 2 * MAX_PIECES],
    ) -> u64 {
        if let Some(t) = &self.ori_table {
            return u64::from(t[q as usize * moves + m]);
        }
        let n = self.count;
        let (old, new) = scratch.split_at_mut(MAX_PIECES);
        self.unrank_twists(q, &mut old[..n]);
        for ((slot, &f), &t) in new[..n].iter_mut().zip(&part.pieces).zip(&part.twists) {
            *slot = (old[f as usize] + t) % self.orientations;
        }
        self.rank_twists(&new[..n])
    }
}

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

/// The blocks that shrink the table (see [`block`]): each set's positions listed where they are
/// few enough, then merged where the moves tie sets together.
fn plan_blocks(def: &TwistyDefinition, coords: &[Coords], moves: &[Move]) -> Vec<Block> {
    let m = moves.len();
    let mut units = Vec::new();
    for (s, c) in coords.iter().enumerate() {
        let solved = &def.solved[s];
        let mut scratch = [0u8; 2 * MAX_PIECES];
        if c.follows.is_none() {
            let values = Values {
                member: 2 * s + PIECES,
                count: c.perm_size,
                solved: c.rank_pieces(&solved.pieces),
                mask: c.parity_bit.map_or(0, |b| 1 << b),
                next: |p: u64, mv: usize| c.move_pieces(p, mv, m, &moves[mv].1[s], &mut scratch),
                class: |p: u64| c.parity_bit.map_or(0, |b| u32::from(c.odd_rank(p)) << b),
            };
            units.extend(Block::single(values, m));
        }
        if c.orientations > 1 {
            let values = Values {
                member: 2 * s + TWISTS,
                count: c.ori_values(),
                solved: c.rank_twists(&solved.twists),
                mask: c.sum_bit.map_or(0, |b| 1 << b),
                next: |q: u64, mv: usize| c.move_twists(q, mv, m, &moves[mv].1[s], &mut scratch),
                class: |q: u64| c.sum_bit.map_or(0, |b| ((q / c.ori_size) as u32) << b),
            };
            units.extend(Block::single(values, m));
        }
    }
    let low = coords.last().map_or(1, |c| c.ori_size);
    let unblocked = |member: usize| {
        let c = &coords[member / 2];
        match member % 2 == PIECES {
            true => c.perm_digits(),
            false => c.ori_size,
        }
    };
    block::plan(units, unblocked, low)
}

/// A block member's part: a set's pieces are member `2 * set + PIECES`, its orientations
/// `2 * set + TWISTS`.
const PIECES: usize = 0;
const TWISTS: usize = 1;

/// The move table `[value * moves + move]` of a coordinate of `size` values (`moved` gives a
/// value's image under a move), where it has at most [`TABLE_LIMIT`] values.
fn move_table(
    size: u64,
    moves: usize,
    mut moved: impl FnMut(u64, usize) -> u64,
) -> Option<Vec<u32>> {
    (size <= TABLE_LIMIT).then(|| {
        (0..size)
            .flat_map(|v| (0..moves).map(move |mv| (v, mv)))
            .map(|(v, mv)| moved(v, mv) as u32)
            .collect()
    })
}

/// The order of the group the moves generate, acting on (position, orientation) points
/// (Schreier–Sims), where every set's pieces are distinct (then it is the number of reachable
/// positions) and there are at most 255 points.
fn group_order(sets: &[PieceSet], coords: &[Coords], moves: &[Move]) -> Option<u64> {
    let points: usize = sets.iter().map(|s| s.count * s.orientations as usize).sum();
    if points > 255 || !coords.iter().all(|c| c.multiplicity.len() == c.count) {
        return None;
    }
    let generators: Vec<crate::group::Perm> = moves
        .iter()
        .map(|(_, parts)| {
            let mut image = vec![0u8; points];
            let mut base = 0;
            for (set, part) in sets.iter().zip(parts) {
                let o = set.orientations as usize;
                for (i, (&f, &t)) in part.pieces.iter().zip(&part.twists).enumerate() {
                    for k in 0..o {
                        // The piece at position f, oriented k, lands at i, oriented k + t.
                        image[base + f as usize * o + k] =
                            (base + i * o + (k + t as usize) % o) as u8;
                    }
                }
                base += set.count * o;
            }
            image
        })
        .collect();
    u64::try_from(crate::group::Chain::new(points, &generators).order()).ok()
}

const RANK_ORDER: &str = "rank = mixed radix, most significant first: the index of the parity vector among the reachable ones, ascending (a bit per set of distinct pieces, set where it is odd, and per set of two orientations whose sum the moves change, that sum mod 2; bits in the sets' order); then for each set in the definition's order and outside the blocks, the rank of its pieces (lexicographic, halved where the pieces are distinct; the rank among the multiset's arrangements where some are identical; none where every move permutes the set as it permutes an earlier set of distinct pieces, whose pieces then give this set's), then its orientations in base o by position (the last left out where the moves keep their sum or the vector holds it)";

/// The rank order, with the blocks and the reduced orientations where there are any.
fn rank_order(sets: &[PieceSet], blocks: &[Block], reduction: &Reduction) -> String {
    let order = rank_order_of_blocks(sets, blocks);
    match reduction.describe() {
        Some(reduced) => format!("{order}; {reduced}"),
        None => order,
    }
}

/// The rank order, with the blocks where there are any.
fn rank_order_of_blocks(sets: &[PieceSet], blocks: &[Block]) -> String {
    if blocks.is_empty() {
        return RANK_ORDER.into();
    }
    let listed: Vec<String> = (blocks.iter())
        .map(|b| {
            let names: Vec<String> = (b.members.iter())
                .map(|&m| match m % 2 == PIECES {
                    true => format!("{} pieces", sets[m / 2].name),
                    false => format!("{} orientations", sets[m / 2].name),
                })
                .collect();
            format!("({})", names.join(", "))
        })
        .collect();
    format!(
        "{RANK_ORDER}, each part of a set in a block left out; then for each block {}, the index of its parts' position among the positions they reach (found by a search over those parts alone) that share its parities, in the order of the key: mixed radix over the block's parts in the order given, pieces by their full rank, orientations by their digit plus, where the vector holds their sum, the sum times the digit's values",
        listed.join(" ")
    )
}

/// A lower bound on the table's entries (each set's arrangements times its orientations, less
/// the most the parity and sum constraints can take off: a factor 2 and `o` a set), as its
/// log10 and in words with its bytes at 2 bits an entry (the bound may pass f64's range).
fn table_bound(def: &TwistyDefinition) -> (f64, String) {
    let mut log = 0.0f64;
    for (set, solved) in def.sets.iter().zip(&def.solved) {
        let mut multiplicity = vec![0usize; set.count];
        for &l in &solved.pieces {
            multiplicity[l as usize] += 1;
        }
        let log_factorial = |n: usize| (1..=n).map(|k| (k as f64).log10()).sum::<f64>();
        log +=
            log_factorial(set.count) - multiplicity.iter().map(|&c| log_factorial(c)).sum::<f64>();
        log += (set.count - 1) as f64 * f64::from(set.orientations).log10() - 2f64.log10();
    }
    let scientific = |log: f64| {
        let exponent = log.floor();
        format!("{:.2}e{exponent}", 10f64.powf(log - exponent))
    };
    let bytes = log - 4f64.log10();
    let units = ["B", "KB", "MB", "GB", "TB", "PB", "EB"];
    let size = match (bytes.max(0.0) / 3.0).floor() as usize {
        u if u < units.len() => format!("{:.1} {}", 10f64.powf(bytes - 3.0 * u as f64), units[u]),
        _ => format!("{} bytes", scientific(bytes)),
    };
    (
        log,
        format!("{} entries ({size} at 2 bits an entry)", scientific(log)),
    )
}

/// The number of arrangements of a multiset of `n` items with these multiplicities.
fn multinomial(n: usize, multiplicity: &[u8]) -> u64 {
    // n <= 20: n! fits 64 bits.
    multiplicity
        .iter()
        .fold(rank::factorial(n), |r, &c| r / rank::factorial(c as usize))
}

/// The rank of `labels` among the arrangements of its multiset (multiplicities `multiplicity`,
/// labels `0..multiplicity.len()`), in lexicographic order.
fn multiset_rank(labels: &[u8], multiplicity: &[u8]) -> u64 {
    let mut left = multiplicity.to_vec();
    let mut r = 0;
    for (i, &x) in labels.iter().enumerate() {
        let rest = labels.len() - i - 1;
        for y in 0..x as usize {
            if left[y] > 0 {
                left[y] -= 1;
                r += multinomial(rest, &left);
                left[y] += 1;
            }
        }
        left[x as usize] -= 1;
    }
    r
}

/// The arrangement of rank `r` (see [`multiset_rank`]).
fn multiset_unrank(mut r: u64, multiplicity: &[u8], labels: &mut [u8]) {
    let mut left = multiplicity.to_vec();
    let n = labels.len();
    for (i, label) in labels.iter_mut().enumerate() {
        for y in 0..left.len() {
            if left[y] == 0 {
                continue;
            }
            left[y] -= 1;
            let m = multinomial(n - i - 1, &left);
            if r < m {
                *label = y as u8;
                break;
            }
            r -= m;
            left[y] += 1;
        }
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

/// Walks the ranks of a twisty puzzle: the coordinates of the rank, moved one by one.
///
/// Ranks in a row differ in the last digit alone (the last block's, or without blocks the last
/// set's orientations), so the cursor keeps, for each move, what every other digit of the
/// neighbour adds up to, and a step to the next rank only looks up that digit's move.
pub struct TwistyCursor<'a> {
    space: &'a Twisty,
    /// Per set outside the blocks, the pieces' full coordinate (not halved) and the
    /// orientations' coordinate.
    pieces: Vec<u64>,
    twists: Vec<u64>,
    /// Per block, its position.
    blocks: Vec<u64>,
    vector: u32,
    /// The ranks whose moves `base` holds: those that differ from the loaded one in the last
    /// digit alone.
    run: std::ops::Range<u64>,
    /// Per move, the neighbour's rank but for the last digit, less the start of the last
    /// digit's class after the move (modulo 2^64), which its table entry adds back.
    base: Vec<u64>,
    /// How many values the last digit has, and its move table, where it has one.
    low: u64,
    low_table: Option<&'a [u32]>,
    low_by_move: Option<&'a [u32]>,
    /// Where the last digit's class starts in its table: the last block's class, or the last
    /// set's sum part of its orientations' coordinate.
    low_start: u64,
    /// The last digit's table row for the rank sought.
    row: u64,
    scratch: [u8; 2 * MAX_PIECES],
}

impl TwistyCursor<'_> {
    /// The coordinates of `rank`, and each move's `base`.
    fn load(&mut self, rank: u64) {
        let space = self.space;
        self.vector = space.parities[(rank / space.parity_weight) as usize];
        for (s, (c, &(wp, wo))) in space.coords.iter().zip(&space.weights).enumerate() {
            let (p, q) = space.digits(c, rank, wp, wo);
            if !c.pieces_in_block {
                self.pieces[s] = match c.parity_bit {
                    Some(b) => c.lex_of(p, (self.vector >> b) & 1 == 1),
                    None => p,
                };
            }
            self.twists[s] = q + c.sum_part(self.vector);
        }
        for (i, (b, &w)) in space.blocks.iter().zip(&space.block_weights).enumerate() {
            self.blocks[i] = space.block_position(b, self.vector, rank / w % b.class_size);
        }
        let m = space.moves.len();
        let last = space.coords.len() - 1;
        let low_block = space.blocks.len().checked_sub(1);
        self.low_start = match low_block {
            Some(l) => self.blocks[l] - rank % self.low,
            None => space.coords[last].sum_part(self.vector),
        };
        for mv in 0..m {
            let parts = &space.moves[mv].1;
            let vector = self.vector ^ space.move_parity[mv];
            // A move keeps the parities reachable.
            let mut r = u64::from(space.parity_index[vector as usize]) * space.parity_weight;
            for (s, (c, &(wp, wo))) in space.coords.iter().zip(&space.weights).enumerate() {
                if !c.pieces_in_block {
                    let p = c.move_pieces(self.pieces[s], mv, m, &parts[s], &mut self.scratch);
                    r += if c.parity_bit.is_some() { p / 2 } else { p } * wp;
                }
                if !c.twists_in_block && (s != last || low_block.is_some()) {
                    let q = c.move_twists(self.twists[s], mv, m, &parts[s], &mut self.scratch);
                    r += q % c.ori_size * wo;
                }
            }
            // The last digit's table entry holds its start after the move besides the digit.
            let mut after = space.coords[last].sum_part(vector);
            for (i, (b, &w)) in space.blocks.iter().zip(&space.block_weights).enumerate() {
                if Some(i) == low_block {
                    after = space.block_position(b, vector, 0);
                } else {
                    r += b.next(self.blocks[i], mv) % b.class_size * w;
                }
            }
            self.base[mv] = r.wrapping_sub(after);
        }
    }
}

impl Cursor for TwistyCursor<'_> {
    fn seek(&mut self, rank: u64) {
        if !self.run.contains(&rank) {
            let start = rank - rank % self.low;
            self.run = start..start + self.low;
            self.load(rank);
        }
        self.row = self.low_start + rank - self.run.start;
    }

    fn neighbour(&mut self, mv: usize) -> u64 {
        self.neighbour_at(self.row, mv)
    }

    fn seek_run(&mut self, rank: u64) -> u64 {
        self.seek(rank);
        self.run.end
    }

    fn each_neighbour_in_run(&mut self, ranks: &[u64], mv: usize, mut f: impl FnMut(u64, u64)) {
        // Row `low_start + rank - run.start` of the last digit's table.
        let first = self.low_start.wrapping_sub(self.run.start);
        match self.low_by_move {
            Some(t) => {
                let rows = t.len() / self.base.len();
                let column = &t[mv * rows..(mv + 1) * rows];
                let base = self.base[mv];
                for &rank in ranks {
                    let row = first.wrapping_add(rank) as usize;
                    f(rank, base.wrapping_add(u64::from(column[row])));
                }
            }
            None => {
                for &rank in ranks {
                    f(rank, self.neighbour_at(first.wrapping_add(rank), mv));
                }
            }
        }
    }
}

impl TwistyCursor<'_> {
    /// The neighbour by `mv` of the rank in the loaded run whose last digit has table row `row`.
    #[inline]
    fn neighbour_at(&mut self, row: u64, mv: usize) -> u64 {
        let space = self.space;
        let m = space.moves.len();
        let after = match self.low_table {
            Some(t) => u64::from(t[row as usize * m + mv]),
            None => {
                let last = space.coords.len() - 1;
                let part = &space.moves[mv].1[last];
                space.coords[last].move_twists(row, mv, m, part, &mut self.scratch)
            }
        };
        self.base[mv].wrapping_add(after)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naming() -> Naming {
        Naming {
            family: "perm".into(),
            params: Default::default(),
            slug: "t".into(),
        }
    }

    #[test]
    fn move_powers_are_named_as_twsearch_names_them() {
        // A 5-cycle (order 5) and a 4-cycle with a twist (order 4 x 2 = 8).
        let text =
            "Set A 5 1\nSet B 4 2\nMove P\nA\n2 3 4 5 1\nEnd\nMove Q\nB\n2 3 4 1\n1 0 0 0\nEnd\n";
        let def = format::read(text, "t").unwrap();
        let names = |metric| -> Vec<String> {
            metric_moves(&def, metric)
                .unwrap()
                .into_iter()
                .map(|m| m.0)
                .collect()
        };
        assert_eq!(
            names("htm"),
            [
                "P", "P2", "P'", "P2'", "Q", "Q2", "Q3", "Q4", "Q'", "Q2'", "Q3'"
            ]
        );
        assert_eq!(names("qtm"), ["P", "P'", "Q", "Q'"]);
    }

    #[test]
    fn far_too_large_tables_are_refused_with_their_size() {
        let refused = |text: &str| {
            let def = format::read(text, "t").unwrap();
            Twisty::new(&def, "htm", naming()).unwrap_err()
        };
        // 12 edges (2 orientations) and 8 corners (3): at least 12! 2^11 / 2 x 8! 3^7 / 2 entries
        // (the 3x3x3 cube has twice as many). M twists a piece of each set, so no potential on
        // the positions fixes their orientations.
        let cube = refused(
            "Set E 12 2\nSet C 8 3\nMove M\nE\n2 1 3 4 5 6 7 8 9 10 11 12\n1 0 0 0 0 0 0 0 0 0 0 0\n\
             C\n1 2 3 4 5 6 7 8\n1 0 0 0 0 0 0 0\nEnd\n",
        );
        assert!(
            cube.contains("at least 2.16e19 entries (5.4 EB at 2 bits an entry)"),
            "{cube}"
        );
        // Beyond what a float holds: still a number.
        let text = format!(
            "Set P 200 120\nMove M\nP\n2 1 {}\n1{}\nEnd\n",
            (3..=200)
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(" "),
            " 0".repeat(199)
        );
        let huge = refused(&text);
        assert!(
            huge.contains("at least 2.25e788 entries (5.63e787 bytes") && !huge.contains("inf"),
            "{huge}"
        );
    }

    #[test]
    fn multiset_ranks_are_dense_and_invertible() {
        let multiplicity = [2u8, 1, 2];
        let count = multinomial(5, &multiplicity);
        assert_eq!(count, 30);
        let mut seen = vec![false; count as usize];
        let mut labels = [0u8; 5];
        for r in 0..count {
            multiset_unrank(r, &multiplicity, &mut labels);
            assert_eq!(multiset_rank(&labels, &multiplicity), r);
            seen[r as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }

    /// Checks, at `samples` ranks spread over the table, that a rank's state ranks back to it
    /// and that each neighbour by coordinates is the neighbour by moving the pieces.
    fn check_round_trips(t: &Twisty, samples: u64) {
        let mut cursor = t.cursor();
        for rank in (0..t.size()).step_by((t.size() / samples).max(1) as usize) {
            let state = t.state(rank);
            assert_eq!(t.rank(&state), Ok(rank));
            let parsed = t.parse_state(&t.format_state(&state)).unwrap();
            assert_eq!(parsed, state);
            cursor.seek(rank);
            for mv in 0..t.move_count() {
                let parts = t.unrank_parts(rank);
                let moved: Vec<SetPart> = compose(&t.sets, &parts, &t.moves[mv].1);
                assert_eq!(cursor.neighbour(mv), t.rank_parts(&moved).unwrap());
            }
        }
    }

    #[test]
    fn ranks_and_states_round_trip() {
        // A's pieces (members 0 and 1: a set's pieces are 2s, its orientations 2s + 1), 10 of
        // them turned by a 3-cycle and a 10-cycle, are too many to list: a coordinate,
        // computed without a table. B's pieces reach two arrangements, one of each parity: 1 a
        // class. C's pieces, identical in pairs, and their twists reach 4 arrangements with 2
        // twists each under Y's 4-cycle: 8, 4 for each sum of the twists. Both are smaller
        // listed; A's orientations (3^9, listed no smaller) make the last digit long.
        let text = "Set A 10 3\nSet B 3 1\nSet C 4 2\nSolved\nC\n1 1 2 2\nEnd\nMove X\nA\n2 3 1 4 5 6 7 8 9 10\n1 2 0 0 0 0 0 0 0 0\nB\n2 1 3\nEnd\nMove Y\nA\n2 3 4 5 6 7 8 9 10 1\nC\n2 3 4 1\n1 0 0 0\nEnd\n";
        let def = format::read(text, "t").unwrap();
        let t = Twisty::new(&def, "htm", naming()).unwrap();
        // The vector: B odd under X; A odd and C's twists' sum changed under Y: 4 vectors. A:
        // 10!/2 x 3^9 (the twists keep their sum).
        let blocks: Vec<&[usize]> = t.blocks.iter().map(|b| &b.members[..]).collect();
        assert_eq!(blocks, [&[4, 5][..], &[2][..], &[1][..]]);
        assert_eq!(t.size(), 4 * 1_814_400 * 19_683 * 4);
        check_round_trips(&t, 3000);
        // With four pieces in A, every part is small enough to list: B's pieces are a block, and
        // A's and C's parts, tied by Y, the last; every entry of the table is reachable (the
        // search test in tests/families.rs checks such tables entry by entry).
        let small = text
            .replace("10 3", "4 3")
            .replace(" 5 6 7 8 9 10", "")
            .replace(" 0 0 0 0 0 0\nB", "\nB");
        let t = Twisty::new(&format::read(&small, "t").unwrap(), "htm", naming()).unwrap();
        let blocks: Vec<&[usize]> = t.blocks.iter().map(|b| &b.members[..]).collect();
        assert_eq!(blocks, [&[2][..], &[1, 0, 4, 5][..]]);
        let mut seen = vec![false; t.size() as usize];
        let mut queue = vec![t.solved()];
        seen[t.solved() as usize] = true;
        let mut cursor = t.cursor();
        while let Some(rank) = queue.pop() {
            cursor.seek(rank);
            for mv in 0..t.move_count() {
                let next = cursor.neighbour(mv);
                if !std::mem::replace(&mut seen[next as usize], true) {
                    queue.push(next);
                }
            }
        }
        assert!(seen.iter().all(|&s| s), "{} entries", t.size());
        check_round_trips(&t, t.size());
        // A position a block does not list has no rank, and the error names the block's sets:
        // two of C's pieces flipped (Y turns all four, flipping one).
        let mut flipped = t.state(t.solved());
        let c_twists = 4 + 4 + 3 + 3 + 4;
        (flipped[c_twists], flipped[c_twists + 1]) = (1, 1);
        let error = t.rank(&flipped).unwrap_err();
        assert!(
            error.contains(
                "never bring the orientations of A and the pieces of A and the pieces of C and the orientations of C to this position"
            ),
            "{error}"
        );
    }
}
