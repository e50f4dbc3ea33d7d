//! `gpusearch verify FILE`: checks a distances file without trusting it.
//!
//! In order: the file's structure (magic, version, header, each chunk's length and SHA-256); the
//! puzzle, rebuilt from the header alone, and its rank order; the header's level counts against
//! the table's values; the invariants of a breadth-first search, state by state (every solved
//! state at 0, every other reached state with a neighbour one step closer, no reached state with
//! an unreached neighbour); and last the whole table and its level counts against a search of the
//! puzzle made afresh.
//!
//! One table is in memory at a time: the file's, read chunk by chunk, for the invariants; then,
//! once that is dropped, the fresh search's, which the file's chunks are compared with one by
//! one as they are read again.

use crate::plan::{MemoryPlan, Shape};
use crate::progress::LevelBar;
use crate::puzzle::family::one_line;
use crate::puzzle::registry::space_of;
use crate::puzzle::with_space;
use crate::puzzle::{Cursor, StateSpace, Way};
use crate::search::{self, Options, SearchError};
use crate::store::{Distances, Header};
use crate::table::{DistanceTable, ENTRIES_PER_WORD, UNREACHED};
use rayon::prelude::*;
use std::path::Path;

/// Ranks checked per task.
const RANKS_PER_TASK: u64 = 1 << 14;

/// Why a file is not verified.
pub enum Failure {
    /// The file is unsound (exit status 1).
    Unsound(String),
    /// It cannot be checked as asked: there is no such file, or not within the memory budget
    /// (exit status 2).
    Refused(String),
    /// A stop was asked for during the fresh search ([`search::stop`]; exit status 130).
    Interrupted,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Unsound(e) | Failure::Refused(e) => f.write_str(e),
            Failure::Interrupted => f.write_str("interrupted"),
        }
    }
}

/// A message about the file: it is unsound.
impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure::Unsound(message)
    }
}

/// Checks `file` within a memory budget of `memory` bytes (`None`: no limit); the summary of a
/// sound file, or where it is not.
pub fn run(file: &Path, memory: Option<u64>, quiet: bool) -> Result<String, Failure> {
    let name = file.display();
    // Messages quote the header (names, parameters): one line whatever it holds.
    let unsound = |e: String| Failure::Unsound(format!("{name}: {}", one_line(&e)));
    if !file.is_file() {
        let what = match file.is_dir() {
            true => "a folder, not a file",
            false => "no such file",
        };
        return Err(Failure::Refused(format!(
            "{name}: {what}: give the path of a distances file (a run's distances.gsd)"
        )));
    }
    let distances = Distances::open(file).map_err(unsound)?;
    let header = distances.header.clone();
    let space = space_of(&header.puzzle).map_err(|e| unsound(e.to_string()))?;
    let plan = with_space!(&space, s => {
        let shape = Shape {
            entries: s.size(),
            planes: 1,
            moves: s.move_count(),
            swept: s.capabilities().sweeps(),
            structure_bytes: s.capabilities().structure_bytes(),
            gpu: false,
            host_copy: false,
            threads: rayon::current_num_threads(),
            forced: None,
        };
        MemoryPlan::new(&shape, memory.unwrap_or(u64::MAX))
    })
    .map_err(|e| Failure::Refused(format!("{name}: verifying {e}")))?;
    with_space!(&space, s => check(s, &header, &distances, &plan, quiet)).map_err(|f| match f {
        Failure::Unsound(e) => unsound(e),
        f => f,
    })?;
    let levels = header.levels.levels();
    let reachable = match levels.is_weighed() {
        true => format!(
            "{} classes reached for {} positions",
            levels.total(),
            levels.positions().total()
        ),
        false => format!("{} reachable", levels.total()),
    };
    Ok(format!(
        "{name}: sound: {} {} {}, {} entries, {reachable}, diameter {}; every invariant holds and a fresh search gives the same table",
        header.puzzle.puzzle,
        serde_json::Value::Object(
            header
                .puzzle
                .params
                .iter()
                .filter(|(_, v)| !v.is_array())
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        ),
        header.puzzle.metric,
        header.entries,
        levels.len().saturating_sub(1)
    ))
}

