//! The Towers of Hanoi with `pegs` pegs and `discs` discs: a move takes the top disc of a peg
//! onto an empty peg or onto a larger disc. Every one of the `pegs^discs` positions is reachable
//! (a disc may always be parked on a larger one), from all discs on the first peg, where the
//! search starts.
//!
//! A move is a pair of pegs (`13`: pegs 1 and 3): between two pegs exactly one disc may move, the smaller of their
//! top discs, onto the other (so each move is its own way back); where both pegs are empty the
//! move has no disc to take and leaves the position as it is (no neighbour there: the level
//! loop finds nothing new along it, on every engine). So 3 pegs have 3 moves and 4 pegs 6.
//!
//! Rank order: `sum over discs d of (peg of d) * pegs^d`, disc 0 the smallest and pegs from 0:
//! the largest discs are the high digits. They move seldom, so the positions of one level crowd
//! into the ranges of ranks that share where the largest discs lie. With 4 or 8 pegs a 64-rank
//! unit holds every position of the smallest 3 (or 2) discs: their moves shift bits within the
//! unit, and a larger disc takes the unit's positions with those discs off both its pegs to
//! another unit, bit for bit. So a sweep pulls a level 64 positions at a time, a page of 16,384
//! ranks (every position of the smallest 7 discs; with 8 pegs 4,096 ranks, 4 discs) at a time,
//! and visits only the pages that hold the level or lie next to one that does
//! ([`Pages`]).
//!
//! This file holds the family (its options, ranks, cursor, its two shaders' set-up and their
//! tests); its page pulls are in `pages.rs`, reading the same tables of tops as the cursor. Both
//! shaders take the same moves. Its symmetries are numbered in
//! [`crate::puzzle::symmetry::relabel`], whose tables the shader of classes reads.

mod pages;

use super::capability::{Symmetric, Symmetries};
use super::family::{Family, Given, Kind, Opt, PuzzleError, Run, Sample};
use super::{Capabilities, Cursor, GpuShader, Pages, PuzzleInfo, Space, StateSpace};
use crate::puzzle::Rate;
use crate::puzzle::symmetry::{Symmetry, relabel};

/// Most pegs.
pub const MAX_PEGS: usize = 8;
/// Most positions: `pegs^discs` at most 2^48 (a table of 64 TiB at 2 bits an entry).
const MAX_POSITIONS: u128 = super::MAX_ENTRIES as u128;
/// The smallest discs, whose digits (the lowest) a table of [`Hanoi::tops`] covers, at most.
const CHUNK_DISCS: usize = 8;
/// log2 of the ranks of a page ([`Pages::bits`]), at most: measured on 4 pegs and 15
/// discs, pages of 2^14 ranks searched 14% faster than 2^12 and 5% faster than 2^16.
const PAGE_BITS: u32 = 14;
/// No disc: the top of an empty peg.
pub(crate) const NONE: u8 = u8::MAX;

/// The Towers of Hanoi.
#[derive(Clone, Debug)]
pub struct Hanoi {
    pegs: usize,
    discs: usize,
    /// `pegs^k` for `k` in `0..=discs`.
    power: Vec<u64>,
    /// The pairs of pegs each move joins, in move order.
    pairs: Vec<(u8, u8)>,
    /// The smallest discs, whose digits (the lowest) a table of [`Hanoi::tops`] covers.
    chunk: usize,
    /// Bits of those digits, where the pegs are a power of two.
    chunk_bits: Option<u32>,
    /// For each value of those digits, the smallest of those discs on each peg, [`NONE`] for
    /// none, a byte a peg.
    tops: Vec<u64>,
    /// The moves 64 ranks at a time, where the pegs are 4 or 8 and there are 64 ranks or more.
    units: Option<Units>,
}

/// The moves of the Towers of Hanoi 64 ranks at a time: with `2^b` pegs (`b` dividing 6) a
/// unit holds every position of its `6 / b` smallest discs (3 with 4 pegs, 2 with 8).
#[derive(Clone, Debug)]
struct Units {
    /// The discs whose pegs a page's ranks run through.
    page_discs: usize,
    /// The moves of a unit's own discs: (shift, sources), each source bit `r` moved to bit
    /// `r + shift` (one entry for all moves of the same shift).
    within: Vec<(i32, u64)>,
    /// For each move, the bits of a unit whose own discs are all off its two pegs (where a
    /// larger disc moves).
    apart: Vec<u64>,
    /// For each unit of a page, the moves of the discs the page's units run through: the unit
    /// they come from and the bits they move ([`Units::apart`]).
    inside: Vec<Vec<(usize, u64)>>,
    /// For each move, the units of a page where those discs are all off its two pegs, so that
    /// a disc larger still moves: from another page, the same unit.
    beyond: Vec<Vec<usize>>,
}

