//! The number rotation puzzle: a board of numbered squares whose square blocks turn a quarter
//! turn; a permutation puzzle ([`Perm`]) of the squares.

use super::Space;
use super::family::{Family, Given, Kind, Opt, PuzzleError, Run, Sample};
use super::perm::parse::Definition;
use super::perm::{Identity, Inverses, MAX_POINTS, Perm};
use crate::group;

/// The number rotation family (`--puzzle rotation`).
pub struct Rotation;
/// The number rotation family.
pub const ROTATION: Rotation = Rotation;

impl Family for Rotation {
    fn name(&self) -> &'static str {
        "rotation"
    }

    fn samples(&self) -> &'static [Sample] {
        &[Sample {
            options: &[("rows", "2"), ("cols", "3"), ("block", "2")],
            reaches: "blocks that overlap, turned both ways",
        }]
    }

    fn options(&self) -> &'static [Opt] {
        const fn count(name: &'static str, help: &'static str) -> Opt {
            Opt {
                name,
                kind: Kind::Count,
                help,
                default: None,
            }
        }
        const OPTIONS: &[Opt] = &[
            count("rows", "the board's rows"),
            count("cols", "the board's columns"),
            count(
                "block",
                "the size of the turning blocks, 2 to the rows and the columns",
            ),
        ];
        OPTIONS
    }

    fn build(&self, given: &Given) -> Result<Space, PuzzleError> {
        let (rows, cols) = (given.need_count("rows")?, given.need_count("cols")?);
        let block = given.need_count("block")?;
        if !(2..=rows.min(cols)).contains(&block) {
            return Err(PuzzleError::Value {
                option: "block",
                value: block.to_string(),
                why: format!(
                    "does not fit: the blocks turn inside the {rows} x {cols} board, so 2 <= K <= {}",
                    rows.min(cols)
                ),
            });
        }
        Ok(Space::Perm(board(rows, cols, block)?))
    }

    fn runs(&self) -> &'static [Run] {
        const fn board(options: &'static [(&'static str, &'static str)]) -> Run {
            Run {
                options,
                large: false,
            }
        }
        const RUNS: &[Run] = &[
            board(&[("rows", "2"), ("cols", "3"), ("block", "2")]),
            board(&[("rows", "3"), ("cols", "3"), ("block", "2")]),
            board(&[("rows", "3"), ("cols", "4"), ("block", "3")]),
            board(&[("rows", "3"), ("cols", "4"), ("block", "2")]),
        ];
        RUNS
    }
}

/// The number rotation puzzle: a board of `rows` x `cols` numbered squares, and every `block` x
/// `block` square of it turning a quarter turn clockwise (move `rRcC`, its top left square in row
/// R, column C) or anticlockwise (`rRcC'`). Squares are numbered row by row from 1.
pub fn board(rows: usize, cols: usize, block: usize) -> Result<Perm, String> {
    if !(2..=rows.min(cols)).contains(&block) {
        return Err(format!(
            "the blocks turn inside the {rows} x {cols} board, so 2 <= K <= {}",
            rows.min(cols)
        ));
    }
    let n = rows * cols;
    if n > MAX_POINTS {
        return Err(format!(
            "a {rows} x {cols} board has {n} squares: gpusearch ranks boards of up to {MAX_POINTS}"
        ));
    }
    let at = |r: usize, c: usize| r * cols + c;
    let mut moves = Vec::new();
    for r in 0..=rows - block {
        for c in 0..=cols - block {
            // Clockwise: the piece at block square (i, j) goes to (j, block - 1 - i).
            let mut from = group::identity(n);
            for i in 0..block {
                for j in 0..block {
                    from[at(r + j, c + block - 1 - i)] = at(r + i, c + j) as u8;
                }
            }
            let name = format!("r{}c{}", r + 1, c + 1);
            moves.push((format!("{name}'"), group::inverse(&from)));
            moves.push((name, from));
        }
    }
    // Clockwise first, then anticlockwise, block by block.
    for pair in moves.chunks_mut(2) {
        pair.swap(0, 1);
    }
    let mut params = serde_json::Map::new();
    params.insert("rows".into(), rows.into());
    params.insert("cols".into(), cols.into());
    params.insert("block".into(), block.into());
    Perm::new(
        Identity {
            family: "rotation".into(),
            params,
            metric: "qtm".into(),
            slug: format!("rotation-{rows}x{cols}-b{block}"),
        },
        Definition {
            name: String::new(),
            solved: (1..=n as u32).collect(),
            moves,
        },
        Inverses::Given,
    )
}
