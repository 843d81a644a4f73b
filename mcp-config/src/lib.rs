#![doc = include_str!("../README.md")]

mod context;
mod credential_file;
mod discovery;
mod entry_keys;
mod error;
mod expand;
mod hashing;
mod origin;
mod placeholder;
mod problems;
mod quoting;
mod raw_entry;
mod read_pass;
mod redact;
mod report;
mod server_config;
mod shell_command;
mod source;
mod user_dirs;
mod validate;

pub mod consent;
pub mod policy;
pub mod trust;

pub mod auth;
pub mod oauth_grant;
pub mod providers;
pub mod writer;

pub use auth::{
    AuthError, AuthOptions, AuthResolver, CommandFailure, DEFAULT_COMMAND_TIMEOUT,
    OAUTH_ACCESS_TOKEN_ENV, ResolvedServerConfig, check_auth_source, resolve_auth_config,
    resolve_auth_config_with,
};
pub use consent::{Consent, approval_hash};
pub use context::{DiscoveryContext, project_folder};
pub use discovery::{
    DiscoveredServer, DiscoveryNote, DiscoveryOptions, DiscoveryResult, FileError, InvalidServer,
    ServerSource, SkipReason, SkippedServer, load_all_configs,
};
pub use error::{ChangeProblem, ConfigError, FolderProblem, ShapeProblem};
pub use expand::{expand_server_config, expand_value};
pub use oauth_grant::{
    ClientCredentialSetting, CredentialSetting, EnterpriseManaged, OAuthGrant, OAuthSettings,
};
pub use origin::{Level, SourceMeta, ToolRef};
pub use placeholder::MAX_NESTING;
pub use policy::{DenialRule, Judged, PolicyDenial, ReachPolicy};
pub use problems::{
    AuthSettingKind, ConfigProblem, EntryProblem, ExpandError, OAuthProblem, PlaceholderProblem,
    ServerProblem, Shared, UrlProblem,
};
pub use providers::default_sources;
pub use quoting::hidden_char;
pub use read_pass::{LookedAt, MAX_CONFIG_FILE_BYTES, in_read_pass, read_config_file};
pub use redact::{REDACTED, redact_url_secrets};
pub use report::{FileReport, ProviderReport, provider_report};
pub use server_config::{
    AuthConfig, CustomTransport, DEFAULT_TIMEOUT_MS, OAuthClient, RemoteConfig, RootsSetting,
    ServerConfig, StdioConfig, ToolFilter, TransportConfig, TransportKind,
};
pub use source::{
    ConfigSource, FileServers, SourceFile, UnreadProjectFile, parse_json, parse_jsonc,
    servers_under_key, standard_entry,
};
pub use trust::{ProjectServer, TrustPolicy};
pub use user_dirs::{UserDir, app_cache_dir};
pub use validate::validate_server_config;
pub use writer::{
    ChangeAction, ConfigChange, add_server, native_config_path, remove_server, set_server_enabled,
    validate_server_name,
};
