//! The `gpusearch` command line: parse, run the job, print the outcome.

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use gpusearch::job::{self, Backend, Error, Job};
use gpusearch::puzzle::family::{Kind, Request};
use gpusearch::puzzle::{FAMILIES, registry};
use gpusearch::search::Footprint;
use gpusearch::setting::{self, Setting};
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
    #[command(group(clap::ArgGroup::new("position").required(true).args(["state", "moves"])))]
    Solve {
        #[command(flatten)]
        puzzle: Box<PuzzleOpts>,
        #[command(flatten)]
        run: RunOpts,
        /// The position: the pieces by position (numbers; Turnstyle and TopSpin also take the
        /// seeds' 0, A, B for 10, 11, 12), a Chinese rings state number or ring list, a key
        /// position and rotation; a twisty puzzle's sets, each its labels then orientations; the
        /// Towers of Hanoi's peg of each disc, the smallest first; a sliding puzzle's tile in
        /// each cell in reading order, 0 for the blank; a stack of burnt pancakes, one turned up
        /// negative.
        #[arg(long, allow_hyphen_values = true)]
        state: Option<String>,
        /// The position as the moves that make it from solved, e.g. "R U R' U'" (the
        /// puzzle's move names, as the report lists them).
        #[arg(long)]
        moves: Option<String>,
        /// Print only the moves, on one line (for scripts).
        #[arg(long)]
        moves_only: bool,
    },
    /// Checks a distances file without trusting it: structure, checksums, the search's
    /// invariants, and a fresh search of the puzzle it names.
    Verify {
        /// The distances file.
        file: PathBuf,
        /// No progress on stderr.
        #[arg(long)]
        quiet: bool,
        /// Worker threads [default: all cores].
        #[arg(long)]
        threads: Option<usize>,
        /// Memory budget: bytes, or a number with a unit (1100MiB, 22GiB) [default: the memory
        /// available now].
        #[arg(long, value_parser = parse_memory, allow_hyphen_values = true)]
        memory: Option<u64>,
    },
    /// Regenerates the published tables: every family's published runs, each folder's reports
    /// and plot, the index and the seeds' reproduction table.
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
        /// The large runs instead (a few hours in all on two cores, up to a 20.3 GiB table).
        #[arg(long, conflicts_with_all = ["check", "index"])]
        large: bool,
        /// Search nothing: write the index from the reports in the folder as they stand (after
        /// a large run made into its folder by hand).
        #[arg(long, conflicts_with = "check")]
        index: bool,
        /// Search the quick runs again into a scratch folder and check that they give the
        /// published reports and plots, timings aside; nothing in the folder is written.
        #[arg(long)]
        check: bool,
    },
}

/// The puzzle, its size and its folder: what a search and `solve` share.
#[derive(Args)]
struct PuzzleOpts {
    /// The puzzle (its family): see the list of puzzles below.
    #[arg(long, required = true)]
    puzzle: Option<String>,
    #[command(flatten)]
    options: FamilyOptions,
    /// Reduce the table by the puzzle's symmetries (those that keep its start and map moves to
    /// moves): one entry per class of symmetric positions, the counts still of positions.
    #[arg(long)]
    symmetry: bool,
    /// Output folder [default: runs/<puzzle and size>, e.g. runs/turnstyle-n12-lrf].
    #[arg(long)]
    out: Option<PathBuf>,
}

/// The families' options, one flag each (`--n`), as the registry declares them: a flag that
/// several families take says what it means for each.
struct FamilyOptions(Vec<(String, String)>);

impl clap::FromArgMatches for FamilyOptions {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let given = (registry::options().into_iter())
            .filter_map(|(name, _)| {
                let value = matches.get_one::<String>(name)?;
                Some((name.to_string(), value.clone()))
            })
            .collect();
        Ok(FamilyOptions(given))
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = FamilyOptions::from_arg_matches(matches)?;
        Ok(())
    }
}

