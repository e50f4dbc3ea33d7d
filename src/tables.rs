//! `gpusearch tables`: regenerates the published tables: every run of [`RUNS`] into its folder
//! under `results/` (reports, levels, plot, distances file), the index `results/README.md`, and
//! `results/seeds.md`, the seeds' Turnstyle results read back from our own distances files.

use crate::job::{self, Error, Job};
use crate::puzzle::spec::PuzzleArgs;
use crate::puzzle::{Cursor, Metric, Ring, StateSpace};
use crate::report::Report;
use crate::search::path::path_to_solved;
use crate::search::table::DistanceTable;
use crate::store;
use std::fmt::Write;
use std::path::Path;
use std::time::Instant;

/// The published runs: (puzzle, options).
pub const RUNS: &[(&str, &[(&str, usize)])] = &[
    ("turnstyle", &[("n", 8)]),
    ("turnstyle", &[("n", 9)]),
    ("turnstyle", &[("n", 10)]),
    ("turnstyle", &[("n", 11)]),
    ("turnstyle", &[("n", 12)]),
    ("turnstyle", &[("n", 13)]),
    ("turnstyle-flips", &[("n", 8)]),
    ("turnstyle-flips", &[("n", 9)]),
    ("turnstyle-flips", &[("n", 10)]),
    ("turnstyle-flips", &[("n", 11)]),
    ("turnstyle-flips", &[("n", 12)]),
    ("topspin", &[("n", 8)]),
    ("topspin", &[("n", 9)]),
    ("topspin", &[("n", 10)]),
    ("topspin", &[("n", 11)]),
    ("topspin", &[("n", 12)]),
    ("rotation", &[("rows", 2), ("cols", 3), ("block", 2)]),
    ("rotation", &[("rows", 3), ("cols", 3), ("block", 2)]),
    ("rotation", &[("rows", 3), ("cols", 4), ("block", 3)]),
    ("rotation", &[("rows", 3), ("cols", 4), ("block", 2)]),
    ("rings", &[("n", 6)]),
    ("rings", &[("n", 8)]),
    ("rings", &[("n", 10)]),
    ("rings", &[("n", 12)]),
    ("rings", &[("n", 14)]),
    ("rings", &[("n", 16)]),
    ("rings", &[("n", 18)]),
    ("rings", &[("n", 20)]),
];

/// Regenerates the tables in `folder`; a summary line.
pub fn run(folder: &Path, threads: Option<usize>, quiet: bool) -> Result<String, Error> {
    let started = Instant::now();
    let mut done: Vec<Result<Report, String>> = Vec::new();
    for (family, options) in RUNS {
        let mut args = PuzzleArgs {
            puzzle: family.trim_end_matches("-flips").into(),
            metric: family.ends_with("-flips").then(|| "flips".into()),
            ..PuzzleArgs::default()
        };
        for &(name, value) in *options {
            match name {
                "n" => args.n = Some(value),
                "rows" => args.rows = Some(value),
                "cols" => args.cols = Some(value),
                _ => args.block = Some(value),
            }
        }
        let space = args.space().map_err(Error::Input)?;
        let slug = crate::with_space!(&space, s => s.slug());
        let job = Job {
            puzzle: args,
            out: Some(folder.join(&slug)),
            threads,
            quiet,
            backend: "auto".into(),
            gpu_window_bytes: None,
            resume: false,
            checkpoint_every: 60.0,
        };
        if !quiet {
            eprintln!("gpusearch tables: {slug}");
        }
        match job::run(&job) {
            Ok(finished) => done.push(Ok(finished.report)),
            // A size this machine cannot hold is noted in the index, not a failure.
            Err(Error::Input(e)) => done.push(Err(format!("{slug}: {e}"))),
            Err(e) => return Err(e),
        }
    }
    let seeds = seeds(folder)?;
    write(&folder.join("seeds.md"), &seeds)?;
    let seconds = started.elapsed().as_secs_f64();
    write(&folder.join("README.md"), &index(&done, seconds))?;
    Ok(format!(
        "gpusearch tables: {} runs in {seconds:.0} s; wrote {}",
        done.iter().filter(|r| r.is_ok()).count(),
        folder.join("README.md").display()
    ))
}

