//! The renumberings of a puzzle's positions that map its moves onto its moves, found from the
//! moves: what permutation puzzles' and twisty puzzles' symmetries are made of.
//!
//! A renumbering `t` sends what is at position `i` to position `t(i)`. A move `f` (position `i`
//! takes what position `f(i)` held) becomes `t⁻¹ f t`, read as a map of positions: so `t` maps
//! the moves onto the moves exactly when every move's conjugate is a move. They are found by
//! trying every image of each position in turn, keeping for each move the moves its conjugate
//! may still be, and going back where one has none.

use crate::group::Perm as Permutation;

/// Most symmetries a puzzle may have: its classes are worked out from all of them.
const MAX_SYMMETRIES: usize = 1 << 10;
/// Most partial renumberings tried while looking for them.
const MAX_TRIES: u64 = 1 << 22;

/// Every permutation `t` of `n` positions (the identity first) such that `t⁻¹ f t` is one of
/// `moves` for each of `moves` `f` (from arrays) and `allowed(i, t(i))` for each position `i`,
/// or why they are not all found.
pub fn automorphisms(
    n: usize,
    moves: &[Permutation],
    allowed: &dyn Fn(usize, usize) -> bool,
) -> Result<Vec<Permutation>, String> {
    if moves.len() > 64 {
        return Err(format!(
            "it has {} moves, and its symmetries are looked for among up to 64",
            moves.len()
        ));
    }
    // Positions in an order where each follows one already placed, where it can, else is
    // moved by a move that moves one already placed (a twisty puzzle's corner turning in
    // place, then the edges its move cycles), so that the moves constrain a renumbering early.
    let mut order: Vec<usize> = Vec::with_capacity(n);
    let mut placed = vec![false; n];
    let moved_with: Vec<Vec<usize>> = (0..n)
        .map(|p| {
            let with = moves.iter().filter(|f| f[p] as usize != p);
            (0..n)
                .filter(|&q| with.clone().any(|f| f[q] as usize != q))
                .collect()
        })
        .collect();
    while order.len() < n {
        let next = (order.iter())
            .flat_map(|&p| moves.iter().map(move |f| f[p] as usize))
            .find(|&q| !placed[q])
            .or_else(|| {
                (order.iter().flat_map(|&p| &moved_with[p]))
                    .copied()
                    .find(|&q| !placed[q])
            })
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
        allowed,
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
    /// Whether a position may go to another.
    allowed: &'a dyn Fn(usize, usize) -> bool,
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
            if self.used[q] || !(self.allowed)(p, q) {
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
