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

/// Reads generators written as products of cycles, separated by `;` or `,`:
/// `"(1,2)(3,4); (1,2,3,4,5,6,7,8)"`, or as GAP writes a group, `"Group([ (1,2)(3,4),
/// (1,2,3,4,5,6,7,8) ])"` (or its list alone, in brackets). Points are 1-based; the puzzle has
/// as many positions as the largest point. A generator sends point `i` to point `g(i)`: the
/// piece at position `i` moves to position `g(i)`. The moves are named `g1`, `g2`, ... Errors
/// name the column (1-based) in `text`, and the line where it has several.
pub fn generators(text: &str) -> Result<Definition, String> {
    let mut r = Reader::new(text);
    r.space();
    let group = r.word("Group");
    if group {
        r.space();
        r.expect('(', "'(' after Group")?;
        r.space();
    }
    let list = r.eat('[');
    let mut products = Vec::new();
    loop {
        r.space();
        let at = r.at;
        if r.ended() || r.peek(&[';', ',', ']', ')']) {
            return Err(r.error(at, "expected a generator such as (1,2)(3,4)"));
        }
        let name = format!("g{}", products.len() + 1);
        products.push((name, r.product()?, at));
        r.space();
        if !(r.eat(';') || r.eat(',')) {
            break;
        }
    }
    if list {
        r.expect(
            ']',
            "']' to close the list of generators, or ',' before the next",
        )?;
        r.space();
    }
    if group {
        r.expect(')', "')' to close Group(")?;
        r.space();
    }
    if !r.ended() {
        let found = r.chars[r.at];
        return Err(r.error(r.at, &format!("expected '(', ';' or ',', found '{found}'")));
    }
    r.definition(products)
}

/// Reads a file of named generators as GAP states them, and CayleyPy's puzzle library keeps
/// them: `NAME := (1,2)(3,4);` statements (a leading `M_` left out of the name), the others
/// (`Gen := [M_U, ...];`, lists of any kind) skipped, `#` starting a comment to the end of the
/// line. Errors name the line and the column.
pub fn gap_file(text: &str) -> Result<Definition, String> {
    let mut r = Reader::new(text);
    r.multiline = true;
    let mut products = Vec::new();
    loop {
        r.space();
        if r.ended() {
            break;
        }
        let at = r.at;
        let name: String = r.take_while(|c| c.is_alphanumeric() || c == '_');
        if name.is_empty() {
            let found = r.chars[r.at];
            return Err(r.error(at, &format!("expected a generator's name, found '{found}'")));
        }
        r.space();
        if !(r.eat(':') && r.eat('=')) {
            return Err(r.error(r.at, &format!("expected ':=' after {name}")));
        }
        r.space();
        if r.peek(&['(']) {
            let name = name.strip_prefix("M_").unwrap_or(&name).to_string();
            products.push((name, r.product()?, at));
            r.space();
            r.expect(';', "';' to end the statement")?;
        } else {
            // Not a permutation: a list of the generators or of anything else.
            r.take_while(|c| c != ';');
            r.expect(';', "';' to end the statement")?;
        }
    }
    if products.is_empty() {
        return Err("the file names no generator: write NAME := (1,2)(3,4); for each".into());
    }
    r.definition(products)
}

/// Reads a position as labels by position (a start, or a position to solve): numbers separated
/// by spaces or commas, optionally in brackets (`[0, 0, 1, 1]`), or one word of two or more
/// digits read digit by digit, as CayleyPy writes binary strings (`0011`).
pub fn labels(text: &str) -> Result<Vec<u32>, String> {
    let inner = text.trim();
    let inner = (inner.strip_prefix('[').and_then(|t| t.strip_suffix(']'))).unwrap_or(inner);
    let digits = inner.chars().count() > 1 && inner.chars().all(|c| c.is_ascii_digit());
    let labels = match digits {
        true => inner.chars().map(|c| c as u32 - '0' as u32).collect(),
        false => crate::puzzle::numbers(inner)?,
    };
    match labels.is_empty() {
        true => Err(
            "the position has no labels: write a label for each position, e.g. \"0 0 1 1\" or 0011"
                .into(),
        ),
        false => Ok(labels),
    }
}

