//! Reading permutation puzzles: generators in GAP's cycle notation, and twsearch/ksolve
//! definition files (`.tws`).
//!
//! Both give moves as *from* arrays: after the move, position `i` holds what position
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
    let err = |at: usize, what: &str| format!("--gens: column {}: {what}", at + 1);
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
        return Err(
            "--gens: the generators move no point: give at least one cycle such as (1,2)".into(),
        );
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

/// Reads a twsearch/ksolve definition with one piece set and no orientations:
///
/// ```text
/// Name NAME
/// Set PIECES COUNT 1
/// Solved
/// PIECES
/// 1 2 ... COUNT
/// End
/// Move NAME
/// PIECES
/// p1 p2 ... pCOUNT
/// End
/// ```
///
/// As in twsearch, a move line lists for each position the position its piece comes from:
/// after the move, position `i` holds what position `p_i` held. Lines starting with `#` are
/// comments. Errors read `FILE:LINE:COLUMN: message`.
pub fn definition(text: &str, file: &str) -> Result<Definition, String> {
    let lines: Vec<(usize, Vec<(usize, &str)>)> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim_start().starts_with('#') && !l.trim().is_empty())
        .map(|(i, l)| (i + 1, tokens(l)))
        .collect();
    let err = |line: usize, column: usize, what: &str| format!("{file}:{line}:{column}: {what}");
    let mut name = String::new();
    let mut set: Option<(String, usize)> = None;
    let mut solved: Option<Vec<u32>> = None;
    let mut moves: Vec<(String, Perm)> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let (ln, toks) = &lines[i];
        let (col, word) = toks[0];
        match word {
            "Name" => {
                name = toks.get(1).map(|t| t.1.to_string()).unwrap_or_default();
                i += 1;
            }
            "Set" => {
                if set.is_some() {
                    return Err(err(
                        *ln,
                        col,
                        "a second Set: gpusearch reads puzzles with one piece set",
                    ));
                }
                if toks.len() != 4 {
                    return Err(err(*ln, col, "expected 'Set NAME COUNT ORIENTATIONS'"));
                }
                let count = number(toks[2], *ln, &err)?;
                let orientations = number(toks[3], *ln, &err)?;
                if !(2..=20).contains(&count) {
                    return Err(err(
                        *ln,
                        toks[2].0,
                        &format!("{count} pieces: gpusearch reads 2 to 20"),
                    ));
                }
                if orientations != 1 {
                    return Err(err(
                        *ln,
                        toks[3].0,
                        &format!(
                            "{orientations} orientations: gpusearch reads pieces without orientation (1)"
                        ),
                    ));
                }
                set = Some((toks[1].1.to_string(), count));
                i += 1;
            }
            "Solved" | "Move" => {
                let Some((set_name, count)) = &set else {
                    return Err(err(*ln, col, "Set must come before Solved and Move"));
                };
                let block_name = (word == "Move")
                    .then(|| {
                        toks.get(1)
                            .map(|t| t.1.to_string())
                            .ok_or_else(|| err(*ln, col, "expected 'Move NAME'"))
                    })
                    .transpose()?;
                // The block: an optional set name line, a permutation line, an optional line of
                // orientations (all 0), End.
                let mut perm: Option<Vec<u32>> = None;
                let mut j = i + 1;
                loop {
                    let Some((bl, bt)) = lines.get(j) else {
                        return Err(err(*ln, col, &format!("{word} block without End")));
                    };
                    let (bc, first) = bt[0];
                    if first == "End" {
                        break;
                    }
                    if first == set_name.as_str() && bt.len() == 1 {
                        j += 1;
                        continue;
                    }
                    if perm.is_none() {
                        if bt.len() != *count {
                            return Err(err(
                                *bl,
                                bc,
                                &format!(
                                    "expected {count} numbers for {set_name}, found {}",
                                    bt.len()
                                ),
                            ));
                        }
                        let values = bt
                            .iter()
                            .map(|t| number(*t, *bl, &err).map(|v| v as u32))
                            .collect::<Result<Vec<u32>, String>>()?;
                        check_permutation(&values, bt, *bl, &err, word == "Solved")?;
                        perm = Some(values);
                    } else if bt.iter().all(|t| t.1 == "0") && bt.len() == *count {
                        // Orientations, all zero: nothing to do.
                    } else {
                        return Err(err(
                            *bl,
                            bc,
                            "unexpected line: expected orientations (all 0) or End",
                        ));
                    }
                    j += 1;
                }
                let values = perm.unwrap_or_else(|| (1..=*count as u32).collect());
                match block_name {
                    None => {
                        if solved.is_some() {
                            return Err(err(*ln, col, "a second Solved block"));
                        }
                        solved = Some(values);
                    }
                    Some(move_name) => {
                        let from: Perm = values.iter().map(|&v| (v - 1) as u8).collect();
                        if group::is_identity(&from) {
                            return Err(err(*ln, col, &format!("move {move_name} moves nothing")));
                        }
                        if moves.iter().any(|(m, _)| *m == move_name) {
                            return Err(err(*ln, col, &format!("a second move named {move_name}")));
                        }
                        moves.push((move_name, from));
                    }
                }
                i = j + 1;
            }
            "End" => return Err(err(*ln, col, "End without a block")),
            "StartState" | "Illegal" | "MoveSequence" | "MoveAlias" | "MoveTransformation"
            | "Ignore" | "Ignorepieces" | "Block" | "Blocks" | "ForbiddenPairs"
            | "ForbiddenGroups" => {
                return Err(err(
                    *ln,
                    col,
                    &format!(
                        "'{word}' is not supported: gpusearch reads Name, Set, Solved and Move blocks"
                    ),
                ));
            }
            other => {
                return Err(err(
                    *ln,
                    col,
                    &format!("unexpected '{other}': expected Name, Set, Solved or Move"),
                ));
            }
        }
    }
    let Some((_, count)) = set else {
        return Err(format!(
            "{file}: no Set line: a definition starts with 'Set NAME COUNT 1'"
        ));
    };
    if moves.is_empty() {
        return Err(format!(
            "{file}: no Move block: the puzzle needs at least one move"
        ));
    }
    Ok(Definition {
        name,
        solved: solved.unwrap_or_else(|| (1..=count as u32).collect()),
        moves,
    })
}

