//! The positions a symmetry keeps, made cycle of positions by cycle rather than found among
//! all positions: a reduced space lists them as it is made ([`super::ByCoordinate`]).

use super::Element;

/// Calls `each` with every state of the space (`in_space`, states as `solved` is written, its
/// first `first` positions always holding the same pieces) that `element` keeps, until `each`
/// says to stop: `element` moves the pieces of each cycle of its positions along a cycle of
/// labels of the same length, in order, so each cycle of positions takes such a cycle of
/// labels, starting anywhere along it (`Coordinate::kept_states`).
pub fn kept_states(
    element: &Element,
    solved: &[u32],
    first: usize,
    in_space: &dyn Fn(&[u32]) -> bool,
    each: &mut dyn FnMut(&[u32]) -> bool,
) {
    let len = solved.len();
    // The cycles of positions, each from its least position.
    let mut cycles: Vec<Vec<usize>> = Vec::new();
    let mut seen = vec![false; len];
    for start in 0..len {
        let mut cycle = Vec::new();
        let mut at = start;
        while !seen[at] {
            seen[at] = true;
            cycle.push(at);
            at = element.positions[at];
        }
        if !cycle.is_empty() {
            cycles.push(cycle);
        }
    }
    // The length of each label's cycle.
    let cycle_of = |x: u32| {
        let mut n = 1;
        let mut at = element.labels[x as usize];
        while at != x {
            at = element.labels[at as usize];
            n += 1;
        }
        n
    };
    let top = solved.iter().copied().max().unwrap_or(0) as usize;
    let mut used = vec![false; top + 1];
    let mut state = solved.to_vec();
    let cycles = Cycles {
        cycles: &cycles,
        solved,
        first,
        cycle_of: &cycle_of,
        element,
    };
    fill(&cycles, 0, &mut used, &mut state, in_space, each);
}

/// What [`fill`] fills the cycles of an element's positions from.
struct Cycles<'a> {
    /// The cycles of positions, each from its least position.
    cycles: &'a [Vec<usize>],
    /// The solved state: its labels, and the pieces of its first `first` positions.
    solved: &'a [u32],
    first: usize,
    /// The length of each label's cycle.
    cycle_of: &'a dyn Fn(u32) -> usize,
    element: &'a Element,
}

/// [`kept_states`] from cycle `at` on; `false` once `each` said to stop.
fn fill(
    cycles: &Cycles,
    at: usize,
    used: &mut [bool],
    state: &mut [u32],
    in_space: &dyn Fn(&[u32]) -> bool,
    each: &mut dyn FnMut(&[u32]) -> bool,
) -> bool {
    let Some(cycle) = cycles.cycles.get(at) else {
        return !in_space(state) || each(state);
    };
    for &x in cycles.solved {
        if used[x as usize] || (cycles.cycle_of)(x) != cycle.len() {
            continue;
        }
        // The first positions keep their pieces.
        let mut label = x;
        let mut fits = true;
        for &p in cycle {
            fits &= p >= cycles.first || cycles.solved[p] == label;
            label = cycles.element.labels[label as usize];
        }
        if !fits {
            continue;
        }
        label = x;
        for &p in cycle {
            state[p] = label;
            used[label as usize] = true;
            label = cycles.element.labels[label as usize];
        }
        let go_on = fill(cycles, at + 1, used, state, in_space, each);
        for &p in cycle {
            used[state[p] as usize] = false;
        }
        if !go_on {
            return false;
        }
    }
    true
}
