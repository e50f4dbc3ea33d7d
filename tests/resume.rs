//! Going on from a checkpoint gives what an uninterrupted search gives: for every family, both
//! footprints, and a checkpoint after every level.

mod common;
use common::Every;
use gpusearch::puzzle::StateSpace;
use gpusearch::puzzle::spec::PuzzleArgs;
use gpusearch::search::table::DistanceTable;
use gpusearch::search::{
    Footprint, Options, Outcome, Resume, Silent, Strategy, search, search_from,
};
use gpusearch::with_space;

fn same(what: &str, a: &Outcome, b: &Outcome) {
    assert_eq!(a.levels, b.levels, "{what}: levels");
    assert_eq!(a.antipodes, b.antipodes, "{what}: antipodes");
    assert_eq!(a.table.word_count(), b.table.word_count());
    for w in 0..a.table.word_count() {
        assert_eq!(a.table.word(w), b.table.word(w), "{what}: table word {w}");
    }
}

#[test]
fn every_checkpoint_resumes_to_the_uninterrupted_result() {
    let spaces = [
        ("turnstyle", vec![("n", 8)], None),
        ("turnstyle", vec![("n", 9)], Some("flips")),
        ("topspin", vec![("n", 8)], None),
        (
            "rotation",
            vec![("rows", 3), ("cols", 3), ("block", 2)],
            None,
        ),
        ("rings", vec![("n", 18)], None),
    ];
    for (puzzle, sizes, metric) in spaces {
        let mut args = PuzzleArgs {
            puzzle: puzzle.into(),
            metric: metric.map(str::to_string),
            ..PuzzleArgs::default()
        };
        for (name, value) in &sizes {
            match *name {
                "n" => args.n = Some(*value),
                "rows" => args.rows = Some(*value),
                "cols" => args.cols = Some(*value),
                _ => args.block = Some(*value),
            }
        }
        let space = args.space().unwrap();
        with_space!(&space, s => {
            for strategy in [Strategy::Auto, Strategy::Sweep, Strategy::TopDown] {
                for footprint in [Footprint::Full, Footprint::Lean] {
                    let options = Options {
                        antipode_limit: 100,
                        strategy,
                        footprint,
                    };
                    let what = format!("{puzzle} {sizes:?} {metric:?} {strategy:?} {footprint:?}");
                    let whole = search(s, &options, &Silent);
                    let every = Every::default();
                    let saved = search_from(s, &options, &Silent, Some(&every), None).unwrap();
                    same(&what, &whole, &saved);
                    let checkpoints = every.0.into_inner().unwrap();
                    assert!(!checkpoints.is_empty(), "{what}: no checkpoint");
                    for (words, levels, antipodes) in checkpoints {
                        let at = levels.len() - 1;
                        let resume = Resume {
                            table: Box::new(DistanceTable::from_words(s.size(), words)),
                            levels,
                            antipodes,
                        };
                        let resumed =
                            search_from(s, &options, &Silent, None, Some(resume)).unwrap();
                        same(&format!("{what} from level {at}"), &whole, &resumed);
                    }
                }
            }
        });
    }
}
