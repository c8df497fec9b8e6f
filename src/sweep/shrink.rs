//! Shrinking a failing case to a minimum.
//!
//! proptest shrinks a list by deleting elements first and shrinking what is left after; it never
//! goes back to deleting. A fault that was needed only while another was large (a freeze that
//! mattered while a wall step came late) then stays in the regression file after the step has
//! moved to the start. So after proptest, passes of our own delete each fault, parameter change
//! and cluster fault again, and move each fault's numbers toward the simplest value that still
//! fails, until a whole pass changes nothing.

use proptest::strategy::ValueTree;

use super::ClusterFault;
use super::faults::{Case, FaultSpec};

/// Shrinks the failing case `tree` holds: proptest's own shrinking, then passes until nothing
/// changes. `fails` runs a case and says why it failed, or `None` if it passed or was no valid
/// case. Each phase stops after `max_steps` runs, however far it got.
pub(crate) fn shrink(
    tree: &mut impl ValueTree<Value = Case>,
    reason: String,
    max_steps: u32,
    mut fails: impl FnMut(&Case) -> Option<String>,
) -> (Case, String) {
    let (case, reason) = proptest_shrink(tree, reason, max_steps, &mut fails);
    to_fixpoint(case, reason, max_steps, fails)
}

/// proptest's shrinking: simplify while the case still fails, step back when it passes.
fn proptest_shrink(
    tree: &mut impl ValueTree<Value = Case>,
    reason: String,
    max_steps: u32,
    fails: &mut impl FnMut(&Case) -> Option<String>,
) -> (Case, String) {
    let mut minimal = tree.current();
    let mut reason = reason;
    if !tree.simplify() {
        return (minimal, reason);
    }
    for _ in 0..max_steps {
        match fails(&tree.current()) {
            Some(why) => {
                minimal = tree.current();
                reason = why;
                if !tree.simplify() {
                    break;
                }
            }
            None => {
                if !tree.complicate() {
                    break;
                }
            }
        }
    }
    (minimal, reason)
}

/// A failing case and the runs left to shrink it with.
struct Shrinking<F> {
    case: Case,
    reason: String,
    runs_left: u32,
    fails: F,
}

impl<F: FnMut(&Case) -> Option<String>> Shrinking<F> {
    /// Takes `candidate` if it still fails.
    fn try_take(&mut self, candidate: Case) -> bool {
        if self.runs_left == 0 || candidate == self.case {
            return false;
        }
        self.runs_left -= 1;
        match (self.fails)(&candidate) {
            Some(why) => {
                self.case = candidate;
                self.reason = why;
                true
            }
            None => false,
        }
    }

    /// Deletes every fault, cluster fault and parameter change the failure does without.
    fn delete_each(&mut self) -> bool {
        let mut changed = false;
        for list in [List::Faults, List::Cluster, List::Loads, List::Tweaks] {
            let mut index = 0;
            while index < list.len(&self.case) {
                let candidate = list.without(&self.case, index);
                if self.try_take(candidate) {
                    changed = true;
                } else {
                    index += 1;
                }
            }
        }
        changed
    }

    /// Moves each number of each fault toward its simplest value: the nearest to it that still
    /// fails, found by halving the distance.
    fn shrink_each_number(&mut self) -> bool {
        let mut changed = false;
        let numbers =
            (self.case.faults.len() + self.case.cluster.len() + self.case.loads.len()) * 3;
        for slot in 0..numbers {
            let Some((value, simplest)) = number(&self.case, slot) else {
                continue;
            };
            // One step closer passes: proptest or an earlier pass has already left it there.
            if value == simplest || !self.try_take(with_number(&self.case, slot, value - 1)) {
                continue;
            }
            changed = true;
            let (mut passes, mut still_fails) = (simplest, value - 1);
            if self.try_take(with_number(&self.case, slot, simplest)) {
                continue;
            }
            while still_fails - passes > 1 && self.runs_left > 0 {
                let middle = passes + (still_fails - passes) / 2;
                if self.try_take(with_number(&self.case, slot, middle)) {
                    still_fails = middle;
                } else {
                    passes = middle;
                }
            }
        }
        changed
    }
}

/// Deletions and number shrinking, again and again until a whole pass changes nothing.
fn to_fixpoint(
    case: Case,
    reason: String,
    max_steps: u32,
    fails: impl FnMut(&Case) -> Option<String>,
) -> (Case, String) {
    let mut shrinking = Shrinking {
        case,
        reason,
        runs_left: max_steps,
        fails,
    };
    loop {
        let deleted = shrinking.delete_each();
        let shrunk = shrinking.shrink_each_number();
        if !(deleted || shrunk) || shrinking.runs_left == 0 {
            return (shrinking.case, shrinking.reason);
        }
    }
}

