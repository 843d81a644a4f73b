//! The `agent-session` CLI.

fn main() {
    println!("agent-session: see `agent-session help`");
}
