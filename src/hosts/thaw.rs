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

/// What a host found as it thawed: how many messages, handled in `order`, and the live timers,
/// which the workloads put in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Thawed {
    pub(crate) order: ThawOrder,
    pub(crate) messages: usize,
    /// What each live timer is for, in the order they came due.
    pub(crate) timers: Vec<WakeTag>,
}

/// Puts what a host held, in the order it came due, into the order its runtime handles it.
/// `live` gives a held wake's tag if it still stands, and `None` if a later filing or a cancel
/// made it stale.
pub(super) fn arrange(
    held: Vec<Item>,
    order: ThawOrder,
    live: impl Fn(&Item) -> Option<WakeTag>,
) -> (Vec<Item>, Thawed) {
    let (messages, timers): (Vec<Item>, Vec<Item>) = held
        .into_iter()
        .partition(|item| matches!(item, Item::Deliver { .. }));
    let thawed = Thawed {
        order,
        messages: messages.len(),
        timers: timers.iter().filter_map(live).collect(),
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
    let mut senders: Vec<u32> = Vec::new();
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
    use crate::hosts::step::{Msg, Words};

    const TAG: WakeTag = WakeTag {
        workload: 0,
        kind: 0,
        word: 0,
    };

    fn message(from: u32) -> Item {
        Item::Deliver {
            from,
            to: 0,
            msg: Msg::new(0, Words::default()),
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
        let all_live = |_: &Item| Some(TAG);
        let (io, thawed) = arrange(held.clone(), ThawOrder::IoFirst, all_live);
        assert_eq!(shape(&io), ["m1", "m2", "m1", "t7", "t8"]);
        assert_eq!((thawed.messages, thawed.timers.len()), (3, 2));
        let (timers, _) = arrange(held.clone(), ThawOrder::TimersFirst, all_live);
        assert_eq!(shape(&timers), ["t7", "t8", "m1", "m2", "m1"]);
        let (tokio, _) = arrange(held, ThawOrder::Tokio, all_live);
        assert_eq!(shape(&tokio), ["m1", "m1", "m2", "t7", "t8"]);
    }

    #[test]
    fn a_stale_timer_is_not_counted() {
        let held = vec![timer(1), timer(2)];
        let (_, thawed) = arrange(held, ThawOrder::IoFirst, |item| {
            matches!(item, Item::Wake { slot: 2, .. }).then_some(TAG)
        });
        assert_eq!(thawed.timers.len(), 1);
    }
}
