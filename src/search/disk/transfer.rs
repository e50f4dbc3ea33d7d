//! A slab moved between memory and its files: its table (2 bits an entry, [`super::io`]) and the bits
//! of its states of the next level ([`bits`]) read, written, or written while another slab is
//! read into the same memory, side by side, piece by piece ([`write_and_read`]).

use super::bits;
use super::io::{Aligned, Io, read, write};
use crate::search::SearchError;
use crate::search::bitmap::Bitmap;
use crate::table::{DistanceTable, TableView};
use std::path::PathBuf;
use std::sync::{Condvar, Mutex};

/// A slab's table and the bits of its states of the next level, as read from its files, and
/// the bytes that took.
pub(super) struct Loaded {
    pub(super) table: DistanceTable,
    pub(super) next: Bitmap,
    pub(super) io: Io,
}

/// How far a slab's write has taken the words out of its memory (its table's, then its bits'),
/// so that a slab read into the same memory follows it piece by piece ([`write_and_read`]).
#[derive(Default)]
struct Behind {
    /// The words of the table and of the bits taken so far.
    taken: Mutex<[usize; 2]>,
    moved: Condvar,
}

impl Behind {
    /// Part `part` (0 the table, 1 the bits) has its first `words` words taken.
    fn taken(&self, part: usize, words: usize) {
        let mut taken = self.taken.lock().unwrap_or_else(|e| e.into_inner());
        taken[part] = words;
        self.moved.notify_all();
    }

