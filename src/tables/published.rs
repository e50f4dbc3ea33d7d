//! `results/published.md`: our runs beside what others published about the same puzzles,
//! computed by other code: the positions at every distance, the first distances of a search
//! stopped early, or the diameter. Each verdict is read from our reports when the file is
//! written.

use super::claims::{Claim::*, NOTES, PUBLISHED, SOURCES};
use super::slug_and_antipode;
use crate::report::Report;

use std::fmt::Write;

/// `results/published.md`: our level counts against those published elsewhere.
///
/// `done` holds the family runs of the index; `reduced` the reports under `symmetry/`, each
/// named by its folder there.
pub(super) fn published(done: &[Result<Report, String>], reduced: &[(String, Report)]) -> String {
    let mut md = String::from(
        "# Our results beside those published elsewhere\n\n\
         Each row compares one of our reports with what others published about the same puzzle,\n\
         computed by other code: the positions at every distance, at the first distances, or the\n\
         diameter.\n\n\
         | our run | source | published | agreement |\n|---|---|---|---|\n",
    );
    // Each report's folder name, its space rebuilt once.
    let named: Vec<(String, &Report)> = (done.iter().flatten())
        .map(|r| (slug_and_antipode(r).0, r))
        .chain(
            reduced
                .iter()
                .map(|(name, r)| (format!("symmetry/{name}"), r)),
        )
        .collect();
    for (slug, source, claim) in PUBLISHED {
        let ours = (named.iter())
            .find(|(name, _)| name == slug)
            .map(|(_, r)| *r);
        let levels = |r: &Report| r.levels.levels().iter().collect::<Vec<u64>>();
        let (what, verdict) = match claim {
            Levels(theirs) => (
                format!("every distance (0 to {})", theirs.len() - 1),
                ours.map(|r| compare(&levels(r), theirs, true)),
            ),
            First(theirs) => (
                format!("distances 0 to {}", theirs.len() - 1),
                ours.map(|r| compare(&levels(r), theirs, false)),
            ),
            Diameter(theirs) => (
                format!("the diameter, {theirs}"),
                ours.map(|r| match levels(r).len() as u64 - 1 {
                    d if d == *theirs => format!("**agrees** (diameter {d})"),
                    d => format!("**differs**: ours {d}"),
                }),
            ),
            Tower(theirs) => (
                format!("the distance to another tower, {theirs}"),
                ours.map(|r| tower(r, *theirs)),
            ),
        };
        let verdict = verdict.unwrap_or_else(|| "not run yet".into());
        let _ = writeln!(
            md,
            "| [{slug}]({slug}/report.md) | {source} | {what} | {verdict} |"
        );
    }
    md.push('\n');
    for (name, description) in SOURCES {
        let _ = writeln!(md, "**{name}**: {description}\n");
    }
    md.push_str(NOTES);
    md
}

/// The verdict on the distance from the start to every disc on another peg against theirs.
/// The report shows that distance only where such a tower is among its antipodes (they lie at
/// the diameter); a diameter below theirs already differs, since no position lies farther.
fn tower(report: &Report, theirs: u64) -> String {
    let diameter = report.levels.levels().len() - 1;
    let is_tower = |position: &Vec<u32>| {
        (position.first()).is_some_and(|&peg| peg != 1 && position.iter().all(|&p| p == peg))
    };
    match report.antipodes.iter().any(is_tower) {
        true if diameter == theirs => {
            format!("**agrees** (another tower lies at the diameter, {diameter})")
        }
        true => format!("**differs**: ours {diameter}"),
        false if diameter < theirs => {
            format!("**differs**: no position lies farther than {diameter}")
        }
        false => "not shown by the report (no tower among its antipodes)".into(),
    }
}

/// The verdict on our counts against theirs: all of them (`whole`), or their first ones.
fn compare(ours: &[u64], theirs: &[u64], whole: bool) -> String {
    let upto = if whole {
        ours.len().max(theirs.len())
    } else {
        theirs.len()
    };
    match (0..upto).find(|&d| ours.get(d) != theirs.get(d)) {
        None if whole => format!("**agrees** at every distance (diameter {})", ours.len() - 1),
        None => format!("**agrees** at distances 0 to {}", theirs.len() - 1),
        Some(d) => format!(
            "**differs** from distance {d}: ours {:?}, theirs {:?}",
            ours.get(d),
            theirs.get(d)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A published report of ours, as `results/` holds it.
    fn report(folder: &str) -> Report {
        let path = format!(
            "{}/results/{folder}/report.json",
            env!("CARGO_MANIFEST_DIR")
        );
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn the_distance_to_another_tower_is_read_from_the_antipodes() {
        let mut ours = report("symmetry/hanoi-p5-d14-sym");
        assert!(tower(&ours, 63).starts_with("**agrees**"));
        assert!(tower(&ours, 62).starts_with("**differs**: ours 63"));
        // Without the towers among the antipodes the report shows only a bound.
        ours.antipodes.retain(|a| a.iter().any(|&peg| peg != a[0]));
        assert_eq!(ours.antipodes.len(), 4);
        assert!(tower(&ours, 63).starts_with("not shown"));
        assert!(tower(&ours, 64).starts_with("**differs**: no position"));
    }

    #[test]
    fn reduced_runs_are_found_by_their_folder_under_symmetry() {
        let reduced = [(
            "hanoi-p5-d15-sym".to_string(),
            report("symmetry/hanoi-p5-d15-sym"),
        )];
        let md = published(&[], &reduced);
        let row = |slug: &str| md.lines().find(|l| l.starts_with(&format!("| [{slug}]")));
        assert!(row("symmetry/hanoi-p5-d15-sym").unwrap().ends_with(
            "the distance to another tower, 71 | **agrees** (another tower lies at the diameter, 71) |"
        ));
        assert!(
            row("symmetry/hanoi-p5-d14-sym")
                .unwrap()
                .ends_with("| not run yet |")
        );
    }
}
