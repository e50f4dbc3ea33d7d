//! The 2-bit distance table: one entry per rank, holding the distance from the start modulo 3,
//! or [`UNREACHED`].
//!
//! Entry `r` sits in bits `2*(r % 32)..2*(r % 32)+2` of 64-bit word `r / 32`; written out as
//! little-endian words that is bits `2*(r % 4)` of byte `r / 4`. Entries past the end of the
//! space (padding in the last word) hold [`UNREACHED`] forever.

use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Neighbours looked up together, their cache lines prefetched first so that the misses overlap.
pub const BATCH: usize = 64;

/// The entry value of a state not reached (yet).
pub const UNREACHED: u8 = 3;
/// Entries per 64-bit word.
pub const ENTRIES_PER_WORD: u64 = 32;

/// Low bit of every 2-bit entry in a word.
pub const LOW_BITS: u64 = 0x5555_5555_5555_5555;

/// A table as the distances file's and the checkpoint's writers read it: range of words by range
/// of words. The host's [`DistanceTable`] is one; a table left on a GPU, read back piece by piece,
/// is another.
pub trait TableView: Sync {
    /// Number of entries.
    fn entries(&self) -> u64;
    /// Appends the little-endian bytes of words `words` (32 entries each) to `out`.
    fn append_le_bytes(
        &self,
        words: std::ops::Range<usize>,
        out: &mut Vec<u8>,
    ) -> Result<(), String>;
}

impl TableView for DistanceTable {
    fn entries(&self) -> u64 {
        self.entries
    }

    fn append_le_bytes(
        &self,
        words: std::ops::Range<usize>,
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        out.reserve(words.len() * 8);
        for word in &self.words[words] {
            out.extend_from_slice(&word.load(Relaxed).to_le_bytes());
        }
        Ok(())
    }
}

/// A table to go on from: read piece by piece where it lies (a checkpoint file), or taken whole
/// onto the host.
pub trait TableSource: TableView + Send {
    /// The whole table in host memory.
    fn into_table(self: Box<Self>) -> Result<DistanceTable, String>;
}

impl TableSource for DistanceTable {
    fn into_table(self: Box<Self>) -> Result<DistanceTable, String> {
        Ok(*self)
    }
}

/// The table itself. Words are atomic so that workers may read and claim entries concurrently.
pub struct DistanceTable {
    words: Vec<AtomicU64>,
    entries: u64,
}

impl DistanceTable {
    /// Bytes of memory a table of `entries` entries takes.
    pub fn bytes_for(entries: u64) -> u64 {
        entries.div_ceil(ENTRIES_PER_WORD) * 8
    }

    /// A table of `entries` entries, all [`UNREACHED`].
    pub fn new(entries: u64) -> DistanceTable {
        DistanceTable::try_new(entries).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`DistanceTable::new`], or why its memory cannot be had (instead of ending the process).
    pub fn try_new(entries: u64) -> Result<DistanceTable, String> {
        let len = entries.div_ceil(ENTRIES_PER_WORD) as usize;
        let mut words: Vec<AtomicU64> = Vec::new();
        words.try_reserve_exact(len).map_err(|e| {
            format!(
                "cannot allocate a table of {} bytes: {e}",
                DistanceTable::bytes_for(entries)
            )
        })?;
        huge_pages(words.as_ptr(), len * 8);
        words.par_extend((0..len).into_par_iter().map(|_| AtomicU64::new(u64::MAX)));
        Ok(DistanceTable { words, entries })
    }

    /// This table's memory as a table of `entries` entries whose every word the caller will
    /// store (the old values stay until then): memory reused, not fresh pages the kernel must
    /// zero each time.
    pub fn reused(mut self, entries: u64) -> DistanceTable {
        let len = entries.div_ceil(ENTRIES_PER_WORD) as usize;
        self.words.truncate(len);
        self.words.resize_with(len, || AtomicU64::new(u64::MAX));
        DistanceTable {
            words: self.words,
            entries,
        }
    }

    /// A table holding `words` (entry `r` at bits `2 * (r % 32)` of word `r / 32`).
    pub fn from_words(entries: u64, words: Vec<u64>) -> DistanceTable {
        assert_eq!(words.len() as u64, entries.div_ceil(ENTRIES_PER_WORD));
        // Collecting into the same allocation: `AtomicU64` has `u64`'s size and alignment.
        let words = words.into_iter().map(AtomicU64::new).collect();
        DistanceTable { words, entries }
    }

