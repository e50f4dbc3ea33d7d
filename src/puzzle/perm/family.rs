//! The perm family (`--puzzle perm`): a permutation puzzle from generators in cycle notation, or
//! a twisty puzzle from a twsearch definition file (a [`Perm`] where it has one set of distinct
//! pieces without orientations, else a [`Twisty`]).

use super::coset::Coset;
use super::parse::{self, Definition};
use super::{Identity, Inverses, Perm};
use crate::puzzle::family::{self, Family, Given, Kind, Opt, PuzzleError, Run, Sample};
use crate::puzzle::twisty::{self, Naming, Twisty};
use crate::puzzle::{PuzzleInfo, Space};
use crate::setting::Setting;
use std::path::Path;

/// The perm family.
pub struct Permutations;
/// The perm family.
pub const PERM: Permutations = Permutations;

impl Family for Permutations {
    fn name(&self) -> &'static str {
        "perm"
    }

    fn samples(&self) -> &'static [Sample] {
        &[
            Sample {
                options: &[("gens", "(1,2,3,4,5,6,7)(8,9); (1,2)")],
                reaches: "generators: a cycle and a swap",
            },
            Sample {
                options: &[("gens", "(1,2,3,4,5,6,7,8,9); (1,4)(2,3)")],
                reaches: "generators a native family searches: TopSpin as a ring",
            },
            Sample {
                options: &[("gens", "(1,2,3,4,5,6,7,8); (1,2)"), ("directed", "true")],
                reaches: "generators one way only: LX, a directed Cayley graph",
            },
            Sample {
                options: &[
                    ("gens", "(1,2,3,4,5,6,7,8,9,10); (1,2)"),
                    ("start", "0000011111"),
                ],
                reaches: "generators on a start with repeated labels: LRX on binary strings, a coset graph",
            },
            Sample {
                options: &[("def", "puzzles/turnstyle-8.tws")],
                reaches: "a definition file",
            },
        ]
    }

    fn options(&self) -> &'static [Opt] {
        &[
            Opt {
                name: "gens",
                kind: Kind::Text,
                help: "generators in cycle notation, separated by ';', e.g. \"(1,2)(3,4); (1,2,3,4,5)\"",
                default: None,
            },
            Opt {
                name: "def",
                kind: Kind::File,
                help: "a twsearch definition file (.tws)",
                default: None,
            },
            Opt {
                name: "gap",
                kind: Kind::File,
                help: "a file of named generators as GAP states them (NAME := (1,2)(3,4); each, as CayleyPy's puzzle library keeps them)",
                default: None,
            },
            Opt {
                name: "metric",
                kind: Kind::Text,
                help: "with generators: gens (each and its inverse; the default), htm or qtm; with a definition: htm (the default) or qtm",
                default: None,
            },
            Opt {
                name: "start",
                kind: Kind::Text,
                help: "with generators: the position the search starts from, a label for each position (numbers, or a word of digits such as 0011); labels may repeat, and the space is then the orbit of the start (a coset graph)",
                default: None,
            },
            Opt {
                name: "directed",
                kind: Kind::Switch,
                help: "with generators: the generators one way only, without their inverses (a directed Cayley graph; distances run from the start to each position)",
                default: None,
            },
        ]
    }

    fn build(&self, given: &Given) -> Result<Space, PuzzleError> {
        let sources: Vec<&'static str> = (["gens", "def", "gap"].into_iter())
            .filter(|o| given.has(o))
            .collect();
        if let [a, b, ..] = sources[..] {
            return Err(PuzzleError::Together {
                family: given.family(),
                options: [a, b],
            });
        }
        // Generators, from the command line or a file: each with its inverse, or one way.
        let metric = || {
            let metric = given.text("metric").unwrap_or("gens");
            match given.switch("directed") {
                false => checked(metric, &["gens", "htm", "qtm"], "the generators'"),
                true if metric == "gens" => Ok(DIRECTED),
                true => Err(PuzzleError::Value {
                    option: "metric",
                    value: metric.into(),
                    why: format!(
                        "a directed graph's moves are the generators as given: leave out {} with {}",
                        Setting::FamilyOption("metric"),
                        Setting::FamilyOption("directed")
                    ),
                }),
            }
        };
        match sources.first() {
            Some(&"gens") => generators(given.need_text("gens")?, metric()?, given.text("start")),
            Some(&"gap") => {
                let path = given.need_file("gap")?;
                let text = family::read_definition(&path)?;
                let file = path.display().to_string();
                gap(&text, &file, metric()?, given.text("start"))
            }
            // A definition's moves come with their inverses, and its start is its own.
            Some(_) if given.has("directed") || given.has("start") => Err(PuzzleError::Together {
                family: given.family(),
                options: [
                    "def",
                    if given.has("start") {
                        "start"
                    } else {
                        "directed"
                    },
                ],
            }),
            Some(_) => {
                let path = given.need_file("def")?;
                let file = path.display().to_string();
                let text = family::read_definition(&path)?;
                let metric = given.text("metric").unwrap_or("htm");
                definition(&text, &file, metric)
            }
            None => Err(PuzzleError::Missing {
                family: given.family(),
                options: vec![
                    ("gens", Kind::Text),
                    ("def", Kind::File),
                    ("gap", Kind::File),
                ],
            }),
        }
    }

    /// From the definition's own lines (a twsearch definition's or a GAP file's), or the
    /// generators.
    fn rebuild(&self, info: &PuzzleInfo) -> Result<Space, PuzzleError> {
        let p = &info.params;
        let bad = || format!("the file's params do not describe a {} puzzle", info.puzzle);
        let file = (p.get("definition").and_then(|v| v.as_str())).unwrap_or("definition");
        // Each line ends with a newline again, so that the text gives back the same lines (a
        // file ending in a blank line included).
        let text = |lines: &serde_json::Value| -> Result<String, String> {
            let lines: Vec<String> = serde_json::from_value(lines.clone()).map_err(|_| bad())?;
            Ok(lines.iter().map(|l| format!("{l}\n")).collect())
        };
        let start = p.get("start").and_then(|v| v.as_str());
        if let Some(lines) = p.get("gap") {
            return gap(&text(lines)?, file, &info.metric, start);
        }
        if let Some(lines) = p.get("text") {
            return definition(&text(lines)?, file, &info.metric);
        }
        let gens = (p.get("generators").and_then(|v| v.as_str())).ok_or_else(bad)?;
        generators(gens, &info.metric, start)
    }

    /// Generators, a definition or a GAP file, one of the three; the metric's default depends
    /// on which.
    fn usage(&self, flag: &dyn Fn(&str) -> String) -> String {
        family::usage_of(
            self.options(),
            (&["gens", "def", "gap"], &["metric", "directed", "start"]),
            flag,
        )
    }

    fn runs(&self) -> &'static [Run] {
        const fn def(options: &'static [(&'static str, &'static str)]) -> Run {
            Run {
                options,
                large: false,
            }
        }
        const fn large(options: &'static [(&'static str, &'static str)]) -> Run {
            Run {
                options,
                large: true,
            }
        }
        const LRX_16: (&str, &str) = ("gens", "(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16); (1,2)");
        const TOPSPIN_16: (&str, &str) = (
            "gens",
            "(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16); (1,4)(2,3)",
        );
        const LRX_32: (&str, &str) = (
            "gens",
            "(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32); (1,2)",
        );
        const TOPSPIN_32: (&str, &str) = (
            "gens",
            "(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32); (1,4)(2,3)",
        );
        const RUNS: &[Run] = &[
            def(&[("def", "puzzles/cube-2x2x2.tws"), ("metric", "htm")]),
            def(&[("def", "puzzles/cube-2x2x2.tws"), ("metric", "qtm")]),
            def(&[("def", "puzzles/skewb.tws"), ("metric", "htm")]),
            def(&[("def", "puzzles/skewb-diamond.tws"), ("metric", "htm")]),
            def(&[("def", "puzzles/dino.tws"), ("metric", "htm")]),
            def(&[("def", "puzzles/pyraminx.tws"), ("metric", "htm")]),
            // LX (the left shift and the first swap), one way only: a directed Cayley graph.
            def(&[("gens", "(1,2,3,4,5,6,7,8,9); (1,2)"), ("directed", "true")]),
            def(&[
                ("gens", "(1,2,3,4,5,6,7,8,9,10); (1,2)"),
                ("directed", "true"),
            ]),
            def(&[
                ("gens", "(1,2,3,4,5,6,7,8,9,10,11); (1,2)"),
                ("directed", "true"),
            ]),
            // LRX as generators, searched as a ring: the Cayley graph of CayleyPy's tables.
            def(&[("gens", "(1,2,3,4,5,6,7,8,9,10,11); (1,2)")]),
            large(&[("gens", "(1,2,3,4,5,6,7,8,9,10,11,12,13,14); (1,2)")]),
            // LRX and TopSpin on binary strings of half zeros, a block and alternating: coset
            // graphs, beside CayleyPy's growth tables.
            def(&[LRX_16, ("start", "0000000011111111")]),
            def(&[LRX_16, ("start", "0101010101010101")]),
            def(&[TOPSPIN_16, ("start", "0000000011111111")]),
            def(&[TOPSPIN_16, ("start", "0101010101010101")]),
            large(&[LRX_32, ("start", "00000000000000001111111111111111")]),
            large(&[LRX_32, ("start", "01010101010101010101010101010101")]),
            large(&[TOPSPIN_32, ("start", "00000000000000001111111111111111")]),
            large(&[TOPSPIN_32, ("start", "01010101010101010101010101010101")]),
            large(&[
                ("gens", "(1,2,3,4,5,6,7,8,9,10,11,12); (1,2)"),
                ("directed", "true"),
            ]),
            large(&[
                ("gens", "(1,2,3,4,5,6,7,8,9,10,11,12,13); (1,2)"),
                ("directed", "true"),
            ]),
        ];
        RUNS
    }
}

