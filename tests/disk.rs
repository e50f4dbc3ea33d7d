//! The slabs on disk ([`DiskEngine`]) against the in-memory CPU engine: every family, cut into
//! one to seven slabs, gives the same table, levels and antipodes, from the start and from a
//! checkpoint.

mod common;

use common::{Every, Parts, kill_after_checkpoints, scratch, search_on};
use gpusearch::puzzle::StateSpace;
use gpusearch::puzzle::family::Request;
use gpusearch::puzzle::registry::{self, Visit};
use gpusearch::puzzle::{Metric, Ring};
use gpusearch::search::cpu::CpuEngine;
use gpusearch::search::disk::{Cut, DiskEngine, slab_units};
use gpusearch::search::levels::Levels;
use gpusearch::search::{
    Checkpoints, Footprint, InPlace, Options, PassPolicy, Resume, Saved, Saving,
};
use gpusearch::table::DistanceTable;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Small spaces of every family (the twisty ones through a definition file): each family's
/// samples.
fn requests() -> Vec<Request> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    registry::samples(root)
        .into_iter()
        .map(|(r, _)| r)
        .collect()
}

fn words(table: &DistanceTable) -> Vec<u64> {
    (0..table.word_count()).map(|w| table.word(w)).collect()
}

/// [`check`] on a space of any family.
struct Check<'a>(&'a str);

impl Visit for Check<'_> {
    type Output = (bool, bool);
    fn on<S: StateSpace>(self, space: &S) -> (bool, bool) {
        check(self.0, space)
    }
}

