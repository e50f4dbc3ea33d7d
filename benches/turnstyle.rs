//! Speed of the CPU level loop on Turnstyle: `cargo bench --bench turnstyle [-- N...]`.
//!
//! Runs full searches (default: N = 11 and 12, metric lrf, all cores) and prints wall seconds and
//! states per second for each. Nothing is written to disk; the figures are the search alone.

mod common;
use gpusearch::puzzle::{Ring, StateSpace};
use gpusearch::search::cpu::search;
use gpusearch::search::{Options, Silent};
use std::time::Instant;

fn main() {
    let sizes = common::sizes();
    let threads = rayon::current_num_threads();
    for (n, metric) in sizes {
        let space = Ring::turnstyle(n, metric).expect("a valid size");
        let started = Instant::now();
        let outcome = search(&space, &Options::default(), &Silent);
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "turnstyle n={n} {}: {} states, diameter {}, {seconds:.3} s, {:.1} M states/s ({threads} threads, table {} entries)",
            metric.name(),
            outcome.reachable(),
            outcome.diameter(),
            outcome.reachable() as f64 / seconds / 1e6,
            space.size()
        );
    }
}
