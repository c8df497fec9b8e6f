//! A command stopped by Ctrl-C or `kill` while it writes a file removes its temporary file: the
//! target is never half written, and no hidden `.ticklab-*.partial` is left beside it.
#![cfg(unix)]

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// An interval that ticks every millisecond for two days: 173 million ticks, a trace far longer
/// than the test waits for.
const LONG_RUN: &str = r#"
about = "a millisecond interval for two days"
platform = "linux"
run_for = "2d"
[model]
kind = "interval"
missed_tick = "burst"
period = "1ms"
"#;

/// The temporary files in `folder`.
fn partials(folder: &Path) -> Vec<String> {
    std::fs::read_dir(folder)
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.starts_with(".ticklab-"))
        .collect()
}

/// Waits until `child` has written some of its trace to a temporary file in `folder`.
fn wait_for_a_partial(child: &mut Child, folder: &Path) {
    let started = Instant::now();
    loop {
        let written = std::fs::read_dir(folder).unwrap().any(|entry| {
            let entry = entry.unwrap();
            entry.file_name().to_string_lossy().starts_with(".ticklab-")
                && entry.metadata().unwrap().len() > 0
        });
        if written {
            return;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it wrote anything"
        );
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no partial file after two minutes"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_run_stopped_by_a_signal_leaves_no_partial_file() {
    for signal in ["TERM", "INT"] {
        let folder = tempfile::tempdir().unwrap();
        let scenario = folder.path().join("long.toml");
        std::fs::write(&scenario, LONG_RUN).unwrap();
        let target = folder.path().join("trace.txt");
        let mut child = Command::new(env!("CARGO_BIN_EXE_ticklab"))
            .args(["run", scenario.to_str().unwrap(), "--out"])
            .arg(&target)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        wait_for_a_partial(&mut child, folder.path());
        let sent = Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(130), "SIG{signal}: {stderr}");
        assert!(
            stderr.contains("interrupted: removed"),
            "SIG{signal}: {stderr}"
        );
        assert_eq!(partials(folder.path()), Vec::<String>::new(), "SIG{signal}");
        assert!(!target.exists(), "SIG{signal}: the target was written");
    }
}
