//! `gpusearch solve`: an optimal solution of one position, read from its puzzle's distances file
//! (searched first when missing).

use crate::job::{self, Error, Job};
use crate::puzzle::family::one_line;
use crate::puzzle::path::{Entries, path_from};
use crate::puzzle::registry;
use crate::puzzle::with_space;
use crate::puzzle::{Cursor, Space, StateSpace, Way};
use crate::setting::Setting;
use crate::store::{ChunkCache, Distances};
use crate::table::UNREACHED;
use std::fmt::Write;

/// The chunks of a distances file (4 MiB each decompressed) that a walk in a directed graph
/// keeps: 4 GiB at most, only those it reads (LX 13's whole table is 371).
const DIRECTED_CHUNKS: usize = 1024;

/// What to solve.
pub struct Solve {
    /// The puzzle, and where its distances file is (`--out`) and how to search it if missing.
    pub job: Job,
    /// The position.
    pub position: Position,
    /// Print only the moves, on one line.
    pub moves_only: bool,
}

/// A position to solve, as given on the command line.
pub enum Position {
    /// As the puzzle writes states (`--state`).
    State(String),
    /// As the moves that make it from solved, by name, separated by spaces (`--moves`).
    Moves(String),
}

/// An optimal solution.
pub struct Solution {
    /// The moves, by name.
    pub moves: Vec<String>,
    /// The text to print: the listing, or the moves alone.
    pub text: String,
    /// True when the distances file was searched first.
    pub searched: bool,
}

/// Solves the position.
pub fn run(solve: &Solve) -> Result<Solution, Error> {
    let space = registry::space(&solve.job.puzzle).map_err(Error::Puzzle)?;
    match &space {
        // A table reduced by symmetry: the walk goes through the positions themselves, each
        // read at the entry of its class.
        Space::Reduced(reduced) => solve_in(reduced.base(), reduced, solve, &|r| {
            reduced.entry_of_rank(r)
        }),
        _ => with_space!(&space, s => solve_in(s, s, solve, &|r| r)),
    }
}

/// Solves on `walk`'s positions, whose ranks `entry_of` turns into entries of `space`'s table.
fn solve_in<W: StateSpace + ?Sized, S: StateSpace>(
    walk: &W,
    space: &S,
    solve: &Solve,
    entry_of: &dyn Fn(u64) -> u64,
) -> Result<Solution, Error> {
    let rank = match &solve.position {
        Position::State(text) => {
            let state = walk.parse_state(text).map_err(Error::Input)?;
            walk.rank(&state)
                .map_err(|e| Error::Input(format!("{}: {e}", Setting::State)))?
        }
        Position::Moves(text) => {
            let (rank, idle) = made_by(walk, text).map_err(Error::Input)?;
            if !idle.is_empty() {
                // Not refused: a move may leave a position of identical pieces as it was.
                eprintln!(
                    "gpusearch: note: {}: {} left the position as it was (a move that does not apply there, such as a slide off the board, does nothing)",
                    Setting::Moves,
                    idle.join(", ")
                );
            }
            rank
        }
    };
    let file = job::output_folder(space, &solve.job).join("distances.gsd");
    let mut searched = false;
    if !file.exists() {
        eprintln!(
            "gpusearch: no distances file at {}: searching {} first",
            file.display(),
            space.slug()
        );
        job::run(&solve.job)?;
        searched = true;
    }
    // A damaged file, whether found on opening it or in a chunk the path reads: exit status 1.
    let cannot = |e: String| {
        Error::Run(format!(
            "cannot use {}: {}; delete it to search again",
            file.display(),
            one_line(&e)
        ))
    };
    // Only the chunks the path passes through are read.
    let distances = Distances::open(&file).map_err(cannot)?;
    // A directed graph's walk reads many states of each step, all over the table: it keeps
    // every chunk it reads, up to DIRECTED_CHUNKS.
    let entries = match walk.directed() {
        true => ChunkCache::keeping(distances, DIRECTED_CHUNKS),
        false => ChunkCache::new(distances),
    };
    let header = entries.header();
    if !header.puzzle.same_table(&space.info()) {
        // The header's names, quoted on one line whatever they hold.
        return Err(Error::Input(format!(
            "{} holds the distances of another puzzle ({}; asked for: {}): choose its folder with {}, or that puzzle's options",
            file.display(),
            one_line(&header.puzzle.describe()),
            space.info().describe(),
            Setting::Out
        )));
    }
    let mut entries = Through { entries, entry_of };
    let path = solution(walk, &mut entries, rank).map_err(|e| match e {
        Error::Run(e) => cannot(e),
        e => e,
    })?;
    // In a directed graph the walk undid moves from the position back to the start: the
    // solution is those moves from the start, in the other order.
    let (from, path) = match walk.directed() {
        false => (rank, path),
        true => {
            let (push, pull) = (walk.moves_for(Way::Push), walk.moves_for(Way::Pull));
            let undone = path.iter().rev().map(|&m| m - pull.start + push.start);
            (walk.solved(), undone.collect())
        }
    };
    let names = walk.move_names();
    let moves: Vec<String> = path.iter().map(|&m| names[m].clone()).collect();
    let text = if solve.moves_only {
        format!("{}\n", moves.join(" "))
    } else {
        listing(walk, from, &path)
    };
    Ok(Solution {
        moves,
        text,
        searched,
    })
}

