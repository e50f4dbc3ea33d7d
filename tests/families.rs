//! Every puzzle family against a plain queue-based BFS written here from the seeds' own
//! descriptions of the moves, and against the values the seeds publish.

mod common;
use common::{Events, Naive, directed_gens, naive_bfs, perm_from_gens, scratch};
use gpusearch::puzzle::Space;
use gpusearch::puzzle::family::Request;
use gpusearch::puzzle::hanoi::Hanoi;
use gpusearch::puzzle::pancake::Pancake;
use gpusearch::puzzle::path::path_to_solved;
use gpusearch::puzzle::perm::{Identity, Inverses, parse};
use gpusearch::puzzle::registry;
use gpusearch::puzzle::rotation;
use gpusearch::puzzle::sliding::Sliding;
use gpusearch::puzzle::{Cursor, Key, Metric, Perm, Ring, Rings, StateSpace, Way};
use gpusearch::search::cpu::search;
use gpusearch::search::{Footprint, Options, Outcome, PassPolicy, Silent, Step};
use gpusearch::table::{DistanceTable, Holding, UNREACHED};
use std::collections::BTreeSet;
use std::hash::Hash;

fn run<S: StateSpace>(space: &S, strategy: PassPolicy, footprint: Footprint) -> Outcome {
    let options = Options {
        antipode_limit: usize::MAX,
        policy: strategy,
        footprint,
    };
    search(space, &options, &Silent)
}

/// The engine's search of `space` under every strategy equals the naive BFS: levels, the
/// antipodes, and every table entry (the state of each rank through `key`).
fn check<S: StateSpace, T: Clone + Eq + Hash + Ord + std::fmt::Debug>(
    what: &str,
    space: &S,
    naive: &Naive<T>,
    key: impl Fn(Vec<u32>) -> T,
) {
    let diameter = naive.levels.len() as u64 - 1;
    let far: BTreeSet<T> = naive
        .distance
        .iter()
        .filter(|&(_, &d)| d == diameter)
        .map(|(s, _)| s.clone())
        .collect();
    let strategies = [
        PassPolicy::Auto,
        PassPolicy::Lists,
        PassPolicy::TopDown,
        PassPolicy::BottomUp,
        PassPolicy::Sweep,
    ];
    let footprints = [Footprint::Full, Footprint::Lean];
    for (strategy, footprint) in strategies
        .into_iter()
        .flat_map(|s| footprints.map(|f| (s, f)))
    {
        let outcome = run(space, strategy, footprint);
        let w = format!("{what} {strategy:?} {footprint:?}");
        assert_eq!(
            outcome.levels.iter().collect::<Vec<_>>(),
            naive.levels,
            "{w}"
        );
        let antipodes: BTreeSet<T> = outcome
            .antipodes
            .iter()
            .map(|&r| key(space.state(r)))
            .collect();
        assert_eq!(antipodes, far, "{w}: antipodes");
        for r in 0..space.size() {
            let want = naive
                .distance
                .get(&key(space.state(r)))
                .map_or(UNREACHED, |&d| (d % 3) as u8);
            assert_eq!(outcome.table.get(r), want, "{w}: rank {r}");
        }
    }
}

/// Every rank's state ranks back to it, and the cursor's neighbours are the naive moves'.
fn check_ranks<S: StateSpace>(what: &str, space: &S, moves: impl Fn(&[u32]) -> Vec<Vec<u32>>) {
    let mut cursor = space.cursor();
    for r in 0..space.size() {
        let state = space.state(r);
        if space.rank(&state) != Ok(r) {
            // Unreachable ranks (none in these spaces but the key's walls) have no moves to check.
            continue;
        }
        cursor.seek(r);
        let mut got: Vec<u64> = (0..space.move_count())
            .map(|m| cursor.neighbour(m))
            .collect();
        let mut want: Vec<u64> = moves(&state)
            .iter()
            .map(|t| space.rank(t).unwrap())
            .collect();
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want, "{what}: rank {r} {state:?}");
    }
}

// TopSpin: n pieces on a ring; L shifts every piece one place left, R right, F reverses the k
// pieces at positions 0..k.

fn topspin_moves(s: &[u32], k: usize) -> Vec<Vec<u32>> {
    let n = s.len();
    let l = (0..n).map(|i| s[(i + 1) % n]).collect();
    let r = (0..n).map(|i| s[(i + n - 1) % n]).collect();
    let mut f = s.to_vec();
    f[..k].reverse();
    vec![l, r, f]
}

#[test]
fn topspin_matches_naive_bfs() {
    for n in 3..=8 {
        for k in 2..=n.min(5) {
            let space = Ring::topspin(n, k, Metric::Lrf).unwrap();
            let naive = naive_bfs(vec![(1..=n as u32).collect::<Vec<u32>>()], |s| {
                topspin_moves(s, k)
            });
            let what = format!("topspin n={n} k={k}");
            check(&what, &space, &naive, |s| s);
            check_ranks(&what, &space, |s| topspin_moves(s, k));
        }
    }
}

#[test]
fn topspin_defaults_and_published_reach() {
    // With k = 4 the moves generate all of S_n for even n and A_n for odd n (n >= 6).
    for n in 6..=9 {
        let space = Ring::topspin(n, 4, Metric::Lrf).unwrap();
        let outcome = run(&space, PassPolicy::Auto, Footprint::Full);
        let all: u64 = (1..=n as u64).product();
        assert_eq!(outcome.reachable(), if n % 2 == 0 { all } else { all / 2 });
    }
    assert!(Ring::topspin(5, 6, Metric::Lrf).is_err());
    assert!(Ring::topspin(5, 1, Metric::Lrf).is_err());
}

// The number rotation puzzle: an R x C board of numbered squares; each K x K block turns a
// quarter turn either way.

fn rotation_moves(s: &[u32], rows: usize, cols: usize, k: usize) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    for r in 0..=rows - k {
        for c in 0..=cols - k {
            // Clockwise: what sits at block square (i, j) moves to (j, k - 1 - i).
            let mut cw = s.to_vec();
            let mut ccw = s.to_vec();
            for i in 0..k {
                for j in 0..k {
                    let from = (r + i) * cols + c + j;
                    cw[(r + j) * cols + c + k - 1 - i] = s[from];
                    ccw[(r + k - 1 - j) * cols + c + i] = s[from];
                }
            }
            out.push(cw);
            out.push(ccw);
        }
    }
    out
}

#[test]
fn rotation_boards_match_naive_bfs() {
    for (rows, cols, k) in [
        (2, 2, 2),
        (2, 3, 2),
        (3, 2, 2),
        (2, 4, 2),
        (3, 4, 3),
        (3, 3, 3),
    ] {
        let space = rotation::board(rows, cols, k).unwrap();
        let solved: Vec<u32> = (1..=(rows * cols) as u32).collect();
        let naive = naive_bfs(vec![solved], |s| rotation_moves(s, rows, cols, k));
        let what = format!("rotation {rows}x{cols} k={k}");
        check(&what, &space, &naive, |s| s);
        check_ranks(&what, &space, |s| rotation_moves(s, rows, cols, k));
        assert_eq!(space.group_order(), naive.distance.len() as u64, "{what}");
    }
}

#[test]
fn rotation_boards_give_the_published_values() {
    // number-rotation-puzzle.txt: the 3x3 board with 2x2 blocks reaches all 9! positions, at
    // these distances; 2x3 with 2x2 blocks reaches 120 of 720; 3x4 with 3x3 blocks 720.
    let space = rotation::board(3, 3, 2).unwrap();
    let outcome = run(&space, PassPolicy::Auto, Footprint::Full);
    assert_eq!(
        outcome.levels.iter().collect::<Vec<_>>(),
        [
            1, 8, 52, 328, 1996, 11336, 51582, 130042, 125929, 39706, 1880, 20
        ]
    );
    for (rows, cols, k, reach) in [(2, 3, 2, 120), (3, 4, 3, 720)] {
        let space = rotation::board(rows, cols, k).unwrap();
        assert_eq!(space.group_order(), reach);
        assert_eq!(
            space.size(),
            reach,
            "a table of the group's size, not of n!"
        );
        assert_eq!(
            run(&space, PassPolicy::Auto, Footprint::Full).reachable(),
            reach
        );
    }
}

