//! The memory bound: how much live state one run may hold.
//!
//! The work bound counts events; this counts what a run keeps at once: wakes waiting in the
//! event queue, calls in flight, timers a design holds, tasks, messages on the wire. Each model
//! says what it holds as a [`Footprint`]: a count of each thing and what one costs. Before the
//! run starts, its largest possible footprint is checked against the bound, and a run that could
//! pass it is refused (exit 2) with what would have filled it. While the run goes, the drive
//! loop measures the footprint it really holds, with the same figures, every few thousand steps,
//! and stops a run that passes it; so a design that leaks, or an estimate that was wrong, ends in
//! an error instead of eating the machine.
//!
//! Counting instead of asking the allocator keeps the verdict deterministic: the same run passes
//! or fails its bound on every machine, however many runs share the process. The sizes are those
//! of the structures themselves (`size_of`), twice over where a `Vec` may have doubled, and
//! `tests/memory.rs` checks them against an allocator that counts every byte.

use std::fmt;

pub mod budget;
mod trim;

/// The memory one run may hold unless `--max-memory` or the scenario's `max_memory` says more.
pub const DEFAULT_MAX_MEMORY_BYTES: u64 = 1 << 30;

/// What a `Vec` of `T` costs per element once grown: it may hold twice what it uses.
pub const fn grown<T>() -> u64 {
    2 * std::mem::size_of::<T>() as u64
}

/// One kind of thing a run holds: how many, and what each costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Holding {
    /// What the things are, plural: "calls in flight".
    pub what: &'static str,
    pub count: u128,
    pub bytes_each: u64,
}

impl Holding {
    pub fn bytes(&self) -> u128 {
        self.count.saturating_mul(u128::from(self.bytes_each))
    }
}

/// The live state of a run, by what holds it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Footprint {
    holdings: Vec<Holding>,
}

impl Footprint {
    pub fn new() -> Self {
        Footprint::default()
    }

    /// Adds `count` things that cost `bytes_each`.
    pub fn with(mut self, what: &'static str, count: u128, bytes_each: u64) -> Self {
        self.add(what, count, bytes_each);
        self
    }

    pub fn add(&mut self, what: &'static str, count: u128, bytes_each: u64) {
        if count > 0 {
            self.holdings.push(Holding {
                what,
                count,
                bytes_each,
            });
        }
    }

    pub fn bytes(&self) -> u128 {
        self.holdings
            .iter()
            .fold(0u128, |sum, holding| sum.saturating_add(holding.bytes()))
    }

    pub fn holdings(&self) -> &[Holding] {
        &self.holdings
    }

    /// How many of `what` it holds.
    pub fn count_of(&self, what: &str) -> u128 {
        self.holdings
            .iter()
            .filter(|holding| holding.what == what)
            .map(|holding| holding.count)
            .sum()
    }
}

/// The largest holdings first, each with its count and size: what a refusal names.
impl fmt::Display for Footprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut holdings = self.holdings.clone();
        holdings.sort_by(|a, b| b.bytes().cmp(&a.bytes()).then(a.what.cmp(b.what)));
        for (index, holding) in holdings.iter().take(3).enumerate() {
            if index > 0 {
                f.write_str(", ")?;
            }
            write!(
                f,
                "{} {} of {} B each",
                holding.count, holding.what, holding.bytes_each
            )?;
        }
        if holdings.len() > 3 {
            write!(f, " and {} more", holdings.len() - 3)?;
        }
        Ok(())
    }
}

/// A size for people: `1.5 GiB`, `640 MiB`, `12 KiB`.
#[derive(Clone, Copy, Debug)]
pub struct Size(pub u128);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bytes = u64::try_from(self.0).unwrap_or(u64::MAX);
        write!(f, "{}", bytesize::ByteSize(bytes).display().iec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_footprint_sums_its_holdings_and_names_the_largest_first() {
        let footprint = Footprint::new()
            .with("wakes", 10, 96)
            .with("calls in flight", 1_000, 64)
            .with("tasks", 0, 500);
        assert_eq!(footprint.bytes(), 10 * 96 + 1_000 * 64);
        assert_eq!(
            footprint.to_string(),
            "1000 calls in flight of 64 B each, 10 wakes of 96 B each"
        );
        assert_eq!(footprint.count_of("wakes"), 10);
    }

    #[test]
    fn sizes_read_in_binary_units() {
        assert_eq!(Size(1 << 30).to_string(), "1.0 GiB");
        assert_eq!(Size(3 << 29).to_string(), "1.5 GiB");
    }
}
