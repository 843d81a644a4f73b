//! What can be wrong with a server's definition, as values: a [`ServerProblem`] is the server
//! and one [`ConfigProblem`]; an [`InvalidServer`](crate::InvalidServer) carries every one
//! found. An `auth` block's own problems are [`OAuthProblem`]s, an unusable URL's reason a
//! [`UrlProblem`], an expansion's an [`ExpandError`], and an entry a provider could not convert
//! an [`EntryProblem`] (a placeholder of another tool's a [`PlaceholderProblem`]).
//!
//! Nothing here is text until it is shown: `Display` gives the message a user reads (the same
//! words the runtime always printed), and a caller that needs to tell problems apart matches on
//! them. A value from the configuration is quoted shortened and with hidden characters escaped
//! ([`hidden_char`](crate::hidden_char)), and a URL never shows its secrets.

use serde_json::Value;

use crate::placeholder::MAX_NESTING;
use crate::quoting::quoted;

mod entry;
mod shared;

pub use entry::{EntryProblem, PlaceholderProblem};
pub use shared::Shared;

/// One problem of one server's definition. Shown as `Server "<name>": <problem>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Server \"{}\": {problem}", quoted(.server))]
#[non_exhaustive]
pub struct ServerProblem {
    /// The server.
    pub server: String,
    /// What is wrong.
    pub problem: ConfigProblem,
}

impl ServerProblem {
    /// `problem`, of the server `server`.
    pub fn new(server: impl Into<String>, problem: ConfigProblem) -> Self {
        Self {
            server: server.into(),
            problem,
        }
    }
}

