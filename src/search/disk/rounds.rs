//! A slab's moves that leave it, in rounds: its states of the last level pushed along them state
//! by state, the neighbours in the slab set at once, the others gathered, sorted by slab and
//! appended to their slabs' inboxes.

use super::{DiskEngine, IO_BYTES};
use crate::puzzle::StateSpace;
use crate::search::SearchError;
use crate::search::bitmap::{Bitmap, mask};
use crate::search::slab::{Slab, gaps};
use crate::table::DistanceTable;
use rayon::prelude::*;
use std::ops::{ControlFlow, Range};

impl<S: StateSpace> DiskEngine<'_, S> {
    /// Pushes slab `i`'s states of level `depth` (`level`) along its pushed moves, a round of
    /// tasks at a time ([`rounds_of`]: a round's neighbours outside the slab stay within the
    /// plan's round bytes): those in the slab join level `depth + 1` (`next`, and `table`),
    /// the others are sent to their slabs' inboxes after each round. Returns how many joined.
    pub(super) fn push_rounds(
        &mut self,
        i: usize,
        table: &DistanceTable,
        level: &Bitmap,
        next: &Bitmap,
        depth: u64,
    ) -> Result<u64, SearchError> {
        let value = ((depth + 1) % 3) as u8;
        let round_states = self.round_bytes / (8 * self.pushed.most().max(1) as u64);
        let workers = rayon::current_num_threads();
        let mut found = 0;
        for round in rounds_of(&self.pushed_at[i], level, round_states, workers) {
            found += self.push(&self.slabs[i], &round, table, level, next, value);
            self.send(depth + 1)?;
        }
        Ok(found)
    }

    /// Pushes the states of `level` at the entries of `tasks` of `slab` along the pushed moves:
    /// their unreached neighbours in the slab join the next level (`next`, `value` in `table`),
    /// the others are appended to the round's buffer. Returns how many joined.
    fn push(
        &self,
        slab: &Slab,
        tasks: &[Range<u64>],
        table: &DistanceTable,
        level: &Bitmap,
        next: &Bitmap,
        value: u8,
    ) -> u64 {
        // A task's neighbours elsewhere gather in a buffer its worker keeps from task to task,
        // each tagged with its slab above its bits ([`by_owner`]).
        let tag_at = self.owners.rank_bits();
        (tasks.par_iter())
            .map_init(Vec::new, |mine: &mut Vec<u64>, task| {
                let mut walker = self.pushed.walker(self.space.cursor());
                let mut here = 0u64;
                mine.clear();
                for w in task.start / 64..=(task.end - 1) / 64 {
                    let lo = (w * 64).max(task.start);
                    let hi = (w * 64 + 64).min(task.end);
                    let mut bits = level.word(w as usize) & mask(lo - w * 64, hi - lo);
                    while bits != 0 {
                        let local = w * 64 + u64::from(bits.trailing_zeros());
                        bits &= bits - 1;
                        let _ = walker.each(slab.global(local), true, |n| {
                            let (plane, column) = self.owners.place(n);
                            if !(slab.first..slab.end).contains(&column) {
                                mine.push(n | (self.owners.of_column(column) as u64) << tag_at);
                            } else {
                                let entry = slab.entry(plane, column);
                                if table.claim(entry, value) {
                                    next.insert(entry);
                                    here += 1;
                                }
                            }
                            ControlFlow::Continue(())
                        });
                    }
                }
                let mut away = self.round.lock().unwrap_or_else(|e| e.into_inner());
                away.extend_from_slice(mine);
                here
            })
            .sum()
    }

    /// Sends the round's neighbours in other slabs (the engine's round buffer, ranks of level
    /// `depth`) to their slabs' inboxes, each slab's ascending ([`by_owner`]). The buffers are
    /// kept from round to round (no fresh pages for the kernel to zero); each slab's ranks are
    /// coded as gaps in their own memory, batch by batch on every worker.
    fn send(&mut self, depth: u64) -> Result<(), SearchError> {
        let mut round = std::mem::take(self.round.get_mut().unwrap_or_else(|e| e.into_inner()));
        let mut sorted = std::mem::take(&mut self.sorted);
        let bits = self.owners.rank_bits();
        let lengths = by_owner(&mut round, &mut sorted, self.slabs.len(), bits);
        if self.store.in_memory() {
            // Slabs in memory take their ranks as bits at once.
            let mut rest = &round[..];
            for (owner, &n) in lengths.iter().enumerate() {
                let (mine, after) = rest.split_at(n);
                let slab = &self.slabs[owner];
                (self.store).deliver(owner, depth, mine, &|r| slab.local(r));
                rest = after;
            }
            round.clear();
            *self.round.get_mut().unwrap_or_else(|e| e.into_inner()) = round;
            self.sorted = sorted;
            return Ok(());
        }
        // Each slab's ranks in batches, coded.
        let mut batches: Vec<(usize, &mut [u64])> = Vec::new();
        let mut rest = &mut round[..];
        for (owner, &n) in lengths.iter().enumerate() {
            let (mine, after) = rest.split_at_mut(n);
            batches.extend(mine.chunks_mut(IO_BYTES / 8).map(|b| (owner, b)));
            rest = after;
        }
        let coded: Vec<(u64, usize)> = (batches.par_iter_mut())
            .map(|(_, ranks)| (ranks.len() as u64, gaps::encode_in_place(ranks)))
            .collect();
        let mut at = 0;
        while at < coded.len() {
            let owner = batches[at].0;
            let n = batches[at..].iter().take_while(|b| b.0 == owner).count();
            let mine: Vec<(u64, &[u8])> = (coded[at..at + n].iter().zip(&batches[at..at + n]))
                .map(|(&(count, len), (_, ranks))| {
                    (count, &bytemuck::cast_slice::<u64, u8>(ranks)[..len])
                })
                .collect();
            // Another process's slab is merged by its owner, once sent there.
            if self.store.send(owner, depth, &mine)? && self.store.own.contains(&owner) {
                let slab = &self.slabs[owner];
                self.store.merge(owner, depth, &|r| slab.local(r))?;
            }
            at += n;
        }
        drop(batches);
        round.clear();
        *self.round.get_mut().unwrap_or_else(|e| e.into_inner()) = round;
        self.sorted = sorted;
        Ok(())
    }
}

