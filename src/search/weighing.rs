//! Positions from entries: a level's count of positions where a table's entries stand for
//! several positions each (a table reduced by symmetry, [`crate::puzzle::symmetry`]).
//!
//! Entries of equal weight form ranges of ranks, the heaviest first and by far the largest, and
//! a few special entries weigh what they weigh on their own ([`Weights`]). After each pass the
//! loop counts the new level's entries in the lighter ranges from the table (the entries there
//! holding the level's value, less those of earlier levels holding it) and looks up the special
//! entries not yet reached; the rest of the pass's count lies in the heaviest range.

use super::Engine;
use super::SearchError;
use crate::puzzle::Weights;
use std::ops::Range;

/// The counts kept to weigh each level.
pub struct Weighing {
    /// The heaviest range's weight.
    first: u64,
    /// The lighter ranges and their weights.
    lighter: Vec<(Range<u64>, u64)>,
    /// For each lighter range, its entries found so far holding 0, 1 and 2.
    held: Vec<[u64; 3]>,
    /// The special entries not reached yet, with what each weighs beyond its range's weight.
    special: Vec<(u64, i64)>,
    /// All the special entries, reached or not.
    every_special: Vec<(u64, i64)>,
}

impl Weighing {
    /// The weighing of `weights`, or `None` where there are none (each entry one position).
    pub fn of(weights: Option<Weights>) -> Option<Weighing> {
        let weights = weights?;
        let (first, lighter) = weights.ranges.split_first()?;
        let weight = |rank: u64| {
            (weights.ranges.iter())
                .find(|(r, _)| r.contains(&rank))
                .map_or(0, |(_, w)| *w)
        };
        let special: Vec<_> = (weights.special.iter())
            .map(|&(rank, w)| (rank, w as i64 - weight(rank) as i64))
            .collect();
        Some(Weighing {
            first: first.1,
            held: vec![[0; 3]; lighter.len()],
            lighter: lighter.to_vec(),
            every_special: special.clone(),
            special,
        })
    }

    /// The ranges of the lighter entries.
    fn ranges(&self) -> Vec<Range<u64>> {
        self.lighter.iter().map(|(r, _)| r.clone()).collect()
    }

    /// The positions the start entries `starts` stand for, which it counts at level 0.
    pub fn start(&mut self, starts: &[u64]) -> u64 {
        let mut positions = 0;
        for &s in starts {
            positions += match self.lighter.iter().position(|(r, _)| r.contains(&s)) {
                Some(i) => {
                    self.held[i][0] += 1;
                    self.lighter[i].1
                }
                None => self.first,
            };
        }
        let (reached, left) = self.special.iter().partition(|(r, _)| starts.contains(r));
        self.special = left;
        positions.saturating_add_signed(Self::beyond(&reached))
    }

    /// What the special entries `reached` weigh beyond their ranges' weights.
    fn beyond(reached: &[(u64, i64)]) -> i64 {
        reached.iter().map(|&(_, w)| w).sum()
    }

    /// Takes the counts from the table in `engine` as it is (after a resume).
    pub fn take_from(&mut self, engine: &mut impl Engine) -> Result<(), SearchError> {
        for value in 0..3 {
            let counts = engine.count_holding(&self.ranges(), value)?;
            for (held, count) in self.held.iter_mut().zip(counts) {
                held[value as usize] = count;
            }
        }
        let ranks: Vec<u64> = self.special.iter().map(|&(r, _)| r).collect();
        let values = engine.values_at(&ranks)?;
        let mut values = values.iter();
        self.special.retain(|_| values.next() == Some(&3));
        Ok(())
    }

    /// What [`Weighing::restore`] takes back: each lighter range's entries holding 0, 1 and 2,
    /// and the special entries not reached yet.
    pub fn saved(&self) -> (Vec<[u64; 3]>, Vec<u64>) {
        let special = self.special.iter().map(|&(r, _)| r).collect();
        (self.held.clone(), special)
    }

    /// Takes back the counts [`Weighing::saved`] gave, as they were when a scan began that
    /// was saved part way (the table then also holds part of the level the scan finds).
    pub fn restore(&mut self, held: &[[u64; 3]], special: &[u64]) -> Result<(), String> {
        if held.len() != self.held.len() {
            return Err("the checkpoint's weighing is not of this table".into());
        }
        self.held = held.to_vec();
        self.special = (self.every_special.iter())
            .filter(|(r, _)| special.contains(r))
            .copied()
            .collect();
        Ok(())
    }

    /// The positions of level `depth`, just found with `entries` entries in `engine`'s table.
    pub fn level(
        &mut self,
        engine: &mut impl Engine,
        depth: u64,
        entries: u64,
    ) -> Result<u64, SearchError> {
        let value = (depth % 3) as u8;
        let counts = engine.count_holding(&self.ranges(), value)?;
        let mut positions = 0;
        let mut lighter = 0;
        for ((held, count), (_, weight)) in self.held.iter_mut().zip(counts).zip(&self.lighter) {
            let new = count - held[value as usize];
            held[value as usize] = count;
            positions += new * weight;
            lighter += new;
        }
        let ranks: Vec<u64> = self.special.iter().map(|&(r, _)| r).collect();
        let values = engine.values_at(&ranks)?;
        let mut reached = Vec::new();
        let mut at = values.iter();
        self.special.retain(|&s| {
            let set = at.next() == Some(&value);
            if set {
                reached.push(s);
            }
            !set
        });
        let positions = positions + (entries - lighter) * self.first;
        Ok(positions.saturating_add_signed(Self::beyond(&reached)))
    }
}
