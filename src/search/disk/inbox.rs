//! A slab's inboxes: the ranks of the next level and of the one after that other slabs found in
//! it, applied when it is next loaded. A pass appends them in batches, each coded as the gaps
//! between its ranks. Where a level is dense those batches would outgrow the slab many times over
//! (a rank may come from several slabs, and each costs a byte or more); once a slab's batches
//! take as many bytes as a bitmap of its entries, they are merged into that bitmap's file
//! ([`bits`]: the inbox's bits), so an inbox never takes more than about two bitmaps of disk.

use super::bits;
use super::io::{Aligned, IO_BYTES, write_error};
use super::store::SlabStore;
use crate::search::SearchError;
use crate::search::bitmap::Bitmap;
use crate::search::slab::gaps;
use rayon::prelude::*;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::time::Instant;

/// Bytes of batches read at a time, to be decoded side by side: at least two batches.
const GROUP_BYTES: usize = 2 * IO_BYTES;

/// The bytes of batches after which a slab's inbox is merged into its bits: those of a bitmap
/// of its `entries` entries.
pub(super) fn merge_at(entries: u64) -> u64 {
    entries.div_ceil(8)
}

/// The most bytes on the disk of the inbox for one level of a slab of `entries` entries that
/// batches of at most `round_bytes` are appended to at a time: its bits, and its batches up to a
/// merge and a round beyond it (an allowance of two rounds).
pub fn disk_bytes(entries: u64, round_bytes: u64) -> u64 {
    bits::disk_bytes(entries) + merge_at(entries) + 2 * round_bytes
}

impl SlabStore {
    /// The slab's inbox for levels of depth `parity` mod 2: its batches.
    pub(super) fn inbox(&self, slab: usize, parity: u64) -> PathBuf {
        self.folder.join(format!("slab-{slab}.inbox-{parity}"))
    }

    /// The slab's inbox for levels of depth `parity` mod 2: its batches merged as bits.
    pub(super) fn inbox_bits(&self, slab: usize, parity: u64) -> PathBuf {
        self.folder.join(format!("slab-{slab}.inbox-{parity}.bits"))
    }

    /// The bits a merge writes beside the inbox's bits, until they take their name.
    fn fresh_bits(&self, slab: usize, parity: u64) -> PathBuf {
        self.folder
            .join(format!("slab-{slab}.inbox-{parity}.bits-new"))
    }

    /// Removes the files of slab `slab`'s inbox for levels of depth `parity` mod 2 (and bits a
    /// merge cut short left).
    pub(super) fn remove_inbox(&self, slab: usize, parity: u64) -> Result<(), String> {
        self.remove(&self.inbox(slab, parity))?;
        self.remove(&self.inbox_bits(slab, parity))?;
        self.remove(&self.fresh_bits(slab, parity))
    }

    /// Forgets slab `slab`'s inboxes (their files go at the next checkpoint).
    pub(super) fn forget_inboxes(&mut self, slab: usize) {
        self.pending[slab] = [0, 0];
        self.inbox_bytes[slab] = [0, 0];
        self.merged[slab] = [false, false];
        if let Some(held) = self.held() {
            held.inboxes[slab] = [None, None];
        }
    }

    /// Sets the bits of `ranks` (`local`: a rank's entry in the slab) in slab `slab`'s inbox for
    /// level `depth`, held in memory where the slabs are: no batches, no files.
    pub(super) fn deliver(
        &mut self,
        slab: usize,
        depth: u64,
        ranks: &[u64],
        local: &(dyn Fn(u64) -> u64 + Sync),
    ) {
        if ranks.is_empty() {
            return;
        }
        let parity = (depth % 2) as usize;
        let entries = self.entries[slab];
        let held = self.held().expect("slabs held in memory");
        let bits = held.inboxes[slab][parity].get_or_insert_with(|| Bitmap::new(entries));
        (ranks.par_chunks(1 << 16)).for_each(|chunk| {
            for &r in chunk {
                bits.insert(local(r));
            }
        });
        self.pending[slab][parity] += ranks.len() as u64;
        self.merged[slab][parity] = true;
    }

    /// Removes the inboxes for level `depth`, all read by the pass before (the last checkpoint
    /// names none of them): a pass that sends to level `depth` starts with them empty.
    pub(super) fn clear_inboxes(&mut self, depth: u64) -> Result<(), String> {
        let parity = (depth % 2) as usize;
        for slab in 0..self.pending.len() {
            debug_assert_eq!(self.pending[slab][parity], 0, "an inbox not read");
            self.inbox_bytes[slab][parity] = 0;
            self.merged[slab][parity] = false;
            if let Some(held) = self.held() {
                held.inboxes[slab][parity] = None;
            }
            self.remove_inbox(slab, depth % 2)?;
        }
        Ok(())
    }

