//! The GPU engine: the table on the device, each pass one submission and one small read-back of
//! its counts; the table read back for checkpoints and at the end.

use super::device::RANK_SHADER;
use super::device::{
    DATA_WORDS, Gpu, TABLES_BINDING, compute_pipeline, data_buffer, data_entry, map_read,
    read_back_buffer, storage_buffer, storage_entry,
};
use super::layout::{BLOCK_ENTRIES, Dispatch, Layout, WORKGROUP};
use super::sweep_data;
use crate::puzzle::{GpuShader, StateSpace, Structure};
use crate::search::SearchError;
use crate::search::engine::{Engine, Passes};
use crate::search::levels::Levels;
use crate::search::{self, Options, Outcome, Progress, Step};
use crate::setting::Setting;
use crate::table::{DistanceTable, TableSource, TableView, UNREACHED, matches, spread, squeeze};
use rayon::prelude::*;
use std::ops::Range;

mod build;
mod derived;
mod params;
pub mod slab;
mod sweeper;
mod transfer;

pub use sweeper::GpuSweeper;

use derived::Descent;
use params::{PARAMS_BYTES, Params};

use transfer::DeviceTable;

/// The kernels, shared by every puzzle.
const BFS_SHADER: &str = include_str!("../../shaders/bfs.wgsl");
/// The sweep kernels.
const SWEEP_SHADER: &str = include_str!("../../shaders/sweep.wgsl");
/// The window bindings and accessors, a template (see [`shader_source`]).
const WINDOWS_SHADER: &str = include_str!("../../shaders/windows.wgsl");
/// The kernels of a process's slab in an MPI job.
const SLAB_SHADER: &str = include_str!("../../shaders/slab.wgsl");
/// The binding of the frontier lists.
const LISTS_BINDING: u32 = 4;
/// The binding of the block moves' maps (the rest of the sweep data is at binding 3).
const MAPS_BINDING: u32 = 5;
/// The binding of window 0 (after the params, the counts, the puzzle data, the sweep data, the
/// lists, the maps and the puzzle's tables).
const FIRST_WINDOW_BINDING: u32 = 7;
/// Workgroups of a list pass at most (each invocation strides through the lists).
const LIST_GROUPS: u64 = 4096;

/// The GPU engine: the table in device windows, one submission per pass.
pub struct GpuEngine<'g> {
    gpu: &'g Gpu,
    layout: Layout,
    /// Every dispatch, each with its slot of parameters and counts: those over the whole table
    /// (`table`), then those of the sweep kernels that run over part of it.
    dispatches: Vec<Dispatch>,
    /// The dispatches over the whole table.
    table: Range<usize>,
    /// Bytes between two dispatches' parameters (the uniform offset alignment).
    stride: u64,
    params: wgpu::Buffer,
    counts: wgpu::Buffer,
    counts_back: wgpu::Buffer,
    windows: Vec<wgpu::Buffer>,
    bind_group: wgpu::BindGroup,
    /// The three frontier lists and the next one's length (`shaders/bfs.wgsl`).
    lists: wgpu::Buffer,
    /// Where the frontier lists stand.
    listed: Lists,
    /// The level that `listed.cur` lists (the last level found).
    listed_level: u64,
    /// The length of the remaining list (the frontier and the unreached, listed by a bottom-up
    /// scan), once the remaining passes have one.
    remaining: Option<u32>,
    init: wgpu::ComputePipeline,
    top_down: wgpu::ComputePipeline,
    top_down_list: wgpu::ComputePipeline,
    bottom_up: wgpu::ComputePipeline,
    remaining_list: wgpu::ComputePipeline,
    /// The sweep kernels, where the space's structure fits them.
    sweeps: Option<Sweeps>,
    /// Whether to time each kernel (`GPUSEARCH_PROFILE` set).
    profile: bool,
    /// The table as last read back, until the next pass changes it.
    read: Option<DistanceTable>,
    /// Whether the host may hold a copy of the table; if not, checkpoints and the file read it
    /// from the device chunk by chunk.
    host_table: bool,
    /// The slab's kernels, where the table is a process's slab of an MPI job.
    slab: Option<slab::Kernels>,
    /// The sweep's records (`shaders/sweep.wgsl`'s data).
    sweep_records: wgpu::Buffer,
    /// Whether ranks lie in the last level, where the device holds 2 bits an entry.
    descent: Option<Descent<'g>>,
    /// The depth whose bottom-up scan made the remaining list, once there is one.
    remaining_from: u64,
}

