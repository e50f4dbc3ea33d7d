//! Pancake sorting: a stack of `n` pancakes of different sizes; a move (a flip) turns the top `k`
//! pancakes over as one, reversing their order, for `2 <= k <= n`. Burnt pancakes (`--burnt`)
//! have a burnt side: a flip also turns each pancake it moves upside down, and flipping the top
//! one alone is a move too (`1 <= k <= n`). Solved: the pancakes by size, the smallest on top,
//! every burnt side down, where the search starts. All `n!` stacks (`2^n n!` burnt) are
//! reachable.
//!
//! A state lists the pancakes from the top, 1 the smallest; a burnt pancake with its burnt side
//! up is written negative (`-3`), and in the states of the library (`state`, `rank`) as its size
//! plus `n`. Moves are named by how many pancakes they flip (`5`).
//!
//! Rank order: the stack as a mixed-radix number whose least significant digit is the top's,
//! position `i` (0 the top) a digit of radix `i + 1`: how many pancakes above it are larger
//! (burnt: of radix `2 (i + 1)`, twice that plus 1 where its burnt side is up). The solved
//! stack is rank 0. The digits of the top `k` positions depend on the order of the top `k`
//! pancakes alone and those below on which pancakes are above them, not in what order: a flip
//! of `k` keeps every block of `W_k` consecutive ranks (the weight of digit `k`: `k!`, burnt
//! `2^k k!`) in place and moves the ranks within it by one map, the flip of the whole stack of
//! `k` pancakes. So the small flips are block moves ([`Blocks`]) and the others
//! transpose tiles, the same ones in every block (`tiles`); `cursor` applies any flip to one
//! stack.

mod cursor;
mod tiles;

use super::family::{Family, Given, Kind, Opt, PuzzleError, Run, Sample};
use super::{
    BlockMove, Blocks, Capabilities, GpuShader, MAX_TABLE_BLOCK, PuzzleInfo, Space, StateSpace,
    Structure,
};
use crate::puzzle::Rate;
use crate::puzzle::capability::Symmetries;
use crate::rank::nth_set_bit;
use crate::rank::window::WindowMove;
use crate::setting::Setting;
pub use cursor::PancakeCursor;
use rayon::prelude::*;

/// Most pancakes: ranks of up to 20 (20! < 2^64).
pub const MAX_PANCAKES: usize = 20;
/// Most burnt pancakes: `2^16 16!` < 2^64.
pub const MAX_BURNT: usize = 16;

/// A stack of pancakes.
#[derive(Clone, Debug)]
pub struct Pancake {
    n: usize,
    burnt: bool,
    /// The radix of each position's digit: `i + 1`, burnt `2 (i + 1)`.
    radix: [u64; MAX_PANCAKES],
    /// The weight of each position's digit (the product of the radices above it), and past the
    /// bottom the number of stacks.
    weight: [u64; MAX_PANCAKES + 1],
    /// The most ranks of a block move's block: flips with larger blocks transpose tiles.
    bulk: u64,
}

/// The pancake family (`--puzzle pancake`).
pub struct Pancakes;
/// The pancake family.
pub const PANCAKE: Pancakes = Pancakes;

impl Family for Pancakes {
    fn name(&self) -> &'static str {
        "pancake"
    }

    fn samples(&self) -> &'static [Sample] {
        &[
            Sample {
                options: &[("n", "7")],
                reaches: "flips of whole runs of ranks and flips entry by entry",
            },
            Sample {
                options: &[("n", "5"), ("burnt", "true")],
                reaches: "burnt sides",
            },
        ]
    }

    fn options(&self) -> &'static [Opt] {
        &[
            Opt {
                name: "n",
                kind: Kind::Count,
                help: "the pancakes, 2 to 20 (burnt: 1 to 16)",
                default: None,
            },
            Opt {
                name: "burnt",
                kind: Kind::Switch,
                help: "burnt pancakes: a flip also turns each pancake over",
                default: None,
            },
        ]
    }

    fn build(&self, given: &Given) -> Result<Space, PuzzleError> {
        let n = given.need_count("n")?;
        let pancake = Pancake::new(n, given.switch("burnt")).map_err(PuzzleError::value("n", n))?;
        Ok(Space::Pancake(pancake))
    }

    fn runs(&self) -> &'static [Run] {
        const fn run(options: &'static [(&'static str, &'static str)]) -> Run {
            Run {
                options,
                large: false,
            }
        }
        const fn large(options: &'static [(&'static str, &'static str)]) -> Run {
            Run {
                options,
                large: true,
            }
        }
        const RUNS: &[Run] = &[
            run(&[("n", "8")]),
            run(&[("n", "10")]),
            run(&[("n", "11")]),
            run(&[("n", "12")]),
            run(&[("n", "7"), ("burnt", "true")]),
            run(&[("n", "8"), ("burnt", "true")]),
            run(&[("n", "9"), ("burnt", "true")]),
            // 6.2e9, 8.7e10, 3.7e9 and 8.2e10 positions: tables of 1.5, 20.3, 0.9 and 19.0 GiB.
            large(&[("n", "13")]),
            large(&[("n", "14")]),
            large(&[("n", "10"), ("burnt", "true")]),
            large(&[("n", "11"), ("burnt", "true")]),
        ];
        RUNS
    }
}

