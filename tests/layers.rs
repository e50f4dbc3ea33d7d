//! The library names no command-line flag: its messages name settings ([`gpusearch::setting`])
//! and family options (`PuzzleError`), and the command line (`src/main.rs`) writes them as flags.

mod common;

use common::gpusearch;
use std::collections::BTreeSet;
use std::path::Path;

/// Every long flag the command line takes, read from its help.
fn flags() -> BTreeSet<String> {
    let mut flags = BTreeSet::new();
    for args in [
        &["--help"][..],
        &["solve", "--help"],
        &["verify", "--help"],
        &["tables", "--help"],
    ] {
        let help = String::from_utf8(gpusearch(args).stdout).unwrap();
        for word in help.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')) {
            if let Some(name) = word.strip_prefix("--")
                && !name.is_empty()
            {
                flags.insert(format!("--{name}"));
            }
        }
    }
    flags
}

/// The `.rs` files under `dir`.
fn sources(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

#[test]
fn no_library_module_names_a_flag() {
    let flags = flags();
    for flag in [
        "--puzzle",
        "--n",
        "--memory",
        "--backend",
        "--state",
        "--check",
    ] {
        assert!(flags.contains(flag), "{flag} is missing from {flags:?}");
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut found = Vec::new();
    for file in files {
        // The command line itself.
        if file == src.join("main.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for (number, line) in text.lines().enumerate() {
            // Comments may say how a user gives a setting, and so may a command quoted for a
            // user to paste (`results/README.md`'s); messages may not.
            let code = line.split("//").next().unwrap();
            if code.contains("cargo run") {
                continue;
            }
            for flag in &flags {
                let named = code.match_indices(flag.as_str()).any(|(at, _)| {
                    let after = code[at + flag.len()..].chars().next();
                    !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
                });
                if named {
                    found.push(format!("{}:{}: {flag}", file.display(), number + 1));
                }
            }
        }
    }
    assert!(found.is_empty(), "flags named in the library: {found:#?}");
}
