//! The distances file (`distances.gsd`): the 2-bit table, zstd-compressed in independent chunks.
//!
//! The file runs past 600 lines only by its tests: the checkpoint round trips (`checkpoint.rs`'s
//! format) share the distances file's test table and chunk reader, so they stay beside them.
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
mod checkpoint;
mod chunks;
#[cfg(feature = "mpi")]
pub mod cluster;
mod levels;

pub use checkpoint::{
    CHECKPOINT_MAGIC, CHECKPOINT_VERSION, CheckpointHeader, CheckpointTable, open_checkpoint,
    write_checkpoint,
};
pub use chunks::{CompressedChunks, batch_bytes, batch_chunks, compress_chunks};
use chunks::{TableChunks, batches, compress_batch, compress_some, decompress_chunk};

use crate::puzzle::PuzzleInfo;
use crate::search::levels::{Levels, Written};
use crate::search::slab::Slab;
use crate::table::{DistanceTable, ENTRIES_PER_WORD, LOW_BITS, TableSource, TableView, matches};
use levels::check_levels;
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
pub(super) const ZSTD_LEVEL: i32 = 1;

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

/// The fixed part before a header: magic, version and header length.
pub(super) const PREAMBLE: usize = 16;

/// Checks the preamble of a file (`what` names its kind) and returns the header length.
pub(super) fn preamble(
    bytes: &[u8],
    magic: &[u8; 8],
    version: u32,
    what: &str,
) -> Result<usize, String> {
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
        let positions = header.puzzle.symmetry.as_ref().map(|s| s.positions);
        check_levels(&header.levels, header.entries, positions)?;
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
    /// The most chunks kept.
    capacity: usize,
}

/// Chunks a [`ChunkCache`] keeps decompressed (4 MiB each).
const CACHED_CHUNKS: usize = 16;

impl ChunkCache {
    /// Entries of `file`, read chunk by chunk.
    pub fn new(file: Distances) -> ChunkCache {
        ChunkCache::keeping(file, CACHED_CHUNKS)
    }

    /// Entries of `file`, read chunk by chunk, up to `capacity` chunks kept.
    pub fn keeping(file: Distances, capacity: usize) -> ChunkCache {
        ChunkCache {
            file,
            kept: Vec::new(),
            capacity: capacity.max(1),
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
        // The last chunk read first: walks read a chunk's entries in a row.
        let at = match self.kept.iter().rposition(|(k, _)| *k == c) {
            Some(i) => {
                let hit = self.kept.remove(i);
                self.kept.push(hit);
                self.kept.len() - 1
            }
            None => {
                if self.kept.len() == self.capacity {
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

    /// A checkpoint of `table` (of Turnstyle 5) after `levels`, or within the scan `pass`.
    fn checkpoint_of(
        table: &DistanceTable,
        levels: &Levels,
        pass: Option<&crate::search::within::PassSaved>,
        antipodes: &[u64],
    ) -> Vec<u8> {
        let info = Ring::turnstyle(5, Metric::Lrf).unwrap().info();
        let mut bytes = Vec::new();
        let saving = crate::search::Saving::Table(table);
        let whole = (&info, table.entries());
        write_checkpoint(
            &mut bytes,
            whole,
            None,
            (levels, pass),
            12.5,
            antipodes,
            saving,
        )
        .unwrap();
        bytes
    }

    #[test]
    fn checkpoints_read_back_chunk_by_chunk() {
        let table = table();
        // Levels that count the table's values (it holds no 2).
        let [zero, one, two, _] = table.histogram();
        assert_eq!(two, 0);
        let levels = Levels::from_counts(&[zero, one]);
        let bytes = checkpoint_of(&table, &levels, None, &[4, 9]);
        let path = std::env::temp_dir().join(format!("gsc-{}.gsc", std::process::id()));
        std::fs::write(&path, &bytes).unwrap();
        let (header, back) = open_checkpoint(&path, |_| Ok(())).unwrap();
        let back = back.unwrap();
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
        // An edit of the header that keeps its length (another antipode to go on from, which
        // no other check could tell from a true one) is refused by the header's SHA-256.
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]).into_owned();
        let antipode = text.find("\"antipodes\"").unwrap();
        let nine = antipode + text[antipode..].find('9').unwrap();
        let mut edited = bytes.clone();
        edited[nine] = b'8';
        std::fs::write(&path, &edited).unwrap();
        let e = open_checkpoint(&path, |_| Ok(())).err().unwrap();
        assert!(e.contains("SHA-256"), "{e}");
        // Cut short anywhere, it is refused.
        for cut in [0, 10, bytes.len() / 2, bytes.len() - 1] {
            std::fs::write(&path, &bytes[..cut]).unwrap();
            assert!(open_checkpoint(&path, |_| Ok(())).is_err(), "cut at {cut}");
        }
        // Levels that do not count the table's values are refused once the table is read,
        // whichever way (a search resumed from them found more states than the table has).
        let levels = Levels::from_counts(&[1, 3, 5]);
        let bytes = checkpoint_of(&table, &levels, None, &[4, 9]);
        std::fs::write(&path, &bytes).unwrap();
        let back = open_checkpoint(&path, |_| Ok(())).unwrap().1.unwrap();
        let mut got = Vec::new();
        let e = back.append_le_bytes(0..words, &mut got).unwrap_err();
        assert!(
            e.contains("levels count [1, 3, 5]") && e.contains("gsc"),
            "{e}"
        );
        let back = open_checkpoint(&path, |_| Ok(())).unwrap().1.unwrap();
        let e = Box::new(back).into_table().err().unwrap();
        assert!(e.contains("levels count [1, 3, 5]"), "{e}");
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_checkpoint_within_a_scan_counts_what_the_scan_set() {
        use crate::search::within::PassSaved;
        let table = table();
        // Level 0 found, and the scan for level 1 part way: the table's 1s are what it set.
        let [zero, one, _, _] = table.histogram();
        let levels = Levels::from_counts(&[zero]);
        let path = std::env::temp_dir().join(format!("gsc-within-{}.gsc", std::process::id()));
        for (found, sound) in [(one, true), (one - 1, false)] {
            let pass = PassSaved {
                bottom_up: true,
                words: 2,
                found,
                smallest: vec![1, 3],
                held: Vec::new(),
                special: Vec::new(),
            };
            let bytes = checkpoint_of(&table, &levels, Some(&pass), &[0]);
            // Version 4: a gpusearch that reads only version 3 refuses it.
            assert_eq!(bytes[8..12], 4u32.to_le_bytes());
            std::fs::write(&path, &bytes).unwrap();
            let (header, back) = open_checkpoint(&path, |_| Ok(())).unwrap();
            assert_eq!(header.pass.as_ref(), Some(&pass));
            let back = Box::new(back.unwrap()).into_table();
            assert_eq!(back.is_ok(), sound, "{found} of {one} found");
        }
        let _ = std::fs::remove_file(&path);
    }
}
