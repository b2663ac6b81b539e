//! docs/architecture.md, claim by claim: each test reads the source tree and fails when the
//! claim it is named for stops being true. The page names the test beside each claim
//! (`cargo test -p testbench --test architecture`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("testbench sits in the repository")
        .to_path_buf()
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The names in a manifest's `[dependencies]` table.
fn dependencies(manifest: &str) -> BTreeSet<String> {
    let text = read(manifest);
    let mut names = BTreeSet::new();
    let mut inside = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            inside = line == "[dependencies]";
            continue;
        }
        if inside {
            if let Some((name, _)) = line.split_once('=') {
                names.insert(name.trim().to_string());
            }
        }
    }
    names
}

/// Every `.rs` file under `rel` (relative to the root), depth first, in name order.
fn rust_files(rel: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("a directory entry").path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join(rel), &mut out);
    out
}

/// The source with comments, string and character literals blanked (newlines kept, so that
/// line numbers stay true).
fn strip(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let blank = |s: &str, out: &mut String| {
        out.extend(s.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
    };
    let mut i = 0;
    while i < b.len() {
        let rest = &src[i..];
        let end = if rest.starts_with("//") {
            rest.find('\n').unwrap_or(rest.len())
        } else if rest.starts_with("/*") {
            rest.find("*/").map_or(rest.len(), |j| j + 2)
        } else if let Some(raw) = raw_string_len(rest) {
            raw
        } else if rest.starts_with('"') || rest.starts_with("b\"") {
            let mut j = if rest.starts_with('b') { 2 } else { 1 };
            while j < rest.len() && rest.as_bytes()[j] != b'"' {
                j += if rest.as_bytes()[j] == b'\\' { 2 } else { 1 };
            }
            (j + 1).min(rest.len())
        } else if rest.starts_with('\'') {
            char_literal_len(rest).unwrap_or(0)
        } else {
            0
        };
        if end == 0 {
            let c = rest.chars().next().expect("not at the end");
            out.push(c);
            i += c.len_utf8();
        } else {
            blank(&rest[..end], &mut out);
            i += end;
        }
    }
    out
}

/// The length of a raw string literal (`r"..."`, `r#"..."#`, `br"..."`) at the start.
fn raw_string_len(s: &str) -> Option<usize> {
    let t = s.strip_prefix('b').unwrap_or(s);
    let t = t.strip_prefix('r')?;
    let hashes = t.len() - t.trim_start_matches('#').len();
    let body = t[hashes..].strip_prefix('"')?;
    let close = format!("\"{}", "#".repeat(hashes));
    let j = body.find(&close)?;
    Some(s.len() - body.len() + j + close.len())
}

/// The length of a character literal at the start (not a lifetime).
fn char_literal_len(s: &str) -> Option<usize> {
    let mut chars = s.char_indices().skip(1);
    let (_, c) = chars.next()?;
    if c == '\\' {
        let close = s[2..].find('\'')?;
        return Some(close + 3);
    }
    let (j, q) = chars.next()?;
    (q == '\'').then_some(j + 1)
}

/// The stripped source with every item under `#[cfg(test)]` blanked too: what a build that
/// is not a test compiles.
fn non_test(stripped: &str) -> String {
    let mut s = stripped.to_string();
    while let Some(at) = s.find("#[cfg(test)]") {
        let body = s[at..].find(['{', ';']).map_or(s.len(), |j| at + j);
        let end = if s.as_bytes().get(body) == Some(&b'{') {
            matching_brace(&s, body).map_or(s.len(), |j| j + 1)
        } else {
            body + 1
        };
        let blanked: String = s[at..end]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        s.replace_range(at..end, &blanked);
    }
    s
}

/// The index of the brace that closes the one at `open`.
fn matching_brace(s: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (j, c) in s[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + j);
                }
            }
            _ => {}
        }
    }
    None
}

