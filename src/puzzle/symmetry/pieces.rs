//! A family's symmetries as maps of its pieces: checked to keep the start and map moves onto
//! moves ([`check`]), and given a class coordinate of the positions of a set of pieces they map
//! onto themselves ([`of_pieces`]).

use super::{Element, Half, MAX_CLASS_WORK, Positions, Rank, Symmetry, group};
use crate::puzzle::{Cursor, StateSpace};

/// Coordinate values a class coordinate aims at for each symmetry, where it can: with thousands
/// of values an element, few values are symmetric.
const VALUES_PER_ELEMENT: u64 = 1 << 12;

/// The symmetries `generators` generate, of `space`, whose states are pieces by position and
/// whose first `fixed` positions always hold the same pieces: checked to keep its start and to
/// map its moves onto its moves (on a sample of positions), with a class coordinate of the
/// positions of a set of pieces the symmetries map onto itself ([`Positions`]). `half` tells
/// which of two arrangements is reachable where only half of them are; `watched` are the
/// pieces whose places decide where a move takes the others (none where moves permute places).
pub fn of_pieces<S: StateSpace>(
    space: &S,
    name: &str,
    generators: &[Element],
    fixed: usize,
    half: Half,
    watched: &[u32],
) -> Result<Symmetry, String> {
    let solved = space.state(space.solved());
    let top = solved.iter().copied().max().unwrap_or(0);
    let elements = group(generators, solved.len(), top);
    check(space, generators)?;
    let free = solved.len() - fixed;
    let halved = space.size() * 2 == crate::rank::factorial(free);
    // The pieces in orbits under the symmetries, each orbit by its least piece.
    let mut orbits: Vec<Vec<u32>> = Vec::new();
    for &piece in &solved[fixed..] {
        if orbits.iter().any(|o| o.contains(&piece)) {
            continue;
        }
        let mut orbit: Vec<u32> = elements.iter().map(|g| g.labels[piece as usize]).collect();
        orbit.sort_unstable();
        orbit.dedup();
        orbits.push(orbit);
    }
    orbits.sort_unstable();
    let order = elements.len() as u64;
    let values = |set: usize| crate::rank::factorial(free) / crate::rank::factorial(free - set);
    let mut set: Vec<u32> = Vec::new();
    for orbit in orbits {
        let more = set.len() + orbit.len();
        let fits = free - more >= 2 && values(more).saturating_mul(order) <= MAX_CLASS_WORK;
        if values(set.len()) >= VALUES_PER_ELEMENT * order || !fits {
            break;
        }
        set.extend(orbit);
    }
    if set.is_empty() {
        // One coordinate value: every position in one block, the table as large as without.
        return Err(
            "its symmetries move every piece among so many others that no set of pieces makes a class coordinate small enough, so the table would not shrink".into(),
        );
    }
    let moves_carry_rests = watched.iter().all(|p| set.contains(p));
    Ok(Symmetry {
        view: None,
        moves_carry_rests,
        shader: None,
        name: name.into(),
        elements,
        rank: Rank::Coordinate(Box::new(Positions::new(
            &solved,
            fixed,
            set,
            halved.then_some(half),
        ))),
    })
}

/// Positions a symmetry is checked on ([`check`]).
const CHECKED: u64 = 256;

/// Whether each of `generators` keeps the start of `space` and maps its moves onto its moves, on
/// the start, its neighbours and a spread of other positions: the images of a position's
/// neighbours are its image's neighbours. Or which does not, and where.
pub fn check<S: StateSpace>(space: &S, generators: &[Element]) -> Result<(), String> {
    let solved = space.state(space.solved());
    let mut cursor = space.cursor();
    let mut image = solved.clone();
    // A position's neighbours, by rank: images are compared by rank, as a family may write a
    // position several ways (a ring read from anywhere).
    let neighbours = |cursor: &mut S::Cursor<'_>, rank: u64| {
        cursor.seek(rank);
        let mut all: Vec<u64> = (0..space.move_count())
            .map(|m| cursor.neighbour(m))
            .collect();
        all.sort_unstable();
        all
    };
    let step = (space.size() / CHECKED).max(1) | 1;
    let ranks = (0..CHECKED.min(space.size())).map(|i| (space.solved() + i * step) % space.size());
    for (g, element) in generators.iter().enumerate() {
        element.apply(&solved, &mut image);
        if space.rank(&image) != Ok(space.solved()) {
            return Err(format!("symmetry {g} moves the start to {image:?}"));
        }
        for rank in ranks.clone() {
            let state = space.state(rank);
            let out = || format!("symmetry {g} takes {state:?} out of the space");
            element.apply(&state, &mut image);
            let to = space.rank(&image).map_err(|_| out())?;
            let mut mapped = (neighbours(&mut cursor, rank).iter())
                .map(|n| {
                    element.apply(&space.state(*n), &mut image);
                    space.rank(&image).map_err(|_| out())
                })
                .collect::<Result<Vec<u64>, String>>()?;
            mapped.sort_unstable();
            if mapped != neighbours(&mut cursor, to) {
                return Err(format!(
                    "symmetry {g} does not map the moves from {state:?} onto moves"
                ));
            }
        }
    }
    Ok(())
}