impl Pancake {
    /// A stack of `n` pancakes, burnt or not.
    pub fn new(n: usize, burnt: bool) -> Result<Pancake, String> {
        let (least, most) = if burnt {
            (1, MAX_BURNT)
        } else {
            (2, MAX_PANCAKES)
        };
        if !(least..=most).contains(&n) {
            return Err(format!(
                "out of range: a stack of {}pancakes has {least} to {most}",
                if burnt { "burnt " } else { "" }
            ));
        }
        let mut radix = [1u64; MAX_PANCAKES];
        let mut weight = [1u64; MAX_PANCAKES + 1];
        for i in 0..n {
            radix[i] = (i + 1) as u64 * if burnt { 2 } else { 1 };
            weight[i + 1] = weight[i] * radix[i];
        }
        Ok(Pancake {
            n,
            burnt,
            radix,
            weight,
            bulk: MAX_TABLE_BLOCK,
        })
    }

    /// The stack with block moves only for flips whose blocks have at most `ranks` ranks, the
    /// others by tiles (for the tests of tiles in many blocks).
    #[cfg(test)]
    pub(crate) fn block_moves_up_to(mut self, ranks: u64) -> Pancake {
        self.bulk = ranks;
        self
    }

    /// The smallest flip: 1 burnt, else 2.
    fn first_flip(&self) -> usize {
        if self.burnt { 1 } else { 2 }
    }

    /// The top `digits.len()` digits of `rank` (all of a rank, or the part of its top ones),
    /// top first.
    fn digits(&self, mut rank: u64, digits: &mut [u64]) {
        for (digit, &radix) in digits.iter_mut().zip(&self.radix) {
            *digit = rank % radix;
            rank /= radix;
        }
    }

    /// The top `k` pancakes (0-based sizes among `0..k`, a burnt one turned up `+ 32`) whose
    /// digits are `digits`, decoded from the bottom: each is the one of those left (not below
    /// it) with its digit's count larger.
    fn stack_of(&self, digits: &[u64], k: usize, stack: &mut [u8; MAX_PANCAKES]) {
        let mut left = (1u32 << k) - 1;
        for i in (0..k).rev() {
            let (larger, up) = self.split(digits[i]);
            let p = nth_set_bit(left, i as u32 - larger as u32);
            left &= !(1 << p);
            stack[i] = p as u8 | (up as u8) << 5;
        }
    }

    /// A digit's count of larger pancakes above and whether its pancake is turned up.
    fn split(&self, digit: u64) -> (u64, u64) {
        match self.burnt {
            true => (digit / 2, digit % 2),
            false => (digit, 0),
        }
    }

    /// The digit of a pancake (`p`: its size, `+ 32` turned up) with `larger` larger ones above.
    fn digit(&self, p: u8, larger: u32) -> u64 {
        match self.burnt {
            true => 2 * u64::from(larger) + u64::from(p >> 5),
            false => u64::from(larger),
        }
    }

    /// The digits of `stack` (sizes as in [`Pancake::stack_of`]) weighed as the rank's: its
    /// rank, or for the top `k` of a stack their part of it.
    fn rank_of(&self, stack: &[u8]) -> u64 {
        let mut above = 0u32;
        let mut rank = 0;
        for (i, &p) in stack.iter().enumerate() {
            let size = u32::from(p & 31);
            let larger = (above & !((2 << size) - 1)).count_ones();
            above |= 1 << size;
            rank += self.digit(p, larger) * self.weight[i];
        }
        rank
    }

    /// `stack` with its top `k` flipped (burnt: turned too).
    fn flip(&self, stack: &mut [u8], k: usize) {
        stack[..k].reverse();
        if self.burnt {
            for p in &mut stack[..k] {
                *p ^= 32;
            }
        }
    }

