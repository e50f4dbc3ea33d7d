//! The Chinese rings ("Patience", Baguenaudier), as in the seed: `n` rings, ring `k` (1-based) is
//! bit `k - 1` of the state, 0 = on the bar, 1 = off. Ring 1 can always move; ring 2 when ring
//! 1 is on; ring `k > 2` when ring `k - 1` is on and rings `1..k-2` are all off. So at most two
//! moves exist: `first` toggles ring 1, `next` toggles the ring just after the first ring that is
//! on. Where `next` has no ring to move, the move leaves the state as it is.
//!
//! The goal is every ring off (`2^n - 1`), where the search starts. The states form one path of
//! `2^n` states from it, so levels hold one state each: the level loop walks it with frontier
//! lists.
//!
//! Rank order: the state itself, `sum of b_k * 2^(k-1)` with `b_k = 1` when ring `k` is off.

use super::capability::{Capabilities, Symmetries};
use super::family::{Family, Given, Kind, Opt, PuzzleError, Run, Sample};
use super::{Cursor, PuzzleInfo, Space, StateSpace};

/// Most rings: 2^34 states take a 4 GiB table.
pub const MAX_RINGS: usize = 34;

/// The Chinese rings with `n` rings.
#[derive(Clone, Debug)]
pub struct Rings {
    n: usize,
}

/// The Chinese rings family (`--puzzle rings`).
pub struct ChineseRings;
/// The Chinese rings family.
pub const RINGS: ChineseRings = ChineseRings;

impl Family for ChineseRings {
    fn name(&self) -> &'static str {
        "rings"
    }

    fn samples(&self) -> &'static [Sample] {
        &[Sample {
            options: &[("n", "9")],
            reaches: "a path of 512 states, levels of one",
        }]
    }

    fn options(&self) -> &'static [Opt] {
        &[Opt {
            name: "n",
            kind: Kind::Count,
            help: "the number of rings, 1 to 34",
            default: None,
        }]
    }

    fn build(&self, given: &Given) -> Result<Space, PuzzleError> {
        let n = given.need_count("n")?;
        let rings = Rings::new(n).map_err(PuzzleError::value("n", n))?;
        Ok(Space::Rings(rings))
    }

    fn runs(&self) -> &'static [Run] {
        macro_rules! rings {
            ($($n:literal),*) => {
                &[$(Run { options: &[("n", $n)], large: false }),*]
            };
        }
        rings!["6", "8", "10", "12", "14", "16", "18", "20"]
    }
}

impl Rings {
    /// The puzzle with `n` rings (1 to [`MAX_RINGS`]).
    pub fn new(n: usize) -> Result<Rings, String> {
        if !(1..=MAX_RINGS).contains(&n) {
            return Err(format!(
                "out of range: the Chinese rings need 1 <= N <= {MAX_RINGS}"
            ));
        }
        Ok(Rings { n })
    }
}

impl StateSpace for Rings {
    type Cursor<'a> = RingsCursor;

    fn size(&self) -> u64 {
        1 << self.n
    }

    fn move_names(&self) -> Vec<String> {
        vec!["first".into(), "next".into()]
    }

    fn move_count(&self) -> usize {
        2
    }

    fn solved(&self) -> u64 {
        (1 << self.n) - 1
    }

    fn cursor(&self) -> RingsCursor {
        RingsCursor {
            state: 0,
            last: 1 << (self.n - 1),
        }
    }

    fn state(&self, rank: u64) -> Vec<u32> {
        (0..self.n).map(|k| (rank >> k) as u32 & 1).collect()
    }

    fn rank(&self, state: &[u32]) -> Result<u64, String> {
        if state.len() != self.n {
            return Err(format!(
                "the state has {} rings but this puzzle has {}: give one 0 (on) or 1 (off) per ring, ring 1 first",
                state.len(),
                self.n
            ));
        }
        state
            .iter()
            .enumerate()
            .try_fold(0u64, |acc, (k, &b)| match b {
                0 | 1 => Ok(acc | (b as u64) << k),
                other => Err(format!(
                    "ring {} is {other}: each ring is 0 (on) or 1 (off)",
                    k + 1
                )),
            })
    }

    /// The rings, ring 1 first (1 = off), and the state's number as the seed gives it.
    fn format_state(&self, state: &[u32]) -> String {
        let bits: String = state.iter().map(|b| b.to_string()).collect();
        let number: u64 = state.iter().rev().fold(0, |acc, &b| acc << 1 | b as u64);
        format!("{bits} ({number})")
    }

    /// A state's number (one number: 31), or the rings one by one, ring 1 first (1 1 1 1 1 0).
    fn parse_state(&self, text: &str) -> Result<Vec<u32>, String> {
        let words = super::numbers(text)?;
        match words.as_slice() {
            [number] if self.n > 1 || *number > 1 => {
                if *number as u64 >= 1 << self.n {
                    return Err(format!(
                        "state {number} is out of range: {} rings have states 0 to {}",
                        self.n,
                        (1u64 << self.n) - 1
                    ));
                }
                Ok(self.state(*number as u64))
            }
            _ => Ok(words),
        }
    }

    fn info(&self) -> PuzzleInfo {
        let mut params = serde_json::Map::new();
        params.insert("n".into(), self.n.into());
        PuzzleInfo {
            puzzle: "rings".into(),
            params,
            metric: "moves".into(),
            moves: self.move_names(),
            rank_order: "rank = sum over rings k of b_k * 2^(k-1), where b_k = 1 when ring k is off and 0 when it is on".into(),
            group_order: None,
            symmetry: None,
        }
    }

    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities {
            symmetries: Symmetries::None(
                "its graph is one path with the start at one end, which nothing but the identity keeps",
            ),
            ..Capabilities::default()
        }
    }

    fn measured_rate(&self) -> super::Rate {
        super::Rate {
            per_thread: 9.0e6,
            run: "the Chinese rings, 20: 1.0e6 states in 0.06 s, a level each",
        }
    }

    fn slug(&self) -> String {
        format!("rings-n{}", self.n)
    }
}

/// Steps along the rings' states.
pub struct RingsCursor {
    state: u64,
    /// The bit of the last ring.
    last: u64,
}

impl Cursor for RingsCursor {
    fn seek(&mut self, rank: u64) {
        self.state = rank;
    }

    fn neighbour(&mut self, mv: usize) -> u64 {
        if mv == 0 {
            return self.state ^ 1;
        }
        // The first ring on is the lowest 0 bit; the ring after it may move.
        let first_on = !self.state & self.state.wrapping_add(1);
        let after = first_on << 1;
        if first_on == 0 || after > self.last {
            self.state
        } else {
            self.state ^ after
        }
    }
}