/// The frontier lists on the device: three lists (levels d - 1, d and d + 1) of up to
/// [`Layout::list_capacity`] ranks each, used in turn.
#[derive(Clone, Copy, Debug, Default)]
struct Lists {
    /// Which list holds level d - 1 (the next two hold levels d and d + 1).
    rotation: u32,
    /// The length of level d - 1's list, where it is whole and its entries are not yet marked
    /// seen (0 where they are, or there is no such level).
    prev: Option<u32>,
    /// The length of level d's list, where it is whole.
    cur: Option<u32>,
}

/// The pipelines of a sweep pass: plain shifts, block moves of long runs and of short runs
/// (each where there are any), then the residual moves pulled or pushed.
struct Sweeps {
    /// `sweep_aligned_shifts` where every shift moves whole blocks, else `sweep_shifts`.
    shifts: (&'static str, wgpu::ComputePipeline),
    /// The moves of long runs (`sweep_runs`), with the dispatches over the blocks they pull into.
    runs: Option<(wgpu::ComputePipeline, Range<usize>)>,
    /// The moves of short runs (`sweep_short_push`, `sweep_short_pull`), where there are any.
    short: Option<PushPull>,
    /// The residual moves (`sweep_residual_push`, `sweep_residual_pull`), over the residual
    /// ranges' blocks (lavapipe runs a kernel's code for every invocation, work or none: kernels
    /// go only where they have work).
    residual: PushPull,
}

/// A sweep kernel in its two modes, each a pipeline of its own (name, pipeline), and its
/// dispatches.
struct PushPull {
    push: (&'static str, wgpu::ComputePipeline),
    pull: (&'static str, wgpu::ComputePipeline),
    slots: Range<usize>,
}

impl PushPull {
    /// The kernel that pushes from the frontier (`push`) or pulls into the unreached.
    fn kernel(&self, push: bool) -> Kernel<'_> {
        let (name, pipeline) = if push { &self.push } else { &self.pull };
        (name, pipeline, self.slots.clone())
    }
}

/// A kernel of a pass: its name (for profiles), its pipeline and its dispatches (none: a list
/// kernel, dispatched over its lists).
type Kernel<'k> = (&'static str, &'k wgpu::ComputePipeline, Range<usize>);

/// What a pass's parameters say besides its depth.
#[derive(Clone, Copy, Debug, Default)]
struct Modes {
    /// Scans list the entries they set (for the next frontier list), or bottom-up scans the
    /// remaining list.
    append: bool,
    /// The length of the remaining list, in a remaining pass.
    remaining: u32,
}

impl<'g> GpuEngine<'g> {
    /// The device objects for a table of `layout` on `gpu`, with the puzzle's shader.
    /// Where `layout` holds 2 bits an entry, `descent` tells which ranks lie in the last level
    /// (see `derived`).
    pub fn new(
        gpu: &'g Gpu,
        layout: &Layout,
        puzzle: &GpuShader,
        structure: Option<&Structure>,
        host_table: bool,
        descent: Option<Descent<'g>>,
    ) -> Result<GpuEngine<'g>, String> {
        let mut engine = Self::build(gpu, layout, puzzle, structure, host_table, None)?;
        engine.descent = descent;
        Ok(engine)
    }

    /// Writes every dispatch's parameters for the pass from level `depth` in `modes`.
    fn write_params(&self, depth: u64, modes: Modes) {
        self.write_params_at(0, &self.dispatches, depth, modes);
    }