/// `metric` where it is one of `known`, else why not.
fn checked<'m>(metric: &'m str, known: &[&str], of: &str) -> Result<&'m str, PuzzleError> {
    match known.contains(&metric) {
        true => Ok(metric),
        false => Err(PuzzleError::Value {
            option: "metric",
            value: metric.into(),
            why: format!("unknown metric: {of} metrics are {}", known.join(", ")),
        }),
    }
}

/// The metric of generators that go one way only (`--directed`).
pub const DIRECTED: &str = "directed";

/// A permutation puzzle from generators given as text (`--gens`), searched from `start` where
/// given.
fn generators(gens: &str, metric: &str, start: Option<&str>) -> Result<Space, PuzzleError> {
    let value = |why: String| PuzzleError::Value {
        option: "gens",
        value: gens.into(),
        why,
    };
    let def = parse::generators(gens).map_err(value)?;
    let mut params = serde_json::Map::new();
    params.insert("points".into(), def.solved.len().into());
    params.insert("generators".into(), gens.trim().into());
    // The generators' own text decides the folder.
    let hex6 = family::short_digest(&gens.split_whitespace().collect::<String>());
    let slug = format!("perm-n{}-{hex6}", def.solved.len());
    with_metric(def, params, slug, metric, start, value)
}

/// A permutation puzzle from a file of named generators as GAP states them (`--gap`; `text`,
/// read from `file`), searched from `start` where given.
fn gap(text: &str, file: &str, metric: &str, start: Option<&str>) -> Result<Space, PuzzleError> {
    let value = |why: String| PuzzleError::Value {
        option: "gap",
        value: file.into(),
        why,
    };
    let def = parse::gap_file(text).map_err(value)?;
    let stem = (Path::new(file).file_stem()).map_or("gap".into(), |s| s.to_string_lossy());
    let lines: Vec<&str> = text.lines().collect();
    // Files of the same name with other generators get other folders.
    let slug = format!("perm-{stem}-{}", family::short_digest(&lines.join("\n")));
    let mut params = serde_json::Map::new();
    params.insert("definition".into(), file.into());
    params.insert("points".into(), def.solved.len().into());
    // The file itself, line by line, so that a distances file describes its puzzle alone.
    params.insert("gap".into(), lines.into());
    with_metric(def, params, slug, metric, start, value)
}

