//! The distances file of a search across the processes of an MPI job, each process writing its
//! chunks at their offsets.

use super::atomic::AtomicFile;
use super::{CHUNK_ENTRIES, Chunk};
use crate::search::cluster::{MpiJob, owner};
use crate::search::slab::{self, Slab};
use crate::table::{DistanceTable, ENTRIES_PER_WORD, TableView};
use std::io::Read;
use std::path::Path;

/// Writes the distances file `gsd` of a search across the processes of `cluster`, every
/// process from its slab's `table` (every process calls it): [`write_shared`], each process's
/// columns those of its slab.
pub fn write_distances(
    cluster: &MpiJob,
    slab: &Slab,
    table: &DistanceTable,
    entries: u64,
    header: impl FnOnce(Vec<Chunk>) -> std::io::Result<Vec<u8>>,
    gsd: &Path,
    frame_memory: u64,
) -> std::io::Result<Option<(AtomicFile, String)>> {
    let bounds = slab::bounds(slab.width, slab.count);
    let view = SlabWords {
        runs: slab.word_runs(),
        table,
        entries,
    };
    let columns = (&bounds[..], slab.width, slab.planes);
    write_shared(cluster, columns, &view, header, gsd, frame_memory)
}

/// Writes the distances file `gsd` of a table shared by the processes of `cluster` (every
/// process calls it): each holds a range of columns in every plane (`columns`: the first of
/// each process's, and the end; the planes' width; the planes), whose words `mine` reads by
/// their index in the whole table. A chunk of the file belongs to the process that holds its
/// first entry: the others send it their words of the chunk, and it compresses the chunk.
/// Process 0 gathers every chunk's entry, writes the header (which `header` makes from them)
/// into a temporary file and sends every chunk's offset; each process writes its frames there.
/// Process 0 returns the file, to be committed, and its SHA-256 (read back); the others
/// `None`. Fails with this process's error (the caller ends the job: the others wait in a
/// collective).
pub fn write_shared(
    cluster: &MpiJob,
    (bounds, width, planes): (&[u64], u64, u64),
    mine: &dyn TableView,
    header: impl FnOnce(Vec<Chunk>) -> std::io::Result<Vec<u8>>,
    gsd: &Path,
    frame_memory: u64,
) -> std::io::Result<Option<(AtomicFile, String)>> {
    use std::os::unix::fs::FileExt;
    let entries = mine.entries();
    let me = cluster.rank();
    let words_per_chunk = (CHUNK_ENTRIES / ENTRIES_PER_WORD) as usize;
    let chunk_owner = |c: usize| owner(bounds, (c as u64 * CHUNK_ENTRIES) % width);
    // This process's words, a run a plane: (the whole table's first word, words).
    let runs: Vec<(usize, usize)> = (0..planes)
        .filter(|_| bounds[me] < bounds[me + 1])
        .map(|p| {
            let start = (p * width + bounds[me]) / ENTRIES_PER_WORD;
            let words = (bounds[me + 1] - bounds[me]).div_ceil(ENTRIES_PER_WORD);
            (start as usize, words as usize)
        })
        .collect();
    let io = |e: String| std::io::Error::other(e);
    // This process's words of the chunks other processes own, to them: (first word, words,
    // the words) in the order of the whole table.
    let mut outgoing = vec![Vec::new(); cluster.size()];
    let mut bytes = Vec::new();
    for &(start, len) in &runs {
        let mut w = start;
        while w < start + len {
            let c = w / words_per_chunk;
            let end = (start + len).min((c + 1) * words_per_chunk);
            let owner = chunk_owner(c);
            if owner != me {
                bytes.clear();
                mine.append_le_bytes(w..end, &mut bytes).map_err(io)?;
                let piece = &mut outgoing[owner];
                piece.extend([w as u64, (end - w) as u64]);
                piece.extend(bytemuck::pod_collect_to_vec::<u8, u64>(&bytes));
            }
            w = end;
        }
    }
    let (received, _) = cluster.exchange(&outgoing);
    let mut pieces = Vec::new();
    let mut rest = &received[..];
    while let [start, len, tail @ ..] = rest {
        let (words, after) = tail.split_at(*len as usize);
        pieces.push((*start as usize, words.to_vec()));
        rest = after;
    }
    pieces.sort_unstable_by_key(|&(start, _)| start);
    let chunks: Vec<usize> = (0..entries.div_ceil(CHUNK_ENTRIES) as usize)
        .filter(|&c| chunk_owner(c) == me)
        .collect();
    let view = Assembled { mine, runs, pieces };
    let frames = super::compress_chunks(&view, entries, chunks, frame_memory)?;
    let listed: Vec<(usize, &Chunk)> = frames.chunks().iter().copied().zip(frames.list()).collect();
    let list = serde_json::to_vec(&listed).map_err(std::io::Error::other)?;
    let lists = cluster.gather_all(&list[..]);
    // Process 0 makes the header, the file and every chunk's offset; they and the file's name
    // go to all.
    let mut file = None;
    let mut start = Vec::new();
    if cluster.rank() == 0 {
        let mut all: Vec<(usize, Chunk)> = Vec::new();
        let stream =
            serde_json::Deserializer::from_slice(&lists).into_iter::<Vec<(usize, Chunk)>>();
        for part in stream {
            all.extend(part.map_err(std::io::Error::other)?);
        }
        all.sort_unstable_by_key(|&(c, _)| c);
        let lengths: Vec<u64> = all.iter().map(|(_, c)| c.compressed_bytes).collect();
        let bytes = header(all.into_iter().map(|(_, c)| c).collect())?;
        let mut f = AtomicFile::create(gsd)?;
        std::io::Write::write_all(f.writer(), &bytes)?;
        std::io::Write::flush(f.writer())?;
        let mut at = bytes.len() as u64;
        start.extend((lengths.len() as u64).to_le_bytes());
        for length in lengths {
            start.extend(at.to_le_bytes());
            at += length;
        }
        start.extend(std::os::unix::ffi::OsStrExt::as_bytes(
            f.temp_path().as_os_str(),
        ));
        file = Some(f);
    }
    let start = cluster.broadcast_bytes(start);
    let number =
        |i: usize| u64::from_le_bytes(start[8 * i..8 * i + 8].try_into().expect("8 bytes"));
    let count = number(0) as usize;
    let temp = Path::new(
        <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(&start[8 * (count + 1)..]),
    );
    let part = std::fs::OpenOptions::new().write(true).open(temp)?;
    frames.write(&view, entries, &mut |c, frame| {
        part.write_all_at(frame, number(c + 1))
    })?;
    part.sync_all()?;
    cluster.everywhere(Ok(()));
    let Some(file) = file else {
        return Ok(None);
    };
    // The checksum of the whole file, as it lies on the disk.
    let mut sha = <sha2::Sha256 as sha2::Digest>::new();
    let mut reader = std::fs::File::open(temp)?;
    let mut buffer = vec![0u8; 1 << 22];
    loop {
        let n = reader.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        sha2::Digest::update(&mut sha, &buffer[..n]);
    }
    Ok(Some((file, super::hex(&sha2::Digest::finalize(sha)))))
}

