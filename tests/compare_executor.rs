//! `ticklab compare --kind executor`: the book's table is the command's output, and the command
//! refuses what it cannot compare.

use assert_cmd::Command;

const CHAPTER: &str = "docs/book/src/kinds/schedulers.md";
const START: &str = "<!-- compare-executor: ticklab compare --kind executor -->\n```text\n";
const END: &str = "```\n<!-- /compare-executor -->";

fn compare(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("ticklab")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("compare")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn the_books_table_is_the_commands_output() {
    let output = compare(&["--kind", "executor"]);
    assert!(output.status.success(), "{output:?}");
    let table = String::from_utf8(output.stdout).unwrap();
    let chapter =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(CHAPTER))
            .unwrap();
    let start = chapter.find(START).expect("the table's start marker") + START.len();
    let end = start + chapter[start..].find(END).expect("the table's end marker");
    assert_eq!(
        &chapter[start..end],
        table,
        "rerun `cargo run -- compare --kind executor` and paste its output into {CHAPTER}"
    );
}

#[test]
fn the_lifo_incident_breaks_only_tokios_multi_thread_scheduler() {
    let output = compare(&[
        "--kind",
        "executor",
        "scenarios/executor/tokio-4730-lifo-slot.toml",
    ]);
    let table = String::from_utf8(output.stdout).unwrap();
    let broken: Vec<(&str, &str)> = table
        .lines()
        .filter(|line| line.starts_with("| tokio-4730"))
        .map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            (cells[2], cells[6])
        })
        .collect();
    assert_eq!(
        broken,
        [
            ("tokio-multi-thread", "1"),
            ("tokio-current-thread", "0"),
            ("async-executor", "0"),
            ("go", "0"),
            ("thread-per-core", "0"),
        ],
        "{table}"
    );
}

#[test]
fn an_unknown_scheduler_or_a_timer_workload_is_refused_with_exit_code_2() {
    let output = compare(&["--kind", "executor", "--designs", "tokio-multithread"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("unknown scheduler `tokio-multithread`; this binary knows tokio-multi-thread, tokio-current-thread, async-executor, go, thread-per-core"),
        "{stderr}"
    );
    let output = compare(&["--kind", "executor", "scenarios/timer/compare/rpc-10k.toml"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("a workload is an executor scenario (kind = \"executor\")"),
        "{stderr}"
    );
}
