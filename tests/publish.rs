//! What users publish and check: `solve`, `verify`, and runs that survive being killed.

mod common;
use common::{gpusearch, scratch};
use gpusearch::puzzle::{Metric, Ring, StateSpace};
use gpusearch::search::cpu::search;
use gpusearch::search::{Options, Silent};
use gpusearch::store;
use gpusearch::table::{TableView, UNREACHED};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs `args`, asserting success; its stdout.
fn ok(args: &[&str]) -> String {
    let out = gpusearch(args);
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

/// Runs `args`, asserting exit status `code` and a one-line error holding `needle`.
fn fails(args: &[&str], code: i32, needle: &str) {
    let out = gpusearch(args);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains(needle), "{args:?}: {stderr}");
}

/// The seeds' single-character pieces back to numbers (0 = 10, A = 11, ...).
fn pieces(line: &str) -> Vec<u32> {
    line.split_whitespace()
        .map(|w| match w {
            "0" => 10,
            w if w.as_bytes()[0].is_ascii_alphabetic() => (w.as_bytes()[0] - b'A') as u32 + 11,
            w => w.parse().unwrap(),
        })
        .collect()
}

/// The seeds' moves on a state (turnstyle-storer.txt).
fn turnstyle_move(s: &[u32], name: &str) -> Vec<u32> {
    let n = s.len();
    match name {
        "L" => (0..n).map(|i| s[(i + 1) % n]).collect(),
        "R" => (0..n).map(|i| s[(i + n - 1) % n]).collect(),
        _ => {
            let mut t = s.to_vec();
            t.swap(0, 1);
            t.swap(2, 3);
            t
        }
    }
}

