//! A ring puzzle's moves on its pieces as written, and its mirror: what a table reduced by
//! symmetry ([`crate::puzzle::symmetry`]) searches a ring puzzle with.

use super::turned::Turned;
use super::{Metric, Ring};
use crate::puzzle::StateSpace;
use crate::puzzle::symmetry::{self, Element, Half, Rank, Symmetry};

impl Ring {
    /// Move `mv` applied to the pieces of `state`, into `out` ([`crate::puzzle::StateSpace::move_state`]).
    pub(super) fn move_pieces(&self, state: &[u32], mv: usize, out: &mut [u32]) {
        let n = self.n;
        out.copy_from_slice(state);
        // Where the window starts, or the shift of L and R.
        let start = match (self.metric, mv) {
            (Metric::Lrf, 0) => {
                (0..n).for_each(|i| out[i] = state[(i + 1) % n]);
                return;
            }
            (Metric::Lrf, 1) => {
                (0..n).for_each(|i| out[(i + 1) % n] = state[i]);
                return;
            }
            (Metric::Lrf, _) => 0,
            (Metric::Flips, i) => i,
        };
        for (j, &from) in self.window.iter().enumerate() {
            out[(start + j) % n] = state[(start + from) % n];
        }
        if self.metric == Metric::Flips && out[0] != 1 {
            // The ring read from piece 1 again.
            let one = out.iter().position(|&x| x == 1).expect("piece 1");
            out.rotate_left(one);
        }
    }

    /// The mirror that maps the window onto itself, where the window's move looks the same in
    /// it (Turnstyle's and TopSpin's do): in metric `lrf` it reflects the ring through the
    /// window's middle and swaps `L` and `R`; in metric `flips` it reverses the ring read from
    /// piece 1, and each window move becomes another. Pieces are relabelled alike, so solved
    /// stays solved.
    pub(super) fn mirror(&self) -> Result<Symmetry, String> {
        let (n, k) = (self.n, self.window.len());
        let mirrored = (0..k).all(|i| k - 1 - self.window[k - 1 - i] == self.window[i]);
        if !mirrored {
            return Err("its window's move is not the same in a mirror".into());
        }
        // Position (and home of piece) `i` goes to `to(i)`.
        let to = |i: usize| match self.metric {
            Metric::Lrf => (k - 1 + n - i) % n,
            Metric::Flips => (n - i) % n,
        };
        let mirror = Element {
            positions: (0..n).map(to).collect(),
            labels: std::iter::once(0)
                .chain((0..n).map(|i| to(i) as u32 + 1))
                .collect(),
        };
        let (name, fixed) = match self.metric {
            Metric::Lrf => ("the mirror through the window, L and R swapped", 0),
            Metric::Flips => ("the mirror of the ring read from piece 1", 1),
        };
        symmetry::of_pieces(self, name, &[mirror], fixed, Half::Parity, &[])
    }

    /// In metric `flips`, the turns of the labels by multiples of the least `d` that gives a
    /// class coordinate ([`Turned`]; piece `x` becomes `x + d`, the ring read from piece 1
    /// again) and, where the window's move looks the same in a mirror, their mirrors: `2n / d`
    /// symmetries. Or the mirror alone where no `d` does (a prime `n`).
    pub(super) fn turns(&self) -> Result<Symmetry, String> {
        let n = self.n;
        let mirror = self.mirror();
        let halved = self.size() * 2 == crate::rank::factorial(n - 1);
        // A halved rest needs two pieces besides the coordinate's.
        let fits = |d: &usize| {
            let order = (n / d) as u64 * (1 + u64::from(mirror.is_ok()));
            let others = n - n / d;
            let work = Turned::values(n, *d).saturating_mul(order);
            n.is_multiple_of(*d)
                && (!halved || others >= 2)
                && symmetry::worth(work, self.size() / order)
        };
        let Some(d) = (1..n).find(fits) else {
            return mirror;
        };
        let turn = Element {
            positions: (0..n).collect(),
            labels: std::iter::once(0)
                .chain((1..=n as u32).map(|x| (x - 1 + d as u32) % n as u32 + 1))
                .collect(),
        };
        let mut generators = vec![turn];
        generators.extend(mirror.ok().map(|m| m.elements[1].clone()));
        symmetry::check(self, &generators)?;
        let turns = n / d;
        let by = match d {
            1 => String::new(),
            d => format!(" by multiples of {d}"),
        };
        let mirrors = match generators.len() {
            1 => "",
            _ => " and their mirrors",
        };
        let name =
            format!("the {turns} turns of the labels{by}{mirrors}, the ring read from piece 1");
        Ok(Symmetry {
            view: None,
            name,
            elements: symmetry::group(&generators, n, n as u32),
            rank: Rank::Coordinate(Box::new(Turned::new(n, d, halved))),
            // A window's flip permutes places; the ring is read from piece 1 again from the
            // place a move or a turn takes it to, a place of the coordinate's pieces.
            moves_carry_rests: true,
            shader: None,
        })
    }
}
