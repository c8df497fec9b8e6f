//! The library's layers point one way. No file-level import cycle crosses top-level modules
//! (cycles inside one folder are fine), except those [`ALLOWED`] lists, each with its reason;
//! and `src/model.rs` is in no cycle at all: the model trait depends on the few files that
//! define what it names, never on the kinds, the registry, the runners or the plots that depend
//! on it.
//!
//! The graph is read from the library's own source with `syn`: every `crate::`, `super::`,
//! `self::` or child-module path in each file (in `use` trees, in code and in macro bodies) is an
//! edge to the file that defines the longest module prefix of the path. A re-export therefore
//! counts as an import of the file that re-exports it, as the compiler sees it.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::Path;

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

/// A module's path from the crate root, such as `["scenario", "error"]`.
type ModPath = Vec<String>;

/// The file that must stay out of every cycle.
const MODEL: &str = "src/model.rs";

/// Every library source file (not `src/main.rs`, the binary's root), by its module path, with
/// its text.
fn library_sources() -> BTreeMap<ModPath, (String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = BTreeMap::new();
    let mut pending = vec![root.join("src")];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("src/ is readable") {
            let path = entry.expect("src/ is readable").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                let relative = path
                    .strip_prefix(root)
                    .expect("under the crate")
                    .to_path_buf();
                if relative != Path::new("src/main.rs") {
                    let text = std::fs::read_to_string(&path).expect("source is UTF-8");
                    files.insert(module_path(&relative), (display(&relative), text));
                }
            }
        }
    }
    files
}

/// `src/lib.rs` is the root, `src/a/mod.rs` and `src/a.rs` are `a`, `src/a/b.rs` is `a::b`.
fn module_path(relative: &Path) -> ModPath {
    let mut parts: ModPath = relative
        .iter()
        .skip(1)
        .map(|part| part.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

fn display(relative: &Path) -> String {
    relative.to_string_lossy().replace('\\', "/")
}

/// The paths one file names, made absolute.
struct Imports<'a> {
    modules: &'a BTreeSet<ModPath>,
    /// The module the visitor is in: the file's, then any inline `mod` inside it.
    here: ModPath,
    /// What a name brought in by `use` stands for, so `plot::timeline::draw` after
    /// `use crate::plot;` counts as naming `plot::timeline`.
    aliases: BTreeMap<String, ModPath>,
    /// The file of each `#[macro_export]` macro, which the crate root names but another file
    /// defines.
    exported_macros: &'a BTreeMap<String, String>,
    found: BTreeSet<ModPath>,
    /// Files named directly: those of exported macros.
    found_files: BTreeSet<String>,
}

impl Imports<'_> {
    fn resolve(&self, segments: &[String]) -> Option<ModPath> {
        let (first, rest) = segments.split_first()?;
        let mut base = match first.as_str() {
            "crate" => Vec::new(),
            "self" => self.here.clone(),
            "super" => {
                let mut base = self.here.clone();
                base.pop();
                let mut rest = rest;
                while rest.first().is_some_and(|segment| segment == "super") {
                    base.pop();
                    rest = &rest[1..];
                }
                return Some(base.into_iter().chain(rest.iter().cloned()).collect());
            }
            _ => {
                let mut child = self.here.clone();
                child.push(first.clone());
                if self.modules.contains(&child) {
                    child
                } else {
                    self.aliases.get(first)?.clone()
                }
            }
        };
        base.extend(rest.iter().cloned());
        Some(base)
    }

    fn record(&mut self, segments: &[String]) {
        if let Some(path) = self.resolve(segments) {
            self.found.insert(path);
        }
    }

    /// Records every path a `use` tree names, and the names it binds.
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        let leaf = |this: &mut Self, prefix: &Vec<String>, name: &syn::Ident, bound: &str| {
            let mut full = prefix.clone();
            if name != "self" {
                full.push(name.to_string());
            }
            if let Some(path) = this.resolve(&full) {
                this.aliases.insert(bound.to_string(), path.clone());
                this.found.insert(path);
            }
        };
        match tree {
            syn::UseTree::Path(path) => {
                prefix.push(path.ident.to_string());
                self.use_tree(prefix, &path.tree);
                prefix.pop();
            }
            syn::UseTree::Name(name) => {
                let bound = match (name.ident == "self", prefix.last()) {
                    (true, Some(last)) => last.clone(),
                    _ => name.ident.to_string(),
                };
                leaf(self, prefix, &name.ident, &bound);
            }
            syn::UseTree::Rename(rename) => {
                leaf(self, prefix, &rename.ident, &rename.rename.to_string());
            }
            syn::UseTree::Glob(_) => self.record(prefix),
            syn::UseTree::Group(group) => {
                for tree in &group.items {
                    self.use_tree(prefix, tree);
                }
            }
        }
    }

    /// Paths inside a macro's tokens, which syn leaves unparsed: `crate::a::b` in a `format!`
    /// argument or a `macro_rules!` body (where it is written `$crate::a::b`).
    fn tokens(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut index = 0;
        while index < tokens.len() {
            match &tokens[index] {
                TokenTree::Group(group) => self.tokens(group.stream()),
                TokenTree::Ident(ident)
                    if ["crate", "super", "self"].contains(&&*ident.to_string()) =>
                {
                    let mut segments = vec![ident.to_string()];
                    while let Some(next) = path_step(&tokens, index) {
                        segments.push(next);
                        index += 3;
                    }
                    if segments.len() > 1 {
                        self.record(&segments);
                    }
                }
                _ => {}
            }
            index += 1;
        }
    }
}

