//! Connect-time resolution of `!command` values and OAuth tokens.
//!
//! Discovery leaves two kinds of values for the moment a connection is made, because they are
//! secrets that should be fetched as late as possible and never kept in the manager's view of the
//! configuration: [`resolve_auth_config`] turns a [`ServerConfig`] into the
//! [`ResolvedServerConfig`] a transport is built from.
//!
//! ## `!command` values
//!
//! An `env` value (stdio servers) or a `headers` value (http and sse servers) written in the
//! config as `!command` — a leading `!`, the rest a shell command — is replaced by the trimmed
//! standard output of `sh -c <command>`:
//!
//! - `!` is a property of the config text as written. A value that begins with `!` only after
//!   a `${VAR}` in it expanded is data, sent as it is, and never runs
//!   ([`ServerConfig::is_command`]); the text of a `!command` is not expanded by us either:
//!   `sh` expands a `${VAR}` in it from the environment, as data, never as shell code;
//! - stdin is `/dev/null`; the command inherits this process's environment and working directory;
//! - it must exit with status 0 and print something other than whitespace, within 10 seconds
//!   ([`DEFAULT_COMMAND_TIMEOUT`], configurable through [`AuthOptions`]). The command runs in its
//!   own process group and the whole group is killed when it times out (or when the resolution
//!   is cancelled), so `sleep`s and pipelines it started do not linger;
//! - otherwise the server gets an [`AuthError::Command`] naming the field (`env.GITHUB_TOKEN`,
//!   `headers.Authorization`) and the reason ([`CommandFailure`]: exit status with the last lines
//!   of the command's stderr, empty output, timeout, could not start). Neither the command's
//!   output nor the command line itself appears in the message: the command line may embed a
//!   secret too. The stderr lines are bounded (a few, each shortened) and scrubbed: the command
//!   line, its long words, its output and every other value of the server are shown as
//!   `<redacted>` wherever the command's stderr repeats them.
//!
//! Only the fields the transport uses are resolved: `env` for stdio, `headers` for http and sse.
//! A `!command` in the other map is never run, and that map is left out of the result.
//!
//! A remote server's `headersHelper` (Claude Code's key: a command printing a JSON object of
//! headers) is run the same way, with the same limits and errors (field `headersHelper`), after
//! the `!command` headers, but at every resolution, never cached (it mints short-lived
//! credentials); the headers it prints replace the written ones of the same name (any case),
//! and an `Authorization` from it is used instead of a stored token. Output that is not a JSON
//! object of header names to plain values, or that sets a header the connection sets itself
//! (`Host`, `Mcp-Session-Id`, …), is [`CommandFailure::NotHeaders`], without being shown. Like a `!command`, it runs only for a definition that ran
//! discovery's gate: the user's own files, or a project file whose server the user approved.
//!
//! Outputs are cached for the life of the process, keyed by the command string, in an
//! [`AuthResolver`] ([`AuthResolver::global`] for the free functions). Identical commands that
//! run at the same time — two servers sharing `!op read op://…`, say — share one run and its
//! outcome. Failures are not cached: the next resolution runs the command again, so a user who
//! fixed the problem (unlocked a password manager, logged in) only has to reconnect.
//!
//! ## OAuth
//!
//! A stored access token is looked up by the caller, in its credential store, under the key of
//! what the server *is* — a remote server's URL, the command and arguments a stdio server runs
//! — and never under its configured name: a project file that reuses the name of a server the
//! user logged in to, but points elsewhere, does not get its token. This crate holds no store
//! and computes no key (the one store, and its keys, are `mcp_transport::credentials`); the
//! caller passes the token it found (`stored_token`), and only for a server that
//! [takes stored credentials](ServerConfig::takes_stored_credentials).
//!
//! - A **stdio** server whose `auth` is OAuth ([`AuthConfig::is_oauth`](crate::AuthConfig::is_oauth))
//!   must have a token — none is an [`AuthError::LoginRequired`]. The token goes in the
//!   `OAUTH_ACCESS_TOKEN` environment variable ([`OAUTH_ACCESS_TOKEN_ENV`]).
//! - A **remote** server given a token gets `Authorization: Bearer <token>`. Without one there
//!   is no error here: logging in, refreshing and asking for more scopes is the OAuth flow of
//!   the HTTP transport, which reads the same store and finds the authorization server when
//!   the server answers 401 (the manager leaves remote servers' tokens to it).
//! - When `auth` is not set a stored token is used if there is one; a server with another kind
//!   of `auth` never gets one.
//!
//! A remote server's `auth` block may also choose the OAuth grant and its credentials (see
//! [`OAuthSettings`](crate::OAuthSettings)); those settings are used by the HTTP transport's OAuth
//! flow, not here. The ones that read a file of the user's or send a credential to a URL the
//! definition names are honoured only for the user's own or approved definitions:
//! [`check_auth_source`] says so, with an [`AuthError::NotTrusted`] naming the fields.
//!
//! A credential the configuration sets itself wins: an explicit `Authorization` header (any
//! case) or an explicit `OAUTH_ACCESS_TOKEN` env entry is kept, and then the store is not asked
//! (so an OAuth server with an explicit credential needs no login).
//! [`ServerConfig::takes_stored_credentials`] is that rule, for the stored token given here and
//! for the HTTP transport's OAuth flow alike.
//!
//! ## Secrets stay out of sight
//!
//! [`ResolvedServerConfig`]'s `Debug` shows env and header keys only, and hides URL query
//! values and userinfo; log lines name the server and field, never a value; error messages
//! never contain an output or a token. The resolved values are only reachable through
//! [`ResolvedServerConfig::transport`], meant for building the
//! transport.
//!
//! ```no_run
//! use mcp_config::{ServerConfig, auth::resolve_auth_config};
//!
//! # async fn connect(config: &ServerConfig, stored_token: Option<&str>) {
//! // stored_token: what the credential store keeps under this server's key, if anything.
//! match resolve_auth_config("github", config, stored_token).await {
//!     Ok(resolved) => {
//!         // Build the transport from resolved.transport() (stdio: command, args, env, cwd;
//!         // http and sse: url, headers), then drop `resolved`.
//!         println!("connecting to {resolved:?}"); // values redacted
//!     }
//!     Err(error) => eprintln!("{error}"), // names the server and field, never the value
//! }
//! # }
//! ```

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::OnceCell;

