//! One process of an MPI job on its GPU (`mpirun -np P gpusearch --backend gpu ...`): the slab's
//! table on the device ([`GpuEngine::on_slab`]), the exchanges as the CPU processes make them
//! ([`crate::search::cluster`]): a pass runs in rounds of the table's blocks, each sending the
//! neighbours outside the slab to their owners, who claim them on their devices; a bottom-up
//! round asks the owners instead, who answer from their devices.

use super::engine::GpuEngine;
use super::engine::slab::Outbox;
use crate::search::SearchError;
use crate::search::cluster::{Exchanged, MpiJob, SlabEngine, owner};
use crate::search::engine::Engine;
use crate::search::levels::Levels;
use crate::search::slab::{Slab, bounds};
use crate::search::{Passes, Progress, Step};
use crate::table::{DistanceTable, TableSource, TableView};

/// The engine of one process's slab on its GPU.
pub struct GpuSlabEngine<'g, 'c> {
    engine: GpuEngine<'g>,
    cluster: &'c MpiJob,
    slab: Slab,
    /// The first column of each process's slab, and the end.
    bounds: Vec<u64>,
    /// Whether the pass under way goes bottom-up.
    bottom_up: bool,
    /// The blocks a round takes, as the last pass left it (cut where a round overflows the
    /// outbox, doubled where a round leaves it mostly empty), and its bounds
    /// ([`GpuEngine::round_blocks`]).
    span: u64,
    span_limits: (u64, u64),
    exchanged: Exchanged,
}

impl<'g, 'c> GpuSlabEngine<'g, 'c> {
    /// The engine of `slab`, of a space of `moves` moves, in the job
    /// `cluster`, on the device's `engine` ([`GpuEngine::on_slab`]).
    pub fn new(engine: GpuEngine<'g>, cluster: &'c MpiJob, slab: Slab, moves: usize) -> Self {
        let span_limits = engine.round_blocks(moves);
        GpuSlabEngine {
            engine,
            cluster,
            bounds: bounds(slab.width, slab.count),
            slab,
            bottom_up: false,
            span: span_limits.1,
            span_limits,
            exchanged: Exchanged::default(),
        }
    }

    /// `result`'s value, or the whole job ended with its error: the other processes are in the
    /// pass's collectives, so this one cannot leave it alone.
    fn or_abort<T, E: std::fmt::Display>(&self, result: Result<T, E>) -> T {
        result.unwrap_or_else(|e| self.cluster.abort(&e.to_string(), 1))
    }

    /// The next round of a pass from level `depth` on this device, from block `rounds.at`
    /// (none where the pass has covered the table): the states it set, and the outbox.
    fn device_round(&self, depth: u64, rounds: &mut Rounds) -> (u64, Vec<u64>) {
        let (mut set, blocks) = (0, self.engine.slab_blocks());
        while rounds.at < blocks {
            let end = (rounds.at + rounds.span).min(blocks);
            let round = self
                .engine
                .slab_round(depth, rounds.at..end, self.bottom_up);
            let (count, outbox) = self.or_abort(round);
            set += count;
            match outbox {
                Outbox::Held(outbox) => {
                    rounds.at = end;
                    // Twice as many blocks next time, where this round left the outbox mostly
                    // empty.
                    if (outbox.len() as u64) < self.engine.outbox_items() / 4 {
                        rounds.span = (2 * rounds.span).min(self.span_limits.1);
                    }
                    return (set, outbox);
                }
                // Again, in a part that would have fit had its blocks sent alike, and at most
                // half (what the round set stands, and is not set twice).
                Outbox::Overflowed { wanted } if end - rounds.at > self.span_limits.0 => {
                    let taken = end - rounds.at;
                    let fits = u128::from(taken) * u128::from(self.engine.outbox_items())
                        / u128::from(wanted);
                    rounds.span = (fits as u64).min(taken / 2).max(self.span_limits.0);
                }
                Outbox::Overflowed { .. } => self.cluster.abort(
                    "a round the outbox always holds overflowed it (a bug in gpusearch)",
                    1,
                ),
            }
        }
        (set, Vec::new())
    }

