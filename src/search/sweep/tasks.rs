//! How a sweep splits its work: block-move tasks, each owning a range of target ranks, and
//! bundles of residual ranges walked together.

use super::positions::{Prepared, lcm};
use crate::search::segments::segments;
use std::collections::HashMap;
use std::ops::Range;

/// Target ranks per block-move task (rounded up to the blocks of its position tables).
const TASK_RANKS: u64 = 1 << 18;

/// Ranks per residual task.
pub(super) const RESIDUAL_TASK_RANKS: u64 = 1 << 16;

/// A range of target ranks and the block moves that land there.
pub(super) struct Task {
    pub(super) ranks: Range<u64>,
    pub(super) moves: Vec<usize>,
}

/// Equally long ranges of ranks with residual moves: (first rank, moves) each.
pub(super) struct ResidualRanges {
    pub(super) len: u64,
    pub(super) ranges: Vec<(u64, Vec<usize>)>,
}

/// The block moves' tasks: the ranks they pull into, cut where any move's range starts or
/// ends (so that a task owns its ranks alone, however the moves' ranges overlap), then into
/// pieces of about [`TASK_RANKS`] whole blocks of the moves through tables of positions.
pub(super) fn block_tasks(prepared: &[Prepared]) -> Vec<Task> {
    let ranges: Vec<Range<u64>> = (prepared.iter())
        .map(|p| p.mv.from..p.mv.from + p.mv.len)
        .collect();
    let mut tasks = Vec::new();
    for (piece, mut moves) in segments(&ranges) {
        // Long runs first: they are cheap, and each entry they find is one the moves
        // through tables of positions need not look for.
        moves.sort_by_key(|&i| prepared[i].positions.is_some());
        let mut align = 1;
        for &i in moves.iter().filter(|&&i| prepared[i].positions.is_some()) {
            let mv = &prepared[i].mv;
            let block = mv.window.block;
            assert!(
                (piece.start - mv.from).is_multiple_of(block)
                    && (piece.end - mv.from).is_multiple_of(block),
                "another block move cuts a block of a move through tables of positions"
            );
            align = lcm(align, block);
        }
        let step = TASK_RANKS.div_ceil(align) * align;
        let mut start = piece.start;
        while start < piece.end {
            let end = (start + step).min(piece.end);
            tasks.push(Task {
                ranks: start..end,
                moves: moves.clone(),
            });
            start = end;
        }
    }
    tasks
}

/// The residual ranges in bundles: ranges of one length share a bundle (a range met again
/// takes the new move), and short ones fill a task's ranks a bundle.
pub(super) fn residual_bundles(residual: Vec<(Range<u64>, usize)>) -> Vec<ResidualRanges> {
    let mut bundles: Vec<ResidualRanges> = Vec::new();
    let mut placed: HashMap<(u64, u64), (usize, usize)> = HashMap::new();
    let mut filling: HashMap<u64, usize> = HashMap::new();
    for (ranks, mv) in residual {
        let len = ranks.end - ranks.start;
        if let Some(&(b, r)) = placed.get(&(len, ranks.start)) {
            bundles[b].ranges[r].1.push(mv);
            continue;
        }
        let b = match filling.get(&len) {
            Some(&b)
                if len >= RESIDUAL_TASK_RANKS
                    || (bundles[b].ranges.len() as u64 * len) < RESIDUAL_TASK_RANKS =>
            {
                b
            }
            _ => {
                bundles.push(ResidualRanges {
                    len,
                    ranges: Vec::new(),
                });
                filling.insert(len, bundles.len() - 1);
                bundles.len() - 1
            }
        };
        placed.insert((len, ranks.start), (b, bundles[b].ranges.len()));
        bundles[b].ranges.push((ranks.start, vec![mv]));
    }
    bundles
}