#[derive(Clone, Copy)]
enum List {
    Faults,
    Cluster,
    Loads,
    Tweaks,
}

impl List {
    fn len(self, case: &Case) -> usize {
        match self {
            List::Faults => case.faults.len(),
            List::Cluster => case.cluster.len(),
            List::Loads => case.loads.len(),
            List::Tweaks => case.tweaks.len(),
        }
    }

    fn without(self, case: &Case, index: usize) -> Case {
        let mut case = case.clone();
        match self {
            List::Faults => {
                case.faults.remove(index);
                // Each later fault keeps the host it picked.
                if index < case.hosts.len() {
                    case.hosts.remove(index);
                }
            }
            List::Cluster => {
                case.cluster.remove(index);
            }
            List::Loads => {
                case.loads.remove(index);
            }
            List::Tweaks => {
                case.tweaks.remove(index);
            }
        }
        case
    }
}

/// Number `slot` of `case`, as a magnitude, and the simplest magnitude it may take: each fault
/// has three slots (when it starts, how long it lasts, how large it is), then each cluster fault
/// three, then each spell of load three (its threads the size). `None` for a slot the fault does not have.
fn number(case: &Case, slot: usize) -> Option<(u64, u64)> {
    let (index, part) = (slot / 3, slot % 3);
    let faults = case.faults.len();
    if index < faults {
        return match (&case.faults[index], part) {
            (FaultSpec::Suspend { at_ms, .. }, 0)
            | (FaultSpec::Step { at_ms, .. }, 0)
            | (FaultSpec::Slew { at_ms, .. }, 0) => Some((*at_ms, 0)),
            (FaultSpec::Suspend { duration_ms, .. }, 1)
            | (FaultSpec::Slew { duration_ms, .. }, 1) => Some((*duration_ms, 1)),
            (FaultSpec::Step { by_ms, .. }, 2) => Some((by_ms.unsigned_abs(), 1)),
            (FaultSpec::Slew { rate_ppm, .. }, 2) => Some((rate_ppm.unsigned_abs(), 1)),
            _ => None,
        };
    }
    let cluster = case.cluster.len();
    if index >= faults + cluster {
        let load = case.loads.get(index - faults - cluster)?;
        return Some(match part {
            0 => (load.at_ms, 0),
            1 => (load.duration_ms, 1),
            _ => (u64::from(load.threads), 1),
        });
    }
    match (case.cluster.get(index - faults)?, part) {
        (ClusterFault::Partition { at_ms, .. }, 0) | (ClusterFault::Spike { at_ms, .. }, 0) => {
            Some((*at_ms, 0))
        }
        (ClusterFault::Partition { duration_ms, .. }, 1)
        | (ClusterFault::Spike { duration_ms, .. }, 1) => Some((*duration_ms, 1)),
        (ClusterFault::Drift { ppm, .. }, 2) => Some((ppm.unsigned_abs(), 0)),
        _ => None,
    }
}

/// `case` with number `slot` set to the magnitude `value`, its sign kept.
fn with_number(case: &Case, slot: usize, value: u64) -> Case {
    let mut case = case.clone();
    let (index, part) = (slot / 3, slot % 3);
    let magnitude = i64::try_from(value).unwrap_or(i64::MAX);
    let signed = |old: i64| if old < 0 { -magnitude } else { magnitude };
    let faults = case.faults.len();
    if index < faults {
        match (&mut case.faults[index], part) {
            (FaultSpec::Suspend { at_ms, .. }, 0)
            | (FaultSpec::Step { at_ms, .. }, 0)
            | (FaultSpec::Slew { at_ms, .. }, 0) => *at_ms = value,
            (FaultSpec::Suspend { duration_ms, .. }, 1)
            | (FaultSpec::Slew { duration_ms, .. }, 1) => *duration_ms = value,
            (FaultSpec::Step { by_ms, .. }, 2) => *by_ms = signed(*by_ms),
            (FaultSpec::Slew { rate_ppm, .. }, 2) => *rate_ppm = signed(*rate_ppm),
            _ => {}
        }
        return case;
    }
    let cluster = case.cluster.len();
    if index >= faults + cluster {
        let load = &mut case.loads[index - faults - cluster];
        match part {
            0 => load.at_ms = value,
            1 => load.duration_ms = value,
            _ => load.threads = u32::try_from(value).unwrap_or(u32::MAX),
        }
        return case;
    }
    match (&mut case.cluster[index - faults], part) {
        (ClusterFault::Partition { at_ms, .. }, 0) | (ClusterFault::Spike { at_ms, .. }, 0) => {
            *at_ms = value
        }
        (ClusterFault::Partition { duration_ms, .. }, 1)
        | (ClusterFault::Spike { duration_ms, .. }, 1) => *duration_ms = value,
        (ClusterFault::Drift { ppm, .. }, 2) => *ppm = signed(*ppm),
        _ => {}
    }
    case
}