    /// Writes the parameters of `dispatches` into the slots from `first` on, for the pass from
    /// level `depth` in `modes`.
    fn write_params_at(&self, first: usize, dispatches: &[Dispatch], depth: u64, modes: Modes) {
        let (cur, next, prev) = (depth % 3, (depth + 1) % 3, (depth + 2) % 3);
        let mut bytes = vec![0u8; (self.stride * dispatches.len() as u64) as usize];
        let entries = self.layout.entries;
        let geometry = (self.slab.as_ref()).map_or([0, entries, entries], |s| s.geometry);
        // What every dispatch of the pass shares; each adds its own blocks and slot.
        let pass = Params {
            cur: cur as u32,
            next: next as u32,
            prev: prev as u32,
            window_shift: self.layout.window_shift,
            list_capacity: self.layout.list_capacity as u32,
            list_rotation: self.listed.rotation,
            list_prev: self.listed.prev.unwrap_or(0),
            list_cur: self.listed.cur.unwrap_or(0),
            list_append: modes.append as u32,
            remaining: modes.remaining,
            tag: derived::tag(depth + 1),
            ..Params::of_table(entries, geometry)
        };
        for (i, d) in dispatches.iter().enumerate() {
            let params = pass.at(d, (first + i) as u32);
            let at = i * self.stride as usize;
            bytes[at..at + PARAMS_BYTES as usize].copy_from_slice(bytemuck::bytes_of(&params));
        }
        let offset = first as u64 * self.stride;
        self.gpu.queue.write_buffer(&self.params, offset, &bytes);
    }