// The Chinese rings (chinese-rings-patience.txt): ring k is bit k - 1, 0 = on. Ring 1 can always
// move; ring 2 when ring 1 is on; ring k > 2 when ring k - 1 is on and rings 1..k-2 are off.

fn rings_moves(state: u64, n: usize) -> Vec<u64> {
    let bit = |s: u64, k: usize| (s >> (k - 1)) & 1;
    (1..=n)
        .filter(|&k| match k {
            1 => true,
            2 => bit(state, 1) == 0,
            _ => bit(state, k - 1) == 0 && (1..k - 1).all(|j| bit(state, j) == 1),
        })
        .map(|k| state ^ (1 << (k - 1)))
        .collect()
}

#[test]
fn rings_match_naive_bfs() {
    for n in 1..=10 {
        let space = Rings::new(n).unwrap();
        let goal = (1u64 << n) - 1;
        let naive = naive_bfs(vec![goal], |&s| rings_moves(s, n));
        let number = |bits: Vec<u32>| bits.iter().rev().fold(0u64, |a, &b| a << 1 | b as u64);
        let what = format!("rings n={n}");
        check(&what, &space, &naive, number);
        check_ranks(&what, &space, |s| {
            rings_moves(number(s.to_vec()), n)
                .iter()
                .map(|&t| space.state(t))
                .chain(std::iter::repeat_n(s.to_vec(), 2))
                .take(2)
                .collect()
        });
    }
}

#[test]
fn rings_give_the_published_values() {
    // N = 6: the all-on start is 42 moves from the all-off goal, the diameter is 63 and the
    // only antipode is 31 (ring 6 on, the others off).
    let space = Rings::new(6).unwrap();
    let outcome = run(&space, PassPolicy::Auto, Footprint::Full);
    assert_eq!(outcome.diameter(), 63);
    assert_eq!(outcome.antipodes, [31]);
    assert_eq!(path_to_solved(&space, &outcome.table, 0).unwrap().len(), 42);
    // In general: the start is ceil(2 (2^N - 1) / 3) moves away, the diameter 2^N - 1.
    for n in 1..=20 {
        let space = Rings::new(n).unwrap();
        let outcome = run(&space, PassPolicy::Auto, Footprint::Full);
        let all = (1u64 << n) - 1;
        assert_eq!(outcome.diameter(), all, "n={n}");
        assert_eq!(outcome.levels.runs().len(), 1, "one state per level");
        let to_start = path_to_solved(&space, &outcome.table, 0).unwrap().len() as u64;
        assert_eq!(to_start, (2 * all).div_ceil(3), "n={n}");
    }
}

// The Towers of Hanoi: a state lists each disc's peg (1-based), the smallest disc first; a
// move takes the top disc of a peg (its smallest) onto an empty peg or a larger top disc.

fn hanoi_moves(s: &[u32], pegs: u32) -> Vec<Vec<u32>> {
    let top = |p: u32| s.iter().position(|&q| q == p);
    let mut out = Vec::new();
    for from in 1..=pegs {
        let Some(disc) = top(from) else { continue };
        for to in (1..=pegs).filter(|&to| to != from) {
            if top(to).is_none_or(|t| t > disc) {
                let mut next = s.to_vec();
                next[disc] = to;
                out.push(next);
            }
        }
    }
    out
}

#[test]
fn hanoi_matches_naive_bfs() {
    for (pegs, discs) in [
        (3, 1),
        (3, 2),
        (3, 5),
        (3, 7),
        (4, 1),
        (4, 3),
        (4, 5),
        (4, 7),
        (4, 9),
        (5, 4),
        (6, 3),
        (8, 5),
    ] {
        let space = Hanoi::new(pegs as usize, discs).unwrap();
        let naive = naive_bfs(vec![vec![1u32; discs]], |s: &Vec<u32>| hanoi_moves(s, pegs));
        let what = format!("hanoi {pegs} pegs {discs} discs");
        check(&what, &space, &naive, |s| s);
        if space.capabilities().pages.is_some() {
            check_pages(&what, &space);
        }
        // A pair of pegs moves the one disc that may go between them, or none where both
        // are empty (the state stays).
        check_ranks(&what, &space, |s| {
            let mut moves = hanoi_moves(s, pegs);
            let empty = (1..=pegs).filter(|p| !s.contains(p)).count();
            moves.extend(std::iter::repeat_n(
                s.to_vec(),
                empty * empty.saturating_sub(1) / 2,
            ));
            moves
        });
    }
}

#[test]
fn hanoi_gives_the_published_values() {
    // Three pegs: the diameter from a perfect state is 2^N - 1, the moves to bring every disc
    // onto another peg (Lucas).
    for discs in 1..=12 {
        let space = Hanoi::new(3, discs).unwrap();
        let outcome = run(&space, PassPolicy::Auto, Footprint::Lean);
        assert_eq!(outcome.diameter(), (1 << discs) - 1, "{discs} discs");
        let goal = space.rank(&vec![3; discs]).unwrap();
        let moves = path_to_solved(&space, &outcome.table, goal).unwrap().len() as u64;
        assert_eq!(moves, (1 << discs) - 1);
    }
    // Four pegs: every disc onto the last peg takes the Frame-Stewart number of moves (OEIS
    // A007664, proved optimal by Bousch, 2014).
    let frame_stewart = [1, 3, 5, 9, 13, 17, 25, 33, 41, 49];
    for (d, &want) in frame_stewart.iter().enumerate() {
        let discs = d + 1;
        let space = Hanoi::new(4, discs).unwrap();
        let outcome = run(&space, PassPolicy::Auto, Footprint::Lean);
        let goal = space.rank(&vec![4; discs]).unwrap();
        let moves = path_to_solved(&space, &outcome.table, goal).unwrap().len();
        assert_eq!(moves, want, "{discs} discs");
    }
}

// Sliding-tile puzzles: a state lists each cell's tile in reading order, 0 the blank; a move
// slides a tile next to the blank into it.

fn sliding_moves(s: &[u32], rows: usize, cols: usize) -> Vec<Vec<u32>> {
    let blank = s.iter().position(|&t| t == 0).unwrap();
    let (r, c) = (blank / cols, blank % cols);
    let mut next = Vec::new();
    for (dr, dc) in [(-1i64, 0i64), (1, 0), (0, -1), (0, 1)] {
        let (nr, nc) = (r as i64 + dr, c as i64 + dc);
        if (0..rows as i64).contains(&nr) && (0..cols as i64).contains(&nc) {
            let mut t = s.to_vec();
            t.swap(blank, nr as usize * cols + nc as usize);
            next.push(t);
        }
    }
    next
}

#[test]
fn sliding_puzzles_match_naive_bfs() {
    for (rows, cols) in [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3)] {
        let space = Sliding::new(rows, cols).unwrap();
        if cols % 2 == 1 {
            // Odd widths sweep: left and right as whole blocks, up and down as windows.
            check_structure(&format!("sliding {rows}x{cols}"), &space);
        }
        let solved: Vec<u32> = (0..(rows * cols) as u32).collect();
        let naive = naive_bfs(vec![solved], |s: &Vec<u32>| sliding_moves(s, rows, cols));
        let what = format!("sliding {rows}x{cols}");
        check(&what, &space, &naive, |s| s);
        // A blank at an edge has no tile to move there: the move leaves the state.
        check_ranks(&what, &space, |s| {
            let mut moves = sliding_moves(s, rows, cols);
            moves.resize(4, s.to_vec());
            moves
        });
    }
}

