//! Bad input, measured: every reader of outside input is fed mutated copies of good inputs.
//!
//! The readers: twsearch definitions (`format::read`, and the build of the puzzle they define),
//! `--gens` (`parse::generators`, GAP's group notation included, and the build, with `--directed`
//! or not), `--start` (its build, and positions ranked in the space it makes), GAP files of
//! named generators (`parse::gap_file`), the Free the Key file
//! (`Key::parse`), distances files (`store::read`, `verify::run`, `solve::run`) and checkpoints
//! (`--resume`, through `job::run`). Each case mutates a good input a few times (byte and bit
//! flips, insertions, deletions, truncation, splices of tokens, numbers made huge, negative or
//! zero, lines duplicated, dropped or swapped, JSON fields of a file's header or chunk list
//! replaced) and calls the reader under `catch_unwind`. A case fails when the reader panics, or
//! refuses the input with a message of more than one line or one that does not name the place
//! (the file and line for texts, the column or `gens` for generators, the path for files).
//!
//! `GPUSEARCH_FUZZ_CASES` sets the cases per reader (default [`DEFAULT_CASES`]: the file takes
//! about 6 s in a debug build on two cores; 100,000 took 8 minutes), `GPUSEARCH_FUZZ_SEED` the
//! seed. Each test prints its counts (cases, rejections, acceptances: `--nocapture` shows them).
//! The first failing input of each kind is written to the scratch folder and its case number
//! printed: each case is made from the seed and its number alone, so the same run makes it again.
//! The generator is a hand-written SplitMix64: a few lines, and no dependency for tests alone.
//!
//! ```text
//! GPUSEARCH_FUZZ_CASES=100000 cargo test -j 1 --test fuzz -- --nocapture
//! ```

mod common;
use common::{Every, search_on};
use gpusearch::job::{self, Backend, Job};
use gpusearch::puzzle::StateSpace;
use gpusearch::puzzle::family::Request;
use gpusearch::puzzle::key::Key;
use gpusearch::puzzle::perm::parse;
use gpusearch::puzzle::registry::{self, Visit};
use gpusearch::puzzle::twisty::format;
use gpusearch::search::cpu::CpuEngine;
use gpusearch::search::levels::Levels;
use gpusearch::search::{Options, Saving};
use gpusearch::table::DistanceTable;
use gpusearch::{solve, store, verify};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

/// Cases per reader unless `GPUSEARCH_FUZZ_CASES` says otherwise.
const DEFAULT_CASES: u64 = 2000;

fn cases() -> u64 {
    std::env::var("GPUSEARCH_FUZZ_CASES")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(DEFAULT_CASES)
}

fn seed() -> u64 {
    std::env::var("GPUSEARCH_FUZZ_SEED")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0x5eed_2024)
}

/// A seeded generator (SplitMix64): small, deterministic and good enough to pick mutations.
struct Rng(u64);

impl Rng {
    /// The generator of case `case` of the reader `what`: each case is made alone.
    fn of(what: &str, case: u64) -> Rng {
        let mut h = seed() ^ 0x9e37_79b9_7f4a_7c15;
        for b in what.bytes() {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
        let mut rng = Rng(h ^ case.wrapping_mul(0xd1b5_4a32_d192_ed03));
        rng.next();
        rng
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Numbers that readers get wrong: bounds, their neighbours, overflows, signs, other forms.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "7",
    "8",
    "-1",
    "-0",
    "+1",
    "125",
    "126",
    "127",
    "254",
    "255",
    "256",
    "257",
    "65535",
    "65536",
    "4294967295",
    "4294967296",
    "9007199254740993",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999",
    "1e3",
    "1.5",
    "0x10",
    "00",
    "007",
    "NaN",
    "",
];

/// Characters a mutation may insert: the syntax of the formats, white space of every kind,
/// and some that are more than one byte.
const CHARS: &[char] = &[
    ' ', ' ', '\t', '\n', '\n', '\r', '#', '?', '(', ')', ',', ';', '-', '+', '0', '1', '2', '9',
    'A', 'x', 'v', '\'', '_', 'é', '\u{2028}', '\u{85}', '\u{a0}', '\u{0}', '\u{1b}', '😀',
];

/// Mutates `text` `count` times, splicing tokens of `words` (keywords of its format) and of
/// `donors` (other good inputs).
fn mutate_text(rng: &mut Rng, text: &str, words: &[&str], donors: &[&str]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let count = 1 + rng.below(4);
    for _ in 0..count {
        let len = chars.len();
        match rng.below(14) {
            // A character replaced, inserted or removed.
            0 if len > 0 => {
                let at = rng.below(len);
                chars[at] = *rng.pick(CHARS);
            }
            1 => {
                let at = rng.below(len + 1);
                chars.insert(at, *rng.pick(CHARS));
            }
            2 if len > 0 => {
                let at = rng.below(len);
                chars.remove(at);
            }
            // A span removed, or the text cut short.
            3 if len > 0 => {
                let at = rng.below(len);
                let end = (at + 1 + rng.below(16)).min(len);
                chars.drain(at..end);
            }
            4 => chars.truncate(rng.below(len + 1)),
            // A number replaced by another.
            5 | 6 => {
                let numbers: Vec<(usize, usize)> = runs(&chars, |c| c.is_ascii_digit());
                if let Some(&(at, end)) = (!numbers.is_empty()).then(|| rng.pick(&numbers)) {
                    let with: Vec<char> = rng.pick(NUMBERS).chars().collect();
                    chars.splice(at..end, with);
                }
            }
            // A word replaced by a keyword or a word of another input, or one inserted.
            7 | 8 => {
                let splice = if rng.chance(60) || donors.is_empty() {
                    rng.pick(words).to_string()
                } else {
                    let donor: Vec<&str> = rng.pick(donors).split_whitespace().collect();
                    rng.pick(&donor).to_string()
                };
                let tokens = runs(&chars, |c| !c.is_whitespace());
                if rng.chance(50) && !tokens.is_empty() {
                    let &(at, end) = rng.pick(&tokens);
                    chars.splice(at..end, splice.chars());
                } else {
                    let at = rng.below(len + 1);
                    chars.splice(at..at, format!(" {splice} ").chars());
                }
            }
            // Whole lines duplicated, dropped, swapped, or taken from another input.
            9..=12 => {
                let text: String = chars.iter().collect();
                let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
                let n = lines.len();
                match rng.below(4) {
                    0 => {
                        let l = rng.below(n);
                        let copy = lines[l].clone();
                        lines.insert(rng.below(n + 1), copy);
                    }
                    1 if n > 1 => {
                        lines.remove(rng.below(n));
                    }
                    2 => {
                        let (a, b) = (rng.below(n), rng.below(n));
                        lines.swap(a, b);
                    }
                    _ if !donors.is_empty() => {
                        let donor: Vec<&str> = rng.pick(donors).split('\n').collect();
                        let line = rng.pick(&donor).to_string();
                        lines.insert(rng.below(n + 1), line);
                    }
                    _ => {}
                }
                chars = lines.join("\n").chars().collect();
            }
            // A long run of something.
            _ => {
                let at = rng.below(len + 1);
                let piece = if rng.chance(50) {
                    rng.pick(words).to_string()
                } else {
                    rng.pick(NUMBERS).to_string()
                };
                let times = 1 + rng.below(300);
                chars.splice(at..at, format!("{piece} ").repeat(times).chars());
            }
        }
    }
    chars.into_iter().collect()
}

/// The spans `[start, end)` of the runs of characters that satisfy `keep`.
fn runs(chars: &[char], keep: impl Fn(char) -> bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, &c) in chars.iter().enumerate() {
        match (keep(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, chars.len()));
    }
    out
}

/// Whether a message breaks a line anywhere.
fn multi_line(message: &str) -> bool {
    message.contains([
        '\n', '\r', '\u{b}', '\u{c}', '\u{85}', '\u{2028}', '\u{2029}',
    ])
}

/// What a reader did with one case.
enum Outcome {
    Accepted,
    Rejected(String),
}

/// The counts of one reader's run, and its failures.
struct Tally {
    reader: &'static str,
    cases: u64,
    accepted: u64,
    rejected: u64,
    /// Failures by kind (the panic's place, or the message with its numbers and the scratch
    /// folder left out): how many, and the first.
    failures: std::collections::BTreeMap<String, (u64, String)>,
    failed: u64,
    started: Instant,
    /// The slowest case and its number.
    slowest: (f64, u64),
}

impl Tally {
    fn new(reader: &'static str) -> Tally {
        quiet_panics();
        Tally {
            reader,
            cases: 0,
            accepted: 0,
            rejected: 0,
            failures: Default::default(),
            failed: 0,
            started: Instant::now(),
            slowest: (0.0, 0),
        }
    }

