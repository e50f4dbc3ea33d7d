//! A reduced table on the GPU (`shaders/reduced.wgsl`): the table's routes ([`super::routes`])
//! as words, so that the shader finds an entry's neighbours by rank arithmetic on the entry's
//! order alone.
//!
//! The shader reads, from `puzzle_tables`:
//! - each symmetry's relabelling of the pieces a rest orders, as nibbles (two words);
//! - each block's parity of orders and its stabilizer: `odd | count << 1`, then where its
//!   records begin;
//! - each block's route along each move: the block it lands in, the symmetry that takes the
//!   neighbour there, and the slots of the entry's order the neighbour's order is read from,
//!   as nibbles;
//! - the stabilizers' records: the symmetry, and the slots it reads an order from.

use super::routes::Routes;
use crate::puzzle::GpuShader;

/// Words of a route's record and of a stabilizer's.
pub(crate) const ROUTE_WORDS: usize = 4;
pub(crate) const STABILIZER_WORDS: usize = 3;

/// `x`'s first `k` bytes as nibbles, split into two words.
fn nibbles(x: &[u8]) -> [u32; 2] {
    let packed = (x.iter().enumerate()).fold(0u64, |v, (i, &n)| v | u64::from(n) << (4 * i));
    [packed as u32, (packed >> 32) as u32]
}

impl Routes {
    /// The shader and its words.
    pub(super) fn shader(&self) -> GpuShader {
        let mut tables: Vec<u32> = Vec::new();
        let relabels = tables.len();
        for relabel in &self.relabels {
            tables.extend(nibbles(&relabel[..self.k]));
        }
        let info = tables.len();
        let mut records = 0u32;
        for block in &self.blocks {
            let count = block.stabilizer.len() as u32;
            tables.extend([u32::from(block.odd) | count << 1, records]);
            records += count;
        }
        let routes = tables.len();
        tables.reserve(self.routes.len() * ROUTE_WORDS);
        for (block, g, from) in &self.routes {
            tables.extend([*block, u32::from(*g)]);
            tables.extend(nibbles(&from[..self.k]));
        }
        let stabilizers = tables.len();
        for block in &self.blocks {
            for (h, from) in &block.stabilizer {
                tables.push(u32::from(*h));
                tables.extend(nibbles(&from[..self.k]));
            }
        }
        debug_assert_eq!(
            tables.len(),
            stabilizers + records as usize * STABILIZER_WORDS
        );
        GpuShader {
            source: include_str!("../../../shaders/reduced.wgsl"),
            constants: vec![
                ("MOVES", self.moves as f64),
                ("K", self.k as f64),
                ("FIBRE", self.fibre as f64),
                ("HALVED", f64::from(u8::from(self.halved))),
                ("RELABELS", relabels as f64),
                ("INFO", info as f64),
                ("ROUTES", routes as f64),
                ("STABILIZERS", stabilizers as f64),
            ],
            data: Vec::new(),
            tables,
            pushed: None,
        }
    }
}
