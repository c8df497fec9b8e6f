//! The reference, written from the code: the keys of every table a scenario file can hold, the
//! metrics `[expect]` can bound, the faults and the registered timer designs, as markdown pages
//! and as a JSON Schema that editors use to complete and check scenario files.
//!
//! A crate that registers designs of its own writes pages and a schema that know them, without
//! the command line:
//!
//! ```
//! use ticklab::Registry;
//! use ticklab::models::sync::Primitives;
//! use ticklab::models::timer::builtin::GlobalHeapDesign;
//! use ticklab::models::timer::{BuildTimerDesign, GlobalHeap, TimerParams};
//!
//! struct MyHeap;
//! impl BuildTimerDesign for MyHeap {
//!     const NAME: &'static str = "my-heap";
//!     const ABOUT: &'static str = "a global heap under another name";
//!     type Design<S: Primitives, P: Send + 'static> = GlobalHeap<S, P>;
//!     fn build<S: Primitives, P: Send + 'static>(params: &TimerParams) -> GlobalHeap<S, P> {
//!         GlobalHeapDesign::build(params)
//!     }
//! }
//!
//! let registry = Registry::builtin().with_timer_design::<MyHeap>();
//! // The schema an editor reads: `design = "my-heap"` completes and validates.
//! let schema = ticklab::reference::schema(&registry);
//! assert!(schema.contains("\"my-heap\""));
//! let pages = ticklab::reference::pages(&registry);
//! let designs = pages.iter().find(|page| page.name == "designs.md").unwrap();
//! assert!(designs.text.contains("## `my-heap`"));
//! # let folder = tempfile::tempdir().unwrap();
//! // Written as `ticklab reference` writes them: atomically, never over a file it did not write.
//! ticklab::reference::write_pages(folder.path(), &pages).unwrap();
//! assert!(ticklab::reference::compare_pages(folder.path(), &pages).is_empty());
//! ```

mod folder;
mod json_schema;
mod markdown;
mod pages;

pub use crate::scenario::key_table::{FloatEnd, KeyDoc, KeyTable, Need, ValueType};
pub use folder::{MANIFEST, WriteError, Written, compare_pages, write_pages};
pub use json_schema::schema;
pub use pages::{GENERATED_HEADER, Page, command_page, pages};

pub use crate::scenario::top_keys::{FAULT, FAULTS, FaultDoc, TOP};

/// The `[model]` table of the kind called `kind`, with its nested tables reachable from it.
pub fn model_table(kind: &str) -> Option<&'static KeyTable> {
    crate::registry::kind(kind).map(|kind| kind.key_table())
}

/// `[machine]`.
pub fn machine_table() -> &'static KeyTable {
    &crate::machine::keys::MACHINE
}

/// Every table a scenario file can hold, each once: the top level and what it nests, then each
/// kind's `[model]` and what that nests.
pub fn tables() -> Vec<&'static KeyTable> {
    let mut all: Vec<&'static KeyTable> = vec![&TOP];
    all.extend(TOP.nested());
    for kind in crate::registry::kind_names() {
        if let Some(model) = model_table(kind) {
            all.push(model);
            all.extend(model.nested());
        }
    }
    let mut seen = Vec::new();
    all.retain(|table| {
        let new = !seen.contains(&std::ptr::from_ref(*table));
        seen.push(std::ptr::from_ref(*table));
        new
    });
    all
}

/// What a table documents and what serde reads from it, where they differ: the names each side
/// has that the other lacks. Empty when they agree.
pub fn mismatches(table: &KeyTable) -> Vec<String> {
    let documented = table.names();
    let read = (table.serde_fields)();
    let header = match table.key("kind").map(|key| key.value) {
        Some(ValueType::Choice([kind])) if table.header == "[model]" => {
            format!("[model] of kind \"{kind}\"")
        }
        _ => table.header.to_string(),
    };
    let mut found: Vec<String> = read
        .iter()
        .filter(|name| !documented.contains(name))
        .map(|name| format!("{header}: `{name}` is read but not documented"))
        .collect();
    found.extend(
        documented
            .iter()
            .filter(|name| !read.contains(name))
            .map(|name| format!("{header}: `{name}` is documented but not read")),
    );
    found
}
