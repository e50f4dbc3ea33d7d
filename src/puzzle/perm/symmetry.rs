//! The symmetries of a permutation puzzle, found from its moves: the renumberings of its
//! positions that map the set of moves onto itself.
//!
//! A symmetry `t` sends the piece at position `i` to position `t(i)` and relabels it so that
//! solved stays solved. A move `f` (position `i` takes what position `f(i)` held) becomes
//! `t⁻¹ f t`, read as a map of positions: so `t` is a symmetry exactly when every move's
//! conjugate is a move. They are found by trying every image of each position in turn, keeping
//! for each move the moves its conjugate may still be, and going back where one has none
//! (number rotation boards: their rotations and reflections; a puzzle from `--gens`: whatever
//! its moves allow).

use super::Perm;
use crate::group::Perm as Permutation;
use crate::puzzle::StateSpace;
use crate::puzzle::symmetry::{self, Element, Half, Symmetry};

/// Most symmetries a puzzle may have: its classes are worked out from all of them.
const MAX_SYMMETRIES: usize = 1 << 10;
/// Most partial renumberings tried while looking for them.
const MAX_TRIES: u64 = 1 << 22;

impl Perm {
    /// The symmetries found from the moves, or why there are none to use.
    pub(super) fn symmetries(&self) -> Result<Symmetry, String> {
        if self.size() * 2 < crate::rank::factorial(self.n) {
            return Err(format!(
                "its moves reach {} of the {}! arrangements, and classes are numbered only where they reach all or half of them",
                self.size(),
                self.n
            ));
        }
        let found = automorphisms(self.n, &self.written)?;
        if found.len() == 1 {
            return Err(
                "no renumbering of its positions but the identity maps its moves onto its moves"
                    .into(),
            );
        }
        // Piece x (as written, from 1) is relabelled as the piece solved where it goes.
        let solved = self.state(self.solved());
        let mut home = vec![0usize; self.n + 1];
        for (i, &x) in solved.iter().enumerate() {
            home[x as usize] = i;
        }
        let elements = (found.iter().skip(1)).map(|t| Element {
            positions: t.iter().map(|&p| p as usize).collect(),
            labels: std::iter::once(0)
                .chain((1..=self.n).map(|x| solved[t[home[x]] as usize]))
                .collect(),
        });
        // A few of them generate the others: the group is made and checked from those.
        let mut generators: Vec<Element> = Vec::new();
        let mut group = symmetry::group(&generators, self.n, self.n as u32);
        for element in elements {
            if !group.contains(&element) {
                generators.push(element);
                group = symmetry::group(&generators, self.n, self.n as u32);
            }
        }
        let name = format!(
            "the {} renumberings of the positions that map the moves onto the moves (found from the moves)",
            found.len()
        );
        // Half of all arrangements: those of one parity.
        symmetry::of_pieces(self, &name, &generators, 0, Half::Parity, &[])
    }
}

/// Every permutation `t` of `n` positions (the identity first) such that `t⁻¹ f t` is one of
/// `moves` for each of `moves` `f` (from arrays), or why they are not all found.
pub fn automorphisms(n: usize, moves: &[Permutation]) -> Result<Vec<Permutation>, String> {
    if moves.len() > 64 {
        return Err(format!(
            "it has {} moves, and its symmetries are looked for among up to 64",
            moves.len()
        ));
    }
    // Positions in an order where each follows one already placed, where it can, so that
    // the moves between them constrain a renumbering early.
    let mut order: Vec<usize> = Vec::with_capacity(n);
    let mut placed = vec![false; n];
    while order.len() < n {
        let next = (order.iter())
            .flat_map(|&p| moves.iter().map(move |f| f[p] as usize))
            .find(|&q| !placed[q])
            .unwrap_or_else(|| (0..n).find(|&q| !placed[q]).expect("a position left"));
        placed[next] = true;
        order.push(next);
    }
    let cycles = |f: &[u8]| {
        let mut lengths: Vec<usize> = Vec::new();
        let mut seen = vec![false; f.len()];
        for start in 0..f.len() {
            let mut len = 0;
            let mut at = start;
            while !seen[at] {
                seen[at] = true;
                at = f[at] as usize;
                len += 1;
            }
            if len > 0 {
                lengths.push(len);
            }
        }
        lengths.sort_unstable();
        lengths
    };
    // A move's conjugate has its cycle lengths.
    let shapes: Vec<Vec<usize>> = moves.iter().map(|f| cycles(f)).collect();
    let candidates: Vec<u64> = (shapes.iter())
        .map(|s| {
            (shapes.iter().enumerate())
                .filter(|(_, t)| *t == s)
                .fold(0u64, |mask, (h, _)| mask | 1 << h)
        })
        .collect();
    let mut search = Search {
        moves,
        order: &order,
        image: vec![u8::MAX; n],
        used: vec![false; n],
        found: Vec::new(),
        tries: 0,
    };
    search.extend(0, &candidates)?;
    // The identity first, the others in increasing order.
    search.found.sort_unstable();
    Ok(search.found)
}