    /// Whether slab `slab`'s inbox for level `depth` holds any rank.
    pub(super) fn has_inbox(&self, slab: usize, depth: u64) -> bool {
        self.pending[slab][(depth % 2) as usize] > 0
    }

    /// Appends batches of ranks to slab `slab`'s inbox for level `depth`: each batch its number
    /// of ranks and their gaps' bytes ([`gaps::encode_in_place`]), at most [`IO_BYTES`]` / 8`
    /// ranks. Returns whether its batches have grown to be merged ([`SlabStore::merge`]).
    pub(super) fn send(
        &mut self,
        slab: usize,
        depth: u64,
        batches: &[(u64, &[u8])],
    ) -> Result<bool, SearchError> {
        let started = Instant::now();
        let parity = (depth % 2) as usize;
        let path = self.inbox(slab, depth % 2);
        let fail = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
        let mut file = (OpenOptions::new().create(true).append(true))
            .open(&path)
            .map_err(fail)?;
        let full = |e: std::io::Error, n: usize| write_error(&path, e, n as u64);
        // A batch at a time: its number of ranks and of bytes, then the gaps between its ranks.
        for &(count, bytes) in batches {
            debug_assert!(count <= (IO_BYTES / 8) as u64);
            let mut header = [0u8; 16];
            header[..8].copy_from_slice(&count.to_le_bytes());
            header[8..].copy_from_slice(&(bytes.len() as u64).to_le_bytes());
            (file.write_all(&header).and_then(|_| file.write_all(bytes)))
                .map_err(|e| full(e, 16 + bytes.len()))?;
            let n = 16 + bytes.len() as u64;
            self.io.written += n;
            self.inbox_bytes[slab][parity] += n;
            self.pending[slab][parity] += count;
        }
        self.io.seconds += started.elapsed().as_secs_f64();
        Ok(self.inbox_bytes[slab][parity] >= merge_at(self.entries[slab]))
    }

    /// Appends batches that another process's pass sent (as [`SlabStore::send`] writes them:
    /// each its number of ranks, its bytes' length, its bytes) to slab `slab`'s inbox for level
    /// `depth`. Returns whether its batches have grown to be merged ([`SlabStore::merge`]).
    pub(super) fn append(
        &mut self,
        slab: usize,
        depth: u64,
        batches: &[u8],
    ) -> Result<bool, SearchError> {
        let started = Instant::now();
        let parity = (depth % 2) as usize;
        let mut ranks = 0;
        let mut rest = batches;
        while !rest.is_empty() {
            let field = |i: usize| {
                rest.get(i..i + 8)
                    .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
            };
            let (Some(count), Some(len)) = (field(0), field(8)) else {
                return Err(format!("the batches sent to slab {slab} are damaged").into());
            };
            if count > (IO_BYTES / 8) as u64 || len > 10 * count || 16 + len > rest.len() as u64 {
                return Err(format!("the batches sent to slab {slab} are damaged").into());
            }
            ranks += count;
            rest = &rest[16 + len as usize..];
        }
        let path = self.inbox(slab, depth % 2);
        let mut file = (OpenOptions::new().create(true).append(true))
            .open(&path)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        (file.write_all(batches)).map_err(|e| write_error(&path, e, batches.len() as u64))?;
        let n = batches.len() as u64;
        self.io.written += n;
        self.io.seconds += started.elapsed().as_secs_f64();
        self.inbox_bytes[slab][parity] += n;
        self.pending[slab][parity] += ranks;
        Ok(self.inbox_bytes[slab][parity] >= merge_at(self.entries[slab]))
    }

    /// Removes the batches kept for slab `slab` of another process, for level `depth`, once
    /// they are sent ([`super::DiskEngine::ship`]).
    pub(super) fn drop_spool(&mut self, slab: usize, depth: u64) -> Result<(), String> {
        let parity = (depth % 2) as usize;
        self.pending[slab][parity] = 0;
        self.inbox_bytes[slab][parity] = 0;
        self.remove(&self.inbox(slab, depth % 2))
    }

