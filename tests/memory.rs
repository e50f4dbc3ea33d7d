//! The memory budget from the command line: the plan, the lean strategy giving the same files as
//! the full one for every family, refusals, and what a batch user meets first (SIGTERM, stale
//! temporary files, the default output folder).

mod common;
use common::{gpusearch, gpusearch_in, scratch};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The report without its timing and machine fields.
fn report_facts(folder: &Path) -> Value {
    let mut report: Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("report.json")).unwrap())
            .unwrap();
    for field in [
        "seconds",
        "states_per_second",
        "threads",
        "backend",
        "adapter",
    ] {
        report.as_object_mut().unwrap().remove(field);
    }
    report
}

#[test]
fn the_lean_strategy_writes_the_same_files_for_every_family() {
    let dir = scratch("lean");
    let puzzles = concat!(env!("CARGO_MANIFEST_DIR"), "/puzzles");
    let key_def = format!("{puzzles}/free-the-key.txt");
    let tws_def = format!("{puzzles}/turnstyle-8.tws");
    let cases: Vec<Vec<&str>> = vec![
        vec!["--puzzle", "turnstyle", "--n", "9"],
        vec!["--puzzle", "turnstyle", "--n", "10", "--metric", "flips"],
        vec!["--puzzle", "topspin", "--n", "9"],
        vec![
            "--puzzle", "rotation", "--rows", "3", "--cols", "3", "--block", "2",
        ],
        vec!["--puzzle", "rings", "--n", "12"],
        vec![
            "--puzzle",
            "perm",
            "--gens",
            "(1,2)(3,4); (1,2,3,4,5,6,7,8)",
        ],
        vec!["--puzzle", "perm", "--def", &tws_def],
        vec!["--puzzle", "key", "--def", &key_def],
    ];
    for (i, args) in cases.iter().enumerate() {
        let mut files = Vec::new();
        for strategy in ["full", "lean"] {
            let out = dir.join(format!("run{i}-{strategy}"));
            let mut all = args.clone();
            all.extend(["--strategy", strategy, "--quiet", "--out"]);
            all.push(out.to_str().unwrap());
            let result = gpusearch(&all);
            assert!(result.status.success(), "{all:?}: {}", stderr(&result));
            files.push((
                std::fs::read(out.join("distances.gsd")).unwrap(),
                report_facts(&out),
                std::fs::read(out.join("levels.csv")).unwrap(),
            ));
        }
        assert!(files[0].0 == files[1].0, "{args:?}: distances files differ");
        assert_eq!(files[0].1, files[1].1, "{args:?}: reports differ");
        assert_eq!(files[0].2, files[1].2, "{args:?}: levels differ");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_budget_picks_the_strategy_and_says_why() {
    let dir = scratch("budget");
    let out = dir.join("run");
    let o = out.to_str().unwrap();
    // Turnstyle 12: a 114 MiB table; full needs about 2.1x the table beside fixed room, lean
    // about the table.
    let plan = |memory: &str| dry_run(&["--puzzle", "turnstyle", "--n", "12", "--memory", memory]);
    let text = plan("330MiB");
    assert!(text.contains("strategy: lean"), "{text}");
    assert!(text.contains("table (2 bits an entry)"), "{text}");
    assert!(text.contains("free disk needed"), "{text}");
    assert!(plan("4GiB").contains("strategy: full"));
    // A dry run of any size exits 0 and writes nothing, even where the run would be refused.
    for n in ["15", "16"] {
        let plan = gpusearch(&["--puzzle", "turnstyle", "--n", n, "--dry-run", "--out", o]);
        let text = String::from_utf8_lossy(&plan.stdout);
        assert!(plan.status.success(), "{}", stderr(&plan));
        // In memory, or (beyond the memory available) in slabs on disk.
        assert!(
            (text.contains("memory plan") || text.contains("disk tier"))
                && text.contains("checkpoint"),
            "{text}"
        );
        assert!(!out.exists(), "a dry run wrote {}", out.display());
    }
    // Lean asked for, within a budget: the run finishes.
    let run = gpusearch(&[
        "--puzzle",
        "turnstyle",
        "--n",
        "10",
        "--memory",
        "300MiB",
        "--strategy",
        "lean",
        "--quiet",
        "--out",
        o,
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_dry_run_plans_the_gpu_for_a_given_memory_without_a_device() {
    // Turnstyle 13, 14 and 15 on an 80 GB GPU: 3 bits an entry in windows of at most 4 GiB, and
    // the frontier lists.
    let plan = |n: &str| dry_run(&["--puzzle", "turnstyle", "--n", n, "--gpu-memory", "80GB"]);
    let n13 = plan("13");
    assert!(n13.contains("device plan: 3113510400 entries"), "{n13}");
    assert!(n13.contains("(1167566400 bytes) in 1 window"), "{n13}");
    assert!(n13.contains("(--gpu-memory): fits"), "{n13}");
    let n14 = plan("14");
    assert!(n14.contains("(32691859200 bytes) in 11 windows"), "{n14}");
    assert!(
        n14.contains("frontier lists                   384.0 MiB"),
        "{n14}"
    );
    assert!(
        n14.contains("fits, 43.7 GiB (46905487612 bytes) to spare"),
        "{n14}"
    );
    let n15 = plan("15");
    assert!(n15.contains("(245188944000 bytes) in 77 windows"), "{n15}");
    assert!(
        n15.contains("refused: the table of 653837184000 entries needs 228.7 GiB"),
        "{n15}"
    );
    // Without --gpu-memory and without --backend gpu there is no device part.
    let cpu = gpusearch(&["--puzzle", "turnstyle", "--n", "12", "--dry-run"]);
    assert!(!String::from_utf8_lossy(&cpu.stdout).contains("device plan"));
}

#[test]
fn a_gpu_that_cannot_hold_the_table_sweeps_its_slabs_or_leaves_it_to_the_cpu() {
    let plan = |extra: &[&str]| {
        let base = [
            "--puzzle",
            "turnstyle",
            "--n",
            "14",
            "--memory",
            "6GiB",
            "--threads",
            "2",
        ];
        dry_run(&[&base[..], extra].concat())
    };
    // 2 bits an entry fit 24 GB, but their copy on the host does not fit 6 GiB: with the GPU
    // backend, the GPU sweeps the slabs of the table on disk, each within its memory.
    for memory in ["24GB", "16GiB"] {
        let gpu = plan(&["--backend", "gpu", "--gpu-memory", memory]);
        assert!(gpu.contains("disk tier: the table in 15 slabs"), "{gpu}");
        assert!(
            gpu.contains("the GPU sweeps each slab's block moves"),
            "{gpu}"
        );
        assert!(gpu.contains("device plan: 6147187200 entries"), "{gpu}");
        assert!(!gpu.contains("refused"), "{gpu}");
    }
    // A host that holds the table and its slabs keeps them in memory, the GPU sweeping one at a
    // time (slabs of at most half the GPU's memory at 2 bits an entry).
    let host = dry_run(&[
        "--puzzle",
        "turnstyle",
        "--n",
        "14",
        "--memory",
        "100GiB",
        "--threads",
        "2",
        "--backend",
        "gpu",
        "--gpu-memory",
        "16GiB",
    ]);
    assert!(
        host.contains(
            "host tier: the table in 3 slabs of at most 33530112000 entries in host memory"
        ),
        "{host}"
    );
    assert!(host.contains("checkpoints of the whole table"), "{host}");
    assert!(host.contains("a checkpoint at most 20.3 GiB"), "{host}");
    assert!(host.contains("device plan: 33530112000 entries"), "{host}");
    assert!(!host.contains("refused"), "{host}");
    // Under --backend auto the CPU searches from disk.
    let auto = plan(&["--gpu-memory", "24GB"]);
    assert!(auto.contains("disk tier: the table in 15 slabs"), "{auto}");
    assert!(
        auto.contains("the GPU cannot hold the table: the CPU searches it"),
        "{auto}"
    );
}

/// The plan `--dry-run` prints for `args`, which must succeed.
fn dry_run(args: &[&str]) -> String {
    let result = gpusearch(&[args, &["--dry-run"][..]].concat());
    assert!(result.status.success(), "{}", stderr(&result));
    String::from_utf8_lossy(&result.stdout).into_owned()
}

/// Asserts a one-line error, exit status 2, naming `needles`, and nothing written in `out`.
fn refused(args: &[&str], out: &Path, needles: &[&str]) {
    let result = gpusearch(args);
    let text = stderr(&result);
    assert_eq!(result.status.code(), Some(2), "{args:?}: {text}");
    assert_eq!(text.trim_end().lines().count(), 1, "one line: {text}");
    for needle in needles {
        assert!(text.contains(needle), "{args:?}: {text}");
    }
    assert!(!out.exists(), "{args:?} wrote {}", out.display());
}

#[test]
fn bad_budgets_and_too_little_disk_are_refused_before_anything_is_written() {
    let dir = scratch("refuse");
    let out = dir.join("out");
    let o = out.to_str().unwrap();
    let base = ["--puzzle", "turnstyle", "--n", "10", "--out", o];
    let with = |extra: &[&'static str]| -> Vec<&str> {
        base.iter().copied().chain(extra.iter().copied()).collect()
    };
    refused(
        &with(&["--memory", "lots"]),
        &out,
        &["'lots' is not a size", "22GiB"],
    );
    refused(
        &with(&["--memory", "-3GiB"]),
        &out,
        &["'-3GiB' is not a size"],
    );
    refused(
        &with(&["--memory", "10MiB"]),
        &out,
        &["needs", "budget is 10.0 MiB"],
    );
    // A budget that holds the table but no strategy beside it.
    refused(
        &with(&["--memory", "100MiB", "--strategy", "full"]),
        &out,
        &["the full strategy needs", "budget is 100.0 MiB"],
    );
    // Turnstyle 16 within an (imagined) 100 TiB of memory: 9.5 TiB of disk for the file and a
    // checkpoint, which no test machine has.
    refused(
        &[
            "--puzzle",
            "turnstyle",
            "--n",
            "16",
            "--memory",
            "100TiB",
            "--out",
            o,
        ],
        &out,
        &["free disk", "9.5 TiB"],
    );
    // --resume with nothing to resume leaves no folder behind.
    refused(&with(&["--resume"]), &out, &["no checkpoint"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sigterm_acts_as_ctrl_c_and_says_how_to_resume() {
    let dir = scratch("term");
    let out = dir.join("run");
    let child = Command::new(env!("CARGO_BIN_EXE_gpusearch"))
        .args([
            "--puzzle",
            "turnstyle",
            "--n",
            "11",
            "--checkpoint-every",
            "0",
            "--quiet",
            "--out",
        ])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for a checkpoint, then SIGTERM, as a batch scheduler would.
    let started = std::time::Instant::now();
    while !out.join("checkpoint.gsc").exists() && started.elapsed().as_secs() < 120 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let done = child.wait_with_output().unwrap();
    let text = stderr(&done);
    if done.status.success() {
        return; // finished before the signal: nothing to check
    }
    assert_eq!(done.status.code(), Some(130), "{text}");
    assert!(
        text.contains("interrupted") && text.contains("--resume"),
        "{text}"
    );
    let names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn stale_temporary_files_of_dead_runs_are_removed_and_reported() {
    let dir = scratch("stale");
    let out = dir.join("run");
    std::fs::create_dir_all(&out).unwrap();
    // A process id above the kernel's largest: no such process runs.
    let stale = out.join(".distances.gsd.4194304999.tmp");
    std::fs::write(&stale, b"half a file").unwrap();
    let run = gpusearch(&[
        "--puzzle",
        "turnstyle",
        "--n",
        "7",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(!stale.exists(), "the stale file is still there");
    assert!(stderr(&run).contains("removed"), "{}", stderr(&run));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn runs_write_under_runs_by_default_and_solve_finds_them_there() {
    let dir = scratch("default");
    let run = gpusearch_in(
        Some(&dir),
        &["--puzzle", "turnstyle", "--n", "8", "--quiet"],
    );
    assert!(run.status.success(), "{}", stderr(&run));
    let folder = dir.join("runs").join("turnstyle-n8-lrf");
    assert!(folder.join("distances.gsd").exists());
    assert!(
        !dir.join("results").exists(),
        "a default run wrote results/"
    );
    let solved = gpusearch_in(
        Some(&dir),
        &[
            "solve",
            "--puzzle",
            "turnstyle",
            "--n",
            "8",
            "--state",
            "2 1 3 4 5 6 7 8",
            "--moves-only",
        ],
    );
    assert!(solved.status.success(), "{}", stderr(&solved));
    assert!(!String::from_utf8_lossy(&solved.stdout).trim().is_empty());
    assert!(
        !stderr(&solved).contains("searching"),
        "solve searched again"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn clap_errors_are_one_clear_line() {
    for (args, needle) in [
        (vec!["--puzzle", "turnstyle", "--n", "-5"], "'-5'"),
        (
            vec!["--puzzle", "turnstyle", "--n", "5", "--n", "6"],
            "cannot be used multiple times",
        ),
    ] {
        let result = gpusearch(&args);
        let text = stderr(&result);
        assert_eq!(result.status.code(), Some(2), "{args:?}: {text}");
        assert_eq!(text.trim_end().lines().count(), 1, "{text}");
        assert!(text.contains(needle), "{args:?}: {text}");
        assert!(
            !text.contains("<COMMAND>") && !text.contains("Usage"),
            "{text}"
        );
    }
    // solve --help lists only what solve uses.
    let help = String::from_utf8_lossy(&gpusearch(&["solve", "--help"]).stdout).into_owned();
    for unused in ["--resume", "--checkpoint-every", "--dry-run", "--strategy"] {
        assert!(!help.contains(unused), "solve --help lists {unused}");
    }
    assert!(help.contains("--state") && help.contains("--memory"));
}

#[test]
fn a_twisty_puzzles_move_tables_count_in_the_gpu_plan() {
    // The first "(N bytes)" on a line of the device plan.
    let bytes_on = |plan: &str, label: &str| -> u64 {
        let device = &plan[plan.find("device plan").expect("a device plan")..];
        let line = device.lines().find(|l| l.trim_start().starts_with(label));
        let line = line.unwrap_or_else(|| panic!("no '{label}' line in {plan}"));
        let end = line.find(" bytes)").unwrap();
        let start = line[..end].rfind('(').unwrap() + 1;
        line[start..end].parse().unwrap()
    };
    let def = concat!(env!("CARGO_MANIFEST_DIR"), "/puzzles/pyraminx.tws");
    let plan = |memory: &str| dry_run(&["--puzzle", "perm", "--def", def, "--gpu-memory", memory]);
    let first = plan("80GB");
    let tables = bytes_on(&first, "puzzle tables");
    assert!(tables > 0, "{first}");
    let needed =
        bytes_on(&first, "table and seen bits") + bytes_on(&first, "frontier lists") + tables;
    let exact = plan(&needed.to_string());
    assert!(exact.contains("fits, 0 bytes to spare"), "{exact}");
    // A byte short of 3 bits an entry: 2, and a byte short of those, refused.
    let short = plan(&(needed - 1).to_string());
    assert!(short.contains("table (2 bits, no seen bits)"), "{short}");
    let two = bytes_on(&short, "table (2 bits") + bytes_on(&short, "frontier lists") + tables;
    assert!(plan(&two.to_string()).contains("fits, 0 bytes to spare"));
    let shorter = plan(&(two - 1).to_string());
    assert!(
        shorter.contains("refused: the table of 75582720 entries needs"),
        "{shorter}"
    );
    // A ring puzzle's shader reads no tables of its own.
    let ring = dry_run(&["--puzzle", "turnstyle", "--n", "8", "--gpu-memory", "1GB"]);
    assert!(!ring.contains("puzzle tables"), "{ring}");
}

#[test]
fn the_plan_of_each_process_of_an_mpi_job_is_printed_before_any_is_started() {
    // Turnstyle 12 on 4 processes: slabs of whole arrangements (12 planes of 11! ranks), each
    // 311,850 table words of columns, 12 * 9,979,200 entries.
    let plan = dry_run(&["--puzzle", "turnstyle", "--n", "12", "--processes", "4"]);
    assert!(plan.contains("across 4 MPI processes"), "{plan}");
    assert!(plan.contains("12 planes of 39916800 ranks"), "{plan}");
    assert!(plan.contains("holds 119750400 entries"), "{plan}");
    // Its table (2 bits an entry) and three level bitmaps (1 bit an entry).
    assert!(plan.contains("(29937600 bytes)"), "{plan}");
    assert!(plan.contains("(44906400 bytes)"), "{plan}");
    // A puzzle without planes: ranges of ranks.
    let flips = dry_run(&[
        "--puzzle",
        "turnstyle",
        "--n",
        "10",
        "--metric",
        "flips",
        "--processes",
        "3",
    ]);
    assert!(flips.contains("slabs of ranges of ranks"), "{flips}");
    let dir = scratch("processes");
    let out = dir.join("out");
    let o = out.to_str().unwrap();
    let args = ["--puzzle", "turnstyle", "--n", "9", "--out", o];
    refused(
        &[&args[..], &["--processes", "2"]].concat(),
        &out,
        &["mpirun -np N"],
    );
    refused(
        &[&args[..], &["--dry-run", "--processes", "0"]].concat(),
        &out,
        &["--processes 0"],
    );
}
