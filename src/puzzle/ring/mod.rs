//! Ring puzzles: `n` pieces on a ring, all shifted one place by `L` and `R`, and the pieces at
//! ring positions `0..k` (the *window*) permuted by `F`.
//!
//! - **Turnstyle** (Tom's Turnstile): `k = 4`, `F` flips ABCD to BADC.
//! - **TopSpin**: `F` reverses the `k` pieces on the turntable.
//!
//! # Rank order
//!
//! A position is split into its *arrangement* — the ring read from piece 1, a permutation with
//! piece 1 first — and its *offset*, the position of piece 1. The arrangement's index is the
//! lexicographic rank of the labels after piece 1 (a permutation of `n - 1` labels); when every
//! move is an even permutation (odd `n` with an even window) only even arrangements are reachable
//! and the index is that rank halved (see [`crate::rank`]). `A` is the number of arrangements.
//!
//! - metric `lrf`: `rank = offset * A + arrangement_index`. The table is `n` *planes* of `A`
//!   entries, one per offset: `L` and `R` move a state to the same entry of the next plane, and
//!   `F` stays in its plane, permuting the window at arrangement positions `n - offset ..`.
//! - metric `flips`: `rank = arrangement_index`; move `Fi` permutes the window at ring positions
//!   `i..i + k` (mod n) of the arrangement and reads the ring from piece 1 again.
//!
//! A window that misses piece 1 permutes `k` consecutive labels of the arrangement, so it acts
//! on the index as a [`WindowMove`]: these are the [`BlockMove`]s the level loop applies to many
//! states at once. The `k` windows through piece 1 rotate the arrangement and are applied state
//! by state.

mod cursor;
mod family;
mod symmetry;
mod turned;

pub use cursor::RingCursor;
pub use family::{TOPSPIN, TURNSTYLE, TopSpin, Turnstyle};

use super::capability::{Symmetric, Symmetries};
use super::{BlockMove, Blocks, Capabilities, GpuShader, PuzzleInfo, StateSpace, Structure};
use crate::puzzle::Rate;
use crate::puzzle::symmetry::Symmetry;
use crate::rank::{self, window::WindowMove, window::window_move};
use crate::table::ENTRIES_PER_WORD;

/// Largest supported number of pieces (ranks fit in 64 bits; labels fit in four bits).
pub const MAX_PIECES: usize = 16;

/// The two ways of counting moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// `L`, `R` and `F`, each one move.
    Lrf,
    /// Only window moves count: the ring is read from piece 1, moves `F0..F(n-1)`.
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
            _ => Err("unknown metric: the metrics are lrf and flips".into()),
        }
    }
}

/// The low bit of every four-bit digit.
const NIBBLE_LOW_BITS: u64 = 0x1111_1111_1111_1111;

/// A window that misses piece 1: a move on the arrangement's Lehmer digits.
#[derive(Clone, Debug)]
struct Interior {
    /// Where the window's first label sits in the tail (the labels after piece 1).
    j: usize,
    /// The move on arrangement indices.
    window: WindowMove,
    /// Weight of each window digit in the window value (digits `j..`).
    weights: Vec<u64>,
    /// Index change for each window value, for an even and an odd prefix digit sum.
    delta: [Vec<i64>; 2],
    /// The low bit of each prefix digit's nibble (its parity when the map depends on it).
    prefix_low: u64,
}

/// A window through piece 1: piece 1 moves, so the ring is read again from its new place.
#[derive(Clone, Debug)]
struct Rotation {
    /// For each position `t` of the new tail, the old tail position its label comes from.
    tail_from: [u8; 16],
    /// How many places piece 1 moves along the ring.
    shift: usize,
}

/// A ring puzzle in one metric.
#[derive(Clone, Debug)]
pub struct Ring {
    name: &'static str,
    n: usize,
    /// Position `i` of the window receives the piece from window position `window[i]`.
    window: Vec<usize>,
    metric: Metric,
    /// Only even arrangements exist, indexed by `lex_rank / 2`.
    even: bool,
    arrangements: u64,
    /// Each Lehmer digit at its maximum, four bits each: digit `t` may reach `n - 2 - t`.
    max_digits: u64,
    /// `u64::MAX / arrangements`: the plane of a rank by a multiplication.
    reciprocal: u64,
    /// Lehmer digits of arrangement ranks by table lookups.
    digit_table: rank::DigitTable,
    /// Ranks of tails given as labels.
    ranker: rank::ByteRanker,
    /// Window moves by the arrangement position `w` where the window starts: `Interior` for
    /// `1 <= w <= n - k`, `Rotation` otherwise.
    moves: Vec<WindowAt>,
}

#[derive(Clone, Debug)]
enum WindowAt {
    Interior(Interior),
    Rotation(Rotation),
}

