//! `gpusearch tables`: regenerates the published tables: every family's runs into their folders
//! under `results/` (reports, levels, plot, distances file), the index `results/README.md`, and
//! `results/seeds.md`, the seeds' Turnstyle results read back from our own distances files.

mod claims;
mod published;

use crate::job::{self, Error, Job};
use crate::puzzle::family::Request;
use crate::puzzle::path::path_to_solved;
use crate::puzzle::{Cursor, Metric, Ring, StateSpace};
use crate::puzzle::{FAMILIES, registry, spaced};
use crate::report::Report;
use crate::store::{self, atomic};
use crate::table::DistanceTable;
use std::fmt::Write;
use std::path::Path;
use std::time::Instant;

/// The families' published runs, in the order of the registry: the large ones (`large`) or the
/// others, each with the request that makes it.
fn runs(large: bool) -> impl Iterator<Item = Request> {
    (FAMILIES.iter()).flat_map(move |family| {
        (family.runs().iter())
            .filter(move |run| run.large == large)
            .map(|run| {
                (run.options.iter()).fold(Request::new(family.name()), |request, (name, value)| {
                    request.with(name, value)
                })
            })
    })
}

/// Which runs `gpusearch tables` searches again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    /// The quick runs.
    Quick,
    /// The large runs.
    Large,
    /// None: the index is written from the reports as they stand (after a large run made by
    /// hand into its folder).
    None,
}

/// Regenerates the tables in `folder`: the runs `which` says (each going on from its checkpoint
/// if an earlier attempt left one); then the index, which lists every run (the others as their
/// reports in `folder` stand). A summary line.
pub fn run(
    folder: &Path,
    threads: Option<usize>,
    quiet: bool,
    which: Which,
) -> Result<String, Error> {
    let started = Instant::now();
    job::prepare_output(folder)?;
    let mut done: Vec<Result<Report, String>> = Vec::new();
    let mut fresh = 0;
    let all = (runs(false).map(|r| (r, which == Which::Quick)))
        .chain(runs(true).map(|r| (r, which == Which::Large)));
    for (request, now) in all {
        let space = registry::space(&request).map_err(Error::Puzzle)?;
        let slug = space.slug();
        let out = folder.join(&slug);
        if !now {
            // Not run now: as its report stands, if it has one; the files drawn from the report
            // are drawn again by this version.
            if let Some(report) = read_report(&out) {
                write(&out.join("levels.csv"), &report.levels_csv())?;
                write(&out.join("levels.svg"), &report.levels_svg())?;
                let notation = |position: &[u32]| space.format_position(position);
                write(&out.join("report.md"), &report.to_markdown(&notation))?;
                done.push(Ok(report));
            }
            continue;
        }
        let job = Job {
            puzzle: request,
            out: Some(out.clone()),
            threads,
            quiet,
            resume: out.join(job::CHECKPOINT).exists(),
            // The published folder is this puzzle's: searched again where its rank order or
            // moves changed.
            force: true,
            ..Job::default()
        };
        if !quiet {
            eprintln!("gpusearch tables: {slug}");
        }
        match job::run(&job) {
            Ok(finished) => {
                fresh += 1;
                done.push(Ok(finished.report))
            }
            // A size this machine cannot hold is noted in the index, not a failure; a report
            // from an earlier run stays.
            Err(Error::Input(e)) => match read_report(&out) {
                Some(report) => {
                    eprintln!("gpusearch tables: {slug} not run again, its report stays: {e}");
                    done.push(Ok(report));
                }
                None => done.push(Err(format!("{slug}: {e}"))),
            },
            Err(e) => return Err(e),
        }
    }
    if which == Which::Quick {
        let seeds = seeds(folder)?;
        write(&folder.join("seeds.md"), &seeds)?;
    }
    let reduced = reduced_reports(&folder.join("symmetry"));
    write(
        &folder.join("published.md"),
        &published::published(&done, &reduced),
    )?;
    let seconds = started.elapsed().as_secs_f64();
    write(&folder.join("README.md"), &index(&done))?;
    Ok(format!(
        "gpusearch tables: {fresh} runs in {seconds:.0} s; wrote {}",
        folder.join("README.md").display()
    ))
}