use crate::entry_keys::HEADERS_HELPER;
use crate::origin::SourceMeta;
use crate::server_config::{AuthConfig, ServerConfig, TransportConfig, TransportKind};
pub use crate::shell_command::CommandFailure;
use crate::shell_command::run_command;
use crate::validate::is_header_name_byte;

/// How long a `!command` may run before it is killed, unless [`AuthOptions`] say otherwise.
pub const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

/// The environment variable that carries an OAuth access token to a stdio server.
pub const OAUTH_ACCESS_TOKEN_ENV: &str = "OAUTH_ACCESS_TOKEN";

/// The header that carries an OAuth access token to an http or sse server.
const AUTHORIZATION: &str = "Authorization";

impl ServerConfig {
    /// Whether a stored credential may be given to this server: a token from the credential
    /// store, or (for a remote server) the HTTP transport's OAuth flow. Not
    /// when the configuration sets the credential itself — an `Authorization` header (any
    /// case) for http and sse, an `OAUTH_ACCESS_TOKEN` env entry for stdio — nor when its
    /// `auth` is of another kind than OAuth.
    pub fn takes_stored_credentials(&self) -> bool {
        if self.auth.as_ref().is_some_and(|auth| !auth.is_oauth()) {
            return false;
        }
        match &self.transport {
            TransportConfig::Stdio(stdio) => !stdio.env.contains_key(OAUTH_ACCESS_TOKEN_ENV),
            TransportConfig::Http(remote) | TransportConfig::Sse(remote) => !remote
                .headers
                .keys()
                .any(|key| key.eq_ignore_ascii_case(AUTHORIZATION)),
            // A plugin's fields are its own: no stored credential is added to them.
            TransportConfig::Custom(_) => false,
        }
    }
}

