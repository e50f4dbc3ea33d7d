//! What the test files share: running the binary, scratch folders, a plain queue-based BFS,
//! permutation puzzles from generators, checkpoints kept in memory and the level loop's events.

// Each test file is its own crate and uses some of these.
#![allow(dead_code)]

use gpusearch::puzzle::Perm;
use gpusearch::puzzle::StateSpace;
use gpusearch::puzzle::perm::{Identity, Inverses, parse};
use gpusearch::search::levels::Levels;
use gpusearch::search::within::PassSaved;
use gpusearch::search::{
    Checkpoints, Engine, Options, Outcome, Progress, Resume, Saving, Silent, Step, drive,
};
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::hash::Hash;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

/// Runs the binary with `args` in `dir` (the test's own folder where `None`).
pub fn gpusearch_in(dir: Option<&Path>, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gpusearch"));
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    (command.args(args).env("NODEVICE_SELECT", "1").output()).expect("the binary runs")
}

/// Runs the binary with `args`.
pub fn gpusearch(args: &[&str]) -> Output {
    gpusearch_in(None, args)
}

/// A fresh, empty scratch folder for one test (`name` is unique within its test file; the
/// process number keeps the test files apart).
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpusearch-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Distances from the starts by a queue, the moves given as a function.
pub struct Naive<T> {
    /// The distance of every position reached.
    pub distance: HashMap<T, u64>,
    /// The positions at each distance.
    pub levels: Vec<u64>,
}

impl<T: Clone + Ord> Naive<T> {
    /// The positions at the largest distance.
    pub fn antipodes(&self) -> BTreeSet<T> {
        let diameter = self.levels.len() as u64 - 1;
        (self.distance.iter())
            .filter(|&(_, &d)| d == diameter)
            .map(|(s, _)| s.clone())
            .collect()
    }
}

/// A breadth-first search from `starts` by a queue, with `moves` giving each position's
/// neighbours.
pub fn naive_bfs<T: Clone + Eq + Hash>(starts: Vec<T>, moves: impl Fn(&T) -> Vec<T>) -> Naive<T> {
    let mut distance: HashMap<T, u64> = starts.iter().map(|s| (s.clone(), 0)).collect();
    let mut queue: VecDeque<T> = starts.into();
    while let Some(s) = queue.pop_front() {
        let d = distance[&s];
        for t in moves(&s) {
            if !distance.contains_key(&t) {
                distance.insert(t.clone(), d + 1);
                queue.push_back(t);
            }
        }
    }
    let diameter = *distance.values().max().unwrap();
    let mut levels = vec![0u64; diameter as usize + 1];
    for &d in distance.values() {
        levels[d as usize] += 1;
    }
    Naive { distance, levels }
}

/// The permutation puzzle of generators in cycle notation, each with its inverse.
pub fn perm_from_gens(text: &str) -> Perm {
    perm_of(text, Inverses::Added)
}

/// The directed Cayley graph of generators in cycle notation: the generators one way only.
pub fn directed_gens(text: &str) -> Perm {
    perm_of(text, Inverses::Directed)
}

/// The permutation puzzle of generators in cycle notation, completed by their inverses as
/// `inverses` says.
fn perm_of(text: &str, inverses: Inverses) -> Perm {
    Perm::new(
        Identity {
            family: "perm".into(),
            params: Default::default(),
            metric: match inverses {
                Inverses::Directed => "directed".into(),
                _ => "gens".into(),
            },
            slug: "test".into(),
        },
        parse::generators(text).unwrap(),
        inverses,
    )
    .unwrap()
}

/// A silent search of `space` on `engine`, saving where `checkpoints` asks and going on from
/// `resume`: the level loop, then the engine's table.
pub fn search_on<S: StateSpace, E: Engine>(
    space: &S,
    mut engine: E,
    options: &Options,
    checkpoints: Option<&dyn Checkpoints>,
    resume: Option<Resume>,
) -> Result<Outcome, String> {
    let (levels, antipodes) = drive(space, &mut engine, options, &Silent, checkpoints, resume)
        .map_err(|e| e.to_string())?;
    Ok(Outcome {
        table: engine.into_table().map_err(|e| e.to_string())?,
        levels,
        antipodes,
    })
}

/// A checkpoint kept in memory: the table's words, the levels and the antipodes.
pub type Saved = (Vec<u64>, Levels, Vec<u64>);

/// Checkpoints after every level, all kept.
#[derive(Default)]
pub struct Every(pub Mutex<Vec<Saved>>);

impl Checkpoints for Every {
    fn due(&self) -> bool {
        true
    }

    fn save(&self, table: Saving, levels: &Levels, antipodes: &[u64]) -> Result<(), String> {
        let words = words_of(table)?;
        self.0
            .lock()
            .unwrap()
            .push((words, levels.clone(), antipodes.to_vec()));
        Ok(())
    }
}

/// The words of a table being saved.
fn words_of(table: Saving) -> Result<Vec<u64>, String> {
    let Saving::Table(table) = table else {
        return Err("these checkpoints keep whole tables".into());
    };
    let mut bytes = Vec::new();
    table.append_le_bytes(0..table.entries().div_ceil(32) as usize, &mut bytes)?;
    Ok(bytes
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
        .collect())
}

/// Checkpoints within every scan, as often as a scan pauses, all kept with the scan's state
/// (and none after levels).
#[derive(Default)]
pub struct Parts(pub Mutex<Vec<(Saved, PassSaved)>>);

impl Checkpoints for Parts {
    fn due(&self) -> bool {
        true
    }

    fn save(&self, _: Saving, _: &Levels, _: &[u64]) -> Result<(), String> {
        Ok(())
    }

    fn save_within(
        &self,
        table: Saving,
        levels: &Levels,
        antipodes: &[u64],
        pass: &PassSaved,
    ) -> Result<(), String> {
        let saved = (words_of(table)?, levels.clone(), antipodes.to_vec());
        self.0.lock().unwrap().push((saved, pass.clone()));
        Ok(())
    }
}

/// The level loop's events: each level's depth, size and kind of pass.
#[derive(Default)]
pub struct Events(pub Mutex<Vec<(u64, u64, Step)>>);

impl Progress for Events {
    fn found(&self, _: u64) {}
    fn level(&self, depth: u64, count: u64, _: Option<u64>, step: Step) {
        self.0.lock().unwrap().push((depth, count, step));
    }
}

/// Runs the binary again and again, each time killing it (SIGKILL) `wait_ms` after it saved a
/// checkpoint of its own at `checkpoint`, for each of `waits`; `command(resume)` makes the
/// command line, with `--resume` once there is a checkpoint to go on from. Returns how many
/// times it was killed (a run that finished first is not).
pub fn kill_after_checkpoints(
    command: impl Fn(bool) -> Command,
    checkpoint: &Path,
    waits: &[u64],
) -> usize {
    let saved = || std::fs::read(checkpoint).ok();
    let mut kills = 0;
    for &wait_ms in waits {
        let before = saved();
        let mut child = command(before.is_some()).spawn().unwrap();
        // Once it has saved a level of its own, some way into the next pass.
        let started = std::time::Instant::now();
        while saved().is_none() || saved() == before {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            assert!(started.elapsed().as_secs() < 300, "no checkpoint");
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        std::thread::sleep(std::time::Duration::from_millis(wait_ms));
        if child.try_wait().unwrap().is_some() {
            break;
        }
        child.kill().unwrap();
        child.wait().unwrap();
        kills += 1;
    }
    kills
}
