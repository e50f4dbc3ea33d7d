//! The table in compressed chunks: compressed in batches across the workers, within a memory
//! budget, and decompressed one chunk at a time.

use super::*;

/// Some of a table's chunks, compressed before any is written: each one's entry in the header,
/// and the frames kept in memory (the others are compressed again as they are written).
pub struct CompressedChunks {
    pub(super) chunks: Vec<usize>,
    pub(super) list: Vec<Chunk>,
    pub(super) kept: Vec<Option<Vec<u8>>>,
}

/// Compresses the file's chunks `chunks` (ascending) of a table of `entries` entries, whose
/// words `table` gives by their index in the whole table, keeping the frames that fit in
/// `frame_memory` bytes.
pub fn compress_chunks(
    table: &dyn TableView,
    entries: u64,
    chunks: Vec<usize>,
    frame_memory: u64,
) -> std::io::Result<CompressedChunks> {
    compress_some(&TableChunks::new(table, entries), chunks, frame_memory)
}

impl CompressedChunks {
    /// Each chunk's entry in the header, in the order of the chunks given.
    pub fn list(&self) -> &[Chunk] {
        &self.list
    }

    /// The chunks, as given.
    pub fn chunks(&self) -> &[usize] {
        &self.chunks
    }

    /// Writes the frames in order through `emit(chunk, frame)`; `table` and `entries` as given
    /// to [`compress_chunks`].
    pub fn write(
        mut self,
        table: &dyn TableView,
        entries: u64,
        emit: &mut impl FnMut(usize, &[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let table = TableChunks::new(table, entries);
        let size = batch_chunks(rayon::current_num_threads());
        for (b, batch) in self.chunks.chunks(size).enumerate() {
            let at = b * size;
            let again: Vec<usize> = (batch.iter().enumerate())
                .filter(|&(i, _)| self.kept[at + i].is_none())
                .map(|(_, &c)| c)
                .collect();
            let mut fresh = again
                .par_iter()
                .map(|&c| zstd::bulk::compress(&table.raw(c)?, ZSTD_LEVEL))
                .collect::<std::io::Result<Vec<_>>>()?
                .into_iter();
            for (i, &c) in batch.iter().enumerate() {
                match self.kept[at + i].take() {
                    Some(frame) => emit(c, &frame)?,
                    None => emit(
                        c,
                        &fresh.next().expect("one frame per chunk compressed again"),
                    )?,
                }
            }
        }
        Ok(())
    }
}

/// Chunks `chunks` of `table` compressed, keeping the frames that fit in `frame_memory`.
pub(super) fn compress_some(
    table: &TableChunks,
    chunks: Vec<usize>,
    frame_memory: u64,
) -> std::io::Result<CompressedChunks> {
    let mut kept = Vec::with_capacity(chunks.len());
    let mut list = Vec::with_capacity(chunks.len());
    let mut held = 0u64;
    let size = batch_chunks(rayon::current_num_threads());
    for batch in chunks.chunks(size) {
        for (frame, sha) in compress_batch(batch, |c| table.raw(c))? {
            list.push(Chunk {
                compressed_bytes: frame.len() as u64,
                sha256: sha,
            });
            held += frame.len() as u64;
            kept.push((held <= frame_memory).then_some(frame));
        }
    }
    Ok(CompressedChunks { chunks, list, kept })
}

/// A file table's bytes (`ceil(entries / 4)`) in chunks of [`CHUNK_ENTRIES`] entries, read
/// from a view that gives (at least) their words by their index in the whole table.
pub(super) struct TableChunks<'a> {
    pub(super) table: &'a dyn TableView,
    pub(super) entries: u64,
    pub(super) count: usize,
}

impl<'a> TableChunks<'a> {
    pub(super) fn new(table: &'a dyn TableView, entries: u64) -> Self {
        TableChunks {
            table,
            entries,
            count: entries.div_ceil(CHUNK_ENTRIES) as usize,
        }
    }

    /// Chunk `c`'s bytes.
    pub(super) fn raw(&self, c: usize) -> std::io::Result<Vec<u8>> {
        let words_per_chunk = (CHUNK_ENTRIES / ENTRIES_PER_WORD) as usize;
        let word_count = self.entries.div_ceil(ENTRIES_PER_WORD) as usize;
        let words = c * words_per_chunk..((c + 1) * words_per_chunk).min(word_count);
        let mut raw = Vec::new();
        self.table
            .append_le_bytes(words, &mut raw)
            .map_err(std::io::Error::other)?;
        // Entries past the end are padding: keep only the bytes that hold real entries.
        let total = self.entries.div_ceil(4);
        let first_byte = c as u64 * CHUNK_ENTRIES / 4;
        raw.truncate((total - first_byte).min(raw.len() as u64) as usize);
        Ok(raw)
    }
}

/// Chunks compressed or decompressed together by `threads` workers: several each, so that a
/// slow chunk does not hold the others up (one each cost 2.5% of Turnstyle 12's wall time), at
/// most `BATCH_CHUNKS` unless there are more workers.
pub fn batch_chunks(threads: usize) -> usize {
    (8 * threads).min(BATCH_CHUNKS).max(threads.max(1))
}

/// The most chunks in a batch on up to 16 workers: 16 chunks of 4 MiB and their frames, 128 MiB.
pub(super) const BATCH_CHUNKS: usize = 16;

/// Bytes a batch holds at most: each chunk's bytes and its frame (at most about as large).
pub fn batch_bytes(threads: usize) -> u64 {
    batch_chunks(threads) as u64 * 2 * CHUNK_ENTRIES / 4
}

/// Chunk ranges of one batch each, in order.
pub(super) fn batches(count: usize) -> impl Iterator<Item = std::ops::Range<usize>> {
    let size = batch_chunks(rayon::current_num_threads());
    (0..count)
        .step_by(size)
        .map(move |first| first..(first + size).min(count))
}

/// Compresses chunks `batch`, each given by `raw(c)`, in parallel: each frame and the SHA-256
/// of its uncompressed bytes.
pub(super) fn compress_batch(
    batch: &[usize],
    raw: impl Fn(usize) -> std::io::Result<Vec<u8>> + Sync,
) -> std::io::Result<Vec<(Vec<u8>, String)>> {
    batch
        .par_iter()
        .map(|&c| {
            let raw = raw(c)?;
            let sha = hex(&Sha256::digest(&raw));
            Ok((zstd::bulk::compress(&raw, ZSTD_LEVEL)?, sha))
        })
        .collect()
}

/// Decompresses one chunk's `frame` into exactly `want` bytes and checks them against the
/// header's checksum. Errors name chunk `i`.
pub(super) fn decompress_chunk(
    frame: &[u8],
    chunk: &Chunk,
    want: usize,
    i: usize,
) -> Result<Vec<u8>, String> {
    let data = zstd::bulk::decompress(frame, want)
        .map_err(|e| format!("chunk {i} does not decompress: {e}"))?;
    if data.len() != want {
        return Err(format!("chunk {i} holds {} bytes, not {want}", data.len()));
    }
    if hex(&Sha256::digest(&data)) != chunk.sha256 {
        return Err(format!("chunk {i} fails its SHA-256 checksum"));
    }
    Ok(data)
}
