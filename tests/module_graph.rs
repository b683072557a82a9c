//! The shape of `src/`: imports run one way. Reads every source file, finds each
//! `crate::`, `super::` and `self::` path (in `use` lines and inline), resolves it to the
//! file that defines the item (following `pub use` re-exports), and fails on any cycle of
//! imports between files, on any cycle between top-level modules, and on an import of the
//! renderer from the layers below it (`gpu.rs`, `shaders.rs`, `sim/`).
//!
//! A module declaring its children (`mod x;`) and re-exporting them (`pub use x::Y;`) is
//! plumbing, not an import: a path through a re-export counts as an import of the file that
//! defines the item.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One source file: its module path (`["render", "shadow"]`) and its text without comments.
struct Source {
    module: Vec<String>,
    text: String,
}

/// Every `.rs` file under `src/`, keyed by its path relative to the crate.
fn sources() -> BTreeMap<String, Source> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("src/ is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    walk(&root, &mut paths);
    paths
        .into_iter()
        .map(|path| {
            let relative = path.strip_prefix(&root).unwrap().with_extension("");
            let mut module: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(
                module.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                module.pop();
            }
            let raw = std::fs::read_to_string(&path).expect("a source file is readable");
            let name = format!("src/{}", relative.with_extension("rs").display());
            (
                name,
                Source {
                    module,
                    text: strip_comments(&raw),
                },
            )
        })
        .collect()
}

/// The text with `//` comments removed (doc comments name paths that are not imports).
fn strip_comments(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            // A `//` inside a string literal ("https://…") is rare in this crate and only
            // shortens the line it is on.
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Parses a use tree starting at `text[at..]` (just after `crate::` or the like) into the
/// paths it names: `a::{b, c::d}` gives `[a, b]` and `[a, c, d]`.
fn use_tree(text: &[u8], mut at: usize) -> (Vec<Vec<String>>, usize) {
    let skip_space = |at: &mut usize| {
        while *at < text.len() && text[*at].is_ascii_whitespace() {
            *at += 1;
        }
    };
    skip_space(&mut at);
    if at < text.len() && text[at] == b'{' {
        at += 1;
        let mut paths = Vec::new();
        loop {
            while at < text.len() && (text[at].is_ascii_whitespace() || text[at] == b',') {
                at += 1;
            }
            if at >= text.len() || text[at] == b'}' {
                return (paths, at + 1);
            }
            let (inner, next) = use_tree(text, at);
            if next <= at {
                return (paths, at + 1);
            }
            paths.extend(inner);
            at = next;
        }
    }
    let start = at;
    while at < text.len() && (text[at].is_ascii_alphanumeric() || text[at] == b'_') {
        at += 1;
    }
    if start == at {
        return (vec![Vec::new()], at);
    }
    let name = String::from_utf8_lossy(&text[start..at]).into_owned();
    let mut next = at;
    skip_space(&mut next);
    if text[next..].starts_with(b"::") {
        let (inner, end) = use_tree(text, next + 2);
        let paths = inner
            .into_iter()
            .map(|mut p| {
                p.insert(0, name.clone());
                p
            })
            .collect();
        return (paths, end);
    }
    (vec![vec![name]], at)
}

/// Every path a file names from its own crate, made absolute, with whether it sits in a
/// `pub use` line (a re-export).
fn crate_paths(source: &Source) -> Vec<(Vec<String>, bool)> {
    let text = source.text.as_bytes();
    let mut found = Vec::new();
    for anchor in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(offset) = source.text[from..].find(anchor) {
            let at = from + offset;
            from = at + anchor.len();
            let before = at.checked_sub(1).map(|i| text[i]);
            if before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b':') {
                continue;
            }
            let line_start = source.text[..at]
                .rfind(['\n', ';', '{'])
                .map_or(0, |i| i + 1);
            let line = source.text[line_start..at].trim_start();
            let re_export = line.starts_with("pub use") || line.starts_with("pub(crate) use");
            let base: Vec<String> = match anchor {
                "crate::" => Vec::new(),
                "super::" => source.module[..source.module.len().saturating_sub(1)].to_vec(),
                _ => source.module.clone(),
            };
            let (paths, _) = use_tree(text, at + anchor.len());
            for path in paths {
                let mut absolute = base.clone();
                for segment in path {
                    match segment.as_str() {
                        "super" => {
                            absolute.pop();
                        }
                        "self" => {}
                        _ => absolute.push(segment),
                    }
                }
                found.push((absolute, re_export));
            }
        }
    }
    found
}