/// The identifier after `::` that follows the token at `index`, if there is one.
fn path_step(tokens: &[TokenTree], index: usize) -> Option<String> {
    match (
        tokens.get(index + 1),
        tokens.get(index + 2),
        tokens.get(index + 3),
    ) {
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)), Some(TokenTree::Ident(name)))
            if a.as_char() == ':' && b.as_char() == ':' =>
        {
            Some(name.to_string())
        }
        _ => None,
    }
}

/// Whether an item is compiled only for the crate's own unit tests: a test may drive a kind
/// through the loader or the plots above it without that being part of the library's layers.
fn test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg")
            && attr
                .parse_args::<syn::Ident>()
                .is_ok_and(|ident| ident == "test")
    })
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Mod(item) => &item.attrs,
        syn::Item::Fn(item) => &item.attrs,
        syn::Item::Use(item) => &item.attrs,
        syn::Item::Impl(item) => &item.attrs,
        syn::Item::Const(item) => &item.attrs,
        syn::Item::Static(item) => &item.attrs,
        syn::Item::Struct(item) => &item.attrs,
        _ => &[],
    }
}

impl<'ast> Visit<'ast> for Imports<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if !test_only(item_attrs(item)) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if item.content.is_some() {
            self.here.push(item.ident.to_string());
            syn::visit::visit_item_mod(self, item);
            self.here.pop();
        }
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &item.tree);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.segments.len() > 1 {
            let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
            self.record(&segments);
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.tokens(mac.tokens.clone());
        let segments: Vec<String> = mac
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        match segments.as_slice() {
            [root, name] if root == "crate" && self.exported_macros.contains_key(name) => {
                self.found_files.insert(self.exported_macros[name].clone());
            }
            _ => self.visit_path(&mac.path),
        }
    }
}

/// Collects the `use` bindings of a file before its other paths, which may come first.
struct Uses<'i, 'a>(&'i mut Imports<'a>);

impl<'ast> Visit<'ast> for Uses<'_, '_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if !test_only(item_attrs(item)) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if item.content.is_some() {
            self.0.here.push(item.ident.to_string());
            syn::visit::visit_item_mod(self, item);
            self.0.here.pop();
        }
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.0.visit_item_use(item);
    }
}

