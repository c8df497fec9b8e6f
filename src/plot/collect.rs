//! A trace sink that keeps what the plots draw, in memory bounded whatever the run's length:
//! counts per wall second (binned past [`super::wall_seconds::MAX_BARS`] of them), and per column (one [`COLUMNS`]th of the run) the extremes of each series
//! and the time each worker spent in each state.

use std::any::Any;
use std::collections::BTreeMap;
use std::fmt;
use std::io;

use super::wall_seconds::WallSeconds;
use crate::trace::{Event, FaultEvent, ModelEvent, StartEvent, Summary, TraceSink, Wall};

/// Horizontal resolution of the plots' data: about one column per two pixels.
pub const COLUMNS: usize = 500;

/// Events drawn one mark each (starvation reports) are kept up to this many.
pub const MAX_MARKS: usize = 1_000;

const NS_PER_SEC: i64 = 1_000_000_000;

/// A fault with a duration, as a band on the time axis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Band {
    pub kind: &'static str,
    pub from_ns: u64,
    pub to_ns: u64,
}

/// The clocks' readings at one moment of physical time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockPoint {
    pub t_ns: u64,
    pub instant_ns: i64,
    pub wall_ns: i64,
}

/// The smallest and largest value seen in each column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extremes(pub Vec<Option<(i64, i64)>>);

impl Default for Extremes {
    fn default() -> Self {
        Extremes::new()
    }
}

impl Extremes {
    /// No value yet in any column.
    pub fn new() -> Self {
        Extremes(vec![None; COLUMNS])
    }

    pub fn add(&mut self, column: usize, value: i64) {
        let slot = &mut self.0[column];
        *slot = Some(match *slot {
            None => (value, value),
            Some((low, high)) => (low.min(value), high.max(value)),
        });
    }

    pub fn max(&self) -> Option<i64> {
        self.0.iter().flatten().map(|&(_, high)| high).max()
    }

    pub fn min(&self) -> Option<i64> {
        self.0.iter().flatten().map(|&(low, _)| low).min()
    }
}

/// A named series of extremes: a task group's latencies, an idle strategy's wake latencies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Series {
    pub name: String,
    pub values: Extremes,
}

/// What one executor worker did, column by column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerTrack {
    pub name: String,
    /// Per column, the time spent in each state: [`PARKED`], [`BLOCKING`] (in a blocking section,
    /// which overlaps the poll it belongs to), or [`FIRST_GROUP`]` + g` polling a task of group
    /// `g` (the group's index among its kind's task groups).
    pub time_ns: Vec<Vec<u64>>,
    /// Per column, how many driver polls woke tasks.
    pub driver_polls: Vec<u32>,
    state: Option<(usize, u64)>,
}

/// Indexes of the states in [`WorkerTrack::time_ns`].
pub const PARKED: usize = 0;
pub const BLOCKING: usize = 1;
pub const FIRST_GROUP: usize = 2;

impl WorkerTrack {
    pub fn new(name: &str) -> Self {
        WorkerTrack {
            name: name.to_string(),
            time_ns: vec![Vec::new(); COLUMNS],
            driver_polls: vec![0; COLUMNS],
            state: None,
        }
    }

    /// The worker enters `state` at `t_ns`; the state before it is charged to its columns.
    pub fn enter(&mut self, state: Option<usize>, t_ns: u64, run_for_ns: u64) {
        if let Some((previous, since_ns)) = self.state.take() {
            charge(&mut self.time_ns, previous, since_ns, t_ns, run_for_ns);
        }
        self.state = state.map(|state| (state, t_ns));
    }
}

/// The column `t_ns` falls in, of a run lasting `run_for_ns`: every series uses this one map.
pub fn column_at(t_ns: u64, run_for_ns: u64) -> usize {
    let run_for_ns = u128::from(run_for_ns.max(1));
    ((u128::from(t_ns) * COLUMNS as u128 / run_for_ns) as usize).min(COLUMNS - 1)
}

/// Where `column` starts: the first time [`column_at`] maps to it.
fn column_start_ns(column: usize, run_for_ns: u64) -> u64 {
    (column as u128 * u128::from(run_for_ns.max(1))).div_ceil(COLUMNS as u128) as u64
}

