//! The samples of the book (docs/book/src) and of README.md stay true. Every ```toml block that
//! is a whole scenario (it has a `[model]` table) parses with ticklab's own parser and passes
//! `ticklab check`, or fails it with exit code 1 when the block is marked ```toml,fails (a
//! regression file that records a failure). `mdbook test` cannot link ticklab, so this test does
//! it instead. The Rust samples are doc tests of src/lib.rs, except those marked ```rust,ignore,
//! which quote examples/ (a crate of their own): each line of one must be a line of a file there.
//!
//! The generated reference pages under docs/book/src/reference/ are checked against the code by
//! tests/reference.rs, and are left out here.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One ```toml block of a chapter.
struct Sample {
    chapter: PathBuf,
    /// The line of the chapter the block's first line is on, counted from 1.
    first_line: usize,
    text: String,
    /// The info string says `fails` (a scenario `check` must fail with exit code 1) or `ignore` (Rust
    /// that the doc tests skip, which must quote examples/).
    marked: bool,
}

fn book_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/book/src")
}

fn chapters(dir: &Path, found: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if path.file_name().is_some_and(|name| name != "reference") {
                chapters(&path, found);
            }
        } else if path.extension().is_some_and(|ext| ext == "md") {
            found.push(path);
        }
    }
}

/// Every fenced block of `text` in `language`, indented or not, with where it starts.
fn blocks(chapter: &Path, text: &str, language: &str) -> Vec<Sample> {
    let mut samples = Vec::new();
    let mut open: Option<(String, Sample)> = None;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        match open.take() {
            None => {
                if let Some(info) = trimmed.strip_prefix("```")
                    && info.split(',').next() == Some(language)
                {
                    let sample = Sample {
                        chapter: chapter.to_path_buf(),
                        first_line: index + 2,
                        text: String::new(),
                        marked: info
                            .split(',')
                            .any(|word| word == "fails" || word == "ignore"),
                    };
                    open = Some((indent.to_string(), sample));
                }
            }
            Some((fence_indent, mut sample)) => {
                if trimmed == "```" {
                    samples.push(sample);
                } else {
                    sample
                        .text
                        .push_str(line.strip_prefix(fence_indent.as_str()).unwrap_or(line));
                    sample.text.push('\n');
                    open = Some((fence_indent, sample));
                }
            }
        }
    }
    samples
}

/// The book's chapters and README.md.
fn pages() -> Vec<PathBuf> {
    let mut found = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")];
    chapters(&book_src(), &mut found);
    found
}

fn samples(language: &str) -> Vec<Sample> {
    pages()
        .iter()
        .flat_map(|page| blocks(page, &std::fs::read_to_string(page).unwrap(), language))
        .collect()
}

fn whole_scenarios() -> Vec<Sample> {
    samples("toml")
        .into_iter()
        .filter(|sample| sample.text.lines().any(|line| line.trim() == "[model]"))
        .collect()
}

/// Every line, trimmed, of the Rust files under `dir`.
fn rust_lines(dir: &Path, lines: &mut std::collections::BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_lines(&path, lines);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            lines.extend(text.lines().map(|line| line.trim().to_string()));
        }
    }
}

fn place(sample: &Sample) -> String {
    let relative = sample
        .chapter
        .strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(&sample.chapter);
    format!("{}:{}", relative.display(), sample.first_line)
}

