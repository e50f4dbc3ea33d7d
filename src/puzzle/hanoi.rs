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
//! Rank order: `sum over discs d of (peg of d) * pegs^(discs - 1 - d)`, disc 0 the smallest and
//! pegs from 0: the smallest discs are the high digits. So the positions that share where the
//! smallest discs lie are a range of consecutive ranks, and where one of them is on peg `a` or
//! `b` (the smallest such moves) move `ab` takes the whole range to another one in order: a block
//! move of [`StateSpace::structure`], applied 64 positions at a time. The rest of a move's
//! positions (none of the first discs on its pegs) split likewise by the next disc.

use super::family::{Family, Given, Kind, Opt, PuzzleError, Run};
use super::{BlockMove, Cursor, GpuShader, PuzzleInfo, Space, StateSpace, Structure};
use crate::rank::window::WindowMove;

/// Most pegs.
pub const MAX_PEGS: usize = 8;
/// Most positions: `pegs^discs` at most 2^48 (a table of 64 TiB at 2 bits an entry).
const MAX_POSITIONS: u128 = 1 << 48;
/// The largest discs a table of [`Hanoi::tops`] covers, at most.
const CHUNK_DISCS: usize = 8;
/// The fewest positions of a block move of [`StateSpace::structure`] (whole table words).
const MIN_BLOCK: u64 = 64;
/// The most ranges a move's structure splits into by the smallest discs' pegs (the ranges with
/// none of them on the move's pegs, split again by the next disc).
const MAX_SPLITS: u64 = 1 << 12;
/// No disc: the top of an empty peg.
const NONE: u8 = u8::MAX;

/// The Towers of Hanoi.
#[derive(Clone, Debug)]
pub struct Hanoi {
    pegs: usize,
    discs: usize,
    /// `pegs^k` for `k` in `0..=discs`.
    power: Vec<u64>,
    /// The pairs of pegs each move joins, in move order.
    pairs: Vec<(u8, u8)>,
    /// The largest discs, whose digits (the lowest) a table of [`Hanoi::tops`] covers.
    chunk: usize,
    /// Bits of those digits, where the pegs are a power of two.
    chunk_bits: Option<u32>,
    /// For each value of those digits, the smallest of those discs on each peg (its number
    /// among all discs), [`NONE`] for none, a byte a peg.
    tops: Vec<u64>,
}

/// The Towers of Hanoi family (`--puzzle hanoi`).
pub struct TowersOfHanoi;
/// The Towers of Hanoi family.
pub const HANOI: TowersOfHanoi = TowersOfHanoi;

