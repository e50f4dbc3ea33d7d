//! What a puzzle family declares: its name, its options, how it builds a space from them and
//! from a file's description, and its published runs.
//!
//! A family lives in its own module and is listed once, in [`super::registry`]; the command line,
//! `tables`, and the reading of distances files and reports all come from that list.

use super::{PuzzleInfo, Space};
use sha2::{Digest, Sha256};
use std::fmt;
use std::path::{Path, PathBuf};

/// A puzzle family.
pub trait Family: Sync {
    /// The name a request gives (`turnstyle`), as written into reports and file headers.
    fn name(&self) -> &'static str;
    /// The options it takes.
    fn options(&self) -> &'static [Opt];
    /// The state space the options describe, already checked to be among [`Family::options`].
    fn build(&self, given: &Given) -> Result<Space, PuzzleError>;
    /// The state space a report or distances file describes (its `params` and `metric`); by
    /// default the family's options of the same names, and the metric where it takes one.
    fn rebuild(&self, info: &PuzzleInfo) -> Result<Space, PuzzleError> {
        let mut request = Request::new(self.name());
        for opt in self.options() {
            match opt.name {
                "metric" => request = request.with("metric", &info.metric),
                name => match info.params.get(name) {
                    Some(serde_json::Value::Number(n)) => request = request.with(name, n),
                    Some(serde_json::Value::Bool(true)) => request = request.with(name, true),
                    _ => {}
                },
            }
        }
        build(self, &request)
    }
    /// Its published runs, for `gpusearch tables`.
    fn runs(&self) -> &'static [Run] {
        &[]
    }
    /// Small searches that reach each of its code paths (each metric, layout and kind of move),
    /// of at most a few hundred thousand positions: every engine's tests run them
    /// ([`super::registry::samples`]), so a new family is tested everywhere by stating these.
    fn samples(&self) -> &'static [Sample];
    /// Its options as a usage line writes them ([`usage_of`]), each named by `flag`; a family
    /// whose options are alternatives, or optional without a default, names them.
    fn usage(&self, flag: &dyn Fn(&str) -> String) -> String {
        usage_of(self.options(), (&[], &[]), flag)
    }
}

/// `options` as a usage line writes them, each named by `flag` (the command line's: `--n N
/// [--k N]`): those that must be given as they are, the others (with a default, switches, and
/// those named in `optional`) in brackets, and those named in `one_of` together where the first
/// stands (`(--gens TEXT | --def FILE)`).
pub fn usage_of(
    options: &[Opt],
    (one_of, optional): (&[&str], &[&str]),
    flag: &dyn Fn(&str) -> String,
) -> String {
    let word = |o: &Opt| {
        format!("{} {}", flag(o.name), o.kind.placeholder())
            .trim_end()
            .to_string()
    };
    let mut words = Vec::new();
    for o in options {
        if one_of.first() == Some(&o.name) {
            let choices: Vec<String> = (options.iter())
                .filter(|o| one_of.contains(&o.name))
                .map(word)
                .collect();
            words.push(format!("({})", choices.join(" | ")));
        } else if one_of.contains(&o.name) {
            continue;
        } else if o.default.is_some() || o.kind == Kind::Switch || optional.contains(&o.name) {
            words.push(format!("[{}]", word(o)));
        } else {
            words.push(word(o));
        }
    }
    words.join(" ")
}

/// One option of a family.
#[derive(Clone, Copy, Debug)]
pub struct Opt {
    /// Its name (`n`), which the command line writes `--n`.
    pub name: &'static str,
    /// What its value is.
    pub kind: Kind,
    /// What it means for this family.
    pub help: &'static str,
    /// The value taken when the request gives none.
    pub default: Option<&'static str>,
}

/// What an option's value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A count: a whole number, 0 or more.
    Count,
    /// A word or a text (a metric, generators).
    Text,
    /// A file's path.
    File,
    /// A switch, given or not (`--burnt`): no value.
    Switch,
}

impl Kind {
    /// The placeholder for its value in usage lines.
    pub fn placeholder(self) -> &'static str {
        match self {
            Kind::Count => "N",
            Kind::Text => "TEXT",
            Kind::File => "FILE",
            Kind::Switch => "",
        }
    }
}

/// A published run: a family's options, given as text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    /// The options, by name.
    pub options: &'static [(&'static str, &'static str)],
    /// Whether it is one of the large runs (tens of minutes, tables of up to tens of GiB).
    pub large: bool,
}

/// A small search a family offers the tests ([`Family::samples`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// The options, by name; a file's path is from the repository's root.
    pub options: &'static [(&'static str, &'static str)],
    /// What it reaches that the family's other samples do not.
    pub reaches: &'static str,
}