/// Settings of a resolution.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuthOptions {
    /// How long a `!command` may run before its process group is killed
    /// ([`DEFAULT_COMMAND_TIMEOUT`] by default).
    pub command_timeout: Duration,
    /// The folder `!command` values and `headersHelper` run in (a relative path in them is
    /// found from there): the server's project folder for a project server, so an approval
    /// runs the same file from every folder; `None`, this process's folder.
    pub folder: Option<std::path::PathBuf>,
}

impl Default for AuthOptions {
    fn default() -> Self {
        Self {
            command_timeout: DEFAULT_COMMAND_TIMEOUT,
            folder: None,
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

    /// These options with commands run in `folder` (see [`folder`](Self::folder)).
    #[must_use]
    pub fn in_folder(mut self, folder: impl Into<std::path::PathBuf>) -> Self {
        self.folder = Some(folder.into());
        self
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
    /// The stdio server uses OAuth and the credential store has no access token for it.
    #[error(
        "Server \"{server}\" uses OAuth and there is no access token for it: log in to \"{server}\" first"
    )]
    LoginRequired {
        /// The server.
        server: String,
    },
    /// The server's `auth` would read a file of the user's or send a credential to a URL it
    /// names (`auth.privateKeyFile`, `auth.assertionFile`, `auth.idTokenFile`,
    /// `auth.idpTokenEndpoint`), and its definition is neither in one of the user's own files
    /// nor an approved project server's ([`check_auth_source`]). Nothing was read or sent.
    /// Moving the definition to a user-level file, or approving the project server, helps.
    #[error(
        "Server \"{server}\": {fields} {verb} honoured only in your own (user-level) config files \
         or for a project server you approved, and this definition is {origin}; approve the \
         server or move it to your user-level config",
        verb = if .fields.contains(", ") { "are" } else { "is" }
    )]
    NotTrusted {
        /// The server.
        server: String,
        /// The fields, e.g. `auth.privateKeyFile`, comma separated.
        fields: String,
        /// Where the definition is: `in /repo/.mcp.json, which you have not approved`, or
        /// `of unknown origin`.
        origin: String,
    },
    /// A project server's `auth` names a credential file outside its own project folder
    /// (`"assertionFile": "../.ssh/id_ed25519"`, `${HOME}/…`): a cloned repository never makes
    /// the client read the user's files, whatever approved it. Nothing was read or sent.
    #[error(
        "Server \"{server}\": {field} names {}, outside the project folder {}: a project's \
         server may read credential files only inside its own folder; define the server in \
         your own (user-level) config to let it read that file",
        .file.display(),
        .folder.display()
    )]
    OutsideProject {
        /// The server.
        server: String,
        /// The setting, e.g. `auth.assertionFile`.
        field: String,
        /// The file, as it would be read (symlinks followed).
        file: std::path::PathBuf,
        /// The project folder.
        folder: std::path::PathBuf,
    },
}

impl AuthError {
    /// The server the error is about.
    pub fn server(&self) -> &str {
        match self {
            Self::Command { server, .. }
            | Self::LoginRequired { server }
            | Self::NotTrusted { server, .. }
            | Self::OutsideProject { server, .. } => server,
        }
    }
}

/// Checks that a server's `auth` uses settings that read the user's files or send a credential
/// to a URL the definition names ([`AuthConfig::local_credential_fields`]) only where that is
/// allowed: a definition from one of the user's own files, or from a project file whose server
/// the user approved ([`SourceMeta::may_use_local_credentials`]) — the approval `!command`
/// values need. `source` is where the definition came from; `None` (unknown) allows none of
/// them. A server without such settings always passes.
///
/// [`AuthConfig::local_credential_fields`]: crate::AuthConfig::local_credential_fields
pub fn check_auth_source(
    name: &str,
    config: &ServerConfig,
    source: Option<&SourceMeta>,
) -> Result<(), AuthError> {
    let Some(auth) = config.auth.as_ref().filter(|auth| auth.is_oauth()) else {
        return Ok(());
    };
    let fields = auth.local_credential_fields();
    if fields.is_empty() {
        return Ok(());
    }
    if let Some(source) = source.filter(|source| source.may_use_local_credentials()) {
        return outside_project_files(name, auth, source);
    }
    let origin = match source {
        Some(meta) => format!("in {}, which you have not approved", meta.path.display()),
        None => "of unknown origin".to_owned(),
    };
    tracing::debug!(server = name, "auth settings that read local files refused");
    Err(AuthError::NotTrusted {
        server: name.to_owned(),
        fields: fields
            .iter()
            .map(|field| format!("auth.{field}"))
            .collect::<Vec<_>>()
            .join(", "),
        origin,
    })
}