    /// Flip `k` within a block of `W_k` ranks: where each rank of the block goes.
    fn flip_map(&self, k: usize) -> Vec<u32> {
        let mut map = vec![0u32; self.weight[k] as usize];
        map.par_chunks_mut(1 << 14)
            .enumerate()
            .for_each(|(c, out)| {
                let mut digits = [0u64; MAX_PANCAKES];
                let mut stack = [0u8; MAX_PANCAKES];
                for (j, slot) in out.iter_mut().enumerate() {
                    self.digits((c << 14) as u64 + j as u64, &mut digits[..k]);
                    self.stack_of(&digits, k, &mut stack);
                    self.flip(&mut stack, k);
                    *slot = self.rank_of(&stack[..k]) as u32;
                }
            });
        map
    }

    /// Whether flip `k` is a block move: its blocks small enough for a table of positions.
    fn in_bulk(&self, k: usize) -> bool {
        self.weight[k] <= self.bulk
    }
}

impl StateSpace for Pancake {
    type Cursor<'a> = PancakeCursor<'a>;

    fn size(&self) -> u64 {
        self.weight[self.n]
    }

    fn move_names(&self) -> Vec<String> {
        (self.first_flip()..=self.n)
            .map(|k| k.to_string())
            .collect()
    }

    fn move_count(&self) -> usize {
        self.n + 1 - self.first_flip()
    }

    fn solved(&self) -> u64 {
        0
    }

    fn cursor(&self) -> PancakeCursor<'_> {
        PancakeCursor::new(self)
    }

    /// The pancakes from the top, 1 the smallest; a burnt one turned up is its size plus `n`.
    fn state(&self, rank: u64) -> Vec<u32> {
        let mut digits = [0; MAX_PANCAKES];
        let mut stack = [0; MAX_PANCAKES];
        self.digits(rank, &mut digits[..self.n]);
        self.stack_of(&digits, self.n, &mut stack);
        (stack[..self.n].iter())
            .map(|&p| u32::from(p & 31) + 1 + u32::from(p >> 5) * self.n as u32)
            .collect()
    }

    fn rank(&self, state: &[u32]) -> Result<u64, String> {
        let n = self.n as u32;
        let sizes: Vec<u32> = (state.iter())
            .map(|&p| if p > n { p - n } else { p })
            .collect();
        let turned = state.iter().any(|&p| p > n && p <= 2 * n);
        if turned && !self.burnt {
            return Err(format!(
                "a pancake is turned (negative) but these pancakes are not burnt: add {}, or list the sizes alone",
                Setting::FamilyOption("burnt")
            ));
        }
        super::pieces(&sizes, self.n)?;
        let stack: Vec<u8> = (state.iter().zip(&sizes))
            .map(|(&p, &size)| (size - 1) as u8 | u8::from(p > n) << 5)
            .collect();
        Ok(self.rank_of(&stack))
    }

    fn format_state(&self, state: &[u32]) -> String {
        let n = self.n as u32;
        let words: Vec<String> = (state.iter())
            .map(|&p| match p > n {
                true => format!("-{}", p - n),
                false => p.to_string(),
            })
            .collect();
        words.join(" ")
    }

    fn parse_state(&self, text: &str) -> Result<Vec<u32>, String> {
        let n = self.n as u32;
        text.split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty())
            .map(|w| {
                let (turned, size) = match w.strip_prefix('-') {
                    Some(rest) => (true, rest),
                    None => (false, w),
                };
                match size.parse::<u32>() {
                    Ok(s) if (1..=n).contains(&s) => Ok(s + n * u32::from(turned)),
                    _ => Err(format!(
                        "'{w}' in the state is not a pancake: write the sizes 1 to {n} from the top, a burnt one turned up as -size"
                    )),
                }
            })
            .collect()
    }

    fn info(&self) -> PuzzleInfo {
        let mut params = serde_json::Map::new();
        params.insert("n".into(), self.n.into());
        if self.burnt {
            params.insert("burnt".into(), true.into());
        }
        PuzzleInfo {
            puzzle: "pancake".into(),
            params,
            metric: "flips".into(),
            moves: self.move_names(),
            rank_order: match self.burnt {
                false => "rank = sum over positions i (0 the top) of larger_i * i!, larger_i the number of larger pancakes above i's; move k flips the top k",
                true => "rank = sum over positions i (0 the top) of (2 * larger_i + up_i) * 2^i i!, larger_i the number of larger pancakes above i's, up_i 1 where its burnt side is up; move k flips the top k and turns them",
            }
            .into(),
            group_order: None,
            symmetry: None,
        }
    }

    fn slug(&self) -> String {
        match self.burnt {
            true => format!("pancake-n{}-burnt", self.n),
            false => format!("pancake-n{}", self.n),
        }
    }

    /// The flips of few pancakes are block moves ([`Blocks`]); those of more transpose tiles
    /// ([`crate::puzzle::Tiles`]).
    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities {
            blocks: Some(self),
            tiles: Some(self),
            symmetries: Symmetries::None(
                "the only relabelling of a pancake graph that keeps the start and maps flips to flips is the identity",
            ),
            ..Capabilities::default()
        }
    }

    fn measured_rate(&self) -> Rate {
        match self.burnt {
            true => Rate {
                per_thread: 57.0e6,
                run: "11 burnt pancakes: 8.2e10 states in 721 s",
            },
            false => Rate {
                per_thread: 46.0e6,
                run: "14 pancakes: 8.7e10 states in 943 s",
            },
        }
    }

    fn gpu_shader(&self) -> Option<GpuShader> {
        Some(GpuShader {
            source: include_str!("../../../shaders/pancake.wgsl"),
            constants: vec![
                ("PANCAKES", self.n as f64),
                ("BURNT", f64::from(u8::from(self.burnt))),
                ("MOVES", self.move_count() as f64),
            ],
            data: (self.weight[..self.n].iter())
                .flat_map(|&w| [w as u32, (w >> 32) as u32])
                .collect(),
            tables: Vec::new(),
            pushed: None,
        })
    }
}