    /// Runs case `case` of `input` through `reader`: a panic, or a rejection whose message
    /// `place_ok` does not accept or that spans lines, is a failure (the input is saved).
    fn case(
        &mut self,
        case: u64,
        input: &[u8],
        reader: impl FnOnce() -> Outcome,
        place_ok: impl Fn(&str) -> bool,
    ) {
        self.cases += 1;
        let start = Instant::now();
        let result = catch_unwind(AssertUnwindSafe(reader));
        let took = start.elapsed().as_secs_f64();
        if took > self.slowest.0 {
            self.slowest = (took, case);
        }
        let failure = match result {
            Ok(Outcome::Accepted) => {
                self.accepted += 1;
                None
            }
            Ok(Outcome::Rejected(message)) => {
                self.rejected += 1;
                if multi_line(&message) {
                    Some(("several lines", message))
                } else if !place_ok(&message) {
                    Some(("no place", message))
                } else {
                    None
                }
            }
            Err(payload) => {
                let what = (payload.downcast_ref::<String>().cloned())
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                let at = LAST_PANIC.lock().unwrap().take().unwrap_or_default();
                Some(("panic", format!("{what} at {at}")))
            }
        };
        let Some((how, message)) = failure else {
            return;
        };
        self.failed += 1;
        // A panic's kind is its place; a message's, its text with the numbers left out.
        let folder = scratch().display().to_string();
        let kind: String = match how {
            "panic" => message.split(" at ").last().unwrap_or_default().to_string(),
            _ => (message.replace(&folder, "…").chars())
                .map(|c| if c.is_ascii_digit() { '#' } else { c })
                .take(70)
                .collect(),
        };
        let kind = format!("{how}: {kind}");
        let reader = self.reader;
        let entry = self.failures.entry(kind).or_insert_with(|| {
            let saved = scratch().join(format!("failure-{reader}-{case}"));
            let _ = std::fs::write(&saved, input);
            let shown = String::from_utf8_lossy(&input[..input.len().min(300)]).into_owned();
            let first = format!(
                "case {case} (saved as {}): {how}: {message:?}\n    input: {shown:?}",
                saved.display()
            );
            (0, first)
        });
        entry.0 += 1;
    }

    /// Prints the counts and fails the test on any failure.
    fn finish(self) {
        let seconds = self.started.elapsed().as_secs_f64();
        eprintln!(
            "fuzz {}: {} cases, {} rejected, {} accepted, {} failures, {seconds:.1} s (slowest case {} in {:.3} s; seed {})",
            self.reader,
            self.cases,
            self.rejected,
            self.accepted,
            self.failed,
            self.slowest.1,
            self.slowest.0,
            seed()
        );
        if self.failed > 0 {
            let shown: Vec<String> = (self.failures.values())
                .take(40)
                .map(|(count, first)| format!("{count} like {first}"))
                .collect();
            panic!(
                "{}: {} of {} cases failed, {} kinds:\n{}",
                self.reader,
                self.failed,
                self.cases,
                self.failures.len(),
                shown.join("\n")
            );
        }
    }
}

/// Where the last panic was, as the hook saw it.
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Panics are expected and caught: the hook records where, instead of printing a backtrace.
fn quiet_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let at = info.location().map(|l| l.to_string()).unwrap_or_default();
            // Panics of the tests themselves (their assertions) are printed as usual.
            if at.contains("tests/fuzz.rs") {
                default(info);
            }
            *LAST_PANIC.lock().unwrap() = Some(at);
        }));
    });
}

/// The scratch folder of this run.
fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpusearch-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Removes the scratch folders of the test `test` (after it passed), and the scratch folder
/// once it is empty (the inputs of failures stay).
fn clean(test: &str) {
    let root = scratch();
    for entry in std::fs::read_dir(&root).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == test || name.starts_with(&format!("{test}-")) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
    let _ = std::fs::remove_dir(root);
}