/// The crate's files and where each import of each file lands.
struct Graph {
    edges: BTreeMap<String, BTreeSet<String>>,
}

impl Graph {
    fn build() -> Self {
        let sources = sources();
        let by_module: BTreeMap<Vec<String>, String> = sources
            .iter()
            .map(|(name, s)| (s.module.clone(), name.clone()))
            .collect();
        // Re-exports: file → (name → the absolute path it stands for).
        let mut re_exports: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
        let mut paths_of = BTreeMap::new();
        for (name, source) in &sources {
            let paths = crate_paths(source);
            for (path, re_export) in &paths {
                if *re_export && let Some(last) = path.last() {
                    re_exports
                        .entry(name.clone())
                        .or_default()
                        .insert(last.clone(), path.clone());
                }
            }
            paths_of.insert(name.clone(), paths);
        }
        let resolve = |path: &[String]| -> Option<String> {
            let mut path = path.to_vec();
            // A chain of re-exports is short; the bound only stops a malformed loop.
            for _ in 0..8 {
                let prefix = (1..=path.len())
                    .rev()
                    .find(|&n| by_module.contains_key(&path[..n]))?;
                let file = by_module[&path[..prefix]].clone();
                let Some(item) = path.get(prefix) else {
                    return Some(file);
                };
                match re_exports.get(&file).and_then(|r| r.get(item)) {
                    Some(target) if target != &path[..=prefix] => path = target.clone(),
                    _ => return Some(file),
                }
            }
            None
        };
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (name, paths) in &paths_of {
            let out = edges.entry(name.clone()).or_default();
            for (path, re_export) in paths {
                if *re_export {
                    continue;
                }
                if let Some(target) = resolve(path)
                    && &target != name
                {
                    out.insert(target);
                }
            }
        }
        Graph { edges }
    }