    /// A round of a top-down pass from level `depth`: the states it set in this slab (its own
    /// and those the others sent), the bytes and ranks it sent, and whether it has more.
    fn top_down_round(&self, depth: u64, rounds: &mut Rounds) -> ([u64; 3], bool) {
        let (mut set, outbox) = self.device_round(depth, rounds);
        let mut outboxes = vec![Vec::new(); self.slab.count];
        for n in outbox {
            outboxes[owner(&self.bounds, n % self.slab.width)].push(n);
        }
        let (received, bytes, ranks) = self.cluster.send(outboxes);
        let entries: Vec<u64> = (received.into_iter().flatten())
            .map(|n| self.slab.local(n))
            .collect();
        set += self.or_abort(self.engine.slab_claim(depth, &entries));
        ([set, bytes, ranks], rounds.at < self.engine.slab_blocks())
    }

    /// A round of a bottom-up pass from level `depth`, as [`Self::top_down_round`].
    fn bottom_up_round(&self, depth: u64, rounds: &mut Rounds) -> ([u64; 3], bool) {
        let (mut set, questions) = self.device_round(depth, rounds);
        let mut asks = vec![Vec::new(); self.slab.count];
        for q in questions.chunks_exact(2) {
            asks[owner(&self.bounds, q[0] % self.slab.width)].push((q[0], q[1]));
        }
        let (yes, bytes, ranks) = self.cluster.ask(asks, &mut |asked| {
            let entries: Vec<u64> = asked.iter().map(|&n| self.slab.local(n)).collect();
            self.or_abort(self.engine.slab_answer(depth, &entries))
        });
        set += self.or_abort(self.engine.slab_claim(depth, &yes));
        ([set, bytes, ranks], rounds.at < self.engine.slab_blocks())
    }
}

/// Where a pass's rounds stand on the device: the next block, and the blocks a round takes.
struct Rounds {
    at: u64,
    span: u64,
}

impl Engine for GpuSlabEngine<'_, '_> {
    fn start(&mut self, starts: &[u64]) -> Result<(), SearchError> {
        let mine: Vec<u64> = (starts.iter())
            .filter(|&&s| self.slab.contains(s))
            .map(|&s| self.slab.local(s))
            .collect();
        self.engine.start(&mine)
    }

    fn load(
        &mut self,
        table: Box<dyn TableSource>,
        depth: u64,
        _: Option<Vec<u64>>,
    ) -> Result<(), SearchError> {
        self.slab.holds(table.entries())?;
        // The list holds ranks of the whole space; the device finds the level in the table.
        self.engine.load(table, depth, None)
    }

    /// Top-down and bottom-up scans of the slab, in rounds.
    fn passes(&self) -> Passes {
        Passes::SCANS
    }

    /// Top-down or bottom-up, as the loop asks (every process the same from the same counts).
    fn pass(
        &mut self,
        step: Step,
        levels: &Levels,
        progress: &dyn Progress,
    ) -> Result<u64, SearchError> {
        let depth = levels.len() - 1;
        self.bottom_up = step == Step::BottomUp;
        let mut rounds = Rounds {
            at: 0,
            span: self.span,
        };
        let [count, bytes, ranks] = self.cluster.rounds(progress, &mut |_| {
            if self.bottom_up {
                self.bottom_up_round(depth, &mut rounds)
            } else {
                self.top_down_round(depth, &mut rounds)
            }
        });
        self.span = rounds.span;
        self.exchanged.add(count, bytes, ranks);
        Ok(count)
    }

    fn smallest(&mut self, depth: u64, limit: usize) -> Result<Vec<u64>, SearchError> {
        let smallest = self.engine.smallest(depth, limit);
        let mine: Vec<u64> = (self.or_abort(smallest).into_iter())
            .map(|e| self.slab.global(e))
            .collect();
        Ok(self.cluster.smallest(&mine, limit))
    }

    fn with_table(
        &mut self,
        f: &mut dyn FnMut(&dyn TableView) -> Result<(), String>,
    ) -> Result<(), SearchError> {
        self.engine.with_table(f)
    }

    fn into_table(self) -> Result<DistanceTable, SearchError> {
        self.engine.into_table()
    }
}

impl SlabEngine for GpuSlabEngine<'_, '_> {
    fn slab(&self) -> &Slab {
        &self.slab
    }

    fn exchanged(&self) -> &Exchanged {
        &self.exchanged
    }
}
