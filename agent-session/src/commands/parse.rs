//! The words of a `/mcp` command line: split like a shell does (by `shell-words`), then sorted
//! into positional words, `--flag value` pairs and what follows `--`. Every mistake is one line
//! ending with the command's usage.
//!
//! The short spellings of `claude mcp` are accepted for the flags a command takes: `-s`
//! (`--scope`), `-t` (`--transport`), `-e` (`--env`) and `-H` (`--header`); `--env` and
//! `--header` may be given any number of times.

use std::collections::BTreeMap;

use mcp_config::Level;

/// Splits a line into words the way a POSIX shell does: whitespace separates, `'…'` is literal,
/// `"…"` takes `\"` and `\\` escapes, a backslash outside quotes takes the next character as is.
pub(super) fn split_words(line: &str) -> Result<Vec<String>, String> {
    shell_words::split(line).map_err(|_| "the line has an unterminated quote".to_owned())
}

/// The name of a command that takes one NAME and nothing else.
pub(super) fn one_name(rest: &[String], usage: &str) -> Result<String, String> {
    Ok(parse_words(rest, &[], false, usage)?
        .name(usage)?
        .to_owned())
}

pub(super) fn no_arguments(rest: &[String], usage: &str) -> Result<(), String> {
    match rest.first() {
        None => Ok(()),
        Some(extra) => Err(format!("unexpected argument \"{extra}\"; {usage}")),
    }
}

/// Short spellings and the long flag each stands for.
const SHORT_FLAGS: [(&str, &str); 4] = [
    ("-s", "--scope"),
    ("-t", "--transport"),
    ("-e", "--env"),
    ("-H", "--header"),
];

/// Flags that may be given more than once; their values are kept in order.
const REPEATABLE_FLAGS: [&str; 2] = ["--env", "--header"];

/// A command line's words sorted out: positional words, `--flag value` pairs, and what
/// follows `--` (when the command takes one).
#[derive(Debug, Default)]
pub(super) struct Parsed {
    pub(super) positionals: Vec<String>,
    flags: BTreeMap<&'static str, String>,
    lists: BTreeMap<&'static str, Vec<String>>,
    pub(super) command: Option<Vec<String>>,
}

impl Parsed {
    pub(super) fn flag(&self, name: &str) -> Option<&str> {
        self.flags.get(name).map(String::as_str)
    }

    /// Every value of a repeatable flag, in the order given.
    pub(super) fn values(&self, name: &str) -> &[String] {
        self.lists.get(name).map_or(&[], Vec::as_slice)
    }

    /// The one NAME the command takes.
    pub(super) fn name(&self, usage: &str) -> Result<&str, String> {
        match self.positionals.as_slice() {
            [] => Err(format!("missing NAME; {usage}")),
            [name] => Ok(name),
            [_, extra, ..] => Err(format!("unexpected argument \"{extra}\"; {usage}")),
        }
    }
}