/// A project server's credential file outside its project folder, if it names one.
fn outside_project_files(
    name: &str,
    auth: &AuthConfig,
    source: &SourceMeta,
) -> Result<(), AuthError> {
    let Ok(settings) = auth.oauth_settings() else {
        // Invalid settings fail the server elsewhere; no file of theirs is read.
        return Ok(());
    };
    for (field, path) in settings.grant.files() {
        let file = crate::credential_file::credential_file(path, source);
        if let Some(folder) = crate::credential_file::outside_project(&file, source) {
            return Err(AuthError::OutsideProject {
                server: name.to_owned(),
                field: format!("auth.{field}"),
                file,
                folder,
            });
        }
    }
    Ok(())
}

/// What a connection is made with: a server's configuration with every `!command` value
/// replaced by its output and the OAuth token applied.
///
/// **Holds secrets.** [`transport`](Self::transport) has the real env and header values, to
/// build the transport with; do not log, display or store them. `Debug` shows their keys only
/// (as [`TransportConfig`]'s does).
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedServerConfig {
    name: String,
    transport: TransportConfig,
    timeout_ms: u64,
}

impl ResolvedServerConfig {
    /// The server's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How to talk to the server.
    pub fn kind(&self) -> TransportKind {
        self.transport.kind()
    }

