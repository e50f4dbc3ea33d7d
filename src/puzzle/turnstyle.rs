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
        Ok(Turnstyle {
            n,
            metric,
            even,
            arrangements: if even { all / 2 } else { all },
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
        match self.metric {
            Metric::Lrf => self.n as u64,
            Metric::Flips => 1,
        }
    }

    /// Index of an arrangement (`arr[0] == 0`, 0-based labels, length `n`).
    fn arrangement_index(&self, arr: &[u8]) -> u64 {
        let (p, m) = tail_labels(arr);
        let lex = rank::lex_rank(&p[..m]);
        if self.even { lex >> 1 } else { lex }
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

    fn solved(&self) -> u64 {
        0
    }

    fn cursor(&self) -> TurnstyleCursor<'_> {
        let mut cursor = TurnstyleCursor {
            space: self,
            arr: [0; MAX_PIECES],
            digits: [0; MAX_PIECES],
            lex: 0,
            turned: None,
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
}

/// How many arrangements ahead a seek steps rather than unranks.
const STEP_LIMIT: u64 = 6;

/// Walks Turnstyle ranks, keeping the current arrangement and its Lehmer digits so that the
/// next arrangement costs amortised O(1) and most flips re-rank in O(1).
pub struct TurnstyleCursor<'a> {
    space: &'a Turnstyle,
    /// The arrangement, 0-based labels, `arr[0] == 0`.
    arr: [u8; MAX_PIECES],
    /// Lehmer digits of `arr[1..n]`: `digits[j]` belongs to `arr[j + 1]`.
    digits: [u8; MAX_PIECES],
    /// Lexicographic rank of `arr[1..n]` (before halving for odd `n`).
    lex: u64,
    /// The ranks of `arr[1..n]` turned one place left and right, once computed.
    turned: Option<(u64, u64)>,
    /// Arrangement index.
    index: u64,
    /// The rank of the arrangement's first entry: `index * offsets`.
    base: u64,
    /// Position of piece 1 (lrf only).
    offset: usize,
}

impl TurnstyleCursor<'_> {
    fn load(&mut self, index: u64) {
        let m = self.space.n - 1;
        self.lex = if self.space.even { index << 1 } else { index };
        rank::lex_digits(self.lex, &mut self.digits[..m]);
        let mut p = [0u8; MAX_PIECES];
        rank::perm_from_digits(&self.digits[..m], &mut p[..m]);
        self.arr[0] = 0;
        for (slot, &x) in self.arr[1..=m].iter_mut().zip(&p[..m]) {
            *slot = x + 1;
        }
        if self.space.even && self.digits[..m].iter().map(|&d| d as u32).sum::<u32>() & 1 == 1 {
            self.swap_last_two();
        }
        self.index = index;
        self.turned = None;
        self.base = index * self.space.offsets();
    }

    /// Swaps the last two labels: moves between lexicographic ranks `2k` and `2k + 1`.
    fn swap_last_two(&mut self) {
        let n = self.space.n;
        self.arr.swap(n - 2, n - 1);
        // The second-to-last digit toggles between 0 and 1; the last digit is always 0.
        self.digits[n - 3] ^= 1;
        self.lex ^= 1;
        self.turned = None;
    }

    /// Advances to the lexicographically next permutation of `arr[1..n]`.
    fn next_lex(&mut self) {
        let m = self.space.n - 1;
        let p = &mut self.arr[1..=m];
        // Pivot: the last j with a digit below its maximum m-1-j.
        let mut j = m - 1;
        while j > 0 && self.digits[j - 1] as usize == m - j {
            j -= 1;
        }
        let j = j - 1;
        self.digits[j] += 1;
        for d in &mut self.digits[j + 1..m] {
            *d = 0;
        }
        // Swap the pivot with the smallest larger entry of the (descending) suffix, then reverse.
        let mut k = m - 1;
        while p[k] < p[j] {
            k -= 1;
        }
        p.swap(j, k);
        p[j + 1..].reverse();
        self.lex += 1;
        self.turned = None;
    }

    /// Moves to the next arrangement index.
    fn next_arrangement(&mut self) {
        if self.space.even {
            // Back to lexicographic rank 2k, then on to 2k + 2.
            if self.lex & 1 == 1 {
                self.swap_last_two();
            }
            self.next_lex();
            self.next_lex();
            let m = self.space.n - 1;
            if self.digits[..m].iter().map(|&d| d as u32).sum::<u32>() & 1 == 1 {
                self.swap_last_two();
            }
        } else {
            self.next_lex();
        }
        self.index += 1;
        self.base += self.space.offsets();
    }

    /// Flips ring positions `i..i+4` (mod n) of the arrangement; returns the new arrangement's
    /// index and how far piece 1 moved along the ring.
    fn flip(&mut self, i: usize) -> (u64, usize) {
        let n = self.space.n;
        let m = n - 1;
        let p = &self.arr[1..n];
        let d = &self.digits[..m];
        let (lex, shift) = if (1..=n - 4).contains(&i) {
            // Two adjacent swaps away from piece 1: only four Lehmer digits change.
            let j = i - 1;
            let lex = swap_delta(self.lex, m, j, p[j], p[j + 1], d[j], d[j + 1]);
            let lex = swap_delta(lex, m, j + 2, p[j + 2], p[j + 3], d[j + 2], d[j + 3]);
            (lex, 0)
        } else {
            // The window holds piece 1, which moves one place, so the ring is read from it again:
            // the labels after it turn by one, and two of them are swapped. Windows 0 and n-2
            // give [p1 .. p(m-1), p0] with a swap, windows n-1 and n-3 give [p(m-1), p0 ..
            // p(m-2)] with a swap; both turned ranks are computed once per arrangement.
            let (left, right) = match self.turned {
                Some(t) => t,
                None => {
                    let t = turned_ranks(p, d);
                    self.turned = Some(t);
                    t
                }
            };
            let first = p[0];
            let last = p[m - 1];
            let lt = |a: u8, b: u8| (a < b) as u8;
            if i == 0 {
                let e0 = d[1] + lt(first, p[1]);
                let e1 = d[2] + lt(first, p[2]);
                (swap_delta(left, m, 0, p[1], p[2], e0, e1), 1)
            } else if i == n - 2 {
                let e0 = d[m - 2] + lt(first, p[m - 2]);
                let e1 = lt(first, p[m - 1]);
                (swap_delta(left, m, m - 3, p[m - 2], p[m - 1], e0, e1), 1)
            } else if i == n - 1 {
                let e0 = d[0] - lt(last, p[0]);
                let e1 = d[1] - lt(last, p[1]);
                (swap_delta(right, m, 1, p[0], p[1], e0, e1), n - 1)
            } else {
                let e0 = d[m - 3] - lt(last, p[m - 3]);
                let e1 = d[m - 2] - lt(last, p[m - 2]);
                (
                    swap_delta(right, m, m - 2, p[m - 3], p[m - 2], e0, e1),
                    n - 1,
                )
            }
        };
        let index = if self.space.even { lex >> 1 } else { lex };
        (index, shift)
    }
}

