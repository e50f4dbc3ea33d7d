//! The table beyond memory: its slabs on disk, one in memory at a time ([`DiskEngine`]).
//!
//! The table is cut into slabs as an MPI job's is ([`Slab`]: ranges of columns, the same in every
//! plane), each kept in the engine's folder as its table and the bits of its last levels. A pass
//! loads the slabs one after another: it first applies the slab's inbox (the ranks of the next
//! level that slabs before it found there), then expands the slab's states of the last level,
//! the plane moves a table word at a time (they stay in the slab), the others state by state,
//! setting the unreached neighbours in the slab and sending the others to their slab's inbox. A
//! slab that received ranks after its turn is loaded once more at the end of the pass, so that
//! every pass leaves a whole level. Slabs with neither states of the last level nor an inbox
//! are not read.

mod files;

pub use files::Io;

use crate::puzzle::StateSpace;
use crate::search::bitmap::Bitmap;
use crate::search::engine::{Engine, Passes};
use crate::search::levels::Levels;
use crate::search::slab::moves::{SlabMoves, plane_pass};
use crate::search::slab::{self, ROUND_BYTES, Slab};
use crate::search::{Progress, Step};
use crate::table::{DistanceTable, ENTRIES_PER_WORD, TableSource, TableView};
use files::SlabFiles;
use rayon::prelude::*;
use std::ops::ControlFlow;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// Bitmap words a rayon task expands (2^18 states at most).
const TASK_WORDS: usize = 4096;

/// The engine of a table whose slabs live on disk.
pub struct DiskEngine<'s, S: StateSpace> {
    space: &'s S,
    slabs: Vec<Slab>,
    /// The first column of each slab, and the end.
    bounds: Vec<u64>,
    moves: SlabMoves,
    files: SlabFiles,
    /// The states of each slab at the last level found.
    last: Vec<u64>,
    /// The bytes read and written by each step ([`DiskEngine::steps`]).
    steps: Vec<[u64; 2]>,
}

impl<'s, S: StateSpace> DiskEngine<'s, S> {
    /// An engine on `space` with its table cut into `slabs` slabs, kept in `folder`.
    pub fn new(space: &'s S, slabs: usize, folder: &Path) -> Result<Self, String> {
        let (size, planes) = (space.size(), space.slab_planes());
        let slabs: Vec<Slab> = (0..slabs)
            .map(|i| Slab::of(size, planes, i, slabs))
            .collect();
        Ok(DiskEngine {
            space,
            bounds: slab::bounds(slabs[0].width, slabs.len()),
            moves: SlabMoves::new(space, &slabs[0]),
            files: SlabFiles::new(folder, slabs.len())?,
            last: vec![0; slabs.len()],
            steps: Vec::new(),
            slabs,
        })
    }

    /// The bytes read and written so far, and the seconds it took.
    pub fn io(&self) -> Io {
        self.files.io
    }

    /// The bytes read and written by each step: laying the slabs out (at the level the search
    /// starts from, zeros before it), then each pass (the one that found level `d` at `d`, the
    /// last one finding nothing).
    pub fn steps(&self) -> &[[u64; 2]] {
        &self.steps
    }

    /// Records the bytes moved since `before` as the next step's.
    fn step(&mut self, before: Io) {
        let now = self.files.io;
        self.steps
            .push([now.read - before.read, now.written - before.written]);
    }

    /// Removes the slabs' files (the distances file holds the table).
    pub fn remove_files(&self) -> Result<(), String> {
        self.files.remove_all(self.slabs.len())
    }

    /// The slab that holds `rank`.
    fn owner(&self, rank: u64) -> usize {
        let column = rank % self.slabs[0].width;
        self.bounds.partition_point(|&b| b <= column) - 1
    }

    /// Writes every slab's table from `table` (the whole), and the bits of level `depth` from
    /// its entries holding `depth mod 3` (or exactly `list`, where given).
    fn store_all(
        &mut self,
        table: &dyn TableView,
        depth: u64,
        list: Option<&[u64]>,
    ) -> Result<(), String> {
        let value = (depth % 3) as u8;
        for i in 0..self.slabs.len() {
            let slab = self.slabs[i].clone();
            let part = DistanceTable::new(slab.entries());
            let mut bytes = Vec::new();
            for (whole, local, words) in slab.word_runs() {
                bytes.clear();
                table.append_le_bytes(whole..whole + words, &mut bytes)?;
                part.store_le_bytes(local, &bytes);
            }
            let bits = match list {
                Some(list) => {
                    let mine: Vec<u64> = (list.iter())
                        .filter(|&&r| slab.contains(r))
                        .map(|&r| slab.local(r))
                        .collect();
                    Bitmap::from_ranks(slab.entries(), &mine)
                }
                None => Bitmap::from_fn(slab.entries(), |w| part.value_bits(w, value)),
            };
            self.last[i] = (0..bits.word_count())
                .map(|w| u64::from(bits.word(w).count_ones()))
                .sum();
            self.files.write_table(i, &part)?;
            self.files.write_level(i, depth, &bits)?;
        }
        Ok(())
    }

