//! The distances file (`distances.gsd`): the 2-bit table, zstd-compressed in independent chunks.
//!
//! Layout (all integers little-endian):
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `GSD2BIT\n` |
//! | 4 | format version, `1` |
//! | 4 | `H`, the header length |
//! | H | the header: UTF-8 JSON ([`Header`]) |
//! | ... | the chunks, back to back, each one zstd frame |
//!
//! Uncompressed, the chunks concatenated are the table: entry `r` (2 bits) is at bits
//! `2*(r % 4)` of byte `r / 4`; value 3 = unreached, otherwise the distance mod 3. Every chunk
//! but the last holds `chunk_entries` entries; the header lists each chunk's compressed length
//! and the SHA-256 of its uncompressed bytes.

pub mod atomic;
#[cfg(feature = "mpi")]
pub mod cluster;

use crate::puzzle::PuzzleInfo;
use crate::search::levels::{Levels, Written};
use crate::search::slab::Slab;
use crate::table::{DistanceTable, ENTRIES_PER_WORD, LOW_BITS, TableSource, TableView, matches};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::path::Path;

/// The first eight bytes of every distances file.
pub const MAGIC: &[u8; 8] = b"GSD2BIT\n";
/// The format version this code writes and reads.
pub const VERSION: u32 = 1;
/// Entries per chunk (4 MiB uncompressed).
pub const CHUNK_ENTRIES: u64 = 1 << 24;
/// The zstd level: the fastest; levels 1 and 3 give the same size on these tables (N=12 lrf:
/// 96.0 MB from 119.8 MB, frames of 95,992,178 and 95,992,123 bytes) and level 3 takes 50%
/// longer.
const ZSTD_LEVEL: i32 = 1;

/// The file's JSON header.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// Always `gpusearch distances`.
    pub format: String,
    /// What the table is a table of.
    #[serde(flatten)]
    pub puzzle: PuzzleInfo,
    /// The rank of the solved state (distance 0).
    pub solved_rank: u64,
    /// Every rank at distance 0, where a puzzle has several solved states (else absent).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub solved_ranks: Vec<u64>,
    /// Number of entries (ranks).
    pub entries: u64,
    /// How entries are packed, in words.
    pub encoding: String,
    /// States at each distance, as the search counted them (`levels`, or `level_runs` when
    /// long).
    #[serde(flatten)]
    pub levels: Written,
    /// Always `zstd`.
    pub compression: String,
    /// Entries per chunk (the last chunk may hold fewer).
    pub chunk_entries: u64,
    /// One per chunk, in order.
    pub chunks: Vec<Chunk>,
}

/// One chunk's entry in the header.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    /// Length of the compressed frame in bytes.
    pub compressed_bytes: u64,
    /// SHA-256 of the uncompressed chunk, lowercase hex.
    pub sha256: String,
}

const ENCODING: &str = "2 bits per entry; entry r at bits 2*(r%4) of byte r/4 of the uncompressed table; 3 = unreached, otherwise distance mod 3; padding after the last entry holds 3";

/// Writes the table as a distances file to `out`; returns the SHA-256 of everything written.
///
/// The header lists every chunk's compressed length, so it can only be written once all chunks
/// are compressed. `frame_memory` bounds the compressed frames held meanwhile: the frames that
/// fit are kept from the first compression, the others are compressed a second time while the
/// file is written (the same bytes: compression is deterministic). With room for all, the table
/// is compressed once.
pub fn write(
    out: &mut impl Write,
    puzzle: &PuzzleInfo,
    starts: &[u64],
    levels: &Levels,
    table: &dyn TableView,
    frame_memory: u64,
) -> std::io::Result<String> {
    let chunks = TableChunks::new(table, table.entries());
    let frames = compress_some(&chunks, (0..chunks.count).collect(), frame_memory)?;
    let header = header(
        puzzle,
        starts,
        levels,
        table.entries(),
        frames.list().to_vec(),
    )?;
    let mut sha = Sha256::new();
    let mut emit = |bytes: &[u8]| -> std::io::Result<()> {
        sha.update(bytes);
        out.write_all(bytes)
    };
    emit(&header)?;
    frames.write(table, table.entries(), &mut |_, frame| emit(frame))?;
    Ok(hex(&sha.finalize()))
}