#[test]
fn sliding_puzzles_have_their_published_level_counts() {
    // OEIS A089473 (Reinefeld 1993): the 8-puzzle from the blank in a corner.
    let published: [u64; 32] = [
        1, 2, 4, 8, 16, 20, 39, 62, 116, 152, 286, 396, 748, 1024, 1893, 2512, 4485, 5638, 9529,
        10878, 16993, 17110, 23952, 20224, 24047, 15578, 14560, 6274, 3910, 760, 221, 2,
    ];
    let space = Sliding::new(3, 3).unwrap();
    let outcome = run(&space, PassPolicy::Auto, Footprint::Lean);
    assert_eq!(outcome.levels.iter().collect::<Vec<_>>(), published);
    // OEIS A090035 (Karlemo and Östergård): two rows of four, and four rows of two.
    let published: [u64; 37] = [
        1, 2, 3, 6, 10, 14, 19, 28, 42, 61, 85, 119, 161, 215, 293, 396, 506, 632, 788, 985, 1194,
        1414, 1664, 1884, 1999, 1958, 1770, 1463, 1076, 667, 361, 190, 88, 39, 19, 7, 1,
    ];
    for (rows, cols) in [(2, 4), (4, 2)] {
        let space = Sliding::new(rows, cols).unwrap();
        let outcome = run(&space, PassPolicy::Auto, Footprint::Full);
        assert_eq!(outcome.levels.iter().collect::<Vec<_>>(), published);
    }
}

// Pancakes: a stack lists the sizes from the top; a burnt pancake turned up is negative here. A
// flip of k reverses the top k (and turns them over, burnt).

fn pancake_flips(s: &[i32], burnt: bool) -> Vec<Vec<i32>> {
    let first = if burnt { 1 } else { 2 };
    (first..=s.len())
        .map(|k| {
            let mut t = s.to_vec();
            t[..k].reverse();
            if burnt {
                t[..k].iter_mut().for_each(|p| *p = -*p);
            }
            t
        })
        .collect()
}

/// The library's state (a turned pancake is its size plus n) as the naive BFS writes it.
fn signed(state: Vec<u32>, n: usize) -> Vec<i32> {
    let n = n as i32;
    (state.into_iter())
        .map(|p| match p as i32 > n {
            true => n - p as i32,
            false => p as i32,
        })
        .collect()
}

#[test]
fn pancakes_match_naive_bfs() {
    for (n, burnt) in [
        (2, false),
        (4, false),
        (6, false),
        (7, false),
        (1, true),
        (3, true),
        (5, true),
    ] {
        let space = Pancake::new(n, burnt).unwrap();
        let what = format!("pancake {n} burnt {burnt}");
        if space.capabilities().sweeps() {
            check_structure(&what, &space);
        }
        let solved: Vec<i32> = (1..=n as i32).collect();
        let naive = naive_bfs(vec![solved], |s: &Vec<i32>| pancake_flips(s, burnt));
        check(&what, &space, &naive, |s| signed(s, n));
        check_ranks(&what, &space, |s| {
            let flips = pancake_flips(&signed(s.to_vec(), n), burnt);
            let n = n as i32;
            let unsigned = |p: &i32| if *p < 0 { (n - p) as u32 } else { *p as u32 };
            flips
                .iter()
                .map(|t| t.iter().map(unsigned).collect())
                .collect()
        });
    }
}

#[test]
fn pancakes_have_their_published_diameters() {
    // OEIS A058986, the pancake numbers, and A078941, the burnt pancake numbers (Cohen and
    // Blum 1995), from the sorted stack.
    let pancake = [1, 3, 4, 5, 7, 8, 9];
    for (i, &want) in pancake.iter().enumerate() {
        let space = Pancake::new(i + 2, false).unwrap();
        let outcome = run(&space, PassPolicy::Auto, Footprint::Lean);
        assert_eq!(outcome.diameter(), want, "{} pancakes", i + 2);
    }
    let burnt = [1, 4, 6, 8, 10, 12, 14];
    for (i, &want) in burnt.iter().enumerate() {
        let space = Pancake::new(i + 1, true).unwrap();
        let outcome = run(&space, PassPolicy::Auto, Footprint::Lean);
        assert_eq!(outcome.diameter(), want, "{} burnt pancakes", i + 1);
    }
}

#[test]
fn lean_sweeps_of_a_sparse_frontier_give_way_to_top_down_scans() {
    // 8 burnt pancakes (every flip a block move): the level after the lists holds too few
    // states for a pull through every block move to pay. CayleyPy's levels
    // (results/published.md), and the table of the full footprint, which sweeps throughout.
    let published = [
        1, 8, 56, 392, 2548, 14056, 68656, 276136, 901970, 2195663, 3531887, 2743477, 562095,
        24627, 347, 1,
    ];
    let (lean, events) = lean_as_full(&Pancake::new(8, true).unwrap());
    let steps: Vec<Step> = events.iter().map(|e| e.2).collect();
    let scanned = steps.iter().position(|&s| s == Step::TopDown);
    let scanned = scanned.unwrap_or_else(|| panic!("no top-down scan in {steps:?}"));
    assert!(steps[scanned + 1..].contains(&Step::Sweep), "{steps:?}");
    assert_eq!(lean.levels.iter().collect::<Vec<_>>(), published);
}

/// The search of `space` under the lean footprint (the Auto policy), and its levels' events,
/// after checking that it gives the full footprint's table and antipodes.
fn lean_as_full<S: StateSpace>(space: &S) -> (Outcome, Vec<(u64, u64, Step)>) {
    let options = |footprint| Options {
        antipode_limit: 100,
        policy: PassPolicy::Auto,
        footprint,
    };
    let events = Events::default();
    let lean = search(space, &options(Footprint::Lean), &events);
    let full = search(space, &options(Footprint::Full), &Silent);
    assert_eq!(lean.antipodes, full.antipodes);
    let entries = |o: &Outcome| {
        (0..space.size())
            .map(|r| o.table.get(r))
            .collect::<Vec<_>>()
    };
    assert!(entries(&lean) == entries(&full), "the tables differ");
    (lean, events.0.into_inner().unwrap())
}

#[test]
fn the_towers_of_hanoi_sweep_page_by_page() {
    // With 4 pegs a sweep pulls the Towers of Hanoi a page at a time (16 pages at 9 discs),
    // from the levels' first thousands of states on (a list of them costs more), lean as full,
    // with no scan of the whole table.
    let (_, events) = lean_as_full(&Hanoi::new(4, 9).unwrap());
    let steps: Vec<Step> = events.iter().map(|e| e.2).collect();
    // Each event: the level, its states and the kind of pass that found them.
    let mut last = 1;
    for &(_, states, step) in &events {
        assert!(
            step == Step::Sweep || step == Step::Frontier && last <= 64,
            "{steps:?}"
        );
        last = states;
    }
    assert!(steps.contains(&Step::Sweep), "{steps:?}");
}

// Permutation puzzles from generators: moves written here as maps of points.

/// Applies a generator given as 1-based cycles: the piece at point i moves to g(i).
fn apply_cycles(s: &[u32], cycles: &[&[usize]]) -> Vec<u32> {
    let mut t = s.to_vec();
    for c in cycles {
        for w in 0..c.len() {
            t[c[(w + 1) % c.len()] - 1] = s[c[w] - 1];
        }
    }
    t
}

/// The inverse of a move given as 1-based cycles.
fn inverse_cycles(cycles: &[&[usize]]) -> Vec<Vec<usize>> {
    cycles
        .iter()
        .map(|c| c.iter().rev().copied().collect())
        .collect()
}

/// Every generator and its inverse applied to `s`.
fn generator_moves(s: &[u32], gens: &[&[&[usize]]]) -> Vec<Vec<u32>> {
    gens.iter()
        .flat_map(|g| {
            let inv = inverse_cycles(g);
            let inv: Vec<&[usize]> = inv.iter().map(|c| c.as_slice()).collect();
            [apply_cycles(s, g), apply_cycles(s, &inv)]
        })
        .collect()
}