/// The non-test code of every `.rs` file under `rel`, with its path relative to the root.
fn code_under(rel: &str) -> Vec<(String, String)> {
    let r = root();
    rust_files(rel)
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable source");
            let name = p
                .strip_prefix(&r)
                .expect("under the root")
                .display()
                .to_string();
            (name, non_test(&strip(&text)))
        })
        .collect()
}

/// Line and text of each line of `code` that contains `needle`.
fn lines_with<'a>(code: &'a str, needle: &str) -> Vec<(usize, &'a str)> {
    code.lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .map(|(i, l)| (i + 1, l.trim()))
        .collect()
}

/// "Every door depends on `baser-files` and `baser-engine`, never on another door", and
/// arrows point down only (the engine on the cores, the cores on nothing above them).
#[test]
fn every_door_stands_on_the_engine_and_the_files_crate_never_on_another_door() {
    let doors = ["testbench", "capi", "python", "fuzz"];
    for door in ["capi", "python", "fuzz"] {
        let deps = dependencies(&format!("{door}/Cargo.toml"));
        for below in ["baser-engine", "baser-files"] {
            assert!(
                deps.contains(below),
                "{door} should depend on {below}: {deps:?}"
            );
        }
        for other in doors.iter().chain(&["clap", "indicatif"]) {
            assert!(
                !deps.contains(*other),
                "{door} depends on {other}: {deps:?}"
            );
        }
    }
    let files = dependencies("files/Cargo.toml");
    let engine = dependencies("engine/Cargo.toml");
    for door in doors {
        assert!(
            !files.contains(door) && !engine.contains(door),
            "{door} above files/engine"
        );
    }
    assert!(
        !engine.contains("baser-files"),
        "the engine reads no files: {engine:?}"
    );
    for core in ["pcs-core", "mac-core", "fec-core"] {
        let deps = dependencies(&format!("{core}/Cargo.toml"));
        let above: Vec<_> = deps
            .iter()
            .filter(|d| d.starts_with("baser") || doors.contains(&d.as_str()))
            .collect();
        assert!(above.is_empty(), "{core} depends on {above:?}");
    }
    assert!(!dependencies("pcs-core/Cargo.toml")
        .iter()
        .any(|d| d.ends_with("-core")));
}

/// "`baser-files` depends on the engine only for the types its formats write: the `Case` its
/// JUnit writer takes and the conformance cases a suite folder holds."
#[test]
fn the_files_crate_takes_only_the_types_it_writes_from_the_engine() {
    for (file, code) in code_under("files/src") {
        for (line, text) in lines_with(&code, "baser_engine::") {
            let allowed = ["baser_engine::case::", "baser_engine::conformance::"];
            assert!(
                allowed.iter().any(|a| text.contains(a)),
                "{file}:{line}: {text} (files may take only {allowed:?} from the engine)"
            );
        }
    }
}

/// "Nothing in the engine prints, reads files, parses a command line or calls libc."
#[test]
fn the_engine_neither_prints_nor_reads_files_nor_parses_a_command_line() {
    let forbidden = [
        "println!",
        "eprintln!",
        "print!",
        "eprint!",
        "dbg!",
        "std::fs",
        "File::",
        "std::env::args",
        "std::process",
        "stdin()",
        "stdout()",
        "libc::",
        "clap::",
    ];
    for (file, code) in code_under("engine/src") {
        for needle in forbidden {
            let hits = lines_with(&code, needle);
            assert!(hits.is_empty(), "{file}: {needle} at {hits:?}");
        }
    }
}

/// "Nothing in a core allocates": each core is `no_std` outside its own tests and links
/// neither `alloc` nor `std` (nostd-check links all three into a `#![no_std]` binary).
#[test]
fn no_core_can_allocate() {
    for core in ["pcs-core", "mac-core", "fec-core"] {
        let lib = read(&format!("{core}/src/lib.rs"));
        assert!(
            lib.contains("#![cfg_attr(not(test), no_std)]"),
            "{core} is not no_std"
        );
        for (file, code) in code_under(&format!("{core}/src")) {
            for needle in ["extern crate alloc", "extern crate std", "alloc::", "std::"] {
                let hits = lines_with(&code, needle);
                assert!(hits.is_empty(), "{file}: {needle} at {hits:?}");
            }
        }
    }
    let nostd = read("nostd-check/src/main.rs");
    for core in ["pcs_core", "mac_core", "fec_core"] {
        assert!(nostd.contains(core), "nostd-check does not link {core}");
    }
}

