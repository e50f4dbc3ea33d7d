//! The antipodes' bookkeeping: the smallest ranks of a level, kept while a pass finds them.

use std::collections::BinaryHeap;

/// Keeps the `limit` smallest ranks pushed into it.
pub(crate) struct Smallest {
    limit: usize,
    heap: BinaryHeap<u64>,
    /// Ranks at or above this cannot enter (the largest kept, once full).
    bound: u64,
}

impl Smallest {
    pub(crate) fn new(limit: usize) -> Smallest {
        Smallest {
            limit,
            heap: BinaryHeap::new(),
            bound: if limit == 0 { 0 } else { u64::MAX },
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, rank: u64) {
        if rank >= self.bound {
            return;
        }
        if self.heap.len() < self.limit {
            self.heap.push(rank);
        } else if let Some(mut top) = self.heap.peek_mut() {
            *top = rank;
        }
        if self.heap.len() == self.limit {
            self.bound = *self.heap.peek().unwrap_or(&0);
        }
    }

    pub(crate) fn into_sorted(self) -> Vec<u64> {
        self.heap.into_sorted_vec()
    }
}

/// Appends the ranks of 64-rank unit `unit` that `bits` marks to `smallest` while it holds
/// fewer than `limit`: units passed in ascending order keep the smallest ranks, ascending.
#[inline]
pub(crate) fn push_unit(smallest: &mut Vec<u64>, unit: u64, mut bits: u64, limit: usize) {
    while bits != 0 && smallest.len() < limit {
        smallest.push(unit * 64 + u64::from(bits.trailing_zeros()));
        bits &= bits - 1;
    }
}

/// The `limit` smallest of two ascending lists, ascending.
pub(crate) fn merge_smallest(a: Vec<u64>, b: Vec<u64>, limit: usize) -> Vec<u64> {
    if b.is_empty() || a.last().is_some_and(|&x| b[0] > x && a.len() >= limit) {
        return a;
    }
    if a.is_empty() || b.last().is_some_and(|&x| a[0] > x && b.len() >= limit) {
        return b;
    }
    let mut out = Vec::with_capacity((a.len() + b.len()).min(limit));
    let (mut i, mut j) = (0, 0);
    while out.len() < limit && (i < a.len() || j < b.len()) {
        if j == b.len() || (i < a.len() && a[i] <= b[j]) {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out
}
