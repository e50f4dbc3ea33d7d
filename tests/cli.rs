//! The command line end to end: output files, determinism, bad input, interrupts.

mod common;
use common::{gpusearch, scratch};
use gpusearch::store;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::Path;
use std::process::Command;

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

fn run_ok(args: &[&str]) {
    let out = gpusearch(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_run_writes_reports_and_a_readable_distances_file() {
    let dir = scratch("files");
    let out = dir.join("run");
    let out_s = out.to_str().unwrap();
    run_ok(&[
        "--puzzle",
        "turnstyle",
        "--n",
        "8",
        "--out",
        out_s,
        "--quiet",
    ]);
    assert_eq!(
        files_in(&out),
        [
            "distances.gsd",
            "levels.csv",
            "levels.svg",
            "report.json",
            "report.md"
        ]
    );
    let svg = std::fs::read_to_string(out.join("levels.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(
        svg.matches("<rect x=").count(),
        25,
        "a bar per distance, 0 to 24"
    );
    // Every level is visible, those of one position (distance 0) included.
    for bar in svg.split("<rect x=").skip(1) {
        let height: f64 = bar
            .split("height=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(height >= 2.0, "a bar {height} px high: {bar}");
    }
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    for key in [
        "puzzle",
        "params",
        "metric",
        "moves",
        "rank_space",
        "reachable",
        "levels",
        "diameter",
        "antipode_count",
        "antipodes",
        "backend",
        "threads",
        "seconds",
        "states_per_second",
        "version",
        "distances_file",
        "distances_sha256",
    ] {
        assert!(report.get(key).is_some(), "report.json lacks {key}");
    }
    assert_eq!(report["puzzle"], "turnstyle");
    assert_eq!(report["params"]["n"], 8);
    assert_eq!(report["metric"], "lrf");
    assert_eq!(report["moves"], serde_json::json!(["L", "R", "F"]));
    assert_eq!(report["rank_space"], 40320);
    assert_eq!(report["reachable"], 40320);
    let levels: Vec<u64> = serde_json::from_value(report["levels"].clone()).unwrap();
    assert_eq!(levels.iter().sum::<u64>(), 40320);
    assert_eq!(report["diameter"], levels.len() - 1);
    assert_eq!(report["antipode_count"], *levels.last().unwrap());

    // levels.csv and report.md say the same.
    let csv = std::fs::read_to_string(out.join("levels.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows[0], "distance,count");
    assert_eq!(rows.len(), levels.len() + 1);
    assert_eq!(rows[1 + 18], format!("18,{}", levels[18]));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains(&format!(
        "| diameter (God's number) | {} |",
        levels.len() - 1
    )));

    // The distances file: its SHA-256 is the one reported, and it reads back (chunk checksums
    // checked) to a table whose counts agree.
    let bytes = std::fs::read(out.join("distances.gsd")).unwrap();
    let sha: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(report["distances_sha256"], sha);
    let (header, table) = store::read(&out.join("distances.gsd")).unwrap();
    assert_eq!(header.entries, 40320);
    assert_eq!(header.levels.levels.as_deref(), Some(&levels[..]));
    let hist = table.histogram();
    for (v, &count) in hist.iter().take(3).enumerate() {
        let want: u64 = levels.iter().skip(v).step_by(3).sum();
        assert_eq!(count, want, "entries holding {v}");
    }
    assert_eq!(hist[3], 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_distances_file_reads_without_our_code() {
    // Follow the README's description with nothing but zstd and a JSON parser.
    let dir = scratch("format");
    let out = dir.join("run");
    run_ok(&[
        "--puzzle",
        "turnstyle",
        "--n",
        "7",
        "--metric",
        "flips",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    let bytes = std::fs::read(out.join("distances.gsd")).unwrap();
    assert_eq!(&bytes[..8], b"GSD2BIT\n");
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 1);
    let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let header: Value = serde_json::from_slice(&bytes[16..16 + len]).unwrap();
    let entries = header["entries"].as_u64().unwrap();
    assert_eq!(entries, 360); // 6!/2
    let mut at = 16 + len;
    let mut table = Vec::new();
    for chunk in header["chunks"].as_array().unwrap() {
        let n = chunk["compressed_bytes"].as_u64().unwrap() as usize;
        table.extend(zstd::decode_all(&bytes[at..at + n]).unwrap());
        at += n;
    }
    assert_eq!(at, bytes.len());
    assert_eq!(table.len() as u64, entries.div_ceil(4));
    let entry = |r: u64| (table[(r / 4) as usize] >> (2 * (r % 4))) & 3;
    assert_eq!(entry(header["solved_rank"].as_u64().unwrap()), 0);
    let levels: Vec<u64> = serde_json::from_value(header["levels"].clone()).unwrap();
    let zeros = (0..entries).filter(|&r| entry(r) == 0).count() as u64;
    assert_eq!(zeros, levels.iter().step_by(3).sum::<u64>());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn runs_are_deterministic_across_thread_counts() {
    let dir = scratch("determinism");
    let mut outputs = Vec::new();
    for (i, threads) in ["1", "2", "3"].iter().enumerate() {
        let out = dir.join(format!("run{i}"));
        run_ok(&[
            "--puzzle",
            "turnstyle",
            "--n",
            "9",
            "--threads",
            threads,
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ]);
        let mut report: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap())
                .unwrap();
        for timing in ["seconds", "states_per_second", "threads"] {
            report.as_object_mut().unwrap().remove(timing);
        }
        outputs.push((
            std::fs::read(out.join("distances.gsd")).unwrap(),
            std::fs::read(out.join("levels.csv")).unwrap(),
            report,
        ));
    }
    assert!(outputs.windows(2).all(|w| w[0] == w[1]));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Asserts a one-line error, exit status 2, and no files written into `out`.
fn refused(args: &[&str], out: &Path, needle: &str) {
    let result = gpusearch(args);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains(needle), "{args:?}: {stderr}");
    assert!(
        files_in(out).is_empty(),
        "{args:?} left {:?}",
        files_in(out)
    );
}

#[test]
fn bad_input_is_refused_with_one_line_and_exit_2() {
    let dir = scratch("bad");
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let o = out.to_str().unwrap();
    let base = ["--puzzle", "turnstyle", "--out", o, "--quiet"];
    let with = |extra: &[&'static str]| -> Vec<&str> {
        base.iter().copied().chain(extra.iter().copied()).collect()
    };
    refused(&with(&["--n", "3"]), &out, "4 <= N <= 16");
    refused(&with(&["--n", "17"]), &out, "4 <= N <= 16");
    refused(&with(&["--n", "x"]), &out, "--n");
    refused(
        &with(&["--n", "8", "--metric", "qtm"]),
        &out,
        "--metric qtm: unknown metric",
    );
    refused(&with(&["--n", "8", "--threads", "0"]), &out, "--threads");
    refused(
        &with(&["--n", "8", "--backend", "tpu"]),
        &out,
        "invalid value 'tpu' for '--backend",
    );
    refused(&with(&["--n", "16"]), &out, "bytes");
    refused(
        &["--puzzle", "cube", "--n", "8", "--out", o],
        &out,
        "unknown puzzle 'cube'",
    );
    refused(&["--puzzle", "turnstyle", "--out", o], &out, "--n");
    // An output folder that cannot be created: its parent is a file.
    let file = dir.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let under_file = file.join("out");
    refused(
        &[
            "--puzzle",
            "turnstyle",
            "--n",
            "6",
            "--out",
            under_file.to_str().unwrap(),
        ],
        &out,
        "cannot write to the output folder",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_interrupted_run_leaves_no_half_written_file() {
    let dir = scratch("interrupt");
    // Interrupt runs at different moments: during the search and while files are written.
    for (i, delay_ms) in [50u64, 200, 400, 700, 1000].iter().enumerate() {
        let out = dir.join(format!("run{i}"));
        let mut child = Command::new(env!("CARGO_BIN_EXE_gpusearch"))
            .args(["--puzzle", "turnstyle", "--n", "10", "--quiet", "--out"])
            .arg(&out)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(*delay_ms));
        let _ = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status();
        let status = child.wait().unwrap();
        let files = files_in(&out);
        assert!(
            files.iter().all(|f| !f.starts_with('.')),
            "temporary files left: {files:?}"
        );
        if status.success() {
            continue; // finished before the signal
        }
        assert_eq!(status.code(), Some(130));
        // Whatever was written is complete.
        if files.contains(&"distances.gsd".to_string()) {
            store::read(&out.join("distances.gsd")).unwrap();
        }
        if files.contains(&"report.json".to_string()) {
            let text = std::fs::read_to_string(out.join("report.json")).unwrap();
            serde_json::from_str::<Value>(&text).unwrap();
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_family_runs_from_the_command_line() {
    let dir = scratch("families");
    let puzzles = concat!(env!("CARGO_MANIFEST_DIR"), "/puzzles");
    let key_def = format!("{puzzles}/free-the-key.txt");
    let tws_def = format!("{puzzles}/turnstyle-8.tws");
    let cases: Vec<(Vec<&str>, &str, u64)> = vec![
        (vec!["--puzzle", "topspin", "--n", "7"], "topspin", 2520),
        // k = 3 swaps positions 0 and 2: pieces keep the parity of their place (3! 3! 2).
        (
            vec!["--puzzle", "topspin", "--n", "6", "--k", "3"],
            "topspin",
            72,
        ),
        (
            vec![
                "--puzzle", "rotation", "--rows", "2", "--cols", "3", "--block", "2",
            ],
            "rotation",
            120,
        ),
        (vec!["--puzzle", "rings", "--n", "8"], "rings", 256),
        // Turnstyle with 6 pieces: the moves generate a group of 120 (the table has 120 entries).
        (
            vec!["--puzzle", "perm", "--gens", "(1,2)(3,4); (1,2,3,4,5,6)"],
            "perm",
            120,
        ),
        (vec!["--puzzle", "perm", "--def", &tws_def], "perm", 40320),
        (vec!["--puzzle", "key", "--def", &key_def], "key", 157),
    ];
    for (i, (args, family, reachable)) in cases.into_iter().enumerate() {
        let out = dir.join(format!("run{i}"));
        let mut all = args.clone();
        all.extend(["--out", out.to_str().unwrap(), "--quiet"]);
        let result = gpusearch(&all);
        assert!(
            result.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&result.stderr)
        );
        let report: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap())
                .unwrap();
        assert_eq!(report["puzzle"], family, "{args:?}");
        assert_eq!(report["reachable"], reachable, "{args:?}");
        if family == "perm" {
            assert_eq!(report["group_order"], reachable, "{args:?}");
        }
        store::read(&out.join("distances.gsd")).unwrap();
        if family == "key" {
            let stdout = String::from_utf8_lossy(&result.stdout);
            assert!(
                stdout.contains("moves from the start to off the key"),
                "{stdout}"
            );
            let maze = std::fs::read_to_string(out.join("maze.txt")).unwrap();
            assert!(maze.contains('S') && maze.contains('*') && maze.contains('#'));
            let (header, _) = store::read(&out.join("distances.gsd")).unwrap();
            assert_eq!(
                header.solved_ranks.len(),
                16,
                "every off-the-key rotation is solved"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn long_paths_write_their_levels_as_runs() {
    let dir = scratch("runs");
    let out = dir.join("rings");
    run_ok(&[
        "--puzzle",
        "rings",
        "--n",
        "17",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert!(report.get("levels").is_none());
    assert_eq!(
        report["level_runs"],
        serde_json::json!([{"count": 1, "repeat": 131072}])
    );
    assert_eq!(report["diameter"], 131071);
    let csv = std::fs::read_to_string(out.join("levels.csv")).unwrap();
    assert_eq!(csv, "first_distance,last_distance,count\n0,131071,1\n");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_puzzle_options_are_refused_with_one_line_and_exit_2() {
    let dir = scratch("bad-families");
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let o = out.to_str().unwrap();
    let bad_tws = dir.join("bad.tws");
    std::fs::write(&bad_tws, "Set P 3 1\nMove A\nP\n1 2 2\nEnd\n").unwrap();
    let bad_key = dir.join("bad-key.txt");
    std::fs::write(&bad_key, "above 0 1\nbelow 0 1\ndisk 1 2 3\n").unwrap();
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["--puzzle", "perm", "--gens", "(1,2"],
            "column 5".into(),
        ),
        (
            vec!["--puzzle", "perm", "--gens", "(1,2)(2,3)"],
            "appears twice".into(),
        ),
        (
            vec!["--puzzle", "perm", "--def", bad_tws.to_str().unwrap()],
            format!("{}:4:5: 2 appears twice", bad_tws.display()),
        ),
        (
            vec!["--puzzle", "key", "--def", bad_key.to_str().unwrap()],
            format!("{}:3:1:", bad_key.display()),
        ),
        (vec!["--puzzle", "perm"], "needs --gens".into()),
        (
            vec!["--puzzle", "perm", "--def", "/nonexistent.tws"],
            "cannot read the definition".into(),
        ),
        (
            vec!["--puzzle", "rings", "--n", "8", "--k", "3"],
            "does not take --k".into(),
        ),
        (
            vec!["--puzzle", "rings", "--n", "40"],
            "1 <= N <= 34".into(),
        ),
        (
            vec!["--puzzle", "rotation", "--rows", "3", "--cols", "3"],
            "needs --block".into(),
        ),
        (
            vec![
                "--puzzle", "rotation", "--rows", "3", "--cols", "3", "--block", "4",
            ],
            "does not fit".into(),
        ),
        (
            vec![
                "--puzzle", "rotation", "--rows", "5", "--cols", "5", "--block", "2",
            ],
            "25 squares".into(),
        ),
        (
            vec!["--puzzle", "topspin", "--n", "6", "--k", "9"],
            "--k 9".into(),
        ),
        (vec!["--puzzle", "key"], "needs --def".into()),
        (
            vec!["--puzzle", "rings", "--n", "8", "--backend", "gpu"],
            "no GPU shader".into(),
        ),
        (
            vec!["--puzzle", "cube"],
            "turnstyle, topspin, rotation, perm, rings, key".into(),
        ),
    ];
    for (args, needle) in cases {
        let mut all = args.clone();
        all.extend(["--out", o, "--quiet"]);
        refused(&all, &out, &needle);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_report_alone_names_no_file_and_has_the_levels_of_a_whole_run() {
    let out = scratch("report-only").join("run");
    let args = [
        "--puzzle",
        "turnstyle",
        "--n",
        "8",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ];
    let plan = |extra: &[&str]| {
        let done = gpusearch(&[&args[..], &["--report-only", "--dry-run"], extra].concat());
        String::from_utf8_lossy(&done.stdout).to_string()
    };
    let in_memory = plan(&[]);
    assert!(
        in_memory.contains("the report alone, no distances file and no checkpoints"),
        "{in_memory}"
    );
    // From slabs on disk (forced small): the slabs, and no file beside them.
    let from_disk = plan(&["--slab-bytes", "2000"]);
    assert!(from_disk.contains("disk: no distances file"), "{from_disk}");
    run_ok(&args);
    let read = || -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap()
    };
    let whole = read();
    // The report alone replaces the result, the earlier run's distances file with it.
    run_ok(&[&args[..], &["--report-only"]].concat());
    assert_eq!(
        files_in(&out),
        ["levels.csv", "levels.svg", "report.json", "report.md"]
    );
    let alone = read();
    assert_eq!(whole["levels"], alone["levels"]);
    assert_eq!(whole["antipodes"], alone["antipodes"]);
    assert!(alone.get("distances_sha256").is_none(), "{alone}");
    assert!(alone.get("distances_file").is_none(), "{alone}");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("none: the report alone was asked for"), "{md}");
}
