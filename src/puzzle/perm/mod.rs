//! Permutation puzzles given by their moves: `n` positions holding `n` distinct pieces, each move
//! a permutation of the positions (generators in cycle notation, twsearch definitions, or built
//! by a family such as the number rotation puzzle).
//!
//! The group the moves generate is computed first (Schreier–Sims, [`crate::group`]); its order
//! decides the rank order:
//!
//! - the whole symmetric group (`n!` positions): the lexicographic rank of the pieces by
//!   position;
//! - the alternating group or its coset (`n!/2`): that rank halved (the two permutations
//!   `2k`, `2k+1` have opposite parity);
//! - any smaller group: the position of the state's lexicographic rank in the increasing list
//!   of all reachable states' ranks, so the table has exactly one entry per position.
//!
//! A move that permutes a window of consecutive positions acts on the rank's digits as a
//! [`crate::rank::window::WindowMove`] and joins the sweeps as a block move. So where some moves'
//! positions lie far apart (the dino cube's 3-cycles), positions and pieces are renumbered
//! alike, by a fixed local search, to bring each move's positions close together: the table
//! then ranks the renumbered position, and states are read and written in the definition's
//! numbering.

pub mod coset;
pub mod family;
pub mod native;
pub mod parse;
mod symmetry;

use super::{
    BlockMove, Blocks, Capabilities, Cursor, GpuShader, PuzzleInfo, StateSpace, Structure, Way,
};
use crate::group::{self, Chain, Perm as Permutation};
use crate::puzzle::Rate;
use crate::puzzle::capability::{Symmetric, Symmetries};
use crate::puzzle::symmetry::Symmetry;
use crate::rank::{self, window::window_move};
use parse::Definition;

/// Most positions: ranks are lexicographic ranks of up to 20 pieces (20! < 2^64).
pub const MAX_POINTS: usize = 20;
/// Most reachable positions of a group ranked by its list of states (8 bytes each).
const MAX_LISTED: u128 = 1 << 27;
/// Most window values of a move applied as a block move (a table of 4 bytes each).
const MAX_WINDOW_VALUES: u64 = 1 << 22;

/// How a puzzle's moves stand to their inverses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inverses {
    /// The moves as given: closed under inverses already (a definition's, a family's).
    Given,
    /// Each move's inverse added as a move (named with `'`) unless the move is its own inverse.
    Added,
    /// The moves go one way only (`--directed`): a directed graph, whose distances run from the
    /// start to each position. The inverses follow the moves, one each (named with `'`), only
    /// for the passes that pull ([`StateSpace::moves_for`]).
    Directed,
}

/// Why a directed graph offers no symmetries.
const DIRECTED_SYMMETRY: &str = "its moves go one way only (a directed graph), and gpusearch finds symmetries only of moves that come with their inverses";

/// The moves `given` completed by their inverses as `inverses` says, and in a directed graph the
/// number of generators: each move followed by its inverse (`Added`, where it is not its own),
/// or the generators followed by their inverses (`Directed`), or the moves as given.
fn completed(
    given: Vec<(String, Permutation)>,
    inverses: Inverses,
) -> (Vec<(String, Permutation)>, Option<usize>) {
    let inverse = |(name, from): &(String, Permutation)| (format!("{name}'"), group::inverse(from));
    match inverses {
        Inverses::Given => (given, None),
        Inverses::Added => {
            let mut moves = Vec::new();
            for m in given {
                let undo = inverse(&m);
                let own_inverse = undo.1 == m.1;
                moves.push(m);
                if !own_inverse {
                    moves.push(undo);
                }
            }
            (moves, None)
        }
        Inverses::Directed => {
            let undo: Vec<_> = given.iter().map(inverse).collect();
            let k = given.len();
            (given.into_iter().chain(undo).collect(), Some(k))
        }
    }
}

/// The moves a pass going `way` follows among `count` numbered as [`completed`] numbers them:
/// every move both ways, but in a directed graph of `k` generators the generators pushed and
/// their inverses pulled.
fn moves_for(directed: Option<usize>, count: usize, way: Way) -> std::ops::Range<usize> {
    match (directed, way) {
        (None, _) => 0..count,
        (Some(k), Way::Push) => 0..k,
        (Some(k), Way::Pull) => k..count,
    }
}

