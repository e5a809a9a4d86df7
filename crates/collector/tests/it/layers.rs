//! The layout keeps its promise: in every crate of the workspace, no module uses another that
//! uses it back, directly or around a circle, and only `main.rs` and `commands/` see the CLI.
//!
//! Edges are read from the source text: every `crate::a::b` and `super::b` path (in `use`
//! statements and in code) from a file of module `m` is an edge from `m`'s ancestor-sibling to
//! the target's, at the level where their paths part. A child using its parent's items is not
//! an edge (Rust's `mod` tree already goes both ways). Test-only code (`#[cfg(test)]` and the
//! files it declares) is left out: it may drive several layers at once.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Module path of a source file relative to `src/` (`a/b.rs` and `a/b/mod.rs` → [a, b]).
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib" | "main") {
        parts.push(stem.to_string());
    }
    parts
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The file's code without comments (doc links are not uses) and without test-only code:
/// everything from the first `#[cfg(test)]` on (the project keeps test modules at the end of a
/// file).
fn production_text(text: &str) -> String {
    let code = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => text,
    };
    code.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Paths used by `text` of module `me`, resolved to absolute segment lists.
fn used_paths(me: &[String], text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let starts = ["crate::", "super::"]
            .iter()
            .find(|p| rest.starts_with(**p))
            .copied();
        let boundary = i == 0 || !is_ident(bytes[i - 1] as char) && bytes[i - 1] != b':';
        let Some(start) = starts.filter(|_| boundary) else {
            i += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        };
        // Base: crate root, or `me`'s parent for each `super::`.
        let mut base: Vec<String> = if start == "crate::" {
            Vec::new()
        } else {
            me.to_vec()
        };
        let mut j = i;
        if start == "crate::" {
            j += "crate::".len();
        }
        while text[j..].starts_with("super::") {
            base.pop();
            j += "super::".len();
        }
        // Then either one name or a `{a, b::c}` group.
        let tail = &text[j..];
        let names: Vec<String> = if let Some(group) = tail.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            group[..end]
                .split(',')
                .map(|s| s.trim().chars().take_while(|&c| is_ident(c)).collect())
                .filter(|s: &String| !s.is_empty() && s != "self")
                .collect()
        } else {
            let name: String = tail.chars().take_while(|&c| is_ident(c)).collect();
            let mut path = vec![name];
            let mut k = j + path[0].len();
            while text[k..].starts_with("::") {
                let seg: String = text[k + 2..].chars().take_while(|&c| is_ident(c)).collect();
                if seg.is_empty() {
                    break;
                }
                k += 2 + seg.len();
                path.push(seg);
            }
            let mut full = base.clone();
            full.extend(path);
            out.push(full);
            i = k.max(i + 1);
            continue;
        };
        for n in names {
            let mut full = base.clone();
            full.push(n);
            out.push(full);
        }
        i = j.max(i + 1);
    }
    out
}

/// Modules only declared by `#[cfg(test)] mod x;` in `files` of `src`.
fn test_only_modules(src: &Path, files: &[PathBuf]) -> BTreeSet<Vec<String>> {
    let mut test_only = BTreeSet::new();
    for f in files {
        let text = std::fs::read_to_string(f).unwrap();
        let me = module_of(f.strip_prefix(src).unwrap());
        for (i, _) in text.match_indices("#[cfg(test)]") {
            let after = text[i + "#[cfg(test)]".len()..].trim_start();
            if let Some(decl) = after.strip_prefix("mod ") {
                let name: String = decl.chars().take_while(|&c| is_ident(c)).collect();
                if decl[name.len()..].trim_start().starts_with(';') {
                    let mut m = me.clone();
                    m.push(name);
                    test_only.insert(m);
                }
            }
        }
    }
    test_only
}

/// Sibling edges (parent module → (from, to) children) of one crate.
fn edges(src: &Path) -> BTreeMap<Vec<String>, BTreeSet<(String, String)>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeSet<Vec<String>> = files
        .iter()
        .map(|f| module_of(f.strip_prefix(src).unwrap()))
        .collect();
    let test_only = test_only_modules(src, &files);
    let mut out: BTreeMap<Vec<String>, BTreeSet<(String, String)>> = BTreeMap::new();
    for f in &files {
        let me = module_of(f.strip_prefix(src).unwrap());
        if test_only.iter().any(|t| me.starts_with(t)) {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        for mut target in used_paths(&me, &production_text(&text)) {
            // Keep the module part of the path (the rest names items).
            while !target.is_empty() && !modules.contains(&target) {
                target.pop();
            }
            let common = me.iter().zip(&target).take_while(|(a, b)| a == b).count();
            if common < me.len() && common < target.len() {
                out.entry(me[..common].to_vec())
                    .or_default()
                    .insert((me[common].clone(), target[common].clone()));
            }
        }
    }
    out
}