    /// Records `pipeline` over the dispatches `slots` as one compute pass.
    fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        pipeline: &wgpu::ComputePipeline,
        slots: Range<usize>,
    ) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
        pass.set_pipeline(pipeline);
        for (slot, d) in self
            .dispatches
            .iter()
            .enumerate()
            .take(slots.end)
            .skip(slots.start)
        {
            let offset = (slot as u64 * self.stride) as u32;
            pass.set_bind_group(0, &self.bind_group, &[offset]);
            pass.dispatch_workgroups(u64::from(d.blocks).div_ceil(WORKGROUP) as u32, 1, 1);
        }
    }

    /// Fills the table (every entry unreached, nothing seen) and puts the `starts` at level 0.
    fn init(&mut self, starts: &[u64]) {
        self.write_params(0, Modes::default());
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        self.record(&mut encoder, &self.init, self.table.clone());
        self.gpu.queue.submit([encoder.finish()]);
        // Each word holding starts, with their entries at 0.
        let mut words: std::collections::BTreeMap<(u32, u64), u32> = Default::default();
        for &rank in starts {
            let (window, at, shift) = self.layout.locate(rank);
            *words.entry((window, at)).or_insert(u32::MAX) &= !(3u32 << shift);
        }
        for ((window, at), word) in words {
            self.gpu
                .queue
                .write_buffer(&self.windows[window as usize], at, &word.to_le_bytes());
        }
        self.list(Some(starts));
    }

    /// Puts `ranks` on the device as level d's list, with nothing in level d - 1's to mark; the
    /// list is not whole without them, or where they are more than a list holds.
    fn list(&mut self, ranks: Option<&[u64]>) {
        self.remaining = None;
        self.listed = Lists {
            rotation: 0,
            prev: Some(0),
            cur: None,
        };
        let Some(ranks) = ranks.filter(|r| r.len() as u64 <= self.layout.list_capacity) else {
            return;
        };
        // List 1 (level d), after the length word.
        let at = 4 * (1 + 2 * self.layout.list_capacity);
        let words: Vec<u32> = ranks
            .iter()
            .flat_map(|&r| [r as u32, (r >> 32) as u32])
            .collect();
        self.gpu
            .queue
            .write_buffer(&self.lists, at, bytemuck::cast_slice(&words));
        self.listed.cur = Some(ranks.len() as u32);
    }

    /// One pass from level `depth`, running `kernels` one after another, each over its
    /// dispatches (each a compute pass of its own, so each sees all the writes of the one
    /// before); returns the size of level `depth + 1` and the length of the list it appended to.
    /// With `GPUSEARCH_PROFILE` set, each kernel is submitted and waited for alone, and its wall
    /// time printed on stderr.
    fn run_pass(&self, depth: u64, kernels: &[Kernel], modes: Modes) -> Result<(u64, u32), String> {
        self.write_params(depth, modes);
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        encoder.clear_buffer(&self.counts, 0, None);
        encoder.clear_buffer(&self.lists, 0, Some(4));
        for (name, kernel, slots) in kernels {
            if slots.is_empty() {
                self.record_list(&mut encoder, kernel, modes);
            } else {
                self.record(&mut encoder, kernel, slots.clone());
            }
            if self.profile {
                let started = std::time::Instant::now();
                self.gpu.queue.submit([encoder.finish()]);
                self.gpu
                    .device
                    .poll(wgpu::PollType::wait_indefinitely())
                    .map_err(|e| format!("the GPU stopped: {e}"))?;
                eprintln!(
                    "profile: depth {depth} {name} {:.3} ms",
                    started.elapsed().as_secs_f64() * 1e3
                );
                encoder = self.gpu.device.create_command_encoder(&Default::default());
            }
        }
        self.finish_pass(encoder)
    }

    /// Ends a pass recorded in `encoder`: submits it with the copies of the counts and the next
    /// list's length, and returns their sum and the length (or why the table would be wrong).
    fn finish_pass(&self, mut encoder: wgpu::CommandEncoder) -> Result<(u64, u32), String> {
        let counts_bytes = self.counts.size();
        encoder.copy_buffer_to_buffer(&self.counts, 0, &self.counts_back, 0, None);
        encoder.copy_buffer_to_buffer(&self.lists, 0, &self.counts_back, counts_bytes, Some(4));
        self.gpu.queue.submit([encoder.finish()]);
        let mut counts: Vec<u32> = map_read(&self.gpu.device, &self.counts_back, |bytes| {
            bytemuck::cast_slice::<u8, u32>(bytes).to_vec()
        })?;
        let listed = counts.pop().expect("the list's length");
        if counts.pop().expect("the cut loops' word") != 0 {
            return Err(format!(
                "the GPU '{}' cut the shader's loops short (software drivers such as lavapipe end a shader's loops after 65,535 iterations), so its table would be wrong: use {} or a hardware GPU",
                self.gpu.adapter.name,
                Setting::Backend.to("cpu")
            ));
        }
        Ok((counts.iter().map(|&c| u64::from(c)).sum(), listed))
    }

    /// Records a list kernel: enough workgroups for the longest of its lists, at most
    /// [`LIST_GROUPS`].
    fn record_list(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        pipeline: &wgpu::ComputePipeline,
        modes: Modes,
    ) {
        let longest = self.listed.prev.max(self.listed.cur).unwrap_or(0);
        let longest = longest.max(modes.remaining);
        let groups = u64::from(longest).div_ceil(WORKGROUP).clamp(1, LIST_GROUPS);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &self.bind_group, &[0]);
        pass.dispatch_workgroups(groups as u32, 1, 1);
    }

    /// The kernels of a sweep pass: pushing from the frontier (`push`) or pulling into the
    /// unreached, where kernels have both modes; those with no blocks to work on left out.
    fn sweep_kernels<'k>(&'k self, sweeps: &'k Sweeps, push: bool) -> Vec<Kernel<'k>> {
        let mut kernels = vec![(sweeps.shifts.0, &sweeps.shifts.1, self.table.clone())];
        kernels.extend((sweeps.runs.iter()).map(|r| ("sweep_runs", &r.0, r.1.clone())));
        kernels.extend(sweeps.short.as_ref().map(|s| s.kernel(push)));
        // An empty range of dispatches would run as a list kernel.
        kernels.extend(Some(sweeps.residual.kernel(push)).filter(|k| !k.2.is_empty()));
        kernels
    }

    /// A remaining pass from level `depth`: over the remaining list where there is one, else
    /// a bottom-up scan that makes it, where the frontier and the unreached fit in a list.
    fn remaining_pass(&mut self, depth: u64, levels: &Levels) -> Result<(u64, u32), String> {
        if let Some(remaining) = self.remaining {
            let kernels = [("remaining_list", &self.remaining_list, 0..0)];
            return self.run_pass(
                depth,
                &kernels,
                Modes {
                    append: false,
                    remaining,
                },
            );
        }
        let unreached = self.layout.entries - levels.total();
        // Without seen bits, the list holds the unreached alone.
        let listed = if self.layout.seen { levels.last() } else { 0 };
        let append = listed + unreached <= self.layout.list_capacity;
        // The scan lists into the list two places after rotation 0's, where the remaining
        // passes read it.
        self.listed = Lists::default();
        let kernels = [("bottom_up", &self.bottom_up, self.table.clone())];
        let (count, listed) = self.run_pass(
            depth,
            &kernels,
            Modes {
                append,
                remaining: 0,
            },
        )?;
        self.remaining = append.then_some(listed);
        self.remaining_from = depth;
        Ok((count, listed))
    }
}

