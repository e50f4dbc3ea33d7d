//! The engine against a plain queue-based BFS written here from the seeds' move definitions,
//! and against the values the seeds publish.

mod common;
use common::Naive;
use gpusearch::puzzle::path::path_to_solved;
use gpusearch::puzzle::{Cursor, Metric, Ring, StateSpace};
use gpusearch::search::cpu::search;
use gpusearch::search::{Footprint, Options, Outcome, PassPolicy, Silent};
use gpusearch::table::UNREACHED;
use std::collections::BTreeSet;

/// The seeds' moves on a position (piece labels by position). lrf: L, R, F; flips: F0..F(n-1)
/// on the ring read from piece 1.
fn naive_moves(s: &[u32], metric: Metric) -> Vec<Vec<u32>> {
    let n = s.len();
    match metric {
        Metric::Lrf => {
            let l = (0..n).map(|i| s[(i + 1) % n]).collect();
            let r = (0..n).map(|i| s[(i + n - 1) % n]).collect();
            let mut f = s.to_vec();
            f.swap(0, 1);
            f.swap(2, 3);
            vec![l, r, f]
        }
        Metric::Flips => (0..n)
            .map(|i| {
                let mut t = s.to_vec();
                t.swap(i, (i + 1) % n);
                t.swap((i + 2) % n, (i + 3) % n);
                from_piece_one(&t)
            })
            .collect(),
    }
}

fn from_piece_one(s: &[u32]) -> Vec<u32> {
    let k = s.iter().position(|&x| x == 1).unwrap();
    (0..s.len()).map(|j| s[(k + j) % s.len()]).collect()
}

/// The naive search of Turnstyle with `n` pieces in `metric`.
fn naive_bfs(n: usize, metric: Metric) -> Naive<Vec<u32>> {
    common::naive_bfs(vec![(1..=n as u32).collect()], |s| naive_moves(s, metric))
}

fn run(space: &Ring, strategy: PassPolicy, footprint: Footprint) -> Outcome {
    let options = Options {
        antipode_limit: usize::MAX,
        policy: strategy,
        footprint,
    };
    search(space, &options, &Silent)
}

const STRATEGIES: [PassPolicy; 5] = [
    PassPolicy::Auto,
    PassPolicy::Lists,
    PassPolicy::TopDown,
    PassPolicy::BottomUp,
    PassPolicy::Sweep,
];

fn check_against_naive(metric: Metric) {
    for n in 4..=9 {
        let space = Ring::turnstyle(n, metric).unwrap();
        let naive = naive_bfs(n, metric);
        for (strategy, footprint) in STRATEGIES
            .into_iter()
            .flat_map(|s| [Footprint::Full, Footprint::Lean].map(|f| (s, f)))
        {
            let what = format!("n={n} {metric:?} {strategy:?} {footprint:?}");
            let outcome = run(&space, strategy, footprint);
            assert_eq!(
                outcome.levels.iter().collect::<Vec<_>>(),
                naive.levels,
                "{what}: levels"
            );
            assert_eq!(outcome.reachable(), naive.distance.len() as u64, "{what}");
            assert_eq!(outcome.diameter() + 1, naive.levels.len() as u64, "{what}");
            let antipodes: BTreeSet<Vec<u32>> =
                outcome.antipodes.iter().map(|&r| space.state(r)).collect();
            assert_eq!(antipodes, naive.antipodes(), "{what}: antipodes");
            // Every entry of the table: distance mod 3, or unreached.
            for r in 0..space.size() {
                let want = naive
                    .distance
                    .get(&space.state(r))
                    .map_or(UNREACHED, |&d| (d % 3) as u8);
                assert_eq!(outcome.table.get(r), want, "{what}: rank {r}");
            }
        }
    }
}

#[test]
fn lrf_matches_naive_bfs_for_n_4_to_9() {
    check_against_naive(Metric::Lrf);
}

#[test]
fn flips_matches_naive_bfs_for_n_4_to_9() {
    check_against_naive(Metric::Flips);
}

