//! Block moves prepared for a sweep: tables of positions for short runs, and the parity of the
//! prefix digits some windows depend on.

use super::*;

/// A block move with what its pass needs.
pub(super) struct Prepared {
    pub(super) mv: BlockMove,
    /// Short runs: where each position of a block goes; `None` for long runs.
    pub(super) positions: Option<std::sync::Arc<Positions>>,
}

impl Prepared {
    /// The blocks (numbered from the move's range) that the target ranks `ranks` cover: whole
    /// blocks, as tasks of moves with tables of positions hold.
    pub(super) fn blocks(&self, ranks: &Range<u64>) -> Range<u64> {
        let block = self.mv.window.block;
        (ranks.start - self.mv.from) / block..(ranks.end - self.mv.from) / block
    }

    /// The source ranks that the target ranks `ranks` (inside the move's range) can pull from:
    /// where they lie in one run, that run's part they pull; else every block they cover.
    pub(super) fn source_span(&self, ranks: &Range<u64>) -> Range<u64> {
        let w = &self.mv.window;
        let (i, end) = (ranks.start - self.mv.from, ranks.end - self.mv.from);
        let (b, x) = (i / w.block, i % w.block / w.run);
        if (end - 1) / w.run == i / w.run {
            let odd = prefix_parity(self.mv.first_block + b, &w.prefix);
            let run = self.mv.to + b * w.block + w.map(odd)[x as usize] as u64 * w.run;
            return run + i % w.run..run + (end - 1) % w.run + 1;
        }
        self.mv.to + b * w.block..self.mv.to + end.div_ceil(w.block) * w.block
    }

    /// Calls `f` with each block of the target ranks `ranks`: its first target less `origin`,
    /// its first source, and whether its prefix is odd (which table of positions it takes).
    pub(super) fn each_block(
        &self,
        ranks: &Range<u64>,
        origin: u64,
        mut f: impl FnMut(u64, u64, bool),
    ) {
        let w = &self.mv.window;
        let blocks = self.blocks(ranks);
        let first = self.mv.first_block + blocks.start;
        let mut parity = Parity::new(first, &w.prefix, w.parity_dependent());
        for b in blocks {
            let odd = parity.odd;
            parity.step();
            f(
                self.mv.from + b * w.block - origin,
                self.mv.to + b * w.block,
                odd,
            );
        }
    }

    /// The source ranks that the target ranks `ranks` (whole blocks) pull from.
    pub(super) fn sources(&self, ranks: &Range<u64>) -> Range<u64> {
        let Range { start, end } = self.blocks(ranks);
        let block = self.mv.window.block;
        self.mv.to + start * block..self.mv.to + end * block
    }
}

/// A short-run block move's tables of positions, for an even prefix and (where the map depends
/// on it) an odd one.
pub(super) struct Positions {
    /// For each position of a source block, the position in the target block that pulls from
    /// it: frontier bits are pushed through it.
    pub(super) forward: Vec<Vec<u32>>,
    /// For each position of a target block, the position of the source block it pulls from:
    /// unreached entries pull through it.
    pub(super) backward: Vec<Vec<u32>>,
}

impl Positions {
    /// The tables of `w`, if it has short runs and they fit in `room` bytes (then taken from
    /// it). Blocks past [`MAX_TABLE_BLOCK`] get theirs whatever the room: only the maps of a
    /// reduced table's rests are such block moves (families keep others residual,
    /// [`crate::puzzle::applies_in_bulk`]), and the plan counts their tables
    /// ([`crate::puzzle::Blocks::bytes`]).
    pub(super) fn new(w: &WindowMove, room: &mut u64) -> Option<Positions> {
        let maps = w.maps().len();
        let bytes = 2 * maps as u64 * w.block * 4;
        let long = w.block > MAX_TABLE_BLOCK;
        if w.run >= SHORT_RUN || (!long && bytes > *room) {
            return None;
        }
        if !long {
            *room -= bytes;
        }
        let mut forward = Vec::new();
        let mut backward = Vec::new();
        for map in w.maps() {
            let mut to = vec![0u32; w.block as usize];
            let mut from = vec![0u32; w.block as usize];
            for (x, &y) in map.iter().enumerate() {
                for s in 0..w.run {
                    // Target position x pulls from source position map[x] (as
                    // `WindowMove::apply` reads a move).
                    let (target, source) = (x as u64 * w.run + s, y as u64 * w.run + s);
                    to[source as usize] = target as u32;
                    from[target as usize] = source as u32;
                }
            }
            forward.push(to);
            backward.push(from);
        }
        Some(Positions { forward, backward })
    }
}

/// The parity of a block's prefix digits, stepped block by block.
pub(super) struct Parity<'a> {
    pub(super) digits: Vec<u32>,
    pub(super) radices: &'a [u32],
    pub(super) odd: bool,
}

impl<'a> Parity<'a> {
    /// The parity of block `b`; a constant (even) one when it does not matter.
    pub(super) fn new(b: u64, radices: &'a [u32], matters: bool) -> Parity<'a> {
        if !matters {
            return Parity {
                digits: Vec::new(),
                radices: &[],
                odd: false,
            };
        }
        let mut digits = vec![0u32; radices.len()];
        let mut value = b;
        for (d, &r) in digits.iter_mut().zip(radices).rev() {
            *d = (value % r as u64) as u32;
            value /= r as u64;
        }
        Parity {
            odd: prefix_parity(b, radices),
            digits,
            radices,
        }
    }

    /// Moves on to the next block.
    #[inline]
    pub(super) fn step(&mut self) {
        for (d, &r) in self.digits.iter_mut().zip(self.radices).rev() {
            if *d + 1 < r {
                *d += 1;
                self.odd = !self.odd;
                return;
            }
            // Wraps from r - 1 to 0.
            *d = 0;
            self.odd ^= (r - 1) % 2 == 1;
        }
    }
}

pub(super) fn lcm(a: u64, b: u64) -> u64 {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 { a } else { gcd(b, a % b) }
    }
    a / gcd(a, b) * b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank::window::window_move;

    #[test]
    fn the_source_span_holds_every_source_of_its_targets() {
        // Windows at the start, in the middle and at the end of 7 entries (the last two
        // depending on the parity of the prefix), and an identity move.
        let windows = [
            window_move(7, 0, &[2, 0, 1], true),
            window_move(7, 2, &[1, 2, 0], true),
            window_move(7, 4, &[2, 0, 1], true),
            window_move(7, 1, &[1, 0], false),
            WindowMove::identity(5040),
        ];
        for window in windows {
            let len = window.block * window.prefix.iter().map(|&r| r as u64).product::<u64>();
            let p = Prepared {
                mv: BlockMove {
                    from: 1000,
                    to: 9000,
                    len,
                    window,
                    first_block: 0,
                },
                positions: None,
            };
            let w = &p.mv.window;
            for (start, count) in [(0, 1), (3, 7), (w.run - 1, 2), (w.block, w.run), (17, 300)] {
                let end = (start + count).min(len);
                let span = p.source_span(&(p.mv.from + start..p.mv.from + end));
                for i in start..end {
                    let source = p.mv.to + w.apply(i);
                    assert!(span.contains(&source), "{i} in {start}..{end}: {span:?}");
                }
                if (end - 1) / w.run == start / w.run {
                    assert_eq!(span.end - span.start, end - start, "within one run");
                }
            }
        }
    }
}