/// Entries a rayon task pushes from, at most.
const TASK_RANKS: u64 = 1 << 18;

/// The rounds that push a slab's states of `level` at its entries `ranges`: the ranges cut into
/// tasks of at most a quarter of a worker's share of `round_states` entries (whole words, from
/// 64 to [`TASK_RANKS`]), and the tasks with states gathered in order into rounds of at most
/// `round_states` states. Counting states, not entries, lets a round of a sparse level span
/// many tasks, so that every worker has some and each round's sending serves more states.
fn rounds_of(
    ranges: &[Range<u64>],
    level: &Bitmap,
    round_states: u64,
    workers: usize,
) -> Vec<Vec<Range<u64>>> {
    let task = (round_states / (4 * workers.max(1) as u64)).clamp(64, TASK_RANKS) / 64 * 64;
    let tasks: Vec<Range<u64>> = (ranges.iter())
        .flat_map(|r| {
            (r.start..r.end)
                .step_by(task as usize)
                .map(move |s| s..(s + task).min(r.end))
        })
        .collect();
    let counts: Vec<u64> = (tasks.par_iter())
        .map(|t| level.count_in(t.clone()))
        .collect();
    let mut rounds = Vec::new();
    let (mut round, mut states) = (Vec::new(), 0);
    for (t, n) in tasks.into_iter().zip(counts).filter(|&(_, n)| n > 0) {
        if !round.is_empty() && states + n > round_states {
            rounds.push(std::mem::take(&mut round));
            states = 0;
        }
        round.push(t);
        states += n;
    }
    if !round.is_empty() {
        rounds.push(round);
    }
    rounds
}

/// Bits of a rank's digit in each pass of [`by_owner`]'s sort.
const DIGIT_BITS: u32 = 11;

/// Ranks a worker places by owner at a time in [`by_owner`].
const PLACE_CHUNK: usize = 1 << 16;

/// Sorts `ranks` (below 2^`bits`, each tagged with its owner, of `owners`, above its bits) by
/// owner, then ascending, through `scratch`: one pass places each rank in its owner's part of
/// `scratch` (chunk by chunk on every worker, each chunk into places of its own), then the
/// parts are sorted side by side, each by its ranks' digits from the lowest ([`DIGIT_BITS`] at
/// a time) and back into `ranks`, and the tags taken off. A radix sort: a round's ranks are
/// sorted in a few passes over them where a comparison sort takes a score. Returns each
/// owner's number of ranks.
fn by_owner(ranks: &mut [u64], scratch: &mut Vec<u64>, owners: usize, bits: u32) -> Vec<usize> {
    let tag = |r: u64| (r >> bits) as usize;
    // Each chunk's ranks of each owner.
    let counts: Vec<Vec<usize>> = (ranks.par_chunks(PLACE_CHUNK))
        .map(|chunk| {
            let mut counts = vec![0usize; owners];
            chunk.iter().for_each(|&r| counts[tag(r)] += 1);
            counts
        })
        .collect();
    let lengths: Vec<usize> = (0..owners)
        .map(|o| counts.iter().map(|c| c[o]).sum())
        .collect();
    scratch.clear();
    scratch.resize(ranks.len(), 0);
    // Each chunk's places: for each owner, the next of its part's pieces, one a chunk.
    let mut places: Vec<Vec<&mut [u64]>> = (0..counts.len()).map(|_| Vec::new()).collect();
    let mut rest = &mut scratch[..];
    for o in 0..owners {
        for (c, chunk_counts) in counts.iter().enumerate() {
            let (piece, after) = rest.split_at_mut(chunk_counts[o]);
            places[c].push(piece);
            rest = after;
        }
    }
    (ranks.par_chunks(PLACE_CHUNK))
        .zip(places.par_iter_mut())
        .for_each(|(chunk, pieces)| {
            let mut next = vec![0usize; owners];
            for &r in chunk {
                let o = tag(r);
                pieces[o][next[o]] = r;
                next[o] += 1;
            }
        });
    drop(places);
    // Each owner's part, in both buffers.
    let mut parts: Vec<(&mut [u64], &mut [u64])> = Vec::with_capacity(owners);
    let (mut from, mut to) = (&mut scratch[..], &mut ranks[..]);
    for &n in &lengths {
        let (a, rest_from) = from.split_at_mut(n);
        let (b, rest_to) = to.split_at_mut(n);
        parts.push((a, b));
        (from, to) = (rest_from, rest_to);
    }
    // The tags above `bits` are the same within a part: the digits that reach them order
    // nothing.
    parts
        .into_par_iter()
        .for_each(|(from, to)| radix_sort(from, to, bits));
    (ranks.par_iter_mut()).for_each(|r| *r &= (1 << bits) - 1);
    lengths
}