impl Engine for GpuEngine<'_> {
    fn start(&mut self, starts: &[u64]) -> Result<(), SearchError> {
        self.read = None;
        self.init(starts);
        self.listed_level = 0;
        Ok(())
    }

    fn load(
        &mut self,
        table: Box<dyn TableSource>,
        depth: u64,
        list: Option<Vec<u64>>,
    ) -> Result<(), SearchError> {
        self.read = None;
        self.upload(&*table, (depth % 3) as u8, list.as_deref())?;
        self.listed_level = depth;
        // The upload marks every older level as seen; without the level's list, the next pass
        // scans for it (and lists the level it finds).
        self.list(list.as_deref());
        Ok(())
    }

    fn pass(
        &mut self,
        step: Step,
        levels: &Levels,
        progress: &dyn Progress,
    ) -> Result<u64, SearchError> {
        self.read = None;
        let depth = levels.len() - 1;
        // Frontier lists run from the device's lists where both are whole, else as top-down
        // scans that list what they find; the last few unreached are checked from the remaining
        // list (made by a bottom-up scan); the loop asks for sweeps only where there are
        // sweep kernels ([`Engine::passes`]).
        let listing = step == Step::Frontier;
        let (count, listed) = match (step, &self.sweeps) {
            (Step::Frontier, _) if self.listed.prev.is_some() && self.listed.cur.is_some() => self
                .run_pass(
                    depth,
                    &[("top_down_list", &self.top_down_list, 0..0)],
                    Modes::default(),
                )?,
            (Step::Sweep, Some(sweeps)) => {
                // The residual moves from the frontier states while they are fewer than the
                // unreached ones, else into the unreached ones.
                // Without seen bits the frontier holds levels d - 3, d - 6, ... too.
                let unreached = self.layout.entries - levels.total();
                let frontier = match self.layout.seen {
                    true => levels.last(),
                    false => levels.sum_mod3(depth % 3),
                };
                let kernels = self.sweep_kernels(sweeps, frontier <= unreached);
                self.run_pass(depth, &kernels, Modes::default())?
            }
            (Step::Remaining, _) => self.remaining_pass(depth, levels)?,
            (Step::Frontier | Step::TopDown, _) => {
                let modes = Modes {
                    append: listing,
                    remaining: 0,
                };
                self.run_pass(
                    depth,
                    &[("top_down", &self.top_down, self.table.clone())],
                    modes,
                )?
            }
            _ => self.run_pass(
                depth,
                &[("bottom_up", &self.bottom_up, self.table.clone())],
                Modes::default(),
            )?,
        };
        self.listed_level = depth + 1;
        self.listed = if listing {
            // The next pass marks this level's list as seen, where it is whole.
            Lists {
                rotation: (self.listed.rotation + 1) % 3,
                prev: self.listed.cur,
                cur: (u64::from(listed) <= self.layout.list_capacity).then_some(listed),
            }
        } else {
            Lists::default()
        };
        progress.found(count);
        Ok(count)
    }

    /// Sweeps where the kernels can sweep the space ([`sweep_data::of`]): elsewhere the loop
    /// weighs top-down against bottom-up scans, as for a space without structure (4-peg Hanoi,
    /// whose thousands of residual ranges no kernel takes: a bottom-up scan of the whole table
    /// a level took 6.4 s at 18 discs on an H100, a top-down one from 3 % of it 0.2 s).
    fn passes(&self) -> Passes {
        Passes {
            sweep: self.sweeps.is_some(),
            ..Passes::ALL
        }
    }

    fn expands_older_levels(&self) -> bool {
        !self.layout.seen
    }

    /// Read back range by range: the lighter ranges are a sliver of the table (the Towers of
    /// Hanoi's classes using fewer pegs; a table reduced by a class coordinate has none).
    fn count_holding(&mut self, ranges: &[Range<u64>], value: u8) -> Result<Vec<u64>, SearchError> {
        let view = DeviceTable(self);
        (ranges.iter())
            .map(|r| crate::table::count_holding(&view, r.clone(), value))
            .collect::<Result<_, String>>()
            .map_err(SearchError::from)
    }

    fn values_at(&mut self, ranks: &[u64]) -> Result<Vec<u8>, SearchError> {
        Ok(GpuEngine::values_at(self, ranks)?)
    }

    fn smallest(&mut self, depth: u64, limit: usize) -> Result<Vec<u64>, SearchError> {
        if !self.layout.seen {
            return Ok(self.smallest_derived(depth, limit)?);
        }
        // The loop asks for the table next (a checkpoint, the end): one read-back gives both.
        let (table, smallest) =
            self.read_back(Some(((depth % 3) as u8, limit)), self.host_table)?;
        self.read = table;
        Ok(smallest)
    }

    fn with_table(
        &mut self,
        f: &mut dyn FnMut(&dyn TableView) -> Result<(), String>,
    ) -> Result<(), SearchError> {
        Ok(match self.read.take() {
            Some(table) => f(&table),
            None if self.host_table => f(&self.read_back(None, true)?.0.expect("kept")),
            None => f(&DeviceTable(self)),
        }?)
    }

    fn into_table(mut self) -> Result<DistanceTable, SearchError> {
        match self.read.take() {
            Some(table) => Ok(table),
            None => Ok(self.read_back(None, true)?.0.expect("kept")),
        }
    }
}

