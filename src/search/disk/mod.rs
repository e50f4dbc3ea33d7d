//! The table beyond memory: its slabs on disk, one in memory at a time ([`DiskEngine`]).
//!
//! The table is cut into slabs as an MPI job's is ([`Slab`]: ranges of columns, the same in every
//! plane), each kept in the engine's folder as its table and the bits of its states of the next
//! level found so far. A pass that finds level `d + 1` loads each slab once: it applies the
//! slab's inbox (the ranks of level `d + 1` that other slabs found there in the pass before),
//! which completes the slab's level `d + 1`, and at once expands it: the block moves that stay in
//! the slab are swept as in memory, 64 entries at a time (`local`: the slabs are cut where most
//! moves stay in one), the others pushed state by state; neighbours in the slab are set to level
//! `d + 2` there and then (its table holds every level up to `d + 1` by now), the others go to
//! their slab's inbox for level `d + 2`. So each slab is read and written once a pass, and a
//! pass ends with a whole level: while one slab is searched, the one before is written and the
//! next read into its memory. Slabs with no state of the level are not read. After each pass
//! the slabs' files are the checkpoint (`checkpoint`).
//!
//! The same engine keeps its slabs in host memory where a GPU that cannot hold the table sweeps
//! them (the host tier, [`Cut::in_memory`]): a slab is taken and put back with no copy, the
//! inboxes are bits, and a checkpoint is the table at its last whole level.

mod bits;
mod checkpoint;
pub mod footprint;
mod inbox;
mod io;
mod lists;
mod local;
mod owners;
mod peers;
mod rounds;
mod state;
mod store;
mod sweeper;
mod tail;
mod transfer;
mod view;

pub use bits::disk_bytes as bits_disk_bytes;
pub use inbox::disk_bytes as inbox_disk_bytes;
pub use io::{IO_BYTES, Io};
pub use local::slab_units;
pub use peers::{Peers, SHIP_BYTES, owned};
pub use state::SlabsState;
pub use sweeper::SlabSweep;

use crate::puzzle::{BlockMove, StateSpace, Structure};
use crate::search::bitmap::Bitmap;
use crate::search::engine::{Engine, InPlace, Passes};
use crate::search::levels::Levels;
use crate::search::slab::Slab;
use crate::search::slab::moves::SlabMoves;
use crate::search::smallest::merge_smallest;
use crate::search::sweep::Sweep;
use crate::search::{Checkpoints, Progress, SearchError, Silent, Step};
use crate::table::{DistanceTable, ENTRIES_PER_WORD, TableSource, TableView};
use lists::Lists;
use owners::Owners;
use rayon::prelude::*;
use std::ops::Range;
use std::path::Path;
use std::sync::Mutex;
use store::SlabStore;
use tail::Tail;

/// How a table on disk is cut ([`DiskEngine::new`]).
#[derive(Clone, Copy, Debug)]
pub struct Cut {
    /// How many slabs.
    pub slabs: usize,
    /// The columns the cuts are multiples of ([`slab_units`]).
    pub unit: u64,
    /// The bytes the first levels may take as lists, before the slabs are laid out (a loaded
    /// slab's memory).
    pub list_bytes: u64,
    /// The bytes of the neighbours a round sends to other slabs.
    pub round_bytes: u64,
    /// Whether the slabs live in host memory (the host tier: a GPU sweeps them), their tables,
    /// levels and inboxes, not on disk.
    pub in_memory: bool,
}

/// Has the allocator take allocations of 4 MiB and more straight from the kernel and give them
/// back when freed. glibc otherwise raises that threshold to the largest block freed (up to
/// 32 MiB) and keeps such blocks on its heap, where they add up beyond the plan's parts (a
/// Turnstyle 13 search within 256 MiB peaked at 286 MB with it, 205 MB without).
fn hand_back_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: sets a parameter of the C allocator, which takes its own locks.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 4 << 20);
    }
}

/// What a table on disk is laid out from.
enum Source<'a> {
    /// A whole table, and the states of its last level where they are listed (else they are
    /// its entries holding the level's value).
    Table(&'a dyn TableView, &'a [u64]),
    /// The lists of the first levels.
    Lists(&'a Lists),
}