    /// Merges slab `slab`'s inbox for level `depth` into its bits: the bits there are (if any)
    /// and the batches' ranks (`local`: a rank's entry in the slab) are written as the inbox's
    /// bits, and the batches emptied. The bits are written beside the ones before and then take
    /// their name, so a run killed meanwhile finds one or the other whole; neither is named by a
    /// checkpoint until the level is complete.
    pub(super) fn merge(
        &mut self,
        slab: usize,
        depth: u64,
        local: &(dyn Fn(u64) -> u64 + Sync),
    ) -> Result<(), SearchError> {
        let parity = (depth % 2) as usize;
        let entries = self.entries[slab];
        let (bitmap, mut buffer) = self.take_merging(entries);
        self.inbox_into(slab, depth, &bitmap, local)?;
        let path = self.inbox_bits(slab, depth % 2);
        let fresh = self.fresh_bits(slab, depth % 2);
        let words = entries.div_ceil(64) as usize;
        let io = bits::write_bits(&fresh, &bitmap, words, &mut buffer, &|_| ())?;
        self.count(io);
        std::fs::rename(&fresh, &path)
            .map_err(|e| format!("cannot rename {}: {e}", fresh.display()))?;
        self.remove(&self.inbox(slab, depth % 2))?;
        self.pending[slab][parity] = bitmap.count_in(0..entries);
        self.inbox_bytes[slab][parity] = 0;
        self.merged[slab][parity] = true;
        self.merging = Some((bitmap, buffer));
        Ok(())
    }

    /// The bitmap that inboxes are merged into and received from, sized for a slab of
    /// `entries`, and its buffer: the ones kept from the last merge, or new ones.
    fn take_merging(&mut self, entries: u64) -> (Bitmap, Aligned) {
        match self.merging.take() {
            Some((bitmap, buffer)) => (bitmap.reused(entries), buffer),
            None => (Bitmap::new(entries), Aligned::new()),
        }
    }

    /// Reads the bits of slab `slab`'s inbox for level `depth` into `bitmap`.
    fn read_inbox_bits(&mut self, slab: usize, depth: u64, bitmap: &Bitmap) -> Result<(), String> {
        let path = self.inbox_bits(slab, depth % 2);
        let io = bits::read_bits(&path, bitmap, bitmap.word_count(), &|_| ())?;
        self.count(io);
        Ok(())
    }

    /// Slab `slab`'s inbox for level `depth` as bits in `bitmap` (of its entries).
    fn inbox_into(
        &mut self,
        slab: usize,
        depth: u64,
        bitmap: &Bitmap,
        local: &(dyn Fn(u64) -> u64 + Sync),
    ) -> Result<(), String> {
        if self.merged[slab][(depth % 2) as usize] {
            self.read_inbox_bits(slab, depth, bitmap)?;
        } else {
            bitmap.clear();
        }
        self.batches(slab, depth, &|r| {
            bitmap.insert(local(r));
            false
        })?;
        Ok(())
    }

    /// Calls `claim` with the entry of each rank of slab `slab`'s inbox for level `depth`
    /// (`local`: a rank's entry in the slab), on every worker, then forgets them (the files stay
    /// until the next checkpoint: the last one names them). Returns how many claims held.
    pub(super) fn receive(
        &mut self,
        slab: usize,
        depth: u64,
        claim: &(dyn Fn(u64) -> bool + Sync),
        local: &(dyn Fn(u64) -> u64 + Sync),
    ) -> Result<u64, String> {
        let parity = (depth % 2) as usize;
        if self.pending[slab][parity] == 0 {
            return Ok(0);
        }
        let claim_bits = |bitmap: &Bitmap| {
            (0..bitmap.word_count())
                .into_par_iter()
                .map(|w| {
                    let (mut word, mut held) = (bitmap.word(w), 0);
                    while word != 0 {
                        let entry = 64 * w as u64 + u64::from(word.trailing_zeros());
                        word &= word - 1;
                        held += u64::from(claim(entry));
                    }
                    held
                })
                .sum::<u64>()
        };
        let mut claimed = 0;
        let held = self.held().and_then(|h| h.inboxes[slab][parity].take());
        if let Some(bitmap) = held {
            claimed += claim_bits(&bitmap);
        } else if self.merged[slab][parity] {
            let (bitmap, buffer) = self.take_merging(self.entries[slab]);
            self.read_inbox_bits(slab, depth, &bitmap)?;
            claimed += claim_bits(&bitmap);
            self.merging = Some((bitmap, buffer));
        }
        claimed += self.batches(slab, depth, &|r| claim(local(r)))?;
        self.pending[slab][parity] = 0;
        self.inbox_bytes[slab][parity] = 0;
        self.merged[slab][parity] = false;
        Ok(claimed)
    }

