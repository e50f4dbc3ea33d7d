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

use crate::puzzle::PuzzleInfo;
use crate::search::bitmap::Bitmap;
use crate::search::levels::{Levels, Written};
use crate::search::table::{DistanceTable, ENTRIES_PER_WORD};
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
/// 88.2 MB from 119.8 MB) and level 3 takes 50% longer.
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
pub fn write(
    out: &mut impl Write,
    puzzle: &PuzzleInfo,
    starts: &[u64],
    levels: &Levels,
    table: &DistanceTable,
) -> std::io::Result<String> {
    let compressed = compress_table(table)?;
    let header = Header {
        format: "gpusearch distances".into(),
        puzzle: puzzle.clone(),
        solved_rank: starts[0],
        solved_ranks: if starts.len() > 1 {
            starts.to_vec()
        } else {
            Vec::new()
        },
        entries: table.entries(),
        encoding: ENCODING.into(),
        levels: Written::from(levels),
        compression: "zstd".into(),
        chunk_entries: CHUNK_ENTRIES,
        chunks: chunk_list(&compressed),
    };
    let json = serde_json::to_vec_pretty(&header).map_err(std::io::Error::other)?;
    let mut sha = Sha256::new();
    let mut emit = |bytes: &[u8]| -> std::io::Result<()> {
        sha.update(bytes);
        out.write_all(bytes)
    };
    emit(MAGIC)?;
    emit(&VERSION.to_le_bytes())?;
    emit(&(json.len() as u32).to_le_bytes())?;
    emit(&json)?;
    for (frame, _) in &compressed {
        emit(frame)?;
    }
    Ok(hex(&sha.finalize()))
}

/// The table's bytes (`ceil(entries / 4)`) compressed in chunks of [`CHUNK_ENTRIES`] entries,
/// in parallel: each chunk's frame and the SHA-256 of its uncompressed bytes.
fn compress_table(table: &DistanceTable) -> std::io::Result<Vec<(Vec<u8>, String)>> {
    let words_per_chunk = (CHUNK_ENTRIES / ENTRIES_PER_WORD) as usize;
    let word_count = table.word_count();
    let total = table.entries().div_ceil(4);
    compress_chunks(word_count.div_ceil(words_per_chunk), |c| {
        let words = c * words_per_chunk..((c + 1) * words_per_chunk).min(word_count);
        let mut raw = Vec::new();
        table.append_le_bytes(words, &mut raw);
        // Entries past the end are padding: keep only the bytes that hold real entries.
        let first_byte = c as u64 * CHUNK_ENTRIES / 4;
        raw.truncate((total - first_byte).min(raw.len() as u64) as usize);
        raw
    })
}

/// Compresses chunks `0..count`, each given by `raw(c)`, in parallel.
fn compress_chunks(
    count: usize,
    raw: impl Fn(usize) -> Vec<u8> + Sync,
) -> std::io::Result<Vec<(Vec<u8>, String)>> {
    (0..count)
        .into_par_iter()
        .map(|c| {
            let raw = raw(c);
            let sha = hex(&Sha256::digest(&raw));
            Ok((zstd::bulk::compress(&raw, ZSTD_LEVEL)?, sha))
        })
        .collect()
}

/// The header entries of compressed chunks.
fn chunk_list(compressed: &[(Vec<u8>, String)]) -> Vec<Chunk> {
    compressed
        .iter()
        .map(|(frame, sha)| Chunk {
            compressed_bytes: frame.len() as u64,
            sha256: sha.clone(),
        })
        .collect()
}

