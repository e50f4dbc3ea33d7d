//! Free the Key (Oskar van Deventer), modelled as in K. E. Caviness's "Maze for Free the Key":
//! a disk with `d` cuts around its hole sits on a key whose teeth stand above and below it; the
//! disk slides along the key's positions and turns a cut at a time, whenever the teeth at its
//! position fit the cuts facing them. The puzzle is solved when the disk is off the far end of the
//! key. The positions x rotations form a maze on a cylinder.
//!
//! A definition file gives the heights (see [`Key::parse`]); the article's own arrays are not in
//! its text, so the example that ships with gpusearch is invented.
//!
//! States: the disk at key position `p` (0 at the handle) and rotation `r` (the cut facing up),
//! rank `p * d + r`, for `p < positions`, plus the disk off the end at each rotation, ranks
//! `positions * d + r`. Those `d` states are all solved (distance 0); from each, the disk can only
//! slide back on. Moves: `L` slides towards the handle, `R` towards the free end, `CW` and `CCW`
//! turn the disk one cut; a move that does not fit leaves the disk where it is.

use super::capability::{Capabilities, Symmetries};
use super::family::{Family, Given, Kind, Opt, PuzzleError, Sample};
use super::{Cursor, PuzzleInfo, Space, StateSpace};
use crate::puzzle::path::path_to_solved;
use crate::table::{DistanceTable, UNREACHED};

/// The Free the Key family (`--puzzle key`).
pub struct FreeTheKey;
/// The Free the Key family.
pub const KEY: FreeTheKey = FreeTheKey;

impl Family for FreeTheKey {
    fn name(&self) -> &'static str {
        "key"
    }

    fn samples(&self) -> &'static [Sample] {
        &[Sample {
            options: &[("def", "puzzles/free-the-key.txt")],
            reaches: "the published key",
        }]
    }

    fn options(&self) -> &'static [Opt] {
        &[Opt {
            name: "def",
            kind: Kind::File,
            help: "the key and disk heights (see docs/puzzles.md)",
            default: None,
        }]
    }

    fn build(&self, given: &Given) -> Result<Space, PuzzleError> {
        let path = given.need_file("def")?;
        let file = path.display().to_string();
        let text = super::family::read_definition(&path)?;
        let name = (path.file_stem()).map_or("definition".into(), |s| s.to_string_lossy());
        Ok(Space::Key(Key::parse(&text, &file, &name)?))
    }

    /// The key of the heights a file's description holds.
    fn rebuild(&self, info: &PuzzleInfo) -> Result<Space, PuzzleError> {
        let p = &info.params;
        let bad = || format!("the file's params do not describe a {} puzzle", info.puzzle);
        let line = |key: &str| -> Result<String, String> {
            let list: Vec<u8> =
                serde_json::from_value(p.get(key).cloned().ok_or_else(bad)?).map_err(|_| bad())?;
            let words: Vec<String> = list.iter().map(u8::to_string).collect();
            Ok(format!("{key} {}\n", words.join(" ")))
        };
        let text = [
            line("above")?,
            line("below")?,
            line("disk")?,
            line("start")?,
        ]
        .concat();
        let name = (p.get("definition").and_then(|v| v.as_str())).ok_or_else(bad)?;
        Ok(Space::Key(Key::parse(&text, name, name)?))
    }
}

/// The key and disk heights.
#[derive(Clone, Debug)]
pub struct Key {
    name: String,
    /// Tooth height above the key at each position (0 = no tooth).
    above: Vec<u8>,
    /// Tooth height below the key at each position.
    below: Vec<u8>,
    /// Cut height at each place around the disk: a tooth of height `h` passes a cut of height
    /// `c` when `h <= c`.
    disk: Vec<u8>,
    /// Where the disk starts (position, rotation).
    start: (usize, usize),
}

