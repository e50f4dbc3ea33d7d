//! Block moves that keep each block of ranks in place and move single ranks within it (a
//! pancake's small flips), taken 64 blocks at a time: the bits of 64 consecutive blocks are
//! transposed so that a word holds one position of all 64, and each move is then a permutation
//! of words, 64 entries a step, where through tables of positions it would take a bit at a time.

use super::frontier::Frontier;
use super::positions::{Prepared, lcm};
use super::transpose::transpose;
use std::ops::Range;

/// The most ranks of a slice's block: its two arrays of words (the frontier's and those found)
/// then take at most 16 MiB a task.
const MAX_SLICE_BLOCK: u64 = 1 << 20;

/// The most words of 64 blocks' places that the moves of small blocks take together: a piece of
/// the frontier's words and of those found, 1 MiB at most, stays in cache through them all.
const PIECE_WORDS: u64 = 1 << 16;

/// The block moves taken sliced, and the block they share.
pub(super) struct Slices {
    /// Ranks of a slice's block: a multiple of 64 and of each move's block.
    pub(super) block: u64,
    /// The moves (indices of the prepared moves).
    moves: Vec<usize>,
    /// The ranks they act on, all of them the same.
    ranks: Range<u64>,
    /// The moves whose blocks divide a piece of [`Slices::piece`] words, and the others.
    tiers: (Vec<usize>, Vec<usize>),
    /// Words taken together by the moves of small blocks: the least common multiple of their
    /// blocks, at most [`PIECE_WORDS`] where they allow it.
    piece: usize,
}

impl Slices {
    /// The moves of `prepared` that can go sliced, where there are any: short runs of one
    /// rank through tables of positions, each block in place, the same map in every block, all
    /// over the ranks of every block move; those of the smallest blocks whose least common
    /// multiple is a multiple of 64, at most [`MAX_SLICE_BLOCK`], and fills 64 blocks at least
    /// once over the ranks (the most of them that do).
    pub(super) fn new(prepared: &[Prepared]) -> Option<Slices> {
        let first = prepared.iter().find(|p| p.positions.is_some())?;
        let ranks = first.mv.from..first.mv.from + first.mv.len;
        // One range for every move: the tasks then start at multiples of 64 blocks.
        if (prepared.iter()).any(|p| (p.mv.from..p.mv.from + p.mv.len) != ranks) {
            return None;
        }
        let fits = |p: &Prepared| {
            let w = &p.mv.window;
            p.positions.is_some() && p.mv.from == p.mv.to && w.run == 1 && !w.parity_dependent()
        };
        let mut by_block: Vec<usize> = (0..prepared.len())
            .filter(|&i| fits(&prepared[i]))
            .collect();
        by_block.sort_by_key(|&i| prepared[i].mv.window.block);
        let (mut block, mut taken, mut with) = (0, 0, 1);
        for (n, &i) in by_block.iter().enumerate() {
            with = lcm(with, prepared[i].mv.window.block);
            if with > MAX_SLICE_BLOCK || 64 * with > ranks.end - ranks.start {
                break;
            }
            if with.is_multiple_of(64) {
                (block, taken) = (with, n + 1);
            }
        }
        if taken == 0 || !ranks.start.is_multiple_of(64 * block) {
            return None;
        }
        let moves = by_block[..taken].to_vec();
        // The small blocks: those whose least common multiple stays within a piece.
        let (mut piece, mut small) = (1, 0);
        for &i in &moves {
            let with = lcm(piece, prepared[i].mv.window.block);
            if with > PIECE_WORDS {
                break;
            }
            (piece, small) = (with, small + 1);
        }
        Some(Slices {
            block,
            ranks,
            tiers: (moves[..small].to_vec(), moves[small..].to_vec()),
            piece: piece as usize,
            moves,
        })
    }

    /// Whether move `i` goes sliced.
    pub(super) fn has(&self, i: usize) -> bool {
        self.moves.contains(&i)
    }

