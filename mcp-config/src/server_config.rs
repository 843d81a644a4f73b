//! [`ServerConfig`]: one MCP server as configured, and where it came from ([`SourceMeta`]).
//!
//! Every provider turns its tool's format into this one shape, so the rest of the runtime sees a
//! single kind of configuration whatever file it came from. Fields this crate does not know are
//! kept in [`ServerConfig::extra`] and written back unchanged.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

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
}

impl TransportKind {
    /// The wire name: `stdio`, `http` or `sse`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Stdio => "stdio",
            Self::Http => "http",
            Self::Sse => "sse",
        }
    }
}

impl fmt::Display for TransportKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How to reach a server: a stdio command, or a URL with headers.
///
/// Matched exhaustively on purpose (it is not `#[non_exhaustive]`): a new transport is a compile
/// error wherever it is not handled, instead of a catch-all arm that fails at run time.
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
    pub fn new<I, S>(command: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
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
        }
        slots
    }
}

/// One configured MCP server, in the runtime's own shape (also the format of the native
/// `mcp.json` files under `mcpServers`).
///
/// Values may hold `${VAR}` / `${VAR:-default}` references (expanded at discovery) and, in `env`
/// and `headers`, `!command` values (run at connect time by
/// [`resolve_auth_config`](crate::resolve_auth_config)).
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
}

impl ServerConfig {
    /// A server reached through `transport`, with every other setting at its default.
    pub fn new(transport: TransportConfig) -> Self {
        Self {
            transport,
            enabled: None,
            timeout: None,
            auth: None,
            extra: Map::new(),
        }
    }

    /// A stdio server.
    pub fn stdio<I, S>(command: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
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
        }
        if let Some(auth) = &mut copy.auth {
            // Client ids and secrets, scopes: none of it is for display.
            for value in auth.extra.values_mut() {
                *value = Value::String(REDACTED.to_owned());
            }
        }
        copy
    }

    /// The flat on-disk shape.
    fn to_raw(&self) -> RawServerConfig {
        let mut raw = RawServerConfig {
            enabled: self.enabled,
            timeout: self.timeout,
            auth: self.auth.clone(),
            extra: self.extra.clone(),
            ..RawServerConfig::default()
        };
        match &self.transport {
            TransportConfig::Stdio(stdio) => {
                raw.command = Some(stdio.command.clone());
                raw.args.clone_from(&stdio.args);
                raw.env.clone_from(&stdio.env);
                raw.cwd.clone_from(&stdio.cwd);
            }
            TransportConfig::Http(remote) | TransportConfig::Sse(remote) => {
                raw.transport = Some(self.transport_kind().as_str().to_owned());
                raw.url = Some(remote.url.clone());
                raw.headers.clone_from(&remote.headers);
            }
        }
        raw
    }
}

fn redact_values(map: &mut BTreeMap<String, String>) {
    for value in map.values_mut() {
        *value = REDACTED.to_owned();
    }
}

/// A server entry as files write it: the transport's fields side by side, each optional.
/// Providers fill it; [`RawServerConfig::into_config`] checks that it names one transport.
#[derive(Default, Serialize, Deserialize)]
pub(crate) struct RawServerConfig {
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub(crate) transport: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) command: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) args: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) env: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cwd: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) url: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) headers: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) timeout: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) auth: Option<AuthConfig>,
    #[serde(flatten)]
    pub(crate) extra: Map<String, Value>,
}

