//! The checkpoint format: the table after a level with the counts and the level's smallest
//! ranks (of a process's slab in an MPI job), written and read back chunk by chunk; or, for a
//! search from disk, the state of its slabs there in place of the table.

use super::*;
use crate::search::within::PassSaved;
use crate::search::{InPlace, Saving};

/// The first eight bytes of every checkpoint file.
pub const CHECKPOINT_MAGIC: &[u8; 8] = b"GSCHKPT\n";
/// The last eight bytes of every checkpoint file.
pub(super) const CHECKPOINT_END: &[u8; 8] = b"GSCHEND\n";
/// The checkpoint format version this code writes and reads for a state after a level.
pub const CHECKPOINT_VERSION: u32 = 3;
/// The version of a checkpoint within a level ([`CheckpointHeader::pass`]): gpusearch
/// versions that read only version 3 would go on as if the level before were the last found,
/// and count the scan's states found before the checkpoint twice.
pub const CHECKPOINT_WITHIN_VERSION: u32 = 4;
/// Bytes of the header's SHA-256, which follows it.
const HEADER_SHA_BYTES: usize = 32;

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
    /// Where the table is in slabs on disk, not in this file: the engine's record of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slabs: Option<InPlace>,
    /// The scan that finds the next level, where a checkpoint within it was saved (version 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass: Option<PassSaved>,
}

/// Writes a checkpoint (of the table, or of a process's `slab` of it): the table after a level,
/// the levels so far and that level's smallest ranks, in one pass over the table. Layout: magic,
/// version, header length, JSON header ([`CheckpointHeader`]) and its SHA-256 (the search goes
/// on from what the header says, so no edit of it may pass), the table's chunks as zstd
/// frames (none where the table is in slabs on disk), then the chunk list (JSON, as a distances
/// header's `chunks`, each with its SHA-256), its length (8 bytes) and the end magic
/// `GSCHEND\n`.
pub fn write_checkpoint(
    out: &mut impl Write,
    (puzzle, entries): (&PuzzleInfo, u64),
    slab: Option<&Slab>,
    (levels, pass): (&Levels, Option<&PassSaved>),
    seconds: f64,
    antipodes: &[u64],
    table: Saving,
) -> std::io::Result<()> {
    let header = CheckpointHeader {
        format: "gpusearch checkpoint".into(),
        puzzle: puzzle.clone(),
        entries,
        slab: slab.cloned(),
        levels: Written::from(levels),
        seconds,
        antipodes: antipodes.to_vec(),
        chunk_entries: CHUNK_ENTRIES,
        slabs: match table {
            Saving::InPlace(state) => Some(state.clone()),
            Saving::Table(_) => None,
        },
        pass: pass.cloned(),
    };
    let version = match pass {
        Some(_) => CHECKPOINT_WITHIN_VERSION,
        None => CHECKPOINT_VERSION,
    };
    let json = serde_json::to_vec_pretty(&header).map_err(std::io::Error::other)?;
    out.write_all(CHECKPOINT_MAGIC)?;
    out.write_all(&version.to_le_bytes())?;
    out.write_all(&(json.len() as u32).to_le_bytes())?;
    out.write_all(&json)?;
    out.write_all(&Sha256::digest(&json))?;
    let mut list = Vec::new();
    if let Saving::Table(table) = table {
        if table.entries() != entries {
            return Err(std::io::Error::other(
                "the table is not of the checkpoint's entries",
            ));
        }
        write_chunks(out, table, &mut list)?;
    }
    let trailer = serde_json::to_vec(&list).map_err(std::io::Error::other)?;
    out.write_all(&trailer)?;
    out.write_all(&(trailer.len() as u64).to_le_bytes())?;
    out.write_all(CHECKPOINT_END)
}

/// Writes `table`'s chunks as zstd frames, listing each in `list`.
fn write_chunks(
    out: &mut impl Write,
    table: &dyn TableView,
    list: &mut Vec<Chunk>,
) -> std::io::Result<()> {
    let chunks = TableChunks::new(table, table.entries());
    list.reserve(chunks.count);
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
    Ok(())
}

