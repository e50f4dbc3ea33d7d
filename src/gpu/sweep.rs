//! The data of the device's sweep passes (`shaders/sweep.wgsl`): a space's
//! [`Structure`] packed into words.

use crate::puzzle::Structure;

/// Words before the block-move records.
const HEADER: usize = 4;
/// Words per block-move record.
const MOVE_WORDS: usize = 16;
/// Words per residual record.
const RESIDUAL_WORDS: usize = 8;
/// The most residual ranges a sweep kernel handles (one bit each in a word).
const MAX_RESIDUAL: usize = 32;

/// The words of `structure` as `shaders/sweep.wgsl` reads them, or `None` where the kernels
/// cannot sweep it (more than 32 residual ranges): the engine then runs bottom-up passes.
pub fn sweep_data(structure: &Structure) -> Option<Vec<u32>> {
    if structure.residual.len() > MAX_RESIDUAL {
        return None;
    }
    let moves = structure.blocks.len();
    let residual_at = HEADER + moves * MOVE_WORDS;
    let mut words = vec![0u32; residual_at + structure.residual.len() * RESIDUAL_WORDS];
    words[0] = moves as u32;
    words[1] = structure.residual.len() as u32;
    words[2] = residual_at as u32;
    let put = |words: &mut Vec<u32>, at: usize, value: u64| {
        words[at] = value as u32;
        words[at + 1] = (value >> 32) as u32;
    };
    for (i, (ranks, mv)) in structure.residual.iter().enumerate() {
        let at = residual_at + i * RESIDUAL_WORDS;
        put(&mut words, at, ranks.start);
        put(&mut words, at + 2, ranks.end);
        words[at + 4] = *mv as u32;
    }
    for (i, b) in structure.blocks.iter().enumerate() {
        let at = HEADER + i * MOVE_WORDS;
        let w = &b.window;
        let map_at = words.len();
        words.extend(&w.map[0]);
        words.extend(&w.map[1]);
        let prefix_at = words.len();
        words.extend(&w.prefix);
        put(&mut words, at, b.from);
        put(&mut words, at + 2, b.to);
        put(&mut words, at + 4, b.len);
        put(&mut words, at + 6, w.block);
        put(&mut words, at + 8, w.run);
        words[at + 10] = u32::try_from(map_at).ok()?;
        words[at + 11] = w.map[0].len() as u32;
        words[at + 12] = w.parity_dependent() as u32;
        words[at + 13] = u32::try_from(prefix_at).ok()?;
        words[at + 14] = w.prefix.len() as u32;
    }
    Some(words)
}

/// The sweep data of a space without block moves: no moves, no residual ranges.
pub fn no_sweep() -> Vec<u32> {
    vec![0, 0, HEADER as u32, 0]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::{Metric, Ring, StateSpace};

    #[test]
    fn records_hold_each_block_move_and_residual_range() {
        let ring = Ring::turnstyle(8, Metric::Lrf).unwrap();
        let structure = ring.structure().unwrap();
        let words = sweep_data(&structure).unwrap();
        assert_eq!(words[0] as usize, structure.blocks.len());
        assert_eq!(words[1] as usize, structure.residual.len());
        let b = &structure.blocks[1];
        let at = HEADER + MOVE_WORDS;
        assert_eq!(
            u64::from(words[at]) | u64::from(words[at + 1]) << 32,
            b.from
        );
        assert_eq!(u64::from(words[at + 2]), b.to);
        let map_at = words[at + 10] as usize;
        assert_eq!(
            words[map_at..map_at + b.window.map[0].len()],
            b.window.map[0][..]
        );
    }
}
