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

use std::error::Error;
use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use crate::expand::MAX_NESTING;
use crate::server_config::TransportKind;
use crate::validate::quoted;

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
         (${{HOME}}/… is expanded)",
        quoted(.folder)
    )]
    RootInHome {
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

/// Why a provider could not turn an entry of its file into a definition. A provider outside
/// this crate (a [`ConfigSource`](crate::ConfigSource) of the agent's) says why with its own
/// error type: [`EntryProblem::other`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EntryProblem {
    /// The entry is not a JSON object.
    #[error("the entry must be an object")]
    NotAnObject,
    /// A Codex entry is not a TOML table.
    #[error("the entry must be a table ([mcp_servers.<name>])")]
    NotATable,
    /// The entry does not have the runtime's shape (a field of the wrong type).
    #[error("invalid settings: {0}")]
    Settings(Shared<serde_json::Error>),
    /// Both `command` and `url` are set.
    #[error("both \"command\" and \"url\" are set; keep one")]
    CommandAndUrl,
    /// A stdio entry has no `command`.
    #[error("stdio server requires \"command\" field")]
    NoCommand,
    /// A remote entry has no `url`.
    #[error("{kind} server requires \"url\" field")]
    NoUrl {
        /// Its transport.
        kind: TransportKind,
    },
    /// A setting is not a string.
    #[error("\"{}\" must be a string", quoted(.key))]
    NotString {
        /// The setting as the tool names it.
        key: String,
    },
    /// A setting is not a list of strings.
    #[error("\"{}\" must be a list of strings", quoted(.key))]
    NotStringList {
        /// The setting as the tool names it.
        key: String,
    },
    /// A setting is not a map of strings.
    #[error("\"{}\" must be {noun} of strings", quoted(.key))]
    NotStringMap {
        /// The setting as the tool names it.
        key: String,
        /// What the tool's format calls a map: `a table`, `an object`.
        noun: &'static str,
    },
    /// A setting is not a boolean.
    #[error("\"{key}\" must be true or false")]
    NotBoolean {
        /// The setting.
        key: &'static str,
    },
    /// A timeout is not a non-negative number of milliseconds.
    #[error("\"{key}\" must be a non-negative number of milliseconds")]
    NotMilliseconds {
        /// The setting.
        key: &'static str,
    },
    /// A Codex timeout is not a non-negative number of seconds.
    #[error("\"{}\" must be a non-negative number of seconds", quoted(.key))]
    NotSeconds {
        /// The setting.
        key: String,
    },
    /// A Codex timeout is not a non-negative whole number of milliseconds.
    #[error("\"{}\" must be a non-negative whole number of milliseconds", quoted(.key))]
    NotWholeMilliseconds {
        /// The setting.
        key: String,
    },
    /// A Codex entry holds its bearer token inline.
    #[error(
        "Codex does not accept an inline \"bearer_token\"; put the token in an environment \
         variable and name it in \"bearer_token_env_var\""
    )]
    InlineBearerToken,
    /// A Gemini CLI entry is a WebSocket server.
    #[error("WebSocket servers (\"tcp\") are not supported; use a stdio or HTTP server")]
    WebSocket,
    /// An OpenCode local server's `command` list is empty.
    #[error("\"command\" must list the program and its arguments, e.g. [\"npx\", \"-y\", \"pkg\"]")]
    NoProgram,
    /// An OpenCode remote server has no `url` string.
    #[error("a remote server needs a \"url\" string")]
    RemoteWithoutUrl,
    /// A Goose extension that is not an MCP server this runtime can start (`builtin`,
    /// `platform`, `frontend`, `inline_python`): it runs inside Goose.
    #[error(
        "a {tool} \"{kind}\" extension runs inside {tool}; it is not an MCP server this runtime can start"
    )]
    InsideTheTool {
        /// The tool, e.g. `Goose`.
        tool: &'static str,
        /// The extension's type, e.g. `builtin`.
        kind: String,
    },
    /// A Zed entry with neither `command` nor `url`: a server a Zed extension provides, whose
    /// command only that extension knows.
    #[error(
        "a {tool} extension provides this server and supplies its command, which this runtime \
         cannot know; give the entry a \"command\" (or a \"url\") to use it here"
    )]
    ExtensionProvided {
        /// The tool, e.g. `Zed`.
        tool: &'static str,
    },
    /// An entry of a servers list (Continue's `mcpServers`) has no `name`; it is shown under
    /// its place in the list (`mcpServers[2]`).
    #[error("the entry has no \"name\"; give it one")]
    Unnamed,
    /// A Continue `uses:` entry: the server's settings are in a block the tool fetches (from
    /// its hub, or another file), which this runtime does not follow.
    #[error(
        "the entry is the {tool} block \"{}\" (\"uses\"), whose settings {tool} fetches from \
         its hub or another file; this runtime does not follow it: write the server's settings \
         in the entry instead",
        quoted(.reference)
    )]
    BlockReference {
        /// The tool, e.g. `Continue`.
        tool: &'static str,
        /// The block as `uses` names it, e.g. `anthropic/github-mcp`.
        reference: String,
    },
    /// An OpenCode entry's `type` is neither `local` nor `remote`.
    #[error("\"type\" must be \"local\" or \"remote\"")]
    LocalOrRemote,
    /// A field uses a placeholder of the tool's that this runtime cannot resolve.
    #[error("{} uses {}: {reason}", quoted(.field), quoted(.placeholder))]
    Placeholder {
        /// The field, e.g. `env.TOKEN`.
        field: String,
        /// The placeholder as written, e.g. `${input:token}`.
        placeholder: String,
        /// Why it cannot be resolved.
        reason: PlaceholderProblem,
    },
    /// A provider outside this crate refused the entry, for a reason of its own.
    #[error("{0}")]
    Other(Shared<dyn Error + Send + Sync>),
}