#[test]
fn ranks_round_trip_and_neighbours_match_the_moves() {
    for metric in [Metric::Lrf, Metric::Flips] {
        for n in 4..=9 {
            let space = Ring::turnstyle(n, metric).unwrap();
            let mut cursor = space.cursor();
            for r in 0..space.size() {
                let state = space.state(r);
                assert_eq!(space.rank(&state), Ok(r), "n={n} {metric:?}");
                cursor.seek(r);
                for (mv, next) in naive_moves(&state, metric).iter().enumerate() {
                    assert_eq!(cursor.neighbour(mv), space.rank(next).unwrap());
                }
            }
            // Jumping around: seeks backwards and far ahead give the same neighbours.
            let mut r = space.size() / 2;
            for _ in 0..500 {
                r = (r * 7919 + 104_729) % space.size();
                cursor.seek(r);
                for mv in 0..space.move_names().len() {
                    let state = space.state(r);
                    let next = &naive_moves(&state, metric)[mv];
                    assert_eq!(cursor.neighbour(mv), space.rank(next).unwrap());
                }
            }
        }
    }
}

/// The neighbours of `rank` as the space's structure gives them: through its block moves and,
/// state by state, its residual moves.
fn structured_neighbours(space: &Ring, rank: u64) -> Vec<u64> {
    let structure = space
        .capabilities()
        .structure()
        .expect("ring puzzles have structure");
    let mut cursor = space.cursor();
    cursor.seek(rank);
    let mut found: Vec<u64> = structure
        .blocks
        .iter()
        .filter(|b| (b.from..b.from + b.len).contains(&rank))
        .map(|b| b.to + b.window.apply(rank - b.from))
        .collect();
    for (ranks, mv) in &structure.residual {
        if ranks.contains(&rank) {
            found.push(cursor.neighbour(*mv));
        }
    }
    found.sort_unstable();
    found
}

#[test]
fn the_structure_gives_every_neighbour_once() {
    for metric in [Metric::Lrf, Metric::Flips] {
        for n in 4..=9 {
            let space = Ring::turnstyle(n, metric).unwrap();
            let mut cursor = space.cursor();
            for r in 0..space.size() {
                cursor.seek(r);
                let mut want: Vec<u64> = (0..space.move_count())
                    .map(|m| cursor.neighbour(m))
                    .collect();
                want.sort_unstable();
                assert_eq!(
                    structured_neighbours(&space, r),
                    want,
                    "n={n} {metric:?} rank {r}"
                );
            }
        }
    }
}

#[test]
fn ranks_round_trip_on_samples_for_n_14_and_16() {
    for metric in [Metric::Lrf, Metric::Flips] {
        for n in [13, 14, 15, 16] {
            let space = Ring::turnstyle(n, metric).unwrap();
            let mut r = 12345u64;
            for _ in 0..2000 {
                r = r
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let rank = r % space.size();
                let state = space.state(rank);
                let mut sorted = state.clone();
                sorted.sort_unstable();
                assert_eq!(sorted, (1..=n as u32).collect::<Vec<_>>());
                assert_eq!(space.rank(&state), Ok(rank), "n={n} {metric:?}");
            }
            // The largest rank too.
            let last = space.size() - 1;
            assert_eq!(space.rank(&space.state(last)), Ok(last));
        }
    }
}

#[test]
fn table_sizes_follow_parity() {
    let size = |n, m| Ring::turnstyle(n, m).unwrap().size();
    assert_eq!(size(12, Metric::Lrf), 479_001_600);
    assert_eq!(size(11, Metric::Lrf), 39_916_800 / 2);
    assert_eq!(size(14, Metric::Lrf), 87_178_291_200);
    assert_eq!(size(13, Metric::Lrf), 6_227_020_800 / 2);
    assert_eq!(size(12, Metric::Flips), 39_916_800);
    assert_eq!(size(13, Metric::Flips), 479_001_600 / 2);
    assert!(Ring::turnstyle(3, Metric::Lrf).is_err());
    assert!(Ring::turnstyle(17, Metric::Lrf).is_err());
}