/// Searches every quick run again into a scratch folder and compares what it writes with the
/// reports and plots published in `folder`, timings aside: a summary line where all agree, else
/// an error naming each file that differs and the first difference.
pub fn check(folder: &Path, threads: Option<usize>, quiet: bool) -> Result<String, Error> {
    let scratch =
        std::env::temp_dir().join(format!("gpusearch-tables-check-{}", std::process::id()));
    let result = check_into(folder, &scratch, threads, quiet);
    let _ = std::fs::remove_dir_all(&scratch);
    if matches!(result, Err(Error::Interrupted)) {
        // A checkpoint saved in the scratch folder went with it.
        atomic::set_resume_hint("run the same command again to check from the start".into());
    }
    result
}

fn check_into(
    folder: &Path,
    scratch: &Path,
    threads: Option<usize>,
    quiet: bool,
) -> Result<String, Error> {
    let mut differ = Vec::new();
    let mut searched = 0;
    for request in runs(false) {
        let space = registry::space(&request).map_err(Error::Puzzle)?;
        let slug = space.slug();
        if !quiet {
            eprintln!("gpusearch tables: checking {slug}");
        }
        let job = Job {
            puzzle: request,
            out: Some(scratch.join(&slug)),
            threads,
            quiet: true,
            ..Job::default()
        };
        job::run(&job)?;
        searched += 1;
        for file in ["report.json", "report.md", "levels.csv", "levels.svg"] {
            let published = folder.join(&slug).join(file);
            let read = |path: &Path| {
                std::fs::read_to_string(path)
                    .map_err(|e| Error::Run(format!("cannot read {}: {e}", path.display())))
            };
            let (ours, theirs) = (read(&scratch.join(&slug).join(file))?, read(&published)?);
            if let Some(why) = first_difference(file, &ours, &theirs) {
                differ.push(format!("{}: {why}", published.display()));
            }
        }
    }
    match differ.is_empty() {
        true => Ok(format!(
            "gpusearch tables: the {searched} runs give the published reports and plots in {}, timings aside",
            folder.display()
        )),
        false => Err(Error::Run(format!(
            "{} published files differ from a fresh run: {}; regenerate them with gpusearch tables",
            differ.len(),
            differ.join("; ")
        ))),
    }
}

/// The fields and lines of a run's files that depend on the machine and the moment.
const TIMINGS: [&str; 5] = [
    "seconds",
    "states_per_second",
    "threads",
    "backend",
    "adapter",
];

/// Where `ours` and `theirs`, two versions of the run's file `file`, differ in anything but
/// timings; `None` where they agree.
fn first_difference(file: &str, ours: &str, theirs: &str) -> Option<String> {
    if file == "report.json" {
        let strip = |text: &str| {
            let mut value: serde_json::Value = serde_json::from_str(text).ok()?;
            let object = value.as_object_mut()?;
            for key in TIMINGS {
                object.remove(key);
            }
            Some(value)
        };
        let (Some(a), Some(b)) = (strip(ours), strip(theirs)) else {
            return Some("not a report".into());
        };
        let keys = |v: &serde_json::Value| -> Vec<String> {
            v.as_object()
                .map_or(Vec::new(), |o| o.keys().cloned().collect())
        };
        let mut all = keys(&a);
        all.extend(keys(&b));
        return (all.into_iter())
            .find(|k| a.get(k) != b.get(k))
            .map(|k| format!("its {k} differs"));
    }
    // report.md: the backend and search time rows are timings.
    let kept = |text: &str| -> Vec<String> {
        (text.lines())
            .filter(|l| !l.starts_with("| backend |") && !l.starts_with("| search time |"))
            .map(str::to_string)
            .collect()
    };
    let (a, b) = (kept(ours), kept(theirs));
    (a.iter().zip(&b).position(|(x, y)| x != y))
        .or((a.len() != b.len()).then_some(a.len().min(b.len())))
        .map(|line| format!("line {} differs", line + 1))
}

