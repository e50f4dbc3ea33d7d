//! Going on from a checkpoint gives what an uninterrupted search gives: for every family, both
//! footprints, and a checkpoint after every level.

mod common;
use common::{Every, search_on};
use gpusearch::puzzle::family::Request;
use gpusearch::puzzle::{Metric, Ring, Rings, Space, StateSpace, registry, rotation};
use gpusearch::search::{
    CpuEngine, Footprint, Options, Outcome, PassPolicy, Resume, Saved, Silent, search,
};
use gpusearch::table::DistanceTable;

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
    resumes_alike("turnstyle n=8", &Ring::turnstyle(8, Metric::Lrf).unwrap());
    resumes_alike(
        "turnstyle n=9 flips",
        &Ring::turnstyle(9, Metric::Flips).unwrap(),
    );
    resumes_alike("topspin n=8", &Ring::topspin(8, 4, Metric::Lrf).unwrap());
    resumes_alike("rotation 3x3 b2", &rotation::board(3, 3, 2).unwrap());
    resumes_alike("rings n=18", &Rings::new(18).unwrap());
}

#[test]
fn a_table_reduced_by_symmetry_resumes_with_its_positions() {
    for request in [
        Request::new("turnstyle").with("n", 8),
        Request::new("topspin").with("n", 8).with("metric", "flips"),
        Request::new("hanoi").with("pegs", 4).with("discs", 8),
        Request::new("sliding").with("rows", 3).with("cols", 3),
    ] {
        let request = Request {
            symmetry: true,
            ..request
        };
        let Ok(Space::Reduced(space)) = registry::space(&request) else {
            panic!("{request:?} has symmetries");
        };
        resumes_alike(&space.slug(), &space);
    }
}

/// Every strategy and footprint, from every level's checkpoint.
fn resumes_alike<S: StateSpace>(name: &str, s: &S) {
    for strategy in [PassPolicy::Auto, PassPolicy::Sweep, PassPolicy::TopDown] {
        for footprint in [Footprint::Full, Footprint::Lean] {
            let options = Options {
                antipode_limit: 100,
                policy: strategy,
                footprint,
            };
            let what = format!("{name} {strategy:?} {footprint:?}");
            let whole = search(s, &options, &Silent);
            let every = Every::default();
            let engine = CpuEngine::new(s, options.footprint, options.antipode_limit);
            let saved = search_on(s, engine, &options, Some(&every), None).unwrap();
            same(&what, &whole, &saved);
            let checkpoints = every.0.into_inner().unwrap();
            assert!(!checkpoints.is_empty(), "{what}: no checkpoint");
            for (words, levels, antipodes) in checkpoints {
                let at = levels.len() - 1;
                let resume = Resume {
                    table: Saved::Table(Box::new(DistanceTable::from_words(s.size(), words))),
                    levels,
                    antipodes,
                };
                let engine = CpuEngine::new(s, options.footprint, options.antipode_limit);
                let resumed = search_on(s, engine, &options, None, Some(resume)).unwrap();
                same(&format!("{what} from level {at}"), &whole, &resumed);
            }
        }
    }
}