/// The in-memory search of `space` and the disk engine's with 1 to 7 slabs agree, from the start
/// and from the checkpoint after a middle level: cut at table words, and where most moves stay
/// in a slab (some slabs then empty); the first levels as lists or not; the slabs on disk and in
/// host memory. Returns whether a checkpoint of the table was taken up, and whether one of slabs
/// in memory was compared.
fn check<S: StateSpace>(what: &str, space: &S) -> (bool, bool) {
    let options = Options {
        antipode_limit: 50,
        ..Options::default()
    };
    let memory = CpuEngine::new(space, options.footprint, options.antipode_limit);
    let every = Every::default();
    let want = search_on(space, memory, &options, Some(&every), None).unwrap();
    let saved = every.0.into_inner().unwrap();
    let dir = scratch(&format!("disk-{}", what.replace(' ', "-")));
    let mut slabs_resumed = 0;
    let mut held_compared = 0;
    let best = slab_units(space)[0];
    // The first levels as lists in no bytes (none), a few, more, and all of them; rounds of
    // neighbours for other slabs of 64 ranks and more.
    for (slabs, unit, list_bytes, round_bytes) in [
        (1, 32, 0, 64 << 20),
        (2, best, 1 << 12, 1 << 10),
        (3, 32, 1 << 16, 1 << 16),
        (7, best, u64::MAX, 1 << 20),
    ] {
        let cut = Cut {
            slabs,
            unit,
            list_bytes,
            round_bytes,
            in_memory: false,
        };
        // The same slabs held in host memory, whose checkpoints are the table at its last
        // whole level: each equals the in-memory search's at that level, and the search goes on
        // from the middle one.
        let held = Cut {
            in_memory: true,
            ..cut
        };
        let engine = DiskEngine::new(space, held, &dir, options.antipode_limit).unwrap();
        let tables = Every::default();
        let got = search_on(space, engine, &options, Some(&tables), None).unwrap();
        let w = format!("{what}, {slabs} slabs of {unit}-column units in memory");
        assert_eq!(
            (&got.levels, &got.antipodes),
            (&want.levels, &want.antipodes),
            "{w}"
        );
        assert!(
            words(&got.table) == words(&want.table),
            "{w}: the tables differ"
        );
        let tables = tables.0.into_inner().unwrap();
        for (table, levels, _) in &tables {
            let at = (saved.iter()).find(|(_, l, _)| l.len() == levels.len());
            if let Some((memory, ..)) = at {
                assert!(
                    table == memory,
                    "{w}: the checkpoint of level {}",
                    levels.len() - 1
                );
                held_compared += 1;
            }
        }
        if let Some((table, levels, antipodes)) = tables.get(tables.len() / 2).cloned() {
            let resume = Resume {
                table: Saved::Table(Box::new(DistanceTable::from_words(space.size(), table))),
                levels,
                antipodes,
                pass: None,
            };
            let engine = DiskEngine::new(space, held, &dir, options.antipode_limit).unwrap();
            let got = search_on(space, engine, &options, None, Some(resume)).unwrap();
            assert_eq!(got.levels, want.levels, "{w}, resumed");
            assert!(
                words(&got.table) == words(&want.table),
                "{w}, resumed: the tables differ"
            );
        }
        let engine = DiskEngine::new(space, cut, &dir, options.antipode_limit).unwrap();
        let snapshots = Snapshots::new(&dir);
        let got = search_on(space, engine, &options, Some(&snapshots), None).unwrap();
        let w =
            format!("{what}, {slabs} slabs of {unit}-column units, lists in {list_bytes} bytes");
        assert_eq!(got.levels, want.levels, "{w}");
        assert_eq!(got.antipodes, want.antipodes, "{w}");
        assert!(
            words(&got.table) == words(&want.table),
            "{w}: the tables differ"
        );
        // From the slabs as saved after a middle level, into their copy: the engine takes them
        // up as they were.
        let states = snapshots.saved.into_inner().unwrap();
        if let Some((folder, state, levels, antipodes)) = states.get(states.len() / 2).cloned() {
            let resume = Resume {
                table: Saved::InPlace(state),
                levels,
                antipodes,
                pass: None,
            };
            let engine = DiskEngine::new(space, cut, &folder, options.antipode_limit).unwrap();
            let got = search_on(space, engine, &options, None, Some(resume)).unwrap();
            assert_eq!(got.levels, want.levels, "{w}, from its slabs");
            assert_eq!(got.antipodes, want.antipodes, "{w}, from its slabs");
            assert!(
                words(&got.table) == words(&want.table),
                "{w}, from its slabs: the tables differ"
            );
            slabs_resumed += 1;
        }
        for (folder, ..) in &states {
            let _ = std::fs::remove_dir_all(folder);
        }
        // From the checkpoint of the table after a middle level, where the search saved one
        // (not after levels of a few states).
        let Some((table, levels, antipodes)) = saved.get(saved.len() / 2).cloned() else {
            continue;
        };
        let resume = Resume {
            table: Saved::Table(Box::new(DistanceTable::from_words(space.size(), table))),
            levels,
            antipodes,
            pass: None,
        };
        let engine = DiskEngine::new(space, cut, &dir, options.antipode_limit).unwrap();
        let got = search_on(space, engine, &options, None, Some(resume)).unwrap();
        assert_eq!(got.levels, want.levels, "{w}, resumed");
        assert_eq!(got.antipodes, want.antipodes, "{w}, resumed");
        assert!(
            words(&got.table) == words(&want.table),
            "{w}, resumed: the tables differ"
        );
        // Its files go with the table, and their folder with them.
        assert!(!dir.exists(), "{w}");
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        slabs_resumed >= 3,
        "{what}: resumed from slabs {slabs_resumed} times"
    );
    (!saved.is_empty(), held_compared > 0)
}

/// A copy of the slab folder as a checkpoint found it, the state that names its files, the
/// levels and the antipodes.
type Snapshot = (PathBuf, InPlace, Levels, Vec<u64>);

/// Checkpoints of a search from disk (its slabs): the slab folder copied as it is at each, with
/// the state that names its files.
struct Snapshots {
    folder: PathBuf,
    saved: Mutex<Vec<Snapshot>>,
}

impl Snapshots {
    fn new(folder: &Path) -> Snapshots {
        Snapshots {
            folder: folder.to_path_buf(),
            saved: Mutex::new(Vec::new()),
        }
    }
}