#[test]
fn generator_puzzles_match_naive_bfs() {
    let cases: [(&str, &[&[&[usize]]]); 5] = [
        // S_5, A_5 (3-cycles), a group of 6 on 6 points, Turnstyle with 7 pieces (A_7), and a
        // group that fixes a point (positions 1..5 of 6).
        ("(1,2); (1,2,3,4,5)", &[&[&[1, 2]], &[&[1, 2, 3, 4, 5]]]),
        (
            "(1,2,3); (2,3,4); (3,4,5)",
            &[&[&[1, 2, 3]], &[&[2, 3, 4]], &[&[3, 4, 5]]],
        ),
        (
            "(1,2,3)(4,5,6); (1,4)(2,5)(3,6)",
            &[&[&[1, 2, 3], &[4, 5, 6]], &[&[1, 4], &[2, 5], &[3, 6]]],
        ),
        (
            "(1,2)(3,4); (1,2,3,4,5,6,7)",
            &[&[&[1, 2], &[3, 4]], &[&[1, 2, 3, 4, 5, 6, 7]]],
        ),
        (
            "(1,2,3,4,5); (1,2)(3,4)(5,6)",
            &[&[&[1, 2, 3, 4, 5]], &[&[1, 2], &[3, 4], &[5, 6]]],
        ),
    ];
    for (text, gens) in cases {
        let space = perm_from_gens(text);
        let n = space.state(0).len();
        let moves = |s: &[u32]| -> Vec<Vec<u32>> {
            generator_moves(s, gens)
                .into_iter()
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect()
        };
        let naive = naive_bfs(vec![(1..=n as u32).collect::<Vec<u32>>()], |s| moves(s));
        check(text, &space, &naive, |s| s);
        assert_eq!(space.group_order(), naive.distance.len() as u64, "{text}");
        // Ranks and the cursor's neighbours (as sets: a move and its inverse may coincide).
        let mut cursor = space.cursor();
        for r in 0..space.size() {
            let state = space.state(r);
            assert_eq!(space.rank(&state), Ok(r), "{text}");
            cursor.seek(r);
            let got: BTreeSet<u64> = (0..space.move_count())
                .map(|m| cursor.neighbour(m))
                .collect();
            let want: BTreeSet<u64> = moves(&state)
                .iter()
                .map(|t| space.rank(t).unwrap())
                .collect();
            assert_eq!(got, want, "{text}: rank {r}");
        }
    }
}

#[test]
fn directed_generator_puzzles_match_naive_bfs() {
    let cases: [(&str, &[&[&[usize]]]); 4] = [
        // LX (the left shift and the first swap, without the right shift), one-way 3-cycles
        // (A_5, ranks halved), a group of 6 on 6 points (ranks listed), and generators of
        // order 3 and 4 that make the graph far from undirected.
        (
            "(1,2,3,4,5,6); (1,2)",
            &[&[&[1, 2, 3, 4, 5, 6]], &[&[1, 2]]],
        ),
        (
            "(1,2,3); (2,3,4); (3,4,5)",
            &[&[&[1, 2, 3]], &[&[2, 3, 4]], &[&[3, 4, 5]]],
        ),
        (
            "(1,2,3)(4,5,6); (1,4)(2,5)(3,6)",
            &[&[&[1, 2, 3], &[4, 5, 6]], &[&[1, 4], &[2, 5], &[3, 6]]],
        ),
        ("(1,2,3,4); (4,5,6)", &[&[&[1, 2, 3, 4]], &[&[4, 5, 6]]]),
    ];
    for (text, gens) in cases {
        let space = directed_gens(text);
        assert!(space.directed(), "{text}");
        assert_eq!(space.info().metric, "directed");
        assert_eq!(
            space.info().moves.len(),
            gens.len(),
            "{text}: only the generators"
        );
        let n = space.state(0).len();
        let moves =
            |s: &Vec<u32>| -> Vec<Vec<u32>> { gens.iter().map(|g| apply_cycles(s, g)).collect() };
        let naive = naive_bfs(vec![(1..=n as u32).collect::<Vec<u32>>()], moves);
        check(text, &space, &naive, |s| s);
        // Every position's path walks back through predecessors in as many steps as its
        // distance, and its moves undone, replayed from the start, make the position.
        let outcome = run(&space, PassPolicy::Auto, Footprint::Lean);
        let (push, pull) = (space.moves_for(Way::Push), space.moves_for(Way::Pull));
        let mut cursor = space.cursor();
        for r in 0..space.size() {
            let path = path_to_solved(&space, &outcome.table, r).unwrap();
            assert_eq!(
                path.len() as u64,
                naive.distance[&space.state(r)],
                "{text}: rank {r}"
            );
            let mut at = space.solved();
            for &m in path.iter().rev() {
                assert!(pull.contains(&m), "{text}: a path pulls");
                cursor.seek(at);
                at = cursor.neighbour(m - pull.start + push.start);
            }
            assert_eq!(at, r, "{text}: the moves replayed make the position");
        }
    }
}

/// Generators that a native family searches (LRX, TopSpin and Turnstyle by the ring puzzles'
/// order, the prefix reversals by the pancakes') give the generic path's table, position for
/// position, and each move under a generator's name is that generator. Generators of another
/// kind stay on the generic path.
#[test]
fn generators_a_native_family_searches_give_the_generic_tables() {
    let pancakes = "(1,2); (1,3); (1,4)(2,3); (1,5)(2,4); (1,6)(2,5)(3,4); (1,7)(2,6)(3,5)";
    let cases = [
        ("(1,2,3,4,5,6,7,8); (1,2)", "ring"),
        ("(1,2,3,4,5,6,7,8,9); (1,4)(2,3)", "ring"),
        ("(1,2)(3,4); (1,2,3,4,5,6,7,8)", "ring"),
        ("(1,2,3,4,5,6,7); (2,3)", "ring"),
        (pancakes, "pancake"),
        ("(1,2,3,4,5,6,7); (1,2,3)", "generic"),
        ("(1,2,3,4,5,6,7); (1,2); (3,4)", "generic"),
        ("(1,2); (1,3); (1,4)(2,3); (1,5)(2,4)(3,6)", "generic"),
    ];
    for (text, kind) in cases {
        let generic = perm_from_gens(text);
        match registry::space(&Request::new("perm").with("gens", text)).unwrap() {
            Space::RingGens(native) if kind == "ring" => same_as_generic(text, &native, &generic),
            Space::PancakeGens(native) if kind == "pancake" => {
                same_as_generic(text, &native, &generic)
            }
            Space::Perm(_) if kind == "generic" => {}
            _ => panic!("{text}: not searched as {kind}"),
        }
    }
}

/// `native`'s table and moves are `generic`'s, position for position and name for name.
fn same_as_generic<S: StateSpace>(text: &str, native: &S, generic: &Perm) {
    assert_eq!(native.info().puzzle, "perm", "{text}");
    let theirs = run(generic, PassPolicy::Auto, Footprint::Lean);
    let swept = run(native, PassPolicy::Sweep, Footprint::Full);
    let mine = run(native, PassPolicy::Auto, Footprint::Lean);
    assert_eq!(mine.levels, theirs.levels, "{text}");
    for r in 0..native.size() {
        assert_eq!(
            swept.table.get(r),
            mine.table.get(r),
            "{text}: swept, rank {r}"
        );
    }
    let names = generic.move_names();
    let (mut here, mut there) = (native.cursor(), generic.cursor());
    for r in 0..native.size() {
        let state = native.state(r);
        let g = generic.rank(&state).unwrap();
        assert_eq!(mine.table.get(r), theirs.table.get(g), "{text}: {state:?}");
        here.seek(r);
        there.seek(g);
        for (m, name) in native.move_names().iter().enumerate() {
            let after = native.state(here.neighbour(m));
            let by_name = names.iter().position(|n| n == name).unwrap();
            assert_eq!(
                after,
                generic.state(there.neighbour(by_name)),
                "{text}: {name} from {state:?}"
            );
        }
    }
}