/// How ranks number the reachable positions.
#[derive(Clone, Debug)]
enum Ranking {
    /// Every permutation: its lexicographic rank.
    Lex,
    /// The permutations of one parity: the lexicographic rank halved.
    Parity { odd: bool },
    /// A smaller group: the lexicographic ranks of the reachable positions, increasing.
    Listed(Vec<u64>),
}

/// A permutation puzzle.
#[derive(Clone, Debug)]
pub struct Perm {
    family: String,
    params: serde_json::Map<String, serde_json::Value>,
    metric: String,
    slug: String,
    n: usize,
    /// The piece (0-based) at each position when solved.
    solved: Vec<u8>,
    /// Each move's name and from array (position `i` takes what position `from[i]` held), in
    /// the renumbering.
    moves: Vec<(String, Permutation)>,
    /// The renumbering: position (and piece) `i` of the definition is `renumber[i]` here.
    renumber: Vec<u8>,
    /// Each move's from array in the definition's numbering, in which states are written.
    written: Vec<Permutation>,
    order: u64,
    ranking: Ranking,
    /// In a directed graph, the number of generators: moves `0..k` are pushed and `k..2k`, their
    /// inverses, pulled.
    directed: Option<usize>,
}

/// How a family names and files a puzzle.
#[derive(Clone, Debug)]
pub struct Identity {
    /// The family (`perm`, `rotation`).
    pub family: String,
    /// Its size parameters for reports.
    pub params: serde_json::Map<String, serde_json::Value>,
    /// The metric's name.
    pub metric: String,
    /// The default output folder's name.
    pub slug: String,
}

impl Perm {
    /// Whether the generators sweep: ranks in lexicographic or even order have block moves
    /// ([`Blocks`]); listed ranks and odd orders have none.
    fn swept(&self) -> bool {
        self.directed.is_none()
            && matches!(self.ranking, Ranking::Lex | Ranking::Parity { odd: false })
    }

    /// The puzzle with these moves, completed by their inverses as `inverses` says.
    pub fn new(id: Identity, def: Definition, inverses: Inverses) -> Result<Perm, String> {
        let n = def.solved.len();
        if n > MAX_POINTS {
            return Err(format!(
                "the puzzle has {n} positions ({n}! = about 10^{:.0} arrangements): gpusearch ranks permutations of up to {MAX_POINTS}",
                (1..=n).map(|k| (k as f64).log10()).sum::<f64>()
            ));
        }
        let (mut moves, directed) = completed(def.moves, inverses);
        let chain = Chain::new(n, &moves.iter().map(|(_, f)| f.clone()).collect::<Vec<_>>());
        let order = chain.order();
        let all = rank::factorial(n) as u128;
        let solved: Vec<u8> = def.solved.iter().map(|&p| (p - 1) as u8).collect();
        // Renumbering conjugates every permutation, so parities stay.
        let renumber = match order == all || order * 2 == all {
            true => renumbering(n, &moves, order != all && !rank::is_odd(&solved)),
            false => group::identity(n),
        };
        let written = moves.iter().map(|(_, from)| from.clone()).collect();
        let solved = group::conjugate(&solved, &renumber);
        for (_, from) in &mut moves {
            *from = group::conjugate(from, &renumber);
        }
        let ranking = if order == all {
            Ranking::Lex
        } else if order * 2 == all {
            Ranking::Parity {
                odd: rank::is_odd(&solved),
            }
        } else if order <= MAX_LISTED {
            let mut list = Vec::with_capacity(order as usize);
            let mut state = vec![0u8; n];
            chain.for_each_element(|h| {
                for (s, &j) in state.iter_mut().zip(h) {
                    *s = solved[j as usize];
                }
                list.push(rank::lex_rank(&state));
            });
            list.sort_unstable();
            Ranking::Listed(list)
        } else {
            return Err(format!(
                "the moves generate a group of {order} elements, neither all permutations of the {n} positions nor half of them; gpusearch lists the positions of such groups up to {MAX_LISTED}"
            ));
        };
        Ok(Perm {
            family: id.family,
            params: id.params,
            metric: id.metric,
            slug: id.slug,
            n,
            solved,
            moves,
            renumber,
            written,
            order: order as u64,
            ranking,
            directed,
        })
    }

