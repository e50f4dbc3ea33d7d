//! The MPI engine end to end (`cargo test --features mpi`, with Open MPI's `mpirun`): a search
//! across P processes writes the single process's distances file, byte for byte, and goes on
//! from its checkpoints after one of them is killed; and the exchanges' pieces, which need no
//! processes.
#![cfg(feature = "mpi")]
mod common;
use common::scratch;

use gpusearch::search::cluster::transport::{cores_note, decode, encode, owner};
use gpusearch::search::slab;
use std::path::Path;
use std::process::Command;

/// Runs the search `args` on `backend` into `out` as one plain process (`processes` 0) or under
/// `mpirun` with that many processes; returns its distances file.
fn distances(args: &[&str], backend: &str, processes: usize, out: &Path) -> Vec<u8> {
    distances_with(args, backend, processes, out, &[])
}

/// As [`distances`], with the processes' environment holding `env` besides this one's.
fn distances_with(
    args: &[&str],
    backend: &str,
    processes: usize,
    out: &Path,
    env: &[(&str, &str)],
) -> Vec<u8> {
    let binary = env!("CARGO_BIN_EXE_gpusearch");
    let mut command = match processes {
        0 => Command::new(binary),
        p => {
            let mut c = Command::new("mpirun");
            // Open MPI: more processes than this machine's cores, and CI's root user.
            c.args([
                "--oversubscribe",
                "--allow-run-as-root",
                "-np",
                &p.to_string(),
            ])
            .arg(binary);
            c
        }
    };
    let output = command
        .envs(env.iter().copied())
        .args(args)
        .args(["--quiet", "--backend", backend, "--out"])
        .arg(out)
        .output()
        .expect("mpirun runs (install Open MPI: apt-get install openmpi-bin libopenmpi-dev)");
    assert!(
        output.status.success(),
        "{args:?} on {processes} processes: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    // The processes searched together (a process that missed the MPI job would search alone,
    // and write the same file).
    let report = std::fs::read_to_string(out.join("report.json")).unwrap();
    let backend = match processes {
        0 => format!("\"backend\": \"{backend}\""),
        p => format!("\"backend\": \"{backend}, {p} MPI processes\""),
    };
    assert!(report.contains(&backend), "{args:?}: {report}");
    std::fs::read(out.join("distances.gsd")).unwrap()
}

#[test]
fn processes_write_the_single_process_file() {
    let dir = scratch("files");
    let puzzles: [&[&str]; 17] = [
        &["--puzzle", "hanoi", "--pegs", "4", "--discs", "7"],
        &["--puzzle", "pancake", "--n", "8"],
        &["--puzzle", "pancake", "--n", "6", "--burnt"],
        &["--puzzle", "sliding", "--rows", "2", "--cols", "4"],
        &["--puzzle", "turnstyle", "--n", "9"],
        &["--puzzle", "turnstyle", "--n", "10"],
        &["--puzzle", "turnstyle", "--n", "11"],
        &["--puzzle", "turnstyle", "--n", "9", "--metric", "flips"],
        &["--puzzle", "turnstyle", "--n", "10", "--metric", "flips"],
        &["--puzzle", "turnstyle", "--n", "11", "--metric", "flips"],
        &["--puzzle", "topspin", "--n", "9"],
        &[
            "--puzzle",
            "perm",
            "--gens",
            "(1,2,3,4,5,6,7,8); (1,2)(3,5)",
        ],
        &["--puzzle", "rings", "--n", "12"],
        // A directed graph: rounds push along the generators and ask along their inverses.
        &[
            "--puzzle",
            "perm",
            "--gens",
            "(1,2,3,4,5,6,7,8); (1,2)",
            "--directed",
        ],
        // Tables reduced by symmetry: ranges of several weights, and entries of their own
        // weight, counted across the processes.
        &[
            "--puzzle",
            "hanoi",
            "--pegs",
            "5",
            "--discs",
            "6",
            "--symmetry",
        ],
        &[
            "--puzzle",
            "turnstyle",
            "--n",
            "10",
            "--metric",
            "flips",
            "--symmetry",
        ],
        &[
            "--puzzle",
            "rotation",
            "--rows",
            "3",
            "--cols",
            "3",
            "--block",
            "2",
            "--symmetry",
        ],
    ];
    for (i, args) in puzzles.iter().enumerate() {
        let single = distances(args, "cpu", 0, &dir.join(format!("{i}-single")));
        for p in 1..=4 {
            let file = distances(args, "cpu", p, &dir.join(format!("{i}-p{p}")));
            assert!(file == single, "{args:?}: {p} processes wrote another file");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Each process on its GPU (lavapipe here): the same file, from its top-down and bottom-up
/// rounds on the device.
#[test]
fn processes_on_their_gpus_write_the_single_process_file() {
    let dir = scratch("gpu");
    let puzzles: [&[&str]; 6] = [
        &["--puzzle", "turnstyle", "--n", "9"],
        &["--puzzle", "turnstyle", "--n", "10"],
        &["--puzzle", "turnstyle", "--n", "9", "--metric", "flips"],
        &["--puzzle", "topspin", "--n", "9"],
        &[
            "--puzzle",
            "perm",
            "--gens",
            "(1,2,3,4,5,6,7,8); (1,2)(3,5)",
        ],
        &[
            "--puzzle",
            "perm",
            "--gens",
            "(1,2,3,4,5,6,7,8); (1,2)",
            "--directed",
        ],
    ];
    for (i, args) in puzzles.iter().enumerate() {
        let single = distances(args, "cpu", 0, &dir.join(format!("{i}-single")));
        for p in 1..=3 {
            let file = distances(args, "gpu", p, &dir.join(format!("{i}-p{p}")));
            assert!(
                file == single,
                "{args:?}: {p} GPU processes wrote another file"
            );
        }
    }
    // An outbox of 2^16 words holds 2^15 ranks, and a level of Turnstyle 10 sends many more: its
    // rounds overflow and run again in parts.
    let args = ["--puzzle", "turnstyle", "--n", "10"];
    let single = std::fs::read(dir.join("1-single").join("distances.gsd")).unwrap();
    for p in 2..=3 {
        let out = dir.join(format!("small-p{p}"));
        let file = distances_with(
            &args,
            "gpu",
            p,
            &out,
            &[("GPUSEARCH_OUTBOX_WORDS", "65536")],
        );
        assert!(file == single, "{p} GPU processes with small outboxes");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A table cut into slabs on disk (`--slab-bytes` forces it), each process searching a run of
/// them from its own folder: the single process's file, the report's disk section the job's.
#[test]
fn processes_search_slabs_on_their_disks_into_the_single_process_file() {
    let dir = scratch("disk");
    let puzzles: [&[&str]; 10] = [
        &["--puzzle", "sliding", "--rows", "3", "--cols", "3"],
        &["--puzzle", "pancake", "--n", "6", "--burnt"],
        &["--puzzle", "turnstyle", "--n", "10"],
        &["--puzzle", "turnstyle", "--n", "10", "--metric", "flips"],
        &["--puzzle", "hanoi", "--pegs", "4", "--discs", "7"],
        &["--puzzle", "topspin", "--n", "9"],
        &[
            "--puzzle",
            "perm",
            "--gens",
            "(1,2,3,4,5,6,7,8); (1,2)(3,5)",
        ],
        &["--puzzle", "rings", "--n", "8"],
        // Reduced by symmetry: each process weighs the levels from its own slabs' files.
        &[
            "--puzzle",
            "hanoi",
            "--pegs",
            "5",
            "--discs",
            "9",
            "--symmetry",
        ],
        &["--puzzle", "turnstyle", "--n", "10", "--symmetry"],
    ];
    for (i, args) in puzzles.iter().enumerate() {
        let single = distances(args, "cpu", 0, &dir.join(format!("{i}-single")));
        let args = [*args, &["--slab-bytes", "20000"]].concat();
        for p in 2..=3 {
            let out = dir.join(format!("{i}-p{p}"));
            let file = distances(&args, "cpu", p, &out);
            assert!(
                file == single,
                "{args:?}: {p} processes from disk wrote another file"
            );
            let report = std::fs::read_to_string(out.join("report.json")).unwrap();
            assert!(
                report.contains("\"disk\"") && report.contains("\"read_bytes\""),
                "{report}"
            );
            // The slabs' folders are gone with the search.
            assert!(!out.join("slabs").exists(), "{args:?}: slabs left");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A job from disk killed mid-run (one process, `kill -9`) goes on from the last level every
/// process saved, to the same file.
#[test]
fn a_job_from_disk_killed_mid_run_goes_on_from_its_slabs() {
    let dir = scratch("disk-killed");
    let args = [
        "--puzzle",
        "turnstyle",
        "--n",
        "10",
        "--slab-bytes",
        "100000",
    ];
    let single = distances(&args[..4], "cpu", 0, &dir.join("single"));
    let out = dir.join("job");
    let mpirun = |resume: bool| {
        let mut c = Command::new("mpirun");
        c.args(["--oversubscribe", "--allow-run-as-root", "-np", "2"])
            .arg(env!("CARGO_BIN_EXE_gpusearch"))
            .args(args)
            .args(["--backend", "cpu", "--out"])
            .arg(&out);
        c.arg(if resume { "--resume" } else { "--quiet" });
        c
    };
    // Both processes saved level 16 (of 32): kill process 1 while it searches on.
    kill_process_1_after(mpirun(false), &out, 16);
    let resumed = mpirun(true).output().unwrap();
    let progress = String::from_utf8_lossy(&resumed.stderr);
    assert!(resumed.status.success(), "{progress}");
    assert!(
        progress.contains("going on from the checkpoint after level")
            && !progress.contains("level  16:"),
        "{progress}"
    );
    assert!(std::fs::read(out.join("distances.gsd")).unwrap() == single);
    let left: Vec<String> = (std::fs::read_dir(&out).unwrap().flatten())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("checkpoint") || n == "slabs")
        .collect();
    assert!(left.is_empty(), "{left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Starts `job` (2 processes searching into `out`), waits until both saved level `level`, and
/// kills process 1 with `kill -9`: the job ends in an error, with no distances file or report.
fn kill_process_1_after(mut job: Command, out: &Path, level: u64) {
    let mut job = (job.stdout(std::process::Stdio::null()))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let saved = |p| out.join(format!("checkpoint.process-{p}-of-2.level-{level}.gsc"));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(600);
    while !(saved(0).exists() && saved(1).exists()) {
        let running = job.try_wait().unwrap().is_none();
        assert!(running, "the job ended before level {level}");
        let early = std::time::Instant::now() < deadline;
        assert!(early, "no checkpoint of level {level}");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let victim = process_of(1, out).expect("process 1 runs");
    let killed = Command::new("kill")
        .args(["-9", &victim.to_string()])
        .status();
    assert!(killed.unwrap().success());
    let ended = job.wait_with_output().unwrap();
    assert!(!ended.status.success(), "the job went on without process 1");
    assert!(!out.join("distances.gsd").exists());
    assert!(!out.join("report.json").exists());
}

/// The process of rank `rank` of an MPI job whose command line names `out`, once it runs.
fn process_of(rank: usize, out: &Path) -> Option<u32> {
    let want = format!("OMPI_COMM_WORLD_RANK={rank}");
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        let named = String::from_utf8_lossy(&cmdline).contains(&*out.to_string_lossy());
        if named && environ.split(|&b| b == 0).any(|v| v == want.as_bytes()) {
            return Some(pid);
        }
    }
    None
}

#[test]
fn a_job_killed_mid_run_goes_on_from_its_last_checkpoint() {
    let dir = scratch("killed");
    let args = ["--puzzle", "turnstyle", "--n", "11"];
    let single = distances(&args, "cpu", 0, &dir.join("single"));
    let out = dir.join("job");
    let mpirun_on = |processes: usize, resume: bool, backend: &str, out: &Path| {
        let mut c = Command::new("mpirun");
        c.args(["--oversubscribe", "--allow-run-as-root", "-np"])
            .arg(processes.to_string())
            .arg(env!("CARGO_BIN_EXE_gpusearch"))
            .args(args)
            .args(["--backend", backend, "--checkpoint-every", "0"])
            .arg("--out")
            .arg(out);
        // The first run quiet; the others show where they go on from.
        c.arg(if resume { "--resume" } else { "--quiet" });
        c
    };
    let mpirun = |processes: usize, resume: bool| mpirun_on(processes, resume, "cpu", &out);
    // Both processes saved level 20 (of 36): kill process 1 while it searches on.
    kill_process_1_after(mpirun(2, false), &out, 20);

    // Another number of processes, or none, is refused with both counts.
    let refused = mpirun(3, true).output().unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("a run of 2 MPI processes and this run has 3 MPI processes"),
        "{stderr}"
    );
    let alone = Command::new(env!("CARGO_BIN_EXE_gpusearch"))
        .args(args)
        .args(["--backend", "cpu", "--resume", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(alone.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&alone.stderr).contains("run it with mpirun -np 2"));

    // The processes go on on their CPUs, and (from a copy) on their GPUs: a checkpoint is a
    // slab's table, whatever engine saved it.
    let on_gpus = dir.join("job-on-gpus");
    std::fs::create_dir_all(&on_gpus).unwrap();
    for entry in std::fs::read_dir(&out).unwrap().flatten() {
        std::fs::copy(entry.path(), on_gpus.join(entry.file_name())).unwrap();
    }
    for (backend, out) in [("cpu", &out), ("gpu", &on_gpus)] {
        let resumed = mpirun_on(2, true, backend, out).output().unwrap();
        assert!(
            resumed.status.success(),
            "{backend}: {}",
            String::from_utf8_lossy(&resumed.stderr)
        );
        // It went on after level 20 (or a later level saved before the kill), not from the
        // start.
        let progress = String::from_utf8_lossy(&resumed.stderr);
        assert!(
            progress.contains("level  36:") && !progress.contains("level  20:"),
            "{backend}: {progress}"
        );
        assert!(std::fs::read(out.join("distances.gsd")).unwrap() == single);
        // The run is complete: its checkpoints are gone.
        let left: Vec<String> = std::fs::read_dir(out)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("checkpoint"))
            .collect();
        assert!(left.is_empty(), "{backend}: {left:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_process_that_cannot_save_its_checkpoint_ends_the_job_naming_itself() {
    let dir = scratch("fault");
    let out = dir.join("job");
    // A folder where process 1's checkpoint after level 10 would go: its rename fails.
    std::fs::create_dir_all(out.join("checkpoint.process-1-of-2.level-10.gsc")).unwrap();
    let output = Command::new("mpirun")
        .args(["--oversubscribe", "--allow-run-as-root", "-np", "2"])
        .arg(env!("CARGO_BIN_EXE_gpusearch"))
        .args(["--puzzle", "turnstyle", "--n", "10", "--backend", "cpu"])
        .args(["--quiet", "--checkpoint-every", "0", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("gpusearch: error: process 1: cannot write the checkpoint"),
        "{stderr}"
    );
    // Nothing half-written: no distances file, no temporary file.
    let left: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.') || n == "distances.gsd")
        .collect();
    assert!(left.is_empty(), "{left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_slab_beyond_a_process_s_memory_is_refused_before_any_search() {
    let dir = scratch("memory");
    let out = dir.join("job");
    let output = Command::new("mpirun")
        .args(["--oversubscribe", "--allow-run-as-root", "-np", "2"])
        .arg(env!("CARGO_BIN_EXE_gpusearch"))
        .args(["--puzzle", "turnstyle", "--n", "10", "--backend", "cpu"])
        .args(["--memory", "100MB", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    // Said once, by process 0 for the job.
    let said: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("gpusearch"))
        .collect();
    assert_eq!(said.len(), 1, "{stderr}");
    assert!(
        said[0].contains("a process's slab of 1814400 entries needs"),
        "{stderr}"
    );
    assert!(!out.join("distances.gsd").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_process_bound_to_one_core_of_several_is_told_how_to_free_them() {
    let dir = scratch("cores");
    let notes = |binding: &str| {
        let output = Command::new("mpirun")
            .args(["--allow-run-as-root", "--bind-to", binding, "-np", "1"])
            .arg(env!("CARGO_BIN_EXE_gpusearch"))
            .args([
                "--puzzle",
                "turnstyle",
                "--n",
                "8",
                "--backend",
                "cpu",
                "--out",
            ])
            .arg(dir.join(binding))
            .output()
            .unwrap();
        assert!(output.status.success());
        String::from_utf8_lossy(&output.stderr).contains("`mpirun --bind-to none ...`")
    };
    // A machine of one core has nothing to free.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert_eq!(notes("core"), cores > 1);
    assert!(!notes("none"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_process_bound_to_fewer_cores_than_its_share_is_told_how_to_free_them() {
    let note = cores_note(0, 1, 64, 4).unwrap();
    assert!(note.contains("1 of the 64 cores here"), "{note}");
    assert!(
        note.contains("share of 16") && note.contains("--bind-to none"),
        "{note}"
    );
    assert_eq!(cores_note(3, 16, 64, 4), None);
    assert_eq!(cores_note(0, 1, 2, 2), None);
    assert_eq!(cores_note(0, 2, 2, 1), None);
}

#[test]
fn chunks_decode_to_their_ranks_sorted_once() {
    let ranks = vec![5, 1 << 40, 3, 5, 0, 127, 128, u64::MAX >> 1];
    let mut want = ranks.clone();
    want.sort_unstable();
    want.dedup();
    assert_eq!(decode(&encode(ranks)), want);
    assert!(encode(Vec::new()).is_empty());
}

#[test]
fn each_rank_has_the_slab_that_holds_it() {
    for (entries, p) in [(1000, 3), (64, 4), (31, 2), (10_000_019, 7)] {
        let b = slab::bounds(entries, p);
        for rank in [0, entries / 2, entries - 1] {
            let o = owner(&b, rank);
            assert!(b[o] <= rank && rank < b[o + 1], "{entries} {p} {rank}");
        }
    }
}
