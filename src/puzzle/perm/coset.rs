//! Generators acting on a start whose labels repeat (`--gens ... --start "0 0 1 1"`): the
//! space is the orbit of that arrangement, the Schreier coset graph of the start's stabiliser
//! that CayleyPy's growth tables describe (LRX and TopSpin on binary strings).
//!
//! A position is the label at each position. Its rank is its rank among all the arrangements
//! of the start's multiset of labels, in lexicographic order ([`crate::rank::multiset`]), so
//! the table has an entry for every arrangement; those the moves cannot reach stay unreached
//! and the report counts them apart. With two labels (binary strings) a rank is a sum of
//! binomials read from a table; with more, the multiset's arithmetic.
//!
//! Labels are the numbers the start is written in, ranked in increasing order: a position is
//! read and written in them. A move's from array says which position each position takes its
//! label from, as for [`super::Perm`].

use super::{DIRECTED_SYMMETRY, Identity, Inverses, completed};
use crate::group::Perm as Permutation;
use crate::puzzle::capability::{Capabilities, Symmetries};
use crate::puzzle::{Cursor, GpuShader, PuzzleInfo, StateSpace, Way};
use crate::rank::multiset::{multinomial, multiset_rank, multiset_unrank, next_arrangement};

/// The most positions a start with repeated labels may have.
pub const MAX_COSET_POINTS: usize = 64;

/// The words of the shader's uniform `puzzle_data`: the moves and the multiplicities must fit.
const PUZZLE_DATA_WORDS: usize = 16_384;

/// Why a coset graph offers no symmetries (yet).
const COSET_SYMMETRY: &str = "its start repeats labels, and gpusearch finds symmetries only of puzzles whose start holds distinct pieces";

/// The orbit of an arrangement with repeated labels under generators.
#[derive(Clone, Debug)]
pub struct Coset {
    id: Identity,
    n: usize,
    /// The start: each position's label, as an index into `values`.
    start: Vec<u8>,
    /// The labels as written, ascending: label `y` is written `values[y]`.
    values: Vec<u32>,
    /// How many positions hold each label.
    multiplicity: Vec<u8>,
    /// Each move's name and from array.
    moves: Vec<(String, Permutation)>,
    /// In a directed graph, the number of generators (as [`super::Perm`] numbers them).
    directed: Option<usize>,
    size: u64,
    /// With two labels, `C(m, k)` at `m * (n + 1) + k`; empty with more.
    binomial: Vec<u64>,
}

impl Coset {
    /// The orbit of `start` (labels by position, some repeated) under the moves `moves` (from
    /// arrays on `start.len()` positions), completed by their inverses as `inverses` says.
    pub fn new(
        id: Identity,
        start: &[u32],
        moves: Vec<(String, Permutation)>,
        inverses: Inverses,
    ) -> Result<Coset, String> {
        let n = start.len();
        if n > MAX_COSET_POINTS {
            return Err(format!(
                "the start has {n} positions: gpusearch ranks arrangements of up to {MAX_COSET_POINTS} labels"
            ));
        }
        let mut values = start.to_vec();
        values.sort_unstable();
        values.dedup();
        let start: Vec<u8> = (start.iter())
            .map(|v| values.binary_search(v).unwrap() as u8)
            .collect();
        let mut multiplicity = vec![0u8; values.len()];
        for &y in &start {
            multiplicity[y as usize] += 1;
        }
        let size = multinomial(n, &multiplicity);
        if size > crate::puzzle::MAX_ENTRIES {
            return Err(format!(
                "the start's labels have {} arrangements, more than the {} entries a table may have: give fewer positions or fewer kinds of label",
                describe(size),
                crate::puzzle::MAX_ENTRIES
            ));
        }
        let (moves, directed) = completed(moves, inverses);
        let binomial = match values.len() {
            2 => {
                let mut table = vec![0u64; (n + 1) * (n + 1)];
                for m in 0..=n {
                    table[m * (n + 1)] = 1;
                    for k in 1..=m {
                        table[m * (n + 1) + k] =
                            table[(m - 1) * (n + 1) + k - 1] + table[(m - 1) * (n + 1) + k];
                    }
                }
                table
            }
            _ => Vec::new(),
        };
        Ok(Coset {
            id,
            n,
            start,
            values,
            multiplicity,
            moves,
            directed,
            size,
            binomial,
        })
    }

    /// The rank of `labels` (label indices by position).
    fn rank_of(&self, labels: &[u8]) -> u64 {
        if self.binomial.is_empty() {
            return multiset_rank(labels, &self.multiplicity);
        }
        // Before a 1 at position i, with `ones` 1s left: the arrangements of the rest that put
        // a 0 there, C(n - i - 1, ones).
        let (n, row) = (self.n, self.n + 1);
        let mut ones = self.multiplicity[1] as usize;
        let mut r = 0;
        for (i, &x) in labels.iter().enumerate() {
            if x == 1 {
                r += self.binomial[(n - i - 1) * row + ones];
                ones -= 1;
            }
        }
        r
    }

    /// The labels of rank `r` into `labels`.
    fn unrank(&self, mut r: u64, labels: &mut [u8]) {
        if self.binomial.is_empty() {
            return multiset_unrank(r, &self.multiplicity, labels);
        }
        let (n, row) = (self.n, self.n + 1);
        let mut ones = self.multiplicity[1] as usize;
        for (i, label) in labels.iter_mut().enumerate() {
            let zero_first = self.binomial[(n - i - 1) * row + ones];
            *label = u8::from(r >= zero_first);
            if r >= zero_first {
                r -= zero_first;
                ones -= 1;
            }
        }
    }

