//! Reading and writing the slabs' files: large pieces through a block-aligned buffer, with direct
//! I/O (`O_DIRECT`) where the file system allows, so that no copy stays in the page cache; and
//! the bytes and seconds that took ([`Io`]).

use crate::search::SearchError;
use crate::units::bytes;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;
use std::time::Instant;

/// Bytes a file is read or written in at a time (and the most an inbox batch holds): three
/// buffers of it move the slabs (one read, one written and its bytes), and an inbox batch takes
/// at most twice it (its bytes and its ranks).
pub const IO_BYTES: usize = 8 << 20;

/// Direct I/O moves whole blocks of this many bytes, at offsets and addresses that are multiples
/// of it.
pub(super) const BLOCK: usize = 4096;

/// A buffer of [`IO_BYTES`] and a block that starts on a block boundary.
pub(super) struct Aligned {
    bytes: Vec<u8>,
    start: usize,
}

impl Aligned {
    pub(super) fn new() -> Aligned {
        let bytes = vec![0u8; IO_BYTES + 2 * BLOCK];
        let start = bytes.as_ptr().align_offset(BLOCK);
        Aligned { bytes, start }
    }

    /// Its first `len` bytes.
    pub(super) fn get(&mut self, len: usize) -> &mut [u8] {
        &mut self.bytes[self.start..self.start + len]
    }
}

/// Opens `path` as `options` say, with direct I/O where its file system allows it; whether it
/// did.
pub(super) fn open(path: &Path, options: &OpenOptions) -> std::io::Result<(File, bool)> {
    match options.clone().custom_flags(libc::O_DIRECT).open(path) {
        Ok(file) => Ok((file, true)),
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => Ok((options.open(path)?, false)),
        Err(e) => Err(e),
    }
}

/// Creates `path` (empty) for writing, with direct I/O where its file system allows it;
/// whether it did.
pub(super) fn create(path: &Path) -> Result<(File, bool), String> {
    let options = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .clone();
    open(path, &options).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The bytes read and written, and the seconds it took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Io {
    /// Bytes read.
    pub read: u64,
    /// Bytes written.
    pub written: u64,
    /// Seconds spent reading and writing.
    pub seconds: f64,
}

/// Reads the first `len` bytes of `path` a piece at a time (no copy of the whole file in
/// memory), calling `store` with the first word of each piece and its bytes, and leaves none of
/// it in the page cache.
pub(super) fn read(
    path: &Path,
    len: u64,
    store: &mut dyn FnMut(usize, &[u8]),
) -> Result<Io, String> {
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
pub(super) fn write(
    path: &Path,
    words: usize,
    buffer: &mut Aligned,
    mut fill: impl FnMut(std::ops::Range<usize>, &mut Vec<u8>) -> Result<(), String>,
) -> Result<Io, SearchError> {
    let started = Instant::now();
    let (file, direct) = create(path)?;
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

/// Why writing `path` failed, with `left` bytes of it still to write: where its disk is full, a
/// [`SearchError::DiskFull`] naming the folder and those bytes (the job adds how to go on).
pub(super) fn write_error(path: &Path, e: std::io::Error, left: u64) -> SearchError {
    if e.raw_os_error() != Some(libc::ENOSPC) {
        return format!("cannot write {}: {e}", path.display()).into();
    }
    let folder = path.parent().unwrap_or(Path::new("."));
    SearchError::DiskFull(format!(
        "the disk of the slab folder {} is full: {} more are needed to write {} alone; free some space",
        folder.display(),
        bytes(left),
        path.file_name().unwrap_or_default().to_string_lossy()
    ))
}

/// Drops `file`'s pages from the page cache (its writes already on the disk): the slabs are
/// read from the disk each time, as a table larger than memory is.
pub(super) fn uncache(file: &File) {
    use std::os::fd::AsRawFd;
    // SAFETY: a plain system call on an open descriptor; advice only, it changes no data.
    unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
}
