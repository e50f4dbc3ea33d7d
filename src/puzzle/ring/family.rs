//! The ring families: Turnstyle and TopSpin, their options and their published runs.

use super::{MAX_PIECES, Metric, Ring};
use crate::puzzle::Space;
use crate::puzzle::family::{Family, Given, Kind, Opt, PuzzleError, Run, Sample};

/// The Turnstyle family (`--puzzle turnstyle`).
pub struct Turnstyle;
/// The TopSpin family (`--puzzle topspin`).
pub struct TopSpin;
/// The Turnstyle family.
pub const TURNSTYLE: Turnstyle = Turnstyle;
/// The TopSpin family.
pub const TOPSPIN: TopSpin = TopSpin;

const METRIC: Opt = Opt {
    name: "metric",
    kind: Kind::Text,
    help: "which moves count: lrf (L, R and F) or flips (only F, the ring read from piece 1)",
    default: Some("lrf"),
};

/// The metric a request gives, or why it is none.
fn metric(given: &Given) -> Result<Metric, PuzzleError> {
    let name = given.need_text("metric")?;
    Metric::parse(name).map_err(PuzzleError::value("metric", name))
}

/// Runs of sizes 8 to 12 in both metrics (and `lrf` 13), the rest large.
macro_rules! ring_runs {
    ($($n:literal $metric:literal $large:literal),*) => {
        &[$(Run { options: &[("n", $n), ("metric", $metric)], large: $large }),*]
    };
}

impl Family for Turnstyle {
    fn name(&self) -> &'static str {
        "turnstyle"
    }

    fn samples(&self) -> &'static [Sample] {
        &[
            Sample {
                options: &[("n", "8")],
                reaches: "the ring order, its rotations as rank arithmetic",
            },
            Sample {
                options: &[("n", "9")],
                reaches: "whole arrangements in nine planes: slabs sweep L, R and most of F",
            },
            Sample {
                options: &[("n", "7"), ("metric", "flips")],
                reaches: "the flips metric",
            },
        ]
    }

    fn options(&self) -> &'static [Opt] {
        &[
            Opt {
                name: "n",
                kind: Kind::Count,
                help: "the number of pieces, 4 to 16",
                default: None,
            },
            METRIC,
        ]
    }

    fn build(&self, given: &Given) -> Result<Space, PuzzleError> {
        let n = given.need_count("n")?;
        let ring = Ring::turnstyle(n, metric(given)?).map_err(PuzzleError::value("n", n))?;
        Ok(Space::Ring(ring))
    }

    fn runs(&self) -> &'static [Run] {
        ring_runs![
            "8" "lrf" false, "9" "lrf" false, "10" "lrf" false, "11" "lrf" false,
            "12" "lrf" false, "13" "lrf" false,
            "8" "flips" false, "9" "flips" false, "10" "flips" false, "11" "flips" false,
            "12" "flips" false,
            "13" "flips" true, "14" "flips" true, "14" "lrf" true, "15" "flips" true
        ]
    }
}

impl Family for TopSpin {
    fn name(&self) -> &'static str {
        "topspin"
    }

    fn samples(&self) -> &'static [Sample] {
        &[Sample {
            options: &[("n", "8")],
            reaches: "a turntable of four pieces",
        }]
    }

    fn options(&self) -> &'static [Opt] {
        &[
            Opt {
                name: "n",
                kind: Kind::Count,
                help: "the number of pieces, 3 to 16",
                default: None,
            },
            Opt {
                name: "k",
                kind: Kind::Count,
                help: "how many pieces the turntable reverses, 2 to n",
                default: Some("4"),
            },
            METRIC,
        ]
    }

    fn build(&self, given: &Given) -> Result<Space, PuzzleError> {
        let n = given.need_count("n")?;
        let k = given.need_count("k")?;
        let metric = metric(given)?;
        // The pieces' range first: the turntable's depends on them.
        let (option, value) = match (3..=MAX_PIECES).contains(&n) {
            true => ("k", k),
            false => ("n", n),
        };
        let ring = Ring::topspin(n, k, metric).map_err(PuzzleError::value(option, value))?;
        Ok(Space::Ring(ring))
    }

    fn runs(&self) -> &'static [Run] {
        ring_runs![
            "8" "lrf" false, "9" "lrf" false, "10" "lrf" false, "11" "lrf" false,
            "12" "lrf" false, "13" "lrf" true, "14" "lrf" true
        ]
    }
}
