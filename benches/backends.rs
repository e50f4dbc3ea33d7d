//! The GPU engine against the CPU engine on Turnstyle: `cargo bench --bench backends [-- N...]`.
//!
//! Runs full searches (default: N = 11 and 12, metric lrf) on both engines, the GPU engine on
//! the first Vulkan adapter with 64-bit integers (a hardware GPU if there is one, else lavapipe),
//! checks that they found the same table, and prints each one's seconds and the ratio. The
//! figures are the search alone: opening the device and compiling the shaders are not counted.

mod common;
use gpusearch::gpu::{Adapters, Gpu};
use gpusearch::puzzle::{Ring, StateSpace};
use gpusearch::search::{Options, Silent, search};
use std::time::Instant;

fn main() {
    let sizes = common::sizes();
    let gpu = Gpu::open(Adapters::Any)
        .expect("Vulkan opens")
        .expect("a Vulkan adapter with 64-bit integers (lavapipe: mesa-vulkan-drivers)");
    println!("GPU engine on {}", gpu.adapter().name);
    for (n, metric) in sizes {
        let space = Ring::turnstyle(n, metric).expect("a valid size");
        let options = Options::default();
        let started = Instant::now();
        let cpu = search(&space, &options, &Silent);
        let cpu_seconds = started.elapsed().as_secs_f64();
        let layout = gpu
            .plan(space.size(), None)
            .expect("the table fits the device");
        // A first search compiles the pipelines; the second is timed.
        let small = Ring::turnstyle(6, metric).expect("a valid size");
        let warm = gpu.plan(small.size(), None).expect("fits");
        gpu.search(&small, &warm, &options, &Silent)
            .expect("the GPU searches");
        let started = Instant::now();
        let found = gpu
            .search(&space, &layout, &options, &Silent)
            .expect("the GPU searches");
        let gpu_seconds = started.elapsed().as_secs_f64();
        assert_eq!(cpu.levels, found.levels, "the engines disagree");
        assert!(
            (0..cpu.table.word_count()).all(|w| cpu.table.word(w) == found.table.word(w)),
            "the engines' tables differ"
        );
        println!(
            "turnstyle n={n} {}: cpu {cpu_seconds:.3} s, gpu {gpu_seconds:.3} s, gpu/cpu {:.1}x ({} states, {} threads)",
            metric.name(),
            gpu_seconds / cpu_seconds,
            cpu.reachable(),
            rayon::current_num_threads()
        );
    }
}