impl Family for TowersOfHanoi {
    fn name(&self) -> &'static str {
        "hanoi"
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
        let tops = (0..(pegs as u64).pow(chunk as u32))
            .map(|value| {
                let mut top = [NONE; 8];
                let mut rest = value;
                // The lowest digit is the largest disc's: a smaller disc on a peg covers it.
                for d in (discs - chunk..discs).rev() {
                    top[(rest % pegs as u64) as usize] = d as u8;
                    rest /= pegs as u64;
                }
                u64::from_le_bytes(top)
            })
            .collect();
        let chunk_bits = (pegs.is_power_of_two()).then(|| pegs.trailing_zeros() * chunk as u32);
        Ok(Hanoi {
            pegs,
            discs,
            power,
            pairs,
            chunk,
            chunk_bits,
            tops,
        })
    }

    /// How far disc `d`'s peg moves the rank: `pegs^(discs - 1 - d)`.
    #[inline]
    fn step(&self, d: usize) -> u64 {
        self.power[self.discs - 1 - d]
    }

    /// The position `rank` as the largest discs' digits (the table's) and the rest's.
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

    /// The top disc of each peg among the discs before the table's, `rest` their digits
    /// ([`Hanoi::split`]): a byte a peg, [`NONE`] where none is on it.
    fn tops_of_rest(&self, mut rest: u64) -> u64 {
        let mut top = [NONE; 8];
        for d in (0..self.discs - self.chunk).rev() {
            top[(rest % self.pegs as u64) as usize] = d as u8;
            rest /= self.pegs as u64;
        }
        u64::from_le_bytes(top)
    }

    /// The top disc of each peg of the position whose largest discs' digits are `low`, under
    /// the tops of the smaller discs (`above`): a byte a peg, [`NONE`] where a peg is empty.
    #[inline]
    fn tops(&self, low: u64, above: u64) -> u64 {
        // The pegs with none of the smaller discs (NONE's high bit: discs are below 128).
        let empty = ((above >> 7) & 0x0101_0101_0101_0101) * 0xff;
        (above & !empty) | (self.tops[low as usize] & empty)
    }

    /// Move `mv`'s block moves and residual ranges: the positions with one of the smallest
    /// discs on its pegs move as whole ranges; those with none split by the next disc, until
    /// the ranges are short or many, which are left residual.
    fn structure_of(&self, mv: usize, structure: &mut Structure) {
        let (a, b) = self.pairs[mv];
        let (a, b) = (u64::from(a), u64::from(b));
        // The ranges whose `fixed` smallest discs are all off pegs a and b.
        let mut open = vec![0u64];
        let mut fixed = 0;
        loop {
            let sub = match fixed < self.discs {
                true => self.power[self.discs - fixed - 1],
                false => 0,
            };
            let splits = open.len() as u64 * (self.pegs as u64 - 2);
            if sub < MIN_BLOCK || splits > MAX_SPLITS {
                let len = self.power[self.discs - fixed];
                let ranges = open.iter().map(|&start| (start..start + len, mv));
                structure.residual.extend(ranges);
                return;
            }
            let mut next = Vec::with_capacity(splits as usize);
            for start in open {
                for peg in 0..self.pegs as u64 {
                    let to = match peg {
                        _ if peg == a => b,
                        _ if peg == b => a,
                        _ => {
                            next.push(start + peg * sub);
                            continue;
                        }
                    };
                    structure.blocks.push(BlockMove {
                        from: start + peg * sub,
                        to: start + to * sub,
                        len: sub,
                        window: WindowMove::identity(sub),
                        first_block: 0,
                    });
                }
            }
            open = next;
            fixed += 1;
        }
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
            above: self.tops_of_rest(0),
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
            rank_order: "rank = sum over discs d (1 the smallest) of (peg of d - 1) * pegs^(discs-d); move ab moves the smaller top disc of pegs a and b onto the other".into(),
            group_order: None,
        }
    }

    fn slug(&self) -> String {
        format!("hanoi-p{}-d{}", self.pegs, self.discs)
    }

    fn structure(&self) -> Option<Structure> {
        let mut structure = Structure {
            blocks: Vec::new(),
            residual: Vec::new(),
        };
        for mv in 0..self.pairs.len() {
            self.structure_of(mv, &mut structure);
        }
        (!structure.blocks.is_empty()).then_some(structure)
    }

    fn has_structure(&self) -> bool {
        self.power[self.discs - 1] >= MIN_BLOCK
    }

    fn gpu_shader(&self) -> Option<GpuShader> {
        Some(GpuShader {
            source: include_str!("../../shaders/hanoi.wgsl"),
            constants: vec![
                ("PEGS", self.pegs as f64),
                ("DISCS", self.discs as f64),
                ("MOVES", self.pairs.len() as f64),
            ],
            data: (self.pairs.iter())
                .map(|&(a, b)| u32::from(a) | u32::from(b) << 8)
                .chain(
                    self.power
                        .iter()
                        .flat_map(|&p| [p as u32, (p >> 32) as u32]),
                )
                .collect(),
            tables: Vec::new(),
        })
    }
}

/// Walks the positions of the Towers of Hanoi: the top disc of each peg, from a table of the
/// largest discs' digits under the tops of the smaller discs, found again only where those change.
pub struct HanoiCursor<'a> {
    hanoi: &'a Hanoi,
    rank: u64,
    /// The top disc of each peg, a byte a peg.
    top: u64,
    /// The digits of the discs before the table's, and their tops.
    rest: u64,
    above: u64,
}

impl Cursor for HanoiCursor<'_> {
    fn seek(&mut self, rank: u64) {
        let (low, rest) = self.hanoi.split(rank);
        if rest != self.rest {
            self.rest = rest;
            self.above = self.hanoi.tops_of_rest(rest);
        }
        self.rank = rank;
        self.top = self.hanoi.tops(low, self.above);
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