/// The reports of the runs reduced by symmetry, each in a folder of its own under `folder`
/// (made by hand: they are not among the families' runs), by folder name in order.
fn reduced_reports(folder: &Path) -> Vec<(String, Report)> {
    let mut found: Vec<(String, Report)> = (std::fs::read_dir(folder).into_iter().flatten())
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            Some((name, read_report(&entry.path())?))
        })
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

/// The report in a run's folder, if it has a readable one.
fn read_report(folder: &Path) -> Option<Report> {
    let text = std::fs::read_to_string(folder.join("report.json")).ok()?;
    serde_json::from_str(&text).ok()
}

fn write(path: &Path, text: &str) -> Result<(), Error> {
    atomic::AtomicFile::write_all(path, text.as_bytes())
        .map_err(|e| Error::Run(format!("cannot write {}: {e}", path.display())))
}

/// `results/README.md`: one row per run.
fn index(done: &[Result<Report, String>]) -> String {
    let mut md = String::from(
        "# Published tables\n\n\
         Every table here was computed by gpusearch and can be regenerated with one command each (the\n\
         distances files, too large to commit, come back with them). The quick runs took 134 s in all on a\n\
         2-core Intel Xeon VM (Emerald Rapids, 2026-11-28), the release build aside:\n\n\
         ```sh\ncargo run --release -- tables\n```\n\n\
         The large runs (n = 13 and 14, Turnstyle 15 in the flips metric, the 2x7 sliding puzzle, 18\n\
         discs on 4 pegs, 13 and 14 pancakes and 10 and 11 burnt ones; a 20.3 GiB table each for\n\
         Turnstyle, TopSpin and pancakes 14, 19 GiB for 11 burnt pancakes, 16 GiB for the discs,\n\
         10.1 GiB for Turnstyle 15 and for 2x7,\n\
         searched within the memory available) take a few hours on a 2-core machine with 24 GiB and need up to 41 GiB of free\n\
         disk while one runs (its file and a checkpoint, uncompressed sizes):\n\n\
         ```sh\ncargo run --release -- tables --large\n```\n\n\
         Each folder holds `report.md`, `report.json` (with the search time, the threads and the distances\n\
         file's SHA-256), `levels.csv` and `levels.svg` (the positions at each distance, log scale), and\n\
         after a regeneration `distances.gsd`. `seeds.md` checks the seeds' published Turnstyle results\n\
         against these tables. `hardware.md` has the GPU engine's runs on an H100 (Turnstyle 12 to 14,\n\
         TopSpin 13 and 14, pancakes 13, burnt pancakes 10, sliding 4x3 and 2x6, Hanoi 14 discs,\n\
         each file equal to the one here).\n\n",
    );
    md.push_str(
        "| puzzle | size | metric | positions | diameter | antipodes | an antipode | search | folder |\n",
    );
    md.push_str("|---|---|---|---:|---:|---:|---|---:|---|\n");
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
                let (slug, antipode) = slug_and_antipode(r);
                let antipode = antipode.map(|a| format!("`{a}`")).unwrap_or_default();
                let _ = writeln!(
                    md,
                    "| {} | {} | {} | {} | {} | {} | {antipode} | {:.1} s | [{slug}]({slug}/report.md) |",
                    p.puzzle,
                    size.join(", "),
                    p.metric,
                    r.reachable,
                    r.diameter,
                    r.antipode_count,
                    r.seconds
                );
            }
            Err(why) => {
                let _ = writeln!(md, "| not run: {} | | | | | | | | |", why.replace('|', "/"));
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
        let (_, table) = store::read(&file).map_err(Error::Run)?;
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

/// The folder name of a finished run, and its first antipode as the family writes it (the
/// numbers, spaced, where the space cannot be rebuilt from the report): one rebuild for both.
fn slug_and_antipode(report: &Report) -> (String, Option<String>) {
    let first = report.antipodes.first();
    match registry::space_of(&report.puzzle) {
        Ok(space) => (space.slug(), first.map(|a| space.format_position(a))),
        Err(_) => (report.puzzle.puzzle.clone(), first.map(|a| spaced(a))),
    }
}