/// Generators acting on a start whose labels repeat (coset graphs) equal a naive BFS over the
/// labels, under every strategy: two labels (ranks from binomials), three (the multiset's
/// arithmetic), an orbit smaller than the arrangements (the others stay unreached), and a
/// directed graph. Every rank's state ranks back to it, the cursor's neighbours are the naive
/// moves', and every position's path has its naive length and leads between it and the start.
#[test]
fn coset_graphs_match_naive_bfs() {
    type Gens = &'static [&'static [&'static [usize]]];
    let lrx8: Gens = &[&[&[1, 2, 3, 4, 5, 6, 7, 8]], &[&[1, 2]]];
    let topspin8: Gens = &[&[&[1, 2, 3, 4, 5, 6, 7, 8]], &[&[1, 4], &[2, 3]]];
    let lrx7: Gens = &[&[&[1, 2, 3, 4, 5, 6, 7]], &[&[1, 2]]];
    let apart: Gens = &[&[&[1, 2, 3]], &[&[4, 5, 6]]];
    let cases: [(&str, &str, bool, Gens, usize); 5] = [
        ("(1,2,3,4,5,6,7,8); (1,2)", "00001111", false, lrx8, 70),
        (
            "(1,2,3,4,5,6,7,8); (1,4)(2,3)",
            "01010101",
            false,
            topspin8,
            70,
        ),
        ("(1,2,3,4,5,6,7); (1,2)", "0 0 1 1 2 2 2", false, lrx7, 210),
        ("(1,2,3); (4,5,6)", "0 0 1 0 1 1", false, apart, 9),
        (
            "(1,2,3,4,5,6,7); (1,2)",
            "[5, 5, 7, 7, 7, 5, 7]",
            true,
            lrx7,
            35,
        ),
    ];
    for (text, start, directed, gens, reached) in cases {
        let mut request = Request::new("perm").with("gens", text).with("start", start);
        if directed {
            request = request.with("directed", "true");
        }
        let what = format!("{text} from {start}");
        let Ok(Space::Coset(space)) = registry::space(&request) else {
            panic!("{what}: not a coset graph")
        };
        assert_eq!(space.directed(), directed, "{what}");
        let moves = |s: &Vec<u32>| -> Vec<Vec<u32>> {
            match directed {
                true => gens.iter().map(|g| apply_cycles(s, g)).collect(),
                false => generator_moves(s, gens),
            }
        };
        let first = space.state(space.solved());
        assert_eq!(first, space.parse_state(start).unwrap(), "{what}");
        let naive = naive_bfs(vec![first], moves);
        assert_eq!(naive.distance.len(), reached, "{what}");
        check(&what, &space, &naive, |s| s);
        let mut cursor = space.cursor();
        for r in 0..space.size() {
            let state = space.state(r);
            assert_eq!(space.rank(&state), Ok(r), "{what}");
            cursor.seek(r);
            let got: BTreeSet<u64> = (0..space.move_count())
                .map(|m| cursor.neighbour(m))
                .collect();
            let want: BTreeSet<u64> = (generator_moves(&state, gens).iter())
                .map(|t| space.rank(t).unwrap())
                .collect();
            assert_eq!(got, want, "{what}: rank {r}");
        }
        let outcome = run(&space, PassPolicy::Auto, Footprint::Lean);
        let (push, pull) = (space.moves_for(Way::Push), space.moves_for(Way::Pull));
        for (state, &d) in &naive.distance {
            let r = space.rank(state).unwrap();
            let path = path_to_solved(&space, &outcome.table, r).unwrap();
            assert_eq!(path.len() as u64, d, "{what}: {state:?}");
            // A directed path's moves undone, replayed from the start, make the position; an
            // undirected path's moves lead from the position to the start.
            let (mut at, end) = match directed {
                true => (space.solved(), r),
                false => (r, space.solved()),
            };
            let order: Vec<usize> = match directed {
                true => path
                    .iter()
                    .rev()
                    .map(|&m| m - pull.start + push.start)
                    .collect(),
                false => path,
            };
            for m in order {
                cursor.seek(at);
                at = cursor.neighbour(m);
            }
            assert_eq!(at, end, "{what}: the path of {state:?}");
        }
    }
}

/// A start that holds each of `1..n` once is the permutation puzzle searched from there: a
/// Cayley graph looks the same from every vertex, so the levels are those from the identity,
/// one way or both, and the start is the position at distance 0.
#[test]
fn a_start_of_distinct_pieces_searches_the_same_graph_from_there() {
    /// The levels of a search, and the position at distance 0.
    struct Searched;
    impl registry::Visit for Searched {
        type Output = (Vec<u64>, Vec<u32>);
        fn on<S: StateSpace>(self, space: &S) -> Self::Output {
            let outcome = run(space, PassPolicy::Auto, Footprint::Lean);
            (outcome.levels.iter().collect(), space.state(space.solved()))
        }
    }
    for (gens, directed, start) in [
        ("(1,2,3,4,5,6,7); (1,2,3)", false, "3 1 2 5 4 7 6"),
        ("(1,2,3,4,5,6,7); (1,2)", true, "3 1 2 5 4 7 6"),
        ("(1,2,3,4,5,6,7,8); (1,2)", false, "3 1 2 5 4 7 6 8"),
    ] {
        let mut request = Request::new("perm").with("gens", gens);
        if directed {
            request = request.with("directed", "true");
        }
        let from_start = registry::space(&request.clone().with("start", start)).unwrap();
        assert!(matches!(from_start, Space::Perm(_)), "{gens}");
        let (levels, first) = from_start.visit(Searched);
        let (solved_levels, _) = registry::space(&request).unwrap().visit(Searched);
        assert_eq!(levels, solved_levels, "{gens} from {start}");
        let want: Vec<u32> = start.split(' ').map(|x| x.parse().unwrap()).collect();
        assert_eq!(first, want, "{gens}");
    }
}

/// Generators as GAP writes a group, and a file of named generators as GAP states them, give
/// the puzzle of the same generators written plainly: the same table, each way round, with the
/// file's names for the moves.
#[test]
fn gap_s_notations_give_the_tables_of_plain_generators() {
    let dir = scratch("gap");
    // A shift and a 3-cycle: generators no native family searches, so all three are
    // permutation puzzles.
    let file = dir.join("l3.gap");
    let gap = "# L and a 3-cycle on 7 points\nM_L:=(1,2,3,4,\n  5,6,7);\nM_X := (1,2,3);\nGen:=[M_L,M_X];\n";
    std::fs::write(&file, gap).unwrap();
    let perm = |request: Request| match registry::space(&request).unwrap() {
        Space::Perm(p) => p,
        _ => panic!("not a permutation puzzle"),
    };
    for directed in [false, true] {
        let way = |r: Request| match directed {
            true => r.with("directed", "true"),
            false => r,
        };
        let plain = perm(way(
            Request::new("perm").with("gens", "(1,2,3,4,5,6,7); (1,2,3)")
        ));
        let want = run(&plain, PassPolicy::Auto, Footprint::Full);
        let group = "Group([ (1,2,3,4,5,6,7), (1,2,3) ])";
        let written = perm(way(Request::new("perm").with("gens", group)));
        let named = perm(way(Request::new("perm").with("gap", file.to_str().unwrap())));
        let names: &[&str] = match directed {
            true => &["L", "X"],
            false => &["L", "L'", "X", "X'"],
        };
        assert_eq!(named.info().moves, names);
        for space in [written, named] {
            let got = run(&space, PassPolicy::Auto, Footprint::Full);
            assert_eq!(got.levels, want.levels, "directed {directed}");
            for w in 0..want.table.word_count() {
                assert_eq!(got.table.word(w), want.table.word(w), "directed {directed}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_odd_solved_arrangement_under_even_moves_ranks_the_odd_permutations() {
    let mut def = parse::generators("(1,2,3); (3,4,5,6,7)").unwrap();
    def.solved = vec![2, 1, 3, 4, 5, 6, 7];
    let space = Perm::new(
        Identity {
            family: "perm".into(),
            params: Default::default(),
            metric: "gens".into(),
            slug: "t".into(),
        },
        def,
        Inverses::Added,
    )
    .unwrap();
    assert!(
        space.info().rank_order.contains("odd"),
        "{}",
        space.info().rank_order
    );
    assert_eq!(space.size(), 2520);
    let cycles: [&[&[usize]]; 2] = [&[&[1, 2, 3]], &[&[3, 4, 5, 6, 7]]];
    let moves = |s: &Vec<u32>| generator_moves(s, &cycles);
    let naive = naive_bfs(vec![vec![2, 1, 3, 4, 5, 6, 7]], moves);
    check("odd coset", &space, &naive, |s| s);
    assert!(
        space
            .rank(&[1, 2, 3, 4, 5, 6, 7])
            .unwrap_err()
            .contains("even permutation")
    );
}

#[test]
fn small_groups_get_tables_of_their_own_size() {
    let space = perm_from_gens("(1,2,3)(4,5,6); (1,4)(2,5)(3,6)");
    assert_eq!(space.group_order(), 6);
    assert_eq!(space.size(), 6);
    assert!(space.info().rank_order.contains("increasing list"));
    let outcome = run(&space, PassPolicy::Auto, Footprint::Full);
    assert_eq!(outcome.reachable(), 6);
    // A state outside the group is refused.
    assert!(space.rank(&[2, 1, 3, 4, 5, 6]).is_err());
}

#[test]
fn turnstyle_written_as_generators_is_the_builtin_turnstyle() {
    // turnstyle-group-bfs-blog.txt: Turnstyle is generated by the n-cycle and (1 2)(3 4).
    for n in [6, 7, 8, 9] {
        let cycle: Vec<String> = (1..=n).map(|i| i.to_string()).collect();
        let space = perm_from_gens(&format!("(1,2)(3,4); ({})", cycle.join(",")));
        let builtin = Ring::turnstyle(n, Metric::Lrf).unwrap();
        let a = run(&space, PassPolicy::Auto, Footprint::Full);
        let b = run(&builtin, PassPolicy::Auto, Footprint::Full);
        assert_eq!(a.levels, b.levels, "n={n}");
        assert_eq!(space.group_order(), b.reachable(), "n={n}");
        // The same antipodes, as positions.
        let states = |o: &Outcome, s: &dyn Fn(u64) -> Vec<u32>| {
            o.antipodes.iter().map(|&r| s(r)).collect::<BTreeSet<_>>()
        };
        assert_eq!(
            states(&a, &|r| space.state(r)),
            states(&b, &|r| builtin.state(r)),
            "n={n}"
        );
    }
}

#[test]
fn definitions_run_like_generators() {
    let request = gpusearch::puzzle::family::Request::new("perm")
        .with(
            "def",
            concat!(env!("CARGO_MANIFEST_DIR"), "/puzzles/turnstyle-8.tws"),
        )
        .with("metric", "qtm");
    let Ok(gpusearch::puzzle::Space::Perm(space)) = gpusearch::puzzle::registry::space(&request)
    else {
        panic!("one set of distinct pieces without orientations is a permutation puzzle");
    };
    // F is its own inverse; in htm, L's powers would count too.
    assert_eq!(space.move_names(), ["F", "L", "L'"]);
    let builtin = Ring::turnstyle(8, Metric::Lrf).unwrap();
    assert_eq!(
        run(&space, PassPolicy::Auto, Footprint::Full).levels,
        run(&builtin, PassPolicy::Auto, Footprint::Full).levels
    );
}

// Free the Key: the maze of positions x rotations.

#[test]
fn the_key_matches_naive_bfs_and_draws_its_maze() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/puzzles/free-the-key.txt"
    ))
    .unwrap();
    let space = Key::parse(&text, "free-the-key.txt", "free-the-key").unwrap();
    // The naive model, from the file's own numbers.
    let line = |name: &str| -> Vec<usize> {
        text.lines()
            .find(|l| l.starts_with(name))
            .unwrap()
            .split_whitespace()
            .skip(1)
            .map(|x| x.parse().unwrap())
            .collect()
    };
    let (above, below, disk) = (line("above"), line("below"), line("disk"));
    let (p_count, d) = (above.len(), disk.len());
    let fits = |p: usize, r: usize| {
        p == p_count || (above[p] <= disk[r] && below[p] <= disk[(r + d / 2) % d])
    };
    let moves = |&(p, r): &(usize, usize)| -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        if p > 0 && fits(p - 1, r) {
            out.push((p - 1, r));
        }
        if p < p_count && fits(p + 1, r) {
            out.push((p + 1, r));
        }
        if p < p_count {
            for t in [(r + 1) % d, (r + d - 1) % d] {
                if fits(p, t) {
                    out.push((p, t));
                }
            }
        }
        out
    };
    let off: Vec<(usize, usize)> = (0..d).map(|r| (p_count, r)).collect();
    let naive = naive_bfs(off, moves);
    check("key", &space, &naive, |s| (s[0] as usize, s[1] as usize));
    let outcome = run(&space, PassPolicy::Auto, Footprint::Full);
    let from_start = path_to_solved(&space, &outcome.table, space.start()).unwrap();
    assert_eq!(from_start.len() as u64, naive.distance[&(0, 0)]);
    let maze = space.maze(&outcome.table);
    assert_eq!(maze.lines().count(), d + 3);
    assert!(maze.contains(&format!("{} moves from the start", from_start.len())));
    let path_cells = maze.matches('*').count() - 1;
    assert_eq!(path_cells, from_start.len(), "the path is marked: {maze}");
}

#[test]
fn malformed_key_files_name_line_and_column() {
    for (text, at, needle) in [
        (
            "above 0 1\nbelow 0 1\ndisk 1 2 3\n",
            "k:3:1:",
            "even number",
        ),
        (
            "above 0 1\nbelow 0 x\ndisk 1 2\n",
            "k:2:9:",
            "expected a height",
        ),
        (
            "above 0 1\nbelow 0\ndisk 1 2\n",
            "k:2:1:",
            "one per key position",
        ),
        (
            "above 0 1\nbelow 0 1\ndisk 1 2\nstart 5 0\n",
            "k:4:1:",
            "'start'",
        ),
        (
            "above 0 1\nbelow 0 1\nshape 1 2\n",
            "k:3:1:",
            "unexpected 'shape'",
        ),
    ] {
        let e = Key::parse(text, "k", "k").unwrap_err();
        assert!(e.starts_with(at) && e.contains(needle), "{e}");
    }
}

/// The neighbours of every rank through the space's structure (block moves, then the residual
/// moves state by state) are the cursor's, once each.
/// Checks a space's pages ([`gpusearch::puzzle::Pages`]) against its cursor: every page's pull from
/// a frontier of about one rank in four sets exactly the ranks with a neighbour there (another
/// rank), and every neighbour of a page's rank lies in it or in one of its neighbour pages.
fn check_pages<S: StateSpace>(what: &str, space: &S) {
    let pages = space.capabilities().pages.expect("a space with pages");
    let bits = pages.bits();
    let units = 1usize << (bits - 6);
    let mix = |x: u64| {
        let x = (x ^ (x >> 31)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (x ^ (x >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9)
    };
    // About one rank in four holds 0: the frontier.
    let table = DistanceTable::new(space.size());
    for rank in 0..space.size() {
        let unit = mix(rank / 64) & mix(rank / 64 + (1 << 40));
        if unit >> (rank % 64) & 1 == 1 {
            table.claim(rank, 0);
        }
    }
    let in_frontier = |rank: u64| table.get(rank) == 0;
    let mut cursor = space.cursor();
    let (mut found, mut neighbours) = (vec![0u64; units], Vec::new());
    for page in 0..space.size() >> bits {
        let frontier = Holding::new(&table, 0);
        pages.pull_page(page, frontier, &vec![u64::MAX; units], &mut found);
        pages.page_neighbours(page, &mut neighbours);
        for r in page << bits..(page + 1) << bits {
            cursor.seek(r);
            let next: Vec<u64> = (0..space.move_count())
                .map(|m| cursor.neighbour(m))
                .filter(|&n| n != r)
                .collect();
            let want = next.iter().any(|&n| in_frontier(n));
            let got = found[(r % (1 << bits)) as usize / 64] >> (r % 64) & 1 == 1;
            assert_eq!(got, want, "{what}: rank {r}");
            for n in next {
                let p = n >> bits;
                assert!(p == page || neighbours.contains(&p), "{what}: {r} -> {n}");
            }
        }
    }
}

fn check_structure<S: StateSpace>(what: &str, space: &S) {
    let structure = space
        .capabilities()
        .structure()
        .expect("a space with structure");
    let mut cursor = space.cursor();
    for r in 0..space.size() {
        cursor.seek(r);
        let mut want: Vec<u64> = (0..space.move_count())
            .map(|m| cursor.neighbour(m))
            .collect();
        let mut got: Vec<u64> = structure
            .blocks
            .iter()
            .filter(|b| (b.from..b.from + b.len).contains(&r))
            .map(|b| b.to + b.window.apply(r - b.from))
            .collect();
        for (ranks, mv) in &structure.residual {
            if ranks.contains(&r) {
                got.push(cursor.neighbour(*mv));
            }
        }
        want.sort_unstable();
        got.sort_unstable();
        assert_eq!(got, want, "{what}: rank {r}");
    }
}

#[test]
fn window_moves_of_permutation_puzzles_give_every_neighbour_once() {
    let rotation = rotation::board(3, 3, 2).unwrap();
    assert!(
        !rotation
            .capabilities()
            .structure()
            .unwrap()
            .blocks
            .is_empty()
    );
    check_structure("rotation 3x3 k=2", &rotation);
    check_structure("rotation 2x4 k=2", &rotation::board(2, 4, 2).unwrap());
    // S_7 with a window move and a long cycle (residual), and A_7 (even ranks).
    check_structure("gens S_7", &perm_from_gens("(2,3)(4,5); (1,2,3,4,5,6,7)"));
    check_structure("gens A_7", &perm_from_gens("(1,2)(3,4); (1,2,3,4,5,6,7)"));
    for k in [2, 3, 4, 5] {
        check_structure("topspin", &Ring::topspin(7, k, Metric::Lrf).unwrap());
    }
}

// Twisty puzzles from definitions: several sets, orientations, identical pieces, both metrics.

/// A test puzzle's set: name, pieces, orientations, solved labels (from 1).
type TestSet = (&'static str, usize, u32, Vec<u32>);
/// A test move's part of a set: the set's index, ksolve's permutation line (position i takes
/// from position p_i, from 1) and twist line (indexed by the position a piece comes from).
type TestPart = (usize, Vec<u32>, Vec<u32>);

/// The puzzle as a definition file's text.
fn tws_text(sets: &[TestSet], moves: &[(&str, Vec<TestPart>)]) -> String {
    let line = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(" ");
    let mut t = String::from("Name Test\n");
    for (name, count, o, _) in sets {
        t += &format!("Set {name} {count} {o}\n");
    }
    t += "Solved\n";
    for (name, count, _, labels) in sets {
        t += &format!("{name}\n{}\n{}\n", line(labels), line(&vec![0; *count]));
    }
    t += "End\n";
    for (name, parts) in moves {
        t += &format!("Move {name}\n");
        for (s, perm, twists) in parts {
            t += &format!("{}\n{}\n{}\n", sets[*s].0, line(perm), line(twists));
        }
        t += "End\n";
    }
    t
}

/// A flattened state (per set: labels, then orientations) after `mv`, by ksolve's rule: position
/// i takes the piece of position p_i, twisted by the twist of p_i; or before it (`inverse`).
fn naive_twisty_move(sets: &[TestSet], state: &[u32], mv: &[TestPart], inverse: bool) -> Vec<u32> {
    let mut out = state.to_vec();
    let mut at = 0;
    for (s, (_, count, o, _)) in sets.iter().enumerate() {
        if let Some((_, perm, twists)) = mv.iter().find(|p| p.0 == s) {
            for i in 0..*count {
                let j = perm[i] as usize - 1;
                if inverse {
                    out[at + j] = state[at + i];
                    out[at + count + j] = (state[at + count + i] + o - twists[j]) % o;
                } else {
                    out[at + i] = state[at + j];
                    out[at + count + i] = (state[at + count + j] + twists[j]) % o;
                }
            }
        }
        at += 2 * count;
    }
    out
}

fn twisty_space(text: &str, metric: &str) -> gpusearch::puzzle::Twisty {
    twisty_layout(text, metric, true)
}

/// A twisty puzzle numbered with blocks where they shrink the table, or by coordinates alone.
fn twisty_layout(text: &str, metric: &str, blocks: bool) -> gpusearch::puzzle::Twisty {
    use gpusearch::puzzle::twisty::{Naming, Twisty, format};
    let def = format::read(text, "test.tws").unwrap();
    let naming = Naming {
        family: "perm".into(),
        params: Default::default(),
        slug: "test".into(),
    };
    match blocks {
        true => Twisty::new(&def, metric, naming),
        false => Twisty::without_blocks(&def, metric, naming),
    }
    .unwrap()
}

#[test]
fn twisty_puzzles_match_naive_bfs_in_both_metrics() {
    // A: distinct pieces, 3 orientations, their sum kept (X twists the piece it leaves in
    // place, so no potential on the positions fixes them); B: identical pieces (1 1 2), 2
    // orientations, their sum changed by X; C: distinct, no orientations, its parity tied to A's;
    // D: identical pieces that every move permutes as it permutes A's (their own twists, W
    // twisting D alone), so they follow from A's.
    let sets: Vec<TestSet> = vec![
        ("A", 4, 3, vec![1, 2, 3, 4]),
        ("B", 3, 2, vec![1, 1, 2]),
        ("C", 2, 1, vec![1, 2]),
        ("D", 4, 2, vec![1, 2, 2, 1]),
    ];
    let moves = vec![
        (
            "X",
            vec![
                (0, vec![2, 3, 1, 4], vec![1, 1, 0, 1]),
                (1, vec![2, 1, 3], vec![1, 0, 0]),
                (3, vec![2, 3, 1, 4], vec![1, 1, 0, 0]),
            ],
        ),
        (
            "Y",
            vec![
                (0, vec![1, 2, 4, 3], vec![0, 0, 1, 2]),
                (2, vec![2, 1], vec![0, 0]),
                (3, vec![1, 2, 4, 3], vec![0, 0, 0, 0]),
            ],
        ),
        ("Z", vec![(1, vec![1, 3, 2], vec![0, 1, 1])]),
        ("W", vec![(3, vec![1, 2, 3, 4], vec![1, 0, 0, 1])]),
    ];
    let text = tws_text(&sets, &moves);
    let solved: Vec<u32> = sets
        .iter()
        .flat_map(|(_, count, _, labels)| labels.iter().copied().chain(vec![0; *count]))
        .collect();
    for metric in ["htm", "qtm"] {
        let naive = naive_bfs(vec![solved.clone()], |s: &Vec<u32>| {
            let mut out = Vec::new();
            for (_, mv) in &moves {
                if metric == "qtm" {
                    out.push(naive_twisty_move(&sets, s, mv, false));
                    out.push(naive_twisty_move(&sets, s, mv, true));
                } else {
                    // Every power: the move again and again until the state comes back.
                    let mut t = naive_twisty_move(&sets, s, mv, false);
                    while t != *s {
                        out.push(t.clone());
                        t = naive_twisty_move(&sets, &t, mv, false);
                    }
                }
            }
            out
        });
        // By coordinates alone, the table has no more entries than the constraints allow: A
        // 4!/2 x 3^3, B 3!/2! x 2^3, C 2!/2 (1), D no pieces digit x 2^3 (the sum kept), and
        // the parities: X even on A, Y odd on A and C: 2 vectors.
        let space = twisty_layout(&text, metric, false);
        check(
            &format!("twisty {metric} coordinates"),
            &space,
            &naive,
            |s| s,
        );
        assert_eq!(space.size(), 12 * 27 * 3 * 8 * 8 * 2, "{metric}");
        // With blocks, the sets the moves tie together are listed: every entry is reachable.
        let space = twisty_layout(&text, metric, true);
        check(&format!("twisty {metric} blocks"), &space, &naive, |s| s);
        assert_eq!(space.size(), naive.distance.len() as u64, "{metric}");
    }
}

#[test]
fn orientations_that_follow_the_positions_are_numbered_by_what_is_left_free() {
    // T: 5 tiles of 4 orientations whose moves twist each tile, modulo 2, by what a potential
    // on the positions (0 1 0 1 0) changes on its way, as TurnFour's do: every position has an
    // orientation modulo 2 fixed by the tile there. A turns positions 1-4 (twist 1 each), B
    // turns 3, 4, 5 (cycle twist 6: not 0 mod 4), C twists the tile at 5 by 2 in place; U, a
    // set without orientations, is swapped by A.
    let sets: Vec<TestSet> = vec![("T", 5, 4, vec![1, 2, 3, 4, 5]), ("U", 2, 1, vec![1, 2])];
    let moves = vec![
        (
            "A",
            vec![
                (0, vec![4, 1, 2, 3, 5], vec![1, 1, 1, 1, 0]),
                (1, vec![2, 1], vec![0, 0]),
            ],
        ),
        ("B", vec![(0, vec![1, 2, 5, 3, 4], vec![0, 0, 1, 3, 2])]),
        ("C", vec![(0, vec![1, 2, 3, 4, 5], vec![0, 0, 0, 0, 2])]),
    ];
    let text = tws_text(&sets, &moves);
    let solved: Vec<u32> = vec![1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 1, 2, 0, 0];
    for metric in ["htm", "qtm"] {
        let naive = naive_bfs(vec![solved.clone()], |s: &Vec<u32>| {
            let mut out = Vec::new();
            for (_, mv) in &moves {
                out.push(naive_twisty_move(&sets, s, mv, false));
                if metric == "qtm" {
                    out.push(naive_twisty_move(&sets, s, mv, true));
                } else {
                    let mut t = naive_twisty_move(&sets, &out[out.len() - 1], mv, false);
                    while t != *s {
                        out.push(t.clone());
                        t = naive_twisty_move(&sets, &t, mv, false);
                    }
                }
            }
            out
        });
        for blocks in [false, true] {
            let space = twisty_layout(&text, metric, blocks);
            check(
                &format!("potential {metric} {blocks}"),
                &space,
                &naive,
                |s| s,
            );
            // Half of each orientation is fixed: 5! x 2^5 and U's 2 (tied by parity to T's),
            // not 5! x 4^5.
            assert!(space.size() <= 120 * 32 * 2, "{metric} {blocks}");
            if blocks {
                assert_eq!(space.size(), naive.distance.len() as u64, "{metric}");
            }
        }
        // A position whose orientation the moves never give its tile is refused, by position.
        let space = twisty_space(&text, metric);
        let mut odd = solved.clone();
        odd[6] = 1;
        let err = space.rank(&odd).unwrap_err();
        assert!(err.contains("position 2 of T"), "{err}");
    }
}

#[test]
fn the_2x2x2_cube_has_its_published_level_counts() {
    // 3,674,160 positions with one corner fixed; God's number 11 (htm) and 14 (qtm).
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/puzzles/cube-2x2x2.tws"
    ))
    .unwrap();
    let htm = [
        1, 9, 54, 321, 1847, 9992, 50136, 227536, 870072, 1887748, 623800, 2644,
    ];
    let qtm = [
        1, 6, 27, 120, 534, 2256, 8969, 33058, 114149, 360508, 930588, 1350852, 782536, 90280, 276,
    ];
    for (metric, want) in [("htm", &htm[..]), ("qtm", &qtm[..])] {
        let space = twisty_space(&text, metric);
        assert_eq!(space.size(), 3_674_160);
        // Schreier–Sims on (corner, orientation) points agrees.
        assert_eq!(space.info().group_order, Some(3_674_160));
        let outcome = run(&space, PassPolicy::Auto, Footprint::Full);
        assert_eq!(outcome.levels.iter().collect::<Vec<_>>(), want, "{metric}");
    }
}

#[test]
fn the_skewb_has_its_published_level_counts() {
    // 3,149,280 positions with one corner fixed, God's number 11; three sets (two orbits of
    // corners with orientations, the centers), tied beyond their parities: the blocks leave
    // no entry unreachable, and Schreier-Sims gives the same count.
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/puzzles/skewb.tws")).unwrap();
    let space = twisty_space(&text, "htm");
    assert_eq!(space.info().group_order, Some(3_149_280));
    assert_eq!(space.size(), 3_149_280);
    let outcome = run(&space, PassPolicy::Auto, Footprint::Full);
    let want = [
        1, 8, 48, 288, 1728, 10248, 59304, 315198, 1225483, 1455856, 81028, 90,
    ];
    assert_eq!(outcome.levels.iter().collect::<Vec<_>>(), want);
}

#[test]
fn the_skewb_diamond_has_its_published_count_and_twsearch_geometry_levels() {
    // 138,240 positions with the puzzle held still (Jaap Scherphuis's count); the corners'
    // twists are tied to their places, so by coordinates the table would be 32 times as large.
    // The levels are those of twsearch's PuzzleGeometry skewb diamond turned about one tetrad
    // of faces (its B, D, L and R), measured with gpusearch: a second geometry, written
    // independently of ours.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/puzzles/skewb-diamond.tws"
    ))
    .unwrap();
    let space = twisty_space(&text, "htm");
    assert_eq!(space.info().group_order, Some(138_240));
    assert_eq!(space.size(), 138_240);
    let outcome = run(&space, PassPolicy::Auto, Footprint::Full);
    let want = [1, 8, 48, 288, 1632, 8568, 36114, 74799, 16547, 220, 15];
    assert_eq!(outcome.levels.iter().collect::<Vec<_>>(), want);
}

