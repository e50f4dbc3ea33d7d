//! The cursor of a reduced space ([`ReducedCursor`]): an entry's neighbours through the
//! family's moves, or, where moves carry rests, by rank arithmetic on the entry's order.

use super::{LABELS, Landing, Reduced};
use crate::puzzle::Cursor;

/// The cursor of a [`Reduced`] space: the family's moves applied to the position an entry
/// holds ([`crate::puzzle::StateSpace::move_state`]), each neighbour reduced to the entry of its class. An
/// entry that holds no class has no neighbours but itself, so no pass ever reaches it.
///
/// Where entries are numbered by landings ([`Landing`]), the cursor keeps each move's route
/// from the block it is in (a `Route`): passes go through the entries in order, so a block's
/// many positions look their landings up once (a table of a class coordinate's values is too
/// large for a cache from about 14 pieces on), and where moves carry rests by one map
/// ([`super::Symmetry::moves_carry_rests`]) a neighbour's rest is the entry's own order, permuted
/// and relabelled, with no position moved. In a block some symmetries keep, they move its
/// orders so too: whether an entry holds a class, and the entry of a neighbour landing in such
/// a block, are the least of a few such images' rests ([`super::Classes::entry_of_order`]).
pub struct ReducedCursor<'a> {
    space: &'a Reduced,
    /// The entry sought, where it holds no class.
    pub(super) unused: Option<u64>,
    /// Whether entries are numbered by landings.
    by_landing: bool,
    /// The entry sought.
    entry: u64,
    /// The block of the entry sought.
    block: u64,
    /// Each move's route from that block, once worked out.
    routes: Vec<Route<'a>>,
    /// Whether moves carry the rests of the block and the symmetries that keep it (if any) move
    /// its orders by one map: an entry's order is then worked out from its rest alone, and
    /// whether it holds a class and its neighbours from that order.
    plain: bool,
    /// Whether the block's orders are odd ([`super::Classes::order_of_rest`]).
    odd: bool,
    /// The position of the entry sought, where `fresh`.
    state: Vec<u32>,
    fresh: bool,
    /// The order of the entry's rest, where moves carry rests ([`super::Classes::order`]).
    order: [u8; LABELS],
    /// The neighbour's state.
    next: Vec<u32>,
    image: Vec<u32>,
    other: Vec<u32>,
    /// The ranks of the run last walked ([`Cursor::each_neighbour_in_run`]), ascending, and
    /// their orders, each `order_len` long and followed by a byte that says whether the entry
    /// holds a class (1) or not (0), one after the other, kept for the run's next moves.
    run: Vec<u64>,
    run_orders: Vec<u8>,
    /// The orders (and bytes) of the ranks a move is walking, taken from `run_orders`.
    picked: Vec<u8>,
}

/// How a move takes the positions of the cursor's block to their neighbours.
#[derive(Clone, Copy)]
enum Route<'a> {
    /// Not worked out yet.
    Unknown,
    /// To one landing; each neighbour moved and its rest read.
    Landing(Landing),
    /// To one block, the rest carried: slot `j` of the neighbour's order holds piece
    /// `relabel[order[from[j]]]`, `order` the entry's own.
    Carried {
        block: u32,
        from: [u8; LABELS],
        relabel: &'a [u8],
    },
}

/// The order `next` whose slot `j` holds `relabel[order[from[j]]]`: a carried route's
/// neighbour, read from the entry's `order` (the GPU's routes read orders so too).
pub(super) fn carry(order: &[u8], from: &[u8], relabel: &[u8], next: &mut [u8]) {
    for (slot, &j) in next.iter_mut().zip(from) {
        *slot = relabel[usize::from(order[usize::from(j) % LABELS])];
    }
}

/// The slots `from` of `order` that [`carry`] reads `next` from, relabelling by `relabel`.
pub(super) fn slots(order: &[u8], next: &[u8], relabel: &[u8], from: &mut [u8]) {
    // The slot of `order` each piece is in, and the piece each relabels.
    let (mut slot_of, mut unlabel) = ([0u8; LABELS], [0u8; LABELS]);
    for (slot, &piece) in order.iter().enumerate() {
        slot_of[usize::from(piece) % LABELS] = slot as u8;
    }
    for (piece, &image) in relabel.iter().enumerate() {
        unlabel[usize::from(image) % LABELS] = piece as u8;
    }
    for (j, &piece) in next.iter().enumerate() {
        from[j] = slot_of[usize::from(unlabel[usize::from(piece) % LABELS]) % LABELS];
    }
}

