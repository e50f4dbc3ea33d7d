//! Optimal paths read off a finished distance table.
//!
//! A reached state at distance `d` has neighbours at `d - 1`, `d` and `d + 1` only, which hold
//! three different values mod 3; so a neighbour holding `(d - 1) mod 3` is exactly one step
//! closer. Following such neighbours reaches the start in exactly `d` moves.

use super::table::{DistanceTable, UNREACHED};
use crate::puzzle::{Cursor, StateSpace};

/// An optimal move sequence (move indices) from `rank` back to a solved state, or `None` when
/// the table has not reached `rank`. Among equally short moves the lowest-numbered is taken.
pub fn path_to_solved<S: StateSpace>(
    space: &S,
    table: &DistanceTable,
    rank: u64,
) -> Option<Vec<usize>> {
    let mut value = table.get(rank);
    if value == UNREACHED {
        return None;
    }
    let moves = space.move_count();
    let starts = space.starts();
    let mut cursor = space.cursor();
    let mut rank = rank;
    let mut path = Vec::new();
    while !starts.contains(&rank) {
        let closer = (value + 2) % 3;
        cursor.seek(rank);
        let (mv, neighbour) = (0..moves)
            .map(|mv| (mv, cursor.neighbour(mv)))
            .find(|&(_, n)| table.get(n) == closer)?;
        path.push(mv);
        rank = neighbour;
        value = closer;
    }
    Some(path)
}
