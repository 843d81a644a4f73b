//! The tasks tool calls became (the Tasks extension) on the command line.
//!
//! - `call` follows a task to its end like any call: its changes of status show on the progress
//!   line, Ctrl-C cancels it on the server (`tasks/cancel`), and `--json` names it (`"task"`).
//!   While it runs, its id is kept in the CLI's ledger, so a call cut short (a killed terminal,
//!   a crash) leaves a task that can still be found.
//! - `tasks [--server S]`: the ledger's tasks, each with its status now, asked of its server.
//!   The 2026 form of the extension has no `tasks/list`: the ledger is how a task is found
//!   again. A task seen ended (here, or by `task`, `cancel` or the call itself) is forgotten.
//! - `task SERVER ID`: one task's status, and its result once it has ended; any task id the
//!   server knows, started here or elsewhere.
//! - `cancel SERVER ID`: asks the server to cancel the task, then shows its status.
//!
//! The ledger is `tasks.json` in the CLI's state folder (`$XDG_STATE_HOME/<app>/`, else
//! `~/.local/state/<app>/`): a private file, rewritten whole under a lock so that two CLIs at
//! once lose nothing. What it holds is only ids this user's CLI was given; a file that cannot
//! be read is left as it is and said, never overwritten.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use agent_session::commands::Interface;
use agent_session::render::{Column, table};
use mcp_config::source::UserDir;
use mcp_manager::{ManagerError, McpManager};
use mcp_transport::{CallToolResult, Task};
use serde_json::{Value, json};

use super::complain;
use super::failure::Kind;
use super::outcome::Outcome;

/// The ledger's file name in the state folder.
const LEDGER_FILE: &str = "tasks.json";
/// How long a CLI waits for another one holding the ledger.
const LEDGER_LOCK_WAIT: Duration = Duration::from_secs(5);
/// The longest task id (and server name) the ledger keeps.
const MAX_TASK_ID_BYTES: usize = 1024;
/// The most bytes of ledger read: it holds ids, not results.
const MAX_LEDGER_BYTES: u64 = 4 * 1024 * 1024;

/// The app whose state folder holds the ledger (`--app`), set once at start.
static APP: OnceLock<String> = OnceLock::new();

/// Names the app whose state folder holds the ledger.
pub(crate) fn set_app(app: &str) {
    let _ = APP.set(app.to_owned());
}

/// One task the CLI started and has not seen end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Kept {
    pub(crate) server: String,
    pub(crate) task_id: String,
    /// The tool whose call became the task, as the model names it.
    pub(crate) tool: String,
    /// Seconds since the Unix epoch.
    pub(crate) started: u64,
}

impl Kept {
    fn to_json(&self) -> Value {
        json!({
            "server": self.server,
            "taskId": self.task_id,
            "tool": self.tool,
            "started": self.started,
        })
    }

    /// An entry as written; `None` for one without a server or an id (which is left out).
    fn from_json(entry: &Value) -> Option<Self> {
        let text = |key: &str| entry.get(key).and_then(Value::as_str).map(str::to_owned);
        Some(Self {
            server: text("server")?,
            task_id: text("taskId")?,
            tool: text("tool").unwrap_or_default(),
            started: entry.get("started").and_then(Value::as_u64).unwrap_or(0),
        })
    }
}

/// The ledger's contents: `{"tasks": [{"server", "taskId", "tool", "started"}, …]}`.
#[derive(Debug, Default)]
struct LedgerFile {
    tasks: Vec<Kept>,
}

impl LedgerFile {
    fn parse(bytes: &[u8]) -> Result<Self, serde_json::Error> {
        let file: Value = serde_json::from_slice(bytes)?;
        let tasks = file
            .get("tasks")
            .and_then(Value::as_array)
            .map(|tasks| tasks.iter().filter_map(Kept::from_json).collect())
            .unwrap_or_default();
        Ok(Self { tasks })
    }

