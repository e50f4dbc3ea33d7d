//! Sliding-tile puzzles (the 8-puzzle, the 15-puzzle and their rectangles): `rows x cols` cells
//! holding tiles `1..rows*cols` and one blank; a move slides a tile next to the blank into it.
//! Solved: the tiles in order with the blank in the top-left corner, where the search starts. A
//! state lists each cell's tile in reading order, 0 for the blank.
//!
//! Only half the arrangements can be reached: the tiles' order (in reading order, the blank
//! left out) changes parity when a tile moves up or down across a row of even width, and never
//! otherwise. The rank covers exactly that half: `blank * h + lex / 2`, `blank` the blank's
//! cell, `lex` the lexicographic rank of the tiles' order and `h = (cells - 1)! / 2`; of each
//! pair of orders `2k`, `2k + 1` (opposite parities) the one of the blank's cell's parity.
//!
//! Moves are named by the way the tile moves, `U`, `D`, `L`, `R`; where the blank is at an edge
//! the tile there is missing and the move leaves the position as it is (no neighbour: every
//! engine finds nothing new along it). A tile moving left or right leaves the tiles' order as it
//! is: the blank's cell changes by one. One moving up or down passes the `cols - 1` tiles between
//! its cell and the blank's: a rotation of `cols` consecutive tiles of the order.

use super::capability::{Symmetric, Symmetries};
use super::family::{Family, Given, Kind, Opt, PuzzleError, Run, Sample};
use super::{
    BlockMove, Blocks, Capabilities, Cursor, GpuShader, PuzzleInfo, Space, StateSpace, Structure,
};
use crate::puzzle::Rate;
use crate::puzzle::symmetry::{self, Element, Symmetry};
use crate::rank::window::{WindowMove, window_move};
use crate::rank::{self, factorial, lex_rank, lex_unrank};

/// Most cells: the tiles' order is ranked as a permutation of up to 19 tiles.
pub const MAX_CELLS: usize = 20;
/// The moves, by the way the tile moves.
const MOVES: [&str; 4] = ["U", "D", "L", "R"];
/// Most window values of an up or down move applied in bulk (a table of 4 bytes each).
const MAX_WINDOW_VALUES: u64 = 1 << 24;

/// A sliding-tile puzzle.
#[derive(Clone, Debug)]
pub struct Sliding {
    rows: usize,
    cols: usize,
    /// Ranks of each blank's cell: `(cells - 1)! / 2`.
    half: u64,
}

/// The sliding-tile family (`--puzzle sliding`).
pub struct SlidingTiles;
/// The sliding-tile family.
pub const SLIDING: SlidingTiles = SlidingTiles;

impl Family for SlidingTiles {
    fn name(&self) -> &'static str {
        "sliding"
    }

    fn samples(&self) -> &'static [Sample] {
        &[
            Sample {
                options: &[("rows", "2"), ("cols", "4")],
                reaches: "even width",
            },
            Sample {
                options: &[("rows", "3"), ("cols", "3")],
                reaches: "odd width: left and right shift whole blocks, up and down are windows",
            },
        ]
    }

    fn options(&self) -> &'static [Opt] {
        &[
            Opt {
                name: "rows",
                kind: Kind::Count,
                help: "the rows of tiles",
                default: None,
            },
            Opt {
                name: "cols",
                kind: Kind::Count,
                help: "the columns of tiles (rows x cols at most 20 cells)",
                default: None,
            },
        ]
    }

    fn build(&self, given: &Given) -> Result<Space, PuzzleError> {
        let rows = given.need_count("rows")?;
        let cols = given.need_count("cols")?;
        // The option at fault: the rows where there are too few, else the columns.
        let named = match rows < 2 {
            true => PuzzleError::value("rows", rows),
            false => PuzzleError::value("cols", cols),
        };
        let sliding = Sliding::new(rows, cols).map_err(named)?;
        Ok(Space::Sliding(sliding))
    }

    fn runs(&self) -> &'static [Run] {
        macro_rules! boards {
            ($(($r:literal, $c:literal, $large:literal)),*) => {
                &[$(Run { options: &[("rows", $r), ("cols", $c)], large: $large }),*]
            };
        }
        boards![
            ("2", "2", false),
            ("2", "3", false),
            ("3", "2", false),
            ("2", "4", false),
            ("3", "3", false),
            ("2", "5", false),
            ("2", "6", false),
            ("3", "4", false),
            ("4", "3", false),
            // 4.4e10 positions, a 10.1 GiB table.
            ("2", "7", true)
        ]
    }
}

