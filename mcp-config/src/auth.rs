//! Connect-time resolution of `!command` values and OAuth tokens.
//!
//! Discovery leaves two kinds of values for the moment a connection is made, because they are
//! secrets that should be fetched as late as possible and never kept in the manager's view of the
//! configuration: [`resolve_auth_config`] turns a [`ServerConfig`] into the
//! [`ResolvedServerConfig`] a transport is built from.
//!
//! ## `!command` values
//!
//! An `env` value (stdio servers) or a `headers` value (http and sse servers) of the form
//! `!command` — a leading `!`, the rest a shell command — is replaced by the trimmed standard
//! output of `sh -c <command>`:
//!
//! - stdin is `/dev/null`; the command inherits this process's environment and working directory;
//! - it must exit with status 0 and print something other than whitespace, within 10 seconds
//!   ([`DEFAULT_COMMAND_TIMEOUT`], configurable through [`AuthOptions`]). The command runs in its
//!   own process group and the whole group is killed when it times out (or when the resolution
//!   is cancelled), so `sleep`s and pipelines it started do not linger;
//! - otherwise the server gets an [`AuthError::Command`] naming the field (`env.GITHUB_TOKEN`,
//!   `headers.Authorization`) and the reason ([`CommandFailure`]: exit status with the last lines
//!   of the command's stderr, empty output, timeout, could not start). Neither the command's
//!   output nor the command line itself appears in the message: the command line may embed a
//!   secret too.
//!
//! Only the fields the transport uses are resolved: `env` for stdio, `headers` for http and sse.
//! A `!command` in the other map is never run, and that map is left out of the result.
//!
//! Outputs are cached for the life of the process, keyed by the command string, in an
//! [`AuthResolver`] ([`AuthResolver::global`] for the free functions). Identical commands that
//! run at the same time — two servers sharing `!op read op://…`, say — share one run and its
//! outcome. Failures are not cached: the next resolution runs the command again, so a user who
//! fixed the problem (unlocked a password manager, logged in) only has to reconnect.
//!
//! ## OAuth
//!
//! The embedding agent's credential store is an [`AuthStorage`]. When a server's `auth` is OAuth
//! ([`AuthConfig::is_oauth`](crate::AuthConfig::is_oauth)) the store must hold an access token
//! for it — no store or no token is an [`AuthError::LoginRequired`] telling the user to log in.
//! When `auth` is not set, a token from the store is used if there is one. A server with another
//! kind of `auth` never gets a stored token.
//!
//! The token is sent as `Authorization: Bearer <token>` to http and sse servers, and as the
//! `OAUTH_ACCESS_TOKEN` environment variable ([`OAUTH_ACCESS_TOKEN_ENV`]) to stdio servers.
//! A credential the configuration sets itself wins: an explicit `Authorization` header (any
//! case) or an explicit `OAUTH_ACCESS_TOKEN` env entry is kept, and then the store is not asked
//! (so an OAuth server with an explicit credential needs no login).
//!
//! ## Secrets stay out of sight
//!
//! [`ResolvedServerConfig`]'s `Debug` shows env and header keys only, and hides URL query
//! values and userinfo; log lines name the server and field, never a value; error messages
//! never contain an output or a token. The resolved values are only reachable through
//! [`ResolvedServerConfig::env`] and [`ResolvedServerConfig::headers`], meant for building the
//! transport.
//!
//! ```no_run
//! use mcp_config::{AuthStorage, ServerConfig, resolve_auth_config};
//!
//! # async fn connect(config: &ServerConfig, storage: &dyn AuthStorage) {
//! match resolve_auth_config("github", config, Some(storage)).await {
//!     Ok(resolved) => {
//!         // Build the transport from resolved.command() / resolved.env() or
//!         // resolved.url() / resolved.headers(), then drop `resolved`.
//!         println!("connecting to {resolved:?}"); // values redacted
//!     }
//!     Err(error) => eprintln!("{error}"), // names the server and field, never the value
//! }
//! # }
//! ```

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::process::Stdio;
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;
use tokio::sync::OnceCell;

