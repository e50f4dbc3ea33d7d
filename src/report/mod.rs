//! The run's reports: `report.json`, `report.md` and `levels.csv`.

use crate::gpu::AdapterName;
use crate::puzzle::PuzzleInfo;
use crate::search::levels::Written;
use crate::units::count;
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
    /// Where the table is reduced by symmetry (the puzzle's `symmetry`): its entries reached at
    /// each distance, one per class of symmetric positions, beside `levels`, which counts
    /// positions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class_levels: Option<Vec<u64>>,
    /// The same as runs, where the levels are written as runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class_level_runs: Option<Vec<crate::search::levels::Run>>,
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
    /// Where the table is reduced by symmetry: its entries reached per second of search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classes_per_second: Option<f64>,
    /// gpusearch's version.
    pub version: String,
    /// The distances file's name, in the same folder; empty where the run wrote the report
    /// alone.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub distances_file: String,
    /// SHA-256 of the distances file, lowercase hex; empty where there is none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub distances_sha256: String,
    /// Where the table was searched in slabs (from disk, or in host memory): its slabs and the
    /// bytes they moved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk: Option<DiskReport>,
}

/// What a search from disk read and wrote.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiskReport {
    /// The slabs the table was cut into.
    pub slabs: usize,
    /// Whether they lived in host memory (a GPU sweeping them), not on disk: nothing was read
    /// or written then.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub in_memory: bool,
    /// Bytes read from the slabs' files, in all.
    pub read_bytes: u64,
    /// Bytes written to them, in all.
    pub written_bytes: u64,
    /// Seconds spent reading and writing them.
    pub io_seconds: f64,
    /// The bytes read and written by each step: laying the slabs out (entry `d` for a run that
    /// went on from level `d`, zeros before it), then each pass, the one that found level `d + 1`
    /// at `d + 1`, the last one finding nothing.
    pub levels: Vec<[u64; 2]>,
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
        if let Some(classes) = &self.class_levels {
            let mut csv = String::from("distance,count,classes\n");
            for (d, (count, c)) in levels.iter().zip(classes).enumerate() {
                let _ = writeln!(csv, "{d},{count},{c}");
            }
            csv
        } else if self.levels.levels.is_some() {
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

    /// `report.md`: the same facts as tables to paste into a page, each antipode written by
    /// `notation` (the family's: [`crate::puzzle::StateSpace::format_position`]).
    pub fn to_markdown(&self, notation: &dyn Fn(&[u32]) -> String) -> String {
        let p = &self.puzzle;
        let params: Vec<String> = (p.shown_params().iter())
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        let mut md = String::new();
        let _ = writeln!(
            md,
            "# {} {}, metric {}\n",
            p.puzzle,
            params.join(", "),
            p.metric
        );
        md.push_str("| | |\n|---|---|\n");
        let mut rows = vec![
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
                    None => format!("{} ({})", self.backend, count(self.threads, "thread")),
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
                match self.distances_file.is_empty() {
                    true => "none: the report alone was asked for".into(),
                    false => format!(
                        "`{}` (SHA-256 `{}`)",
                        self.distances_file, self.distances_sha256
                    ),
                },
            ),
        ];
        // A row inserted after the row named `key`.
        let after = |rows: &mut Vec<(&str, String)>, key: &str, row: (&'static str, String)| {
            let at = rows
                .iter()
                .position(|(k, _)| *k == key)
                .map_or(rows.len(), |i| i + 1);
            rows.insert(at, row);
        };
        if p.metric == crate::puzzle::perm::family::DIRECTED {
            let one_way = "one way, from the start to each position: the moves are the generators without their inverses (a directed graph)";
            after(&mut rows, "moves", ("distances", one_way.into()));
        }
        if let (Some(sym), Some(per_second)) = (&p.symmetry, self.classes_per_second) {
            let group = format!(
                "{} ({} symmetries): one table entry per class of symmetric positions, for {} positions",
                sym.group, sym.order, sym.positions
            );
            after(&mut rows, "table entries", ("symmetry", group));
            let searched = ("classes searched", format!("{per_second:.0}/s"));
            after(&mut rows, "search time", searched);
        }
        if let Some(d) = &self.disk {
            after(
                &mut rows,
                "search time",
                (
                    "from disk",
                    format!(
                        "{} slabs; read {}, written {}, {:.1} s of input and output",
                        d.slabs,
                        crate::units::bytes(d.read_bytes),
                        crate::units::bytes(d.written_bytes),
                        d.io_seconds
                    ),
                ),
            );
        }
        for (key, value) in rows {
            let _ = writeln!(md, "| {key} | {value} |");
        }
        let levels = self.levels.levels();
        if let Some(classes) = &self.class_levels {
            md.push_str("\n## Positions at each distance\n\n");
            md.push_str("| distance | positions | cumulative | classes |\n|---:|---:|---:|---:|\n");
            let mut total = 0;
            for (d, (count, c)) in levels.iter().zip(classes).enumerate() {
                total += count;
                let _ = writeln!(md, "| {d} | {count} | {total} | {c} |");
            }
        } else if self.levels.levels.is_some() {
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
            let _ = writeln!(md, "- `{}`", notation(a));
        }
        md
    }
}