/// The Towers of Hanoi family (`--puzzle hanoi`).
pub struct TowersOfHanoi;
/// The Towers of Hanoi family.
pub const HANOI: TowersOfHanoi = TowersOfHanoi;

impl Family for TowersOfHanoi {
    fn name(&self) -> &'static str {
        "hanoi"
    }

    fn samples(&self) -> &'static [Sample] {
        &[Sample {
            options: &[("pegs", "4"), ("discs", "6")],
            reaches: "pages of the smaller discs, moves that leave a position as it is",
        }]
    }

    fn options(&self) -> &'static [Opt] {
        &[
            Opt {
                name: "pegs",
                kind: Kind::Count,
                help: "the number of pegs, 3 to 8",
                default: Some("3"),
            },
            Opt {
                name: "discs",
                kind: Kind::Count,
                help: "the number of discs, 1 or more (pegs^discs at most 2^48)",
                default: None,
            },
        ]
    }

    fn build(&self, given: &Given) -> Result<Space, PuzzleError> {
        let pegs = given.need_count("pegs")?;
        let discs = given.need_count("discs")?;
        // The option at fault: the pegs where they are out of range, else the discs.
        let named = match (3..=MAX_PEGS).contains(&pegs) {
            true => PuzzleError::value("discs", discs),
            false => PuzzleError::value("pegs", pegs),
        };
        let hanoi = Hanoi::new(pegs, discs).map_err(named)?;
        Ok(Space::Hanoi(hanoi))
    }

    fn runs(&self) -> &'static [Run] {
        &[
            Run {
                options: &[("pegs", "3"), ("discs", "10")],
                large: false,
            },
            Run {
                options: &[("pegs", "3"), ("discs", "15")],
                large: false,
            },
            Run {
                options: &[("pegs", "4"), ("discs", "10")],
                large: false,
            },
            Run {
                options: &[("pegs", "4"), ("discs", "14")],
                large: false,
            },
            // 6.9e10 positions, a 16 GiB table.
            Run {
                options: &[("pegs", "4"), ("discs", "18")],
                large: true,
            },
        ]
    }
}

impl Hanoi {
    /// The puzzle with `pegs` pegs (3 to [`MAX_PEGS`]) and `discs` discs (1 or more, at most
    /// 2^48 positions).
    pub fn new(pegs: usize, discs: usize) -> Result<Hanoi, String> {
        if !(3..=MAX_PEGS).contains(&pegs) {
            return Err(format!(
                "out of range: the Towers of Hanoi take 3 to {MAX_PEGS} pegs"
            ));
        }
        let positions = (pegs as u128).checked_pow(discs as u32);
        if discs == 0 || positions.is_none_or(|p| p > MAX_POSITIONS) {
            return Err(format!(
                "out of range: {pegs} pegs take 1 to {} discs (at most 2^48 positions)",
                (1..)
                    .take_while(|&d| (pegs as u128).pow(d) <= MAX_POSITIONS)
                    .count()
            ));
        }
        let power = (0..=discs).map(|d| (pegs as u64).pow(d as u32)).collect();
        let pairs = (0..pegs)
            .flat_map(|a| (a + 1..pegs).map(move |b| (a as u8, b as u8)))
            .collect();
        let chunk = discs.min(CHUNK_DISCS);
        let chunk_bits = (pegs.is_power_of_two()).then(|| pegs.trailing_zeros() * chunk as u32);
        let mut hanoi = Hanoi {
            pegs,
            discs,
            power,
            pairs,
            chunk,
            chunk_bits,
            tops: Vec::new(),
            units: None,
        };
        hanoi.tops = (0..hanoi.power[chunk])
            .map(|low| hanoi.tops_of(low, 0, chunk))
            .collect();
        hanoi.units = hanoi.units();
        Ok(hanoi)
    }

    /// The top disc of each peg among discs `first..first + count`, whose pegs are the digits
    /// of `digits` (disc `first` the lowest): a byte a peg, [`NONE`] where none is on it.
    fn tops_of(&self, mut digits: u64, first: usize, count: usize) -> u64 {
        let mut top = [NONE; 8];
        let pegs = self.pegs as u64;
        for d in first..first + count {
            let peg = match pegs.is_power_of_two() {
                true => (digits & (pegs - 1)) as usize,
                false => (digits % pegs) as usize,
            };
            digits = match pegs.is_power_of_two() {
                true => digits >> pegs.trailing_zeros(),
                false => digits / pegs,
            };
            if top[peg] == NONE {
                top[peg] = d as u8;
            }
        }
        u64::from_le_bytes(top)
    }

