//! The whole table of a search from disk, as its slabs' files hold it ([`SlabsView`]): what a
//! checkpoint and the distances file are written from.

use crate::search::slab::Slab;
use crate::table::{ENTRIES_PER_WORD, TableView, UNREACHED, spread};
use std::os::unix::fs::FileExt;

/// The whole table after the last level found, read from the slabs' files: each of its words
/// is in one slab, whose states of the next level found so far read as unreached.
pub(super) struct SlabsView<'e> {
    pub(super) slabs: &'e [Slab],
    pub(super) bounds: &'e [u64],
    /// Each slab's table and the bits of its states of the next level.
    pub(super) files: Vec<[std::fs::File; 2]>,
    pub(super) entries: u64,
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
        let width = self.slabs[0].width;
        let mut w = words.start;
        while w < words.end {
            let rank = w as u64 * ENTRIES_PER_WORD;
            let (plane, column) = (rank / width, rank % width);
            let i = self.bounds.partition_point(|&b| b <= column) - 1;
            let slab = &self.slabs[i];
            // The words of this plane in this slab, from `w` on.
            let run = ((slab.end - column).div_ceil(ENTRIES_PER_WORD) as usize).min(words.end - w);
            let local = slab.entry(plane, column) / ENTRIES_PER_WORD;
            let at = out.len();
            out.resize(at + 8 * run, 0);
            let fail = |e: std::io::Error| format!("cannot read slab {i} of the table: {e}");
            let [table, next] = &self.files[i];
            table
                .read_exact_at(&mut out[at..], 8 * local)
                .map_err(fail)?;
            // A table word's 32 entries have 32 bits of the next level: 4 bytes.
            let mut bits = vec![0u8; 4 * run];
            next.read_exact_at(&mut bits, 4 * local).map_err(fail)?;
            for (word, b) in out[at..].chunks_exact_mut(8).zip(bits.chunks_exact(4)) {
                let found = u32::from_le_bytes(b.try_into().expect("4 bytes"));
                let value = u64::from_le_bytes((&*word).try_into().expect("8 bytes"));
                let reads = value | (spread(found) * u64::from(UNREACHED));
                word.copy_from_slice(&reads.to_le_bytes());
            }
            w += run;
        }
        Ok(())
    }
}