/// Which files each file imports, by display path.
fn import_graph(
    sources: &BTreeMap<ModPath, (String, String)>,
) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeSet<ModPath> = sources.keys().cloned().collect();
    let parsed: Vec<(&ModPath, &String, syn::File)> = sources
        .iter()
        .map(|(module, (name, text))| {
            let file = syn::parse_file(text).unwrap_or_else(|error| panic!("{name}: {error}"));
            (module, name, file)
        })
        .collect();
    let exported_macros: BTreeMap<String, String> = parsed
        .iter()
        .flat_map(|(_, name, file)| exported_macros(file).map(move |mac| (mac, name.to_string())))
        .collect();
    let mut graph = BTreeMap::new();
    for (module, name, file) in &parsed {
        let mut imports = Imports {
            modules: &modules,
            here: module.to_vec(),
            aliases: BTreeMap::new(),
            exported_macros: &exported_macros,
            found: BTreeSet::new(),
            found_files: BTreeSet::new(),
        };
        Uses(&mut imports).visit_file(file);
        imports.visit_file(file);
        let targets = imports
            .found
            .iter()
            .filter_map(|path| defining_file(sources, path))
            .chain(imports.found_files)
            .filter(|target| target != *name)
            .collect();
        graph.insert(name.to_string(), targets);
    }
    graph
}

/// The names of the `#[macro_export]` macros a file defines.
fn exported_macros(file: &syn::File) -> impl Iterator<Item = String> + '_ {
    file.items.iter().filter_map(|item| match item {
        syn::Item::Macro(mac)
            if mac
                .attrs
                .iter()
                .any(|attr| attr.path().is_ident("macro_export")) =>
        {
            mac.ident.as_ref().map(ToString::to_string)
        }
        _ => None,
    })
}

/// The file of the longest module prefix of `path`.
fn defining_file(sources: &BTreeMap<ModPath, (String, String)>, path: &[String]) -> Option<String> {
    (0..=path.len())
        .rev()
        .find_map(|len| sources.get(&path[..len]))
        .map(|(name, _)| name.clone())
}

/// The shortest cycle through `start`, as the files along it, if there is one.
fn cycle_through(graph: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue: VecDeque<&str> = VecDeque::from([start]);
    while let Some(file) = queue.pop_front() {
        for next in graph.get(file).into_iter().flatten() {
            if next == start {
                let mut cycle = vec![start.to_string()];
                let mut at = file;
                while at != start {
                    cycle.push(at.to_string());
                    at = came_from[at];
                }
                cycle[1..].reverse();
                cycle.push(start.to_string());
                return Some(cycle);
            }
            if !came_from.contains_key(next.as_str()) && next != start {
                came_from.insert(next, file);
                queue.push_back(next);
            }
        }
    }
    None
}

/// The files that both reach `start` and are reached from it: its strongly connected component.
fn knot_around(graph: &BTreeMap<String, BTreeSet<String>>, start: &str) -> BTreeSet<String> {
    let reached = reachable(graph, start);
    let mut reversed: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, targets) in graph {
        for to in targets {
            reversed.entry(to.clone()).or_default().insert(from.clone());
        }
    }
    let reaching = reachable(&reversed, start);
    reached.intersection(&reaching).cloned().collect()
}

fn reachable(graph: &BTreeMap<String, BTreeSet<String>>, start: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut pending = vec![start.to_string()];
    while let Some(file) = pending.pop() {
        for next in graph.get(&file).into_iter().flatten() {
            if seen.insert(next.clone()) {
                pending.push(next.clone());
            }
        }
    }
    seen
}

/// Panics naming a cycle through `src/model.rs` and every file knotted with it, if there is one.
fn assert_model_in_no_cycle(graph: &BTreeMap<String, BTreeSet<String>>) {
    if let Some(cycle) = cycle_through(graph, MODEL) {
        let knot = knot_around(graph, MODEL);
        panic!(
            "{MODEL} is in an import cycle:\n  {}\nand {} files are knotted with it:\n  {}\n\
             import what model.rs needs from the file that defines it, and keep model.rs from \
             naming the kinds, the registry or anything that imports model.rs",
            cycle.join("\n  -> "),
            knot.len(),
            knot.into_iter().collect::<Vec<_>>().join("\n  ")
        );
    }
}

#[test]
fn model_rs_is_in_no_import_cycle() {
    let sources = library_sources();
    assert!(
        sources.values().any(|(name, _)| name == MODEL),
        "{MODEL} is where the model trait lives"
    );
    assert_model_in_no_cycle(&import_graph(&sources));
}