impl RawServerConfig {
    /// The entry as a [`ServerConfig`], or what keeps it from being one (messages that do not
    /// name the server; the caller does).
    pub(crate) fn into_config(self) -> Result<ServerConfig, String> {
        let Self {
            transport,
            command,
            args,
            env,
            cwd,
            url,
            headers,
            enabled,
            timeout,
            auth,
            mut extra,
        } = self;
        let kind = match transport.as_deref() {
            None if url.is_some() && command.is_none() => TransportKind::Http,
            None | Some("stdio") => TransportKind::Stdio,
            Some("http" | "streamable-http" | "streamableHttp") => TransportKind::Http,
            Some("sse") => TransportKind::Sse,
            Some(other) => {
                return Err(format!(
                    "unknown transport type \"{other}\" (expected \"stdio\", \"http\" or \"sse\")"
                ));
            }
        };
        if command.is_some() && url.is_some() {
            return Err("both \"command\" and \"url\" are set; keep one".to_owned());
        }
        // Settings of the other transport are kept as written, unused.
        let mut keep = |key: &str, value: Value| {
            extra.insert(key.to_owned(), value);
        };
        let transport = match kind {
            TransportKind::Stdio => {
                let Some(command) = command else {
                    return Err("stdio server requires \"command\" field".to_owned());
                };
                if !headers.is_empty() {
                    keep("headers", json_of(&headers));
                }
                TransportConfig::Stdio(StdioConfig {
                    command,
                    args,
                    env,
                    cwd,
                })
            }
            TransportKind::Http | TransportKind::Sse => {
                let Some(url) = url else {
                    return Err(format!("{kind} server requires \"url\" field"));
                };
                if !args.is_empty() {
                    keep("args", json_of(&args));
                }
                if !env.is_empty() {
                    keep("env", json_of(&env));
                }
                if let Some(cwd) = cwd {
                    keep("cwd", Value::String(cwd));
                }
                let remote = RemoteConfig { url, headers };
                if kind == TransportKind::Sse {
                    TransportConfig::Sse(remote)
                } else {
                    TransportConfig::Http(remote)
                }
            }
        };
        Ok(ServerConfig {
            transport,
            enabled,
            timeout,
            auth,
            extra,
        })
    }
}

fn json_of<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

impl Serialize for ServerConfig {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_raw().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ServerConfig {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        RawServerConfig::deserialize(deserializer)?
            .into_config()
            .map_err(serde::de::Error::custom)
    }
}

/// The connect timeout when a server sets none.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;

/// What replaces a secret in output meant for people.
pub const REDACTED: &str = "<redacted>";

/// Hides the values of query parameters and any userinfo of a URL (API keys often sit there).
pub(crate) fn redact_url_secrets(url: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let base = match base.split_once("://") {
        Some((scheme, rest)) => match rest.split_once('@') {
            Some((_, host)) if !host.contains('/') || rest.find('@') < rest.find('/') => {
                format!("{scheme}://{REDACTED}@{host}")
            }
            _ => base.to_owned(),
        },
        None => base.to_owned(),
    };
    match query {
        None => base,
        Some(query) => {
            let redacted: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((key, _)) => format!("{key}={REDACTED}"),
                    None => pair.to_owned(),
                })
                .collect();
            format!("{base}?{}", redacted.join("&"))
        }
    }
}

/// Keys shown, values replaced by [`REDACTED`]: env and header values are secrets more often
/// than not, so no `Debug` of this crate shows them.
pub(crate) struct RedactedMap<'a>(pub(crate) &'a BTreeMap<String, String>);

impl fmt::Debug for RedactedMap<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.0.keys().map(|key| (key, REDACTED)))
            .finish()
    }
}

impl fmt::Debug for TransportConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Stdio(stdio) => f.debug_tuple("Stdio").field(stdio).finish(),
            Self::Http(remote) => f.debug_tuple("Http").field(remote).finish(),
            Self::Sse(remote) => f.debug_tuple("Sse").field(remote).finish(),
        }
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

/// How a server authenticates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AuthConfig {
    /// `oauth`: an access token from the agent's [`AuthStorage`](crate::AuthStorage) is sent.
    #[serde(rename = "type")]
    pub kind: String,
    /// Other settings (scopes, client id, …), kept as written.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl AuthConfig {
    /// OAuth with tokens from the agent's auth storage.
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
}

/// Whether a definition came from a project's files or from the user's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Level {
    /// A file inside the project (the current directory).
    Project,
    /// A file in the user's home or config directory.
    User,
}

