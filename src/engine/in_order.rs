//! Service times of the blocks of a sequential pass kept several requests deep,
//! taken in block order.
//!
//! A block's service time runs from when the device could start on it (its
//! submission, or the previous block's completion if later) to its completion, so
//! that waiting behind the blocks before it is not counted as its own. "The previous
//! block", not "the previous completion seen": the I/O threads report completions in
//! the order the scheduler wakes them, and on a busy machine the thread of a slow
//! block may read the clock after the thread of the block behind it, which the
//! device finished later. Timed by arrival, the wait would be charged to the block
//! behind and the slow block would look fast; in block order the slow block keeps
//! its time and the one behind it gets only what followed.

use std::collections::BTreeMap;

/// Completed blocks held until every block before them came back.
#[derive(Debug)]
pub struct InBlockOrder<T> {
    next: u64,
    /// The previous block's completion time, once one was taken.
    prev_done: Option<u64>,
    /// Completed blocks past `next`: (start, done, item).
    pending: BTreeMap<u64, (u64, u64, T)>,
}

/// One block taken in order.
#[derive(Debug, PartialEq)]
pub struct Timed<T> {
    /// The block's index in the pass.
    pub index: u64,
    /// What the caller stored with it.
    pub item: T,
    /// Its service time, ns: from its start or the previous block's completion,
    /// whichever is later.
    pub ns: u64,
    /// The clock reading at its completion.
    pub done_ns: u64,
}

impl<T> InBlockOrder<T> {
    /// Blocks taken from index `first` on.
    pub fn new(first: u64) -> Self {
        InBlockOrder {
            next: first,
            prev_done: None,
            pending: BTreeMap::new(),
        }
    }

    /// The index of the next block to be taken: every block before it was taken.
    pub fn next_index(&self) -> u64 {
        self.next
    }

    /// Block `index`, submitted at `start_ns`, completed at `done_ns`.
    pub fn push(&mut self, index: u64, start_ns: u64, done_ns: u64, item: T) {
        self.pending.insert(index, (start_ns, done_ns, item));
    }

    /// The next block in order, once it came back.
    pub fn pop(&mut self) -> Option<Timed<T>> {
        let (start, done, item) = self.pending.remove(&self.next)?;
        Some(self.take(self.next, start, done, item))
    }

    /// The next block that came back, past any that never did (after a pass that
    /// ended early): the blocks left, in order.
    pub fn pop_any(&mut self) -> Option<Timed<T>> {
        let (index, (start, done, item)) = self.pending.pop_first()?;
        Some(self.take(index, start, done, item))
    }

    fn take(&mut self, index: u64, start: u64, done: u64, item: T) -> Timed<T> {
        let from = self.prev_done.map_or(start, |p| start.max(p));
        self.prev_done = Some(done);
        self.next = index + 1;
        Timed {
            index,
            item,
            ns: done.saturating_sub(from),
            done_ns: done,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn times(order: &mut InBlockOrder<()>) -> Vec<(u64, u64)> {
        std::iter::from_fn(|| order.pop())
            .map(|t| (t.index, t.ns))
            .collect()
    }

    #[test]
    fn a_slow_block_reported_after_the_one_behind_it_keeps_its_time() {
        // Blocks 0-2 submitted at 0; the device finishes 0 at 10, 1 (slow) at 600,
        // 2 at 601; block 2's thread reports first, and block 1's reads the clock
        // late (605).
        let mut o = InBlockOrder::new(0);
        o.push(0, 0, 10, ());
        assert_eq!(times(&mut o), [(0, 10)]);
        o.push(2, 0, 601, ());
        assert_eq!(times(&mut o), [], "held until block 1 came back");
        o.push(1, 0, 605, ());
        assert_eq!(times(&mut o), [(1, 595), (2, 0)]);
    }

    #[test]
    fn a_block_submitted_after_the_previous_completion_counts_from_its_submission() {
        let mut o = InBlockOrder::new(5);
        o.push(5, 100, 150, ());
        o.push(6, 200, 230, ());
        assert_eq!(times(&mut o), [(5, 50), (6, 30)]);
        assert_eq!(o.next_index(), 7);
    }

    #[test]
    fn blocks_past_a_gap_are_taken_by_pop_any() {
        let mut o = InBlockOrder::new(0);
        o.push(1, 0, 40, ());
        o.push(3, 0, 70, ());
        assert_eq!(o.pop(), None);
        let rest: Vec<_> = std::iter::from_fn(|| o.pop_any())
            .map(|t| (t.index, t.ns))
            .collect();
        assert_eq!(rest, [(1, 40), (3, 30)]);
    }
}
