//! A reduced table's moves as block moves, so that the sweeps pass over it as over a table
//! without symmetry ([`crate::search`]): within a block of the class coordinate a move's route
//! is the same for every entry ([`super::routes`]), so it carries the block's rests by one map.
//! Where the route needs no symmetry and keeps all slots but a window, that map is a
//! [`WindowMove`] on the block's ranks, whole runs of consecutive entries landing on whole runs;
//! any other route between blocks that no symmetry keeps is one map of a block's rests, made once
//! for each route of the same slots, symmetry and parity, and taken bit by bit through a table of
//! positions. Routes into or out of a block some symmetry keeps (whose entries are the least of
//! their classes) stay residual, taken entry by entry by the cursor; so do routes whose maps
//! would pass [`MAX_MAP_BYTES`] (the plan counts the maps: [`crate::puzzle::Blocks::bytes`]).

use super::routes::{MAX_ORDER, Routes, Slots};
use super::{Reduced, cursor};
use crate::puzzle::{BlockMove, MAX_TABLE_BLOCK, SHORT_RUN, Structure};
use crate::rank::factorial;
use crate::rank::window::{WindowMove, window_move};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};

/// The most routes (blocks times moves) a table is swept with: beyond, its structure would take
/// more memory than the sweeps save (a block move each), and the cursor goes on alone.
const MAX_SWEPT_ROUTES: u64 = 1 << 21;

/// The most bytes a table's maps of rests take together (4 bytes a rest; the sweep's tables of
/// positions take twice as much again for blocks past [`MAX_TABLE_BLOCK`]): routes past it stay
/// residual.
pub const MAX_MAP_BYTES: u64 = 1 << 30;

impl Reduced {
    /// The table's block moves and residual moves, where its moves have routes and its blocks
    /// are few enough ([`MAX_SWEPT_ROUTES`]) and long enough for whole runs.
    pub(super) fn sweeps(&self) -> Option<Structure> {
        self.sweeps_routes().map(Routes::structure)
    }

    /// The table's block moves and residual moves ([`Reduced::sweeps`]), made once.
    pub(super) fn swept(&self) -> Option<&Structure> {
        self.sweeps.get_or_init(|| self.sweeps()).as_ref()
    }

    /// The bytes of the maps of a block's rests that the block moves share (4 bytes a rest,
    /// each map once), and of the sweep's two tables of positions for each map of a block past
    /// [`MAX_TABLE_BLOCK`] (smaller ones take the sweep's fixed room); 0 where the table is not
    /// swept.
    pub(super) fn map_bytes(&self) -> u64 {
        if self.sweeps_routes().is_none() {
            return 0;
        }
        let mut maps = HashMap::new();
        for b in self.swept().iter().flat_map(|s| &s.blocks) {
            let rests: usize = b.window.maps().iter().map(Vec::len).sum();
            // The map, and for long blocks its two tables.
            let copies = 1 + 2 * u64::from(b.window.block > MAX_TABLE_BLOCK);
            maps.insert(b.window.maps_id(), copies * rests as u64 * 4);
        }
        maps.values().sum()
    }

    /// The routes the table is swept by, where it can be ([`Reduced::sweeps`]), without
    /// making its block moves.
    pub(super) fn sweeps_routes(&self) -> Option<&Routes> {
        let fibre = self.classes.entries_of(0).end;
        let routes = (self.classes.size() / fibre).saturating_mul(self.base.move_count() as u64);
        if !self.carries || fibre < SHORT_RUN || routes > MAX_SWEPT_ROUTES {
            return None;
        }
        self.routes()
    }
}

impl Routes {
    /// Each route between blocks that no symmetry keeps as a block move: a window with long
    /// runs where it needs no symmetry and has one, else one map of the block's rests where
    /// blocks are short enough for tables of positions; the others residual, block by block.
    ///
    /// The sweeps ask the residual moves to be closed under inverses: a block move only pulls
    /// into its own block, so the way back along it must be a block move too, or a residual
    /// push from that block would reach this one while nothing pushed back. The way back lies
    /// between the same two blocks, so where any route between two blocks stays residual (a
    /// window with short runs, a map past [`MAX_MAP_BYTES`]), every route between them does.
    pub(super) fn structure(&self) -> Structure {
        self.structure_within(MAX_MAP_BYTES)
    }

