//! The disk engine's files in its folder: each slab's table (2 bits an entry), the bits of its
//! last two levels (the one a pass expands, the one it finds), and its inbox (the ranks other
//! slabs found in it, applied when it is next loaded); and the bytes they moved.

use crate::search::bitmap::Bitmap;
use crate::table::{DistanceTable, TableView};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Bytes a file is read or written in at a time.
const IO_BYTES: usize = 64 << 20;

/// The bytes read and written, and the seconds it took.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Io {
    /// Bytes read.
    pub read: u64,
    /// Bytes written.
    pub written: u64,
    /// Seconds spent reading and writing.
    pub seconds: f64,
}

/// The files of the slabs in `folder`.
pub(super) struct SlabFiles {
    folder: PathBuf,
    /// Ranks in each slab's inbox.
    pending: Vec<u64>,
    pub(super) io: Io,
}

impl SlabFiles {
    /// The files of `slabs` slabs in `folder` (made where missing), with empty inboxes.
    pub(super) fn new(folder: &Path, slabs: usize) -> Result<SlabFiles, String> {
        std::fs::create_dir_all(folder)
            .map_err(|e| format!("cannot make the slab folder {}: {e}", folder.display()))?;
        let files = SlabFiles {
            folder: folder.to_path_buf(),
            pending: vec![0; slabs],
            io: Io::default(),
        };
        for slab in 0..slabs {
            files.remove(&files.inbox(slab))?;
        }
        Ok(files)
    }

    fn table_path(&self, slab: usize) -> PathBuf {
        self.folder.join(format!("slab-{slab}.table"))
    }

    /// The bits of the slab's levels of depth `parity` mod 2.
    fn level_path(&self, slab: usize, parity: u64) -> PathBuf {
        self.folder.join(format!("slab-{slab}.level-{parity}"))
    }

    fn inbox(&self, slab: usize) -> PathBuf {
        self.folder.join(format!("slab-{slab}.inbox"))
    }