/// Opens a checkpoint: its header, checked by `check`, and its table, read chunk by chunk (each
/// checked) as it is asked for (`None` where the table is in slabs on disk, as the header's
/// `slabs` says).
pub fn open_checkpoint(
    path: &Path,
    check: impl FnOnce(&CheckpointHeader) -> Result<(), String>,
) -> Result<(CheckpointHeader, Option<CheckpointTable>), String> {
    use std::os::unix::fs::FileExt;
    let fail = |e: std::io::Error| format!("cannot read it: {e}");
    let file = std::fs::File::open(path).map_err(fail)?;
    let len = file.metadata().map_err(fail)?.len();
    let mut start = vec![0u8; (len as usize).min(PREAMBLE)];
    file.read_exact_at(&mut start, 0).map_err(fail)?;
    // Version 4 within a level, 3 after one.
    let version = match start.get(8..12) {
        Some(v) if v == CHECKPOINT_WITHIN_VERSION.to_le_bytes() => CHECKPOINT_WITHIN_VERSION,
        _ => CHECKPOINT_VERSION,
    };
    let header_len = preamble(&start, CHECKPOINT_MAGIC, version, "checkpoint")?;
    let body = (PREAMBLE + header_len + HEADER_SHA_BYTES) as u64;
    if body + 16 > len {
        return Err("the file is cut short".into());
    }
    let mut sealed = vec![0u8; header_len + HEADER_SHA_BYTES];
    file.read_exact_at(&mut sealed, PREAMBLE as u64)
        .map_err(fail)?;
    let (json, sha) = sealed.split_at(header_len);
    if Sha256::digest(json).as_slice() != sha {
        return Err("the header's SHA-256 does not match: it was changed or damaged".into());
    }
    let header: CheckpointHeader =
        serde_json::from_slice(json).map_err(|e| format!("the header is not valid: {e}"))?;
    // A search goes on from what the header says: its levels, its last level's smallest ranks.
    // Those are of the whole table, of which a process of an MPI job holds a slab.
    let whole = match &header.slab {
        None => Some(header.entries),
        Some(slab) => slab.planes.checked_mul(slab.width),
    }
    .ok_or("the header's slab is too large")?;
    let positions = header.puzzle.symmetry.as_ref().map(|s| s.positions);
    check_levels(&header.levels, whole, positions)?;
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
    check_pass(&header, version, whole)?;
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
    if header.slabs.is_some() {
        // A process of an MPI job names its slabs on disk too (its header's slab says which).
        if !chunks.is_empty() {
            return Err("it names slabs on disk and holds a table as well".into());
        }
        check(&header)?;
        return Ok((header, None));
    }
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
        expected: (header.slab.is_none()).then(|| {
            let mut counts = [0, 1, 2].map(|v| levels.sum_mod3(v));
            // A scan saved part way has set some of the next level.
            if let Some(pass) = &header.pass {
                counts[(levels.len() % 3) as usize] += pass.found;
            }
            counts
        }),
        counted: std::sync::Mutex::new((vec![false; chunks], [0; 3])),
    };
    Ok((header, Some(table)))
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
pub(super) fn value_counts(bytes: &[u8], live: u64) -> [u64; 3] {
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

/// Checks a checkpoint's scan saved part way against its version and table.
fn check_pass(header: &CheckpointHeader, version: u32, whole: u64) -> Result<(), String> {
    let Some(pass) = &header.pass else {
        return match version {
            CHECKPOINT_WITHIN_VERSION => {
                Err("the header of a checkpoint within a level has no scan".into())
            }
            _ => Ok(()),
        };
    };
    if version != CHECKPOINT_WITHIN_VERSION || header.slab.is_some() || header.slabs.is_some() {
        return Err("the header's scan is not where a scan is saved".into());
    }
    if pass.words > whole.div_ceil(32) || pass.found > whole {
        return Err("the header's scan is past the table".into());
    }
    if pass.smallest.len() as u64 > pass.found || pass.smallest.iter().any(|&r| r >= whole) {
        return Err("the header's scan lists ranks it did not find".into());
    }
    Ok(())
}
