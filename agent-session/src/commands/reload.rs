//! `/mcp reload`, and what a reload gave: the summary the config-changing commands print too.

use std::fmt::Write as _;

use mcp_manager::Problem;
use serde_json::{Value, json};

use super::CommandOutput;
use super::Interface;
use super::status::{RowError, ServerStatus, Servers};
use crate::render::{one_line, plural, problem_json};
use crate::session::AgentSession;

/// What a reload gave.
pub(super) struct Reloaded {
    problems: Vec<Problem>,
    pub(super) servers: Servers,
}

impl Reloaded {
    pub(super) async fn run(session: &AgentSession) -> Self {
        let problems = super::problems_to_say(session.reload().await);
        Self {
            problems,
            servers: Servers::collect(session),
        }
    }

    pub(super) fn tools(&self) -> usize {
        self.servers.rows.iter().map(|row| row.tools).sum()
    }

    /// `reloaded: 2 of 3 servers connected, 7 tools` and the problems, one per line.
    fn text(&self) -> String {
        let mut text = self.summary();
        for problem in &self.problems {
            let _ = write!(text, "\n  {}", one_line(&problem.to_string()));
        }
        text
    }

    /// The summary line alone, with the number of problems (`list` shows them).
    pub(super) fn short_text(&self, interface: Interface) -> String {
        let mut text = self.summary();
        let list = interface.bare("list");
        match self.problems.len() {
            0 => {}
            1 => {
                let _ = write!(text, "; 1 problem ({list} shows it)");
            }
            count => {
                let _ = write!(text, "; {count} problems ({list} shows them)");
            }
        }
        text
    }

    /// `reloaded: 2 of 3 servers connected, 7 tools`.
    fn summary(&self) -> String {
        let configured = self.servers.discovery.servers.len();
        let connecting = self.servers.count(ServerStatus::Connecting);
        let mut text = format!(
            "reloaded: {} of {configured} server{} connected",
            self.servers.count(ServerStatus::Connected),
            plural(configured),
        );
        if connecting > 0 {
            let _ = write!(text, " ({connecting} still connecting)");
        }
        let _ = write!(text, ", {} tools", self.tools());
        text
    }

    pub(super) fn json(&self) -> Value {
        json!({
            "servers": self.servers.discovery.servers.len(),
            "connected": self.servers.count(ServerStatus::Connected),
            "connecting": self.servers.count(ServerStatus::Connecting),
            "tools": self.tools(),
            "errors": self.problems.iter().map(problem_json).collect::<Vec<_>>(),
        })
    }

    /// One server after the reload: its status word (`absent` when it is gone), tool count
    /// and error.
    pub(super) fn server(&self, name: &str) -> ServerAfter {
        match self.servers.row(name) {
            Some(row) => ServerAfter {
                status: Some(row.status),
                tools: row.tools,
                error: row.error.clone(),
            },
            None => ServerAfter {
                status: None,
                tools: 0,
                error: None,
            },
        }
    }
}

/// One server's state after a reload.
pub(super) struct ServerAfter {
    /// `None` when no server of that name is known any more.
    pub(super) status: Option<ServerStatus>,
    pub(super) tools: usize,
    pub(super) error: Option<RowError>,
}

impl ServerAfter {
    /// The status word, `absent` for a server no longer known.
    pub(super) fn status_word(&self) -> &'static str {
        self.status.map_or("absent", ServerStatus::as_str)
    }

    /// `"name" is connected with 3 tools` (or why not).
    pub(super) fn line(&self, name: &str) -> String {
        let status = self.status_word();
        match (self.status, &self.error) {
            (Some(ServerStatus::Failed), Some(error)) => {
                format!("\"{name}\" failed: {}", one_line(&error.to_string()))
            }
            (_, Some(error)) => format!("\"{name}\" is {status}: {}", one_line(&error.to_string())),
            (Some(ServerStatus::Connected | ServerStatus::Connecting), None) => {
                let tools = self.tools;
                format!("\"{name}\" is {status} with {tools} tool{}", plural(tools))
            }
            _ => format!("\"{name}\" is {status}"),
        }
    }

    /// The error as JSON (`null` when there is none).
    pub(super) fn error_json(&self) -> Value {
        self.error
            .as_ref()
            .map_or(Value::Null, |error| Value::String(error.to_string()))
    }
}

pub(super) async fn reload(session: &AgentSession, _interface: Interface) -> CommandOutput {
    let reloaded = Reloaded::run(session).await;
    let mut json = reloaded.json();
    json["reloaded"] = Value::Bool(true);
    CommandOutput::ok(reloaded.text(), json)
}
