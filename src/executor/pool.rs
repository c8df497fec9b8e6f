//! Connection pools. A connection belongs to the runtime that opened it: its socket is registered
//! with that runtime's driver, and its connection task runs there. A request that reuses an idle
//! connection therefore depends on the owning runtime's workers, whichever runtime asked.

use super::spec::PoolConfig;

/// A connection's index in the run's connection table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ConnectionId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Connection {
    pub pool: usize,
    /// The runtime whose driver and workers serve it.
    pub owner: usize,
}

/// What a checkout found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checkout {
    /// An idle connection, possibly owned by another runtime.
    Reused(ConnectionId),
    /// A new connection, owned by the runtime that asked; it pays the pool's connect time.
    Opened(ConnectionId),
}

impl Checkout {
    pub fn connection(self) -> ConnectionId {
        match self {
            Checkout::Reused(id) | Checkout::Opened(id) => id,
        }
    }
}

/// Every pool of a run, and every connection ever opened.
#[derive(Debug)]
pub struct Pools {
    configs: Vec<PoolConfig>,
    connections: Vec<Connection>,
    /// Idle connections per (pool, runtime); a shared pool files them all under runtime 0.
    idle: Vec<Vec<Vec<ConnectionId>>>,
}

impl Pools {
    pub fn new(configs: &[PoolConfig], runtimes: usize) -> Self {
        Pools {
            configs: configs.to_vec(),
            connections: Vec::new(),
            idle: configs
                .iter()
                .map(|_| vec![Vec::new(); runtimes.max(1)])
                .collect(),
        }
    }

    pub fn connection(&self, id: ConnectionId) -> Connection {
        self.connections[id.0 as usize]
    }

    pub fn opened(&self) -> usize {
        self.connections.len()
    }

    pub fn connect_ns(&self, pool: usize) -> u64 {
        self.configs[pool].connect_ns
    }

    /// A connection for a request from `runtime`: the most recently returned idle one, as
    /// hyper's pool hands out, or a new one.
    pub fn check_out(&mut self, pool: usize, runtime: usize) -> Checkout {
        let shelf = self.shelf(pool, runtime);
        if let Some(id) = self.idle[pool][shelf].pop() {
            return Checkout::Reused(id);
        }
        self.connections.push(Connection {
            pool,
            owner: runtime,
        });
        Checkout::Opened(ConnectionId(self.connections.len() as u32 - 1))
    }

    /// Returns a connection after its response was read. Returns whether it was kept idle; a
    /// full pool (or one with `idle = 0`) closes it.
    pub fn check_in(&mut self, id: ConnectionId) -> bool {
        let connection = self.connection(id);
        let shelf = self.shelf(connection.pool, connection.owner);
        let limit = self.configs[connection.pool].idle;
        let idle = &mut self.idle[connection.pool][shelf];
        if idle.len() < limit {
            idle.push(id);
            true
        } else {
            false
        }
    }

    fn shelf(&self, pool: usize, runtime: usize) -> usize {
        if self.configs[pool].shared {
            0
        } else {
            runtime
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(idle: usize, shared: bool) -> PoolConfig {
        PoolConfig {
            name: "http".into(),
            idle,
            shared,
            connect_ns: 0,
        }
    }

    #[test]
    fn a_shared_pool_hands_a_connection_opened_by_one_runtime_to_another() {
        let mut pools = Pools::new(&[pool(4, true)], 2);
        let opened = pools.check_out(0, 1);
        assert!(matches!(opened, Checkout::Opened(_)));
        assert!(pools.check_in(opened.connection()));
        let reused = pools.check_out(0, 0);
        assert_eq!(reused, Checkout::Reused(opened.connection()));
        assert_eq!(
            pools.connection(reused.connection()).owner,
            1,
            "the opener keeps owning it"
        );
    }

    #[test]
    fn per_runtime_pools_never_cross_runtimes() {
        let mut pools = Pools::new(&[pool(4, false)], 2);
        let opened = pools.check_out(0, 1);
        pools.check_in(opened.connection());
        assert!(matches!(pools.check_out(0, 0), Checkout::Opened(_)));
        assert_eq!(pools.check_out(0, 1), Checkout::Reused(opened.connection()));
    }

    #[test]
    fn an_idle_size_of_zero_closes_every_connection() {
        let mut pools = Pools::new(&[pool(0, true)], 2);
        let opened = pools.check_out(0, 1);
        assert!(!pools.check_in(opened.connection()));
        assert!(matches!(pools.check_out(0, 0), Checkout::Opened(_)));
        assert_eq!(pools.opened(), 2);
    }
}
