//! A twisty puzzle's symmetries, found from its moves on stickers.
//!
//! A piece with `o` orientations is seen as `o` stickers, and each position as `o` sticker
//! places, one per orientation: a piece at position `i` with orientation `a` has its sticker
//! `k` on place `(i, k + a mod o)`. A move is then a permutation of sticker places (place
//! `(i, g)` takes the sticker of place `(p_i, g - t_i)` for a move whose part takes position
//! `p_i`'s piece to `i` with twist `t_i`), and a position an arrangement of stickers. The
//! symmetries are the renumberings of sticker places that map the moves onto the moves
//! ([`automorphisms`]), that take the places of a position to the places of one position of a
//! set of the same shape, turned or reflected (orientations stay orientations), and that keep
//! the solved position (its stickers relabelled alike wherever pieces are identical). A cube's
//! definition has no rotations in it: they are found here as renumberings of its stickers.

use super::format::{Move, PieceSet, SetPart};
use crate::group::{self, Perm};
use crate::puzzle::symmetry::{Element, automorphisms};

/// How sticker places are numbered: set by set, position by position, orientation by
/// orientation.
pub(super) struct Stickers<'a> {
    sets: &'a [PieceSet],
    /// Each set's first place.
    base: Vec<usize>,
    /// How many places there are.
    len: usize,
}

