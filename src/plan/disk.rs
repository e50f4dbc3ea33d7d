//! The disk a run needs: its distances file and its checkpoints, and how often they are saved.

use crate::setting::Setting;
use crate::table::DistanceTable;
use crate::units::bytes;
use std::fmt::Write;

/// Compression speed assumed per worker thread for the checkpoint's cost: zstd level 1 and
/// SHA-256 on these tables, a little below what a thread was measured to do.
const COMPRESS_BYTES_PER_SECOND: f64 = 350e6;
/// Checkpoints are spaced so that writing them costs at most this share of the run.
const CHECKPOINT_SHARE: f64 = 0.05;
/// The shortest default checkpoint interval, in seconds.
const MIN_CHECKPOINT_SECONDS: f64 = 60.0;

/// What a run writes to its output folder, and when.
#[derive(Clone, Debug)]
pub struct DiskPlan {
    /// Upper bound of the distances file on disk (the table uncompressed, plus its header).
    pub file_bytes: u64,
    /// Upper bound of one checkpoint on disk (of the whole table: an MPI job's processes
    /// together).
    pub checkpoint_bytes: u64,
    /// Seconds one checkpoint of the table this process holds is expected to take.
    pub checkpoint_seconds: f64,
    /// Seconds between checkpoints: as asked, or scaled to their cost.
    pub every: f64,
    /// Whether `every` was asked for.
    pub every_asked: bool,
    /// Whether the table is searched from slabs on disk, which are its checkpoint: one after
    /// every level, of the state alone.
    pub in_slabs: bool,
}

/// The most bytes a checkpoint that names slabs on disk takes (its header).
const SLABS_CHECKPOINT_BYTES: u64 = 1 << 20;

impl DiskPlan {
    /// The disk plan of a table of `entries` entries, of which this process holds `held` and
    /// checkpoints them on `threads` workers every `every` seconds (`None`: scaled to their cost).
    pub fn new(entries: u64, held: u64, threads: usize, every: Option<f64>) -> DiskPlan {
        let table = DistanceTable::bytes_for(entries);
        let file_bytes = table + (table / (4 << 20) + 1) * 160 + (1 << 20);
        let checkpoint_seconds = DistanceTable::bytes_for(held) as f64
            / (COMPRESS_BYTES_PER_SECOND * threads.max(1) as f64);
        DiskPlan {
            file_bytes,
            checkpoint_bytes: file_bytes,
            checkpoint_seconds,
            every: every
                .unwrap_or((checkpoint_seconds / CHECKPOINT_SHARE).max(MIN_CHECKPOINT_SECONDS)),
            every_asked: every.is_some(),
            in_slabs: false,
        }
    }

    /// The disk plan of the report alone: no distances file, no checkpoints.
    pub fn report_only() -> DiskPlan {
        DiskPlan {
            file_bytes: 0,
            checkpoint_bytes: 0,
            checkpoint_seconds: 0.0,
            every: f64::INFINITY,
            every_asked: true,
            in_slabs: false,
        }
    }

    /// The disk plan of a table of `entries` entries searched from slabs on disk: the slabs are
    /// the checkpoint, saved after every level at no cost but a header.
    pub fn in_slabs(entries: u64) -> DiskPlan {
        DiskPlan {
            checkpoint_bytes: SLABS_CHECKPOINT_BYTES,
            checkpoint_seconds: 0.0,
            every: 0.0,
            every_asked: false,
            in_slabs: true,
            ..DiskPlan::new(entries, entries, 1, None)
        }
    }

    /// Disk the run needs free in its output folder: the distances file while the last
    /// checkpoint still exists, or a checkpoint written beside the one before it; less the
    /// checkpoint already there (`existing` bytes), which is replaced.
    pub fn needed(&self, existing: u64) -> u64 {
        (self.file_bytes + self.checkpoint_bytes).saturating_sub(existing)
    }

    /// The plan as text, one line each.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        if self.in_slabs {
            let file = match self.file_bytes {
                0 => format!("no distances file ({})", Setting::ReportOnly),
                bytes_at_most => format!("distances file at most {}", bytes(bytes_at_most)),
            };
            let _ = writeln!(
                out,
                "disk: {file}; the slabs are the checkpoint, after every level ({} of state beside them)",
                bytes(self.checkpoint_bytes)
            );
            let _ = writeln!(
                out,
                "  free disk needed: {} for the file and the checkpoint, once the search is over beside one generation of the slabs",
                bytes(self.needed(0))
            );
            return out;
        }
        if self.file_bytes == 0 {
            let _ = writeln!(
                out,
                "disk: none: the report alone, no distances file and no checkpoints ({})",
                Setting::ReportOnly
            );
            return out;
        }
        let _ = writeln!(
            out,
            "disk: distances file at most {}; a checkpoint at most {}, ~{:.0} s to write; one every {:.0} s{}",
            bytes(self.file_bytes),
            bytes(self.checkpoint_bytes),
            self.checkpoint_seconds,
            self.every,
            if self.every_asked {
                format!(" ({})", Setting::CheckpointEvery)
            } else {
                " (scaled so that checkpoints take at most 5% of the run)".to_string()
            }
        );
        let _ = writeln!(
            out,
            "  free disk needed: {} (the file and a checkpoint at once)",
            bytes(self.needed(0))
        );
        out
    }
}

/// Free bytes for an unprivileged user on the file system holding `path`.
pub fn free_disk(path: &std::path::Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a valid NUL-terminated path and `stat` a writable statvfs.
    if unsafe { libc::statvfs(c.as_ptr(), &mut stat) } != 0 {
        return None;
    }
    Some(stat.f_bavail as u64 * stat.f_frsize as u64)
}
