//! Orientations that follow the pieces' positions: a set whose moves twist each piece by what a
//! *potential* on the positions changes on the way (modulo some `d` dividing the orientations).
//!
//! If there is `g`: positions → ℤ_d with `g(j) − g(f) ≡ t` for every move taking a piece from
//! `f` to `j` with twist `t`, then every reachable position has, at each position `i` holding
//! piece `x` (at home in `home(x)` with orientation `σ(x)` when solved),
//!
//! ```text
//! o_i ≡ g(i) − g(home(x)) + σ(x)   (mod d)
//! ```
//!
//! so only `o_i` divided by `d` is free: `h_i = ((o_i − g(i) + g(home(x)) − σ(x)) mod o) / d`,
//! which takes `o / d` values. The moves act on `h` as on orientations, with twists
//! `((t + g(f) − g(j)) mod o) / d`, independent of the piece: the set becomes one of `o / d`
//! orientations, solved at 0. TurnFour's tiles (4 orientations, `d = 2`) shrink so from
//! 9!·4^8 to 9!·2^8 entries. The largest `d` is the gcd of `o` and every cycle's twist, found
//! by a spanning tree per orbit of positions.

use super::format::{Move, PieceSet, SetPart, TwistyDefinition};

/// One set's potential: its modulus and values, and its pieces' homes and solved orientations.
#[derive(Clone, Debug)]
struct Potential {
    /// The modulus `d` (> 1, divides the set's orientations).
    d: u8,
    /// `g(position)`, in `0..d`.
    g: Vec<u8>,
    /// Per label, the position it holds when solved.
    home: Vec<u8>,
    /// Per label, its orientation when solved.
    sigma: Vec<u8>,
}

impl Potential {
    /// What the potential gives the orientation of piece `x` at position `i`, modulo d:
    /// `g(i) - g(home(x)) + σ(x)`.
    fn offset(&self, i: usize, x: u8) -> i32 {
        let x = x as usize;
        i32::from(self.g[i]) - i32::from(self.g[self.home[x] as usize]) + i32::from(self.sigma[x])
    }
}

/// A definition's sets as the moves leave them free: the original sets, and per set its
/// potential where it has one.
#[derive(Clone, Debug)]
pub struct Reduction {
    original: Vec<PieceSet>,
    potentials: Vec<Option<Potential>>,
}

impl Reduction {
    /// The potentials of `def`'s sets of distinct pieces with orientations.
    pub fn new(def: &TwistyDefinition) -> Reduction {
        let potentials = (def.sets.iter().enumerate())
            .map(|(s, set)| {
                let solved = &def.solved[s];
                if set.orientations < 2 || !crate::rank::is_permutation(&solved.pieces) {
                    return None;
                }
                let parts: Vec<&SetPart> = def.moves.iter().map(|(_, parts)| &parts[s]).collect();
                potential(set, &parts).map(|(d, g)| {
                    let mut home = vec![0u8; set.count];
                    let mut sigma = vec![0u8; set.count];
                    for (i, (&x, &o)) in solved.pieces.iter().zip(&solved.twists).enumerate() {
                        (home[x as usize], sigma[x as usize]) = (i as u8, o);
                    }
                    Potential { d, g, home, sigma }
                })
            })
            .collect();
        Reduction {
            original: def.sets.clone(),
            potentials,
        }
    }

    /// The definition in reduced orientations: sets of `o / d` orientations, solved at 0.
    pub fn definition(&self, def: &TwistyDefinition) -> TwistyDefinition {
        TwistyDefinition {
            name: def.name.clone(),
            sets: (def.sets.iter().zip(&self.potentials))
                .map(|(set, p)| PieceSet {
                    orientations: p
                        .as_ref()
                        .map_or(set.orientations, |p| set.orientations / p.d),
                    ..set.clone()
                })
                .collect(),
            solved: self
                .position(&def.solved)
                .expect("the solved position reduces"),
            moves: (def.moves.iter())
                .map(|(name, parts)| (name.clone(), self.move_parts(parts)))
                .collect(),
        }
    }

    /// A move (or any power or product of moves) in reduced orientations.
    pub fn move_of(&self, mv: &Move) -> Move {
        (mv.0.clone(), self.move_parts(&mv.1))
    }

    fn move_parts(&self, parts: &[SetPart]) -> Vec<SetPart> {
        let reduced = self.per_set(parts, |part, set, p| {
            let twists = (part.pieces.iter().zip(&part.twists).enumerate())
                .map(|(j, (&f, &t))| {
                    // What the potential leaves of the twist: a multiple of d.
                    let raw = i32::from(t) + i32::from(p.g[f as usize]) - i32::from(p.g[j]);
                    (raw.rem_euclid(i32::from(set.orientations)) / i32::from(p.d)) as u8
                })
                .collect();
            Ok(twists)
        });
        reduced.expect("every move reduces")
    }