/// A cycle among siblings, if there is one.
fn find_cycle(edges: &BTreeSet<(String, String)>) -> Option<Vec<String>> {
    let nodes: BTreeSet<&String> = edges.iter().flat_map(|(a, b)| [a, b]).collect();
    fn visit<'a>(
        n: &'a String,
        edges: &'a BTreeSet<(String, String)>,
        stack: &mut Vec<&'a String>,
        done: &mut BTreeSet<&'a String>,
    ) -> Option<Vec<String>> {
        if let Some(pos) = stack.iter().position(|s| *s == n) {
            let mut c: Vec<String> = stack[pos..].iter().map(|s| s.to_string()).collect();
            c.push(n.clone());
            return Some(c);
        }
        if done.contains(n) {
            return None;
        }
        stack.push(n);
        for (_, b) in edges.iter().filter(|(a, _)| a == n) {
            if let Some(c) = visit(b, edges, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        done.insert(n);
        None
    }
    let mut done = BTreeSet::new();
    for n in nodes {
        if let Some(c) = visit(n, edges, &mut Vec::new(), &mut done) {
            return Some(c);
        }
    }
    None
}

/// Every crate of the workspace (`crates/*/src`).
fn crates() -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(root().join("crates"))
        .unwrap()
        .flatten()
        .map(|e| format!("crates/{}/src", e.file_name().to_string_lossy()))
        .collect();
    out.sort();
    out
}

#[test]
fn no_module_uses_one_that_uses_it_back() {
    let mut cycles = Vec::new();
    for krate in crates() {
        let src = root().join(&krate);
        for (parent, e) in edges(&src) {
            if let Some(c) = find_cycle(&e) {
                let at = if parent.is_empty() {
                    krate.to_string()
                } else {
                    format!("{krate}: {}", parent.join("::"))
                };
                cycles.push(format!("{at}: {}", c.join(" → ")));
            }
        }
    }
    assert!(cycles.is_empty(), "module cycles:\n{}", cycles.join("\n"));
}

/// The collector's top-level modules by layer, lowest first (ARCHITECTURE.md): a module may use
/// only modules of a lower layer.
const COLLECTOR_LAYERS: [(&str, u8); 13] = [
    ("sys", 0),
    ("harness", 1),
    ("stats", 1),
    ("machine", 1),
    ("scenarios", 2),
    ("engine", 3),
    ("analysis", 4),
    // Boots kernels and judges the records their guests send back: uses the machine probe
    // and the record, never the engine (the guest runs a whole `syscost run`).
    ("lab", 4),
    // Records against each other: reads records, never samples.
    ("compare", 4),
    ("report", 5),
    ("cli", 5),
    ("error", 6),
    ("commands", 7),
];

#[test]
fn collector_modules_use_only_lower_layers() {
    let rank = |m: &str| COLLECTOR_LAYERS.iter().find(|(n, _)| *n == m).map(|l| l.1);
    let top = edges(&root().join("crates/collector/src"))
        .remove(&Vec::new())
        .unwrap_or_default();
    let mut wrong = Vec::new();
    for (from, to) in top {
        match (rank(&from), rank(&to)) {
            (Some(a), Some(b)) if b < a => {}
            (Some(_), Some(_)) => wrong.push(format!("{from} → {to}")),
            _ => wrong.push(format!(
                "{from} → {to}: a module missing from COLLECTOR_LAYERS"
            )),
        }
    }
    assert!(wrong.is_empty(), "uses against the layering: {wrong:?}");
}

