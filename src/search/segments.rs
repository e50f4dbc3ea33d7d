//! Ranges of ranks cut into pieces where any of them starts or ends: a space's block moves and
//! residual ranges may overlap in part (the Towers of Hanoi's moves split the ranks each its own
//! way), while a pass's tasks must own disjoint ranks.

use std::ops::Range;

/// The pieces that `ranges` cover, ascending and disjoint, each with the indices (ascending)
/// of the ranges that hold it: every range is cut wherever another starts or ends.
pub fn segments(ranges: &[Range<u64>]) -> Vec<(Range<u64>, Vec<usize>)> {
    let mut starts: Vec<(u64, usize)> = (ranges.iter().enumerate())
        .filter(|(_, r)| !r.is_empty())
        .map(|(i, r)| (r.start, i))
        .collect();
    let mut ends: Vec<(u64, usize)> = (ranges.iter().enumerate())
        .filter(|(_, r)| !r.is_empty())
        .map(|(i, r)| (r.end, i))
        .collect();
    starts.sort_unstable();
    ends.sort_unstable();
    let mut points: Vec<u64> = starts.iter().chain(&ends).map(|&(p, _)| p).collect();
    points.sort_unstable();
    points.dedup();
    let (mut s, mut e) = (0, 0);
    let mut open: Vec<usize> = Vec::new();
    let mut pieces = Vec::new();
    for pair in points.windows(2) {
        let at = pair[0];
        while e < ends.len() && ends[e].0 <= at {
            let gone = ends[e].1;
            open.retain(|&i| i != gone);
            e += 1;
        }
        while s < starts.len() && starts[s].0 <= at {
            open.push(starts[s].1);
            s += 1;
        }
        if !open.is_empty() {
            let mut holding = open.clone();
            holding.sort_unstable();
            pieces.push((at..pair[1], holding));
        }
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_cut_at_every_end_and_name_the_ranges_holding_them() {
        let ranges = [0..10, 4..6, 20..30, 4..6, 25..40, 7..7];
        let got = segments(&ranges);
        let want = vec![
            (0..4, vec![0]),
            (4..6, vec![0, 1, 3]),
            (6..10, vec![0]),
            (20..25, vec![2]),
            (25..30, vec![2, 4]),
            (30..40, vec![4]),
        ];
        assert_eq!(got, want);
        // Against every rank, one by one.
        for r in 0..45u64 {
            let holding: Vec<usize> = (0..ranges.len())
                .filter(|&i| ranges[i].contains(&r))
                .collect();
            let piece = got.iter().find(|(p, _)| p.contains(&r));
            assert_eq!(
                piece.map(|p| p.1.clone()).unwrap_or_default(),
                holding,
                "rank {r}"
            );
        }
    }
}