    /// [`Routes::structure`] with maps of rests of at most `map_bytes` together.
    fn structure_within(&self, map_bytes: u64) -> Structure {
        let mut windows: HashMap<(usize, Vec<usize>), WindowMove> = HashMap::new();
        let mut maps: HashMap<(Slots, u16, bool), WindowMove> = HashMap::new();
        let pair = |a: usize, b: usize| (a.min(b), a.max(b));
        let mut unswept = HashSet::new();
        let mut found = Vec::with_capacity(self.routes.len());
        for (i, &(to, g, ref from)) in self.routes.iter().enumerate() {
            let block = i / self.moves;
            let unkept = self.blocks[block].stabilizer.is_empty()
                && self.blocks[to as usize].stabilizer.is_empty();
            let window = match unkept {
                false => None,
                true => (g == 0)
                    .then(|| self.window(&from[..self.k], &mut windows))
                    .flatten()
                    .or_else(|| self.map(block, g, from, (&mut maps, map_bytes))),
            };
            if window.is_none() {
                unswept.insert(pair(block, to as usize));
            }
            found.push(window);
        }
        let (mut blocks, mut residual) = (Vec::new(), Vec::new());
        for (i, window) in found.into_iter().enumerate() {
            let (block, mv) = (i / self.moves, i % self.moves);
            let to = self.routes[i].0 as usize;
            let here = block as u64 * self.fibre;
            match window.filter(|_| !unswept.contains(&pair(block, to))) {
                Some(window) => blocks.push(BlockMove {
                    from: here,
                    to: to as u64 * self.fibre,
                    len: self.fibre,
                    window,
                    first_block: 0,
                }),
                None => residual.push((here..here + self.fibre, mv)),
            }
        }
        Structure { blocks, residual }
    }

    /// The route from `block` through symmetry `g` reading slots `from` as one map of a
    /// block's rests (runs of one entry, through tables of positions), made once for each
    /// route of the same slots, symmetry and parity of orders (in `made`); `None` where one
    /// more map would pass `most` bytes.
    fn map(
        &self,
        block: usize,
        g: u16,
        from: &Slots,
        (made, most): (&mut HashMap<(Slots, u16, bool), WindowMove>, u64),
    ) -> Option<WindowMove> {
        let odd = self.blocks[block].odd;
        let key = (*from, g, odd);
        if !made.contains_key(&key) && (made.len() as u64 + 1) * self.fibre * 4 > most {
            return None;
        }
        let window = made.entry(key).or_insert_with(|| {
            let (k, relabel) = (self.k, &self.relabels[usize::from(g)]);
            let map = (0..self.fibre)
                .into_par_iter()
                .map_init(
                    || [0u8; MAX_ORDER],
                    |order, r| {
                        self.order_of(r, odd, order);
                        let mut next = [0u8; MAX_ORDER];
                        cursor::carry(&order[..k], &from[..k], relabel, &mut next[..k]);
                        self.rest(&next) as u32
                    },
                )
                .collect();
            WindowMove::of_map(1, map)
        });
        Some(window.clone())
    }