use crate::server_config::{REDACTED, ServerConfig, TransportKind, redact_url_secrets};

/// How long a `!command` may run before it is killed, unless [`AuthOptions`] say otherwise.
pub const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

/// The environment variable that carries an OAuth access token to a stdio server.
pub const OAUTH_ACCESS_TOKEN_ENV: &str = "OAUTH_ACCESS_TOKEN";

/// The header that carries an OAuth access token to an http or sse server.
const AUTHORIZATION: &str = "Authorization";

/// A `!command` printing more than this on stdout fails (a secret is never that long).
const STDOUT_LIMIT: usize = 1024 * 1024;

/// How much of the end of a failed command's stderr is kept.
const STDERR_KEEP: usize = 8 * 1024;

/// How many stderr lines an error message shows, and how long each may be.
const STDERR_LINES: usize = 5;
const STDERR_LINE_CHARS: usize = 200;

/// The embedding agent's credential store.
///
/// The runtime only reads from it; logging in, refreshing and saving tokens are the agent's
/// business. Implementations must be cheap to call: it is asked once per connection.
#[async_trait]
pub trait AuthStorage: Send + Sync {
    /// The OAuth access token for the server named `server`, if the user logged in to it.
    /// An empty (or whitespace-only) token counts as none.
    async fn access_token(&self, server: &str) -> Option<String>;
}

/// Settings of a resolution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuthOptions {
    /// How long a `!command` may run before its process group is killed
    /// ([`DEFAULT_COMMAND_TIMEOUT`] by default).
    pub command_timeout: Duration,
}

impl Default for AuthOptions {
    fn default() -> Self {
        Self {
            command_timeout: DEFAULT_COMMAND_TIMEOUT,
        }
    }
}

impl AuthOptions {
    /// These options with another `!command` timeout.
    #[must_use]
    pub const fn with_command_timeout(mut self, timeout: Duration) -> Self {
        self.command_timeout = timeout;
        self
    }
}

/// Why a `!command` gave no value. The message never contains the command's output.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CommandFailure {
    /// Nothing follows the `!`.
    #[error("is empty (nothing follows the \"!\")")]
    EmptyCommand,
    /// `sh` could not be started.
    #[error("could not start: {0}")]
    Spawn(String),
    /// The command exited with a non-zero status or was killed by a signal.
    #[error("failed ({status}){}", stderr_suffix(.stderr))]
    Exit {
        /// The status as the OS reports it, e.g. `exit status: 1` or `signal: 9 (SIGKILL)`.
        status: String,
        /// The last lines of its stderr (at most a few, each shortened), possibly empty.
        stderr: String,
    },
    /// The command succeeded but printed nothing but whitespace.
    #[error("printed nothing (exit status 0 but empty output){}", stderr_suffix(.stderr))]
    EmptyOutput {
        /// The last lines of its stderr, possibly empty.
        stderr: String,
    },
    /// The command ran longer than the timeout; its process group was killed.
    #[error("timed out after {}", format_duration(*.0))]
    TimedOut(Duration),
    /// The output could not be used (not UTF-8, too large) or not be read.
    #[error("{0}")]
    BadOutput(String),
}

fn stderr_suffix(stderr: &str) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!("; stderr: {stderr}")
    }
}

fn format_duration(duration: Duration) -> String {
    if duration.subsec_nanos() == 0 {
        format!("{}s", duration.as_secs())
    } else {
        format!("{}ms", duration.as_millis())
    }
}

/// A server could not be given its credentials. Messages name the server and the field, never a
/// value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// A `!command` value could not be resolved.
    #[error("Server \"{server}\": {field}: !command {failure}")]
    Command {
        /// The server.
        server: String,
        /// The field, e.g. `env.GITHUB_TOKEN` or `headers.Authorization`.
        field: String,
        /// What went wrong.
        failure: CommandFailure,
    },
    /// The server uses OAuth and the agent's auth storage has no access token for it (or the
    /// agent gave no storage).
    #[error(
        "Server \"{server}\" uses OAuth and there is no access token for it: log in to \"{server}\" first"
    )]
    LoginRequired {
        /// The server.
        server: String,
    },
}

