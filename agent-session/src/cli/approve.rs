//! `agent-session trust [--yes] [NAME…]` and `agent-session untrust [NAME…]`: approving this
//! folder's project servers, and withdrawing approvals, without starting any.
//!
//! Naming the servers is the consent. Bare `trust` on a terminal asks for each waiting server in
//! turn, showing first what approving it lets it do (the consent description every interface
//! shows: `describe_pending`), and approves the ones answered yes; `--yes` approves without asking, for scripts; from a pipe without `--yes`
//! it refuses and approves nothing. A server whose description cannot state what it allows is
//! shown with the reason and never approved; `trust` then exits 1.

use std::io::IsTerminal as _;

use agent_session::commands::Interface;
use agent_session::terminal_text::escape_line;
use agent_session::{
    PendingServer, SessionOptions, approve_pending, describe_pending, not_approved_text,
    pending_json, pending_project_servers, withdraw_project_servers,
};
use serde_json::{Value, json};

use super::args::Globals;
use super::{EXIT_FAILED, EXIT_OK, EXIT_USAGE, failure, manage, output, stdin};

/// The command line's options, when every one of `names` is a server the config files define;
/// else the exit status of the failure, said.
fn options_for(globals: &Globals, names: &[String]) -> Result<SessionOptions, u8> {
    let options = manage::options(globals).map_err(|message| {
        failure::report(globals.json, failure::Kind::Usage, &message);
        EXIT_USAGE
    })?;
    match manage::refuse_unknown(&options, names) {
        Some(refused) => Err(refused.emit(globals.json)),
        None => Ok(options),
    }
}

/// Runs `trust`; its exit status.
pub(crate) async fn run(globals: &Globals, names: &[String], yes: bool) -> u8 {
    let options = match options_for(globals, names) {
        Ok(options) => options,
        Err(code) => return code,
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
        return done(globals.json, text, &[], &[]);
    }
    let approvable = pending
        .iter()
        .filter(|server| server.consent.is_approvable())
        .count();
    if named.is_none() && !yes && approvable > 0 {
        let listing = describe_pending(&pending);
        if !std::io::stdin().is_terminal() {
            if !globals.json {
                output::print(&format!("waiting for approval:\n{listing}"));
            }
            let message = format!(
                "nothing approved: stdin is not a terminal, so there is no one to ask; approve \
                 what is shown with {}, or name the servers: {}",
                Interface::Cli.command("trust --yes"),
                Interface::Cli.command("trust NAME…")
            );
            if globals.json {
                // The error, with what waits (as the shell's bare `trust` gives it), so a
                // script sees what it would approve.
                let mut report = failure::error_json(failure::Kind::Usage, &message);
                report["waiting"] = pending.iter().map(pending_json).collect();
                output::print_json(&report, false);
            }
            super::complain(&message);
            return EXIT_USAGE;
        }
        // Each server asked for in turn, with what approving it lets it do.
        eprintln!("these project servers wait for approval; each is asked for in turn:");
        let mut chosen = Vec::new();
        for server in pending
            .iter()
            .filter(|server| server.consent.is_approvable())
        {
            eprintln!("{}", describe_pending(std::slice::from_ref(server)));
            let question = format!(
                "approve \"{}\" to do what is listed above? [y/N] ",
                escape_line(&server.name)
            );
            // The end of input (Ctrl-D) is "no" to this server and every one after it.
            let Some(answer) = stdin::answer(&question).await else {
                eprintln!();
                break;
            };
            if matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
                chosen.push(server.clone());
            }
        }
        if chosen.is_empty() {
            failure::report(globals.json, failure::Kind::Command, "nothing approved");
            return EXIT_FAILED;
        }
        // The ones that cannot be approved are still said, with why.
        chosen.extend(
            pending
                .iter()
                .filter(|server| !server.consent.is_approvable())
                .cloned(),
        );
        return approve(&options, globals.json, &chosen);
    }
    approve(&options, globals.json, &pending)
}

/// Runs `untrust`: withdraws the approvals of this folder's project servers (of `names` only,
/// when given) and says which; nothing is started or stopped (a running shell stops them at its
/// next `/mcp reload`). Its exit status.
pub(crate) fn withdraw(globals: &Globals, names: &[String]) -> u8 {
    let options = match options_for(globals, names) {
        Ok(options) => options,
        Err(code) => return code,
    };
    let named = (!names.is_empty()).then_some(names);
    match withdraw_project_servers(&options, named) {
        Ok(withdrawn) => {
            if globals.json {
                output::print_json(&json!({ "withdrawn": withdrawn }), false);
            } else {
                output::print(&agent_session::commands::withdrawn_text(&withdrawn));
            }
            EXIT_OK
        }
        Err(error) => {
            let message = format!("could not withdraw approvals: {error}");
            failure::report(globals.json, failure::Kind::Command, &message);
            EXIT_FAILED
        }
    }
}

/// Records the approvals of `pending` and says what was approved, and what could not be.
fn approve(options: &SessionOptions, json: bool, pending: &[PendingServer]) -> u8 {
    match approve_pending(options, pending) {
        Ok(approved) => {
            let shown: Vec<PendingServer> = pending
                .iter()
                .filter(|server| approved.contains(&server.name))
                .cloned()
                .collect();
            let refused: Vec<PendingServer> = pending
                .iter()
                .filter(|server| !server.consent.is_approvable())
                .cloned()
                .collect();
            let mut text = Vec::new();
            if !shown.is_empty() {
                text.push(format!(
                    "approved {}:\n{}",
                    approved.join(", "),
                    describe_pending(&shown)
                ));
            }
            if !refused.is_empty() {
                text.push(not_approved_text(&refused));
            }
            let code = done(json, &text.join("\n"), &shown, &refused);
            if refused.is_empty() {
                code
            } else {
                EXIT_FAILED
            }
        }
        Err(error) => {
            let message = format!("could not approve: {error}");
            failure::report(json, failure::Kind::Command, &message);
            EXIT_FAILED
        }
    }
}

/// Prints the outcome (text, or `{"approved": [...], "refused": [...]}` with `--json`, each
/// server `{"name", "source", "consent"}`); exit status 0.
fn done(json: bool, text: &str, approved: &[PendingServer], refused: &[PendingServer]) -> u8 {
    if json {
        let approved: Vec<Value> = approved.iter().map(pending_json).collect();
        let refused: Vec<Value> = refused.iter().map(pending_json).collect();
        output::print_json(&json!({ "approved": approved, "refused": refused }), false);
    } else {
        output::print(text);
    }
    EXIT_OK
}
