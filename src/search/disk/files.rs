//! The disk engine's files in its folder: each slab's table (2 bits an entry), the bits of the
//! states of the next level found in it so far, and its inboxes (the ranks of the next level and
//! of the one after that other slabs found in it, applied when it is next loaded); and the
//! bytes they moved.

use crate::search::bitmap::Bitmap;
use crate::search::slab::gaps;
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

/// A slab's table and the bits of its states of the next level, as read from its files, and
/// the bytes that took.
pub(super) struct Loaded {
    pub(super) table: DistanceTable,
    pub(super) next: Bitmap,
    pub(super) io: Io,
}

/// Reads `path` a piece at a time (no copy of the whole file in memory), calling `store` with
/// the first word of each piece and its bytes, and leaves none of it in the page cache.
fn read(path: &Path, store: &mut dyn FnMut(usize, &[u8])) -> Result<Io, String> {
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
    uncache(&file);
    Ok(Io {
        read: len,
        written: 0,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Drops `file`'s pages from the page cache (its writes already on the disk): the slabs are
/// read from the disk each time, as a table larger than memory is.
fn uncache(file: &File) {
    use std::os::fd::AsRawFd;
    // SAFETY: a plain system call on an open descriptor; advice only, it changes no data.
    unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
}

/// The files of the slabs in `folder`.
pub(super) struct SlabFiles {
    folder: PathBuf,
    /// Ranks in each slab's inboxes, for levels of even and of odd depth.
    pending: Vec<[u64; 2]>,
    pub(super) io: Io,
}

impl SlabFiles {
    /// The files of `slabs` slabs in `folder` (made where missing), with empty inboxes.
    pub(super) fn new(folder: &Path, slabs: usize) -> Result<SlabFiles, String> {
        std::fs::create_dir_all(folder)
            .map_err(|e| format!("cannot make the slab folder {}: {e}", folder.display()))?;
        let files = SlabFiles {
            folder: folder.to_path_buf(),
            pending: vec![[0; 2]; slabs],
            io: Io::default(),
        };
        for slab in 0..slabs {
            files.remove(&files.inbox(slab, 0))?;
            files.remove(&files.inbox(slab, 1))?;
        }
        Ok(files)
    }

    fn table_path(&self, slab: usize) -> PathBuf {
        self.folder.join(format!("slab-{slab}.table"))
    }

    /// The bits of the slab's states of the next level found so far.
    fn next_path(&self, slab: usize) -> PathBuf {
        self.folder.join(format!("slab-{slab}.next"))
    }

    /// The slab's inbox for levels of depth `parity` mod 2.
    fn inbox(&self, slab: usize, parity: u64) -> PathBuf {
        self.folder.join(format!("slab-{slab}.inbox-{parity}"))
    }

    fn remove(&self, path: &Path) -> Result<(), String> {
        match std::fs::remove_file(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(format!("cannot remove {}: {e}", path.display()))
            }
            _ => Ok(()),
        }
    }

    /// Reads slab `slab`'s table and the bits of its states of the next level (of `entries`
    /// entries): a job for any thread, which the engine counts ([`SlabFiles::count`]).
    pub(super) fn reader(
        &self,
        slab: usize,
        entries: u64,
    ) -> impl FnOnce() -> Result<Loaded, String> + Send + 'static {
        let (table_path, next_path) = (self.table_path(slab), self.next_path(slab));
        move || {
            let table = DistanceTable::new(entries);
            let mut io = read(&table_path, &mut |word, bytes| {
                table.store_le_bytes(word, bytes)
            })?;
            let next = Bitmap::new(entries);
            let more = read(&next_path, &mut |word, bytes| {
                for (i, b) in bytes.chunks_exact(8).enumerate() {
                    next.store_word(word + i, u64::from_le_bytes(b.try_into().expect("8 bytes")));
                }
            })?;
            io.read += more.read;
            io.seconds += more.seconds;
            Ok(Loaded { table, next, io })
        }
    }

    /// Counts the bytes read by a [`SlabFiles::reader`].
    pub(super) fn count(&mut self, io: Io) {
        self.io.read += io.read;
        self.io.written += io.written;
        self.io.seconds += io.seconds;
    }

    /// Writes slab `slab`'s table.
    pub(super) fn write_table(&mut self, slab: usize, table: &DistanceTable) -> Result<(), String> {
        let words = table.word_count();
        self.write(&self.table_path(slab), words, |range, out| {
            table.append_le_bytes(range, out)
        })
    }

    /// Writes the bits of slab `slab`'s states of the next level.
    pub(super) fn write_next(&mut self, slab: usize, bits: &Bitmap) -> Result<(), String> {
        let path = self.next_path(slab);
        self.write(&path, bits.word_count(), |range, out| {
            for w in range {
                out.extend_from_slice(&bits.word(w).to_le_bytes());
            }
            Ok(())
        })
    }

    /// Empties slab `slab`'s inboxes.
    pub(super) fn drop_inboxes(&mut self, slab: usize) -> Result<(), String> {
        self.pending[slab] = [0, 0];
        self.remove(&self.inbox(slab, 0))?;
        self.remove(&self.inbox(slab, 1))
    }

    /// Whether slab `slab`'s inbox for level `depth` holds any rank.
    pub(super) fn has_inbox(&self, slab: usize, depth: u64) -> bool {
        self.pending[slab][(depth % 2) as usize] > 0
    }

    /// Appends `ranks` to slab `slab`'s inbox for level `depth`.
    pub(super) fn send(&mut self, slab: usize, depth: u64, ranks: &[u64]) -> Result<(), String> {
        debug_assert!(ranks.is_sorted());
        let started = Instant::now();
        let path = self.inbox(slab, depth % 2);
        let fail = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
        let mut file = (OpenOptions::new().create(true).append(true))
            .open(&path)
            .map_err(fail)?;
        // A batch at a time: its number of ranks and of bytes, then the gaps between its ranks.
        let mut bytes = Vec::new();
        for batch in ranks.chunks(IO_BYTES / 8) {
            bytes.clear();
            bytes.extend([0u8; 16]);
            gaps::encode(batch, &mut bytes);
            let len = bytes.len() as u64 - 16;
            bytes[..8].copy_from_slice(&(batch.len() as u64).to_le_bytes());
            bytes[8..16].copy_from_slice(&len.to_le_bytes());
            file.write_all(&bytes).map_err(fail)?;
            self.io.written += bytes.len() as u64;
        }
        self.pending[slab][(depth % 2) as usize] += ranks.len() as u64;
        self.io.seconds += started.elapsed().as_secs_f64();
        Ok(())
    }

    /// Calls `f` with the ranks of slab `slab`'s inbox for level `depth`, a batch at a time,
    /// then empties it.
    pub(super) fn receive(
        &mut self,
        slab: usize,
        depth: u64,
        f: &mut dyn FnMut(&[u64]),
    ) -> Result<(), String> {
        let parity = (depth % 2) as usize;
        if self.pending[slab][parity] == 0 {
            return Ok(());
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
        let mut at = 0;
        let mut bytes = Vec::new();
        while at < len {
            let started = Instant::now();
            let mut header = [0u8; 16];
            file.read_exact_at(&mut header, at).map_err(fail)?;
            let count = u64::from_le_bytes(header[..8].try_into().expect("8 bytes"));
            let n = u64::from_le_bytes(header[8..].try_into().expect("8 bytes"));
            if count > (IO_BYTES / 8) as u64 || n > 10 * count || at + 16 + n > len {
                return Err(damaged());
            }
            bytes.resize(n as usize, 0);
            file.read_exact_at(&mut bytes, at + 16).map_err(fail)?;
            self.io.read += 16 + n;
            self.io.seconds += started.elapsed().as_secs_f64();
            let mut ranks = Vec::with_capacity(count as usize);
            if !gaps::decode(&bytes, &mut ranks) || ranks.len() as u64 != count {
                return Err(damaged());
            }
            f(&ranks);
            at += 16 + n;
        }
        self.pending[slab][parity] = 0;
        self.remove(&path)
    }

    /// The table file of slab `slab` and the bits of its states of the next level, opened for
    /// reading pieces of them.
    pub(super) fn open_table(&self, slab: usize) -> Result<[File; 2], String> {
        let open = |path: PathBuf| {
            File::open(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
        };
        Ok([open(self.table_path(slab))?, open(self.next_path(slab))?])
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
        // On the disk, not in the page cache: the next read comes from the disk, as it must for
        // a table larger than memory.
        file.sync_data().map_err(fail)?;
        uncache(&file);
        self.io.seconds += started.elapsed().as_secs_f64();
        Ok(())
    }

    /// Removes every file of `slabs` slabs, and the folder where nothing else is left in it.
    pub(super) fn remove_all(&self, slabs: usize) -> Result<(), String> {
        for slab in 0..slabs {
            self.remove(&self.table_path(slab))?;
            self.remove(&self.next_path(slab))?;
            self.remove(&self.inbox(slab, 0))?;
            self.remove(&self.inbox(slab, 1))?;
        }
        let _ = std::fs::remove_dir(&self.folder);
        Ok(())
    }
}
