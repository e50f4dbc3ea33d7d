//! A twisty puzzle seen as stickers: what its symmetries act on ([`super::symmetry`]).
//!
//! A piece with `o` orientations is seen as `o` stickers, and each position as `o` sticker
//! places, one per orientation: a piece at position `i` with orientation `a` has its sticker
//! `k` on place `(i, k + a mod o)`. A move is then a permutation of sticker places (place
//! `(i, g)` takes the sticker of place `(p_i, g - t_i)` for a move whose part takes position
//! `p_i`'s piece to `i` with twist `t_i`), and a position an arrangement of stickers: a
//! symmetry renumbers places and relabels stickers, as [`Element`] does for pieces. A table
//! reduced by symmetry searches the puzzle through [`StickerView`], whose states are stickers.

use super::Twisty;
use super::format::{PieceSet, SetPart};
use crate::group::Perm;
use crate::puzzle::PuzzleInfo;
use crate::puzzle::symmetry::{Base, Element, Erased, Walker};

/// How sticker places are numbered: set by set, position by position, orientation by
/// orientation.
#[derive(Clone)]
pub(super) struct Stickers {
    sets: Vec<PieceSet>,
    /// Each set's first place.
    base: Vec<usize>,
    /// How many places there are.
    len: usize,
}

impl Stickers {
    /// The sticker places of `sets`.
    pub(super) fn new(sets: &[PieceSet]) -> Stickers {
        let mut base = Vec::with_capacity(sets.len());
        let mut len = 0;
        for set in sets {
            base.push(len);
            len += set.count * usize::from(set.orientations);
        }
        Stickers {
            sets: sets.to_vec(),
            base,
            len,
        }
    }

    /// Place `g` of position `i` of set `s`.
    pub(super) fn place(&self, s: usize, i: usize, g: usize) -> usize {
        self.base[s] + i * usize::from(self.sets[s].orientations) + g
    }

    /// The permutation of places a move makes (place `x` takes the sticker of place `f[x]`).
    pub(super) fn of_move(&self, parts: &[SetPart]) -> Perm {
        let mut f = vec![0u8; self.len];
        for (s, (set, part)) in self.sets.iter().zip(parts).enumerate() {
            let o = usize::from(set.orientations);
            for i in 0..set.count {
                let (from, twist) = (usize::from(part.pieces[i]), usize::from(part.twists[i]));
                for g in 0..o {
                    f[self.place(s, i, g)] = self.place(s, from, (g + o - twist % o) % o) as u8;
                }
            }
        }
        f
    }

    /// The stickers of a position given as the family's states write it (per set, its pieces'
    /// labels from 1, then their orientations): the sticker on each place, sticker `k` of the
    /// piece labelled `x` numbered as place `k` of position `x - 1` of its set.
    pub(super) fn of_state(&self, state: &[u32]) -> Vec<u32> {
        let mut stickers = vec![0u32; self.len];
        let mut at = 0;
        for (s, set) in self.sets.iter().enumerate() {
            let (n, o) = (set.count, set.orientations as usize);
            for i in 0..n {
                let (x, a) = (state[at + i] as usize - 1, state[at + n + i] as usize);
                for g in 0..o {
                    stickers[self.place(s, i, g)] = self.place(s, x, (g + o - a % o) % o) as u32;
                }
            }
            at += 2 * n;
        }
        stickers
    }

    /// Whether `t`, relabelling stickers by `labels`, leaves every position as it is: each
    /// piece a position may hold (`held` in [`super::symmetry`]) goes to the same position in the
    /// same orientation, or to a position no move touches that always holds what it brings
    /// there, from one that always holds it (two such positions swapped).
    pub(super) fn moves_nothing(
        &self,
        t: &[u8],
        labels: &[u32],
        held: &[(usize, usize, usize, usize)],
    ) -> bool {
        let alone = |s: usize, i: usize| held.iter().filter(|h| (h.0, h.1) == (s, i)).count() == 1;
        held.iter().all(|&(s, i, x, a)| {
            // Sticker 0 of piece `x`, on place `(i, a)`, and where `t` takes them.
            let (to, sticker) = (
                t[self.place(s, i, a)] as usize,
                labels[self.place(s, x, 0)] as usize,
            );
            let (s2, o) = (self.set_of(to), usize::from(self.sets[s].orientations));
            if self.set_of(sticker) != s2 {
                return false;
            }
            let (j, g) = ((to - self.base[s2]) / o, (to - self.base[s2]) % o);
            let (x2, k) = ((sticker - self.base[s2]) / o, (sticker - self.base[s2]) % o);
            let image = (s2, j, x2, (g + o - k) % o);
            image == (s, i, x, a) || (held.contains(&image) && alone(s, i) && alone(s2, j))
        })
    }

