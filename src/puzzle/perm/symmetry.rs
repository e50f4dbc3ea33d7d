//! The symmetries of a permutation puzzle, found from its moves: the renumberings of its
//! positions that map the set of moves onto itself.
//!
//! A symmetry `t` sends the piece at position `i` to position `t(i)` and relabels it so that
//! solved stays solved; it is one exactly when it maps every move onto a move
//! ([`automorphisms`]): number rotation boards' rotations and reflections, whatever a puzzle
//! from `--gens` allows.

use super::Perm;
use crate::puzzle::StateSpace;
use crate::puzzle::symmetry::{self, Element, Half, Symmetry, automorphisms};

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
        let found = automorphisms(self.n, &self.written, &|_, _| true)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group;

    #[test]
    fn a_square_board_has_the_eight_symmetries_of_the_square() {
        // A 3x3 board with 2x2 blocks turning both ways: rotations and reflections.
        let board = crate::puzzle::rotation::board(3, 3, 2).unwrap();
        assert_eq!(
            automorphisms(9, &board.written, &|_, _| true)
                .unwrap()
                .len(),
            8
        );
        // A 2x3 board: the half turn and the two reflections.
        let board = crate::puzzle::rotation::board(2, 3, 2).unwrap();
        assert_eq!(
            automorphisms(6, &board.written, &|_, _| true)
                .unwrap()
                .len(),
            4
        );
        // A 3-cycle and its inverse on 4 points: every renumbering of the cycle's three points
        // (the fourth stays), 3! = 6.
        let cycle = vec![1, 2, 0, 3];
        let moves = vec![cycle.clone(), group::inverse(&cycle)];
        assert_eq!(automorphisms(4, &moves, &|_, _| true).unwrap().len(), 6);
    }
}