fn write(path: &Path, text: &str) -> Result<(), Error> {
    store::atomic::AtomicFile::write_all(path, text.as_bytes())
        .map_err(|e| Error::Run(format!("cannot write {}: {e}", path.display())))
}

/// `results/README.md`: one row per run.
fn index(done: &[Result<Report, String>], seconds: f64) -> String {
    let mut md = String::from(
        "# Published tables\n\n\
         Every table here was computed by gpusearch and can be regenerated with one command (the distances\n\
         files, too large to commit, come back with it):\n\n\
         ```sh\ncargo run --release -- tables\n```\n\n",
    );
    let _ = writeln!(
        md,
        "The last regeneration took {:.0} s on {} threads. Each folder holds `report.md`, `report.json`,\n\
         `levels.csv` and `levels.svg` (the positions at each distance, log scale), and after a regeneration\n\
         `distances.gsd`. `seeds.md` checks the seeds' published Turnstyle results against these tables.\n",
        seconds,
        rayon::current_num_threads()
    );
    md.push_str(
        "| puzzle | size | metric | positions | diameter | antipodes | an antipode | folder |\n",
    );
    md.push_str("|---|---|---|---:|---:|---:|---|---|\n");
    for run in done {
        match run {
            Ok(r) => {
                let p = &r.puzzle;
                let size: Vec<String> = p
                    .params
                    .iter()
                    .filter(|(_, v)| !v.is_array())
                    .map(|(k, v)| format!("{k} = {v}"))
                    .collect();
                let slug = PuzzleArgs::slug_of(r);
                let antipode = r
                    .antipodes
                    .first()
                    .map(|a| {
                        let words: Vec<String> = a.iter().map(u32::to_string).collect();
                        format!("`{}`", words.join(" "))
                    })
                    .unwrap_or_default();
                let _ = writeln!(
                    md,
                    "| {} | {} | {} | {} | {} | {} | {antipode} | [{slug}]({slug}/report.md) |",
                    p.puzzle,
                    size.join(", "),
                    p.metric,
                    r.reachable,
                    r.diameter,
                    r.antipode_count
                );
            }
            Err(why) => {
                let _ = writeln!(md, "| not run: {} | | | | | | | |", why.replace('|', "/"));
            }
        }
    }
    md
}