/// The puzzle of generators `def` in `metric`: each generator and its inverse (`gens`), the
/// generators one way only (`directed`), or every power (htm) or a move and its inverse (qtm);
/// `slug` is the folder's name in the metric `gens`, `value` the error of the option that gave
/// the generators. From `start` where given: a permutation puzzle where it holds each of
/// `1..=n` once, else the orbit of its labels ([`Coset`]).
fn with_metric(
    mut def: Definition,
    mut params: serde_json::Map<String, serde_json::Value>,
    mut slug: String,
    metric: &str,
    start: Option<&str>,
    value: impl Fn(String) -> PuzzleError,
) -> Result<Space, PuzzleError> {
    let metric = checked(metric, &["gens", "htm", "qtm", DIRECTED], "the generators'")?;
    if metric == DIRECTED {
        slug = format!("{slug}-{metric}");
    } else if metric != "gens" {
        let one_set = twisty::TwistyDefinition::of_permutations(&def);
        def.moves = twisty::permutation_moves(&one_set, metric).map_err(&value)?;
        slug = format!("{slug}-{metric}");
    }
    let start = match start {
        Some(text) => Some(starting(text, def.solved.len())?),
        None => None,
    };
    if let Some(labels) = &start {
        let written = crate::puzzle::spaced(labels);
        slug = format!("{slug}-start-{}", family::short_digest(&written));
        params.insert("start".into(), written.into());
    }
    let identity = Identity {
        family: "perm".into(),
        params,
        metric: metric.into(),
        slug,
    };
    let inverses = match metric {
        "gens" => Inverses::Added,
        DIRECTED => Inverses::Directed,
        _ => Inverses::Given,
    };
    match start {
        // A permutation of 1..n is the puzzle itself, from another arrangement.
        Some(labels) if crate::puzzle::pieces(&labels, labels.len()).is_err() => {
            Coset::new(identity, &labels, def.moves, inverses).map(Space::Coset)
        }
        Some(labels) => {
            def.solved = labels;
            Perm::new(identity, def, inverses).map(Space::Perm)
        }
        // Where a native family searches these generators, it does (under their names).
        None => Perm::new(identity, def, inverses)
            .map(|perm| super::native::recognise(&perm).unwrap_or(Space::Perm(perm))),
    }
    .map_err(value)
}