/// The lexicographic rank after swapping positions `j` and `j + 1` (holding `x` and `y`, with
/// Lehmer digits `e0` and `e1`) of a permutation of length `m` with rank `lex`: only those two
/// digits change.
#[inline]
fn swap_delta(lex: u64, m: usize, j: usize, x: u8, y: u8, e0: u8, e1: u8) -> u64 {
    let new0 = e1 + (x < y) as u8;
    let new1 = e0 - (y < x) as u8;
    let w0 = rank::FACTORIALS[m - 1 - j];
    let w1 = rank::FACTORIALS[m - 2 - j];
    lex + new0 as u64 * w0 + new1 as u64 * w1 - e0 as u64 * w0 - e1 as u64 * w1
}

/// The ranks of `p` turned by one place left (`[p1 .. p(m-1), p0]`) and right
/// (`[p(m-1), p0 .. p(m-2)]`), from `p`'s Lehmer digits `d`.
fn turned_ranks(p: &[u8], d: &[u8]) -> (u64, u64) {
    let m = p.len();
    let (first, last) = (p[0], p[m - 1]);
    let mut left = 0u64;
    let mut right = (last as u64 - 1) * rank::FACTORIALS[m - 1];
    for k in 0..m - 1 {
        // Left: p(k+1) moves to position k and now has p0 after it.
        left += (d[k + 1] + (first < p[k + 1]) as u8) as u64 * rank::FACTORIALS[m - 1 - k];
        // Right: p(k) moves to position k+1 and no longer has p(m-1) after it.
        right += (d[k] - (last < p[k]) as u8) as u64 * rank::FACTORIALS[m - 2 - k];
    }
    (left, right)
}

impl Cursor for TurnstyleCursor<'_> {
    fn seek(&mut self, rank: u64) {
        let offsets = self.space.offsets();
        // Walking forward within or into the next arrangement needs no division.
        let ahead = rank.wrapping_sub(self.base);
        if ahead < offsets {
            self.offset = ahead as usize;
        } else if ahead < STEP_LIMIT * offsets {
            // A few arrangements ahead: stepping is cheaper than unranking.
            let steps = ahead / offsets;
            self.offset = (ahead - steps * offsets) as usize;
            for _ in 0..steps {
                self.next_arrangement();
            }
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