    /// The label indices of a position written in the start's labels, or why it is none.
    fn labels(&self, state: &[u32]) -> Result<Vec<u8>, String> {
        let wanted = || {
            let counts: Vec<String> = (self.values.iter().zip(&self.multiplicity))
                .map(|(v, c)| format!("{c} of {v}"))
                .collect();
            format!(
                "write the {} labels of a position, as many of each as the start has ({})",
                self.n,
                counts.join(", ")
            )
        };
        if state.len() != self.n {
            return Err(format!(
                "the position has {} labels but the start has {}: {}",
                state.len(),
                self.n,
                wanted()
            ));
        }
        let labels = (state.iter())
            .map(|v| self.values.binary_search(v).map(|y| y as u8))
            .collect::<Result<Vec<u8>, _>>()
            .map_err(|_| format!("the position holds a label the start has not: {}", wanted()))?;
        let mut counts = vec![0u8; self.values.len()];
        for &y in &labels {
            counts[y as usize] += 1;
        }
        match counts == self.multiplicity {
            true => Ok(labels),
            false => Err(format!(
                "the position's labels are not the start's: {}",
                wanted()
            )),
        }
    }

    fn rank_order(&self) -> String {
        format!(
            "rank = the lexicographic rank of the labels by position among all {} arrangements of the start's labels (labels in increasing order of their numbers)",
            self.size
        )
    }
}

/// A count in words for messages: `1.4e11`.
fn describe(count: u64) -> String {
    match count {
        u64::MAX => "more than 1.8e19".into(),
        c => format!("{:.1e}", c as f64),
    }
}

impl StateSpace for Coset {
    type Cursor<'a> = CosetCursor<'a>;

    fn size(&self) -> u64 {
        self.size
    }

    fn move_names(&self) -> Vec<String> {
        self.moves.iter().map(|(name, _)| name.clone()).collect()
    }

    fn move_count(&self) -> usize {
        self.moves.len()
    }

    fn moves_for(&self, way: Way) -> std::ops::Range<usize> {
        super::moves_for(self.directed, self.moves.len(), way)
    }

    fn solved(&self) -> u64 {
        self.rank_of(&self.start)
    }

    fn cursor(&self) -> CosetCursor<'_> {
        CosetCursor {
            space: self,
            at: None,
            labels: [0; MAX_COSET_POINTS],
            moved: [0; MAX_COSET_POINTS],
        }
    }

    fn state(&self, rank: u64) -> Vec<u32> {
        let mut labels = vec![0u8; self.n];
        self.unrank(rank, &mut labels);
        labels.iter().map(|&y| self.values[y as usize]).collect()
    }

    fn rank(&self, state: &[u32]) -> Result<u64, String> {
        Ok(self.rank_of(&self.labels(state)?))
    }

    /// Labels spaced, or as CayleyPy writes binary strings, a word of digits (`0011`).
    fn parse_state(&self, text: &str) -> Result<Vec<u32>, String> {
        super::parse::labels(text)
    }

    fn info(&self) -> PuzzleInfo {
        PuzzleInfo {
            puzzle: self.id.family.clone(),
            params: self.id.params.clone(),
            metric: self.id.metric.clone(),
            moves: self.move_names()[self.moves_for(Way::Push)].to_vec(),
            rank_order: self.rank_order(),
            group_order: None,
            symmetry: None,
        }
    }

    fn slug(&self) -> String {
        self.id.slug.clone()
    }

    fn move_state(&self, state: &[u32], mv: usize, out: &mut [u32]) -> bool {
        for (slot, &f) in out.iter_mut().zip(&self.moves[mv].1) {
            *slot = state[f as usize];
        }
        true
    }

    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities {
            symmetries: Symmetries::None(match self.directed {
                Some(_) => DIRECTED_SYMMETRY,
                None => COSET_SYMMETRY,
            }),
            ..Capabilities::default()
        }
    }

    fn gpu_shader(&self) -> Option<GpuShader> {
        let mut data: Vec<u32> = (self.moves.iter())
            .flat_map(|(_, from)| from.iter().map(|&x| x as u32))
            .collect();
        data.extend(self.multiplicity.iter().map(|&c| c as u32));
        if data.len() > PUZZLE_DATA_WORDS {
            return None;
        }
        Some(GpuShader {
            source: include_str!("../../../shaders/coset.wgsl"),
            constants: vec![
                ("POINTS", self.n as f64),
                ("MOVES", self.moves.len() as f64),
                ("KINDS", self.values.len() as f64),
                ("SIZE_LO", (self.size & 0xffff_ffff) as f64),
                ("SIZE_HI", (self.size >> 32) as f64),
            ],
            data,
            tables: Vec::new(),
            pushed: self.directed.map(|k| k as u32),
        })
    }
}

/// Walks the ranks of a coset graph: steps to the next arrangement where the ranks go up one
/// at a time, else unranks; permutes and ranks for each neighbour.
pub struct CosetCursor<'a> {
    space: &'a Coset,
    /// The rank whose labels `labels` holds.
    at: Option<u64>,
    labels: [u8; MAX_COSET_POINTS],
    moved: [u8; MAX_COSET_POINTS],
}

impl Cursor for CosetCursor<'_> {
    fn seek(&mut self, rank: u64) {
        let n = self.space.n;
        let next = self.at.is_some_and(|at| at + 1 == rank);
        if !(next && next_arrangement(&mut self.labels[..n])) {
            self.space.unrank(rank, &mut self.labels[..n]);
        }
        self.at = Some(rank);
    }

    fn neighbour(&mut self, mv: usize) -> u64 {
        let n = self.space.n;
        let from = &self.space.moves[mv].1;
        for (slot, &f) in self.moved[..n].iter_mut().zip(from) {
            *slot = self.labels[f as usize];
        }
        self.space.rank_of(&self.moved[..n])
    }
}
