//! The puzzle a command line names: its family and size options, checked and turned into a
//! state space.

use super::perm::{self, Identity, parse};
use super::twisty::{self, Naming, Twisty};
use super::{Key, Metric, Perm, PuzzleInfo, Ring, Rings, Space};
use sha2::{Digest, Sha256};
use std::path::PathBuf;

/// The puzzle options of a command line.
#[derive(Clone, Debug, Default)]
pub struct PuzzleArgs {
    /// The family: `turnstyle`, `topspin`, `perm`, `rotation`, `rings` or `key`.
    pub puzzle: String,
    /// Pieces (Turnstyle, TopSpin) or rings.
    pub n: Option<usize>,
    /// TopSpin's turntable size.
    pub k: Option<usize>,
    /// Which moves count (Turnstyle, TopSpin: lrf, flips; perm: htm, qtm).
    pub metric: Option<String>,
    /// Generators in cycle notation (perm).
    pub gens: Option<String>,
    /// A definition file (perm: twsearch format; key: heights).
    pub def: Option<PathBuf>,
    /// Board rows (rotation).
    pub rows: Option<usize>,
    /// Board columns (rotation).
    pub cols: Option<usize>,
    /// Block size (rotation).
    pub block: Option<usize>,
}

/// The families and the options each takes.
const FAMILIES: [(&str, &[&str]); 6] = [
    ("turnstyle", &["--n", "--metric"]),
    ("topspin", &["--n", "--k", "--metric"]),
    ("perm", &["--gens", "--def", "--metric"]),
    ("rotation", &["--rows", "--cols", "--block"]),
    ("rings", &["--n"]),
    ("key", &["--def"]),
];

impl PuzzleArgs {
    /// The options given, by name.
    fn given(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        for (name, set) in [
            ("--n", self.n.is_some()),
            ("--k", self.k.is_some()),
            ("--metric", self.metric.is_some()),
            ("--gens", self.gens.is_some()),
            ("--def", self.def.is_some()),
            ("--rows", self.rows.is_some()),
            ("--cols", self.cols.is_some()),
            ("--block", self.block.is_some()),
        ] {
            if set {
                out.push(name);
            }
        }
        out
    }

    /// The state space these options describe, or why they describe none (one line).
    pub fn space(&self) -> Result<Space, String> {
        let family = self.puzzle.as_str();
        let Some((_, takes)) = FAMILIES.iter().find(|(f, _)| *f == family) else {
            let names: Vec<&str> = FAMILIES.iter().map(|(f, _)| *f).collect();
            return Err(format!(
                "unknown puzzle '{family}': use --puzzle {}",
                names.join(", ")
            ));
        };
        if let Some(extra) = self.given().into_iter().find(|o| !takes.contains(o)) {
            return Err(format!(
                "--puzzle {family} does not take {extra}: its options are {}",
                takes.join(", ")
            ));
        }
        let need = |value: Option<usize>, option: &str| {
            value.ok_or_else(|| format!("--puzzle {family} needs {option}"))
        };
        let metric = || {
            self.metric
                .as_deref()
                .map_or(Ok(Metric::Lrf), Metric::parse)
        };
        if let (Some(path), "perm") = (&self.def, family) {
            let (text, file) = read(path)?;
            let metric = self.metric.as_deref().unwrap_or("htm");
            return definition_space(&text, &file, metric);
        }
        Ok(match family {
            "turnstyle" => Space::Ring(Ring::turnstyle(need(self.n, "--n")?, metric()?)?),
            "topspin" => Space::Ring(Ring::topspin(
                need(self.n, "--n")?,
                self.k.unwrap_or(4),
                metric()?,
            )?),
            "rotation" => Space::Perm(perm::rotation(
                need(self.rows, "--rows")?,
                need(self.cols, "--cols")?,
                need(self.block, "--block")?,
            )?),
            "rings" => Space::Rings(Rings::new(need(self.n, "--n")?)?),
            "key" => {
                let path = self
                    .def
                    .as_ref()
                    .ok_or("--puzzle key needs --def FILE (the key and disk heights)")?;
                let (text, file) = read(path)?;
                Space::Key(Key::parse(&text, &file, &stem(path))?)
            }
            _ => Space::Perm(self.generators()?),
        })
    }