    /// The map of slots `from` (slot `j` of the neighbour's order is slot `from[j]` of the
    /// entry's) as a move on a block's ranks: the identity, or a window of the slots it moves,
    /// made once for each window (in `windows`); `None` where its runs are shorter than
    /// [`SHORT_RUN`] or, for halved rests, the window reaches the last two slots, whose digits
    /// the order's parity decides.
    fn window(
        &self,
        from: &[u8],
        windows: &mut HashMap<(usize, Vec<usize>), WindowMove>,
    ) -> Option<WindowMove> {
        let k = self.k;
        let moved = |j: &usize| usize::from(from[*j]) != *j;
        let Some(lo) = (0..k).find(moved) else {
            return Some(WindowMove::identity(self.fibre));
        };
        let end = (0..k).rfind(moved).expect("a slot moves") + 1;
        // A permutation that keeps every slot outside `lo..end` maps `lo..end` onto itself.
        let mut run = factorial(k - end);
        if self.halved {
            if end + 2 > k {
                return None;
            }
            run = if end + 2 < k { run / 2 } else { 1 };
        }
        if run < SHORT_RUN {
            return None;
        }
        let perm: Vec<usize> = (lo..end).map(|j| usize::from(from[j]) - lo).collect();
        let window = windows
            .entry((lo, perm))
            .or_insert_with_key(|(lo, perm)| window_move(k, *lo, perm, self.halved));
        Some(window.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::super::Erased;
    use super::*;
    use crate::puzzle::{Cursor, Metric, Ring, StateSpace};

    /// The neighbours of the entries of `blocks` blocks spread over the table (and of every
    /// block some symmetry keeps, up to as many) through the block moves and the residual
    /// moves are the cursor's, each once; and some of them are block moves.
    fn every_neighbour_once<S: StateSpace + Clone + Send + 'static>(space: S, blocks: u64) {
        let symmetry = space.capabilities().symmetry().unwrap();
        let reduced = Reduced::new(Box::new(Erased(space)), symmetry).unwrap();
        let structure = reduced.capabilities().structure().expect("a structure");
        assert!(!structure.blocks.is_empty(), "{}", reduced.slug());
        let routes = reduced.routes().unwrap();
        let all = reduced.size() / routes.fibre;
        let kept = (0..all).filter(|&b| !routes.blocks[b as usize].stabilizer.is_empty());
        let spread = (0..blocks.min(all)).map(|i| i * all / blocks.min(all));
        let mut cursor = reduced.cursor();
        for block in spread.chain(kept.take(blocks as usize)) {
            let (lo, hi) = (block * routes.fibre, (block + 1) * routes.fibre);
            // The moves that touch this block, found once, so that each entry looks at few.
            let block_moves: Vec<_> = (structure.blocks.iter())
                .filter(|b| b.from < hi && lo < b.from + b.len)
                .collect();
            let residual: Vec<_> = (structure.residual.iter())
                .filter(|(ranks, _)| ranks.start < hi && lo < ranks.end)
                .collect();
            for entry in lo..hi {
                cursor.seek(entry);
                let mut want: Vec<u64> = (0..reduced.move_count())
                    .map(|mv| cursor.neighbour(mv))
                    .collect();
                let mut got: Vec<u64> = (block_moves.iter())
                    .filter(|b| (b.from..b.from + b.len).contains(&entry))
                    .map(|b| b.to + b.window.apply(entry - b.from))
                    .collect();
                for (ranks, mv) in &residual {
                    if ranks.contains(&entry) {
                        got.push(cursor.neighbour(*mv));
                    }
                }
                want.sort_unstable();
                got.sort_unstable();
                assert_eq!(got, want, "{}: entry {entry}", reduced.slug());
            }
        }
    }

    #[test]
    fn block_moves_and_residual_moves_give_every_neighbour_once() {
        // Orders of 4 pieces (runs only of whole blocks), 8, and 9 halved; a spread of blocks
        // and the kept ones (in a debug build every block of Turnstyle 10 takes a minute).
        every_neighbour_once(Ring::turnstyle(10, Metric::Lrf).unwrap(), 400);
        every_neighbour_once(Ring::turnstyle(12, Metric::Lrf).unwrap(), 12);
        every_neighbour_once(Ring::topspin(12, 4, Metric::Lrf).unwrap(), 12);
        every_neighbour_once(Ring::turnstyle(13, Metric::Lrf).unwrap(), 4);
    }

    #[test]
    fn a_route_and_its_way_back_are_swept_alike_however_few_maps_fit() {
        use crate::search::cpu::search;
        use crate::search::{Footprint, Options, PassPolicy, Silent};
        // Turnstyle 9 flips's routes through a symmetry are maps of a block's rests (a turn of
        // the ring's labels, whose way back is the turn back: another map). With room for three
        // maps, a route is a block move only if its way back is one too.
        let reduced = || {
            let space = Ring::turnstyle(9, Metric::Flips).unwrap();
            let symmetry = space.capabilities().symmetry().unwrap();
            Reduced::new(Box::new(Erased(space)), symmetry).unwrap()
        };
        let (scanned, swept) = (reduced(), reduced());
        let routes = swept.routes().unwrap();
        let roomy = routes.structure_within(u64::MAX);
        let tight = routes.structure_within(3 * routes.fibre * 4);
        let maps = |s: &Structure| s.blocks.iter().filter(|b| b.window.run == 1).count();
        assert!(maps(&roomy) > 0 && tight.blocks.len() < roomy.blocks.len());
        // Between two blocks, every route is a block move or none is.
        let block = |rank: u64| rank / routes.fibre;
        let paired: HashSet<(u64, u64)> = (tight.blocks.iter())
            .map(|b| (block(b.from), block(b.to)))
            .collect();
        for b in &tight.blocks {
            assert!(paired.contains(&(block(b.to), block(b.from))));
        }
        for (ranks, mv) in &tight.residual {
            let to = routes.routes[block(ranks.start) as usize * routes.moves + mv].0;
            assert!(!paired.contains(&(u64::from(to), block(ranks.start))));
        }
        // Swept with that structure, pushing and pulling, the table is the one scanned.
        let options = |policy, footprint| Options {
            antipode_limit: 100,
            policy,
            footprint,
        };
        let scanned = search(
            &scanned,
            &options(PassPolicy::TopDown, Footprint::Lean),
            &Silent,
        );
        assert!(swept.sweeps.set(Some(tight)).is_ok(), "not swept yet");
        for footprint in [Footprint::Full, Footprint::Lean] {
            let swept = search(&swept, &options(PassPolicy::Sweep, footprint), &Silent);
            assert_eq!(
                swept.levels.iter().collect::<Vec<_>>(),
                scanned.levels.iter().collect::<Vec<_>>()
            );
            let differ =
                (0..scanned.table.entries()).find(|&r| swept.table.get(r) != scanned.table.get(r));
            assert_eq!(differ, None, "{footprint:?}");
        }
    }
}
