//! What servers and project files write never drives the terminal: the commands run on a
//! pseudo-terminal (stdout and stderr both on it, as in a terminal emulator) against a server
//! whose tool name, description and results hold escape sequences, and a project `.mcp.json`
//! whose server name moves the cursor up, clears the line and returns the carriage to fake a
//! line of `list`. Every byte the terminal receives is checked: no ESC, BEL, bare carriage
//! return, C1 control, bidi override or zero-width character; what they were is shown as
//! `\u{1b}`. `--json` keeps the exact strings.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod cli_support;

use cli_support::{OnTerminal, Sandbox, run_on_terminal};
use serde_json::{Value, json};

/// Sets the window title (OSC 0, ended by BEL).
const TITLE: &str = "\u{1b}]0;pwned\u{7}";
/// The hostile tool's name and description: a title, a cleared screen, hidden text, a carriage
/// return and a right-to-left override.
const TOOL: &str = "\u{1b}]0;pwned\u{7}title";
const DESCRIPTION: &str = "\u{1b}[2J\u{1b}[8mhidden\r\u{202e}desc\u{200b}";
/// A project server name that rewrites the line above it.
const SERVER: &str = "evil\u{1b}[1A\u{1b}[2K\rfake";

impl Sandbox {
    /// A project with the fixture server `fx` (which has the hostile tool) and a second fixture
    /// under the hostile name, both approved.
    fn new(test: &str) -> Self {
        let sandbox = Self::labelled("escapes", test).without_cache();
        sandbox.write_mcp_json(&json!({
            "fx": sandbox.fixture("fx", |server| server.tool(TOOL, DESCRIPTION)),
            SERVER: sandbox.fixture("evil", |server| server),
        }));
        sandbox
    }

    /// Runs the binary with stdout and stderr on a pseudo-terminal (stdin empty); its exit
    /// status and every byte the terminal received.
    fn on_terminal(&self, args: &[&str], log: &str) -> (Option<i32>, Vec<u8>) {
        let mut command = self.command(args);
        command.env("RUST_LOG", log);
        let (code, bytes) = run_on_terminal(command, OnTerminal::Both, 250);
        self.assert_no_server_left(&format!("{args:?}"));
        (code, bytes)
    }
}

/// Fails the test if anything on the terminal could drive it; the text otherwise, with the
/// terminal's `\r\n` line ends back to `\n`.
fn assert_inert(args: &[&str], bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes).into_owned();
    let lines = text.replace("\r\n", "\n");
    let driving: Vec<(usize, char)> = lines
        .char_indices()
        .filter(|(_, c)| {
            matches!(c,
                '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
                | '\u{61c}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
        })
        .collect();
    assert!(
        driving.is_empty(),
        "{args:?} sent the terminal {driving:?}; everything it sent:\n{text:?}"
    );
    lines
}

#[test]
fn tools_list_get_and_call_show_escape_sequences_instead_of_sending_them() {
    let sandbox = Sandbox::new("commands");

    let args = ["tools"];
    let (code, bytes) = sandbox.on_terminal(&args, "warn");
    let tools = assert_inert(&args, &bytes);
    assert_eq!(code, Some(0), "{tools}");
    assert!(tools.contains("\\u{1b}]0;pwned\\u{7}title"), "{tools}");
    assert!(
        tools.contains("\\u{1b}[2J\\u{1b}[8mhidden\\u{d}\\u{202e}desc\\u{200b}"),
        "{tools}"
    );

    // The hostile name cannot erase the line above it: it shows on a row of its own.
    let args = ["list"];
    let (_, bytes) = sandbox.on_terminal(&args, "warn");
    let list = assert_inert(&args, &bytes);
    assert!(
        list.lines()
            .any(|line| line.starts_with("evil\\u{1b}[1A\\u{1b}[2K\\u{d}fake")),
        "{list}"
    );
    assert!(list.lines().any(|line| line.starts_with("fx ")), "{list}");

    let args = ["get", "fx"];
    let (code, bytes) = sandbox.on_terminal(&args, "warn");
    let got = assert_inert(&args, &bytes);
    assert_eq!(code, Some(0), "{got}");
    assert!(got.contains("\\u{1b}]0;pwned\\u{7}title"), "{got}");

    let args = ["get", SERVER];
    let (_, bytes) = sandbox.on_terminal(&args, "warn");
    let got = assert_inert(&args, &bytes);
    assert!(
        got.starts_with("evil\\u{1b}[1A\\u{1b}[2K\\u{d}fake:"),
        "{got}"
    );

    // A result's lines are kept; what would drive the terminal is shown.
    let message = format!("{TITLE}\u{1b}[2J\r\u{9b}31mred\nsecond\tline");
    let arguments = json!({"message": message}).to_string();
    let args = ["call", "mcp_fx_echo", arguments.as_str()];
    let (code, bytes) = sandbox.on_terminal(&args, "warn");
    let called = assert_inert(&args, &bytes);
    assert_eq!(code, Some(0), "{called}");
    assert!(
        called.contains("\\u{1b}]0;pwned\\u{7}\\u{1b}[2J\\u{d}\\u{9b}31mred\nsecond\tline"),
        "{called}"
    );
}

#[test]
fn error_messages_and_log_lines_quoting_a_server_are_escaped() {
    let sandbox = Sandbox::new("errors");

    // A server's stderr is logged (target mcp_server_stderr) with the server's span.
    let arguments = json!({"text": format!("{TITLE}\u{1b}[1A\u{1b}[2Klogged")}).to_string();
    let args = ["call", "mcp_fx_stderr", arguments.as_str()];
    let (code, bytes) = sandbox.on_terminal(&args, "warn,mcp_server_stderr=info");
    let logged = assert_inert(&args, &bytes);
    assert_eq!(code, Some(0), "{logged}");
    assert!(
        logged.contains("\\u{1b}]0;pwned\\u{7}\\u{1b}[1A\\u{1b}[2Klogged"),
        "{logged}"
    );

    // An unknown tool named with escapes: the error quotes it, escaped.
    let name = format!("{TITLE}nope");
    let args = ["call", name.as_str()];
    let (code, bytes) = sandbox.on_terminal(&args, "warn");
    let failed = assert_inert(&args, &bytes);
    assert_eq!(code, Some(2), "{failed}");
    assert!(failed.contains("\\u{1b}]0;pwned\\u{7}nope"), "{failed}");
}

#[test]
fn json_output_keeps_the_exact_strings_and_still_sends_nothing_that_drives_the_terminal() {
    let sandbox = Sandbox::new("json");
    let args = ["tools", "--json", "--server", "fx"];
    let (code, bytes) = sandbox.on_terminal(&args, "warn");
    let text = assert_inert(&args, &bytes);
    assert_eq!(code, Some(0), "{text}");
    let start = text
        .find("{\n")
        .unwrap_or_else(|| panic!("no JSON in {text:?}"));
    let report: Value = serde_json::from_str(&text[start..]).unwrap();
    let tool = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["tool"] == TOOL)
        .unwrap_or_else(|| panic!("no tool {TOOL:?} in {report}"));
    assert_eq!(tool["description"], DESCRIPTION);
}