    /// The moves 64 ranks at a time, where the pegs are a power of two whose digits fill a
    /// unit's 6 bits and there are at least 64 positions.
    fn units(&self) -> Option<Units> {
        let bits = self.pegs.trailing_zeros();
        if !self.pegs.is_power_of_two() || 6 % bits != 0 || self.discs < (6 / bits) as usize {
            return None;
        }
        let discs = (6 / bits) as usize;
        let page_discs = self.discs.min((PAGE_BITS / bits) as usize);
        let page_bits = page_discs as u32 * bits;
        let peg_of = |r: u64, d: usize| (r >> (bits as usize * d)) as usize % self.pegs;
        let mut shifts = std::collections::BTreeMap::<i32, u64>::new();
        for r in 0..64u64 {
            for d in 0..discs {
                let from = peg_of(r, d);
                let above = |peg: usize| (0..d).any(|s| peg_of(r, s) == peg);
                if above(from) {
                    continue;
                }
                for to in (0..self.pegs).filter(|&to| to != from && !above(to)) {
                    let shift = (to as i32 - from as i32) << (bits as usize * d);
                    *shifts.entry(shift).or_default() |= 1 << r;
                }
            }
        }
        let apart: Vec<u64> = (self.pairs.iter())
            .map(|&(a, b)| {
                (0..64u64)
                    .filter(|&r| (0..discs).all(|d| ![a, b].contains(&(peg_of(r, d) as u8))))
                    .fold(0, |bits, r| bits | 1 << r)
            })
            .collect();
        let page_units = 1u64 << (page_bits - 6);
        let unit_tops: Vec<u64> = (0..page_units)
            .map(|unit| self.tops_of(unit, discs, page_discs - discs))
            .collect();
        let inside = (0..page_units as usize)
            .map(|unit| {
                (self.movers(unit_tops[unit]))
                    .map(|(mv, disc, on, other)| {
                        let step = self.power[disc as usize - discs] as usize;
                        let source = unit + usize::from(other) * step - usize::from(on) * step;
                        (source, apart[mv])
                    })
                    .collect()
            })
            .collect();
        let beyond = (0..self.pairs.len())
            .map(|mv| {
                let moved = |unit: usize| self.movers(unit_tops[unit]).any(|m| m.0 == mv);
                (0..page_units as usize)
                    .filter(|&unit| !moved(unit))
                    .collect()
            })
            .collect();
        Some(Units {
            page_discs,
            within: shifts.into_iter().collect(),
            apart,
            inside,
            beyond,
        })
    }

    /// How far disc `d`'s peg moves the rank: `pegs^d`.
    #[inline]
    fn step(&self, d: usize) -> u64 {
        self.power[d]
    }

    /// A shader of the Towers of Hanoi (`source`, under `shaders/`): the pegs, discs and moves as
    /// its constants, and its data each move's pegs (`a | b << 8`) followed by `tables`.
    fn shader(&self, source: &'static str, tables: impl IntoIterator<Item = u32>) -> GpuShader {
        GpuShader {
            source,
            constants: vec![
                ("PEGS", self.pegs as f64),
                ("DISCS", self.discs as f64),
                ("MOVES", self.pairs.len() as f64),
            ],
            data: (self.pairs.iter())
                .map(|&(a, b)| u32::from(a) | u32::from(b) << 8)
                .chain(tables)
                .collect(),
            tables: Vec::new(),
            pushed: None,
        }
    }

    /// The position `rank` as the smallest discs' digits (the table's) and the rest's.
    #[inline]
    fn split(&self, rank: u64) -> (u64, u64) {
        match self.chunk_bits {
            Some(bits) => (rank & ((1 << bits) - 1), rank >> bits),
            None => {
                let per = self.power[self.chunk];
                (rank % per, rank / per)
            }
        }
    }

    /// For each move with a disc to take under the tops `tops` ([`Hanoi::tops_of`]): the move,
    /// the disc, the peg it is on and the other peg.
    fn movers(&self, tops: u64) -> impl Iterator<Item = (usize, u8, u8, u8)> + '_ {
        let top = move |peg: u8| (tops >> (8 * peg)) as u8;
        (self.pairs.iter().enumerate()).filter_map(move |(mv, &(a, b))| {
            let (ta, tb) = (top(a), top(b));
            match ta < tb {
                true => Some((mv, ta, a, b)),
                false if tb != NONE => Some((mv, tb, b, a)),
                false => None,
            }
        })
    }
}

