//! How the level loop chooses each pass ([`super::drive`]): frontier lists while levels are
//! thin, then sweeps where the space has structure, else top-down or bottom-up scans by cost,
//! and the list of the remaining entries at the end; only kinds the engine carries out
//! ([`Passes`]).

use super::within::PassSaved;
use super::{
    Engine, Footprint, Levels, Options, PassPolicy, Passes, Step, TINY_LEVEL, list_limit,
    prefer_bottom_up,
};
use crate::puzzle::{StateSpace, Way};

/// What the choice of the next pass knows of the search, and what it carries from pass to pass.
pub(super) struct Choice {
    /// The kinds of pass the engine carries out.
    pub passes: Passes,
    /// The policy asked for.
    pub policy: PassPolicy,
    /// Whether the space is swept (it has structure, the engine sweeps, the policy allows).
    pub structured: bool,
    /// Whether every pass is a sweep (`PassPolicy::Sweep` on a structured space).
    pub swept: bool,
    /// Whether the lean footprint expands every entry holding the last level's value.
    pub lean: bool,
    /// The longest level expanded as a list.
    pub list_limit: u64,
    /// The moves a pass follows (a push's, as many as a pull's).
    pub moves: usize,
    /// Whether the table is reduced by symmetry (weighed).
    pub weighed: bool,
    /// Whether scans have turned bottom-up (they never turn back).
    pub bottom_up: bool,
    /// Whether the passes have turned to the list of the remaining entries (they stay there).
    pub remaining: bool,
}

impl Choice {
    /// The choice for a search of `space` on an engine that carries out `passes`, as `options`
    /// ask, in a table reduced by symmetry where `weighed`: whether it sweeps, and how long a
    /// level it expands as a list.
    pub fn new<S: StateSpace>(
        space: &S,
        passes: Passes,
        options: &Options,
        weighed: bool,
    ) -> Choice {
        // The moves a pass follows one way (a directed graph numbers its inverses too).
        let moves = space.moves_for(Way::Push).len();
        let structured = passes.sweep
            && matches!(options.policy, PassPolicy::Auto | PassPolicy::Sweep)
            && space.capabilities().sweeps();
        let swept = options.policy == PassPolicy::Sweep && structured;
        // A page sweep costs what the pages near the level hold: less than a list of any but a
        // tiny level.
        let paged = structured && space.capabilities().pages.is_some();
        let list_limit = match options.policy {
            _ if !passes.frontier || paged => 0,
            PassPolicy::Lists => u64::MAX,
            PassPolicy::Sweep if swept => 0,
            PassPolicy::Auto | PassPolicy::Sweep => {
                list_limit(space.size(), moves, options.footprint)
            }
            PassPolicy::TopDown | PassPolicy::BottomUp => 0,
        };
        Choice {
            passes,
            policy: options.policy,
            structured,
            swept,
            lean: options.footprint == Footprint::Lean,
            list_limit,
            moves,
            weighed,
            bottom_up: options.policy == PassPolicy::BottomUp,
            remaining: false,
        }
    }

    /// The kind of the pass that finds the level after `levels` on `engine`: `listed`, the
    /// length of the last level's list where the engine holds one; `carried`, a scan saved part
    /// way that goes on as it was; `unreached`, the entries still to reach.
    pub fn next<E: Engine>(
        &mut self,
        engine: &E,
        levels: &Levels,
        listed: Option<u64>,
        carried: Option<&PassSaved>,
        unreached: u64,
    ) -> Step {
        let depth = levels.len() - 1;
        match (carried, listed) {
            // A scan saved part way goes on as it was.
            (Some(p), _) => {
                self.bottom_up |= p.bottom_up;
                p.step()
            }
            // Thin levels go on as lists whatever the policy (bottom-up scans would also check
            // ranks no move reaches, where a family has such: Free the Key's unfit positions).
            (None, Some(n))
                if self.passes.frontier
                    && !self.swept
                    && (engine.lists_next(n))
                        .unwrap_or(n <= self.list_limit || n <= TINY_LEVEL as u64) =>
            {
                Step::Frontier
            }
            _ => {
                // A top-down scan expands the last level (its list, or under the lean footprint
                // every entry holding its value: levels d - 3, d - 6, ... too).
                let expanded = match listed {
                    _ if self.lean || engine.expands_older_levels() => levels.sum_mod3(depth % 3),
                    Some(n) => n,
                    None => levels.last(),
                };
                let auto = self.policy == PassPolicy::Auto;
                let structured = self.structured;
                if !structured && auto {
                    // In a table reduced by symmetry every neighbour costs a move and a class
                    // reading, in a check as in a claim, and most checks go through all moves
                    // (measured on Turnstyle 14 flips: a check cost what an expansion did).
                    let weight = match self.weighed {
                        true => self.moves as u64,
                        false => engine.bottom_up_weight(self.moves),
                    };
                    self.bottom_up |= prefer_bottom_up(unreached, expanded, self.moves, weight);
                }
                let listed_remaining = || {
                    (engine.lists_remaining(unreached))
                        .unwrap_or((self.bottom_up || structured) && unreached <= self.list_limit)
                };
                if self.passes.remaining && (self.remaining || listed_remaining()) {
                    self.remaining = true;
                    Step::Remaining
                } else if structured && auto && engine.scan_costs_less(expanded) {
                    // A frontier too sparse for a pull through every block move to pay.
                    Step::TopDown
                } else if structured {
                    Step::Sweep
                } else if self.bottom_up && self.passes.bottom_up {
                    Step::BottomUp
                } else {
                    Step::TopDown
                }
            }
        }
    }
}
