//! Speed of the CPU level loop on each family's larger sizes: `cargo bench --bench families
//! [-- "PUZZLE OPTIONS"...]`, e.g. `"hanoi pegs=4 discs=14"`.
//!
//! Runs each search once as a job (all cores, into a scratch folder deleted afterwards) and
//! prints the report's search seconds and states per second, Turnstyle 12 first as the yardstick.
//! Default: Turnstyle 12, the Towers of Hanoi (4 pegs, 14 discs), sliding 4x3 and 3x4, 11
//! pancakes and 9 burnt ones, the generic path's 11 pancakes (their flips as generators).

use gpusearch::job::{self, Job};
use gpusearch::puzzle::family::Request;

/// The generators of `n` pancakes' flips: the flip of `k` as cycles.
fn pancake_gens(n: usize) -> String {
    let flip = |k: usize| -> String {
        (0..k / 2)
            .map(|i| format!("({},{})", i + 1, k - i))
            .collect()
    };
    (2..=n).map(flip).collect::<Vec<_>>().join("; ")
}

/// A request from `"family name=value ..."` (a bare name is a switch).
fn request(spec: &str) -> Request {
    let mut words = spec.split_whitespace();
    let family = words.next().expect("a family");
    words.fold(Request::new(family), |r, w| match w.split_once('=') {
        Some((name, value)) => r.with(name, value),
        None => r.with(w, true),
    })
}

fn main() {
    let mut specs: Vec<String> = (std::env::args().skip(1))
        .filter(|a| !a.starts_with('-'))
        .collect();
    if specs.is_empty() {
        specs = [
            "turnstyle n=12",
            "hanoi pegs=4 discs=14",
            "sliding rows=4 cols=3",
            "sliding rows=3 cols=4",
            "pancake n=11",
            "pancake n=9 burnt",
        ]
        .map(String::from)
        .to_vec();
        specs.push(format!("perm gens={}", pancake_gens(11)));
    }
    let scratch = std::env::temp_dir().join(format!("gpusearch-bench-{}", std::process::id()));
    for spec in specs {
        let mut puzzle = request(&spec);
        if let Some(gens) = spec.strip_prefix("perm gens=") {
            puzzle = Request::new("perm").with("gens", gens);
        }
        let job = Job {
            puzzle,
            out: Some(scratch.clone()),
            quiet: true,
            ..Job::default()
        };
        let finished = job::run(&job).unwrap_or_else(|e| panic!("{spec}: {e}"));
        let r = &finished.report;
        let shown = if spec.len() > 40 { &spec[..40] } else { &spec };
        println!(
            "{shown:40} {:>14} states, diameter {:>5}, {:>9.3} s, {:>7.1} M states/s",
            r.reachable,
            r.diameter,
            r.seconds,
            r.states_per_second / 1e6
        );
        let _ = std::fs::remove_dir_all(&scratch);
    }
}
