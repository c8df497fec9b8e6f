//! One timer base of the Linux kernel's timer wheel (`kernel/time/timer.c` since 4.8), at
//! `HZ=1000`: nine levels of 64 buckets, level `n`'s buckets `8^n` jiffies wide.
//!
//! - A timer is filed once, never cascaded: `calc_wheel_index` picks the level from how far its
//!   expiry is from the base's clock (`delta = expires - clk`, levels starting at
//!   `LVL_START(n) = 63 << 3(n-1)`), and rounds the expiry up to the level's granularity, plus
//!   one, so that it never fires early. A timer already past the base's clock goes to the
//!   bucket of `clk`; one further than the wheel reaches is clamped to its far end.
//! - `next_expiry` is the earliest bucket's expiry. Filing a timer earlier than it lowers it and
//!   kicks the CPU (`trigger_dyntick_cpu`); a cancel that empties a bucket only marks it for
//!   recalculation.
//! - The base's clock lags behind `jiffies` while nothing runs it. Filing forwards it to
//!   `jiffies` first, but never past `next_expiry` (`__forward_timer_base`): while expired
//!   timers wait to be run, a new timer is filed from the lagging clock, on a coarser level.
//! - Running the base (`__run_timers`) jumps its clock to `next_expiry`, collects that bucket of
//!   every level whose lower digits are zero there (`collect_expired_timers`), moves the clock
//!   one past, and recalculates `next_expiry`, for as long as `next_expiry` has passed.
//!
//! Timers are kept in doubly linked lists threaded through one `Vec`, indexed by the design's
//! slot numbers, so that a cancel takes its timer out at once, as `detach_timer` does. Within a
//! bucket the newest timer comes first (`hlist_add_head`), and the kernel expires a pass's
//! buckets from the highest level down; both orders are kept.

/// One jiffy at `HZ=1000`.
pub const JIFFY_NS: i64 = 1_000_000;
const LVL_CLK_SHIFT: u32 = 3;
const LVL_CLK_DIV: u64 = 1 << LVL_CLK_SHIFT;
const LVL_CLK_MASK: u64 = LVL_CLK_DIV - 1;
const LVL_BITS: u32 = 6;
const LVL_SIZE: u64 = 1 << LVL_BITS;
const LVL_MASK: u64 = LVL_SIZE - 1;
/// Levels at `HZ > 100`.
pub const LVL_DEPTH: usize = 9;
const WHEEL_SIZE: usize = LVL_SIZE as usize * LVL_DEPTH;

const fn lvl_shift(level: usize) -> u32 {
    level as u32 * LVL_CLK_SHIFT
}

/// Jiffies one bucket of `level` spans.
pub const fn lvl_gran(level: usize) -> u64 {
    1 << lvl_shift(level)
}

/// The shortest distance from the base's clock that is filed on `level` (for `level >= 1`).
pub const fn lvl_start(level: usize) -> u64 {
    (LVL_SIZE - 1) << ((level as u32 - 1) * LVL_CLK_SHIFT)
}

/// The wheel's reach: a timer this far or further is clamped to `WHEEL_TIMEOUT_MAX`.
pub const WHEEL_TIMEOUT_CUTOFF: u64 = lvl_start(LVL_DEPTH);
const WHEEL_TIMEOUT_MAX: u64 = WHEEL_TIMEOUT_CUTOFF - lvl_gran(LVL_DEPTH - 1);
/// `next_expiry` while nothing is pending: the clock plus this.
const NEXT_TIMER_MAX_DELTA: u64 = (1 << 30) - 1;

/// The jiffy `now_ns` falls in: `jiffies` counts whole ticks.
pub fn jiffies_at(now_ns: i64) -> u64 {
    now_ns.max(0) as u64 / JIFFY_NS as u64
}

/// A deadline in jiffies, rounded up, as `msecs_to_jiffies` rounds a timeout.
pub fn expires_for(deadline_ns: i64) -> u64 {
    (deadline_ns.max(0) as u64).div_ceil(JIFFY_NS as u64)
}

/// The bucket of `level` a timer expiring at `expires` goes to, and the jiffy it expires at
/// there: rounded up to the level's granularity, plus one granule (`calc_index`).
fn calc_index(expires: u64, level: usize) -> (usize, u64) {
    let granules = (expires >> lvl_shift(level)) + 1;
    let bucket_expiry = granules << lvl_shift(level);
    let index = level * LVL_SIZE as usize + (granules & LVL_MASK) as usize;
    (index, bucket_expiry)
}