impl<'a> ReducedCursor<'a> {
    /// A cursor over `space`'s entries.
    pub(super) fn new(space: &'a Reduced) -> ReducedCursor<'a> {
        let solved = space.base.state(space.base.solved());
        ReducedCursor {
            space,
            unused: None,
            by_landing: space.classes.landing(&solved).is_some(),
            entry: 0,
            block: u64::MAX,
            routes: vec![Route::Unknown; space.base.move_count()],
            plain: false,
            odd: false,
            fresh: false,
            order: [0; LABELS],
            run: Vec::new(),
            run_orders: Vec::new(),
            picked: Vec::new(),
            image: solved.clone(),
            other: solved.clone(),
            next: solved.clone(),
            state: solved,
        }
    }

    /// The position of the entry sought, into `state`.
    fn refresh(&mut self) {
        if !self.fresh {
            (self.space).position(self.entry, &mut self.state, &mut self.image);
            self.fresh = true;
        }
    }

    /// The neighbour along `mv` of the entry's position, moved and reduced; `landing`: the
    /// move's landing from the position's block, where known.
    pub(super) fn moved(&mut self, mv: usize, landing: Option<Landing>) -> u64 {
        self.refresh();
        let classes = &self.space.classes;
        self.space.base.move_state(&self.state, mv, &mut self.next);
        match landing {
            Some(landing) => {
                debug_assert_eq!(
                    classes.landing(&self.next),
                    Some(landing),
                    "a move takes a block's positions to one landing"
                );
                classes.entry_at(&self.next, landing, &mut self.image, &mut self.other)
            }
            None => classes.entry(&self.next, &mut self.image, &mut self.other),
        }
    }

    /// The orders of `ranks` (ascending, in the cursor's block, which is plain) into
    /// `picked`, each followed by whether it holds a class: from the run kept where they are
    /// among its ranks (a pass walks a run move by move, bottom-up dropping the ranks it has
    /// found), or worked out, `ranks` then kept.
    fn pick_orders(&mut self, ranks: &[u64]) {
        let k = self.space.order_len + 1;
        self.picked.clear();
        let mut at = 0;
        for &rank in ranks {
            while at < self.run.len() && self.run[at] < rank {
                at += 1;
            }
            if self.run.get(at) != Some(&rank) {
                break;
            }
            self.picked
                .extend_from_slice(&self.run_orders[at * k..(at + 1) * k]);
        }
        if self.picked.len() == ranks.len() * k {
            return;
        }
        let classes = &self.space.classes;
        self.run.clear();
        self.run_orders.clear();
        let mut order = [0u8; LABELS];
        for &rank in ranks {
            match self.run.last() {
                Some(&last) if rank == last + 1 => classes.next_order(self.odd, &mut order),
                _ => _ = classes.order_of_rest(rank, self.odd, &mut order),
            }
            let holds = u8::from(self.holds(rank, &order));
            self.run.push(rank);
            self.run_orders.extend_from_slice(&order[..k - 1]);
            self.run_orders.push(holds);
        }
        self.picked.clone_from(&self.run_orders);
    }

    /// Whether `entry` of the cursor's block, which is plain, holds a class, its rest being
    /// `order`: in a block some symmetry keeps, where its rest is the least of its class's.
    fn holds(&self, entry: u64, order: &[u8]) -> bool {
        let classes = &self.space.classes;
        let block = self.block as u32;
        let holds = classes.stabilizer(block).is_empty()
            || classes.holds_order(block, &order[..self.space.order_len]);
        debug_assert_eq!(
            holds,
            (self.space).position(entry, &mut self.state.clone(), &mut self.image.clone()),
            "whether entry {entry} holds a class"
        );
        holds
    }

    /// The entry a carried route takes the cursor's entry to.
    fn carried(&self, block: u32, from: &[u8; LABELS], relabel: &[u8], order: &[u8]) -> u64 {
        let mut next = [0u8; LABELS];
        let k = relabel.len();
        carry(order, &from[..k], relabel, &mut next[..k]);
        let entry = self.space.classes.entry_of_order(block, &next[..k]);
        entry.expect("a carried route lands in a block whose orders are carried")
    }

    /// Works out move `mv`'s route from the cursor's block, from the position it holds.
    fn route(&mut self, mv: usize) -> Route<'a> {
        debug_assert!(self.block != u64::MAX, "a neighbour asked before any seek");
        self.refresh();
        let space = self.space;
        let classes = &space.classes;
        self.space.base.move_state(&self.state, mv, &mut self.next);
        let landing = classes.landing(&self.next).expect("numbered by landings");
        if !space.carries {
            return Route::Landing(landing);
        }
        // The neighbour's order, read in its block.
        space.elements[landing.element as usize].apply(&self.next, &mut self.image);
        let mut next = [0u8; LABELS];
        let k = classes.order(&self.image, &mut next);
        if classes.entry_of_order(landing.block, &next[..k]).is_none() {
            return Route::Landing(landing);
        }
        let relabel = classes.relabelling(landing.element);
        let mut from = [0u8; LABELS];
        slots(&self.order[..k], &next[..k], relabel, &mut from[..k]);
        Route::Carried {
            block: landing.block,
            from,
            relabel,
        }
    }
}