/// What is wrong with a server's definition (see [`ServerProblem`] for the server).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigProblem {
    /// The name is empty or only whitespace.
    #[error("the server name is empty")]
    EmptyName,
    /// The name holds a character that does not show as what it is
    /// ([`hidden_char`](crate::hidden_char)).
    #[error(
        "the name holds U+{:04X}, {kind}: a name must read as what it is, so names with control, \
         bidi or invisible characters are refused; rename the server",
        u32::from(*.character)
    )]
    HiddenCharacter {
        /// The first such character.
        character: char,
        /// What kind it is, e.g. `a control character`.
        kind: &'static str,
    },
    /// A stdio server's `command` is empty.
    #[error("\"command\" is empty")]
    EmptyCommand,
    /// An `env` key cannot be an environment variable's name.
    #[error("invalid environment variable name \"{}\"", quoted(.name))]
    EnvName {
        /// The key.
        name: String,
    },
    /// A remote server's `url` cannot be used.
    #[error("invalid URL \"{}\": {problem}", quoted(.url))]
    Url {
        /// The URL with its secrets (userinfo, query values) hidden.
        url: String,
        /// Why.
        problem: UrlProblem,
    },
    /// A `headers` key cannot be a header's name.
    #[error("invalid header name \"{}\"", quoted(.name))]
    HeaderName {
        /// The key.
        name: String,
    },
    /// `timeout` is 0.
    #[error("\"timeout\" must be more than 0 milliseconds")]
    ZeroTimeout,
    /// `enabledTools` or `disabledTools` is not a list of strings.
    #[error("\"{key}\" must be a list of tool names")]
    NotToolNames {
        /// The setting.
        key: &'static str,
    },
    /// `toolTimeout`, `maxMessageBytes` or `outputBudget` is not a whole number above 0.
    #[error("\"{key}\" must be a whole number more than 0")]
    NotPositive {
        /// The setting.
        key: &'static str,
    },
    /// `headersHelper` is not a command line, or is on a server without HTTP headers.
    #[error(
        "\"headersHelper\" must be a command line (a string), and only an http or sse server \
         sends headers"
    )]
    HeadersHelper,
    /// `reconnect`, `required` or `alwaysLoad` is not a boolean.
    #[error("\"{key}\" must be true or false")]
    NotBoolean {
        /// The setting.
        key: &'static str,
    },
    /// `protocolVersion` is not a revision's date.
    #[error(
        "\"protocolVersion\" must be a protocol revision such as \"2026-07-28\" or \
         \"2025-11-25\", or left out to let the client find the server's"
    )]
    ProtocolVersionShape,
    /// `protocolVersion` names a revision the client does not speak (found when connecting).
    #[error(
        "\"protocolVersion\" is \"{}\", a revision this client does not speak (it speaks \
         {supported}); change the pin or leave it out",
        quoted(.pinned)
    )]
    UnsupportedProtocolVersion {
        /// The revision pinned.
        pinned: String,
        /// The revisions the client speaks, as a list to show.
        supported: String,
    },
    /// `roots` is neither `false` nor a list of folders.
    #[error("\"roots\" must be a list of folders, or false to offer the server no roots")]
    RootsShape,
    /// A folder of `roots` is empty.
    #[error("\"roots[{index}]\" is empty: write a folder")]
    EmptyRoot {
        /// Its place in the list.
        index: usize,
    },
    /// A folder of `roots` starts with `~`, which is not expanded.
    #[error(
        "\"roots[{index}]\" is \"{}\": ~ is not expanded here; write the folder's full path \
         (in your own files, ${{HOME}}/… is expanded; a project's cannot name a folder by a \
         variable)",
        quoted(.folder)
    )]
    RootInHome {
        /// Its place in the list.
        index: usize,
        /// The folder as written.
        folder: String,
    },
    /// A folder of `roots` is written as a URI (`file:///data`); roots are folders, and the
    /// text would be taken as a folder of that name.
    #[error(
        "\"roots[{index}]\" is \"{}\": roots are folders, not URIs; write the folder's path",
        quoted(.folder)
    )]
    RootAsUri {
        /// Its place in the list.
        index: usize,
        /// The folder as written.
        folder: String,
    },
    /// A stdio server's `auth` sets a remote server's OAuth setting (`grant`, `dpop`).
    #[error(
        "\"auth.{key}\" is for http and sse servers; a stdio server's token comes from the \
         credential store"
    )]
    StdioAuthSetting {
        /// The setting.
        key: &'static str,
    },
    /// The OAuth settings of the `auth` block cannot be used.
    #[error(transparent)]
    OAuth(#[from] OAuthProblem),
    /// A `${VAR}` reference in a field cannot be expanded.
    #[error("{}", expansion(.field, .error))]
    Expansion {
        /// The field, e.g. `env.TOKEN`, `headers.Authorization`, `roots[0]`.
        field: String,
        /// Why.
        error: ExpandError,
    },
    /// The provider could not turn the file's entry into a definition.
    #[error(transparent)]
    Entry(#[from] EntryProblem),
}

/// The message of [`ConfigProblem::Expansion`].
fn expansion(field: &str, error: &ExpandError) -> String {
    match error {
        ExpandError::Unset { variable } => format!(
            "environment variable \"{variable}\" is not set (used in {}); set it or give a \
             default with ${{{variable}:-default}}",
            quoted(field)
        ),
        ExpandError::TooDeep => format!("{}: {error}", quoted(field)),
    }
}

/// Why a URL cannot be used: the light check done before any connection is tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UrlProblem {
    /// No `scheme://`.
    #[error("it has no scheme (expected http:// or https://)")]
    NoScheme,
    /// A scheme other than http and https.
    #[error("the scheme must be http or https")]
    NotHttp,
    /// Nothing where the host goes.
    #[error("it has no host")]
    NoHost,
    /// Whitespace somewhere in it.
    #[error("it contains whitespace")]
    Whitespace,
}

/// Why a `${VAR}` reference cannot be expanded ([`expand_value`](crate::expand_value)).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExpandError {
    /// The variable is not set and the reference gives no default.
    #[error("\"{variable}\" is not set")]
    Unset {
        /// The variable, the first unset one.
        variable: String,
    },
    /// Defaults nest more than [`MAX_NESTING`] deep.
    #[error("defaults nested more than {MAX_NESTING} deep")]
    TooDeep,
}