    /// The order of the group the moves generate (the number of reachable positions).
    pub fn group_order(&self) -> u64 {
        self.order
    }

    /// The rank of the pieces `labels` (0-based, by position), or `None` if unreachable.
    fn rank_of(&self, labels: &[u8]) -> Option<u64> {
        let lex = rank::lex_rank(labels);
        match &self.ranking {
            Ranking::Lex => Some(lex),
            Ranking::Parity { odd } => (rank::is_odd(labels) == *odd).then_some(lex >> 1),
            Ranking::Listed(list) => list.binary_search(&lex).ok().map(|i| i as u64),
        }
    }

    /// The pieces (0-based, by position) of rank `r`.
    fn unrank(&self, r: u64, labels: &mut [u8]) {
        match &self.ranking {
            Ranking::Lex => rank::lex_unrank(r, labels),
            Ranking::Parity { odd } => {
                rank::lex_unrank(r << 1, labels);
                if rank::is_odd(labels) != *odd {
                    labels.swap(self.n - 2, self.n - 1);
                }
            }
            Ranking::Listed(list) => rank::lex_unrank(list[r as usize], labels),
        }
    }

    fn rank_order(&self) -> String {
        let lex = "the lexicographic rank of the pieces by position (pieces 1..n as 0..n-1; rank 0 = 1 2 ... n)";
        let order = match &self.ranking {
            Ranking::Lex => format!("rank = {lex}"),
            Ranking::Parity { odd } => format!(
                "rank = ({lex}) / 2; every reachable position is an {} permutation",
                if *odd { "odd" } else { "even" }
            ),
            Ranking::Listed(_) => format!(
                "rank = the position (from 0) of the state's {lex} in the increasing list of those of all {} reachable positions",
                self.order
            ),
        };
        if self.renumber == group::identity(self.n) {
            return order;
        }
        let renumber: Vec<String> = self.renumber.iter().map(|&r| (r + 1).to_string()).collect();
        format!(
            "{order}; positions and pieces renumbered alike: position (and piece) i of the definition is the r_i-th here, r = {}",
            renumber.join(" ")
        )
    }
}

impl Symmetric for Perm {
    fn symmetry(&self) -> Result<Symmetry, String> {
        self.symmetries()
    }
}

impl StateSpace for Perm {
    type Cursor<'a> = PermCursor<'a>;