impl Ring {
    /// Turnstyle with `n` pieces (4 to 16) in `metric`.
    pub fn turnstyle(n: usize, metric: Metric) -> Result<Ring, String> {
        if !(4..=MAX_PIECES).contains(&n) {
            return Err(format!(
                "out of range: Turnstyle needs 4 <= N <= {MAX_PIECES}"
            ));
        }
        Ok(Ring::new("turnstyle", n, vec![1, 0, 3, 2], metric))
    }

    /// TopSpin with `n` pieces (up to 16) and a turntable of `k` (2 to `n`) in `metric`.
    pub fn topspin(n: usize, k: usize, metric: Metric) -> Result<Ring, String> {
        if !(3..=MAX_PIECES).contains(&n) {
            return Err(format!(
                "out of range: TopSpin needs 3 <= N <= {MAX_PIECES}"
            ));
        }
        if !(2..=n).contains(&k) {
            return Err(format!(
                "out of range: the turntable holds 2 to N = {n} pieces"
            ));
        }
        Ok(Ring::new("topspin", n, (0..k).rev().collect(), metric))
    }

    /// The ring of `n` pieces (3 to 16) whose `F` permutes the window `0..window.len()` by
    /// `window` (position `i` takes the piece at `window[i]`), in metric `lrf`: what generators
    /// of a shift and such a window are searched as ([`crate::puzzle::perm`]). The caller names
    /// it.
    pub(crate) fn of_window(n: usize, window: Vec<usize>) -> Option<Ring> {
        let fits = (3..=MAX_PIECES).contains(&n) && (2..=n).contains(&window.len());
        fits.then(|| Ring::new("perm", n, window, Metric::Lrf))
    }

    fn new(name: &'static str, n: usize, window: Vec<usize>, metric: Metric) -> Ring {
        let m = n - 1;
        let k = window.len();
        // The shift is an n-cycle: even for odd n. The window's parity is its inversion count's.
        let window_odd = (0..k)
            .flat_map(|a| (a + 1..k).map(move |b| (a, b)))
            .filter(|&(a, b)| window[a] > window[b])
            .count()
            % 2
            == 1;
        let even = n % 2 == 1 && !window_odd;
        let all = rank::factorial(m);
        let moves = (0..n)
            .map(|w| {
                if w >= 1 && w + k <= n {
                    WindowAt::Interior(interior(m, w - 1, &window, even))
                } else {
                    WindowAt::Rotation(rotation(n, w, &window))
                }
            })
            .collect();
        let arrangements = if even { all / 2 } else { all };
        Ring {
            name,
            n,
            window,
            metric,
            even,
            arrangements,
            max_digits: (0..m).fold(0u64, |acc, t| acc | ((m - 1 - t) as u64) << (4 * t)),
            reciprocal: u64::MAX / arrangements,
            digit_table: rank::DigitTable::new(m),
            ranker: rank::ByteRanker::new(m),
            moves,
        }
    }

    /// Number of pieces.
    pub fn pieces(&self) -> usize {
        self.n
    }

    /// The metric.
    pub fn metric(&self) -> Metric {
        self.metric
    }

    /// Number of arrangements (entries per plane).
    pub fn arrangements(&self) -> u64 {
        self.arrangements
    }

    /// Offsets per arrangement in the rank: `n` for lrf, 1 for flips.
    fn planes(&self) -> u64 {
        match self.metric {
            Metric::Lrf => self.n as u64,
            Metric::Flips => 1,
        }
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
        for t in 0..m {
            arr[t + 1] = p[t] + 1;
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
                "rank = offset * A + arrangement_index, where offset = position of piece 1, the arrangement is the ring read from piece 1, A = {} (the number of arrangements) and arrangement_index = {index}",
                self.arrangements
            ),
            Metric::Flips => format!(
                "rank = arrangement_index, the arrangement being the ring read from piece 1; arrangement_index = {index}"
            ),
        }
    }

    /// The window move starting at arrangement position `w`, as a block move on `plane`.
    fn block_move(&self, w: usize, from: u64, to: u64) -> Option<BlockMove> {
        match &self.moves[w] {
            WindowAt::Interior(i) => Some(BlockMove {
                from,
                to,
                len: self.arrangements,
                window: i.window.clone(),
                first_block: 0,
            }),
            WindowAt::Rotation(_) => None,
        }
    }
}

