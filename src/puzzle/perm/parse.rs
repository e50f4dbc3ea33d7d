//! Reading permutation puzzles from generators in GAP's cycle notation (definition files:
//! [`crate::puzzle::twisty::format`]).
//!
//! Moves are *from* arrays: after the move, position `i` holds what position
//! `from[i]` held (positions and pieces 0-based here, 1-based in the texts).

use crate::group::{self, Perm};

/// A permutation puzzle as read: its positions' pieces when solved, and its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Definition {
    /// The puzzle's name (from the file, else empty).
    pub name: String,
    /// The piece (1-based) at each position when solved.
    pub solved: Vec<u32>,
    /// Each move's name and from array.
    pub moves: Vec<(String, Perm)>,
}

/// Reads generators written as products of cycles, generators separated by `;`:
/// `"(1,2)(3,4); (1,2,3,4,5,6,7,8)"`. Points are 1-based; the puzzle has as many positions as
/// the largest point. A generator sends point `i` to point `g(i)`: the piece at position `i`
/// moves to position `g(i)`. Errors name the column (1-based) in `text`.
pub fn generators(text: &str) -> Result<Definition, String> {
    let mut cycles_of: Vec<Vec<Vec<usize>>> = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut at = 0;
    let mut current: Vec<Vec<usize>> = Vec::new();
    let mut generator_start = 0;
    let mut starts = Vec::new();
    let err = |at: usize, what: &str| format!("column {}: {what}", at + 1);
    let skip_space = |at: &mut usize| {
        while *at < chars.len() && chars[*at].is_whitespace() {
            *at += 1;
        }
    };
    loop {
        skip_space(&mut at);
        if at == chars.len() || chars[at] == ';' {
            if current.is_empty() {
                return Err(err(
                    at.min(chars.len()),
                    "expected a generator such as (1,2)(3,4)",
                ));
            }
            cycles_of.push(std::mem::take(&mut current));
            starts.push(generator_start);
            if at == chars.len() {
                break;
            }
            at += 1;
            generator_start = at;
            continue;
        }
        if chars[at] != '(' {
            return Err(err(
                at,
                &format!("expected '(' or ';', found '{}'", chars[at]),
            ));
        }
        at += 1;
        let mut cycle = Vec::new();
        loop {
            skip_space(&mut at);
            if at < chars.len() && chars[at] == ')' && cycle.is_empty() {
                // "()" is the identity: an empty product.
                at += 1;
                break;
            }
            let start = at;
            while at < chars.len() && chars[at].is_ascii_digit() {
                at += 1;
            }
            if start == at {
                return Err(err(
                    at.min(chars.len()),
                    "expected a point (a number from 1)",
                ));
            }
            let digits: String = chars[start..at].iter().collect();
            let point: usize = digits
                .parse()
                .ok()
                .filter(|&p| (1..=255).contains(&p))
                .ok_or_else(|| err(start, &format!("point {digits} is not between 1 and 255")))?;
            cycle.push(point - 1);
            skip_space(&mut at);
            match chars.get(at) {
                Some(',') => at += 1,
                Some(')') => {
                    at += 1;
                    break;
                }
                Some(c) => return Err(err(at, &format!("expected ',' or ')', found '{c}'"))),
                None => return Err(err(at, "expected ')' to close the cycle")),
            }
        }
        current.push(cycle);
    }
    let n = cycles_of
        .iter()
        .flatten()
        .flatten()
        .map(|&p| p + 1)
        .max()
        .unwrap_or(0);
    if n < 2 {
        return Err("the generators move no point: give at least one cycle such as (1,2)".into());
    }
    let mut moves = Vec::new();
    for (g, cycles) in cycles_of.iter().enumerate() {
        let mut image = group::identity(n);
        let mut seen = vec![false; n];
        for cycle in cycles {
            for (w, &p) in cycle.iter().enumerate() {
                if seen[p] {
                    return Err(err(
                        starts[g],
                        &format!(
                            "point {} appears twice in generator {}: its cycles must be disjoint",
                            p + 1,
                            g + 1
                        ),
                    ));
                }
                seen[p] = true;
                image[p] = cycle[(w + 1) % cycle.len()] as u8;
            }
        }
        if group::is_identity(&image) {
            return Err(err(
                starts[g],
                &format!("generator {} moves no point: leave it out", g + 1),
            ));
        }
        // The piece at i goes to image[i]: position image[i] takes from i.
        moves.push((format!("g{}", g + 1), group::inverse(&image)));
    }
    Ok(Definition {
        name: String::new(),
        solved: (1..=n as u32).collect(),
        moves,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycles_become_from_arrays() {
        let d = generators("(1,2)(3,4); (1,2,3,4,5)").unwrap();
        assert_eq!(d.solved, [1, 2, 3, 4, 5]);
        assert_eq!(d.moves[0], ("g1".into(), vec![1, 0, 3, 2, 4]));
        // The piece at 1 goes to 2: position 2 takes from position 1.
        assert_eq!(d.moves[1].1, vec![4, 0, 1, 2, 3]);
        assert_eq!(generators(" ( 1 , 3 ) ").unwrap().moves[0].1, vec![2, 1, 0]);
    }

    #[test]
    fn malformed_generators_name_the_column() {
        for (text, column, needle) in [
            ("(1,2", 5, "')'"),
            ("(1,2)(3;4)", 8, "',' or ')'"),
            ("(1,2);;(3,4)", 7, "expected a generator"),
            ("(1,x)", 4, "a point"),
            ("(1,2)(2,3)", 1, "appears twice"),
            ("(1,2); (0,1)", 9, "between 1 and 255"),
            ("(1,2); ()", 7, "moves no point"),
            ("1,2", 1, "expected '('"),
        ] {
            let e = generators(text).unwrap_err();
            assert!(e.contains(&format!("column {column}:")), "{text}: {e}");
            assert!(e.contains(needle), "{text}: {e}");
        }
    }
}