/// A search for the renumberings of positions that map moves onto moves.
struct Search<'a> {
    moves: &'a [Permutation],
    order: &'a [usize],
    /// Each position's image so far (`u8::MAX`: none yet).
    image: Vec<u8>,
    /// The images taken.
    used: Vec<bool>,
    found: Vec<Permutation>,
    tries: u64,
}

impl Search<'_> {
    /// Extends the renumbering from the `at`-th position of the order, where move `g`'s
    /// conjugate may still be each move `h` of `candidates[g]`.
    fn extend(&mut self, at: usize, candidates: &[u64]) -> Result<(), String> {
        let Some(&p) = self.order.get(at) else {
            if self.found.len() == MAX_SYMMETRIES {
                return Err(format!(
                    "it has more than {MAX_SYMMETRIES} symmetries, more than gpusearch works out classes for"
                ));
            }
            self.found.push(self.image.clone());
            return Ok(());
        };
        for q in 0..self.image.len() {
            if self.used[q] {
                continue;
            }
            self.tries += 1;
            if self.tries > MAX_TRIES {
                return Err(format!(
                    "its symmetries are not found within {MAX_TRIES} tries"
                ));
            }
            self.image[p] = q as u8;
            self.used[q] = true;
            if let Some(left) = self.narrow(p, candidates) {
                self.extend(at + 1, &left)?;
            }
            self.used[q] = false;
            self.image[p] = u8::MAX;
        }
        Ok(())
    }

    /// `candidates` narrowed by the position `p` just placed, or `None` where a move's conjugate
    /// can be no move: the conjugate `h` of `f` has `h(t(a)) = t(f(a))` wherever `a` and `f(a)`
    /// are both placed.
    fn narrow(&self, p: usize, candidates: &[u64]) -> Option<Vec<u64>> {
        let t = &self.image;
        let mut left = candidates.to_vec();
        for (f, mask) in self.moves.iter().zip(left.iter_mut()) {
            // The pairs (a, f(a)) that `p` completes.
            let pairs = [Some(p), f.iter().position(|&x| x as usize == p)];
            for a in pairs.into_iter().flatten() {
                let (ta, tfa) = (t[a], t[f[a] as usize]);
                if ta == u8::MAX || tfa == u8::MAX {
                    continue;
                }
                let mut keep = 0u64;
                let mut bits = *mask;
                while bits != 0 {
                    let h = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    if self.moves[h][ta as usize] == tfa {
                        keep |= 1 << h;
                    }
                }
                *mask = keep;
            }
            if *mask == 0 {
                return None;
            }
        }
        Some(left)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group;

    #[test]
    fn a_square_board_has_the_eight_symmetries_of_the_square() {
        // A 3x3 board with 2x2 blocks turning both ways: rotations and reflections.
        let board = crate::puzzle::rotation::board(3, 3, 2).unwrap();
        assert_eq!(automorphisms(9, &board.written).unwrap().len(), 8);
        // A 2x3 board: the half turn and the two reflections.
        let board = crate::puzzle::rotation::board(2, 3, 2).unwrap();
        assert_eq!(automorphisms(6, &board.written).unwrap().len(), 4);
        // A 3-cycle and its inverse on 4 points: every renumbering of the cycle's three points
        // (the fourth stays), 3! = 6.
        let cycle = vec![1, 2, 0, 3];
        let moves = vec![cycle.clone(), group::inverse(&cycle)];
        assert_eq!(automorphisms(4, &moves).unwrap().len(), 6);
    }
}