    /// The position (as the family's states write it) whose stickers are `stickers`: the
    /// piece at each position and its orientation, read off the place of orientation 0. None
    /// where a position's places hold no piece of its set turned as a whole.
    pub(super) fn to_state(&self, stickers: &[u32]) -> Option<Vec<u32>> {
        let mut state = Vec::with_capacity(2 * self.len);
        for (s, set) in self.sets.iter().enumerate() {
            let o = usize::from(set.orientations);
            let mut twists = Vec::with_capacity(set.count);
            for i in 0..set.count {
                let sticker = (stickers[self.place(s, i, 0)] as usize).checked_sub(self.base[s])?;
                let (x, k) = (sticker / o, sticker % o);
                let whole = (0..o).all(|g| {
                    stickers[self.place(s, i, g)] as usize == self.place(s, x, (k + g) % o)
                });
                if x >= set.count || !whole {
                    return None;
                }
                state.push(x as u32 + 1);
                twists.push(((o - k) % o) as u32);
            }
            state.extend(twists);
        }
        Some(state)
    }

    /// How many places there are.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The places of set `s`.
    pub(super) fn places(&self, s: usize) -> std::ops::Range<usize> {
        let o = usize::from(self.sets[s].orientations);
        self.base[s]..self.base[s] + self.sets[s].count * o
    }

    /// The first place of set `s`.
    pub(super) fn base(&self, s: usize) -> usize {
        self.base[s]
    }

    /// Calls `each` with every position (as stickers, `in_space`) that `element` keeps, until
    /// `each` says to stop: made cycle of positions by cycle, each cycle's first position given
    /// each piece of its set in each orientation (as often as `solved` has the piece) and the
    /// cycle's other positions what the element takes there, kept where the element brings
    /// the last back onto the first.
    pub(super) fn kept_states(
        &self,
        element: &Element,
        solved: &[u32],
        in_space: &dyn Fn(&[u32]) -> bool,
        each: &mut dyn FnMut(&[u32]) -> bool,
    ) {
        // The cycles of positions, by their first places.
        let mut cycles: Vec<Vec<usize>> = Vec::new();
        let mut seen = vec![false; self.len];
        for (s, set) in self.sets.iter().enumerate() {
            for i in 0..set.count {
                let mut cycle = Vec::new();
                let mut at = self.place(s, i, 0);
                while !seen[at] {
                    seen[at] = true;
                    cycle.push(at);
                    let to = element.positions[at];
                    at = to - self.orientation(to);
                }
                if !cycle.is_empty() {
                    cycles.push(cycle);
                }
            }
        }
        // How often each piece is left to place, by its first sticker's label.
        let mut left = vec![0u32; self.len];
        for first in (0..self.len).filter(|&x| self.orientation(x) == 0) {
            let label = solved[first] as usize;
            left[label - self.orientation(label)] += 1;
        }
        let mut state = solved.to_vec();
        let mut kept = Kept {
            stickers: self,
            element,
            cycles: &cycles,
            left,
            in_space,
            each,
        };
        kept.fill(0, &mut state);
    }

    /// The set of place `x`.
    pub(super) fn set_of(&self, x: usize) -> usize {
        self.base.iter().rposition(|&b| b <= x).expect("a set")
    }

    /// The orientation place `x` stands for.
    pub(super) fn orientation(&self, x: usize) -> usize {
        let s = self.set_of(x);
        (x - self.base[s]) % usize::from(self.sets[s].orientations)
    }

    /// Whether `t` takes the places of each position to those of one position of a set of the
    /// same shape, each place `g` to `c + g` or to `c - g` (modulo the orientations).
    pub(super) fn keeps_pieces(&self, t: &[u8]) -> bool {
        let where_is = |x: usize| {
            let s = self.set_of(x);
            let o = usize::from(self.sets[s].orientations);
            (s, (x - self.base[s]) / o, (x - self.base[s]) % o)
        };
        (self.sets.iter().enumerate()).all(|(s, set)| {
            let o = usize::from(set.orientations);
            (0..set.count).all(|i| {
                let images: Vec<(usize, usize, usize)> = (0..o)
                    .map(|g| where_is(t[self.place(s, i, g)] as usize))
                    .collect();
                let (s2, j, c) = images[0];
                let shape = (self.sets[s2].count, self.sets[s2].orientations);
                let same = |sign: bool| {
                    (images.iter().enumerate()).all(|(g, &(s3, k, h))| {
                        let want = if sign { c + g } else { c + o - g };
                        (s3, k, h) == (s2, j, want % o)
                    })
                };
                shape == (set.count, set.orientations) && (same(true) || same(false))
            })
        })
    }
}

/// A twisty puzzle whose states are its stickers ([`Stickers::of_state`]): the same ranks,
/// moves and positions, written as its symmetries act on them.
pub(super) struct StickerView {
    space: Erased<Twisty>,
    stickers: Stickers,
    /// Each move as a permutation of places.
    moves: Vec<Perm>,
}

