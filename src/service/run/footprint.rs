//! What a service run holds, counted as every run's memory bound counts (`crate::memory`): its
//! hosts' runtimes, their kernels' sockets and what waits in them, the segments on their way,
//! the events queued, and the notes and trace kept. The count is checked before the run (the
//! hosts alone must fit), every [`CHECK_EVERY`] host steps, and after any step that sent or
//! noted a sixteenth of the bound, so a service that piles up what it is sent ends in an error
//! instead of eating the machine; the same run passes or fails its bound on every machine.

use ticklab_sim::Secs;

use super::Runner;
use crate::memory::{Footprint, Size, grown};
use crate::service::clockwork::Reading;
use crate::service::net::fabric::{Datagrams, End, Listener, Segment};
use crate::service::notes::HostNote;
use crate::service::outcome::{ServiceError, error};
use crate::service::queue::BYTES_PER_EVENT;

/// What one host holds before its code allocates anything: its current-thread runtime (the I/O
/// driver with its event buffer, the time driver's wheel), its `LocalSet`, and the run's own
/// state for it. A counting allocator measures about 24 KiB (`tests/service_memory.rs`, which
/// fails if this is less than what is really allocated, or more than twice it).
pub(crate) const BYTES_PER_HOST: u64 = 32 << 10;

/// Host steps between two counts.
pub(super) const CHECK_EVERY: u64 = 1024;

/// A listener's or UDP socket's entry in its host's table: a map's node holds a dozen, and
/// may be half full.
const BYTES_PER_SOCKET: u64 = 2
    * (size_of::<(usize, u16)>()
        + if size_of::<Listener>() > size_of::<Datagrams>() {
            size_of::<Listener>()
        } else {
            size_of::<Datagrams>()
        }) as u64;

/// A datagram's place in its socket's queue, besides its bytes.
const BYTES_PER_DATAGRAM: u64 = grown::<(Vec<u8>, std::net::SocketAddr)>();

pub(crate) const HOSTS: &str = "hosts (runtime, drivers, LocalSet)";

/// Refuses a service whose hosts alone would pass the bound.
pub(super) fn check_before(hosts: usize, max_bytes: u64) -> Result<(), ServiceError> {
    let bytes = u128::from(BYTES_PER_HOST) * hosts as u128;
    if bytes > u128::from(max_bytes) {
        let (hosts, whose) = match hosts {
            1 => ("1 host holds".to_string(), "its"),
            _ => (format!("{hosts} hosts hold"), "their"),
        };
        return Err(error(format!(
            "{hosts} about {} before {whose} code allocates anything ({} each), past the memory \
             bound of {}: raise `max_memory`, or run fewer hosts",
            Size(bytes),
            Size(u128::from(BYTES_PER_HOST)),
            Size(u128::from(max_bytes))
        )));
    }
    Ok(())
}

/// What the run's own bookkeeping holds, kept as it grows.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Kept {
    pub(super) trace_bytes: u64,
    pub(super) note_bytes: u64,
    pub(super) notes: u64,
    /// Bytes sent, noted or traced since the last count: a step that sends or notes a lot
    /// brings the next count forward, so the bound holds within a sixteenth of itself.
    pub(super) grown_since_count: u64,
}

impl Runner {
    /// What the run holds now.
    pub(super) fn footprint(&self) -> Footprint {
        let kernels = self.fabric.lock().holdings();
        let parked: usize = self.backlog.iter().chain(&self.held).map(Vec::len).sum();
        let parked_bytes: u64 = self
            .backlog
            .iter()
            .chain(&self.held)
            .flatten()
            .map(Segment::payload_len)
            .sum();
        let readings: usize = self.record.hosts.iter().map(|h| h.clocks.len()).sum();
        let mut footprint = Footprint::new()
            .with(HOSTS, self.runtimes.len() as u128, BYTES_PER_HOST)
            .with("connection ends", kernels.ends as u128, grown::<End>())
            .with("sockets", kernels.sockets as u128, BYTES_PER_SOCKET)
            .with(
                "datagrams waiting to be read",
                kernels.datagrams as u128,
                BYTES_PER_DATAGRAM,
            )
            .with("events queued", self.queue.len() as u128, BYTES_PER_EVENT)
            .with(
                "segments held for a host",
                parked as u128,
                grown::<Segment>(),
            )
            .with("notes", u128::from(self.kept.notes), grown::<HostNote>())
            .with("trace lines", self.trace.len() as u128, grown::<String>())
            .with(
                "clock readings",
                readings as u128,
                grown::<(u64, Reading)>(),
            );
        let bytes = kernels.received_bytes
            + kernels.datagram_bytes
            + self.queue.payload_bytes()
            + parked_bytes;
        footprint.add("bytes sent and not yet read", u128::from(bytes), 1);
        let text = self.kept.trace_bytes + self.kept.note_bytes;
        footprint.add("bytes of notes and trace text", u128::from(text), 1);
        footprint
    }

    /// Counts what the run holds every [`CHECK_EVERY`] steps, or sooner after a step that sent
    /// or noted a sixteenth of the bound; fails it past its bound.
    pub(super) fn check_memory(&mut self, host: usize) -> Result<(), ServiceError> {
        let grown_much = self.kept.grown_since_count > self.max_memory_bytes / 16;
        if !self.steps.is_multiple_of(CHECK_EVERY) && !grown_much {
            return Ok(());
        }
        self.measure_memory(Some(host))
    }

    /// Counts what the run holds now, keeps the largest count, and fails the run past its bound.
    /// `host` stepped last, if any did.
    pub(super) fn measure_memory(&mut self, host: Option<usize>) -> Result<(), ServiceError> {
        self.kept.grown_since_count = 0;
        let footprint = self.footprint();
        let bytes = footprint.bytes();
        if bytes > self.peak_footprint.bytes() {
            self.peak_footprint = footprint.clone();
        }
        if bytes > u128::from(self.max_memory_bytes) {
            let last = host.map_or(String::new(), |host| {
                format!(" (host `{}` stepped last)", self.names[host])
            });
            return Err(error(format!(
                "the run held {} by {}{last}, past its memory bound of {}: {footprint}. Does a \
                 host never read what it is sent? Raise `max_memory` if that much is meant",
                Size(bytes),
                Secs(self.now_ns),
                Size(u128::from(self.max_memory_bytes))
            )));
        }
        Ok(())
    }
}
