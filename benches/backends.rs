//! The GPU engine against the CPU engine on Turnstyle: `cargo bench --bench backends [-- N...]`.
//!
//! Runs full searches (default: N = 11 and 12, metric lrf) on both engines, the GPU engine on
//! the first Vulkan adapter with 64-bit integers (a hardware GPU if there is one, else lavapipe),
//! three times each, in turn; checks that they found the same table; and prints the medians:
//! the CPU's search, the GPU's passes (from level 0 on: the work per state) and the GPU's whole
//! search (with its set-up: buffers, and on drivers that compile when a pipeline first runs,
//! lavapipe's, the shaders), and the ratios.

mod common;
use gpusearch::gpu::{Adapters, Gpu};
use gpusearch::puzzle::{Ring, StateSpace};
use gpusearch::search::cpu::search;
use gpusearch::search::{Options, Progress, Silent, Step};
use std::sync::Mutex;
use std::time::Instant;

/// Runs of each engine per size.
const RUNS: usize = 3;

/// Notes when the level loop reached level 0: the set-up is over.
#[derive(Default)]
struct Started(Mutex<Option<Instant>>);

impl Progress for Started {
    fn found(&self, _: u64) {}
    fn level(&self, depth: u64, _: u64, _: Option<u64>, _: Step) {
        if depth == 0 {
            *self.0.lock().expect("not poisoned") = Some(Instant::now());
        }
    }
}

fn median(mut seconds: Vec<f64>) -> f64 {
    seconds.sort_by(f64::total_cmp);
    seconds[seconds.len() / 2]
}

fn main() {
    let sizes = common::sizes();
    let gpu = Gpu::open(Adapters::Any)
        .expect("Vulkan opens")
        .expect("a Vulkan adapter with 64-bit integers (lavapipe: mesa-vulkan-drivers)");
    println!("GPU engine on {}", gpu.adapter().name);
    for (n, metric) in sizes {
        let space = Ring::turnstyle(n, metric).expect("a valid size");
        let options = Options::default();
        let layout = gpu
            .plan(space.size(), None)
            .expect("the table fits the device");
        let (mut cpu_runs, mut passes_runs, mut gpu_runs) = (Vec::new(), Vec::new(), Vec::new());
        let mut states = 0;
        for _ in 0..RUNS {
            let started = Instant::now();
            let cpu = search(&space, &options, &Silent);
            cpu_runs.push(started.elapsed().as_secs_f64());
            let level_zero = Started::default();
            let started = Instant::now();
            let found = gpu
                .search(&space, &layout, &options, &level_zero)
                .expect("the GPU searches");
            let ended = Instant::now();
            gpu_runs.push((ended - started).as_secs_f64());
            let passes_from = level_zero.0.lock().expect("not poisoned").expect("level 0");
            passes_runs.push((ended - passes_from).as_secs_f64());
            assert_eq!(cpu.levels, found.levels, "the engines disagree");
            assert!(
                (0..cpu.table.word_count()).all(|w| cpu.table.word(w) == found.table.word(w)),
                "the engines' tables differ"
            );
            states = cpu.reachable();
        }
        let (cpu, passes, whole) = (median(cpu_runs), median(passes_runs), median(gpu_runs));
        println!(
            "turnstyle n={n} {}: cpu {cpu:.3} s; gpu passes {passes:.3} s ({:.1}x), with set-up {whole:.3} s ({:.1}x); medians of {RUNS} ({states} states, {} threads)",
            metric.name(),
            passes / cpu,
            whole / cpu,
            rayon::current_num_threads()
        );
    }
}