/// "`mac-core` uses `pcs-core`'s XGMII types" (and no other PCS type: the engine maps the
/// PCS's packets into the MAC's `RxPacket`).
#[test]
fn mac_core_takes_only_the_xgmii_transfer_from_pcs_core() {
    let allowed = ["ControlChar", "XgmiiWord", "Lane", "load_le"];
    for (file, code) in code_under("mac-core/src") {
        for (line, text) in lines_with(&code, "pcs_core::") {
            let after = &text[text.find("pcs_core::").expect("found") + "pcs_core::".len()..];
            let names: Vec<&str> = after
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .collect();
            assert!(
                names.iter().all(|n| allowed.contains(n)),
                "{file}:{line}: {text} (mac-core may take only {allowed:?} from pcs-core)"
            );
        }
    }
}

/// "One file per stage", private, with the API re-exported at the crate root; `fused` is
/// the one module that reaches past the stage doors, and the page lists every file.
#[test]
fn pcs_core_stages_are_private_files_and_fused_the_one_public_module() {
    let lib = non_test(&strip(&read("pcs-core/src/lib.rs")));
    let public: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .collect();
    assert_eq!(public, ["fused;"], "pcs-core's public modules");
    let page = read("docs/architecture.md");
    for l in lib.lines() {
        if let Some(m) = l.trim().strip_prefix("mod ") {
            let file = format!("`{}.rs`", m.trim_end_matches(';'));
            assert!(
                page.contains(&file),
                "docs/architecture.md does not name {file}"
            );
        }
    }
}

/// The door table's last column: the fast helpers only the batch doors call are crate
/// private, so a user cannot reach a shortcut without its fallback.
#[test]
fn the_door_tables_helpers_are_crate_private() {
    let page = read("docs/architecture.md");
    let table = page
        .split("| stage | one unit at a time")
        .nth(1)
        .expect("the door table");
    let mut helpers = Vec::new();
    for row in table.lines().skip(2).take_while(|l| l.starts_with('|')) {
        let last = row
            .trim_end_matches('|')
            .rsplit('|')
            .next()
            .expect("a cell");
        for (k, piece) in last.split('`').enumerate() {
            let ident = piece
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == ':');
            if k % 2 == 1 && ident && !piece.starts_with("fused::") {
                let name = piece.rsplit("::").next().expect("a name");
                helpers.push(name.to_string());
            }
        }
    }
    assert!(helpers.len() >= 20, "the table's helpers: {helpers:?}");
    let mut code = String::new();
    for core in ["pcs-core/src", "mac-core/src"] {
        for (_, c) in code_under(core) {
            code.push_str(&c);
        }
    }
    for name in helpers {
        let decl = format!("fn {name}");
        let found: Vec<&str> = code
            .lines()
            .filter(|l| {
                l.split(&decl)
                    .nth(1)
                    .is_some_and(|rest| rest.starts_with(['(', '<']))
            })
            .collect();
        assert!(
            !found.is_empty(),
            "helper {name} of the door table not found"
        );
        for l in found {
            assert!(!l.trim().starts_with("pub fn"), "{name} is public: {l}");
        }
    }
}

