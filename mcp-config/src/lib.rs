#![doc = include_str!("../README.md")]
//!
//! ## Where things are
//!
//! The crate's root is the discovery an agent runs: [`load_all_configs`] with its
//! [`DiscoveryContext`] and [`DiscoveryOptions`], the [`ServerConfig`]s it finds, why an entry was
//! left out, and the trust, consent and policy that decide it. Four modules hold the rest, each
//! item under one path only:
//!
//! - [`auth`]: resolving a server's credentials when it connects (`!command` values, OAuth
//!   tokens, headers helpers).
//! - [`writer`]: adding, removing, enabling, disabling and approving servers in config files.
//! - [`providers`]: the built-in tools whose files are read, and the report of what each reads.
//! - [`source`]: what a [`ConfigSource`](source::ConfigSource) author needs to read one more
//!   tool's files.

mod consent;
mod context;
mod credential_file;
mod discovery;
mod entry_keys;
mod error;
mod expand;
mod hashing;
mod oauth_grant;
mod origin;
mod placeholder;
mod policy;
mod problems;
mod quoting;
mod raw_entry;
mod read_pass;
mod redact;
mod report;
mod server_config;
mod shell_command;
mod trust;
mod user_dirs;
mod validate;

pub mod auth;
pub mod providers;
pub mod source;
pub mod writer;

// Discovery: where to look, what was found, what was left out and why.
pub use context::{DiscoveryContext, project_folder};
pub use discovery::{
    DiscoveredServer, DiscoveryNote, DiscoveryOptions, DiscoveryResult, FileError, InvalidServer,
    ServerSource, SkipReason, SkippedServer, load_all_configs,
};
pub use origin::{Level, SourceMeta, ToolRef};

// A server's definition.
pub use expand::{expand_server_config, expand_value};
pub use oauth_grant::{
    ClientCredentialSetting, CredentialSetting, EnterpriseManaged, OAuthGrant, OAuthSettings,
};
pub use placeholder::MAX_NESTING;
pub use server_config::{
    AuthConfig, CustomTransport, DEFAULT_TIMEOUT_MS, OAuthClient, RemoteConfig, RootsSetting,
    ServerConfig, StdioConfig, ToolFilter, TransportConfig, TransportKind,
};
pub use validate::validate_server_config;

// Who decides what runs: project trust, the consent shown before approving, managed policy.
pub use consent::{
    CommandRun, Consent, Destination, FileRead, HostContact, OfferedRoots, SentValue, Unstatable,
    UnstatableReason, ValueSent, approval_hash,
};
pub use policy::{DenialRule, Judged, PolicyDenial, ReachPolicy};
pub use trust::{ApprovalCallback, ProjectServer, TrustPolicy};

// Errors and problems, each naming the file or entry it is about.
pub use error::{ChangeProblem, ConfigError, FolderProblem, ShapeProblem};
pub use problems::{
    AuthSettingKind, ConfigProblem, EntryProblem, ExpandError, OAuthProblem, PlaceholderProblem,
    ServerProblem, Shared, UrlProblem,
};

// Showing what was found safely, and where the app keeps its cache.
pub use quoting::hidden_char;
pub use redact::{REDACTED, redact_url_secrets};
pub use user_dirs::app_cache_dir;