/// The bucket a timer expiring at `expires` goes to while the base's clock reads `clk`, and the
/// jiffy it expires at there (`calc_wheel_index`).
pub fn calc_wheel_index(expires: u64, clk: u64) -> (usize, u64) {
    if expires < clk {
        return ((clk & LVL_MASK) as usize, clk);
    }
    let delta = expires - clk;
    match (1..LVL_DEPTH).find(|level| delta < lvl_start(*level)) {
        Some(level) => calc_index(expires, level - 1),
        None => {
            let expires = if delta >= WHEEL_TIMEOUT_CUTOFF {
                clk + WHEEL_TIMEOUT_MAX
            } else {
                expires
            };
            calc_index(expires, LVL_DEPTH - 1)
        }
    }
}

/// The distance from bucket `clk` of a level to its next pending bucket, going round
/// (`next_pending_bucket`).
fn next_pending_bucket(pending: u64, clk: u64) -> Option<u64> {
    let start = clk as u32;
    let from_start = pending & (u64::MAX << start);
    if from_start != 0 {
        return Some(u64::from(from_start.trailing_zeros() - start));
    }
    let before_start = pending & ((1u64 << start) - 1);
    (before_start != 0).then(|| u64::from(before_start.trailing_zeros() + LVL_SIZE as u32 - start))
}

/// "No node": the end of a list.
const NIL: u32 = u32::MAX;
/// The bucket of a node in no bucket.
const NOWHERE: u16 = u16::MAX;

struct Node<P> {
    bucket: u16,
    prev: u32,
    next: u32,
    payload: Option<P>,
}

/// A timer base: its clock, its buckets and its next expiry.
pub(crate) struct TimerBase<P> {
    /// The base's clock, in jiffies: where it was last run or forwarded to.
    pub(crate) clk: u64,
    /// The earliest bucket's expiry; stale (too early) while `next_expiry_recalc`.
    pub(crate) next_expiry: u64,
    pub(crate) next_expiry_recalc: bool,
    /// Whether any timer is pending, as of the last recalculation.
    pub(crate) timers_pending: bool,
    /// One bit per bucket that holds a timer, per level.
    pending_map: [u64; LVL_DEPTH],
    /// Each bucket's first node.
    heads: Vec<u32>,
    nodes: Vec<Node<P>>,
    /// Timers filed.
    len: usize,
}