/// A fresh, empty scratch subfolder.
fn folder(name: &str) -> PathBuf {
    let dir = scratch().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn puzzle_file(name: &str) -> String {
    let path = format!("{}/puzzles/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A small twisty definition: two sets, orientations, identical pieces and a rotation.
const TINY_TWISTY: &str = "# two sets\nName Tiny\nSet A 3 2\nSet B 2 1\n\nSolved\nA\n1 1 2\n0 0 1\nEnd\n\nMove X\nA\n2 3 1\n1 0 0\nEnd\nMove Y\nB\n2 1\nEnd\nMove x\nA\n2 3 1\nB\n2 1\nEnd\n";

/// A small definition in the 0-based forms.
const TINY_STATE_FORM: &str = "Set A 4 3\nSet B 3 1\nStartState\nA\n0 1 2 3\n0 0 0 0\nB\n0 0 1\nEnd\nMoveTransformation M\nA\n1 2 3 0\n2 0 1 0\nEnd\nMoveTransformation N\nB\n1 2 0\nA\n0 1 3 2\nEnd\n";

const TWS_WORDS: &[&str] = &[
    "Name",
    "Set",
    "Solved",
    "StartState",
    "Move",
    "MoveTransformation",
    "End",
    "Illegal",
    "MoveSequence",
    "?",
    "#",
    "x",
    "y2",
    "Uv",
    "PIECES",
    "CORNERS",
    "A",
    "B",
    "F",
];

/// The decimal logarithm of the largest table a definition could need: each set's
/// arrangements times its orientations. Building the puzzle of the 2x2x2 cube (8.4) or the
/// Skewb (11.3) takes a few tenths of a second in a debug build.
fn log_size(def: &format::TwistyDefinition) -> f64 {
    let mut log = 0.0f64;
    for s in &def.sets {
        log += (1..=s.count).map(|k| (k as f64).log10()).sum::<f64>();
        log += s.count as f64 * (s.orientations as f64).log10();
    }
    log
}

/// `.tws` definitions: `format::read`, then the build that `--puzzle perm --def FILE` does: of
/// every definition read whose table would be small, of one in ten of those up to the Skewb's
/// size (more would take too long), and of none larger.
#[test]
fn fuzz_tws_definitions() {
    let seeds = [
        puzzle_file("cube-2x2x2.tws"),
        puzzle_file("skewb.tws"),
        puzzle_file("turnstyle-8.tws"),
        puzzle_file("pyraminx.tws"),
        TINY_TWISTY.to_string(),
        TINY_STATE_FORM.to_string(),
    ];
    let donors: Vec<&str> = seeds.iter().map(String::as_str).collect();
    let dir = folder("tws");
    let path = dir.join("def.tws");
    let file = path.display().to_string();
    let mut read = Tally::new("tws-read");
    let mut built = Tally::new("tws-build");
    let mut too_large = 0u64;
    for case in 0..cases() {
        let mut rng = Rng::of("tws", case);
        let good = *rng.pick(&donors);
        let text = mutate_text(&mut rng, good, TWS_WORDS, &donors);
        // The place: the file and a line (`FILE:LINE:COLUMN:`), or the file for what concerns
        // the whole definition.
        let names_line = |m: &str| m.starts_with(&format!("{file}:"));
        let mut def = None;
        read.case(
            case,
            text.as_bytes(),
            || match format::read(&text, &file) {
                Ok(d) => {
                    def = Some(d);
                    Outcome::Accepted
                }
                Err(e) => Outcome::Rejected(e),
            },
            names_line,
        );
        let Some(def) = def else { continue };
        let log = log_size(&def);
        if log > 12.0 || (log > 6.0 && case % 10 != 0) {
            too_large += 1;
            continue;
        }
        std::fs::write(&path, &text).unwrap();
        let metric = if rng.chance(50) { "htm" } else { "qtm" };
        let request = Request::new("perm")
            .with("def", &file)
            .with("metric", metric);
        built.case(
            case,
            text.as_bytes(),
            || match registry::space(&request) {
                Ok(_) => Outcome::Accepted,
                Err(e) => Outcome::Rejected(e.to_string()),
            },
            |m| m.contains(&file),
        );
    }
    eprintln!("fuzz tws-build: {too_large} definitions read were not built (large)");
    read.finish();
    built.finish();
    clean("tws");
}

/// `--gens`: `parse::generators`, then the build of `--puzzle perm --gens TEXT`.
#[test]
fn fuzz_gens() {
    let seeds = [
        "(1,2)(3,4); (1,2,3,4,5)",
        "(1,2,3); (3,4,5,6,7)",
        " ( 1 , 3 ) ",
        "(1,2,3,4,5,6,7,8)(9,10); (2,3)",
        "(1,2);(2,3);(3,4);(4,5)",
        "()(1,2)",
        "Group([ (1,2,3), (1,2) ])",
        "[ (1,2)(3,4),\n (2,3) ]",
    ];
    let words = &[
        "(", ")", ",", ";", "()", "(1,2)", "(255,1)", "(0)", "Group(", "[", "]", "\n",
    ];
    let mut read = Tally::new("gens-read");
    let mut built = Tally::new("gens-build");
    for case in 0..cases() {
        let mut rng = Rng::of("gens", case);
        let good = *rng.pick(&seeds);
        let text = mutate_text(&mut rng, good, words, &seeds);
        // A column, or the generators as a whole (the family names the option: --gens).
        let names_place =
            |m: &str| m.contains("column") || m.contains("gens") || m.contains("generators");
        let mut parsed = false;
        read.case(
            case,
            text.as_bytes(),
            || match parse::generators(&text) {
                Ok(_) => {
                    parsed = true;
                    Outcome::Accepted
                }
                Err(e) => Outcome::Rejected(e),
            },
            names_place,
        );
        if !parsed && !rng.chance(20) {
            continue;
        }
        let metric = *rng.pick(&["gens", "gens", "htm", "qtm"]);
        let mut request = Request::new("perm")
            .with("gens", &text)
            .with("metric", metric);
        // One way only (a directed graph), with any metric: only gens is taken.
        if rng.chance(30) {
            request = request.with("directed", "true");
        }
        built.case(
            case,
            text.as_bytes(),
            || match registry::space(&request) {
                Ok(_) => Outcome::Accepted,
                Err(e) => Outcome::Rejected(e.to_string()),
            },
            names_place,
        );
    }
    read.finish();
    built.finish();
}

/// `--start`: the build of `--puzzle perm --gens ... --start TEXT` (labels that repeat or not,
/// one way or both), then positions read and ranked in the space built, as `solve --state`
/// reads them.
#[test]
fn fuzz_start() {
    let seeds = [
        ("(1,2,3,4,5,6,7,8); (1,2)", "00001111"),
        ("(1,2,3,4,5,6); (1,4)(2,3)", "0 1 0 1 0 1"),
        ("(1,2,3,4,5); (1,2)", "[3, 1, 2, 5, 4]"),
        ("(1,2,3); (4,5,6)", "7,7,9,9,8,8"),
        ("(1,2,3,4,5,6,7); (1,2)", "0 0 1 1 2 2 2"),
    ];
    let words = &[
        "0",
        "1",
        " ",
        ",",
        "[",
        "]",
        "99",
        "4294967296",
        "-1",
        "x",
        "0000",
    ];
    let donors: Vec<&str> = seeds.iter().map(|(_, s)| *s).collect();
    let mut built = Tally::new("start-build");
    let mut ranked = Tally::new("start-rank");
    for case in 0..cases() {
        let mut rng = Rng::of("start", case);
        let (gens, good) = *rng.pick(&seeds);
        let text = mutate_text(&mut rng, good, words, &donors);
        let mut request = Request::new("perm").with("gens", gens).with("start", &text);
        if rng.chance(30) {
            request = request.with("directed", "true");
        }
        let mut space = None;
        built.case(
            case,
            text.as_bytes(),
            || match registry::space(&request) {
                Ok(s) => {
                    space = Some(s);
                    Outcome::Accepted
                }
                Err(e) => Outcome::Rejected(e.to_string()),
            },
            |m| m.contains("start"),
        );
        let Some(space) = space else { continue };
        let position = mutate_text(&mut rng, good, words, &donors);
        ranked.case(
            case,
            position.as_bytes(),
            || space.visit(RankOf(&position)),
            |m| m.contains("position") || m.contains("state") || m.contains("label"),
        );
    }
    built.finish();
    ranked.finish();
}

/// A position read and ranked in a space, as `solve --state` does.
struct RankOf<'a>(&'a str);

impl Visit for RankOf<'_> {
    type Output = Outcome;
    fn on<S: StateSpace>(self, space: &S) -> Outcome {
        match space.parse_state(self.0).and_then(|s| space.rank(&s)) {
            Ok(r) if r < space.size() => Outcome::Accepted,
            Ok(r) => panic!("rank {r} beyond the table of {}", space.size()),
            Err(e) => Outcome::Rejected(e),
        }
    }
}

/// A file of named generators as GAP states them: `parse::gap_file`, its line and column named.
#[test]
fn fuzz_gap_file() {
    let seeds = [
        "M_L:=(1,2,3,4,5);\nM_X:=(1,2);\nGen:=[M_L,M_X];\n",
        "# comment\nA := (1,2)(3,4);\nB:=(1,\n 3);\nip:=[[1,2],[3]];\n",
    ];
    let words = &[
        "M_", ":=", ";", "(", ")", ",", "#", "\n", "[", "]", "(1,2)", "Gen:=[];",
    ];
    let mut read = Tally::new("gap-read");
    for case in 0..cases() {
        let mut rng = Rng::of("gap", case);
        let good = *rng.pick(&seeds);
        let text = mutate_text(&mut rng, good, words, &seeds);
        read.case(
            case,
            text.as_bytes(),
            || match parse::gap_file(&text) {
                Ok(_) => Outcome::Accepted,
                Err(e) => Outcome::Rejected(e),
            },
            |m: &str| m.contains("line") || m.contains("generator"),
        );
    }
    read.finish();
}

/// The Free the Key file: `Key::parse`, and the build of `--puzzle key --def FILE`.
#[test]
fn fuzz_key_file() {
    let seeds = [
        puzzle_file("free-the-key.txt"),
        "above 0 1\nbelow 1 0\ndisk 1 1\n".to_string(),
        "# c\n  above 0 2 1\n\tbelow 0 0 0\ndisk 2 0 1 3\nstart 2 3\n".to_string(),
    ];
    let donors: Vec<&str> = seeds.iter().map(String::as_str).collect();
    let words = &["above", "below", "disk", "start", "#", "0", "4", "255"];
    let dir = folder("key");
    let path = dir.join("key.txt");
    let file = path.display().to_string();
    let mut read = Tally::new("key-read");
    let mut built = Tally::new("key-build");
    for case in 0..cases() {
        let mut rng = Rng::of("key", case);
        let good = *rng.pick(&donors);
        let text = mutate_text(&mut rng, good, words, &donors);
        read.case(
            case,
            text.as_bytes(),
            || match Key::parse(&text, &file, "key") {
                Ok(_) => Outcome::Accepted,
                Err(e) => Outcome::Rejected(e),
            },
            |m| m.starts_with(&format!("{file}:")),
        );
        if case % 10 == 0 {
            std::fs::write(&path, &text).unwrap();
            let request = Request::new("key").with("def", &file);
            built.case(
                case,
                text.as_bytes(),
                || match registry::space(&request) {
                    Ok(_) => Outcome::Accepted,
                    Err(e) => Outcome::Rejected(e.to_string()),
                },
                |m| m.starts_with(&format!("{file}:")),
            );
        }
    }
    read.finish();
    built.finish();
    clean("key");
}

/// A small puzzle whose distances file and checkpoints are mutated: its request, and a
/// position to solve (moves from solved).
#[derive(Clone)]
struct Base {
    name: &'static str,
    request: Request,
    moves: &'static str,
}

/// The bases, with the files they need in the folder of the test `test` (tests run at once).
fn bases(test: &str) -> Vec<Base> {
    let tiny = folder(&format!("{test}-bases")).join("tiny.tws");
    std::fs::write(&tiny, TINY_TWISTY).unwrap();
    vec![
        Base {
            name: "turnstyle-7",
            request: Request::new("turnstyle").with("n", 7),
            moves: "",
        },
        Base {
            name: "rings-8",
            request: Request::new("rings").with("n", 8),
            moves: "",
        },
        Base {
            name: "key",
            request: Request::new("key").with(
                "def",
                format!("{}/puzzles/free-the-key.txt", env!("CARGO_MANIFEST_DIR")),
            ),
            moves: "R R",
        },
        Base {
            name: "tiny-twisty",
            request: Request::new("perm")
                .with("def", tiny.display())
                .with("metric", "htm"),
            moves: "X Y",
        },
        Base {
            name: "gens",
            request: Request::new("perm").with("gens", "(1,2,3); (3,4,5,6)"),
            moves: "g1 g2",
        },
        Base {
            name: "burnt-pancake-5",
            request: Request::new("pancake").with("n", 5).with("burnt", true),
            moves: "3 1",
        },
    ]
}

fn job(request: &Request, out: &Path) -> Job {
    Job {
        puzzle: request.clone(),
        out: Some(out.to_path_buf()),
        threads: Some(1),
        quiet: true,
        backend: Backend::Cpu,
        gpu_window_bytes: None,
        gpu_memory: None,
        resume: false,
        checkpoint_every: None,
        memory: Some(1 << 30),
        ..Job::default()
    }
}

/// The distances file of each base, searched once a test, and the same file rewritten in
/// chunks of `chunk_entries` entries (several chunks even for a small table).
fn distances_files(test: &str) -> Vec<(Base, Vec<u8>)> {
    let mut files = Vec::new();
    for base in bases(test) {
        let out = folder(&format!("{test}-{}", base.name));
        job::run(&job(&base.request, &out)).unwrap_or_else(|e| panic!("{}: {e}", base.name));
        let bytes = std::fs::read(out.join("distances.gsd")).unwrap();
        files.push((base, bytes));
    }
    let rechunked: Vec<(Base, Vec<u8>)> = (files.iter())
        .map(|(base, bytes)| (base.clone(), rechunk(bytes, 256)))
        .collect();
    files.extend(rechunked);
    files
}

/// A distances file's preamble, header (as JSON) and body.
fn split(bytes: &[u8]) -> (Value, &[u8]) {
    let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let header = serde_json::from_slice(&bytes[16..16 + len]).unwrap();
    (header, &bytes[16 + len..])
}

/// A file of `magic` and `version` with `header` (and its length).
fn join(magic: &[u8], version: u32, header: &Value, body: &[u8]) -> Vec<u8> {
    let json = serde_json::to_vec_pretty(header).unwrap();
    let mut out = magic.to_vec();
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(&json);
    out.extend_from_slice(body);
    out
}

/// The uncompressed table of a distances file.
fn table_bytes(bytes: &[u8]) -> Vec<u8> {
    let (header, mut body) = split(bytes);
    let mut table = Vec::new();
    for chunk in header["chunks"].as_array().unwrap() {
        let n = chunk["compressed_bytes"].as_u64().unwrap() as usize;
        table.extend(zstd::stream::decode_all(&body[..n]).unwrap());
        body = &body[n..];
    }
    table
}

/// The chunks of `table` of `chunk_entries` entries each: the frames, and their list.
fn frames(table: &[u8], chunk_entries: usize) -> (Vec<u8>, Value) {
    let mut body = Vec::new();
    let mut list = Vec::new();
    for raw in table.chunks(chunk_entries / 4) {
        let frame = zstd::bulk::compress(raw, 1).unwrap();
        let sha: String = Sha256::digest(raw)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        list.push(serde_json::json!({"compressed_bytes": frame.len(), "sha256": sha}));
        body.extend(frame);
    }
    (body, Value::Array(list))
}

/// The distances file `bytes` written again in chunks of `chunk_entries` entries.
fn rechunk(bytes: &[u8], chunk_entries: usize) -> Vec<u8> {
    let table = table_bytes(bytes);
    let (mut header, _) = split(bytes);
    let (body, list) = frames(&table, chunk_entries);
    header["chunk_entries"] = chunk_entries.into();
    header["chunks"] = list;
    join(store::MAGIC, store::VERSION, &header, &body)
}

/// JSON values a mutation puts in place of another.
fn odd_value(rng: &mut Rng, old: &Value) -> Value {
    use serde_json::json;
    let n = old.as_u64().unwrap_or(7);
    match rng.below(22) {
        0 => json!(0),
        1 => json!(1),
        2 => json!(-1),
        3 => json!(u64::MAX),
        4 => json!(1u64 << 60),
        5 => json!(1u64 << 40),
        6 => json!(1u64 << 32),
        7 => json!(n.saturating_add(1)),
        8 => json!(n.saturating_sub(1)),
        9 => json!(n.saturating_mul(2)),
        10 => json!(n / 2),
        11 => json!(1.5),
        12 => json!(null),
        13 => json!("a\nb"),
        14 => json!(""),
        15 => json!([]),
        16 => json!({}),
        17 => json!([u64::MAX, 0, 1]),
        18 => json!([{"count": u64::MAX, "repeat": 3}]),
        19 => json!("x".repeat(rng.below(100))),
        20 => json!(true),
        _ => match old {
            Value::Array(a) if !a.is_empty() => {
                let mut a = a.clone();
                match rng.below(3) {
                    0 => {
                        a.pop();
                    }
                    1 => a.push(a[0].clone()),
                    _ => a.reverse(),
                }
                Value::Array(a)
            }
            Value::String(s) => Value::String(format!("{s}\u{2028}{s}")),
            other => other.clone(),
        },
    }
}

/// A random value inside `value` (itself included) replaced by an odd one, or a key of an
/// object removed or added.
fn mutate_json(rng: &mut Rng, value: &mut Value) {
    let descend = rng.chance(70);
    match value {
        Value::Object(map) if descend && !map.is_empty() => {
            let key = map.keys().nth(rng.below(map.len())).unwrap().clone();
            match rng.below(10) {
                0 => {
                    map.remove(&key);
                }
                1 => {
                    let copy = map[&key].clone();
                    map.insert(format!("{key}_"), copy);
                }
                _ => mutate_json(rng, map.get_mut(&key).unwrap()),
            }
        }
        Value::Array(items) if descend && !items.is_empty() => {
            let i = rng.below(items.len());
            mutate_json(rng, &mut items[i]);
        }
        _ => *value = odd_value(rng, value),
    }
}

/// Mutates a file of `magic` and the preamble and JSON header that follow (a distances file or
/// a checkpoint): bytes, lengths, fields of its header (and of the trailer `trailer` finds, a
/// checkpoint's chunk list).
fn mutate_file(rng: &mut Rng, bytes: &[u8], checkpoint: bool) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let count = 1 + rng.below(3);
    for _ in 0..count {
        let len = out.len();
        let header_end = if len >= 16 {
            (16 + u32::from_le_bytes(out[12..16].try_into().unwrap()) as usize).min(len)
        } else {
            len
        };
        match rng.below(12) {
            // Bits and bytes, mostly in the preamble and header.
            0 | 1 if len > 0 => {
                let at = if rng.chance(60) {
                    rng.below(header_end.max(1))
                } else {
                    rng.below(len)
                };
                if rng.chance(50) {
                    out[at] ^= 1 << rng.below(8);
                } else {
                    let random = rng.next() as u8;
                    out[at] = *rng.pick(&[0, 0xff, b'"', b'9', b'-', b'{', b'\n', random]);
                }
            }
            2 => out.truncate(rng.below(len + 1)),
            3 => {
                let extra = rng.below(64);
                let fill = rng.next() as u8;
                out.extend(std::iter::repeat_n(fill, extra));
            }
            4 if len > 0 => {
                let at = rng.below(len);
                let end = (at + 1 + rng.below(32)).min(len);
                out.drain(at..end);
            }
            5 => {
                let at = rng.below(len + 1);
                let piece: Vec<u8> = (0..1 + rng.below(16)).map(|_| rng.next() as u8).collect();
                out.splice(at..at, piece);
            }
            // The version or the header's length.
            6 if len >= 16 => {
                let field = if rng.chance(30) { 8 } else { 12 };
                let old = u32::from_le_bytes(out[field..field + 4].try_into().unwrap());
                let shift = 1 << rng.below(32);
                let new = *rng.pick(&[
                    0,
                    1,
                    2,
                    3,
                    u32::MAX,
                    old.wrapping_add(1),
                    old.wrapping_sub(1),
                    old.wrapping_add(shift),
                    len as u32,
                ]);
                out[field..field + 4].copy_from_slice(&new.to_le_bytes());
            }
            // A field of the header; in a checkpoint, half the time with its SHA-256 made
            // again (a forger's edit, which only the checks behind the checksum can refuse).
            7..=9 => {
                if let Some(mutated) = mutate_header(rng, &out) {
                    out = if checkpoint && rng.chance(50) {
                        reseal(&mutated)
                    } else {
                        mutated
                    };
                }
            }
            // A field of a checkpoint's chunk list, or its length.
            _ if checkpoint => {
                if let Some(mutated) = mutate_trailer(rng, &out) {
                    out = mutated;
                }
            }
            _ => {
                if let Some(mutated) = mutate_header(rng, &out) {
                    out = mutated;
                }
            }
        }
    }
    out
}