    /// **Secret values.** The transport with its values resolved: a stdio server's variables
    /// (added to its inherited environment, `OAUTH_ACCESS_TOKEN` among them when OAuth
    /// applies), or a remote server's headers (`Authorization: Bearer …` when OAuth applies).
    pub fn transport(&self) -> &TransportConfig {
        &self.transport
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
    /// documentation](self). `stored_token` is the access token the credential store keeps
    /// for this server, if any.
    pub async fn resolve(
        &self,
        name: &str,
        config: &ServerConfig,
        stored_token: Option<&str>,
        options: &AuthOptions,
    ) -> Result<ResolvedServerConfig, AuthError> {
        // Before any command runs, so a missing login is reported at once.
        let token = if config.takes_stored_credentials() {
            stored_token_for(name, config, stored_token)?
        } else {
            None
        };

        let mut transport = config.transport.clone();
        // Only the fields the transport uses: a `!command` elsewhere is never run.
        let (prefix, values) = match &mut transport {
            // A plugin's fields are its own: no command is run for them.
            TransportConfig::Custom(_) => {
                return Ok(ResolvedServerConfig {
                    name: name.to_owned(),
                    transport,
                    timeout_ms: config.timeout_ms(),
                });
            }
            TransportConfig::Stdio(stdio) => ("env", &mut stdio.env),
            TransportConfig::Http(remote) | TransportConfig::Sse(remote) => {
                ("headers", &mut remote.headers)
            }
        };

        // What a failing command's stderr must not show: every other value of this server
        // (literal ones, and the outputs of its commands run so far).
        let mut known: Vec<String> = values.values().cloned().collect();
        known.extend(token.clone());
        for (key, value) in values.iter_mut() {
            if !config.is_command(&format!("{prefix}.{key}"), value) {
                continue;
            }
            let Some(command) = value.strip_prefix('!') else {
                continue;
            };
            let output = self
                .command_output(name, prefix, key, command, options)
                .await
                .map_err(|failure| AuthError::Command {
                    server: name.to_owned(),
                    field: format!("{prefix}.{key}"),
                    failure: failure.scrubbed(known.iter().map(String::as_str)),
                })?;
            known.push(output.clone());
            *value = output;
        }

        let mut helper_authorizes = false;
        if let (Some(helper), TransportConfig::Http(remote) | TransportConfig::Sse(remote)) =
            (config.headers_helper(), &mut transport)
        {
            let failed = |failure: CommandFailure, known: &[String]| AuthError::Command {
                server: name.to_owned(),
                field: HEADERS_HELPER.to_owned(),
                failure: failure.scrubbed(known.iter().map(String::as_str)),
            };
            // Run at every connection, never cached: a helper is there to mint short-lived
            // credentials.
            tracing::debug!(server = name, "running headersHelper");
            let output = run_command(helper, options.command_timeout, options.folder.as_deref())
                .await
                .map_err(|failure| failed(failure, &known))?;
            let headers = helper_headers(&output)
                .ok_or_else(|| failed(CommandFailure::NotHeaders, &known))?;
            for (header, value) in headers {
                // Over the written header of that name, whatever its case.
                remote
                    .headers
                    .retain(|written, _| !written.eq_ignore_ascii_case(&header));
                if header.eq_ignore_ascii_case(AUTHORIZATION) {
                    // The helper's credential, not a stored token.
                    helper_authorizes = true;
                }
                remote.headers.insert(header, value);
            }
        }

        if let Some(token) = token.filter(|_| !helper_authorizes) {
            tracing::debug!(
                server = name,
                "using the OAuth access token from the credential store"
            );
            match &mut transport {
                TransportConfig::Stdio(stdio) => {
                    stdio.env.insert(OAUTH_ACCESS_TOKEN_ENV.to_owned(), token);
                }
                TransportConfig::Http(remote) | TransportConfig::Sse(remote) => {
                    remote
                        .headers
                        .insert(AUTHORIZATION.to_owned(), format!("Bearer {token}"));
                }
                TransportConfig::Custom(_) => {}
            }
        }

        Ok(ResolvedServerConfig {
            name: name.to_owned(),
            transport,
            timeout_ms: config.timeout_ms(),
        })
    }

    /// The output of `command`: cached, shared with an identical run in progress, or a new run.
    /// Kept by the command and the folder it runs in: the same text in two folders may name
    /// two programs (`./token.sh`).
    async fn command_output(
        &self,
        server: &str,
        prefix: &str,
        key: &str,
        command: &str,
        options: &AuthOptions,
    ) -> Result<String, CommandFailure> {
        let (timeout, folder) = (options.command_timeout, options.folder.as_deref());
        let cache_key = match folder {
            Some(folder) => format!("{}\0{command}", folder.display()),
            None => command.to_owned(),
        };
        let slot = Arc::clone(self.lock().entry(cache_key.clone()).or_default());
        if slot.initialized() {
            tracing::trace!(server, field = %format_args!("{prefix}.{key}"), "!command output from cache");
        }
        let outcome = slot
            .get_or_init(|| async {
                tracing::debug!(server, field = %format_args!("{prefix}.{key}"), "running !command");
                run_command(command, timeout, folder).await
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
                    .get(&cache_key)
                    .is_some_and(|current| Arc::ptr_eq(current, &slot))
                {
                    cache.remove(&cache_key);
                }
                Err(failure.clone())
            }
        }
    }
}

/// The headers a `headersHelper` printed: a JSON object of header names (HTTP tokens) to
/// values of visible ASCII, spaces and tabs. `None` for anything else, and for a header the
/// connection itself sets (`Host`, `Content-Length`, the MCP session and version headers …).
fn helper_headers(output: &str) -> Option<BTreeMap<String, String>> {
    const RESERVED: [&str; 7] = [
        "host",
        "content-length",
        "transfer-encoding",
        "connection",
        "upgrade",
        "mcp-session-id",
        "mcp-protocol-version",
    ];
    let Value::Object(headers) = serde_json::from_str::<Value>(output).ok()? else {
        return None;
    };
    headers
        .into_iter()
        .map(|(name, value)| {
            let value = value.as_str()?.to_owned();
            let name_ok = !name.is_empty() && name.bytes().all(is_header_name_byte);
            let reserved = RESERVED.iter().any(|kept| name.eq_ignore_ascii_case(kept));
            let value_ok = value
                .bytes()
                .all(|byte| byte == b'\t' || (b' '..=b'~').contains(&byte));
            (name_ok && !reserved && value_ok).then_some((name, value))
        })
        .collect()
}

/// The stored token to send to a server that takes one ([`ServerConfig::takes_stored_credentials`]),
/// or the error of a stdio OAuth server without one.
fn stored_token_for(
    name: &str,
    config: &ServerConfig,
    stored_token: Option<&str>,
) -> Result<Option<String>, AuthError> {
    // Called only for a server that takes stored credentials: never a plugin's entry.
    let token = stored_token
        .map(str::trim)
        .filter(|token| !token.is_empty());
    let required = config.auth.as_ref().is_some_and(AuthConfig::is_oauth);
    match token {
        // A remote server's login is the HTTP transport's OAuth flow.
        None if required && matches!(config.transport, TransportConfig::Stdio(_)) => {
            Err(AuthError::LoginRequired {
                server: name.to_owned(),
            })
        }
        token => Ok(token.map(str::to_owned)),
    }
}

/// Resolves `!command` values and OAuth credentials for one server, with a 10 s command timeout
/// and the process-wide cache: see the [module documentation](self).
///
/// `name` is the server's name (for errors and logs); `stored_token` is the access token the
/// caller's credential store keeps under the server's key, if any.
pub async fn resolve_auth_config(
    name: &str,
    config: &ServerConfig,
    stored_token: Option<&str>,
) -> Result<ResolvedServerConfig, AuthError> {
    resolve_auth_config_with(name, config, stored_token, &AuthOptions::default()).await
}

/// [`resolve_auth_config`] with explicit [`AuthOptions`] (e.g. another command timeout), still
/// with the process-wide cache ([`AuthResolver::global`]).
pub async fn resolve_auth_config_with(
    name: &str,
    config: &ServerConfig,
    stored_token: Option<&str>,
    options: &AuthOptions,
) -> Result<ResolvedServerConfig, AuthError> {
    AuthResolver::global()
        .resolve(name, config, stored_token, options)
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configuration_with_its_own_credential_or_another_auth_takes_no_stored_one() {
        let mut remote = ServerConfig::http("https://example.com/mcp");
        assert!(remote.takes_stored_credentials());
        remote.auth = Some(AuthConfig::oauth());
        assert!(remote.takes_stored_credentials());
        if let TransportConfig::Http(http) = &mut remote.transport {
            http.headers.insert("X-Api-Key".into(), "k".into());
        }
        assert!(remote.takes_stored_credentials());
        for header in ["Authorization", "authorization", "AUTHORIZATION"] {
            let mut own = remote.clone();
            if let TransportConfig::Http(http) = &mut own.transport {
                http.headers.insert(header.into(), "Bearer mine".into());
            }
            assert!(!own.takes_stored_credentials(), "{header}");
        }

        let mut stdio = ServerConfig::stdio("srv", Vec::<String>::new());
        stdio.auth = Some(AuthConfig::oauth());
        assert!(stdio.takes_stored_credentials());
        if let TransportConfig::Stdio(local) = &mut stdio.transport {
            local
                .env
                .insert(OAUTH_ACCESS_TOKEN_ENV.into(), "mine".into());
        }
        assert!(!stdio.takes_stored_credentials());

        let mut custom = ServerConfig::sse("https://example.com/sse");
        custom.auth = Some(serde_json::from_str(r#"{"type": "custom"}"#).unwrap());
        assert!(!custom.takes_stored_credentials());
    }

    #[test]
    fn a_command_gets_10_seconds_by_default() {
        assert_eq!(DEFAULT_COMMAND_TIMEOUT, Duration::from_secs(10));
        assert_eq!(
            AuthOptions::default().command_timeout,
            Duration::from_secs(10)
        );
    }

    #[test]
    fn errors_name_the_server_and_the_field() {
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
