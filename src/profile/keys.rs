//! The `[model]` key of every kind that charges system calls from a cost profile.

use crate::scenario::key_table::{KeyDoc, Need, ValueType};

/// `profile`, as the lock and idle kinds take it.
pub const PROFILE: KeyDoc = KeyDoc::new(
    "profile",
    ValueType::Text,
    Need::Required,
    "the cost profile system calls are charged from: a path looked up beside the scenario, then \
     in each folder above it, then in the current directory; `profiles/reference.toml` is built \
     in",
);
