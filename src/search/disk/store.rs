//! The slabs' store: each slab's table (2 bits an entry), the bits of the states of the next
//! level found in it so far, and its inboxes (the ranks of the next level and of the one after
//! that other slabs found in it, applied when it is next loaded); and the bytes they moved. The
//! slab engine reads, writes and sends through [`SlabStore`] alone, whatever its [`Backing`]:
//! files in a folder (the disk tier) or host memory (the host tier).
//!
//! **In files**, the slabs are the checkpoint ([`SlabStore::commit`]). A slab's table and bits
//! are kept in two generations: each write goes to the one the last checkpoint does not name, so
//! a run killed at any moment finds every slab as that checkpoint left it. An inbox read by a
//! pass is kept until the checkpoint after the pass, and one that a pass killed began to fill is
//! emptied when the run goes on ([`SlabStore::resume`]). Tables and bitmaps move with direct I/O
//! (`O_DIRECT`) where the file system allows: between the disk and a block-aligned buffer, with
//! no copy into the page cache and none kept there, as a table larger than memory would see it.
//! Elsewhere (tmpfs, say) they are written, synced and dropped from the page cache instead.
//! Their files are padded to whole blocks. A slab is written on a thread of its own while the
//! engine goes on with the next ([`SlabStore::write`]).
//!
//! **Held in host memory** (the host tier, for a GPU that cannot hold the table), a slab written
//! is kept and a slab read is taken, with no copy; the inboxes are bits in memory
//! ([`SlabStore::deliver`]), and a checkpoint is the whole table at its last level, as the
//! in-memory engines save it.

use super::bits;
use super::io::{Aligned, Io};
use super::transfer::{Loaded, read_slab, write_and_read, write_slab};
use super::view::{Next, SlabTable};
use crate::search::SearchError;
use crate::search::bitmap::Bitmap;
use crate::table::DistanceTable;
use rayon::prelude::*;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

/// What moved in the background ([`SlabStore::move_behind`]): the bytes written and the buffer
/// they went through, the slab read, and the memory let go.
struct Moved {
    io: Io,
    buffer: Aligned,
    loaded: Option<Loaded>,
    freed: Option<(DistanceTable, Bitmap)>,
}

/// Where the slabs' tables and bits live between passes: the one difference between the two
/// slab tiers, chosen when the store is made.
enum Backing {
    /// In files of the folder, in two generations.
    Files(Generations),
    /// In host memory (the host tier).
    Held(Held),
}

/// Slabs in files: which generation holds each, which the last checkpoint names, and what is
/// being written and read in the background.
struct Generations {
    /// The generation of each slab's files that holds it now.
    current: Vec<u8>,
    /// The generation of each slab's files that the last checkpoint names (`None`: none does).
    committed: Vec<Option<u8>>,
    /// The buffer of writes (with the slab being written while it is).
    buffer: Option<Aligned>,
    /// What moves in the background ([`SlabStore::move_behind`]).
    behind: Option<JoinHandle<Result<Moved, SearchError>>>,
}

/// Slabs in host memory: each slab's table and bits while no pass has it, and its inboxes as
/// bits, for levels of even and of odd depth ([`SlabStore::deliver`]).
pub(super) struct Held {
    slabs: Vec<Option<(DistanceTable, Bitmap)>>,
    pub(super) inboxes: Vec<[Option<Bitmap>; 2]>,
}

/// What a checkpoint names of the slabs' files ([`SlabStore::named`]).
pub(super) struct Named {
    /// Each slab's generation of files that holds it now.
    pub generations: Vec<u8>,
    /// The ranks and bytes of each slab's inbox for the level the checkpoint's pass finds.
    pub inboxes: Vec<[u64; 2]>,
    /// Whether that inbox has bits.
    pub merged: Vec<bool>,
}

