//! How a command reports that it failed, so that a script can trust both the output and the
//! exit status: one line on stderr always, and with `--json` also a JSON object on stdout,
//! `{"error": {"kind", "message"}}`, where a script reading stdout finds it. And what makes
//! `list` a failure: a server that failed or cannot start until the user acts (log in,
//! approve, fix its entry), or a config file that could not be read.

use serde_json::{Value, json};

use super::{complain, output};

/// What went wrong, as the `kind` of a JSON error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The command line asked for something that cannot be done as asked.
    Usage,
    /// A command of the session (`login`, `trust`, …) failed.
    Command,
    /// A tool's server could not be used.
    Server,
    /// The tool does not exist.
    UnknownTool,
    /// The arguments do not fit the tool.
    Arguments,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Self::Usage => "usage",
            Self::Command => "command",
            Self::Server => "server",
            Self::UnknownTool => "unknown_tool",
            Self::Arguments => "arguments",
        }
    }
}

/// Reports a failure: the message on stderr, and with `json` the error object on stdout.
pub(crate) fn report(json: bool, kind: Kind, message: &str) {
    complain(message);
    if json {
        output::print_json(&error_json(kind, message), false);
    }
}

/// `{"error": {"kind", "message"}}`.
pub(crate) fn error_json(kind: Kind, message: &str) -> Value {
    json!({"error": {"kind": kind.as_str(), "message": message}})
}

/// Server statuses after which `list` fails: the server does not work until someone acts.
const FAILED_STATUSES: [&str; 4] = ["failed", "needs-login", "needs-approval", "invalid"];

/// Whether a `list` report (its JSON) shows a server that does not work, or a config file
/// that could not be read.
pub(crate) fn list_failed(report: &Value) -> bool {
    let server_failed = report["servers"].as_array().is_some_and(|servers| {
        servers.iter().any(|server| {
            server["status"]
                .as_str()
                .is_some_and(|status| FAILED_STATUSES.contains(&status))
        })
    });
    let file_failed = report["errors"]
        .as_array()
        .is_some_and(|errors| errors.iter().any(|error| error["server"].is_null()));
    server_failed || file_failed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_fails_for_a_server_that_does_not_work_or_an_unreadable_file() {
        let servers = |statuses: &[&str]| json!({"servers": statuses.iter().map(|status| json!({"status": status})).collect::<Vec<_>>(), "errors": []});
        assert!(!list_failed(&servers(&["connected", "disabled"])));
        for status in FAILED_STATUSES {
            assert!(list_failed(&servers(&["connected", status])), "{status}");
        }
        let unreadable = json!({"servers": [], "errors": [{"server": null, "path": "/p/.mcp.json", "error": "bad"}]});
        assert!(list_failed(&unreadable));
        let about_a_server = json!({"servers": [{"status": "connected"}], "errors": [{"server": "a", "error": "x"}]});
        assert!(!list_failed(&about_a_server));
    }

    #[test]
    fn a_json_error_has_a_kind_and_a_message() {
        assert_eq!(
            error_json(Kind::UnknownTool, "unknown tool \"x\""),
            json!({"error": {"kind": "unknown_tool", "message": "unknown tool \"x\""}})
        );
    }
}
