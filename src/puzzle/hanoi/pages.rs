//! The Towers of Hanoi's pages ([`Pages`]): with 4 or 8 pegs a 64-rank unit holds every
//! position of the smallest discs, so a page's pull reads its own units once and takes the
//! larger discs' moves unit by unit from the few pages they reach.

use super::{Hanoi, PAGE_BITS};
use crate::puzzle::Pages;
use crate::table::Holding;

/// A page holds the positions that share where the largest discs are.
impl Pages for Hanoi {
    fn bits(&self) -> u32 {
        let u = self.units.as_ref().expect("pages of 4 or 8 pegs");
        u.page_discs as u32 * self.pegs.trailing_zeros()
    }

    fn pull_page(&self, page: u64, frontier: Holding<'_>, unreached: &[u64], found: &mut [u64]) {
        let u = self.units.as_ref().expect("pages of 4 or 8 pegs");
        let first = page * unreached.len() as u64;
        // The page's own frontier, read once: most moves stay in the page.
        let mut own = [0u64; 1 << (PAGE_BITS - 6)];
        for (i, bits) in own.iter_mut().take(unreached.len()).enumerate() {
            *bits = frontier.unit(first + i as u64);
        }
        for (i, (&open, found)) in unreached.iter().zip(found.iter_mut()).enumerate() {
            if open == 0 {
                continue;
            }
            let bits = own[i];
            let mut pulled = 0;
            // The unit's own discs' moves, where it holds the frontier.
            if bits != 0 {
                for &(shift, sources) in &u.within {
                    let moved = bits & sources;
                    pulled |= match shift > 0 {
                        true => moved << shift,
                        false => moved >> -shift,
                    };
                }
            }
            for &(source, apart) in &u.inside[i] {
                pulled |= own[source] & apart;
            }
            *found = pulled;
        }
        // The page's largest discs: each move's disc comes from the page with it on the other
        // peg, into the units with the page's smaller discs off both pegs, the same bits.
        let page_tops = self.tops_of(page, u.page_discs, self.discs - u.page_discs);
        for (mv, disc, on, other) in self.movers(page_tops) {
            let step = self.power[disc as usize - u.page_discs];
            let source =
                (page + u64::from(other) * step - u64::from(on) * step) * unreached.len() as u64;
            for &i in &u.beyond[mv] {
                if unreached[i] != 0 {
                    found[i] |= frontier.unit(source + i as u64) & u.apart[mv];
                }
            }
        }
    }

    fn page_neighbours(&self, page: u64, out: &mut Vec<u64>) {
        let u = self.units.as_ref().expect("pages of 4 or 8 pegs");
        let page_tops = self.tops_of(page, u.page_discs, self.discs - u.page_discs);
        out.clear();
        out.extend(self.movers(page_tops).map(|(_, disc, on, other)| {
            let step = self.power[disc as usize - u.page_discs];
            page + u64::from(other) * step - u64::from(on) * step
        }));
    }
}
