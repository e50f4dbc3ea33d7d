//! Output files that appear whole or not at all.
//!
//! Each file is written under a temporary name in its final folder and renamed into place only
//! when complete. The temporary names are registered so that an interrupt (Ctrl-C, SIGTERM)
//! that the search does not answer by stopping in time ([`crate::search::stop`]) removes them
//! before it ends the process: a stopped run leaves no half-written file.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Temporary files being written right now.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// What the interrupt message adds about going on (where the checkpoint is, how to resume).
static RESUME_HINT: Mutex<Option<String>> = Mutex::new(None);

/// Exit status of a run stopped by an interrupt (128 + SIGINT).
pub const INTERRUPTED_EXIT: i32 = 130;

/// Set once the process is ending anyway (another process of its MPI job failed and said why):
/// an interrupt then only removes the temporary files, without a message of its own.
static ENDING: AtomicBool = AtomicBool::new(false);

/// Makes an interrupt from now on end the process silently (see `ENDING`): mpirun stops the
/// other processes of a job as soon as one exits with an error.
pub fn ending() {
    ENDING.store(true, Ordering::SeqCst);
}

/// How long an interrupt waits for a search to stop by itself before it ends the process from
/// the handler: the level loop stops between levels ([`crate::search::stop`]), and a level
/// under way may take far longer than anyone waits for Ctrl-C.
const GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// Set once the interrupt has been said, by whichever of the handler and the run's own ending
/// says it first.
static SAID: AtomicBool = AtomicBool::new(false);

/// Installs the handler for Ctrl-C and SIGTERM (what batch schedulers send before they kill a
/// job). It asks the search to stop ([`crate::search::stop::ask`]), which then ends as a
/// [`crate::search::SearchError::Interrupted`] between two levels; where it has not ended
/// within a second (a level under way), or at once for a process of an MPI job (`at_once`:
/// its peers wait in collectives that a stop between levels would leave unanswered), the
/// handler ends the process itself: it removes the pending temporary files, says so and how
/// to go on ([`say_interrupted`]), and exits 130.
pub fn remove_partial_files_on_interrupt(at_once: bool) -> Result<(), String> {
    ctrlc::set_handler(move || {
        let ending = ENDING.load(Ordering::SeqCst);
        if !at_once && !ending {
            crate::search::stop::ask();
            std::thread::sleep(GRACE);
        }
        remove_pending();
        if !ending {
            say_interrupted();
        }
        std::process::exit(INTERRUPTED_EXIT);
    })
    .map_err(|e| format!("cannot install the interrupt handler: {e}"))
}

/// Removes the temporary files being written right now.
fn remove_pending() {
    let pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    for path in pending.iter() {
        let _ = std::fs::remove_file(path);
    }
}

/// Says, once in a process, that the run was interrupted, that no output file was left
/// half-written, and how to go on where a run set that ([`set_resume_hint`]).
pub fn say_interrupted() {
    if SAID.swap(true, Ordering::SeqCst) {
        return;
    }
    match resume_hint() {
        Some(hint) => {
            eprintln!("gpusearch: interrupted; no output files were left half-written; {hint}")
        }
        None => eprintln!("gpusearch: interrupted; no output files were left half-written"),
    }
}

/// Sets what the interrupt message says about going on.
pub fn set_resume_hint(hint: String) {
    *RESUME_HINT.lock().unwrap_or_else(|e| e.into_inner()) = Some(hint);
}

/// What the interrupt message says about going on, where a run set it.
pub fn resume_hint() -> Option<String> {
    RESUME_HINT
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
}

/// Removes the temporary files in `folder` whose writer is no longer running: what a run killed
/// without warning (SIGKILL, a crash) left there. Returns the files removed.
pub fn remove_stale(folder: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(folder) else {
        return removed;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = writer_of(&name) else {
            continue;
        };
        let alive = pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists();
        if !alive && std::fs::remove_file(entry.path()).is_ok() {
            removed.push(entry.path());
        }
    }
    removed
}

/// The process id in a temporary file's name (`.NAME.PID.tmp`), if it is one.
fn writer_of(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    rest.rsplit_once('.')?.1.parse().ok()
}

/// A file written under a temporary name, renamed to its final name by [`AtomicFile::commit`].
pub struct AtomicFile {
    target: PathBuf,
    temp: PathBuf,
    writer: Option<BufWriter<File>>,
    committed: bool,
}

impl AtomicFile {
    /// Starts writing what will become `target`.
    pub fn create(target: &Path) -> std::io::Result<AtomicFile> {
        let name = target.file_name().unwrap_or_default().to_string_lossy();
        let temp = target.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
        let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
        let file = File::create(&temp)?;
        pending.push(temp.clone());
        Ok(AtomicFile {
            target: target.to_path_buf(),
            temp,
            writer: Some(BufWriter::with_capacity(1 << 20, file)),
            committed: false,
        })
    }

    /// The writer for the file's contents.
    pub fn writer(&mut self) -> &mut BufWriter<File> {
        self.writer
            .as_mut()
            .expect("writer is present until commit")
    }

    /// Where the file is written until it is committed (other processes of an MPI job write
    /// their parts of it there).
    pub fn temp_path(&self) -> &Path {
        &self.temp
    }

    /// Flushes, syncs and writes `bytes` as the whole file, then commits it.
    pub fn write_all(target: &Path, bytes: &[u8]) -> std::io::Result<()> {
        let mut file = AtomicFile::create(target)?;
        file.writer().write_all(bytes)?;
        file.commit()
    }

    /// Flushes and syncs the file and renames it to its final name.
    pub fn commit(mut self) -> std::io::Result<()> {
        let writer = self.writer.take().expect("commit runs once");
        let file = writer.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
        std::fs::rename(&self.temp, &self.target)?;
        pending.retain(|p| p != &self.temp);
        self.committed = true;
        Ok(())
    }
}

impl Drop for AtomicFile {
    /// A file never committed (dropped, or its commit failed) leaves no temporary file.
    fn drop(&mut self) {
        if !self.committed {
            let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
            let _ = std::fs::remove_file(&self.temp);
            pending.retain(|p| p != &self.temp);
        }
    }
}
