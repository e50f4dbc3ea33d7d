//! Optimal paths read off a finished distance table.
//!
//! A reached state at distance `d` has neighbours at `d - 1`, `d` and `d + 1` only, which hold
//! three different values mod 3; so a neighbour holding `(d - 1) mod 3` is exactly one step
//! closer. Following such neighbours reaches the start in exactly `d` moves.
//!
//! In a directed graph ([`StateSpace::directed`]) the walk goes from a state to its
//! predecessors, and a predecessor may lie any number of steps further from the start (its move
//! undone takes many moves): one holding `(d - 1) mod 3` may be at `d + 2`. The walk then keeps
//! every such predecessor, breadth-first, until one reaches the start: every walk that steps
//! down a value mod 3 at each move has a length of `d` mod 3 and at least `d`, and the optimal
//! paths are such walks, so the first that arrives is optimal.

use crate::puzzle::{Cursor, StateSpace, Way};
use crate::table::{DistanceTable, UNREACHED};
use std::collections::HashSet;

/// The most states a directed walk keeps at one step (each holding the value one step closer
/// to the start), beyond which it gives up.
const MOST_WALKED: usize = 1 << 24;

/// Where a path reads the entries of a table from: the table itself, or a distances file chunk
/// by chunk.
pub trait Entries {
    /// The entry of `rank`: its distance mod 3, or [`UNREACHED`]; an error when it cannot be
    /// read.
    fn entry(&mut self, rank: u64) -> Result<u8, String>;
}

impl Entries for &DistanceTable {
    fn entry(&mut self, rank: u64) -> Result<u8, String> {
        Ok(self.get(rank))
    }
}

/// An optimal move sequence (move indices) from `rank` back to a solved state, or `None` when
/// the table has not reached `rank`. Among equally short moves the lowest-numbered is taken. In
/// a directed graph the moves are pulls (each undoes a move): the moves from the start to
/// `rank` are their inverses in the other order ([`StateSpace::moves_for`]).
pub fn path_to_solved<S: StateSpace>(
    space: &S,
    table: &DistanceTable,
    rank: u64,
) -> Option<Vec<usize>> {
    path_from(space, &mut &*table, rank).ok().flatten()
}

/// [`path_to_solved`] reading entries from `entries`; `Ok(None)` when `rank` is not reached or
/// no step towards solved is found.
pub fn path_from<S: StateSpace + ?Sized>(
    space: &S,
    entries: &mut impl Entries,
    rank: u64,
) -> Result<Option<Vec<usize>>, String> {
    let mut value = entries.entry(rank)?;
    if value == UNREACHED {
        return Ok(None);
    }
    if space.directed() {
        return directed_path(space, entries, rank, value);
    }
    let moves = space.move_count();
    let starts = space.starts();
    let mut cursor = space.cursor();
    let mut rank = rank;
    let mut path = Vec::new();
    while !starts.contains(&rank) {
        let closer = (value + 2) % 3;
        cursor.seek(rank);
        let mut step = None;
        for mv in 0..moves {
            let n = cursor.neighbour(mv);
            if entries.entry(n)? == closer {
                step = Some((mv, n));
                break;
            }
        }
        let Some((mv, neighbour)) = step else {
            return Ok(None);
        };
        path.push(mv);
        rank = neighbour;
        value = closer;
    }
    Ok(Some(path))
}

/// [`path_from`] in a directed graph, from `rank` holding `value`: breadth-first through the
/// predecessors that hold the value one step closer, until one is a start.
fn directed_path<S: StateSpace + ?Sized>(
    space: &S,
    entries: &mut impl Entries,
    rank: u64,
    mut value: u8,
) -> Result<Option<Vec<usize>>, String> {
    let (pulls, starts) = (space.moves_for(Way::Pull), space.starts());
    let mut cursor = space.cursor();
    // Each step's states, each with the index of the state it came from and the move.
    let mut steps: Vec<Vec<(u64, usize, usize)>> = vec![vec![(rank, 0, 0)]];
    let mut seen = HashSet::from([rank]);
    loop {
        let last = steps.last().expect("the walk starts with one step");
        if let Some(mut i) = last.iter().position(|(r, _, _)| starts.contains(r)) {
            let mut path = Vec::with_capacity(steps.len() - 1);
            for step in steps[1..].iter().rev() {
                let (_, from, mv) = step[i];
                path.push(mv);
                i = from;
            }
            path.reverse();
            return Ok(Some(path));
        }
        let closer = (value + 2) % 3;
        let mut next = Vec::new();
        for (i, &(at, _, _)) in last.iter().enumerate() {
            cursor.seek(at);
            for mv in pulls.clone() {
                let n = cursor.neighbour(mv);
                if !seen.contains(&n) {
                    next.push((n, i, mv));
                }
            }
        }
        // Read in the order of the ranks, a file's chunk after chunk; the first way to each
        // state (from the least state of the last step, then by the least move) is kept.
        next.sort_unstable();
        next.dedup_by_key(|(n, _, _)| *n);
        let mut kept = Vec::with_capacity(next.len());
        for step in next {
            if entries.entry(step.0)? == closer {
                seen.insert(step.0);
                kept.push(step);
            }
        }
        let next = kept;
        if next.is_empty() {
            return Ok(None);
        }
        if next.len() > MOST_WALKED {
            return Err(format!(
                "the walk to the start through the predecessors keeps more than {MOST_WALKED} states at step {}: this position's path is too costly to find from a table of distances mod 3",
                steps.len()
            ));
        }
        steps.push(next);
        value = closer;
    }
}