/// A checkpoint whose header's SHA-256 is made again for the header it holds (other files, and
/// checkpoints too short to hold one, are returned as they are).
fn reseal(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    if bytes.len() >= 16 && bytes[..8] == store::CHECKPOINT_MAGIC[..] {
        let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
        if let Some(sha) = out.get_mut(16 + len..16 + len + 32) {
            sha.copy_from_slice(&Sha256::digest(&bytes[16..16 + len]));
        }
    }
    out
}

/// Whether `bytes` holds another header than `good` with a SHA-256 that matches it: a forged
/// checkpoint, not a damaged one.
fn forged(good: &[u8], bytes: &[u8]) -> bool {
    let header = |b: &[u8]| -> Option<Vec<u8>> {
        let len = u32::from_le_bytes(b.get(12..16)?.try_into().ok()?) as usize;
        b.get(16..16 + len).map(<[u8]>::to_vec)
    };
    header(bytes) != header(good) && reseal(bytes) == bytes
}

/// The file with a field of its JSON header mutated (its length kept right, mostly).
fn mutate_header(rng: &mut Rng, bytes: &[u8]) -> Option<Vec<u8>> {
    if bytes.len() < 16 {
        return None;
    }
    let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let json = bytes.get(16..16 + len)?;
    let mut header: Value = serde_json::from_slice(json).ok()?;
    mutate_json(rng, &mut header);
    let new = serde_json::to_vec_pretty(&header).unwrap();
    let mut out = bytes[..16].to_vec();
    let stated = if rng.chance(90) { new.len() } else { len };
    out[12..16].copy_from_slice(&(stated as u32).to_le_bytes());
    out.extend_from_slice(&new);
    out.extend_from_slice(&bytes[16 + len..]);
    Some(out)
}

