//! One bit per rank, in atomic 64-bit words: bit `r % 64` of word `r / 64`.

use crate::table::huge_pages;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// A set of ranks as bits.
pub struct Bitmap {
    words: Vec<AtomicU64>,
    len: u64,
}

impl Bitmap {
    /// An empty set over `len` ranks.
    pub fn new(len: u64) -> Bitmap {
        Bitmap::from_fn(len, |_| 0)
    }

    /// This bitmap's memory as a bitmap over `len` ranks whose every word the caller will store
    /// (or [`Bitmap::clear`]; the old words stay until then): memory reused, not fresh pages the
    /// kernel must zero each time.
    pub fn reused(mut self, len: u64) -> Bitmap {
        let words = len.div_ceil(64) as usize;
        self.words.truncate(words);
        self.words.resize_with(words, || AtomicU64::new(0));
        Bitmap {
            words: self.words,
            len,
        }
    }

    /// The set whose word `w` is `word(w)`.
    pub fn from_fn(len: u64, word: impl Fn(usize) -> u64 + Sync) -> Bitmap {
        let count = len.div_ceil(64) as usize;
        let mut words = Vec::with_capacity(count);
        // Lookups land anywhere in a level, as in the table.
        huge_pages(words.as_ptr(), count * 8);
        words.par_extend((0..count).into_par_iter().map(|w| AtomicU64::new(word(w))));
        Bitmap { words, len }
    }

    /// The set of `ranks` over `len` ranks.
    pub fn from_ranks(len: u64, ranks: &[u64]) -> Bitmap {
        let set = Bitmap::new(len);
        for &r in ranks {
            set.insert(r);
        }
        set
    }

    /// Number of ranks covered.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True when it covers no rank.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of 64-bit words.
    pub fn word_count(&self) -> usize {
        self.words.len()
    }

    /// Word `w`.
    #[inline]
    pub fn word(&self, w: usize) -> u64 {
        self.words[w].load(Relaxed)
    }

    /// Word `w`, or 0 where `w` lies outside the bitmap.
    #[inline]
    pub fn word_or_zero(&self, w: i64) -> u64 {
        usize::try_from(w)
            .ok()
            .and_then(|w| self.words.get(w))
            .map_or(0, |x| x.load(Relaxed))
    }

    /// The words themselves.
    pub fn words(&self) -> &[AtomicU64] {
        &self.words
    }

    /// Replaces word `w`; only for the one worker that owns it during a pass.
    #[inline]
    pub fn store_word(&self, w: usize, value: u64) {
        self.words[w].store(value, Relaxed)
    }

    /// Stores little-endian `bytes` (whole words) from word `first` on.
    pub fn store_le_bytes(&self, first: usize, bytes: &[u8]) {
        for (word, b) in self.words[first..].iter().zip(bytes.chunks_exact(8)) {
            word.store(u64::from_le_bytes(b.try_into().expect("8 bytes")), Relaxed);
        }
    }

    /// Sets `bits` in word `w` atomically.
    #[inline]
    pub fn or_word(&self, w: usize, bits: u64) {
        self.words[w].fetch_or(bits, Relaxed);
    }

    /// Whether `rank` is in the set.
    #[inline]
    pub fn contains(&self, rank: u64) -> bool {
        self.word((rank / 64) as usize) >> (rank % 64) & 1 == 1
    }

    /// Adds `rank` (atomically).
    #[inline]
    pub fn insert(&self, rank: u64) {
        self.or_word((rank / 64) as usize, 1 << (rank % 64));
    }

    /// Removes `rank` (atomically).
    #[inline]
    pub fn remove(&self, rank: u64) {
        self.words[(rank / 64) as usize].fetch_and(!(1 << (rank % 64)), Relaxed);
    }

    /// The `count` bits (at most 64) starting at `start`, as the low bits of a word.
    #[inline]
    pub fn bits_at(&self, start: u64, count: u64) -> u64 {
        let w = (start / 64) as usize;
        let shift = start % 64;
        let mut bits = self.word(w) >> shift;
        if shift + count > 64 {
            bits |= self.word(w + 1) << (64 - shift);
        }
        if count == 64 {
            bits
        } else {
            bits & ((1u64 << count) - 1)
        }
    }

    /// Asks the processor to bring the word of `rank` into cache.
    #[inline]
    pub fn prefetch(&self, rank: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let word = &self.words[(rank / 64) as usize];
            // SAFETY: prefetching is a hint that never faults, and the address is in bounds.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(word.as_ptr() as *const i8) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = rank;
    }

    /// Number of ranks in the set within `range`.
    pub fn count_in(&self, range: std::ops::Range<u64>) -> u64 {
        if range.is_empty() {
            return 0;
        }
        let (first, last) = ((range.start / 64) as usize, ((range.end - 1) / 64) as usize);
        (first..=last)
            .into_par_iter()
            .map(|w| {
                let lo = (w as u64 * 64).max(range.start);
                let hi = (w as u64 * 64 + 64).min(range.end);
                (self.word(w) & mask(lo - w as u64 * 64, hi - lo)).count_ones() as u64
            })
            .sum()
    }

    /// The smallest `limit` ranks in the set, ascending.
    pub fn smallest(&self, limit: usize) -> Vec<u64> {
        let mut out = Vec::new();
        for w in 0..self.words.len() {
            let mut bits = self.word(w);
            while bits != 0 && out.len() < limit {
                out.push(w as u64 * 64 + bits.trailing_zeros() as u64);
                bits &= bits - 1;
            }
            if out.len() >= limit {
                break;
            }
        }
        out
    }

    /// Empties the set.
    pub fn clear(&self) {
        self.words.par_iter().for_each(|w| w.store(0, Relaxed));
    }
}

/// `count` one bits starting at bit `start` (`start + count <= 64`).
#[inline]
pub fn mask(start: u64, count: u64) -> u64 {
    if count == 64 {
        u64::MAX
    } else {
        ((1u64 << count) - 1) << start
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_read_across_words() {
        let b = Bitmap::new(200);
        for r in [0, 3, 63, 64, 70, 130, 199] {
            b.insert(r);
        }
        assert_eq!(b.bits_at(60, 8), 0b0001_1000);
        assert_eq!(b.bits_at(63, 2), 0b11);
        assert_eq!(b.bits_at(0, 64), 1 | 1 << 3 | 1 << 63);
        assert_eq!(b.count_in(0..200), 7);
        assert_eq!(b.count_in(4..131), 4);
        assert_eq!(b.smallest(3), vec![0, 3, 63]);
        assert!(b.contains(130) && !b.contains(131));
        b.clear();
        assert_eq!(b.count_in(0..200), 0);
    }

    #[test]
    fn masks() {
        assert_eq!(mask(0, 64), u64::MAX);
        assert_eq!(mask(4, 3), 0b111_0000);
    }
}