impl AuthError {
    /// The server the error is about.
    pub fn server(&self) -> &str {
        match self {
            Self::Command { server, .. } | Self::LoginRequired { server } => server,
        }
    }
}

/// What a connection is made with: a server's configuration with every `!command` value
/// replaced by its output and the OAuth token applied.
///
/// **Holds secrets.** [`env`](Self::env) and [`headers`](Self::headers) return the real values,
/// to build the transport with; do not log, display or store them. `Debug` shows their keys
/// only. Only the fields of the server's transport are filled: command, args, env and cwd for
/// stdio; url and headers for http and sse.
#[derive(Clone, PartialEq, Eq)]
pub struct ResolvedServerConfig {
    name: String,
    transport: TransportKind,
    command: Option<String>,
    args: Vec<String>,
    env: BTreeMap<String, String>,
    cwd: Option<String>,
    url: Option<String>,
    headers: BTreeMap<String, String>,
    timeout_ms: u64,
}

impl ResolvedServerConfig {
    /// The server's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How to talk to the server.
    pub fn transport(&self) -> TransportKind {
        self.transport
    }

    /// The program of a stdio server (`None` for http and sse).
    pub fn command(&self) -> Option<&str> {
        self.command.as_deref()
    }

    /// The arguments of a stdio server.
    pub fn args(&self) -> &[String] {
        &self.args
    }

    /// **Secret values.** The variables to add to a stdio server's inherited environment,
    /// resolved, with `OAUTH_ACCESS_TOKEN` when OAuth applies. Empty for http and sse.
    pub fn env(&self) -> &BTreeMap<String, String> {
        &self.env
    }

    /// The working directory of a stdio server.
    pub fn cwd(&self) -> Option<&str> {
        self.cwd.as_deref()
    }

    /// The endpoint of an http or sse server (`None` for stdio). May hold an API key in its
    /// query; `Debug` hides it.
    pub fn url(&self) -> Option<&str> {
        self.url.as_deref()
    }

    /// **Secret values.** The headers to send to an http or sse server, resolved, with
    /// `Authorization: Bearer …` when OAuth applies. Empty for stdio.
    pub fn headers(&self) -> &BTreeMap<String, String> {
        &self.headers
    }

    /// The connect timeout in milliseconds.
    pub fn timeout_ms(&self) -> u64 {
        self.timeout_ms
    }

    /// The connect timeout.
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }
}

/// Keys shown, values replaced by [`REDACTED`].
struct RedactedMap<'a>(&'a BTreeMap<String, String>);

impl fmt::Debug for RedactedMap<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.0.keys().map(|key| (key, REDACTED)))
            .finish()
    }
}

impl fmt::Debug for ResolvedServerConfig {
    /// Env and header values are secrets: only their keys are shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResolvedServerConfig")
            .field("name", &self.name)
            .field("transport", &self.transport)
            .field("command", &self.command)
            .field("args", &self.args)
            .field("env", &RedactedMap(&self.env))
            .field("cwd", &self.cwd)
            .field("url", &self.url.as_deref().map(redact_url_secrets))
            .field("headers", &RedactedMap(&self.headers))
            .field("timeout_ms", &self.timeout_ms)
            .finish()
    }
}

/// One command's outcome, shared by everyone who asked for it while it ran.
type Slot = Arc<OnceCell<Result<String, CommandFailure>>>;

/// Runs `!command` values and caches their outputs (successes only), keyed by the command string.
///
/// [`resolve_auth_config`] and [`resolve_auth_config_with`] use [`AuthResolver::global`], one
/// cache for the whole process. Tests (or an agent that wants separate caches) can make their
/// own with [`AuthResolver::new`], or empty one with [`AuthResolver::clear_cache`].
pub struct AuthResolver {
    cache: Mutex<HashMap<String, Slot>>,
}

impl Default for AuthResolver {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for AuthResolver {
    /// Shows how many commands are cached; never a command or its output.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthResolver")
            .field("cached_commands", &self.lock().len())
            .finish()
    }
}

