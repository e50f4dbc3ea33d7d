//! One run path for every tier ([`search_on`]). The plan's tier builds its engine (in
//! `search_placed`, the one match over the tiers, and for an MPI job in [`super::cluster`]); the
//! level loop drives it; the engine then writes the distances file from its table where it lies
//! and gives its report's sections ([`TierEngine::finish`]). Saving and resuming are the
//! engine's own, through the level loop ([`Engine::save`], [`Engine::resume_in_place`]).

use super::Found;
use super::checkpoints::FileCheckpoints;
use super::output::{DistancesWriter, PendingDistances};
use crate::gpu::engine::GpuEngine;
use crate::plan::SlabPlan;
use crate::puzzle::StateSpace;
use crate::report::DiskReport;
use crate::search::cpu::CpuEngine;
use crate::search::disk::DiskEngine;
use crate::search::levels::Levels;
use crate::search::{self, Checkpoints, Engine, Options, Resume, SearchError};

/// What a tier's run writes besides its levels and antipodes.
pub(super) struct Outputs {
    /// The distances file (process 0's; the other processes of an MPI job write none).
    pub(super) distances: Option<PendingDistances>,
    /// A drawing of the space where the family has one: its file name and text.
    pub(super) picture: Option<(&'static str, String)>,
    /// What the slabs read and wrote, where the table was searched in slabs.
    pub(super) disk: Option<DiskReport>,
}

/// A tier's engine behind one interface: the engine the level loop drives, and what it writes
/// once the loop is done with it.
pub(super) trait TierEngine<S: StateSpace> {
    /// The engine the level loop drives.
    type Engine: Engine;

    /// The engine, for the level loop.
    fn engine(&mut self) -> &mut Self::Engine;

    /// Writes the distances file of `levels` with `writer` from the table where it lies (or
    /// leaves it out, for the report alone), and gives the report's other sections.
    fn finish(
        self,
        space: &S,
        levels: &Levels,
        writer: &DistancesWriter,
    ) -> Result<Outputs, SearchError>;
}

/// The search of `space` on `tier`'s engine with `options`, saving checkpoints with `saver`
/// and going on from `resume`, and its outputs written with `writer`.
pub(super) fn search_on<S: StateSpace, T: TierEngine<S>>(
    space: &S,
    mut tier: T,
    options: &Options,
    saver: &FileCheckpoints,
    writer: &DistancesWriter,
    resume: Option<Resume>,
) -> Result<Found, SearchError> {
    let saver = Some(saver as &dyn Checkpoints);
    let (levels, antipodes) =
        search::drive(space, tier.engine(), options, writer.bar, saver, resume)?;
    let outputs = tier.finish(space, &levels, writer)?;
    Ok(Found {
        levels,
        antipodes,
        distances: outputs.distances,
        picture: outputs.picture,
        disk: outputs.disk,
    })
}

/// The distances file of `levels` written from `engine`'s table where it lies (a GPU, slabs),
/// or left out for the report alone.
fn write_where_it_lies<E: Engine>(
    engine: &mut E,
    levels: &Levels,
    writer: &DistancesWriter,
) -> Result<PendingDistances, SearchError> {
    if writer.report_only {
        return Ok(writer.leave_out());
    }
    let mut written = None;
    engine.with_table(&mut |table| {
        written = Some(writer.write(table, levels)?);
        Ok(())
    })?;
    Ok(written.ok_or("the table was never read")?)
}

/// The CPU engine, the table in host memory: the file is written from the table, and the
/// family's drawing made from it.
impl<S: StateSpace> TierEngine<S> for CpuEngine<'_, S> {
    type Engine = Self;

    fn engine(&mut self) -> &mut Self {
        self
    }

    fn finish(
        self,
        space: &S,
        levels: &Levels,
        writer: &DistancesWriter,
    ) -> Result<Outputs, SearchError> {
        let table = self.into_table()?;
        Ok(Outputs {
            distances: Some(writer.write(&table, levels)?),
            picture: space.picture(&table),
            disk: None,
        })
    }
}

/// The GPU engine, the whole table on the device: the file is written from a host copy, or
/// from the device's table read back chunk by chunk.
impl<S: StateSpace> TierEngine<S> for GpuEngine<'_> {
    type Engine = Self;

    fn engine(&mut self) -> &mut Self {
        self
    }

    fn finish(
        mut self,
        _: &S,
        levels: &Levels,
        writer: &DistancesWriter,
    ) -> Result<Outputs, SearchError> {
        Ok(Outputs {
            distances: Some(write_where_it_lies(&mut self, levels, writer)?),
            picture: None,
            disk: None,
        })
    }
}

/// The table in slabs on disk or in host memory, in one process: the file is written from the
/// slabs, which then go; the report says what they read and wrote.
pub(super) struct Slabs<'a, S: StateSpace> {
    /// The engine.
    pub(super) engine: DiskEngine<'a, S>,
    /// The plan of its slabs.
    pub(super) plan: &'a SlabPlan,
}

impl<'a, S: StateSpace> TierEngine<S> for Slabs<'a, S> {
    type Engine = DiskEngine<'a, S>;

    fn engine(&mut self) -> &mut Self::Engine {
        &mut self.engine
    }

    fn finish(
        mut self,
        _: &S,
        levels: &Levels,
        writer: &DistancesWriter,
    ) -> Result<Outputs, SearchError> {
        let distances = write_where_it_lies(&mut self.engine, levels, writer)?;
        self.engine.remove_files()?;
        let io = self.engine.io();
        Ok(Outputs {
            distances: Some(distances),
            picture: None,
            disk: Some(DiskReport {
                slabs: self.plan.count,
                in_memory: self.plan.in_memory,
                read_bytes: io.read,
                written_bytes: io.written,
                io_seconds: (io.seconds * 10.0).round() / 10.0,
                levels: self.engine.steps().to_vec(),
            }),
        })
    }
}