impl Args for FamilyOptions {
    fn augment_args(command: clap::Command) -> clap::Command {
        registry::options()
            .into_iter()
            .fold(command, |command, (name, takers)| {
                let kind = takers[0].1.kind;
                // Families that say the same of it, together.
                let mut said: Vec<(Vec<&str>, String)> = Vec::new();
                for (family, opt) in &takers {
                    let text = match opt.default {
                        Some(d) => format!("{} [default: {d}]", opt.help),
                        None => opt.help.to_string(),
                    };
                    match said.iter_mut().find(|(_, t)| *t == text) {
                        Some((families, _)) => families.push(family),
                        None => said.push((vec![family], text)),
                    }
                }
                let help: Vec<String> = (said.iter())
                    .map(|(families, text)| format!("{}: {text}", families.join(", ")))
                    .collect();
                let mut arg = clap::Arg::new(name)
                    .long(name)
                    .value_name(kind.placeholder())
                    .help(format!("{}.", help.join("; ")));
                arg = match kind {
                    // Given alone; the family reads it as the text "true".
                    Kind::Switch => {
                        (arg.num_args(0).default_missing_value("true")).action(clap::ArgAction::Set)
                    }
                    _ => arg.allow_negative_numbers(true),
                };
                if kind == Kind::Count {
                    // Checked here for a clear error; the family reads the text again.
                    arg = arg.value_parser(|text: &str| {
                        (text.parse::<usize>().map(|_| text.to_string())).map_err(|e| e.to_string())
                    });
                }
                command.arg(arg)
            })
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        FamilyOptions::augment_args(command)
    }
}

/// The puzzles, for the end of `--help`.
fn puzzles_help() -> String {
    let lines: Vec<String> = (FAMILIES.iter())
        .map(|f| format!("  --puzzle {} {}", f.name(), f.usage(&flag)))
        .collect();
    format!("Puzzles:\n{}", lines.join("\n"))
}

/// How a search runs: what a search and `solve` (which searches first when the distances file
/// is missing) share.
#[derive(Args)]
struct RunOpts {
    /// Worker threads [default: all cores].
    #[arg(long, allow_negative_numbers = true)]
    threads: Option<usize>,
    /// No progress on stderr (no bar, no level lines).
    #[arg(long)]
    quiet: bool,
    /// Where to search: auto (a hardware GPU through Vulkan where there is one, the puzzle has a
    /// GPU shader and the GPU is expected to finish first; else the CPU), cpu, or gpu (any
    /// Vulkan adapter, software ones such as lavapipe included).
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    backend: Backend,
    /// Memory budget: bytes, or a number with a unit (1100MiB, 22GiB). The search takes the
    /// fastest strategy that fits [default: the memory available now].
    #[arg(long, value_parser = parse_memory, allow_hyphen_values = true)]
    memory: Option<u64>,
    /// Replace the result in the output folder even where it is another puzzle's (or another
    /// definition's): without it such a search is refused.
    #[arg(long)]
    force: bool,
}

/// A search: the puzzle and how to run it.
#[derive(Args)]
struct SearchArgs {
    #[command(flatten)]
    puzzle: PuzzleOpts,
    #[command(flatten)]
    run: RunOpts,
    /// Continue the interrupted run whose checkpoint is in the output folder.
    #[arg(long)]
    resume: bool,
    /// Save a checkpoint after a level when the last one is at least this many seconds old (0:
    /// after every level) [default: scaled so that checkpoints take at most 5% of the run, at
    /// least 60; --dry-run shows it].
    #[arg(long, allow_negative_numbers = true)]
    checkpoint_every: Option<f64>,
    /// Write the report alone: no distances file and no checkpoints, for a table whose file the
    /// disk cannot hold (`solve` and `verify` then have no file to read).
    #[arg(long)]
    report_only: bool,
    /// The memory strategy: auto (the fastest that fits --memory), full or lean.
    #[arg(long, value_enum, default_value = "auto")]
    strategy: StrategyArg,
    /// Print the plan (memory of the table and of every structure beside it, disk for the file
    /// and checkpoints, the strategy) and exit without searching.
    #[arg(long)]
    dry_run: bool,
    /// With --dry-run: also plan each process of an MPI job of this many (mpirun -np N; under
    /// mpirun, the job's own number).
    #[arg(long)]
    processes: Option<usize>,
    /// Largest GPU storage window in bytes (for testing the windowed table).
    #[arg(long, hide = true)]
    gpu_window_bytes: Option<u64>,
    /// Where the table's slabs go when --memory cannot hold it and it is searched from disk
    /// [default: OUT/slabs].
    #[arg(long, value_name = "DIR")]
    slab_folder: Option<PathBuf>,
    /// Largest slab on disk in bytes: searches from disk whatever the budget (for testing the
    /// slabs).
    #[arg(long, hide = true)]
    slab_bytes: Option<u64>,
    /// GPU memory: bytes, or a number with a unit (80GB). With --dry-run, the device plan for a
    /// GPU of this memory where none is present; in a run, at most this much of the device's.
    #[arg(long, value_parser = parse_memory, allow_hyphen_values = true)]
    gpu_memory: Option<u64>,
}

