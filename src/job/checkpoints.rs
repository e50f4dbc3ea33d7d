//! The checkpoints a run saves in its output folder (of the table, or of each process's slab
//! in an MPI job), and the state read back from one.

use super::{Error, MpiJob};
use crate::puzzle::StateSpace;
use crate::search::levels::Levels;
use crate::search::slab::{self, Slab};
use crate::search::within::PassSaved;
use crate::search::{Checkpoints, Resume, Saved as Table, Saving};
use crate::setting::Setting;
use crate::store::{
    self,
    atomic::{self, AtomicFile},
};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

/// The checkpoints an output folder holds, for a job of some number of processes.
pub(super) struct Saved {
    /// Whether it holds any.
    pub(super) any: bool,
    /// The last level saved by every process (by the one process of a plain run).
    pub(super) level: Option<u64>,
    /// The checkpoint files' names, as a pattern (for messages).
    pub(super) pattern: &'static str,
}

impl Saved {
    /// The checkpoints in `out` for a job of `processes` processes (1: a plain run); those of
    /// a job of another number of processes are refused, naming both.
    pub(super) fn find(out: &Path, processes: usize) -> Result<Saved, Error> {
        let mut single = None;
        // Each process's levels, and the process counts of the jobs that saved them.
        let mut levels = vec![Vec::new(); processes];
        let mut counts = std::collections::BTreeSet::new();
        let files = (std::fs::read_dir(out).into_iter().flatten().flatten())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()));
        for entry in files {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == CHECKPOINT {
                single = Some(0);
                counts.insert(1);
            } else if let Some((p, of, level)) = slab::parse_checkpoint_name(&name) {
                counts.insert(of);
                if of == processes && p < processes {
                    levels[p].push(level);
                }
            }
        }
        if let Some(&other) = counts.iter().find(|&&c| c != processes) {
            let saved_by = |p: usize| match p {
                1 => "a single process".to_string(),
                p => format!("{p} MPI processes"),
            };
            let how = match other {
                1 => "run it as one process (without mpirun)".to_string(),
                p => format!("run it with mpirun -np {p} (a build with --features mpi)"),
            };
            return Err(Error::Input(format!(
                "{} holds the checkpoint of a run of {} and this run has {}: {how}, or delete its checkpoint files to start again",
                out.display(),
                saved_by(other),
                saved_by(processes)
            )));
        }
        let level = if processes == 1 && single.is_some() {
            single
        } else {
            // The last level every process saved.
            (levels[0].iter().copied())
                .filter(|l| levels.iter().all(|mine| mine.contains(l)))
                .max()
        };
        Ok(Saved {
            any: !counts.is_empty(),
            level,
            pattern: if processes == 1 {
                CHECKPOINT
            } else {
                "checkpoint.process-*.gsc"
            },
        })
    }
}

/// The checkpoint's name in the output folder.
pub const CHECKPOINT: &str = "checkpoint.gsc";

/// Checkpoints written into the output folder, atomically, at most every `every` seconds: of
/// the table, or of each process's slab in an MPI job (after the same levels everywhere; a
/// slab's older checkpoints go once every process has saved the new level).
pub(super) struct FileCheckpoints<'c> {
    pub(super) folder: PathBuf,
    pub(super) info: crate::puzzle::PuzzleInfo,
    pub(super) slab: Option<Slab>,
    /// The entries of the table (of this process's slab, in an MPI job).
    pub(super) entries: u64,
    pub(super) cluster: Option<&'c MpiJob>,
    pub(super) every: f64,
    pub(super) since: Mutex<Instant>,
    /// Seconds searched by the runs before this one.
    pub(super) earlier: f64,
    /// When this run's search started.
    pub(super) started: Instant,
}

impl FileCheckpoints<'_> {
    /// The checkpoint after level `level`.
    fn path(&self, level: u64) -> PathBuf {
        match &self.slab {
            None => self.folder.join(CHECKPOINT),
            Some(slab) => self.folder.join(slab.checkpoint_name(level)),
        }
    }

    /// Removes this process's checkpoints of levels below `below` (all with `u64::MAX`).
    fn remove_below(&self, below: u64) -> Result<(), String> {
        let Some(slab) = &self.slab else {
            let path = self.folder.join(CHECKPOINT);
            return match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    Err(format!("cannot remove {}: {e}", path.display()))
                }
                _ => Ok(()),
            };
        };
        for entry in std::fs::read_dir(&self.folder)
            .into_iter()
            .flatten()
            .flatten()
        {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some((p, of, level)) = slab::parse_checkpoint_name(&name)
                && (p, of) == (slab.index, slab.count)
                && level < below
            {
                std::fs::remove_file(entry.path())
                    .map_err(|e| format!("cannot remove {}: {e}", entry.path().display()))?;
            }
        }
        Ok(())
    }

    /// Removes this process's checkpoints: the run is complete.
    pub(super) fn remove_all(&self) -> Result<(), String> {
        self.remove_below(u64::MAX)
    }
}