impl EntryProblem {
    /// A problem of a provider outside this crate, with its own error type.
    pub fn other(error: impl Error + Send + Sync + 'static) -> Self {
        Self::Other(Shared::new(Arc::new(error)))
    }
}

/// Why a placeholder of another tool's cannot be resolved here ([`EntryProblem::Placeholder`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PlaceholderProblem {
    /// VS Code's `${input:…}`: the value comes from a prompt only VS Code shows.
    #[error(
        "the value comes from a VS Code input prompt{}, which this runtime cannot show; set the \
         value in the config, or put it in an environment variable and write ${{VAR}}, instead",
        described(.description.as_deref())
    )]
    InputPrompt {
        /// The input's description, when the file gives one.
        description: Option<String>,
    },
    /// VS Code's `${command:…}` or `${config:…}`.
    #[error(
        "only VS Code can resolve that variable; set the value in the config, or put it in an \
         environment variable and write ${{VAR}}, instead"
    )]
    EditorOnly,
    /// A `file:` placeholder (Windsurf's `${file:…}`, OpenCode's `{file:…}`): the tool reads
    /// the value from a file.
    #[error(
        "{tool} reads that value from a file, which this runtime does not do; put the value in an \
         environment variable and write ${{VAR}} instead"
    )]
    FromFile {
        /// The tool, e.g. `Windsurf`.
        tool: &'static str,
    },
    /// A shell command substitution (Crush's `$(…)`): the tool runs the command when it loads
    /// the file.
    #[error(
        "{tool} runs that command when it loads the file; this runtime never runs a command \
         from another tool's config value: put the value in an environment variable and write \
         ${{VAR}} instead"
    )]
    CommandSubstitution {
        /// The tool, e.g. `Crush`.
        tool: &'static str,
    },
    /// Continue's `${{ secrets.NAME }}` or `${{ inputs.NAME }}` (or another `${{ … }}`):
    /// Continue fills it from its own secrets (the Continue Hub, or a `.env` file it reads),
    /// which this runtime does not read. Only the secret's name is kept, never a value.
    #[error(
        "Continue fills that from its secrets (the Continue Hub or a .env file), which this \
         runtime does not read; {}",
        secret_advice(.name)
    )]
    ContinueSecret {
        /// The secret's name as written, e.g. `GITHUB_TOKEN` (the whole variable, e.g.
        /// `continue.x`, when it is not a secret or an input).
        name: String,
    },
}

/// What to do instead of a Continue secret ([`PlaceholderProblem::ContinueSecret`]): name the
/// variable to set when the secret's name can be one.
fn secret_advice(name: &str) -> String {
    if crate::expand::is_variable_name(name) {
        format!("set {name} in the environment and write ${{{name}}} instead")
    } else {
        "put the value in an environment variable and write ${VAR} instead".to_owned()
    }
}