#[test]
fn solve_prints_an_optimal_listing_in_the_seeds_notation() {
    let dir = scratch("solve");
    let out = dir.join("t8");
    let o = out.to_str().unwrap();
    // The distances file is missing: solve searches first and says so.
    let first = gpusearch(&[
        "solve",
        "--puzzle",
        "turnstyle",
        "--n",
        "8",
        "--out",
        o,
        "--quiet",
        "--state",
        "2 1 3 4 5 6 7 8",
    ]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    assert!(
        text(&first.stderr).contains("searching"),
        "{}",
        text(&first.stderr)
    );
    assert!(out.join("distances.gsd").exists());
    let listing = text(&first.stdout);
    // turnstyle-storer.txt: the adjacent swap of 8 pieces takes 18 moves.
    assert!(listing.contains("18 moves, optimal"), "{listing}");
    let lines: Vec<&str> = listing.lines().collect();
    assert_eq!(lines[0], "0: 2 1 3 4 5 6 7 8");
    // Each line is the one before with its move applied (the seeds' moves), the last solved.
    let mut state = pieces(&lines[0][3..]);
    for line in &lines[1..19] {
        let (head, rest) = line.split_once(": ").unwrap();
        let (_, name) = head.split_once('-').unwrap();
        state = turnstyle_move(&state, name);
        assert_eq!(state, pieces(rest), "{line}");
    }
    assert_eq!(state, (1..=8).collect::<Vec<u32>>());
    // Scripts get the moves alone; the file is not searched again.
    let moves = gpusearch(&[
        "solve",
        "--puzzle",
        "turnstyle",
        "--n",
        "8",
        "--out",
        o,
        "--moves-only",
        "--state",
        "2,1,3,4,5,6,7,8",
    ]);
    assert!(!text(&moves.stderr).contains("searching"));
    assert_eq!(text(&moves.stdout).split_whitespace().count(), 18);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn solve_works_for_every_family() {
    let dir = scratch("solve-families");
    let puzzles = concat!(env!("CARGO_MANIFEST_DIR"), "/puzzles");
    let key = format!("{puzzles}/free-the-key.txt");
    let cases: Vec<(Vec<&str>, &str, usize)> = vec![
        // The seeds: the rings' all-on start is 42 moves away (chinese-rings-patience.txt).
        (vec!["--puzzle", "rings", "--n", "6"], "0", 42),
        (vec!["--puzzle", "rings", "--n", "6"], "0 0 0 0 0 0", 42),
        (
            vec![
                "--puzzle", "rotation", "--rows", "2", "--cols", "3", "--block", "2",
            ],
            "4 1 3 5 2 6",
            1,
        ),
        (vec!["--puzzle", "topspin", "--n", "6"], "4 3 2 1 5 6", 1),
        (
            vec!["--puzzle", "perm", "--gens", "(1,2); (1,2,3,4,5)"],
            "2 1 3 4 5",
            1,
        ),
        // The key's start (position 0, rotation 0) in the example file: 44 moves off.
        (vec!["--puzzle", "key", "--def", &key], "0 0", 44),
        // The tower of 5 discs on the fourth peg: the Frame-Stewart number, 13 moves.
        (
            vec!["--puzzle", "hanoi", "--pegs", "4", "--discs", "5"],
            "4 4 4 4 4",
            13,
        ),
    ];
    for (i, (puzzle, state, length)) in cases.into_iter().enumerate() {
        let out = dir.join(format!("run{i}"));
        let mut args = vec!["solve"];
        args.extend(&puzzle);
        args.extend([
            "--out",
            out.to_str().unwrap(),
            "--quiet",
            "--moves-only",
            "--state",
            state,
        ]);
        let moves = ok(&args);
        assert_eq!(
            moves.split_whitespace().count(),
            length,
            "{puzzle:?} {state}: {moves}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// In a directed graph (LX 8: the left shift and the first swap, one way) `solve` lists the
/// moves from the start to the position, as many as a naive search's distance (32 for the
/// reversed arrangement), and the moves it prints make the position again.
#[test]
fn solve_in_a_directed_graph_lists_the_moves_from_the_start() {
    let dir = scratch("solve-directed");
    let out = dir.join("lx8");
    let o = out.to_str().unwrap();
    let lx = [
        "--puzzle",
        "perm",
        "--gens",
        "(1,2,3,4,5,6,7,8); (1,2)",
        "--directed",
    ];
    let solve = |position: &[&str]| {
        let mut args = vec!["solve"];
        args.extend(lx);
        args.extend(["--out", o, "--quiet"]);
        args.extend(position);
        ok(&args)
    };
    let listing = solve(&["--state", "8 7 6 5 4 3 2 1"]);
    let lines: Vec<&str> = listing.lines().collect();
    assert_eq!(lines[0], "0: 1 2 3 4 5 6 7 8", "{listing}");
    assert!(lines[32].ends_with(": 8 7 6 5 4 3 2 1"), "{listing}");
    assert!(
        lines[33].starts_with("32 moves") && lines[33].contains("from the start to the position"),
        "{listing}"
    );
    let moves: Vec<&str> = (lines[1..33].iter())
        .map(|l| l.split(['-', ':']).nth(1).unwrap())
        .collect();
    let again = solve(&["--moves", &moves.join(" ")]);
    assert!(again.ends_with(": 8 7 6 5 4 3 2 1\n32 moves, optimal in the directed metric (the moves go one way: from the start to the position)\n"), "{again}");
    // Only the generators are moves: their inverses are not.
    let refused = gpusearch(&[
        "solve",
        "--puzzle",
        "perm",
        "--gens",
        "(1,2,3,4,5,6,7,8); (1,2)",
        "--directed",
        "--out",
        o,
        "--moves",
        "g1'",
    ]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("no move 'g1''"),
        "{}",
        text(&refused.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn solve_refuses_invalid_states() {
    let dir = scratch("solve-bad");
    let t9 = dir.join("t9");
    let t6 = dir.join("t6");
    ok(&[
        "--puzzle",
        "turnstyle",
        "--n",
        "9",
        "--out",
        t9.to_str().unwrap(),
        "--quiet",
    ]);
    ok(&[
        "--puzzle",
        "turnstyle",
        "--n",
        "6",
        "--out",
        t6.to_str().unwrap(),
        "--quiet",
    ]);
    let base = |out: &Path, n: &'static str, state: &'static str| -> Vec<String> {
        [
            "solve",
            "--puzzle",
            "turnstyle",
            "--n",
            n,
            "--quiet",
            "--state",
            state,
            "--out",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([out.to_str().unwrap().to_string()])
        .collect()
    };
    for (state, needle) in [
        ("1 2 3 4 5 6 7 8", "has 8 pieces but this puzzle has 9"),
        ("1 2 3 4 5 6 7 8 8", "not a permutation"),
        ("1 2 3 4 5 6 7 8 10", "is not a piece"),
        ("2 1 3 4 5 6 7 8 9", "odd permutation"),
        ("1 2 x 4 5 6 7 8 9", "is not a piece"),
    ] {
        let args = base(&t9, "9", state);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        fails(&args, 2, needle);
    }
    // Turnstyle with 6 pieces reaches 120 of its 720 positions: pick one it does not.
    let space = Ring::turnstyle(6, Metric::Lrf).unwrap();
    let outcome = search(&space, &Options::default(), &Silent);
    let unreachable = (0..space.size())
        .find(|&r| outcome.table.get(r) == UNREACHED)
        .unwrap();
    let state: Vec<String> = space
        .state(unreachable)
        .iter()
        .map(u32::to_string)
        .collect();
    let state = state.join(" ");
    let out = t6.to_str().unwrap();
    fails(
        &[
            "solve",
            "--puzzle",
            "turnstyle",
            "--n",
            "6",
            "--quiet",
            "--out",
            out,
            "--state",
            &state,
        ],
        2,
        "cannot be reached",
    );
    // A folder holding another puzzle's file.
    fails(
        &[
            "solve",
            "--puzzle",
            "turnstyle",
            "--n",
            "6",
            "--metric",
            "flips",
            "--out",
            out,
            "--state",
            "1 2 3 4 5 6",
        ],
        2,
        "another puzzle",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Writes `table` (as read from `good`) back with its header's facts, so that every checksum
/// holds: corruption that only the invariants can see.
fn rewrite(good: &Path, bad: &Path, edit: impl FnOnce(&mut store::Header, &mut Vec<u8>)) {
    let (mut header, table) = store::read(good).unwrap();
    let mut bytes = Vec::new();
    table
        .append_le_bytes(0..table.word_count(), &mut bytes)
        .unwrap();
    edit(&mut header, &mut bytes);
    let table = gpusearch::table::DistanceTable::from_le_bytes(header.entries, &bytes);
    let mut file = std::fs::File::create(bad).unwrap();
    let starts = if header.solved_ranks.is_empty() {
        vec![header.solved_rank]
    } else {
        header.solved_ranks.clone()
    };
    store::write(
        &mut file,
        &header.puzzle,
        &starts,
        &header.levels.levels(),
        &table,
        // No frame held: every chunk is compressed twice, as the lean strategy writes.
        0,
    )
    .unwrap();
}

#[test]
fn verify_passes_sound_files_and_finds_corruption() {
    let dir = scratch("verify");
    let good_dir = dir.join("good");
    let g = good_dir.to_str().unwrap();
    ok(&["--puzzle", "turnstyle", "--n", "8", "--out", g, "--quiet"]);
    let good = good_dir.join("distances.gsd");
    let report = ok(&["verify", good.to_str().unwrap()]);
    assert!(report.contains("sound"), "{report}");
    let bytes = std::fs::read(&good).unwrap();

    let bad = |name: &str| dir.join(name);
    // A flipped byte inside a chunk; a cut file; a foreign file.
    let mut flipped = bytes.clone();
    let at = bytes.len() - 100;
    flipped[at] ^= 0x40;
    std::fs::write(bad("flipped.gsd"), &flipped).unwrap();
    std::fs::write(bad("cut.gsd"), &bytes[..bytes.len() / 2]).unwrap();
    std::fs::write(bad("magic.gsd"), b"not a distances file at all").unwrap();
    // Checksums that hold over a wrong table: two entries of different values swapped.
    rewrite(&good, &bad("swapped.gsd"), |_, table| {
        let entry = |t: &[u8], r: usize| (t[r / 4] >> (2 * (r % 4))) & 3;
        let a = 5;
        let b = (6..32_000)
            .find(|&r| entry(table, r) != entry(table, a))
            .unwrap();
        let (va, vb) = (entry(table, a), entry(table, b));
        for (r, v) in [(a, vb), (b, va)] {
            table[r / 4] = (table[r / 4] & !(3 << (2 * (r % 4)))) | (v << (2 * (r % 4)));
        }
    });
    // The header's levels changed; its rank order changed.
    rewrite(&good, &bad("levels.gsd"), |header, _| {
        let mut levels = header.levels.levels.clone().unwrap();
        levels[3] += 1;
        levels[4] -= 1;
        header.levels.levels = Some(levels);
    });
    rewrite(&good, &bad("order.gsd"), |header, _| {
        header.puzzle.rank_order.push_str(" (read backwards)");
    });
    for (name, needle) in [
        ("flipped.gsd", "fails its SHA-256 checksum"),
        ("cut.gsd", "cut short"),
        ("magic.gsd", "bad magic"),
        ("swapped.gsd", "rank "),
        ("levels.gsd", "header's levels"),
        ("order.gsd", "rank order"),
    ] {
        let path = bad(name);
        fails(&["verify", "--quiet", path.to_str().unwrap()], 1, needle);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn verify_rebuilds_a_definition_that_ends_in_blank_lines() {
    // The header keeps the definition line by line; the file's last line being blank (as many
    // editors leave it) must not make the rebuilt puzzle's description differ.
    let dir = scratch("verify-def");
    for (name, text) in [
        (
            "cycles.tws",
            "Name Cycles\nSet P 6 1\nMove A\nP\n2 3 1 4 5 6\nEnd\nMove B\nP\n1 2 4 5 6 3\nEnd\n\n",
        ),
        (
            "twists.tws",
            "Set C 4 3\nMove T\nC\n2 3 4 1\n1 0 2 0\nEnd\nMove S\nC\n2 1 3 4\n0 0 0 0\nEnd\n\n\n",
        ),
    ] {
        let def = dir.join(name);
        std::fs::write(&def, text).unwrap();
        let out = dir.join(name.replace(".tws", ""));
        ok(&[
            "--puzzle",
            "perm",
            "--def",
            def.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ]);
        let report = ok(&["verify", out.join("distances.gsd").to_str().unwrap()]);
        assert!(report.contains("sound"), "{name}: {report}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Starts a run, kills it with SIGKILL once `level` levels are done (each saved as a
/// checkpoint), resumes it, and returns its distances file.
fn kill_and_resume(args: &[&str], out: &Path, level: u32) -> Vec<u8> {
    let o = out.to_str().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_gpusearch"))
        .args(args)
        .args(["--out", o, "--checkpoint-every", "0"])
        .env("NODEVICE_SELECT", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let wanted = format!("level {level:>3}:");
    for line in stderr.lines() {
        if line.unwrap().contains(&wanted) {
            break;
        }
    }
    child.kill().unwrap(); // SIGKILL: no handler runs, nothing is cleaned up
    assert!(!child.wait().unwrap().success(), "killed before the end");
    assert!(out.join("checkpoint.gsc").exists(), "a checkpoint was left");
    assert!(!out.join("distances.gsd").exists());
    // Without --resume the checkpoint is not thrown away.
    fails(
        &[args, &["--out", o, "--quiet"][..]].concat(),
        2,
        "--resume",
    );
    ok(&[args, &["--out", o, "--quiet", "--resume"][..]].concat());
    assert!(
        !out.join("checkpoint.gsc").exists(),
        "the checkpoint is gone once done"
    );
    let leftovers: Vec<_> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    std::fs::read(out.join("distances.gsd")).unwrap()
}

#[test]
fn a_killed_cpu_run_resumes_to_the_same_file() {
    let dir = scratch("resume-cpu");
    let clean = dir.join("clean");
    let base = ["--puzzle", "turnstyle", "--n", "10", "--backend", "cpu"];
    ok(&[&base[..], &["--out", clean.to_str().unwrap(), "--quiet"]].concat());
    let resumed = kill_and_resume(&base, &dir.join("killed"), 20);
    assert!(
        resumed == std::fs::read(clean.join("distances.gsd")).unwrap(),
        "byte for byte"
    );
    // --resume where there is nothing to resume.
    fails(
        &[&base[..], &["--out", clean.to_str().unwrap(), "--resume"]].concat(),
        2,
        "no checkpoint",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether a Vulkan adapter is there; without one the GPU tests skip, unless
/// `GPUSEARCH_REQUIRE_GPU` is set.
fn gpu_present() -> bool {
    let gpu = gpusearch::gpu::Gpu::open(gpusearch::gpu::Adapters::Any).unwrap();
    if gpu.is_none() {
        assert!(
            std::env::var_os("GPUSEARCH_REQUIRE_GPU").is_none(),
            "GPUSEARCH_REQUIRE_GPU is set but there is no Vulkan adapter"
        );
        eprintln!("SKIPPED: no Vulkan adapter with 64-bit shader integers");
    }
    gpu.is_some()
}

#[test]
fn a_killed_gpu_run_whose_table_stays_on_the_device_resumes_within_its_budget() {
    if !gpu_present() {
        return;
    }
    let dir = scratch("resume-device");
    let base = ["--puzzle", "turnstyle", "--n", "10", "--backend", "gpu"];
    // A budget that holds the lean plan less half its table: only the device keeps the table,
    // and the checkpoint goes back to it chunk by chunk.
    let plan = ok(&[
        &base[..],
        &["--dry-run", "--memory", "1TiB", "--strategy", "lean"],
    ]
    .concat());
    let bytes_of = |what: &str| -> u64 {
        let line = plan
            .lines()
            .find(|l| l.trim_start().starts_with(what))
            .unwrap();
        let at = line.rfind('(').unwrap();
        line[at + 1..].split(' ').next().unwrap().parse().unwrap()
    };
    let budget = (bytes_of("total") - bytes_of("table (2 bits an entry)") / 2).to_string();
    let args = [&base[..], &["--memory", &budget]].concat();
    let resumed = kill_and_resume(&args, &dir.join("killed"), 14);
    let clean = dir.join("clean");
    let o = clean.to_str().unwrap();
    ok(&[
        "--puzzle",
        "turnstyle",
        "--n",
        "10",
        "--backend",
        "cpu",
        "--quiet",
        "--out",
        o,
    ]);
    assert!(
        resumed == std::fs::read(clean.join("distances.gsd")).unwrap(),
        "byte for byte"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_killed_gpu_run_resumes_to_the_same_file() {
    if !gpu_present() {
        return;
    }
    let dir = scratch("resume-gpu");
    let clean = dir.join("clean");
    ok(&[
        "--puzzle",
        "turnstyle",
        "--n",
        "9",
        "--backend",
        "cpu",
        "--out",
        clean.to_str().unwrap(),
        "--quiet",
    ]);
    let base = [
        "--puzzle",
        "turnstyle",
        "--n",
        "9",
        "--backend",
        "gpu",
        "--gpu-window-bytes",
        "12288",
    ];
    let resumed = kill_and_resume(&base, &dir.join("killed"), 14);
    assert!(
        resumed == std::fs::read(clean.join("distances.gsd")).unwrap(),
        "byte for byte"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn solve_takes_the_position_as_moves() {
    let dir = scratch("solve-moves");
    let out = dir.join("cube");
    let def = concat!(env!("CARGO_MANIFEST_DIR"), "/puzzles/cube-2x2x2.tws");
    let solve = |moves: &str| {
        gpusearch(&[
            "solve",
            "--puzzle",
            "perm",
            "--def",
            def,
            "--out",
            out.to_str().unwrap(),
            "--quiet",
            "--moves-only",
            "--moves",
            moves,
        ])
    };
    let first = solve("R U");
    assert!(first.status.success(), "{}", text(&first.stderr));
    assert_eq!(text(&first.stdout).trim(), "U' R'");
    // In htm, R2 is one move.
    assert_eq!(text(&solve("R R").stdout).trim(), "R2");
    assert_eq!(text(&solve("").stdout).trim(), "");
    let bad = solve("R X");
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("no move 'X'"),
        "{}",
        text(&bad.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
