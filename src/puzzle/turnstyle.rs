//! Turnstyle (Tom's Turnstile): `n` pieces on a ring; `L`, `R` shift every piece one place,
//! `F` flips positions 0..4 (ABCD -> BADC).
//!
//! # Rank order
//!
//! A position is split into its *arrangement* — the ring read from piece 1, a permutation with
//! piece 1 first — and its *offset*, the position of piece 1. The arrangement's index is the
//! lexicographic rank of the labels after piece 1 (a permutation of `n - 1` labels); for odd `n`
//! only even arrangements are reachable and the index is that rank halved (see [`crate::rank`]).
//!
//! - metric `lrf`: `rank = arrangement_index * n + offset`, so `L` and `R` are `offset ∓ 1`
//!   within the same arrangement and only `F` changes the arrangement.
//! - metric `flips`: `rank = arrangement_index`; move `Fi` flips the window of ring positions
//!   `i..i+4` (mod n) of the arrangement and reads the ring from piece 1 again.
//!
//! With odd `n` every move is an even permutation, so the table holds `n!/2` (lrf) or
//! `(n-1)!/2` (flips) entries instead of `n!` or `(n-1)!`.

use super::{Cursor, PuzzleInfo, StateSpace};
use crate::rank;

/// Smallest supported number of pieces (the flip needs four).
pub const MIN_PIECES: usize = 4;
/// Largest supported number of pieces (ranks fit in 64 bits; arrays stay small).
pub const MAX_PIECES: usize = 16;

/// The two ways of counting Turnstyle moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// `L`, `R` and `F`, each one move.
    Lrf,
    /// Only flips count: the ring is read from piece 1, moves `F0..F(n-1)`.
    Flips,
}

impl Metric {
    /// The metric's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Lrf => "lrf",
            Metric::Flips => "flips",
        }
    }

    /// Parses a metric name.
    pub fn parse(name: &str) -> Result<Metric, String> {
        match name {
            "lrf" => Ok(Metric::Lrf),
            "flips" => Ok(Metric::Flips),
            other => Err(format!(
                "unknown metric '{other}': use --metric lrf or --metric flips"
            )),
        }
    }
}

/// The Turnstyle state space for `n` pieces in one metric.
#[derive(Clone, Debug)]
pub struct Turnstyle {
    n: usize,
    metric: Metric,
    /// Odd `n`: only even arrangements exist, indexed by `lex_rank / 2`.
    even: bool,
    arrangements: u64,
    /// Each Lehmer digit at its maximum, four bits each: digit `k` may reach `n - 2 - k`.
    max_digits: u64,
    /// Offsets per arrangement in the rank: `n` for lrf, 1 for flips.
    offsets: u64,
}

impl Turnstyle {
    /// The space for `n` pieces (`MIN_PIECES..=MAX_PIECES`) in `metric`.
    pub fn new(n: usize, metric: Metric) -> Result<Turnstyle, String> {
        if !(MIN_PIECES..=MAX_PIECES).contains(&n) {
            return Err(format!(
                "--n {n} is out of range: Turnstyle needs {MIN_PIECES} <= N <= {MAX_PIECES}"
            ));
        }
        let even = n % 2 == 1;
        let all = rank::factorial(n - 1);
        let max_digits = (0..n - 1).fold(0u64, |acc, k| acc | ((n - 2 - k) as u64) << (4 * k));
        Ok(Turnstyle {
            n,
            metric,
            even,
            arrangements: if even { all / 2 } else { all },
            max_digits,
            offsets: match metric {
                Metric::Lrf => n as u64,
                Metric::Flips => 1,
            },
        })
    }

    /// Number of pieces.
    pub fn pieces(&self) -> usize {
        self.n
    }

    /// The metric.
    pub fn metric(&self) -> Metric {
        self.metric
    }

    /// Offsets per arrangement in the rank: `n` for lrf, 1 for flips.
    fn offsets(&self) -> u64 {
        self.offsets
    }

    /// Index of an arrangement (`arr[0] == 0`, 0-based labels, length `n`).
    fn arrangement_index(&self, arr: &[u8]) -> u64 {
        let (p, m) = tail_labels(arr);
        if self.even {
            rank::even_rank(&p[..m])
        } else {
            rank::lex_rank(&p[..m])
        }
    }