impl Sample {
    /// The request for this sample of `family`, a file's path made absolute from `root` (the
    /// repository's root).
    pub fn request(&self, family: &str, root: &Path) -> Request {
        let mut request = Request::new(family);
        for (name, value) in self.options {
            request = match *name {
                "def" => request.with(name, root.join(value).display()),
                _ => request.with(name, value),
            };
        }
        request
    }
}

/// A request for a puzzle: its family's name and the options given, as text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Request {
    /// The family's name.
    pub puzzle: String,
    /// The options given, by name, in the order given.
    pub options: Vec<(String, String)>,
    /// Whether to reduce the space by its symmetries: one table entry per class of positions
    /// ([`crate::puzzle::symmetry`]).
    pub symmetry: bool,
}

impl Request {
    /// A request for `puzzle` with no options.
    pub fn new(puzzle: &str) -> Request {
        Request {
            puzzle: puzzle.into(),
            options: Vec::new(),
            symmetry: false,
        }
    }

    /// The request with option `name` set to `value`.
    pub fn with(mut self, name: &str, value: impl fmt::Display) -> Request {
        self.options.retain(|(n, _)| n != name);
        self.options.push((name.into(), value.to_string()));
        self
    }

    /// The value of option `name`, if given.
    pub fn get(&self, name: &str) -> Option<&str> {
        (self.options.iter())
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A request checked against its family's options: the values, typed.
pub struct Given<'a> {
    family: &'static str,
    options: &'static [Opt],
    request: &'a Request,
}

impl Given<'_> {
    /// The value of option `name` as given, or its default.
    pub fn text(&self, name: &'static str) -> Option<&str> {
        (self.request.get(name)).or_else(|| self.opt(name).default)
    }

    /// The value of option `name`, which the family needs.
    pub fn need_text(&self, name: &'static str) -> Result<&str, PuzzleError> {
        self.text(name).ok_or(self.missing(name))
    }

    /// Whether option `name` was given.
    pub fn has(&self, name: &'static str) -> bool {
        self.request.get(name).is_some()
    }

    /// Whether switch `name` is on (given, or given as `true`).
    pub fn switch(&self, name: &'static str) -> bool {
        self.text(name) == Some("true")
    }

    /// The count of option `name` as given, or its default.
    pub fn count(&self, name: &'static str) -> Result<Option<usize>, PuzzleError> {
        let Some(text) = self.text(name) else {
            return Ok(None);
        };
        (text.trim().parse().map(Some)).map_err(|_| PuzzleError::Value {
            option: name,
            value: text.into(),
            why: "not a count: give a whole number".into(),
        })
    }

    /// The count of option `name`, which the family needs.
    pub fn need_count(&self, name: &'static str) -> Result<usize, PuzzleError> {
        self.count(name)?.ok_or(self.missing(name))
    }

    /// The file of option `name`, which the family needs.
    pub fn need_file(&self, name: &'static str) -> Result<PathBuf, PuzzleError> {
        self.need_text(name).map(PathBuf::from)
    }

    /// The family's name.
    pub fn family(&self) -> &'static str {
        self.family
    }

    fn opt(&self, name: &'static str) -> Opt {
        *(self.options.iter())
            .find(|o| o.name == name)
            .unwrap_or_else(|| panic!("{} reads the option {name}, not among its own", self.family))
    }

    fn missing(&self, name: &'static str) -> PuzzleError {
        PuzzleError::Missing {
            family: self.family,
            options: vec![(name, self.opt(name).kind)],
        }
    }
}

/// `request` built by `family`: every option it gives checked to be the family's first.
pub fn build<F: Family + ?Sized>(family: &F, request: &Request) -> Result<Space, PuzzleError> {
    let options = family.options();
    if let Some((extra, _)) =
        (request.options.iter()).find(|(n, _)| !options.iter().any(|o| o.name == n))
    {
        return Err(PuzzleError::NotTaken {
            family: family.name(),
            option: extra.clone(),
            takes: options.iter().map(|o| o.name).collect(),
        });
    }
    family.build(&Given {
        family: family.name(),
        options,
        request,
    })
}

