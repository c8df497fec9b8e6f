//! Where a key goes: the bucket numbering, and the least key a bucket can hold.
//!
//! A key is 128 bits, `time << 64 | seq << 24 | slot`; the slot never decides an order, so the
//! digits cover the 40 sequence bits and the 64 time bits. Bucket `level * FANOUT + digit`
//! holds the keys whose highest digit that differs from `last` is at `level` and equals
//! `digit`; low levels are the sequence number's digits, high levels the time's.

/// Low bits of a key that name its slot; they never decide the order of two queued keys.
pub const SLOT_BITS: u32 = 24;
pub(super) const SLOT_MASK: u64 = (1 << SLOT_BITS) - 1;
const DIGIT_BITS: u32 = 8;
const FANOUT: usize = 1 << DIGIT_BITS;
/// Digits of the low word above the slot bits, then digits of the high word.
const LOW_LEVELS: usize = ((64 - SLOT_BITS) / DIGIT_BITS) as usize;
/// The high word's digits start this many bits in, so that one level has buckets of 2^20 ns
/// (about a millisecond) and spans 2^28 ns (about a quarter of a second): wakes on a timer
/// driver's millisecond grid file straight into a bucket of their own time, or move once.
const HIGH_OFFSET: u32 = 4;
const HIGH_LEVELS: usize = (64 + HIGH_OFFSET).div_ceil(DIGIT_BITS) as usize;
const LEVELS: usize = LOW_LEVELS + HIGH_LEVELS;
/// Buckets, rounded up to a power of two so that masking a bucket number proves it in bounds.
pub(super) const BUCKETS: usize = (LEVELS * FANOUT).next_power_of_two();
/// 64-bit words of the bucket bitmap; the summary word has a bit per bitmap word.
pub(super) const WORDS: usize = BUCKETS / 64;
const _: () = assert!(WORDS <= 64);

#[inline]
pub(super) fn slot_of(key: u128) -> usize {
    (key as u64 & SLOT_MASK) as usize
}

/// The bucket of `key`, which orders at or after `last`.
///
/// A key is never below `last`, so its digit at the highest level where they differ is above
/// `last`'s there: bucket 0 (level 0, digit 0) never holds a key that differs from `last`, and
/// holds the one that orders with it, if any (see [`bucket_floor`]).
#[inline]
pub(super) fn bucket_of(key: u128, last: u128) -> usize {
    let high = (key >> 64) as u64;
    let last_high = (last >> 64) as u64;
    let bucket = if high != last_high {
        let level = (63 - (high ^ last_high).leading_zeros() + HIGH_OFFSET) / DIGIT_BITS;
        let digit = (high >> high_shift(level)) as usize % FANOUT;
        (LOW_LEVELS + level as usize) * FANOUT + digit
    } else {
        let low = key as u64;
        // `| 1` sends a key that orders with `last` to level 0, where its digit is 0.
        let differ = ((low ^ last as u64) >> SLOT_BITS) | 1;
        let level = (63 - differ.leading_zeros()) / DIGIT_BITS;
        let digit = (low >> (SLOT_BITS + level * DIGIT_BITS)) as usize % FANOUT;
        level as usize * FANOUT + digit
    };
    bucket % BUCKETS
}

/// Where the digit of high-word level `level` starts. Level 0 is the low [`HIGH_OFFSET`] bits;
/// its digit takes in the bits above them too, which equal `last`'s there.
#[inline]
fn high_shift(level: u32) -> u32 {
    (level * DIGIT_BITS).saturating_sub(HIGH_OFFSET)
}

/// The least key `bucket` can hold given `last`: `last`'s digits above the bucket's level, the
/// bucket's digit at it, and zeros below.
#[inline]
pub(super) fn bucket_floor(bucket: usize, last: u128) -> u128 {
    let (level, digit) = ((bucket / FANOUT) as u32, (bucket % FANOUT) as u128);
    let shift = if level as usize >= LOW_LEVELS {
        64 + high_shift(level - LOW_LEVELS as u32)
    } else {
        SLOT_BITS + level * DIGIT_BITS
    };
    let kept = u128::MAX.checked_shl(shift + DIGIT_BITS).unwrap_or(0);
    (last & kept) | (digit << shift)
}
