//! `io` steps: a request handed to its connection's task, the reply through the owning runtime's
//! driver, and the requester woken.

use super::*;

impl ExecutorRun<'_> {
    /// An `io` step: check a connection out of the pool and hand the request to its task.
    pub(super) fn start_io(
        &mut self,
        m: &mut Machine<Wake>,
        on: On,
        task: TaskId,
        pool: usize,
        latency_ns: (u64, u64),
        timeout_ns: Option<u64>,
    ) -> io::Result<()> {
        let runtime = on.runtime();
        let now_ns = self.now_ns(m);
        let checkout = self.pools.check_out(pool, runtime);
        let connection = checkout.connection();
        let mut network_ns = self.latency.in_range(latency_ns.0, latency_ns.1);
        if let Checkout::Opened(_) = checkout {
            // The opener's runtime owns the socket and runs its task.
            let conn_task = self
                .tasks
                .add(TaskKind::Connection { connection }, runtime, now_ns);
            self.connections.push(ConnectionSlot {
                task: conn_task,
                state: ConnectionState::Idle,
            });
            network_ns += self.pools.connect_ns(pool);
        }
        if self.pools.connection(connection).owner != runtime {
            self.stats.cross_runtime_io_calls += 1;
        }
        self.requests.push(Request {
            requester: task,
            connection,
            reused: matches!(checkout, Checkout::Reused(_)),
            started_ns: now_ns,
            network_ns,
            sent_ns: now_ns,
            replied_ns: now_ns,
            noticed_ns: now_ns,
            delivered: false,
            abandoned: false,
        });
        let request = self.requests.len() - 1;
        self.tasks.get_mut(task).request = Some(request);
        if let Some(timeout_ns) = timeout_ns {
            let deadline_ns = m.instant_ns().saturating_add(timeout_ns as i64);
            let registration = self.runtimes[runtime].driver.sleep_until(deadline_ns, task);
            self.tasks.get_mut(task).io_timeout = Some((registration, deadline_ns));
            self.arm_driver_timeout(m, runtime);
        }
        let slot = &mut self.connections[connection.0 as usize];
        slot.state = ConnectionState::ToSend { request };
        let conn_task = slot.task;
        // Handing the request over (a channel send) wakes the connection task.
        self.wake_task(m, conn_task, on.worker(), false)
    }

    /// A poll of a connection task: it sends a handed-over request, or reads a noticed reply and
    /// wakes the requester.
    pub(super) fn run_connection(
        &mut self,
        m: &mut Machine<Wake>,
        on: On,
        task: TaskId,
    ) -> io::Result<()> {
        let TaskKind::Connection { connection } = self.tasks.get(task).kind else {
            unreachable!("only connection tasks are run as connections");
        };
        let now_ns = self.now_ns(m);
        let slot = &mut self.connections[connection.0 as usize];
        match slot.state {
            ConnectionState::ToSend { request } => {
                slot.state = ConnectionState::InFlight { request };
                let request = &mut self.requests[request];
                request.sent_ns = now_ns;
                let at_ns = now_ns + request.network_ns;
                m.wake_at(
                    physical(at_ns),
                    Wake::Reply {
                        connection: connection.0,
                    },
                );
                Ok(())
            }
            ConnectionState::Replied { request } => {
                slot.state = ConnectionState::Idle;
                if !self.pools.check_in(connection) {
                    // Closed rather than kept idle: its task ends.
                    self.tasks.get_mut(task).finished = true;
                }
                let request = &mut self.requests[request];
                if request.abandoned {
                    // Its requester timed out and went on: the reply is dropped.
                    return Ok(());
                }
                request.delivered = true;
                let requester = request.requester;
                self.wake_task(m, requester, on.worker(), false)
            }
            ConnectionState::Idle | ConnectionState::InFlight { .. } => Ok(()),
        }
    }

    /// A reply reached the socket: the owning runtime's driver has an event, which a parked
    /// driver holder picks up at once and busy workers only at their next driver poll.
    pub(super) fn reply(
        &mut self,
        m: &mut Machine<Wake>,
        connection: ConnectionId,
    ) -> io::Result<()> {
        let slot = &mut self.connections[connection.0 as usize];
        let ConnectionState::InFlight { request } = slot.state else {
            return Ok(());
        };
        slot.state = ConnectionState::Replied { request };
        let conn_task = slot.task;
        self.requests[request].replied_ns = m.now_ns();
        let owner = self.pools.connection(connection).owner;
        let rt = &mut self.runtimes[owner];
        rt.driver.io_ready(conn_task);
        match rt.scheduler.driver_holder() {
            Some(holder) => self.notify(m, owner, holder),
            None => Ok(()),
        }
    }

    /// The requester of `request` runs again, woken by the reply or by its timeout: tokio's
    /// `timeout` polls the request first, so a reply that is in wins over a timer that fired.
    pub(super) fn resume_from_io(
        &mut self,
        m: &mut Machine<Wake>,
        task: TaskId,
        request: usize,
    ) -> io::Result<()> {
        let timeout = self.tasks.get_mut(task).io_timeout.take();
        if self.requests[request].delivered {
            if let Some((registration, _)) = timeout {
                let runtime = self.tasks.get(task).runtime;
                self.runtimes[runtime].driver.cancel(registration);
            }
            return self.io_done(m, task, request);
        }
        let (_, deadline_ns) = timeout.expect("only a timeout wakes a task whose reply is not in");
        self.io_timed_out(m, task, request, deadline_ns)
    }

    /// The requester's timeout fired first: it goes on without the reply, which is dropped when
    /// it comes; the connection finishes the exchange and returns to its pool.
    fn io_timed_out(
        &mut self,
        m: &mut Machine<Wake>,
        task: TaskId,
        request: usize,
        deadline_ns: i64,
    ) -> io::Result<()> {
        self.requests[request].abandoned = true;
        self.timer_done(m, task, "timeout", deadline_ns)?;
        let TaskKind::Group { group, .. } = self.tasks.get(task).kind else {
            return Ok(());
        };
        self.stats.groups[group].timeouts += 1;
        if !self.wants_events {
            return Ok(());
        }
        let connection = self.requests[request].connection;
        let event = IoTimeoutEvent {
            t_ns: m.now_ns(),
            task: self.label(task),
            connection: connection.0,
            latency_ns: m.now_ns() - self.requests[request].started_ns,
            request: match self.connections[connection.0 as usize].state {
                ConnectionState::ToSend { .. } => "not sent",
                ConnectionState::InFlight { .. } => "in flight",
                ConnectionState::Replied { .. } | ConnectionState::Idle => "replied, not yet read",
            },
        };
        self.sink.record(&Event::Model(&event))
    }

    /// The requester of `request` runs again: its io step is complete.
    pub(super) fn io_done(
        &mut self,
        m: &mut Machine<Wake>,
        task: TaskId,
        request: usize,
    ) -> io::Result<()> {
        let now_ns = self.now_ns(m);
        let request = self.requests[request];
        let latency_ns = now_ns - request.started_ns;
        let send_wait_ns = request.sent_ns - request.started_ns;
        let driver_wait_ns = request.noticed_ns - request.replied_ns;
        self.stats.max_send_wait_ns = self.stats.max_send_wait_ns.max(send_wait_ns);
        self.stats.max_driver_wait_ns = self.stats.max_driver_wait_ns.max(driver_wait_ns);
        if let TaskKind::Group { group, .. } = self.tasks.get(task).kind {
            self.stats.groups[group].io(latency_ns);
        }
        if self.wants_events {
            let owner = self.pools.connection(request.connection).owner;
            let event = IoEvent {
                t_ns: now_ns,
                task: self.label(task),
                connection: request.connection.0,
                owner: self.runtimes[owner].name.clone(),
                reused: request.reused,
                send_wait_ns,
                network_ns: request.replied_ns - request.sent_ns,
                driver_wait_ns,
                resume_wait_ns: now_ns - request.noticed_ns,
                latency_ns,
            };
            self.sink.record(&Event::Model(&event))?;
        }
        Ok(())
    }
}
