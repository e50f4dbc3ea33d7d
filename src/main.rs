//! The `gpusearch` command line: parse, run the job, print the outcome.

use clap::Parser;
use gpusearch::job::{self, Job};
use gpusearch::store::atomic;
use std::path::PathBuf;
use std::process::ExitCode;

/// Exhaustive breadth-first search of a puzzle's whole state space: the number of positions at
/// each distance from solved, the diameter (God's number) and the antipodes.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    /// The puzzle: turnstyle.
    #[arg(long)]
    puzzle: String,
    /// Number of pieces (Turnstyle: 4 to 16).
    #[arg(long)]
    n: usize,
    /// Which moves count: lrf (L, R and F) or flips (only flips; the ring is read from piece 1).
    #[arg(long, default_value = "lrf")]
    metric: String,
    /// Output folder [default: results/<puzzle>-n<N>-<metric>].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Worker threads [default: all cores].
    #[arg(long)]
    threads: Option<usize>,
    /// No progress bar on stderr.
    #[arg(long)]
    quiet: bool,
    /// Where to search: auto (a hardware GPU through Vulkan if there is one, else the CPU), cpu,
    /// or gpu (any Vulkan adapter, software ones such as lavapipe included).
    #[arg(long, default_value = "auto")]
    backend: String,
    /// Largest GPU storage window in bytes (for testing the windowed table).
    #[arg(long, hide = true)]
    gpu_window_bytes: Option<u64>,
}

fn main() -> ExitCode {
    if std::env::var_os("NODEVICE_SELECT").is_none() {
        // Mesa's device-select Vulkan layer only reorders adapters (we pick our own) and, on a
        // machine without a display, prints a Wayland error while doing it.
        // SAFETY: no other thread exists yet.
        unsafe { std::env::set_var("NODEVICE_SELECT", "1") };
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("gpusearch: {}", one_line(&e.to_string()));
            return ExitCode::from(2);
        }
    };
    if let Err(e) = atomic::remove_partial_files_on_interrupt() {
        eprintln!("gpusearch: {e}");
        return ExitCode::from(1);
    }
    let job = Job {
        puzzle: cli.puzzle,
        n: cli.n,
        metric: cli.metric,
        out: cli.out,
        threads: cli.threads,
        quiet: cli.quiet,
        backend: cli.backend,
        gpu_window_bytes: cli.gpu_window_bytes,
    };
    match job::run(&job) {
        Ok(done) => {
            let r = &done.report;
            println!(
                "{} n={} {}: {} reachable states, diameter {}, {} antipodes, {:.3} s ({:.0} states/s); wrote {}",
                r.puzzle.puzzle,
                job.n,
                r.puzzle.metric,
                r.reachable,
                r.diameter,
                r.antipode_count,
                r.seconds,
                r.states_per_second,
                done.out.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("gpusearch: error: {}", one_line(&e.to_string()));
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

/// Folds a multi-line message (clap's, wgpu's) into one line, dropping clap's usage hints.
fn one_line(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more"))
        .collect::<Vec<_>>()
        .join(" ")
}