impl<P> TimerBase<P> {
    pub(crate) fn new() -> Self {
        TimerBase {
            clk: 0,
            next_expiry: NEXT_TIMER_MAX_DELTA,
            next_expiry_recalc: false,
            timers_pending: false,
            pending_map: [0; LVL_DEPTH],
            heads: vec![NIL; WHEEL_SIZE],
            nodes: Vec::new(),
            len: 0,
        }
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// With nothing filed, the clock simply follows `jiffies`, however far it moved: the
    /// kernel's idle base keeps `next_expiry` a long way ahead of its clock for the same end,
    /// and a clock first read as the wall clock's billions of jiffies must not meet a stale one.
    fn follow_while_empty(&mut self, jiffies: u64) -> bool {
        if self.len > 0 {
            return false;
        }
        self.clk = self.clk.max(jiffies);
        self.next_expiry = self.clk + NEXT_TIMER_MAX_DELTA;
        self.next_expiry_recalc = false;
        self.timers_pending = false;
        true
    }

    /// Forwards the clock to `jiffies` as a timer is filed, but never past an expiry that has
    /// not been run yet (`__forward_timer_base`), unless `stop_at_next_expiry` is off (a planted
    /// bug). Returns whether that left it behind `jiffies`.
    pub(crate) fn forward(&mut self, jiffies: u64, stop_at_next_expiry: bool) -> bool {
        if jiffies <= self.clk || self.follow_while_empty(jiffies) {
            return false;
        }
        if self.next_expiry > jiffies || !stop_at_next_expiry {
            self.clk = jiffies;
        } else {
            // The kernel warns if the next expiry is behind the clock; the clock stays then.
            self.clk = self.clk.max(self.next_expiry);
        }
        self.clk < jiffies
    }

    /// Forwards the clock as a CPU goes idle (`get_next_timer_interrupt`): to `jiffies` if
    /// nothing is due by then, else to the next expiry if that is ahead of the clock.
    pub(crate) fn forward_at_idle(&mut self, jiffies: u64) {
        if jiffies > self.clk && !self.follow_while_empty(jiffies) {
            if self.next_expiry > jiffies {
                self.clk = jiffies;
            } else if self.next_expiry > self.clk {
                self.clk = self.next_expiry;
            }
        }
    }

    /// Files the timer of `slot`, expiring at `expires`, from the base's clock. Returns the
    /// jiffy its bucket expires at, and whether that is earlier than `next_expiry`, which it
    /// then becomes (`enqueue_timer`).
    pub(crate) fn enqueue(&mut self, slot: u32, expires: u64, payload: P) -> (u64, bool) {
        let (index, bucket_expiry) = calc_wheel_index(expires, self.clk);
        let at = slot as usize;
        if self.nodes.len() <= at {
            self.nodes.resize_with(at + 1, || Node {
                bucket: NOWHERE,
                prev: NIL,
                next: NIL,
                payload: None,
            });
        }
        let head = self.heads[index];
        self.nodes[at] = Node {
            bucket: index as u16,
            prev: NIL,
            next: head,
            payload: Some(payload),
        };
        if head != NIL {
            self.nodes[head as usize].prev = slot;
        }
        self.heads[index] = slot;
        self.pending_map[index / LVL_SIZE as usize] |= 1 << (index as u64 & LVL_MASK);
        self.len += 1;
        let earlier = bucket_expiry < self.next_expiry;
        if earlier {
            self.next_expiry = bucket_expiry;
            self.timers_pending = true;
            self.next_expiry_recalc = false;
        }
        (bucket_expiry, earlier)
    }

    /// Takes the timer of `slot` out of its bucket, if it is in one (`detach_if_pending`).
    pub(crate) fn detach(&mut self, slot: u32) -> Option<P> {
        let node = self.nodes.get_mut(slot as usize)?;
        if node.bucket == NOWHERE {
            return None;
        }
        let (index, prev, next) = (node.bucket as usize, node.prev, node.next);
        node.bucket = NOWHERE;
        let payload = node.payload.take();
        match prev {
            NIL => self.heads[index] = next,
            prev => self.nodes[prev as usize].next = next,
        }
        if next != NIL {
            self.nodes[next as usize].prev = prev;
        }
        if self.heads[index] == NIL {
            self.pending_map[index / LVL_SIZE as usize] &= !(1 << (index as u64 & LVL_MASK));
            self.next_expiry_recalc = true;
        }
        self.len -= 1;
        payload
    }

    /// Whether a pass of `__run_timers` is due at `jiffies`: never with nothing filed.
    pub(crate) fn due(&self, jiffies: u64) -> bool {
        self.len > 0 && jiffies >= self.clk && jiffies >= self.next_expiry
    }

    /// One pass of `__run_timers`: jumps the clock to the next expiry, takes out the buckets
    /// due there, moves the clock one past and recalculates the next expiry. Returns the slots
    /// taken out, in the order the kernel expires them.
    pub(crate) fn run_pass(&mut self, expired: &mut Vec<(u32, P)>) {
        let mut clk = self.next_expiry;
        self.clk = clk;
        let mut buckets = [None; LVL_DEPTH];
        for (level, bucket) in buckets.iter_mut().enumerate() {
            let index = (clk & LVL_MASK) as usize + level * LVL_SIZE as usize;
            if self.pending_map[level] & (1 << (clk & LVL_MASK)) != 0 {
                *bucket = Some(index);
            }
            if clk & LVL_CLK_MASK != 0 {
                break;
            }
            clk >>= LVL_CLK_SHIFT;
        }
        // The highest level's bucket expires first, each bucket newest first.
        for index in buckets.into_iter().rev().flatten() {
            while self.heads[index] != NIL {
                let slot = self.heads[index];
                let payload = self.detach(slot).expect("a filed timer has its payload");
                expired.push((slot, payload));
            }
        }
        self.clk += 1;
        self.next_expiry = self.next_timer_interrupt();
    }

    /// The earliest pending bucket's expiry, or the clock plus `NEXT_TIMER_MAX_DELTA` if none
    /// (`__next_timer_interrupt`).
    pub(crate) fn next_timer_interrupt(&mut self) -> u64 {
        let none = self.clk + NEXT_TIMER_MAX_DELTA;
        let mut next = none;
        let mut clk = self.clk;
        for level in 0..LVL_DEPTH {
            let level_clk = clk & LVL_CLK_MASK;
            if let Some(pos) = next_pending_bucket(self.pending_map[level], clk & LVL_MASK) {
                next = next.min((clk + pos) << lvl_shift(level));
                // Due before the next level's bucket turns: no need to look further up.
                if pos <= ((LVL_CLK_DIV - level_clk) & LVL_CLK_MASK) {
                    break;
                }
            }
            // The next level's next bucket is one on from its digit here, unless this level's
            // clock is at a multiple of the next level's granule.
            clk = (clk >> LVL_CLK_SHIFT) + u64::from(level_clk != 0);
        }
        self.next_expiry_recalc = false;
        self.timers_pending = next != none;
        next
    }

    /// Takes every filed timer out, for a base being stopped.
    pub(crate) fn drain_slots(&mut self) -> Vec<u32> {
        let mut slots = Vec::with_capacity(self.len);
        for index in 0..WHEEL_SIZE {
            while self.heads[index] != NIL {
                let slot = self.heads[index];
                self.detach(slot);
                slots.push(slot);
            }
        }
        self.next_expiry = self.clk + NEXT_TIMER_MAX_DELTA;
        self.timers_pending = false;
        slots
    }
}
