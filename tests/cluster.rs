//! The MPI engine end to end (`cargo test --features mpi`, with Open MPI's `mpirun`): a search
//! across P processes writes the single process's distances file, byte for byte.
#![cfg(feature = "mpi")]

use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh, empty scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpusearch-mpi-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the search `args` into `out` as one plain process (`processes` 0) or under `mpirun`
/// with that many processes; returns its distances file.
fn distances(args: &[&str], processes: usize, out: &Path) -> Vec<u8> {
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
        .args(args)
        .args(["--quiet", "--backend", "cpu", "--out"])
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
        0 => "\"backend\": \"cpu\"".to_string(),
        p => format!("\"backend\": \"cpu, {p} MPI processes\""),
    };
    assert!(report.contains(&backend), "{args:?}: {report}");
    std::fs::read(out.join("distances.gsd")).unwrap()
}

#[test]
fn processes_write_the_single_process_file() {
    let dir = scratch("files");
    let puzzles: [&[&str]; 6] = [
        &["--puzzle", "turnstyle", "--n", "9"],
        &["--puzzle", "turnstyle", "--n", "10", "--metric", "flips"],
        &["--puzzle", "turnstyle", "--n", "11"],
        &["--puzzle", "topspin", "--n", "9"],
        &[
            "--puzzle",
            "perm",
            "--gens",
            "(1,2,3,4,5,6,7,8); (1,2)(3,5)",
        ],
        &["--puzzle", "rings", "--n", "12"],
    ];
    for (i, args) in puzzles.iter().enumerate() {
        let single = distances(args, 0, &dir.join(format!("{i}-single")));
        for p in 1..=4 {
            let file = distances(args, p, &dir.join(format!("{i}-p{p}")));
            assert!(file == single, "{args:?}: {p} processes wrote another file");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn what_the_processes_cannot_do_yet_is_refused() {
    let dir = scratch("refused");
    let output = Command::new("mpirun")
        .args(["--oversubscribe", "--allow-run-as-root", "-np", "2"])
        .arg(env!("CARGO_BIN_EXE_gpusearch"))
        .args(["--puzzle", "turnstyle", "--n", "8", "--backend", "gpu"])
        .arg("--out")
        .arg(dir.join("gpu"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--backend gpu across MPI processes"),
        "{stderr}"
    );
    assert!(!dir.join("gpu").join("distances.gsd").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
