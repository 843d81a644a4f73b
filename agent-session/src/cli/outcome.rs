//! What a command gave, apart from where it is shown: the command line and the shell run the
//! same commands ([`super::execute`]) and differ only in how an [`Outcome`] reaches the user.
//!
//! - The command line ([`Outcome::emit`]): results on stdout (text, or JSON with `--json`), a
//!   problem on stderr once (and with `--json` as `{"error": …}` on stdout when nothing else
//!   is), and the exit status: 0, 1 for a failure, 2 for a usage error.
//! - The shell ([`Outcome::into_reply`]): the same text, or one JSON line per command.
//!
//! Hints name the command to type in the interface they are shown in
//! ([`Interface`](agent_session::commands::Interface)):
//! `agent-session trust NAME` on the command line, `/mcp trust NAME` in the shell.

use serde_json::Value;

use super::failure::{self, Kind};
use super::{EXIT_FAILED, EXIT_OK, EXIT_USAGE, complain, output};

/// What a command gave: what it shows, what went wrong, and its exit status.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Outcome {
    /// The result, for people and for programs; `None` when the command has none to show.
    shown: Option<Shown>,
    /// What went wrong (after the result, when there is one).
    problem: Option<(Kind, Vec<String>)>,
    /// 0, 1 (failed) or 2 (given wrongly).
    exit: u8,
}

#[derive(Debug, Clone, PartialEq)]
struct Shown {
    text: String,
    json: Value,
}

impl Outcome {
    /// A result.
    pub(crate) fn ok(text: impl Into<String>, json: Value) -> Self {
        Self {
            shown: Some(Shown {
                text: text.into(),
                json,
            }),
            problem: None,
            exit: EXIT_OK,
        }
    }

    /// A result that is itself a failure (a tool's `isError` answer, a `list` with a failed
    /// server): shown like a result, exit status 1.
    pub(crate) fn failing(text: impl Into<String>, json: Value) -> Self {
        Self {
            exit: EXIT_FAILED,
            ..Self::ok(text, json)
        }
    }

    /// A result followed by problems of some of its parts (a server whose list failed): exit
    /// status 1, each problem on a line of its own.
    pub(crate) fn partial(text: impl Into<String>, json: Value, problems: Vec<String>) -> Self {
        if problems.is_empty() {
            return Self::ok(text, json);
        }
        Self {
            problem: Some((Kind::Server, problems)),
            ..Self::failing(text, json)
        }
    }

    /// The command failed: exit status 1.
    pub(crate) fn failed(kind: Kind, message: impl Into<String>) -> Self {
        Self {
            shown: None,
            problem: Some((kind, vec![message.into()])),
            exit: EXIT_FAILED,
        }
    }

    /// Ctrl-C stopped the command, which undid what it could first (a call cancelled on its
    /// server): exit status 130, as a CLI stopped by SIGINT has.
    pub(crate) fn interrupted(message: impl Into<String>) -> Self {
        Self {
            exit: super::EXIT_INTERRUPTED,
            ..Self::failed(Kind::Command, message)
        }
    }

    /// The command was given wrongly and did nothing: exit status 2.
    pub(crate) fn usage(kind: Kind, message: impl Into<String>) -> Self {
        Self {
            exit: EXIT_USAGE,
            ..Self::failed(kind, message)
        }
    }

    /// A session command's output (`/mcp …`, `add`, `login` …).
    pub(crate) fn of_command(done: agent_session::CommandOutput) -> Self {
        if done.usage {
            Self::usage(Kind::Usage, done.text)
        } else if done.ok {
            Self::ok(done.text, done.json)
        } else {
            Self::failed(Kind::Command, done.text)
        }
    }

    /// The same outcome, its failure (exit status 1) of `kind`: a command whose every failure
    /// is its server's (`test`) says so to a script.
    pub(crate) fn failing_as(mut self, kind: Kind) -> Self {
        if self.exit == EXIT_FAILED
            && let Some((failed, _)) = &mut self.problem
        {
            *failed = kind;
        }
        self
    }

    /// The same outcome with exit status 1 unless it already failed.
    pub(crate) fn or_failing(mut self, failing: bool) -> Self {
        if failing && self.exit == EXIT_OK {
            self.exit = EXIT_FAILED;
        }
        self
    }

    /// Shows the outcome on the command line (`json`: `--json`); the exit status.
    pub(crate) fn emit(self, json: bool) -> u8 {
        match (&self.shown, &self.problem) {
            (Some(shown), problem) => {
                if json {
                    output::print_json(&shown.json, false);
                } else {
                    output::print(&shown.text);
                }
                // With --json the problems are in the JSON already.
                if let (Some((_, messages)), false) = (problem, json) {
                    for message in messages {
                        complain(message);
                    }
                }
            }
            (None, Some((kind, messages))) => failure::report(json, *kind, &messages.join("\n")),
            (None, None) => {}
        }
        self.exit
    }

    /// The shell's view: whether it succeeded, its text (problems as `error: …` lines after
    /// the result) and its JSON (the result, or `{"error": {"kind", "message"}}`).
    pub(crate) fn into_reply(self) -> Reply {
        let ok = self.exit == EXIT_OK;
        let (shown, json) = match (self.shown, &self.problem) {
            (Some(shown), _) => (shown.text, shown.json),
            (None, Some((kind, messages))) => (
                String::new(),
                failure::error_json(*kind, &messages.join("\n")),
            ),
            (None, None) => (String::new(), Value::Null),
        };
        let errors = self
            .problem
            .map(|(_, messages)| {
                messages
                    .into_iter()
                    .map(|message| format!("error: {message}"))
                    .collect()
            })
            .unwrap_or_default();
        Reply {
            ok,
            shown,
            errors,
            json,
        }
    }
}

/// What one line of the shell did: whether it went well, what it shows (for stdout), its
/// `error: …` lines (for stderr), and all of it as JSON (for `--json`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Reply {
    pub(crate) ok: bool,
    pub(crate) shown: String,
    pub(crate) errors: Vec<String>,
    pub(crate) json: Value,
}

impl Reply {
    /// A line given wrongly: `error: …`, and `{"error": {"kind": "usage", …}}`.
    pub(crate) fn usage(message: &str) -> Self {
        Outcome::usage(Kind::Usage, message).into_reply()
    }
}

#[cfg(test)]
mod tests {
    use agent_session::commands::Interface;
    use serde_json::json;

    use super::*;

    #[test]
    fn a_hint_names_the_command_as_it_is_typed_where_it_is_shown() {
        assert_eq!(
            Interface::Cli.command("trust fs"),
            "`agent-session trust fs`"
        );
        assert_eq!(Interface::Shell.command("trust fs"), "`/mcp trust fs`");
    }

    #[test]
    fn the_shell_sees_a_failure_as_an_error_line_and_an_error_object() {
        let reply = Outcome::usage(Kind::UnknownTool, "unknown tool \"x\"").into_reply();
        assert!(!reply.ok);
        assert_eq!(reply.shown, "");
        assert_eq!(reply.errors, ["error: unknown tool \"x\""]);
        assert_eq!(reply.json["error"]["kind"], "unknown_tool");
        let reply = Outcome::partial("table", json!({"items": []}), vec!["b failed".to_owned()])
            .into_reply();
        assert!(!reply.ok);
        assert_eq!(reply.shown, "table");
        assert_eq!(reply.errors, ["error: b failed"]);
        assert_eq!(reply.json, json!({"items": []}));
        assert!(Outcome::partial("t", json!({}), Vec::new()).into_reply().ok);
    }
}
