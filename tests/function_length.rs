//! Every function does one job: one whose text runs past `MAX_LINES` lines is split, unless its
//! body is a single `match`, a table with an arm per case (such as a `Display` with one arm per
//! error).

use std::path::Path;

use syn::spanned::Spanned;
use syn::visit::{self, Visit};

/// About a screen: the most lines, from `fn` to the closing brace, a function may take.
const MAX_LINES: usize = 70;

/// The source trees held to the limit.
const TREES: [&str; 3] = ["src", "sim/src", "models/src"];

#[test]
fn no_function_but_a_table_runs_past_seventy_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut long = Vec::new();
    for tree in TREES {
        for entry in walkdir::WalkDir::new(root.join(tree)).sort_by_file_name() {
            let entry = entry.expect("the source tree is readable");
            if entry.path().extension().is_some_and(|ext| ext == "rs") {
                let relative = entry.path().strip_prefix(root).expect("under the root");
                long.extend(long_functions(entry.path(), relative));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_LINES} lines; split each into functions with one job each:\n{}",
        long.join("\n")
    );
}

#[test]
fn a_long_function_is_named_and_a_long_table_is_not() {
    let body = "    let x = 1;\n".repeat(MAX_LINES);
    let arms = "        1 => 1,\n".repeat(MAX_LINES);
    let source = format!(
        "fn long() {{\n{body}}}\n\
         fn table(n: u8) -> u8 {{\n    match n {{\n{arms}        _ => 0,\n    }}\n}}\n\
         fn short() {{}}\n"
    );
    let file = syn::parse_file(&source).expect("the sample parses");
    let mut finder = LongFunctions::new(Path::new("sample.rs"));
    finder.visit_file(&file);
    assert_eq!(
        finder.long,
        [format!("sample.rs:1 long ({} lines)", MAX_LINES + 2)]
    );
}

/// `path:line name (lines)` for each function in the file over the limit.
fn long_functions(path: &Path, relative: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("a source file is readable");
    let file = syn::parse_file(&text)
        .unwrap_or_else(|error| panic!("{} does not parse: {error}", path.display()));
    let mut finder = LongFunctions::new(relative);
    finder.visit_file(&file);
    finder.long
}

struct LongFunctions<'a> {
    path: &'a Path,
    long: Vec<String>,
}

impl<'a> LongFunctions<'a> {
    fn new(path: &'a Path) -> Self {
        LongFunctions {
            path,
            long: Vec::new(),
        }
    }

    /// Notes the function if it runs from `sig` to the end of `block` over the limit and is not
    /// a table.
    fn check(&mut self, sig: &syn::Signature, block: &syn::Block) {
        let first = sig.fn_token.span().start().line;
        let last = block.brace_token.span.close().end().line;
        let lines = last + 1 - first;
        if lines > MAX_LINES && !is_table(block) {
            self.long.push(format!(
                "{}:{first} {} ({lines} lines)",
                self.path.display(),
                sig.ident
            ));
        }
    }
}

/// A body that is one `match` and nothing else: a table, one arm per case.
fn is_table(block: &syn::Block) -> bool {
    matches!(
        block.stmts.as_slice(),
        [syn::Stmt::Expr(syn::Expr::Match(_), None)]
    )
}

impl<'ast> Visit<'ast> for LongFunctions<'_> {
    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        self.check(&item.sig, &item.block);
        visit::visit_item_fn(self, item);
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        self.check(&item.sig, &item.block);
        visit::visit_impl_item_fn(self, item);
    }

    fn visit_trait_item_fn(&mut self, item: &'ast syn::TraitItemFn) {
        if let Some(block) = &item.default {
            self.check(&item.sig, block);
        }
        visit::visit_trait_item_fn(self, item);
    }
}