#[test]
fn bad_states_are_refused() {
    let space = Ring::turnstyle(9, Metric::Lrf).unwrap();
    assert!(space.rank(&[1, 2, 3]).is_err());
    assert!(space.rank(&[1, 2, 3, 4, 5, 6, 7, 8, 8]).is_err());
    assert!(space.rank(&[0, 2, 3, 4, 5, 6, 7, 8, 9]).is_err());
    // An odd permutation of 9 pieces is unreachable.
    let odd = space.rank(&[2, 1, 3, 4, 5, 6, 7, 8, 9]).unwrap_err();
    assert!(odd.contains("odd"), "{odd}");
}

/// Applies moves named by letters (L, R, F) from the solved state; returns each state.
fn replay(space: &Ring, moves: &str) -> Vec<Vec<u32>> {
    let mut cursor = space.cursor();
    let mut rank = space.solved();
    let mut states = vec![space.state(rank)];
    for letter in moves.chars() {
        cursor.seek(rank);
        rank = cursor.neighbour("LRF".find(letter).unwrap());
        states.push(space.state(rank));
    }
    states
}

fn labels(s: &str) -> Vec<u32> {
    s.split_whitespace().map(|x| x.parse().unwrap()).collect()
}

#[test]
fn storer_swap_for_8_pieces_replays_and_is_optimal_at_18() {
    let space = Ring::turnstyle(8, Metric::Lrf).unwrap();
    // turnstyle-storer.txt, "Puzzle of size 8": the state after each of the 18 moves.
    let listing = [
        "8 1 2 3 4 5 6 7",
        "1 8 3 2 4 5 6 7",
        "7 1 8 3 2 4 5 6",
        "1 7 3 8 2 4 5 6",
        "6 1 7 3 8 2 4 5",
        "5 6 1 7 3 8 2 4",
        "4 5 6 1 7 3 8 2",
        "5 4 1 6 7 3 8 2",
        "2 5 4 1 6 7 3 8",
        "5 2 1 4 6 7 3 8",
        "8 5 2 1 4 6 7 3",
        "3 8 5 2 1 4 6 7",
        "8 3 2 5 1 4 6 7",
        "3 2 5 1 4 6 7 8",
        "2 3 1 5 4 6 7 8",
        "3 1 5 4 6 7 8 2",
        "1 3 4 5 6 7 8 2",
        "2 1 3 4 5 6 7 8",
    ];
    let states = replay(&space, "RFRFRRRFRFRRFLFLFR");
    for (step, want) in listing.iter().enumerate() {
        assert_eq!(states[step + 1], labels(want), "step {}", step + 1);
    }
    let outcome = run(&space, PassPolicy::Auto, Footprint::Full);
    let swap = space.rank(&labels("2 1 3 4 5 6 7 8")).unwrap();
    let path = path_to_solved(&space, &outcome.table, swap).unwrap();
    assert_eq!(path.len(), 18);
}

#[test]
fn storer_swap_for_10_pieces_is_optimal_at_25() {
    let space = Ring::turnstyle(10, Metric::Lrf).unwrap();
    let states = replay(&space, "RRRFRFRFRRFLFLFLFRRFRFRFR");
    assert_eq!(states[25], labels("2 1 3 4 5 6 7 8 9 10"));
    let outcome = run(&space, PassPolicy::Auto, Footprint::Full);
    let swap = space.rank(&labels("2 1 3 4 5 6 7 8 9 10")).unwrap();
    let path = path_to_solved(&space, &outcome.table, swap).unwrap();
    assert_eq!(path.len(), 25);
    // The path really leads home.
    let mut cursor = space.cursor();
    let mut rank = swap;
    for mv in path {
        cursor.seek(rank);
        rank = cursor.neighbour(mv);
    }
    assert_eq!(rank, space.solved());
}