/// Adds `[from_ns, to_ns)` in `state` to the columns it covers.
pub fn charge(columns: &mut [Vec<u64>], state: usize, from_ns: u64, to_ns: u64, run_for_ns: u64) {
    let mut at_ns = from_ns;
    while at_ns < to_ns {
        let column = column_at(at_ns, run_for_ns);
        let until_ns = if column + 1 < COLUMNS {
            to_ns.min(column_start_ns(column + 1, run_for_ns))
        } else {
            to_ns
        };
        let times = &mut columns[column];
        if times.len() <= state {
            times.resize(state + 1, 0);
        }
        times[state] += until_ns - at_ns;
        at_ns = until_ns;
    }
}

/// What one kind keeps of its own events for its picture. It lives in the kind's folder, beside
/// the drawing that reads it; [`Collected`] holds it for the run and hands it the kind's events.
pub trait KindPlot: fmt::Debug + Send + 'static {
    /// Keeps what the picture draws from one of the kind's events. `common` is what every
    /// picture shares (the clocks, the wall seconds, the lateness), already up to date with
    /// every event before this one.
    fn model_event(&mut self, event: &dyn ModelEvent, common: &mut Collected);

    /// A fault edge on one host, which goes on that host's row rather than the run's clocks.
    fn host_fault(&mut self, _host: &str, _fault: &FaultEvent, _begins: bool) {}

    /// The run ended at `end_ns`: close what is still open.
    fn finish(&mut self, _end_ns: u64, _run_for_ns: u64) {}

    /// Itself, for its drawing to read back through [`Collected::own`].
    fn as_any(&self) -> &dyn Any;
}

/// Everything the plots need from one run: what every picture shares, and the kind's own.
#[derive(Debug, Default)]
pub struct Collected {
    pub start: Option<StartEvent>,
    pub summary: Option<Summary>,
    pub bands: Vec<Band>,
    /// Wall steps: when, and by how much as the scenario says it.
    pub wall_steps: Vec<(u64, String)>,
    /// One reading per column, plus one at every fault edge.
    pub clocks: Vec<ClockPoint>,
    /// Ticks or fires per second of the wall clock since its start, and the physical time of the
    /// first of each, in a bounded number of bars. Keyed first by how many wall steps came
    /// before, so that seconds a step back repeats are counted apart from the first time round.
    pub per_wall_second: WallSeconds,
    /// How late each tick or fire was.
    pub lateness: Option<Extremes>,
    /// Faults still in effect when the run ended.
    pub open_at_end: Vec<&'static str>,
    /// The latest clock reading, from which fires (which carry none) read the wall clock.
    last_clock: Option<ClockPoint>,
    /// What the kind keeps of its own events, if its picture draws any.
    own: Option<Box<dyn KindPlot>>,
    open_bands: BTreeMap<usize, (&'static str, u64)>,
    clock_columns_seen: Vec<bool>,
}

impl Collected {
    /// A collector for a run whose kind keeps `own` of its events; `None` keeps only what every
    /// picture shares.
    pub fn new(own: Option<Box<dyn KindPlot>>) -> Self {
        Collected {
            own,
            ..Collected::default()
        }
    }

    /// What the kind kept of its events, as its own type.
    pub fn own<T: KindPlot>(&self) -> Option<&T> {
        self.own.as_ref()?.as_any().downcast_ref()
    }

    pub fn run_for_ns(&self) -> u64 {
        self.start
            .as_ref()
            .map_or(1, |start| start.run_for_ns.max(1))
    }

    pub fn column_of(&self, t_ns: u64) -> usize {
        column_at(t_ns, self.run_for_ns())
    }

    /// The physical time at the middle of `column`, in seconds.
    pub fn column_seconds(&self, column: usize) -> f64 {
        (column as f64 + 0.5) * self.run_for_ns() as f64 / COLUMNS as f64 / 1e9
    }

    fn wall_start_ns(&self) -> i64 {
        self.start.as_ref().map_or(0, |start| start.wall.0)
    }