/// The interior window at tail position `j` (arrangement position `j + 1`).
fn interior(m: usize, j: usize, window: &[usize], even: bool) -> Interior {
    let moved = window_move(m, j, window, even);
    // Window digits as stored in the index: for even arrangements the last two are implied.
    let end = (j + window.len()).min(if even { m - 2 } else { m });
    let mut weights = vec![1u64; end - j];
    for t in (0..weights.len().saturating_sub(1)).rev() {
        weights[t] = weights[t + 1] * (m - (j + t + 1)) as u64;
    }
    let delta = [0, 1].map(|p| {
        moved
            .map(p == 1)
            .iter()
            .enumerate()
            .map(|(x, &y)| (y as i64 - x as i64) * moved.run as i64)
            .collect()
    });
    Interior {
        j,
        window: moved,
        weights,
        delta,
        prefix_low: NIBBLE_LOW_BITS & ((1u64 << (4 * j)) - 1),
    }
}

/// The window at arrangement position `w` when it holds piece 1 (position 0).
fn rotation(n: usize, w: usize, window: &[usize]) -> Rotation {
    let k = window.len();
    // The arrangement position that each arrangement position's piece comes from.
    let mut from: Vec<usize> = (0..n).collect();
    for i in 0..k {
        from[(w + i) % n] = (w + window[i]) % n;
    }
    let p1 = (0..n)
        .find(|&p| from[p] == 0)
        .expect("piece 1 stays in the window");
    let m = n - 1;
    // New tail position t is arrangement position p1 + 1 + t; old tail position = old
    // arrangement position - 1.
    let tail_from = std::array::from_fn(|t| {
        if t < m {
            (from[(p1 + 1 + t) % n] - 1) as u8
        } else {
            0
        }
    });
    Rotation {
        tail_from,
        shift: p1,
    }
}

