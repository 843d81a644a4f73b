//! The `agent-session` CLI: see, test and call the MCP servers your agents use.
//!
//! `agent-session list`, `tools`, `call TOOL [ARGS_JSON]`, `shell` and `demo`; `agent-session
//! help` prints the usage. Every command disconnects all servers before it exits.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