/// The checkpoint with a field of its chunk list mutated, or that list's length.
fn mutate_trailer(rng: &mut Rng, bytes: &[u8]) -> Option<Vec<u8>> {
    let len = bytes.len();
    if len < 32 {
        return None;
    }
    let trailer_len = u64::from_le_bytes(bytes[len - 16..len - 8].try_into().unwrap());
    let start = (len as u64 - 16).checked_sub(trailer_len)? as usize;
    let mut out = bytes[..start].to_vec();
    if rng.chance(25) {
        let stated = *rng.pick(&[
            0,
            1,
            u64::MAX,
            trailer_len + 1,
            trailer_len.saturating_sub(1),
            len as u64,
            1 << 40,
        ]);
        out.extend_from_slice(&bytes[start..len - 16]);
        out.extend_from_slice(&stated.to_le_bytes());
        out.extend_from_slice(&bytes[len - 8..]);
        return Some(out);
    }
    let mut list: Value = serde_json::from_slice(&bytes[start..len - 16]).ok()?;
    mutate_json(rng, &mut list);
    let new = serde_json::to_vec(&list).unwrap();
    out.extend_from_slice(&new);
    out.extend_from_slice(&(new.len() as u64).to_le_bytes());
    out.extend_from_slice(&bytes[len - 8..]);
    Some(out)
}

