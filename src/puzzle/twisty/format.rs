//! twsearch's definition format (`.tws`, after ksolve), as twsearch reads it.
//!
//! ```text
//! Name NAME
//! Set CORNER 8 3             # a set of 8 pieces, each with 3 orientations
//! Solved                     # or StartState: the same, pieces numbered from 0
//! CORNER
//! 1 2 3 4 5 6 7 8            # the piece at each position (repeated: identical pieces)
//! 0 0 0 0 0 0 0 0            # their orientations (optional: all 0)
//! End
//! Move F                     # or MoveTransformation: 0-based, orientations as in states
//! CORNER
//! 7 1 3 2 5 6 4 8            # after the move, position i holds what position p_i held
//! 2 1 0 2 0 0 1 0            # ksolve's twists, indexed by the position a piece comes from
//! End
//! ```
//!
//! A set left out of a block is solved (pieces `1..=count`, orientations 0) or unmoved. Move
//! names of rotations (`x`, `y2`, `Uv`, ...) are whole-puzzle turns, not moves: twsearch leaves
//! them out of its searches, and so does gpusearch. What gpusearch cannot honour (`Illegal`
//! positions, orientation wildcards `?`, move sequences and aliases) is refused with the file,
//! line and column. Lines starting with `#` are comments.

use crate::group;

/// A set of pieces that may take each other's places (an orbit: corners, edges, ...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PieceSet {
    /// The set's name (unique in the definition).
    pub name: String,
    /// How many pieces (and positions) it has.
    pub count: usize,
    /// How many ways each piece can be oriented (1 to 126).
    pub orientations: u8,
}

/// One set's part of a position or of a move, in twsearch's state form.
///
/// In a position: the piece (0-based label) and the orientation at each position. In a move:
/// `pieces` is the from array (after the move, position `i` holds what position `pieces[i]`
/// held) and `twists[i]` is added (modulo the set's orientations) to the orientation of the
/// piece that lands at position `i`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetPart {
    /// Labels (positions) or the from array (moves), 0-based.
    pub pieces: Vec<u8>,
    /// Orientations (positions) or twists (moves).
    pub twists: Vec<u8>,
}

impl SetPart {
    /// The solved part of a set of `count` pieces: pieces in order, no twist.
    pub fn identity(count: usize) -> SetPart {
        SetPart {
            pieces: group::identity(count),
            twists: vec![0; count],
        }
    }
}

/// A named move: its part for every set, in set order.
pub type Move = (String, Vec<SetPart>);

/// A twisty puzzle as its definition gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TwistyDefinition {
    /// The `Name` line's name (empty without one).
    pub name: String,
    /// The sets, in the file's order.
    pub sets: Vec<PieceSet>,
    /// The solved position, a part per set.
    pub solved: Vec<SetPart>,
    /// The moves as defined (rotations left out), in the file's order.
    pub moves: Vec<Move>,
}

impl TwistyDefinition {
    /// The solved labels (from 1) where the puzzle is one set of distinct pieces without
    /// orientations: a permutation puzzle.
    pub fn as_permutations(&self) -> Option<Vec<u32>> {
        let [set] = &self.sets[..] else {
            return None;
        };
        let pieces = &self.solved[0].pieces;
        (set.orientations == 1 && crate::rank::is_permutation(pieces))
            .then(|| pieces.iter().map(|&p| u32::from(p) + 1).collect())
    }

    /// A permutation puzzle as a definition of one set without orientations.
    pub fn of_permutations(def: &crate::puzzle::perm::parse::Definition) -> TwistyDefinition {
        let n = def.solved.len();
        let part = |pieces: Vec<u8>| SetPart {
            pieces,
            twists: vec![0; n],
        };
        TwistyDefinition {
            name: def.name.clone(),
            sets: vec![PieceSet {
                name: "PIECES".into(),
                count: n,
                orientations: 1,
            }],
            solved: vec![part(def.solved.iter().map(|&l| (l - 1) as u8).collect())],
            moves: (def.moves.iter())
                .map(|(name, from)| (name.clone(), vec![part(from.clone())]))
                .collect(),
        }
    }
}

