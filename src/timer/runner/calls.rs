//! The calls in flight, in reusable slots: a call ends when its response arrives.

use ticklab_models::timer::TimerId;

/// One call in flight.
#[derive(Clone, Copy, Debug)]
pub(super) struct Call {
    /// When the timeout is really due, in physical time: what the caller waits for.
    pub(super) timeout_at_ns: u64,
    /// The timer's deadline on the design's clock: what the design was asked for.
    pub(super) deadline_ns: i64,
    pub(super) timer: Option<TimerId>,
    /// The timer thread the design gave the timer to.
    pub(super) thread: u16,
    pub(super) fired: bool,
    /// Already reported as not fired within the design's promise.
    pub(super) overdue: bool,
    /// How far the timer's thread lagged behind the design's clock when the timer was armed, in
    /// whole microseconds rounded up: the timer is held to the promise for its timeout plus
    /// this (see `liveness.rs`). Kept small, as a call's record is, for the memory bound.
    pub(super) lag_us: u32,
}

impl Call {
    pub(super) fn lag_ns(&self) -> u64 {
        u64::from(self.lag_us) * 1_000
    }
}

/// A call's slot and the generation of the call in it: a check filed for one call never reads
/// the next call to take its slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct CallRef {
    pub(super) index: u32,
    pub(super) generation: u32,
}

#[derive(Debug, Default)]
pub(super) struct Calls {
    pub(super) slots: Vec<Option<Call>>,
    generations: Vec<u32>,
    free: Vec<u32>,
}

impl Calls {
    pub(super) fn start(&mut self, call: Call) -> CallRef {
        let index = match self.free.pop() {
            Some(index) => {
                self.slots[index as usize] = Some(call);
                index
            }
            None => {
                self.slots.push(Some(call));
                self.generations.push(0);
                self.slots.len() as u32 - 1
            }
        };
        let generation = &mut self.generations[index as usize];
        *generation = generation.wrapping_add(1);
        CallRef {
            index,
            generation: *generation,
        }
    }

    pub(super) fn get_mut(&mut self, index: u32) -> Option<&mut Call> {
        self.slots.get_mut(index as usize)?.as_mut()
    }

    /// The call `call` names, if it is still in flight.
    pub(super) fn of(&mut self, call: CallRef) -> Option<&mut Call> {
        if self.generations.get(call.index as usize) != Some(&call.generation) {
            return None;
        }
        self.get_mut(call.index)
    }

    pub(super) fn end(&mut self, index: u32) -> Option<Call> {
        let call = self.slots.get_mut(index as usize)?.take();
        self.free.push(index);
        call
    }

    pub(super) fn live(&self) -> impl Iterator<Item = &Call> {
        self.slots.iter().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call() -> Call {
        Call {
            timeout_at_ns: 0,
            deadline_ns: 0,
            timer: None,
            thread: 0,
            fired: false,
            overdue: false,
            lag_us: 0,
        }
    }

    #[test]
    fn a_reference_to_an_ended_call_never_reads_the_call_that_took_its_slot() {
        let mut calls = Calls::default();
        let first = calls.start(call());
        assert!(calls.of(first).is_some());
        calls.end(first.index);
        let second = calls.start(call());
        assert_eq!(second.index, first.index);
        assert!(calls.of(first).is_none());
        assert!(calls.of(second).is_some());
    }
}