/// The rejections of a file's readers name its path.
fn names_path(path: &Path) -> impl Fn(&str) -> bool {
    let shown = path.display().to_string();
    move |m: &str| m.contains(&shown)
}

/// Distances files: `store::read`.
#[test]
fn fuzz_distances_read() {
    let files = distances_files("read");
    let dir = folder("read");
    let path = dir.join("distances.gsd");
    let mut tally = Tally::new("distances-read");
    for case in 0..cases() {
        let mut rng = Rng::of("distances-read", case);
        let (_, good) = rng.pick(&files);
        let bytes = mutate_file(&mut rng, good, false);
        std::fs::write(&path, &bytes).unwrap();
        tally.case(
            case,
            &bytes,
            || match store::read(&path) {
                Ok(_) => Outcome::Accepted,
                Err(e) => Outcome::Rejected(e),
            },
            names_path(&path),
        );
    }
    tally.finish();
    clean("read");
}

/// Distances files: `verify::run` (within a memory budget, as `gpusearch verify --memory`).
#[test]
fn fuzz_verify() {
    let files = distances_files("verify");
    let dir = folder("verify");
    let path = dir.join("distances.gsd");
    let mut tally = Tally::new("verify");
    for case in 0..cases() {
        let mut rng = Rng::of("verify", case);
        let (_, good) = rng.pick(&files);
        let bytes = mutate_file(&mut rng, good, false);
        std::fs::write(&path, &bytes).unwrap();
        tally.case(
            case,
            &bytes,
            || match verify::run(&path, Some(1 << 30), true) {
                Ok(_) => Outcome::Accepted,
                Err(failure) => Outcome::Rejected(failure.to_string()),
            },
            names_path(&path),
        );
    }
    tally.finish();
    clean("verify");
}

