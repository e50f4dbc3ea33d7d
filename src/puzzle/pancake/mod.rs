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
//! Rank order: the stack from the top as a mixed-radix number, position `i` (0 the top) a digit
//! of radix `n - i`, the Lehmer digit of its pancake (how many pancakes below it are smaller),
//! burnt: of radix `2 (n - i)`, twice the Lehmer digit plus 1 where its burnt side is up. The
//! solved stack is rank 0. A flip of `k` changes only the top `k` digits: the ranks that share
//! them, `W_{k-1}` consecutive ones (the weight of digit `k - 1`), move together to another such
//! run, in order. So a flip whose table of top digits is small enough is a block move of long
//! runs ([`StateSpace::structure`]); the others go state by state ([`cursor`]: it keeps each
//! flip's offset for the run it is in) or run by run, and the flip of the whole stack, whose
//! runs are single ranks, transposes tiles ([`tiles`]).

mod cursor;
mod tiles;

use super::family::{Family, Given, Kind, Opt, PuzzleError, Run};
use super::{BlockMove, GpuShader, PuzzleInfo, Space, StateSpace, Structure, Transposition};
use crate::rank::nth_set_bit;
use crate::rank::window::WindowMove;
pub use cursor::PancakeCursor;
use rayon::prelude::*;
use std::sync::OnceLock;

/// Most pancakes: ranks of up to 20 (20! < 2^64).
pub const MAX_PANCAKES: usize = 20;
/// Most burnt pancakes: `2^16 16!` < 2^64.
pub const MAX_BURNT: usize = 16;
/// Most values of a flip's top digits applied as a block move (a table of 4 bytes each).
const MAX_WINDOW_VALUES: u64 = 1 << 25;

/// A stack of pancakes.
#[derive(Clone, Debug)]
pub struct Pancake {
    n: usize,
    burnt: bool,
    /// The radix of each position's digit: `n - i`, burnt `2 (n - i)`.
    radix: [u64; MAX_PANCAKES],
    /// The weight of each position's digit: the product of the radices below it.
    weight: [u64; MAX_PANCAKES],
    /// The bottom pancakes of each column of the tiles of the flips that leave them, made once
    /// for each number left.
    bottoms: [OnceLock<Vec<[u8; tiles::TILED_BELOW]>>; tiles::TILED_BELOW],
}

/// The pancake family (`--puzzle pancake`).
pub struct Pancakes;
/// The pancake family.
pub const PANCAKE: Pancakes = Pancakes;

impl Family for Pancakes {
    fn name(&self) -> &'static str {
        "pancake"
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
                "out of range: a stack of {} pancakes has {least} to {most}",
                if burnt { "burnt " } else { "" }
            ));
        }
        let mut radix = [1u64; MAX_PANCAKES];
        let mut weight = [1u64; MAX_PANCAKES];
        for i in (0..n).rev() {
            radix[i] = (n - i) as u64 * if burnt { 2 } else { 1 };
            if i + 1 < n {
                weight[i] = weight[i + 1] * radix[i + 1];
            }
        }
        Ok(Pancake {
            n,
            burnt,
            radix,
            weight,
            bottoms: Default::default(),
        })
    }

    /// The smallest flip: 1 burnt, else 2.
    fn first_flip(&self) -> usize {
        if self.burnt { 1 } else { 2 }
    }

    /// The digits of `rank`, top first.
    fn digits(&self, mut rank: u64, digits: &mut [u64; MAX_PANCAKES]) {
        let mut i = self.n;
        while i > 0 && rank > u64::from(u32::MAX) {
            i -= 1;
            digits[i] = rank % self.radix[i];
            rank /= self.radix[i];
        }
        // Below 2^32 a 32-bit division does (much faster than a 64-bit one).
        let mut rest = rank as u32;
        while i > 0 {
            i -= 1;
            let r = self.radix[i] as u32;
            digits[i] = u64::from(rest % r);
            rest /= r;
        }
    }

    /// The top `k` pancakes (0-based sizes, a burnt one turned up `+ 32`) of the stack whose top
    /// digits are `digits`.
    fn top(&self, digits: &[u64], k: usize, top: &mut [u8; MAX_PANCAKES]) {
        let mut unused = (1u32 << self.n) - 1;
        for i in 0..k {
            let (lehmer, up) = match self.burnt {
                true => (digits[i] / 2, digits[i] % 2),
                false => (digits[i], 0),
            };
            let p = nth_set_bit(unused, lehmer as u32);
            unused &= !(1 << p);
            top[i] = p as u8 | (up as u8) << 5;
        }
    }

    /// The value of the top `k` digits after flipping the top `k` pancakes `top`, weighted as
    /// digits `0..k` of a rank (`weight`) or of a window value.
    fn flipped(&self, top: &[u8; MAX_PANCAKES], k: usize, weight: impl Fn(usize) -> u64) -> u64 {
        let mut unused = (1u32 << self.n) - 1;
        let mut value = 0;
        for i in 0..k {
            let p = top[k - 1 - i];
            let size = u32::from(p & 31);
            let lehmer = u64::from((unused & ((1 << size) - 1)).count_ones());
            unused &= !(1 << size);
            let digit = match self.burnt {
                true => 2 * lehmer + u64::from(p >> 5 ^ 1),
                false => lehmer,
            };
            value += digit * weight(i);
        }
        value
    }

    /// Values of the top `k` digits: the product of their radices.
    fn window_values(&self, k: usize) -> u64 {
        self.radix[..k].iter().product()
    }

    /// Flip `k` as a block move: the table of its top digits' values.
    fn block_move(&self, k: usize) -> BlockMove {
        let values = self.window_values(k) as usize;
        // Within the window, digit i weighs the radices of the window digits below it.
        let mut within = [1u64; MAX_PANCAKES];
        for i in (0..k.saturating_sub(1)).rev() {
            within[i] = within[i + 1] * self.radix[i + 1];
        }
        let mut map = vec![0u32; values];
        map.par_chunks_mut(1 << 14)
            .enumerate()
            .for_each(|(c, out)| {
                let mut digits = [0u64; MAX_PANCAKES];
                let mut top = [0u8; MAX_PANCAKES];
                for (j, slot) in out.iter_mut().enumerate() {
                    let mut x = (c << 14) as u64 + j as u64;
                    for i in (0..k).rev() {
                        digits[i] = x % self.radix[i];
                        x /= self.radix[i];
                    }
                    self.top(&digits, k, &mut top);
                    *slot = self.flipped(&top, k, |i| within[i]) as u32;
                }
            });
        BlockMove {
            from: 0,
            to: 0,
            len: self.size(),
            window: WindowMove::of_map(self.weight[k - 1], map),
            first_block: 0,
        }
    }

    /// Whether flip `k` is a block move (its table small, its runs long or its blocks small).
    fn in_bulk(&self, k: usize) -> bool {
        let values = self.window_values(k);
        values <= MAX_WINDOW_VALUES && super::applies_in_bulk(self.size(), self.weight[k - 1])
    }
}

