//! The output folder's files: the distances file written from the table where it lies,
//! and the report (`report.json`, `report.md`, `levels.csv`, `levels.svg`, a drawing) made
//! from what the search found, each committed whole or not at all.

use super::Error;
use crate::gpu::AdapterName;
use crate::progress::LevelBar;
use crate::puzzle::{PuzzleInfo, StateSpace};
use crate::report::{DiskReport, Report};
use crate::search::levels::{Levels, Written};
use crate::store::{self, atomic::AtomicFile};
use crate::table::TableView;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The distances file's name in a run's output folder.
pub(super) const DISTANCES_FILE: &str = "distances.gsd";

/// What a search wrote, committed with the report once it is written.
pub(crate) struct PendingDistances {
    /// The distances file, still under its temporary name; none for the report alone.
    pub(crate) file: Option<AtomicFile>,
    /// Its SHA-256; empty for the report alone.
    pub(crate) sha: String,
    /// The seconds of search, all runs of it together.
    pub(crate) seconds: f64,
}

/// What a finished search gives its report.
pub(super) struct Searched<'a> {
    pub(super) levels: &'a Levels,
    pub(super) antipodes: &'a [u64],
    pub(super) backend: String,
    pub(super) adapter: Option<AdapterName>,
    pub(super) threads: usize,
    pub(super) seconds: f64,
    pub(super) sha: String,
    pub(super) disk: Option<DiskReport>,
}

/// The report of a search of `space`.
pub(super) fn report_of<S: StateSpace>(space: &S, searched: Searched) -> Report {
    let Searched {
        levels,
        antipodes,
        backend,
        adapter,
        threads,
        seconds,
        sha,
        disk,
    } = searched;
    let positions = levels.positions();
    let weighed = levels.is_weighed();
    let mut listed: Vec<Vec<u32>> = (antipodes.iter())
        .flat_map(|&r| space.positions_of(r))
        .collect();
    if weighed {
        // Classes of the last level's entries, as positions.
        listed.sort_unstable();
        listed.dedup();
        listed.truncate(ANTIPODES_LISTED);
    }
    Report {
        puzzle: space.info(),
        rank_space: space.size(),
        reachable: positions.total(),
        diameter: levels.len() - 1,
        antipode_count: positions.last(),
        antipodes: listed,
        levels: Written::from(positions),
        class_levels: weighed.then(|| levels.listed()).flatten(),
        class_level_runs: (weighed && levels.listed().is_none()).then(|| levels.runs().to_vec()),
        backend,
        adapter,
        threads,
        seconds: (seconds * 1000.0).round() / 1000.0,
        states_per_second: (positions.total() as f64 / seconds).round(),
        classes_per_second: weighed.then(|| (levels.total() as f64 / seconds).round()),
        version: env!("CARGO_PKG_VERSION").into(),
        // The report alone names no file.
        distances_file: match sha.is_empty() {
            true => String::new(),
            false => DISTANCES_FILE.into(),
        },
        distances_sha256: sha,
        disk,
    }
}

/// The antipodes a report lists at most where the table is reduced by symmetry (each entry of
/// the last level stands for its class of positions); otherwise those the search kept.
const ANTIPODES_LISTED: usize = 100;

/// Writes the distances file at the end of a search, from the table where it lies.
pub(super) struct DistancesWriter<'a> {
    pub(super) gsd: PathBuf,
    pub(super) info: PuzzleInfo,
    pub(super) starts: Vec<u64>,
    pub(super) frame_memory: u64,
    pub(super) bar: &'a LevelBar,
    /// Seconds searched before this run, and when this run's search started.
    pub(super) earlier: f64,
    pub(super) started: Instant,
    /// Write no file ([`Job::report_only`]).
    pub(super) report_only: bool,
}

impl DistancesWriter<'_> {
    /// Writes `table` with `levels` to a temporary file: the file (committed with the report),
    /// its SHA-256 and the seconds of search.
    pub(super) fn write(
        &self,
        table: &dyn TableView,
        levels: &Levels,
    ) -> Result<PendingDistances, String> {
        if self.report_only {
            return Ok(self.leave_out());
        }
        let seconds = self.searched();
        let fail = |e: std::io::Error| format!("cannot write {}: {e}", self.gsd.display());
        let mut file = AtomicFile::create(&self.gsd).map_err(fail)?;
        let sha = store::write(
            file.writer(),
            &self.info,
            &self.starts,
            levels,
            table,
            self.frame_memory,
        )
        .map_err(fail)?;
        Ok(PendingDistances {
            file: Some(file),
            sha,
            seconds,
        })
    }

    /// No file, for the report alone: the seconds of search.
    pub(super) fn leave_out(&self) -> PendingDistances {
        PendingDistances {
            file: None,
            sha: String::new(),
            seconds: self.searched(),
        }
    }

    /// The search is over: its progress bar is finished, and its seconds (all runs of it
    /// together) are returned.
    pub(super) fn searched(&self) -> f64 {
        self.bar.finish();
        self.earlier + self.started.elapsed().as_secs_f64()
    }
}

/// Commits the distances file `file` and writes the report's files (and the picture) beside it.
pub(super) fn write_files(
    out: &Path,
    file: Option<AtomicFile>,
    report: &Report,
    notation: &dyn Fn(&[u32]) -> String,
    picture: Option<&(&'static str, String)>,
) -> Result<(), Error> {
    let write_error = |what: &Path, e: std::io::Error| {
        Error::Run(format!("cannot write {}: {e}", what.display()))
    };
    match file {
        Some(file) => {
            let gsd = out.join(&report.distances_file);
            file.commit().map_err(|e| write_error(&gsd, e))?;
        }
        // The report alone replaces the folder's result: an earlier run's file would not be
        // this report's.
        None => match std::fs::remove_file(out.join(DISTANCES_FILE)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(write_error(&out.join(DISTANCES_FILE), e));
            }
            _ => {}
        },
    }
    let mut files = vec![
        ("levels.csv", report.levels_csv()),
        ("levels.svg", report.levels_svg()),
        ("report.md", report.to_markdown(notation)),
        ("report.json", report.to_json()),
    ];
    if let Some((name, text)) = picture {
        files.push((name, text.clone()));
    }
    for (name, text) in files {
        let path = out.join(name);
        AtomicFile::write_all(&path, text.as_bytes()).map_err(|e| write_error(&path, e))?;
    }
    Ok(())
}
