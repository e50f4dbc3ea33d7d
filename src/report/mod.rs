//! The run's reports: `report.json`, `report.md` and `levels.csv`.

use crate::gpu::AdapterName;
use crate::puzzle::PuzzleInfo;
use crate::search::levels::Written;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// Everything a run found, as written to `report.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Puzzle, parameters, metric, moves and rank order.
    #[serde(flatten)]
    pub puzzle: PuzzleInfo,
    /// Number of table entries (ranks), reachable or not.
    pub rank_space: u64,
    /// Number of states reachable from the solved state.
    pub reachable: u64,
    /// States at each distance: `levels` (`levels[d]` = states at distance `d`), or
    /// `level_runs` when there are more than [`crate::search::levels::LISTED_LEVELS`].
    #[serde(flatten)]
    pub levels: Written,
    /// The largest distance (God's number for this metric).
    pub diameter: u64,
    /// Number of states at the largest distance.
    pub antipode_count: u64,
    /// Up to 100 antipodes (the smallest ranks), each as 1-based piece labels by position.
    pub antipodes: Vec<Vec<u32>>,
    /// Which backend searched: `cpu` or `gpu`.
    pub backend: String,
    /// The GPU that searched (name and driver); `null` for the CPU backend.
    pub adapter: Option<AdapterName>,
    /// Worker threads.
    pub threads: usize,
    /// Wall seconds of the search itself.
    pub seconds: f64,
    /// Reachable states per second of search.
    pub states_per_second: f64,
    /// gpusearch's version.
    pub version: String,
    /// The distances file's name, in the same folder.
    pub distances_file: String,
    /// SHA-256 of the distances file, lowercase hex.
    pub distances_sha256: String,
}

impl Report {
    /// The report as pretty JSON with a final newline.
    pub fn to_json(&self) -> String {
        let mut json = serde_json::to_string_pretty(self).expect("a report always serialises");
        json.push('\n');
        json
    }

    /// `levels.csv`: one line per distance, or per run of distances with equal counts when the
    /// levels are written as runs.
    pub fn levels_csv(&self) -> String {
        let levels = self.levels.levels();
        if self.levels.levels.is_some() {
            let mut csv = String::from("distance,count\n");
            for (d, count) in levels.iter().enumerate() {
                let _ = writeln!(csv, "{d},{count}");
            }
            csv
        } else {
            let mut csv = String::from("first_distance,last_distance,count\n");
            let mut at = 0;
            for run in levels.runs() {
                let _ = writeln!(csv, "{at},{},{}", at + run.repeat - 1, run.count);
                at += run.repeat;
            }
            csv
        }
    }

    /// `report.md`: the same facts as tables to paste into a page.
    pub fn to_markdown(&self) -> String {
        let p = &self.puzzle;
        let params: Vec<String> = p.params.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        let mut md = String::new();
        let _ = writeln!(
            md,
            "# {} {}, metric {}\n",
            p.puzzle,
            params.join(", "),
            p.metric
        );
        md.push_str("| | |\n|---|---|\n");
        let rows = [
            ("puzzle", p.puzzle.clone()),
            ("parameters", params.join(", ")),
            ("metric", p.metric.clone()),
            ("moves", p.moves.join(" ")),
            ("table entries", self.rank_space.to_string()),
            ("reachable states", self.reachable.to_string()),
            ("diameter (God's number)", self.diameter.to_string()),
            ("antipodes", self.antipode_count.to_string()),
            (
                "backend",
                match &self.adapter {
                    Some(a) => format!("{} ({}, {})", self.backend, a.name, a.driver),
                    None => format!("{} ({} threads)", self.backend, self.threads),
                },
            ),
            (
                "search time",
                format!(
                    "{:.3} s ({:.0} states/s)",
                    self.seconds, self.states_per_second
                ),
            ),
            ("gpusearch", self.version.clone()),
            (
                "distances file",
                format!(
                    "`{}` (SHA-256 `{}`)",
                    self.distances_file, self.distances_sha256
                ),
            ),
        ];
        for (key, value) in rows {
            let _ = writeln!(md, "| {key} | {value} |");
        }
        let levels = self.levels.levels();
        if self.levels.levels.is_some() {
            md.push_str("\n## Positions at each distance\n\n");
            md.push_str("| distance | positions | cumulative |\n|---:|---:|---:|\n");
            let mut total = 0;
            for (d, count) in levels.iter().enumerate() {
                total += count;
                let _ = writeln!(md, "| {d} | {count} | {total} |");
            }
        } else {
            md.push_str("\n## Positions at each distance (runs of equal counts)\n\n");
            md.push_str("| distances | positions at each | cumulative |\n|---:|---:|---:|\n");
            let (mut at, mut total) = (0, 0);
            for run in levels.runs() {
                total += run.count * run.repeat;
                let _ = writeln!(
                    md,
                    "| {at} to {} | {} | {total} |",
                    at + run.repeat - 1,
                    run.count
                );
                at += run.repeat;
            }
        }
        let _ = writeln!(
            md,
            "\n## Antipodes ({} of {} listed)\n",
            self.antipodes.len(),
            self.antipode_count
        );
        for a in &self.antipodes {
            let labels: Vec<String> = a.iter().map(u32::to_string).collect();
            let _ = writeln!(md, "- `{}`", labels.join(" "));
        }
        md
    }
}