/// Sorts the ranks of `from` by their low `bits` bits (those above are the same in all) into
/// `to`, using `from` as the other buffer.
fn radix_sort(from: &mut [u64], to: &mut [u64], bits: u32) {
    if from.len() < 1 << DIGIT_BITS {
        from.sort_unstable();
        to.copy_from_slice(from);
        return;
    }
    let passes = bits.div_ceil(DIGIT_BITS).max(1);
    let (mut a, mut b) = (from, to);
    let mut counts = vec![0usize; 1 << DIGIT_BITS];
    for pass in 0..passes {
        let shift = pass * DIGIT_BITS;
        let digit = |r: u64| ((r >> shift) & ((1 << DIGIT_BITS) - 1)) as usize;
        counts.fill(0);
        a.iter().for_each(|&r| counts[digit(r)] += 1);
        let mut at = 0;
        for c in counts.iter_mut() {
            (*c, at) = (at, at + *c);
        }
        for &r in a.iter() {
            let d = digit(r);
            b[counts[d]] = r;
            counts[d] += 1;
        }
        std::mem::swap(&mut a, &mut b);
    }
    // After an odd number of passes the ranks are in `to`; after an even one, back in `from`.
    if passes.is_multiple_of(2) {
        b.copy_from_slice(a);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rounds cover every entry of the ranges with a state, each once and in order, and hold at
    /// most a round's states, whether the level is dense or sparse.
    #[test]
    fn rounds_hold_every_state_once_within_their_bound() {
        let len = 1 << 20;
        let ranges = [100..300_000, 300_000..300_100, 400_007..len];
        for (every, round_states) in [(1, 5000), (37, 5000), (1001, 300), (3, 1 << 20)] {
            let level = Bitmap::from_fn(len, |w| {
                (0..64)
                    .filter(|b| (w as u64 * 64 + b).is_multiple_of(every))
                    .fold(0, |a, b| a | 1 << b)
            });
            for workers in [1, 2, 16] {
                let rounds = rounds_of(&ranges, &level, round_states, workers);
                let mut covered: Vec<u64> = Vec::new();
                for round in &rounds {
                    let states: u64 = round.iter().map(|t| level.count_in(t.clone())).sum();
                    assert!(states > 0 && states <= round_states, "{states} states");
                    for t in round {
                        covered.extend((t.clone()).filter(|&e| level.contains(e)));
                    }
                }
                let want: Vec<u64> = (ranges.iter().cloned().flatten())
                    .filter(|&e| level.contains(e))
                    .collect();
                assert_eq!(covered, want, "every {every}, {round_states} a round");
                if every == 1001 {
                    assert!(
                        rounds.iter().any(|r| r.len() > 1),
                        "a sparse round spans tasks"
                    );
                }
            }
        }
    }

    /// Ranks of many owners come back in their owners' order, each owner's ascending, whether
    /// their digits take one pass or several, an odd number or an even one.
    #[test]
    fn a_round_is_sorted_by_owner_then_rank() {
        let mut scratch = Vec::new();
        for bits in [5, 11, 22, 37, 44] {
            for n in [0usize, 5, 3000, 200_000] {
                let mut ranks: Vec<u64> = (0..n as u64)
                    .map(|i| (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 7) & ((1 << bits) - 1))
                    .collect();
                let owner = |r: u64| (r % 7) as usize;
                let mut want = ranks.clone();
                want.sort_unstable_by_key(|&r| (owner(r), r));
                ranks
                    .iter_mut()
                    .for_each(|r| *r |= (owner(*r) as u64) << bits);
                let lengths = by_owner(&mut ranks, &mut scratch, 7, bits);
                assert_eq!(ranks, want, "{n} ranks of {bits} bits");
                let each: Vec<usize> = (0..7)
                    .map(|o| want.iter().filter(|&&r| owner(r) == o).count())
                    .collect();
                assert_eq!(lengths, each);
            }
        }
    }
}