#[test]
fn an_import_of_the_registry_planted_in_model_rs_is_reported_as_a_cycle() {
    let mut sources = library_sources();
    let (_, text) = sources
        .get_mut(&vec!["model".to_string()])
        .expect("src/model.rs is read");
    text.push_str("\nuse crate::registry::kind_names;\n");
    let graph = import_graph(&sources);
    let cycle = cycle_through(&graph, MODEL).expect("the planted import closes a cycle");
    assert_eq!(cycle.first().map(String::as_str), Some(MODEL));
    assert_eq!(cycle.last().map(String::as_str), Some(MODEL));
    assert_eq!(
        cycle[1], "src/registry.rs",
        "the cycle starts at the planted import"
    );
    let message = std::panic::catch_unwind(|| assert_model_in_no_cycle(&graph))
        .expect_err("the check fails")
        .downcast::<String>()
        .expect("a formatted message");
    assert!(message.contains("src/registry.rs"), "{message}");
}

#[test]
fn the_graph_follows_use_trees_aliases_super_and_macro_bodies() {
    let sources: BTreeMap<ModPath, (String, String)> = [
        (
            vec![],
            "src/lib.rs",
            "pub mod a; pub mod b; pub mod c; pub mod d;",
        ),
        (
            vec!["a"],
            "src/a/mod.rs",
            "mod inner; use crate::b; fn f() { b::x(); }",
        ),
        (
            vec!["a", "inner"],
            "src/a/inner.rs",
            "fn g() { super::super::c::y(); }",
        ),
        (
            vec!["b"],
            "src/b.rs",
            "fn h() { format!(\"{}\", crate::d::Z); }",
        ),
        (vec!["c"], "src/c.rs", "use crate::{a::inner as i, d};"),
        (vec!["d"], "src/d.rs", ""),
    ]
    .into_iter()
    .map(|(module, name, text)| {
        let module = module.into_iter().map(String::from).collect();
        (module, (name.to_string(), text.to_string()))
    })
    .collect();
    let graph = import_graph(&sources);
    let edges = |file: &str| graph[file].iter().cloned().collect::<Vec<_>>();
    assert_eq!(edges("src/a/mod.rs"), ["src/b.rs"]);
    assert_eq!(edges("src/a/inner.rs"), ["src/c.rs"]);
    assert_eq!(edges("src/b.rs"), ["src/d.rs"]);
    assert_eq!(edges("src/c.rs"), ["src/a/inner.rs", "src/d.rs"]);
    assert_eq!(
        cycle_through(&graph, "src/c.rs"),
        Some(vec![
            "src/c.rs".to_string(),
            "src/a/inner.rs".to_string(),
            "src/c.rs".to_string()
        ])
    );
}

/// Every strongly connected component of more than one file (Tarjan's algorithm, iterative).
fn knots(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    let names: Vec<&String> = graph.keys().collect();
    let index_of: BTreeMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let edges: Vec<Vec<usize>> = names
        .iter()
        .map(|n| {
            graph[*n]
                .iter()
                .filter_map(|t| index_of.get(t.as_str()).copied())
                .collect()
        })
        .collect();
    let mut index = vec![usize::MAX; names.len()];
    let mut low = vec![0; names.len()];
    let mut on_stack = vec![false; names.len()];
    let mut stack = Vec::new();
    let mut next = 0;
    let mut found = Vec::new();
    for root in 0..names.len() {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        while let Some((v, edge)) = work.pop() {
            if edge == 0 {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = edges[v].get(edge) {
                work.push((v, edge + 1));
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = BTreeSet::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.insert(names[w].clone());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    found.push(component);
                }
            }
        }
    }
    found
}

/// The top-level module a file belongs to: `src/hosts/step.rs` and `src/hosts.rs` are `hosts`.
fn top_module(file: &str) -> String {
    let rest = file.trim_start_matches("src/");
    rest.split('/')
        .next()
        .unwrap_or(rest)
        .trim_end_matches(".rs")
        .to_string()
}

/// Top-level modules that may share a cycle, and why: none today. An entry no knot needs fails
/// the test, so that the list only shrinks.
const ALLOWED: &[(&[&str], &str)] = &[];