/// Parses `words`: flags in `flags` take a value (`--flag value` or `--flag=value`); `--`
/// ends the flags when `takes_command`, and everything after it is the command.
pub(super) fn parse_words(
    words: &[String],
    flags: &[&'static str],
    takes_command: bool,
    usage: &str,
) -> Result<Parsed, String> {
    let mut parsed = Parsed::default();
    let mut iter = words.iter();
    while let Some(word) = iter.next() {
        if word == "--" {
            if !takes_command {
                return Err(format!("unexpected \"--\"; {usage}"));
            }
            parsed.command = Some(iter.by_ref().cloned().collect());
            break;
        }
        if word.len() > 1 && word.starts_with('-') {
            let (given, inline) = match word.split_once('=') {
                Some((flag, value)) => (flag, Some(value.to_owned())),
                None => (word.as_str(), None),
            };
            let long = SHORT_FLAGS
                .iter()
                .find(|(short, _)| *short == given)
                .map_or(given, |(_, long)| long);
            let Some(&flag) = flags.iter().find(|flag| **flag == long) else {
                return Err(format!("unknown flag \"{given}\"; {usage}"));
            };
            let value = match inline {
                Some(value) => value,
                None => match iter.next() {
                    Some(value) if value != "--" && !value.starts_with("--") => value.clone(),
                    _ => return Err(format!("{given} needs a value; {usage}")),
                },
            };
            if REPEATABLE_FLAGS.contains(&flag) {
                parsed.lists.entry(flag).or_default().push(value);
            } else if parsed.flags.insert(flag, value).is_some() {
                return Err(format!("{flag} is given twice; {usage}"));
            }
            continue;
        }
        parsed.positionals.push(word.clone());
    }
    Ok(parsed)
}

/// `--scope project|user`; `local` (Claude Code's name for a project file kept out of version
/// control) is refused with what to use instead, as this agent has no such file.
pub(super) fn parse_scope(parsed: &Parsed, usage: &str) -> Result<Option<Level>, String> {
    match parsed.flag("--scope") {
        None => Ok(None),
        Some("project") => Ok(Some(Level::Project)),
        Some("user") => Ok(Some(Level::User)),
        Some("local") => Err(format!(
            "--scope local is Claude Code's private project entry, which this agent does not \
             have; use --scope project (this folder) or --scope user (every folder); {usage}"
        )),
        Some(other) => Err(format!(
            "--scope must be project or user, not \"{other}\"; {usage}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        split_words(line).unwrap()
    }

    #[test]
    fn words_split_like_a_shell() {
        assert_eq!(words("  add  x -- a b "), ["add", "x", "--", "a", "b"]);
        assert_eq!(words("--token \"a b\""), ["--token", "a b"]);
        assert_eq!(words("--token 'a \"b\" c'"), ["--token", "a \"b\" c"]);
        assert_eq!(words(r#"x"y z"w"#), ["xy zw"]);
        assert_eq!(words(r#""a \"q\" \\""#), [r#"a "q" \"#]);
        assert_eq!(words(r"a\ b"), ["a b"]);
        assert_eq!(words("'' \"\""), ["", ""]);
        assert!(words("").is_empty());
        assert!(split_words("'open").is_err());
        assert!(split_words("\"open").is_err());
    }

    #[test]
    fn flags_take_values_and_the_command_follows_the_double_dash() {
        let parsed = parse_words(
            &words("x --scope=user -- npx -y --scope p"),
            &["--scope"],
            true,
            "usage",
        )
        .unwrap();
        assert_eq!(parsed.positionals, ["x"]);
        assert_eq!(parsed.flag("--scope"), Some("user"));
        assert_eq!(
            parsed.command.as_deref(),
            Some(
                &[
                    "npx".to_owned(),
                    "-y".to_owned(),
                    "--scope".to_owned(),
                    "p".to_owned()
                ][..]
            )
        );
        for (line, expected) in [
            ("x --bogus 1", "unknown flag \"--bogus\"; usage"),
            ("x --scope", "--scope needs a value; usage"),
            ("x --scope a --scope b", "--scope is given twice; usage"),
            ("x --", "unexpected \"--\"; usage"),
            ("x -s", "-s needs a value; usage"),
            ("x -s a --scope b", "--scope is given twice; usage"),
        ] {
            let takes_command = !line.ends_with("--");
            let error = parse_words(&words(line), &["--scope"], takes_command, "usage");
            assert_eq!(error.err().as_deref(), Some(expected), "{line}");
        }
    }

    #[test]
    fn short_flags_stand_for_long_ones_and_env_and_header_repeat() {
        let flags = ["--scope", "--transport", "--env", "--header"];
        let parsed = parse_words(
            &words("x -s user -t sse -e A=1 --env=B=2 -H 'X-A: 1' --header 'X-B: 2'"),
            &flags,
            false,
            "usage",
        )
        .unwrap();
        assert_eq!(parsed.flag("--scope"), Some("user"));
        assert_eq!(parsed.flag("--transport"), Some("sse"));
        assert_eq!(parsed.values("--env"), ["A=1", "B=2"]);
        assert_eq!(parsed.values("--header"), ["X-A: 1", "X-B: 2"]);
        assert!(parsed.values("--bogus").is_empty());
        let error = parse_words(&words("x -e A=1"), &["--scope"], false, "usage");
        assert_eq!(error.err().as_deref(), Some("unknown flag \"-e\"; usage"));
    }
}
