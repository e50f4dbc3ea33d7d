//! A twisty puzzle's symmetries, found from its moves on stickers.
//!
//! A piece with `o` orientations is seen as `o` stickers on `o` places ([`Stickers`]). The
//! symmetries are the renumberings of sticker places that map the moves onto the moves
//! ([`automorphisms`]), that take the places of a position to the places of one position of a
//! set of the same shape, turned or reflected (orientations stay orientations), and that keep
//! the solved position (its stickers relabelled alike wherever pieces are identical). A cube's
//! definition has no rotations in it: they are found here as renumberings of its stickers.

use super::Twisty;
use super::coords::Coords;
use super::format::{Move, PieceSet};
use super::stickers::{StickerView, Stickers};
use crate::group::{self, Perm};
use crate::puzzle::StateSpace;
use crate::puzzle::symmetry::{
    self, Coordinate, Element, Half, LABELS, Positions, Rank, Symmetry, automorphisms,
};

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
    if stickers.len() > usize::from(u8::MAX) {
        return Err(format!(
            "it has {} sticker places, and symmetries are looked for among up to {}",
            stickers.len(),
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
    for t in automorphisms(stickers.len(), &on_stickers, &allowed)? {
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
    let top = stickers.len() as u32 - 1;
    debug_assert_eq!(found.first(), Some(&Element::identity(stickers.len(), top)));

    Ok(found)
}

impl Twisty {
    /// The symmetries found from the moves, with the class coordinate of [`SetOrder`], or why
    /// there are none to use.
    pub(super) fn symmetries(&self) -> Result<Symmetry, String> {
        let solved = self.state(self.solved());
        let found = symmetries(&self.written_sets, &self.written_moves, &solved)?;
        if found.len() == 1 {
            return Err("no renumbering of its stickers but the identity maps its moves onto its moves and keeps the solved position".into());
        }
        let stickers = Stickers::new(&self.written_sets);
        // The rank must read a symmetric image of any position of its space as a position:
        // each set goes to a set numbered alike (the same digits, parity and sum tracked
        // alike), and a set in a block that ties its parts, whose digit lists only the
        // positions they reach together, to itself. A block that ties nothing (made for a long
        // last digit) takes every combination of its parts' values, as separate digits would.
        let tied: Vec<bool> = (0..self.coords.len())
            .map(|s| {
                let parts = [2 * s + super::PIECES, 2 * s + super::TWISTS];
                (self.blocks.iter())
                    .any(|b| b.ties() && parts.iter().any(|p| b.members.contains(p)))
            })
            .collect();
        let kind = |s: usize| {
            let c: &Coords = &self.coords[s];
            let tracked = (c.parity_bit.is_some(), c.sum_bit.is_some());
            // A set of one piece follows any other, to no effect.
            let follows = c.follows.is_some() && c.count > 1;
            (tied[s], tracked, follows, c.ori_digits, c.perm_size)
        };
        let alike = |s: usize, t: usize| kind(s) == kind(t) && (s == t || !tied[s]);
        let unlike = (found.iter()).any(|g| {
            (0..self.coords.len())
                .any(|s| !alike(s, stickers.set_of(g.positions[stickers.base(s)])))
        });
        if unlike {
            return Err(format!(
                "its {} symmetries are found from its moves, but its rank numbers some sets a symmetry exchanges unalike (a block, or a parity tracked for one and not the other)",
                found.len()
            ));
        }
        // The set whose order is the rest: of distinct pieces without orientations, with a
        // digit of its own, which every symmetry maps onto itself; the one of most orders.
        let set = (0..self.coords.len())
            .filter(|&s| {
                let (c, places) = (&self.coords[s], stickers.places(s));
                self.written_sets[s].orientations == 1
                    && c.distinct()
                    && !c.pieces_in_block
                    && c.perm_digits() >= 2
                    && self.coords.iter().all(|other| other.follows != Some(s))
                    && (found.iter())
                        .all(|g| places.clone().all(|x| places.contains(&g.positions[x])))
            })
            .max_by_key(|&s| self.coords[s].perm_digits());
        let Some(set) = set else {
            return Err(format!(
                "its {} symmetries are found from its moves, but the classes are numbered only where a set of distinct pieces without orientations, which the symmetries map onto itself, orders the rest",
                found.len()
            ));
        };
        let order = found.len() as u64;
        let values = self.size / self.coords[set].perm_digits();
        if !symmetry::worth(values.saturating_mul(order), self.size / order) {
            return Err(format!(
                "its {order} symmetries are found from its moves, but the rest of the position beside the order of {} takes {values} values, too many to work out their classes",
                self.written_sets[set].name
            ));
        }
        Ok(Symmetry {
            name: format!(
                "the {order} renumberings of its stickers that map the moves onto the moves (found from the moves)"
            ),
            elements: found,
            rank: Rank::Coordinate(Box::new(SetOrder::new(self.clone(), set))),
            // A move permutes the places of the set whose order is the rest.
            moves_carry_rests: true,
            shader: None,
            view: Some(Box::new(StickerView::new(self.clone()))),
        })
    }
}

/// The class coordinate of a twisty puzzle seen as stickers ([`StickerView`]): the rank with
/// one set's pieces digit left out as `c`, and that digit as the rest `r`, the order of the
/// set's pieces (of distinct pieces without orientations, which the symmetries map onto
/// itself). The symmetries act on `c` alone: the other sets go to other sets, and the set's
/// parity, in the rank's parity vector, changes by each symmetry's own.
struct SetOrder {
    space: Twisty,
    stickers: Stickers,
    /// The set's name, first place and pieces.
    name: String,
    first: usize,
    count: usize,
    /// The weight of its digit in the rank, and the digit's values.
    weight: u64,
    digits: u64,
    /// The set's orders as the rest of a coordinate of none of its pieces: lexicographic
    /// ranks, halved where the rank's parity vector holds the set's parity.
    orders: Positions,
}

impl SetOrder {
    /// The coordinate of `space` whose rest is the order of set `set`.
    fn new(space: Twisty, set: usize) -> SetOrder {
        let stickers = Stickers::new(&space.written_sets);
        let c = &space.coords[set];
        let labels: Vec<u32> = (1..=c.count as u32).collect();
        let halved = c.parity_bit.map(|_| Half::Parity);
        SetOrder {
            name: space.written_sets[set].name.clone(),
            first: stickers.base(set),
            count: c.count,
            weight: space.weights[set].0,
            digits: c.perm_digits(),
            orders: Positions::new(&labels, 0, Vec::new(), halved),
            stickers,
            space,
        }
    }
}

impl Coordinate for SetOrder {
    fn values(&self) -> u64 {
        self.space.size / self.digits
    }

    fn fibre(&self) -> u64 {
        self.digits
    }

    fn value(&self, state: &[u32]) -> u64 {
        let state = self.stickers.to_state(state).expect("a position");
        let rank = self.space.rank(&state).expect("a position");
        rank / (self.weight * self.digits) * self.weight + rank % self.weight
    }

    fn order(&self, state: &[u32], order: &mut [u8; LABELS]) -> usize {
        for (slot, &x) in order
            .iter_mut()
            .zip(&state[self.first..self.first + self.count])
        {
            *slot = (x as usize - self.first) as u8;
        }
        self.count
    }

    fn rest_of_order(&self, order: &[u8]) -> u64 {
        self.orders.rest_of_order(order)
    }

    fn order_of_rest(&self, r: u64, odd: bool, order: &mut [u8; LABELS]) -> usize {
        self.orders.order_of_rest(r, odd, order)
    }

    fn next_order(&self, odd: bool, order: &mut [u8; LABELS]) {
        self.orders.next_order(odd, order)
    }

    fn relabelling(&self, element: &Element) -> Vec<u8> {
        (self.first..self.first + self.count)
            .map(|x| (element.labels[x] as usize - self.first) as u8)
            .collect()
    }

    fn join(&self, c: u64, r: u64, state: &mut [u32], _: &dyn Fn(&[u32]) -> bool) {
        let rank = c / self.weight * self.weight * self.digits + r * self.weight + c % self.weight;
        state.copy_from_slice(&self.stickers.of_state(&self.space.state(rank)));
    }

    fn describe(&self) -> String {
        format!(
            "positions as stickers (each piece's stickers on the places of its position's orientations, set by set); c is the puzzle's rank with the pieces digit of {} left out, r that digit (the lexicographic rank of its pieces' order{})",
            self.name,
            match self.orders.fibre() * 2 == crate::rank::factorial(self.count) {
                true => ", halved: the rank's parity vector holds its parity",
                false => "",
            }
        )
    }

    fn fixed(&self) -> usize {
        0
    }

    fn kept_states(
        &self,
        element: &Element,
        solved: &[u32],
        in_space: &dyn Fn(&[u32]) -> bool,
        each: &mut dyn FnMut(&[u32]) -> bool,
    ) {
        self.stickers.kept_states(element, solved, in_space, each)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::twisty::{Naming, Twisty, format};
    use crate::puzzle::{Cursor, StateSpace};

    fn naming() -> Naming {
        Naming {
            family: "perm".into(),
            params: Default::default(),
            slug: "t".into(),
        }
    }

    /// The shipped definition `file` in `metric`.
    fn shipped(file: &str, metric: &str) -> Twisty {
        let path = format!("{}/puzzles/{file}", env!("CARGO_MANIFEST_DIR"));
        let def = format::read(&std::fs::read_to_string(path).unwrap(), file).unwrap();
        Twisty::new(&def, metric, naming()).unwrap()
    }

    /// The symmetries found for the shipped definition `file` in `metric`, each checked to keep
    /// the solved position and to map each move from a spread of positions onto a move.
    fn checked(file: &str, metric: &str) -> usize {
        let space = shipped(file, metric);
        let solved = space.state(space.solved());
        let found = symmetries(&space.written_sets, &space.written_moves, &solved).unwrap();
        let stickers = Stickers::new(&space.written_sets);
        let mut image = vec![0u32; stickers.len()];
        let mut mapped = |g: &Element, state: &[u32]| {
            g.apply(&stickers.of_state(state), &mut image);
            space.rank(&stickers.to_state(&image).unwrap()).unwrap()
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
                assert_eq!(
                    stickers.to_state(&stickers.of_state(&state)).unwrap(),
                    state
                );
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

    /// A tetrahedron's four corners, each a set of its own turning in place, and its six edges:
    /// a turn about a corner twists it and cycles its three edges, counterclockwise seen from
    /// outside. The symmetries take corner sets to corner sets.
    const CORNERS_AND_EDGES: &str = "Set C0 1 3\nSet C1 1 3\nSet C2 1 3\nSet C3 1 3\nSet E 6 1\n\
        Move A\nC0\n1\n1\nE\n3 1 2 4 5 6\nEnd\n\
        Move B\nC1\n1\n1\nE\n4 2 3 5 1 6\nEnd\n\
        Move C\nC2\n1\n1\nE\n1 4 3 6 5 2\nEnd\n\
        Move D\nC3\n1\n1\nE\n1 2 5 4 6 3\nEnd\n";

    /// Six pieces `C0` to `C5`, each a set of its own turning in place (four orientations),
    /// three flags and three pieces `P`: the turn of `Ci` turns it, flips the flags `Fb` for
    /// the bits `b` of its pattern (1, 2, 4, 3, 5, 6) and cycles the three pieces. As in the
    /// compy cube, five of the six's orientations share a block for a long last digit, which
    /// ties nothing, and the sixth (`C5`, its set written last) has a digit of its own; the
    /// flags' exchanges, the symmetries, exchange it with `C3` and `C4` in the block.
    fn turning_pieces_and_three() -> String {
        let mut text: String = (0..6).map(|i| format!("Set C{i} 1 4\n")).collect();
        text.push_str("Set F0 1 2\nSet F1 1 2\nSet F2 1 2\nSet P 3 1\n");
        for (i, pattern) in [1, 2, 4, 3, 5, 6].iter().enumerate() {
            text.push_str(&format!("Move T{i}\nC{i}\n1\n1\n"));
            for b in (0..3).filter(|b| pattern >> b & 1 == 1) {
                text.push_str(&format!("F{b}\n1\n1\n"));
            }
            text.push_str("P\n2 3 1\nEnd\n");
        }
        text
    }

    /// `space` searched with and without its symmetries: the same positions at each distance,
    /// and each position's entry (its stickers') holding the position's distance. Its order.
    fn same_levels(space: Twisty) -> usize {
        use crate::puzzle::symmetry::{Erased, Reduced};
        use crate::search::cpu::search;
        use crate::search::{Options, Silent};
        let symmetry = space.capabilities().symmetry().unwrap();
        let reduced = Reduced::new(Box::new(Erased(space.clone())), symmetry).unwrap();
        assert_eq!(reduced.positions(), space.size());
        let whole = search(&space, &Options::default(), &Silent);
        let classes = search(&reduced, &Options::default(), &Silent);
        assert_eq!(
            classes.levels.positions().iter().collect::<Vec<_>>(),
            whole.levels.iter().collect::<Vec<_>>()
        );
        assert!(classes.levels.total() * 2 < whole.levels.total());
        let stickers = Stickers::new(&space.written_sets);
        for rank in 0..space.size() {
            let entry = reduced.entry(&stickers.of_state(&space.state(rank)));
            assert_eq!(classes.table.get(entry), whole.table.get(rank), "{rank}");
        }
        reduced.elements().len()
    }

    #[test]
    fn twisty_tables_reduced_by_their_symmetries_count_every_position() {
        // The skewb diamond's 24, the rest the four face centres' order.
        assert_eq!(same_levels(shipped("skewb-diamond.tws", "htm")), 24);
        // Corners in sets of their own, taken to each other's sets; the rest the edges' order
        // (numbered without blocks, which would tie the edges to a corner's orientations).
        let def = format::read(CORNERS_AND_EDGES, "t").unwrap();
        let order = same_levels(Twisty::without_blocks(&def, "htm", naming()).unwrap());
        assert!(order >= 12, "{order}");
        // A block that ties nothing may hold sets the symmetries exchange with a set outside
        // it: the turning pieces' orientations take every combination of values either way.
        // (In the quarter-turn metric: its turns have order 12, 66 moves in all with powers.)
        let def = format::read(&turning_pieces_and_three(), "t").unwrap();
        let space = Twisty::new(&def, "qtm", naming()).unwrap();
        assert_eq!(space.blocks.len(), 1);
        assert_eq!(space.blocks[0].members.len(), 5);
        assert!(!space.blocks[0].ties());
        let solved = space.state(space.solved());
        let found = symmetries(&space.written_sets, &space.written_moves, &solved).unwrap();
        let stickers = Stickers::new(&space.written_sets);
        // C5, outside the block, goes to a set in it.
        assert!((found.iter()).any(|g| stickers.set_of(g.positions[stickers.base(5)]) != 5));
        let order = same_levels(space);
        assert!(order >= 6, "{order}");
        // No set without orientations for the rest: refused, naming why.
        let why = shipped("cube-2x2x2.tws", "htm")
            .capabilities()
            .symmetry()
            .err()
            .unwrap();
        assert!(why.contains("without orientations"), "{why}");
    }
}