/// Every knot that crosses top-level modules and is not in `allowed`, with the edges that cross,
/// and every allowed entry no knot needs.
fn layer_problems(
    graph: &BTreeMap<String, BTreeSet<String>>,
    allowed: &[(&[&str], &str)],
) -> Vec<String> {
    let mut problems = Vec::new();
    let mut used = vec![false; allowed.len()];
    for knot in knots(graph) {
        let modules: BTreeSet<String> = knot.iter().map(|file| top_module(file)).collect();
        if modules.len() < 2 {
            continue;
        }
        let covered = allowed
            .iter()
            .position(|(pair, _)| modules.iter().all(|module| pair.contains(&module.as_str())));
        if let Some(index) = covered {
            used[index] = true;
            continue;
        }
        let crossing: Vec<String> = knot
            .iter()
            .flat_map(|from| {
                graph[from]
                    .iter()
                    .filter(|to| knot.contains(*to) && top_module(from) != top_module(to))
                    .map(move |to| format!("{from} -> {to}"))
            })
            .collect();
        problems.push(format!(
            "{} files across the modules {} import each other in a cycle; the imports that \
             cross modules:\n  {}",
            knot.len(),
            modules.into_iter().collect::<Vec<_>>().join(", "),
            crossing.join("\n  ")
        ));
    }
    for ((pair, _), used) in allowed.iter().zip(used) {
        if !used {
            problems.push(format!(
                "{pair:?} is allowed a cycle that no longer exists: remove it from ALLOWED"
            ));
        }
    }
    problems
}

#[test]
fn no_import_cycle_crosses_top_level_modules_but_the_allowed() {
    let problems = layer_problems(&import_graph(&library_sources()), ALLOWED);
    assert!(
        problems.is_empty(),
        "{}\nimport from the layer below (the vocabulary in scenario, the toolbox in runner, \
         the designs in registry::designs), naming the file that defines a name rather than a \
         folder's re-export",
        problems.join("\n\n")
    );
}

/// The sources with an import of the loader planted in the vocabulary below it, in `item`.
fn with_loader_planted_in_scenario(item: &str) -> BTreeMap<ModPath, (String, String)> {
    let mut sources = library_sources();
    let (_, text) = sources
        .get_mut(&vec!["scenario".to_string(), "located".to_string()])
        .expect("src/scenario/located.rs is read");
    text.push_str(item);
    sources
}

#[test]
fn a_planted_import_of_the_loader_in_the_vocabulary_is_reported_with_its_edge() {
    let sources =
        with_loader_planted_in_scenario("\nfn planted() { let _ = crate::loader::parse; }\n");
    let problems = layer_problems(&import_graph(&sources), ALLOWED);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("src/scenario/located.rs -> src/loader/mod.rs"),
        "{}",
        problems[0]
    );
}

#[test]
fn an_allowed_knot_passes_and_an_allowance_no_knot_needs_fails() {
    let graph = import_graph(&with_loader_planted_in_scenario(
        "\nfn planted() { let _ = crate::loader::parse; }\n",
    ));
    let problem = &layer_problems(&graph, ALLOWED)[0];
    let modules: Vec<&str> = problem
        .split(" modules ")
        .nth(1)
        .and_then(|rest| rest.split(" import ").next())
        .expect("the problem names its modules")
        .split(", ")
        .collect();
    let allowing: &[(&[&str], &str)] = &[(&modules, "planted")];
    assert_eq!(layer_problems(&graph, allowing), Vec::<String>::new());
    let unneeded: &[(&[&str], &str)] = &[(&["plot", "trace"], "planted")];
    let problems = layer_problems(&import_graph(&library_sources()), unneeded);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("no longer exists"), "{}", problems[0]);
}

#[test]
fn test_only_code_is_outside_the_layers() {
    let sources = with_loader_planted_in_scenario(
        "\n#[cfg(test)]\nmod planted { fn f() { let _ = crate::loader::parse; } }\n",
    );
    assert_eq!(
        layer_problems(&import_graph(&sources), ALLOWED),
        Vec::<String>::new()
    );
}

