//! The whole table of a search in slabs, as their files (or host memory) hold it
//! ([`SlabsView`]): what the distances file is written from, a checkpoint of slabs in memory,
//! and the entries the level loop weighs a table reduced by symmetry with, after each pass.

use super::DiskEngine;
use super::owners::Owners;
use crate::puzzle::StateSpace;
use crate::search::bitmap::Bitmap;
use crate::search::slab::Slab;
use crate::table::{self, DistanceTable, ENTRIES_PER_WORD, TableView, UNREACHED};
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::OnceLock;

/// Words of a slab's table read at a time to look entries up (a page).
const PIECE_WORDS: u64 = 512;

/// A slab's table, to read pieces of.
pub(super) enum SlabTable<'e> {
    /// Its file, with the bits of the states of the next level found in it where they are to
    /// read as unreached.
    File(std::fs::File, Option<Next>),
    /// Held in host memory, with the bits of the states of the next level found in it so far
    /// where they are to read as unreached (a checkpoint's table, at the last whole level).
    Held(&'e DistanceTable, Option<&'e Bitmap>),
    /// Another process's (an MPI job's), not to be read here.
    Away,
}

/// The bits of a slab's states of the next level found so far, read from their file the first
/// time a piece of the slab is read.
pub(super) struct Next {
    pub(super) path: PathBuf,
    pub(super) entries: u64,
    pub(super) bits: OnceLock<Bitmap>,
}

impl Next {
    /// The bits, read now if not yet.
    fn bits(&self) -> Result<&Bitmap, String> {
        if let Some(bits) = self.bits.get() {
            return Ok(bits);
        }
        let bits = Bitmap::new(self.entries);
        let words = self.entries.div_ceil(64) as usize;
        super::bits::read_bits(&self.path, &bits, words, &|_| ())?;
        Ok(self.bits.get_or_init(|| bits))
    }
}

/// The whole table of a search that is over (or, of slabs in memory, at its last whole level:
/// a checkpoint's), read from the slabs' tables (each of its words is in one slab), with the
/// levels of the tail over them. The states a pass found before the tail
/// hold their level's value in their slab's table already (the tail finds them again).
pub(super) struct SlabsView<'e> {
    pub(super) slabs: &'e [Slab],
    pub(super) owners: &'e Owners,
    /// Each slab's table.
    pub(super) tables: Vec<SlabTable<'e>>,
    pub(super) entries: u64,
    /// The levels of the tail: (depth, states ascending).
    pub(super) tail: &'e [(u64, Vec<u64>)],
}

impl TableView for SlabsView<'_> {
    fn entries(&self) -> u64 {
        self.entries
    }

    fn append_le_bytes(
        &self,
        words: std::ops::Range<usize>,
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        let mut w = words.start;
        while w < words.end {
            let rank = w as u64 * ENTRIES_PER_WORD;
            let (plane, column) = self.owners.place(rank);
            let i = self.owners.of_column(column);
            let slab = &self.slabs[i];
            // The words of this plane in this slab, from `w` on.
            let run = ((slab.end - column).div_ceil(ENTRIES_PER_WORD) as usize).min(words.end - w);
            let local = slab.entry(plane, column) / ENTRIES_PER_WORD;
            let at = out.len();
            match &self.tables[i] {
                SlabTable::File(file, found) => {
                    out.resize(at + 8 * run, 0);
                    let fail =
                        |e: std::io::Error| format!("cannot read slab {i} of the table: {e}");
                    (file.read_exact_at(&mut out[at..], 8 * local)).map_err(fail)?;
                    if let Some(found) = found {
                        unreach(&mut out[at..], found.bits()?, local as usize);
                    }
                }
                SlabTable::Away => {
                    return Err(format!("slab {i} of the table is another process's"));
                }
                SlabTable::Held(table, found) => {
                    let local = local as usize;
                    table.append_le_bytes(local..local + run, out)?;
                    if let Some(found) = found {
                        unreach(&mut out[at..], found, local);
                    }
                }
            }
            let ranks = rank..rank + run as u64 * ENTRIES_PER_WORD;
            for (depth, states) in self.tail {
                let from = states.partition_point(|&r| r < ranks.start);
                for &r in states[from..].iter().take_while(|&&r| r < ranks.end) {
                    let (byte, shift) = ((r - ranks.start) / 4, 2 * ((r - ranks.start) % 4));
                    let entry = &mut out[at + byte as usize];
                    *entry = (*entry & !(3 << shift)) | ((depth % 3) as u8) << shift;
                }
            }
            w += run;
        }
        Ok(())
    }
}