impl Sliding {
    /// Whether the board sweeps: boards of odd width have block moves ([`Blocks`]); boards
    /// of even width have none (half their blocks rank odd orders).
    fn swept(&self) -> bool {
        self.cols % 2 == 1
    }

    /// The puzzle of `rows x cols` cells (at least 2 each, at most [`MAX_CELLS`] cells).
    pub fn new(rows: usize, cols: usize) -> Result<Sliding, String> {
        if rows < 2 || cols < 2 || rows * cols > MAX_CELLS {
            return Err(format!(
                "{rows}x{cols}: a sliding puzzle needs at least 2 rows and 2 columns, and at most {MAX_CELLS} cells"
            ));
        }
        Ok(Sliding {
            rows,
            cols,
            half: factorial(rows * cols - 1) / 2,
        })
    }

    fn cells(&self) -> usize {
        self.rows * self.cols
    }

    /// Whether the tiles' order must be odd with the blank in `cell`.
    fn odd_at(&self, cell: usize) -> bool {
        (self.cols - 1) * (cell / self.cols) % 2 == 1
    }

    /// The rank of the tiles' `order` (0-based tiles) with the blank in `cell`.
    fn rank_of(&self, cell: usize, order: &[u8]) -> u64 {
        cell as u64 * self.half + lex_rank(order) / 2
    }

    /// The blank's cell and the tiles' order (0-based tiles) of the position `rank`.
    fn order_of(&self, rank: u64, order: &mut [u8]) -> usize {
        let cell = (rank / self.half) as usize;
        lex_unrank(rank % self.half * 2, order);
        if rank::is_odd(order) != self.odd_at(cell) {
            // The other order of the pair: the last two tiles swapped.
            let m = order.len();
            order.swap(m - 2, m - 1);
        }
        cell
    }
}

impl Symmetric for Sliding {
    /// On a square board, the mirror in the diagonal through the blank's corner: cells and
    /// tiles reflected alike, `U` and `L` swapped, and `D` and `R`.
    fn symmetry(&self) -> Result<Symmetry, String> {
        let m = self.rows;
        if self.cols != m {
            return Err("only a square board has a mirror that keeps the blank's corner".into());
        }
        let to: Vec<usize> = (0..m * m).map(|i| (i % m) * m + i / m).collect();
        let mirror = Element {
            labels: to.iter().map(|&i| i as u32).collect(),
            positions: to,
        };
        symmetry::of_pieces(
            self,
            "the mirror in the diagonal through the blank's corner",
            &[mirror],
            0,
            // The blank's place counts towards which arrangements are reachable.
            symmetry::Half::Asked,
            // Where a move takes a tile depends on where the blank is.
            &[0],
        )
    }
}

impl StateSpace for Sliding {
    type Cursor<'a> = SlidingCursor<'a>;