impl Gpu {
    /// Runs a full breadth-first search of `space` from its solved states on the device:
    /// [`search::drive`] on [`Gpu::engine`], without checkpoints.
    pub fn search<S: StateSpace>(
        &self,
        space: &S,
        layout: &Layout,
        options: &Options,
        progress: &dyn Progress,
    ) -> Result<Outcome, SearchError> {
        let mut engine = self.engine(space, layout, true)?;
        let (levels, antipodes) = search::drive(space, &mut engine, options, progress, None, None)?;
        Ok(Outcome {
            table: engine.into_table()?,
            levels,
            antipodes,
        })
    }

    /// The engine for `space` on `layout`: with `host_table`, a host copy of the table is read
    /// back for checkpoints and at the end; without, the table stays on the device and is read
    /// back chunk by chunk as it is read ([`Engine::with_table`]).
    pub fn engine<'a, S: StateSpace>(
        &'a self,
        space: &'a S,
        layout: &Layout,
        host_table: bool,
    ) -> Result<GpuEngine<'a>, String> {
        let puzzle = space.gpu_shader().ok_or_else(|| {
            format!(
                "{} has no GPU shader: use {}",
                space.info().puzzle,
                Setting::Backend.to("cpu")
            )
        })?;
        let structure = space.capabilities().structure();
        let descent = (!layout.seen).then(|| derived::descent(space));
        GpuEngine::new(
            self,
            layout,
            &puzzle,
            structure.as_ref(),
            host_table,
            descent,
        )
    }
}