impl<'a> Stickers<'a> {
    /// The sticker places of `sets`.
    pub(super) fn new(sets: &'a [PieceSet]) -> Stickers<'a> {
        let mut base = Vec::with_capacity(sets.len());
        let mut len = 0;
        for set in sets {
            base.push(len);
            len += set.count * usize::from(set.orientations);
        }
        Stickers { sets, base, len }
    }

    /// Place `g` of position `i` of set `s`.
    fn place(&self, s: usize, i: usize, g: usize) -> usize {
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
    /// labels from 1, then their orientations): the sticker on each place, numbered as the
    /// places of the solved position that hold it (sticker `k` of piece `x` is `(x - 1, k)`).
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
    /// piece a position may hold ([`held`]) stays there in the same orientation.
    fn moves_nothing(
        &self,
        t: &[u8],
        labels: &[u32],
        held: &[(usize, usize, usize, usize)],
    ) -> bool {
        let back = crate::group::inverse(t);
        held.iter().all(|&(s, i, x, a)| {
            let o = usize::from(self.sets[s].orientations);
            let first = self.place(s, i, 0);
            // The image's place of orientation 0 at `i` comes from place `q` of the position.
            let Some(g) = (back[first] as usize).checked_sub(first).filter(|&g| g < o) else {
                return false;
            };
            let sticker = labels[self.place(s, x, (g + o - a) % o)] as usize;
            sticker >= self.base[s] && sticker - self.base[s] == x * o + (o - a) % o
        })
    }

    /// The set of place `x`.
    fn set_of(&self, x: usize) -> usize {
        self.base.iter().rposition(|&b| b <= x).expect("a set")
    }

    /// The orientation place `x` stands for.
    fn orientation(&self, x: usize) -> usize {
        let s = self.set_of(x);
        (x - self.base[s]) % usize::from(self.sets[s].orientations)
    }

    /// Whether `t` takes the places of each position to those of one position of a set of the
    /// same shape, each place `g` to `c + g` or to `c - g` (modulo the orientations).
    fn keeps_pieces(&self, t: &[u8]) -> bool {
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

/// How `t` relabels stickers so that the solved position `solved` (stickers by place) stays
/// solved: the sticker on each place goes to the place's image and takes the label the solved
/// position has there. None where stickers of one label would take two (identical pieces).
fn labels_of(t: &[u8], solved: &[u32]) -> Option<Vec<u32>> {
    let mut labels = vec![u32::MAX; solved.len()];
    for (&x, &to) in solved.iter().zip(t) {
        let want = solved[to as usize];
        let label = &mut labels[x as usize];
        if *label != u32::MAX && *label != want {
            return None;
        }
        *label = want;
    }
    // Labels no solved place holds (none where every piece is distinct) stay.
    for (x, label) in labels.iter_mut().enumerate() {
        if *label == u32::MAX {
            *label = x as u32;
        }
    }
    Some(labels)
}

/// Which piece (by label, from 0) each position of each set may hold, with which orientation:
/// `(set, position, label, orientation)`, every one some position the moves reach from
/// `solved` (as the family's states write it) holds.
fn held(sets: &[PieceSet], moves: &[Move], solved: &[u32]) -> Vec<(usize, usize, usize, usize)> {
    let mut seen = std::collections::HashSet::new();
    let mut at = 0;
    for (s, set) in sets.iter().enumerate() {
        for i in 0..set.count {
            let (x, a) = (
                solved[at + i] as usize - 1,
                solved[at + set.count + i] as usize,
            );
            seen.insert((s, i, x, a));
        }
        at += 2 * set.count;
    }
    let mut held: Vec<(usize, usize, usize, usize)> = seen.iter().copied().collect();
    let mut next = 0;
    while next < held.len() {
        let (s, from, x, a) = held[next];
        next += 1;
        let o = usize::from(sets[s].orientations);
        for (_, parts) in moves {
            let part = &parts[s];
            for i in (0..sets[s].count).filter(|&i| usize::from(part.pieces[i]) == from) {
                let to = (s, i, x, (a + usize::from(part.twists[i])) % o);
                if seen.insert(to) {
                    held.push(to);
                }
            }
        }
    }
    held
}

/// For each set, the orbit of each of its positions under `moves` (numbered by its least
/// position): the positions a piece may travel between.
fn orbits(sets: &[PieceSet], moves: &[Move]) -> Vec<Vec<usize>> {
    (sets.iter().enumerate())
        .map(|(s, set)| {
            let mut orbit: Vec<usize> = (0..set.count).collect();
            let root = |orbit: &[usize], mut i: usize| {
                while orbit[i] != i {
                    i = orbit[i];
                }
                i
            };
            for (_, parts) in moves {
                for (i, &from) in parts[s].pieces.iter().enumerate() {
                    let (a, b) = (root(&orbit, i), root(&orbit, usize::from(from)));
                    orbit[a.max(b)] = a.min(b);
                }
            }
            (0..set.count).map(|i| root(&orbit, i)).collect()
        })
        .collect()
}

/// The symmetries of a twisty puzzle of `sets` whose moves are `moves` (as the definition
/// writes them, in the metric) and whose solved position is `solved` (as the family's states
/// write it), as maps of its stickers ([`Stickers::of_state`]), the identity first. Or why
/// they are not found.
pub(super) fn symmetries(
    sets: &[PieceSet],
    moves: &[Move],
    solved: &[u32],
) -> Result<Vec<Element>, String> {
    let stickers = Stickers::new(sets);
    if stickers.len > usize::from(u8::MAX) {
        return Err(format!(
            "it has {} sticker places, and symmetries are looked for among up to {}",
            stickers.len,
            u8::MAX
        ));
    }
    let on_stickers: Vec<Perm> = moves.iter().map(|(_, p)| stickers.of_move(p)).collect();
    let solved_state = solved;
    let solved = stickers.of_state(solved_state);
    let orbits = orbits(sets, moves);
    // Turning every orientation of an orbit of positions by the same amount moves no piece
    // (a piece at position `i` from home `h` turns by the turn at `i` less the turn at `h`):
    // of the renumberings that differ so, the one found takes the first place of each orbit's
    // least position to a place of orientation 0.
    let roots: Vec<usize> = (orbits.iter().enumerate())
        .flat_map(|(s, orbit)| {
            let stickers = &stickers;
            (0..orbit.len())
                .filter(move |&i| orbit[i] == i)
                .map(move |i| stickers.place(s, i, 0))
        })
        .collect();
    // A place goes to a place of a set of the same shape.
    let shape = |x: usize| {
        let set = &sets[stickers.set_of(x)];
        (set.count, set.orientations)
    };
    let allowed = |p: usize, q: usize| {
        shape(p) == shape(q) && (!roots.contains(&p) || stickers.orientation(q) == 0)
    };
    let held = held(sets, moves, solved_state);
    let mut found: Vec<Element> = Vec::new();
    for t in automorphisms(stickers.len, &on_stickers, &allowed)? {
        if !stickers.keeps_pieces(&t) {
            continue;
        }
        let Some(labels) = labels_of(&t, &solved) else {
            continue;
        };
        // One of each set of renumberings that act alike on positions: the others differ from
        // it by one that moves nothing (a piece whose orientation the moves fix modulo 2,
        // say, reflected about it).
        let alike = (found.iter()).any(|r| {
            let r: Perm = r.positions.iter().map(|&p| p as u8).collect();
            let h = group::compose(&group::inverse(&r), &t);
            labels_of(&h, &solved).is_some_and(|l| stickers.moves_nothing(&h, &l, &held))
        });
        if !alike {
            found.push(Element {
                positions: t.iter().map(|&p| usize::from(p)).collect(),
                labels,
            });
        }
    }
    let top = stickers.len as u32 - 1;
    debug_assert_eq!(found.first(), Some(&Element::identity(stickers.len, top)));

    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::twisty::{Naming, Twisty, format};
    use crate::puzzle::{Cursor, StateSpace};

    impl Stickers<'_> {
        /// The position (as the family's states write it) whose stickers are `stickers`: the
        /// piece at each position and its orientation, read off the place of orientation 0.
        fn to_state(&self, stickers: &[u32]) -> Vec<u32> {
            let mut state = Vec::with_capacity(2 * self.len);
            for (s, set) in self.sets.iter().enumerate() {
                let o = usize::from(set.orientations);
                let read = |i: usize| {
                    let sticker = stickers[self.place(s, i, 0)] as usize - self.base[s];
                    (sticker / o, sticker % o)
                };
                state.extend((0..set.count).map(|i| read(i).0 as u32 + 1));
                state.extend((0..set.count).map(|i| ((o - read(i).1) % o) as u32));
            }
            state
        }
    }

    /// The symmetries found for the shipped definition `file` in `metric`, each checked to keep
    /// the solved position and to map each move from a spread of positions onto a move.
    fn checked(file: &str, metric: &str) -> usize {
        let path = format!("{}/puzzles/{file}", env!("CARGO_MANIFEST_DIR"));
        let def = format::read(&std::fs::read_to_string(path).unwrap(), file).unwrap();
        let naming = Naming {
            family: "perm".into(),
            params: Default::default(),
            slug: "t".into(),
        };
        let space = Twisty::new(&def, metric, naming).unwrap();
        let solved = space.state(space.solved());
        let found = symmetries(&space.written_sets, &space.written_moves, &solved).unwrap();
        let stickers = Stickers::new(&space.written_sets);
        let mut image = vec![0u32; stickers.len];
        let mut mapped = |g: &Element, state: &[u32]| {
            g.apply(&stickers.of_state(state), &mut image);
            space.rank(&stickers.to_state(&image)).unwrap()
        };
        let mut cursor = space.cursor();
        let mut neighbours = |rank: u64| {
            cursor.seek(rank);
            let mut all: Vec<u64> = (0..space.move_count())
                .map(|m| cursor.neighbour(m))
                .collect();
            all.sort_unstable();
            all
        };
        for (i, g) in found.iter().enumerate() {
            assert_eq!(mapped(g, &solved), space.solved());
            let ranks = (0..64).map(|i| i * 7919 % space.size());
            // Each symmetry but the identity moves some position: none stands for another.
            let moved = ranks
                .clone()
                .filter(|&r| mapped(g, &space.state(r)) != r)
                .count();
            assert_eq!(moved == 0, i == 0, "{file}");
            for rank in ranks {
                let state = space.state(rank);
                assert_eq!(stickers.to_state(&stickers.of_state(&state)), state);
                let mut images: Vec<u64> = (neighbours(rank).iter())
                    .map(|&n| mapped(g, &space.state(n)))
                    .collect();
                images.sort_unstable();
                assert_eq!(images, neighbours(mapped(g, &state)), "{file}");
            }
        }
        found.len()
    }

    #[test]
    fn twisty_symmetries_are_found_from_the_moves() {
        // One corner fixed, U, R and F: the turns about that corner's diagonal and the
        // mirrors through it, 6.
        assert_eq!(checked("cube-2x2x2.tws", "htm"), 6);
        assert_eq!(checked("cube-2x2x2.tws", "qtm"), 6);
        // The skewb with one corner fixed: again the 6 that keep that corner.
        assert_eq!(checked("skewb.tws", "htm"), 6);
        // The pyraminx: the tetrahedron's 12 rotations and 12 reflections.
        assert_eq!(checked("pyraminx.tws", "htm"), 24);
        // The skewb diamond turned about four faces of the octahedron: a tetrahedron's 24.
        assert_eq!(checked("skewb-diamond.tws", "htm"), 24);
    }
}
