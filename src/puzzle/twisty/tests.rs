//! The twisty puzzles' unit tests.

use super::moves::compose;
use super::*;

fn naming() -> Naming {
    Naming {
        family: "perm".into(),
        params: Default::default(),
        slug: "t".into(),
    }
}

#[test]
fn move_powers_are_named_as_twsearch_names_them() {
    // A 5-cycle (order 5) and a 4-cycle with a twist (order 4 x 2 = 8).
    let text =
        "Set A 5 1\nSet B 4 2\nMove P\nA\n2 3 4 5 1\nEnd\nMove Q\nB\n2 3 4 1\n1 0 0 0\nEnd\n";
    let def = format::read(text, "t").unwrap();
    let names = |metric| -> Vec<String> {
        metric_moves(&def, metric)
            .unwrap()
            .into_iter()
            .map(|m| m.0)
            .collect()
    };
    assert_eq!(
        names("htm"),
        [
            "P", "P2", "P'", "P2'", "Q", "Q2", "Q3", "Q4", "Q'", "Q2'", "Q3'"
        ]
    );
    assert_eq!(names("qtm"), ["P", "P'", "Q", "Q'"]);
}

#[test]
fn far_too_large_tables_are_refused_with_their_size() {
    let refused = |text: &str| {
        let def = format::read(text, "t").unwrap();
        Twisty::new(&def, "htm", naming()).unwrap_err()
    };
    // 12 edges (2 orientations) and 8 corners (3): at least 12! 2^11 / 2 x 8! 3^7 / 2 entries
    // (the 3x3x3 cube has twice as many). M twists a piece of each set, so no potential on
    // the positions fixes their orientations.
    let cube = refused(
        "Set E 12 2\nSet C 8 3\nMove M\nE\n2 1 3 4 5 6 7 8 9 10 11 12\n1 0 0 0 0 0 0 0 0 0 0 0\n\
         C\n1 2 3 4 5 6 7 8\n1 0 0 0 0 0 0 0\nEnd\n",
    );
    assert!(
        cube.contains("at least 2.16e19 entries (5.4 EB at 2 bits an entry)"),
        "{cube}"
    );
    // Beyond what a float holds: still a number.
    let text = format!(
        "Set P 200 120\nMove M\nP\n2 1 {}\n1{}\nEnd\n",
        (3..=200)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(" "),
        " 0".repeat(199)
    );
    let huge = refused(&text);
    assert!(
        huge.contains("at least 2.25e788 entries (5.63e787 bytes") && !huge.contains("inf"),
        "{huge}"
    );
}

#[test]
fn multiset_ranks_are_dense_and_invertible() {
    let multiplicity = [2u8, 1, 2];
    let count = multinomial(5, &multiplicity);
    assert_eq!(count, 30);
    let mut seen = vec![false; count as usize];
    let mut labels = [0u8; 5];
    for r in 0..count {
        multiset_unrank(r, &multiplicity, &mut labels);
        assert_eq!(multiset_rank(&labels, &multiplicity), r);
        seen[r as usize] = true;
    }
    assert!(seen.iter().all(|&s| s));
}

/// Checks, at `samples` ranks spread over the table, that a rank's state ranks back to it
/// and that each neighbour by coordinates is the neighbour by moving the pieces.
fn check_round_trips(t: &Twisty, samples: u64) {
    let mut cursor = t.cursor();
    for rank in (0..t.size()).step_by((t.size() / samples).max(1) as usize) {
        let state = t.state(rank);
        assert_eq!(t.rank(&state), Ok(rank));
        let parsed = t.parse_state(&t.format_state(&state)).unwrap();
        assert_eq!(parsed, state);
        cursor.seek(rank);
        for mv in 0..t.move_count() {
            let parts = t.unrank_parts(rank);
            let moved: Vec<SetPart> = compose(&t.sets, &parts, &t.moves[mv].1);
            assert_eq!(cursor.neighbour(mv), t.rank_parts(&moved).unwrap());
        }
    }
}

#[test]
fn ranks_and_states_round_trip() {
    // A's pieces (members 0 and 1: a set's pieces are 2s, its orientations 2s + 1), 10 of
    // them turned by a 3-cycle and a 10-cycle, are too many to list: a coordinate,
    // computed without a table. B's pieces reach two arrangements, one of each parity: 1 a
    // class. C's pieces, identical in pairs, and their twists reach 4 arrangements with 2
    // twists each under Y's 4-cycle: 8, 4 for each sum of the twists. Both are smaller
    // listed; A's orientations (3^9, listed no smaller) make the last digit long.
    let text = "Set A 10 3\nSet B 3 1\nSet C 4 2\nSolved\nC\n1 1 2 2\nEnd\nMove X\nA\n2 3 1 4 5 6 7 8 9 10\n1 2 0 0 0 0 0 0 0 0\nB\n2 1 3\nEnd\nMove Y\nA\n2 3 4 5 6 7 8 9 10 1\nC\n2 3 4 1\n1 0 0 0\nEnd\n";
    let def = format::read(text, "t").unwrap();
    let t = Twisty::new(&def, "htm", naming()).unwrap();
    // The vector: B odd under X; A odd and C's twists' sum changed under Y: 4 vectors. A:
    // 10!/2 x 3^9 (the twists keep their sum).
    let blocks: Vec<&[usize]> = t.blocks.iter().map(|b| &b.members[..]).collect();
    assert_eq!(blocks, [&[4, 5][..], &[2][..], &[1][..]]);
    assert_eq!(t.size(), 4 * 1_814_400 * 19_683 * 4);
    check_round_trips(&t, 3000);
    // With four pieces in A, every part is small enough to list: B's pieces are a block, and
    // A's and C's parts, tied by Y, the last; every entry of the table is reachable (the
    // search test in tests/families.rs checks such tables entry by entry).
    let small = text
        .replace("10 3", "4 3")
        .replace(" 5 6 7 8 9 10", "")
        .replace(" 0 0 0 0 0 0\nB", "\nB");
    let t = Twisty::new(&format::read(&small, "t").unwrap(), "htm", naming()).unwrap();
    let blocks: Vec<&[usize]> = t.blocks.iter().map(|b| &b.members[..]).collect();
    assert_eq!(blocks, [&[2][..], &[1, 0, 4, 5][..]]);
    let mut seen = vec![false; t.size() as usize];
    let mut queue = vec![t.solved()];
    seen[t.solved() as usize] = true;
    let mut cursor = t.cursor();
    while let Some(rank) = queue.pop() {
        cursor.seek(rank);
        for mv in 0..t.move_count() {
            let next = cursor.neighbour(mv);
            if !std::mem::replace(&mut seen[next as usize], true) {
                queue.push(next);
            }
        }
    }
    assert!(seen.iter().all(|&s| s), "{} entries", t.size());
    check_round_trips(&t, t.size());
    // A position a block does not list has no rank, and the error names the block's sets:
    // two of C's pieces flipped (Y turns all four, flipping one).
    let mut flipped = t.state(t.solved());
    let c_twists = 4 + 4 + 3 + 3 + 4;
    (flipped[c_twists], flipped[c_twists + 1]) = (1, 1);
    let error = t.rank(&flipped).unwrap_err();
    assert!(
        error.contains(
            "never bring the orientations of A and the pieces of A and the pieces of C and the orientations of C to this position"
        ),
        "{error}"
    );
}