#[test]
fn only_main_and_commands_see_the_cli() {
    let src = root().join("crates/collector/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut users = Vec::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap();
        let me = module_of(rel);
        if me.first().is_some_and(|m| m == "commands") || rel == Path::new("main.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        if used_paths(&me, &production_text(&text))
            .iter()
            .any(|p| p.first().is_some_and(|m| m == "cli" || m == "commands"))
            || text.contains("syscost::cli")
        {
            users.push(rel.display().to_string());
        }
    }
    assert!(users.is_empty(), "outside commands/: {users:?}");
}

#[test]
fn the_checker_sees_cycles_and_group_imports() {
    let me = vec!["a".to_string(), "b".to_string()];
    let paths = used_paths(
        &me,
        "use super::{c::X, d}; use crate::e::f::G; fn x() { super::super::h::i(); }",
    );
    assert!(paths.contains(&vec!["a".into(), "c".into()]));
    assert!(paths.contains(&vec!["a".into(), "d".into()]));
    assert!(paths.contains(&vec!["e".into(), "f".into(), "G".into()]));
    assert!(paths.contains(&vec!["h".into(), "i".into()]));
    let e: BTreeSet<(String, String)> = [("x", "y"), ("y", "z"), ("z", "x")]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(
        find_cycle(&e),
        Some(vec!["x".into(), "y".into(), "z".into(), "x".into()])
    );
    let acyclic: BTreeSet<(String, String)> = [("x", "y"), ("x", "z"), ("y", "z")]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(find_cycle(&acyclic), None);
}

/// `text` with comments, string literals and character literals blanked out: what remains is
/// code (a word in a message or a doc comment is no use of it).
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let rest = &text[i..];
        let end = if rest.starts_with("//") {
            rest.find('\n').map_or(b.len(), |n| i + n)
        } else if rest.starts_with("/*") {
            rest.find("*/").map_or(b.len(), |n| i + n + 2)
        } else if let Some(hashes) = rest
            .strip_prefix('r')
            .or_else(|| rest.strip_prefix("br"))
            .map(|r| r.len() - r.trim_start_matches('#').len())
            .filter(|&h| {
                let prefix = if rest.starts_with('b') { 2 } else { 1 };
                rest[prefix + h..].starts_with('"') && (i == 0 || !is_ident(b[i - 1] as char))
            })
        {
            let close = format!("\"{}", "#".repeat(hashes));
            let open = rest.find('"').unwrap() + 1;
            rest[open..]
                .find(&close)
                .map_or(b.len(), |n| i + open + n + close.len())
        } else if rest.starts_with('"') {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            j + 1
        } else if let Some(after) = rest.strip_prefix('\'') {
            // A character literal ('x', '\n', '\u{1F}'), not a lifetime ('a).
            let lit = after
                .char_indices()
                .find(|&(k, c)| c == '\'' && k > 0)
                .map(|(k, _)| k + 2)
                .filter(|&len| len <= 12 && (len == 3 || after.starts_with('\\')));
            let Some(len) = lit else {
                out.push('\'');
                i += 1;
                continue;
            };
            i + len
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
            continue;
        };
        let end = end.min(b.len());
        out.extend(
            text[i..end]
                .chars()
                .map(|c| if c == '\n' { '\n' } else { ' ' }),
        );
        i = end;
    }
    out
}

