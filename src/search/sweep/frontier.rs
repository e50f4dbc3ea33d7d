//! A sweep's frontier: the last level as a bitmap, or as the table's entries holding its value
//! (lean), read a word or a run of bits at a time; and the claims of a unit's entries found from
//! it, shared by the residual runs and the tiles.

use super::*;

/// The last level as a sweep reads it: 64 ranks a word.
pub(super) trait Frontier: Sync {
    /// The bits of ranks `64 * unit ..`; 0 outside the space.
    fn word(&self, unit: i64) -> u64;
    /// The `count` bits (at most 64) from `start`, as the low bits of a word.
    fn bits_at(&self, start: u64, count: u64) -> u64;
    /// Whether `rank` is in the level.
    fn contains(&self, rank: u64) -> bool;
    /// Asks the processor to bring `rank`'s bit into cache.
    fn prefetch(&self, rank: u64);
    /// The number of ranks of `range` in the level.
    fn count_in(&self, range: Range<u64>) -> u64;
    /// ORs into each `targets[i]` the 64 bits from bit `shift` of unit `first + i` on (a
    /// funnel shift with unit `first + i + 1` when `shift` is not 0); every unit read is inside
    /// the space.
    fn or_shifted(&self, targets: &mut [u64], first: usize, shift: u32) {
        funnel_or(targets, shift, |i| self.word((first + i) as i64));
    }
}

/// ORs into each `targets[i]` the 64 bits from bit `shift` of source word `word(i)` on (a
/// funnel shift with `word(i + 1)` when `shift` is not 0).
#[inline(always)]
fn funnel_or(targets: &mut [u64], shift: u32, word: impl Fn(usize) -> u64) {
    if shift == 0 {
        for (i, f) in targets.iter_mut().enumerate() {
            *f |= word(i);
        }
    } else {
        let mut low = word(0);
        for (i, f) in targets.iter_mut().enumerate() {
            let high = word(i + 1);
            *f |= (low >> shift) | (high << (64 - shift));
            low = high;
        }
    }
}

impl Frontier for Bitmap {
    #[inline]
    fn word(&self, unit: i64) -> u64 {
        self.word_or_zero(unit)
    }
    #[inline]
    fn bits_at(&self, start: u64, count: u64) -> u64 {
        Bitmap::bits_at(self, start, count)
    }
    #[inline]
    fn contains(&self, rank: u64) -> bool {
        Bitmap::contains(self, rank)
    }
    #[inline]
    fn prefetch(&self, rank: u64) {
        Bitmap::prefetch(self, rank)
    }
    fn count_in(&self, range: Range<u64>) -> u64 {
        Bitmap::count_in(self, range)
    }
    /// The words themselves, as a slice: no bounds check per word in the hot loop.
    fn or_shifted(&self, targets: &mut [u64], first: usize, shift: u32) {
        let units = targets.len() + usize::from(shift != 0);
        let words = &self.words()[first..first + units];
        funnel_or(targets, shift, |i| words[i].load(Relaxed));
    }
}

/// The entries of a table holding `value`: the lean sweep's frontier.
pub(super) struct EntriesHolding<'a> {
    pub(super) table: &'a DistanceTable,
    pub(super) value: u8,
}

impl Frontier for EntriesHolding<'_> {
    #[inline]
    fn word(&self, unit: i64) -> u64 {
        match usize::try_from(unit) {
            Ok(u) if (u as u64) * 64 < self.table.entries() => self.table.value_bits(u, self.value),
            _ => 0,
        }
    }
    #[inline]
    fn bits_at(&self, start: u64, count: u64) -> u64 {
        value_run(self.table, self.value, start, count)
    }
    #[inline]
    fn contains(&self, rank: u64) -> bool {
        self.table.get(rank) == self.value
    }
    #[inline]
    fn prefetch(&self, rank: u64) {
        self.table.prefetch(rank)
    }
    fn count_in(&self, range: Range<u64>) -> u64 {
        count_holding(self.table, self.value, range)
    }
    /// Whole units read straight from the table's words, inlined: the lean sweep's inner loop
    /// (the Towers of Hanoi spend most of a lean sweep here).
    fn or_shifted(&self, targets: &mut [u64], first: usize, shift: u32) {
        let units = targets.len() + usize::from(shift != 0);
        if (first + units) as u64 * 64 > self.table.entries() {
            // The table's last unit has padding, which value_bits leaves out.
            return funnel_or(targets, shift, |i| self.word((first + i) as i64));
        }
        let words = &self.table.words()[2 * first..2 * (first + units)];
        let value = self.value;
        funnel_or(targets, shift, |i| {
            holding_bits(
                words[2 * i].load(Relaxed),
                words[2 * i + 1].load(Relaxed),
                value,
            )
        });
    }
}