/// The start's labels (`--start`), a label for each of the `n` positions, or why not.
fn starting(text: &str, n: usize) -> Result<Vec<u32>, PuzzleError> {
    let labels = parse::labels(text).map_err(PuzzleError::value("start", text))?;
    match labels.len() == n {
        true => Ok(labels),
        false => Err(PuzzleError::Value {
            option: "start",
            value: text.into(),
            why: format!(
                "the start has {} labels but the generators move {n} positions: write a label for each of positions 1..{n}",
                labels.len()
            ),
        }),
    }
}

/// The puzzle of a twsearch definition (`text`, the file `file`) in `metric` (htm, qtm): a
/// permutation puzzle where it has one set of distinct pieces without orientations (sweeps and a
/// GPU shader), else a twisty puzzle.
fn definition(text: &str, file: &str, metric: &str) -> Result<Space, PuzzleError> {
    let metric = checked(metric, &["htm", "qtm"], "a definition's")?;
    let def = twisty::format::read(text, file)?;
    let stem = (Path::new(file).file_stem()).map_or("definition".into(), |s| s.to_string_lossy());
    let mut params = serde_json::Map::new();
    params.insert("definition".into(), file.into());
    if !def.name.is_empty() {
        params.insert("name".into(), def.name.clone().into());
    }
    // The definition itself, line by line, so that a distances file describes its puzzle alone.
    let lines: Vec<&str> = text.lines().collect();
    // Files of the same name with different definitions get different folders.
    let slug = format!(
        "perm-{stem}-{}-{metric}",
        family::short_digest(&lines.join("\n"))
    );
    params.insert("text".into(), lines.into());
    match def.as_permutations() {
        Some(solved) => {
            let moves = twisty::permutation_moves(&def, metric)?;
            params.insert("points".into(), solved.len().into());
            let identity = Identity {
                family: "perm".into(),
                params,
                metric: metric.into(),
                slug,
            };
            let definition = Definition {
                name: def.name.clone(),
                solved,
                moves,
            };
            Ok(Space::Perm(Perm::new(
                identity,
                definition,
                Inverses::Given,
            )?))
        }
        None => {
            let naming = Naming {
                family: "perm".into(),
                params,
                slug,
            };
            Ok(Space::Twisty(Twisty::new(&def, metric, naming)?))
        }
    }
}