/// Distances files: `solve::run`, which reads the file in its output folder.
#[test]
fn fuzz_solve() {
    let files = distances_files("solve");
    let dir = folder("solve");
    let path = dir.join("distances.gsd");
    let mut tally = Tally::new("solve");
    for case in 0..cases() {
        let mut rng = Rng::of("solve", case);
        let (base, good) = rng.pick(&files);
        let bytes = mutate_file(&mut rng, good, false);
        std::fs::write(&path, &bytes).unwrap();
        let request = &base.request;
        let solve = solve::Solve {
            job: job(request, &dir),
            position: solve::Position::Moves(base.moves.into()),
            moves_only: true,
        };
        tally.case(
            case,
            &bytes,
            || match solve::run(&solve) {
                Ok(s) if s.searched => Outcome::Rejected("searched instead of reading".into()),
                Ok(_) => Outcome::Accepted,
                Err(e) => Outcome::Rejected(e.to_string()),
            },
            names_path(&path),
        );
    }
    tally.finish();
    clean("solve");
}

/// [`checkpoints_of`] a space of any family.
struct CheckpointsOf;

impl Visit for CheckpointsOf {
    type Output = Vec<(Vec<u8>, Levels)>;
    fn on<S: StateSpace>(self, space: &S) -> Self::Output {
        checkpoints_of(space)
    }
}

/// Checkpoint files of each base after a few of its levels, and what the finished search
/// finds (to tell a resumed search that gives another result).
fn checkpoint_files() -> Vec<(Base, Vec<u8>, Levels)> {
    let mut files = Vec::new();
    for base in bases("resume") {
        let checkpoints = registry::space(&base.request).unwrap().visit(CheckpointsOf);
        for (bytes, levels) in checkpoints {
            files.push((base.clone(), bytes, levels));
        }
    }
    files
}

/// Checkpoints of a search of `space` after a few of its levels, each with the levels of the
/// whole search.
fn checkpoints_of<S: StateSpace>(space: &S) -> Vec<(Vec<u8>, Levels)> {
    let kept = Every::default();
    let options = Options::default();
    let engine = CpuEngine::new(space, options.footprint, options.antipode_limit);
    let done = search_on(space, engine, &options, Some(&kept), None).unwrap();
    let saved = kept.0.into_inner().unwrap();
    let info = space.info();
    let step = saved.len().div_ceil(3).max(1);
    (saved.iter().step_by(step))
        .map(|(words, levels, antipodes)| {
            let table = DistanceTable::from_words(space.size(), words.clone());
            let mut bytes = Vec::new();
            let (whole, saving) = ((&info, space.size()), Saving::Table(&table));
            store::write_checkpoint(
                &mut bytes,
                whole,
                None,
                (levels, None),
                1.5,
                antipodes,
                saving,
            )
            .unwrap();
            (bytes, done.levels.clone())
        })
        .collect()
}

/// Checkpoints: `job::run` with `--resume`, which opens the checkpoint in the output folder,
/// checks it against the puzzle and goes on from it. A damaged checkpoint that is accepted
/// gives the search's own levels (the header's SHA-256 refuses every edit of it). A forged one
/// (its header edited and its SHA-256 made again) may go on to other levels: its antipodes, the
/// last level's smallest ranks the search goes on from, edited to other ranks in the table. The
/// test counts those; it does not fail on them.
#[test]
fn fuzz_resume() {
    let files = checkpoint_files();
    let dir = folder("resume");
    let path = dir.join(job::CHECKPOINT);
    let mut tally = Tally::new("resume");
    // The accepted checkpoints that went on to other levels, by the header fields changed.
    let mut differ = std::collections::BTreeMap::<String, u64>::new();
    for case in 0..cases() {
        let mut rng = Rng::of("resume", case);
        let (base, good, levels) = rng.pick(&files);
        let bytes = mutate_file(&mut rng, good, true);
        for entry in std::fs::read_dir(&dir).unwrap() {
            let _ = std::fs::remove_file(entry.unwrap().path());
        }
        std::fs::write(&path, &bytes).unwrap();
        let mut resume = job(&base.request, &dir);
        resume.resume = true;
        tally.case(
            case,
            &bytes,
            || match job::run(&resume) {
                Ok(done) => {
                    if done.report.levels.levels() != *levels {
                        assert!(
                            forged(good, &bytes),
                            "case {case}: a damaged checkpoint went on to other levels"
                        );
                        *differ.entry(changed_fields(good, &bytes)).or_default() += 1;
                    }
                    Outcome::Accepted
                }
                Err(e) => Outcome::Rejected(e.to_string()),
            },
            names_path(&path),
        );
    }
    eprintln!(
        "fuzz resume: {} accepted forged checkpoints gave other levels than the search; by the header fields changed: {differ:?}",
        differ.values().sum::<u64>()
    );
    tally.finish();
    clean("resume");
}

/// The top-level fields of the JSON header that differ between two files.
fn changed_fields(a: &[u8], b: &[u8]) -> String {
    let header = |bytes: &[u8]| -> Option<serde_json::Map<String, Value>> {
        let len = u32::from_le_bytes(bytes.get(12..16)?.try_into().ok()?) as usize;
        serde_json::from_slice(bytes.get(16..16 + len)?).ok()
    };
    let (Some(a), Some(b)) = (header(a), header(b)) else {
        return "unreadable".into();
    };
    let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let changed: Vec<&str> = (keys.into_iter())
        .filter(|k| a.get(*k) != b.get(*k))
        .map(String::as_str)
        .collect();
    changed.join("+")
}

/// `bytes` (a distances file or a checkpoint) with its JSON header edited by `edit` (a
/// checkpoint's SHA-256 made again, so that the checks behind it are what refuse the edit).
fn edited_header(bytes: &[u8], edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let mut header: Value = serde_json::from_slice(&bytes[16..16 + len]).unwrap();
    edit(&mut header);
    reseal(&join(
        &bytes[..8],
        u32::from_le_bytes(bytes[8..12].try_into().unwrap()),
        &header,
        &bytes[16 + len..],
    ))
}

/// The checkpoint `bytes` with its chunk list edited by `edit`.
fn edited_trailer(bytes: &[u8], edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let len = bytes.len();
    let trailer_len = u64::from_le_bytes(bytes[len - 16..len - 8].try_into().unwrap()) as usize;
    let start = len - 16 - trailer_len;
    let mut list: Value = serde_json::from_slice(&bytes[start..len - 16]).unwrap();
    edit(&mut list);
    let new = serde_json::to_vec(&list).unwrap();
    let mut out = bytes[..start].to_vec();
    out.extend_from_slice(&new);
    out.extend_from_slice(&(new.len() as u64).to_le_bytes());
    out.extend_from_slice(&bytes[len - 8..]);
    out
}