/// What is wrong with the OAuth settings of a remote server's `auth` block
/// ([`AuthConfig::oauth_settings`](crate::AuthConfig::oauth_settings)). Each names its field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OAuthProblem {
    /// `dpop` is not a boolean.
    #[error("\"auth.dpop\" must be true or false")]
    DpopNotBoolean,
    /// `grant` names no grant this runtime knows (or is not a string).
    #[error(
        "\"auth.grant\" is {}; use \"authorizationCode\" (the default), \"clientCredentials\", \
         \"workloadIdentity\" or \"enterpriseManaged\"",
        shown(.grant)
    )]
    UnknownGrant {
        /// The value as written.
        grant: Value,
    },
    /// A grant needs a setting that is not there.
    #[error("\"auth.grant\" \"{grant}\" needs \"{key}\"")]
    Missing {
        /// The grant.
        grant: &'static str,
        /// The setting.
        key: &'static str,
    },
    /// `clientCredentials` has neither a secret nor a key file.
    #[error("\"auth.grant\" \"clientCredentials\" needs \"clientSecret\" or \"privateKeyFile\"")]
    NoClientCredential,
    /// `clientCredentials` has both a secret and a key file.
    #[error("\"auth\" sets both \"clientSecret\" and \"privateKeyFile\"; keep one")]
    SecretAndKeyFile,
    /// A credential is given neither as a value nor as a file.
    #[error("\"auth\" needs \"{file_key}\" (or \"{key}\")")]
    NoCredential {
        /// The setting holding the value (`assertion`, `idToken`).
        key: &'static str,
        /// The setting naming the file (`assertionFile`, `idTokenFile`).
        file_key: &'static str,
    },
    /// A credential is given both as a value and as a file.
    #[error("\"auth\" sets both \"{key}\" and \"{file_key}\"; keep one")]
    ValueAndFile {
        /// The setting holding the value.
        key: &'static str,
        /// The setting naming the file.
        file_key: &'static str,
    },
    /// A setting is not a non-empty string.
    #[error("\"auth.{key}\" must be a non-empty string")]
    NotText {
        /// The setting.
        key: &'static str,
    },
    /// A file name starts with `~`, which is not expanded.
    #[error(
        "\"auth.{key}\" starts with ~, which is not expanded here; write the file's full path \
         (${{HOME}}/… is expanded)"
    )]
    HomeNotExpanded {
        /// The setting.
        key: &'static str,
    },
    /// `idpTokenEndpoint` is not an http or https URL.
    #[error("\"auth.idpTokenEndpoint\" is \"{}\"; use an http or https URL", quoted(.endpoint))]
    IdpTokenEndpoint {
        /// The value as written.
        endpoint: String,
    },
    /// A setting of a kind the connecting side does not handle (a kind this crate added after
    /// it was written).
    #[error("auth: an unknown kind of {0}")]
    Unsupported(AuthSettingKind),
}

/// A kind of `auth` setting ([`OAuthProblem::Unsupported`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AuthSettingKind {
    /// The grant ([`OAuthGrant`](crate::OAuthGrant)).
    #[error("OAuth grant")]
    Grant,
    /// How a `clientCredentials` client proves who it is
    /// ([`ClientCredentialSetting`](crate::ClientCredentialSetting)).
    #[error("client credential")]
    ClientCredential,
    /// A credential given as a value or a file ([`CredentialSetting`](crate::CredentialSetting)).
    #[error("credential setting")]
    CredentialSetting,
}