impl SearchArgs {
    fn job(self) -> Job {
        let mut job = job_of(self.puzzle, self.run);
        job.gpu_window_bytes = self.gpu_window_bytes;
        job.slab_folder = self.slab_folder;
        job.slab_bytes = self.slab_bytes;
        job.gpu_memory = self.gpu_memory;
        job.resume = self.resume;
        job.checkpoint_every = self.checkpoint_every;
        job.report_only = self.report_only;
        job.processes = self.processes;
        job.footprint = match self.strategy {
            StrategyArg::Auto => None,
            StrategyArg::Full => Some(Footprint::Full),
            StrategyArg::Lean => Some(Footprint::Lean),
        };
        job
    }
}

/// The job of a puzzle and how to run it, with every other setting at its default.
fn job_of(p: PuzzleOpts, run: RunOpts) -> Job {
    Job {
        puzzle: Request {
            puzzle: p.puzzle.unwrap_or_default(),
            options: p.options.0,
            symmetry: p.symmetry,
        },
        out: p.out,
        threads: run.threads,
        quiet: run.quiet,
        backend: run.backend,
        gpu_window_bytes: None,
        gpu_memory: None,
        resume: false,
        checkpoint_every: None,
        memory: run.memory,
        footprint: None,
        processes: None,
        slab_folder: None,
        slab_bytes: None,
        force: run.force,
        report_only: false,
    }
}

/// The flag that gives a library setting or a family option named `name`.
fn flag(name: &str) -> String {
    format!("--{}", name.replace('_', "-"))
}

/// How the command line writes a library setting, with a value or without.
fn spell(setting: Setting, value: Option<&str>) -> String {
    let name = match setting {
        Setting::Footprint => flag("strategy"),
        setting => flag(setting.field()),
    };
    match value {
        Some(value) => format!("{name} {value}"),
        None => name,
    }
}