/// The start of a distances file: magic, version, the header's length and the header, whose
/// chunk list is `chunks`.
pub fn header(
    puzzle: &PuzzleInfo,
    starts: &[u64],
    levels: &Levels,
    entries: u64,
    chunks: Vec<Chunk>,
) -> std::io::Result<Vec<u8>> {
    let header = Header {
        format: "gpusearch distances".into(),
        puzzle: puzzle.clone(),
        solved_rank: starts[0],
        solved_ranks: if starts.len() > 1 {
            starts.to_vec()
        } else {
            Vec::new()
        },
        entries,
        encoding: ENCODING.into(),
        levels: Written::from(levels),
        compression: "zstd".into(),
        chunk_entries: CHUNK_ENTRIES,
        chunks,
    };
    let json = serde_json::to_vec_pretty(&header).map_err(std::io::Error::other)?;
    let mut bytes = Vec::with_capacity(PREAMBLE + json.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&VERSION.to_le_bytes());
    bytes.extend_from_slice(&(json.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&json);
    Ok(bytes)
}

/// Some of a table's chunks, compressed before any is written: each one's entry in the header,
/// and the frames kept in memory (the others are compressed again as they are written).
pub struct CompressedChunks {
    chunks: Vec<usize>,
    list: Vec<Chunk>,
    kept: Vec<Option<Vec<u8>>>,
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
fn compress_some(
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
struct TableChunks<'a> {
    table: &'a dyn TableView,
    entries: u64,
    count: usize,
}

impl<'a> TableChunks<'a> {
    fn new(table: &'a dyn TableView, entries: u64) -> Self {
        TableChunks {
            table,
            entries,
            count: entries.div_ceil(CHUNK_ENTRIES) as usize,
        }
    }

    /// Chunk `c`'s bytes.
    fn raw(&self, c: usize) -> std::io::Result<Vec<u8>> {
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
/// most [`BATCH_CHUNKS`] unless there are more workers.
pub fn batch_chunks(threads: usize) -> usize {
    (8 * threads).min(BATCH_CHUNKS).max(threads.max(1))
}

/// The most chunks in a batch on up to 16 workers: 16 chunks of 4 MiB and their frames, 128 MiB.
const BATCH_CHUNKS: usize = 16;

/// Bytes a batch holds at most: each chunk's bytes and its frame (at most about as large).
pub fn batch_bytes(threads: usize) -> u64 {
    batch_chunks(threads) as u64 * 2 * CHUNK_ENTRIES / 4
}

/// Chunk ranges of one batch each, in order.
fn batches(count: usize) -> impl Iterator<Item = std::ops::Range<usize>> {
    let size = batch_chunks(rayon::current_num_threads());
    (0..count)
        .step_by(size)
        .map(move |first| first..(first + size).min(count))
}

/// Compresses chunks `batch`, each given by `raw(c)`, in parallel: each frame and the SHA-256
/// of its uncompressed bytes.
fn compress_batch(
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
fn decompress_chunk(frame: &[u8], chunk: &Chunk, want: usize, i: usize) -> Result<Vec<u8>, String> {
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

/// The fixed part before a header: magic, version and header length.
const PREAMBLE: usize = 16;

/// Checks the preamble of a file (`what` names its kind) and returns the header length.
fn preamble(bytes: &[u8], magic: &[u8; 8], version: u32, what: &str) -> Result<usize, String> {
    if bytes.len() < 8 || &bytes[..8] != magic {
        return Err(if bytes.is_empty() {
            format!("the file is empty, not a gpusearch {what} file")
        } else if bytes.len() < 8 && magic.starts_with(bytes) {
            format!("the file is cut short after {} bytes", bytes.len())
        } else {
            format!("not a gpusearch {what} file (bad magic)")
        });
    }
    if bytes.len() < PREAMBLE {
        return Err(format!("the file is cut short after {} bytes", bytes.len()));
    }
    let found = u32::from_le_bytes(bytes[8..12].try_into().unwrap_or_default());
    if found != version {
        return Err(format!(
            "{what} file format version {found}; this gpusearch reads version {version}"
        ));
    }
    Ok(u32::from_le_bytes(bytes[12..16].try_into().unwrap_or_default()) as usize)
}

/// A distances file opened for reading chunk by chunk: its header, and where each chunk is.
pub struct Distances {
    /// The header.
    pub header: Header,
    frames: Frames,
}

/// The chunks of a file (a distances file or a checkpoint), each one zstd frame: where each is,
/// and what it must decompress to.
struct Frames {
    file: std::fs::File,
    /// Each chunk's first byte in the file.
    offsets: Vec<u64>,
    /// Each chunk's compressed length and checksum.
    chunks: Vec<Chunk>,
    /// Table entries in all.
    entries: u64,
    /// Entries per chunk.
    chunk_entries: u64,
}

impl Frames {
    /// The frames of `chunks`, back to back in `file` from byte `start` to exactly `end`.
    fn new(
        file: std::fs::File,
        chunks: Vec<Chunk>,
        (start, end): (u64, u64),
        entries: u64,
        chunk_entries: u64,
    ) -> Result<Frames, String> {
        // At most the chunks this gpusearch writes: a chunk is decompressed whole, into memory.
        if chunk_entries == 0
            || chunk_entries > CHUNK_ENTRIES
            || !chunk_entries.is_multiple_of(ENTRIES_PER_WORD)
        {
            return Err(format!(
                "the header's chunk_entries ({chunk_entries}) is not a multiple of 32 from 32 to {CHUNK_ENTRIES}"
            ));
        }
        let total = entries.div_ceil(4);
        let chunk_bytes = chunk_entries / 4;
        if chunks.len() as u64 != total.div_ceil(chunk_bytes) {
            return Err(format!(
                "the header lists {} chunks of {chunk_bytes} bytes for {total} bytes",
                chunks.len()
            ));
        }
        let mut offsets = Vec::with_capacity(chunks.len());
        let mut at = start;
        for (i, chunk) in chunks.iter().enumerate() {
            offsets.push(at);
            at = (at.checked_add(chunk.compressed_bytes))
                .filter(|&at| at <= end)
                .ok_or_else(|| format!("chunk {i} is cut short"))?;
        }
        if at != end {
            return Err(format!(
                "{} unexpected bytes after the last chunk",
                end - at
            ));
        }
        Ok(Frames {
            file,
            offsets,
            chunks,
            entries,
            chunk_entries,
        })
    }

    /// Chunk `c`'s compressed frame as stored.
    fn frame(&self, c: usize) -> Result<Vec<u8>, String> {
        use std::os::unix::fs::FileExt;
        let mut frame = vec![0u8; self.chunks[c].compressed_bytes as usize];
        self.file
            .read_exact_at(&mut frame, self.offsets[c])
            .map_err(|e| format!("cannot read chunk {c}: {e}"))?;
        Ok(frame)
    }

    /// Decompresses and checks chunk `c` from its frame.
    fn unpack(&self, c: usize, frame: &[u8]) -> Result<Vec<u8>, String> {
        let total = self.entries.div_ceil(4);
        let chunk_bytes = self.chunk_entries / 4;
        let want = (total - c as u64 * chunk_bytes).min(chunk_bytes) as usize;
        decompress_chunk(frame, &self.chunks[c], want, c)
    }

    /// Every chunk in order, decompressed and checked several at a time in parallel:
    /// `each(c, bytes)` for each, stopping at the first error (the one of the lowest chunk).
    fn for_each_chunk(
        &self,
        each: impl Fn(usize, &[u8]) -> Result<(), String> + Sync,
    ) -> Result<(), String> {
        for batch in batches(self.offsets.len()) {
            let frames = batch
                .clone()
                .map(|c| self.frame(c))
                .collect::<Result<Vec<_>, String>>()?;
            let done: Vec<Result<(), String>> = frames
                .par_iter()
                .zip(batch)
                .map(|(frame, c)| each(c, &self.unpack(c, frame)?))
                .collect();
            done.into_iter().collect::<Result<(), String>>()?;
        }
        Ok(())
    }

    /// The whole table, read chunk by chunk into one table.
    fn table(&self) -> Result<DistanceTable, String> {
        let table = DistanceTable::new(self.entries);
        let words_per_chunk = (self.chunk_entries / ENTRIES_PER_WORD) as usize;
        self.for_each_chunk(|c, bytes| {
            table.store_le_bytes(c * words_per_chunk, bytes);
            Ok(())
        })?;
        Ok(table)
    }
}

impl Distances {
    /// Opens `path`: checks the magic, the version, the header and that the chunks it lists
    /// fill the rest of the file exactly.
    pub fn open(path: &Path) -> Result<Distances, String> {
        let mut file = std::fs::File::open(path).map_err(|e| format!("cannot open it: {e}"))?;
        let len = file
            .metadata()
            .map_err(|e| format!("cannot read it: {e}"))?
            .len();
        let mut start = vec![0u8; (len as usize).min(PREAMBLE)];
        file.read_exact(&mut start)
            .map_err(|e| format!("cannot read it: {e}"))?;
        let header_len = preamble(&start, MAGIC, VERSION, "distances")?;
        if (PREAMBLE + header_len) as u64 > len {
            return Err("the header is cut short".into());
        }
        let mut json = vec![0u8; header_len];
        file.read_exact(&mut json)
            .map_err(|e| format!("cannot read it: {e}"))?;
        let header: Header =
            serde_json::from_slice(&json).map_err(|e| format!("the header is not valid: {e}"))?;
        check_levels(&header.levels, header.entries)?;
        let body = (PREAMBLE + header_len) as u64;
        let frames = Frames::new(
            file,
            header.chunks.clone(),
            (body, len),
            header.entries,
            header.chunk_entries,
        )?;
        Ok(Distances { header, frames })
    }

    /// Number of chunks.
    pub fn chunk_count(&self) -> usize {
        self.frames.offsets.len()
    }

    /// The first rank of chunk `c`.
    pub fn first_rank(&self, c: usize) -> u64 {
        c as u64 * self.header.chunk_entries
    }

    /// The chunk holding `rank`.
    pub fn chunk_of(&self, rank: u64) -> usize {
        (rank / self.header.chunk_entries) as usize
    }

    /// Chunk `c`'s uncompressed bytes, checked against its checksum.
    pub fn chunk(&self, c: usize) -> Result<Vec<u8>, String> {
        let frame = self.frames.frame(c)?;
        self.frames.unpack(c, &frame)
    }

    /// Every chunk in order, decompressed and checked several at a time in parallel:
    /// `each(c, bytes)` for each, stopping at the first error (the one of the lowest chunk).
    pub fn for_each_chunk(
        &self,
        each: impl Fn(usize, &[u8]) -> Result<(), String> + Sync,
    ) -> Result<(), String> {
        self.frames.for_each_chunk(each)
    }

    /// The whole table, read chunk by chunk into one table.
    pub fn table(&self) -> Result<DistanceTable, String> {
        self.frames.table()
    }
}

/// A distances file's entries read on demand: only the chunks asked for are decompressed, and
/// the last few are kept.
pub struct ChunkCache {
    file: Distances,
    /// (chunk, bytes), the most recently used last.
    kept: Vec<(usize, Vec<u8>)>,
}

/// Chunks a [`ChunkCache`] keeps decompressed (4 MiB each).
const CACHED_CHUNKS: usize = 16;

impl ChunkCache {
    /// Entries of `file`, read chunk by chunk.
    pub fn new(file: Distances) -> ChunkCache {
        ChunkCache {
            file,
            kept: Vec::new(),
        }
    }

    /// The file's header.
    pub fn header(&self) -> &Header {
        &self.file.header
    }
}

impl crate::puzzle::path::Entries for ChunkCache {
    fn entry(&mut self, rank: u64) -> Result<u8, String> {
        if rank >= self.file.header.entries {
            return Err(format!(
                "rank {rank} is past the table's {} entries",
                self.file.header.entries
            ));
        }
        let c = self.file.chunk_of(rank);
        let at = match self.kept.iter().position(|(k, _)| *k == c) {
            Some(i) => {
                let hit = self.kept.remove(i);
                self.kept.push(hit);
                self.kept.len() - 1
            }
            None => {
                if self.kept.len() == CACHED_CHUNKS {
                    self.kept.remove(0);
                }
                self.kept.push((c, self.file.chunk(c)?));
                self.kept.len() - 1
            }
        };
        let offset = rank - self.file.first_rank(c);
        let byte = self.kept[at].1[(offset / 4) as usize];
        Ok((byte >> (2 * (offset % 4))) & 3)
    }
}

/// Reads a distances file: its header, and its table with every chunk's checksum checked.
/// Errors name the file.
pub fn read(path: &Path) -> Result<(Header, DistanceTable), String> {
    let named = |e: String| format!("{}: {e}", path.display());
    let file = Distances::open(path).map_err(named)?;
    let table = file.table().map_err(named)?;
    Ok((file.header, table))
}

/// Checks the levels of a file's header against its table of `entries` entries: at least one
/// level, none empty, and no more states in all than entries (so that no sum over them
/// overflows, and no walk over them runs longer than the table).
fn check_levels(written: &Written, entries: u64) -> Result<(), String> {
    let runs: Vec<(u64, u64)> = match (&written.levels, &written.level_runs) {
        (Some(list), _) => list.iter().map(|&count| (count, 1)).collect(),
        (None, Some(runs)) => (runs.iter())
            .filter(|r| r.repeat > 0)
            .map(|r| (r.count, r.repeat))
            .collect(),
        (None, None) => Vec::new(),
    };
    if runs.is_empty() {
        return Err("the header lists no levels".into());
    }
    let mut total = 0u64;
    for (count, repeat) in runs {
        if count == 0 {
            return Err("the header lists a level of no states".into());
        }
        total = (count.checked_mul(repeat))
            .and_then(|states| total.checked_add(states))
            .filter(|&total| total <= entries)
            .ok_or_else(|| {
                format!("the header's levels hold more states than its {entries} entries")
            })?;
    }
    Ok(())
}

/// The first eight bytes of every checkpoint file.
pub const CHECKPOINT_MAGIC: &[u8; 8] = b"GSCHKPT\n";
/// The last eight bytes of every checkpoint file.
const CHECKPOINT_END: &[u8; 8] = b"GSCHEND\n";
/// The checkpoint format version this code writes and reads.
pub const CHECKPOINT_VERSION: u32 = 2;

/// A checkpoint's JSON header: what it is a checkpoint of, and how far the search got.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckpointHeader {
    /// Always `gpusearch checkpoint`.
    pub format: String,
    /// The puzzle.
    #[serde(flatten)]
    pub puzzle: PuzzleInfo,
    /// Table entries (of the slab, in a process's checkpoint of an MPI job).
    pub entries: u64,
    /// The part of the table this checkpoint holds, in a process's checkpoint of an MPI job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slab: Option<Slab>,
    /// The levels found so far.
    #[serde(flatten)]
    pub levels: Written,
    /// Seconds of search up to the checkpoint (all runs of it together).
    pub seconds: f64,
    /// The smallest ranks of the last level found.
    pub antipodes: Vec<u64>,
    /// Entries per chunk.
    pub chunk_entries: u64,
}

/// Writes a checkpoint (of the table, or of a process's `slab` of it): the table after a level,
/// the levels so far and that level's smallest ranks, in one pass over the table. Layout: magic, version, header length and JSON header
/// ([`CheckpointHeader`]), the table's chunks as zstd frames, then the chunk list (JSON, as a
/// distances header's `chunks`), its length (8 bytes) and the end magic `GSCHEND\n`.
pub fn write_checkpoint(
    out: &mut impl Write,
    puzzle: &PuzzleInfo,
    slab: Option<&Slab>,
    levels: &Levels,
    seconds: f64,
    antipodes: &[u64],
    table: &dyn TableView,
) -> std::io::Result<()> {
    let header = CheckpointHeader {
        format: "gpusearch checkpoint".into(),
        puzzle: puzzle.clone(),
        entries: table.entries(),
        slab: slab.cloned(),
        levels: Written::from(levels),
        seconds,
        antipodes: antipodes.to_vec(),
        chunk_entries: CHUNK_ENTRIES,
    };
    let json = serde_json::to_vec_pretty(&header).map_err(std::io::Error::other)?;
    out.write_all(CHECKPOINT_MAGIC)?;
    out.write_all(&CHECKPOINT_VERSION.to_le_bytes())?;
    out.write_all(&(json.len() as u32).to_le_bytes())?;
    out.write_all(&json)?;
    let chunks = TableChunks::new(table, table.entries());
    let mut list = Vec::with_capacity(chunks.count);
    for batch in batches(chunks.count) {
        let batch: Vec<usize> = batch.collect();
        for (frame, sha) in compress_batch(&batch, |c| chunks.raw(c))? {
            out.write_all(&frame)?;
            list.push(Chunk {
                compressed_bytes: frame.len() as u64,
                sha256: sha,
            });
        }
    }
    let trailer = serde_json::to_vec(&list).map_err(std::io::Error::other)?;
    out.write_all(&trailer)?;
    out.write_all(&(trailer.len() as u64).to_le_bytes())?;
    out.write_all(CHECKPOINT_END)
}

/// Opens a checkpoint: its header, checked by `check`, and its table, read chunk by chunk (each
/// checked) as it is asked for.
pub fn open_checkpoint(
    path: &Path,
    check: impl FnOnce(&CheckpointHeader) -> Result<(), String>,
) -> Result<(CheckpointHeader, CheckpointTable), String> {
    use std::os::unix::fs::FileExt;
    let fail = |e: std::io::Error| format!("cannot read it: {e}");
    let file = std::fs::File::open(path).map_err(fail)?;
    let len = file.metadata().map_err(fail)?.len();
    let mut start = vec![0u8; (len as usize).min(PREAMBLE)];
    file.read_exact_at(&mut start, 0).map_err(fail)?;
    let header_len = preamble(&start, CHECKPOINT_MAGIC, CHECKPOINT_VERSION, "checkpoint")?;
    let body = (PREAMBLE + header_len) as u64;
    if body + 16 > len {
        return Err("the file is cut short".into());
    }
    let mut json = vec![0u8; header_len];
    file.read_exact_at(&mut json, PREAMBLE as u64)
        .map_err(fail)?;
    let header: CheckpointHeader =
        serde_json::from_slice(&json).map_err(|e| format!("the header is not valid: {e}"))?;
    // A search goes on from what the header says: its levels, its last level's smallest ranks.
    // Those are of the whole table, of which a process of an MPI job holds a slab.
    let whole = match &header.slab {
        None => Some(header.entries),
        Some(slab) => slab.planes.checked_mul(slab.width),
    }
    .ok_or("the header's slab is too large")?;
    check_levels(&header.levels, whole)?;
    let levels = header.levels.levels();
    let last = levels.last();
    if let Some(rank) = header.antipodes.iter().find(|&&r| r >= whole) {
        return Err(format!(
            "the header's antipode {rank} is past the table's {whole} entries"
        ));
    }
    if header.antipodes.len() as u64 > last {
        return Err(format!(
            "the header lists {} antipodes of a last level of {last} states",
            header.antipodes.len()
        ));
    }
    if header.seconds < 0.0 {
        return Err(format!(
            "the header's seconds ({}) is negative",
            header.seconds
        ));
    }
    let mut tail = [0u8; 16];
    file.read_exact_at(&mut tail, len - 16).map_err(fail)?;
    if &tail[8..] != CHECKPOINT_END {
        return Err("the file is cut short (no end marker)".into());
    }
    let trailer_len = u64::from_le_bytes(tail[..8].try_into().unwrap_or_default());
    if trailer_len > len - 16 - body {
        return Err("the chunk list is cut short".into());
    }
    let mut trailer = vec![0u8; trailer_len as usize];
    file.read_exact_at(&mut trailer, len - 16 - trailer_len)
        .map_err(fail)?;
    let chunks: Vec<Chunk> = serde_json::from_slice(&trailer)
        .map_err(|e| format!("the chunk list is not valid: {e}"))?;
    let end = len - 16 - trailer_len;
    let frames = Frames::new(
        file,
        chunks,
        (body, end),
        header.entries,
        header.chunk_entries,
    )?;
    check(&header)?;
    let chunks = frames.offsets.len();
    let table = CheckpointTable {
        frames,
        path: path.to_path_buf(),
        expected: (header.slab.is_none()).then(|| [0, 1, 2].map(|v| levels.sum_mod3(v))),
        counted: std::sync::Mutex::new((vec![false; chunks], [0; 3])),
    };
    Ok((header, table))
}

/// A checkpoint's table, read from its file chunk by chunk.
///
/// Its header's levels are checked against it as it is read: the search trusts them (the
/// states still to find are the entries less the states they count), and the checksums cover
/// the chunks alone.
pub struct CheckpointTable {
    frames: Frames,
    path: std::path::PathBuf,
    /// The entries holding 0, 1 and 2 by the header's levels (`None` for a process's slab,
    /// which holds some of them).
    expected: Option<[u64; 3]>,
    /// Which chunks were counted as read by [`TableView::append_le_bytes`], and their counts.
    counted: std::sync::Mutex<(Vec<bool>, [u64; 3])>,
}

impl CheckpointTable {
    /// Chunk `c`, decompressed and checked; errors name the file.
    fn chunk(&self, c: usize) -> Result<Vec<u8>, String> {
        let frames = &self.frames;
        let bytes = frames
            .unpack(c, &frames.frame(c)?)
            .map_err(|e| self.unusable(e))?;
        // Its entries are counted the first time it is read; once all are, the counts are
        // checked.
        let mut counted = self.counted.lock().unwrap_or_else(|e| e.into_inner());
        let (seen, counts) = &mut *counted;
        if self.expected.is_some() && !std::mem::replace(&mut seen[c], true) {
            let live = frames.entries - c as u64 * frames.chunk_entries;
            for (total, n) in counts.iter_mut().zip(value_counts(&bytes, live)) {
                *total += n;
            }
            if seen.iter().all(|&s| s) {
                self.check_counts(*counts)?;
            }
        }
        Ok(bytes)
    }

    /// Checks the entries holding 0, 1 and 2 against the header's levels.
    fn check_counts(&self, found: [u64; 3]) -> Result<(), String> {
        match self.expected {
            Some(expected) if expected != found => Err(self.unusable(format!(
                "its levels count {expected:?} states at distances 0, 1 and 2 mod 3, but its table holds {found:?}"
            ))),
            _ => Ok(()),
        }
    }

    /// What a user reads when a chunk of the file is not sound.
    fn unusable(&self, e: String) -> String {
        format!(
            "the checkpoint {}: {e}; delete it to start again",
            self.path.display()
        )
    }
}

impl TableView for CheckpointTable {
    fn entries(&self) -> u64 {
        self.frames.entries
    }

    fn append_le_bytes(
        &self,
        words: std::ops::Range<usize>,
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        let per_chunk = (self.frames.chunk_entries / ENTRIES_PER_WORD) as usize;
        let mut word = words.start;
        while word < words.end {
            let c = word / per_chunk;
            let end = words.end.min((c + 1) * per_chunk);
            let bytes = self.chunk(c)?;
            // The last chunk stops at the last entry's byte: the rest of its word is padding.
            let at = |w: usize| ((w - c * per_chunk) * 8).min(bytes.len());
            let mut piece = bytes[at(word)..at(end)].to_vec();
            piece.resize((end - word) * 8, 0xff);
            out.extend_from_slice(&piece);
            word = end;
        }
        Ok(())
    }
}

impl TableSource for CheckpointTable {
    fn into_table(self: Box<Self>) -> Result<DistanceTable, String> {
        let table = self.frames.table().map_err(|e| self.unusable(e))?;
        if self.expected.is_some() {
            let [zero, one, two, _] = table.histogram();
            self.check_counts([zero, one, two])?;
        }
        Ok(table)
    }
}

/// The entries holding 0, 1 and 2 among the first `live` entries of a table's `bytes`.
fn value_counts(bytes: &[u8], live: u64) -> [u64; 3] {
    let mut counts = [0; 3];
    for (w, piece) in bytes.chunks(8).enumerate() {
        let mut word = [0xffu8; 8];
        word[..piece.len()].copy_from_slice(piece);
        let word = u64::from_le_bytes(word);
        let left = live.saturating_sub(w as u64 * ENTRIES_PER_WORD);
        let valid = match left >= ENTRIES_PER_WORD {
            true => LOW_BITS,
            false => LOW_BITS & ((1u64 << (2 * left)) - 1),
        };
        for (v, count) in counts.iter_mut().enumerate() {
            *count += (matches(word, v as u8) & valid).count_ones() as u64;
        }
    }
    counts
}

/// Lowercase hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::{Metric, Ring, StateSpace};

    /// A table of two and a half chunks with entries that do not all compress alike.
    fn table() -> DistanceTable {
        let entries = CHUNK_ENTRIES * 5 / 2 + 7;
        let table = DistanceTable::new(entries);
        for w in 0..table.word_count() - 1 {
            let x = (w as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            // Values 0..=2 only, some words random, some runs alike.
            let word = if w % 3 == 0 {
                x & 0x5555_5555_5555_5555
            } else {
                0
            };
            table.store_word(w, word);
        }
        table
    }

    #[test]
    fn every_frame_budget_writes_the_same_bytes() {
        let table = table();
        let info = Ring::turnstyle(5, Metric::Lrf).unwrap().info();
        let levels = Levels::from_counts(&[1, 2]);
        let mut files = Vec::new();
        for frame_memory in [0, 5 << 20, u64::MAX] {
            let mut bytes = Vec::new();
            let sha = write(&mut bytes, &info, &[0], &levels, &table, frame_memory).unwrap();
            assert_eq!(sha, hex(&Sha256::digest(&bytes)));
            files.push(bytes);
        }
        assert!(files.windows(2).all(|w| w[0] == w[1]));
        // And it reads back chunk by chunk to the same table.
        let path = std::env::temp_dir().join(format!("gsd-budget-{}.gsd", std::process::id()));
        std::fs::write(&path, &files[0]).unwrap();
        let (header, back) = read(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        assert_eq!(header.chunks.len(), 3);
        assert!((0..table.word_count()).all(|w| table.word(w) == back.word(w)));
    }

    #[test]
    fn checkpoints_read_back_chunk_by_chunk() {
        let table = table();
        let info = Ring::turnstyle(5, Metric::Lrf).unwrap().info();
        // Levels that count the table's values (it holds no 2).
        let [zero, one, two, _] = table.histogram();
        assert_eq!(two, 0);
        let levels = Levels::from_counts(&[zero, one]);
        let mut bytes = Vec::new();
        write_checkpoint(&mut bytes, &info, None, &levels, 12.5, &[4, 9], &table).unwrap();
        let path = std::env::temp_dir().join(format!("gsc-{}.gsc", std::process::id()));
        std::fs::write(&path, &bytes).unwrap();
        let (header, back) = open_checkpoint(&path, |_| Ok(())).unwrap();
        assert_eq!(header.antipodes, [4, 9]);
        assert_eq!(header.levels.levels(), levels);
        // Pieces across chunk boundaries and up to the padded last word, as the host's table.
        let words = table.word_count();
        let per_chunk = (CHUNK_ENTRIES / ENTRIES_PER_WORD) as usize;
        for range in [
            0..3,
            per_chunk - 2..per_chunk + 5,
            1..words,
            words - 1..words,
        ] {
            let (mut want, mut got) = (Vec::new(), Vec::new());
            table.append_le_bytes(range.clone(), &mut want).unwrap();
            back.append_le_bytes(range.clone(), &mut got).unwrap();
            assert!(want == got, "{range:?}");
        }
        let back = Box::new(back).into_table().unwrap();
        assert!((0..words).all(|w| table.word(w) == back.word(w)));
        // Cut short anywhere, it is refused.
        for cut in [0, 10, bytes.len() / 2, bytes.len() - 1] {
            std::fs::write(&path, &bytes[..cut]).unwrap();
            assert!(open_checkpoint(&path, |_| Ok(())).is_err(), "cut at {cut}");
        }
        // Levels that do not count the table's values are refused once the table is read,
        // whichever way (a search resumed from them found more states than the table has).
        let levels = Levels::from_counts(&[1, 3, 5]);
        let mut bytes = Vec::new();
        write_checkpoint(&mut bytes, &info, None, &levels, 12.5, &[4, 9], &table).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        let (_, back) = open_checkpoint(&path, |_| Ok(())).unwrap();
        let mut got = Vec::new();
        let e = back.append_le_bytes(0..words, &mut got).unwrap_err();
        assert!(
            e.contains("levels count [1, 3, 5]") && e.contains("gsc"),
            "{e}"
        );
        let (_, back) = open_checkpoint(&path, |_| Ok(())).unwrap();
        let e = Box::new(back).into_table().err().unwrap();
        assert!(e.contains("levels count [1, 3, 5]"), "{e}");
        let _ = std::fs::remove_file(&path);
    }
}