fn check<S: StateSpace>(
    space: &S,
    header: &Header,
    file: &Distances,
    plan: &MemoryPlan,
    quiet: bool,
) -> Result<(), Failure> {
    let info = space.info();
    if info != header.puzzle {
        let what = if info.rank_order != header.puzzle.rank_order {
            "rank order"
        } else if info.moves != header.puzzle.moves {
            "moves"
        } else {
            "description"
        };
        return Err(format!(
            "the header's {what} is not the one this gpusearch gives the puzzle it names"
        )
        .into());
    }
    if header.entries != space.size() {
        return Err(format!(
            "the header says {} entries; the puzzle has {}",
            header.entries,
            space.size()
        )
        .into());
    }
    let starts = space.starts();
    let recorded_starts = if header.solved_ranks.is_empty() {
        vec![header.solved_rank]
    } else {
        header.solved_ranks.clone()
    };
    if recorded_starts != starts {
        return Err(format!(
            "the header's solved rank {:?} is not the puzzle's {:?}",
            recorded_starts, starts
        )
        .into());
    }
    // The level counts against the values in the table.
    let table = file.table()?;
    let levels = header.levels.levels();
    let histogram = table.histogram();
    for value in 0..3u8 {
        let recorded = levels.sum_mod3(value as u64);
        if histogram[value as usize] != recorded {
            return Err(format!(
                "the table holds {} entries with value {value}, but the header's levels add up to {recorded} at distances {value} mod 3",
                histogram[value as usize]
            ).into());
        }
    }
    if !quiet {
        eprintln!("gpusearch verify: the invariants of every entry, then a fresh search");
    }
    invariants(space, &table, &starts)?;
    drop(table);
    // Last, the whole table against a fresh search, chunk by chunk.
    let options = Options {
        footprint: plan.footprint,
        ..Options::default()
    };
    let bar = LevelBar::new(
        space.entries_to_reach(),
        crate::progress::unit(space),
        quiet,
    );
    let fresh = search::cpu::try_search(space, &options, &bar).map_err(|e| match e {
        SearchError::Interrupted => Failure::Interrupted,
        e => Failure::Unsound(e.to_string()),
    })?;
    bar.finish();
    if fresh.levels != levels {
        return Err(format!(
            "the header's levels differ from a fresh search's from distance {}",
            levels
                .iter()
                .zip(fresh.levels.iter())
                .position(|(a, b)| a != b)
                .unwrap_or(levels.len().min(fresh.levels.len()) as usize)
        )
        .into());
    }
    file.for_each_chunk(|c, bytes| {
        let first = file.first_rank(c);
        let w0 = (first / ENTRIES_PER_WORD) as usize;
        let differs = bytes.chunks(8).enumerate().find_map(|(i, b)| {
            let mut word = [0xffu8; 8];
            word[..b.len()].copy_from_slice(b);
            let mine = u64::from_le_bytes(word);
            let theirs = fresh.table.word(w0 + i);
            // Padding past the last entry is not compared (the file may not hold its bytes).
            let valid = fresh.table.valid(w0 + i) * 3;
            ((mine ^ theirs) & valid != 0).then(|| {
                let bit = ((mine ^ theirs) & valid).trailing_zeros() as u64;
                (
                    first + i as u64 * ENTRIES_PER_WORD + bit / 2,
                    mine >> (bit & !1) & 3,
                )
            })
        });
        if let Some((rank, value)) = differs {
            return Err(format!(
                "{} holds {}, a fresh search gives {}",
                at(space, rank),
                value_name(value as u8),
                value_name(fresh.table.get(rank))
            ));
        }
        Ok(())
    })?;
    Ok(())
}

/// The breadth-first invariants, state by state; the first violation (smallest rank): a reached
/// state's successors are reached, and one of its predecessors is a step closer (holds the value
/// before its own) unless it is a start. (In a directed graph a predecessor holding that value
/// may lie further on: the fresh search's comparison is what checks such a table entry by
/// entry.)
fn invariants<S: StateSpace>(
    space: &S,
    table: &DistanceTable,
    starts: &[u64],
) -> Result<(), String> {
    for &s in starts {
        if table.get(s) != 0 {
            return Err(format!(
                "the solved state {} holds {}, not 0",
                at(space, s),
                value_name(table.get(s))
            ));
        }
    }
    let (pushes, pulls) = (space.moves_for(Way::Push), space.moves_for(Way::Pull));
    let directed = space.directed();
    let tasks = space.size().div_ceil(RANKS_PER_TASK);
    let first = (0..tasks).into_par_iter().find_map_first(|task| {
        let mut cursor = space.cursor();
        let end = ((task + 1) * RANKS_PER_TASK).min(space.size());
        for r in task * RANKS_PER_TASK..end {
            let v = table.get(r);
            if v == UNREACHED {
                continue;
            }
            cursor.seek(r);
            let mut closer = starts.contains(&r);
            for m in pushes.clone() {
                let n = cursor.neighbour(m);
                let w = table.get(n);
                if w == UNREACHED {
                    return Some(format!(
                        "{} is reached ({}) but its neighbour {} is not",
                        at(space, r),
                        value_name(v),
                        at(space, n)
                    ));
                }
                // Where the moves go both ways, the successors are the predecessors.
                closer |= !directed && w == (v + 2) % 3;
            }
            if directed {
                for m in pulls.clone() {
                    closer |= table.get(cursor.neighbour(m)) == (v + 2) % 3;
                }
            }
            if !closer {
                return Some(format!(
                    "{} holds {} but no neighbour is one step closer (none holds {})",
                    at(space, r),
                    value_name(v),
                    (v + 2) % 3
                ));
            }
        }
        None
    });
    first.map_or(Ok(()), Err)
}

/// A rank and its state, for messages.
fn at<S: StateSpace>(space: &S, rank: u64) -> String {
    format!(
        "rank {rank} (state {})",
        space.format_state(&space.state(rank))
    )
}

fn value_name(v: u8) -> String {
    if v == UNREACHED {
        "unreached (3)".into()
    } else {
        format!("{v} (distance mod 3)")
    }
}