/// A rejection: one line that names `place`.
fn refused(what: &str, result: Result<(), String>, place: &str) {
    let e = result.expect_err(what);
    assert!(!multi_line(&e), "{what}: several lines: {e:?}");
    assert!(e.contains(place), "{what}: does not name {place}: {e:?}");
}

/// The inputs that failed before the readers were fixed, each refused on one line now.
#[test]
fn what_fuzzing_found_is_refused_on_one_line() {
    let turnstyle = Request::new("turnstyle").with("n", 7);
    let out = folder("found");
    job::run(&job(&turnstyle, &out)).unwrap();
    let good = std::fs::read(out.join("distances.gsd")).unwrap();
    let dir = folder("found-files");
    let path = dir.join("distances.gsd");
    let shown = path.display().to_string();
    let read = |bytes: &[u8]| {
        std::fs::write(&path, bytes).unwrap();
        store::read(&path).map(|_| ())
    };
    let verify = |bytes: &[u8]| {
        std::fs::write(&path, bytes).unwrap();
        match verify::run(&path, Some(1 << 30), true) {
            Ok(_) => Ok(()),
            Err(failure) => Err(failure.to_string()),
        }
    };
    let solve = |bytes: &[u8]| {
        std::fs::write(&path, bytes).unwrap();
        let solve = solve::Solve {
            job: job(&turnstyle, &dir),
            position: solve::Position::Moves("L F".into()),
            moves_only: true,
        };
        solve::run(&solve).map(|_| ()).map_err(|e| e.to_string())
    };
    assert!(read(&good).is_ok() && verify(&good).is_ok() && solve(&good).is_ok());

    // store::read said what was wrong but not with which file.
    refused("cut short", read(&good[..40]), &shown);
    // A chunk's length near 2^64 overflowed the sum of the lengths (a panic).
    let huge_chunk = edited_header(&good, |h| {
        h["chunks"][0]["compressed_bytes"] = u64::MAX.into()
    });
    refused("read: huge chunk", read(&huge_chunk), &shown);
    refused("verify: huge chunk", verify(&huge_chunk), &shown);
    refused("solve: huge chunk", solve(&huge_chunk), &shown);
    // Level counts whose sum overflows (a panic in verify), or that hold more states than the
    // table has.
    for levels in [
        serde_json::json!([u64::MAX, 3]),
        serde_json::json!([1, 6000]),
    ] {
        let bad = edited_header(&good, |h| h["levels"] = levels.clone());
        refused("read: levels", read(&bad), &shown);
        refused("verify: levels", verify(&bad), &shown);
    }
    // A table of 2^60 entries in one chunk of 2^60 entries: store::read tried to allocate it
    // (a panic: 2^58 bytes) before reading a chunk.
    let vast = edited_header(&good, |h| {
        h["entries"] = (1u64 << 60).into();
        h["chunk_entries"] = (1u64 << 60).into();
    });
    refused("read: vast", read(&vast), &shown);
    refused("solve: vast", solve(&vast), &shown);
    // Names in the header were quoted as they were, line breaks included.
    for name in ["a\nb", "turnstyle\u{2028}turnstyle"] {
        let renamed = edited_header(&good, |h| h["puzzle"] = name.into());
        refused("verify: puzzle name", verify(&renamed), &shown);
        refused("solve: puzzle name", solve(&renamed), &shown);
        let metric = edited_header(&good, |h| h["metric"] = name.into());
        refused("verify: metric", verify(&metric), &shown);
    }

    // Checkpoints: the header's levels and antipodes were trusted by the search (panics).
    let checkpoint = checkpoints_of(
        &gpusearch::puzzle::Ring::turnstyle(7, gpusearch::puzzle::Metric::Lrf).unwrap(),
    );
    let good = &checkpoint[checkpoint.len() / 2].0;
    let dir = folder("found-resume");
    let path = dir.join(job::CHECKPOINT);
    let shown = path.display().to_string();
    let resume = |bytes: &[u8]| {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let _ = std::fs::remove_file(entry.unwrap().path());
        }
        std::fs::write(&path, bytes).unwrap();
        let mut resume = job(&turnstyle, &dir);
        resume.resume = true;
        job::run(&resume).map(|_| ()).map_err(|e| e.to_string())
    };
    assert!(resume(good).is_ok());
    type Edit = Box<dyn Fn(&mut Value)>;
    let cases: [(&str, Edit); 7] = [
        (
            "no levels",
            Box::new(|h| drop(h.as_object_mut().unwrap().remove("levels"))),
        ),
        (
            "levels past the table",
            Box::new(|h| h["levels"] = serde_json::json!([1, 3, 6000])),
        ),
        (
            "levels overflow",
            Box::new(|h| h["levels"] = serde_json::json!([1, u64::MAX, 2])),
        ),
        (
            "antipode past the table",
            Box::new(|h| h["antipodes"] = serde_json::json!([99_999])),
        ),
        (
            "negative seconds",
            Box::new(|h| h["seconds"] = (-1.0).into()),
        ),
        (
            // A search from them found more states than the table has room for (a panic).
            "levels that do not count the table",
            Box::new(|h| {
                let levels = h["levels"].as_array_mut().unwrap();
                let last = levels.last_mut().unwrap();
                *last = (last.as_u64().unwrap() + 200).into();
            }),
        ),
        (
            "puzzle name",
            Box::new(|h| h["puzzle"] = "turnstyle\u{2028}turnstyle".into()),
        ),
    ];
    for (what, edit) in cases {
        refused(what, resume(&edited_header(good, edit)), &shown);
    }
    let huge_chunk = edited_trailer(good, |l| l[0]["compressed_bytes"] = u64::MAX.into());
    refused("huge chunk", resume(&huge_chunk), &shown);

    // --gens: the value was quoted as given, line breaks included (a line break in it makes
    // the place a line and a column), and a puzzle too large was refused without naming --gens
    // (and with "255! = inf").
    for (gens, needle) in [
        ("(1,2)\n(2,x)", "line 2, column 4"),
        ("(1,2)\u{2028}(2,x)", "column 10"),
        ("(1,255)", "gens"),
    ] {
        let request = Request::new("perm").with("gens", gens);
        let e = registry::space(&request).err().unwrap().to_string();
        assert!(
            !multi_line(&e) && e.contains(needle) && !e.contains("inf"),
            "{e:?}"
        );
    }
    clean("found");
}
