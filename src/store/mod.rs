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
    let words_per_chunk = (CHUNK_ENTRIES / ENTRIES_PER_WORD) as usize;
    let word_count = table.word_count();
    let chunk_count = word_count.div_ceil(words_per_chunk);
    let compressed: Vec<(Vec<u8>, String)> = (0..chunk_count)
        .into_par_iter()
        .map(|c| {
            let words = c * words_per_chunk..((c + 1) * words_per_chunk).min(word_count);
            let mut raw = Vec::new();
            table.append_le_bytes(words, &mut raw);
            // Entries past the end are padding: keep only the bytes that hold real entries.
            let first_byte = c as u64 * CHUNK_ENTRIES / 4;
            raw.truncate((table.entries().div_ceil(4) - first_byte).min(raw.len() as u64) as usize);
            let sha = hex(&Sha256::digest(&raw));
            let frame = zstd::bulk::compress(&raw, ZSTD_LEVEL)?;
            Ok((frame, sha))
        })
        .collect::<std::io::Result<_>>()?;
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
        chunks: compressed
            .iter()
            .map(|(frame, sha)| Chunk {
                compressed_bytes: frame.len() as u64,
                sha256: sha.clone(),
            })
            .collect(),
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

/// Reads a distances file: its header, and its table with every chunk's checksum checked.
pub fn read(path: &Path) -> Result<(Header, DistanceTable), String> {
    let mut file =
        std::fs::File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse(&bytes)
}

/// Parses the bytes of a distances file (see [`read`]).
pub fn parse(bytes: &[u8]) -> Result<(Header, DistanceTable), String> {
    if bytes.len() < 16 || &bytes[..8] != MAGIC {
        return Err("not a gpusearch distances file (bad magic)".into());
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap_or_default());
    if version != VERSION {
        return Err(format!(
            "distances file format version {version}; this gpusearch reads version {VERSION}"
        ));
    }
    let header_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap_or_default()) as usize;
    let json = bytes
        .get(16..16 + header_len)
        .ok_or("the header is cut short")?;
    let header: Header =
        serde_json::from_slice(json).map_err(|e| format!("the header is not valid: {e}"))?;
    let table_bytes = header.entries.div_ceil(4);
    let expected_chunks = header.entries.div_ceil(header.chunk_entries.max(1)) as usize;
    if header.chunk_entries == 0
        || !header.chunk_entries.is_multiple_of(ENTRIES_PER_WORD)
        || header.chunks.len() != expected_chunks
    {
        return Err(format!(
            "the header lists {} chunks of {} entries for {} entries",
            header.chunks.len(),
            header.chunk_entries,
            header.entries
        ));
    }
    let mut raw = Vec::with_capacity(table_bytes as usize);
    let mut at = 16 + header_len;
    for (i, chunk) in header.chunks.iter().enumerate() {
        let frame = bytes
            .get(at..at + chunk.compressed_bytes as usize)
            .ok_or_else(|| format!("chunk {i} is cut short"))?;
        at += frame.len();
        let want = (table_bytes - raw.len() as u64).min(header.chunk_entries / 4) as usize;
        let data = zstd::bulk::decompress(frame, want)
            .map_err(|e| format!("chunk {i} does not decompress: {e}"))?;
        if data.len() != want {
            return Err(format!("chunk {i} holds {} bytes, not {want}", data.len()));
        }
        if hex(&Sha256::digest(&data)) != chunk.sha256 {
            return Err(format!("chunk {i} fails its SHA-256 checksum"));
        }
        raw.extend_from_slice(&data);
    }
    if at != bytes.len() {
        return Err(format!(
            "{} unexpected bytes after the last chunk",
            bytes.len() - at
        ));
    }
    let table = DistanceTable::from_le_bytes(header.entries, &raw);
    Ok((header, table))
}

/// Lowercase hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