impl Key {
    /// Reads a definition:
    ///
    /// ```text
    /// # comments start with '#'
    /// above 0 2 1 3 ...   tooth heights above the key, one per position from the handle
    /// below 0 1 0 2 ...   tooth heights below, as many
    /// disk 4 1 3 0 ...    cut heights around the disk (an even count; the cut opposite cut r
    ///                     faces down when cut r faces up)
    /// start 0 0           optional: the disk's first position and rotation (default 0 0)
    /// ```
    ///
    /// Errors read `FILE:LINE:COLUMN: message`.
    pub fn parse(text: &str, file: &str, name: &str) -> Result<Key, String> {
        let err = |line: usize, col: usize, what: &str| format!("{file}:{line}:{col}: {what}");
        let mut fields: [Option<(usize, Vec<u8>)>; 4] = [None, None, None, None];
        let names = ["above", "below", "disk", "start"];
        for (i, line) in text.lines().enumerate() {
            let ln = i + 1;
            let trimmed = line.trim_start();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let indent = line.len() - trimmed.len();
            let mut words = trimmed.split_whitespace();
            let word = words.next().unwrap_or_default();
            let Some(f) = names.iter().position(|&n| n == word) else {
                return Err(err(
                    ln,
                    indent + 1,
                    &format!("unexpected '{word}': expected above, below, disk or start"),
                ));
            };
            if fields[f].is_some() {
                return Err(err(ln, indent + 1, &format!("a second '{word}' line")));
            }
            let mut values = Vec::new();
            let mut col = indent + word.len();
            for v in trimmed[word.len()..].split_whitespace() {
                col = line[col..].find(v).map_or(col, |o| col + o);
                let x: u8 = v.parse().map_err(|_| {
                    err(
                        ln,
                        col + 1,
                        &format!("expected a height (0 to 255), found '{v}'"),
                    )
                })?;
                values.push(x);
                col += v.len();
            }
            fields[f] = Some((ln, values));
        }
        let [above, below, disk, start] = fields;
        let missing = |what: &str| format!("{file}: no '{what}' line");
        let (_, above) = above.ok_or_else(|| missing("above"))?;
        let (bl, below) = below.ok_or_else(|| missing("below"))?;
        let (dl, disk) = disk.ok_or_else(|| missing("disk"))?;
        if above.is_empty() {
            return Err(missing("above"));
        }
        if below.len() != above.len() {
            return Err(err(
                bl,
                1,
                &format!(
                    "{} heights below but {} above: give one per key position",
                    below.len(),
                    above.len()
                ),
            ));
        }
        if disk.len() < 2 || disk.len() % 2 == 1 {
            return Err(err(
                dl,
                1,
                &format!(
                    "{} cuts: the disk needs an even number (cut r faces down when cut r + d/2 faces up)",
                    disk.len()
                ),
            ));
        }
        let start = match start {
            None => (0, 0),
            Some((sl, s)) => {
                if s.len() != 2 || s[0] as usize >= above.len() || s[1] as usize >= disk.len() {
                    return Err(err(
                        sl,
                        1,
                        &format!(
                            "'start' takes a position below {} and a rotation below {}",
                            above.len(),
                            disk.len()
                        ),
                    ));
                }
                (s[0] as usize, s[1] as usize)
            }
        };
        let key = Key {
            name: name.to_string(),
            above,
            below,
            disk,
            start,
        };
        if !key.fits(start.0, start.1) {
            return Err(format!(
                "{file}: the disk does not fit at its start (position {}, rotation {}): the teeth there are taller than its cuts",
                start.0, start.1
            ));
        }
        Ok(key)
    }

    fn positions(&self) -> usize {
        self.above.len()
    }

    fn rotations(&self) -> usize {
        self.disk.len()
    }

    /// Whether the disk fits at key position `p` with cut `r` facing up.
    fn fits(&self, p: usize, r: usize) -> bool {
        let d = self.rotations();
        p >= self.positions()
            || (self.above[p] <= self.disk[r] && self.below[p] <= self.disk[(r + d / 2) % d])
    }

    /// The start's rank.
    pub fn start(&self) -> u64 {
        (self.start.0 * self.rotations() + self.start.1) as u64
    }

    /// The maze as the article draws it: a row per rotation, a column per key position and one
    /// for off the key; `#` a wall (the disk does not fit), `.` open, `*` the optimal path from
    /// the start to off the key, `S` the start.
    pub fn maze(&self, table: &DistanceTable) -> String {
        let (p_count, d) = (self.positions(), self.rotations());
        let path = path_to_solved(self, table, self.start()).unwrap_or_default();
        let mut on_path = vec![false; self.size() as usize];
        let mut cursor = self.cursor();
        let mut rank = self.start();
        on_path[rank as usize] = true;
        for mv in &path {
            cursor.seek(rank);
            rank = cursor.neighbour(*mv);
            on_path[rank as usize] = true;
        }
        let mut out = format!(
            "Free the Key: {p_count} key positions x {d} rotations, {} moves from the start to off the key\n",
            path.len()
        );
        out.push_str("rotation  position 0 (handle) .. ");
        out.push_str(&format!("{} | off\n", p_count - 1));
        for r in 0..d {
            out.push_str(&format!("{r:>8}  "));
            for p in 0..=p_count {
                let rank = p * d + r;
                let c = if (p, r) == self.start {
                    'S'
                } else if on_path[rank] {
                    '*'
                } else if !self.fits(p, r) {
                    '#'
                } else if table.get(rank as u64) == UNREACHED {
                    ','
                } else {
                    '.'
                };
                if p == p_count {
                    out.push_str(" | ");
                }
                out.push(c);
            }
            out.push('\n');
        }
        out.push_str("S start, * optimal path, # wall, . open, , open but cut off from the exit\n");
        out
    }
}

