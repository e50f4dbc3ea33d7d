//! The MPI engine: one search across the processes of an MPI job (`mpirun -np P gpusearch ...`).
//!
//! Each process owns a *slab* ([`super::slab`]): the same columns of every plane of the rank
//! space, whole table words (for a ring puzzle, whole arrangements with all their offsets, so
//! that `L` and `R` never leave it), and holds the table for it. A pass is top-down from the
//! last level's states in the slab (a neighbour in the slab is claimed at once, one outside goes
//! to its owner's outbox), or bottom-up from its unreached entries where the loop's switch rule
//! prefers it (a neighbour outside is asked of its owner, who answers one bit). Outboxes and
//! questions leave in bounded rounds (sorted, delta-coded, zstd-compressed; all-to-all), and the
//! level's count is summed across processes. The level loop runs in every process alike
//! ([`super::drive`]): its decisions follow from the counts, which every process has the same;
//! checkpoints are per process (its slab), saved after the same levels everywhere. At the end
//! every process writes the file's chunks whose first entry is in its slab at their offsets
//! ([`crate::store::cluster::write_distances`]); process 0 writes the header and the other files.
//!
//! This module's [`CpuSlabEngine`] searches a slab on the CPU; a process with a GPU searches it
//! there ([`crate::gpu::cluster`]), with the same exchanges (`MpiJob::send`,
//! `MpiJob::ask`, `MpiJob::rounds`).

//!
//! - [`transport`]: the job's processes and the exchanges between them;
//! - [`engine`]: a process's slab on its CPU.

pub mod engine;
pub mod transport;

pub use engine::{CpuSlabEngine, SlabEngine};
pub(crate) use transport::owner;
pub use transport::{Exchanged, MpiJob};
