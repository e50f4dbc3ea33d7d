//! The rank's layout: which sets move together as blocks, the rank order as reports describe
//! it, and the bound on a table's size.

use super::*;

/// The blocks that shrink the table (see [`block`]): each set's positions listed where they are
/// few enough, then merged where the moves tie sets together.
pub(super) fn plan_blocks(def: &TwistyDefinition, coords: &[Coords], moves: &[Move]) -> Vec<Block> {
    let m = moves.len();
    let mut units = Vec::new();
    for (s, c) in coords.iter().enumerate() {
        let solved = &def.solved[s];
        let mut scratch = [0u8; 2 * MAX_PIECES];
        if c.follows.is_none() {
            let values = Values {
                member: 2 * s + PIECES,
                count: c.perm_size,
                solved: c.rank_pieces(&solved.pieces),
                mask: c.parity_bit.map_or(0, |b| 1 << b),
                next: |p: u64, mv: usize| c.move_pieces(p, mv, m, &moves[mv].1[s], &mut scratch),
                class: |p: u64| c.parity_bit.map_or(0, |b| u32::from(c.odd_rank(p)) << b),
            };
            units.extend(Block::single(values, m));
        }
        if c.orientations > 1 {
            let values = Values {
                member: 2 * s + TWISTS,
                count: c.ori_values(),
                solved: c.rank_twists(&solved.twists),
                mask: c.sum_bit.map_or(0, |b| 1 << b),
                next: |q: u64, mv: usize| c.move_twists(q, mv, m, &moves[mv].1[s], &mut scratch),
                class: |q: u64| c.sum_bit.map_or(0, |b| ((q / c.ori_size) as u32) << b),
            };
            units.extend(Block::single(values, m));
        }
    }
    let low = coords.last().map_or(1, |c| c.ori_size);
    let unblocked = |member: usize| {
        let c = &coords[member / 2];
        match member % 2 == PIECES {
            true => c.perm_digits(),
            false => c.ori_size,
        }
    };
    block::plan(units, unblocked, low)
}

pub(super) const RANK_ORDER: &str = "rank = mixed radix, most significant first: the index of the parity vector among the reachable ones, ascending (a bit per set of distinct pieces, set where it is odd, and per set of two orientations whose sum the moves change, that sum mod 2; bits in the sets' order); then for each set in the definition's order and outside the blocks, the rank of its pieces (lexicographic, halved where the pieces are distinct; the rank among the multiset's arrangements where some are identical; none where every move permutes the set as it permutes an earlier set of distinct pieces, whose pieces then give this set's), then its orientations in base o by position (the last left out where the moves keep their sum or the vector holds it)";

/// The rank order, with the blocks and the reduced orientations where there are any.
pub(super) fn rank_order(sets: &[PieceSet], blocks: &[Block], reduction: &Reduction) -> String {
    let order = rank_order_of_blocks(sets, blocks);
    match reduction.describe() {
        Some(reduced) => format!("{order}; {reduced}"),
        None => order,
    }
}

/// The rank order, with the blocks where there are any.
pub(super) fn rank_order_of_blocks(sets: &[PieceSet], blocks: &[Block]) -> String {
    if blocks.is_empty() {
        return RANK_ORDER.into();
    }
    let listed: Vec<String> = (blocks.iter())
        .map(|b| {
            let names: Vec<String> = (b.members.iter())
                .map(|&m| match m % 2 == PIECES {
                    true => format!("{} pieces", sets[m / 2].name),
                    false => format!("{} orientations", sets[m / 2].name),
                })
                .collect();
            format!("({})", names.join(", "))
        })
        .collect();
    format!(
        "{RANK_ORDER}, each part of a set in a block left out; then for each block {}, the index of its parts' position among the positions they reach (found by a search over those parts alone) that share its parities, in the order of the key: mixed radix over the block's parts in the order given, pieces by their full rank, orientations by their digit plus, where the vector holds their sum, the sum times the digit's values",
        listed.join(" ")
    )
}

/// A lower bound on the table's entries (each set's arrangements times its orientations, less
/// the most the parity and sum constraints can take off: a factor 2 and `o` a set), as its
/// log10 and in words with its bytes at 2 bits an entry (the bound may pass f64's range).
pub(super) fn table_bound(def: &TwistyDefinition) -> (f64, String) {
    let mut log = 0.0f64;
    for (set, solved) in def.sets.iter().zip(&def.solved) {
        let mut multiplicity = vec![0usize; set.count];
        for &l in &solved.pieces {
            multiplicity[l as usize] += 1;
        }
        let log_factorial = |n: usize| (1..=n).map(|k| (k as f64).log10()).sum::<f64>();
        log +=
            log_factorial(set.count) - multiplicity.iter().map(|&c| log_factorial(c)).sum::<f64>();
        log += (set.count - 1) as f64 * f64::from(set.orientations).log10() - 2f64.log10();
    }
    let scientific = |log: f64| {
        let exponent = log.floor();
        format!("{:.2}e{exponent}", 10f64.powf(log - exponent))
    };
    let bytes = log - 4f64.log10();
    let units = ["B", "KB", "MB", "GB", "TB", "PB", "EB"];
    let size = match (bytes.max(0.0) / 3.0).floor() as usize {
        u if u < units.len() => format!("{:.1} {}", 10f64.powf(bytes - 3.0 * u as f64), units[u]),
        _ => format!("{} bytes", scientific(bytes)),
    };
    (
        log,
        format!("{} entries ({size} at 2 bits an entry)", scientific(log)),
    )
}