impl StateSpace for Key {
    type Cursor<'a> = KeyCursor<'a>;

    fn size(&self) -> u64 {
        ((self.positions() + 1) * self.rotations()) as u64
    }

    fn move_names(&self) -> Vec<String> {
        ["L", "R", "CW", "CCW"].map(String::from).to_vec()
    }

    fn move_count(&self) -> usize {
        4
    }

    fn solved(&self) -> u64 {
        (self.positions() * self.rotations()) as u64
    }

    fn starts(&self) -> Vec<u64> {
        (self.solved()..self.size()).collect()
    }

    fn cursor(&self) -> KeyCursor<'_> {
        KeyCursor {
            key: self,
            at: (0, 0),
        }
    }

    fn state(&self, rank: u64) -> Vec<u32> {
        let d = self.rotations() as u64;
        vec![(rank / d) as u32, (rank % d) as u32]
    }

    fn rank(&self, state: &[u32]) -> Result<u64, String> {
        let (p_count, d) = (self.positions(), self.rotations());
        match state {
            &[p, r] if (p as usize) <= p_count && (r as usize) < d => {
                if !self.fits(p as usize, r as usize) {
                    return Err(format!(
                        "the disk does not fit at position {p}, rotation {r}: the teeth there are taller than its cuts"
                    ));
                }
                Ok((p as usize * d + r as usize) as u64)
            }
            _ => Err(format!(
                "a state is 'POSITION ROTATION': a position 0..{p_count} ({p_count} = off the key) and a rotation 0..{}",
                d - 1
            )),
        }
    }

    fn info(&self) -> PuzzleInfo {
        let mut params = serde_json::Map::new();
        params.insert("definition".into(), self.name.clone().into());
        params.insert("positions".into(), self.positions().into());
        params.insert("rotations".into(), self.rotations().into());
        // The heights themselves, so that a distances file describes its key alone.
        params.insert("above".into(), self.above.clone().into());
        params.insert("below".into(), self.below.clone().into());
        params.insert("disk".into(), self.disk.clone().into());
        params.insert("start".into(), vec![self.start.0, self.start.1].into());
        PuzzleInfo {
            puzzle: "key".into(),
            params,
            metric: "moves".into(),
            moves: self.move_names(),
            rank_order: format!(
                "rank = position * {d} + rotation, position 0 at the handle; positions {p} (ranks {p}*{d} ..) are off the key, all solved",
                d = self.rotations(),
                p = self.positions()
            ),
            group_order: None,
            symmetry: None,
        }
    }

    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities {
            symmetries: Symmetries::None("gpusearch knows no symmetry of a key's maze"),
            ..Capabilities::default()
        }
    }

    fn measured_rate(&self) -> super::Rate {
        super::Rate {
            per_thread: 0.4e6,
            run: "Free the Key: 157 states in 0.2 ms",
        }
    }

    fn slug(&self) -> String {
        // Files of the same name with different keys get different folders: the digest of the
        // params that describe the key (all but the file's name).
        let mut params = self.info().params;
        params.remove("definition");
        let described = serde_json::Value::Object(params).to_string();
        format!(
            "key-{}-{}",
            self.name,
            super::family::short_digest(&described)
        )
    }

    fn picture(&self, table: &DistanceTable) -> Option<(&'static str, String)> {
        Some(("maze.txt", self.maze(table)))
    }
}

/// Moves the disk.
pub struct KeyCursor<'a> {
    key: &'a Key,
    at: (usize, usize),
}

impl Cursor for KeyCursor<'_> {
    fn seek(&mut self, rank: u64) {
        let d = self.key.rotations() as u64;
        self.at = ((rank / d) as usize, (rank % d) as usize);
    }

    fn neighbour(&mut self, mv: usize) -> u64 {
        let (p, r) = self.at;
        let (p_count, d) = (self.key.positions(), self.key.rotations());
        if !self.key.fits(p, r) {
            // No search reaches a position where the disk does not fit; no move leaves it
            // either, so that every move is undone by one (the disk tier's tail pulls).
            return (p * d + r) as u64;
        }
        let to = match mv {
            0 if p > 0 => (p - 1, r),
            1 if p < p_count => (p + 1, r),
            // Off the key the disk only slides back on.
            2 if p < p_count => (p, (r + 1) % d),
            3 if p < p_count => (p, (r + d - 1) % d),
            _ => (p, r),
        };
        let to = if self.key.fits(to.0, to.1) {
            to
        } else {
            (p, r)
        };
        (to.0 * d + to.1) as u64
    }
}
