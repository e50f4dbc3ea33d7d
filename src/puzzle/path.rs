//! Optimal paths read off a finished distance table.
//!
//! A reached state at distance `d` has neighbours at `d - 1`, `d` and `d + 1` only, which hold
//! three different values mod 3; so a neighbour holding `(d - 1) mod 3` is exactly one step
//! closer. Following such neighbours reaches the start in exactly `d` moves.

use crate::puzzle::{Cursor, StateSpace};
use crate::table::{DistanceTable, UNREACHED};

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
/// the table has not reached `rank`. Among equally short moves the lowest-numbered is taken.
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