/// The slabs of a table cut into slabs, in files of `folder` or held in host memory
/// ([`Backing`]), with their inboxes and the bytes they moved.
pub(super) struct SlabStore {
    pub(super) folder: PathBuf,
    /// Each slab's entries.
    pub(super) entries: Vec<u64>,
    /// Ranks in each slab's inboxes, for levels of even and of odd depth (once merged, the
    /// states of its bits and the ranks sent since).
    pub(super) pending: Vec<[u64; 2]>,
    /// Bytes of the batches in each slab's inboxes, for levels of even and of odd depth.
    pub(super) inbox_bytes: Vec<[u64; 2]>,
    /// Whether each slab's inboxes, for levels of even and of odd depth, have bits
    /// ([`SlabStore::merge`]).
    pub(super) merged: Vec<[bool; 2]>,
    /// A bitmap of a slab's entries and a buffer, to merge an inbox's batches into its bits
    /// and read them back, kept from inbox to inbox.
    pub(super) merging: Option<(Bitmap, Aligned)>,
    /// Where the slabs live.
    backing: Backing,
    pub(super) io: Io,
    /// A group of an inbox's batches, read to be decoded, kept from group to group.
    pub(super) batch: Vec<u8>,
    /// The slab read in the background, until it is taken ([`SlabStore::take_loaded`]).
    loaded: Option<Loaded>,
    /// Tables and bitmaps of slabs done with, for the next ones (at most one table and two
    /// bitmaps: what a pass takes at a time).
    spare_tables: Vec<DistanceTable>,
    spare_bits: Vec<Bitmap>,
    /// The slabs this process owns (all, but in an MPI job): of the others it keeps only the
    /// batches it sends them, until they go ([`super::DiskEngine::ship`]).
    pub(super) own: std::ops::Range<usize>,
}

impl SlabStore {
    /// The files of slabs of `entries` entries each in `folder` (made where missing), none of
    /// them written yet; `in_memory`: the slabs' tables, bits and inboxes are held in host
    /// memory instead, and no folder is made.
    pub(super) fn new(
        folder: &Path,
        entries: Vec<u64>,
        in_memory: bool,
    ) -> Result<SlabStore, String> {
        let slabs = entries.len();
        if !in_memory {
            std::fs::create_dir_all(folder)
                .map_err(|e| format!("cannot make the slab folder {}: {e}", folder.display()))?;
        }
        Ok(SlabStore {
            folder: folder.to_path_buf(),
            entries,
            pending: vec![[0; 2]; slabs],
            inbox_bytes: vec![[0; 2]; slabs],
            merged: vec![[false; 2]; slabs],
            merging: None,
            backing: match in_memory {
                true => Backing::Held(Held {
                    slabs: (0..slabs).map(|_| None).collect(),
                    inboxes: (0..slabs).map(|_| [None, None]).collect(),
                }),
                false => Backing::Files(Generations {
                    current: vec![0; slabs],
                    committed: vec![None; slabs],
                    buffer: Some(Aligned::new()),
                    behind: None,
                }),
            },
            io: Io::default(),
            loaded: None,
            batch: Vec::new(),
            spare_tables: Vec::new(),
            spare_bits: Vec::new(),
            own: 0..slabs,
        })
    }

    /// Whether the slabs' tables and bits are held in host memory, not in files.
    pub(super) fn in_memory(&self) -> bool {
        matches!(self.backing, Backing::Held(_))
    }

    /// The slabs held in host memory, where they are.
    pub(super) fn held(&mut self) -> Option<&mut Held> {
        match &mut self.backing {
            Backing::Held(held) => Some(held),
            Backing::Files(_) => None,
        }
    }

    /// The generations of the slabs' files, where they are in files (the checkpoints of slabs
    /// held in memory are the whole table, [`super::checkpoint`]).
    fn generations(&self) -> Result<&Generations, String> {
        match &self.backing {
            Backing::Files(files) => Ok(files),
            Backing::Held(_) => Err("slabs held in memory have no files".into()),
        }
    }

    /// [`SlabStore::generations`], to change.
    fn generations_mut(&mut self) -> Result<&mut Generations, String> {
        match &mut self.backing {
            Backing::Files(files) => Ok(files),
            Backing::Held(_) => Err("slabs held in memory have no files".into()),
        }
    }

    /// Empties every inbox, left by a run before (a search that starts afresh).
    pub(super) fn clear(&mut self) -> Result<(), String> {
        for slab in 0..self.pending.len() {
            self.forget_inboxes(slab);
            self.remove_inbox(slab, 0)?;
            self.remove_inbox(slab, 1)?;
        }
        Ok(())
    }

    /// The slab's table in generation `generation`.
    fn table_path(&self, slab: usize, generation: u8) -> PathBuf {
        self.folder.join(format!("slab-{slab}-{generation}.table"))
    }

