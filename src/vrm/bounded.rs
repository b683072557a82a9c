//! Bounded parsing: every array the reader keeps is a [`Bounded`] list, which charges the
//! bytes it allocates to one budget per read ([`ParseBudget`]) before allocating them. A
//! small file full of empty objects (`[{},{},…]`) therefore fails after a few megabytes
//! instead of allocating gigabytes; arrays the reader does not keep are skipped without
//! allocating.

use std::cell::Cell;

use serde::de::{Deserialize, Deserializer, SeqAccess, Visitor};
use serde::ser::{Serialize, Serializer};

use super::error::VrmError;

thread_local! {
    /// Bytes the current read may still spend on kept arrays (unlimited outside a read).
    static BUDGET: Cell<usize> = const { Cell::new(usize::MAX) };
    /// Whether the current read ran out of budget.
    static SPENT: Cell<bool> = const { Cell::new(false) };
    /// The whole budget the current read started with, for the error message.
    static LIMIT: Cell<usize> = const { Cell::new(usize::MAX) };
}

/// Sets the parse budget for the current thread while it lives (restoring the previous one
/// when dropped).
pub struct ParseBudget {
    previous: usize,
    previous_limit: usize,
}

impl ParseBudget {
    /// Allows `bytes` of array elements until dropped.
    pub fn new(bytes: usize) -> Self {
        SPENT.with(|s| s.set(false));
        Self {
            previous: BUDGET.with(|b| b.replace(bytes)),
            previous_limit: LIMIT.with(|l| l.replace(bytes)),
        }
    }

    /// True when a list was refused because the budget ran out.
    pub fn spent(&self) -> bool {
        SPENT.with(Cell::get)
    }
}

impl Drop for ParseBudget {
    fn drop(&mut self) {
        BUDGET.with(|b| b.set(self.previous));
        LIMIT.with(|l| l.set(self.previous_limit));
    }
}

/// A list whose elements are charged to the current [`ParseBudget`] as they are parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounded<T>(pub Vec<T>);

impl<T> Default for Bounded<T> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<T> From<Vec<T>> for Bounded<T> {
    fn from(v: Vec<T>) -> Self {
        Self(v)
    }
}

impl<T> std::ops::Deref for Bounded<T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.0
    }
}

impl<T: Serialize> Serialize for Bounded<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Bounded<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Visit<T> {
            type Value = Bounded<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let size = std::mem::size_of::<T>().max(1);
                let mut out: Vec<T> = Vec::new();
                while let Some(x) = seq.next_element()? {
                    if out.len() == out.capacity() {
                        // Charge the growth before allocating it: the budget bounds the
                        // memory the lists hold, not only their lengths.
                        let grow = out.capacity().max(4);
                        let cost = grow.saturating_mul(size);
                        let left = BUDGET.with(Cell::get);
                        if left < cost {
                            SPENT.with(|s| s.set(true));
                            return Err(serde::de::Error::custom(format!(
                                "the file lists more items than Pelt reads: its {} MiB parse budget is spent",
                                LIMIT.with(Cell::get) >> 20
                            )));
                        }
                        BUDGET.with(|b| b.set(left - cost));
                        out.reserve_exact(grow);
                    }
                    out.push(x);
                }
                Ok(Bounded(out))
            }
        }
        d.deserialize_seq(Visit(std::marker::PhantomData))
    }
}

/// Refuses `n` of `what` beyond `max`.
pub(super) fn check_count(what: &str, n: usize, max: usize) -> Result<(), VrmError> {
    if n > max {
        Err(VrmError::TooMany(what.into(), n, max))
    } else {
        Ok(())
    }
}