/// Files outside a kind's folder that may name it besides `KINDS`, and why: a command built on
/// the kind, or the registry of the designs it runs.
const NAMED_FROM_OUTSIDE: &[(&str, &[&str], &str)] = &[
    (
        "interval",
        &["src/cli/report.rs", "src/cli/table.rs"],
        "`ticklab table` and the report's table are built on interval runs",
    ),
    (
        "timer",
        &[
            "src/cli/compare.rs",
            "src/registry/designs.rs",
            "src/registry/register.rs",
            "src/hosts/rpc/mod.rs",
            "src/hosts/rpc/spec.rs",
        ],
        "`ticklab compare` runs timer designs, the registry holds them, and hosts' RPC calls \
         time out on them",
    ),
    (
        "executor",
        &["src/cli/compare_executor.rs", "src/registry/register.rs"],
        "`ticklab compare --kind executor` runs executor workloads on every scheduler design, \
         and the registry checks a scheduler's own metrics against every executor run's",
    ),
    (
        "hosts",
        &[
            "src/service/declare.rs",
            "src/service/host_settings.rs",
            "src/service/run/mod.rs",
            "src/service/run/delivery.rs",
            "src/service/run/setup.rs",
            "src/service/run/finish.rs",
        ],
        "`ticklab::service` runs a user's own code on a hosts scenario's hosts: it takes their \
         file, their network and their thaw order, so that the same file runs the built-in \
         workloads and the user's",
    ),
];

/// The kinds `KINDS` lists, by the folder each lives in.
fn kinds() -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/registry/kinds.rs");
    let text = std::fs::read_to_string(path).expect("src/registry/kinds.rs is readable");
    let start = text.find("pub static KINDS").expect("KINDS is declared");
    let end = start + text[start..].find("];").expect("KINDS ends");
    text[start..end]
        .split("crate::")
        .skip(1)
        .filter_map(|rest| rest.split("::").next())
        .map(String::from)
        .collect()
}

/// The imports of a kind's folder from a file outside it that neither `KINDS` nor
/// [`NAMED_FROM_OUTSIDE`] allows.
fn kind_named_from_outside(graph: &BTreeMap<String, BTreeSet<String>>, kind: &str) -> Vec<String> {
    let folder = format!("src/{kind}/");
    let allowed: &[&str] = NAMED_FROM_OUTSIDE
        .iter()
        .find(|(name, ..)| *name == kind)
        .map_or(&[], |(_, files, _)| files);
    graph
        .iter()
        .filter(|(from, _)| {
            !from.starts_with(&folder)
                && from.as_str() != "src/registry/kinds.rs"
                && !allowed.contains(&from.as_str())
        })
        .flat_map(|(from, targets)| {
            targets
                .iter()
                .filter(|to| to.starts_with(&folder))
                .map(move |to| format!("{from} -> {to}"))
        })
        .collect()
}

#[test]
fn a_kind_is_named_outside_its_folder_only_by_its_line_in_kinds() {
    let kinds = kinds();
    assert!(kinds.len() >= 6, "KINDS lists {kinds:?}");
    let graph = import_graph(&library_sources());
    let found: Vec<String> = kinds
        .iter()
        .flat_map(|kind| kind_named_from_outside(&graph, kind))
        .collect();
    assert!(
        found.is_empty(),
        "a kind's folder is named from outside it:\n  {}\nkeep what a kind needs in its own \
         folder (its picture in picture.rs, its keys in keys.rs), so that a new kind is one \
         folder and one line in KINDS",
        found.join("\n  ")
    );
}

#[test]
fn a_planted_use_of_a_kind_in_the_plotter_is_reported() {
    let mut sources = library_sources();
    let (_, text) = sources
        .get_mut(&vec!["plot".to_string(), "collect".to_string()])
        .expect("src/plot/collect.rs is read");
    text.push_str("\nfn planted() { let _ = crate::lock::LockModel; }\n");
    let found = kind_named_from_outside(&import_graph(&sources), "lock");
    assert_eq!(found, ["src/plot/collect.rs -> src/lock/mod.rs"]);
}