    /// The bits of the slab's states of the next level found so far, in generation
    /// `generation`.
    fn next_path(&self, slab: usize, generation: u8) -> PathBuf {
        self.folder.join(format!("slab-{slab}-{generation}.next"))
    }

    pub(super) fn remove(&self, path: &Path) -> Result<(), String> {
        match std::fs::remove_file(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(format!("cannot remove {}: {e}", path.display()))
            }
            _ => Ok(()),
        }
    }

    /// Reads slab `slab`'s table and the bits of its states of the next level (of `entries`
    /// entries), into memory kept from earlier slabs where there is some, and counts the bytes;
    /// a slab held in memory is taken as it is.
    pub(super) fn read(&mut self, slab: usize, entries: u64) -> Result<Loaded, String> {
        let generation = match &mut self.backing {
            Backing::Held(held) => {
                let (table, next) = (held.slabs[slab].take())
                    .ok_or_else(|| format!("slab {slab} is not in memory"))?;
                return Ok(Loaded {
                    table,
                    next,
                    io: Io::default(),
                });
            }
            Backing::Files(files) => files.current[slab],
        };
        let paths = self.paths(slab, generation);
        let (table, next) = (self.table(entries), self.bits(entries));
        let io = read_slab(paths, &table, &next, entries, &|_, _| ())?;
        self.count(io);
        Ok(Loaded { table, next, io })
    }

    /// Leaves slab `slab` as it was read: held in memory again, or as its files hold it.
    pub(super) fn leave(&mut self, slab: usize, loaded: Loaded) {
        if let Some(held) = self.held() {
            held.slabs[slab] = Some((loaded.table, loaded.next));
        }
    }

    /// A table of `entries` entries, from the memory of earlier slabs where there is some, whose
    /// words the caller stores.
    fn table(&mut self, entries: u64) -> DistanceTable {
        match self.spare_tables.pop() {
            Some(spare) => spare.reused(entries),
            None => DistanceTable::new(entries),
        }
    }

    /// Slab `slab`'s table and bits in generation `generation`.
    fn paths(&self, slab: usize, generation: u8) -> [PathBuf; 2] {
        [
            self.table_path(slab, generation),
            self.next_path(slab, generation),
        ]
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
        self.merging = None;
    }

    /// Counts the bytes read by a [`SlabStore::read`].
    pub(super) fn count(&mut self, io: Io) {
        self.io.read += io.read;
        self.io.written += io.written;
        self.io.seconds += io.seconds;
    }

    /// Writes slab `slab`'s table and the bits of its states of the next level in the
    /// background ([`SlabStore::move_behind`]).
    pub(super) fn write(
        &mut self,
        slab: usize,
        table: DistanceTable,
        next: Bitmap,
    ) -> Result<(), SearchError> {
        self.move_behind(Some((slab, table, next)), None)
    }

    /// In the background, once what moved before is done: writes a slab's table and the bits
    /// of its states of the next level (`write`: the slab, its table and bits) into the
    /// generation the last checkpoint does not name, then reads a slab (`read`: the slab and its
    /// entries) into the memory just written from, so that a slab written behind and one read
    /// ahead take the room of one. [`SlabStore::take_loaded`] waits for the slab read,
    /// [`SlabStore::flush`] for all; the memory of a slab written and none read is kept for the
    /// next slabs.
    pub(super) fn move_behind(
        &mut self,
        write: Option<(usize, DistanceTable, Bitmap)>,
        read: Option<(usize, u64)>,
    ) -> Result<(), SearchError> {
        self.flush()?;
        if let Some(held) = self.held() {
            if let Some((slab, table, next)) = write {
                held.slabs[slab] = Some((table, next));
            }
            if let Some((slab, entries)) = read {
                self.loaded = Some(self.read(slab, entries)?);
            }
            return Ok(());
        }
        let write = match write {
            Some((slab, table, next)) => {
                let files = self.generations_mut()?;
                let to = files.committed[slab].map_or(0, |g| 1 - g);
                files.current[slab] = to;
                let entries = table.entries();
                Some((self.paths(slab, to), table, next, entries))
            }
            None => None,
        };
        let read = match read {
            Some((slab, entries)) => {
                let generation = self.generations()?.current[slab];
                Some((self.paths(slab, generation), entries))
            }
            None => None,
        };
        // Memory to read into, where no slab written lets some go.
        let freed = match (&write, &read) {
            (None, Some((_, entries))) => Some((self.table(*entries), self.bits(*entries))),
            _ => None,
        };
        let mut buffer = (self.generations_mut()?.buffer.take()).unwrap_or_else(Aligned::new);
        let job = move || -> Result<Moved, SearchError> {
            let (io, loaded, freed) = match (write, read) {
                (Some(write), Some(read)) => {
                    let (io, loaded) = write_and_read(write, read, &mut buffer)?;
                    (io, Some(loaded), None)
                }
                (Some((paths, table, next, entries)), None) => {
                    let io = write_slab(paths, (&table, &next, entries), &mut buffer, &|_, _| ())?;
                    (io, None, Some((table, next)))
                }
                (None, Some((paths, entries))) => {
                    let (table, next) = freed.expect("memory to read a slab into");
                    let (table, next) = (table.reused(entries), next.reused(entries));
                    let io = read_slab(paths, &table, &next, entries, &|_, _| ())?;
                    (Io::default(), Some(Loaded { table, next, io }), None)
                }
                (None, None) => (Io::default(), None, freed),
            };
            Ok(Moved {
                io,
                buffer,
                loaded,
                freed,
            })
        };
        let handle = std::thread::Builder::new()
            .name("slab-io".into())
            .spawn(job)
            .map_err(|e| format!("cannot start moving a slab: {e}"))?;
        self.generations_mut()?.behind = Some(handle);
        Ok(())
    }

    /// Waits for what moves in the background, if anything: its bytes are counted, the slab
    /// read is kept for [`SlabStore::take_loaded`] and the memory let go for the next slabs.
    pub(super) fn flush(&mut self) -> Result<(), SearchError> {
        let Backing::Files(files) = &mut self.backing else {
            return Ok(());
        };
        let Some(handle) = files.behind.take() else {
            return Ok(());
        };
        let moved = (handle.join()).map_err(|_| "moving a slab failed".to_string())??;
        files.buffer = Some(moved.buffer);
        self.count(moved.io);
        if let Some(loaded) = moved.loaded {
            self.count(loaded.io);
            self.loaded = Some(loaded);
        }
        if let Some((table, next)) = moved.freed {
            // A pass reads one slab at a time into them; keep no more.
            self.spare_tables.push(table);
            self.spare_tables.truncate(1);
            self.keep_bits(next);
        }
        Ok(())
    }

    /// The slab read in the background ([`SlabStore::move_behind`]), once it is in.
    pub(super) fn take_loaded(&mut self) -> Result<Loaded, SearchError> {
        self.flush()?;
        (self.loaded.take()).ok_or_else(|| "no slab was being read".into())
    }

    /// The table of slab `slab`, to read pieces of: held in memory, or its file opened; its
    /// states of the next level found so far read as unreached where `found_unreached` gives
    /// the slab's entries (from a file, its bits are read whole once a piece is read).
    pub(super) fn slab_table(
        &self,
        slab: usize,
        found_unreached: Option<u64>,
    ) -> Result<SlabTable<'_>, String> {
        let generation = match &self.backing {
            Backing::Held(held) => {
                let (table, next) = (held.slabs[slab].as_ref())
                    .ok_or_else(|| format!("slab {slab} is not in memory"))?;
                return Ok(SlabTable::Held(table, found_unreached.map(|_| next)));
            }
            Backing::Files(files) => files.current[slab],
        };
        let path = self.table_path(slab, generation);
        let file = File::open(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let next = found_unreached.map(|entries| Next {
            path: self.next_path(slab, generation),
            entries,
            bits: std::sync::OnceLock::new(),
        });
        Ok(SlabTable::File(file, next))
    }

    /// What a checkpoint after level `depth - 1` names of the files as they are now
    /// ([`SlabStore::commit`]).
    pub(super) fn named(&self, depth: u64) -> Result<Named, String> {
        let parity = (depth % 2) as usize;
        Ok(Named {
            generations: self.generations()?.current.clone(),
            inboxes: (self.pending.iter().zip(&self.inbox_bytes))
                .map(|(ranks, bytes)| [ranks[parity], bytes[parity]])
                .collect(),
            merged: self.merged.iter().map(|m| m[parity]).collect(),
        })
    }

    /// Puts everything written so far on the disk (the slabs written behind, the inboxes
    /// filled, the folder's names), for a checkpoint to name.
    pub(super) fn sync(&mut self) -> Result<(), SearchError> {
        self.flush()?;
        let sync = |path: &Path| {
            File::open(path)
                .and_then(|f| f.sync_all())
                .map_err(|e| format!("cannot sync {}: {e}", path.display()))
        };
        for slab in 0..self.pending.len() {
            for parity in 0..2 {
                if self.inbox_bytes[slab][parity as usize] > 0 {
                    sync(&self.inbox(slab, parity))?;
                }
            }
        }
        Ok(sync(&self.folder)?)
    }

    /// A checkpoint names the files as they are now: the generations and inboxes it does not
    /// name go.
    pub(super) fn commit(&mut self) -> Result<(), String> {
        for slab in 0..self.entries.len() {
            let files = self.generations_mut()?;
            let now = files.current[slab];
            files.committed[slab] = Some(now);
            self.remove(&self.table_path(slab, 1 - now))?;
            self.remove(&self.next_path(slab, 1 - now))?;
            for parity in 0..2 {
                if self.inbox_bytes[slab][parity as usize] == 0 {
                    self.remove(&self.inbox(slab, parity))?;
                }
                if !self.merged[slab][parity as usize] {
                    self.remove(&self.inbox_bits(slab, parity))?;
                }
            }
        }
        Ok(())
    }

    /// Takes the files up as a checkpoint named them: each slab in generation `generations`
    /// (checked to hold at least its entries), its inbox for level `depth` holding the ranks
    /// and bytes of `inboxes` and bits where `merged` says so (none where it is empty); the
    /// inboxes for the level after, which a run killed may have begun to fill, are emptied.
    pub(super) fn resume(
        &mut self,
        generations: &[u8],
        inboxes: &[[u64; 2]],
        merged: &[bool],
        depth: u64,
    ) -> Result<(), String> {
        let missing = |path: &Path, what: String| {
            format!(
                "{} {what}: the slabs are not those of the checkpoint; delete the checkpoint to start again",
                path.display()
            )
        };
        let len = |path: &Path| std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let parity = (depth % 2) as usize;
        for slab in 0..self.entries.len() {
            if !self.own.contains(&slab) {
                // Batches for another process's slab: no checkpoint names them.
                self.remove_inbox(slab, 0)?;
                self.remove_inbox(slab, 1)?;
                continue;
            }
            let entries = self.entries[slab];
            let g = generations[slab];
            let files = self.generations_mut()?;
            files.current[slab] = g;
            files.committed[slab] = Some(g);
            let table = DistanceTable::bytes_for(entries);
            let path = self.table_path(slab, g);
            if len(&path) < table {
                let what = format!("is missing or shorter than {table} bytes");
                return Err(missing(&path, what));
            }
            let path = self.next_path(slab, g);
            let next = bits::file_len(entries.div_ceil(64) as usize);
            if len(&path) != next {
                return Err(missing(&path, format!("does not hold {next} bytes")));
            }
            let has_bits = merged.get(slab).copied().unwrap_or(false);
            let path = self.inbox_bits(slab, depth % 2);
            if has_bits && len(&path) != next {
                return Err(missing(&path, format!("does not hold {next} bytes")));
            }
            let [ranks, bytes] = inboxes[slab];
            let inbox = self.inbox(slab, depth % 2);
            if len(&inbox) != bytes {
                return Err(missing(&inbox, format!("does not hold {bytes} bytes")));
            }
            self.forget_inboxes(slab);
            self.pending[slab][parity] = ranks;
            self.inbox_bytes[slab][parity] = bytes;
            self.merged[slab][parity] = has_bits;
            if !has_bits {
                self.remove(&path)?;
            }
            self.remove_inbox(slab, (depth + 1) % 2)?;
        }
        Ok(())
    }

    /// Removes every file of `slabs` slabs, and the folder where nothing else is left in it.
    pub(super) fn remove_all(&self, slabs: usize) -> Result<(), String> {
        for slab in 0..slabs {
            for generation in 0..2 {
                self.remove(&self.table_path(slab, generation))?;
                self.remove(&self.next_path(slab, generation))?;
            }
            self.remove_inbox(slab, 0)?;
            self.remove_inbox(slab, 1)?;
        }
        let _ = std::fs::remove_dir(&self.folder);
        Ok(())
    }
}