#[cfg(test)]
mod tests {
    use proptest::strategy::{Just, Strategy};
    use proptest::test_runner::TestRunner;

    use super::*;

    fn case(faults: Vec<FaultSpec>) -> Case {
        Case {
            seed: 0,
            tweaks: Vec::new(),
            hosts: (0..faults.len() as u16).collect(),
            faults,
            cluster: Vec::new(),
            loads: Vec::new(),
        }
    }

    /// A wall step back of a second or more breaks it if it comes in the first 20 s, or later
    /// if a freeze began before it; a freeze alone never does.
    fn step_early_or_after_a_freeze(case: &Case) -> Option<String> {
        let freezes: Vec<u64> = case
            .faults
            .iter()
            .filter_map(|fault| match *fault {
                FaultSpec::Suspend { at_ms, .. } => Some(at_ms),
                _ => None,
            })
            .collect();
        case.faults.iter().find_map(|fault| match *fault {
            FaultSpec::Step { at_ms, by_ms }
                if by_ms <= -1_000
                    && (at_ms < 20_000 || freezes.iter().any(|&freeze| freeze < at_ms)) =>
            {
                Some(format!("stepped back {by_ms} ms at {at_ms} ms"))
            }
            _ => None,
        })
    }

    #[test]
    fn a_fault_needed_only_before_another_shrank_is_deleted_after_it_shrinks() {
        let freeze = FaultSpec::Suspend {
            system: false,
            at_ms: 25_000,
            duration_ms: 28_000,
        };
        let late_step = FaultSpec::Step {
            at_ms: 30_000,
            by_ms: -3_600_000,
        };
        let found = case(vec![freeze, late_step.clone()]);
        // While the step is late, the freeze is needed: deleting it passes.
        assert!(step_early_or_after_a_freeze(&found).is_some());
        assert!(step_early_or_after_a_freeze(&case(vec![late_step])).is_none());
        let mut tree = Just(found)
            .new_tree(&mut TestRunner::deterministic())
            .unwrap();
        let (minimal, reason) =
            shrink(&mut tree, "found".into(), 500, step_early_or_after_a_freeze);
        // The minimum: the step alone, at the start, by the least that breaks it.
        let least = FaultSpec::Step {
            at_ms: 0,
            by_ms: -1_000,
        };
        assert_eq!(minimal.faults, vec![least]);
        assert_eq!(reason, "stepped back -1000 ms at 0 ms");
        assert_eq!(minimal.hosts, vec![1], "the step keeps the host it picked");
    }

    #[test]
    fn shrinking_stops_when_its_runs_are_spent() {
        let found = case(vec![FaultSpec::Step {
            at_ms: 10_000,
            by_ms: -3_600_000,
        }]);
        let mut runs = 0;
        let mut tree = Just(found)
            .new_tree(&mut TestRunner::deterministic())
            .unwrap();
        shrink(&mut tree, "found".into(), 5, |case| {
            runs += 1;
            step_early_or_after_a_freeze(case)
        });
        assert_eq!(runs, 5);
    }

    #[test]
    fn a_spell_of_load_shrinks_to_the_fewest_threads_and_the_shortest_stretch_that_still_fail() {
        use super::super::faults::LoadSpec;
        // Fails under three threads or more for five seconds or more, whenever they start.
        let starves = |case: &Case| {
            case.loads
                .iter()
                .find(|load| load.threads >= 3 && load.duration_ms >= 5_000)
                .map(|load| format!("starved by {} threads", load.threads))
        };
        let spell = |at_ms, duration_ms, threads| LoadSpec {
            at_ms,
            duration_ms,
            threads,
            host: 0,
        };
        let found = Case {
            loads: vec![spell(1_000, 2_000, 8), spell(9_000, 20_000, 7)],
            ..case(Vec::new())
        };
        let mut tree = Just(found)
            .new_tree(&mut TestRunner::deterministic())
            .unwrap();
        let (minimal, reason) = shrink(&mut tree, "found".into(), 500, starves);
        assert_eq!(minimal.loads, [spell(0, 5_000, 3)]);
        assert_eq!(reason, "starved by 3 threads");
    }
}