impl Blocks for Pancake {
    /// The flips whose blocks are small: block moves; the rest residual, by tiles.
    fn structure(&self) -> Structure {
        let mut structure = Structure {
            blocks: Vec::new(),
            residual: Vec::new(),
        };
        for (mv, k) in (self.first_flip()..=self.n).enumerate() {
            match self.in_bulk(k) {
                true => structure.blocks.push(BlockMove {
                    from: 0,
                    to: 0,
                    len: self.size(),
                    window: WindowMove::of_map(1, self.flip_map(k)),
                    first_block: 0,
                }),
                false => structure.residual.push((0..self.size(), mv)),
            }
        }
        structure
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::Cursor;

    /// The stack after flipping the top `k` of `state` (sizes from 1, turned ones plus `n`).
    fn flip(state: &[u32], k: usize, n: u32, burnt: bool) -> Vec<u32> {
        let mut next = state.to_vec();
        next[..k].reverse();
        if burnt {
            for p in &mut next[..k] {
                *p = if *p > n { *p - n } else { *p + n };
            }
        }
        next
    }

    #[test]
    fn every_rank_is_a_stack_that_ranks_back_and_flips_as_the_cursor_says() {
        for (n, burnt) in [
            (2, false),
            (4, false),
            (6, false),
            (1, true),
            (3, true),
            (5, true),
        ] {
            let stack = Pancake::new(n, burnt).unwrap();
            let mut cursor = stack.cursor();
            let mut seen = std::collections::HashSet::new();
            // Up (each stack decoded from the last), then down (each afresh).
            for rank in (0..stack.size()).chain((0..stack.size()).rev()) {
                let state = stack.state(rank);
                let again = !seen.insert(state.clone());
                assert!(
                    !again || seen.len() as u64 == stack.size(),
                    "{state:?} twice"
                );
                assert_eq!(stack.rank(&state), Ok(rank), "{n} {burnt} {state:?}");
                cursor.seek(rank);
                for (mv, k) in (stack.first_flip()..=n).enumerate() {
                    let want = flip(&state, k, n as u32, burnt);
                    assert_eq!(stack.state(cursor.neighbour(mv)), want, "{state:?} {k}");
                }
            }
            assert_eq!(stack.state(0), (1..=n as u32).collect::<Vec<_>>());
        }
    }

    #[test]
    fn turned_pancakes_are_written_negative_and_read_back() {
        let stack = Pancake::new(4, true).unwrap();
        let state = stack.parse_state("-3 1 -4 2").unwrap();
        assert_eq!(state, vec![7, 1, 8, 2]);
        assert_eq!(stack.format_state(&state), "-3 1 -4 2");
        let rank = stack.rank(&state).unwrap();
        assert_eq!(stack.state(rank), state);
        assert!(
            stack
                .parse_state("1 2 5 3")
                .unwrap_err()
                .contains("not a pancake")
        );
        let plain = Pancake::new(4, false).unwrap();
        assert!(plain.rank(&[7, 1, 8, 2]).unwrap_err().contains("not burnt"));
        assert!(Pancake::new(1, false).unwrap_err().contains("2 to 20"));
        assert!(Pancake::new(17, true).unwrap_err().contains("1 to 16"));
    }
}