    /// The arrangement with this index, 0-based labels, `arr[0] == 0`.
    fn arrangement(&self, index: u64, arr: &mut [u8]) {
        let m = self.n - 1;
        let mut p = [0u8; MAX_PIECES];
        if self.even {
            rank::even_unrank(index, &mut p[..m]);
        } else {
            rank::lex_unrank(index, &mut p[..m]);
        }
        arr[0] = 0;
        for j in 0..m {
            arr[j + 1] = p[j] + 1;
        }
    }

    /// The text that documents the rank order in reports and distance files.
    fn rank_order(&self) -> String {
        let index = if self.even {
            "(lexicographic rank of the labels after piece 1, as a permutation of 2..n) / 2; only even arrangements exist"
        } else {
            "lexicographic rank of the labels after piece 1, as a permutation of 2..n"
        };
        match self.metric {
            Metric::Lrf => format!(
                "rank = arrangement_index * n + offset, where offset = position of piece 1 and the arrangement is the ring read from piece 1; arrangement_index = {index}"
            ),
            Metric::Flips => format!(
                "rank = arrangement_index, the arrangement being the ring read from piece 1; arrangement_index = {index}"
            ),
        }
    }
}

/// The labels after piece 1 of an arrangement, shifted down to a permutation of `0..m`.
fn tail_labels(arr: &[u8]) -> ([u8; MAX_PIECES], usize) {
    let mut p = [0u8; MAX_PIECES];
    for (o, &x) in p.iter_mut().zip(&arr[1..]) {
        *o = x - 1;
    }
    (p, arr.len() - 1)
}

impl StateSpace for Turnstyle {
    type Cursor<'a> = TurnstyleCursor<'a>;

    fn size(&self) -> u64 {
        self.arrangements * self.offsets()
    }

    fn move_names(&self) -> Vec<String> {
        match self.metric {
            Metric::Lrf => vec!["L".into(), "R".into(), "F".into()],
            Metric::Flips => (0..self.n).map(|i| format!("F{i}")).collect(),
        }
    }

    fn move_count(&self) -> usize {
        match self.metric {
            Metric::Lrf => 3,
            Metric::Flips => self.n,
        }
    }

    fn solved(&self) -> u64 {
        0
    }

    fn cursor(&self) -> TurnstyleCursor<'_> {
        let mut cursor = TurnstyleCursor {
            space: self,
            digits: 0,
            pair: 0,
            lex: 0,
            turned: Turned::default(),
            index: 0,
            base: 0,
            offset: 0,
        };
        cursor.load(0);
        cursor
    }

    fn state(&self, rank: u64) -> Vec<u32> {
        let n = self.n;
        let offsets = self.offsets();
        let mut arr = [0u8; MAX_PIECES];
        self.arrangement(rank / offsets, &mut arr);
        let offset = (rank % offsets) as usize;
        let mut state = vec![0u32; n];
        for j in 0..n {
            state[(offset + j) % n] = arr[j] as u32 + 1;
        }
        state
    }

    fn rank(&self, state: &[u32]) -> Result<u64, String> {
        let n = self.n;
        if state.len() != n {
            return Err(format!(
                "the state has {} pieces but this Turnstyle has {n}: list each of 1..{n} once",
                state.len()
            ));
        }
        let labels: Vec<u8> = state
            .iter()
            .map(|&x| x.wrapping_sub(1).min(255) as u8)
            .collect();
        if !rank::is_permutation(&labels) {
            return Err(format!(
                "the state is not a permutation of 1..{n}: list each piece exactly once"
            ));
        }
        let offset = labels.iter().position(|&x| x == 0).unwrap_or(0);
        let mut arr = [0u8; MAX_PIECES];
        for j in 0..n {
            arr[j] = labels[(offset + j) % n];
        }
        let (tail, m) = tail_labels(&arr[..n]);
        if self.even && rank::is_odd(&tail[..m]) {
            return Err(format!(
                "the state is an odd permutation: with odd n = {n} only even permutations are reachable"
            ));
        }
        let index = self.arrangement_index(&arr[..n]);
        Ok(match self.metric {
            Metric::Lrf => index * n as u64 + offset as u64,
            Metric::Flips => index,
        })
    }

    fn group_size(&self) -> usize {
        self.offsets() as usize
    }

    fn first_far_move(&self) -> usize {
        match self.metric {
            Metric::Lrf => 2,
            Metric::Flips => 0,
        }
    }

    /// `L` and `R` turn the offset of piece 1 within its arrangement's group: a rotation of the
    /// group's `n` entries by one place either way.
    fn local_step(&self, mask: u32) -> u32 {
        if self.metric == Metric::Flips {
            return 0;
        }
        let width = 2 * self.n as u32;
        let all = if width == 32 {
            u32::MAX
        } else {
            (1 << width) - 1
        };
        let up = ((mask << 2) | (mask >> (width - 2))) & all;
        let down = ((mask >> 2) | (mask << (width - 2))) & all;
        up | down
    }

    fn info(&self) -> PuzzleInfo {
        let mut params = serde_json::Map::new();
        params.insert("n".into(), self.n.into());
        PuzzleInfo {
            puzzle: "turnstyle".into(),
            params,
            metric: self.metric.name().into(),
            moves: self.move_names(),
            rank_order: self.rank_order(),
        }
    }

    fn gpu_source(&self) -> Option<String> {
        Some(format!(
            "const PIECES: u32 = {}u;\nconst LRF: bool = {};\nconst EVEN: bool = {};\nconst MOVES: u32 = {}u;\n{}",
            self.n,
            self.metric == Metric::Lrf,
            self.even,
            self.move_count(),
            include_str!("../../shaders/turnstyle.wgsl")
        ))
    }
}