/// The tops of each peg of a position from those of its smaller discs (`small`) and of its
/// larger ones (`large`), a byte a peg, [`NONE`] where a peg is empty.
#[inline]
fn tops(small: u64, large: u64) -> u64 {
    // The pegs with none of the smaller discs (NONE's high bit: discs are below 128).
    let empty = ((small >> 7) & 0x0101_0101_0101_0101) * 0xff;
    (small & !empty) | (large & empty)
}

impl Symmetric for Hanoi {
    /// Every exchange of the pegs other than the first (where the discs start): `(pegs - 1)!`
    /// symmetries, whose classes are numbered as restricted-growth strings and searched on the
    /// GPU by `shaders/hanoi_classes.wgsl`.
    fn symmetry(&self) -> Result<Symmetry, String> {
        let mut symmetry = relabel::exchanges(self, self.discs, self.pegs, "pegs")?;
        let classes = relabel::Relabelled::new(self.discs, self.pegs);
        // The shader holds each disc's peg in an array of 32: 2^48 positions are 30 discs at most.
        symmetry.shader = Some(self.shader(
            concat!(
                include_str!("../../../shaders/hanoi_moves.wgsl"),
                include_str!("../../../shaders/hanoi_classes.wgsl")
            ),
            classes.gpu_words(),
        ));
        Ok(symmetry)
    }
}

impl StateSpace for Hanoi {
    type Cursor<'a> = HanoiCursor<'a>;

    fn size(&self) -> u64 {
        self.power[self.discs]
    }

    fn move_names(&self) -> Vec<String> {
        (self.pairs.iter())
            .map(|&(a, b)| format!("{}{}", a + 1, b + 1))
            .collect()
    }

    fn move_count(&self) -> usize {
        self.pairs.len()
    }

    fn solved(&self) -> u64 {
        0
    }

    fn cursor(&self) -> HanoiCursor<'_> {
        HanoiCursor {
            hanoi: self,
            rank: 0,
            top: u64::MAX,
            rest: 0,
            large: self.tops_of(0, self.chunk, self.discs - self.chunk),
        }
    }

    /// The peg (1-based) of each disc, the smallest first.
    fn state(&self, rank: u64) -> Vec<u32> {
        (0..self.discs)
            .map(|d| (rank / self.step(d) % self.pegs as u64) as u32 + 1)
            .collect()
    }

    fn rank(&self, state: &[u32]) -> Result<u64, String> {
        if state.len() != self.discs {
            return Err(format!(
                "the state has {} discs but this puzzle has {}: give the peg (1 to {}) of each disc, the smallest first",
                state.len(),
                self.discs,
                self.pegs
            ));
        }
        (state.iter().enumerate()).try_fold(0u64, |rank, (d, &peg)| {
            match (1..=self.pegs as u32).contains(&peg) {
                true => Ok(rank + u64::from(peg - 1) * self.step(d)),
                false => Err(format!(
                    "disc {} is on peg {peg}: the pegs are 1 to {}",
                    d + 1,
                    self.pegs
                )),
            }
        })
    }

    fn info(&self) -> PuzzleInfo {
        let mut params = serde_json::Map::new();
        params.insert("pegs".into(), self.pegs.into());
        params.insert("discs".into(), self.discs.into());
        PuzzleInfo {
            puzzle: "hanoi".into(),
            params,
            metric: "moves".into(),
            moves: self.move_names(),
            rank_order: "rank = sum over discs d (1 the smallest) of (peg of d - 1) * pegs^(d-1); move ab moves the smaller top disc of pegs a and b onto the other".into(),
            group_order: None,
            symmetry: None,
        }
    }

    fn slug(&self) -> String {
        format!("hanoi-p{}-d{}", self.pegs, self.discs)
    }

    fn move_state(&self, state: &[u32], mv: usize, out: &mut [u32]) -> bool {
        let (a, b) = self.pairs[mv];
        let (a, b) = (u32::from(a) + 1, u32::from(b) + 1);
        out.copy_from_slice(state);
        // The smallest disc on either peg moves to the other (where there is one).
        if let Some(d) = state.iter().position(|&p| p == a || p == b) {
            out[d] = a + b - state[d];
        }
        true
    }

    /// Pages with 4 or 8 pegs ([`Pages`]).
    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities {
            pages: self.units.is_some().then_some(self as &dyn Pages),
            symmetries: Symmetries::Offered(self),
            ..Capabilities::default()
        }
    }

    fn measured_rate(&self) -> Rate {
        Rate {
            per_thread: 100.0e6,
            run: "Hanoi, 4 pegs, 18 discs: 6.9e10 states in 338 s",
        }
    }

    fn gpu_shader(&self) -> Option<GpuShader> {
        let powers = (self.power.iter()).flat_map(|&p| [p as u32, (p >> 32) as u32]);
        let source = concat!(
            include_str!("../../../shaders/hanoi_moves.wgsl"),
            include_str!("../../../shaders/hanoi.wgsl")
        );
        Some(self.shader(source, powers))
    }
}