impl StateSpace for Pancake {
    type Cursor<'a> = PancakeCursor<'a>;

    fn size(&self) -> u64 {
        self.radix[..self.n].iter().product()
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
        let mut top = [0; MAX_PANCAKES];
        self.digits(rank, &mut digits);
        self.top(&digits, self.n, &mut top);
        (top[..self.n].iter())
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
            return Err("a pancake is turned (negative) but these pancakes are not burnt: add the burnt option, or list the sizes alone".into());
        }
        super::pieces(&sizes, self.n)?;
        let mut unused = (1u32 << self.n) - 1;
        let mut rank = 0;
        for (i, (&p, &size)) in state.iter().zip(&sizes).enumerate() {
            let size = size - 1;
            let lehmer = u64::from((unused & ((1 << size) - 1)).count_ones());
            unused &= !(1 << size);
            let digit = match self.burnt {
                true => 2 * lehmer + u64::from(p > n),
                false => lehmer,
            };
            rank += digit * self.weight[i];
        }
        Ok(rank)
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
                false => "rank = the lexicographic rank of the stack read from the top (0-based sizes); move k flips the top k",
                true => "rank = sum over positions i (0 the top) of (2 * lehmer_i + up_i) * prod over j > i of 2 (n - j), lehmer_i the number of smaller pancakes below i's, up_i 1 where its burnt side is up; move k flips the top k and turns them",
            }
            .into(),
            group_order: None,
        }
    }

    fn slug(&self) -> String {
        match self.burnt {
            true => format!("pancake-n{}-burnt", self.n),
            false => format!("pancake-n{}", self.n),
        }
    }

    /// The flips whose table of top digits is small: block moves; the rest residual.
    fn structure(&self) -> Option<Structure> {
        if !self.has_structure() {
            return None;
        }
        let mut structure = Structure {
            blocks: Vec::new(),
            residual: Vec::new(),
        };
        for (mv, k) in (self.first_flip()..=self.n).enumerate() {
            match self.in_bulk(k) {
                true => structure.blocks.push(self.block_move(k)),
                false => structure.residual.push((0..self.size(), mv)),
            }
        }
        Some(structure)
    }

    fn has_structure(&self) -> bool {
        self.in_bulk(self.first_flip())
    }

    /// Flip `k` keeps the ranks that share the top `k` digits together: runs of `W_{k-1}`.
    fn residual_run(&self, mv: usize) -> u64 {
        self.weight[mv + self.first_flip() - 1]
    }

    /// Flipping the whole stack, or all but the bottom few pancakes, transposes tiles
    /// ([`tiles`]).
    fn transposition(&self, mv: usize) -> Option<Transposition> {
        self.tile_top(mv + self.first_flip())
            .map(|m| self.flip_transposition(mv + self.first_flip(), m))
    }

    fn tile_rows(&self, mv: usize, t: usize, rows: &mut Vec<u64>) {
        let m = self.tile_top(mv + self.first_flip());
        self.tile_orders(t, m.expect("a flip with tiles"), rows);
    }

    fn tile_classes(&self, mv: usize, t: usize, classes: &mut Vec<u16>) {
        let k = mv + self.first_flip();
        let m = self.tile_top(k).expect("a flip with tiles");
        self.bottom_classes(t, k, m, classes);
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
        })
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