/// Decompresses `chunks` from `bytes` at `at` (moved past them): `total` bytes in all, at most
/// `chunk_bytes` a chunk, each checked against its checksum. Errors name the chunk.
fn decompress_chunks(
    bytes: &[u8],
    at: &mut usize,
    chunks: &[Chunk],
    total: u64,
    chunk_bytes: u64,
    what: &str,
) -> Result<Vec<u8>, String> {
    if chunks.len() as u64 != total.div_ceil(chunk_bytes.max(1)) {
        return Err(format!(
            "the header lists {} {what}chunks of {chunk_bytes} bytes for {total} bytes",
            chunks.len()
        ));
    }
    let mut raw = Vec::with_capacity(total as usize);
    for (i, chunk) in chunks.iter().enumerate() {
        let frame = bytes
            .get(*at..*at + chunk.compressed_bytes as usize)
            .ok_or_else(|| format!("{what}chunk {i} is cut short"))?;
        *at += frame.len();
        let want = (total - raw.len() as u64).min(chunk_bytes) as usize;
        let data = zstd::bulk::decompress(frame, want)
            .map_err(|e| format!("{what}chunk {i} does not decompress: {e}"))?;
        if data.len() != want {
            return Err(format!(
                "{what}chunk {i} holds {} bytes, not {want}",
                data.len()
            ));
        }
        if hex(&Sha256::digest(&data)) != chunk.sha256 {
            return Err(format!("{what}chunk {i} fails its SHA-256 checksum"));
        }
        raw.extend_from_slice(&data);
    }
    Ok(raw)
}

/// Checks that nothing follows the last chunk.
fn at_end(bytes: &[u8], at: usize) -> Result<(), String> {
    if at == bytes.len() {
        Ok(())
    } else {
        Err(format!(
            "{} unexpected bytes after the last chunk",
            bytes.len() - at
        ))
    }
}

/// Reads a file whole.
fn read_all(path: &Path) -> Result<Vec<u8>, String> {
    let mut file =
        std::fs::File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(bytes)
}

/// Splits a file into its JSON header and the offset of what follows, after checking the
/// magic and version.
fn split_header<'a>(
    bytes: &'a [u8],
    magic: &[u8; 8],
    what: &str,
) -> Result<(&'a [u8], usize), String> {
    if bytes.len() < 16 || &bytes[..8] != magic {
        return Err(format!("not a gpusearch {what} file (bad magic)"));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap_or_default());
    if version != VERSION {
        return Err(format!(
            "{what} file format version {version}; this gpusearch reads version {VERSION}"
        ));
    }
    let header_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap_or_default()) as usize;
    let json = bytes
        .get(16..16 + header_len)
        .ok_or("the header is cut short")?;
    Ok((json, 16 + header_len))
}

/// Reads a distances file: its header, and its table with every chunk's checksum checked.
pub fn read(path: &Path) -> Result<(Header, DistanceTable), String> {
    parse(&read_all(path)?)
}

/// Parses the bytes of a distances file (see [`read`]).
pub fn parse(bytes: &[u8]) -> Result<(Header, DistanceTable), String> {
    let (json, mut at) = split_header(bytes, MAGIC, "distances")?;
    let header: Header =
        serde_json::from_slice(json).map_err(|e| format!("the header is not valid: {e}"))?;
    if header.chunk_entries == 0 || !header.chunk_entries.is_multiple_of(ENTRIES_PER_WORD) {
        return Err(format!(
            "the header's chunk_entries ({}) is not a positive multiple of 32",
            header.chunk_entries
        ));
    }
    let raw = decompress_chunks(
        bytes,
        &mut at,
        &header.chunks,
        header.entries.div_ceil(4),
        header.chunk_entries / 4,
        "",
    )?;
    at_end(bytes, at)?;
    let table = DistanceTable::from_le_bytes(header.entries, &raw);
    Ok((header, table))
}

/// The first eight bytes of every checkpoint file.
pub const CHECKPOINT_MAGIC: &[u8; 8] = b"GSCHKPT\n";