/// The unreached entries among the `take` (at most 64) ranks from `start`, one bit each.
#[inline]
pub(super) fn unreached_run(table: &DistanceTable, start: u64, take: u64) -> u64 {
    value_run(table, UNREACHED, start, take)
}

/// The entries holding `value` among the `take` (at most 64) ranks from `start`, one bit each.
#[inline]
pub(super) fn value_run(table: &DistanceTable, value: u8, start: u64, take: u64) -> u64 {
    let unit = start / 64;
    let shift = start % 64;
    let mut bits = table.value_bits(unit as usize, value) >> shift;
    if shift + take > 64 {
        bits |= table.value_bits(unit as usize + 1, value) << (64 - shift);
    }
    bits & mask(0, take)
}

/// Number of unreached entries among `ranks`.
pub(super) fn unreached_in(table: &DistanceTable, ranks: Range<u64>) -> u64 {
    count_holding(table, UNREACHED, ranks)
}

/// Number of entries holding `value` among `ranks`.
pub(crate) fn count_holding(table: &DistanceTable, value: u8, ranks: Range<u64>) -> u64 {
    if ranks.is_empty() {
        return 0;
    }
    (ranks.start / 64..=(ranks.end - 1) / 64)
        .into_par_iter()
        .map(|unit| {
            let lo = (unit * 64).max(ranks.start);
            let hi = (unit * 64 + 64).min(ranks.end);
            (table.value_bits(unit as usize, value) & mask(lo - unit * 64, hi - lo)).count_ones()
                as u64
        })
        .sum()
}

/// ORs into `found` (bit `i` = rank `origin + i`), at bits `at..at + len`, the bits of `source`
/// at `from..from + len`. The shift between the two is the same for every word, so each target
/// word takes one funnel shift; the words strictly inside the run go without a branch.
#[inline]
pub(super) fn or_run<F: Frontier>(found: &mut [u64], at: u64, source: &F, from: u64, len: u64) {
    let first = (at / 64) as usize;
    let last = ((at + len - 1) / 64) as usize;
    // The source bit that lines up with bit 0 of target word `first`.
    let aligned = from as i64 - (at % 64) as i64;
    let shift = aligned.rem_euclid(64) as u32;
    let w0 = aligned.div_euclid(64);
    let word = |w: usize| {
        let s = w0 + (w - first) as i64;
        let low = source.word(s);
        if shift == 0 {
            low
        } else {
            (low >> shift) | (source.word(s + 1) << (64 - shift))
        }
    };
    let head = u64::MAX << (at % 64);
    let end = (at + len) % 64;
    let tail = if end == 0 {
        u64::MAX
    } else {
        (1u64 << end) - 1
    };
    if first == last {
        found[first] |= word(first) & head & tail;
        return;
    }
    found[first] |= word(first) & head;
    found[last] |= word(last) & tail;
    if last > first + 1 {
        // Target words first + 1 .. last read source words s .. s + count (+ 1 when shifted),
        // all inside the space.
        source.or_shifted(&mut found[first + 1..last], (w0 + 1) as usize, shift);
    }
}

/// ORs `value` (at most 64 bits, none past the end of the local bitmap) into a task-local
/// bitmap at bit `at`.
#[inline]
pub(super) fn or_local(bits: &mut [u64], at: u64, value: u64) {
    let (w, shift) = ((at / 64) as usize, at % 64);
    bits[w] |= value << shift;
    if shift != 0 && value >> (64 - shift) != 0 {
        bits[w + 1] |= value >> (64 - shift);
    }
}

/// Sets the entries among `bits` of `unit` (64 ranks) still unreached to `next`, atomically
/// (a pushing task may claim in the same words); returns those this call set.
pub(super) fn claim_unit(table: &DistanceTable, unit: u64, bits: u64, next: u8) -> u64 {
    let clear = (UNREACHED ^ next) as u64;
    let w = 2 * unit as usize;
    let mut new = 0;
    let low = spread(bits as u32);
    if low != 0 {
        let old = table.clear_bits(w, low * clear);
        new = squeeze(low & matches(old, UNREACHED)) as u64;
    }
    let high = spread((bits >> 32) as u32);
    if high != 0 {
        let old = table.clear_bits(w + 1, high * clear);
        new |= (squeeze(high & matches(old, UNREACHED)) as u64) << 32;
    }
    new
}