/// Walks the positions of the Towers of Hanoi: the top disc of each peg, from a table of the
/// smallest discs' digits over the tops of the larger discs, found again only where those change.
pub struct HanoiCursor<'a> {
    hanoi: &'a Hanoi,
    rank: u64,
    /// The top disc of each peg, a byte a peg.
    top: u64,
    /// The digits of the discs past the table's (the larger), and their tops.
    rest: u64,
    large: u64,
}

impl Cursor for HanoiCursor<'_> {
    fn seek(&mut self, rank: u64) {
        let (low, rest) = self.hanoi.split(rank);
        if rest != self.rest {
            self.rest = rest;
            let h = self.hanoi;
            self.large = h.tops_of(rest, h.chunk, h.discs - h.chunk);
        }
        self.rank = rank;
        self.top = tops(self.hanoi.tops[low as usize], self.large);
    }

    fn neighbour(&mut self, mv: usize) -> u64 {
        let (a, b) = self.hanoi.pairs[mv];
        let top = |peg: u8| (self.top >> (8 * peg)) as u8;
        let (ta, tb) = (top(a), top(b));
        // The smaller top disc moves (an empty peg's NONE is larger than any disc).
        let (disc, from, to) = match ta < tb {
            true => (ta, a, b),
            false if tb != NONE => (tb, b, a),
            false => return self.rank,
        };
        let step = self.hanoi.step(disc as usize);
        (self.rank + u64::from(to) * step) - u64::from(from) * step
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_smaller_top_disc_moves_and_back_again() {
        let hanoi = Hanoi::new(4, 5).unwrap();
        let mut cursor = hanoi.cursor();
        let mut back = hanoi.cursor();
        for rank in 0..hanoi.size() {
            cursor.seek(rank);
            let state = hanoi.state(rank);
            for mv in 0..hanoi.move_count() {
                let next = cursor.neighbour(mv);
                back.seek(next);
                assert_eq!(back.neighbour(mv), rank, "move {mv} from {state:?}");
                let (a, b) = hanoi.pairs[mv];
                let on = |peg: u8| state.iter().position(|&p| p == u32::from(peg) + 1);
                let after = hanoi.state(next);
                match (on(a), on(b)) {
                    (None, None) => assert_eq!(next, rank),
                    (x, y) => {
                        let disc = x.unwrap_or(usize::MAX).min(y.unwrap_or(usize::MAX));
                        let changed: Vec<usize> =
                            (0..5).filter(|&d| state[d] != after[d]).collect();
                        assert_eq!(changed, vec![disc], "{state:?} -> {after:?}");
                    }
                }
            }
            assert_eq!(hanoi.rank(&state), Ok(rank));
        }
    }

    /// The cursor's tops, from the largest discs' table and the others' kept, are each peg's
    /// smallest disc (by shifts for 4 pegs, by divisions for 3 and 5).
    #[test]
    fn a_seek_finds_every_peg_s_top_disc() {
        for (pegs, discs) in [(3, 11), (4, 10), (4, 17), (5, 9), (8, 16)] {
            let hanoi = Hanoi::new(pegs, discs).unwrap();
            let mut cursor = hanoi.cursor();
            let size = hanoi.size();
            for i in 0..20_000u64 {
                // Runs of neighbouring ranks and jumps.
                let rank = (i / 50).wrapping_mul(0x9e37_79b9_7f4a_7c15) % size + i % 50;
                let rank = rank.min(size - 1);
                cursor.seek(rank);
                let state = hanoi.state(rank);
                for peg in 0..pegs {
                    let want = state.iter().position(|&p| p as usize == peg + 1);
                    let got = (cursor.top >> (8 * peg)) as u8;
                    assert_eq!(
                        got,
                        want.map_or(NONE, |d| d as u8),
                        "{pegs} {discs} {state:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn sizes_out_of_range_are_refused_naming_the_range() {
        assert!(Hanoi::new(2, 3).unwrap_err().contains("3 to 8"));
        assert!(Hanoi::new(4, 25).unwrap_err().contains("1 to 24 discs"));
        assert!(Hanoi::new(3, 0).is_err());
        assert_eq!(Hanoi::new(3, 30).unwrap().size(), 3u64.pow(30));
    }
}