    /// Waits until part `part` has its first `words` words taken.
    fn wait(&self, part: usize, words: usize) {
        let mut taken = self.taken.lock().unwrap_or_else(|e| e.into_inner());
        while taken[part] < words {
            taken = self.moved.wait(taken).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// Reads a slab of `entries` entries, its table and the bits of its states of the next level,
/// from `paths` into `table` and `next` (each word once `wait(part, words)` returns for it).
pub(super) fn read_slab(
    paths: [PathBuf; 2],
    table: &DistanceTable,
    next: &Bitmap,
    entries: u64,
    wait: &dyn Fn(usize, usize),
) -> Result<Io, String> {
    let [table_path, next_path] = paths;
    let len = DistanceTable::bytes_for(entries);
    let mut io = read(&table_path, len, &mut |word, bytes| {
        wait(0, word + bytes.len() / 8);
        table.store_le_bytes(word, bytes)
    })?;
    let bits = entries.div_ceil(64) as usize;
    let more = bits::read_bits(&next_path, next, bits, &|words| wait(1, words))?;
    io.read += more.read;
    io.seconds += more.seconds;
    Ok(io)
}

/// Writes a slab of `entries` entries, its `table` and the bits of its states of the next level
/// (`next`), to `paths` through `buffer`, calling `taken(part, words)` as the words of each part
/// are taken out of its memory (`usize::MAX` once all are).
pub(super) fn write_slab(
    paths: [PathBuf; 2],
    (table, next, entries): (&DistanceTable, &Bitmap, u64),
    buffer: &mut Aligned,
    taken: &dyn Fn(usize, usize),
) -> Result<Io, SearchError> {
    let [table_path, next_path] = paths;
    let words = DistanceTable::bytes_for(entries) as usize / 8;
    let mut io = write(&table_path, words, buffer, |range, out| {
        table.append_le_bytes(range.clone(), out)?;
        taken(0, range.end);
        Ok(())
    })?;
    taken(0, usize::MAX);
    let bits = entries.div_ceil(64) as usize;
    let more = bits::write_bits(&next_path, next, bits, buffer, &|words| taken(1, words))?;
    taken(1, usize::MAX);
    io.written += more.written;
    io.seconds += more.seconds;
    Ok(io)
}

/// Writes a slab (`write`: its files, table, bits and entries) and reads another (`read`: its
/// files and entries) into the same memory, side by side: the read stores each piece once the
/// write has taken the words there out. The memory comes back sized for the slab read.
pub(super) fn write_and_read(
    write: ([PathBuf; 2], DistanceTable, Bitmap, u64),
    read: ([PathBuf; 2], u64),
    buffer: &mut Aligned,
) -> Result<(Io, Loaded), SearchError> {
    let (paths, table, next, written) = write;
    let (read_paths, entries) = read;
    // Room for both (more words keep the slab written as it is).
    let most = written.max(entries);
    let (table, next) = (table.reused(most), next.reused(most));
    let behind = Behind::default();
    let (wrote, loaded) = std::thread::scope(|scope| {
        let writer = scope.spawn(|| {
            let wrote = write_slab(paths, (&table, &next, written), buffer, &|part, words| {
                behind.taken(part, words)
            });
            // A failed write lets the read go on (its slab is not used then).
            behind.taken(0, usize::MAX);
            behind.taken(1, usize::MAX);
            wrote
        });
        let loaded = read_slab(read_paths, &table, &next, entries, &|part, words| {
            behind.wait(part, words)
        });
        let wrote = (writer.join()).unwrap_or_else(|_| Err("writing a slab failed".into()));
        (wrote, loaded)
    });
    let (wrote, io) = (wrote?, loaded?);
    let (table, next) = (table.reused(entries), next.reused(entries));
    Ok((wrote, Loaded { table, next, io }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::disk::store::SlabStore;

    /// A slab of `entries` entries whose words follow from `seed`: its table, and its bits
    /// dense in the first piece and sparse after.
    fn slab(entries: u64, seed: u64) -> (Vec<u64>, Vec<u64>) {
        let word = |w: usize| ((w as u64) ^ seed).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let table = (0..entries.div_ceil(32) as usize).map(word).collect();
        let bits = (0..entries.div_ceil(64) as usize)
            .map(|w| {
                if w < 1 << 20 {
                    word(w)
                } else {
                    word(w) & word(w + 1) & 1 << 7
                }
            })
            .collect();
        (table, bits)
    }

    fn load(entries: u64, (table, bits): &(Vec<u64>, Vec<u64>)) -> (DistanceTable, Bitmap) {
        let next = Bitmap::from_fn(entries, |w| bits[w]);
        (DistanceTable::from_words(entries, table.clone()), next)
    }

    fn held(loaded: &Loaded) -> (Vec<u64>, Vec<u64>) {
        let table = (0..loaded.table.word_count()).map(|w| loaded.table.word(w));
        let bits = (0..loaded.next.word_count()).map(|w| loaded.next.word(w));
        (table.collect(), bits.collect())
    }

    #[test]
    fn slabs_written_and_read_into_the_same_memory_side_by_side_come_back_as_they_were() {
        let folder = std::env::temp_dir().join(format!("gpusearch-files-{}", std::process::id()));
        // Slab 0 larger than slab 1, each more than a piece of its files.
        let sizes = [(40 << 20) + 5, (36 << 20) + 3];
        let mut files = SlabStore::new(&folder, sizes.to_vec(), false).unwrap();
        let first: Vec<_> = (0..2).map(|i| slab(sizes[i], i as u64)).collect();
        for i in 0..2 {
            let (table, next) = load(sizes[i], &first[i]);
            files.write(i, table, next).unwrap();
        }
        files.flush().unwrap();
        files.commit().unwrap();
        // Slab 0 written anew while slab 1 is read into its memory, then the other way round.
        let again = slab(sizes[0], 7);
        let (table, next) = load(sizes[0], &again);
        files
            .move_behind(Some((0, table, next)), Some((1, sizes[1])))
            .unwrap();
        let one = files.take_loaded().unwrap();
        assert!(held(&one) == first[1], "slab 1 as it was written");
        files
            .move_behind(Some((1, one.table, one.next)), Some((0, sizes[0])))
            .unwrap();
        let zero = files.take_loaded().unwrap();
        assert!(held(&zero) == again, "slab 0 as it was written again");
        files.flush().unwrap();
        files.remove_all(2).unwrap();
    }
}
