//! A host's thread held by `thread::sleep`: the call returns at once, the host's clocks and what
//! it sends go on from the sleep's end, and the run steps the host no more until its clock reads
//! that end. Its kernel still takes what arrives meanwhile. The end is found through the host's
//! fault edges still to come: a suspend that stops the clock the sleep waits on, or a wall step
//! under a sleep until a wall time, moves it as the kernel's would.

use ticklab_sim::Secs;

use super::Runner;
use crate::service::queue::Event;

impl Runner {
    /// Whether a sleep still holds `host`'s thread; if so, the host is stepped once it ends.
    pub(super) fn thread_held(&mut self, host: usize) -> bool {
        let Some(target) = self.busy[host] else {
            return false;
        };
        let until_ns = self
            .clockwork
            .lock()
            .phys_when_ahead(host, target.clock, target.target_ns);
        match until_ns {
            Some(until_ns) if until_ns > self.now_ns => {
                if self.free_filed[host] != Some(until_ns) {
                    self.free_filed[host] = Some(until_ns);
                    self.queue.push(until_ns, Event::Free { host });
                }
                true
            }
            // The clock it waits on stands still (the system sleeps): its wake steps it again.
            None => true,
            Some(_) => {
                self.busy[host] = None;
                self.free_filed[host] = None;
                false
            }
        }
    }

    /// As a step ends, before the notes it made (which may come after the sleep): the trace
    /// says a sleep held the host's thread, and until when.
    pub(super) fn trace_held_thread(&mut self, host: usize) {
        let until_ns = self
            .clockwork
            .lock()
            .held
            .as_ref()
            .map(|held| held.until_ns);
        if let Some(until_ns) = until_ns {
            let line = format!("thread::sleep holds its thread until {}", Secs(until_ns));
            self.line(host, line);
        }
    }

    /// Once the step's clocks are read: if a sleep held the host's thread, the host waits for
    /// its end.
    pub(super) fn take_held_thread(&mut self, host: usize) {
        let Some(held) = self.clockwork.lock().release() else {
            return;
        };
        self.busy[host] = Some(held.target);
        self.record.held(host, self.now_ns, held.until_ns);
    }
}
