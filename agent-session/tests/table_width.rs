//! Tables fit the terminal: `list` on a pseudo-terminal narrower than its rows cuts the source
//! in the middle with `…` to the width (`COLUMNS`, else the terminal's own), keeping the file
//! name at its end, and never cuts the server's name or status. In a pipe, and with `--json`,
//! nothing is cut.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod cli_support;

use cli_support::{OnTerminal, Sandbox, run_on_terminal, server};
use serde_json::json;

/// The server's name.
const NAME: &str = "memory";

impl Sandbox {
    /// A project with one fixture server, approved; its source, the project's `.mcp.json` in a
    /// temporary folder, is longer than the rest of the row leaves room for.
    fn new(test: &str) -> Self {
        let sandbox = Self::labelled("width", test).without_cache();
        sandbox.write_mcp_json(&json!({ NAME: sandbox.fixture("fx", |server| server) }));
        sandbox
    }

    /// Runs the binary with stdout on a pseudo-terminal `columns` wide (stderr apart, where the
    /// progress line goes), `COLUMNS` set to `env_columns` or unset (as the sandbox leaves it); what the terminal showed,
    /// its `\r\n` line ends back to `\n`.
    fn on_terminal(&self, args: &[&str], columns: u16, env_columns: Option<&str>) -> String {
        let mut command = self.command(args);
        if let Some(value) = env_columns {
            command.env("COLUMNS", value);
        }
        let (code, bytes) = run_on_terminal(command, OnTerminal::Stdout, columns);
        self.assert_no_server_left(&format!("{args:?}"));
        let text = String::from_utf8_lossy(&bytes).replace("\r\n", "\n");
        assert_eq!(code, Some(0), "{args:?}:\n{text}");
        text
    }

    /// The project's `.mcp.json` as `list` shows it.
    fn source(&self) -> String {
        self.mcp_json().display().to_string()
    }
}

/// Fails the test unless every line of `list` fits `width` and the server's row keeps its name
/// and status whole, its source cut with `…` and still ending in the file's name.
fn assert_fits(list: &str, width: usize) {
    for line in list.lines() {
        assert!(
            line.chars().count() <= width,
            "a line of {} characters on a terminal {width} wide: {line:?}\n{list}",
            line.chars().count()
        );
    }
    let mut lines = list.lines();
    let header = lines.next().unwrap();
    assert_eq!(
        header.split_whitespace().collect::<Vec<_>>(),
        ["NAME", "STATUS", "TRANSPORT", "TOOLS", "SOURCE"],
        "{list}"
    );
    let row = lines.next().unwrap();
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells[..3], [NAME, "connected", "stdio"], "{list}");
    assert!(row.contains('…'), "the source is not cut: {row:?}");
    assert!(row.ends_with("/.mcp.json"), "the file name is cut: {row:?}");
}

#[test]
fn list_on_a_terminal_cuts_the_source_to_columns_and_keeps_name_and_status_whole() {
    let sandbox = Sandbox::new("columns");
    // The terminal says 200, COLUMNS says 60: COLUMNS wins, as it does for `ls`.
    let list = sandbox.on_terminal(&["list"], 200, Some("60"));
    assert_fits(&list, 60);
    assert!(!list.contains(&sandbox.source()), "{list}");
}

#[test]
fn list_on_a_terminal_without_columns_fits_the_terminal_width() {
    let sandbox = Sandbox::new("winsize");
    let list = sandbox.on_terminal(&["list"], 60, None);
    assert_fits(&list, 60);
}

#[test]
fn list_in_a_pipe_or_as_json_is_never_cut() {
    let sandbox = Sandbox::new("pipe");
    let mut command = sandbox.command(&["list"]);
    command.env("COLUMNS", "60");
    let piped = cli_support::run_to_end(command, None);
    sandbox.assert_no_server_left("list in a pipe");
    piped.assert_code(0);
    assert!(piped.stdout.contains(&sandbox.source()), "{}", piped.stdout);
    assert!(!piped.stdout.contains('…'), "{}", piped.stdout);

    let json = sandbox.on_terminal(&["list", "--json"], 200, Some("60"));
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let source = &server(&json, NAME)["source"]["path"];
    assert_eq!(source.as_str(), Some(sandbox.source().as_str()), "{json}");
}

/// A project whose one server lists tools and resources with long names, URIs and
/// descriptions.
fn wide_sandbox(test: &str) -> Sandbox {
    let sandbox = Sandbox::labelled("width", test).without_cache();
    let description = format!("Does something useful {}", "with many words ".repeat(12));
    sandbox.write_mcp_json(&json!({
        "catalogue_server": sandbox.fixture("catalogue", |server| server
            .tool("a_rather_long_tool_name_for_width", &description)
            .resources()),
    }));
    sandbox
}

#[test]
fn tools_and_resources_fit_80_columns_on_a_terminal_and_are_whole_in_a_pipe() {
    let sandbox = wide_sandbox("tools-resources");
    for args in [&["tools"][..], &["resources"]] {
        let shown = sandbox.on_terminal(args, 80, None);
        for line in shown.lines() {
            assert!(
                line.chars().count() <= 80,
                "{args:?}: a line of {} characters on 80 columns: {line:?}\n{shown}",
                line.chars().count()
            );
        }
        assert!(
            shown.contains('…'),
            "{args:?}: nothing was cut to fit:\n{shown}"
        );
    }
    let tools = sandbox.on_terminal(&["tools"], 80, None);
    let header: Vec<&str> = tools.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(
        header,
        ["SERVER", "TOOL", "STATE", "DESCRIPTION"],
        "{tools}"
    );
    // In a pipe, every column and the whole description.
    let piped = sandbox.run(&["tools"]);
    piped.assert_code(0);
    assert!(piped.stdout.starts_with("NAME"), "{}", piped.stdout);
    assert!(
        piped
            .stdout
            .contains(&"with many words ".repeat(12).trim_end().to_owned()),
        "{}",
        piped.stdout
    );
    assert!(!piped.stdout.contains('…'), "{}", piped.stdout);
}