    /// Applies slab `i`'s inbox to its `table`: each unreached rank there joins level `depth`
    /// (`bits`). Returns how many did.
    fn receive(
        &mut self,
        i: usize,
        table: &DistanceTable,
        bits: &Bitmap,
        depth: u64,
    ) -> Result<u64, String> {
        let slab = &self.slabs[i];
        let value = (depth % 3) as u8;
        let mut found = 0;
        self.files.receive(i, &mut |ranks| {
            found += (ranks.par_iter())
                .filter(|&&r| {
                    let local = slab.local(r);
                    let new = table.claim(local, value);
                    if new {
                        bits.insert(local);
                    }
                    new
                })
                .count() as u64;
        })?;
        Ok(found)
    }

    /// Expands slab `i`'s states of level `depth` (`level`): their unreached neighbours in the
    /// slab join level `depth + 1` (`next`), the others go to their slabs' inboxes. Returns how
    /// many joined here.
    fn expand(
        &mut self,
        i: usize,
        table: &DistanceTable,
        level: &Bitmap,
        next: &Bitmap,
        depth: u64,
        progress: &dyn Progress,
    ) -> Result<u64, String> {
        let value = ((depth + 1) % 3) as u8;
        let moves = self.space.move_count() as u64;
        // A round's neighbours outside the slab stay within ROUND_BYTES.
        let round_words = ((ROUND_BYTES / (8 * 64 * moves)) as usize).max(1);
        let words = level.word_count();
        // The plane moves a table word at a time; the others state by state.
        let mut found = plane_pass(&self.moves, &self.slabs[i], table, level, next, value);
        progress.found(found);
        for start in (0..words).step_by(round_words) {
            let round = start..(start + round_words).min(words);
            let slab = &self.slabs[i];
            let (here, away) = (round.clone().step_by(TASK_WORDS))
                .collect::<Vec<_>>()
                .into_par_iter()
                .map(|first| {
                    let mut walker = self.moves.walker(self.space.cursor());
                    let (mut here, mut away) = (0u64, Vec::new());
                    for w in first..(first + TASK_WORDS).min(round.end) {
                        let mut bits = level.word(w);
                        while bits != 0 {
                            let local = w as u64 * 64 + u64::from(bits.trailing_zeros());
                            bits &= bits - 1;
                            let _ = walker.each(slab.global(local), false, |n| {
                                if !slab.contains(n) {
                                    away.push(n);
                                } else if table.claim(slab.local(n), value) {
                                    next.insert(slab.local(n));
                                    here += 1;
                                }
                                ControlFlow::Continue(())
                            });
                        }
                    }
                    (here, away)
                })
                .reduce(
                    || (0, Vec::new()),
                    |(a, mut x), (b, y)| {
                        x.extend(y);
                        (a + b, x)
                    },
                );
            found += here;
            progress.found(here);
            self.send(away)?;
        }
        Ok(found)
    }

    /// Sends `ranks` (outside the slab being expanded) to their slabs' inboxes.
    fn send(&mut self, mut ranks: Vec<u64>) -> Result<(), String> {
        ranks.par_sort_unstable_by_key(|&r| (self.owner(r), r));
        let mut rest = &ranks[..];
        while let Some(&first) = rest.first() {
            let owner = self.owner(first);
            let n = rest.partition_point(|&r| self.owner(r) == owner);
            self.files.send(owner, &rest[..n])?;
            rest = &rest[n..];
        }
        Ok(())
    }

    /// The table, read from the slabs' files as it is asked for.
    fn view(&self) -> Result<SlabsView<'_>, String> {
        let files = (0..self.slabs.len())
            .map(|i| self.files.open_table(i))
            .collect::<Result<_, _>>()?;
        Ok(SlabsView {
            slabs: &self.slabs,
            bounds: &self.bounds,
            files,
            entries: self.space.size(),
        })
    }
}