/// A `grant` value as [`OAuthProblem::UnknownGrant`] shows it: a string quoted, anything else
/// as JSON.
fn shown(grant: &Value) -> String {
    match grant {
        Value::String(grant) => format!("\"{}\"", quoted(grant)),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every problem reads as the message the runtime printed before problems were values.
    #[test]
    fn each_problem_reads_as_the_message_the_runtime_always_printed() {
        let unknown = |kind| ConfigProblem::OAuth(OAuthProblem::Unsupported(kind));
        let expansion = |field: &str, error| ConfigProblem::Expansion {
            field: field.to_owned(),
            error,
        };
        for (problem, message) in [
            (ConfigProblem::EmptyName, "the server name is empty"),
            (
                ConfigProblem::HiddenCharacter {
                    character: '\u{200b}',
                    kind: "an invisible character",
                },
                "the name holds U+200B, an invisible character: a name must read as what it is, so names with control, bidi or invisible characters are refused; rename the server",
            ),
            (ConfigProblem::EmptyCommand, "\"command\" is empty"),
            (
                ConfigProblem::EnvName { name: "A=B".into() },
                "invalid environment variable name \"A=B\"",
            ),
            (
                ConfigProblem::Url {
                    url: "ftp://h/mcp".into(),
                    problem: UrlProblem::NotHttp,
                },
                "invalid URL \"ftp://h/mcp\": the scheme must be http or https",
            ),
            (
                ConfigProblem::Url {
                    url: "h/mcp".into(),
                    problem: UrlProblem::NoScheme,
                },
                "invalid URL \"h/mcp\": it has no scheme (expected http:// or https://)",
            ),
            (
                ConfigProblem::Url {
                    url: "http://h/m cp".into(),
                    problem: UrlProblem::Whitespace,
                },
                "invalid URL \"http://h/m cp\": it contains whitespace",
            ),
            (
                ConfigProblem::HeaderName {
                    name: "Bad Header".into(),
                },
                "invalid header name \"Bad Header\"",
            ),
            (
                ConfigProblem::ZeroTimeout,
                "\"timeout\" must be more than 0 milliseconds",
            ),
            (
                ConfigProblem::NotToolNames {
                    key: "enabledTools",
                },
                "\"enabledTools\" must be a list of tool names",
            ),
            (
                ConfigProblem::NotPositive { key: "toolTimeout" },
                "\"toolTimeout\" must be a whole number more than 0",
            ),
            (
                ConfigProblem::NotBoolean { key: "reconnect" },
                "\"reconnect\" must be true or false",
            ),
            (
                ConfigProblem::HeadersHelper,
                "\"headersHelper\" must be a command line (a string), and only an http or sse \
                 server sends headers",
            ),
            (
                ConfigProblem::ProtocolVersionShape,
                "\"protocolVersion\" must be a protocol revision such as \"2026-07-28\" or \"2025-11-25\", or left out to let the client find the server's",
            ),
            (
                ConfigProblem::UnsupportedProtocolVersion {
                    pinned: "2099-01-01".into(),
                    supported: "2026-07-28, 2025-11-25".into(),
                },
                "\"protocolVersion\" is \"2099-01-01\", a revision this client does not speak (it speaks 2026-07-28, 2025-11-25); change the pin or leave it out",
            ),
            (
                ConfigProblem::RootsShape,
                "\"roots\" must be a list of folders, or false to offer the server no roots",
            ),
            (
                ConfigProblem::EmptyRoot { index: 1 },
                "\"roots[1]\" is empty: write a folder",
            ),
            (
                ConfigProblem::RootInHome {
                    index: 2,
                    folder: "~/notes".into(),
                },
                "\"roots[2]\" is \"~/notes\": ~ is not expanded here; write the folder's full path (in your own files, ${HOME}/… is expanded; a project's cannot name a folder by a variable)",
            ),
            (
                ConfigProblem::RootAsUri {
                    index: 0,
                    folder: "file:///etc".into(),
                },
                "\"roots[0]\" is \"file:///etc\": roots are folders, not URIs; write the folder's path",
            ),
            (
                ConfigProblem::StdioAuthSetting { key: "grant" },
                "\"auth.grant\" is for http and sse servers; a stdio server's token comes from the credential store",
            ),
            (
                OAuthProblem::ValueAndFile {
                    key: "assertion",
                    file_key: "assertionFile",
                }
                .into(),
                "\"auth\" sets both \"assertion\" and \"assertionFile\"; keep one",
            ),
            (
                OAuthProblem::UnknownGrant {
                    grant: Value::from(3),
                }
                .into(),
                "\"auth.grant\" is 3; use \"authorizationCode\" (the default), \"clientCredentials\", \"workloadIdentity\" or \"enterpriseManaged\"",
            ),
            (
                unknown(AuthSettingKind::Grant),
                "auth: an unknown kind of OAuth grant",
            ),
            (
                unknown(AuthSettingKind::ClientCredential),
                "auth: an unknown kind of client credential",
            ),
            (
                unknown(AuthSettingKind::CredentialSetting),
                "auth: an unknown kind of credential setting",
            ),
            (
                expansion(
                    "env.TOKEN",
                    ExpandError::Unset {
                        variable: "TOKEN".into(),
                    },
                ),
                "environment variable \"TOKEN\" is not set (used in env.TOKEN); set it or give a default with ${TOKEN:-default}",
            ),
            (
                expansion("args[1]", ExpandError::TooDeep),
                "args[1]: defaults nested more than 8 deep",
            ),
        ] {
            assert_eq!(problem.to_string(), message);
            assert_eq!(
                ServerProblem::new("x", problem).to_string(),
                format!("Server \"x\": {message}")
            );
        }
    }

    #[test]
    fn a_server_name_or_value_is_quoted_short_and_with_hidden_characters_escaped() {
        let problem = ServerProblem::new(
            "evil\u{1b}[2K",
            ConfigProblem::HeaderName {
                name: "x".repeat(500),
            },
        );
        let message = problem.to_string();
        assert!(
            message.starts_with("Server \"evil\\u{1b}[2K\": invalid header name \"xxx"),
            "{message}"
        );
        assert!(message.ends_with("… (500 bytes in all)\""), "{message}");
    }
}
