//! A frontier list's expansion ([`expand`]): the one top-down pass over a list of the last
//! level's states, shared by the engines that hold such a list in host memory: the CPU engine,
//! which claims each neighbour in its table, and the slabs' engine while its first levels are
//! lists and there is no table yet, which keeps the successors in no level found yet.
//! (An MPI process's list sends the neighbours to the processes that own them, and the GPU's
//! lists live on the device: theirs are their own.)

use super::Progress;
use crate::puzzle::{Cursor, StateSpace, Way};
use rayon::prelude::*;

/// Frontier states a task expands.
pub(crate) const STATES_PER_TASK: usize = 4096;

/// The successors of the states of `list` (their neighbours by every move pushed) that `keep`
/// keeps: it is asked once for each successor, from many threads (the CPU engine's claims the
/// successor's entry). Task by task in the list's order; each task's count is said to
/// `progress`.
pub(crate) fn expand<S: StateSpace, K: Fn(u64) -> bool + Sync>(
    space: &S,
    list: &[u64],
    keep: K,
    progress: &dyn Progress,
) -> Vec<u64> {
    let moves = space.moves_for(Way::Push);
    let parts: Vec<Vec<u64>> = list
        .par_chunks(STATES_PER_TASK)
        .map_init(
            || space.cursor(),
            |cursor, chunk| {
                let mut new = Vec::new();
                for &rank in chunk {
                    cursor.seek(rank);
                    for mv in moves.clone() {
                        let neighbour = cursor.neighbour(mv);
                        if keep(neighbour) {
                            new.push(neighbour);
                        }
                    }
                }
                progress.found(new.len() as u64);
                new
            },
        )
        .collect();
    parts.concat()
}
