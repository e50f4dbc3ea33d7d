//! Classes of states whose labels but one may be exchanged: the Towers of Hanoi's pegs.
//!
//! A state gives each of `len` places (discs) a label `1..=labels` (a peg). Label 1 (the start
//! peg) stays; the others may be exchanged in every way, `(labels - 1)!` symmetries. A class is
//! written canonically by naming the other labels in the order they first appear, reading from
//! the last place (the largest disc): a restricted-growth string, each place holding 0 (label
//! 1), a name already used, or the next new name.
//!
//! Entries are numbered by how many names a class uses, the most first, then by the string in
//! lexicographic order (places from the last, 0 before used names before the new one). A class
//! using `m` of the `k = labels - 1` exchangeable labels holds `k! / (k - m)!` positions, the
//! same for every class of a range of entries ([`crate::puzzle::Weights`]): the table is exact,
//! one entry per class, with no entry unused.

use super::{Classes, Element, Rank, Symmetry};
use crate::puzzle::{StateSpace, Weights};
use std::ops::Range;

/// The symmetries of `space`, whose states give each of `len` places one of `labels` labels
/// (`what` names them, as "pegs"), that exchange all labels but label 1: checked on the space's
/// moves ([`super::check`]), with their classes numbered by [`Relabelled`].
pub fn exchanges<S: StateSpace>(
    space: &S,
    len: usize,
    labels: usize,
    what: &str,
) -> Result<Symmetry, String> {
    let exchange = |a: usize, b: usize| {
        let mut names: Vec<u32> = (0..=labels as u32).collect();
        names.swap(a, b);
        Element {
            positions: (0..len).collect(),
            labels: names,
        }
    };
    let generators: Vec<Element> = (2..labels).map(|a| exchange(a, a + 1)).collect();
    super::check(space, &generators)?;
    Ok(Symmetry {
        view: None,
        name: format!("the exchanges of {what} 2 to {labels}"),
        elements: super::group(&generators, len, labels as u32),
        rank: Rank::Classes(Box::new(Relabelled::new(len, labels))),
        // Not numbered by a class coordinate: no rests.
        moves_carry_rests: false,
        shader: None,
    })
}

/// The classes of states of `len` places under the exchange of all labels but label 1.
pub struct Relabelled {
    len: usize,
    /// The labels that may be exchanged.
    free: usize,
    /// `completions[m][rest * (free + 1) + used]`: the strings of `rest` more places, after
    /// places that used `used` names, that use `m` names in all.
    completions: Vec<Vec<u64>>,
    /// The entries of the classes using `m` names, for each `m`.
    ranges: Vec<Range<u64>>,
}

impl Relabelled {
    /// The classes of `len` places and `labels` labels (at least 2).
    pub fn new(len: usize, labels: usize) -> Relabelled {
        let free = labels - 1;
        let mut completions = vec![vec![vec![0u64; free + 1]; free + 1]; len + 1];
        for (used, counts) in completions[0].iter_mut().enumerate() {
            counts[used] = 1;
        }
        for rest in 1..=len {
            let (before, now) = completions.split_at_mut(rest);
            let before = &before[rest - 1];
            for (used, counts) in now[0].iter_mut().enumerate() {
                for (m, count) in counts.iter_mut().enumerate() {
                    let same = (used as u64 + 1) * before[used][m];
                    let new = before.get(used + 1).map_or(0, |b| b[m]);
                    *count = same + new;
                }
            }
        }
        let mut ranges = vec![0..0; free + 1];
        let mut at = 0;
        for m in (0..=free).rev() {
            let count = completions[len][0][m];
            ranges[m] = at..at + count;
            at += count;
        }
        // By the number of names first: a string's lookups all share it.
        let completions = (0..=free)
            .map(|m| {
                (completions.iter())
                    .flat_map(|by_used| by_used.iter().map(move |counts| counts[m]))
                    .collect()
            })
            .collect();
        Relabelled {
            len,
            free,
            completions,
            ranges,
        }
    }

    /// The tables a shader numbers the classes by (`shaders/hanoi_classes.wgsl`), as words, low
    /// first: for each count of names `m` from 0, the first and the end of its entries; then
    /// for each `m`, places left and names used, the completions.
    pub fn gpu_words(&self) -> Vec<u32> {
        let words = |x: u64| [x as u32, (x >> 32) as u32];
        let ranges = (self.ranges.iter()).flat_map(|r| [words(r.start), words(r.end)]);
        let completions = self.completions.iter().flatten().map(|&c| words(c));
        ranges.chain(completions).flatten().collect()
    }

