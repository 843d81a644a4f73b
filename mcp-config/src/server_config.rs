//! [`ServerConfig`]: one MCP server as configured, its transport an exhaustive
//! [`TransportConfig`].
//!
//! Every provider turns its tool's format into this one shape, so the rest of the runtime sees a
//! single kind of configuration whatever file it came from. Fields this crate does not know are
//! kept in [`ServerConfig::extra`] and written back unchanged.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::entry_keys::{ALWAYS_LOAD_KEY, HEADERS_HELPER, PROTOCOL_VERSION_KEY, ROOTS_KEY};
use crate::policy::reach::ReachPolicy;
use crate::redact::{REDACTED, RedactedMap, redact_url_secrets};

/// How the runtime talks to a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum TransportKind {
    /// A child process speaking JSON-RPC on stdin/stdout.
    Stdio,
    /// Streamable HTTP (falls back to legacy SSE at connect time when the server is old).
    Http,
    /// Legacy HTTP+SSE.
    Sse,
    /// A transport no built-in one knows, for a plugin's connector to claim (its own name is
    /// [`TransportConfig::type_name`]).
    Custom,
}

impl TransportKind {
    /// The wire name: `stdio`, `http`, `sse`, or `custom` for a plugin's transport.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Stdio => "stdio",
            Self::Http => "http",
            Self::Sse => "sse",
            Self::Custom => "custom",
        }
    }
}

impl fmt::Display for TransportKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How to reach a server: a stdio command, a URL with headers, or a plugin's transport.
///
/// Matched exhaustively on purpose (it is not `#[non_exhaustive]`): a new transport is a compile
/// error wherever it is not handled, instead of a catch-all arm that fails at run time. An entry
/// whose `type` no built-in transport knows is not refused: it is kept as
/// [`Custom`](Self::Custom), with its raw fields, for a transport plugin's connector to claim
/// (the manager fails it, naming the type, when none does).
#[derive(Clone, PartialEq)]
#[allow(
    clippy::exhaustive_enums,
    reason = "matched exhaustively on purpose; see the type's doc"
)]
pub enum TransportConfig {
    /// A child process speaking JSON-RPC on stdin/stdout.
    Stdio(StdioConfig),
    /// Streamable HTTP (falls back to legacy SSE at connect time when the server is old).
    Http(RemoteConfig),
    /// Legacy HTTP+SSE.
    Sse(RemoteConfig),
    /// A transport plugin's entry: its `type` and its fields as written.
    Custom(CustomTransport),
}

/// An entry of a transport no built-in one knows (`"type": "unix"`), kept as written for the
/// plugin that connects it.
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub struct CustomTransport {
    /// The entry's `type`.
    pub kind: String,
    /// Every other field of the entry as written (`${VAR}` references expanded), except
    /// `enabled`, `timeout` and `auth`, which the [`ServerConfig`] keeps: `command`, `url`,
    /// the plugin's own fields, and the settings this runtime reads too (`required`, tool
    /// filters, …).
    pub fields: Map<String, Value>,
}

impl CustomTransport {
    /// An entry of type `kind` with `fields`.
    pub fn new(kind: impl Into<String>, fields: Map<String, Value>) -> Self {
        Self {
            kind: kind.into(),
            fields,
        }
    }
}

/// A stdio server's command line, environment and working directory.
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub struct StdioConfig {
    /// The program (looked up in `PATH` when it has no slash).
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables added to the inherited environment.
    pub env: BTreeMap<String, String>,
    /// The working directory; the agent's own when `None`.
    pub cwd: Option<String>,
}

/// A remote server's endpoint and the headers sent to it.
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub struct RemoteConfig {
    /// The endpoint.
    pub url: String,
    /// Headers sent with every request.
    pub headers: BTreeMap<String, String>,
}