    /// A table from its little-endian bytes (as in the distances file).
    pub fn from_le_bytes(entries: u64, bytes: &[u8]) -> DistanceTable {
        let table = DistanceTable::new(entries);
        table.store_le_bytes(0, bytes);
        table
    }

    /// Stores little-endian `bytes` (as in the distances file) from word `first` on; a last
    /// partial word keeps padding entries unreached.
    pub fn store_le_bytes(&self, first: usize, bytes: &[u8]) {
        for (word, chunk) in self.words[first..].iter().zip(bytes.chunks(8)) {
            let mut b = [0xffu8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            word.store(u64::from_le_bytes(b), Relaxed);
        }
    }

    /// Number of entries (ranks).
    pub fn entries(&self) -> u64 {
        self.entries
    }

    /// Number of 64-bit words.
    pub fn word_count(&self) -> usize {
        self.words.len()
    }

    /// Word `w` as it is now.
    pub fn word(&self, w: usize) -> u64 {
        self.words[w].load(Relaxed)
    }

    /// The words themselves, for loops over many (no bounds check per word).
    pub fn words(&self) -> &[AtomicU64] {
        &self.words
    }

    /// Replaces word `w`. Only for a worker that owns the word during a pass.
    pub fn store_word(&self, w: usize, value: u64) {
        self.words[w].store(value, Relaxed)
    }

    /// The entry of `rank`.
    pub fn get(&self, rank: u64) -> u8 {
        let word = self.words[(rank / ENTRIES_PER_WORD) as usize].load(Relaxed);
        ((word >> (2 * (rank % ENTRIES_PER_WORD))) & 3) as u8
    }

    /// Sets the entry of `rank` to `value` if it is unreached; true when this call set it.
    /// Concurrent claims within one pass all write the same value, so they never conflict.
    pub fn claim(&self, rank: u64, value: u8) -> bool {
        let word = &self.words[(rank / ENTRIES_PER_WORD) as usize];
        let shift = 2 * (rank % ENTRIES_PER_WORD);
        let clear = ((UNREACHED ^ value) as u64) << shift;
        let mut old = word.load(Relaxed);
        // Retry only when another entry of the word changed meanwhile.
        while (old >> shift) & 3 == UNREACHED as u64 {
            match word.compare_exchange_weak(old, old & !clear, Relaxed, Relaxed) {
                Ok(_) => return true,
                Err(now) => old = now,
            }
        }
        false
    }

    /// Clears `bits` in word `w` atomically; returns the word as it was.
    pub fn clear_bits(&self, w: usize, bits: u64) -> u64 {
        self.words[w].fetch_and(!bits, Relaxed)
    }

    /// Asks the processor to bring the word of `rank` into cache (a hint; no effect elsewhere).
    #[inline]
    pub fn prefetch(&self, rank: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let word = &self.words[(rank / ENTRIES_PER_WORD) as usize];
            // SAFETY: prefetching is a hint that never faults, and the address is in bounds.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(word.as_ptr() as *const i8) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = rank;
    }

    /// Sets to `value` the entries of 64-rank unit `unit` that `bits` marks and that are still
    /// unreached; returns those. `owned`: this worker alone writes the unit's words (plain
    /// stores), else they change atomically.
    #[inline]
    pub fn claim_unit(&self, unit: u64, bits: u64, value: u8, owned: bool) -> u64 {
        let w = 2 * unit as usize;
        let clear = u64::from(UNREACHED ^ value);
        // The table's last unit may have no second word; no bit is found past its end.
        let low = self.word(w);
        let high = if w + 1 < self.word_count() {
            self.word(w + 1)
        } else {
            0
        };
        let new_low = spread(bits as u32) & matches(low, UNREACHED);
        let new_high = spread((bits >> 32) as u32) & matches(high, UNREACHED);
        if new_low | new_high == 0 {
            return 0;
        }
        if owned {
            self.store_word(w, low & !(new_low * clear));
            if new_high != 0 {
                self.store_word(w + 1, high & !(new_high * clear));
            }
        } else {
            self.clear_bits(w, new_low * clear);
            if new_high != 0 {
                self.clear_bits(w + 1, new_high * clear);
            }
        }
        squeeze(new_low) as u64 | (squeeze(new_high) as u64) << 32
    }

    /// Mask of the entries of word `w` that are real ranks (not padding), one low bit each.
    pub fn valid(&self, w: usize) -> u64 {
        let first = w as u64 * ENTRIES_PER_WORD;
        let live = (self.entries - first).min(ENTRIES_PER_WORD);
        if live == ENTRIES_PER_WORD {
            LOW_BITS
        } else {
            LOW_BITS & ((1u64 << (2 * live)) - 1)
        }
    }

    /// One bit per entry of ranks `64 * unit ..`: those holding `value` (padding excluded).
    #[inline]
    pub fn value_bits(&self, unit: usize, value: u8) -> u64 {
        let w = 2 * unit;
        if (unit as u64 + 1) * 64 <= self.entries {
            // A whole unit: no padding to mask.
            return holding_bits(self.word(w), self.word(w + 1), value);
        }
        let half = |w: usize| {
            if w < self.word_count() {
                squeeze(matches(self.word(w), value) & self.valid(w)) as u64
            } else {
                0
            }
        };
        half(w) | half(w + 1) << 32
    }

    /// Appends words `range` as little-endian bytes.
    /// How many entries hold each value 0, 1, 2, 3 (padding not counted).
    pub fn histogram(&self) -> [u64; 4] {
        (0..self.words.len())
            .into_par_iter()
            .map(|w| {
                let word = self.word(w);
                let valid = self.valid(w);
                let mut h = [0u64; 4];
                for (v, slot) in h.iter_mut().enumerate() {
                    *slot = (matches(word, v as u8) & valid).count_ones() as u64;
                }
                h
            })
            .reduce(
                || [0; 4],
                |a, b| [a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]],
            )
    }
}

