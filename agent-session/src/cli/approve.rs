//! `agent-session trust [--yes] [NAME…]`: approving this folder's project servers, without
//! starting any.
//!
//! Naming the servers is the consent. Bare `trust` first shows what each waiting server would
//! run or reach (command and arguments, or URL; the names of env vars and headers), then asks
//! on a terminal; `--yes` approves without asking, for scripts; from a pipe without `--yes` it
//! refuses and approves nothing.

use std::io::IsTerminal as _;

use agent_session::render::describe_source;
use agent_session::terminal_text::escape_line;
use agent_session::{
    PendingServer, SessionOptions, approve_pending, definition_lines, pending_project_servers,
};
use serde_json::{Value, json};

use super::args::Globals;
use super::{EXIT_FAILED, EXIT_OK, EXIT_USAGE, failure, manage, output, stdin};

/// Runs `trust`; its exit status.
pub(crate) async fn run(globals: &Globals, names: &[String], yes: bool) -> u8 {
    let options = match manage::options(globals) {
        Ok(options) => options,
        Err(message) => {
            failure::report(globals.json, failure::Kind::Usage, &message);
            return EXIT_USAGE;
        }
    };
    let named = (!names.is_empty()).then_some(names);
    let pending = match pending_project_servers(&options, named) {
        Ok(pending) => pending,
        Err(error) => {
            let message = format!("could not approve: {error}");
            failure::report(globals.json, failure::Kind::Command, &message);
            return EXIT_FAILED;
        }
    };
    if pending.is_empty() {
        let text = "nothing new to approve: the project's servers are approved as they are";
        return done(globals.json, text, &[]);
    }
    if named.is_none() && !yes {
        let listing = describe(&pending);
        if !std::io::stdin().is_terminal() {
            if !globals.json {
                output::print(&format!("waiting for approval:\n{listing}"));
            }
            failure::report(
                globals.json,
                failure::Kind::Usage,
                "nothing approved: stdin is not a terminal, so there is no one to ask; approve \
                 what is shown with `agent-session trust --yes`, or name the servers: \
                 `agent-session trust NAME…`",
            );
            return EXIT_USAGE;
        }
        eprintln!("these project servers wait for approval:\n{listing}");
        let count = pending.len();
        let question = format!(
            "approve {} (it may run on this machine)? [y/N] ",
            if count == 1 {
                "this server".to_owned()
            } else {
                format!("these {count} servers")
            }
        );
        let answer = stdin::answer(&question).await.unwrap_or_default();
        if !matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
            failure::report(globals.json, failure::Kind::Command, "nothing approved");
            return EXIT_FAILED;
        }
    }
    approve(&options, globals.json, &pending)
}

/// Records the approvals of `pending` and says what was approved.
fn approve(options: &SessionOptions, json: bool, pending: &[PendingServer]) -> u8 {
    match approve_pending(options, pending) {
        Ok(approved) => {
            let shown: Vec<PendingServer> = pending
                .iter()
                .filter(|server| approved.contains(&server.name))
                .cloned()
                .collect();
            let text = format!("approved {}:\n{}", approved.join(", "), describe(&shown));
            done(json, &text, &shown)
        }
        Err(error) => {
            let message = format!("could not approve: {error}");
            failure::report(json, failure::Kind::Command, &message);
            EXIT_FAILED
        }
    }
}

/// Prints the outcome (text, or `{"approved": [...]}` with `--json`); exit status 0.
fn done(json: bool, text: &str, approved: &[PendingServer]) -> u8 {
    if json {
        let entries: Vec<Value> = approved.iter().map(entry_json).collect();
        output::print_json(&json!({ "approved": entries }), false);
    } else {
        output::print(text);
    }
    EXIT_OK
}

/// Each server, its file, and what it runs or reaches, one line per field.
fn describe(servers: &[PendingServer]) -> String {
    let mut lines = Vec::new();
    for server in servers {
        lines.push(format!("  {}", escape_line(&server.name)));
        let mut fields = definition_lines(&server.definition);
        fields.push(("source:", describe_source(&server.source)));
        for (label, value) in fields {
            lines.push(format!("    {label:<9} {}", escape_line(&value)));
        }
    }
    lines.join("\n")
}

/// One approved server as JSON: its name, file and definition lines.
fn entry_json(server: &PendingServer) -> Value {
    let mut entry = json!({ "name": server.name, "source": describe_source(&server.source) });
    for (label, value) in definition_lines(&server.definition) {
        let key = label.trim_end_matches(':');
        match &mut entry[key] {
            Value::Array(values) => values.push(Value::from(value)),
            slot @ Value::Null if matches!(key, "env" | "header") => {
                *slot = Value::from(vec![value]);
            }
            slot => *slot = Value::from(value),
        }
    }
    entry
}