/// Cycles written out, from `text`, with the place of each character for errors.
struct Reader {
    chars: Vec<char>,
    at: usize,
    /// Whether errors name the line (a file), or only the column where the text is one line.
    multiline: bool,
}

impl Reader {
    fn new(text: &str) -> Reader {
        let chars: Vec<char> = text.chars().collect();
        let multiline = chars.contains(&'\n');
        Reader {
            chars,
            at: 0,
            multiline,
        }
    }

    fn ended(&self) -> bool {
        self.at >= self.chars.len()
    }

    /// Whether the next character is one of `any`.
    fn peek(&self, any: &[char]) -> bool {
        self.chars.get(self.at).is_some_and(|c| any.contains(c))
    }

    /// Takes `c` if it is next.
    fn eat(&mut self, c: char) -> bool {
        let next = self.peek(&[c]);
        self.at += usize::from(next);
        next
    }

    /// Takes `word` if it is next.
    fn word(&mut self, word: &str) -> bool {
        let w: Vec<char> = word.chars().collect();
        let next = self.chars.get(self.at..self.at + w.len()) == Some(&w[..]);
        if next {
            self.at += w.len();
        }
        next
    }

    fn take_while(&mut self, keep: impl Fn(char) -> bool) -> String {
        let start = self.at;
        while self.at < self.chars.len() && keep(self.chars[self.at]) {
            self.at += 1;
        }
        self.chars[start..self.at].iter().collect()
    }

    /// Skips white space, and in a file comments from `#` to the end of the line.
    fn space(&mut self) {
        loop {
            self.take_while(char::is_whitespace);
            if !(self.multiline && self.peek(&['#'])) {
                break;
            }
            self.take_while(|c| c != '\n');
        }
    }

    fn expect(&mut self, c: char, what: &str) -> Result<(), String> {
        if self.eat(c) {
            return Ok(());
        }
        let found = match self.chars.get(self.at) {
            Some(f) => format!(", found '{f}'"),
            None => String::new(),
        };
        Err(self.error(self.at, &format!("expected {what}{found}")))
    }

    /// `what` at character `at`: its column, and its line where the text has several.
    fn error(&self, at: usize, what: &str) -> String {
        let at = at.min(self.chars.len());
        let line_start = self.chars[..at]
            .iter()
            .rposition(|&c| c == '\n')
            .map_or(0, |i| i + 1);
        let column = at - line_start + 1;
        match self.multiline {
            true => {
                let line = 1 + self.chars[..at].iter().filter(|&&c| c == '\n').count();
                format!("line {line}, column {column}: {what}")
            }
            false => format!("column {column}: {what}"),
        }
    }

    /// A product of cycles, `(1,2)(3,4)`: the cycles, points 0-based.
    fn product(&mut self) -> Result<Vec<Vec<usize>>, String> {
        let mut cycles = Vec::new();
        while self.peek(&['(']) {
            self.at += 1;
            let mut cycle = Vec::new();
            loop {
                self.space();
                if self.peek(&[')']) && cycle.is_empty() {
                    // "()" is the identity: an empty product.
                    self.at += 1;
                    break;
                }
                let start = self.at;
                let digits = self.take_while(|c| c.is_ascii_digit());
                if digits.is_empty() {
                    return Err(self.error(start, "expected a point (a number from 1)"));
                }
                let point: usize = (digits.parse().ok())
                    .filter(|p| (1..=255).contains(p))
                    .ok_or_else(|| {
                        self.error(start, &format!("point {digits} is not between 1 and 255"))
                    })?;
                cycle.push(point - 1);
                self.space();
                match self.chars.get(self.at) {
                    Some(',') => self.at += 1,
                    Some(')') => {
                        self.at += 1;
                        break;
                    }
                    Some(c) => {
                        let c = *c;
                        return Err(
                            self.error(self.at, &format!("expected ',' or ')', found '{c}'"))
                        );
                    }
                    None => return Err(self.error(self.at, "expected ')' to close the cycle")),
                }
            }
            cycles.push(cycle);
            self.space();
        }
        if cycles.is_empty() {
            let found = self
                .chars
                .get(self.at)
                .map_or(String::new(), |c| format!(", found '{c}'"));
            return Err(self.error(self.at, &format!("expected '('{found}")));
        }
        Ok(cycles)
    }

