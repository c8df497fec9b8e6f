//! What a process does first when it runs again. A host frozen or asleep finds, as it thaws, the
//! timers that came due meanwhile and (after a freeze) the messages its kernel buffered, all at
//! once; which it handles first is a property of its runtime, and it decides whether a server
//! that paused expires the sessions whose pings wait in its buffer.

use super::queue::Item;
use super::step::WakeTag;
use crate::scenario::values::Named;

/// The order in which a thawed host handles what it finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThawOrder {
    /// The buffered messages, in the order they arrived, then the timers, in the order they came
    /// due: an event loop that reads its sockets before it looks at its timers.
    IoFirst,
    /// The timers first: a dedicated expiry thread that wins the core as the process thaws, as
    /// ZooKeeper's session tracker can, then the messages.
    TimersFirst,
    /// As tokio's driver turns: socket readiness and expired timers wake their tasks in one turn,
    /// readiness first, and the tasks run in the order they were woken. Each sender's connection
    /// reads everything it buffered, connections in the order their first message arrived, then
    /// the timers' tasks run.
    Tokio,
}

impl Named for ThawOrder {
    const ALL: &'static [Self] = &[ThawOrder::IoFirst, ThawOrder::TimersFirst, ThawOrder::Tokio];
    const NAMES: &'static [&'static str] = &["io-first", "timers-first", "tokio"];
}

impl ThawOrder {
    pub fn name(self) -> &'static str {
        Self::NAMES[Self::ALL
            .iter()
            .position(|order| *order == self)
            .unwrap_or(0)]
    }
}

/// What a host found as it thawed: how many messages and timers, handled in `order`, and the
/// timers by what each is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Thawed {
    pub(crate) order: ThawOrder,
    pub(crate) messages: usize,
    /// Live timers by [`TIMER_KINDS`].
    pub(crate) timer_kinds: [u32; TIMER_KINDS.len()],
}

impl Thawed {
    /// The live timers it found.
    pub(crate) fn timers(&self) -> usize {
        self.timer_kinds.iter().map(|&count| count as usize).sum()
    }
}

/// What a workload's timer is for, one and many, in the order a thaw line lists them.
pub(crate) const TIMER_KINDS: [(&str, &str); 10] = [
    ("heartbeat send", "heartbeat sends"),
    ("suspicion check", "suspicion checks"),
    ("lease ask", "lease asks"),
    ("lease write", "lease writes"),
    ("checked write going out", "checked writes going out"),
    ("lease expiry", "lease expiries"),
    ("lock service expiry", "lock service expiries"),
    ("call", "calls"),
    ("timer round", "timer rounds"),
    ("answer to send", "answers to send"),
];

/// Which of [`TIMER_KINDS`] a wake is.
pub(crate) fn timer_kind(tag: WakeTag) -> usize {
    use super::heartbeat::BeatWake;
    use super::lease::LeaseWake;
    use super::rpc::RpcWake;
    match tag {
        WakeTag::Heartbeat(BeatWake::Send) => 0,
        WakeTag::Heartbeat(BeatWake::Check { .. }) => 1,
        WakeTag::Lease(LeaseWake::Ask) => 2,
        WakeTag::Lease(LeaseWake::Write) => 3,
        WakeTag::Lease(LeaseWake::Send { .. }) => 4,
        WakeTag::Lease(LeaseWake::Expiry) => 5,
        WakeTag::Lease(LeaseWake::Expire) => 6,
        WakeTag::Rpc(RpcWake::Call) => 7,
        WakeTag::Rpc(RpcWake::Round { .. }) => 8,
        WakeTag::Rpc(RpcWake::Serve { .. }) => 9,
    }
}