    /// The groups of nodes that reach each other (Tarjan's strongly connected components),
    /// only those of two or more.
    fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
        struct Walk<'a> {
            edges: &'a BTreeMap<String, BTreeSet<String>>,
            index: BTreeMap<&'a str, usize>,
            low: BTreeMap<&'a str, usize>,
            stack: Vec<&'a str>,
            on_stack: BTreeSet<&'a str>,
            found: Vec<Vec<String>>,
        }
        impl<'a> Walk<'a> {
            fn visit(&mut self, node: &'a str) {
                let n = self.index.len();
                self.index.insert(node, n);
                self.low.insert(node, n);
                self.stack.push(node);
                self.on_stack.insert(node);
                for next in self.edges.get(node).into_iter().flatten() {
                    let next = next.as_str();
                    if !self.index.contains_key(next) {
                        self.visit(next);
                        let low = self.low[node].min(self.low[next]);
                        self.low.insert(node, low);
                    } else if self.on_stack.contains(next) {
                        let low = self.low[node].min(self.index[next]);
                        self.low.insert(node, low);
                    }
                }
                if self.low[node] == self.index[node] {
                    let mut group = Vec::new();
                    while let Some(top) = self.stack.pop() {
                        self.on_stack.remove(top);
                        group.push(top.to_string());
                        if top == node {
                            break;
                        }
                    }
                    if group.len() > 1 {
                        group.sort();
                        self.found.push(group);
                    }
                }
            }
        }
        let mut walk = Walk {
            edges,
            index: BTreeMap::new(),
            low: BTreeMap::new(),
            stack: Vec::new(),
            on_stack: BTreeSet::new(),
            found: Vec::new(),
        };
        for node in edges.keys() {
            if !walk.index.contains_key(node.as_str()) {
                walk.visit(node);
            }
        }
        walk.found
    }

    fn describe(&self, group: &[String]) -> String {
        group
            .iter()
            .map(|file| {
                let inside: Vec<&str> = self.edges[file]
                    .iter()
                    .filter(|t| group.contains(t))
                    .map(String::as_str)
                    .collect();
                format!("  {file} imports {}", inside.join(", "))
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// The top-level module a file belongs to (`render`, `sim`, `gpu`), or `None` for a crate
/// root (`lib.rs`, `main.rs`), which declares every module.
fn top_level(file: &str) -> Option<String> {
    let rest = file.strip_prefix("src/")?;
    let first = rest.split('/').next()?;
    let first = first.strip_suffix(".rs").unwrap_or(first);
    (!matches!(first, "lib" | "main")).then(|| first.to_string())
}

#[test]
fn no_two_files_import_each_other_through_any_chain() {
    let graph = Graph::build();
    assert!(
        graph.edges.len() > 50,
        "found only {} files under src/",
        graph.edges.len()
    );
    let cycles = Graph::cycles(&graph.edges);
    let report: Vec<String> = cycles.iter().map(|g| graph.describe(g)).collect();
    assert!(
        cycles.is_empty(),
        "import cycles between files:\n{}",
        report.join("\n\n")
    );
}

#[test]
fn no_two_top_level_modules_import_each_other_through_any_chain() {
    let graph = Graph::build();
    let mut modules: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, targets) in &graph.edges {
        let Some(from) = top_level(file) else {
            continue;
        };
        let out = modules.entry(from.clone()).or_default();
        for target in targets {
            if let Some(to) = top_level(target)
                && to != from
            {
                out.insert(to);
            }
        }
    }
    assert!(
        modules.len() > 10,
        "found only {} top-level modules",
        modules.len()
    );
    let cycles = Graph::cycles(&modules);
    assert!(
        cycles.is_empty(),
        "top-level modules importing each other: {cycles:?}"
    );
}

#[test]
fn nothing_below_the_renderer_imports_it() {
    let graph = Graph::build();
    let below = |file: &str| {
        file == "src/gpu.rs" || file == "src/shaders.rs" || file.starts_with("src/sim/")
    };
    let offenders: Vec<String> = graph
        .edges
        .iter()
        .filter(|(file, _)| below(file))
        .flat_map(|(file, targets)| {
            targets
                .iter()
                .filter(|t| t.starts_with("src/render/"))
                .map(move |t| format!("{file} imports {t}"))
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "layers below the renderer import it:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_reader_sees_a_cycle_that_is_there() {
    // The graph's own check: a made-up pair of files that import each other through a
    // re-export must be reported, or the tests above could pass by seeing nothing.
    let a = Source {
        module: vec!["render".into(), "a".into()],
        text: "use super::b::Thing;\nfn f() { crate::render::Other::new(); }".into(),
    };
    let paths: Vec<Vec<String>> = crate_paths(&a).into_iter().map(|(p, _)| p).collect();
    assert!(paths.contains(&vec!["render".to_string(), "b".into(), "Thing".into()]));
    assert!(paths.contains(&vec!["render".to_string(), "Other".into(), "new".into()]));
    let mut edges = BTreeMap::new();
    edges.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    edges.insert("b".to_string(), BTreeSet::from(["c".to_string()]));
    edges.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    edges.insert("d".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(
        Graph::cycles(&edges),
        vec![vec!["a".to_string(), "b".into(), "c".into()]]
    );
}