impl<S: StateSpace> Engine for DiskEngine<'_, S> {
    fn start(&mut self, starts: &[u64]) -> Result<(), String> {
        let before = self.files.io;
        // Slab by slab: the whole table is never in memory.
        for i in 0..self.slabs.len() {
            let slab = &self.slabs[i];
            let mine: Vec<u64> = (starts.iter())
                .filter(|&&s| slab.contains(s))
                .map(|&s| slab.local(s))
                .collect();
            let part = DistanceTable::new(slab.entries());
            for &local in &mine {
                part.claim(local, 0);
            }
            let bits = Bitmap::from_ranks(slab.entries(), &mine);
            self.last[i] = mine.len() as u64;
            self.files.write_table(i, &part)?;
            self.files.write_level(i, 0, &bits)?;
        }
        self.step(before);
        Ok(())
    }

    fn load(
        &mut self,
        table: Box<dyn TableSource>,
        depth: u64,
        list: Option<Vec<u64>>,
    ) -> Result<(), String> {
        let before = self.files.io;
        self.store_all(table.as_ref(), depth, list.as_deref())?;
        self.steps = vec![[0, 0]; depth as usize];
        self.step(before);
        Ok(())
    }

    /// A top-down pass slab by slab. The slabs' engine runs no bottom-up pass ([`Passes`]): its
    /// neighbours in other slabs are on disk.
    fn pass(
        &mut self,
        step: Step,
        levels: &Levels,
        progress: &dyn Progress,
    ) -> Result<u64, String> {
        debug_assert_eq!(step, Step::TopDown);
        let before = self.files.io;
        let depth = levels.len() - 1;
        let k = self.slabs.len();
        let mut counts = vec![0u64; k];
        let mut done = vec![false; k];
        for i in 0..k {
            if self.last[i] == 0 && !self.files.has_inbox(i) {
                continue;
            }
            let entries = self.slabs[i].entries();
            let table = self.files.read_table(i, entries)?;
            let next = Bitmap::new(entries);
            counts[i] += self.receive(i, &table, &next, depth + 1)?;
            if self.last[i] > 0 {
                let level = self.files.read_level(i, depth, entries)?;
                counts[i] += self.expand(i, &table, &level, &next, depth, progress)?;
            }
            self.files.write_table(i, &table)?;
            self.files.write_level(i, depth + 1, &next)?;
            done[i] = true;
        }
        // The slabs that received ranks after their turn.
        for i in 0..k {
            if !self.files.has_inbox(i) {
                continue;
            }
            let entries = self.slabs[i].entries();
            let table = self.files.read_table(i, entries)?;
            let next = match done[i] {
                true => self.files.read_level(i, depth + 1, entries)?,
                false => Bitmap::new(entries),
            };
            let found = self.receive(i, &table, &next, depth + 1)?;
            progress.found(found);
            counts[i] += found;
            self.files.write_table(i, &table)?;
            self.files.write_level(i, depth + 1, &next)?;
        }
        let found = counts.iter().sum();
        // After a pass that finds nothing, the last level stays the one found before.
        if found > 0 {
            self.last = counts;
        }
        self.step(before);
        Ok(found)
    }

    fn passes(&self) -> Passes {
        Passes::TOP_DOWN
    }

    fn smallest(&mut self, depth: u64, limit: usize) -> Result<Vec<u64>, String> {
        let mut smallest = Vec::new();
        for i in 0..self.slabs.len() {
            if self.last[i] == 0 {
                continue;
            }
            let slab = self.slabs[i].clone();
            let bits = self.files.read_level(i, depth, slab.entries())?;
            // Within a slab, the entries ascend with the ranks.
            smallest.extend(bits.smallest(limit).into_iter().map(|l| slab.global(l)));
        }
        smallest.sort_unstable();
        smallest.truncate(limit);
        Ok(smallest)
    }

    fn with_table(
        &mut self,
        f: &mut dyn FnMut(&dyn TableView) -> Result<(), String>,
    ) -> Result<(), String> {
        f(&self.view()?)
    }

    fn into_table(self) -> Result<DistanceTable, String> {
        let view = self.view()?;
        let mut bytes = Vec::new();
        view.append_le_bytes(
            0..self.space.size().div_ceil(ENTRIES_PER_WORD) as usize,
            &mut bytes,
        )?;
        drop(view);
        self.remove_files()?;
        Ok(DistanceTable::from_le_bytes(self.space.size(), &bytes))
    }
}

/// The whole table, read from the slabs' table files: each of its words is in one slab.
struct SlabsView<'e> {
    slabs: &'e [Slab],
    bounds: &'e [u64],
    files: Vec<std::fs::File>,
    entries: u64,
}

impl TableView for SlabsView<'_> {
    fn entries(&self) -> u64 {
        self.entries
    }

    fn append_le_bytes(
        &self,
        words: std::ops::Range<usize>,
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        let width = self.slabs[0].width;
        let mut w = words.start;
        while w < words.end {
            let rank = w as u64 * ENTRIES_PER_WORD;
            let (plane, column) = (rank / width, rank % width);
            let i = self.bounds.partition_point(|&b| b <= column) - 1;
            let slab = &self.slabs[i];
            // The words of this plane in this slab, from `w` on.
            let run = ((slab.end - column).div_ceil(ENTRIES_PER_WORD) as usize).min(words.end - w);
            let local = slab.entry(plane, column) / ENTRIES_PER_WORD;
            let at = out.len();
            out.resize(at + 8 * run, 0);
            self.files[i]
                .read_exact_at(&mut out[at..], 8 * local)
                .map_err(|e| format!("cannot read slab {i} of the table: {e}"))?;
            w += run;
        }
        Ok(())
    }
}