    /// Block moves where the ranks are lexicographic or of even orders ([`Blocks`]).
    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities {
            blocks: self.swept().then_some(self as &dyn Blocks),
            symmetries: match self.directed {
                Some(_) => Symmetries::None(DIRECTED_SYMMETRY),
                None => Symmetries::Offered(self),
            },
            ..Capabilities::default()
        }
    }

    fn size(&self) -> u64 {
        match &self.ranking {
            Ranking::Lex => rank::factorial(self.n),
            Ranking::Parity { .. } => rank::factorial(self.n) / 2,
            Ranking::Listed(list) => list.len() as u64,
        }
    }

    fn move_names(&self) -> Vec<String> {
        self.moves.iter().map(|(name, _)| name.clone()).collect()
    }

    fn move_count(&self) -> usize {
        self.moves.len()
    }

    fn moves_for(&self, way: Way) -> std::ops::Range<usize> {
        moves_for(self.directed, self.moves.len(), way)
    }

    fn solved(&self) -> u64 {
        self.rank_of(&self.solved)
            .expect("the solved position is reachable")
    }

    fn cursor(&self) -> PermCursor<'_> {
        PermCursor {
            space: self,
            labels: [0; MAX_POINTS],
            moved: [0; MAX_POINTS],
        }
    }

    fn state(&self, rank: u64) -> Vec<u32> {
        let mut labels = vec![0u8; self.n];
        self.unrank(rank, &mut labels);
        let labels = group::conjugate(&labels, &group::inverse(&self.renumber));
        labels.iter().map(|&x| x as u32 + 1).collect()
    }

    fn rank(&self, state: &[u32]) -> Result<u64, String> {
        let labels = group::conjugate(&super::pieces(state, self.n)?, &self.renumber);
        self.rank_of(&labels).ok_or_else(|| match &self.ranking {
            Ranking::Parity { odd } => format!(
                "the state is an {} permutation: every move keeps the parity, so only {} permutations are reachable",
                if *odd { "even" } else { "odd" },
                if *odd { "odd" } else { "even" }
            ),
            _ => format!(
                "the state is not reachable: the moves generate only {} positions",
                self.order
            ),
        })
    }

    fn info(&self) -> PuzzleInfo {
        PuzzleInfo {
            puzzle: self.family.clone(),
            params: self.params.clone(),
            metric: self.metric.clone(),
            // A directed graph's moves are its generators; their inverses only pull.
            moves: self.move_names()[self.moves_for(Way::Push)].to_vec(),
            rank_order: self.rank_order(),
            group_order: Some(self.order),
            symmetry: None,
        }
    }

    fn slug(&self) -> String {
        self.slug.clone()
    }

    fn move_state(&self, state: &[u32], mv: usize, out: &mut [u32]) -> bool {
        for (slot, &f) in out.iter_mut().zip(&self.written[mv]) {
            *slot = state[f as usize];
        }
        true
    }

    /// Swept where the ranks allow (rotation boards, shipped definitions); else the default's
    /// generic path.
    fn measured_rate(&self) -> Rate {
        match self.swept() {
            true => Rate {
                per_thread: 58.0e6,
                run: "number rotation 3x4: 4.8e8 states in 4.1 s",
            },
            false => crate::puzzle::GENERIC_RATE,
        }
    }

    fn gpu_shader(&self) -> Option<GpuShader> {
        let ranking = match self.ranking {
            Ranking::Lex => LEX,
            Ranking::Parity { odd: false } => EVEN,
            Ranking::Parity { odd: true } => ODD,
            Ranking::Listed(_) => return None,
        };
        Some(GpuShader {
            source: include_str!("../../../shaders/perm.wgsl"),
            constants: vec![
                ("POINTS", self.n as f64),
                ("MOVES", self.moves.len() as f64),
                ("RANKING", f64::from(ranking)),
            ],
            data: self
                .moves
                .iter()
                .flat_map(|(_, from)| from.iter().map(|&x| x as u32))
                .collect(),
            tables: Vec::new(),
            pushed: self.directed.map(|k| k as u32),
        })
    }
}

impl Blocks for Perm {
    /// The generators that move a window of consecutive positions in bulk are block moves over
    /// the whole space; the others apply state by state.
    fn structure(&self) -> Structure {
        let even = matches!(self.ranking, Ranking::Parity { odd: false });
        let size = self.size();
        let mut blocks: Vec<BlockMove> = Vec::new();
        let mut residual = Vec::new();
        // Each window move made so far, by its start and permutation: a move's inverse
        // inverts its maps instead of computing them again.
        let mut made: Vec<(usize, Vec<usize>, usize)> = Vec::new();
        for (mv, (_, from)) in self.moves.iter().enumerate() {
            let moved = moved(from);
            let (a, b) = (moved[0], moved[moved.len() - 1]);
            if in_bulk(self.n, a, b, even) {
                let perm: Vec<usize> = (a..=b).map(|i| from[i] as usize - a).collect();
                let mut inverse = vec![0; perm.len()];
                for (i, &x) in perm.iter().enumerate() {
                    inverse[x] = i;
                }
                let window = match made.iter().find(|(s, p, _)| *s == a && *p == inverse) {
                    Some(&(_, _, i)) => blocks[i].window.inverse(),
                    None => window_move(self.n, a, &perm, even),
                };
                made.push((a, perm, blocks.len()));
                blocks.push(BlockMove {
                    from: 0,
                    to: 0,
                    len: size,
                    window,
                    first_block: 0,
                });
            } else {
                residual.push((0..size, mv));
            }
        }
        Structure { blocks, residual }
    }
}