fn main() -> ExitCode {
    if std::env::var_os("NODEVICE_SELECT").is_none() {
        // Mesa's device-select Vulkan layer only reorders adapters (we pick our own) and, on a
        // machine without a display, prints a Wayland error while doing it.
        // SAFETY: no other thread exists yet.
        unsafe { std::env::set_var("NODEVICE_SELECT", "1") };
    }
    setting::spell_as(spell);
    let command = Cli::command().after_help(puzzles_help());
    let cli = match command
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m))
    {
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
    // Under mpirun, this process is one of the search's ([`gpusearch::search::cluster`]).
    #[cfg(feature = "mpi")]
    let cluster = gpusearch::search::cluster::MpiJob::join();
    #[cfg(not(feature = "mpi"))]
    let cluster: Option<job::MpiJob> = None;
    if let Err(e) = atomic::remove_partial_files_on_interrupt(cluster.is_some()) {
        eprintln!("gpusearch: {e}");
        return ExitCode::from(1);
    }
    let outcome = match cli.command {
        None if cli.search.dry_run => {
            let mut job = cli.search.job();
            // Under mpirun, the plan of this job's processes, printed once.
            let root = cluster.as_ref().is_none_or(|c| c.rank() == 0);
            job.processes = job.processes.or(cluster.as_ref().map(|c| c.size()));
            // The plan is printed whether or not it fits; one that does not fails as the run
            // would, so that scripts see the refusal in the exit status.
            job::dry_run(&job).and_then(|dry| {
                if root {
                    print!("{}", dry.plan)
                }
                // Said and failed by the first process alone, which fails the MPI job.
                match dry.refusal.filter(|_| root) {
                    None => Ok(()),
                    Some(why) => Err(Error::Input(why)),
                }
            })
        }
        None if cli.search.processes.is_some() => Err(Error::Input(
            "--processes plans an MPI job with --dry-run; to run one, start gpusearch with mpirun -np N".into(),
        )),
        None => search(cli.search.job(), cluster.as_ref()),
        Some(Command::Solve {
            puzzle,
            run,
            state,
            moves,
            moves_only,
        }) => with_threads(run.threads, || {
            let position = match (state, moves) {
                (Some(state), _) => solve::Position::State(state),
                (None, moves) => solve::Position::Moves(moves.unwrap_or_default()),
            };
            let solution = solve::run(&solve::Solve {
                job: job_of(*puzzle, run),
                position,
                moves_only,
            })?;
            print!("{}", solution.text);
            Ok(())
        }),
        Some(Command::Verify {
            file,
            quiet,
            threads,
            memory,
        }) => {
            let memory = memory.or_else(gpusearch::plan::available_memory);
            let check = || {
                verify::run(&file, memory, quiet).map_err(|f| match f {
                    verify::Failure::Unsound(e) => Error::Run(e),
                    verify::Failure::Refused(e) => Error::Input(e),
                    verify::Failure::Interrupted => Error::Interrupted,
                })
            };
            match with_threads(threads, check) {
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
            large,
            index,
            check,
        }) => match (check, large, index) {
            (true, _, _) => tables::check(&out, threads, quiet),
            (false, true, _) => tables::run(&out, threads, quiet, tables::Which::Large),
            (false, false, true) => tables::run(&out, threads, quiet, tables::Which::None),
            (false, false, false) => tables::run(&out, threads, quiet, tables::Which::Quick),
        }
        .map(|summary| println!("{summary}")),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        // A process of the MPI job said why.
        Err(e @ Error::Reported(_)) => ExitCode::from(e.exit_code() as u8),
        Err(e @ Error::Interrupted) => {
            atomic::say_interrupted();
            ExitCode::from(e.exit_code() as u8)
        }
        Err(Error::Puzzle(e)) => {
            eprintln!("gpusearch: error: {}", e.message(&flag));
            ExitCode::from(2)
        }
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

/// The main job: search, write the folder, print a summary (across the processes of `cluster`
/// where given).
fn search(job: Job, cluster: Option<&job::MpiJob>) -> Result<(), Error> {
    let Some(done) = job::run_in(&job, cluster)? else {
        // An MPI process other than the first: process 0 reports.
        return Ok(());
    };
    let r = &done.report;
    let params: Vec<String> = (r.puzzle.shown_params().iter())
        .map(|(k, v)| format!("{k}={v}"))
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

/// `--strategy`: how much memory the search may use beside its table.
#[derive(Clone, Copy, ValueEnum)]
enum StrategyArg {
    /// The fastest that fits the memory budget.
    Auto,
    /// Bitmaps of the levels beside the table, and every compressed chunk at once while the
    /// file is written: about twice the table's memory in all (more for puzzles searched by
    /// scans with many moves).
    Full,
    /// The table and little else (at most 3% + 256 MiB beside it); slower.
    Lean,
}

/// `--memory`'s parser.
fn parse_memory(text: &str) -> Result<u64, String> {
    gpusearch::units::parse_bytes(text)
}

/// Folds a multi-line message (clap's, wgpu's) into one line, dropping clap's usage hints.
fn one_line(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        // clap's usage block and hints come last: everything from there on goes.
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more"))
        .filter(|l| !l.is_empty() && !l.starts_with("tip:"))
        .collect::<Vec<_>>()
        .join(" ")
}
