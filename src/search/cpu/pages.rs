//! Page sweeps, for spaces whose moves act 64 ranks at a time within pages of consecutive ranks
//! ([`crate::puzzle::Pages`]: the Towers of Hanoi with 4 or 8 pegs, whose pages share where
//! the largest discs lie). A level lies in few pages there: a pass visits only the pages with
//! entries still unreached that hold the last level or lie next to a page that does, reads each
//! once and pulls each unit's frontier from the units its moves reach, nearly all in the same
//! page. A page is one worker's: no write is atomic.

use super::{Bitmap, DistanceTable, Progress, UNREACHED, merge_smallest};
use crate::puzzle::Pages;
use crate::search::smallest::push_unit;
use crate::table::Holding;
use rayon::prelude::*;

/// Pages a task of a pass visits, in rank order.
const PAGES_PER_TASK: usize = 16;

/// What page sweeps keep from one pass to the next.
pub(super) struct PageSweep {
    /// log2 of a page's ranks.
    bits: u32,
    /// The number of pages.
    count: u64,
    /// The pages holding the last level (after a reading of the table, levels `d - 3`,
    /// `d - 6`, ... too, whose neighbours are all reached).
    holding: Bitmap,
    /// The pages with entries still unreached.
    open: Bitmap,
    /// The level `holding` is of; `None` until it is read from the table.
    level: Option<u64>,
}

impl PageSweep {
    /// Page sweeps over a table of `size` entries (a multiple of the `2^bits` ranks of a page).
    pub fn new(bits: u32, size: u64) -> PageSweep {
        debug_assert!(bits >= 6 && size.is_multiple_of(1 << bits));
        let count = size >> bits;
        PageSweep {
            bits,
            count,
            holding: Bitmap::new(0),
            open: Bitmap::new(0),
            level: None,
        }
    }

    /// One pass: sets every unreached entry with a neighbour holding `current` (level `depth`)
    /// to `next`; returns how many and the smallest `limit` of them.
    #[allow(clippy::too_many_arguments)]
    pub fn pass(
        &mut self,
        space: &dyn Pages,
        table: &DistanceTable,
        depth: u64,
        current: u8,
        next: u8,
        limit: usize,
        progress: &dyn Progress,
    ) -> (u64, Vec<u64>) {
        let units = 1usize << (self.bits - 6);
        if self.level != Some(depth) {
            // The first pass, or one after another kind of pass: the pages from the table, in
            // one pass over it.
            let holding = Bitmap::new(self.count);
            self.open = Bitmap::from_fn(self.count, |w| {
                let (mut held, mut open) = (0, 0);
                for page in w as u64 * 64..(w as u64 * 64 + 64).min(self.count) {
                    let first = page as usize * units;
                    let (mut h, mut o) = (false, false);
                    for u in first..first + units {
                        h |= table.value_bits(u, current) != 0;
                        o |= table.value_bits(u, UNREACHED) != 0;
                    }
                    held |= u64::from(h) << (page % 64);
                    open |= u64::from(o) << (page % 64);
                }
                holding.store_word(w, held);
                open
            });
            self.holding = holding;
        }
        // The pages to visit: open, and holding the level or next to a page that does (each
        // page is among the neighbours of its own neighbours).
        let near = Bitmap::new(self.count);
        (0..self.holding.word_count())
            .into_par_iter()
            .for_each_init(Vec::new, |neighbours, w| {
                let mut bits = self.holding.word(w);
                while bits != 0 {
                    let page = w as u64 * 64 + u64::from(bits.trailing_zeros());
                    bits &= bits - 1;
                    near.insert(page);
                    space.page_neighbours(page, neighbours);
                    neighbours.iter().for_each(|&p| near.insert(p));
                }
            });
        let open = &self.open;
        let visit: Vec<u64> = (0..near.word_count())
            .into_par_iter()
            .flat_map_iter(|w| {
                let mut bits = near.word(w) & open.word(w);
                std::iter::from_fn(move || {
                    let page = w as u64 * 64 + u64::from(bits.trailing_zeros());
                    (bits != 0).then(|| {
                        bits &= bits - 1;
                        page
                    })
                })
            })
            .collect();
        let reached = Bitmap::new(self.count);
        // Pages hold whole units: no check for the padded last unit in the innermost reads.
        let (frontier, open_entries) =
            (Holding::new(table, current), Holding::new(table, UNREACHED));
        let found = visit
            .par_chunks(PAGES_PER_TASK)
            .map(|pages| {
                let mut unreached = vec![0u64; units];
                let mut found = vec![0u64; units];
                let (mut count, mut smallest) = (0, Vec::new());
                for &page in pages {
                    let first = page * units as u64;
                    for (i, u) in unreached.iter_mut().enumerate() {
                        *u = open_entries.unit(first + i as u64);
                    }
                    space.pull_page(page, frontier, &unreached, &mut found);
                    let (set, left) =
                        claim(table, first, &unreached, &found, next, limit, &mut smallest);
                    if set > 0 {
                        reached.insert(page);
                    }
                    if !left {
                        open.remove(page);
                    }
                    count += set;
                }
                progress.found(count);
                (count, smallest)
            })
            .reduce(
                || (0, Vec::new()),
                |(ca, a), (cb, b)| (ca + cb, merge_smallest(a, b, limit)),
            );
        self.holding = reached;
        self.level = Some(depth + 1);
        found
    }
}

/// Sets the entries of `found` still unreached (`unreached`), in the units from `first` on, to
/// `next`, keeping the smallest `limit` ranks set in `smallest`: how many were set, and whether
/// any entry of these units stays unreached.
fn claim(
    table: &DistanceTable,
    first: u64,
    unreached: &[u64],
    found: &[u64],
    next: u8,
    limit: usize,
    smallest: &mut Vec<u64>,
) -> (u64, bool) {
    let (mut count, mut left) = (0, false);
    for (i, (&open, &f)) in unreached.iter().zip(found).enumerate() {
        let new = match open & f {
            0 => 0,
            bits => table.claim_unit(first + i as u64, bits, next, true),
        };
        left |= open & !new != 0;
        count += u64::from(new.count_ones());
        // Units come in ascending order: the first `limit` ranks set are the smallest.
        push_unit(smallest, first + i as u64, new, limit);
    }
    (count, left)
}
