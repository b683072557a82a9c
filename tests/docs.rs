//! The documents a newcomer reads first stay true to the program: `docs/cli.md` lists every
//! command and, under each, every flag it takes (read from the binary's own help) and every
//! view `--mode` takes; the README shows the run and test commands; every file the README and
//! the docs link exists, every picture is small, and nothing points outside the repository.

mod cli_common;

use cli_common::pelt;
use std::path::Path;

/// The largest picture the README may show, bytes: a first screen that loads quickly.
const MAX_PICTURE_BYTES: u64 = 512 * 1024;

fn read(path: &str) -> String {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn help(args: &[&str]) -> String {
    let o = pelt().args(args).arg("--help").output().unwrap();
    assert!(o.status.success(), "pelt {args:?} --help failed");
    String::from_utf8(o.stdout).unwrap()
}

/// The subcommands `pelt --help` lists (its "Commands:" section), `help` left out.
fn commands() -> Vec<String> {
    let text = help(&[]);
    let section = text
        .split("Commands:")
        .nth(1)
        .expect("pelt --help lists its commands");
    section
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

/// The long flags `pelt COMMAND --help` lists (an option's line is indented at most six
/// spaces; its description lines deeper), `--help` and `--version` left out.
fn flags(command: &str) -> Vec<String> {
    help(&[command])
        .lines()
        .filter(|l| {
            let indent = l.len() - l.trim_start().len();
            (1..=6).contains(&indent) && l.trim_start().starts_with('-')
        })
        .filter_map(|l| l.split_whitespace().find(|t| t.starts_with("--")))
        .map(|t| t.trim_end_matches(',').to_string())
        .filter(|f| f != "--help" && f != "--version")
        .collect()
}

/// `docs/cli.md`'s section for `pelt COMMAND`, up to the next heading of its level.
fn section<'a>(doc: &'a str, command: &str) -> &'a str {
    let heading = format!("\n## `pelt {command}`");
    let start = doc
        .find(&heading)
        .unwrap_or_else(|| panic!("docs/cli.md has no section {heading:?}"));
    let rest = &doc[start + heading.len()..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

/// Whether `text` names `flag` in code (`` `--flag`` followed by a space, a backquote or a
/// value), not merely a longer flag that starts the same.
fn names_flag(text: &str, flag: &str) -> bool {
    let quoted = format!("`{flag}");
    text.match_indices(&quoted).any(|(i, _)| {
        let next = text[i + quoted.len()..].chars().next();
        matches!(next, Some(' ' | '`' | '='))
    })
}

#[test]
fn the_cli_reference_lists_every_command_and_every_flag_it_takes() {
    let doc = read("docs/cli.md");
    let commands = commands();
    assert!(
        commands.len() >= 8,
        "pelt --help listed too few commands: {commands:?}"
    );
    let mut checked = 0;
    for command in &commands {
        let text = section(&doc, command);
        for flag in flags(command) {
            assert!(
                names_flag(text, &flag),
                "docs/cli.md's `pelt {command}` section does not list {flag}"
            );
            checked += 1;
        }
    }
    // Enough flags were read that a change in clap's help layout cannot pass unseen.
    assert!(checked >= 40, "only {checked} flags read from the help");
}

#[test]
fn the_cli_reference_names_every_view() {
    let doc = read("docs/cli.md");
    let row = doc
        .lines()
        .find(|l| l.starts_with("| `--mode "))
        .expect("docs/cli.md describes --mode");
    for name in pelt::render::DebugMode::NAMES {
        assert!(
            row.contains(&format!("`{name}`")),
            "--mode's row lacks {name}"
        );
    }
    // `render --help` lists each view too, from the same list.
    let render = help(&["render"]);
    for name in pelt::render::DebugMode::NAMES {
        assert!(render.contains(name), "render --help lacks {name}");
    }
}

#[test]
fn the_readme_shows_the_run_and_test_commands_first() {
    let readme = read("README.md");
    let run = "```sh\nbash scripts/setup.sh && cargo run --release\n```";
    let test = "```sh\nbash .ci/run\n```";
    let first_screen = readme.find("## Commands").expect("a Commands section");
    for block in [run, test] {
        let at = readme.find(block).unwrap_or_else(|| panic!("no {block:?}"));
        assert!(at < first_screen, "{block:?} comes after the command table");
    }
}

/// Every relative link target of a Markdown `text`: `](target)`, anchors cut off.
fn links(text: &str) -> Vec<&str> {
    text.match_indices("](")
        .filter_map(|(i, _)| {
            let rest = &text[i + 2..];
            let end = rest.find(')')?;
            let target = rest[..end].split('#').next()?;
            (!target.is_empty() && !target.contains("://")).then_some(target)
        })
        .collect()
}

#[test]
fn every_linked_file_exists_inside_the_repository_and_pictures_are_small() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pictures = 0;
    for doc in [
        "README.md",
        "docs/cli.md",
        "docs/architecture.md",
        "docs/formats.md",
        "docs/usd.md",
    ] {
        let text = read(doc);
        assert!(!text.contains("../shared"), "{doc} points at ../shared");
        let dir = Path::new(doc).parent().unwrap();
        for target in links(&text) {
            assert!(
                !target.starts_with('/') && !target.starts_with(".."),
                "{doc} links {target}, outside the repository"
            );
            let path = root.join(dir).join(target);
            let meta = std::fs::metadata(&path)
                .unwrap_or_else(|e| panic!("{doc} links {target}, which is missing: {e}"));
            if target.ends_with(".png") {
                assert!(
                    meta.len() <= MAX_PICTURE_BYTES,
                    "{doc} shows {target} of {} bytes, over {MAX_PICTURE_BYTES}",
                    meta.len()
                );
                pictures += 1;
            }
        }
    }
    assert!(pictures >= 8, "only {pictures} pictures linked");
}

/// The groom file example in docs/formats.md is a file the Fox sample takes as it is (the
/// doc says it runs there): a newcomer's first copy works.
#[test]
fn the_groom_file_example_runs_on_the_fox() {
    let doc = read("docs/formats.md");
    let start = doc
        .find("```json\n{ \"pelt_groom\"")
        .expect("formats.md shows a groom file")
        + "```json\n".len();
    let end = start + doc[start..].find("```").expect("the example ends");
    let file = pelt::groom::GroomFile::from_json(&doc[start..end]).expect("the example parses");
    let fox = pelt::body::LoadedBody::read(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bodies/Fox.glb"),
        &pelt::body::BodyOptions { height: 1.0 },
    )
    .unwrap();
    let source = pelt::groom::BodyGroomSource::File(file);
    let groom = pelt::groom::BodyGroom::grow(&fox.mesh, Some(&source), 1, 1)
        .expect("the example grows on the Fox");
    assert!(groom.roots.len() > 1_000, "{} strands", groom.roots.len());
}
