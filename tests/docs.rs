//! The examples of README.md and docs/*.md, run as written (trycmd), so that they cannot go
//! stale.
//!
//! In each page, every ` ```console ` block's `$ gpusearch ...` lines are run in order, and
//! their output (stdout and stderr together) must match the lines under them: `[..]` stands
//! for any text within a line (timings, rates) and a line `...` for any lines. Blocks of another
//! language (`sh`, `text`) are not run, but a block with no language would be, so every block
//! names one. Each page runs in a sandbox of its own, a temporary folder holding a copy of
//! `puzzles/`, so its runs write into `runs/` there, as in a checkout, and later commands of the
//! page read what earlier ones wrote.
//!
//! After a change of output, `TRYCMD=overwrite cargo test --test docs` writes the new output
//! into the pages themselves (through the links made here); check the diff, and put `[..]`
//! back where it wrote timings.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::time::Duration;

/// The pages whose examples run: README.md and every page of docs/.
fn pages(root: &Path) -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ is there")
        .map(|e| e.expect("docs/ lists").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    pages.insert(0, root.join("README.md"));
    pages
}

/// Copies the files of `from` into `to` (one level: `puzzles/` has no folders).
fn copy_files(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
        }
    }
}

#[test]
fn the_examples_in_the_readme_and_docs_give_the_output_shown() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // trycmd takes a page's sandbox from the folders beside it (PAGE.in: the files the runs
    // start with; PAGE.out: the files expected after them, none here, but its presence asks for
    // a sandbox), so each page is linked from a folder of our own, beside its two folders.
    let stage = Path::new(env!("CARGO_TARGET_TMPDIR")).join("docs");
    let _ = std::fs::remove_dir_all(&stage);
    std::fs::create_dir_all(&stage).unwrap();
    let cases = trycmd::TestCases::new();
    cases
        .register_bin("gpusearch", Path::new(env!("CARGO_BIN_EXE_gpusearch")))
        .timeout(Duration::from_secs(300));
    for page in pages(root) {
        let link = stage.join(page.file_name().unwrap());
        std::os::unix::fs::symlink(&page, &link).unwrap();
        copy_files(
            &root.join("puzzles"),
            &link.with_extension("in").join("puzzles"),
        );
        let expected = link.with_extension("out");
        std::fs::create_dir_all(&expected).unwrap();
        std::fs::write(expected.join(".keep"), "").unwrap();
        cases.case(&link);
    }
    cases.run();
}
