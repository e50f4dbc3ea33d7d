//! A stop asked for from outside (what Ctrl-C and SIGTERM do, and what a program that embeds the
//! library may do) ends a search between two levels as a typed interruption, leaves no file
//! behind, and lets a later search in the same process run whole. A test binary of its own:
//! the stop is asked for the whole process.

mod common;
use common::scratch;
use gpusearch::job::{self, Error, Job};
use gpusearch::puzzle::family::Request;
use gpusearch::puzzle::{Metric, Ring};
use gpusearch::search::cpu::try_search;
use gpusearch::search::{Options, Progress, SearchError, Silent, Step, stop};

/// Asks for a stop once level `at` is complete.
struct StopAt(u64);

impl Progress for StopAt {
    fn found(&self, _: u64) {}
    fn level(&self, depth: u64, _: u64, _: Option<u64>, _: Step) {
        if depth == self.0 {
            stop::ask();
        }
    }
}

#[test]
fn a_stop_ends_a_search_between_levels_and_leaves_nothing_behind() {
    // In the level loop: the level under way ends, the next is not begun.
    let space = Ring::turnstyle(9, Metric::Lrf).unwrap();
    let stopped = try_search(&space, &Options::default(), &StopAt(5));
    assert_eq!(stopped.err(), Some(SearchError::Interrupted));
    assert!(stop::asked());
    // Cleared, the same search runs whole: Turnstyle 9's 9!/2 positions over 29 levels (diameter 28).
    stop::clear();
    let whole = try_search(&space, &Options::default(), &Silent).unwrap();
    assert_eq!(whole.levels.total(), 181_440);
    assert_eq!(whole.levels.len(), 29);

    // A job asked to stop writes no output and no temporary file, and says so by its type.
    let dir = scratch("stop");
    let out = dir.join("run");
    let job = Job {
        puzzle: Request::new("turnstyle").with("n", "8"),
        out: Some(out.clone()),
        threads: Some(1),
        quiet: true,
        memory: Some(1 << 30),
        ..Job::default()
    };
    stop::ask();
    let refused = job::run(&job);
    assert!(
        matches!(refused, Err(Error::Interrupted)),
        "{:?}",
        refused.err()
    );
    assert_eq!(Error::Interrupted.exit_code(), 130);
    let left: Vec<_> = std::fs::read_dir(&out)
        .map(|d| d.map(|e| e.unwrap().file_name()).collect())
        .unwrap_or_default();
    assert!(
        left.iter().all(|name| name != "distances.gsd"
            && name != "report.json"
            && !name.to_string_lossy().ends_with(".tmp")),
        "{left:?}"
    );
    stop::clear();
    let finished = job::run(&job).unwrap();
    assert_eq!(finished.report.diameter, 24);
    let _ = std::fs::remove_dir_all(&dir);
}