/// A distances file's entries read at the entry each rank stands for.
struct Through<'a> {
    entries: ChunkCache,
    entry_of: &'a dyn Fn(u64) -> u64,
}

impl Entries for Through<'_> {
    fn entry(&mut self, rank: u64) -> Result<u8, String> {
        self.entries.entry((self.entry_of)(rank))
    }
}

/// The rank of the position that the moves `text` (names separated by spaces) make from solved,
/// and the moves that left the position as it was (`'F' (move 3)`). In a directed graph only
/// its generators are moves.
fn made_by<S: StateSpace + ?Sized>(space: &S, text: &str) -> Result<(u64, Vec<String>), String> {
    let names = space.move_names()[space.moves_for(Way::Push)].to_vec();
    let mut cursor = space.cursor();
    let mut rank = space.solved();
    let mut idle = Vec::new();
    for (step, word) in text.split_whitespace().enumerate() {
        let Some(mv) = names.iter().position(|n| n == word) else {
            return Err(format!(
                "{}: this puzzle has no move '{word}': its moves are {}",
                Setting::Moves,
                names.join(" ")
            ));
        };
        cursor.seek(rank);
        let next = cursor.neighbour(mv);
        if next == rank {
            idle.push(format!("'{word}' (move {})", step + 1));
        }
        rank = next;
    }
    Ok((rank, idle))
}

/// The moves from `rank` to solved, or why there are none.
fn solution<S: StateSpace + ?Sized>(
    space: &S,
    entries: &mut impl Entries,
    rank: u64,
) -> Result<Vec<usize>, Error> {
    if entries.entry(rank).map_err(Error::Run)? == UNREACHED {
        return Err(Error::Input(format!(
            "{}: the position cannot be reached from solved (no sequence of moves leads there)",
            Setting::State
        )));
    }
    path_from(space, entries, rank).map_err(Error::Run)?.ok_or_else(|| {
        Error::Run("the distances file is inconsistent: a step towards solved is missing; run gpusearch verify on it".into())
    })
}

/// The listing the seeds print: the state before any move, then `step-move: state` after each
/// (in a directed graph, from the start to the position).
fn listing<S: StateSpace + ?Sized>(space: &S, rank: u64, path: &[usize]) -> String {
    let names = space.move_names();
    let mut cursor = space.cursor();
    let mut at = rank;
    let mut out = format!("0: {}\n", space.format_state(&space.state(at)));
    for (i, &mv) in path.iter().enumerate() {
        cursor.seek(at);
        at = cursor.neighbour(mv);
        let _ = writeln!(
            out,
            "{}-{}: {}",
            i + 1,
            names[mv],
            space.format_state(&space.state(at))
        );
    }
    let _ = writeln!(
        out,
        "{} move{}, optimal in the {} metric{}",
        path.len(),
        if path.len() == 1 { "" } else { "s" },
        space.info().metric,
        match space.directed() {
            true => " (the moves go one way: from the start to the position)",
            false => "",
        }
    );
    out
}