impl StdioConfig {
    /// `command args…` with no environment of its own and the agent's working directory.
    pub fn new(command: impl Into<String>, args: impl IntoIterator<Item: Into<String>>) -> Self {
        Self {
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: BTreeMap::new(),
            cwd: None,
        }
    }
}

impl RemoteConfig {
    /// An endpoint with no headers.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            headers: BTreeMap::new(),
        }
    }
}

impl TransportConfig {
    /// The transport's tag: `stdio`, `http` or `sse`.
    pub const fn kind(&self) -> TransportKind {
        match self {
            Self::Stdio(_) => TransportKind::Stdio,
            Self::Http(_) => TransportKind::Http,
            Self::Sse(_) => TransportKind::Sse,
            Self::Custom(_) => TransportKind::Custom,
        }
    }

    /// The `type` as an entry names it: `stdio`, `http`, `sse`, or a plugin's own (`unix`).
    pub fn type_name(&self) -> &str {
        match self {
            Self::Custom(custom) => &custom.kind,
            other => other.kind().as_str(),
        }
    }

    /// Every value `${VAR}` expansion (and a provider's placeholder translation) applies to,
    /// named as in messages: `command`, `args[0]`, `env.KEY`, `cwd`; `url`, `headers.KEY`.
    pub(crate) fn expandable_values_mut(&mut self) -> Vec<(String, &mut String)> {
        let mut slots = Vec::new();
        match self {
            Self::Stdio(stdio) => {
                slots.push(("command".to_owned(), &mut stdio.command));
                for (index, arg) in stdio.args.iter_mut().enumerate() {
                    slots.push((format!("args[{index}]"), arg));
                }
                for (key, value) in &mut stdio.env {
                    slots.push((format!("env.{key}"), value));
                }
                if let Some(cwd) = stdio.cwd.as_mut() {
                    slots.push(("cwd".to_owned(), cwd));
                }
            }
            Self::Http(remote) | Self::Sse(remote) => {
                slots.push(("url".to_owned(), &mut remote.url));
                for (key, value) in &mut remote.headers {
                    slots.push((format!("headers.{key}"), value));
                }
            }
            Self::Custom(custom) => {
                for (key, value) in &mut custom.fields {
                    string_slots(key.clone(), value, &mut slots);
                }
            }
        }
        slots
    }
}

