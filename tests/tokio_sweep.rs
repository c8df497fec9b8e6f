//! `ticklab::tokio::Sweep`: which regression files a sweep replays, what its messages say, and
//! counting notes on tokio's own clock.

use std::sync::Mutex;
use std::time::Duration;

use ticklab::sim::Platform;
use ticklab::tokio::{Harness, Run, Sweep, note};

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

fn ms(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

async fn beats() {
    let mut interval = tokio::time::interval(secs(1));
    loop {
        interval.tick().await;
        note("beat");
    }
}

fn always_broken(_: &Run<()>) -> Result<(), String> {
    Err("broken".to_string())
}

/// Sweeps `base` into `folder` with an invariant nothing keeps: one regression file, no fault
/// added once shrunk.
fn write_regression(base: &Harness, folder: &std::path::Path) -> std::path::PathBuf {
    let failure = Sweep::new(base)
        .cases(1)
        .regressions(folder)
        .check(beats, always_broken)
        .unwrap_err();
    assert!(failure.found.is_some(), "{failure}");
    failure.file
}

/// The `about` of every regression file a sweep of `base` replays.
fn replayed_by(base: &Harness, folder: &std::path::Path) -> Vec<String> {
    let seen = Mutex::new(Vec::new());
    Sweep::new(base)
        .cases(0)
        .regressions(folder)
        .check(beats, |run| {
            let about = run.text().lines().next().unwrap_or_default().to_string();
            seen.lock().unwrap().push(about);
            Ok(())
        })
        .unwrap();
    seen.into_inner().unwrap()
}

/// Two bases whose names share a prefix: a file of the second starts with the first's stem.
fn lease_bases() -> (Harness, Harness) {
    let on = |about: &str| Harness::on(Platform::Linux).about(about).build().unwrap();
    (on("lease keeper"), on("lease keeper wall clock"))
}

#[test]
fn two_bases_whose_names_collide_each_replay_only_their_own_files() {
    let folder = tempfile::tempdir().unwrap();
    let (lease, wall) = lease_bases();
    // Built without `about`, both are "tokio code on linux".
    let minute = Harness::on(Platform::Linux).build().unwrap();
    let half = Harness::on(Platform::Linux)
        .run_for(secs(30))
        .build()
        .unwrap();
    let files: Vec<_> = [&lease, &wall, &minute, &half]
        .into_iter()
        .map(|base| write_regression(base, folder.path()))
        .collect();
    let name = |index: usize| {
        files[index]
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    };
    assert!(
        name(1).starts_with("lease-keeper-wall-clock-"),
        "{}",
        name(1)
    );
    assert!(name(2).starts_with("tokio-code-on-linux-"), "{}", name(2));
    assert!(name(3).starts_with("tokio-code-on-linux-"), "{}", name(3));

    let lease_own = replayed_by(&lease, folder.path());
    assert_eq!(lease_own.len(), 1, "{lease_own:?}");
    assert!(
        lease_own[0].contains("Found by sweeping lease keeper: "),
        "{lease_own:?}"
    );
    let wall_own = replayed_by(&wall, folder.path());
    assert_eq!(wall_own.len(), 1, "{wall_own:?}");
    assert!(
        wall_own[0].contains("sweeping lease keeper wall clock: "),
        "{wall_own:?}"
    );
    assert_eq!(replayed_by(&minute, folder.path()).len(), 1);
    assert_eq!(replayed_by(&half, folder.path()).len(), 1);
}

#[test]
fn a_regression_file_written_before_files_named_their_base_still_replays_for_its_own_base() {
    let folder = tempfile::tempdir().unwrap();
    let (lease, wall) = lease_bases();
    // As sweeps wrote them: named after the base's `about`, with no line naming the base.
    let older = |about: &str| {
        format!(
            "about = \"Found by sweeping {about}: broken, after a wall-step of -1h at 1s\"\n\
             platform = \"linux\"\nseed = 3\nrun_for = \"1m\"\n\n\
             [[fault]]\nkind = \"wall-step\"\nat = \"1s\"\nby = \"-1h\"\n"
        )
    };
    std::fs::write(
        folder.path().join("lease-keeper-0a1b2c3d.toml"),
        older("lease keeper"),
    )
    .unwrap();
    std::fs::write(
        folder.path().join("lease-keeper-wall-clock-4e5f6a7b.toml"),
        older("lease keeper wall clock"),
    )
    .unwrap();
    let lease_own = replayed_by(&lease, folder.path());
    assert_eq!(lease_own.len(), 1, "{lease_own:?}");
    assert!(
        lease_own[0].contains("sweeping lease keeper: "),
        "{lease_own:?}"
    );
    let wall_own = replayed_by(&wall, folder.path());
    assert_eq!(wall_own.len(), 1, "{wall_own:?}");
    assert!(
        wall_own[0].contains("sweeping lease keeper wall clock: "),
        "{wall_own:?}"
    );
    // Another base of the same name, on another platform, is not the one it was found on.
    let windows = Harness::on(Platform::Windows)
        .about("lease keeper")
        .build()
        .unwrap();
    assert!(replayed_by(&windows, folder.path()).is_empty());
}

#[test]
fn a_replayed_regression_names_its_file_and_does_not_say_it_was_written() {
    let folder = tempfile::tempdir().unwrap();
    let base = Harness::on(Platform::Linux)
        .about("replayed")
        .build()
        .unwrap();
    let file = write_regression(&base, folder.path());
    let replayed = Sweep::new(&base)
        .cases(0)
        .regressions(folder.path())
        .check(beats, always_broken)
        .unwrap_err();
    assert_eq!(replayed.found, None);
    assert_eq!(replayed.file, file);
    let report = replayed.to_string();
    assert!(!report.contains("written to"), "{report}");
    assert!(
        report.contains(&format!(
            "the regression file {} still fails: broken",
            file.display()
        )),
        "{report}"
    );
    assert!(!report.contains("search again"), "{report}");
}

#[test]
fn searching_again_searches_instead_of_replaying_the_regression_file() {
    let folder = tempfile::tempdir().unwrap();
    let base = Harness::on(Platform::Linux)
        .about("searched")
        .build()
        .unwrap();
    write_regression(&base, folder.path());
    // A plain run of the test replays the file and stops there.
    let replayed = Sweep::new(&base)
        .cases(1)
        .regressions(folder.path())
        .check(beats, always_broken)
        .unwrap_err();
    assert_eq!(replayed.found, None);
    // "search again" leaves the regression files out, as `replay_regressions(false)` does, and
    // so searches.
    let searched = Sweep::new(&base)
        .cases(1)
        .seed(0)
        .regressions(folder.path())
        .replay_regressions(false)
        .check(beats, always_broken)
        .unwrap_err();
    assert_eq!(searched.found, Some((0, 0)), "{searched}");
    let report = searched.to_string();
    let search = report
        .lines()
        .find(|line| line.starts_with("search again: "))
        .unwrap();
    assert!(
        search.contains("TICKLAB_SWEEP_SEED=0 TICKLAB_SWEEP_REPLAY=0 cargo test"),
        "{search}"
    );
}

/// Four notes 300 ms apart on tokio's clock from 15 s, on Linux, with the machine asleep from
/// 15.5 s for 392 s: `Instant` does not count the sleep.
fn four_notes_around_a_linux_sleep() -> Run<()> {
    Harness::on(Platform::Linux)
        .run_for(secs(600))
        .system_suspend(ms(15_500), secs(392))
        .build()
        .unwrap()
        .run(|| async {
            tokio::time::sleep(secs(15)).await;
            for _ in 0..4 {
                note("request");
                tokio::time::sleep(ms(300)).await;
            }
        })
}

#[test]
fn notes_are_counted_within_a_window_of_instant_as_well_as_of_physical_time() {
    let run = four_notes_around_a_linux_sleep();
    // Two before the sleep and two after it, 392 s apart in physical time...
    assert_eq!(run.most_within("request", secs(1)), 2);
    // ...and all four within 0.9 s of `Instant`.
    assert_eq!(run.most_within_instant("request", secs(1)), 4);
    assert_eq!(run.most_within_instant("request", ms(900)), 3);
    assert_eq!(run.most_within_instant("other", secs(1)), 0);
}

#[test]
fn the_book_says_longest_gap_is_a_per_label_maximum_as_the_metric_does() {
    let readme = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/book/src/harness.md"
    ))
    .unwrap();
    let words: Vec<&str> = readme.split_whitespace().collect();
    let readme = words.join(" ");
    assert!(
        readme.contains(
            "`longest_gap`, the longest physical time between two notes with the same label: a \
             per-label maximum"
        ),
        "the book's harness chapter (docs/book/src/harness.md) does not say `longest_gap` is a \
         per-label maximum"
    );
}