/// The engine of a table whose slabs live on disk.
pub struct DiskEngine<'s, S: StateSpace> {
    space: &'s S,
    slabs: Vec<Slab>,
    /// The columns the cuts are multiples of.
    unit: u64,
    /// Which slab holds each rank.
    owners: Owners,
    /// Each slab's block moves that stay in it, in its entries.
    swept: Vec<Vec<BlockMove>>,
    /// The other moves, pushed state by state.
    pushed: SlabMoves,
    /// Each slab's entries where pushed moves apply.
    pushed_at: Vec<Vec<Range<u64>>>,
    store: SlabStore,
    /// The states of the next level that each slab found in itself.
    found: Vec<u64>,
    /// How many of the smallest ranks of a level are kept.
    limit: usize,
    /// The smallest `limit` ranks of the last level found.
    smallest: Vec<u64>,
    /// The first levels as lists, until the slabs are laid out.
    lists: Option<Lists>,
    /// The bytes the lists (and the tail) may take.
    list_bytes: u64,
    /// The bytes of a round's neighbours for other slabs.
    round_bytes: u64,
    /// A round's neighbours for other slabs, sorted by slab ([`DiskEngine::send`]), kept from
    /// round to round.
    round: Mutex<Vec<u64>>,
    /// The round sorted by slab ([`DiskEngine::send`]), kept from round to round.
    sorted: Vec<u64>,
    /// The last levels, once few states are left unreached.
    tail: Option<Tail>,
    /// The bytes read and written by each step ([`DiskEngine::steps`]).
    steps: Vec<[u64; 2]>,
    /// Where the slabs' block moves are swept, if not here.
    sweeper: Option<Box<dyn SlabSweep + Sync + 's>>,
    /// The other processes of an MPI job, each searching its own slabs ([`peers`]).
    peers: Option<&'s dyn Peers>,
    /// Taken up from slabs on disk, with no pass since: their states of the next level found
    /// so far are read as unreached where the level loop weighs the table it goes on from.
    resumed: bool,
}

impl<'s, S: StateSpace> DiskEngine<'s, S> {
    /// An engine on `space` with its table cut as `cut` says, kept in `folder`, keeping the
    /// `limit` smallest ranks of each level.
    pub fn new(space: &'s S, cut: Cut, folder: &Path, limit: usize) -> Result<Self, String> {
        let Cut {
            slabs,
            unit,
            list_bytes,
            round_bytes,
            in_memory,
        } = cut;
        let (size, planes) = (space.size(), space.capabilities().slab_planes());
        let slabs: Vec<Slab> = (0..slabs)
            .map(|i| Slab::cut(size, planes, i, slabs, unit))
            .collect();
        let split = local::split(space, &slabs);
        let owners = Owners::new(&slabs, unit, size);
        if owners.rank_bits() + usize::BITS - slabs.len().leading_zeros() > u64::BITS {
            return Err(format!(
                "{} slabs of {size} entries are too many to number: give more memory",
                slabs.len()
            ));
        }
        hand_back_freed_memory();
        Ok(DiskEngine {
            space,
            owners,
            swept: split.swept,
            pushed: split.pushed,
            pushed_at: split.pushed_at,
            store: SlabStore::new(
                folder,
                slabs.iter().map(|s| s.entries()).collect(),
                in_memory,
            )?,
            found: vec![0; slabs.len()],
            limit,
            smallest: Vec::new(),
            lists: None,
            list_bytes,
            round_bytes,
            round: Mutex::new(Vec::new()),
            sorted: Vec::new(),
            tail: None,
            steps: Vec::new(),
            sweeper: None,
            peers: None,
            resumed: false,
            slabs,
            unit,
        })
    }

    /// This engine with the slabs' block moves swept by `sweeper`.
    pub fn sweeping_with(self, sweeper: Box<dyn SlabSweep + Sync + 's>) -> Self {
        DiskEngine {
            sweeper: Some(sweeper),
            ..self
        }
    }

    /// The bytes read and written so far, and the seconds it took.
    pub fn io(&self) -> Io {
        self.store.io
    }