/// Every string inside `value`, named `key`, `key[0]`, `key.inner` as in messages.
fn string_slots<'a>(name: String, value: &'a mut Value, slots: &mut Vec<(String, &'a mut String)>) {
    match value {
        Value::String(text) => slots.push((name, text)),
        Value::Array(items) => {
            for (index, item) in items.iter_mut().enumerate() {
                string_slots(format!("{name}[{index}]"), item, slots);
            }
        }
        Value::Object(fields) => {
            for (key, item) in fields.iter_mut() {
                string_slots(format!("{name}.{key}"), item, slots);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// One configured MCP server, in the runtime's own shape (also the format of the native
/// `mcp.json` files under `mcpServers`).
///
/// Values may hold `${VAR}` / `${VAR:-default}` references (expanded at discovery) and, in `env`
/// and `headers`, `!command` values (run at connect time by
/// [`resolve_auth_config`](crate::auth::resolve_auth_config)).
///
/// On disk the transport is flat: `command`, `args`, `env`, `cwd` for stdio; `url`, `headers`
/// and `type` (`http`, the default for a URL, or `sse`) for a remote server. Reading an entry
/// that names neither a command nor a URL, both, or an unknown `type` fails with a message
/// saying so. Settings of the other transport (`headers` on a stdio server, say) are kept in
/// [`extra`](Self::extra), unused.
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub struct ServerConfig {
    /// How to reach the server.
    pub transport: TransportConfig,
    /// `false` turns the server off without deleting it.
    pub enabled: Option<bool>,
    /// Connect timeout in milliseconds (default 30 000).
    pub timeout: Option<u64>,
    /// How the server authenticates, e.g. `{"type": "oauth"}`.
    pub auth: Option<AuthConfig>,
    /// Every other field, kept as written.
    pub extra: Map<String, Value>,
    /// The `env` and `headers` values (`env.KEY`, `headers.KEY`) that begin with `!` only
    /// because a `${VAR}` expanded to it: data, never a command. Set by
    /// [`expand_server_config`](crate::expand_server_config); not part of the serialized form.
    pub(crate) expanded_to_bang: BTreeSet<String>,
    /// What the enterprise policy says about where this remote server connects, for the checks
    /// made at connect time. Set by discovery; not part of the serialized form.
    pub(crate) reach: Option<ReachPolicy>,
}

impl ServerConfig {
    /// True when the `env` or `headers` value named `field` (`env.KEY`, `headers.KEY`) is a
    /// `!command` to run at connect time: it begins with `!` as written in the config, not only
    /// after a `${VAR}` in it expanded.
    pub fn is_command(&self, field: &str, value: &str) -> bool {
        value.starts_with('!') && !self.expanded_to_bang.contains(field)
    }

    /// The `headersHelper` of a remote server (Claude Code's): a shell command printing a JSON
    /// object of headers, run at connect time like a `!command` header value
    /// ([`crate::auth`]), its headers added over the written ones. `None` when the entry has
    /// none or its value is not a string.
    pub fn headers_helper(&self) -> Option<&str> {
        self.extra.get(HEADERS_HELPER).and_then(Value::as_str)
    }

    /// What the machine's enterprise policy says about the addresses and redirects this
    /// remote server's connection reaches, to be checked when it is connected (see
    /// [`ReachPolicy`]). Set by discovery on the servers it lets run when there is a managed
    /// policy; `None` otherwise (a configuration built in code, a stdio server).
    pub fn reach_policy(&self) -> Option<&ReachPolicy> {
        self.reach.as_ref()
    }

    /// A server reached through `transport`, with every other setting at its default.
    pub fn new(transport: TransportConfig) -> Self {
        Self {
            transport,
            enabled: None,
            timeout: None,
            auth: None,
            extra: Map::new(),
            expanded_to_bang: BTreeSet::new(),
            reach: None,
        }
    }

    /// A stdio server.
    pub fn stdio(command: impl Into<String>, args: impl IntoIterator<Item: Into<String>>) -> Self {
        Self::new(TransportConfig::Stdio(StdioConfig::new(command, args)))
    }

    /// A Streamable HTTP server.
    pub fn http(url: impl Into<String>) -> Self {
        Self::new(TransportConfig::Http(RemoteConfig::new(url)))
    }

    /// A legacy HTTP+SSE server.
    pub fn sse(url: impl Into<String>) -> Self {
        Self::new(TransportConfig::Sse(RemoteConfig::new(url)))
    }

    /// The transport's tag.
    pub const fn transport_kind(&self) -> TransportKind {
        self.transport.kind()
    }

    /// False when the entry says `enabled: false`.
    pub fn is_enabled(&self) -> bool {
        self.enabled != Some(false)
    }

    /// The connect timeout in milliseconds, 30 000 unless configured.
    pub fn timeout_ms(&self) -> u64 {
        self.timeout.unwrap_or(DEFAULT_TIMEOUT_MS)
    }

    /// Which of the server's tools are offered: `enabledTools` (only these) and
    /// `disabledTools` (never these), as the native format writes them (Codex's
    /// `enabled_tools` / `disabled_tools` and Gemini's `includeTools` / `excludeTools` are read
    /// into them).
    pub fn tool_filter(&self) -> ToolFilter {
        let names = |key: &str| {
            self.extra.get(key).and_then(Value::as_array).map(|names| {
                names
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
        };
        ToolFilter {
            enabled: names("enabledTools"),
            disabled: names("disabledTools").unwrap_or_default(),
        }
    }

    /// How long one tool call may take (`toolTimeout`, in milliseconds; Codex's
    /// `tool_timeout_sec` and Gemini's `timeout` are read into it), when the entry sets it.
    pub fn tool_timeout(&self) -> Option<std::time::Duration> {
        self.extra
            .get("toolTimeout")
            .and_then(Value::as_u64)
            .filter(|millis| *millis > 0)
            .map(std::time::Duration::from_millis)
    }

    /// `outputBudget`: the most bytes of one tool result from this server that reach the
    /// model, when the entry sets a positive one.
    pub fn output_budget(&self) -> Option<usize> {
        self.positive_size("outputBudget")
    }

    /// `required: true`: the session's startup waits for this server (bounded by its timeout)
    /// even when the cache has its tools.
    pub fn required(&self) -> bool {
        self.extra.get("required").and_then(Value::as_bool) == Some(true)
    }

    /// `alwaysLoad: true` (Claude Code's key): the server's tools are always offered to the
    /// model whole, never deferred behind a session's tool search.
    pub fn always_load(&self) -> bool {
        self.extra.get(ALWAYS_LOAD_KEY).and_then(Value::as_bool) == Some(true)
    }

    /// `reconnect`, when the entry sets it: `false` keeps a server that died from being
    /// reconnected by itself.
    pub fn reconnect(&self) -> Option<bool> {
        self.extra.get("reconnect").and_then(Value::as_bool)
    }

    /// `roots`, when the entry sets a valid one: `false` (offer the server no roots) or a list
    /// of folders, as written (a relative folder is resolved with [`RootsSetting::resolve`]
    /// against the folder of the file that defines the server). `None` when the entry leaves
    /// it out (the agent's own roots apply) or holds something else (which
    /// [`validate_server_config`](crate::validate_server_config) reports).
    pub fn roots(&self) -> Option<RootsSetting> {
        match self.extra.get(ROOTS_KEY)? {
            Value::Bool(false) => Some(RootsSetting::Off),
            Value::Array(folders) => folders
                .iter()
                .map(|folder| folder.as_str().map(PathBuf::from))
                .collect::<Option<Vec<_>>>()
                .map(RootsSetting::Folders),
            _ => None,
        }
    }

    /// `protocolVersion`, when the entry pins one: the MCP revision spoken to this server
    /// without finding its era first (`"2026-07-28"` for the stateless revision, a handshake-era
    /// one such as `"2025-11-25"` to skip the probe). Left out, the client asks the server.
    /// Whether the client speaks the version is for the client to say; this reads the string.
    pub fn protocol_version(&self) -> Option<&str> {
        self.extra.get(PROTOCOL_VERSION_KEY).and_then(Value::as_str)
    }

    /// The longest message accepted from this server, in bytes (`maxMessageBytes`), when the
    /// entry sets a positive one.
    pub fn max_message_bytes(&self) -> Option<usize> {
        self.positive_size("maxMessageBytes")
    }

    /// A positive whole number under `key` of `extra`.
    fn positive_size(&self, key: &str) -> Option<usize> {
        self.extra
            .get(key)
            .and_then(Value::as_u64)
            .filter(|bytes| *bytes > 0)
            .and_then(|bytes| usize::try_from(bytes).ok())
    }

    /// A copy for display: `env` and `headers` values, URL query values and userinfo, and
    /// `auth` settings are replaced by `<redacted>`.
    pub fn redacted(&self) -> Self {
        let mut copy = self.clone();
        match &mut copy.transport {
            TransportConfig::Stdio(stdio) => redact_values(&mut stdio.env),
            TransportConfig::Http(remote) | TransportConfig::Sse(remote) => {
                redact_values(&mut remote.headers);
                remote.url = redact_url_secrets(&remote.url);
            }
            TransportConfig::Custom(custom) => {
                // What a plugin keeps in its fields is unknown: every value but the shape.
                for (_, value) in custom.fields.iter_mut() {
                    redact_strings(value);
                }
            }
        }
        if let Some(helper) = copy.extra.get_mut(HEADERS_HELPER) {
            // A command line may embed a secret, as a `!command` value may.
            *helper = Value::String(REDACTED.to_owned());
        }
        if let Some(auth) = &mut copy.auth {
            // Client ids and secrets, scopes: none of it is for display.
            for value in auth.extra.values_mut() {
                *value = Value::String(REDACTED.to_owned());
            }
        }
        copy
    }
}

fn redact_strings(value: &mut Value) {
    match value {
        Value::String(text) => REDACTED.clone_into(text),
        Value::Array(items) => items.iter_mut().for_each(redact_strings),
        Value::Object(fields) => fields.values_mut().for_each(redact_strings),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

fn redact_values(map: &mut BTreeMap<String, String>) {
    for value in map.values_mut() {
        *value = REDACTED.to_owned();
    }
}

/// The connect timeout when a server sets none.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;

/// What a server's `roots` setting says it is told about the user's folders: the answer to its
/// `roots/list`, or no roots at all.
///
/// The setting exists because a server may treat roots as the folders it is allowed into:
/// `@modelcontextprotocol/server-filesystem` replaces the folders of its command line with
/// the client's roots. `"roots": false` keeps such a server on its own folders whatever the
/// agent offers; a list chooses the folders.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(
    clippy::exhaustive_enums,
    reason = "a setting is either off or a list of folders; matched exhaustively"
)]
pub enum RootsSetting {
    /// `false`: no roots; the client does not declare the `roots` capability to this server.
    Off,
    /// These folders (possibly none).
    Folders(Vec<PathBuf>),
}

impl RootsSetting {
    /// Each relative folder made absolute against `base` (the folder of the config file that
    /// defines the server, so `"roots": ["."]` in a project's `.mcp.json` is the project
    /// folder), and `.` and `..` taken out of every folder, lexically (no symlink is
    /// followed and the folder need not exist).
    #[must_use]
    pub fn resolve(self, base: &Path) -> Self {
        match self {
            Self::Off => Self::Off,
            Self::Folders(folders) => Self::Folders(
                folders
                    .iter()
                    .map(|folder| normalized(&base.join(folder)))
                    .collect(),
            ),
        }
    }
}

/// `path` without `.` components, each `..` taking out the name before it (`/..` is `/`).
pub(crate) fn normalized(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                Some(Component::CurDir | Component::ParentDir) | None => out.push(component),
            },
            other => out.push(other),
        }
    }
    out
}

impl fmt::Debug for TransportConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Stdio(stdio) => f.debug_tuple("Stdio").field(stdio).finish(),
            Self::Http(remote) => f.debug_tuple("Http").field(remote).finish(),
            Self::Sse(remote) => f.debug_tuple("Sse").field(remote).finish(),
            Self::Custom(custom) => f.debug_tuple("Custom").field(custom).finish(),
        }
    }
}