impl Checkpoints for FileCheckpoints<'_> {
    fn due(&self) -> bool {
        let since = self.since.lock().unwrap_or_else(|e| e.into_inner());
        let due = since.elapsed().as_secs_f64() >= self.every;
        self.cluster.map_or(due, |c| c.decide(due))
    }

    fn save(&self, table: Saving, levels: &Levels, antipodes: &[u64]) -> Result<(), String> {
        self.write(table, levels, antipodes, None)
    }

    fn save_within(
        &self,
        table: Saving,
        levels: &Levels,
        antipodes: &[u64],
        pass: &PassSaved,
    ) -> Result<(), String> {
        self.write(table, levels, antipodes, Some(pass))
    }
}

impl FileCheckpoints<'_> {
    /// Saves the state after `levels`, or within the scan after them (`pass`).
    fn write(
        &self,
        table: Saving,
        levels: &Levels,
        antipodes: &[u64],
        pass: Option<&PassSaved>,
    ) -> Result<(), String> {
        let level = levels.len() - 1;
        let path = self.path(level);
        let fail =
            |e: std::io::Error| format!("cannot write the checkpoint {}: {e}", path.display());
        let seconds = self.earlier + self.started.elapsed().as_secs_f64();
        let saved = AtomicFile::create(&path).and_then(|mut file| {
            let slab = self.slab.as_ref();
            store::write_checkpoint(
                file.writer(),
                (&self.info, self.entries),
                slab,
                (levels, pass),
                seconds,
                antipodes,
                table,
            )?;
            file.commit()
        });
        match self.cluster {
            None => saved.map_err(fail)?,
            Some(c) => {
                c.everywhere(saved.map_err(fail));
                self.remove_below(level)?;
            }
        }
        *self.since.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        let words = self.entries.div_ceil(32);
        atomic::set_resume_hint(saved_hint(
            &self.folder,
            level,
            pass.map(|p| p.percent(words)),
        ));
        Ok(())
    }
}

/// What an interrupted run says once the checkpoint after `level` (or `percent` into the scan
/// after it) is saved in `folder`.
pub(super) fn saved_hint(folder: &Path, level: u64, percent: Option<f64>) -> String {
    let which = match percent {
        None => format!("after level {level}"),
        Some(p) => format!("{p:.0}% into level {}'s scan", level + 1),
    };
    format!(
        "the checkpoint {which} is in {}: to go on, run the same command with {}",
        folder.display(),
        Setting::Resume
    )
}

/// The state saved in `path` (of this process's `slab` in an MPI job), checked to be a
/// checkpoint of `space` (and of that slab), and the seconds searched up to it.
pub(super) fn resume_from<S: StateSpace>(
    space: &S,
    slab: Option<&Slab>,
    path: &Path,
) -> Result<(Resume, f64), Error> {
    let other = |header: &store::CheckpointHeader| {
        format!(
            "it is a checkpoint of another puzzle ({}; asked for: {}): give that puzzle's options, or another {}",
            header.puzzle.describe(),
            space.info().describe(),
            Setting::Out
        )
    };
    let entries = slab.map_or(space.size(), Slab::entries);
    let (header, table) = store::open_checkpoint(path, |header| {
        if !header.puzzle.same_table(&space.info()) {
            Err(other(header))
        } else if header.entries != entries || header.slab.as_ref() != slab {
            Err("it is not the checkpoint of this process's part of the table".into())
        } else {
            Ok(())
        }
    })
    .map_err(|e| {
        Error::Input(format!(
            "{}: cannot use {}: {}; delete it to start again",
            Setting::Resume,
            path.display(),
            // The header's names are quoted: one line whatever they hold.
            crate::puzzle::family::one_line(&e)
        ))
    })?;
    // A checkpoint holds its table, or names the slabs that hold it.
    let table = match (table, header.slabs) {
        (Some(table), _) => Table::Table(Box::new(table)),
        (None, state) => Table::InPlace(state.ok_or_else(|| {
            Error::Input(format!(
                "{}: {} holds no table: delete it to start again",
                Setting::Resume,
                path.display()
            ))
        })?),
    };
    let resume = Resume {
        table,
        levels: header.levels.levels(),
        antipodes: header.antipodes,
        pass: header.pass,
    };
    Ok((resume, header.seconds))
}
