//! Generators that a native family searches: a puzzle given by `--gens` whose moves are a ring
//! puzzle's or the pancakes' is searched with that family's ranks, sweeps and shader, under the
//! generators' own names, instead of by the generic path (unrank, permute, rank).
//!
//! - **A ring**: an `n`-cycle shifting every position one place (`(1,2,...,n)`, with its
//!   inverse) and one generator that is its own inverse and moves only positions `1..=k`: LRX
//!   (`(1,2)`), TopSpin (`(1,4)(2,3)`), Turnstyle (`(1,2)(3,4)`). The ring order's planes make
//!   the shift rank arithmetic, and the window's moves sweep ([`Ring`]).
//! - **Pancakes**: the reversals of the first `k` positions for every `k` from 2 to `n`
//!   ([`Pancake`]).
//!
//! A family is chosen only where its table holds exactly the positions the generators reach
//! (the group's order), and where its moves, applied to positions, are the generators' moves:
//! both are checked on positions of the family's table when the space is built, so a family
//! that does not match is never used.

use super::{Identity, Perm};
use crate::puzzle::capability::Capabilities;
use crate::puzzle::pancake::Pancake;
use crate::puzzle::{GpuShader, PuzzleInfo, Rate, Ring, Space, StateSpace, Way, Weights};

/// A native family's space under the names of the generators it was recognised from.
#[derive(Clone, Debug)]
pub struct Native<S> {
    space: S,
    id: Identity,
    /// The generators' name of each of the family's moves, in the family's numbering.
    names: Vec<String>,
    order: u64,
}

/// Positions of the family's table the moves are checked on: this many, spread over it.
const CHECKED: u64 = 16;

/// The space of a native family that searches `perm`'s generators, where one does.
pub(super) fn recognise(perm: &Perm) -> Option<Space> {
    let plain = perm.metric == "gens"
        && perm.directed.is_none()
        && perm
            .solved
            .iter()
            .enumerate()
            .all(|(i, &p)| p as usize == i);
    if !plain {
        return None;
    }
    if let Some(ring) = ring_of(perm) {
        return Native::checked(ring, perm).map(Space::RingGens);
    }
    let pancake = pancakes(perm).and_then(|n| Pancake::new(n, false).ok())?;
    Native::checked(pancake, perm).map(Space::PancakeGens)
}

/// The ring whose moves are `perm`'s: a shift of every position and a window's involution.
fn ring_of(perm: &Perm) -> Option<Ring> {
    let n = perm.n;
    let shift_left: Vec<u8> = (0..n).map(|i| ((i + 1) % n) as u8).collect();
    let shift_right: Vec<u8> = (0..n).map(|i| ((i + n - 1) % n) as u8).collect();
    let (shifts, windows): (Vec<&Vec<u8>>, Vec<&Vec<u8>>) =
        (perm.written.iter()).partition(|from| **from == shift_left || **from == shift_right);
    let [window] = windows[..] else { return None };
    let k = (0..n).rev().find(|&i| window[i] as usize != i)? + 1;
    let own_inverse = (0..n).all(|i| window[window[i] as usize] as usize == i);
    if shifts.len() != 2 || !own_inverse {
        return None;
    }
    Ring::of_window(n, window[..k].iter().map(|&x| x as usize).collect())
}

/// `n` where `perm`'s moves are the reversals of the first `k` positions, `k` from 2 to `n`.
fn pancakes(perm: &Perm) -> Option<usize> {
    let n = perm.n;
    let mut lengths: Vec<usize> = Vec::new();
    for from in &perm.written {
        let k = (0..n).rev().find(|&i| from[i] as usize != i)? + 1;
        let reversal = (0..n).all(|i| from[i] as usize == if i < k { k - 1 - i } else { i });
        if !reversal {
            return None;
        }
        lengths.push(k);
    }
    lengths.sort_unstable();
    (lengths == (2..=n).collect::<Vec<_>>()).then_some(n)
}