/// How many arrangements ahead a seek steps rather than unranks.
const STEP_LIMIT: u64 = 6;

/// Walks Turnstyle ranks. It keeps only the Lehmer digits of the current arrangement (four
/// bits each), so stepping to the next arrangement is a few word operations, and a flip that
/// misses piece 1 re-ranks in O(1) from four digits. The labels themselves are decoded only for
/// the flips through piece 1, once per arrangement.
pub struct TurnstyleCursor<'a> {
    space: &'a Turnstyle,
    /// Lehmer digits of the labels after piece 1: digit `k` (of the label at arrangement
    /// position `k + 1`) in bits `4k..4k+4`.
    digits: u64,
    /// Odd `n`: the digits of lexicographic rank `2 * index`, of which the arrangement is the
    /// even one of the pair `2 * index`, `2 * index + 1`.
    pair: u64,
    /// Lexicographic rank of the labels after piece 1 (before halving for odd `n`).
    lex: u64,
    /// What the flips through piece 1 need, as far as computed for this arrangement.
    turned: Turned,
    /// Arrangement index.
    index: u64,
    /// The rank of the arrangement's first entry: `index * offsets`.
    base: u64,
    /// Position of piece 1 (lrf only).
    offset: usize,
}

/// What the flips through piece 1 need, each computed at most once per arrangement: the labels
/// after piece 1 (four bits each) and their ranks turned one place left (`[p1 .. p(m-1), p0]`)
/// and right (`[p(m-1), p0 .. p(m-2)]`).
#[derive(Clone, Copy, Default)]
struct Turned {
    labels: Option<u64>,
    left: Option<u64>,
    right: Option<u64>,
}