#[test]
fn every_whole_scenario_in_the_book_parses_and_checks_as_the_book_says() {
    let samples = whole_scenarios();
    assert!(
        samples.len() >= 6,
        "found only {} whole scenarios in the book",
        samples.len()
    );
    let folder = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("book-samples");
    std::fs::create_dir_all(&folder).unwrap();
    let mut wrong = Vec::new();
    for (index, sample) in samples.iter().enumerate() {
        // Line numbers of a parse error count from the block's first line.
        if let Err(error) = ticklab::loader::parse("the sample", &sample.text) {
            wrong.push(format!(
                "the sample at {} (lines counted from there) does not parse: {error}",
                place(sample)
            ));
            continue;
        }
        let file = folder.join(format!("sample-{index}.toml"));
        std::fs::write(&file, &sample.text).unwrap();
        let output = Command::new(env!("CARGO_BIN_EXE_ticklab"))
            .arg("check")
            .arg(&file)
            .output()
            .unwrap();
        let want = if sample.marked { 1 } else { 0 };
        if output.status.code() != Some(want) {
            wrong.push(format!(
                "{}: `ticklab check` exited {:?}, the book says {want}:\n{}{}",
                place(sample),
                output.status.code(),
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_rust_sample_the_doc_tests_skip_quotes_the_examples() {
    let mut known = std::collections::BTreeSet::new();
    rust_lines(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples"),
        &mut known,
    );
    let quoted: Vec<Sample> = samples("rust")
        .into_iter()
        .filter(|sample| sample.marked)
        .collect();
    assert!(!quoted.is_empty(), "found no ```rust,ignore sample");
    let mut wrong = Vec::new();
    for sample in &quoted {
        for (offset, line) in sample.text.lines().enumerate() {
            if !line.trim().is_empty() && !known.contains(line.trim()) {
                wrong.push(format!(
                    "{}: `{}` is in no Rust file under examples/",
                    place(&Sample {
                        chapter: sample.chapter.clone(),
                        first_line: sample.first_line + offset,
                        text: String::new(),
                        marked: true,
                    }),
                    line.trim()
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn an_indented_toml_block_is_read_without_its_indent_and_marked_as_failing() {
    let chapter = Path::new("chapter.md");
    let text = "1. A list item:\n\n   ```toml,fails\n   [model]\n   kind = \"idle\"\n   ```\n";
    let samples = blocks(chapter, text, "toml");
    assert_eq!(samples.len(), 1);
    assert_eq!(samples[0].text, "[model]\nkind = \"idle\"\n");
    assert_eq!(samples[0].first_line, 4);
    assert!(samples[0].marked);
}

/// The test files a text names as entries of its `tests/` block: lines indented two spaces whose
/// first word ends in `.rs`.
fn named_test_files(layout: &str) -> std::collections::BTreeSet<String> {
    layout
        .lines()
        .skip_while(|line| *line != "tests/")
        .skip(1)
        .take_while(|line| line.starts_with(' '))
        .filter_map(|line| line.strip_prefix("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|word| word.ends_with(".rs"))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_code_file_by_file_names_every_test_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let layout = std::fs::read_to_string(book_src().join("layout.md")).unwrap();
    let named = named_test_files(&layout);
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(root.join("tests")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".rs") && !named.contains(&name) {
            missing.push(name);
        }
    }
    missing.sort();
    assert!(
        missing.is_empty(),
        "docs/book/src/layout.md's tests/ block leaves out {missing:?}"
    );
    // The reading itself: a block without one of them is caught.
    let without = layout.replace("  imports.rs ", "  ");
    assert!(!named_test_files(&without).contains("imports.rs"));
}

#[test]
fn every_source_file_the_book_cites_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut gone = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for word in text.split(|c: char| c == '`' || c == '(' || c == ')' || c.is_whitespace()) {
            let cited = word.trim_end_matches([',', '.', ':', ';']);
            let is_source = (cited.starts_with("src/")
                || cited.starts_with("sim/src/")
                || cited.starts_with("models/src/")
                || cited.starts_with("tests/"))
                && cited.ends_with(".rs");
            if is_source && !root.join(cited).exists() {
                gone.push(format!("{}: {cited}", page.display()));
            }
        }
    }
    assert!(
        gone.is_empty(),
        "the book cites files that do not exist: {gone:#?}"
    );
}

/// Each `cargo run --release -- ARGS` command of a page whose ```sh block is followed by a ```text
/// block: the command's arguments, and the text the page says it prints.
fn commands_and_outputs(page: &str) -> Vec<(Vec<String>, String)> {
    let lines: Vec<&str> = page.lines().collect();
    let mut found = Vec::new();
    let mut index = 0;
    while index + 2 < lines.len() {
        let command = lines[index + 1].strip_prefix("cargo run --release -- ");
        if lines[index] != "```sh" || lines[index + 2] != "```" || command.is_none() {
            index += 1;
            continue;
        }
        let mut at = index + 3;
        while at < lines.len() && lines[at].is_empty() {
            at += 1;
        }
        if lines.get(at) == Some(&"```text") {
            let end = (at + 1..lines.len())
                .find(|&line| lines[line] == "```")
                .expect("a closed block");
            let args = command
                .unwrap()
                .split_whitespace()
                .map(String::from)
                .collect();
            found.push((args, lines[at + 1..end].join("\n")));
            index = end;
        } else {
            index += 1;
        }
    }
    found
}

/// The tutorial's first sections as a reader follows them: write the scenario, `run` it, `check`
/// it, append the fault and `check` again. Each prints exactly what the page shows.
#[test]
fn the_tutorials_run_and_check_print_what_the_page_shows() {
    let path = book_src().join("tutorial.md");
    let page = std::fs::read_to_string(&path).unwrap();
    let tomls = blocks(&path, &page, "toml");
    let commands = commands_and_outputs(&page);
    assert!(commands.len() >= 3, "{} commands found", commands.len());
    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join("scenarios/timer/my-first-timeouts.toml");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, &tomls[0].text).unwrap();
    for (step, (args, expected)) in commands.iter().take(3).enumerate() {
        if step == 2 {
            // Section 5 appends the fault before its `check`.
            let with_fault = format!("{}\n{}", tomls[0].text, tomls[1].text);
            std::fs::write(&file, with_fault).unwrap();
        }
        let output = Command::new(env!("CARGO_BIN_EXE_ticklab"))
            .args(args)
            .current_dir(folder.path())
            .output()
            .unwrap();
        let printed = String::from_utf8(output.stdout).unwrap();
        assert_eq!(
            printed.trim_end(),
            expected.trim_end(),
            "tutorial.md: `ticklab {}` prints something else",
            args.join(" ")
        );
        assert_eq!(output.status.code(), Some(if step == 2 { 1 } else { 0 }));
    }
}

/// Runs `ticklab ARGS` in `folder`: its stdout, its stderr with `folder` written as the page
/// writes a reader's checkout, and its exit code.
fn ticklab_in(folder: &Path, args: &[String]) -> (String, String, Option<i32>) {
    let output = Command::new(env!("CARGO_BIN_EXE_ticklab"))
        .args(args)
        .current_dir(folder)
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr)
        .unwrap()
        .replace(&folder.display().to_string(), "/home/me/ticklab");
    (
        String::from_utf8(output.stdout).unwrap(),
        stderr,
        output.status.code(),
    )
}

/// The tutorial's sections 6 and 7 as a reader follows them: the sweep finds and shrinks the
/// failure and writes the regression file the page shows, its replay prints the page's trace,
/// and after the fix `check` passes both files and the same sweep finds nothing.
#[test]
fn the_tutorials_sweep_replay_and_fix_print_what_the_page_shows() {
    let path = book_src().join("tutorial.md");
    let page = std::fs::read_to_string(&path).unwrap();
    let tomls = blocks(&path, &page, "toml");
    let texts = blocks(&path, &page, "text");
    let commands = commands_and_outputs(&page);
    let folder = tempfile::tempdir().unwrap();
    let scenario = folder.path().join("scenarios/timer/my-first-timeouts.toml");
    std::fs::create_dir_all(scenario.parent().unwrap()).unwrap();
    std::fs::write(&scenario, &tomls[0].text).unwrap();

    let (sweep, shown) = &commands[3];
    assert_eq!(sweep[0], "sweep", "section 6 starts with the sweep");
    let (_, printed, code) = ticklab_in(folder.path(), sweep);
    assert_eq!(
        printed.trim_end(),
        shown.trim_end(),
        "tutorial.md: the sweep"
    );
    assert_eq!(code, Some(1), "a sweep that finds a failure exits 1");

    let written = shown
        .lines()
        .find_map(|line| line.strip_prefix("written to "))
        .expect("the sweep says where it wrote");
    let regression = folder.path().join(written);
    let file = std::fs::read_to_string(&regression).unwrap();
    let on_page = tomls
        .iter()
        .find(|toml| toml.text.starts_with("# Found by"))
        .expect("the page shows the regression file");
    assert_eq!(file, on_page.text, "tutorial.md: the regression file");

    let (replay, shown) = &commands[4];
    let (printed, _, code) = ticklab_in(folder.path(), replay);
    assert!(
        printed.contains(shown.trim_end()),
        "tutorial.md: the replay's trace has no stretch the page shows:\n{printed}"
    );
    assert_eq!(code, Some(1), "the regression fails until it is fixed");

    for file in [&scenario, &regression] {
        let text = std::fs::read_to_string(file).unwrap();
        assert!(text.contains("clock = \"wall\""), "{text}");
        std::fs::write(
            file,
            text.replace("clock = \"wall\"", "clock = \"monotonic\""),
        )
        .unwrap();
    }
    let (check, shown) = &commands[5];
    let (printed, _, code) = ticklab_in(folder.path(), check);
    assert_eq!(
        printed.trim_end(),
        shown.trim_end(),
        "tutorial.md: the check after the fix"
    );
    assert_eq!(code, Some(0));

    let nothing = texts
        .iter()
        .find(|text| text.text.contains("cases of shard"))
        .expect("the page shows the clean sweep");
    let (printed, _, code) = ticklab_in(folder.path(), sweep);
    assert_eq!(
        printed.trim_end(),
        nothing.text.trim_end(),
        "tutorial.md: the clean sweep"
    );
    assert_eq!(code, Some(0));
}
