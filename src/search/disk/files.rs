//! The disk engine's files in its folder: each slab's table (2 bits an entry), the bits of the
//! states of the next level found in it so far, and its inboxes (the ranks of the next level and
//! of the one after that other slabs found in it, applied when it is next loaded); and the
//! bytes they moved.
//!
//! Tables and bitmaps move with direct I/O (`O_DIRECT`) where the file system allows: between
//! the disk and a block-aligned buffer, with no copy into the page cache and none kept there, as
//! a table larger than memory would see it. Elsewhere (tmpfs, say) they are written, synced and
//! dropped from the page cache instead. Their files are padded to whole blocks. A slab is
//! written on a thread of its own while the engine goes on with the next ([`SlabFiles::write`]).

use crate::search::bitmap::Bitmap;
use crate::search::slab::gaps;
use crate::table::{DistanceTable, TableView};
use crate::units::bytes;
use rayon::prelude::*;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::Instant;

/// Bytes a file is read or written in at a time (and the most an inbox batch holds): three
/// buffers of it move the slabs (one read, one written and its bytes), and an inbox batch takes
/// at most twice it (its bytes and its ranks).
pub const IO_BYTES: usize = 8 << 20;

/// Direct I/O moves whole blocks of this many bytes, at offsets and addresses that are multiples
/// of it.
const BLOCK: usize = 4096;

/// A buffer of [`IO_BYTES`] that starts on a block boundary.
struct Aligned {
    bytes: Vec<u8>,
    start: usize,
}

impl Aligned {
    fn new() -> Aligned {
        let bytes = vec![0u8; IO_BYTES + BLOCK];
        let start = bytes.as_ptr().align_offset(BLOCK);
        Aligned { bytes, start }
    }

    /// Its first `len` bytes.
    fn get(&mut self, len: usize) -> &mut [u8] {
        &mut self.bytes[self.start..self.start + len]
    }
}

/// Opens `path` as `options` say, with direct I/O where its file system allows it; whether it
/// did.
fn open(path: &Path, options: &OpenOptions) -> std::io::Result<(File, bool)> {
    match options.clone().custom_flags(libc::O_DIRECT).open(path) {
        Ok(file) => Ok((file, true)),
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => Ok((options.open(path)?, false)),
        Err(e) => Err(e),
    }
}

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

/// A slab's table and bitmap as written, the bytes that took and the buffer they went through.
struct Written {
    table: DistanceTable,
    next: Bitmap,
    io: Io,
    buffer: Aligned,
}