    fn remove(&self, path: &Path) -> Result<(), String> {
        match std::fs::remove_file(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(format!("cannot remove {}: {e}", path.display()))
            }
            _ => Ok(()),
        }
    }

    /// Slab `slab`'s table, of `entries` entries.
    pub(super) fn read_table(
        &mut self,
        slab: usize,
        entries: u64,
    ) -> Result<DistanceTable, String> {
        let table = DistanceTable::new(entries);
        self.read(&self.table_path(slab), &mut |word, bytes| {
            table.store_le_bytes(word, bytes)
        })?;
        Ok(table)
    }

    /// Writes slab `slab`'s table.
    pub(super) fn write_table(&mut self, slab: usize, table: &DistanceTable) -> Result<(), String> {
        let words = table.word_count();
        self.write(&self.table_path(slab), words, |range, out| {
            table.append_le_bytes(range, out)
        })
    }

    /// The bits of slab `slab`'s level of depth `depth` (of `entries` entries).
    pub(super) fn read_level(
        &mut self,
        slab: usize,
        depth: u64,
        entries: u64,
    ) -> Result<Bitmap, String> {
        let bits = Bitmap::new(entries);
        self.read(&self.level_path(slab, depth % 2), &mut |word, bytes| {
            for (i, b) in bytes.chunks_exact(8).enumerate() {
                bits.store_word(word + i, u64::from_le_bytes(b.try_into().unwrap()));
            }
        })?;
        Ok(bits)
    }

    /// Writes the bits of slab `slab`'s level of depth `depth`.
    pub(super) fn write_level(
        &mut self,
        slab: usize,
        depth: u64,
        bits: &Bitmap,
    ) -> Result<(), String> {
        let path = self.level_path(slab, depth % 2);
        self.write(&path, bits.word_count(), |range, out| {
            for w in range {
                out.extend_from_slice(&bits.word(w).to_le_bytes());
            }
            Ok(())
        })
    }

    /// Whether slab `slab`'s inbox holds any rank.
    pub(super) fn has_inbox(&self, slab: usize) -> bool {
        self.pending[slab] > 0
    }

    /// Appends `ranks` to slab `slab`'s inbox.
    pub(super) fn send(&mut self, slab: usize, ranks: &[u64]) -> Result<(), String> {
        let started = Instant::now();
        let path = self.inbox(slab);
        let fail = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
        let mut file = (OpenOptions::new().create(true).append(true))
            .open(&path)
            .map_err(fail)?;
        // A piece at a time: no second copy of the ranks.
        let mut bytes = Vec::with_capacity(IO_BYTES.min(8 * ranks.len()));
        for piece in ranks.chunks(IO_BYTES / 8) {
            bytes.clear();
            bytes.extend(piece.iter().flat_map(|r| r.to_le_bytes()));
            file.write_all(&bytes).map_err(fail)?;
        }
        self.pending[slab] += ranks.len() as u64;
        self.io.written += 8 * ranks.len() as u64;
        self.io.seconds += started.elapsed().as_secs_f64();
        Ok(())
    }

    /// Calls `f` with the ranks of slab `slab`'s inbox, a batch at a time, then empties it.
    pub(super) fn receive(&mut self, slab: usize, f: &mut dyn FnMut(&[u64])) -> Result<(), String> {
        if self.pending[slab] == 0 {
            return Ok(());
        }
        let path = self.inbox(slab);
        let fail = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
        let file = File::open(&path).map_err(fail)?;
        let len = 8 * self.pending[slab];
        let mut bytes = vec![0u8; IO_BYTES.min(len as usize)];
        let mut at = 0;
        while at < len {
            let n = bytes.len().min((len - at) as usize);
            let started = Instant::now();
            file.read_exact_at(&mut bytes[..n], at).map_err(fail)?;
            self.io.read += n as u64;
            self.io.seconds += started.elapsed().as_secs_f64();
            let ranks: Vec<u64> = (bytes[..n].chunks_exact(8))
                .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
                .collect();
            f(&ranks);
            at += n as u64;
        }
        self.pending[slab] = 0;
        self.remove(&path)
    }

    /// The table file of slab `slab`, opened for reading pieces of it.
    pub(super) fn open_table(&self, slab: usize) -> Result<File, String> {
        let path = self.table_path(slab);
        File::open(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    }

    /// Reads `path` a piece at a time (no copy of the whole file in memory), calling `store`
    /// with the first word of each piece and its bytes.
    fn read(&mut self, path: &Path, store: &mut dyn FnMut(usize, &[u8])) -> Result<(), String> {
        let started = Instant::now();
        let fail = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
        let file = File::open(path).map_err(fail)?;
        let len = file.metadata().map_err(fail)?.len();
        let mut bytes = vec![0u8; IO_BYTES.min(len as usize)];
        let mut at = 0;
        while at < len {
            let n = bytes.len().min((len - at) as usize);
            file.read_exact_at(&mut bytes[..n], at).map_err(fail)?;
            store((at / 8) as usize, &bytes[..n]);
            at += n as u64;
        }
        self.io.read += len;
        self.io.seconds += started.elapsed().as_secs_f64();
        Ok(())
    }

    /// Writes `words` words to `path`, `fill` appending the bytes of each range of them.
    fn write(
        &mut self,
        path: &Path,
        words: usize,
        mut fill: impl FnMut(std::ops::Range<usize>, &mut Vec<u8>) -> Result<(), String>,
    ) -> Result<(), String> {
        let started = Instant::now();
        let fail = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
        let mut file = File::create(path).map_err(fail)?;
        let per = IO_BYTES / 8;
        let mut bytes = Vec::with_capacity(IO_BYTES.min(8 * words));
        for start in (0..words).step_by(per) {
            bytes.clear();
            fill(start..(start + per).min(words), &mut bytes)?;
            file.write_all(&bytes).map_err(fail)?;
            self.io.written += bytes.len() as u64;
        }
        self.io.seconds += started.elapsed().as_secs_f64();
        Ok(())
    }

    /// Removes every file of `slabs` slabs, and the folder where nothing else is left in it.
    pub(super) fn remove_all(&self, slabs: usize) -> Result<(), String> {
        for slab in 0..slabs {
            self.remove(&self.table_path(slab))?;
            self.remove(&self.level_path(slab, 0))?;
            self.remove(&self.level_path(slab, 1))?;
            self.remove(&self.inbox(slab))?;
        }
        let _ = std::fs::remove_dir(&self.folder);
        Ok(())
    }
}