/// Whether a move whose positions span `a..=b` applies in bulk, as a block move of the sweeps.
fn in_bulk(n: usize, a: usize, b: usize, even: bool) -> bool {
    let values = rank::factorial(n) / rank::factorial(n - (b - a + 1));
    // Ranks sharing the digits before the window, and also those of the window (halved for even
    // permutations while a digit is left to halve).
    let half = |f: u64| if even && f > 1 { f / 2 } else { f };
    let block = half(rank::factorial(n - a));
    let run = half(rank::factorial(n - b - 1));
    values <= MAX_WINDOW_VALUES && super::applies_in_bulk(block, run)
}

/// The shader's ranking of a puzzle's permutations (`RANKING` in `shaders/perm.wgsl`): in
/// lexicographic order, or the even or the odd ones by their parity rank.
pub(crate) const LEX: u32 = 0;
pub(crate) const EVEN: u32 = 1;
pub(crate) const ODD: u32 = 2;

/// Local searches from this many random numberings choose the renumbering.
const RENUMBER_STARTS: usize = 64;

/// A renumbering of the positions that makes as many moves block moves as it can (then the
/// narrowest windows): the identity where every move already is one, else the best of local
/// searches (swapping two positions while that helps) from numberings drawn by a fixed
/// generator, so the same moves always get the same renumbering.
fn renumbering(n: usize, moves: &[(String, Permutation)], even: bool) -> Vec<u8> {
    let supports: Vec<Vec<usize>> = (moves.iter())
        .map(|(_, from)| moved(from))
        .filter(|s| !s.is_empty())
        .collect();
    // Moves left residual, the widest window, the windows' total width.
    let cost = |r: &[u8]| {
        let mut cost = (0, 0, 0);
        for s in &supports {
            let (a, b) = (s.iter()).fold((n, 0), |(a, b), &j| {
                (a.min(r[j] as usize), b.max(r[j] as usize))
            });
            match in_bulk(n, a, b, even) {
                true => cost = (cost.0, cost.1.max(b - a + 1), cost.2 + b - a + 1),
                false => cost.0 += 1,
            }
        }
        cost
    };
    let identity = group::identity(n);
    let mut best = (cost(&identity), identity);
    if best.0.0 == 0 {
        return best.1;
    }
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..RENUMBER_STARTS {
        let mut r = group::identity(n);
        for i in (1..n).rev() {
            // xorshift64
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            r.swap(i, (seed % (i as u64 + 1)) as usize);
        }
        let mut c = cost(&r);
        let mut improved = true;
        while improved {
            improved = false;
            for x in 0..n {
                for y in x + 1..n {
                    r.swap(x, y);
                    let swapped = cost(&r);
                    if swapped < c {
                        (c, improved) = (swapped, true);
                    } else {
                        r.swap(x, y);
                    }
                }
            }
        }
        if c < best.0 {
            best = (c, r);
        }
    }
    best.1
}

/// The positions a move (its from array) changes, ascending.
fn moved(from: &[u8]) -> Vec<usize> {
    (0..from.len()).filter(|&i| from[i] as usize != i).collect()
}

/// Walks the ranks of a permutation puzzle: unranks, permutes, ranks.
pub struct PermCursor<'a> {
    space: &'a Perm,
    labels: [u8; MAX_POINTS],
    moved: [u8; MAX_POINTS],
}

impl Cursor for PermCursor<'_> {
    fn seek(&mut self, rank: u64) {
        let n = self.space.n;
        self.space.unrank(rank, &mut self.labels[..n]);
    }

    fn neighbour(&mut self, mv: usize) -> u64 {
        let n = self.space.n;
        let from = &self.space.moves[mv].1;
        for (slot, &f) in self.moved[..n].iter_mut().zip(from) {
            *slot = self.labels[f as usize];
        }
        self.space
            .rank_of(&self.moved[..n])
            .expect("a move keeps the position reachable")
    }
}
