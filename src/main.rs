//! The `gpusearch` command line: parse, run the job, print the outcome.

use clap::Parser;
use gpusearch::job::{self, Job};
use gpusearch::puzzle::spec::PuzzleArgs;
use gpusearch::store::atomic;
use std::path::PathBuf;
use std::process::ExitCode;

/// Exhaustive breadth-first search of a puzzle's whole state space: the number of positions at
/// each distance from solved, the diameter (God's number) and the antipodes.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    /// The puzzle: turnstyle, topspin, perm, rotation, rings or key.
    #[arg(long)]
    puzzle: String,
    /// Number of pieces (turnstyle: 4 to 16; topspin: 3 to 16) or of rings (rings: 1 to 34).
    #[arg(long)]
    n: Option<usize>,
    /// TopSpin's turntable: how many pieces F reverses [default: 4].
    #[arg(long)]
    k: Option<usize>,
    /// Which moves count (turnstyle, topspin): lrf (L, R and F) or flips (only F, the ring read
    /// from piece 1) [default: lrf].
    #[arg(long)]
    metric: Option<String>,
    /// Generators in cycle notation, separated by ';' (perm), e.g. "(1,2)(3,4); (1,2,3,4,5)".
    #[arg(long)]
    gens: Option<String>,
    /// A definition file: a twsearch .tws puzzle (perm) or key and disk heights (key).
    #[arg(long)]
    def: Option<PathBuf>,
    /// Board rows (rotation).
    #[arg(long)]
    rows: Option<usize>,
    /// Board columns (rotation).
    #[arg(long)]
    cols: Option<usize>,
    /// Size of the turning blocks (rotation).
    #[arg(long)]
    block: Option<usize>,
    /// Output folder [default: results/<puzzle and size>, e.g. results/turnstyle-n12-lrf].
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
        puzzle: PuzzleArgs {
            puzzle: cli.puzzle,
            n: cli.n,
            k: cli.k,
            metric: cli.metric,
            gens: cli.gens,
            def: cli.def,
            rows: cli.rows,
            cols: cli.cols,
            block: cli.block,
        },
        out: cli.out,
        threads: cli.threads,
        quiet: cli.quiet,
        backend: cli.backend,
        gpu_window_bytes: cli.gpu_window_bytes,
    };
    match job::run(&job) {
        Ok(done) => {
            let r = &done.report;
            let params: Vec<String> = r
                .puzzle
                .params
                .iter()
                .map(|(k, v)| match v.as_str() {
                    Some(text) => format!("{k}={text}"),
                    None => format!("{k}={v}"),
                })
                .collect();
            if let Some(picture) = &done.picture {
                print!("{picture}");
            }
            println!(
                "{} {} {}: {} reachable states, diameter {}, {} antipodes, {:.3} s ({:.0} states/s); wrote {}",
                r.puzzle.puzzle,
                params.join(" "),
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
