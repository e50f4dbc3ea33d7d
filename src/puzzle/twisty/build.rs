//! Building a twisty puzzle's space from its definition: the coordinates of each set, the
//! parity vectors the moves reach, the move tables, the blocks, and the rank's weights.

use super::*;

impl Twisty {
    /// The space of `def` in `metric`, with blocks where `blocks` (else per-set coordinates
    /// alone).
    pub(super) fn build(
        def: &TwistyDefinition,
        metric: &str,
        naming: Naming,
        blocks: bool,
    ) -> Result<Twisty, String> {
        // Orientations that follow the positions are numbered by what the moves leave free;
        // everything below works on that reduced definition, positions in and out excepted.
        let original = def;
        let reduction = Reduction::new(original);
        let reduced = reduction.definition(original);
        let def = &reduced;
        refuse_too_large(def)?;
        let original_moves = metric_moves(original, metric)?;
        let moves: Vec<Move> = original_moves
            .iter()
            .map(|m| reduction.move_of(m))
            .collect();
        let (mut coords, tracked) = set_coords(def, &moves);
        let (move_parity, parities) = reached_parities(&coords, &moves, &def.solved, tracked);
        fill_move_tables(&mut coords, &moves);
        let blocks = match blocks {
            true => plan_blocks(def, &coords, &moves),
            false => Vec::new(),
        };
        for &member in blocks.iter().flat_map(|b| &b.members) {
            let c = &mut coords[member / 2];
            match member % 2 == PIECES {
                true => (c.pieces_in_block, c.perm_table) = (true, None),
                false => (c.twists_in_block, c.ori_table) = (true, None),
            }
        }
        let Weights {
            blocks: block_weights,
            sets: weights,
            parity: parity_weight,
            size,
        } = weights(&coords, &blocks, parities.len())?;
        let mut info_params = naming.params;
        info_params.insert(
            "sets".into(),
            (original.sets.iter())
                .map(|s| serde_json::json!([s.name, s.count, s.orientations]))
                .collect::<Vec<_>>()
                .into(),
        );
        let info = PuzzleInfo {
            puzzle: naming.family,
            params: info_params,
            metric: metric.into(),
            moves: moves.iter().map(|(n, _)| n.clone()).collect(),
            rank_order: rank_order(&def.sets, &blocks, &reduction),
            group_order: group_order(&original.sets, &coords, &original_moves),
            symmetry: None,
        };
        let mut parity_index = vec![u32::MAX; 1 << tracked];
        for (i, &v) in parities.iter().enumerate() {
            parity_index[v as usize] = i as u32;
        }
        let mut twisty = Twisty {
            info,
            slug: naming.slug,
            sets: def.sets.clone(),
            coords,
            moves,
            move_parity,
            parities,
            parity_index,
            weights,
            blocks,
            block_weights,
            parity_weight,
            size,
            solved: def.solved.clone(),
            reduction,
            low_by_move: None,
            written_sets: original.sets.clone(),
            written_moves: original_moves,
        };
        let m = twisty.moves.len();
        twisty.low_by_move = twisty.low_table().1.map(|t| {
            let rows = t.len() / m;
            (0..m * rows).map(|i| t[i % rows * m + i / rows]).collect()
        });
        Ok(twisty)
    }
}

/// Refuses, with its size, a definition whose table would be far too large, before anything is
/// built.
fn refuse_too_large(def: &TwistyDefinition) -> Result<(), String> {
    let (least, words) = table_bound(def);
    if least > (MAX_ENTRIES as f64).log10() {
        return Err(format!(
            "the puzzle's table would have at least {words}: gpusearch searches tables of up to 2^48 entries"
        ));
    }
    match def.sets.iter().find(|s| s.count > MAX_PIECES) {
        Some(s) => Err(format!(
            "the set {} has {} pieces: gpusearch ranks sets of up to {MAX_PIECES}",
            s.name, s.count
        )),
        None => Ok(()),
    }
}

/// Each set's coordinates under `moves` (their tables not yet filled), and the number of bits
/// the parity vector tracks.
fn set_coords(def: &TwistyDefinition, moves: &[Move]) -> (Vec<Coords>, usize) {
    let mut coords: Vec<Coords> = Vec::new();
    let mut tracked = 0;
    for (set, solved) in def.sets.iter().zip(&def.solved) {
        let n = set.count;
        let mut multiplicity = vec![0u8; n];
        for &l in &solved.pieces {
            multiplicity[l as usize] += 1;
        }
        multiplicity.retain(|&c| c > 0);
        let s = coords.len();
        let follows = (0..s).find(|&t| {
            let leader: &Coords = &coords[t];
            leader.distinct()
                && leader.count == n
                && def
                    .moves
                    .iter()
                    .all(|(_, parts)| parts[t].pieces == parts[s].pieces)
        });
        let distinct = multiplicity.len() == n && follows.is_none();
        let perm_size = match follows {
            Some(_) => 1,
            None => multinomial(n, &multiplicity),
        };
        let parity_bit = (distinct && n >= 2 && tracked < MAX_VECTOR_BITS).then(|| {
            tracked += 1;
            tracked as u32 - 1
        });
        let fixed_sum = moves.iter().all(|(_, parts)| {
            parts[s].twists.iter().map(|&t| u32::from(t)).sum::<u32>() % u32::from(set.orientations)
                == 0
        });
        let sum_bit =
            (set.orientations == 2 && !fixed_sum && tracked < MAX_VECTOR_BITS).then(|| {
                tracked += 1;
                tracked as u32 - 1
            });
        let ori_digits = match (set.orientations, fixed_sum || sum_bit.is_some()) {
            (1, _) => 0,
            (_, true) => n - 1,
            (_, false) => n,
        };
        let ori_sum = (solved.twists.iter().map(|&t| u32::from(t)).sum::<u32>()
            % u32::from(set.orientations)) as u8;
        coords.push(Coords {
            count: n,
            orientations: set.orientations,
            multiplicity,
            perm_size,
            parity_bit,
            ori_digits,
            ori_sum,
            sum_bit,
            ori_size: u64::from(set.orientations).pow(ori_digits as u32),
            perm_table: None,
            follows,
            odd: None,
            ori_table: None,
            pieces_in_block: false,
            twists_in_block: false,
        });
    }
    (coords, tracked)
}

