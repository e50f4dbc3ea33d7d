//! Going on from a checkpoint gives what an uninterrupted search gives: for every family, both
//! footprints, and a checkpoint after every level.

mod common;
use common::{Every, Parts, search_on};
use gpusearch::puzzle::family::Request;
use gpusearch::puzzle::{Metric, Ring, Rings, Space, StateSpace, registry, rotation};
use gpusearch::search::cpu::{CpuEngine, search};
use gpusearch::search::{Footprint, Options, Outcome, PassPolicy, Resume, Saved, Silent};
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
    let bottom_up = [
        resumes_alike("turnstyle n=8", &Ring::turnstyle(8, Metric::Lrf).unwrap()),
        resumes_alike(
            "turnstyle n=9 flips",
            &Ring::turnstyle(9, Metric::Flips).unwrap(),
        ),
        resumes_alike("topspin n=8", &Ring::topspin(8, 4, Metric::Lrf).unwrap()),
        resumes_alike("rotation 3x3 b2", &rotation::board(3, 3, 2).unwrap()),
        resumes_alike("rings n=18", &Rings::new(18).unwrap()),
    ];
    assert!(bottom_up.contains(&true), "no bottom-up scan paused");
}

#[test]
fn a_table_reduced_by_symmetry_resumes_with_its_positions() {
    let mut bottom_up = false;
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
        bottom_up |= resumes_alike(&space.slug(), &space);
    }
    assert!(bottom_up, "no bottom-up scan paused");
}

/// Every strategy and footprint, from every level's checkpoint and from checkpoints within
/// scans. Returns whether a bottom-up scan paused.
fn resumes_alike<S: StateSpace>(name: &str, s: &S) -> bool {
    let mut bottom_up = false;
    for strategy in [
        PassPolicy::Auto,
        PassPolicy::Sweep,
        PassPolicy::TopDown,
        PassPolicy::BottomUp,
    ] {
        for footprint in [Footprint::Full, Footprint::Lean] {
            let options = Options {
                antipode_limit: 100,
                policy: strategy,
                footprint,
            };
            let what = format!("{name} {strategy:?} {footprint:?}");
            let whole = search(s, &options, &Silent);
            bottom_up |= resumes_within_scans(&what, s, &options, &whole);
            if strategy == PassPolicy::BottomUp {
                // Its checkpoints after levels are those of the others.
                continue;
            }
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
                    pass: None,
                };
                let engine = CpuEngine::new(s, options.footprint, options.antipode_limit);
                let resumed = search_on(s, engine, &options, None, Some(resume)).unwrap();
                same(&format!("{what} from level {at}"), &whole, &resumed);
            }
        }
    }
    bottom_up
}

/// From checkpoints within scans (eight, spread over the search; every one where the scans
/// pause often): the uninterrupted result, again with checkpoints within the scans resumed.
/// Returns whether a bottom-up scan paused.
fn resumes_within_scans<S: StateSpace>(
    what: &str,
    s: &S,
    options: &Options,
    whole: &Outcome,
) -> bool {
    let parts = Parts::default();
    let engine = CpuEngine::new(s, options.footprint, options.antipode_limit);
    let saved = search_on(s, engine, options, Some(&parts), None).unwrap();
    same(what, whole, &saved);
    let within = parts.0.into_inner().unwrap();
    let bottom_up = within.iter().any(|(_, pass)| pass.bottom_up);
    let step = within.len().div_ceil(8).max(1);
    for ((words, levels, antipodes), pass) in within.into_iter().step_by(step) {
        let at = format!(
            "{what} {:.0}% into level {}",
            pass.percent(s.size().div_ceil(32)),
            levels.len()
        );
        assert!(pass.words > 0 && pass.found <= s.size(), "{at}: {pass:?}");
        let resume = Resume {
            table: Saved::Table(Box::new(DistanceTable::from_words(s.size(), words))),
            levels,
            antipodes,
            pass: Some(pass),
        };
        // Once with pauses again (each a checkpoint of the resumed scan), once without.
        let again = Parts::default();
        let engine = CpuEngine::new(s, options.footprint, options.antipode_limit);
        let resumed = search_on(s, engine, options, Some(&again), Some(resume)).unwrap();
        same(&at, whole, &resumed);
    }
    bottom_up
}

#[test]
fn scans_pause_within_levels() {
    // A space of 1,260 words scans in 5 parts: a top-down search pauses within most levels.
    let s = Ring::turnstyle(8, Metric::Lrf).unwrap();
    let options = Options {
        antipode_limit: 100,
        policy: PassPolicy::TopDown,
        footprint: Footprint::Lean,
    };
    let parts = Parts::default();
    let engine = CpuEngine::new(&s, options.footprint, options.antipode_limit);
    let outcome = search_on(&s, engine, &options, Some(&parts), None).unwrap();
    let within = parts.0.into_inner().unwrap();
    let levels: std::collections::BTreeSet<_> = within.iter().map(|(w, _)| w.1.len()).collect();
    assert!(
        levels.len() >= 10,
        "pauses within levels {levels:?} of {}",
        outcome.levels.len()
    );
    for ((_, levels, _), pass) in &within {
        assert!(!pass.bottom_up);
        assert!(
            pass.words.is_multiple_of(256) && pass.words < 1260,
            "{pass:?}"
        );
        // What a scan found so far is part of the level it finds.
        assert!(
            pass.found <= outcome.levels.get(levels.len()).unwrap_or(0),
            "{pass:?}"
        );
    }
}
