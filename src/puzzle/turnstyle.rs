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

    /// Index of an arrangement packed four bits per label (label `j` of the ring at bits
    /// `4j..4j+4`, piece 1 first).
    fn packed_index(&self, packed: u64) -> u64 {
        let m = self.n - 1;
        let mut used = 0u32;
        let mut lex = 0u64;
        for k in 0..m {
            let x = ((packed >> (4 * (k + 1))) & 15) as u32;
            let digit = x - 1 - (used & ((1 << x) - 1)).count_ones();
            lex += digit as u64 * rank::FACTORIALS[m - 1 - k];
            used |= 1 << x;
        }
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

/// Swaps the 4-bit fields `x` and `y` of `ring`.
fn swap_nibbles(ring: &mut u64, x: usize, y: usize) {
    let t = ((*ring >> (4 * x)) ^ (*ring >> (4 * y))) & 15;
    *ring ^= (t << (4 * x)) | (t << (4 * y));
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
        self.base = index * self.space.offsets();
    }

    /// Swaps the last two labels: moves between lexicographic ranks `2k` and `2k + 1`.
    fn swap_last_two(&mut self) {
        let n = self.space.n;
        self.arr.swap(n - 2, n - 1);
        // The second-to-last digit toggles between 0 and 1; the last digit is always 0.
        self.digits[n - 3] ^= 1;
        self.lex ^= 1;
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
    fn flip(&self, i: usize) -> (u64, usize) {
        let n = self.space.n;
        if (1..=n - 4).contains(&i) {
            // Two adjacent swaps away from piece 1: only four Lehmer digits change, so the new
            // rank is the old one plus a delta.
            let j = i - 1;
            let x = &self.arr[i..i + 4];
            let d = &self.digits[j..j + 4];
            let new = [
                d[1] + (x[0] < x[1]) as u8,
                d[0] - (x[1] < x[0]) as u8,
                d[3] + (x[2] < x[3]) as u8,
                d[2] - (x[3] < x[2]) as u8,
            ];
            let m = n - 1;
            let mut lex = self.lex;
            for k in 0..4 {
                let w = rank::FACTORIALS[m - 1 - (j + k)];
                lex = lex + new[k] as u64 * w - d[k] as u64 * w;
            }
            let index = if self.space.even { lex >> 1 } else { lex };
            return (index, 0);
        }
        // The window holds piece 1: work on the ring packed four bits per label.
        let mut ring = 0u64;
        for (j, &label) in self.arr[..n].iter().enumerate() {
            ring |= (label as u64) << (4 * j);
        }
        let wrap = |k: usize| if k >= n { k - n } else { k };
        swap_nibbles(&mut ring, i, wrap(i + 1));
        swap_nibbles(&mut ring, wrap(i + 2), wrap(i + 3));
        // Piece 1 moved one place from position 0: to 1 (windows 0 and n-2) or to n-1.
        let shift = if i == 0 || i == n - 2 { 1 } else { n - 1 };
        let bits = 4 * n as u32;
        let all = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let turned = ((ring >> (4 * shift)) | (ring << (bits - 4 * shift as u32))) & all;
        (self.space.packed_index(turned), shift)
    }
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