/// The whitespace-separated tokens of a line with their 1-based columns.
fn tokens(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                out.push((line[..s].chars().count() + 1, &line[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((line[..s].chars().count() + 1, &line[s..]));
    }
    out
}

fn number(
    (col, token): (usize, &str),
    line: usize,
    err: &impl Fn(usize, usize, &str) -> String,
) -> Result<usize, String> {
    token
        .parse()
        .map_err(|_| err(line, col, &format!("expected a number, found '{token}'")))
}

/// Checks that `values` hold each of `1..=len` once; `solved` words the error for pieces.
fn check_permutation(
    values: &[u32],
    toks: &[(usize, &str)],
    line: usize,
    err: &impl Fn(usize, usize, &str) -> String,
    solved: bool,
) -> Result<(), String> {
    let mut seen = vec![false; values.len()];
    for (&v, &(col, _)) in values.iter().zip(toks) {
        if v == 0 || v as usize > values.len() {
            return Err(err(
                line,
                col,
                &format!("{v} is not between 1 and {}", values.len()),
            ));
        }
        if std::mem::replace(&mut seen[v as usize - 1], true) {
            return Err(err(
                line,
                col,
                &if solved {
                    format!("piece {v} appears twice: identical pieces are not supported")
                } else {
                    format!("{v} appears twice: a move must list each position once")
                },
            ));
        }
    }
    Ok(())
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

    const TURNSTILE4: &str = "# a comment\nName Small\n\nSet PIECES 4 1\nSolved\nPIECES\n1 2 3 4\nEnd\nMove F\nPIECES\n2 1 4 3\nEnd\nMove L\nPIECES\n2 3 4 1\n0 0 0 0\nEnd\n";

    #[test]
    fn definitions_read_moves_as_from_arrays() {
        let d = definition(TURNSTILE4, "small.tws").unwrap();
        assert_eq!(d.name, "Small");
        assert_eq!(d.solved, [1, 2, 3, 4]);
        assert_eq!(d.moves[0], ("F".into(), vec![1, 0, 3, 2]));
        assert_eq!(d.moves[1], ("L".into(), vec![1, 2, 3, 0]));
    }

    #[test]
    fn malformed_definitions_name_line_and_column() {
        let cases = [
            (
                TURNSTILE4.replace("Set PIECES 4 1", "Set PIECES 4 3"),
                "4:14:",
                "orientations",
            ),
            (
                TURNSTILE4.replace("2 1 4 3", "2 1 4 4"),
                "11:7:",
                "appears twice",
            ),
            (
                TURNSTILE4.replace("2 1 4 3", "2 1 4"),
                "11:1:",
                "expected 4 numbers",
            ),
            (
                TURNSTILE4.replace("1 2 3 4\n", "1 1 3 4\n"),
                "7:3:",
                "identical pieces",
            ),
            (
                TURNSTILE4.replace("Move L", "Illegal PIECES 1 2"),
                "13:1:",
                "not supported",
            ),
            (
                TURNSTILE4.replace("2 3 4 1", "2 3 x 1"),
                "15:5:",
                "expected a number",
            ),
            (
                TURNSTILE4.replace("Name Small", "Nmae Small"),
                "2:1:",
                "unexpected 'Nmae'",
            ),
        ];
        for (text, at, needle) in cases {
            let e = definition(&text, "t.tws").unwrap_err();
            assert!(e.starts_with(&format!("t.tws:{at}")), "{e}");
            assert!(e.contains(needle), "{e}");
        }
    }
}