    /// The positions of a class using `m` names.
    fn weight(&self, m: usize) -> u64 {
        ((self.free - m + 1)..=self.free)
            .map(|x| x as u64)
            .product()
    }
}

impl Classes for Relabelled {
    fn size(&self) -> u64 {
        self.ranges.iter().map(|r| r.end - r.start).sum()
    }

    fn entry(&self, state: &[u32], _: &mut [u32], _: &mut [u32]) -> u64 {
        // The name of each label, 0 for label 1, in order of first appearance.
        let mut name_of = [0u32; 64];
        let mut string = [0u8; 64];
        let mut used = 0u32;
        for place in (0..self.len).rev() {
            let label = state[place] as usize;
            if label != 1 && name_of[label] == 0 {
                used += 1;
                name_of[label] = used;
            }
            string[place] = name_of[label] as u8;
        }
        let m = used as usize;
        let completions = &self.completions[m];
        let width = self.free + 1;
        let mut rank = 0;
        let mut so_far = 0usize;
        for place in (0..self.len).rev() {
            let x = string[place] as usize;
            let below = completions[place * width + so_far];
            if x <= so_far {
                rank += x as u64 * below;
            } else {
                rank += (so_far as u64 + 1) * below;
                so_far += 1;
            }
        }
        self.ranges[m].start + rank
    }

    fn position(
        &self,
        entry: u64,
        state: &mut [u32],
        _: &mut [u32],
        _: &dyn Fn(&[u32]) -> bool,
    ) -> bool {
        let m = (0..=self.free)
            .find(|&m| self.ranges[m].contains(&entry))
            .expect("an entry of the table");
        let mut rank = entry - self.ranges[m].start;
        let completions = &self.completions[m];
        let width = self.free + 1;
        let mut so_far = 0usize;
        for place in (0..self.len).rev() {
            let below = completions[place * width + so_far];
            // Choices 0..=so_far name a label already used (or label 1); so_far + 1 a new one.
            let existing = (so_far as u64 + 1) * below;
            let name = if rank < existing {
                let x = rank / below;
                rank %= below;
                x as usize
            } else {
                rank -= existing;
                so_far += 1;
                so_far
            };
            state[place] = name as u32 + 1;
        }
        true
    }

    fn weights(&self) -> Weights {
        // Neighbouring ranges of one weight as one (all names used, or all but one, weigh
        // `free!` each).
        let mut ranges: Vec<(Range<u64>, u64)> = Vec::new();
        for m in (0..=self.free)
            .rev()
            .filter(|&m| !self.ranges[m].is_empty())
        {
            let (range, weight) = (self.ranges[m].clone(), self.weight(m));
            match ranges.last_mut() {
                Some((last, w)) if *w == weight && last.end == range.start => last.end = range.end,
                _ => ranges.push((range, weight)),
            }
        }
        // One entry a class: none is empty.
        Weights {
            ranges,
            special: Vec::new(),
            empty: 0,
        }
    }

    fn positions(&self) -> u64 {
        (0..=self.free)
            .map(|m| (self.ranges[m].end - self.ranges[m].start) * self.weight(m))
            .sum()
    }

    fn describe(&self) -> String {
        format!(
            "the exchangeable labels (pegs 2 to {}) named 1, 2, ... in the order they first appear from the last place (the largest disc), label 1 named 0; entries by the names used, the most first, then by that string read from the last place",
            self.free + 1
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_class_has_one_entry_and_its_positions() {
        for (len, labels) in [(1, 3), (4, 3), (5, 4), (3, 5), (6, 4)] {
            let classes = Relabelled::new(len, labels);
            let all = (labels as u64).pow(len as u32);
            assert_eq!(classes.positions(), all);
            let mut state = vec![1u32; len];
            let (mut a, mut b) = (state.clone(), state.clone());
            let mut held = vec![0u64; classes.size() as usize];
            for n in 0..all {
                let mut x = n;
                for place in state.iter_mut() {
                    *place = (x % labels as u64) as u32 + 1;
                    x /= labels as u64;
                }
                let entry = classes.entry(&state, &mut a, &mut b);
                held[entry as usize] += 1;
                // The entry holds a position of the class: the same entry.
                assert!(classes.position(entry, &mut a, &mut b, &|_| true));
                let again = classes.entry(&a.clone(), &mut b, &mut state.clone());
                assert_eq!(again, entry);
            }
            let weights = classes.weights();
            for (range, weight) in weights.ranges {
                assert!(range.clone().all(|e| held[e as usize] == weight));
            }
        }
    }
}