impl StickerView {
    /// `space` seen as stickers.
    pub(super) fn new(space: Twisty) -> StickerView {
        let stickers = Stickers::new(&space.written_sets);
        let moves = (space.written_moves.iter())
            .map(|(_, parts)| stickers.of_move(parts))
            .collect();
        StickerView {
            space: Erased(space),
            stickers,
            moves,
        }
    }
}

impl Base for StickerView {
    fn size(&self) -> u64 {
        self.space.size()
    }
    fn solved(&self) -> u64 {
        self.space.solved()
    }
    fn starts(&self) -> Vec<u64> {
        self.space.starts()
    }
    fn move_names(&self) -> Vec<String> {
        self.space.move_names()
    }
    fn move_count(&self) -> usize {
        self.space.move_count()
    }
    fn state(&self, rank: u64) -> Vec<u32> {
        self.stickers.of_state(&self.space.state(rank))
    }
    fn rank(&self, state: &[u32]) -> Result<u64, String> {
        if state.len() != self.stickers.len {
            return Err(format!(
                "the state has {} stickers, not {}",
                state.len(),
                self.stickers.len
            ));
        }
        let state = (self.stickers.to_state(state))
            .ok_or("its stickers are not pieces of their sets, each turned as a whole")?;
        self.space.rank(&state)
    }
    fn format_state(&self, state: &[u32]) -> String {
        let state = self.stickers.to_state(state).expect("a position");
        self.space.format_state(&state)
    }
    fn parse_state(&self, text: &str) -> Result<Vec<u32>, String> {
        // Checked as the family checks a position, then written as stickers.
        let rank = self.space.rank(&self.space.parse_state(text)?)?;
        Ok(self.state(rank))
    }
    fn info(&self) -> PuzzleInfo {
        self.space.info()
    }
    fn slug(&self) -> String {
        self.space.slug()
    }
    fn walker(&self) -> Box<dyn Walker + '_> {
        self.space.walker()
    }
    fn written(&self, state: &[u32]) -> Vec<u32> {
        self.stickers.to_state(state).expect("a position")
    }
    fn format_written(&self, written: &[u32]) -> String {
        self.space.format_state(written)
    }
    fn move_state(&self, state: &[u32], mv: usize, out: &mut [u32]) -> bool {
        for (slot, &from) in out.iter_mut().zip(&self.moves[mv]) {
            *slot = state[from as usize];
        }
        true
    }
}

/// What [`Stickers::kept_states`] fills positions from.
struct Kept<'a> {
    stickers: &'a Stickers,
    element: &'a Element,
    /// The cycles of positions, by their first places.
    cycles: &'a [Vec<usize>],
    /// How often each piece (by its first sticker's label) is left to place.
    left: Vec<u32>,
    in_space: &'a dyn Fn(&[u32]) -> bool,
    each: &'a mut dyn FnMut(&[u32]) -> bool,
}

impl Kept<'_> {
    /// The places of the position whose first place is `first`.
    fn places(&self, first: usize) -> std::ops::Range<usize> {
        let s = self.stickers.set_of(first);
        first..first + usize::from(self.stickers.sets[s].orientations)
    }

    /// The piece (its first sticker's label) on the position whose first place is `first`.
    fn piece(&self, state: &[u32], first: usize) -> usize {
        let label = state[first] as usize;
        label - self.stickers.orientation(label)
    }

    /// Fills cycles from `at` on; `false` once `each` said to stop.
    fn fill(&mut self, at: usize, state: &mut [u32]) -> bool {
        let Some(cycle) = self.cycles.get(at) else {
            return !(self.in_space)(state) || (self.each)(state);
        };
        let first = cycle[0];
        let s = self.stickers.set_of(first);
        let o = usize::from(self.stickers.sets[s].orientations);
        for x in 0..self.stickers.sets[s].count {
            let piece = self.stickers.place(s, x, 0);
            if self.left[piece] == 0 {
                continue;
            }
            for a in 0..o {
                for (g, p) in self.places(first).enumerate() {
                    state[p] = (piece + (g + o - a) % o) as u32;
                }
                // The cycle's other positions, each the element's image of the one before.
                for &from in &cycle[..cycle.len() - 1] {
                    for p in self.places(from) {
                        state[self.element.positions[p]] = self.element.labels[state[p] as usize];
                    }
                }
                // The last position's image is the first again.
                let last = cycle[cycle.len() - 1];
                let fits = self.places(last).all(|p| {
                    state[self.element.positions[p]] == self.element.labels[state[p] as usize]
                });
                if !fits {
                    continue;
                }
                let pieces: Vec<usize> = cycle.iter().map(|&q| self.piece(state, q)).collect();
                let mut room = true;
                for &p in &pieces {
                    room &= self.left[p] > 0;
                    self.left[p] = self.left[p].wrapping_sub(1);
                }
                let go_on = !room || self.fill(at + 1, state);
                for &p in &pieces {
                    self.left[p] = self.left[p].wrapping_add(1);
                }
                if !go_on {
                    return false;
                }
            }
        }
        true
    }
}