/// A process's slab's `table` read by the whole table's words (`runs`: [`Slab::word_runs`]).
struct SlabWords<'a> {
    runs: Vec<(usize, usize, usize)>,
    table: &'a DistanceTable,
    /// The whole table's entries.
    entries: u64,
}

impl TableView for SlabWords<'_> {
    fn entries(&self) -> u64 {
        self.entries
    }

    fn append_le_bytes(
        &self,
        words: std::ops::Range<usize>,
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        let run = self
            .runs
            .partition_point(|&(start, _, _)| start <= words.start);
        let &(start, local, len) = (run.checked_sub(1).map(|r| &self.runs[r]))
            .filter(|&&(start, _, len)| words.end <= start + len)
            .ok_or_else(|| format!("words {words:?} are not in this process's slab"))?;
        debug_assert!(words.end <= start + len);
        let from = local + words.start - start;
        self.table.append_le_bytes(from..from + words.len(), out)
    }
}

/// The words of the chunks a process owns, by their index in the whole table: its own (`mine`,
/// in `runs`: first word and words, ascending) and those the other processes sent (`pieces`:
/// first word and words, ascending).
struct Assembled<'a> {
    mine: &'a dyn TableView,
    runs: Vec<(usize, usize)>,
    pieces: Vec<(usize, Vec<u64>)>,
}

impl TableView for Assembled<'_> {
    fn entries(&self) -> u64 {
        self.mine.entries()
    }

    fn append_le_bytes(
        &self,
        words: std::ops::Range<usize>,
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        out.reserve(words.len() * 8);
        let mut w = words.start;
        while w < words.end {
            // From this process's run of words, or a piece another process sent.
            let run = self.runs.partition_point(|&(start, _)| start <= w);
            if let Some(&(start, len)) = run.checked_sub(1).map(|r| &self.runs[r])
                && w < start + len
            {
                let stop = words.end.min(start + len);
                self.mine.append_le_bytes(w..stop, out)?;
                w = stop;
                continue;
            }
            let p = self.pieces.partition_point(|(start, _)| *start <= w);
            let (start, piece) = (p.checked_sub(1).map(|p| &self.pieces[p]))
                .filter(|(start, piece)| w < start + piece.len())
                .ok_or_else(|| format!("word {w} of the table came from no process"))?;
            let stop = words.end.min(start + piece.len());
            (piece[w - start..stop - start].iter()).for_each(|x| out.extend(x.to_le_bytes()));
            w = stop;
        }
        Ok(())
    }
}