/// Asks the kernel to back `bytes` of fresh memory at `start` with huge pages: lookups land
/// anywhere in the table, and with 4 KiB pages nearly every one also misses the TLB. A hint;
/// nothing happens where it is not supported.
pub fn huge_pages<T>(start: *const T, bytes: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let first = (start as usize).next_multiple_of(HUGE);
        let end = (start as usize + bytes) / HUGE * HUGE;
        if end > first {
            // SAFETY: madvise only advises on the range, which lies inside an allocation this
            // process owns and has not yet touched; a failure is harmless.
            unsafe { libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, bytes);
}

/// Words of a table read at a time to count its entries through a [`TableView`].
const COUNTED_WORDS: u64 = 1 << 16;

/// How many of the entries `ranks` of `view` hold `value`, read a piece at a time (a table
/// held elsewhere: on a GPU, in slabs).
pub fn count_holding(
    view: &(impl TableView + ?Sized),
    ranks: std::ops::Range<u64>,
    value: u8,
) -> Result<u64, String> {
    let (mut w, end) = (
        ranks.start / ENTRIES_PER_WORD,
        ranks.end.div_ceil(ENTRIES_PER_WORD),
    );
    let mut count = 0u64;
    let mut bytes = Vec::new();
    while w < end {
        let run = (end - w).min(COUNTED_WORDS);
        bytes.clear();
        view.append_le_bytes(w as usize..(w + run) as usize, &mut bytes)?;
        for (k, word) in bytes.chunks_exact(8).enumerate() {
            let first = (w + k as u64) * ENTRIES_PER_WORD;
            let lo = first.max(ranks.start) - first;
            let hi = (first + ENTRIES_PER_WORD).min(ranks.end) - first;
            let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
            // Two bits an entry: the low bits of entries lo..hi.
            let within = match hi - lo {
                ENTRIES_PER_WORD => u64::MAX,
                n => ((1u64 << (2 * n)) - 1) << (2 * lo),
            };
            count += u64::from((matches(word, value) & within).count_ones());
        }
        w += run;
    }
    Ok(count)
}

/// One low bit per entry of `word` that equals `value`.
#[inline]
pub fn matches(word: u64, value: u8) -> u64 {
    let x = word ^ (LOW_BITS * value as u64);
    !(x | (x >> 1)) & LOW_BITS
}

/// The entries of a table holding one value, read 64 at a time: a level as a page sweep reads it
/// ([`crate::puzzle::Pages::pull_page`]).
#[derive(Clone, Copy)]
pub struct Holding<'a> {
    table: &'a DistanceTable,
    value: u8,
}