    pub(crate) fn clock_reading(&mut self, t_ns: u64, instant_ns: i64, wall: Wall, always: bool) {
        let point = ClockPoint {
            t_ns,
            instant_ns,
            wall_ns: wall.0,
        };
        self.last_clock = Some(point);
        let column = self.column_of(t_ns);
        if always || !self.clock_columns_seen[column] {
            self.clock_columns_seen[column] = true;
            self.clocks.push(point);
        }
    }

    /// The wall clock at `t_ns`, carried forward from the latest reading (exact but for a slew
    /// in progress, whose rate the trace does not give).
    pub(crate) fn wall_at(&self, t_ns: u64) -> i64 {
        match self.last_clock {
            Some(last) => last.wall_ns + (t_ns as i64 - last.t_ns as i64),
            None => self.wall_start_ns() + t_ns as i64,
        }
    }

    pub(crate) fn count_on_wall(&mut self, t_ns: u64, wall_ns: i64) {
        let second = (wall_ns - self.wall_start_ns()).div_euclid(NS_PER_SEC);
        self.per_wall_second
            .count(self.wall_steps.len(), second, t_ns);
    }

    pub(crate) fn late(&mut self, t_ns: u64, lateness_ns: i64) {
        let column = self.column_of(t_ns);
        self.lateness
            .get_or_insert_with(Extremes::new)
            .add(column, lateness_ns);
    }

    fn fault(&mut self, fault: &FaultEvent, begins: bool) {
        if let Some(host) = &fault.host {
            // One host's fault goes on that host's row; its clocks are not the run's.
            if let Some(own) = &mut self.own {
                own.host_fault(host, fault, begins);
            }
            return;
        }
        self.clock_reading(fault.t_ns, fault.instant_ns, fault.wall, true);
        if begins {
            self.open_bands
                .insert(fault.fault, (fault.kind, fault.t_ns));
        } else if let Some((kind, from_ns)) = self.open_bands.remove(&fault.fault) {
            self.bands.push(Band {
                kind,
                from_ns,
                to_ns: fault.t_ns,
            });
        }
    }