    fn to_bytes(&self) -> Vec<u8> {
        let tasks: Vec<Value> = self.tasks.iter().map(Kept::to_json).collect();
        let mut bytes = serde_json::to_vec_pretty(&json!({ "tasks": tasks })).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }
}

/// The ledger of the tasks this user's CLI started (see the module documentation).
#[derive(Debug, Clone)]
pub(crate) struct Ledger {
    path: Option<PathBuf>,
}

impl Ledger {
    /// The ledger of the app set by [`set_app`] (the default app's without one), or one that
    /// keeps nothing when there is no state folder (no `HOME`).
    pub(crate) fn of_this_cli() -> Self {
        let app = APP.get().map_or(super::args::DEFAULT_APP, String::as_str);
        let path = UserDir::State
            .find(|var| std::env::var_os(var))
            .map(|state| state.join(app).join(LEDGER_FILE));
        Self { path }
    }

    /// The tasks kept, oldest first; an unreadable ledger is said and read as empty.
    pub(crate) fn kept(&self) -> Vec<Kept> {
        match self.read() {
            Ok(file) => file.tasks,
            Err(message) => {
                complain(&format!("warning: {message}"));
                Vec::new()
            }
        }
    }

    /// Keeps `task` (once). An id longer than [`MAX_TASK_ID_BYTES`] is not kept (said): a
    /// server's ids are handles, and one that size would only bloat the ledger.
    pub(crate) fn keep(&self, task: Kept) {
        if task.task_id.len() > MAX_TASK_ID_BYTES || task.server.len() > MAX_TASK_ID_BYTES {
            complain(&format!(
                "warning: the task of {} has an id of {} bytes; it is not kept in the ledger",
                task.server,
                task.task_id.len()
            ));
            return;
        }
        self.change(|tasks| {
            if !tasks
                .iter()
                .any(|kept| kept.server == task.server && kept.task_id == task.task_id)
            {
                tasks.push(task);
            }
        });
    }

    /// Forgets the task `task_id` of `server`.
    pub(crate) fn forget(&self, server: &str, task_id: &str) {
        self.change(|tasks| {
            tasks.retain(|kept| !(kept.server == server && kept.task_id == task_id));
        });
    }

    fn read(&self) -> Result<LedgerFile, String> {
        use std::io::Read as _;
        let Some(path) = &self.path else {
            return Ok(LedgerFile::default());
        };
        let file = match std::fs::File::open(path) {
            Ok(file) => file,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(LedgerFile::default());
            }
            Err(error) => return Err(format!("cannot read {}: {error}", path.display())),
        };
        let mut bytes = Vec::new();
        file.take(MAX_LEDGER_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
        if bytes.len() as u64 > MAX_LEDGER_BYTES {
            return Err(format!(
                "{} is over {MAX_LEDGER_BYTES} bytes; it is not read",
                path.display()
            ));
        }
        LedgerFile::parse(&bytes).map_err(|error| {
            format!(
                "{} cannot be read ({error}); it is left as it is: remove it to start a new one",
                path.display()
            )
        })
    }

    /// Reads, changes and writes the ledger under its lock; a failure is said, and the call or
    /// command it serves goes on.
    fn change(&self, edit: impl FnOnce(&mut Vec<Kept>)) {
        let Some(path) = &self.path else {
            return;
        };
        let changed = (|| {
            if let Some(folder) = path.parent() {
                mcp_private_files::create_private_dirs(folder)
                    .map_err(|error| format!("cannot make {}: {error}", folder.display()))?;
            }
            let _lock = mcp_private_files::FileLock::acquire(path, LEDGER_LOCK_WAIT)
                .map_err(|error| format!("cannot lock {}: {error}", path.display()))?;
            let mut file = self.read()?;
            edit(&mut file.tasks);
            mcp_private_files::write_atomically(path, &file.to_bytes())
                .map_err(|error| format!("cannot write {}: {error}", path.display()))
        })();
        if let Err(message) = changed {
            complain(&format!("warning: the task ledger: {message}"));
        }
    }
}