/// A piece as the seeds write it: 1 to 9, 0 for 10, then A for 11, B for 12, ...
fn piece_name(x: u32) -> String {
    match x {
        1..=9 => x.to_string(),
        10 => "0".into(),
        _ => char::from(b'A' + (x - 11).min(25) as u8).to_string(),
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

impl Symmetric for Ring {
    fn symmetry(&self) -> Result<Symmetry, String> {
        match self.metric {
            Metric::Lrf => self.mirror(),
            Metric::Flips => self.turns(),
        }
    }
}

impl StateSpace for Ring {
    type Cursor<'a> = RingCursor<'a>;

    fn size(&self) -> u64 {
        self.arrangements * self.planes()
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

    /// Block moves ([`Blocks`]), and in metric `lrf` the `n` offsets as the slabs' planes: `L`
    /// and `R` change only the plane, so slabs of whole arrangements keep them local (where an
    /// arrangement count fills whole table words: from 9 pieces on).
    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities {
            blocks: Some(self),
            planes: (self.arrangements.is_multiple_of(ENTRIES_PER_WORD)).then(|| self.planes()),
            symmetries: Symmetries::Offered(self),
            ..Capabilities::default()
        }
    }

    fn cursor(&self) -> RingCursor<'_> {
        let mut cursor = RingCursor {
            space: self,
            digits: 0,
            pair: 0,
            labels: 0,
            unused: [0; MAX_PIECES],
            index: 0,
            plane: 0,
            base: 0,
        };
        cursor.load(0);
        cursor
    }

    fn state(&self, rank: u64) -> Vec<u32> {
        let n = self.n;
        let mut arr = [0u8; MAX_PIECES];
        self.arrangement(rank % self.arrangements, &mut arr);
        let offset = (rank / self.arrangements) as usize;
        let mut state = vec![0u32; n];
        for j in 0..n {
            state[(offset + j) % n] = arr[j] as u32 + 1;
        }
        state
    }

    fn rank(&self, state: &[u32]) -> Result<u64, String> {
        let n = self.n;
        let labels = super::pieces(state, n)?;
        let offset = labels.iter().position(|&x| x == 0).unwrap_or(0);
        let mut arr = [0u8; MAX_PIECES];
        for j in 0..n {
            arr[j] = labels[(offset + j) % n];
        }
        let (tail, m) = tail_labels(&arr[..n]);
        if self.even && rank::is_odd(&tail[..m]) {
            return Err(format!(
                "the state is an odd permutation: with n = {n} every move is even, so only even permutations are reachable"
            ));
        }
        let index = self.arrangement_index(&arr[..n]);
        Ok(match self.metric {
            Metric::Lrf => offset as u64 * self.arrangements + index,
            Metric::Flips => index,
        })
    }

    /// The seeds' notation: one character a piece, 1 to 9, then 0 for 10 and letters from A
    /// for 11 (turnstyle-storer.txt writes `1 2 3 4 5 6 7 8 9 0 A B`).
    fn format_state(&self, state: &[u32]) -> String {
        let labels: Vec<String> = state.iter().map(|&x| piece_name(x)).collect();
        labels.join(" ")
    }

    /// Numbers, or the seeds' characters (0 for 10, A for 11, ...).
    fn parse_state(&self, text: &str) -> Result<Vec<u32>, String> {
        let n = self.n as u32;
        text.split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty())
            .map(|w| {
                let piece = match w {
                    "0" => Some(10),
                    w if w.len() == 1 && w.as_bytes()[0].is_ascii_alphabetic() => {
                        Some(w.to_ascii_uppercase().as_bytes()[0] as u32 - b'A' as u32 + 11)
                    }
                    w => w.parse().ok(),
                };
                piece.filter(|p| (1..=n).contains(p)).ok_or_else(|| {
                    format!("'{w}' is not a piece: pieces are 1 to {n} (the seeds write 10, 11, 12 as 0, A, B)")
                })
            })
            .collect()
    }

    fn info(&self) -> PuzzleInfo {
        let mut params = serde_json::Map::new();
        params.insert("n".into(), self.n.into());
        if self.name == "topspin" {
            params.insert("k".into(), self.window.len().into());
        }
        PuzzleInfo {
            puzzle: self.name.into(),
            params,
            metric: self.metric.name().into(),
            moves: self.move_names(),
            rank_order: self.rank_order(),
            group_order: None,
            symmetry: None,
        }
    }

    fn slug(&self) -> String {
        match self.name {
            "topspin" => format!(
                "topspin-n{}-k{}-{}",
                self.n,
                self.window.len(),
                self.metric.name()
            ),
            name => format!("{name}-n{}-{}", self.n, self.metric.name()),
        }
    }

    fn move_state(&self, state: &[u32], mv: usize, out: &mut [u32]) -> bool {
        self.move_pieces(state, mv, out);
        true
    }

    fn measured_rate(&self) -> Rate {
        match (self.metric, self.name) {
            (Metric::Flips, _) => Rate {
                per_thread: 8.0e6,
                run: "Turnstyle 15, flips: 4.4e10 states in 2,742 s",
            },
            (Metric::Lrf, "topspin") => Rate {
                per_thread: 52.0e6,
                run: "TopSpin 14: 8.7e10 states in 842 s",
            },
            (Metric::Lrf, _) => Rate {
                per_thread: 46.0e6,
                run: "Turnstyle 14: 8.7e10 states in 949 s",
            },
        }
    }

    fn gpu_shader(&self) -> Option<GpuShader> {
        let flag = |b: bool| if b { 1.0 } else { 0.0 };
        // The window's permutation as FROM_0, FROM_1, ...: room for a window of every piece.
        const FROM: [&str; MAX_PIECES] = [
            "FROM_0", "FROM_1", "FROM_2", "FROM_3", "FROM_4", "FROM_5", "FROM_6", "FROM_7",
            "FROM_8", "FROM_9", "FROM_10", "FROM_11", "FROM_12", "FROM_13", "FROM_14", "FROM_15",
        ];
        let window = self
            .window
            .iter()
            .zip(FROM)
            .map(|(&w, name)| (name, w as f64));
        Some(GpuShader {
            source: include_str!("../../../shaders/ring.wgsl"),
            constants: vec![
                ("PIECES", self.n as f64),
                ("LRF", flag(self.metric == Metric::Lrf)),
                ("EVEN", flag(self.even)),
                ("MOVES", self.move_count() as f64),
                ("ARRANGEMENTS_LO", (self.arrangements & 0xffff_ffff) as f64),
                ("ARRANGEMENTS_HI", (self.arrangements >> 32) as f64),
                ("WINDOW", self.window.len() as f64),
            ]
            .into_iter()
            .chain(window)
            .collect(),
            data: Vec::new(),
            tables: Vec::new(),
            pushed: None,
        })
    }
}

impl Blocks for Ring {
    /// In metric `lrf`, `L` and `R` move whole planes of arrangements, and `F` a window within
    /// one where it can; in metric `flips`, each flip a window where it can.
    fn structure(&self) -> Structure {
        let a = self.arrangements;
        let n = self.n as u64;
        let mut blocks = Vec::new();
        let mut residual = Vec::new();
        match self.metric {
            Metric::Lrf => {
                for o in 0..n {
                    let here = o * a;
                    for to in [(o + n - 1) % n, (o + 1) % n] {
                        blocks.push(BlockMove {
                            from: here,
                            to: to * a,
                            len: a,
                            window: WindowMove::identity(a),
                            first_block: 0,
                        });
                    }
                    // F acts on ring positions 0..k, which start at arrangement position -o.
                    let w = ((n - o) % n) as usize;
                    match self.block_move(w, here, here) {
                        Some(b) => blocks.push(b),
                        None => residual.push((here..here + a, 2)),
                    }
                }
            }
            Metric::Flips => {
                for w in 0..self.n {
                    match self.block_move(w, 0, 0) {
                        Some(b) => blocks.push(b),
                        None => residual.push((0..a, w)),
                    }
                }
            }
        }
        Structure { blocks, residual }
    }
}