/// An input's description as [`PlaceholderProblem::InputPrompt`] shows it.
fn described(description: Option<&str>) -> String {
    description
        .map(|text| format!(" (\"{}\")", quoted(text)))
        .unwrap_or_default()
}

/// An error of another crate's, shared: cheap to clone; two are equal when they are the same
/// error (not merely alike).
pub struct Shared<E: ?Sized>(Arc<E>);

impl<E: ?Sized> Shared<E> {
    /// Shares `error`.
    pub fn new(error: Arc<E>) -> Self {
        Self(error)
    }

    /// The error.
    pub fn get(&self) -> &E {
        &self.0
    }
}

impl<E: ?Sized> Clone for Shared<E> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<E: ?Sized> PartialEq for Shared<E> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl<E: ?Sized> Eq for Shared<E> {}

impl<E: fmt::Debug + ?Sized> fmt::Debug for Shared<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl<E: fmt::Display + ?Sized> fmt::Display for Shared<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl<E: Error + ?Sized> Error for Shared<E> {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.0.source()
    }
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
                "\"roots[2]\" is \"~/notes\": ~ is not expanded here; write the folder's full path (${HOME}/… is expanded)",
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

    /// Every entry problem reads as the message its provider printed before.
    #[test]
    fn each_entry_problem_reads_as_the_message_its_provider_printed() {
        let settings = serde_json::from_str::<Vec<String>>("{}").unwrap_err();
        let settings_text = format!("invalid settings: {settings}");
        let placeholder = |placeholder: &str, reason| EntryProblem::Placeholder {
            field: "env.TOKEN".to_owned(),
            placeholder: placeholder.to_owned(),
            reason,
        };
        for (problem, message) in [
            (EntryProblem::NotAnObject, "the entry must be an object"),
            (
                EntryProblem::NotATable,
                "the entry must be a table ([mcp_servers.<name>])",
            ),
            (
                EntryProblem::Settings(Shared::new(Arc::new(settings))),
                settings_text.as_str(),
            ),
            (
                EntryProblem::CommandAndUrl,
                "both \"command\" and \"url\" are set; keep one",
            ),
            (
                EntryProblem::NoCommand,
                "stdio server requires \"command\" field",
            ),
            (
                EntryProblem::NoUrl {
                    kind: TransportKind::Sse,
                },
                "sse server requires \"url\" field",
            ),
            (
                EntryProblem::NotString { key: "cwd".into() },
                "\"cwd\" must be a string",
            ),
            (
                EntryProblem::NotStringList { key: "args".into() },
                "\"args\" must be a list of strings",
            ),
            (
                EntryProblem::NotStringMap {
                    key: "env".into(),
                    noun: "a table",
                },
                "\"env\" must be a table of strings",
            ),
            (
                EntryProblem::NotBoolean { key: "enabled" },
                "\"enabled\" must be true or false",
            ),
            (
                EntryProblem::NotMilliseconds { key: "timeout" },
                "\"timeout\" must be a non-negative number of milliseconds",
            ),
            (
                EntryProblem::NotSeconds {
                    key: "tool_timeout_sec".into(),
                },
                "\"tool_timeout_sec\" must be a non-negative number of seconds",
            ),
            (
                EntryProblem::NotWholeMilliseconds {
                    key: "startup_timeout_ms".into(),
                },
                "\"startup_timeout_ms\" must be a non-negative whole number of milliseconds",
            ),
            (
                EntryProblem::InlineBearerToken,
                "Codex does not accept an inline \"bearer_token\"; put the token in an environment variable and name it in \"bearer_token_env_var\"",
            ),
            (
                EntryProblem::WebSocket,
                "WebSocket servers (\"tcp\") are not supported; use a stdio or HTTP server",
            ),
            (
                EntryProblem::InsideTheTool {
                    tool: "Goose",
                    kind: "builtin".to_owned(),
                },
                "a Goose \"builtin\" extension runs inside Goose; it is not an MCP server this runtime can start",
            ),
            (
                EntryProblem::ExtensionProvided { tool: "Zed" },
                "a Zed extension provides this server and supplies its command, which this runtime cannot know; give the entry a \"command\" (or a \"url\") to use it here",
            ),
            (
                EntryProblem::NoProgram,
                "\"command\" must list the program and its arguments, e.g. [\"npx\", \"-y\", \"pkg\"]",
            ),
            (
                EntryProblem::RemoteWithoutUrl,
                "a remote server needs a \"url\" string",
            ),
            (
                EntryProblem::LocalOrRemote,
                "\"type\" must be \"local\" or \"remote\"",
            ),
            (
                placeholder(
                    "${input:token}",
                    PlaceholderProblem::InputPrompt {
                        description: Some("Your API key".into()),
                    },
                ),
                "env.TOKEN uses ${input:token}: the value comes from a VS Code input prompt (\"Your API key\"), which this runtime cannot show; set the value in the config, or put it in an environment variable and write ${VAR}, instead",
            ),
            (
                placeholder(
                    "${input:token}",
                    PlaceholderProblem::InputPrompt { description: None },
                ),
                "env.TOKEN uses ${input:token}: the value comes from a VS Code input prompt, which this runtime cannot show; set the value in the config, or put it in an environment variable and write ${VAR}, instead",
            ),
            (
                placeholder("${config:x}", PlaceholderProblem::EditorOnly),
                "env.TOKEN uses ${config:x}: only VS Code can resolve that variable; set the value in the config, or put it in an environment variable and write ${VAR}, instead",
            ),
            (
                placeholder(
                    "${file:/k}",
                    PlaceholderProblem::FromFile { tool: "Windsurf" },
                ),
                "env.TOKEN uses ${file:/k}: Windsurf reads that value from a file, which this runtime does not do; put the value in an environment variable and write ${VAR} instead",
            ),
            (
                placeholder(
                    "{file:~/k}",
                    PlaceholderProblem::FromFile { tool: "OpenCode" },
                ),
                "env.TOKEN uses {file:~/k}: OpenCode reads that value from a file, which this runtime does not do; put the value in an environment variable and write ${VAR} instead",
            ),
            (
                placeholder(
                    "$(pass show gh)",
                    PlaceholderProblem::CommandSubstitution { tool: "Crush" },
                ),
                "env.TOKEN uses $(pass show gh): Crush runs that command when it loads the file; this runtime never runs a command from another tool's config value: put the value in an environment variable and write ${VAR} instead",
            ),
            (
                placeholder(
                    "${{ secrets.GH_TOKEN }}",
                    PlaceholderProblem::ContinueSecret {
                        name: "GH_TOKEN".into(),
                    },
                ),
                "env.TOKEN uses ${{ secrets.GH_TOKEN }}: Continue fills that from its secrets (the Continue Hub or a .env file), which this runtime does not read; set GH_TOKEN in the environment and write ${GH_TOKEN} instead",
            ),
            (
                placeholder(
                    "${{ secrets.acme/tools/KEY-1 }}",
                    PlaceholderProblem::ContinueSecret {
                        name: "acme/tools/KEY-1".into(),
                    },
                ),
                "env.TOKEN uses ${{ secrets.acme/tools/KEY-1 }}: Continue fills that from its secrets (the Continue Hub or a .env file), which this runtime does not read; put the value in an environment variable and write ${VAR} instead",
            ),
            (
                EntryProblem::Unnamed,
                "the entry has no \"name\"; give it one",
            ),
            (
                EntryProblem::BlockReference {
                    tool: "Continue",
                    reference: "anthropic/github-mcp".into(),
                },
                "the entry is the Continue block \"anthropic/github-mcp\" (\"uses\"), whose settings Continue fetches from its hub or another file; this runtime does not follow it: write the server's settings in the entry instead",
            ),
        ] {
            assert_eq!(problem.to_string(), message);
            assert_eq!(
                ServerProblem::new("x", problem.into()).to_string(),
                format!("Server \"x\": {message}")
            );
        }
    }

    #[test]
    fn a_provider_of_the_agents_gives_its_own_error_and_it_stays_that_error() {
        #[derive(Debug, thiserror::Error)]
        #[error("the entry needs a \"region\"")]
        struct NoRegion;

        let problem = EntryProblem::other(NoRegion);
        assert_eq!(problem.to_string(), "the entry needs a \"region\"");
        let EntryProblem::Other(error) = &problem else {
            panic!("{problem:?}");
        };
        assert!(error.get().downcast_ref::<NoRegion>().is_some());
        // Equal to itself shared, not to another error that reads the same.
        assert_eq!(problem.clone(), problem);
        assert_ne!(problem, EntryProblem::other(NoRegion));
    }
}