impl fmt::Debug for CustomTransport {
    /// Only the field names: a plugin's values may be secrets.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CustomTransport")
            .field("kind", &self.kind)
            .field("fields", &self.fields.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl fmt::Debug for StdioConfig {
    /// Env values are hidden.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StdioConfig")
            .field("command", &self.command)
            .field("args", &self.args)
            .field("env", &RedactedMap(&self.env))
            .field("cwd", &self.cwd)
            .finish()
    }
}

impl fmt::Debug for RemoteConfig {
    /// Header values, URL query values and userinfo are hidden.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RemoteConfig")
            .field("url", &redact_url_secrets(&self.url))
            .field("headers", &RedactedMap(&self.headers))
            .finish()
    }
}

impl fmt::Debug for ServerConfig {
    /// Secrets (env and header values, URL keys, auth settings) are hidden.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerConfig")
            .field("transport", &self.transport)
            .field("enabled", &self.enabled)
            .field("timeout", &self.timeout)
            .field("auth", &self.redacted().auth)
            .field("extra", &self.extra.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// How a server authenticates: the `auth` block of its entry.
///
/// For a remote server, `type: "oauth"` (the default when a server answers 401) may choose the
/// grant that gets its tokens and whether they are DPoP-bound — `grant`, `clientId`,
/// `clientSecret`, `privateKeyFile`, `assertion`, `assertionFile`, `idToken`, `idTokenFile`,
/// `idpTokenEndpoint`, `idpClientId`, `dpop` — read by [`oauth_settings`](Self::oauth_settings)
/// and described in [`OAuthSettings`](crate::OAuthSettings).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AuthConfig {
    /// `oauth`: the access token kept in the credential store for this server is sent (see
    /// [`resolve_auth_config`](crate::auth::resolve_auth_config)), or, for a remote server, obtained
    /// by the OAuth flow with the settings of
    /// [`extra`](Self::extra).
    #[serde(rename = "type")]
    pub kind: String,
    /// Other settings (the grant, client id, files, …), kept as written.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl AuthConfig {
    /// OAuth with tokens from the credential store.
    pub fn oauth() -> Self {
        Self {
            kind: "oauth".to_owned(),
            extra: Map::new(),
        }
    }

    /// True for `type: "oauth"`.
    pub fn is_oauth(&self) -> bool {
        self.kind.eq_ignore_ascii_case("oauth")
    }

    /// The OAuth client registered beforehand, when the settings name one: `clientId` (also
    /// spelled `client_id` or `CLIENT_ID`, as Cursor writes it) and, for a confidential client,
    /// `clientSecret` (`client_secret`, `CLIENT_SECRET`).
    pub fn oauth_client(&self) -> Option<OAuthClient> {
        let text = |names: [&str; 3]| {
            names
                .iter()
                .find_map(|name| self.extra.get(*name).and_then(Value::as_str))
                .map(str::trim)
                .filter(|value| !value.is_empty())
                .map(str::to_owned)
        };
        Some(OAuthClient {
            client_id: text(["clientId", "client_id", "CLIENT_ID"])?,
            client_secret: text(["clientSecret", "client_secret", "CLIENT_SECRET"]),
        })
    }
}

/// Which of a server's tools are offered to the agent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolFilter {
    /// Only these, when set.
    pub enabled: Option<Vec<String>>,
    /// Never these.
    pub disabled: Vec<String>,
}

