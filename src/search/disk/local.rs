//! A slab's moves, split for its passes: the block moves whose every block lies in one slab,
//! renumbered in each slab's entries and swept as the in-memory engine sweeps them
//! ([`crate::search::sweep`]), and the others, pushed from the last level state by state, to the
//! slab itself or to other slabs' inboxes.
//!
//! A swept move pulls along its edges one way only (into its range, from the range it takes);
//! a move is swept only where a move of its inverse is swept too, so that every edge within a
//! slab is pulled both ways, and a pushed move pushes its edges only one way, so a move is
//! pushed only where its inverse is pushed too.

use crate::puzzle::{BlockMove, StateSpace, Way};
use crate::rank::window::WindowMove;
use crate::search::slab::Slab;
use crate::search::slab::moves::{self, SlabMoves};
use crate::table::ENTRIES_PER_WORD;
use std::ops::Range;

/// The columns a table may be cut at into slabs, the cut keeping most moves in one slab first:
/// for each block of the space's block moves, the least whole number of table words it divides,
/// where that divides a plane and every smaller block divides it too, largest first; then a
/// table word.
pub fn slab_units<S: StateSpace>(space: &S) -> Vec<u64> {
    let width = space.size() / space.capabilities().slab_planes();
    let mut blocks: Vec<u64> = (space.capabilities().structure().into_iter())
        .flat_map(|s| s.blocks)
        .filter(|b| b.window.block != b.window.run && b.window.block < width)
        .map(|b| b.window.block)
        .collect();
    blocks.sort_unstable();
    blocks.dedup();
    let mut units: Vec<u64> = (blocks.iter())
        .map(|&b| b / gcd(b, ENTRIES_PER_WORD) * ENTRIES_PER_WORD)
        .filter(|&u| u < width && width.is_multiple_of(u))
        .filter(|&u| blocks.iter().all(|&c| c > u || u.is_multiple_of(c)))
        .chain([ENTRIES_PER_WORD])
        .collect();
    units.sort_unstable_by(|a, b| b.cmp(a));
    units.dedup();
    units
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// A space's moves split for its slabs.
pub struct Split {
    /// Each slab's swept moves, in the slab's entries.
    pub swept: Vec<Vec<BlockMove>>,
    /// The moves pushed state by state, in the space's ranks.
    pub pushed: SlabMoves,
    /// Each slab's entries where pushed moves apply, ascending.
    pub pushed_at: Vec<Vec<Range<u64>>>,
}

/// The moves of `space` split for `slabs` (its slabs, in order).
pub fn split<S: StateSpace>(space: &S, slabs: &[Slab]) -> Split {
    let size = space.size();
    let (blocks, residual) = moves::parts(space, Way::Push);
    let mut parts: Vec<Option<Vec<Vec<BlockMove>>>> =
        blocks.iter().map(|b| localize(b, slabs)).collect();
    // A move stays swept only while a move of its inverse does.
    loop {
        let demote = (0..blocks.len()).find(|&i| {
            parts[i].is_some()
                && !(0..blocks.len())
                    .any(|j| parts[j].is_some() && inverses(&blocks[i], &blocks[j]))
        });
        match demote {
            Some(i) => parts[i] = None,
            None => break,
        }
    }
    let swept = (0..slabs.len())
        .map(|s| {
            (parts.iter().flatten())
                .flat_map(|p| p[s].iter().cloned())
                .collect()
        })
        .collect();
    let pushed_blocks = (blocks.iter().zip(&parts))
        .filter(|(_, p)| p.is_none())
        .map(|(b, _)| b.clone())
        .collect();
    let pushed = SlabMoves::of(pushed_blocks, residual, size, &slabs[0]);
    let ranges = pushed.ranges();
    let pushed_at = (slabs.iter())
        .map(|slab| {
            let mut local = Vec::new();
            for p in 0..slab.planes {
                let plane = p * slab.width + slab.first..p * slab.width + slab.end;
                for r in &ranges {
                    let (lo, hi) = (r.start.max(plane.start), r.end.min(plane.end));
                    if lo < hi {
                        local.push(slab.local(lo)..slab.local(hi - 1) + 1);
                    }
                }
            }
            local
        })
        .collect();
    Split {
        swept,
        pushed,
        pushed_at,
    }
}

/// Whether `b` undoes `a`: the same ranges the other way, the inverse window.
fn inverses(a: &BlockMove, b: &BlockMove) -> bool {
    a.from == b.to
        && a.to == b.from
        && a.len == b.len
        && a.first_block == b.first_block
        && b.window == a.window.inverse()
}

/// Move `mv` cut into each slab's parts, in the slab's entries; `None` unless every block of it
/// and the block it takes lie in one slab and in one plane of it. A move of one run a block
/// (a plain shift) is cut anywhere.
fn localize(mv: &BlockMove, slabs: &[Slab]) -> Option<Vec<Vec<BlockMove>>> {
    let w = &mv.window;
    let shift = w.block == w.run;
    (slabs.iter())
        .map(|slab| {
            let mut parts = Vec::new();
            for p in 0..slab.planes {
                let lo = (p * slab.width + slab.first).max(mv.from);
                let hi = (p * slab.width + slab.end).min(mv.from + mv.len);
                if lo >= hi {
                    continue;
                }
                let (i0, i1) = (lo - mv.from, hi - mv.from);
                let whole_blocks = i0.is_multiple_of(w.block) && i1.is_multiple_of(w.block);
                if !(shift || whole_blocks) {
                    return None;
                }
                let (s0, s1) = (mv.to + i0, mv.to + i1 - 1);
                let one_plane = s0 / slab.width == s1 / slab.width;
                if !(one_plane && slab.contains(s0) && slab.contains(s1)) {
                    return None;
                }
                parts.push(BlockMove {
                    from: slab.local(lo),
                    to: slab.local(s0),
                    len: i1 - i0,
                    window: match shift {
                        true => WindowMove::identity(i1 - i0),
                        false => w.clone(),
                    },
                    first_block: match shift {
                        true => 0,
                        false => mv.first_block + i0 / w.block,
                    },
                });
            }
            Some(parts)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::{Cursor, Metric, Ring};
    use std::ops::ControlFlow;

    /// The split's parts are the space's moves, every swept one within a slab, and a state of
    /// a level reaches each of its neighbours: pushed, or pulled by the neighbour. Returns the
    /// number of edges swept.
    fn check<S: StateSpace>(what: &str, space: &S, count: usize, unit: u64) -> usize {
        let (size, planes) = (space.size(), space.capabilities().slab_planes());
        let slabs: Vec<Slab> = (0..count)
            .map(|i| Slab::cut(size, planes, i, count, unit))
            .collect();
        let split = split(space, &slabs);
        let owner = |r: u64| slabs.iter().position(|s| s.contains(r)).unwrap();
        // Edges (state, neighbour) as the moves take them.
        let mut swept = Vec::new();
        for (s, slab) in slabs.iter().enumerate() {
            for mv in &split.swept[s] {
                // The window numbers blocks from the whole move's first.
                let skipped = mv.first_block * mv.window.block;
                for i in 0..mv.len {
                    let rank = slab.global(mv.from + i);
                    let n = slab.global(mv.to + mv.window.apply(skipped + i) - skipped);
                    assert_eq!(owner(n), s, "{what}: {rank} -> {n} swept across slabs");
                    swept.push((rank, n));
                }
            }
        }
        let mut pushed = Vec::new();
        let mut walker = split.pushed.walker(space.cursor());
        for (s, slab) in slabs.iter().enumerate() {
            for r in &split.pushed_at[s] {
                for local in r.clone() {
                    let rank = slab.global(local);
                    let _ = walker.each(rank, true, |n| {
                        pushed.push((rank, n));
                        ControlFlow::Continue(())
                    });
                }
            }
        }
        let mut cursor = space.cursor();
        let mut all = Vec::new();
        for rank in 0..size {
            cursor.seek(rank);
            for m in 0..space.move_count() {
                all.push((rank, cursor.neighbour(m)));
            }
        }
        let mut found = swept.clone();
        found.extend(&pushed);
        found.sort_unstable();
        all.sort_unstable();
        let differ = found.iter().zip(&all).position(|(a, b)| a != b);
        assert_eq!(
            (found.len(), differ),
            (all.len(), None),
            "{what}: the split's edges are the space's"
        );
        let swept_set: std::collections::HashSet<_> = swept.iter().copied().collect();
        let pushed_set: std::collections::HashSet<_> = pushed.iter().copied().collect();
        for &(a, b) in &all {
            // A sweep pulls into the state of its edge from the neighbour.
            assert!(
                pushed_set.contains(&(a, b)) || swept_set.contains(&(b, a)),
                "{what}: {a} does not reach {b}"
            );
        }
        swept.len()
    }

    #[test]
    fn a_split_sweeps_or_pushes_every_edge_both_ways() {
        let turnstyle = Ring::turnstyle(9, Metric::Lrf).unwrap();
        let units = slab_units(&turnstyle);
        // 8!/2 arrangements: blocks of 7!/2, 6!/2, ..., each made whole words.
        assert_eq!(units, vec![10080, 1440, 32]);
        // Cut at 7!/2: only the window on the first tail digit and the rotations leave their slab.
        let swept = check("turnstyle 9 by 7!/2", &turnstyle, 2, 10080);
        assert_eq!(swept, 9 * 20160 * 2 + 4 * 20160, "{swept}");
        check("turnstyle 9 by words", &turnstyle, 3, 32);
        check("turnstyle 9 whole", &turnstyle, 1, 32);
        let flips = Ring::turnstyle(9, Metric::Flips).unwrap();
        let units = slab_units(&flips);
        check("turnstyle 9 flips", &flips, 5, units[0]);
        let topspin = Ring::topspin(9, 4, Metric::Lrf).unwrap();
        check("topspin 9", &topspin, 3, slab_units(&topspin)[0]);
    }
}