/// Reads the first `len` bytes of `path` a piece at a time (no copy of the whole file in
/// memory), calling `store` with the first word of each piece and its bytes, and leaves none of
/// it in the page cache.
fn read(path: &Path, len: u64, store: &mut dyn FnMut(usize, &[u8])) -> Result<Io, String> {
    let started = Instant::now();
    let fail = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
    let (file, direct) = open(path, OpenOptions::new().read(true)).map_err(fail)?;
    let mut buffer = Aligned::new();
    let mut at = 0;
    while at < len {
        let n = IO_BYTES.min((len - at) as usize);
        let piece = buffer.get(n.next_multiple_of(BLOCK));
        let mut got = 0;
        while got < piece.len() {
            match file
                .read_at(&mut piece[got..], at + got as u64)
                .map_err(fail)?
            {
                0 => break,
                more => got += more,
            }
        }
        if got < n {
            return Err(format!(
                "{} is shorter than its slab: remove its folder and start again",
                path.display()
            ));
        }
        store((at / 8) as usize, &piece[..n]);
        at += n as u64;
    }
    if !direct {
        uncache(&file);
    }
    Ok(Io {
        read: len.next_multiple_of(BLOCK as u64),
        written: 0,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Writes `words` words to `path` (padded to whole blocks) through `buffer`, `fill` appending
/// the bytes of each range of them; the bytes written and the seconds it took.
fn write(
    path: &Path,
    words: usize,
    buffer: &mut Aligned,
    mut fill: impl FnMut(std::ops::Range<usize>, &mut Vec<u8>) -> Result<(), String>,
) -> Result<Io, String> {
    let started = Instant::now();
    let fail = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    let options = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .clone();
    let (file, direct) = open(path, &options).map_err(fail)?;
    let per = IO_BYTES / 8;
    let mut bytes = Vec::with_capacity(IO_BYTES.min(8 * words));
    let mut at = 0;
    for start in (0..words).step_by(per) {
        bytes.clear();
        fill(start..(start + per).min(words), &mut bytes)?;
        let piece = buffer.get(bytes.len().next_multiple_of(BLOCK));
        piece[..bytes.len()].copy_from_slice(&bytes);
        piece[bytes.len()..].fill(0);
        let left = (8 * words as u64).next_multiple_of(BLOCK as u64) - at;
        file.write_all_at(piece, at)
            .map_err(|e| write_error(path, e, left))?;
        at += piece.len() as u64;
    }
    // On the disk, not in the page cache: the next read comes from the disk, as it must for a
    // table larger than memory.
    file.sync_data().map_err(|e| write_error(path, e, at))?;
    if !direct {
        uncache(&file);
    }
    Ok(Io {
        read: 0,
        written: at,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// How a message that the slab folder's disk is full ends; the job adds how to go on.
pub const FREE_SOME_SPACE: &str = "free some space";

/// Why writing `path` failed, with `left` bytes of it still to write: where its disk is full,
/// the folder and those bytes.
fn write_error(path: &Path, e: std::io::Error, left: u64) -> String {
    if e.raw_os_error() != Some(libc::ENOSPC) {
        return format!("cannot write {}: {e}", path.display());
    }
    let folder = path.parent().unwrap_or(Path::new("."));
    format!(
        "the disk of the slab folder {} is full: {} more are needed to write {} alone; {FREE_SOME_SPACE}",
        folder.display(),
        bytes(left),
        path.file_name().unwrap_or_default().to_string_lossy()
    )
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
    /// The buffer of writes (with the slab being written while it is).
    buffer: Option<Aligned>,
    /// An inbox batch's bytes and its ranks, kept from batch to batch.
    batch: Vec<u8>,
    ranks: Vec<u64>,
    /// The slab being written, in the background ([`SlabFiles::write`]).
    behind: Option<(usize, JoinHandle<Result<Written, String>>)>,
    /// Tables and bitmaps of slabs done with, for the next ones (at most one table and two
    /// bitmaps: what a pass takes at a time).
    spare_tables: Vec<DistanceTable>,
    spare_bits: Vec<Bitmap>,
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
            buffer: Some(Aligned::new()),
            behind: None,
            batch: Vec::new(),
            ranks: Vec::new(),
            spare_tables: Vec::new(),
            spare_bits: Vec::new(),
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
    /// entries), into memory kept from earlier slabs where there is some: a job for any thread,
    /// which the engine counts ([`SlabFiles::count`]).
    pub(super) fn reader(
        &mut self,
        slab: usize,
        entries: u64,
    ) -> impl FnOnce() -> Result<Loaded, String> + Send + 'static {
        let (table_path, next_path) = (self.table_path(slab), self.next_path(slab));
        let table = match self.spare_tables.pop() {
            Some(spare) => spare.reused(entries),
            None => DistanceTable::new(entries),
        };
        let next = self.bits(entries);
        move || {
            let len = DistanceTable::bytes_for(entries);
            let mut io = read(&table_path, len, &mut |word, bytes| {
                table.store_le_bytes(word, bytes)
            })?;
            let bits = 8 * next.word_count() as u64;
            let more = read(&next_path, bits, &mut |word, bytes| {
                next.store_le_bytes(word, bytes)
            })?;
            io.read += more.read;
            io.seconds += more.seconds;
            Ok(Loaded { table, next, io })
        }
    }

    /// A bitmap of `len` ranks, from the memory of earlier slabs where there is some, whose
    /// words the caller stores or clears.
    pub(super) fn bits(&mut self, len: u64) -> Bitmap {
        match self.spare_bits.pop() {
            Some(spare) => spare.reused(len),
            None => Bitmap::new(len),
        }
    }

    /// Keeps a slab's bitmap for the next slabs: reading into memory already mapped saves the
    /// kernel zeroing fresh pages (a slab's tables and bitmaps are kept as they are written).
    pub(super) fn keep_bits(&mut self, bits: Bitmap) {
        self.spare_bits.push(bits);
        // A pass needs two at a time (the next slab's, and its own next level); keep no more.
        self.spare_bits.truncate(2);
    }

    /// A table of `entries` unreached entries, in the memory of earlier slabs where there is
    /// some.
    pub(super) fn unreached_table(&mut self, entries: u64) -> DistanceTable {
        match self.spare_tables.pop() {
            Some(spare) => {
                let table = spare.reused(entries);
                (0..table.word_count())
                    .into_par_iter()
                    .for_each(|w| table.store_word(w, u64::MAX));
                table
            }
            None => DistanceTable::new(entries),
        }
    }

    /// Lets go of the memory kept for the next slabs.
    pub(super) fn let_go(&mut self) {
        self.spare_tables = Vec::new();
        self.spare_bits = Vec::new();
    }

    /// Counts the bytes read by a [`SlabFiles::reader`].
    pub(super) fn count(&mut self, io: Io) {
        self.io.read += io.read;
        self.io.written += io.written;
        self.io.seconds += io.seconds;
    }

    /// Writes slab `slab`'s table and the bits of its states of the next level in the
    /// background, once the write before has finished (the memory it wrote is kept for the next
    /// slabs); [`SlabFiles::flush`] waits for it.
    pub(super) fn write(
        &mut self,
        slab: usize,
        table: DistanceTable,
        next: Bitmap,
    ) -> Result<(), String> {
        self.flush()?;
        let (table_path, next_path) = (self.table_path(slab), self.next_path(slab));
        let mut buffer = self.buffer.take().unwrap_or_else(Aligned::new);
        let job = move || -> Result<Written, String> {
            let mut io = write(
                &table_path,
                table.word_count(),
                &mut buffer,
                |range, out| table.append_le_bytes(range, out),
            )?;
            let more = write(&next_path, next.word_count(), &mut buffer, |range, out| {
                for w in range {
                    out.extend_from_slice(&next.word(w).to_le_bytes());
                }
                Ok(())
            })?;
            io.written += more.written;
            io.seconds += more.seconds;
            Ok(Written {
                table,
                next,
                io,
                buffer,
            })
        };
        let handle = std::thread::Builder::new()
            .name(format!("slab-{slab}-writer"))
            .spawn(job)
            .map_err(|e| format!("cannot start writing slab {slab}: {e}"))?;
        self.behind = Some((slab, handle));
        Ok(())
    }

    /// Waits for the slab being written, if any: its bytes are counted and its memory kept for
    /// the next slabs.
    pub(super) fn flush(&mut self) -> Result<(), String> {
        let Some((slab, handle)) = self.behind.take() else {
            return Ok(());
        };
        let written = (handle.join()).map_err(|_| format!("writing slab {slab} failed"))??;
        self.count(written.io);
        self.buffer = Some(written.buffer);
        // A pass reads one slab at a time into them; keep no more.
        self.spare_tables.push(written.table);
        self.spare_tables.truncate(1);
        self.keep_bits(written.next);
        Ok(())
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
        let full = |e: std::io::Error, n: usize| write_error(&path, e, n as u64);
        // A batch at a time: its number of ranks and of bytes, then the gaps between its ranks.
        let bytes = &mut self.batch;
        for batch in ranks.chunks(IO_BYTES / 8) {
            bytes.clear();
            bytes.extend([0u8; 16]);
            gaps::encode(batch, bytes);
            let len = bytes.len() as u64 - 16;
            bytes[..8].copy_from_slice(&(batch.len() as u64).to_le_bytes());
            bytes[8..16].copy_from_slice(&len.to_le_bytes());
            file.write_all(bytes).map_err(|e| full(e, bytes.len()))?;
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
        let (bytes, ranks) = (&mut self.batch, &mut self.ranks);
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
            file.read_exact_at(bytes, at + 16).map_err(fail)?;
            self.io.read += 16 + n;
            self.io.seconds += started.elapsed().as_secs_f64();
            ranks.clear();
            if !gaps::decode(bytes, ranks) || ranks.len() as u64 != count {
                return Err(damaged());
            }
            f(ranks);
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