/// `code` has `word` as a word of its own (not part of a longer name such as `unsafe_code`).
fn has_word(code: &str, word: &str) -> bool {
    code.match_indices(word).any(|(k, _)| {
        let before = code[..k].chars().next_back();
        let after = code[k + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

/// Files of `src` whose code (tests included) has the word `word`, outside `allowed`.
fn files_with_word(src: &Path, word: &str, allowed: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut found = Vec::new();
    for f in files {
        if f.starts_with(allowed) {
            continue;
        }
        let code = code_only(&std::fs::read_to_string(&f).unwrap());
        if has_word(&code, word) {
            found.push(f.strip_prefix(src).unwrap().display().to_string());
        }
    }
    found
}

/// ARCHITECTURE.md: every `unsafe` of the collector is in `sys/`, behind a safe function that
/// says why it is sound — tests included. Assembly too (`global_asm!` needs no `unsafe`, but
/// calling what it defines does).
#[test]
fn unsafe_code_is_only_in_sys() {
    let src = root().join("crates/collector/src");
    for word in ["unsafe", "global_asm"] {
        let found = files_with_word(&src, word, &src.join("sys"));
        assert!(found.is_empty(), "`{word}` outside sys/: {found:?}");
    }
}

/// ARCHITECTURE.md: every `unsafe` of the workspace is in a module named `sys` (`src/sys.rs` or
/// `src/sys/` of its crate), behind safe functions: the collector's own, and for the tests and
/// benchmarks `syscost_testkit::sys`. Source, tests, benchmarks and fuzz targets alike.
#[test]
fn unsafe_code_of_the_workspace_is_only_in_sys_modules() {
    let mut packages: Vec<PathBuf> = std::fs::read_dir(root().join("crates"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    packages.push(root().join("fuzz"));
    let mut found = Vec::new();
    for package in &packages {
        let mut files = Vec::new();
        for dir in ["src", "tests", "benches", "fuzz_targets"] {
            if package.join(dir).is_dir() {
                rust_files(&package.join(dir), &mut files);
            }
        }
        let sys = [package.join("src/sys.rs"), package.join("src/sys")];
        for f in files {
            if sys.iter().any(|s| f.starts_with(s)) {
                continue;
            }
            let code = code_only(&std::fs::read_to_string(&f).unwrap());
            for word in ["unsafe", "global_asm"] {
                if has_word(&code, word) {
                    let rel = f.strip_prefix(root()).unwrap_or(&f);
                    found.push(format!("{}: `{word}`", rel.display()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "outside a `sys` module:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_unsafe_checker_reads_code_not_words() {
    let code = code_only(
        "// unsafe\nlet s = \"unsafe\"; let r = r#\"unsafe\"#; let c = '\"'; fn f<'a>() {}\n/* unsafe */ unsafe {}",
    );
    assert_eq!(code.matches("unsafe").count(), 1, "{code}");
    assert!(code.contains("fn f<'a>() {}"), "{code}");
    assert!(has_word(&code, "unsafe"));
    assert!(!has_word("#![forbid(unsafe_code)]", "unsafe"));
}

// Every crate is held to the size limits (ARCHITECTURE.md): a file of at most 600 lines of
// non-test code, a function of at most 120 lines.
const MAX_FILE_LINES: usize = 600;
const MAX_FN_LINES: usize = 120;

/// A file's non-test code: everything before its `#[cfg(test)] mod` (the project keeps test
/// modules at the end of a file).
fn non_test(text: &str) -> &str {
    let mut from = 0;
    while let Some(i) = text[from..].find("#[cfg(test)]").map(|i| from + i) {
        let after = text[i + "#[cfg(test)]".len()..].trim_start();
        if after.starts_with("mod ") || after.starts_with("pub(crate) mod ") {
            return &text[..i];
        }
        from = i + 1;
    }
    text
}

/// (name, first line, lines) of every function in `code` (comments and literals blanked).
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let b = code.as_bytes();
    let line_of = |k: usize| code[..k].matches('\n').count() + 1;
    let mut out = Vec::new();
    for (k, _) in code.match_indices("fn ") {
        if k > 0 && is_ident(b[k - 1] as char) {
            continue;
        }
        let name: String = code[k + 3..].chars().take_while(|&c| is_ident(c)).collect();
        if name.is_empty() {
            continue;
        }
        // The body: the first `{` outside the signature's parentheses and brackets; none
        // (a `;` first) for a declaration.
        let mut depth = 0i32;
        let mut open = None;
        for (j, c) in code[k..].char_indices() {
            match c {
                '(' | '[' => depth += 1,
                ')' | ']' => depth -= 1,
                ';' if depth == 0 => break,
                '{' if depth == 0 => {
                    open = Some(k + j);
                    break;
                }
                _ => {}
            }
        }
        let Some(open) = open else { continue };
        let mut level = 0;
        let close = code[open..].char_indices().find_map(|(j, c)| {
            match c {
                '{' => level += 1,
                '}' => level -= 1,
                _ => {}
            }
            (level == 0).then_some(open + j)
        });
        let end = close.unwrap_or(code.len());
        out.push((name, line_of(k), line_of(end) - line_of(k) + 1));
    }
    out
}

#[test]
fn no_file_or_function_is_too_long() {
    let mut long = Vec::new();
    for krate in crates() {
        let src = root().join(&krate);
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let test_only = test_only_modules(&src, &files);
        for f in &files {
            let rel = f.strip_prefix(&src).unwrap();
            if test_only.iter().any(|t| module_of(rel).starts_with(t)) {
                continue;
            }
            let text = std::fs::read_to_string(f).unwrap();
            let code = non_test(&text);
            let lines = code.lines().count();
            if lines > MAX_FILE_LINES {
                long.push(format!("{krate}/{}: {lines} lines", rel.display()));
            }
            for (name, at, n) in functions(&code_only(code)) {
                if n > MAX_FN_LINES {
                    long.push(format!(
                        "{krate}/{}:{at}: fn {name}, {n} lines",
                        rel.display()
                    ));
                }
            }
        }
    }
    assert!(
        long.is_empty(),
        "over {MAX_FILE_LINES} lines of non-test code, or a function over {MAX_FN_LINES}:\n{}",
        long.join("\n")
    );
}

#[test]
fn the_size_checker_counts_bodies_not_signatures() {
    let code = code_only(
        "fn a(x: [u8; 2]) -> Vec<u8> {\n    let s = \"}\";\n    vec![]\n}\nfn b();\nfn c() where T: X {\n}\n#[cfg(test)]\nmod tests {}\n",
    );
    let f = functions(&code);
    assert_eq!(f, vec![("a".into(), 1, 4), ("c".into(), 6, 2)]);
    assert_eq!(non_test("x\n#[cfg(test)]\nmod tests {}"), "x\n");
}