impl TurnstyleCursor<'_> {
    fn m(&self) -> usize {
        self.space.n - 1
    }

    /// Digit `k`.
    #[inline]
    fn digit(&self, k: usize) -> u8 {
        ((self.digits >> (4 * k)) & 15) as u8
    }

    fn load(&mut self, index: u64) {
        let m = self.m();
        let lex = if self.space.even { index << 1 } else { index };
        let mut d = [0u8; MAX_PIECES];
        rank::lex_digits(lex, &mut d[..m]);
        let packed = d[..m]
            .iter()
            .enumerate()
            .fold(0u64, |acc, (k, &x)| acc | (x as u64) << (4 * k));
        self.set(index, packed);
    }

    /// Makes the arrangement with this index current, from the digits of lexicographic rank
    /// `index` (even `n`) or `2 * index` (odd `n`).
    #[inline]
    fn set(&mut self, index: u64, packed: u64) {
        if self.space.even {
            // Lexicographic ranks 2k and 2k+1 differ in digit m-2 (0 or 1): a digit sum of odd
            // parity means the arrangement is the other one.
            let odd = (packed & NIBBLE_LOW_BITS).count_ones() as u64 & 1;
            self.pair = packed;
            self.digits = packed ^ (odd << (4 * (self.m() - 2)));
            self.lex = (index << 1) | odd;
        } else {
            self.digits = packed;
            self.lex = index;
        }
        self.index = index;
        self.base = index * self.space.offsets();
        self.turned = Turned::default();
    }

    /// The digits of the lexicographically next permutation: factorial-base increment.
    #[inline]
    fn increment(&self, digits: u64) -> u64 {
        // Digits never exceed their maximum, so this subtraction borrows across no nibble; the
        // highest nonzero nibble is the last digit below its maximum.
        let room = self.space.max_digits - digits;
        let k = (63 - room.leading_zeros()) / 4;
        (digits + (1 << (4 * k))) & ((1u64 << (4 * k + 4)) - 1)
    }

    /// Moves to the next arrangement index.
    fn next_arrangement(&mut self) {
        let index = self.index + 1;
        if self.space.even {
            let pair = self.increment(self.increment(self.pair));
            self.set(index, pair);
        } else {
            let digits = self.increment(self.digits);
            self.set(index, digits);
        }
    }

    /// The labels after piece 1, four bits each: label k is the d(k)-th value not used before.
    fn labels(&mut self) -> u64 {
        if let Some(labels) = self.turned.labels {
            return labels;
        }
        let mut unused = (1u32 << self.m()) - 1;
        let mut packed = 0u64;
        for k in 0..self.m() {
            let x = rank::nth_set_bit(unused, self.digit(k) as u32);
            packed |= (x as u64) << (4 * k);
            unused &= !(1 << x);
        }
        self.turned.labels = Some(packed);
        packed
    }

    /// The rank turned left: p(k+1) moves to position k and now has p0 after it.
    fn left(&mut self) -> u64 {
        if let Some(left) = self.turned.left {
            return left;
        }
        let (m, labels) = (self.m(), self.labels());
        let label = |k: usize| (labels >> (4 * k)) & 15;
        let first = label(0);
        let mut left = 0u64;
        for k in 0..m - 1 {
            let digit = self.digit(k + 1) as u64 + (first < label(k + 1)) as u64;
            left += digit * rank::FACTORIALS[m - 1 - k];
        }
        self.turned.left = Some(left);
        left
    }

    /// The rank turned right: p(k) moves to position k+1 and no longer has p(m-1) after it.
    fn right(&mut self) -> u64 {
        if let Some(right) = self.turned.right {
            return right;
        }
        let (m, labels) = (self.m(), self.labels());
        let label = |k: usize| (labels >> (4 * k)) & 15;
        let last = label(m - 1);
        let mut right = last * rank::FACTORIALS[m - 1];
        for k in 0..m - 1 {
            let digit = self.digit(k) as u64 - (last < label(k)) as u64;
            right += digit * rank::FACTORIALS[m - 2 - k];
        }
        self.turned.right = Some(right);
        right
    }

    /// Flips ring positions `i..i+4` (mod n) of the arrangement; returns the new arrangement's
    /// index and how far piece 1 moved along the ring.
    fn flip(&mut self, i: usize) -> (u64, usize) {
        let n = self.space.n;
        let m = n - 1;
        let (lex, shift) = if i >= 1 && i + 4 <= n {
            // Two adjacent swaps away from piece 1: only four Lehmer digits change.
            let j = i - 1;
            let lex = swap_delta(self.lex, m, j, self.digit(j), self.digit(j + 1));
            let lex = swap_delta(lex, m, j + 2, self.digit(j + 2), self.digit(j + 3));
            (lex, 0)
        } else {
            // The window holds piece 1, which moves one place, so the ring is read from it again:
            // the labels after it turn by one, and two of them are swapped. Windows 0 and n-2
            // give [p1 .. p(m-1), p0] with a swap, windows n-1 and n-3 give [p(m-1), p0 ..
            // p(m-2)] with a swap.
            let labels = self.labels();
            let p = |k: usize| ((labels >> (4 * k)) & 15) as u8;
            let (first, last) = (p(0), p(m - 1));
            let lt = |a: u8, b: u8| (a < b) as u8;
            if i == 0 || i == n - 2 {
                let left = self.left();
                let d = |k: usize| self.digit(k);
                if i == 0 {
                    let e0 = d(1) + lt(first, p(1));
                    let e1 = d(2) + lt(first, p(2));
                    (swap_delta(left, m, 0, e0, e1), 1)
                } else {
                    let e0 = d(m - 2) + lt(first, p(m - 2));
                    let e1 = lt(first, p(m - 1));
                    (swap_delta(left, m, m - 3, e0, e1), 1)
                }
            } else {
                let right = self.right();
                let d = |k: usize| self.digit(k);
                if i == n - 1 {
                    let e0 = d(0) - lt(last, p(0));
                    let e1 = d(1) - lt(last, p(1));
                    (swap_delta(right, m, 1, e0, e1), n - 1)
                } else {
                    let e0 = d(m - 3) - lt(last, p(m - 3));
                    let e1 = d(m - 2) - lt(last, p(m - 2));
                    (swap_delta(right, m, m - 2, e0, e1), n - 1)
                }
            }
        };
        let index = if self.space.even { lex >> 1 } else { lex };
        (index, shift)
    }
}

