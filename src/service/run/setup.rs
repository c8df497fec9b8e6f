//! What the run checks and builds before it starts: the declaration can run, the process may
//! open the hosts' descriptors and hold their runtimes, and each host's clocks.

use ticklab_sim::{Drift, Machine};

use super::footprint;
use crate::hosts::network::NetworkConfig;
use crate::service::clockwork::HostClock;
use crate::service::declare::Service;
use crate::service::outcome::{ServiceError, error};

/// The network with the partitions and spikes declared in code, once the declaration is found
/// able to run.
pub(super) fn check_declaration(service: &Service) -> Result<NetworkConfig, ServiceError> {
    if let Some(why) = service.invalid.first() {
        return Err(error(why.clone()));
    }
    if service.hosts.is_empty() {
        return Err(error(
            "the service has no hosts: give it some with `host` or `client`",
        ));
    }
    let network = service.resolved_network().map_err(error)?;
    check_descriptors(service.hosts.len())?;
    footprint::check_before(service.hosts.len(), service.max_memory_bytes)?;
    if let Some(host) = service.hosts.iter().find(|host| host.software.is_none()) {
        return Err(error(format!(
            "host `{}` was given no code: give it some with `host` or `client`",
            host.name
        )));
    }
    Ok(network)
}

/// Each host's machine and crystal, its wall clock at the service's start plus its offset.
pub(super) fn host_clocks(service: &Service) -> Vec<HostClock> {
    service
        .hosts
        .iter()
        .map(|host| HostClock {
            name: host.name.clone(),
            machine: Machine::new(
                host.platform,
                host.platform.instant_clock(),
                service.wall_start_ns.saturating_add(host.wall_offset_ns),
            ),
            drift: Drift::new(host.drift_ppb),
            edges: crate::service::clockwork::edges_of(&host.faults),
            edges_applied: 0,
        })
        .collect()
}

/// Panics, naming the cure, where a service cannot run.
pub(super) fn check_can_run() {
    assert!(
        tokio::runtime::Handle::try_current().is_err(),
        "ticklab: Service::run was called inside a tokio runtime (such as under \
         #[tokio::test]); it runs each host on a runtime of its own, so call it from a plain \
         #[test]"
    );
    if !crate::tokio::os::INTERCEPTED {
        panic!(
            "ticklab: this build cannot bring std::time::Instant inside the simulation (that needs \
         Linux with glibc and the `os-clocks` feature); a service's hosts read their clocks \
         through it, tokio's included"
        );
    }
}

/// File descriptors each host's runtime holds: its epoll instance and the eventfd that wakes it.
const DESCRIPTORS_PER_HOST: u64 = 2;

/// Refuses a service whose runtimes would need more file descriptors than the process may open.
fn check_descriptors(hosts: usize) -> Result<(), ServiceError> {
    let needed = hosts as u64 * DESCRIPTORS_PER_HOST + 64;
    let allowed = crate::tokio::os::open_files_limit();
    if allowed.is_some_and(|allowed| needed > allowed) {
        return Err(error(format!(
            "{hosts} hosts need about {needed} file descriptors for their runtimes, and this \
             process may open {} (`ulimit -n`): raise the limit, or run fewer hosts",
            allowed.unwrap_or_default()
        )));
    }
    Ok(())
}
