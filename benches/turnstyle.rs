//! Speed of the CPU level loop on Turnstyle: `cargo bench --bench turnstyle [-- N...]`.
//!
//! Runs full searches (default: N = 11 and 12, metric lrf, all cores) and prints wall seconds and
//! states per second for each. Nothing is written to disk; the figures are the search alone.

use gpusearch::puzzle::{Metric, Ring, StateSpace};
use gpusearch::search::{Options, Silent, search};
use std::time::Instant;

fn main() {
    let mut sizes: Vec<(usize, Metric)> = Vec::new();
    for arg in std::env::args().skip(1).filter(|a| !a.starts_with('-')) {
        let (n, metric) = arg.split_once(':').unwrap_or((&arg, "lrf"));
        let metric = Metric::parse(metric).expect("metric lrf or flips");
        sizes.push((n.parse().expect("N is a number"), metric));
    }
    if sizes.is_empty() {
        sizes = vec![(11, Metric::Lrf), (12, Metric::Lrf)];
    }
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