    fn finish_run(&mut self, end_ns: u64) {
        let run_for_ns = self.run_for_ns();
        if let Some(own) = &mut self.own {
            own.finish(end_ns, run_for_ns);
        }
        let open = std::mem::take(&mut self.open_bands);
        self.open_at_end = open.values().map(|&(kind, _)| kind).collect();
        self.bands
            .extend(open.into_values().map(|(kind, from_ns)| Band {
                kind,
                from_ns,
                to_ns: end_ns,
            }));
        self.bands.sort_by_key(|band| (band.from_ns, band.to_ns));
    }
}

/// The index of the first item `is` picks, after appending `make()` if there is none: names stay
/// in the order the trace first gave them, so plots are the same every run.
pub fn index_of<T>(items: &mut Vec<T>, is: impl Fn(&T) -> bool, make: impl FnOnce() -> T) -> usize {
    items.iter().position(is).unwrap_or_else(|| {
        items.push(make());
        items.len() - 1
    })
}

impl TraceSink for Collected {
    fn record(&mut self, event: &Event<'_>) -> io::Result<()> {
        match event {
            Event::Start(start) => {
                self.start = Some((*start).clone());
                self.clock_columns_seen = vec![false; COLUMNS];
            }
            Event::FaultBegin(fault) => self.fault(fault, true),
            Event::FaultEnd(fault) => self.fault(fault, false),
            Event::WallStep(fault) if fault.host.is_some() => self.fault(fault, true),
            Event::WallStep(fault) => {
                self.clock_reading(fault.t_ns, fault.instant_ns, fault.wall, true);
                self.wall_steps.push((fault.t_ns, fault.what.clone()));
            }
            Event::Resume(resume) if resume.host.is_some() => {}
            Event::Resume(resume) => {
                self.clock_reading(resume.t_ns, resume.instant_ns, resume.wall, true);
            }
            Event::Summary(summary) => {
                self.finish_run(summary.t_ns);
                self.summary = Some((*summary).clone());
            }
            Event::Model(event) => {
                if let Some(mut own) = self.own.take() {
                    own.model_event(*event, self);
                    self.own = Some(own);
                }
            }
            Event::Invariant(_) => {}
        }
        Ok(())
    }
}

impl Series {
    /// The index of the series called `name` in `series`, added if new: series stay in the
    /// order the trace first named them.
    pub fn index_in(series: &mut Vec<Series>, name: &str) -> usize {
        index_of(
            series,
            |one| one.name == name,
            || Series {
                name: name.to_string(),
                values: Extremes::new(),
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interval::events::TickEvent;

    #[test]
    fn a_span_is_charged_to_every_column_it_covers() {
        let mut columns = vec![Vec::new(); COLUMNS];
        let run_for_ns = COLUMNS as u64 * 10;
        charge(&mut columns, 2, 5, 25, run_for_ns);
        assert_eq!(columns[0], [0, 0, 5]);
        assert_eq!(columns[1], [0, 0, 10]);
        assert_eq!(columns[2], [0, 0, 5]);
        assert!(columns[3].is_empty());
    }

    #[test]
    fn spans_and_instants_share_one_column_map_on_any_run_length() {
        for run_for_ns in [1, 300, 499, 501, 12_345, 8 * 60 * 1_000_000_000] {
            let mut columns = vec![Vec::new(); COLUMNS];
            charge(&mut columns, 0, 0, run_for_ns, run_for_ns);
            let charged: u64 = columns.iter().filter_map(|times| times.first()).sum();
            assert_eq!(charged, run_for_ns, "every ns charged once");
            for t_ns in [0, run_for_ns / 3, run_for_ns - 1] {
                let column = column_at(t_ns, run_for_ns);
                assert!(column_start_ns(column, run_for_ns) <= t_ns);
                assert!(
                    !columns[column].is_empty(),
                    "{run_for_ns}: column {column} drawn"
                );
            }
        }
    }

    fn tick(t_ns: u64, wall_ns: i64) -> TickEvent {
        TickEvent {
            t_ns,
            interval: 0,
            seq: 0,
            instant_ns: t_ns as i64,
            deadline_ns: t_ns as i64,
            wall: Wall(wall_ns),
        }
    }

    #[test]
    fn seconds_a_wall_step_back_repeats_are_counted_apart() {
        const S: u64 = 1_000_000_000;
        let start = StartEvent {
            t_ns: 0,
            about: String::new(),
            source: String::new(),
            model: "interval",
            platform: "linux",
            instant_clock: "monotonic",
            instant_source: None,
            seed: 0,
            run_for_ns: 60 * S,
            wall: Wall(0),
            profile: None,
            notes: Vec::new(),
        };
        /// Counts each tick in its wall second, as the interval's picture does.
        #[derive(Debug)]
        struct OnWall;
        impl KindPlot for OnWall {
            fn model_event(&mut self, event: &dyn ModelEvent, common: &mut Collected) {
                let tick = event.as_any().downcast_ref::<TickEvent>().unwrap();
                common.count_on_wall(tick.t_ns, tick.wall.0);
            }
            fn as_any(&self) -> &dyn Any {
                self
            }
        }
        let mut collected = Collected::new(Some(Box::new(OnWall)));
        collected.record(&Event::Start(&start)).unwrap();
        collected
            .record(&Event::Model(&tick(
                25 * S + S / 2,
                (25 * S + S / 2) as i64,
            )))
            .unwrap();
        let step = FaultEvent {
            t_ns: 30 * S,
            fault: 0,
            kind: "wall-step",
            what: "wall-step by -5s".to_string(),
            host: None,
            instant_ns: (30 * S) as i64,
            wall: Wall((25 * S) as i64),
        };
        collected.record(&Event::WallStep(&step)).unwrap();
        collected
            .record(&Event::Model(&tick(
                30 * S + S / 2,
                (25 * S + S / 2) as i64,
            )))
            .unwrap();
        let bars: Vec<_> = collected
            .per_wall_second
            .bars()
            .iter()
            .map(|bar| (bar.from_ns, bar.count))
            .collect();
        assert_eq!(
            bars,
            [(25 * S + S / 2, 1), (30 * S + S / 2, 1)],
            "the second wall second 25 is drawn where it happened"
        );
    }
}
