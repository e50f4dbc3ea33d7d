//! The number of states at each distance, kept as runs of equal counts: a puzzle whose graph is
//! one long path (the Chinese rings) has a billion levels of one state each.

use serde::{Deserialize, Serialize};

/// Levels written out one by one up to this many; longer ones are written as runs.
pub const LISTED_LEVELS: u64 = 1 << 16;

/// `count` states at each of `repeat` consecutive distances.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Run {
    /// States at each distance of the run.
    pub count: u64,
    /// Consecutive distances in the run.
    pub repeat: u64,
}

/// The states at distances 0, 1, 2, ...: the table's entries, and where an entry stands for
/// several positions (a table reduced by symmetry) the positions too.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Levels {
    runs: Vec<Run>,
    len: u64,
    total: u64,
    /// The positions at each distance, where they are not the entries.
    weighed: Option<Box<Levels>>,
}

impl Levels {
    /// No levels yet.
    pub fn new() -> Levels {
        Levels::default()
    }

    /// The levels with these counts.
    pub fn from_counts(counts: &[u64]) -> Levels {
        let mut levels = Levels::new();
        for &c in counts {
            levels.push(c);
        }
        levels
    }

    /// The levels of these runs.
    pub fn from_runs(runs: &[Run]) -> Levels {
        let mut levels = Levels::new();
        for r in runs.iter().filter(|r| r.repeat > 0) {
            levels.push(r.count);
            let more = r.repeat - 1;
            if let Some(last) = levels.runs.last_mut() {
                last.repeat += more;
            }
            levels.len += more;
            levels.total += r.count * more;
        }
        levels
    }

    /// Appends the next distance's count.
    #[inline]
    pub fn push(&mut self, count: u64) {
        match self.runs.last_mut() {
            Some(run) if run.count == count => run.repeat += 1,
            _ => self.runs.push(Run { count, repeat: 1 }),
        }
        self.len += 1;
        self.total += count;
    }

    /// Appends the next distance's count of entries, which stand for `positions` positions
    /// (a table reduced by symmetry; every level's entries must be pushed this way).
    pub fn push_weighed(&mut self, entries: u64, positions: u64) {
        debug_assert!(self.weighed.as_ref().map_or(0, |w| w.len) == self.len);
        self.push(entries);
        self.weighed.get_or_insert_default().push(positions);
    }

    /// The positions at each distance: the entries' weighed counts where they are weighed,
    /// else the levels themselves.
    pub fn positions(&self) -> &Levels {
        self.weighed.as_deref().unwrap_or(self)
    }

    /// Whether the levels count positions apart from entries.
    pub fn is_weighed(&self) -> bool {
        self.weighed.is_some()
    }

    /// Number of levels (the diameter plus one).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True before the first level.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// States in all levels.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The count at the largest distance.
    pub fn last(&self) -> u64 {
        self.runs.last().map_or(0, |r| r.count)
    }

    /// The count at distance `d`.
    pub fn get(&self, d: u64) -> Option<u64> {
        let mut at = 0;
        for r in &self.runs {
            if d < at + r.repeat {
                return Some(r.count);
            }
            at += r.repeat;
        }
        None
    }

    /// The runs of equal counts.
    pub fn runs(&self) -> &[Run] {
        &self.runs
    }

    /// Every count, distance by distance.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.runs
            .iter()
            .flat_map(|r| std::iter::repeat_n(r.count, r.repeat as usize))
    }

    /// Every count in a vector, or `None` when there are more than [`LISTED_LEVELS`].
    pub fn listed(&self) -> Option<Vec<u64>> {
        (self.len <= LISTED_LEVELS).then(|| self.iter().collect())
    }

    /// The sum of the counts at distances `d`, `d + 3`, `d + 6`, ... (the entries of a
    /// distances table holding `d mod 3` for `d < 3`).
    pub fn sum_mod3(&self, d: u64) -> u64 {
        let mut at = 0u64;
        let mut sum = 0;
        for r in &self.runs {
            // Distances at..at + repeat congruent to d mod 3.
            let first = at + (d + 3 - at % 3) % 3;
            if first < at + r.repeat {
                sum += r.count * ((at + r.repeat - 1 - first) / 3 + 1);
            }
            at += r.repeat;
        }
        sum
    }
}

/// Levels as reports and file headers write them: `levels` (every count, from distance 0) when
/// there are at most [`LISTED_LEVELS`], else `level_runs` (runs of equal counts).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Written {
    /// The count at each distance, from 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub levels: Option<Vec<u64>>,
    /// The counts as runs: `count` states at each of `repeat` consecutive distances.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level_runs: Option<Vec<Run>>,
    /// The positions at each distance, where the levels count a reduced table's entries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub positions: Option<Vec<u64>>,
    /// The same as runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position_runs: Option<Vec<Run>>,
}

/// A level list or its runs, whichever is written.
fn written(levels: &Levels) -> (Option<Vec<u64>>, Option<Vec<Run>>) {
    match levels.listed() {
        Some(list) => (Some(list), None),
        None => (None, Some(levels.runs().to_vec())),
    }
}

/// The levels of a list or of runs.
fn read(list: &Option<Vec<u64>>, runs: &Option<Vec<Run>>) -> Option<Levels> {
    match (list, runs) {
        (Some(list), _) => Some(Levels::from_counts(list)),
        (None, Some(runs)) => Some(Levels::from_runs(runs)),
        (None, None) => None,
    }
}

impl From<&Levels> for Written {
    fn from(levels: &Levels) -> Written {
        let (levels_list, level_runs) = written(levels);
        let (positions, position_runs) = match &levels.weighed {
            Some(weighed) => written(weighed),
            None => (None, None),
        };
        Written {
            levels: levels_list,
            level_runs,
            positions,
            position_runs,
        }
    }
}

impl Written {
    /// The levels written.
    pub fn levels(&self) -> Levels {
        let mut levels = read(&self.levels, &self.level_runs).unwrap_or_default();
        levels.weighed = read(&self.positions, &self.position_runs).map(Box::new);
        levels
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_merge_and_expand() {
        let l = Levels::from_counts(&[1, 2, 2, 2, 1, 1]);
        assert_eq!(l.len(), 6);
        assert_eq!(l.total(), 9);
        assert_eq!(l.runs().len(), 3);
        assert_eq!(l.iter().collect::<Vec<_>>(), [1, 2, 2, 2, 1, 1]);
        assert_eq!(l.get(3), Some(2));
        assert_eq!(l.get(6), None);
        assert_eq!(l.last(), 1);
        assert_eq!(Levels::from_runs(l.runs()), l);
        for d in 0..3 {
            let want: u64 = l.iter().skip(d as usize).step_by(3).sum();
            assert_eq!(l.sum_mod3(d), want);
        }
    }

    #[test]
    fn a_long_path_stays_small() {
        let mut l = Levels::new();
        for _ in 0..1_000_000 {
            l.push(1);
        }
        assert_eq!(
            l.runs(),
            &[Run {
                count: 1,
                repeat: 1_000_000
            }]
        );
        assert!(l.listed().is_none());
        assert_eq!(l.sum_mod3(1), 333_333);
    }
}