impl Checkpoints for Snapshots {
    fn due(&self) -> bool {
        false
    }

    fn save(&self, table: Saving, levels: &Levels, antipodes: &[u64]) -> Result<(), String> {
        let Saving::InPlace(state) = table else {
            return Err("a search from disk saves its slabs".into());
        };
        let mut saved = self.saved.lock().unwrap();
        let copy = self.folder.with_extension(format!("saved-{}", saved.len()));
        let _ = std::fs::remove_dir_all(&copy);
        std::fs::create_dir_all(&copy).unwrap();
        for entry in std::fs::read_dir(&self.folder).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), copy.join(entry.file_name())).unwrap();
        }
        saved.push((copy, state.clone(), levels.clone(), antipodes.to_vec()));
        Ok(())
    }
}

#[test]
fn every_family_from_disk_equals_the_search_in_memory() {
    let (mut resumed, mut held) = (0, 0);
    for (i, request) in requests().into_iter().enumerate() {
        let what = format!("{i} {}", request.puzzle);
        let (table, in_memory) = registry::space(&request).unwrap().visit(Check(&what));
        resumed += usize::from(table);
        held += usize::from(in_memory);
    }
    assert!(resumed >= 5, "{resumed} families resumed");
    // Slabs in memory save no checkpoint while the first levels are lists or the last ones a
    // tail: the smallest families have none.
    assert!(
        held >= 4,
        "{held} families' checkpoints of slabs in memory compared"
    );
}