    /// The bytes read and written by each step: laying the slabs out (at the level the search
    /// starts from, zeros before it), then each pass (the one that found level `d` at `d`, the
    /// last one finding nothing).
    pub fn steps(&self) -> &[[u64; 2]] {
        &self.steps
    }

    /// Records the bytes moved since `before` as the next step's.
    fn step(&mut self, before: Io) {
        let now = self.store.io;
        self.steps
            .push([now.read - before.read, now.written - before.written]);
    }

    /// Removes the slabs' files (the distances file holds the table).
    pub fn remove_files(&self) -> Result<(), String> {
        self.store.remove_all(self.slabs.len())
    }

    /// Lays out every slab's table from `source`, and expands its level `depth` in it.
    fn prime(&mut self, source: Source, depth: u64) -> Result<(), SearchError> {
        let value = (depth % 3) as u8;
        let mut smallest = Vec::new();
        for i in self.mine() {
            let slab = self.slabs[i].clone();
            let part = self.store.unreached_table(slab.entries());
            let level = match source {
                Source::Table(table, list) => {
                    let mut bytes = Vec::new();
                    for (whole, local, words) in slab.word_runs() {
                        bytes.clear();
                        table.append_le_bytes(whole..whole + words, &mut bytes)?;
                        part.store_le_bytes(local, &bytes);
                    }
                    match list.is_empty() {
                        true => Bitmap::from_fn(slab.entries(), |w| part.value_bits(w, value)),
                        false => {
                            let mine: Vec<u64> = (list.iter())
                                .filter(|&&r| slab.contains(r))
                                .map(|&r| slab.local(r))
                                .collect();
                            Bitmap::from_ranks(slab.entries(), &mine)
                        }
                    }
                }
                Source::Lists(lists) => {
                    let mut last = Vec::new();
                    for d in 0..=depth as usize {
                        last = lists.in_slab(d, &slab);
                        for &local in &last {
                            part.claim(local, (d % 3) as u8);
                        }
                    }
                    Bitmap::from_ranks(slab.entries(), &last)
                }
            };
            smallest = self.keep_smallest(i, &level, smallest);
            let next = self.store.bits(slab.entries());
            next.clear();
            self.found[i] = self.expand(i, &part, &level, &next, depth)?;
            self.store.write(i, part, next)?;
            // Not written behind: the lists take the room of the slab before ([`Lists`]).
            self.store.flush()?;
            self.store.keep_bits(level);
        }
        self.smallest = self.job_smallest(smallest);
        self.store.flush()?;
        self.ship(depth + 1)
    }

    /// Lays the slabs out from the lists of the first levels, where they are still lists.
    fn lay_out(&mut self) -> Result<(), SearchError> {
        if let Some(lists) = self.lists.take() {
            let depth = lists.levels.len() as u64 - 1;
            self.prime(Source::Lists(&lists), depth)?;
        }
        Ok(())
    }

    /// The tail after the last level found: the states it left unreached, read from the slabs
    /// (the states of the next level found so far count as unreached: the tail finds them
    /// again, and the inboxes are dropped).
    fn unreached(&mut self) -> Result<Tail, String> {
        let mut remaining = Vec::new();
        for i in self.mine() {
            let slab = &self.slabs[i];
            let loaded = self.store.read(i, slab.entries())?;
            remaining.extend(tail::open_ranks(
                self.space,
                slab,
                &loaded.table,
                &loaded.next,
            ));
            self.store.leave(i, loaded);
            self.found[i] = 0;
            self.store.forget_inboxes(i);
        }
        let mut remaining = self.job_ranks(remaining);
        remaining.par_sort_unstable();
        Ok(Tail {
            remaining,
            levels: Vec::new(),
        })
    }

