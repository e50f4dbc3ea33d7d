//! The GPU backend: the passes of [`crate::search`]'s level loop as WGSL compute shaders through
//! wgpu (Vulkan), on the same 2-bit table and rank order, ending in the same [`crate::search::Outcome`].
//!
//! - [`device`]: finding and opening an adapter, its limits and memory;
//! - [`layout`]: where the table lives on the device (windows of blocks) and the dispatches;
//! - [`engine`]: the [`engine::GpuEngine`] the level loop drives (on a process's slab too);
//! - `cluster` (with the `mpi` feature): a process of an MPI job on its GPU;
//! - [`probe`]: a puzzle shader's neighbours at given ranks, for tests;
//! - `shared` (tests): the constants the host and the shaders both hold, checked alike.
//!
//! The kernels are in `shaders/bfs.wgsl`, each puzzle's ranks and moves in its own shader.

#[cfg(feature = "mpi")]
pub mod cluster;
pub mod device;
pub mod engine;
pub mod layout;
pub mod probe;
#[cfg(test)]
mod shared;
pub mod sweep_data;

pub use device::{AdapterName, Adapters, Gpu, may_have_hardware};