impl SlabsView<'_> {
    /// The words from word `w` on (at most `most`) that lie in one slab, and whether this
    /// process holds that slab (not another process's).
    fn run_at(&self, w: u64, most: u64) -> (u64, bool) {
        let (_, column) = self.owners.place(w * ENTRIES_PER_WORD);
        let i = self.owners.of_column(column);
        let run = (self.slabs[i].end - column).div_ceil(ENTRIES_PER_WORD);
        (run.min(most), !matches!(self.tables[i], SlabTable::Away))
    }

    /// How many of the entries `ranks` that this process holds hold `value`.
    pub(super) fn count_holding(&self, ranks: Range<u64>, value: u8) -> Result<u64, String> {
        let (mut w, end) = (
            ranks.start / ENTRIES_PER_WORD,
            ranks.end.div_ceil(ENTRIES_PER_WORD),
        );
        let mut count = 0u64;
        while w < end {
            let (run, mine) = self.run_at(w, end - w);
            if mine {
                let within = (w * ENTRIES_PER_WORD).max(ranks.start)
                    ..((w + run) * ENTRIES_PER_WORD).min(ranks.end);
                count += table::count_holding(self, within, value)?;
            }
            w += run;
        }
        Ok(count)
    }

    /// The values of the entries `ranks` (ascending), each `None` where another process holds
    /// it: read a piece of a slab at a time, each piece serving the ranks that fall in it.
    pub(super) fn values(&self, ranks: &[u64]) -> Result<Vec<Option<u8>>, String> {
        let mut values = Vec::with_capacity(ranks.len());
        // The words read last: the first, and their bytes.
        let (mut first, mut bytes) = (0u64, Vec::new());
        for &rank in ranks {
            let w = rank / ENTRIES_PER_WORD;
            if !(first..first + bytes.len() as u64 / 8).contains(&w) {
                let (run, mine) = self.run_at(w, PIECE_WORDS);
                if !mine {
                    values.push(None);
                    continue;
                }
                bytes.clear();
                self.append_le_bytes(w as usize..(w + run) as usize, &mut bytes)?;
                first = w;
            }
            let at = 8 * (w - first) as usize;
            let word = u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
            values.push(Some((word >> (2 * (rank % ENTRIES_PER_WORD)) & 3) as u8));
        }
        Ok(values)
    }
}