/// Why a request describes no puzzle. Options are named as families name them (`n`); the
/// command line writes them as its flags.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PuzzleError {
    /// No family has this name.
    UnknownFamily {
        /// The name given.
        given: String,
        /// The families there are.
        known: Vec<&'static str>,
    },
    /// The family does not take an option that was given.
    NotTaken {
        /// The family.
        family: &'static str,
        /// The option given.
        option: String,
        /// The options it takes.
        takes: Vec<&'static str>,
    },
    /// The family needs one of these options, and none was given.
    Missing {
        /// The family.
        family: &'static str,
        /// The options, each with what its value is.
        options: Vec<(&'static str, Kind)>,
    },
    /// Options that cannot be given together.
    Together {
        /// The family.
        family: &'static str,
        /// The options given together.
        options: [&'static str; 2],
    },
    /// An option's value is wrong.
    Value {
        /// The option.
        option: &'static str,
        /// Its value.
        value: String,
        /// Why, and what it takes.
        why: String,
    },
    /// The puzzle has no symmetries to reduce its table by (the setting `symmetry`), or they
    /// cannot be used.
    NoSymmetry {
        /// The family.
        puzzle: String,
        /// Why.
        why: String,
    },
    /// Anything else, in the family's words (a definition file's line, a file that cannot be
    /// read).
    Other(String),
}

impl PuzzleError {
    /// The error of option `option` given `value`, from why it is wrong (for `map_err`).
    pub fn value(option: &'static str, value: impl fmt::Display) -> impl FnOnce(String) -> Self {
        let value = value.to_string();
        move |why| PuzzleError::Value { option, value, why }
    }

    /// The message, with each option written by `flag` (the library writes `option n`).
    pub fn message(&self, flag: &dyn Fn(&str) -> String) -> String {
        match self {
            PuzzleError::UnknownFamily { given, known } => {
                format!(
                    "unknown puzzle '{}': the puzzles are {}",
                    one_line(given),
                    known.join(", ")
                )
            }
            PuzzleError::NotTaken {
                family,
                option,
                takes,
            } => {
                let takes: Vec<String> = takes.iter().map(|o| flag(o)).collect();
                format!(
                    "the {family} puzzle does not take {}: its options are {}",
                    flag(option),
                    takes.join(", ")
                )
            }
            PuzzleError::Missing { family, options } => {
                let options: Vec<String> = (options.iter())
                    .map(|(o, kind)| {
                        format!("{} {}", flag(o), kind.placeholder())
                            .trim_end()
                            .to_string()
                    })
                    .collect();
                format!("the {family} puzzle needs {}", options.join(" or "))
            }
            PuzzleError::Together { family, options } => format!(
                "the {family} puzzle takes {} or {}, not both",
                flag(options[0]),
                flag(options[1])
            ),
            PuzzleError::Value { option, value, why } => {
                format!("{} {}: {why}", flag(option), one_line(value))
            }
            PuzzleError::NoSymmetry { puzzle, why } => format!(
                "the {puzzle} puzzle cannot be searched by classes of symmetric positions ({why}): search it without {}",
                flag("symmetry")
            ),
            PuzzleError::Other(why) => why.clone(),
        }
    }
}

/// `text` with every character that breaks a line (or is another control character) written
/// as a space, so that a message quoting it stays one line and its columns stay where they were.
pub fn one_line(text: &str) -> String {
    (text.chars())
        .map(
            |c| match c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') {
                true => ' ',
                false => c,
            },
        )
        .collect()
}

impl fmt::Display for PuzzleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message(&|o| format!("option {o}")))
    }
}

impl From<String> for PuzzleError {
    fn from(why: String) -> PuzzleError {
        PuzzleError::Other(why)
    }
}

/// The definitions that ship with gpusearch (`puzzles/` in its repository), by the path the
/// published runs give, so that they read from any folder.
const SHIPPED: &[(&str, &str)] = &[
    (
        "puzzles/cube-2x2x2.tws",
        include_str!("../../puzzles/cube-2x2x2.tws"),
    ),
    ("puzzles/dino.tws", include_str!("../../puzzles/dino.tws")),
    (
        "puzzles/free-the-key.txt",
        include_str!("../../puzzles/free-the-key.txt"),
    ),
    (
        "puzzles/pyraminx.tws",
        include_str!("../../puzzles/pyraminx.tws"),
    ),
    (
        "puzzles/skewb-diamond.tws",
        include_str!("../../puzzles/skewb-diamond.tws"),
    ),
    ("puzzles/skewb.tws", include_str!("../../puzzles/skewb.tws")),
    (
        "puzzles/turnstyle-8.tws",
        include_str!("../../puzzles/turnstyle-8.tws"),
    ),
];

/// Six hex digits of the SHA-256 of `text`: short and stable, for default folders that differ
/// when the puzzles they hold differ (generators, definitions whose files share a name).
pub fn short_digest(text: &str) -> String {
    let digest = Sha256::digest(text);
    digest[..3].iter().map(|b| format!("{b:02x}")).collect()
}

/// The text of the definition file at `path`: the file, or where there is none at a path of
/// `SHIPPED`, the copy that ships with gpusearch.
pub fn read_definition(path: &Path) -> Result<String, PuzzleError> {
    match std::fs::read_to_string(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (SHIPPED.iter())
            .find(|(shipped, _)| Path::new(shipped) == path)
            .map(|(_, text)| text.to_string())
            .ok_or(e),
        read => read,
    }
    .map_err(|e| {
        PuzzleError::Other(format!(
            "cannot read the definition {}: {e}",
            path.display()
        ))
    })
}