#[test]
fn moves_far_apart_are_renumbered_into_windows_and_states_keep_the_definitions_numbering() {
    // The dino cube's 3-cycles span up to 11 of its 12 positions as written: 7 of its 16
    // moves would be residual, applied state by state. Renumbered, all 16 are block moves of
    // the sweeps.
    use gpusearch::puzzle::twisty::{self, format};
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/puzzles/dino.tws")).unwrap();
    let def = format::read(&text, "dino.tws").unwrap();
    let solved = def.as_permutations().unwrap();
    let moves = twisty::permutation_moves(&def, "htm").unwrap();
    let space = Perm::new(
        Identity {
            family: "perm".into(),
            params: Default::default(),
            metric: "htm".into(),
            slug: "t".into(),
        },
        parse::Definition {
            name: def.name.clone(),
            solved,
            moves: moves.clone(),
        },
        Inverses::Given,
    )
    .unwrap();
    assert!(space.info().rank_order.contains("renumbered"));
    let structure = space.capabilities().structure().unwrap();
    assert_eq!(structure.residual.len(), 0);
    assert_eq!(structure.blocks.len(), 16);
    assert_eq!(space.state(space.solved()), (1..=12).collect::<Vec<u32>>());
    // Each neighbour by the sweeps' numbering is the position the move makes, in the
    // definition's numbering.
    let mut cursor = space.cursor();
    for rank in (0..space.size()).step_by(7_654_321) {
        let state = space.state(rank);
        assert_eq!(space.rank(&state), Ok(rank));
        cursor.seek(rank);
        for (mv, (_, from)) in moves.iter().enumerate() {
            let moved: Vec<u32> = from.iter().map(|&f| state[f as usize]).collect();
            assert_eq!(cursor.neighbour(mv), space.rank(&moved).unwrap());
        }
    }
}