    /// Calls `f` with each rank of the batches of slab `slab`'s inbox for level `depth`, on
    /// every worker: the batches are read a group at a time and decoded side by side. Returns
    /// how many calls returned true.
    fn batches(
        &mut self,
        slab: usize,
        depth: u64,
        f: &(dyn Fn(u64) -> bool + Sync),
    ) -> Result<u64, String> {
        if self.inbox_bytes[slab][(depth % 2) as usize] == 0 {
            return Ok(0);
        }
        let path = self.inbox(slab, depth % 2);
        let fail = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
        let file = File::open(&path).map_err(fail)?;
        let len = file.metadata().map_err(fail)?.len();
        let damaged = || {
            format!(
                "{} is damaged: remove its folder and start again",
                path.display()
            )
        };
        let group = &mut self.batch;
        let (mut at, mut held) = (0, 0);
        while at < len {
            let started = Instant::now();
            let n = (len - at).min(GROUP_BYTES as u64) as usize;
            group.resize(n, 0);
            file.read_exact_at(group, at).map_err(fail)?;
            self.io.seconds += started.elapsed().as_secs_f64();
            // The whole batches in the group: each its ranks' count and its bytes.
            let mut parts: Vec<(u64, &[u8])> = Vec::new();
            let mut rest = &group[..];
            while rest.len() >= 16 {
                let field = |i: usize| u64::from_le_bytes(rest[i..i + 8].try_into().unwrap());
                let (count, bytes) = (field(0), field(8));
                if count > (IO_BYTES / 8) as u64 || bytes > 10 * count {
                    return Err(damaged());
                }
                if 16 + bytes > rest.len() as u64 {
                    break;
                }
                parts.push((count, &rest[16..16 + bytes as usize]));
                rest = &rest[16 + bytes as usize..];
            }
            let taken = n - rest.len();
            if taken == 0 {
                // Not even one batch whole in a group: past the end of the file.
                return Err(damaged());
            }
            let decoded: Vec<Option<u64>> = (parts.par_iter())
                .map(|&(count, bytes)| {
                    let (mut seen, mut true_) = (0, 0);
                    let whole = gaps::decode_each(bytes, |r| {
                        seen += 1;
                        true_ += u64::from(f(r));
                    });
                    (whole && seen == count).then_some(true_)
                })
                .collect();
            for d in decoded {
                held += d.ok_or_else(damaged)?;
            }
            self.io.read += taken as u64;
            at += taken as u64;
        }
        Ok(held)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::slab::gaps;

    /// Ranks sent to a slab in batches (some many times), merged into bits whenever they grow
    /// and sent again after: the inbox gives each back, as bits or as ranks, and nothing else.
    #[test]
    fn an_inbox_merged_into_bits_gives_back_every_rank_sent() {
        let folder = std::env::temp_dir().join(format!("gpusearch-inbox-{}", std::process::id()));
        // Slab 1 holds the ranks from 1000 on: its entries are the ranks less 1000.
        let entries = 70_000u64;
        let mut files = SlabStore::new(&folder, vec![10, entries], false).unwrap();
        let local = |r: u64| r - 1000;
        let (mut want, mut merges) = (vec![false; entries as usize], 0);
        for round in 0..40u64 {
            let mut ranks: Vec<u64> = (0..500)
                .map(|k| 1000 + (k * 97 + round * 31) % entries)
                .collect();
            ranks.sort_unstable();
            ranks.iter().for_each(|&r| want[local(r) as usize] = true);
            let count = ranks.len() as u64;
            let len = gaps::encode_in_place(&mut ranks);
            let bytes = &bytemuck::cast_slice::<u64, u8>(&ranks)[..len];
            if files.send(1, 5, &[(count, bytes)]).unwrap() {
                files.merge(1, 5, &local).unwrap();
                merges += 1;
            }
        }
        assert!(merges >= 2, "merged {merges} times");
        assert!(files.has_inbox(1, 5) && !files.has_inbox(1, 4) && !files.has_inbox(0, 5));
        let got = std::sync::Mutex::new(vec![false; entries as usize]);
        let claim = |e: u64| !std::mem::replace(&mut got.lock().unwrap()[e as usize], true);
        let claimed = files.receive(1, 5, &claim, &local).unwrap();
        let want_count = want.iter().filter(|&&w| w).count() as u64;
        assert!(
            got.into_inner().unwrap() == want,
            "the inbox gave back other ranks"
        );
        assert_eq!(claimed, want_count);
        assert!(!files.has_inbox(1, 5));
        files.remove_all(2).unwrap();
        assert!(!folder.exists());
    }
}