/// `kinds` in words: `2 suspicion checks, 1 heartbeat send`.
pub(crate) fn kinds_text(kinds: &[u32; TIMER_KINDS.len()]) -> String {
    kinds
        .iter()
        .zip(TIMER_KINDS)
        .filter(|(count, _)| **count > 0)
        .map(|(count, (one, many))| match count {
            1 => format!("1 {one}"),
            _ => format!("{count} {many}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Puts what a host held, in the order it came due, into the order its runtime handles it.
/// `live_kind` says which of [`TIMER_KINDS`] a held wake is if it still stands, and `None` if a
/// later filing or a cancel made it stale.
pub(super) fn arrange(
    held: Vec<Item>,
    order: ThawOrder,
    live_kind: impl Fn(&Item) -> Option<usize>,
) -> (Vec<Item>, Thawed) {
    let (messages, timers): (Vec<Item>, Vec<Item>) = held
        .into_iter()
        .partition(|item| matches!(item, Item::Deliver { .. }));
    let mut timer_kinds = [0; TIMER_KINDS.len()];
    for kind in timers.iter().filter_map(&live_kind) {
        timer_kinds[kind] += 1;
    }
    let thawed = Thawed {
        order,
        messages: messages.len(),
        timer_kinds,
    };
    let arranged = match order {
        ThawOrder::IoFirst => messages.into_iter().chain(timers).collect(),
        ThawOrder::TimersFirst => timers.into_iter().chain(messages).collect(),
        ThawOrder::Tokio => by_connection(messages).into_iter().chain(timers).collect(),
    };
    (arranged, thawed)
}

/// Messages grouped by sender, senders in the order their first message arrived, each sender's
/// in the order sent.
fn by_connection(messages: Vec<Item>) -> Vec<Item> {
    let mut senders: Vec<usize> = Vec::new();
    for item in &messages {
        if let Item::Deliver { from, .. } = item
            && !senders.contains(from)
        {
            senders.push(*from);
        }
    }
    senders
        .into_iter()
        .flat_map(|sender| {
            messages
                .iter()
                .filter(move |item| matches!(item, Item::Deliver { from, .. } if *from == sender))
                .copied()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hosts::cluster::Msg;
    use crate::hosts::heartbeat::Beat;

    fn message(from: usize) -> Item {
        Item::Deliver {
            from,
            to: 0,
            msg: Msg::Heartbeat(Beat { watch: 0 }),
        }
    }

    fn timer(slot: u32) -> Item {
        Item::Wake {
            host: 0,
            slot,
            generation: 1,
        }
    }

    fn shape(items: &[Item]) -> Vec<String> {
        items
            .iter()
            .map(|item| match item {
                Item::Deliver { from, .. } => format!("m{from}"),
                Item::Wake { slot, .. } => format!("t{slot}"),
                _ => "?".to_string(),
            })
            .collect()
    }

    #[test]
    fn each_order_puts_what_came_due_where_its_runtime_would() {
        let held = vec![message(1), timer(7), message(2), message(1), timer(8)];
        let all_live = |_: &Item| Some(0);
        let (io, thawed) = arrange(held.clone(), ThawOrder::IoFirst, all_live);
        assert_eq!(shape(&io), ["m1", "m2", "m1", "t7", "t8"]);
        assert_eq!((thawed.messages, thawed.timers()), (3, 2));
        let (timers, _) = arrange(held.clone(), ThawOrder::TimersFirst, all_live);
        assert_eq!(shape(&timers), ["t7", "t8", "m1", "m2", "m1"]);
        let (tokio, _) = arrange(held, ThawOrder::Tokio, all_live);
        assert_eq!(shape(&tokio), ["m1", "m1", "m2", "t7", "t8"]);
    }

    #[test]
    fn a_stale_timer_is_not_counted() {
        let held = vec![timer(1), timer(2)];
        let (_, thawed) = arrange(held, ThawOrder::IoFirst, |item| {
            matches!(item, Item::Wake { slot: 2, .. }).then_some(1)
        });
        assert_eq!(thawed.timers(), 1);
    }
}
