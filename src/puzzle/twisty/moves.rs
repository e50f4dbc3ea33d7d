//! A definition's moves in a metric, their powers and compositions, and the tables and group
//! order the coordinates take from them.

use super::*;

/// How a metric counts moves: `htm` every power of a move that is not the identity (`F`, `F2`,
/// `F'`), `qtm` a move and its inverse.
pub fn metric_moves(def: &TwistyDefinition, metric: &str) -> Result<Vec<Move>, String> {
    let quarter = match metric {
        "htm" => false,
        "qtm" => true,
        other => {
            return Err(format!(
                "unknown metric '{other}': a definition's metrics are htm (every power of a move) and qtm (a move and its inverse)"
            ));
        }
    };
    let mut out: Vec<Move> = Vec::new();
    for (name, parts) in &def.moves {
        let mut powers = vec![parts.clone()];
        loop {
            let next = compose(&def.sets, powers.last().expect("one power"), parts);
            if is_identity(&next) {
                break;
            }
            powers.push(next);
        }
        // powers[p - 1] is the move to the power p; the order is k.
        let k = powers.len() + 1;
        let mut named: Vec<(String, usize)> = (1..=k / 2)
            .map(|p| (power_name(name, p, ""), p))
            .chain((1..=(k - 1) / 2).map(|q| (power_name(name, q, "'"), k - q)))
            .collect();
        if quarter {
            named.retain(|(_, p)| *p == 1 || *p == k - 1);
        }
        for (power, p) in named {
            if out.iter().any(|(m, _)| *m == power) {
                return Err(format!(
                    "the move {power} ({name} to the power {p}) has the name of another move: rename one in the definition"
                ));
            }
            out.push((power, powers[p - 1].clone()));
        }
    }
    Ok(out)
}

/// [`metric_moves`] of a definition of one set without orientations: each move's from array.
pub fn permutation_moves(
    def: &TwistyDefinition,
    metric: &str,
) -> Result<Vec<(String, crate::group::Perm)>, String> {
    Ok(metric_moves(def, metric)?
        .into_iter()
        .map(|(name, mut parts)| (name, parts.swap_remove(0).pieces))
        .collect())
}

/// `F`, `F2`, `F'`, `F2'`: base move `name` turned `p` times in the direction `suffix` names.
pub(super) fn power_name(name: &str, p: usize, suffix: &str) -> String {
    match p {
        1 => format!("{name}{suffix}"),
        _ => format!("{name}{p}{suffix}"),
    }
}

/// Move `a`, then move `b`.
pub(super) fn compose(sets: &[PieceSet], a: &[SetPart], b: &[SetPart]) -> Vec<SetPart> {
    sets.iter()
        .zip(a.iter().zip(b))
        .map(|(set, (a, b))| SetPart {
            pieces: b.pieces.iter().map(|&f| a.pieces[f as usize]).collect(),
            twists: (b.pieces.iter().zip(&b.twists))
                .map(|(&f, &t)| (a.twists[f as usize] + t) % set.orientations)
                .collect(),
        })
        .collect()
}

pub(super) fn is_identity(parts: &[SetPart]) -> bool {
    parts
        .iter()
        .all(|p| crate::group::is_identity(&p.pieces) && p.twists.iter().all(|&t| t == 0))
}

/// A block member's part: a set's pieces are member `2 * set + PIECES`, its orientations
/// `2 * set + TWISTS`.
pub(super) const PIECES: usize = 0;

pub(super) const TWISTS: usize = 1;

/// The move table `[value * moves + move]` of a coordinate of `size` values (`moved` gives a
/// value's image under a move), where it has at most [`TABLE_LIMIT`] values.
pub(super) fn move_table(
    size: u64,
    moves: usize,
    mut moved: impl FnMut(u64, usize) -> u64,
) -> Option<Vec<u32>> {
    (size <= TABLE_LIMIT).then(|| {
        (0..size)
            .flat_map(|v| (0..moves).map(move |mv| (v, mv)))
            .map(|(v, mv)| moved(v, mv) as u32)
            .collect()
    })
}

/// The order of the group the moves generate, acting on (position, orientation) points
/// (Schreier–Sims), where every set's pieces are distinct (then it is the number of reachable
/// positions) and there are at most 255 points.
pub(super) fn group_order(sets: &[PieceSet], coords: &[Coords], moves: &[Move]) -> Option<u64> {
    let points: usize = sets.iter().map(|s| s.count * s.orientations as usize).sum();
    if points > 255 || !coords.iter().all(|c| c.multiplicity.len() == c.count) {
        return None;
    }
    let generators: Vec<crate::group::Perm> = moves
        .iter()
        .map(|(_, parts)| {
            let mut image = vec![0u8; points];
            let mut base = 0;
            for (set, part) in sets.iter().zip(parts) {
                let o = set.orientations as usize;
                for (i, (&f, &t)) in part.pieces.iter().zip(&part.twists).enumerate() {
                    for k in 0..o {
                        // The piece at position f, oriented k, lands at i, oriented k + t.
                        image[base + f as usize * o + k] =
                            (base + i * o + (k + t as usize) % o) as u8;
                    }
                }
                base += set.count * o;
            }
            image
        })
        .collect();
    u64::try_from(crate::group::Chain::new(points, &generators).order()).ok()
}