    /// `smallest` (ascending, at most the engine's limit) with slab `i`'s smallest ranks of
    /// `level` merged in.
    fn keep_smallest(&self, i: usize, level: &Bitmap, smallest: Vec<u64>) -> Vec<u64> {
        let slab = &self.slabs[i];
        // Within a slab, the entries ascend with the ranks.
        let mine = (level.smallest(self.limit).into_iter())
            .map(|l| slab.global(l))
            .collect();
        merge_smallest(smallest, mine, self.limit)
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
        let claim = |local: u64| {
            let new = table.claim(local, value);
            if new {
                bits.insert(local);
            }
            new
        };
        self.store.receive(i, depth, &claim, &|r| slab.local(r))
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
    ) -> Result<u64, SearchError> {
        let value = ((depth + 1) % 3) as u8;
        let mut found = 0;
        if let Some(sweeper) = self.sweeper.as_mut().filter(|_| !self.swept[i].is_empty()) {
            found += sweeper.sweep(&self.swept[i], table, next, depth)?;
        } else if !self.swept[i].is_empty() {
            let structure = Structure {
                blocks: self.swept[i].clone(),
                residual: Vec::new(),
            };
            let sweep = Sweep::new(structure, table.entries(), None);
            found += sweep.pass_bits(self.space, table, level, next, value, &Silent);
        }
        Ok(found + self.push_rounds(i, table, level, next, depth)?)
    }
}