/// The seeds' Turnstyle results next to our own, read from the distances files in `folder`.
fn seeds(folder: &Path) -> Result<String, Error> {
    let mut md = String::from(
        "# The seeds' Turnstyle results, checked\n\n\
         Every gpusearch length below is read from the distances files in this folder by stepping down the\n\
         table to solved (as `gpusearch solve` does), so each is optimal in its metric. Where ours is\n\
         shorter than the seed's, our sequence is shown.\n\n",
    );
    let load = |n: usize, metric: Metric| -> Result<(Ring, DistanceTable), Error> {
        let space = Ring::turnstyle(n, metric).map_err(Error::Input)?;
        let file = folder.join(space.slug()).join("distances.gsd");
        let (_, table) = store::read(&file)
            .map_err(|e| Error::Run(format!("cannot read {}: {e}", file.display())))?;
        Ok((space, table))
    };
    let solve =
        |space: &Ring, table: &DistanceTable, state: &[u32]| -> Result<Vec<String>, Error> {
            let rank = space.rank(state).map_err(Error::Run)?;
            let path = path_to_solved(space, table, rank)
                .ok_or_else(|| Error::Run(format!("{state:?} is not reached")))?;
            let names = space.move_names();
            Ok(path.iter().map(|&m| names[m].clone()).collect())
        };
    let identity = |n: u32| (1..=n).collect::<Vec<u32>>();

    md.push_str("## The adjacent swap (turnstyle-storer.txt)\n\n| N | position | seed | gpusearch |\n|---:|---|---:|---:|\n");
    for (n, seed) in [(8, 18), (10, 25), (12, 32)] {
        let (space, table) = load(n, Metric::Lrf)?;
        let mut state = identity(n as u32);
        state.swap(0, 1);
        let ours = solve(&space, &table, &state)?;
        let _ = writeln!(
            md,
            "| {n} | `{}` | {seed} | {} |",
            space.format_state(&state),
            ours.len()
        );
    }

    let (space12, table12) = load(12, Metric::Lrf)?;
    md.push_str("\n## The final four, N = 12 (turnstyle-storer.txt's table)\n\n| first four | seed | gpusearch | our sequence where shorter |\n|---|---:|---:|---|\n");
    let published = [
        ("1234", 0),
        ("2134", 32),
        ("3124", 16),
        ("4123", 27),
        ("1243", 32),
        ("2143", 1),
        ("3142", 32),
        ("4132", 17),
        ("1324", 33),
        ("2314", 16),
        ("3214", 28),
        ("4213", 17),
        ("1342", 16),
        ("2341", 27),
        ("3241", 17),
        ("4231", 32),
        ("1423", 16),
        ("2413", 32),
        ("3412", 17),
        ("4312", 30),
        ("1432", 28),
        ("2431", 17),
        ("3421", 30),
        ("4321", 18),
    ];
    for (first, seed) in published {
        let mut state: Vec<u32> = first.bytes().map(|b| (b - b'0') as u32).collect();
        state.extend(5..=12);
        let ours = solve(&space12, &table12, &state)?;
        let shown = if ours.len() < seed {
            ours.join(" ")
        } else {
            String::new()
        };
        let _ = writeln!(md, "| {first} | {seed} | {} | {shown} |", ours.len());
    }

    md.push_str("\n## Reversing 12 pieces (turnstyle-storer.txt)\n\n| position | seed | gpusearch |\n|---|---:|---:|\n");
    let reversed: Vec<u32> = (1..=12).rev().collect();
    let ours = solve(&space12, &table12, &reversed)?;
    let _ = writeln!(
        md,
        "| `{}` | 41 | {} |",
        space12.format_state(&reversed),
        ours.len()
    );

    let (flips, flips_table) = load(12, Metric::Flips)?;
    md.push_str("\n## The flips metric, N = 12 (turnstyle-group-bfs-blog.txt)\n\n| | position | seed | gpusearch |\n|---|---|---|---|\n");
    let example = [1, 3, 5, 7, 2, 4, 6, 8, 9, 10, 11, 12];
    let ours = solve(&flips, &flips_table, &example)?;
    let _ = writeln!(
        md,
        "| the blog's start | `{}` | 5 flips: moves 1, 5, 2, 3, 5 | {} flips: {} |",
        flips.format_state(&example),
        ours.len(),
        ours.join(" ")
    );
    let antipode = [1, 12, 11, 10, 9, 8, 6, 7, 4, 5, 2, 3];
    let ours = solve(&flips, &flips_table, &antipode)?;
    let report: Report = serde_json::from_str(
        &std::fs::read_to_string(folder.join(flips.slug()).join("report.json"))
            .map_err(|e| Error::Run(format!("cannot read the flips report: {e}")))?,
    )
    .map_err(|e| Error::Run(format!("the flips report is not valid: {e}")))?;
    let _ = writeln!(
        md,
        "| the blog's antipode | `{}` | 15, the diameter | {} (diameter {}, one of {} antipodes) |",
        flips.format_state(&antipode),
        ours.len(),
        report.diameter,
        report.antipode_count
    );
    // The listings in the seeds replay: the moves of an optimal solution lead home.
    let mut cursor = space12.cursor();
    let mut at = space12.rank(&reversed).map_err(Error::Run)?;
    for mv in path_to_solved(&space12, &table12, at).unwrap_or_default() {
        cursor.seek(at);
        at = cursor.neighbour(mv);
    }
    if at != space12.solved() {
        return Err(Error::Run(
            "an optimal solution read from the table does not lead to solved".into(),
        ));
    }
    Ok(md)
}

impl PuzzleArgs {
    /// The folder name of a finished run.
    fn slug_of(report: &Report) -> String {
        crate::puzzle::spec::space_of(&report.puzzle)
            .map(|space| crate::with_space!(&space, s => s.slug()))
            .unwrap_or_else(|_| report.puzzle.puzzle.clone())
    }
}
