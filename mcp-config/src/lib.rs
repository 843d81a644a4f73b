//! # mcp-config
//!
//! Finds the MCP servers a user already configured — in this agent's own files and in the files
//! of Claude Code, Codex, Gemini CLI, OpenCode, Cursor, Windsurf, VS Code and Claude Desktop —
//! and turns them into one list of [`ServerConfig`]s, telling where each came from and why.
//!
//! ```no_run
//! use mcp_config::{DiscoveryContext, DiscoveryOptions, load_all_configs};
//!
//! # fn run() -> Result<(), mcp_config::ConfigError> {
//! let ctx = DiscoveryContext::from_process("my-agent", std::env::current_dir().unwrap_or_default())?;
//! let found = load_all_configs(&ctx, &DiscoveryOptions::default());
//! for (name, server) in &found.servers {
//!     let kind = server.config.transport_kind();
//!     println!("{name} ({kind}) from {}", server.source.meta.path.display());
//! }
//! for skipped in &found.skipped {
//!     println!("{} skipped ({:?}), defined in {}", skipped.name, skipped.reason, skipped.source.path.display());
//! }
//! for problem in &found.file_errors {
//!     eprintln!("{}", problem.error);
//! }
//! # Ok(()) }
//! ```
//!
//! - One broken file or one bad entry never costs the others: a file that cannot be read or
//!   parsed is an error naming it; an invalid server is skipped with a message naming it.
//! - Every root (cwd, home, config dir, environment) comes from a [`DiscoveryContext`] the caller
//!   builds, so tests never read the real home.
//! - The user's XDG directories (config, cache, state) are looked up in one place for the whole
//!   runtime: [`UserDir`], [`app_cache_dir`].
//! - `${VAR}` and `${VAR:-default}` are expanded at discovery; `!command` values and OAuth
//!   tokens are resolved at connect time by [`auth`], and never shown.
//! - A remote server's `auth` block chooses how its OAuth tokens are obtained (authorization
//!   code, client credentials, workload identity, enterprise-managed) and whether they are
//!   DPoP-bound: [`oauth_grant`]. Its settings that read the user's files are honoured only for
//!   the user's own or approved definitions.
//! - [`writer`] adds, removes, enables and disables servers for the `/mcp` commands.
//!
//! ## Dependencies, and what each is for
//!
//! No other crate of this workspace (see DESIGN.md): the manager turns a [`ServerConfig`] into
//! transport parameters.
//!
//! - `async-trait`: [`AuthStorage`] is used as a trait object and has an async method.
//! - `process-wrap`: runs each `!command` in a process group of its own, killed whole on timeout.
//! - `serde`, `serde_json`: reading and writing JSON and JSONC config files, and the settings kept
//!   as written.
//! - `sha2`: the hash of a definition a project-server approval records ([`definition_hash`]).
//! - `thiserror`: the error types.
//! - `tokio`: the `!command` runner only — `process`, `time` (its timeout), `io-util` (reading
//!   its output), `macros` (`join!`), `sync` (one run shared by identical commands); no runtime:
//!   the caller's runs it.
//! - `toml`: Codex's `config.toml` files (its servers, and the project trust levels it keeps).
//! - `tracing`: debug logs naming servers and fields, never values.
//! - `url`: checking the URLs an `auth` block sends credentials to.

mod context;
mod discovery;
mod error;
mod expand;
mod problems;
mod raw_entry;
mod redact;
mod server_config;
mod shell_command;
mod source;
mod user_dirs;
mod validate;

pub mod trust;

pub mod auth;
pub mod oauth_grant;
pub mod providers;
pub mod writer;

pub use auth::{
    AuthError, AuthOptions, AuthResolver, AuthStorage, CommandFailure, DEFAULT_COMMAND_TIMEOUT,
    OAUTH_ACCESS_TOKEN_ENV, ResolvedServerConfig, ServerIdentity, check_auth_source,
    resolve_auth_config, resolve_auth_config_with,
};
pub use context::DiscoveryContext;
pub use discovery::{
    DiscoveredServer, DiscoveryNote, DiscoveryOptions, DiscoveryResult, FileError, InvalidServer,
    ServerSource, SkipReason, SkippedServer, load_all_configs,
};
pub use error::ConfigError;
pub use expand::{MAX_NESTING, expand_server_config, expand_value};
pub use oauth_grant::{
    ClientCredentialSetting, CredentialSetting, EnterpriseManaged, OAuthGrant, OAuthSettings,
};
pub use problems::{
    AuthSettingKind, ConfigProblem, EntryProblem, ExpandError, OAuthProblem, PlaceholderProblem,
    ServerProblem, Shared, UrlProblem,
};
pub use providers::default_sources;
pub use redact::{REDACTED, redact_url_secrets};
pub use server_config::{
    AuthConfig, CustomTransport, DEFAULT_TIMEOUT_MS, OAuthClient, RemoteConfig, RootsSetting,
    ServerConfig, StdioConfig, ToolFilter, TransportConfig, TransportKind,
};
pub use source::{
    ConfigSource, FileServers, Level, MAX_CONFIG_FILE_BYTES, SourceFile, SourceMeta,
    UnreadProjectFile, parse_json, parse_jsonc, read_config_file, servers_under_key,
    standard_entry,
};
pub use trust::{ProjectServer, TrustPolicy, definition_hash};
pub use user_dirs::{UserDir, app_cache_dir};
pub use validate::{hidden_char, validate_server_config};
pub use writer::{
    ChangeAction, ConfigChange, add_server, native_config_path, remove_server, set_server_enabled,
    validate_server_name,
};
