//! What a new user meets at the edges: the largest sizes each family allows, output folders that
//! hold another puzzle's result, strategies asked for, and the docs' lists of families.

mod common;
use common::{gpusearch, scratch};
use gpusearch::puzzle::FAMILIES;
use sha2::{Digest, Sha256};
use std::path::Path;
use std::process::Output;

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Each family at the largest size its options allow (a definition file at the largest the
/// repository ships), and what its dry run says: the table's entries where it is refused, or
/// `None` where the plan holds it.
fn largest_sizes() -> Vec<(&'static str, Vec<String>, Option<&'static str>)> {
    let puzzles = concat!(env!("CARGO_MANIFEST_DIR"), "/puzzles");
    let points: Vec<String> = (1..=20).map(|p| p.to_string()).collect();
    let cycle = format!("(1,2); ({})", points.join(","));
    let words = |text: &str| text.split(' ').map(String::from).collect::<Vec<_>>();
    vec![
        ("turnstyle", words("--n 16"), None),
        ("turnstyle", words("--n 16 --metric flips"), None),
        ("topspin", words("--n 16"), None),
        (
            "rotation",
            words("--rows 4 --cols 5 --block 2"),
            Some("2432902008176640000 entries"),
        ),
        (
            "perm",
            vec!["--gens".into(), cycle],
            Some("2432902008176640000 entries"),
        ),
        (
            "perm",
            vec!["--def".into(), format!("{puzzles}/dino.tws")],
            None,
        ),
        ("rings", words("--n 34"), None),
        (
            "key",
            vec!["--def".into(), format!("{puzzles}/free-the-key.txt")],
            None,
        ),
        ("hanoi", words("--pegs 8 --discs 16"), None),
        (
            "sliding",
            words("--rows 4 --cols 5"),
            Some("1216451004088320000 entries"),
        ),
        (
            "pancake",
            words("--n 20"),
            Some("2432902008176640000 entries"),
        ),
        (
            "pancake",
            words("--n 16 --burnt"),
            Some("1371195958099968000 entries"),
        ),
    ]
}

#[test]
fn every_family_at_its_largest_size_is_planned_or_refused_naming_its_size() {
    let cases = largest_sizes();
    for family in FAMILIES {
        assert!(
            cases.iter().any(|(name, _, _)| *name == family.name()),
            "no largest size for {}",
            family.name()
        );
    }
    // A budget that cuts the largest Hanoi table into 305,041 slabs is planned as quickly.
    let args = "--puzzle hanoi --pegs 8 --discs 16 --memory 1GiB --dry-run";
    let small = gpusearch(&args.split(' ').collect::<Vec<_>>());
    let plan = String::from_utf8_lossy(&small.stdout);
    assert!(
        plan.contains("disk tier: the table in 305041 slabs"),
        "{plan}"
    );
    for (family, options, refusal) in cases {
        let mut args = vec!["--puzzle", family, "--dry-run", "--memory", "8GiB"];
        args.extend(options.iter().map(String::as_str));
        let output = gpusearch(&args);
        let text = stderr(&output);
        match refusal {
            None => assert!(output.status.success(), "{args:?}: {text}"),
            Some(size) => {
                assert_eq!(output.status.code(), Some(2), "{args:?}: {text}");
                assert_eq!(text.trim_end().lines().count(), 1, "one line: {text}");
                assert!(text.contains(size), "{args:?}: {text}");
                assert!(text.contains("more than any plan holds"), "{text}");
            }
        }
    }
}

fn sha(path: &Path) -> Vec<u8> {
    Sha256::digest(std::fs::read(path).unwrap()).to_vec()
}

#[test]
fn a_folder_holding_another_puzzles_result_is_not_replaced_without_force() {
    let dir = scratch("force");
    let out = dir.join("run");
    let o = out.to_str().unwrap();
    let turnstyle = ["--puzzle", "turnstyle", "--n", "6", "--quiet", "--out", o];
    let rings = ["--puzzle", "rings", "--n", "6", "--quiet", "--out", o];
    assert!(gpusearch(&turnstyle).status.success());
    let before = sha(&out.join("distances.gsd"));
    // The same puzzle again replaces its own result.
    assert!(gpusearch(&turnstyle).status.success());
    let refused = gpusearch(&rings);
    let text = stderr(&refused);
    assert_eq!(refused.status.code(), Some(2), "{text}");
    assert_eq!(text.trim_end().lines().count(), 1, "one line: {text}");
    assert!(text.contains("another puzzle (turnstyle n=6"), "{text}");
    assert!(text.contains("--force"), "{text}");
    assert_eq!(sha(&out.join("distances.gsd")), before);
    // A folder with only the report (as results/ keeps the largest runs) is the report's puzzle's.
    std::fs::remove_file(out.join("distances.gsd")).unwrap();
    assert_eq!(gpusearch(&rings).status.code(), Some(2));
    let forced = gpusearch(&[&rings[..], &["--force"]].concat());
    assert!(forced.status.success(), "{}", stderr(&forced));
    let report = std::fs::read_to_string(out.join("report.json")).unwrap();
    assert!(report.contains("\"puzzle\": \"rings\""), "{report}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn definitions_of_one_file_name_get_their_own_folders() {
    let dir = scratch("definitions");
    let definition =
        |moves: &str| format!("Name Three\n\nSet P 3 1\n\nSolved\nP\n1 2 3\nEnd\n\n{moves}");
    let slug_of = |folder: &str, text: &str| {
        let at = dir.join(folder);
        std::fs::create_dir_all(&at).unwrap();
        let file = at.join("three.tws");
        std::fs::write(&file, text).unwrap();
        let plan = gpusearch(&[
            "--puzzle",
            "perm",
            "--def",
            file.to_str().unwrap(),
            "--dry-run",
        ]);
        assert!(plan.status.success(), "{}", stderr(&plan));
        let text = String::from_utf8_lossy(&plan.stdout).into_owned();
        text.split_whitespace().next().unwrap().to_string()
    };
    let swap = definition("Move A\nP\n2 1 3\nEnd\n\nMove B\nP\n1 3 2\nEnd\n\n");
    let cycle = definition("Move A\nP\n2 3 1\nEnd\n\n");
    let (first, second) = (slug_of("a", &swap), slug_of("b", &cycle));
    assert!(
        first.starts_with("perm-three-") && first.ends_with("-htm"),
        "{first}"
    );
    assert_ne!(first, second);
    // The same definition in another folder: the same default folder.
    assert_eq!(slug_of("c", &swap), first);
    // Searched into one folder by two paths to the same file: the same puzzle, replaced.
    let out = dir.join("run");
    for path in ["a/three.tws", "a/./three.tws", "c/three.tws"] {
        let def = dir.join(path);
        let (def, o) = (def.to_str().unwrap(), out.to_str().unwrap());
        let run = gpusearch(&["--puzzle", "perm", "--def", def, "--quiet", "--out", o]);
        assert!(run.status.success(), "{path}: {}", stderr(&run));
    }
    // The other definition is another puzzle.
    let def = dir.join("b/three.tws");
    let (def, o) = (def.to_str().unwrap(), out.to_str().unwrap());
    let other = gpusearch(&["--puzzle", "perm", "--def", def, "--quiet", "--out", o]);
    assert_eq!(other.status.code(), Some(2), "{}", stderr(&other));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_strategy_asked_for_is_refused_rather_than_searched_from_disk() {
    // Turnstyle 12's table (114 MiB) and little else fit 200 MiB; the full strategy does not.
    let args = [
        "--puzzle",
        "turnstyle",
        "--n",
        "12",
        "--memory",
        "200MiB",
        "--dry-run",
    ];
    let auto = gpusearch(&args);
    let plan = String::from_utf8_lossy(&auto.stdout);
    assert!(auto.status.success(), "{}", stderr(&auto));
    assert!(plan.contains("disk tier"), "{plan}");
    for strategy in ["full", "lean"] {
        let asked = gpusearch(&[&args[..], &["--strategy", strategy]].concat());
        let text = stderr(&asked);
        assert_eq!(asked.status.code(), Some(2), "{strategy}: {text}");
        let advice = "(209715200 bytes): give a larger --memory, leave the strategy to the plan";
        assert!(text.contains(advice), "{text}");
        assert!(text.contains("(--strategy auto: from disk"), "{text}");
    }
}

#[test]
fn verifying_a_missing_file_is_bad_input() {
    let output = gpusearch(&["verify", "no/such/distances.gsd"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("no such file"));
}

/// The lines of `page` (under the repository) from the first that contains `from` up to the
/// first blank line after it.
fn section(page: &str, from: &str) -> String {
    let text = std::fs::read_to_string(format!("{}/{page}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let start = text
        .find(from)
        .unwrap_or_else(|| panic!("{page}: no '{from}'"));
    let rest = &text[start..];
    rest[..rest.find("\n\n").unwrap_or(rest.len())].to_string()
}

#[test]
fn the_docs_name_every_family_wherever_families_are_listed() {
    for family in FAMILIES {
        let name = family.name();
        let listed = [
            (
                "docs/command-line.md",
                "gpusearch --puzzle turnstyle",
                format!("--puzzle {name} "),
            ),
            (
                "docs/command-line.md",
                "| `--puzzle` |",
                format!("`{name}`"),
            ),
            ("docs/file-format.md", "| `puzzle` |", format!("`{name}`")),
        ];
        for (page, from, needle) in listed {
            let lines = section(page, from);
            let lines = match from.starts_with('|') {
                true => lines.lines().next().unwrap().to_string(),
                false => lines,
            };
            assert!(
                lines.contains(&needle),
                "{page}: {name} missing from {lines}"
            );
        }
    }
    // Every shader is named in the GPU page's list of them.
    let gpu = section("docs/gpu.md", "The kernels are WGSL compute shaders");
    let shaders = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/shaders")).unwrap();
    for shader in shaders {
        let name = shader.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            gpu.contains(&name),
            "docs/gpu.md does not list shaders/{name}"
        );
    }
}

#[test]
fn the_time_estimates_hold_every_published_run_within_their_spread() {
    use gpusearch::plan::{Estimate, SPREAD, Tier};
    use gpusearch::puzzle::registry::space_of;
    use gpusearch::report::Report;
    let results = concat!(env!("CARGO_MANIFEST_DIR"), "/results");
    let mut checked = Vec::new();
    for folder in std::fs::read_dir(results).unwrap() {
        let path = folder.unwrap().path().join("report.json");
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let report: Report = serde_json::from_str(&text).unwrap();
        // Shorter runs are mostly setting up; the GPU's runs are another machine's.
        if report.seconds < 2.0 || report.backend != "cpu" {
            continue;
        }
        let space = space_of(&report.puzzle).unwrap();
        let tier = match &report.disk {
            Some(disk) if !disk.in_memory => Tier::DiskSlabs { gpu: false },
            _ => Tier::Memory,
        };
        let estimate = Estimate::of(space.size(), space.measured_rate(), report.threads, tier);
        let ratio = estimate.seconds / report.seconds;
        checked.push(format!("{}: {ratio:.2}", space.slug()));
        assert!(
            (1.0 / SPREAD..=SPREAD).contains(&ratio),
            "{}: estimated {:.1} s, took {:.1} s",
            space.slug(),
            estimate.seconds,
            report.seconds
        );
    }
    assert!(checked.len() >= 15, "{checked:?}");
    println!("estimate / search time: {checked:#?}");
}

#[test]
fn a_definition_moved_elsewhere_still_resumes_and_solves_its_run() {
    let dir = scratch("moved-definition");
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/puzzles/cube-2x2x2.tws"
    ))
    .unwrap();
    let (first, moved) = (dir.join("first.tws"), dir.join("elsewhere/moved.tws"));
    std::fs::create_dir_all(moved.parent().unwrap()).unwrap();
    std::fs::write(&first, &text).unwrap();
    let out = dir.join("run");
    let checkpoint = out.join("checkpoint.gsc");
    let o = out.to_str().unwrap();
    let command = |def: &Path, resume: bool| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_gpusearch"));
        c.args([
            "--puzzle",
            "perm",
            "--def",
            def.to_str().unwrap(),
            "--quiet",
        ]);
        c.args(["--checkpoint-every", "0", "--out", o]);
        c.args(resume.then_some("--resume"));
        c
    };
    let kills = common::kill_after_checkpoints(|r| command(&first, r), &checkpoint, &[0]);
    assert_eq!(kills, 1, "never killed");
    assert!(checkpoint.exists());
    // The file moves (a scratch folder emptied, say): the same definition at another path.
    std::fs::rename(&first, &moved).unwrap();
    let resumed = command(&moved, true).output().unwrap();
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    let report = std::fs::read_to_string(out.join("report.json")).unwrap();
    assert!(report.contains("\"diameter\": 11"), "{report}");
    let def = moved.to_str().unwrap();
    let solve = gpusearch(&[
        "solve", "--puzzle", "perm", "--def", def, "--out", o, "--moves", "R U F",
    ]);
    assert!(solve.status.success(), "{}", stderr(&solve));
    // Another definition at that path is another puzzle, whose table this is not.
    let mut other = text.replace("Name Cube2x2x2", "Name Other");
    assert_ne!(other, text);
    other.push('\n');
    std::fs::write(&moved, other).unwrap();
    let refused = gpusearch(&[
        "solve", "--puzzle", "perm", "--def", def, "--out", o, "--moves", "R U F",
    ]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("another puzzle"),
        "{}",
        stderr(&refused)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