impl<S: StateSpace> DiskEngine<'_, S> {
    /// For each of `ranges`, how many of its entries hold `value`, over the job's processes:
    /// from the lists while they hold the levels, else read from the slabs. The slabs' states
    /// of the next level found so far hold that level's value, not the last one's, which the
    /// loop weighs; but where it weighs the table it goes on from, the level before that one
    /// held the value too, so there they read as unreached.
    pub(super) fn weigh_counts(
        &self,
        ranges: &[Range<u64>],
        value: u8,
    ) -> Result<Vec<u64>, String> {
        if let Some(lists) = &self.lists {
            // Every process holds the same lists.
            return Ok(ranges
                .iter()
                .map(|r| lists.count_holding(r, value))
                .collect());
        }
        if ranges.is_empty() {
            // (Every process weighs the same ranges.)
            return Ok(Vec::new());
        }
        let view = self.view_with(self.resumed)?;
        let mine = (ranges.iter())
            .map(|r| view.count_holding(r.clone(), value))
            .collect::<Result<Vec<u64>, String>>()?;
        let Some(peers) = self.peers else {
            return Ok(mine);
        };
        let all = peers.gather(&mine);
        Ok((0..ranges.len())
            .map(|k| all.iter().skip(k).step_by(ranges.len()).sum())
            .collect())
    }

    /// The values of the entries `ranks`, over the job's processes ([`Self::weigh_counts`]).
    pub(super) fn weigh_values(&self, ranks: &[u64]) -> Result<Vec<u8>, String> {
        if let Some(lists) = &self.lists {
            return Ok(ranks.iter().map(|&r| lists.value(r)).collect());
        }
        if ranks.is_empty() {
            return Ok(Vec::new());
        }
        // Read in ascending order, each value put back in its place.
        let mut order: Vec<usize> = (0..ranks.len()).collect();
        order.sort_unstable_by_key(|&k| ranks[k]);
        let sorted: Vec<u64> = order.iter().map(|&k| ranks[k]).collect();
        let read = self.view_with(self.resumed)?.values(&sorted)?;
        // Each value plus one where this process holds it, 0 where another does.
        let mut mine = vec![0u64; ranks.len()];
        for (&k, value) in order.iter().zip(read) {
            mine[k] = value.map_or(0, |v| u64::from(v) + 1);
        }
        let all = match self.peers {
            Some(peers) => peers.gather(&mine),
            None => mine,
        };
        Ok((0..ranks.len())
            .map(|k| {
                let held = all.iter().skip(k).step_by(ranks.len()).sum::<u64>();
                held.checked_sub(1).map_or(UNREACHED, |v| v as u8)
            })
            .collect())
    }

    /// The table of a search that is over, read from the slabs' files as it is asked for.
    pub(super) fn view(&self) -> Result<SlabsView<'_>, String> {
        // Once the search is over no slab holds states of a next level (their bits are not
        // in the view).
        if let Some(i) = self.found.iter().position(|&f| f > 0) {
            return Err(format!(
                "slab {i} holds states of a level not yet written: the search is not over"
            ));
        }
        self.view_with(false)
    }

    /// The table at the last whole level, for a checkpoint of slabs held in memory: their
    /// states of the next level found so far read as unreached (the next level's states that
    /// inboxes hold are not in the table yet).
    pub(super) fn view_at_level(&self) -> Result<SlabsView<'_>, String> {
        self.view_with(true)
    }

    /// The table as the slabs hold it, their states of the next level found so far as
    /// unreached where `found_unreached` (slabs held in memory).
    pub(super) fn view_with(&self, found_unreached: bool) -> Result<SlabsView<'_>, String> {
        let mine = self.mine();
        let tables = (0..self.slabs.len())
            .map(|i| match mine.contains(&i) {
                // Read from a file only where the slab found some.
                true => {
                    let read = self.store.in_memory() || self.found[i] > 0;
                    let next = (found_unreached && read).then(|| self.slabs[i].entries());
                    self.store.slab_table(i, next)
                }
                false => Ok(SlabTable::Away),
            })
            .collect::<Result<_, _>>()?;
        Ok(SlabsView {
            slabs: &self.slabs,
            owners: &self.owners,
            tables,
            entries: self.space.size(),
            tail: self.tail.as_ref().map_or(&[][..], |t| &t.levels[..]),
        })
    }
}

/// Sets to unreached the entries of `bytes` (table words from word `first` of a slab's table)
/// whose bits are set in `found` (a bitmap of the slab's entries).
fn unreach(bytes: &mut [u8], found: &Bitmap, first: usize) {
    for (i, word) in bytes.chunks_exact_mut(8).enumerate() {
        let at = first + i;
        let bits = found.word(at / 2) >> (32 * (at % 2)) & 0xffff_ffff;
        if bits == 0 {
            continue;
        }
        // Each found entry's two bits to 0b11.
        let spread = (0..32)
            .filter(|b| bits >> b & 1 == 1)
            .fold(0u64, |m, b| m | 3 << (2 * b));
        let value = u64::from_le_bytes((*word).try_into().expect("8 bytes")) | spread;
        word.copy_from_slice(&value.to_le_bytes());
    }
}