    /// Block moves on boards of odd width ([`Blocks`]).
    fn capabilities(&self) -> Capabilities<'_> {
        Capabilities {
            blocks: self.swept().then_some(self as &dyn Blocks),
            symmetries: Symmetries::Offered(self),
            ..Capabilities::default()
        }
    }

    fn size(&self) -> u64 {
        self.cells() as u64 * self.half
    }

    fn move_names(&self) -> Vec<String> {
        MOVES.iter().map(|m| m.to_string()).collect()
    }

    fn move_count(&self) -> usize {
        MOVES.len()
    }

    fn solved(&self) -> u64 {
        0
    }

    fn cursor(&self) -> SlidingCursor<'_> {
        SlidingCursor {
            puzzle: self,
            rank: 0,
            cell: 0,
            order: [0; MAX_CELLS],
        }
    }

    /// Each cell's tile in reading order, 0 for the blank.
    fn state(&self, rank: u64) -> Vec<u32> {
        let mut order = vec![0u8; self.cells() - 1];
        let cell = self.order_of(rank, &mut order);
        let mut tiles: Vec<u32> = order.iter().map(|&t| u32::from(t) + 1).collect();
        tiles.insert(cell, 0);
        tiles
    }

    fn rank(&self, state: &[u32]) -> Result<u64, String> {
        let cells = self.cells();
        let labels: Vec<u32> = state.iter().map(|&t| t + 1).collect();
        let pieces = super::pieces(&labels, cells).map_err(|_| {
            format!(
                "give each cell's tile in reading order: each of 0 (the blank) to {} once",
                cells - 1
            )
        })?;
        let cell = pieces.iter().position(|&p| p == 0).expect("a blank");
        let order: Vec<u8> = (pieces.iter())
            .filter(|&&p| p > 0)
            .map(|&p| p - 1)
            .collect();
        if rank::is_odd(&order) != self.odd_at(cell) {
            return Err(
                "this arrangement cannot be reached from solved (two tiles swapped): swap two tiles back"
                    .into(),
            );
        }
        Ok(self.rank_of(cell, &order))
    }

    fn format_state(&self, state: &[u32]) -> String {
        let rows: Vec<String> = state
            .chunks(self.cols)
            .map(|row| {
                (row.iter().map(u32::to_string))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        rows.join(" / ")
    }

    fn parse_state(&self, text: &str) -> Result<Vec<u32>, String> {
        super::numbers(&text.replace('/', " "))
    }

    fn info(&self) -> PuzzleInfo {
        let mut params = serde_json::Map::new();
        params.insert("rows".into(), self.rows.into());
        params.insert("cols".into(), self.cols.into());
        PuzzleInfo {
            puzzle: "sliding".into(),
            params,
            metric: "moves".into(),
            moves: self.move_names(),
            rank_order: "rank = blank * (cells - 1)!/2 + lex / 2: the blank's cell in reading order, and the lexicographic rank of the tiles' order (reading order, the blank left out), halved: the one of each pair of the reachable parity".into(),
            group_order: None,
            symmetry: None,
        }
    }

    fn slug(&self) -> String {
        format!("sliding-{}x{}", self.rows, self.cols)
    }

    fn move_state(&self, state: &[u32], mv: usize, out: &mut [u32]) -> bool {
        out.copy_from_slice(state);
        let blank = state.iter().position(|&t| t == 0).expect("a blank");
        let (row, col) = (blank / self.cols, blank % self.cols);
        // The tile that moves into the blank: below it for U, above for D, right for L, left
        // for R.
        let tile = match mv {
            0 => (row + 1 < self.rows).then(|| blank + self.cols),
            1 => (row > 0).then(|| blank - self.cols),
            2 => (col + 1 < self.cols).then(|| blank + 1),
            _ => (col > 0).then(|| blank - 1),
        };
        if let Some(tile) = tile {
            out.swap(blank, tile);
        }
        true
    }

    /// Swept boards (odd columns) between 2x7's and 4x3's rates; the others state by state.
    fn measured_rate(&self) -> Rate {
        match self.swept() {
            true => Rate {
                per_thread: 25.0e6,
                run: "sliding 2x7: 4.4e10 states in 461 s; 4x3: 2.4e8 in 17 s",
            },
            false => Rate {
                per_thread: 7.0e6,
                run: "sliding 3x4: 2.4e8 states in 17 s",
            },
        }
    }

    fn gpu_shader(&self) -> Option<GpuShader> {
        Some(GpuShader {
            source: include_str!("../../shaders/sliding.wgsl"),
            constants: vec![("ROWS", self.rows as f64), ("COLS", self.cols as f64)],
            data: vec![self.half as u32, (self.half >> 32) as u32],
            tables: Vec::new(),
            pushed: None,
        })
    }
}

impl Blocks for Sliding {
    /// On boards of odd width every order is even: each blank cell's ranks are the even
    /// orders' indices, so left and right move whole blocks of them, and up and down rotate a
    /// window of `cols` tiles of the order ([`window_move`]). A move with no tile to move maps
    /// a block onto itself. Boards of even width have none (half their blocks rank odd orders).
    fn structure(&self) -> Structure {
        let (cols, cells, half) = (self.cols, self.cells(), self.half);
        let tiles = cells - 1;
        // The tile at the end of the window comes first (up); the first goes last (down).
        let up: Vec<usize> = (0..cols).map(|i| (i + cols - 1) % cols).collect();
        let mut ups: Vec<Option<WindowMove>> = vec![None; cells];
        let mut blocks = Vec::new();
        let mut residual = Vec::new();
        for cell in 0..cells {
            let (row, col) = (cell / cols, cell % cols);
            let from = cell as u64 * half;
            let block = |to: usize, window: WindowMove| BlockMove {
                from,
                to: to as u64 * half,
                len: half,
                window,
                first_block: 0,
            };
            for (mv, name) in MOVES.iter().enumerate() {
                // The blank's cell after the move, and where the window of tiles starts.
                let (to, at) = match *name {
                    "U" if row + 1 < self.rows => (cell + cols, cell),
                    "D" if row > 0 => (cell - cols, cell - cols),
                    "L" if col + 1 < cols => {
                        blocks.push(block(cell + 1, WindowMove::identity(half)));
                        continue;
                    }
                    "R" if col > 0 => {
                        blocks.push(block(cell - 1, WindowMove::identity(half)));
                        continue;
                    }
                    _ => {
                        blocks.push(block(cell, WindowMove::identity(half)));
                        continue;
                    }
                };
                // A window move of any runs: short ones in large blocks move run by run, which
                // costs less than the cursor (2x7, the blank in the third column: runs of 12
                // ranks in blocks of 11!/2).
                let values = factorial(tiles - at) / factorial(tiles - at - cols);
                if values > MAX_WINDOW_VALUES {
                    residual.push((from..from + half, mv));
                    continue;
                }
                // Down from this cell undoes up from the cell above.
                let up_at = ups[at].get_or_insert_with(|| window_move(tiles, at, &up, true));
                let window = match *name {
                    "U" => up_at.clone(),
                    _ => up_at.inverse(),
                };
                blocks.push(block(to, window));
            }
        }
        Structure { blocks, residual }
    }
}

/// Walks the positions of a sliding puzzle: the blank's cell and the tiles' order.
pub struct SlidingCursor<'a> {
    puzzle: &'a Sliding,
    rank: u64,
    cell: usize,
    order: [u8; MAX_CELLS],
}

