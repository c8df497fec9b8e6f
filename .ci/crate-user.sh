#!/usr/bin/env bash
# What a user of the published crates gets, from the packages alone, outside the workspace:
# - `cargo install ticklab --locked`, whose binary checks its built-in scenarios in an empty
#   folder (the main job, `ticklab check`, but the full-scale scenarios);
# - a fresh crate (.ci/fresh-crate/) that depends on ticklab as `cargo add ticklab` writes it,
#   registers a timer design of its own, runs ticklab's battery on it, and runs harness tests;
# - cargo-semver-checks against the last tag, once there is one.
# It builds with the oldest Rust that `rust-version` promises, so that the install also tests the
# MSRV, and with `RUSTFLAGS="--cfg tokio_unstable"`, as a user who wants tokio's task hooks
# builds: the fresh crate's tests/blocked.rs checks that a harness warning then names the task.
# The installed binary stays at target/crate-user/install/bin/ticklab, where .ci/run runs the
# full-scale scenarios with it.
# ticklab's packages are not on crates.io yet, so crates.io is replaced, for these commands only,
# by a folder that holds the three packages beside the dependencies of the workspace's
# Cargo.lock (`cargo vendor`): the commands and manifests are the ones a user writes. Any failure
# fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
target=${CARGO_TARGET_DIR:-target}
case $target in /*) ;; *) target=$root/$target ;; esac
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
msrv=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)
# A user's build: no lint wrapper or flags of the workspace's CI, but the task hooks.
unset RUSTC_WORKSPACE_WRAPPER
export RUSTFLAGS="--cfg tokio_unstable"
started=$SECONDS
# Outside the workspace, so that cargo finds no workspace above the user's crate.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

took() {
  echo "($1 took $((SECONDS - $2)) s)"
}

echo "--- a user's crate: the packages, unpacked beside their dependencies, as crates.io"
step=$SECONDS
cargo package --quiet --no-verify --allow-dirty -p ticklab-sim -p ticklab-models -p ticklab
cargo vendor --quiet --locked "$work/crates.io" >/dev/null
for name in ticklab-sim ticklab-models ticklab; do
  crate=$target/package/$name-$version.crate
  tar -xzf "$crate" -C "$work/crates.io"
  # A directory source checks each package against the checksum Cargo.lock records for it.
  sum=$(sha256sum "$crate" | cut -d ' ' -f 1)
  printf '{"files":{},"package":"%s"}\n' "$sum" >"$work/crates.io/$name-$version/.cargo-checksum.json"
  echo "$name-$version.crate (sha256 $sum) unpacked in $work/crates.io"
done
cat >"$work/crates-io.toml" <<EOF
[source.crates-io]
replace-with = "packages"

[source.packages]
directory = "$work/crates.io"
EOF
took packaging $step

# The install and the fresh crate build ticklab, and every dependency, once, in one target
# folder, on the release profile the package names (`debug = "line-tables-only"`). It is not the
# workspace's release folder: cargo rebuilds a dependency whose source moved, and here every
# source is in $work.
export CARGO_TARGET_DIR=$target/crate-user
export CARGO_PROFILE_RELEASE_DEBUG=line-tables-only
install=$CARGO_TARGET_DIR/install

echo "--- a user's crate: Rust $msrv, the oldest that rust-version promises"
step=$SECONDS
rustup toolchain install "$msrv" --profile minimal
cargo "+$msrv" --version
took "the toolchain" $step

echo "--- a user's crate: cargo +$msrv install ticklab --locked"
step=$SECONDS
cargo "+$msrv" install ticklab --locked --force --root "$install" --config "$work/crates-io.toml"
"$install/bin/ticklab" --version
took install $step

echo "--- a user's crate: the installed ticklab checks its built-in scenarios in an empty folder,"
echo "    but the full-scale ones (ticklab check --skip full-scale)"
step=$SECONDS
mkdir "$work/empty"
status=0
# The full-scale scenarios take minutes each; .ci/run's next step runs them with this binary.
(cd "$work/empty" && "$install/bin/ticklab" check --skip full-scale >"$work/check.txt") ||
  status=$?
# A row per scenario: the table's header, any row that is not ok, and the count.
head -n 2 "$work/check.txt"
grep -v '^| [^ ]* *| [^ ]* *| ok ' "$work/check.txt" | tail -n +3
took check $step
if [ "$status" -ne 0 ]; then
  echo "the installed ticklab's check failed with exit code $status" >&2
  exit 1
fi

echo "--- a user's crate: a fresh crate's battery and harness tests (cargo +$msrv test --release)"
step=$SECONDS
cp -R .ci/fresh-crate "$work/my-timers"
cat "$work/my-timers/Cargo.toml"
(cd "$work/my-timers" && cargo "+$msrv" test --release --config "$work/crates-io.toml" -- --show-output)
took "the fresh crate" $step

echo "--- semver against the last release (cargo-semver-checks)"
if baseline=$(git describe --tags --abbrev=0 2>/dev/null); then
  export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
  if ! command -v cargo-semver-checks >/dev/null 2>&1; then
    env -u RUSTFLAGS cargo install cargo-semver-checks --locked
  fi
  cargo semver-checks --baseline-rev "$baseline" -p ticklab-sim -p ticklab-models -p ticklab
else
  echo "skipped: git describe --tags finds no tag to compare with (none is released yet, or this"
  echo "clone is shallow or has no tags: git fetch --tags --unshallow)"
fi
took "the user's view" $started