/// The command line with the table forced onto disk in small slabs writes the distances file
/// of the search in memory, byte for byte, and leaves no slab behind.
#[test]
fn a_run_from_disk_writes_the_files_of_a_run_in_memory() {
    let root = env!("CARGO_MANIFEST_DIR");
    let key = format!("{root}/puzzles/free-the-key.txt");
    let dir = scratch("disk-runs");
    for args in [
        vec!["--puzzle", "turnstyle", "--n", "9"],
        vec!["--puzzle", "topspin", "--n", "8", "--k", "4"],
        vec!["--puzzle", "rings", "--n", "10"],
        vec!["--puzzle", "key", "--def", &key],
    ] {
        let run = |name: &str, extra: &[&str]| {
            // A folder of each puzzle's own: a run refuses another puzzle's result.
            let out = dir.join(format!("{}-{name}", args[1]));
            let mut all = args.clone();
            all.extend(["--quiet", "--checkpoint-every", "0", "--out"]);
            all.push(out.to_str().unwrap());
            all.extend(extra);
            let done = common::gpusearch(&all);
            assert!(
                done.status.success(),
                "{all:?}: {}",
                String::from_utf8_lossy(&done.stderr)
            );
            out
        };
        let memory = run("memory", &[]);
        let disk = run("disk", &["--slab-bytes", "1024"]);
        let file = |out: &std::path::Path| std::fs::read(out.join("distances.gsd")).unwrap();
        assert!(
            file(&memory) == file(&disk),
            "{args:?}: the distances files differ"
        );
        assert!(!disk.join("slabs").exists(), "{args:?}: slabs left behind");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The slabs' engine chooses its passes within the loop's top-down one: its progress lines name
/// the pass that ran (frontier lists, then its slabs' sweeps, then the tail of the unreached).
#[test]
fn progress_lines_of_a_run_from_disk_name_the_pass_that_ran() {
    let out = scratch("disk-progress").join("run");
    let args = ["--puzzle", "turnstyle", "--n", "9", "--slab-bytes", "1024"];
    let mut all = args.to_vec();
    all.extend(["--out", out.to_str().unwrap()]);
    let done = common::gpusearch(&all);
    let err = String::from_utf8_lossy(&done.stderr);
    assert!(done.status.success(), "{err}");
    // stderr is no terminal: a line a level, its pass after the counts.
    let passes: Vec<&str> = (err.lines())
        .filter(|l| l.starts_with("level"))
        .map(|l| l.split_whitespace().nth(4).unwrap())
        .collect();
    let first = |pass: &str| passes.iter().position(|p| *p == pass);
    let (lists, swept, tail) = (first("frontier"), first("sweep"), first("remaining"));
    assert!(
        lists == Some(0) && lists < swept && swept < tail,
        "{passes:?}"
    );
    assert!(!passes.contains(&"top-down"), "{passes:?}");
    let _ = std::fs::remove_dir_all(out.parent().unwrap());
}

/// Where the budget cannot hold the table, the plan puts it on disk in slabs that fit.
#[test]
fn a_dry_run_puts_a_table_larger_than_the_budget_on_disk() {
    let turnstyle_14 = |more: &[&str]| {
        let mut args = vec!["--puzzle", "turnstyle", "--n", "14"];
        args.extend(more);
        common::gpusearch(&args)
    };
    let out = turnstyle_14(&["--memory", "6GiB", "--dry-run"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("disk tier: the table in 15 slabs of at most 6147187200 entries")
            && text.contains("on disk: 62.1 GiB")
            && text.contains("and their inboxes of two levels: at most 47.4 GiB"),
        "{text}"
    );
    // The parts beside the slab scale with the budget: Turnstyle 13's table of 742 MiB in
    // 256 MiB.
    let out = common::gpusearch(&[
        "--puzzle",
        "turnstyle",
        "--n",
        "13",
        "--memory",
        "256MiB",
        "--dry-run",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success()
            && text.contains("disk tier: the table in 19 slabs of at most 165110400 entries")
            && text.contains("the fixed) 253.5 MiB"),
        "{text}"
    );
    // Below what even one slab's fixed parts take, refused.
    let out = turnstyle_14(&["--memory", "100MiB", "--out", "/tmp/never"]);
    let e = String::from_utf8(out.stderr).unwrap();
    assert!(
        !out.status.success() && e.contains("not even one slab of it fits"),
        "{e}"
    );
    // A slab folder that cannot be made is named as such.
    let out = common::gpusearch(&[
        "--puzzle",
        "turnstyle",
        "--n",
        "8",
        "--slab-bytes",
        "1000",
        "--slab-folder",
        "/proc/x",
        "--out",
        "/tmp/never",
    ]);
    let e = String::from_utf8(out.stderr).unwrap();
    assert!(
        !out.status.success() && e.contains("cannot make the slab folder /proc/x"),
        "{e}"
    );
}

/// A run from disk killed (SIGKILL) at several moments, each after it saved a checkpoint (its
/// slabs, after a level) and some way into the next pass, goes on each time with `--resume`
/// to the distances file of a run in memory.
#[test]
fn a_run_from_disk_killed_goes_on_from_its_checkpoint() {
    let dir = scratch("disk-killed");
    let (memory, disk) = (dir.join("memory"), dir.join("disk"));
    let args = |out: &std::path::Path| -> Vec<String> {
        ["--puzzle", "turnstyle", "--n", "10", "--quiet", "--out"]
            .iter()
            .map(|s| s.to_string())
            .chain([out.to_str().unwrap().to_string()])
            .collect()
    };
    let done = std::process::Command::new(env!("CARGO_BIN_EXE_gpusearch"))
        .args(args(&memory))
        .output()
        .unwrap();
    assert!(done.status.success());
    let checkpoint = disk.join("checkpoint.gsc");
    let command = |resume: bool| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_gpusearch"));
        c.args(args(&disk)).args(["--slab-bytes", "100000"]);
        c.args(resume.then_some("--resume"))
            .env("NODEVICE_SELECT", "1");
        c
    };
    let kills = kill_after_checkpoints(command, &checkpoint, &[0, 5, 20, 60, 150]);
    assert!(kills >= 3, "killed {kills} times only");
    if checkpoint.exists() {
        // Cut otherwise, the slabs are not the checkpoint's: refused, naming the fix.
        let other = std::process::Command::new(env!("CARGO_BIN_EXE_gpusearch"))
            .args(args(&disk))
            .args(["--slab-bytes", "300000", "--resume"])
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&other.stderr);
        assert_eq!(other.status.code(), Some(2), "{e}");
        assert!(
            e.contains("slabs on disk and this run plans") && e.contains("--memory"),
            "{e}"
        );
        let resumed = std::process::Command::new(env!("CARGO_BIN_EXE_gpusearch"))
            .args(args(&disk))
            .args(["--slab-bytes", "100000", "--resume"])
            .output()
            .unwrap();
        assert!(
            resumed.status.success(),
            "{}",
            String::from_utf8_lossy(&resumed.stderr)
        );
    }
    let file = |out: &std::path::Path| std::fs::read(out.join("distances.gsd")).unwrap();
    assert!(file(&memory) == file(&disk), "the distances files differ");
    assert!(!disk.join("slabs").exists() && !checkpoint.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A run whose slab folder's disk fills up stops with one line naming the folder and the bytes
/// it still needs, leaves no distances file, and once there is room the same command gives the
/// file of a run in memory. (`/dev/full` stands for the full disk: every write to it fails with
/// ENOSPC.)
#[test]
fn a_full_disk_is_named_and_the_run_goes_on_once_there_is_room() {
    if !std::path::Path::new("/dev/full").exists() {
        eprintln!("SKIPPED: no /dev/full");
        return;
    }
    let dir = scratch("disk-full");
    let (memory, disk, slabs) = (dir.join("memory"), dir.join("disk"), dir.join("slabs"));
    let run = |out: &std::path::Path, more: &[&str]| {
        let mut args = vec!["--puzzle", "turnstyle", "--n", "10", "--quiet", "--out"];
        args.push(out.to_str().unwrap());
        args.extend(more);
        common::gpusearch(&args)
    };
    assert!(run(&memory, &[]).status.success());
    std::fs::create_dir_all(&slabs).unwrap();
    let table = slabs.join("slab-0-0.table");
    std::os::unix::fs::symlink("/dev/full", &table).unwrap();
    let on_disk = [
        "--slab-bytes",
        "40000",
        "--slab-folder",
        slabs.to_str().unwrap(),
    ];
    let out = run(&disk, &on_disk);
    let e = String::from_utf8(out.stderr).unwrap();
    assert!(!out.status.success(), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.contains(&format!(
            "the disk of the slab folder {} is full",
            slabs.display()
        )) && e.contains("(28672 bytes) more are needed to write slab-0-0.table")
            && e.contains("run the same command again"),
        "{e}"
    );
    assert!(!disk.join("distances.gsd").exists());
    std::fs::remove_file(&table).unwrap();
    let out = run(&disk, &on_disk);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        std::fs::read(memory.join("distances.gsd")).unwrap()
            == std::fs::read(disk.join("distances.gsd")).unwrap(),
        "the distances files differ"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_checkpoint_within_a_scan_goes_on_only_on_the_cpu_engine() {
    let space = Ring::turnstyle(8, Metric::Lrf).unwrap();
    let options = Options {
        antipode_limit: 10,
        policy: PassPolicy::TopDown,
        footprint: Footprint::Lean,
    };
    let parts = Parts::default();
    let engine = CpuEngine::new(&space, options.footprint, options.antipode_limit);
    search_on(&space, engine, &options, Some(&parts), None).unwrap();
    let ((table, levels, antipodes), pass) = parts.0.into_inner().unwrap().remove(20);
    let dir = scratch("disk-within");
    let cut = Cut {
        slabs: 2,
        unit: slab_units(&space)[0],
        list_bytes: 0,
        round_bytes: 1 << 16,
        in_memory: false,
    };
    // The slabs keep the next frontier as their last pass set it: they refuse.
    let engine = DiskEngine::new(&space, cut, &dir, options.antipode_limit).unwrap();
    let resume = Resume {
        table: Saved::Table(Box::new(DistanceTable::from_words(space.size(), table))),
        levels,
        antipodes,
        pass: Some(pass),
    };
    let e = search_on(&space, engine, &options, None, Some(resume))
        .err()
        .unwrap();
    assert!(e.contains("part way") && e.contains("cpu"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
