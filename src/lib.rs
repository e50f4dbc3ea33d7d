//! gpusearch: exhaustive breadth-first search of puzzle state spaces into 2-bit distance tables.
//!
//! The pipeline: a [`puzzle`] ranks positions densely; [`search`] runs the level loop into a
//! [`table::DistanceTable`]; [`store`] writes the table as a distances file and
//! [`report`] the reports; [`job`] ties one run together for the command line. [`gpu`] runs the
//! same level loop as WGSL compute shaders through wgpu.

pub mod gpu;
pub mod group;
pub mod job;
pub mod plan;
pub mod progress;
pub mod puzzle;
pub mod rank;
pub mod report;
pub mod search;
pub mod setting;
pub mod solve;
pub mod store;
pub mod table;
pub mod tables;
pub mod units;
pub mod verify;