/// The most pieces in a set (positions are bytes).
const MAX_COUNT: usize = 255;
/// The most orientations a piece may have (twsearch's bound).
const MAX_ORIENTATIONS: usize = 126;

/// Whether a move name is a rotation of the whole puzzle, by twsearch's rule: upper case letters
/// or underscores followed by `v`, or `x`, `y` or `z` with an optional `2` or `'`.
pub fn is_rotation(name: &str) -> bool {
    if let Some(stem) = name.strip_suffix('v') {
        return !stem.is_empty() && stem.chars().all(|c| c.is_ascii_uppercase() || c == '_');
    }
    matches!(
        name,
        "x" | "y" | "z" | "x2" | "y2" | "z2" | "x'" | "y'" | "z'"
    )
}

/// The definition in `text` (the file `file`, as errors name it: `FILE:LINE:COLUMN: ...`).
pub fn read(text: &str, file: &str) -> Result<TwistyDefinition, String> {
    Reader::new(text, file).definition()
}

/// A line's words with their 1-based columns.
type Words<'t> = Vec<(usize, &'t str)>;

struct Reader<'t> {
    file: &'t str,
    /// The lines that are not blank or comments: 1-based number, words.
    lines: Vec<(usize, Words<'t>)>,
    at: usize,
}

impl<'t> Reader<'t> {
    fn new(text: &'t str, file: &'t str) -> Reader<'t> {
        let lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim_start().starts_with('#') && !l.trim().is_empty())
            .map(|(i, l)| (i + 1, words(l)))
            .collect();
        Reader { file, lines, at: 0 }
    }

    fn err(&self, line: usize, column: usize, what: &str) -> String {
        format!("{}:{line}:{column}: {what}", self.file)
    }

    fn definition(mut self) -> Result<TwistyDefinition, String> {
        let mut name = String::new();
        let mut sets: Vec<PieceSet> = Vec::new();
        let mut solved: Option<Vec<SetPart>> = None;
        let mut moves: Vec<Move> = Vec::new();
        let mut rotations: Vec<String> = Vec::new();
        while self.at < self.lines.len() {
            let (ln, ws) = self.lines[self.at].clone();
            let (col, word) = ws[0];
            self.at += 1;
            match word {
                "Name" => {
                    name = ws.get(1).map(|w| w.1.to_string()).unwrap_or_default();
                }
                "Set" => {
                    if solved.is_some() || !moves.is_empty() {
                        return Err(self.err(
                            ln,
                            col,
                            "Set after Solved or Move: the sets come first",
                        ));
                    }
                    if ws.len() != 4 {
                        return Err(self.err(ln, col, "expected 'Set NAME COUNT ORIENTATIONS'"));
                    }
                    if sets.iter().any(|s| s.name == ws[1].1) {
                        return Err(self.err(
                            ln,
                            ws[1].0,
                            &format!("a second set named {}", ws[1].1),
                        ));
                    }
                    let count = self.number(ln, ws[2], 1, MAX_COUNT)?;
                    let orientations = self.number(ln, ws[3], 1, MAX_ORIENTATIONS)?;
                    sets.push(PieceSet {
                        name: ws[1].1.to_string(),
                        count,
                        orientations: orientations as u8,
                    });
                }
                "Solved" | "StartState" => {
                    if sets.is_empty() {
                        return Err(self.err(ln, col, "Set must come before Solved"));
                    }
                    if solved.is_some() {
                        return Err(self.err(ln, col, "a second Solved block"));
                    }
                    solved = Some(self.block(&sets, ln, col, word)?);
                }
                "Move" | "MoveTransformation" => {
                    if sets.is_empty() {
                        return Err(self.err(ln, col, "Set must come before Move"));
                    }
                    let Some(&(_, move_name)) = ws.get(1) else {
                        return Err(self.err(ln, col, &format!("expected '{word} NAME'")));
                    };
                    if moves.iter().any(|(m, _)| m == move_name)
                        || rotations.iter().any(|r| r == move_name)
                    {
                        return Err(self.err(
                            ln,
                            ws[1].0,
                            &format!("a second move named {move_name}"),
                        ));
                    }
                    let parts = self.block(&sets, ln, col, word)?;
                    if is_rotation(move_name) {
                        rotations.push(move_name.to_string());
                        continue;
                    }
                    if parts
                        .iter()
                        .all(|p| group::is_identity(&p.pieces) && p.twists.iter().all(|&t| t == 0))
                    {
                        return Err(self.err(ln, col, &format!("move {move_name} moves nothing")));
                    }
                    moves.push((move_name.to_string(), parts));
                }
                "End" => return Err(self.err(ln, col, "End without a block")),
                "Illegal" | "MoveSequence" | "MoveAlias" | "Ignore" | "Ignorepieces" | "Block"
                | "Blocks" | "ForbiddenPairs" | "ForbiddenGroups" => {
                    return Err(self.err(
                        ln,
                        col,
                        &format!(
                            "'{word}' is not supported: gpusearch reads Name, Set, Solved (StartState) and Move (MoveTransformation) blocks"
                        ),
                    ));
                }
                other => {
                    return Err(self.err(
                        ln,
                        col,
                        &format!("unexpected '{other}': expected Name, Set, Solved or Move"),
                    ));
                }
            }
        }
        if sets.is_empty() {
            return Err(format!(
                "{}: no Set line: a definition starts with 'Set NAME COUNT ORIENTATIONS'",
                self.file
            ));
        }
        if moves.is_empty() {
            return Err(format!(
                "{}: no Move block: the puzzle needs at least one move",
                self.file
            ));
        }
        let solved =
            solved.unwrap_or_else(|| sets.iter().map(|s| SetPart::identity(s.count)).collect());
        Ok(TwistyDefinition {
            name,
            sets,
            solved,
            moves,
        })
    }

    /// A number in `lo..=hi`.
    fn number(
        &self,
        line: usize,
        (col, w): (usize, &str),
        lo: usize,
        hi: usize,
    ) -> Result<usize, String> {
        match w.parse::<usize>() {
            Ok(v) if (lo..=hi).contains(&v) => Ok(v),
            _ => Err(self.err(
                line,
                col,
                &format!("expected a number from {lo} to {hi}, found '{w}'"),
            )),
        }
    }

    /// The block that the `kind` line (`line`, `col`) opens, up to its End: a part per set.
    fn block(
        &mut self,
        sets: &[PieceSet],
        line: usize,
        col: usize,
        kind: &str,
    ) -> Result<Vec<SetPart>, String> {
        let position = matches!(kind, "Solved" | "StartState");
        let base = if matches!(kind, "StartState" | "MoveTransformation") {
            0
        } else {
            1
        };
        let mut parts: Vec<Option<SetPart>> = vec![None; sets.len()];
        loop {
            let Some((ln, ws)) = self.lines.get(self.at).cloned() else {
                return Err(self.err(line, col, &format!("{kind} block without End")));
            };
            self.at += 1;
            let (c, first) = ws[0];
            if first == "End" {
                break;
            }
            let Some(s) = sets.iter().position(|s| s.name == first) else {
                return Err(self.err(
                    ln,
                    c,
                    &format!("expected a set's name or End, found '{first}'"),
                ));
            };
            if parts[s].is_some() {
                return Err(self.err(ln, c, &format!("{first} a second time in this block")));
            }
            let set = &sets[s];
            let Some((pl, pw)) = self.lines.get(self.at).cloned() else {
                return Err(self.err(ln, c, &format!("expected the pieces of {first}")));
            };
            self.at += 1;
            let pieces = self.values(set, pl, &pw, base, set.count - 1 + base, "pieces")?;
            if position {
                check_labels(&pieces).map_err(|what| self.err(pl, pw[0].0, &what))?;
            } else if let Some(at) = repeated(&pieces) {
                let what = format!(
                    "{} appears twice: a move's line is a permutation, each of {base}..{} once",
                    pw[at].1,
                    set.count - 1 + base
                );
                return Err(self.err(pl, pw[at].0, &what));
            }
            // An orientation line, where the next line is neither a set's name nor End.
            let mut twists = vec![0u8; set.count];
            if let Some((ol, ow)) = self.lines.get(self.at).cloned() {
                let next = ow[0].1;
                if next != "End" && !sets.iter().any(|s| s.name == next) {
                    self.at += 1;
                    if let Some(&(qc, _)) = ow.iter().find(|w| w.1 == "?").filter(|_| position) {
                        return Err(self.err(
                            ol,
                            qc,
                            "orientation wildcards ('?') are not supported: give every orientation",
                        ));
                    }
                    twists = self.values(
                        set,
                        ol,
                        &ow,
                        0,
                        set.orientations as usize - 1,
                        "orientations",
                    )?;
                }
            }
            if !position && base == 1 {
                // ksolve's twists are indexed by the position a piece comes from.
                twists = pieces.iter().map(|&p| twists[p as usize]).collect();
            }
            parts[s] = Some(SetPart { pieces, twists });
        }
        Ok(parts
            .into_iter()
            .zip(sets)
            .map(|(p, s)| p.unwrap_or_else(|| SetPart::identity(s.count)))
            .collect())
    }

    /// A line of `set.count` numbers in `lo..=hi`, less `lo` (so 0-based).
    fn values(
        &self,
        set: &PieceSet,
        line: usize,
        ws: &Words,
        lo: usize,
        hi: usize,
        what: &str,
    ) -> Result<Vec<u8>, String> {
        if ws.len() != set.count {
            return Err(self.err(
                line,
                ws[0].0,
                &format!(
                    "expected {} {what} for {}, found {}",
                    set.count,
                    set.name,
                    ws.len()
                ),
            ));
        }
        ws.iter()
            .map(|&w| self.number(line, w, lo, hi).map(|v| (v - lo) as u8))
            .collect()
    }
}

