//! What the benches share: the Turnstyle sizes named on the command line.

use gpusearch::puzzle::Metric;

/// The sizes named as arguments (`N` or `N:metric`), default N = 11 and 12, metric lrf.
pub fn sizes() -> Vec<(usize, Metric)> {
    let mut sizes: Vec<(usize, Metric)> = Vec::new();
    for arg in std::env::args().skip(1).filter(|a| !a.starts_with('-')) {
        let (n, metric) = arg.split_once(':').unwrap_or((&arg, "lrf"));
        let metric = Metric::parse(metric).expect("metric lrf or flips");
        sizes.push((n.parse().expect("N is a number"), metric));
    }
    if sizes.is_empty() {
        sizes = vec![(11, Metric::Lrf), (12, Metric::Lrf)];
    }
    sizes
}