impl Report {
    /// `levels.svg`: the positions at each distance on a log scale (bars; a line over the runs
    /// where the levels are many).
    pub fn levels_svg(&self) -> String {
        let levels = self.levels.levels();
        let (width, height) = (720.0, 360.0);
        let (left, right, top, bottom) = (70.0, 20.0, 40.0, 50.0);
        let plot_w = width - left - right;
        let plot_h = height - top - bottom;
        let max = levels.iter().max().unwrap_or(1).max(1) as f64;
        let decades = max.log10().ceil().max(1.0);
        let span = levels.len().max(1) as f64;
        let x = |d: f64| left + plot_w * d / span;
        // The axis starts a little below 1 (at 10^-FLOOR), so that a level of one position
        // still shows as a bar.
        const FLOOR: f64 = 0.3;
        let y = |count: f64| {
            top + plot_h * (1.0 - (count.max(1.0).log10() + FLOOR) / (decades + FLOOR))
        };
        let p = &self.puzzle;
        let params: Vec<String> = (p.shown_params().iter())
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        let mut svg = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"{width}\" height=\"{height}\" fill=\"white\"/>\n<text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">{} ({}), metric {}: {} positions, diameter {}</text>\n",
            width / 2.0,
            escape(&p.puzzle),
            escape(&params.join(", ")),
            escape(&p.metric),
            self.reachable,
            self.diameter
        );
        // A grid line and label at each power of ten.
        for k in 0..=decades as u32 {
            let yy = y(10f64.powi(k as i32));
            let _ = writeln!(
                svg,
                "<line x1=\"{left}\" y1=\"{yy:.1}\" x2=\"{:.1}\" y2=\"{yy:.1}\" stroke=\"#ddd\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">1e{k}</text>",
                width - right,
                left - 6.0,
                yy + 4.0
            );
        }
        if levels.len() <= 400 {
            let bar = plot_w / span;
            for (d, count) in levels.iter().enumerate() {
                let yy = y(count as f64);
                let _ = writeln!(
                    svg,
                    "<rect x=\"{:.2}\" y=\"{yy:.2}\" width=\"{:.2}\" height=\"{:.2}\" fill=\"#4878a8\"><title>distance {d}: {count}</title></rect>",
                    x(d as f64) + bar * 0.1,
                    bar * 0.8,
                    top + plot_h - yy
                );
            }
        } else {
            let mut points = Vec::new();
            let mut at = 0u64;
            for run in levels.runs() {
                let yy = y(run.count as f64);
                points.push(format!("{:.2},{yy:.2}", x(at as f64)));
                at += run.repeat;
                points.push(format!("{:.2},{yy:.2}", x(at as f64)));
            }
            let _ = writeln!(
                svg,
                "<polyline points=\"{}\" fill=\"none\" stroke=\"#4878a8\" stroke-width=\"2\"/>",
                points.join(" ")
            );
        }
        let _ = writeln!(
            svg,
            "<line x1=\"{left}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"black\"/>\n<text x=\"{left}\" y=\"{:.1}\">0</text><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\n<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">distance from solved</text>\n<text x=\"16\" y=\"{:.1}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {:.1})\">positions (log scale)</text>\n</svg>",
            top + plot_h,
            width - right,
            top + plot_h,
            top + plot_h + 16.0,
            width - right,
            top + plot_h + 16.0,
            self.diameter,
            left + plot_w / 2.0,
            height - 12.0,
            top + plot_h / 2.0,
            top + plot_h / 2.0
        );
        svg
    }
}

/// Text made safe inside SVG.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
