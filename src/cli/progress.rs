//! `check`'s progress line on stderr: scenarios done, failures so far, and the slowest scenario
//! still running with its real elapsed time. Real time appears here only, never in a trace or on
//! stdout, whose bytes stay the same from run to run.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle, TermLike};

/// When to show progress, as cargo's `--color` says when to colour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum When {
    /// Only when stderr is a terminal.
    #[default]
    Auto,
    /// Always; on a pipe or file, as a plain line each time a scenario starts or ends, and each
    /// second.
    Always,
    /// Never.
    Never,
}

/// The scenarios running now, each with the instant it started.
type Running = Arc<Mutex<Vec<(String, Instant)>>>;

/// The progress of a batch of scenarios, shared by the threads that run them.
#[derive(Debug)]
pub(super) struct Progress {
    bar: ProgressBar,
    running: Running,
    failed: Arc<AtomicU64>,
}

impl Progress {
    pub fn new(when: When, total: usize) -> Self {
        let target = match when {
            // indicatif draws nothing when stderr is not a terminal.
            When::Auto => ProgressDrawTarget::stderr(),
            When::Always if std::io::stderr().is_terminal() => ProgressDrawTarget::stderr(),
            When::Always => {
                ProgressDrawTarget::term_like_with_hz(Box::new(PlainLines::default()), 4)
            }
            When::Never => ProgressDrawTarget::hidden(),
        };
        let running = Running::default();
        let failed = Arc::new(AtomicU64::new(0));
        let bar = ProgressBar::with_draw_target(Some(total as u64), target);
        bar.set_style(style(&running, &failed));
        // Redraws the elapsed time of the slowest run while nothing finishes.
        if !bar.is_hidden() {
            bar.enable_steady_tick(Duration::from_secs(1));
        }
        Progress {
            bar,
            running,
            failed,
        }
    }

    /// Runs `work` as the scenario `name`, counting it done (and failed, if `failed` says so of
    /// its result) when it returns.
    pub fn run<T>(&self, name: &str, work: impl FnOnce() -> T, failed: impl Fn(&T) -> bool) -> T {
        let started = Instant::now();
        lock(&self.running).push((name.to_string(), started));
        // The steady tick owns ordinary redraws (indicatif's `tick` and `inc` draw nothing while
        // it runs): a start or an end is drawn at once, so that a short run shows too.
        self.bar.force_draw();
        let result = work();
        lock(&self.running).retain(|(other, at)| !(other == name && *at == started));
        if failed(&result) {
            self.failed.fetch_add(1, Ordering::Relaxed);
        }
        self.bar.inc(1);
        self.bar.force_draw();
        result
    }

    /// Draws the last state (all done, the failures), past the rate limit, then takes the line
    /// off a terminal, where the results table follows.
    pub fn finish(&self) {
        self.bar.disable_steady_tick();
        self.bar.force_draw();
        self.bar.finish_and_clear();
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// `12/152 scenarios done, 1 failed; slowest running: scenarios/x.toml (41s)`.
fn style(running: &Running, failed: &Arc<AtomicU64>) -> ProgressStyle {
    let failed = Arc::clone(failed);
    let running = Arc::clone(running);
    ProgressStyle::with_template("{pos}/{len} scenarios done, {failed} failed{slowest}")
        .expect("a valid template")
        .with_key(
            "failed",
            move |_: &ProgressState, out: &mut dyn std::fmt::Write| {
                let _ = write!(out, "{}", failed.load(Ordering::Relaxed));
            },
        )
        .with_key(
            "slowest",
            move |_: &ProgressState, out: &mut dyn std::fmt::Write| {
                let running = lock(&running);
                if let Some((name, started)) = running.iter().min_by_key(|(_, at)| *at) {
                    let _ = write!(
                        out,
                        "; slowest running: {name} ({}s)",
                        started.elapsed().as_secs()
                    );
                }
            },
        )
}

/// A draw target for a stderr that is not a terminal: each drawing becomes one plain line, with
/// no cursor movement, so that a log or a test reads every update; a line the same as the one
/// before is left out.
#[derive(Debug, Default)]
struct PlainLines {
    line: Mutex<String>,
    last: Mutex<String>,
}

impl TermLike for PlainLines {
    fn width(&self) -> u16 {
        // Wide enough that a long scenario path is never wrapped.
        400
    }

    fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }

    fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }

    fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }

    fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }

    fn write_line(&self, text: &str) -> std::io::Result<()> {
        self.write_str(text)?;
        self.flush()
    }

    fn write_str(&self, text: &str) -> std::io::Result<()> {
        lock(&self.line).push_str(text);
        Ok(())
    }

    fn clear_line(&self) -> std::io::Result<()> {
        Ok(())
    }

    /// Writes what was drawn as one line, without the padding and carriage returns meant for a
    /// terminal.
    fn flush(&self) -> std::io::Result<()> {
        let mut line = lock(&self.line);
        let text = line.replace('\r', "");
        line.clear();
        let text = text.trim_end();
        let mut last = lock(&self.last);
        if text.is_empty() || *last == text {
            return Ok(());
        }
        text.clone_into(&mut last);
        let mut stderr = std::io::stderr().lock();
        writeln!(stderr, "{text}")
    }
}