/// Each move's change to the parity vector, and the vectors the moves reach from solved's (the
/// solved vector plus the moves' span), in order.
fn reached_parities(
    coords: &[Coords],
    moves: &[Move],
    solved: &[SetPart],
    tracked: usize,
) -> (Vec<u32>, Vec<u32>) {
    // A position's parities and sums, or a move's changes to them.
    let vector = |parts: &[SetPart]| -> u32 {
        (coords.iter().zip(parts))
            .map(|(c, p)| {
                let twists: u32 = p.twists.iter().map(|&t| u32::from(t)).sum();
                c.parity_bit
                    .map_or(0, |b| (rank::is_odd(&p.pieces) as u32) << b)
                    | c.sum_bit.map_or(0, |b| (twists % 2) << b)
            })
            .sum()
    };
    let move_parity: Vec<u32> = moves.iter().map(|(_, parts)| vector(parts)).collect();
    // The solved parities plus the moves' span.
    let mut reached = vec![false; 1 << tracked];
    let mut parities = vec![vector(solved)];
    reached[parities[0] as usize] = true;
    let mut i = 0;
    while i < parities.len() {
        for &v in &move_parity {
            let w = parities[i] ^ v;
            if !std::mem::replace(&mut reached[w as usize], true) {
                parities.push(w);
            }
        }
        i += 1;
    }
    parities.sort_unstable();
    (move_parity, parities)
}

/// Each set's move tables, where its coordinates are small enough, and its pieces' parities.
fn fill_move_tables(coords: &mut [Coords], moves: &[Move]) {
    let m = moves.len();
    for (s, c) in coords.iter_mut().enumerate() {
        let mut scratch = [0u8; 2 * MAX_PIECES];
        if c.perm_size <= TABLE_LIMIT && c.parity_bit.is_some() {
            let mut odd = vec![0u64; c.perm_size.div_ceil(64) as usize];
            let mut labels = [0u8; MAX_PIECES];
            for r in 0..c.perm_size {
                rank::lex_unrank(r, &mut labels[..c.count]);
                odd[(r / 64) as usize] |= u64::from(rank::is_odd(&labels[..c.count])) << (r % 64);
            }
            c.odd = Some(odd);
        }
        let pieces = move_table(c.perm_size, m, |p, mv| {
            c.move_pieces(p, mv, m, &moves[mv].1[s], &mut scratch)
        });
        let twists = move_table(c.ori_values(), m, |q, mv| {
            c.move_twists(q, mv, m, &moves[mv].1[s], &mut scratch)
        });
        (c.perm_table, c.ori_table) = (pieces, twists);
    }
}

/// The rank's digit weights.
struct Weights {
    /// Each block's.
    blocks: Vec<u64>,
    /// Each set's pieces' and orientations'.
    sets: Vec<(u64, u64)>,
    /// The parity index's.
    parity: u64,
    /// The table's entries.
    size: u64,
}

/// The rank's weights for `coords` and `blocks` under `parity_values` parity vectors, or why
/// the table would be too large.
fn weights(coords: &[Coords], blocks: &[Block], parity_values: usize) -> Result<Weights, String> {
    // Weights, from the least significant digit: the blocks', last first; then the last
    // set's orientations, its pieces, the set before's, ..., the parity index.
    let mut weight = 1u128;
    let mut block_weights = vec![0; blocks.len()];
    for (b, w) in blocks.iter().zip(block_weights.iter_mut()).rev() {
        *w = weight as u64;
        weight *= u128::from(b.class_size);
    }
    let mut weights = vec![(0, 0); coords.len()];
    for (c, w) in coords.iter().zip(weights.iter_mut()).rev() {
        let (pieces, twists) = c.sizes();
        w.1 = weight as u64;
        weight *= u128::from(twists);
        w.0 = weight as u64;
        weight *= u128::from(pieces);
        if weight > MAX_ENTRIES {
            break;
        }
    }
    let parity_weight = weight as u64;
    weight *= parity_values as u128;
    if weight > MAX_ENTRIES {
        return Err(format!(
            "the puzzle's table would have {weight} entries or more: gpusearch searches tables of up to 2^48 entries"
        ));
    }
    Ok(Weights {
        blocks: block_weights,
        sets: weights,
        parity: parity_weight,
        size: weight as u64,
    })
}