impl<S: StateSpace> Engine for DiskEngine<'_, S> {
    fn start(&mut self, starts: &[u64]) -> Result<(), SearchError> {
        self.store.clear()?;
        self.lists = Some(Lists::new(starts, self.list_bytes));
        self.smallest = starts.iter().copied().take(self.limit).collect();
        self.steps.push([0, 0]);
        Ok(())
    }

    fn load(
        &mut self,
        table: Box<dyn TableSource>,
        depth: u64,
        list: Option<Vec<u64>>,
    ) -> Result<(), SearchError> {
        self.store.clear()?;
        let before = self.store.io;
        self.steps = vec![[0, 0]; depth as usize];
        let list = list.unwrap_or_default();
        self.prime(Source::Table(table.as_ref(), &list), depth)?;
        self.step(before);
        Ok(())
    }

    /// A pass of kind `step`, as the level loop chose it ([`Engine::passes`]): the lists of the
    /// first levels while they have room (a frontier pass), the tail of the unreached once it
    /// pays (a remaining pass), or else a pass over the slabs, sweeping their block moves where
    /// they have some. The slabs' engine runs no bottom-up pass: its neighbours in other slabs
    /// are on disk.
    fn pass(
        &mut self,
        step: Step,
        levels: &Levels,
        progress: &dyn Progress,
    ) -> Result<u64, SearchError> {
        self.resumed = false;
        let before = self.store.io;
        match step {
            Step::Frontier => {
                let lists = (self.lists.as_mut()).ok_or("the first levels are no longer lists")?;
                let count = lists.pass(self.space);
                progress.found(count);
                if count > 0 {
                    self.smallest = lists.smallest(self.limit);
                }
                self.step(before);
                return Ok(count);
            }
            Step::Remaining => {
                self.lay_out()?;
                if self.tail.is_none() {
                    self.store.let_go(); // the tail's list takes the room of the slabs' memory
                    self.tail = Some(self.unreached()?);
                }
                let tail = (self.tail.as_mut()).ok_or("no tail of the unreached")?;
                let count = tail.pass(self.space, levels.len());
                progress.found(count);
                if count > 0 {
                    self.smallest = tail.smallest(self.limit);
                }
                self.step(before);
                return Ok(count);
            }
            _ => self.lay_out()?,
        }
        // The pass completes level `depth` and expands it: slab by slab, sweeping their block
        // moves where they have some, pushing the rest in rounds.
        let depth = levels.len();
        let mut count = 0;
        let mut smallest = Vec::new();
        let order: Vec<usize> = (self.mine())
            .filter(|&i| self.found[i] > 0 || self.store.has_inbox(i, depth))
            .collect();
        self.store.clear_inboxes(depth + 1)?;
        // The first slab is read now; then, while one is searched, the one before is written
        // and the one after read into its memory ([`SlabStore::move_behind`]).
        let sizes: Vec<(usize, u64)> = (order.iter())
            .map(|&i| (i, self.slabs[i].entries()))
            .collect();
        let read_at = |at: usize| sizes.get(at).copied();
        let mut loaded = match read_at(0) {
            Some((i, entries)) => Some(self.store.read(i, entries)?),
            None => None,
        };
        if order.len() > 1 {
            self.store.move_behind(None, read_at(1))?;
        }
        for (at, &i) in order.iter().enumerate() {
            let (table, level) = match loaded.take() {
                Some(l) => (l.table, l.next),
                None => return Err(format!("slab {i} was not read").into()),
            };
            let here = self.found[i] + self.receive(i, &table, &level, depth)?;
            progress.found(here);
            count += here;
            smallest = self.keep_smallest(i, &level, std::mem::take(&mut smallest));
            let next = self.store.bits(table.entries());
            next.clear();
            self.found[i] = self.expand(i, &table, &level, &next, depth)?;
            if at + 1 < order.len() {
                loaded = Some(self.store.take_loaded()?);
            }
            self.store
                .move_behind(Some((i, table, next)), read_at(at + 2))?;
            self.store.keep_bits(level);
        }
        self.store.flush()?;
        // The job's level: its neighbours in other processes' slabs sent there, its count and
        // smallest ranks over the processes.
        self.ship(depth + 1)?;
        let count = self.job_total(count);
        let smallest = self.job_smallest(smallest);
        // After a pass that finds nothing, the last level stays the one found before.
        if count > 0 {
            self.smallest = smallest;
        }
        self.step(before);
        Ok(count)
    }

    /// Lists of the first levels, the tail of the unreached, and passes over the slabs: sweeps
    /// where the slabs keep block moves, else top-down.
    fn passes(&self) -> Passes {
        Passes {
            frontier: true,
            remaining: true,
            sweep: self.swept.iter().any(|s| !s.is_empty()),
            bottom_up: false,
        }
    }

    /// While the first levels are lists, as long as the next has room beside them.
    fn lists_next(&self, _: u64) -> Option<bool> {
        let moves = self.space.move_count();
        Some((self.lists.as_ref()).is_some_and(|l| l.room_for_next(moves)))
    }

    /// Once the unreached fit the lists' room and a binary search among them costs less than a
    /// pass over the slabs (`Tail::pays`).
    fn lists_remaining(&self, unreached: u64) -> Option<bool> {
        let (size, moves) = (self.space.size(), self.space.move_count());
        // Once chosen, the loop keeps to remaining passes without asking again.
        Some(Tail::pays(unreached, size, moves, self.list_bytes))
    }

    fn resume_in_place(
        &mut self,
        state: InPlace,
        depth: u64,
        antipodes: &[u64],
    ) -> Result<(), SearchError> {
        Ok(self.take_up(SlabsState::of(state)?, depth, antipodes)?)
    }

    /// The slabs' files are the checkpoint; slabs held in memory save the whole table, as the
    /// in-memory engines do.
    fn saves_in_place(&self) -> bool {
        !self.store.in_memory()
    }

    fn save(
        &mut self,
        checkpoints: &dyn Checkpoints,
        levels: &Levels,
        antipodes: &[u64],
        over: bool,
    ) -> Result<(), SearchError> {
        self.save_slabs(checkpoints, levels, antipodes, over)
    }

    fn smallest(&mut self, _depth: u64, limit: usize) -> Result<Vec<u64>, SearchError> {
        Ok(self.smallest.iter().copied().take(limit).collect())
    }

    fn count_holding(&mut self, ranges: &[Range<u64>], value: u8) -> Result<Vec<u64>, SearchError> {
        Ok(self.weigh_counts(ranges, value)?)
    }

    fn values_at(&mut self, ranks: &[u64]) -> Result<Vec<u8>, SearchError> {
        Ok(self.weigh_values(ranks)?)
    }

    fn with_table(
        &mut self,
        f: &mut dyn FnMut(&dyn TableView) -> Result<(), String>,
    ) -> Result<(), SearchError> {
        self.lay_out()?;
        // The distances file is written in the room the slabs took.
        self.store.let_go();
        Ok(f(&self.view()?)?)
    }

    fn into_table(mut self) -> Result<DistanceTable, SearchError> {
        self.lay_out()?;
        self.store.let_go();
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
