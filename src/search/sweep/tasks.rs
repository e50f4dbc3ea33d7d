//! How a sweep splits its work: block-move tasks, each owning a range of target ranks, and
//! bundles of residual ranges walked together; which tasks hold the last level.

use super::positions::{Prepared, lcm};
use crate::search::bitmap::Bitmap;
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
/// pieces of about [`TASK_RANKS`] whole blocks of the moves through tables of positions, and
/// a multiple of `align` ranks.
pub(super) fn block_tasks(prepared: &[Prepared], align: u64) -> Vec<Task> {
    let ranges: Vec<Range<u64>> = (prepared.iter())
        .map(|p| p.mv.from..p.mv.from + p.mv.len)
        .collect();
    let mut tasks = Vec::new();
    for (piece, mut moves) in segments(&ranges) {
        // Long runs first: they are cheap, and each entry they find is one the moves
        // through tables of positions need not look for.
        moves.sort_by_key(|&i| prepared[i].positions.is_some());
        let mut align = align;
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

/// Which block-move tasks' ranks hold a level: those where the pass that found it set
/// entries. Exact where every entry of the level was set by such a pass (a sweep without
/// residual moves), so that a move whose sources hold none of the last level can be skipped.
pub(super) struct Holding {
    /// The level.
    pub(super) level: u64,
    /// For each task, how many tasks before it hold the level (one more entry at the end).
    before: Vec<u32>,
}

impl Holding {
    /// The tasks that `found` marks (one bit a task) as holding `level`.
    pub(super) fn new(level: u64, found: &Bitmap) -> Holding {
        let mut before = Vec::with_capacity(found.len() as usize + 1);
        let mut count = 0;
        before.push(0);
        for t in 0..found.len() {
            count += u32::from(found.contains(t));
            before.push(count);
        }
        Holding { level, before }
    }

    /// The tasks of `tasks` (ascending, disjoint) that hold a rank of `ranks` (ascending), a
    /// level's list.
    pub(super) fn listed(level: u64, tasks: &[Task], ranks: &[u64]) -> Holding {
        let found = Bitmap::new(tasks.len() as u64);
        let mut t = 0;
        for &rank in ranks {
            while t < tasks.len() && tasks[t].ranks.end <= rank {
                t += 1;
            }
            if t < tasks.len() && tasks[t].ranks.start <= rank {
                found.insert(t as u64);
            }
        }
        Holding::new(level, &found)
    }

    /// Whether any task of `tasks` (ascending, disjoint) whose ranks meet `span` holds the
    /// level.
    pub(super) fn any_in(&self, tasks: &[Task], span: Range<u64>) -> bool {
        let first = tasks.partition_point(|t| t.ranks.end <= span.start);
        let last = tasks.partition_point(|t| t.ranks.start < span.end);
        first < last && self.before[last] > self.before[first]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_holds_the_level_where_a_task_it_meets_does() {
        let tasks: Vec<Task> = [0..10, 10..20, 30..40, 40..50]
            .into_iter()
            .map(|ranks| Task {
                ranks,
                moves: Vec::new(),
            })
            .collect();
        let found = Bitmap::new(4);
        found.insert(1);
        found.insert(3);
        let holding = Holding::new(7, &found);
        assert_eq!(holding.level, 7);
        let listed = Holding::listed(7, &tasks, &[12, 25, 45, 49, 60]);
        assert_eq!(
            listed.before, holding.before,
            "ranks in tasks 1 and 3, the gap, past the end"
        );
        assert!(!holding.any_in(&tasks, 0..10));
        assert!(holding.any_in(&tasks, 9..11));
        assert!(holding.any_in(&tasks, 19..20));
        assert!(!holding.any_in(&tasks, 20..40), "the gap and task 2");
        assert!(holding.any_in(&tasks, 20..41));
        assert!(!holding.any_in(&tasks, 50..60), "past the tasks");
    }
}
