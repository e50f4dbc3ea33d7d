//! `--symmetry`: a table of one entry per class of symmetric positions gives the counts of the
//! whole search, solves any position, verifies, goes on after a kill, and is refused where a
//! puzzle has no symmetry or where its table is another's.

mod common;

use common::{gpusearch, kill_after_checkpoints, scratch};
use indicatif::HumanCount;
use serde_json::Value;
use std::path::Path;

/// The report of a run into `out`.
fn report(out: &Path) -> Value {
    let text = std::fs::read_to_string(out.join("report.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Runs `args` into `out`, with `--symmetry` where asked: its report.
fn run(args: &[&str], out: &Path, symmetry: bool) -> Value {
    let mut all = args.to_vec();
    all.extend(["--quiet", "--out", out.to_str().unwrap()]);
    if symmetry {
        all.push("--symmetry");
    }
    let done = gpusearch(&all);
    let err = String::from_utf8_lossy(&done.stderr);
    assert!(done.status.success(), "{args:?}: {err}");
    report(out)
}

/// Runs `args` with `--symmetry` into `out`, its progress shown: the progress lines and the
/// report.
fn run_showing_progress(args: &[&str], out: &Path) -> (String, Value) {
    let mut all = args.to_vec();
    all.extend(["--symmetry", "--out", out.to_str().unwrap()]);
    let done = gpusearch(&all);
    let err = String::from_utf8_lossy(&done.stderr).into_owned();
    assert!(done.status.success(), "{args:?}: {err}");
    (err, report(out))
}

/// The antipodes of a report, as a sorted list.
fn antipodes(report: &Value) -> Vec<Value> {
    let mut listed = report["antipodes"].as_array().unwrap().clone();
    listed.sort_by_key(|a| a.to_string());
    listed
}

const FAMILIES: [&[&str]; 10] = [
    &["--puzzle", "turnstyle", "--n", "8"],
    &["--puzzle", "turnstyle", "--n", "9", "--metric", "flips"],
    &["--puzzle", "turnstyle", "--n", "10", "--metric", "flips"],
    &[
        "--puzzle", "rotation", "--rows", "3", "--cols", "3", "--block", "2",
    ],
    &["--puzzle", "perm", "--gens", "(1,2); (1,2,3,4,5,6,7)"],
    &["--puzzle", "topspin", "--n", "8", "--k", "4"],
    &["--puzzle", "hanoi", "--pegs", "4", "--discs", "6"],
    &["--puzzle", "hanoi", "--pegs", "5", "--discs", "5"],
    &["--puzzle", "sliding", "--rows", "3", "--cols", "3"],
    &["--puzzle", "perm", "--def", "puzzles/skewb-diamond.tws"],
];

#[test]
fn progress_lines_give_each_levels_positions_beside_its_classes() {
    let out = scratch("progress").join("run");
    let hanoi = ["--puzzle", "hanoi", "--pegs", "5", "--discs", "5"];
    let (err, report) = run_showing_progress(&hanoi, &out);
    let levels = report["levels"].as_array().unwrap();
    let classes = report["class_levels"].as_array().unwrap();
    for (depth, (positions, entries)) in levels.iter().zip(classes).enumerate() {
        // Counts written as the progress lines write them.
        let with_commas = |v: &Value| HumanCount(v.as_u64().unwrap()).to_string();
        let line = format!(
            "{} classes ({} positions)",
            with_commas(entries),
            with_commas(positions)
        );
        let prefix = format!("level {depth:>3}:");
        assert!(
            err.lines()
                .any(|l| l.starts_with(&prefix) && l.contains(&line)),
            "level {depth}: no line with {line:?} in {err}"
        );
    }
}

#[test]
fn every_family_with_symmetries_counts_the_positions_of_the_whole_search() {
    let dir = scratch("families");
    for (i, args) in FAMILIES.iter().enumerate() {
        let whole = run(args, &dir.join(format!("{i}-whole")), false);
        let reduced = run(args, &dir.join(format!("{i}-classes")), true);
        for field in ["levels", "reachable", "diameter", "antipode_count"] {
            assert_eq!(whole[field], reduced[field], "{args:?}: {field}");
        }
        // The classes at each distance, fewer than the positions but for level 0.
        let classes = reduced["class_levels"].as_array().unwrap();
        let levels = whole["levels"].as_array().unwrap();
        assert_eq!(classes.len(), levels.len());
        let sum = |v: &[Value]| v.iter().map(|c| c.as_u64().unwrap()).sum::<u64>();
        assert!(sum(classes) < sum(levels), "{args:?}");
        let order = reduced["symmetry"]["order"].as_u64().unwrap();
        assert!(order >= 2, "{args:?}");
        assert!(sum(classes) * order >= sum(levels), "{args:?}");
        assert!(reduced["rank_space"].as_u64() < whole["rank_space"].as_u64());
        // The antipodes as positions: all of them where the whole search lists all.
        if whole["antipode_count"].as_u64().unwrap() <= 100 {
            assert_eq!(antipodes(&whole), antipodes(&reduced), "{args:?}");
        }
        // The file names the symmetry; verify checks it down to a fresh search.
        let file = dir.join(format!("{i}-classes/distances.gsd"));
        let verified = gpusearch(&["verify", "--quiet", file.to_str().unwrap()]);
        let said = String::from_utf8_lossy(&verified.stdout);
        assert!(verified.status.success(), "{args:?}: {said}");
        assert!(said.contains("classes reached for"), "{said}");
    }
}

/// `solve` of `position` for `puzzle` with its distances file in `out` (searched first where
/// missing), with `--symmetry` where asked: what it prints.
fn solve_into(out: &Path, puzzle: &[&str], symmetry: bool, position: &[&str]) -> String {
    let mut all = vec!["solve"];
    all.extend(puzzle);
    all.extend(position);
    all.extend(["--quiet", "--out", out.to_str().unwrap()]);
    if symmetry {
        all.push("--symmetry");
    }
    let done = gpusearch(&all);
    let text = String::from_utf8_lossy(&done.stdout).to_string();
    assert!(done.status.success(), "{position:?}: {text}");
    text
}

#[test]
fn solve_reads_a_reduced_table_for_the_position_itself() {
    let dir = scratch("solve");
    let args = ["--puzzle", "turnstyle", "--n", "9"];
    let solve = |out: &str, symmetry: bool, position: &[&str]| {
        solve_into(&dir.join(out), &args, symmetry, position)
    };
    for position in [
        ["--state", "9 8 7 6 5 4 3 2 1"],
        ["--state", "2 3 1 4 5 6 7 8 9"],
        ["--moves", "L F R F L L F R R"],
    ] {
        let whole = solve("whole", false, &position);
        let reduced = solve("classes", true, &position);
        // The same length, and a listing of the position itself down to solved.
        let last = |text: &str| text.lines().last().unwrap().to_string();
        assert_eq!(last(&whole), last(&reduced), "{position:?}");
        assert_eq!(whole.lines().next(), reduced.lines().next());
        let end = reduced.lines().rev().nth(1).unwrap_or_default();
        assert!(
            end.ends_with(": 1 2 3 4 5 6 7 8 9") || whole.lines().count() == 2,
            "{reduced}"
        );
    }
}

#[test]
fn a_table_of_another_symmetry_is_another_table() {
    let dir = scratch("other");
    let puzzle = ["--puzzle", "turnstyle", "--n", "8"];
    let (whole, classes) = (dir.join("whole"), dir.join("classes"));
    run(&puzzle, &whole, false);
    run(&puzzle, &classes, true);
    // Each folder's table read or overwritten by the other kind of run: refused.
    for (out, symmetry) in [(&whole, true), (&classes, false)] {
        let flag = if symmetry { "--symmetry" } else { "--quiet" };
        let out = out.to_str().unwrap();
        let solve = gpusearch(
            &[
                &["solve", "--state", "2 1 3 4 5 6 7 8"],
                &puzzle[..],
                &["--out", out, flag],
            ]
            .concat(),
        );
        let err = String::from_utf8_lossy(&solve.stderr);
        assert_eq!(solve.status.code(), Some(2), "{err}");
        assert!(err.contains("another puzzle"), "{err}");
        let search = gpusearch(&[&puzzle[..], &["--out", out, flag]].concat());
        let err = String::from_utf8_lossy(&search.stderr);
        assert_eq!(search.status.code(), Some(2), "{err}");
        assert!(err.contains("--force"), "{err}");
    }
}

#[test]
fn puzzles_without_symmetries_refuse_them_naming_the_flag() {
    let key = format!("{}/puzzles/free-the-key.txt", env!("CARGO_MANIFEST_DIR"));
    for args in [
        &["--puzzle", "pancake", "--n", "6"][..],
        &["--puzzle", "pancake", "--n", "5", "--burnt"],
        &["--puzzle", "rings", "--n", "8"],
        &["--puzzle", "key", "--def", &key],
        &["--puzzle", "sliding", "--rows", "2", "--cols", "3"],
        // Moves that reach a smaller group than half of all arrangements.
        &[
            "--puzzle",
            "perm",
            "--gens",
            "(1,2,3,4,5,6,7,8)(9,10); (1,9)",
        ],
    ] {
        let done = gpusearch(&[args, &["--symmetry", "--dry-run"]].concat());
        let err = String::from_utf8_lossy(&done.stderr);
        assert_eq!(done.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("cannot be searched by classes") && err.contains("without --symmetry"),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
        if args.contains(&"--gens") {
            assert!(err.contains("arrangements"), "{err}");
        }
    }
}

#[test]
fn a_reduced_run_killed_goes_on_from_its_checkpoint_in_memory_and_from_disk() {
    let dir = scratch("killed");
    // A mirror, and the Towers of Hanoi's pegs (entries of unlike weights).
    let puzzles: [&[&str]; 2] = [
        &["--puzzle", "turnstyle", "--n", "10"],
        &["--puzzle", "hanoi", "--pegs", "5", "--discs", "10"],
    ];
    for (i, puzzle) in puzzles.iter().enumerate() {
        killed_and_resumed(&dir.join(i.to_string()), puzzle);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `puzzle` reduced, killed and resumed into `dir`, in memory and from disk: the report of the
/// run never killed.
fn killed_and_resumed(dir: &Path, puzzle: &[&str]) {
    let args = [puzzle, &["--symmetry", "--quiet"]].concat();
    let expected = run(puzzle, &dir.join("whole"), true);
    // In memory, and in slabs on disk (their files are the checkpoint).
    for (name, tier) in [
        ("memory", &[][..]),
        ("disk", &["--slab-bytes", "100000"][..]),
    ] {
        let killed = dir.join(name);
        let checkpoint = killed.join("checkpoint.gsc");
        let out = killed.to_str().unwrap();
        let command = |resume: bool| {
            let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_gpusearch"));
            c.args(&args).args(tier);
            c.args(["--checkpoint-every", "0", "--out", out]);
            c.args(resume.then_some("--resume"));
            c
        };
        let kills = kill_after_checkpoints(command, &checkpoint, &[0, 20, 80]);
        assert!(kills >= 1, "{puzzle:?} {name}: never killed");
        if checkpoint.exists() {
            let resumed = gpusearch(&[&args[..], tier, &["--resume", "--out", out]].concat());
            assert!(
                resumed.status.success(),
                "{puzzle:?} {name}: {}",
                String::from_utf8_lossy(&resumed.stderr)
            );
        }
        let got = report(&killed);
        for field in ["levels", "class_levels", "antipodes", "distances_sha256"] {
            assert_eq!(got[field], expected[field], "{puzzle:?} {name}: {field}");
        }
    }
}

#[test]
fn a_reduced_table_searched_in_slabs_on_disk_is_the_table_searched_in_memory() {
    let dir = scratch("slabs");
    // A mirror, the flips metric's turns, and the Towers of Hanoi's pegs (whose entries weigh
    // unlike each other); the first levels as lists, then slabs, then the last as a tail.
    let puzzles: [&[&str]; 3] = [
        &["--puzzle", "turnstyle", "--n", "10"],
        FAMILIES[2],
        &["--puzzle", "hanoi", "--pegs", "5", "--discs", "9"],
    ];
    for (i, args) in puzzles.iter().enumerate() {
        let memory = run(args, &dir.join(format!("{i}-memory")), true);
        let slabs = dir.join(format!("{i}-disk"));
        let disk = run(
            &[args, &["--slab-bytes", "4000"][..]].concat(),
            &slabs,
            true,
        );
        assert!(
            disk["disk"]["slabs"].as_u64().unwrap() > 1,
            "{args:?}: no slabs"
        );
        for field in ["levels", "class_levels", "antipodes", "distances_sha256"] {
            assert_eq!(disk[field], memory[field], "{args:?}: {field}");
        }
        assert!(!slabs.join("slabs").exists(), "{args:?}: slabs left behind");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_position_written_from_another_piece_is_solved_as_written_from_piece_1() {
    let dir = scratch("flips");
    let puzzle = ["--puzzle", "turnstyle", "--n", "9", "--metric", "flips"];
    let solve = |out: &str, symmetry: bool, position: &[&str]| {
        solve_into(&dir.join(out), &puzzle, symmetry, position)
    };
    let made = solve("whole", false, &["--moves", "F0 F3 F5 F1"]);
    // The position as the listing writes it, from piece 1, then from its third piece.
    let first = made
        .lines()
        .next()
        .unwrap()
        .trim_start_matches("0: ")
        .to_string();
    let mut pieces: Vec<&str> = first.split(' ').collect();
    pieces.rotate_left(2);
    let rotated = pieces.join(" ");
    let whole = solve("whole", false, &["--state", &rotated]);
    let reduced = solve("classes", true, &["--state", &rotated]);
    let last = |text: &str| text.lines().last().unwrap().to_string();
    assert_eq!(last(&whole), last(&reduced));
    assert_eq!(last(&made), last(&reduced));
}

#[test]
fn progress_counts_down_to_the_entries_that_hold_a_class() {
    // Turnstyle 10 lrf with its mirror: 1,820,160 entries, of which those in blocks the mirror
    // keeps that are not the least of their class hold none; every class is reached.
    let out = scratch("to-reach").join("run");
    let (err, report) = run_showing_progress(&["--puzzle", "turnstyle", "--n", "10"], &out);
    let classes: u64 = (report["class_levels"].as_array().unwrap().iter())
        .map(|c| c.as_u64().unwrap())
        .sum();
    assert!(classes < report["rank_space"].as_u64().unwrap());
    let last = format!("level {:>3}:", report["diameter"].as_u64().unwrap());
    let line = err.lines().find(|l| l.starts_with(&last)).unwrap();
    // The last level finds the last class: the bar stands at the entries that hold one.
    assert!(
        line.contains(&format!("(100.0% of {}", HumanCount(classes))),
        "{line}"
    );
    // The last levels are found among a list of the unreached (the empty entries left out).
    assert!(line.contains("remaining"), "{line}");
}

#[test]
fn a_reduced_tables_maps_count_in_the_plan_of_its_slabs() {
    // Turnstyle 12 lrf is swept through maps of its blocks' rests, which every slab's passes
    // read: the disk tier's plan holds them beside the slab.
    let out = scratch("maps").join("run");
    let done = gpusearch(&[
        "--puzzle",
        "turnstyle",
        "--n",
        "12",
        "--symmetry",
        "--slab-bytes",
        "16000000",
        "--dry-run",
        "--out",
        out.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&done.stdout);
    assert!(done.status.success(), "{text}");
    let tier = text.split("disk tier").nth(1).expect("a disk tier");
    assert!(tier.contains("block moves' maps"), "{text}");
}