static GLOBAL: LazyLock<AuthResolver> = LazyLock::new(AuthResolver::new);

impl AuthResolver {
    /// A resolver with an empty cache.
    pub fn new() -> Self {
        Self {
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The process-wide resolver used by [`resolve_auth_config`].
    pub fn global() -> &'static Self {
        &GLOBAL
    }

    /// Forgets every cached output; the next resolutions run their commands again. Runs in
    /// progress finish and still give their outcome to whoever waits for them.
    pub fn clear_cache(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Slot>> {
        // The map is consistent after every operation on it, so a panic elsewhere while the
        // lock was held leaves nothing to repair.
        self.cache.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Resolves one server's configuration with this resolver's cache: see the [module
    /// documentation](self).
    pub async fn resolve(
        &self,
        name: &str,
        config: &ServerConfig,
        storage: Option<&dyn AuthStorage>,
        options: &AuthOptions,
    ) -> Result<ResolvedServerConfig, AuthError> {
        let transport = config.transport_kind();
        let remote = matches!(transport, TransportKind::Http | TransportKind::Sse);
        let (prefix, mut values) = if remote {
            ("headers", config.headers.clone())
        } else {
            ("env", config.env.clone())
        };
        let explicit_credential = if remote {
            values
                .keys()
                .any(|key| key.eq_ignore_ascii_case(AUTHORIZATION))
        } else {
            values.contains_key(OAUTH_ACCESS_TOKEN_ENV)
        };

        // Before any command runs, so a missing login is reported at once.
        let token = if explicit_credential {
            None
        } else {
            oauth_token(name, config, storage).await?
        };

        for (key, value) in &mut values {
            let Some(command) = value.strip_prefix('!') else {
                continue;
            };
            let output = self
                .command_output(name, prefix, key, command, options.command_timeout)
                .await
                .map_err(|failure| AuthError::Command {
                    server: name.to_owned(),
                    field: format!("{prefix}.{key}"),
                    failure,
                })?;
            *value = output;
        }

        if let Some(token) = token {
            tracing::debug!(
                server = name,
                "using the OAuth access token from auth storage"
            );
            if remote {
                values.insert(AUTHORIZATION.to_owned(), format!("Bearer {token}"));
            } else {
                values.insert(OAUTH_ACCESS_TOKEN_ENV.to_owned(), token);
            }
        }

        let (env, headers, command, args, cwd, url) = if remote {
            (
                BTreeMap::new(),
                values,
                None,
                Vec::new(),
                None,
                config.url.clone(),
            )
        } else {
            (
                values,
                BTreeMap::new(),
                config.command.clone(),
                config.args.clone(),
                config.cwd.clone(),
                None,
            )
        };
        Ok(ResolvedServerConfig {
            name: name.to_owned(),
            transport,
            command,
            args,
            env,
            cwd,
            url,
            headers,
            timeout_ms: config.timeout_ms(),
        })
    }

    /// The output of `command`: cached, shared with an identical run in progress, or a new run.
    async fn command_output(
        &self,
        server: &str,
        prefix: &str,
        key: &str,
        command: &str,
        timeout: Duration,
    ) -> Result<String, CommandFailure> {
        let slot = Arc::clone(self.lock().entry(command.to_owned()).or_default());
        if slot.initialized() {
            tracing::trace!(server, field = %format_args!("{prefix}.{key}"), "!command output from cache");
        }
        let outcome = slot
            .get_or_init(|| async {
                tracing::debug!(server, field = %format_args!("{prefix}.{key}"), "running !command");
                run_command(command, timeout).await
            })
            .await;
        match outcome {
            Ok(output) => Ok(output.clone()),
            Err(failure) => {
                tracing::debug!(
                    server,
                    field = %format_args!("{prefix}.{key}"),
                    reason = %failure,
                    "!command failed"
                );
                // Not cached: drop the slot, unless someone already replaced it with a new run.
                let mut cache = self.lock();
                if cache
                    .get(command)
                    .is_some_and(|current| Arc::ptr_eq(current, &slot))
                {
                    cache.remove(command);
                }
                Err(failure.clone())
            }
        }
    }
}

/// The token to send, or the error of an OAuth server without one.
async fn oauth_token(
    name: &str,
    config: &ServerConfig,
    storage: Option<&dyn AuthStorage>,
) -> Result<Option<String>, AuthError> {
    let required = match &config.auth {
        None => false,
        Some(auth) if auth.is_oauth() => true,
        // Another kind of authentication: the stored OAuth token is not for this server.
        Some(_) => return Ok(None),
    };
    let token = match storage {
        Some(storage) => storage.access_token(name).await,
        None => None,
    };
    let token = token
        .map(|token| token.trim().to_owned())
        .filter(|token| !token.is_empty());
    match token {
        None if required => Err(AuthError::LoginRequired {
            server: name.to_owned(),
        }),
        token => Ok(token),
    }
}

/// Kills a command's process group when dropped while armed: on timeout, and when the
/// resolution is cancelled mid-run.
struct ProcessGroup {
    pgid: Option<u32>,
}

impl ProcessGroup {
    /// Kills the group now.
    fn kill(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            kill_group(pgid);
        }
    }

    /// The command finished normally: nothing to kill.
    fn disarm(&mut self) {
        self.pgid = None;
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            // Only reached when a resolution is cancelled mid-run.
            kill_group(pgid);
        }
    }
}

/// Sends SIGKILL to every process of the group `pgid` (the command and anything it started).
#[allow(unsafe_code)]
fn kill_group(pgid: u32) {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return;
    };
    if pgid <= 1 {
        return;
    }
    // SAFETY: kill(2) takes plain integers and touches no memory of this process; a negative
    // pid addresses the process group this module created for the command.
    let _ = unsafe { libc::kill(-pgid, libc::SIGKILL) };
}

/// Runs `sh -c command` once, in its own process group, and checks its outcome.
async fn run_command(command: &str, timeout: Duration) -> Result<String, CommandFailure> {
    if command.trim().is_empty() {
        return Err(CommandFailure::EmptyCommand);
    }
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .process_group(0)
        .spawn()
        .map_err(|error| CommandFailure::Spawn(error.to_string()))?;
    // Declared after `child`, so dropped first: the group dies while `sh` is not yet reaped and
    // its process group id cannot belong to anyone else.
    let mut group = ProcessGroup { pgid: child.id() };
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();

    let finished = {
        let run =
            async { tokio::join!(read_stdout(stdout), read_stderr_tail(stderr), child.wait()) };
        tokio::time::timeout(timeout, run).await
    };
    let Ok((stdout, stderr, status)) = finished else {
        group.kill();
        // Reaps `sh` (killed with its group already).
        let _ = child.kill().await;
        return Err(CommandFailure::TimedOut(timeout));
    };
    group.disarm();

    let status = status
        .map_err(|error| CommandFailure::BadOutput(format!("could not wait for it: {error}")))?;
    let stderr = stderr_tail(&stderr);
    if !status.success() {
        return Err(CommandFailure::Exit {
            status: status.to_string(),
            stderr,
        });
    }
    let stdout = stdout
        .map_err(|error| CommandFailure::BadOutput(format!("could not read its output: {error}")))?
        .ok_or_else(|| {
            CommandFailure::BadOutput(format!("printed more than {} KiB", STDOUT_LIMIT / 1024))
        })?;
    let stdout = String::from_utf8(stdout)
        .map_err(|_| CommandFailure::BadOutput("printed output that is not UTF-8".to_owned()))?;
    let value = stdout.trim();
    if value.is_empty() {
        return Err(CommandFailure::EmptyOutput { stderr });
    }
    Ok(value.to_owned())
}

/// All of stdout, or `None` when it is longer than [`STDOUT_LIMIT`] (read to the end anyway, so
/// the command is not blocked writing).
async fn read_stdout(reader: Option<impl AsyncRead + Unpin>) -> std::io::Result<Option<Vec<u8>>> {
    let mut out = Vec::new();
    let Some(mut reader) = reader else {
        return Ok(Some(out));
    };
    let mut too_long = false;
    let mut buffer = [0_u8; 8192];
    loop {
        let read = reader.read(&mut buffer).await?;
        if read == 0 {
            break;
        }
        if too_long || out.len() + read > STDOUT_LIMIT {
            too_long = true;
            out.clear();
        } else {
            out.extend_from_slice(&buffer[..read]);
        }
    }
    Ok((!too_long).then_some(out))
}

/// The last [`STDERR_KEEP`] bytes of stderr (read errors end the reading quietly: stderr is only
/// a hint).
async fn read_stderr_tail(reader: Option<impl AsyncRead + Unpin>) -> Vec<u8> {
    let mut tail = Vec::new();
    let Some(mut reader) = reader else {
        return tail;
    };
    let mut buffer = [0_u8; 8192];
    while let Ok(read @ 1..) = reader.read(&mut buffer).await {
        tail.extend_from_slice(&buffer[..read]);
        if tail.len() > 2 * STDERR_KEEP {
            tail.drain(..tail.len() - STDERR_KEEP);
        }
    }
    tail
}

/// The last few non-blank lines of stderr, each shortened, joined with ` | `.
fn stderr_tail(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim_end)
        .filter(|line| !line.trim().is_empty())
        .collect();
    lines[lines.len().saturating_sub(STDERR_LINES)..]
        .iter()
        .map(|line| {
            if line.chars().count() > STDERR_LINE_CHARS {
                let short: String = line.chars().take(STDERR_LINE_CHARS).collect();
                format!("{short}…")
            } else {
                (*line).to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" | ")
}

/// Resolves `!command` values and OAuth credentials for one server, with a 10 s command timeout
/// and the process-wide cache: see the [module documentation](self).
///
/// `name` is the server's name (used to ask `storage` for its token and in errors); `storage`
/// is the agent's credential store, if it has one.
pub async fn resolve_auth_config(
    name: &str,
    config: &ServerConfig,
    storage: Option<&dyn AuthStorage>,
) -> Result<ResolvedServerConfig, AuthError> {
    resolve_auth_config_with(name, config, storage, &AuthOptions::default()).await
}

/// [`resolve_auth_config`] with explicit [`AuthOptions`] (e.g. another command timeout), still
/// with the process-wide cache ([`AuthResolver::global`]).
pub async fn resolve_auth_config_with(
    name: &str,
    config: &ServerConfig,
    storage: Option<&dyn AuthStorage>,
    options: &AuthOptions,
) -> Result<ResolvedServerConfig, AuthError> {
    AuthResolver::global()
        .resolve(name, config, storage, options)
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_tail_keeps_the_last_lines_shortened() {
        let text = format!("1\n2\n\n3\n4\n5\n6\n{}\n", "x".repeat(300));
        let tail = stderr_tail(text.as_bytes());
        assert!(tail.starts_with("3 | 4 | 5 | 6 | xxx"), "{tail}");
        assert!(tail.ends_with("x…"), "{tail}");
        assert_eq!(stderr_tail(b"  \n"), "");
    }

    #[test]
    fn durations_are_shown_in_seconds_or_milliseconds() {
        assert_eq!(format_duration(Duration::from_secs(10)), "10s");
        assert_eq!(format_duration(Duration::from_millis(300)), "300ms");
    }

    #[test]
    fn failure_messages() {
        let exit = CommandFailure::Exit {
            status: "exit status: 2".into(),
            stderr: "no such item".into(),
        };
        assert_eq!(
            exit.to_string(),
            "failed (exit status: 2); stderr: no such item"
        );
        let error = AuthError::Command {
            server: "gh".into(),
            field: "env.TOKEN".into(),
            failure: CommandFailure::TimedOut(Duration::from_secs(10)),
        };
        assert_eq!(
            error.to_string(),
            "Server \"gh\": env.TOKEN: !command timed out after 10s"
        );
        assert_eq!(error.server(), "gh");
    }
}