    /// ORs into `found` (bits of the ranks from `origin`) the bits of the task's ranks `ranks`
    /// that the sliced moves bring from the frontier, where units of 64 places hold entries
    /// `unreached` and not yet found. The task's ranks start at a multiple of 64 blocks from
    /// the moves' first rank.
    pub(super) fn pull<F: Frontier>(
        &self,
        prepared: &[Prepared],
        frontier: &F,
        ranks: Range<u64>,
        origin: u64,
        unreached: &[u64],
        found: &mut [u64],
    ) {
        let block = self.block;
        let cols = (block / 64) as usize;
        // Words of 64 blocks: one place of each, its bits the blocks.
        let mut bits = vec![0u64; 64 * cols];
        let mut pulled = vec![0u64; 64 * cols];
        // Whether any block of the group has an open entry in each unit of 64 places.
        let mut open = vec![0u64; cols];
        let mut m = [0u64; 64];
        let group_ranks = 64 * block;
        debug_assert_eq!((ranks.start - self.ranks.start) % group_ranks, 0);
        for start in (ranks.start..ranks.end).step_by(group_ranks as usize) {
            // The blocks of the group inside the task's ranks; unit `c` of row `i` is the
            // task's unit `at(i) + c`.
            let rows = ((ranks.end - start) / block).min(64) as usize;
            let at = |i: usize| ((start + i as u64 * block - origin) / 64) as usize;
            open.fill(0);
            for i in 0..rows {
                let row = at(i);
                for (o, (u, f)) in open
                    .iter_mut()
                    .zip(unreached[row..].iter().zip(&found[row..]))
                {
                    *o |= u & !f;
                }
            }
            if open.iter().all(|&o| o == 0) {
                continue;
            }
            for c in 0..cols {
                let mut any = 0;
                for (i, word) in m[..rows].iter_mut().enumerate() {
                    let rank = start + i as u64 * block + c as u64 * 64;
                    // Each row's next cache lines of the table, a few units on.
                    if c % 4 == 0 && c + 8 < cols {
                        frontier.prefetch(rank + 8 * 64);
                    }
                    *word = frontier.word((rank / 64) as i64);
                    any |= *word;
                }
                m[rows..].fill(0);
                if any != 0 {
                    transpose(&mut m);
                }
                bits[c * 64..c * 64 + 64].copy_from_slice(&m);
            }
            pulled.fill(0);
            // The moves of small blocks a piece of the words at a time, which stays in cache
            // through them all; the others over all the words.
            let (small, large) = &self.tiers;
            for piece in (0..64 * cols).step_by(self.piece) {
                let words = piece..piece + self.piece;
                gather(prepared, small, &bits[words.clone()], &mut pulled[words]);
            }
            gather(prepared, large, &bits, &mut pulled);
            for (c, &o) in open.iter().enumerate() {
                if o == 0 {
                    continue;
                }
                m.copy_from_slice(&pulled[c * 64..c * 64 + 64]);
                if m.iter().all(|&w| w == 0) {
                    continue;
                }
                transpose(&mut m);
                // Reached entries among them are left to the claims.
                for (i, &word) in m[..rows].iter().enumerate() {
                    found[at(i) + c] |= word;
                }
            }
        }
    }
}

/// ORs into each word of `pulled` the word of `bits` that moves `moves` pull it from (the
/// words of whole blocks of each).
fn gather(prepared: &[Prepared], moves: &[usize], bits: &[u64], pulled: &mut [u64]) {
    for &i in moves {
        let b = prepared[i].mv.window.block as usize;
        let from = &prepared[i]
            .positions
            .as_ref()
            .expect("sliced positions")
            .backward[0];
        for base in (0..bits.len()).step_by(b) {
            let (to, bits) = (&mut pulled[base..base + b], &bits[base..base + b]);
            for (word, &x) in to.iter_mut().zip(from) {
                *word |= bits[x as usize];
            }
        }
    }
}