    /// A position in reduced orientations, or why the moves never reach it (its labels are
    /// checked here only as far as the reduction needs them).
    pub fn position(&self, parts: &[SetPart]) -> Result<Vec<SetPart>, String> {
        self.per_set(parts, |part, set, p| {
            let mut twists = Vec::with_capacity(part.twists.len());
            for (i, (&x, &t)) in part.pieces.iter().zip(&part.twists).enumerate() {
                if x as usize >= set.count {
                    return Err(format!(
                        "the pieces of {} are not those of the solved position",
                        set.name
                    ));
                }
                if t >= set.orientations {
                    return Err(format!(
                        "an orientation of {} is not below {}",
                        set.name, set.orientations
                    ));
                }
                let free = (i32::from(t) - p.offset(i, x)).rem_euclid(i32::from(set.orientations));
                if free % i32::from(p.d) != 0 {
                    return Err(format!(
                        "the piece at position {} of {} has orientation {t}, which no move sequence gives it there: the moves fix its orientation modulo {}",
                        i + 1,
                        set.name,
                        p.d
                    ));
                }
                twists.push((free / i32::from(p.d)) as u8);
            }
            Ok(twists)
        })
    }

    /// A reduced position in the original orientations.
    pub fn original(&self, parts: &[SetPart]) -> Vec<SetPart> {
        let original = self.per_set(parts, |part, set, p| {
            let twists = (part.pieces.iter().zip(&part.twists).enumerate())
                .map(|(i, (&x, &h))| {
                    let raw = i32::from(h) * i32::from(p.d) + p.offset(i, x);
                    raw.rem_euclid(i32::from(set.orientations)) as u8
                })
                .collect();
            Ok(twists)
        });
        original.expect("every reduced position has an original")
    }

    /// Each set's part of `parts`, its twists given by `twists` where the set has a potential,
    /// as they are elsewhere.
    fn per_set(
        &self,
        parts: &[SetPart],
        twists: impl Fn(&SetPart, &PieceSet, &Potential) -> Result<Vec<u8>, String>,
    ) -> Result<Vec<SetPart>, String> {
        (parts.iter().zip(&self.original).zip(&self.potentials))
            .map(|((part, set), p)| match p {
                None => Ok(part.clone()),
                Some(p) => Ok(SetPart {
                    pieces: part.pieces.clone(),
                    twists: twists(part, set, p)?,
                }),
            })
            .collect()
    }

    /// The words for the rank order, where some set is reduced.
    pub fn describe(&self) -> Option<String> {
        let sets: Vec<String> = (self.original.iter().zip(&self.potentials))
            .filter_map(|(set, p)| {
                p.as_ref().map(|p| {
                    let g: Vec<String> = p.g.iter().map(u8::to_string).collect();
                    format!("{} (d = {}, g = {})", set.name, p.d, g.join(" "))
                })
            })
            .collect();
        (!sets.is_empty()).then(|| {
            format!(
                "orientations of the sets {} taken as h_i = ((o_i - g(i) + g(home(x)) - s(x)) mod o) / d, where x is the piece at position i, home(x) its position and s(x) its orientation when solved: the moves keep o_i = g(i) - g(home(x)) + s(x) mod d",
                sets.join(", ")
            )
        })
    }
}

/// The largest `d > 1` dividing the set's orientations with a potential `g` (values in `0..d`)
/// for these moves' parts, if there is one.
fn potential(set: &PieceSet, parts: &[&SetPart]) -> Option<(u8, Vec<u8>)> {
    let n = set.count;
    let o = i32::from(set.orientations);
    // Edges f -> j with twist t, both ways: (to, twist) lists per position.
    let mut edges: Vec<Vec<(usize, i32)>> = vec![Vec::new(); n];
    for part in parts {
        for (j, (&f, &t)) in part.pieces.iter().zip(&part.twists).enumerate() {
            edges[f as usize].push((j, i32::from(t)));
            edges[j].push((f as usize, -i32::from(t)));
        }
    }
    // g modulo o along a spanning tree of each orbit; d divides every edge's discrepancy.
    let mut g = vec![None; n];
    let mut d = o;
    for root in 0..n {
        if g[root].is_some() {
            continue;
        }
        g[root] = Some(0);
        let mut stack = vec![root];
        while let Some(f) = stack.pop() {
            let gf = g[f].expect("visited");
            for &(j, t) in &edges[f] {
                let want = (gf + t).rem_euclid(o);
                match g[j] {
                    None => {
                        g[j] = Some(want);
                        stack.push(j);
                    }
                    Some(gj) => d = gcd(d, (want - gj).rem_euclid(o)),
                }
            }
        }
    }
    (d > 1).then(|| {
        let g = g.iter().map(|v| (v.expect("every position") % d) as u8);
        (d as u8, g.collect())
    })
}

fn gcd(a: i32, b: i32) -> i32 {
    match b {
        0 => a,
        _ => gcd(b, a % b),
    }
}
