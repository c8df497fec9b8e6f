//! A host's code that holds the thread for good: a std mutex that is never unlocked, a blocking
//! read that never ends. Every host runs on that thread, so the run cannot go on, and no error
//! can reach code blocked in the kernel. A thread of ticklab's own watches each step, and once
//! one has lasted the run's limit of real time, it says which host and stops the process.

use std::io::Write;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use ticklab_sim::{Approx, Secs};

use crate::tokio::os::real_monotonic_ns;

/// How often the watch looks.
const LOOK_EVERY: Duration = Duration::from_millis(100);

/// The step under way: when it began in real time, whose it is, and its physical time.
#[derive(Debug, Default)]
struct Step {
    began_real_ns: i128,
    host: String,
    at_ns: u64,
}

#[derive(Debug)]
pub(crate) struct StallWatch {
    step: Arc<Mutex<Option<Step>>>,
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl StallWatch {
    /// Starts the watch. Called before the run's thread enters the run, so that the watch's
    /// thread is ticklab's, not one the code under test started.
    pub(crate) fn start(stop_after_real_ns: u64) -> StallWatch {
        let step: Arc<Mutex<Option<Step>>> = Arc::default();
        let (stop, stopped) = mpsc::channel();
        let watched = Arc::clone(&step);
        let thread = std::thread::Builder::new()
            .name("ticklab-service-stall-watch".into())
            .spawn(move || {
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(LOOK_EVERY) {
                    let step = watched.lock().unwrap_or_else(|p| p.into_inner());
                    if let Some(step) = step.as_ref() {
                        let held_ns = real_monotonic_ns() - step.began_real_ns;
                        if held_ns > i128::from(stop_after_real_ns) {
                            stop_the_process(step, held_ns);
                        }
                    }
                }
            })
            .expect("the stall watch's thread starts");
        StallWatch {
            step,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    pub(crate) fn begin(&self, host: &str, at_ns: u64) {
        *self.step.lock().unwrap_or_else(|p| p.into_inner()) = Some(Step {
            began_real_ns: real_monotonic_ns(),
            host: host.to_string(),
            at_ns,
        });
    }

    pub(crate) fn end(&self) {
        *self.step.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

impl Drop for StallWatch {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn stop_the_process(step: &Step, held_ns: i128) -> ! {
    let _ = writeln!(
        std::io::stderr(),
        "ticklab::service: host `{}`'s code has held the thread every host runs on for {} of \
         real time without waiting, since {} of physical time: something blocks it that \
         simulated time cannot see (a std mutex or channel, a blocking read, a join). No error \
         can reach code blocked in the kernel, so the process stops. Use tokio's primitives, \
         or raise the limit with `stop_when_stuck_for`",
        step.host,
        Approx(u64::try_from(held_ns).unwrap_or(u64::MAX)),
        Secs(step.at_ns)
    );
    std::process::abort()
}
