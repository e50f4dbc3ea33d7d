//! The `gpusearch` command line: parse, run the job, print the outcome.

use clap::{Args, Parser, Subcommand};
use gpusearch::job::{self, Error, Job};
use gpusearch::puzzle::spec::PuzzleArgs;
use gpusearch::store::atomic;
use gpusearch::{solve, tables, verify};
use std::path::PathBuf;
use std::process::ExitCode;

/// Exhaustive breadth-first search of a puzzle's whole state space: the number of positions at
/// each distance from solved, the diameter (God's number) and the antipodes.
#[derive(Parser)]
#[command(
    version,
    about,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    search: SearchArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Prints an optimal solution of a position, read from its puzzle's distances file (which
    /// is searched first if missing).
    Solve {
        #[command(flatten)]
        search: Box<SearchArgs>,
        /// The position: the pieces by position (numbers; Turnstyle and TopSpin also take the
        /// seeds' 0, A, B for 10, 11, 12), a Chinese rings state number or ring list, a key
        /// position and rotation.
        #[arg(long)]
        state: String,
        /// Print only the moves, on one line (for scripts).
        #[arg(long)]
        moves_only: bool,
    },
    /// Checks a distances file without trusting it: structure, checksums, the search's
    /// invariants, and a fresh search of the puzzle it names.
    Verify {
        /// The distances file.
        file: PathBuf,
        /// Worker threads [default: all cores].
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Regenerates the published tables: every run of the list in results/README.md, each
    /// folder's reports and plot, the index and the seeds' reproduction table.
    Tables {
        /// The folder of the tables.
        #[arg(long, default_value = "results")]
        out: PathBuf,
        /// Worker threads [default: all cores].
        #[arg(long)]
        threads: Option<usize>,
        /// No progress on stderr.
        #[arg(long)]
        quiet: bool,
    },
}

/// A search: the puzzle and how to run it.
#[derive(Args)]
struct SearchArgs {
    /// The puzzle: turnstyle, topspin, perm, rotation, rings or key.
    #[arg(long, required = true)]
    puzzle: Option<String>,
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
    /// Continue the interrupted run whose checkpoint is in the output folder.
    #[arg(long)]
    resume: bool,
    /// Save a checkpoint after a level when the last one is at least this many seconds old (0:
    /// after every level).
    #[arg(long, default_value_t = 60.0)]
    checkpoint_every: f64,
    /// Largest GPU storage window in bytes (for testing the windowed table).
    #[arg(long, hide = true)]
    gpu_window_bytes: Option<u64>,
}

impl SearchArgs {
    fn job(self) -> Job {
        Job {
            puzzle: PuzzleArgs {
                puzzle: self.puzzle.unwrap_or_default(),
                n: self.n,
                k: self.k,
                metric: self.metric,
                gens: self.gens,
                def: self.def,
                rows: self.rows,
                cols: self.cols,
                block: self.block,
            },
            out: self.out,
            threads: self.threads,
            quiet: self.quiet,
            backend: self.backend,
            gpu_window_bytes: self.gpu_window_bytes,
            resume: self.resume,
            checkpoint_every: self.checkpoint_every,
        }
    }
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
    let outcome = match cli.command {
        None => search(cli.search.job()),
        Some(Command::Solve {
            search,
            state,
            moves_only,
        }) => with_threads(search.threads, || {
            let solution = solve::run(&solve::Solve {
                job: (*search).job(),
                state,
                moves_only,
            })?;
            print!("{}", solution.text);
            Ok(())
        }),
        Some(Command::Verify { file, threads }) => {
            match with_threads(threads, || verify::run(&file).map_err(Error::Run)) {
                Ok(summary) => {
                    println!("{summary}");
                    Ok(())
                }
                Err(e) => Err(e),
            }
        }
        Some(Command::Tables {
            out,
            threads,
            quiet,
        }) => tables::run(&out, threads, quiet).map(|summary| println!("{summary}")),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gpusearch: error: {}", one_line(&e.to_string()));
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

/// Runs `f` in a pool of `threads` workers (all cores by default).
fn with_threads<T>(
    threads: Option<usize>,
    f: impl FnOnce() -> Result<T, Error> + Send,
) -> Result<T, Error>
where
    T: Send,
{
    let pool = job::pool(threads)?;
    pool.install(f)
}

/// The main job: search, write the folder, print a summary.
fn search(job: Job) -> Result<(), Error> {
    let done = job::run(&job)?;
    let r = &done.report;
    // Sizes and names only: definitions (heights, moves) stay in the report.
    let params: Vec<String> = r
        .puzzle
        .params
        .iter()
        .filter(|(_, v)| !v.is_array())
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
    Ok(())
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
