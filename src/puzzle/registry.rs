//! The families, listed once: a line each, naming the kind of space they build and the families
//! that build it. [`Space`], [`FAMILIES`] and `with_space!` come from this list; outside the
//! crate, [`Space::visit`] does what `with_space!` does inside it.

use super::family::{self, Family, Opt, PuzzleError, Request};
use super::symmetry::Reduced;
use super::{PuzzleInfo, StateSpace};

/// Declares [`Space`] (a variant per kind of space), [`FAMILIES`] (the families in order) and
/// `with_space!` (the one match over the variants). `$d` is a `$`, for the inner macro.
macro_rules! registry {
    ($d:tt $($(#[$doc:meta])* $variant:ident($space:path) for [$($family:expr),*];)*) => {
        /// One puzzle of any family.
        // A space is made once a run: its size does not matter.
        #[allow(clippy::large_enum_variant)]
        pub enum Space {
            $($(#[$doc])* $variant($space),)*
        }

        /// Every family, in the order help and `tables` list them.
        pub static FAMILIES: &[&dyn Family] = &[$($(&$family,)*)*];

        /// Evaluates `$body` with `$s` bound to the space inside `$space` (a `&Space`),
        /// whatever its family: the one place where the families meet the generic code.
        macro_rules! with_space_ {
            ($d space:expr, $d s:ident => $d body:expr) => {
                match $d space {
                    $($crate::puzzle::Space::$variant($d s) => {
                        let $d s: &$space = $d s;
                        $d body
                    })*
                }
            };
        }
        pub(crate) use with_space_ as with_space;

        impl Space {
            /// The space behind a pointer, whatever its family (what a reduced space wraps).
            fn into_base(self) -> Box<dyn crate::puzzle::symmetry::Base> {
                match self {
                    $(Space::$variant(s) => Box::new(crate::puzzle::symmetry::Erased(s)),)*
                }
            }
        }
    };
}

registry! { $
    /// Turnstyle, TopSpin.
    Ring(crate::puzzle::ring::Ring) for [crate::puzzle::ring::TURNSTYLE, crate::puzzle::ring::TOPSPIN];
    /// Number rotation boards; permutation puzzles from generators or definitions.
    Perm(crate::puzzle::perm::Perm) for [crate::puzzle::rotation::ROTATION, crate::puzzle::perm::family::PERM];
    /// The Chinese rings.
    Rings(crate::puzzle::rings::Rings) for [crate::puzzle::rings::RINGS];
    /// Free the Key.
    Key(crate::puzzle::key::Key) for [crate::puzzle::key::KEY];
    /// The Towers of Hanoi.
    Hanoi(crate::puzzle::hanoi::Hanoi) for [crate::puzzle::hanoi::HANOI];
    /// Sliding-tile puzzles.
    Sliding(crate::puzzle::sliding::Sliding) for [crate::puzzle::sliding::SLIDING];
    /// Pancakes, burnt or not.
    Pancake(crate::puzzle::pancake::Pancake) for [crate::puzzle::pancake::PANCAKE];
    /// Generators acting on a start whose labels repeat (coset graphs), which the perm family
    /// builds.
    Coset(crate::puzzle::perm::coset::Coset) for [];
    /// Generators that the ring puzzles' order searches (LRX, TopSpin, Turnstyle as
    /// generators), which the perm family builds.
    RingGens(crate::puzzle::perm::native::Native<crate::puzzle::ring::Ring>) for [];
    /// Generators that the pancakes' order searches (the prefix reversals), which the perm
    /// family builds.
    PancakeGens(crate::puzzle::perm::native::Native<crate::puzzle::pancake::Pancake>) for [];
    /// Twisty puzzles from definitions (several sets, orientations, identical pieces), which
    /// the perm family builds.
    Twisty(crate::puzzle::twisty::Twisty) for [];
    /// Any of these reduced by its symmetries (`Request::symmetry`).
    Reduced(crate::puzzle::symmetry::Reduced) for [];
}

/// Every family's samples ([`Family::samples`]) as requests, each with what it reaches: the
/// small searches every engine's tests run. `root`: the repository's root, where their files lie.
pub fn samples(root: &std::path::Path) -> Vec<(Request, &'static str)> {
    (FAMILIES.iter())
        .flat_map(|f| (f.samples().iter()).map(|s| (s.request(f.name(), root), s.reaches)))
        .collect()
}

/// The family named `name`.
pub fn family(name: &str) -> Result<&'static dyn Family, PuzzleError> {
    (FAMILIES.iter().copied())
        .find(|f| f.name() == name)
        .ok_or_else(|| PuzzleError::UnknownFamily {
            given: name.into(),
            known: FAMILIES.iter().map(|f| f.name()).collect(),
        })
}

/// The state space a request describes, or why it describes none.
pub fn space(request: &Request) -> Result<Space, PuzzleError> {
    let space = family::build(family(&request.puzzle)?, request)?;
    match request.symmetry {
        true => reduce(space),
        false => Ok(space),
    }
}

/// `space` reduced by its symmetries ([`crate::puzzle::symmetry`]), or why it cannot be.
pub fn reduce(space: Space) -> Result<Space, PuzzleError> {
    let info = space.info();
    let refused = |why: String| PuzzleError::NoSymmetry {
        puzzle: info.puzzle.clone(),
        why,
    };
    let symmetry = with_space!(&space, s => s.capabilities().symmetry()).map_err(refused)?;
    let reduced = Reduced::new(space.into_base(), symmetry).map_err(refused)?;
    Ok(Space::Reduced(reduced))
}

/// The state space a report or distances file describes (its `puzzle`, `params` and `metric`),
/// so that a file can be checked or read without the command line that made it.
pub fn space_of(info: &PuzzleInfo) -> Result<Space, PuzzleError> {
    let space = family(&info.puzzle)?.rebuild(info)?;
    match info.symmetry {
        Some(_) => reduce(space),
        None => Ok(space),
    }
}

/// Every option of every family, each name once, with the families that take it and what it
/// means for each: `(name, [(family, option)])`.
pub fn options() -> Vec<(&'static str, Vec<(&'static str, Opt)>)> {
    let mut all: Vec<(&'static str, Vec<(&'static str, Opt)>)> = Vec::new();
    for family in FAMILIES {
        for &opt in family.options() {
            match all.iter_mut().find(|(name, _)| *name == opt.name) {
                Some((_, takers)) => takers.push((family.name(), opt)),
                None => all.push((opt.name, vec![(family.name(), opt)])),
            }
        }
    }
    all
}

/// Work to do on a space whatever its family, for code outside this crate (the tests): what
/// `with_space!` is inside it. [`Space::visit`] calls [`Visit::on`] with the space itself.
pub trait Visit {
    /// What the work gives.
    type Output;
    /// The work, on `space`.
    fn on<S: StateSpace>(self, space: &S) -> Self::Output;
}

impl Space {
    /// `work` on the space inside, whatever its family.
    pub fn visit<V: Visit>(&self, work: V) -> V::Output {
        with_space!(self, s => work.on(s))
    }

    /// The default output folder's name ([`StateSpace::slug`]).
    pub fn slug(&self) -> String {
        with_space!(self, s => s.slug())
    }

    /// The description that goes into reports and file headers ([`StateSpace::info`]).
    pub fn info(&self) -> PuzzleInfo {
        with_space!(self, s => s.info())
    }

    /// Its table's entries ([`StateSpace::size`]).
    pub fn size(&self) -> u64 {
        with_space!(self, s => s.size())
    }

    /// Its search's measured rate ([`StateSpace::measured_rate`]).
    pub fn measured_rate(&self) -> super::Rate {
        with_space!(self, s => s.measured_rate())
    }

    /// A state in the family's notation ([`StateSpace::format_state`]).
    pub fn format_state(&self, state: &[u32]) -> String {
        with_space!(self, s => s.format_state(state))
    }

    /// A position of a report in the family's notation ([`StateSpace::format_position`]).
    pub fn format_position(&self, position: &[u32]) -> String {
        with_space!(self, s => s.format_position(position))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_builds_its_runs_and_samples_and_rebuilds_them_from_their_description() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for family in FAMILIES {
            let runs = family.runs().iter().map(|run| run.options);
            for options in runs.chain(family.samples().iter().map(|s| s.options)) {
                let sample = family::Sample {
                    options,
                    reaches: "",
                };
                let request = sample.request(family.name(), root);
                let built = space(&request).unwrap_or_else(|e| panic!("{request:?}: {e}"));
                let info = built.info();
                assert_eq!(info.puzzle, family.name());
                let again = space_of(&info).unwrap_or_else(|e| panic!("{info:?}: {e}"));
                assert_eq!(again.info(), info);
                assert_eq!(again.slug(), built.slug());
            }
        }
    }

    #[test]
    fn every_family_offers_small_samples_that_build() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for family in FAMILIES {
            assert!(!family.samples().is_empty(), "{}", family.name());
        }
        for (request, reaches) in samples(root) {
            let built = space(&request).unwrap_or_else(|e| panic!("{request:?}: {e}"));
            assert!(built.size() <= 1 << 19, "{request:?} ({reaches})");
        }
    }

    #[test]
    fn every_familys_usage_line_names_each_of_its_options() {
        for family in FAMILIES {
            let usage = family.usage(&|name| format!("<{name}>"));
            for opt in family.options() {
                let word = format!("<{}> {}", opt.name, opt.kind.placeholder());
                assert!(
                    usage.contains(word.trim_end()),
                    "{}: {usage}",
                    family.name()
                );
            }
        }
    }

    #[test]
    fn an_option_a_family_does_not_take_is_refused_naming_the_family() {
        let request = Request::new("rings").with("n", 8).with("k", 4);
        assert_eq!(
            space(&request).err(),
            Some(PuzzleError::NotTaken {
                family: "rings",
                option: "k".into(),
                takes: vec!["n"],
            })
        );
        let unknown = space(&Request::new("cube")).err().unwrap();
        assert!(unknown.to_string().contains("unknown puzzle 'cube'"));
    }
}
