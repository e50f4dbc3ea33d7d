//! Checks of the levels a header lists (a distances file's, a checkpoint's), before a search
//! or a walk trusts them.

use crate::search::levels::{Run, Written};

/// Checks the levels of a file's header against its table of `entries` entries: at least one
/// level, none empty, and no more states in all than entries (so that no sum over them
/// overflows, and no walk over them runs longer than the table).
pub(crate) fn check_levels(
    written: &Written,
    entries: u64,
    positions: Option<u64>,
) -> Result<(), String> {
    let levels = counted(
        &written.levels,
        &written.level_runs,
        entries,
        ("states", "entries"),
    )?
    .ok_or("the header lists no levels")?;
    let weighed = match positions {
        Some(most) => counted(&written.positions, &written.position_runs, most, POSITIONS)?,
        None => counted(
            &written.positions,
            &written.position_runs,
            u64::MAX,
            POSITIONS,
        )?
        .map(|_| Err("the header weighs levels of a table not reduced by symmetry"))
        .transpose()?,
    };
    match (positions, weighed) {
        (Some(_), None) => {
            Err("the header of a table reduced by symmetry lists no positions".into())
        }
        (Some(_), Some(weighed)) if weighed != levels => Err(format!(
            "the header lists {levels} levels of entries but {weighed} of positions"
        )),
        _ => Ok(()),
    }
}

/// What weighed levels count, and what bounds them.
const POSITIONS: (&str, &str) = ("positions", "positions of the puzzle");

/// The number of levels of a list or its runs whose counts are each 1 or more and hold at most
/// `most` in all, or why not (`what` the levels count, `of` what bounds them); `None` where
/// there is neither.
fn counted(
    list: &Option<Vec<u64>>,
    runs: &Option<Vec<Run>>,
    most: u64,
    (what, of): (&str, &str),
) -> Result<Option<u64>, String> {
    let runs: Vec<(u64, u64)> = match (list, runs) {
        (Some(list), _) => list.iter().map(|&count| (count, 1)).collect(),
        (None, Some(runs)) => (runs.iter())
            .filter(|r| r.repeat > 0)
            .map(|r| (r.count, r.repeat))
            .collect(),
        (None, None) => return Ok(None),
    };
    let (mut total, mut levels) = (0u64, 0u64);
    for (count, repeat) in runs {
        if count == 0 {
            return Err(format!("the header lists a level of no {what}"));
        }
        total = (count.checked_mul(repeat))
            .and_then(|n| total.checked_add(n))
            .filter(|&total| total <= most)
            .ok_or_else(|| format!("the header's levels hold more {what} than its {most} {of}"))?;
        levels = levels.saturating_add(repeat);
    }
    Ok(Some(levels))
}