    /// A permutation puzzle from `--gens`: each generator and its inverse (`--metric` gens,
    /// the default), or every power (htm) or a move and its inverse (qtm).
    fn generators(&self) -> Result<Perm, String> {
        let gens = match (&self.gens, &self.def) {
            (Some(_), Some(_)) => {
                return Err("--puzzle perm takes --gens or --def, not both".into());
            }
            (Some(gens), None) => gens,
            (None, _) => {
                return Err(
                    "--puzzle perm needs --gens \"(1,2)(3,4); (1,2,3,4,5)\" or --def FILE.tws"
                        .into(),
                );
            }
        };
        let mut def = parse::generators(gens)?;
        let mut params = serde_json::Map::new();
        params.insert("points".into(), def.solved.len().into());
        params.insert("generators".into(), gens.trim().into());
        // Short and stable: the generators' own text decides the folder.
        let digest = Sha256::digest(gens.split_whitespace().collect::<String>());
        let mut slug = format!("perm-n{}-{}", def.solved.len(), hex6(&digest));
        let metric = self.metric.clone().unwrap_or_else(|| "gens".into());
        if metric != "gens" {
            let one_set = twisty::TwistyDefinition::of_permutations(&def);
            def.moves = twisty::permutation_moves(&one_set, &metric)?;
            slug = format!("{slug}-{metric}");
        }
        Perm::new(
            Identity {
                family: "perm".into(),
                params,
                metric: metric.clone(),
                slug,
            },
            def,
            metric == "gens",
        )
    }
}

/// The puzzle of a twsearch definition (`text`, the file `file`) in `metric` (htm, qtm): a
/// permutation puzzle where it has one set of distinct pieces without orientations (sweeps and a
/// GPU shader), else a twisty puzzle.
fn definition_space(text: &str, file: &str, metric: &str) -> Result<Space, String> {
    let def = twisty::format::read(text, file)?;
    let stem = stem(std::path::Path::new(file));
    let mut params = serde_json::Map::new();
    params.insert("definition".into(), file.into());
    if !def.name.is_empty() {
        params.insert("name".into(), def.name.clone().into());
    }
    // The definition itself, line by line, so that a distances file describes its puzzle alone.
    params.insert("text".into(), text.lines().collect::<Vec<_>>().into());
    let slug = format!("perm-{stem}-{metric}");
    match def.as_permutations() {
        Some(solved) => {
            let moves = twisty::permutation_moves(&def, metric)?;
            params.insert("points".into(), solved.len().into());
            let perm = Perm::new(
                Identity {
                    family: "perm".into(),
                    params,
                    metric: metric.into(),
                    slug,
                },
                parse::Definition {
                    name: def.name.clone(),
                    solved,
                    moves,
                },
                false,
            )?;
            Ok(Space::Perm(perm))
        }
        None => Ok(Space::Twisty(Box::new(Twisty::new(
            &def,
            metric,
            Naming {
                family: "perm".into(),
                params,
                slug,
            },
        )?))),
    }
}

/// A definition file's text and its name as errors give it.
fn read(path: &PathBuf) -> Result<(String, String), String> {
    let file = path.display().to_string();
    std::fs::read_to_string(path)
        .map(|text| (text, file.clone()))
        .map_err(|e| format!("cannot read the definition {file}: {e}"))
}

/// A file's name without folder and extension, for output folders.
fn stem(path: &std::path::Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "definition".into())
}

fn hex6(bytes: &[u8]) -> String {
    bytes[..3].iter().map(|b| format!("{b:02x}")).collect()
}

/// The state space a report or distances file describes (its `puzzle`, `params` and `metric`),
/// so that a file can be checked or read without the command line that made it.
pub fn space_of(info: &PuzzleInfo) -> Result<Space, String> {
    let p = &info.params;
    let number = |key: &str| p.get(key).and_then(|v| v.as_u64()).map(|v| v as usize);
    let bad = || format!("the file's params do not describe a {} puzzle", info.puzzle);
    let space = match info.puzzle.as_str() {
        "perm" if p.contains_key("text") => {
            let lines: Vec<String> =
                serde_json::from_value(p["text"].clone()).map_err(|_| bad())?;
            // Each line ends with a newline again, so that the text gives back the same lines
            // (a file ending in a blank line included).
            let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
            let file = p
                .get("definition")
                .and_then(|v| v.as_str())
                .unwrap_or("definition");
            definition_space(&text, file, &info.metric)?
        }
        "key" => {
            let list = |key: &str| -> Result<Vec<u8>, String> {
                serde_json::from_value(p.get(key).cloned().ok_or_else(bad)?).map_err(|_| bad())
            };
            let line = |key: &str| -> Result<String, String> {
                Ok(format!(
                    "{key} {}\n",
                    list(key)?
                        .iter()
                        .map(u8::to_string)
                        .collect::<Vec<_>>()
                        .join(" ")
                ))
            };
            let text = [
                line("above")?,
                line("below")?,
                line("disk")?,
                line("start")?,
            ]
            .concat();
            let name = p
                .get("definition")
                .and_then(|v| v.as_str())
                .ok_or_else(bad)?;
            Space::Key(Key::parse(&text, name, name)?)
        }
        family => PuzzleArgs {
            puzzle: family.into(),
            n: number("n"),
            k: number("k"),
            metric: match family {
                "turnstyle" | "topspin" => Some(info.metric.clone()),
                "perm" if info.metric != "gens" => Some(info.metric.clone()),
                _ => None,
            },
            gens: p
                .get("generators")
                .and_then(|v| v.as_str())
                .map(String::from),
            def: None,
            rows: number("rows"),
            cols: number("cols"),
            block: number("block"),
        }
        .space()?,
    };
    Ok(space)
}