impl ToolFilter {
    /// True when the tool named `tool` is offered.
    pub fn allows(&self, tool: &str) -> bool {
        self.enabled
            .as_ref()
            .is_none_or(|enabled| enabled.iter().any(|name| name == tool))
            && !self.disabled.iter().any(|name| name == tool)
    }

    /// True when every tool is offered.
    pub fn allows_all(&self) -> bool {
        self.enabled.is_none() && self.disabled.is_empty()
    }
}

/// An OAuth client registered with a server's authorization server beforehand.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OAuthClient {
    /// The client ID.
    pub client_id: String,
    /// The client secret, for a confidential client.
    pub client_secret: Option<String>,
}

impl std::fmt::Debug for OAuthClient {
    /// The secret stays hidden.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthClient")
            .field("client_id", &self.client_id)
            .field("has_secret", &self.client_secret.is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_env_or_header_values() {
        let mut remote = RemoteConfig::new("https://h/mcp?key=sk-123");
        remote
            .headers
            .insert("Authorization".into(), "Bearer sk-456".into());
        let mut config = ServerConfig::new(TransportConfig::Http(remote));
        let mut auth = AuthConfig::oauth();
        auth.extra
            .insert("CLIENT_SECRET".into(), Value::String("sk-000".into()));
        config.auth = Some(auth);
        let mut stdio = StdioConfig::new("srv", ["--flag"]);
        stdio.env.insert("TOKEN".into(), "sk-789".into());
        let shown = format!("{config:?} {stdio:?}");
        for secret in ["sk-123", "sk-456", "sk-789", "sk-000"] {
            assert!(!shown.contains(secret), "{shown}");
        }
        assert!(shown.contains("Authorization") && shown.contains("TOKEN"));
    }

    #[test]
    fn a_pre_registered_oauth_client_is_read_in_each_spelling_with_its_secret_hidden() {
        for (id_key, secret_key) in [
            ("clientId", "clientSecret"),
            ("client_id", "client_secret"),
            ("CLIENT_ID", "CLIENT_SECRET"),
        ] {
            let mut auth = AuthConfig::oauth();
            auth.extra.insert(id_key.into(), Value::from("my-client"));
            auth.extra
                .insert(secret_key.into(), Value::from("sk-client"));
            let client = auth.oauth_client().expect("a client");
            assert_eq!(client.client_id, "my-client");
            assert_eq!(client.client_secret.as_deref(), Some("sk-client"));
            assert!(!format!("{client:?}").contains("sk-client"));
        }
        let mut public = AuthConfig::oauth();
        public
            .extra
            .insert("clientId".into(), Value::from("public"));
        assert_eq!(public.oauth_client().unwrap().client_secret, None);
        let mut blank = AuthConfig::oauth();
        blank.extra.insert("clientId".into(), Value::from("  "));
        assert!(blank.oauth_client().is_none());
        assert!(AuthConfig::oauth().oauth_client().is_none());
    }

    fn with_roots(roots: Value) -> ServerConfig {
        let mut config = ServerConfig::stdio("srv", Vec::<String>::new());
        config.extra.insert("roots".into(), roots);
        config
    }

    #[test]
    fn always_load_is_on_only_when_the_entry_says_true_and_anything_else_is_a_problem() {
        let mut config = ServerConfig::stdio("srv", ["/data"]);
        assert!(!config.always_load());
        config.extra.insert("alwaysLoad".into(), Value::Bool(true));
        assert!(config.always_load());
        assert!(crate::validate_server_config("srv", &config).is_empty());
        config.extra.insert("alwaysLoad".into(), Value::from("yes"));
        assert!(!config.always_load());
        let problems = crate::validate_server_config("srv", &config);
        assert_eq!(
            problems
                .iter()
                .map(|problem| problem.problem.to_string())
                .collect::<Vec<_>>(),
            ["\"alwaysLoad\" must be true or false"]
        );
    }

    #[test]
    fn roots_is_false_or_a_list_of_folders_and_anything_else_sets_nothing() {
        assert_eq!(ServerConfig::stdio("srv", ["/data"]).roots(), None);
        assert_eq!(
            with_roots(Value::Bool(false)).roots(),
            Some(RootsSetting::Off)
        );
        assert_eq!(
            with_roots(serde_json::json!(["/data", "docs"])).roots(),
            Some(RootsSetting::Folders(vec!["/data".into(), "docs".into()]))
        );
        assert_eq!(
            with_roots(serde_json::json!([])).roots(),
            Some(RootsSetting::Folders(Vec::new()))
        );
        for invalid in [
            serde_json::json!(true),
            serde_json::json!("/data"),
            serde_json::json!(["/data", 3]),
        ] {
            assert_eq!(with_roots(invalid.clone()).roots(), None, "{invalid}");
        }
    }

    #[test]
    fn relative_roots_resolve_against_the_config_files_folder_with_dots_taken_out() {
        let setting = RootsSetting::Folders(vec![
            ".".into(),
            "docs/./api".into(),
            "../shared".into(),
            "/data/../srv/./www".into(),
            "/..".into(),
        ]);
        assert_eq!(
            setting.resolve(Path::new("/home/me/project")),
            RootsSetting::Folders(vec![
                "/home/me/project".into(),
                "/home/me/project/docs/api".into(),
                "/home/me/shared".into(),
                "/srv/www".into(),
                "/".into(),
            ])
        );
        assert_eq!(
            RootsSetting::Off.resolve(Path::new("/x")),
            RootsSetting::Off
        );
    }
}
