//! The settings of a run, named in the library's words.
//!
//! A message that advises another setting ("give a larger memory budget", "use the CPU backend")
//! names it as a [`Setting`], never as a command-line flag: the front end says once, with
//! [`spell_as`], how its users write settings (the command line: `--memory`, `--backend cpu`).
//! Without that, a setting is written as its field of [`crate::job::Job`] (`memory`,
//! `backend = cpu`).

use std::fmt;
use std::sync::OnceLock;

/// One setting of a run: a field of [`crate::job::Job`], or of a `solve` request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    /// The output folder.
    Out,
    /// The number of worker threads.
    Threads,
    /// Where the passes run (CPU or GPU).
    Backend,
    /// The GPU memory to plan for.
    GpuMemory,
    /// Go on from the checkpoint in the output folder.
    Resume,
    /// Seconds between checkpoints.
    CheckpointEvery,
    /// The memory budget.
    Memory,
    /// The search's memory footprint (lean or full).
    Footprint,
    /// The number of processes of an MPI job to plan for.
    Processes,
    /// Where the table's slabs go when it is searched from disk.
    SlabFolder,
    /// A position given by its pieces (`solve`).
    State,
    /// A position given by the moves that make it (`solve`).
    Moves,
    /// Replace the result of another puzzle in the output folder.
    Force,
    /// Reduce the table by the puzzle's symmetries.
    Symmetry,
    /// Write the report alone: no distances file, no checkpoints.
    ReportOnly,
    /// A family's option, by its name (`burnt`), where a message about a position advises it.
    FamilyOption(&'static str),
}

impl Setting {
    /// Every setting of a run (the families' options are theirs).
    pub const ALL: [Setting; 15] = [
        Setting::Out,
        Setting::Threads,
        Setting::Backend,
        Setting::GpuMemory,
        Setting::Resume,
        Setting::CheckpointEvery,
        Setting::Memory,
        Setting::Footprint,
        Setting::Processes,
        Setting::SlabFolder,
        Setting::State,
        Setting::Moves,
        Setting::Force,
        Setting::Symmetry,
        Setting::ReportOnly,
    ];

    /// The setting's name in the library: its field of [`crate::job::Job`] (or of `solve`).
    pub fn field(self) -> &'static str {
        match self {
            Setting::Out => "out",
            Setting::Threads => "threads",
            Setting::Backend => "backend",
            Setting::GpuMemory => "gpu_memory",
            Setting::Resume => "resume",
            Setting::CheckpointEvery => "checkpoint_every",
            Setting::Memory => "memory",
            Setting::Footprint => "footprint",
            Setting::Processes => "processes",
            Setting::SlabFolder => "slab_folder",
            Setting::State => "state",
            Setting::Moves => "moves",
            Setting::Force => "force",
            Setting::Symmetry => "symmetry",
            Setting::ReportOnly => "report_only",
            Setting::FamilyOption(name) => name,
        }
    }

    /// The setting with a value, as a message advises it (`--backend cpu`).
    pub fn to(self, value: impl fmt::Display) -> Choice {
        Choice(self, value.to_string())
    }
}

/// How a front end writes a setting, and a setting with a value.
pub type Spelling = fn(Setting, Option<&str>) -> String;

static SPELLING: OnceLock<Spelling> = OnceLock::new();

/// Says how this process's users write settings; every message after this names them so. The
/// first call wins (a front end calls it once, at its start).
pub fn spell_as(spelling: Spelling) {
    let _ = SPELLING.set(spelling);
}

fn spell(setting: Setting, value: Option<&str>) -> String {
    match SPELLING.get() {
        Some(spelling) => spelling(setting, value),
        None => match value {
            Some(value) => format!("{} = {value}", setting.field()),
            None => setting.field().to_string(),
        },
    }
}

impl fmt::Display for Setting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&spell(*self, None))
    }
}

/// A setting with a value, as a message advises it ([`Setting::to`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice(Setting, String);

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&spell(self.0, Some(&self.1)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_named_by_their_fields_until_a_front_end_spells_them() {
        // Unit tests never call `spell_as`, so this sees the library's own words.
        assert_eq!(Setting::GpuMemory.to_string(), "gpu_memory");
        assert_eq!(Setting::Backend.to("cpu").to_string(), "backend = cpu");
        let mut fields: Vec<_> = Setting::ALL.iter().map(|s| s.field()).collect();
        fields.sort();
        fields.dedup();
        assert_eq!(fields.len(), Setting::ALL.len());
    }
}