/// The index of the first value that appeared before, if any.
fn repeated(values: &[u8]) -> Option<usize> {
    let mut seen = [false; 256];
    values
        .iter()
        .position(|&v| std::mem::replace(&mut seen[v as usize], true))
}

/// Checks a position's labels: every label from the least (0) to the greatest is used.
fn check_labels(labels: &[u8]) -> Result<(), String> {
    let top = labels.iter().copied().max().unwrap_or(0) as usize;
    let mut used = vec![false; top + 1];
    for &l in labels {
        used[l as usize] = true;
    }
    match used.iter().position(|u| !u) {
        Some(missing) => Err(format!(
            "label {} is missing: the labels must run from the first to {} without gaps",
            missing + 1,
            top + 1
        )),
        None => Ok(()),
    }
}

/// A line's words and their 1-based columns.
fn words(line: &str) -> Words<'_> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                out.push((s + 1, &line[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s + 1, &line[s..]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_SETS: &str = "# two sets\nName Tiny\nSet A 3 2\nSet B 2 1\n\nSolved\nA\n1 1 2\n0 0 1\nEnd\n\nMove X\nA\n2 3 1\n1 0 0\nEnd\nMove Y\nB\n2 1\nEnd\nMove x\nA\n2 3 1\nB\n2 1\nEnd\n";

    #[test]
    fn reads_sets_identical_pieces_and_ksolve_twists() {
        let d = read(TWO_SETS, "t.tws").unwrap();
        assert_eq!(d.name, "Tiny");
        assert_eq!(d.sets.len(), 2);
        assert_eq!((d.sets[0].count, d.sets[0].orientations), (3, 2));
        assert_eq!(d.solved[0].pieces, vec![0, 0, 1]);
        assert_eq!(d.solved[0].twists, vec![0, 0, 1]);
        // B left out of Solved: solved in order.
        assert_eq!(d.solved[1], SetPart::identity(2));
        // The rotation x is not a move.
        let names: Vec<&str> = d.moves.iter().map(|m| m.0.as_str()).collect();
        assert_eq!(names, ["X", "Y"]);
        // X: position 0 takes position 1's piece, whose ksolve twist (index 1) is 0; position 2
        // takes position 0's piece, twisted by 1.
        assert_eq!(d.moves[0].1[0].pieces, vec![1, 2, 0]);
        assert_eq!(d.moves[0].1[0].twists, vec![0, 0, 1]);
        assert_eq!(d.moves[0].1[1], SetPart::identity(2));
    }

    #[test]
    fn zero_based_forms_read_alike() {
        let ksolve = "Set A 3 3\nMove M\nA\n2 3 1\n1 2 0\nEnd\n";
        let state_form = "Set A 3 3\nMoveTransformation M\nA\n1 2 0\n2 0 1\nEnd\n";
        assert_eq!(read(ksolve, "k").unwrap(), read(state_form, "s").unwrap());
        let start = "Set A 3 1\nStartState\nA\n0 1 2\nEnd\nMove M\nA\n2 3 1\nEnd\n";
        assert_eq!(read(start, "s").unwrap().solved[0], SetPart::identity(3));
    }

    #[test]
    fn rotations_by_twsearchs_rule() {
        for r in ["x", "y2", "z'", "Uv", "FRBv", "Z_Av"] {
            assert!(is_rotation(r), "{r}");
        }
        for m in ["X", "F", "xx", "T", "v", "Fv2", "x3"] {
            assert!(!is_rotation(m), "{m}");
        }
    }

    #[test]
    fn malformed_definitions_name_line_and_column() {
        let cases = [
            (
                TWO_SETS.replace("Set B 2 1", "Set B 2 0"),
                "t:4:9:",
                "from 1 to 126",
            ),
            (
                TWO_SETS.replace("1 1 2\n", "1 1 3\n"),
                "t:8:1:",
                "label 2 is missing",
            ),
            (
                TWO_SETS.replace("0 0 1\nEnd", "0 ? 1\nEnd"),
                "t:9:3:",
                "wildcards",
            ),
            (
                TWO_SETS.replace("2 3 1\n1 0 0", "2 2 1\n1 0 0"),
                "t:14:3:",
                "2 appears twice",
            ),
            (
                TWO_SETS.replace("1 0 0\n", "1 0 2\n"),
                "t:15:5:",
                "from 0 to 1",
            ),
            (
                TWO_SETS.replace("Move Y\nB", "Move Y\nC"),
                "t:18:1:",
                "set's name",
            ),
            (
                TWO_SETS.replace("Move Y", "Illegal A 1 2"),
                "t:17:1:",
                "not supported",
            ),
            (
                TWO_SETS.replace("Move Y", "Move X"),
                "t:17:6:",
                "second move",
            ),
            (
                TWO_SETS.replace("Set B 2 1", "Set A 2 1"),
                "t:4:5:",
                "second set",
            ),
            (
                format!("{TWO_SETS}Move Z\nB\n1 2\nEnd\n"),
                "t:27:1:",
                "moves nothing",
            ),
            (
                "Set A 2 1\nMove M\nA\n2 1\n".to_string(),
                "t:2:1:",
                "without End",
            ),
        ];
        for (text, at, what) in cases {
            let e = read(&text, "t").unwrap_err();
            assert!(e.starts_with(at) && e.contains(what), "{e}");
        }
    }
}
