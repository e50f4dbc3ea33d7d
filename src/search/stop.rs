//! A stop asked for from outside the search: Ctrl-C or SIGTERM on the command line
//! ([`crate::store::atomic::remove_partial_files_on_interrupt`]), or a program that embeds the
//! library. The level loop looks before each level and ends with [`SearchError::Interrupted`],
//! so that a stopped run unwinds the way every failure does: its unfinished files are dropped
//! (and with them their temporary names), and the checkpoint it saved last stands.
//!
//! The loop looks between levels, where the table is whole; a level under way runs to its end
//! first. The command line's handler waits a moment for that and otherwise ends the process
//! itself.
//!
//! [`SearchError::Interrupted`]: super::SearchError::Interrupted

use std::sync::atomic::{AtomicBool, Ordering};

/// Whether a stop was asked for and not yet cleared.
static ASKED: AtomicBool = AtomicBool::new(false);

/// Asks every search under way in this process to stop before its next level.
pub fn ask() {
    ASKED.store(true, Ordering::SeqCst);
}

/// Whether a stop was asked for.
pub fn asked() -> bool {
    ASKED.load(Ordering::SeqCst)
}

/// Forgets a stop asked for before, so that a later search in the same process runs (a
/// notebook searching again after an interrupt).
pub fn clear() {
    ASKED.store(false, Ordering::SeqCst);
}