impl Cursor for SlidingCursor<'_> {
    fn seek(&mut self, rank: u64) {
        let tiles = self.puzzle.cells() - 1;
        self.rank = rank;
        self.cell = self.puzzle.order_of(rank, &mut self.order[..tiles]);
    }

    fn neighbour(&mut self, mv: usize) -> u64 {
        let (rows, cols) = (self.puzzle.rows, self.puzzle.cols);
        let (row, col) = (self.cell / cols, self.cell % cols);
        let half = self.puzzle.half;
        let tiles = rows * cols - 1;
        let mut order = self.order;
        let order = &mut order[..tiles];
        match MOVES[mv] {
            // The tile below moves up: it passes the cols - 1 tiles after the blank.
            "U" if row + 1 < rows => {
                order[self.cell..self.cell + cols].rotate_right(1);
                self.puzzle.rank_of(self.cell + cols, order)
            }
            // The tile above moves down: it passes the cols - 1 tiles before the blank.
            "D" if row > 0 => {
                let at = self.cell - cols;
                order[at..at + cols].rotate_left(1);
                self.puzzle.rank_of(at, order)
            }
            // Left and right keep the order: the blank's cell moves by one.
            "L" if col + 1 < cols => self.rank + half,
            "R" if col > 0 => self.rank - half,
            _ => self.rank,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rank_is_a_reachable_arrangement_and_ranks_back() {
        for (rows, cols) in [(2, 2), (2, 3), (3, 2), (3, 3), (2, 4)] {
            let puzzle = Sliding::new(rows, cols).unwrap();
            let mut cursor = puzzle.cursor();
            let mut back = puzzle.cursor();
            for rank in 0..puzzle.size() {
                let state = puzzle.state(rank);
                assert_eq!(puzzle.rank(&state), Ok(rank), "{rows}x{cols} {state:?}");
                cursor.seek(rank);
                for (mv, way_back) in [(0, 1), (1, 0), (2, 3), (3, 2)] {
                    let next = cursor.neighbour(mv);
                    // A tile that is not there (the blank at an edge) leaves the position.
                    let edge = match mv {
                        0 => rank / puzzle.half / cols as u64 == rows as u64 - 1,
                        1 => rank / puzzle.half / cols as u64 == 0,
                        2 => rank / puzzle.half % cols as u64 == cols as u64 - 1,
                        _ => (rank / puzzle.half).is_multiple_of(cols as u64),
                    };
                    assert_eq!(next == rank, edge, "{rows}x{cols} {state:?} {mv}");
                    back.seek(next);
                    if !edge {
                        assert_eq!(back.neighbour(way_back), rank, "{state:?} {mv}");
                    }
                }
            }
        }
    }

    #[test]
    fn boards_out_of_range_and_unreachable_states_are_refused() {
        assert!(Sliding::new(1, 5).is_err());
        assert!(Sliding::new(4, 6).unwrap_err().contains("at most 20 cells"));
        let puzzle = Sliding::new(3, 3).unwrap();
        let swapped = puzzle.rank(&[0, 2, 1, 3, 4, 5, 6, 7, 8]);
        assert!(swapped.unwrap_err().contains("cannot be reached"));
        assert_eq!(puzzle.rank(&[0, 1, 2, 3, 4, 5, 6, 7, 8]), Ok(0));
    }
}