impl Level {
    /// `project` or `user`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Project => "project",
            Self::User => "user",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a server definition came from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SourceMeta {
    /// The provider's id, e.g. `claude-code`.
    pub provider: String,
    /// The provider's display name, e.g. `Claude Code`.
    pub provider_name: String,
    /// The file the definition is in.
    pub path: PathBuf,
    /// Project or user level.
    pub level: Level,
}

impl SourceMeta {
    /// Metadata for a definition in `path`.
    pub fn new(
        provider: impl Into<String>,
        provider_name: impl Into<String>,
        path: impl Into<PathBuf>,
        level: Level,
    ) -> Self {
        Self {
            provider: provider.into(),
            provider_name: provider_name.into(),
            path: path.into(),
            level,
        }
    }
}

/// Checks the values of a (expanded) server configuration; one message per problem, each naming
/// the server. An empty list means the server is usable. (That the entry names one transport
/// was checked when it was read.)
pub fn validate_server_config(name: &str, config: &ServerConfig) -> Vec<String> {
    let mut problems = Vec::new();
    let mut problem = |text: String| problems.push(format!("Server \"{name}\": {text}"));
    if name.trim().is_empty() {
        problem("the server name is empty".to_owned());
    }
    match &config.transport {
        TransportConfig::Stdio(stdio) => {
            if stdio.command.trim().is_empty() {
                problem("\"command\" is empty".to_owned());
            }
            for key in stdio.env.keys() {
                if key.is_empty() || key.contains('=') || key.contains('\0') {
                    problem(format!("invalid environment variable name \"{key}\""));
                }
            }
        }
        TransportConfig::Http(remote) | TransportConfig::Sse(remote) => {
            if let Err(why) = check_url(&remote.url) {
                problem(format!(
                    "invalid URL \"{}\": {why}",
                    redact_url_secrets(&remote.url)
                ));
            }
            for key in remote.headers.keys() {
                if key.is_empty() || !key.bytes().all(is_header_name_byte) {
                    problem(format!("invalid header name \"{key}\""));
                }
            }
        }
    }
    if config.timeout == Some(0) {
        problem("\"timeout\" must be more than 0 milliseconds".to_owned());
    }
    problems
}

fn is_header_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

/// A light URL check: an http(s) scheme and a host. Enough to catch typos and unexpanded
/// placeholders before a connection attempt.
fn check_url(url: &str) -> Result<(), &'static str> {
    let Some((scheme, rest)) = url.split_once("://") else {
        return Err("it has no scheme (expected http:// or https://)");
    };
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return Err("the scheme must be http or https");
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = authority.rsplit('@').next().unwrap_or_default();
    if host.is_empty() || host.starts_with(':') {
        return Err("it has no host");
    }
    if url.chars().any(char::is_whitespace) {
        return Err("it contains whitespace");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(raw: &str) -> Result<ServerConfig, String> {
        serde_json::from_str::<RawServerConfig>(raw)
            .map_err(|error| error.to_string())?
            .into_config()
    }

    #[test]
    fn transport_is_inferred_from_command_or_url() {
        assert_eq!(
            read(r#"{"command":"npx"}"#).unwrap().transport_kind(),
            TransportKind::Stdio
        );
        assert_eq!(
            read(r#"{"url":"https://example.com/mcp"}"#)
                .unwrap()
                .transport_kind(),
            TransportKind::Http
        );
        assert_eq!(
            read(r#"{"type":"sse","url":"https://e.com/sse"}"#)
                .unwrap()
                .transport_kind(),
            TransportKind::Sse
        );
        assert_eq!(
            read(r#"{"type":"streamable-http","url":"https://e.com/mcp"}"#)
                .unwrap()
                .transport,
            TransportConfig::Http(RemoteConfig::new("https://e.com/mcp"))
        );
    }

    #[test]
    fn an_entry_must_name_exactly_one_known_transport() {
        assert_eq!(
            read("{}").unwrap_err(),
            "stdio server requires \"command\" field"
        );
        assert_eq!(
            read(r#"{"type":"sse"}"#).unwrap_err(),
            "sse server requires \"url\" field"
        );
        assert_eq!(
            read(r#"{"command":"npx","url":"https://h/mcp"}"#).unwrap_err(),
            "both \"command\" and \"url\" are set; keep one"
        );
        assert_eq!(
            read(r#"{"type":"websocket","command":"npx"}"#).unwrap_err(),
            "unknown transport type \"websocket\" (expected \"stdio\", \"http\" or \"sse\")"
        );
    }

    #[test]
    fn unknown_fields_and_the_other_transports_settings_are_kept() {
        let raw = r#"{"command":"x","alwaysAllow":["a"],"disabled":false}"#;
        let config: ServerConfig = serde_json::from_str(raw).unwrap();
        assert_eq!(config.extra["alwaysAllow"], serde_json::json!(["a"]));
        assert_eq!(serde_json::to_string(&config).unwrap(), raw);

        let mixed = r#"{"command":"x","headers":{"A":"b"}}"#;
        let config: ServerConfig = serde_json::from_str(mixed).unwrap();
        assert_eq!(
            config.transport,
            TransportConfig::Stdio(StdioConfig::new("x", Vec::<String>::new()))
        );
        assert_eq!(serde_json::to_string(&config).unwrap(), mixed);
    }

    #[test]
    fn remote_servers_are_written_with_their_type() {
        let config = ServerConfig::http("https://h/mcp");
        assert_eq!(
            serde_json::to_string(&config).unwrap(),
            r#"{"type":"http","url":"https://h/mcp"}"#
        );
        assert_eq!(
            serde_json::to_string(&ServerConfig::stdio("npx", ["-y", "x"])).unwrap(),
            r#"{"command":"npx","args":["-y","x"]}"#
        );
    }

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
    fn url_secrets_are_redacted() {
        assert_eq!(
            redact_url_secrets("https://u:p@mcp.exa.ai/mcp?exaApiKey=abc&x"),
            "https://<redacted>@mcp.exa.ai/mcp?exaApiKey=<redacted>&x"
        );
        assert_eq!(redact_url_secrets("https://h/p"), "https://h/p");
    }

    #[test]
    fn every_validation_message_names_the_server() {
        let check = |config: ServerConfig| validate_server_config("x", &config);
        assert_eq!(
            check(ServerConfig::http("ftp://h/mcp")),
            ["Server \"x\": invalid URL \"ftp://h/mcp\": the scheme must be http or https"]
        );
        assert_eq!(
            check(ServerConfig::sse("localhost:3000/mcp")),
            [
                "Server \"x\": invalid URL \"localhost:3000/mcp\": it has no scheme (expected http:// or https://)"
            ]
        );
        assert_eq!(
            check(ServerConfig::http("http:///mcp")),
            ["Server \"x\": invalid URL \"http:///mcp\": it has no host"]
        );
        assert_eq!(
            check(ServerConfig::stdio("  ", Vec::<String>::new())),
            ["Server \"x\": \"command\" is empty"]
        );
        let zero_timeout = ServerConfig {
            timeout: Some(0),
            ..ServerConfig::stdio("npx", ["y"])
        };
        assert_eq!(
            check(zero_timeout),
            ["Server \"x\": \"timeout\" must be more than 0 milliseconds"]
        );
        let mut bad_names = RemoteConfig::new("https://h/mcp");
        bad_names.headers.insert("Bad Header".into(), "v".into());
        assert_eq!(
            check(ServerConfig::new(TransportConfig::Http(bad_names))),
            ["Server \"x\": invalid header name \"Bad Header\""]
        );
        let mut bad_env = StdioConfig::new("npx", ["y"]);
        bad_env.env.insert("A=B".into(), "v".into());
        assert_eq!(
            check(ServerConfig::new(TransportConfig::Stdio(bad_env))),
            ["Server \"x\": invalid environment variable name \"A=B\""]
        );
        assert!(check(ServerConfig::stdio("npx", ["y"])).is_empty());
        assert_eq!(
            validate_server_config(" ", &ServerConfig::stdio("npx", ["y"])),
            ["Server \" \": the server name is empty"]
        );
    }
}