/// Seconds since the Unix epoch, now.
pub(crate) fn now_seconds() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

/// `tasks [--server S]`: the kept tasks with their status now.
pub(crate) async fn tasks_command(
    manager: &McpManager,
    server: Option<&str>,
    interface: Interface,
) -> Outcome {
    let ledger = Ledger::of_this_cli();
    let kept: Vec<Kept> = ledger
        .kept()
        .into_iter()
        .filter(|kept| server.is_none_or(|server| kept.server == server))
        .collect();
    let mut rows = Vec::new();
    let mut listed = Vec::new();
    let mut problems = Vec::new();
    for kept in kept {
        let (status, message, ended) = match manager.get_task(&kept.server, &kept.task_id).await {
            Ok(task) => {
                let ended = task.status.is_terminal();
                (task.status.to_string(), task.status_message.clone(), ended)
            }
            Err(error) => {
                // The server answered about this id: it no longer has the task.
                let gone = error
                    .client_error()
                    .and_then(mcp_transport::Error::rpc_error)
                    .is_some_and(|error| matches!(error, mcp_transport::RpcError::Server(_)));
                if !gone {
                    problems.push(error.to_string());
                }
                ("unknown".to_owned(), Some(error.to_string()), gone)
            }
        };
        if ended {
            ledger.forget(&kept.server, &kept.task_id);
        }
        rows.push(vec![
            kept.server.clone(),
            kept.task_id.clone(),
            kept.tool.clone(),
            status.clone(),
            message.clone().unwrap_or_default(),
        ]);
        listed.push(json!({
            "server": kept.server,
            "taskId": kept.task_id,
            "tool": kept.tool,
            "started": kept.started,
            "status": status,
            "statusMessage": message,
            "forgotten": ended,
        }));
    }
    let text = if rows.is_empty() {
        format!(
            "No task is waiting: a call the server runs as a task is kept here until it is seen \
             to end ({} shows one by id).",
            interface.command("task SERVER ID")
        )
    } else {
        let table = table(
            &[
                Column::left("SERVER"),
                Column::left("TASK"),
                Column::left("TOOL"),
                Column::left("STATUS"),
                Column::left("MESSAGE").shrinking(),
            ],
            &rows,
        );
        format!(
            "{table}\nEnded tasks are forgotten once shown; {} shows a task's result.",
            interface.command("task SERVER ID")
        )
    };
    Outcome::partial(text, json!({"tasks": listed}), problems)
}

/// `task SERVER ID`: the task's status, and its result once it has ended.
pub(crate) async fn task_command(
    manager: &McpManager,
    server: &str,
    task_id: &str,
    interface: Interface,
) -> Outcome {
    let task = match manager.get_task(server, task_id).await {
        Ok(task) => task,
        Err(error) => return failed(&error, server, interface),
    };
    let mut json = task_json(server, &task);
    let mut text = status_line(server, &task);
    if !task.status.is_terminal() {
        return Outcome::ok(text, json);
    }
    let ended = manager.task_result(server, task_id).await;
    Ledger::of_this_cli().forget(server, task_id);
    match ended {
        Ok(Some(result)) => {
            let output = mcp_bridge::convert::convert_result(&result, server, task_id);
            text.push('\n');
            text.push_str(&output.to_text());
            json["result"] = result_json(&result);
            if result.is_error {
                Outcome::failing(text, json)
            } else {
                Outcome::ok(text, json)
            }
        }
        Ok(None) => Outcome::ok(text, json),
        Err(error) => {
            json["error"] = Value::String(error.to_string());
            Outcome::failing(format!("{text}\n{error}"), json)
        }
    }
}

