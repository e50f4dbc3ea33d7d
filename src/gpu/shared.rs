//! The constants the host and the shaders both hold (record sizes, field numbers, kinds, array
//! bounds), checked alike: each is written once in Rust and once in WGSL, and this test reads
//! the shader's own declaration of each.

use super::sweep_data::{self, Kind};
use crate::puzzle::{hanoi, perm, symmetry, twisty};
use crate::rank::MAX_LEN;
use crate::table::UNREACHED;

/// The value of `const name: u32 = ...;` in `source`, a decimal or hexadecimal literal.
fn declared(source: &str, name: &str) -> u64 {
    let prefix = format!("const {name}: u32 = ");
    let line = (source.lines())
        .find_map(|l| l.trim().strip_prefix(prefix.as_str()))
        .unwrap_or_else(|| panic!("the shader declares no {prefix}"));
    let literal = line.trim_end_matches(';').trim_end_matches('u');
    match literal.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => literal.parse(),
    }
    .unwrap_or_else(|e| panic!("{name} = {literal}: {e}"))
}

#[test]
fn the_host_and_the_shaders_hold_the_same_constants() {
    let shader = |name: &str| -> &'static str {
        match name {
            "bfs" => include_str!("../../shaders/bfs.wgsl"),
            "rank" => include_str!("../../shaders/rank.wgsl"),
            "sweep" => include_str!("../../shaders/sweep.wgsl"),
            "twisty" => include_str!("../../shaders/twisty.wgsl"),
            "reduced" => include_str!("../../shaders/reduced.wgsl"),
            "perm" => include_str!("../../shaders/perm.wgsl"),
            "hanoi_moves" => include_str!("../../shaders/hanoi_moves.wgsl"),
            _ => unreachable!("no shader {name}"),
        }
    };
    let shared: &[(&str, &str, u64)] = &[
        ("bfs", "UNREACHED", UNREACHED.into()),
        ("rank", "MAX_LEN", MAX_LEN as u64),
        ("sweep", "SWEEP_HEADER", sweep_data::HEADER as u64),
        ("sweep", "MOVE_WORDS", sweep_data::MOVE_WORDS as u64),
        ("sweep", "RESIDUAL_WORDS", sweep_data::RESIDUAL_WORDS as u64),
        ("sweep", "DOMAIN_WORDS", sweep_data::DOMAIN_WORDS as u64),
        ("sweep", "SHIFT", Kind::Shift as u64),
        ("sweep", "RUNS", Kind::Runs as u64),
        ("sweep", "SHORT", Kind::Short as u64),
        ("twisty", "NONE", twisty::gpu::NONE.into()),
        ("twisty", "SET_WORDS", twisty::gpu::SET_WORDS as u64),
        ("twisty", "BLOCK_WORDS", twisty::gpu::BLOCK_WORDS as u64),
        ("twisty", "DIGIT_WORDS", twisty::gpu::DIGIT_WORDS as u64),
        ("twisty", "MAX_SETS", twisty::gpu::MAX_SETS as u64),
        ("twisty", "MAX_BLOCKS", twisty::gpu::MAX_BLOCKS as u64),
        ("twisty", "MAX_UNPACKED", twisty::gpu::MAX_UNPACKED as u64),
        ("twisty", "DISTINCT", twisty::gpu::DISTINCT.into()),
        ("twisty", "MULTISET", twisty::gpu::MULTISET.into()),
        ("twisty", "FOLLOWS", twisty::gpu::FOLLOWS.into()),
        ("twisty", "D_BLOCK", twisty::gpu::D_BLOCK.into()),
        ("twisty", "D_PIECES", twisty::gpu::D_PIECES.into()),
        ("twisty", "D_TWISTS", twisty::gpu::D_TWISTS.into()),
        ("reduced", "ROUTE_WORDS", symmetry::gpu::ROUTE_WORDS as u64),
        (
            "reduced",
            "STABILIZER_WORDS",
            symmetry::gpu::STABILIZER_WORDS as u64,
        ),
        ("perm", "LEX", perm::LEX.into()),
        ("perm", "EVEN", perm::EVEN.into()),
        ("perm", "ODD", perm::ODD.into()),
        ("hanoi_moves", "NONE", hanoi::NONE.into()),
    ];
    for &(file, name, ours) in shared {
        assert_eq!(
            declared(shader(file), name),
            ours,
            "{name} in shaders/{file}.wgsl"
        );
    }
}