    /// The puzzle of the generators `products` (each named, with the place it starts at): as
    /// many positions as the largest point; each generator's cycles disjoint, and none the
    /// identity.
    fn definition(
        &self,
        products: Vec<(String, Vec<Vec<usize>>, usize)>,
    ) -> Result<Definition, String> {
        let n = (products.iter())
            .flat_map(|(_, cycles, _)| cycles.iter().flatten())
            .map(|&p| p + 1)
            .max()
            .unwrap_or(0);
        if n < 2 {
            return Err(
                "the generators move no point: give at least one cycle such as (1,2)".into(),
            );
        }
        let mut moves = Vec::new();
        for (g, (name, cycles, start)) in products.into_iter().enumerate() {
            let mut image = group::identity(n);
            let mut seen = vec![false; n];
            for cycle in &cycles {
                for (w, &p) in cycle.iter().enumerate() {
                    if seen[p] {
                        return Err(self.error(
                            start,
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
                return Err(self.error(
                    start,
                    &format!("generator {} moves no point: leave it out", g + 1),
                ));
            }
            // The piece at i goes to image[i]: position image[i] takes from i.
            moves.push((name, group::inverse(&image)));
        }
        Ok(Definition {
            name: String::new(),
            solved: (1..=n as u32).collect(),
            moves,
        })
    }
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
            ("(1,2); ()", 8, "moves no point"),
            ("1,2", 1, "expected '('"),
            ("Group([ (1,2), (1,2,3) )", 24, "']'"),
            ("Group([ (1,2), (1,2,3) ]", 25, "')' to close Group("),
            ("Group( (1,2) ] )", 14, "')' to close Group(, found ']'"),
            ("[ (1,2),, (2,3) ]", 9, "expected a generator"),
            ("(1,2) x", 7, "found 'x'"),
        ] {
            let e = generators(text).unwrap_err();
            assert!(e.contains(&format!("column {column}:")), "{text}: {e}");
            assert!(e.contains(needle), "{text}: {e}");
        }
    }

    #[test]
    fn gap_s_group_notation_reads_as_the_plain_one() {
        let plain = generators("(1,2,3); (1,2)").unwrap();
        for text in [
            "Group([ (1,2,3), (1,2) ])",
            "Group( [(1,2,3),(1,2)] )",
            "[ (1,2,3), (1,2) ]",
            "(1,2,3), (1,2)",
            "Group([ (1,2,\n3), (1,\n 2) ])",
        ] {
            assert_eq!(generators(text).unwrap(), plain, "{text}");
        }
        // A line break makes errors name the line too.
        let e = generators("Group([ (1,2),\n (1,x) ])").unwrap_err();
        assert!(e.starts_with("line 2, column 5:"), "{e}");
    }

    #[test]
    fn a_gap_file_names_its_generators() {
        let text =
            "# a comment\nM_L:=(1,2,3,4);\nM_X := (1,2);\nGen:=[M_L,M_X];\nip:=[[1],[2,3]];\n";
        let d = gap_file(text).unwrap();
        let names: Vec<&str> = d.moves.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["L", "X"]);
        assert_eq!(d.moves[0].1, generators("(1,2,3,4)").unwrap().moves[0].1);
        for (text, place, needle) in [
            ("M_L:=(1,2,3);\nM_X:=(1,2)\n", "line 3, column 1", "';'"),
            (
                "M_L:=(1,2,3);\n  := (1,2);",
                "line 2, column 3",
                "a generator's name",
            ),
            ("M_L (1,2);", "line 1, column 5", "':='"),
            ("M_L:=(1,2,0);", "line 1, column 11", "between 1 and 255"),
            ("Gen:=[];", "", "names no generator"),
        ] {
            let e = gap_file(text).unwrap_err();
            assert!(e.contains(place) && e.contains(needle), "{text}: {e}");
        }
    }
}