/// `cancel SERVER ID`: asks the server to cancel the task, then shows its status.
pub(crate) async fn cancel_command(
    manager: &McpManager,
    server: &str,
    task_id: &str,
    interface: Interface,
) -> Outcome {
    if let Err(error) = manager.cancel_task(server, task_id).await {
        return failed(&error, server, interface);
    }
    Ledger::of_this_cli().forget(server, task_id);
    let asked = format!("Asked {server} to cancel task {task_id}.");
    match manager.get_task(server, task_id).await {
        Ok(task) => {
            let mut json = task_json(server, &task);
            json["cancelRequested"] = Value::Bool(true);
            Outcome::ok(format!("{asked}\n{}", status_line(server, &task)), json)
        }
        // Some servers forget a cancelled task at once.
        Err(_) => Outcome::ok(
            asked,
            json!({"server": server, "taskId": task_id, "cancelRequested": true}),
        ),
    }
}

/// `task abc of github: working (step 2 of 3)`.
fn status_line(server: &str, task: &Task) -> String {
    let message = task
        .status_message
        .as_deref()
        .map(|message| format!(" ({message})"))
        .unwrap_or_default();
    format!(
        "task {} of {server}: {}{message}",
        task.task_id, task.status
    )
}

fn task_json(server: &str, task: &Task) -> Value {
    json!({
        "server": server,
        "taskId": task.task_id,
        "status": task.status,
        "statusMessage": task.status_message,
        "createdAt": task.created_at,
        "lastUpdatedAt": task.last_updated_at,
        "ended": task.status.is_terminal(),
    })
}

fn result_json(result: &CallToolResult) -> Value {
    json!({
        "is_error": result.is_error,
        "content": result.content,
        "structured_content": result.structured_content,
    })
}

/// A task command that could not ask the server: its error, with where to look next.
fn failed(error: &mcp_manager::ServerError, server: &str, interface: Interface) -> Outcome {
    if matches!(**error, ManagerError::NotOffered { .. }) {
        return Outcome::failed(Kind::Server, error.to_string());
    }
    Outcome::failed(
        Kind::Server,
        format!(
            "{error}; {} lists the tasks this CLI started",
            interface.command_on("tasks --server", server)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ledger_in(label: &str) -> (Ledger, PathBuf) {
        let dir = std::env::temp_dir().join(format!(
            "agent-session-ledger-{label}-{}-{}",
            std::process::id(),
            now_seconds()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("state").join(LEDGER_FILE);
        (Ledger { path: Some(path) }, dir)
    }

    fn kept(server: &str, task_id: &str) -> Kept {
        Kept {
            server: server.to_owned(),
            task_id: task_id.to_owned(),
            tool: "mcp_a_b".to_owned(),
            started: 1,
        }
    }

    #[test]
    fn a_task_is_kept_once_and_forgotten_by_server_and_id() {
        let (ledger, dir) = ledger_in("keep");
        assert_eq!(ledger.kept(), Vec::new());
        ledger.keep(kept("a", "1"));
        ledger.keep(kept("a", "1"));
        ledger.keep(kept("b", "1"));
        assert_eq!(ledger.kept(), [kept("a", "1"), kept("b", "1")]);
        ledger.forget("b", "1");
        assert_eq!(ledger.kept(), [kept("a", "1")]);
        let path = ledger.path.unwrap();
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(&path).unwrap().permissions(),
        );
        assert_eq!(mode & 0o777, 0o600);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn an_unreadable_ledger_is_left_as_it_is() {
        let (ledger, dir) = ledger_in("unreadable");
        let path = ledger.path.clone().unwrap();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "not json").unwrap();
        assert_eq!(ledger.kept(), Vec::new());
        ledger.keep(kept("a", "1"));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "not json");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn an_id_too_long_to_be_a_handle_is_not_kept() {
        let (ledger, dir) = ledger_in("long");
        ledger.keep(kept("a", &"x".repeat(MAX_TASK_ID_BYTES + 1)));
        assert_eq!(ledger.kept(), Vec::new());
        let _ = std::fs::remove_dir_all(dir);
    }
}