/// The low bit of every four-bit digit.
const NIBBLE_LOW_BITS: u64 = 0x1111_1111_1111_1111;

/// The lexicographic rank after swapping positions `j` and `j + 1`, whose Lehmer digits are
/// `e0` and `e1`, of a permutation of length `m` with rank `lex`. Only those two digits change,
/// and the entries compare as their digits do: entry `j` is the smaller exactly when
/// `e0 <= e1`.
#[inline]
fn swap_delta(lex: u64, m: usize, j: usize, e0: u8, e1: u8) -> u64 {
    // The new digits are e1 + r and e0 + r - 1 (r = 1 when rising), with weights (k+1)! and
    // k!, k = m - 2 - j: the change is k! * ((e1 - e0) * k + r * (k + 2) - 1).
    let k = (m - 2 - j) as i64;
    let rising = (e0 <= e1) as i64;
    let change = (e1 as i64 - e0 as i64) * k + rising * (k + 2) - 1;
    lex.wrapping_add((change * rank::FACTORIALS[m - 2 - j] as i64) as u64)
}

impl Cursor for TurnstyleCursor<'_> {
    fn seek(&mut self, rank: u64) {
        let offsets = self.space.offsets();
        // Walking forward within or into the next arrangement needs no division.
        let ahead = rank.wrapping_sub(self.base);
        if ahead < offsets {
            self.offset = ahead as usize;
        } else if ahead < STEP_LIMIT * offsets {
            // A few arrangements ahead: stepping is cheaper than unranking (or dividing).
            let mut ahead = ahead;
            while ahead >= offsets {
                self.next_arrangement();
                ahead -= offsets;
            }
            self.offset = ahead as usize;
        } else {
            self.offset = (rank % offsets) as usize;
            self.load(rank / offsets);
        }
    }

    fn neighbour(&mut self, mv: usize) -> u64 {
        let n = self.space.n;
        match self.space.metric {
            Metric::Flips => self.flip(mv).0,
            Metric::Lrf => match mv {
                // L: every piece one place left, so piece 1 too.
                0 => {
                    self.base
                        + if self.offset == 0 {
                            n - 1
                        } else {
                            self.offset - 1
                        } as u64
                }
                1 => {
                    self.base
                        + if self.offset == n - 1 {
                            0
                        } else {
                            self.offset + 1
                        } as u64
                }
                _ => {
                    // F acts on ring positions 0..4, which start at arrangement index -offset.
                    let window = if self.offset == 0 { 0 } else { n - self.offset };
                    let (index, shift) = self.flip(window);
                    let offset = self.offset + shift;
                    let offset = if offset >= n { offset - n } else { offset };
                    index * n as u64 + offset as u64
                }
            },
        }
    }
}