/// A checkpoint's JSON header: what it is a checkpoint of, and its two sections.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckpointHeader {
    /// Always `gpusearch checkpoint`.
    pub format: String,
    /// The puzzle.
    #[serde(flatten)]
    pub puzzle: PuzzleInfo,
    /// Table entries.
    pub entries: u64,
    /// The levels found so far.
    #[serde(flatten)]
    pub levels: Written,
    /// Seconds of search up to the checkpoint (all runs of it together).
    #[serde(default)]
    pub seconds: f64,
    /// Entries per chunk, in both sections.
    pub chunk_entries: u64,
    /// The table's chunks (as in a distances file).
    pub table_chunks: Vec<Chunk>,
    /// The last level's chunks: one bit per entry, bit `r % 8` of byte `r / 8`.
    pub last_chunks: Vec<Chunk>,
}

/// Writes a checkpoint: the table after a level, the levels so far and that level's states. The
/// layout is a distances file's, with a second section of chunks for the last level.
pub fn write_checkpoint(
    out: &mut impl Write,
    puzzle: &PuzzleInfo,
    levels: &Levels,
    seconds: f64,
    table: &DistanceTable,
    last: &Bitmap,
) -> std::io::Result<()> {
    let tables = compress_table(table)?;
    let words_per_chunk = (CHUNK_ENTRIES / 64) as usize;
    let total = table.entries().div_ceil(8);
    let lasts = compress_chunks(last.word_count().div_ceil(words_per_chunk), |c| {
        let words = c * words_per_chunk..((c + 1) * words_per_chunk).min(last.word_count());
        let mut raw: Vec<u8> = words.flat_map(|w| last.word(w).to_le_bytes()).collect();
        raw.truncate((total - c as u64 * CHUNK_ENTRIES / 8).min(raw.len() as u64) as usize);
        raw
    })?;
    let header = CheckpointHeader {
        format: "gpusearch checkpoint".into(),
        puzzle: puzzle.clone(),
        entries: table.entries(),
        levels: Written::from(levels),
        seconds,
        chunk_entries: CHUNK_ENTRIES,
        table_chunks: chunk_list(&tables),
        last_chunks: chunk_list(&lasts),
    };
    let json = serde_json::to_vec_pretty(&header).map_err(std::io::Error::other)?;
    out.write_all(CHECKPOINT_MAGIC)?;
    out.write_all(&VERSION.to_le_bytes())?;
    out.write_all(&(json.len() as u32).to_le_bytes())?;
    out.write_all(&json)?;
    for (frame, _) in tables.iter().chain(&lasts) {
        out.write_all(frame)?;
    }
    Ok(())
}

/// Reads a checkpoint: its header, the table and the last level, every chunk checked.
pub fn read_checkpoint(path: &Path) -> Result<(CheckpointHeader, DistanceTable, Bitmap), String> {
    let bytes = read_all(path)?;
    let (json, mut at) = split_header(&bytes, CHECKPOINT_MAGIC, "checkpoint")?;
    let header: CheckpointHeader =
        serde_json::from_slice(json).map_err(|e| format!("the header is not valid: {e}"))?;
    let chunk = header.chunk_entries;
    if chunk == 0 || !chunk.is_multiple_of(64) {
        return Err(format!(
            "the header's chunk_entries ({chunk}) is not a positive multiple of 64"
        ));
    }
    let raw = decompress_chunks(
        &bytes,
        &mut at,
        &header.table_chunks,
        header.entries.div_ceil(4),
        chunk / 4,
        "table ",
    )?;
    let last = decompress_chunks(
        &bytes,
        &mut at,
        &header.last_chunks,
        header.entries.div_ceil(8),
        chunk / 8,
        "last-level ",
    )?;
    at_end(&bytes, at)?;
    let table = DistanceTable::from_le_bytes(header.entries, &raw);
    let last = Bitmap::from_fn(header.entries, |w| {
        let mut b = [0u8; 8];
        let bytes = last.get(8 * w..).unwrap_or_default();
        let n = bytes.len().min(8);
        b[..n].copy_from_slice(&bytes[..n]);
        u64::from_le_bytes(b)
    });
    Ok((header, table, last))
}

/// Lowercase hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