impl<S: StateSpace> Native<S> {
    /// `space` under `perm`'s names, where its table holds exactly the positions the generators
    /// reach and each of its moves is one of the generators' (checked on positions spread over
    /// the table).
    fn checked(space: S, perm: &Perm) -> Option<Native<S>> {
        if space.size() != perm.order || space.move_count() != perm.moves.len() {
            return None;
        }
        let mut names: Vec<Option<usize>> = vec![None; space.move_count()];
        let mut cursor = space.cursor();
        let mut moved = vec![0u32; perm.n];
        for r in (0..CHECKED).map(|i| i * (space.size() - 1) / (CHECKED - 1)) {
            let state = space.state(r);
            crate::puzzle::Cursor::seek(&mut cursor, r);
            for (m, name) in names.iter_mut().enumerate() {
                let after = space.state(crate::puzzle::Cursor::neighbour(&mut cursor, m));
                let same = |from: &Vec<u8>| {
                    for (slot, &f) in moved.iter_mut().zip(from) {
                        *slot = state[f as usize];
                    }
                    moved == after
                };
                let found = perm.written.iter().position(same)?;
                if *name.get_or_insert(found) != found {
                    return None;
                }
            }
        }
        drop(cursor);
        let names: Vec<usize> = names.into_iter().collect::<Option<_>>()?;
        let mut distinct = names.clone();
        distinct.sort_unstable();
        distinct.dedup();
        if distinct.len() != names.len() {
            return None;
        }
        let names = names.iter().map(|&p| perm.moves[p].0.clone()).collect();
        Some(Native {
            space,
            id: Identity {
                family: perm.family.clone(),
                params: perm.params.clone(),
                metric: perm.metric.clone(),
                slug: perm.slug.clone(),
            },
            names,
            order: perm.order,
        })
    }
}

/// The family's space in everything but its names: the generators' puzzle, its moves, the
/// default notation of positions (labels by position).
impl<S: StateSpace> StateSpace for Native<S> {
    type Cursor<'a>
        = S::Cursor<'a>
    where
        S: 'a;

    fn size(&self) -> u64 {
        self.space.size()
    }
    fn move_names(&self) -> Vec<String> {
        self.names.clone()
    }
    fn move_count(&self) -> usize {
        self.names.len()
    }
    fn moves_for(&self, way: Way) -> std::ops::Range<usize> {
        self.space.moves_for(way)
    }
    fn solved(&self) -> u64 {
        self.space.solved()
    }
    fn starts(&self) -> Vec<u64> {
        self.space.starts()
    }
    fn cursor(&self) -> S::Cursor<'_> {
        self.space.cursor()
    }
    fn state(&self, rank: u64) -> Vec<u32> {
        self.space.state(rank)
    }
    fn move_state(&self, state: &[u32], mv: usize, out: &mut [u32]) -> bool {
        self.space.move_state(state, mv, out)
    }
    fn positions_of(&self, rank: u64) -> Vec<Vec<u32>> {
        self.space.positions_of(rank)
    }
    fn rank(&self, state: &[u32]) -> Result<u64, String> {
        self.space.rank(state)
    }
    fn info(&self) -> PuzzleInfo {
        PuzzleInfo {
            puzzle: self.id.family.clone(),
            params: self.id.params.clone(),
            metric: self.id.metric.clone(),
            moves: self.move_names(),
            rank_order: self.space.info().rank_order,
            group_order: Some(self.order),
            symmetry: None,
        }
    }
    fn slug(&self) -> String {
        self.id.slug.clone()
    }
    fn capabilities(&self) -> Capabilities<'_> {
        self.space.capabilities()
    }
    fn gpu_shader(&self) -> Option<GpuShader> {
        self.space.gpu_shader()
    }
    fn weights(&self) -> Option<Weights> {
        self.space.weights()
    }
    fn entries_to_reach(&self) -> u64 {
        self.space.entries_to_reach()
    }
    fn measured_rate(&self) -> Rate {
        self.space.measured_rate()
    }
}