/// Every file the engine's table names exists, and every file of the engine has its row.
#[test]
fn the_engine_table_names_every_engine_file() {
    let page = read("docs/architecture.md");
    let table = page
        .split("## The engine")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the engine section");
    let rows: BTreeSet<String> = table
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_string)
        .collect();
    let src = root().join("engine/src");
    for row in &rows {
        assert!(
            src.join(row).exists(),
            "engine/src/{row} is in the table but not the tree"
        );
    }
    for entry in std::fs::read_dir(&src).expect("engine/src") {
        let p = entry.expect("an entry").path();
        let name = p.file_name().expect("a name").to_string_lossy().to_string();
        let module = name.trim_end_matches(".rs");
        if name == "lib.rs" || (p.is_dir() && rows.contains(&format!("{module}.rs"))) {
            continue;
        }
        let named = rows.contains(&name) || rows.contains(&format!("{module}/"));
        assert!(
            named,
            "engine/src/{name} has no row in docs/architecture.md"
        );
    }
}

/// "`cmd/*.rs` hold one command each": no command imports another (`bench`, which times
/// the commands end to end, runs them).
#[test]
fn no_command_imports_another() {
    let mut circle = Vec::new();
    for (file, code) in code_under("testbench/src/cmd") {
        let me = Path::new(&file)
            .file_stem()
            .expect("a name")
            .to_string_lossy()
            .to_string();
        if me == "bench" || me == "mod" {
            continue;
        }
        for (line, text) in lines_with(&code, "cmd::") {
            let other = text
                .split("cmd::")
                .nth(1)
                .and_then(|s| s.split("::").next())
                .unwrap_or_default();
            if other != me {
                circle.push(format!("{file}:{line}: {text}"));
            }
        }
        for (line, text) in lines_with(&code, "super::") {
            circle.push(format!("{file}:{line}: {text}"));
        }
    }
    assert!(
        circle.is_empty(),
        "commands importing commands:\n{}",
        circle.join("\n")
    );
}

/// The lengths of the functions in `code`: (lines, first line, name).
fn function_lengths(code: &str) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(j) = code[from..].find("fn ") {
        let at = from + j;
        from = at + 3;
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let name: String = code[at + 3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let Some(k) = code[at..].find(['{', ';']) else {
            break;
        };
        if code.as_bytes()[at + k] != b'{' || name.is_empty() {
            continue;
        }
        let Some(end) = matching_brace(code, at + k) else {
            break;
        };
        let first = code[..at].matches('\n').count() + 1;
        let last = code[..end].matches('\n').count() + 1;
        out.push((last - first + 1, first, name));
    }
    out
}

/// "No function over 150 lines outside tests" (the issue's bound; STYLE.md).
#[test]
fn no_function_is_over_150_lines_outside_tests() {
    let mut long = Vec::new();
    let crates = [
        "pcs-core/src",
        "mac-core/src",
        "fec-core/src",
        "engine/src",
        "files/src",
        "testbench/src",
        "python/src",
        "capi/src",
        "nostd-check/src",
    ];
    let mut counted = 0;
    for dir in crates {
        for (file, code) in code_under(dir) {
            if file.ends_with("/tests.rs") || file.contains("/tests/") {
                continue;
            }
            for (lines, first, name) in function_lengths(&code) {
                counted += 1;
                if lines > 150 {
                    long.push(format!("{file}:{first}: {name}, {lines} lines"));
                }
            }
        }
    }
    assert!(
        counted > 1000,
        "only {counted} functions found: the scan is broken"
    );
    assert!(
        long.is_empty(),
        "functions over 150 lines:\n{}",
        long.join("\n")
    );
}

/// The scanner itself: comments, strings and test items do not count, braces do.
#[test]
fn the_scanner_sees_code_only() {
    let src = "fn a() {\n    let s = \"}\"; // }\n    let c = '}';\n}\n#[cfg(test)]\nmod t {\n    fn b() {}\n}\nfn c<'x>(v: &'x u8) { /* { */ }\n";
    let code = non_test(&strip(src));
    let fns = function_lengths(&code);
    assert_eq!(
        fns,
        [(4, 1, "a".to_string()), (1, 9, "c".to_string())],
        "{code}"
    );
    assert_eq!(raw_string_len("r#\"a\"b\"#;"), Some(8));
}