impl<'a> Holding<'a> {
    /// The entries of `table` holding `value`.
    pub fn new(table: &'a DistanceTable, value: u8) -> Holding<'a> {
        Holding { table, value }
    }

    /// One bit per entry of the whole unit `unit` (ranks `64 * unit ..`, within the table):
    /// those holding the value.
    #[inline]
    pub fn unit(&self, unit: u64) -> u64 {
        let w = 2 * unit as usize;
        holding_bits(self.table.word(w), self.table.word(w + 1), self.value)
    }
}

/// One bit per entry of the 64 in words `low` and `high` (a unit): those holding `value`.
#[inline]
pub fn holding_bits(low: u64, high: u64, value: u8) -> u64 {
    squeeze(matches(low, value)) as u64 | (squeeze(matches(high, value)) as u64) << 32
}

/// Spreads the 32 bits of `bits` to the low bits of 2-bit fields (bit k to bit 2k).
#[inline]
pub fn spread(bits: u32) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        // SAFETY: the bmi2 target feature is enabled for this build.
        unsafe { std::arch::x86_64::_pdep_u64(bits as u64, LOW_BITS) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        let mut x = bits as u64;
        x = (x | x << 16) & 0x0000_ffff_0000_ffff;
        x = (x | x << 8) & 0x00ff_00ff_00ff_00ff;
        x = (x | x << 4) & 0x0f0f_0f0f_0f0f_0f0f;
        x = (x | x << 2) & 0x3333_3333_3333_3333;
        (x | x << 1) & LOW_BITS
    }
}

/// The inverse of [`spread`]: bit 2k to bit k.
#[inline]
pub fn squeeze(mask: u64) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        // SAFETY: the bmi2 target feature is enabled for this build.
        unsafe { std::arch::x86_64::_pext_u64(mask, LOW_BITS) as u32 }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        let mut x = mask & LOW_BITS;
        x = (x | x >> 1) & 0x3333_3333_3333_3333;
        x = (x | x >> 2) & 0x0f0f_0f0f_0f0f_0f0f;
        x = (x | x >> 4) & 0x00ff_00ff_00ff_00ff;
        x = (x | x >> 8) & 0x0000_ffff_0000_ffff;
        (x | x >> 16) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_and_squeeze_invert_each_other() {
        for bits in [0u32, 1, 0b1011, 0xdead_beef, u32::MAX] {
            let wide = spread(bits);
            assert_eq!(wide & !LOW_BITS, 0);
            assert_eq!(wide.count_ones(), bits.count_ones());
            assert_eq!(squeeze(wide), bits);
        }
        assert_eq!(spread(0b101), 0b10001);
    }

    #[test]
    fn claim_sets_once_and_get_reads_back() {
        let t = DistanceTable::new(70);
        assert_eq!(t.word_count(), 3);
        assert!(t.claim(5, 1));
        assert!(!t.claim(5, 1));
        assert!(!t.claim(5, 2));
        assert_eq!(t.get(5), 1);
        assert!(t.claim(69, 0));
        assert_eq!(t.get(69), 0);
        assert_eq!(t.get(68), UNREACHED);
        assert_eq!(t.histogram(), [1, 1, 0, 68]);
    }

    #[test]
    fn padding_is_masked() {
        let t = DistanceTable::new(33);
        assert_eq!(t.valid(0), LOW_BITS);
        assert_eq!(t.valid(1), 1);
    }

    #[test]
    fn matches_finds_equal_entries() {
        let word = 0b11_10_01_00u64;
        assert_eq!(matches(word, 0) & 0xff, 0b00_00_00_01);
        assert_eq!(matches(word, 1) & 0xff, 0b00_00_01_00);
        assert_eq!(matches(word, 2) & 0xff, 0b00_01_00_00);
        assert_eq!(matches(word, 3) & 0xff, 0b01_00_00_00);
    }

    #[test]
    fn bytes_round_trip() {
        let t = DistanceTable::new(40);
        t.claim(0, 0);
        t.claim(39, 2);
        let mut bytes = Vec::new();
        t.append_le_bytes(0..t.word_count(), &mut bytes).unwrap();
        assert_eq!(bytes[0] & 3, 0);
        let u = DistanceTable::from_le_bytes(40, &bytes);
        assert_eq!(u.get(39), 2);
        assert_eq!(u.histogram(), t.histogram());
    }
}