impl Cursor for ReducedCursor<'_> {
    fn seek(&mut self, entry: u64) {
        let (space, classes) = (self.space, &self.space.classes);
        let block = classes.block(entry);
        let new_block = block != self.block;
        if new_block {
            self.block = block;
            self.routes.fill(Route::Unknown);
            self.plain = false;
        }
        let after = entry == self.entry + 1;
        self.entry = entry;
        if self.plain && !new_block {
            self.fresh = false;
            // Passes go through entries in order: most follow the one before.
            match after {
                true => classes.next_order(self.odd, &mut self.order),
                false => _ = classes.order_of_rest(entry, self.odd, &mut self.order),
            }
            self.unused = (!self.holds(entry, &self.order)).then_some(entry);
            #[cfg(debug_assertions)]
            {
                let mut order = [0; LABELS];
                self.refresh();
                let k = classes.order(&self.state, &mut order);
                debug_assert_eq!(order[..k], self.order[..k], "the order of entry {entry}");
            }
            return;
        }
        let holds = space.position(entry, &mut self.state, &mut self.image);
        self.unused = (!holds).then_some(entry);
        self.fresh = true;
        if space.carries {
            let k = classes.order(&self.state, &mut self.order);
            if new_block {
                // The parity of the block's orders (one, where only one is reachable), and
                // whether its entries are found from their orders.
                self.odd = crate::rank::is_odd(&self.order[..k]);
                let kept = classes.entry_of_order(block as u32, &self.order[..k]);
                self.plain = kept.is_some();
            }
        }
    }

    fn neighbour(&mut self, mv: usize) -> u64 {
        if let Some(entry) = self.unused {
            return entry;
        }
        if !self.by_landing {
            return self.moved(mv, None);
        }
        match self.routes[mv] {
            Route::Carried {
                block,
                ref from,
                relabel,
            } => {
                let entry = self.carried(block, from, relabel, &self.order);
                debug_assert_eq!(entry, self.moved(mv, None), "move {mv} carries the rest");
                entry
            }
            Route::Landing(landing) => self.moved(mv, Some(landing)),
            Route::Unknown => {
                self.routes[mv] = self.route(mv);
                self.neighbour(mv)
            }
        }
    }

    /// Where moves carry the rests of a plain block, the run is the block: each move's
    /// neighbours of many of its entries lie in one block, whose entries stay in cache.
    fn seek_run(&mut self, rank: u64) -> u64 {
        self.seek(rank);
        match self.plain {
            true => self.space.classes.entries_of(self.block).end,
            false => rank + 1,
        }
    }

    fn scatters_runs(&self) -> bool {
        true
    }

    fn each_neighbour_in_run(&mut self, ranks: &[u64], mv: usize, mut f: impl FnMut(u64, u64)) {
        if let (true, Route::Unknown) = (self.plain, self.routes[mv]) {
            self.routes[mv] = self.route(mv);
        }
        let Route::Carried {
            block,
            from,
            relabel,
        } = self.routes[mv]
        else {
            for &rank in ranks {
                self.seek(rank);
                f(rank, self.neighbour(mv));
            }
            return;
        };
        self.pick_orders(ranks);
        let k = self.space.order_len;
        for (&rank, order) in ranks.iter().zip(self.picked.chunks_exact(k + 1)) {
            let (order, holds) = (&order[..k], order[k] == 1);
            if !holds {
                // An entry that holds no class is its own neighbour, as `neighbour` says.
                f(rank, rank);
                continue;
            }
            let neighbour = self.carried(block, &from, relabel, order);
            #[cfg(debug_assertions)]
            {
                let mut again = ReducedCursor::new(self.space);
                again.seek(rank);
                debug_assert_eq!(neighbour, again.moved(mv, None), "move {mv} from {rank}");
            }
            f(rank, neighbour);
        }
    }
}
