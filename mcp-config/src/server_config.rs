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

/// One configured MCP server, in the runtime's own shape (also the format of the native
/// `mcp.json` files under `mcpServers`).
///
/// Values may hold `${VAR}` / `${VAR:-default}` references (expanded at discovery) and, in `env`
/// and `headers`, `!command` values (run at connect time by
/// [`resolve_auth_config`](crate::resolve_auth_config)).
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ServerConfig {
    /// `stdio`, `http` or `sse`; inferred from `command` / `url` when absent. Kept as written so
    /// that an unknown value can be reported by validation.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<String>,
    /// The program of a stdio server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Variables added to the inherited environment of a stdio server.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Working directory of a stdio server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The endpoint of an HTTP or SSE server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Headers sent to an HTTP or SSE server.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// `false` turns the server off without deleting it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Connect timeout in milliseconds (default 30 000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
    /// How the server authenticates, e.g. `{"type": "oauth"}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<AuthConfig>,
    /// Every other field, kept as written.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ServerConfig {
    /// A stdio server.
    pub fn stdio<I, S>(command: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            command: Some(command.into()),
            args: args.into_iter().map(Into::into).collect(),
            ..Self::default()
        }
    }

    /// A Streamable HTTP server (`kind` http) or a legacy SSE one (`kind` sse).
    pub fn remote(kind: TransportKind, url: impl Into<String>) -> Self {
        Self {
            transport: Some(kind.as_str().to_owned()),
            url: Some(url.into()),
            ..Self::default()
        }
    }

    /// The transport: the explicit `type` when it is a known one, else `http` when there is a
    /// `url`, else `stdio`. Validation reports an unknown `type`.
    pub fn transport_kind(&self) -> TransportKind {
        match self.transport.as_deref() {
            Some("stdio") => TransportKind::Stdio,
            Some("http" | "streamable-http" | "streamableHttp") => TransportKind::Http,
            Some("sse") => TransportKind::Sse,
            _ if self.url.is_some() && self.command.is_none() => TransportKind::Http,
            _ => TransportKind::Stdio,
        }
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
        for value in copy.env.values_mut().chain(copy.headers.values_mut()) {
            *value = REDACTED.to_owned();
        }
        copy.url = copy.url.as_deref().map(redact_url_secrets);
        if let Some(auth) = &mut copy.auth {
            // Client ids and secrets, scopes: none of it is for display.
            for value in auth.extra.values_mut() {
                *value = Value::String(REDACTED.to_owned());
            }
        }
        copy
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

impl fmt::Debug for ServerConfig {
    /// Env and header values are secrets more often than not: Debug never shows them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let redacted = self.redacted();
        f.debug_struct("ServerConfig")
            .field("transport", &redacted.transport)
            .field("command", &redacted.command)
            .field("args", &redacted.args)
            .field("env", &redacted.env)
            .field("cwd", &redacted.cwd)
            .field("url", &redacted.url)
            .field("headers", &redacted.headers)
            .field("enabled", &redacted.enabled)
            .field("timeout", &redacted.timeout)
            .field("auth", &redacted.auth)
            .field("extra", &redacted.extra.keys().collect::<Vec<_>>())
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

/// Checks a (expanded) server configuration; one message per problem, each naming the server.
/// An empty list means the server is usable.
pub fn validate_server_config(name: &str, config: &ServerConfig) -> Vec<String> {
    let mut problems = Vec::new();
    let mut problem = |text: String| problems.push(format!("Server \"{name}\": {text}"));
    if name.trim().is_empty() {
        problem("the server name is empty".to_owned());
    }
    let has_command = config
        .command
        .as_deref()
        .is_some_and(|c| !c.trim().is_empty());
    let has_url = config.url.as_deref().is_some_and(|u| !u.trim().is_empty());
    if has_command && has_url {
        problem("both \"command\" and \"url\" are set; keep one".to_owned());
    }
    match config.transport.as_deref() {
        None | Some("stdio" | "http" | "sse" | "streamable-http" | "streamableHttp") => {}
        Some(other) => problem(format!(
            "unknown transport type \"{other}\" (expected \"stdio\", \"http\" or \"sse\")"
        )),
    }
    match config.transport_kind() {
        TransportKind::Stdio => {
            if !has_command {
                problem("stdio server requires \"command\" field".to_owned());
            }
            if config.command.is_some() && !has_command {
                problem("\"command\" is empty".to_owned());
            }
        }
        TransportKind::Http | TransportKind::Sse => {
            let kind = config.transport_kind();
            match config.url.as_deref() {
                None => problem(format!("{kind} server requires \"url\" field")),
                Some(url) => {
                    if let Err(why) = check_url(url) {
                        problem(format!(
                            "invalid URL \"{}\": {why}",
                            redact_url_secrets(url)
                        ));
                    }
                }
            }
        }
    }
    if config.timeout == Some(0) {
        problem("\"timeout\" must be more than 0 milliseconds".to_owned());
    }
    for key in config.env.keys() {
        if key.is_empty() || key.contains('=') || key.contains('\0') {
            problem(format!("invalid environment variable name \"{key}\""));
        }
    }
    for key in config.headers.keys() {
        if key.is_empty() || !key.bytes().all(is_header_name_byte) {
            problem(format!("invalid header name \"{key}\""));
        }
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

    #[test]
    fn transport_is_inferred_from_command_or_url() {
        assert_eq!(
            ServerConfig::stdio("npx", ["x"]).transport_kind(),
            TransportKind::Stdio
        );
        let remote = ServerConfig {
            url: Some("https://example.com/mcp".into()),
            ..ServerConfig::default()
        };
        assert_eq!(remote.transport_kind(), TransportKind::Http);
        assert_eq!(
            ServerConfig::remote(TransportKind::Sse, "https://e.com/sse").transport_kind(),
            TransportKind::Sse
        );
    }

    #[test]
    fn unknown_fields_are_kept() {
        let raw = r#"{"command":"x","alwaysAllow":["a"],"disabled":false}"#;
        let config: ServerConfig = serde_json::from_str(raw).unwrap();
        assert_eq!(config.extra["alwaysAllow"], serde_json::json!(["a"]));
        assert_eq!(serde_json::to_string(&config).unwrap(), raw);
    }

    #[test]
    fn debug_never_shows_env_or_header_values() {
        let mut config = ServerConfig::remote(TransportKind::Http, "https://h/mcp?key=sk-123");
        config
            .headers
            .insert("Authorization".into(), "Bearer sk-456".into());
        config.env.insert("TOKEN".into(), "sk-789".into());
        let mut auth = AuthConfig::oauth();
        auth.extra
            .insert("CLIENT_SECRET".into(), Value::String("sk-000".into()));
        config.auth = Some(auth);
        let shown = format!("{config:?}");
        for secret in ["sk-123", "sk-456", "sk-789", "sk-000"] {
            assert!(!shown.contains(secret), "{shown}");
        }
        assert!(shown.contains("Authorization"));
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
            check(ServerConfig::default()),
            ["Server \"x\": stdio server requires \"command\" field"]
        );
        let both = ServerConfig {
            url: Some("https://h/mcp".into()),
            ..ServerConfig::stdio("npx", ["y"])
        };
        assert_eq!(
            check(both),
            ["Server \"x\": both \"command\" and \"url\" are set; keep one"]
        );
        let unknown = ServerConfig {
            transport: Some("websocket".into()),
            ..ServerConfig::stdio("npx", ["y"])
        };
        assert_eq!(
            check(unknown),
            [
                "Server \"x\": unknown transport type \"websocket\" (expected \"stdio\", \"http\" or \"sse\")"
            ]
        );
        let no_url = ServerConfig {
            transport: Some("sse".into()),
            ..ServerConfig::default()
        };
        assert_eq!(
            check(no_url),
            ["Server \"x\": sse server requires \"url\" field"]
        );
        assert_eq!(
            check(ServerConfig::remote(TransportKind::Http, "ftp://h/mcp")),
            ["Server \"x\": invalid URL \"ftp://h/mcp\": the scheme must be http or https"]
        );
        assert_eq!(
            check(ServerConfig::remote(
                TransportKind::Http,
                "localhost:3000/mcp"
            )),
            [
                "Server \"x\": invalid URL \"localhost:3000/mcp\": it has no scheme (expected http:// or https://)"
            ]
        );
        assert_eq!(
            check(ServerConfig::remote(TransportKind::Http, "http:///mcp")),
            ["Server \"x\": invalid URL \"http:///mcp\": it has no host"]
        );
        let empty_command = ServerConfig::stdio("  ", Vec::<String>::new());
        assert_eq!(
            check(empty_command),
            [
                "Server \"x\": stdio server requires \"command\" field",
                "Server \"x\": \"command\" is empty"
            ]
        );
        let zero_timeout = ServerConfig {
            timeout: Some(0),
            ..ServerConfig::stdio("npx", ["y"])
        };
        assert_eq!(
            check(zero_timeout),
            ["Server \"x\": \"timeout\" must be more than 0 milliseconds"]
        );
        let mut bad_names = ServerConfig::remote(TransportKind::Http, "https://h/mcp");
        bad_names.headers.insert("Bad Header".into(), "v".into());
        assert_eq!(
            check(bad_names),
            ["Server \"x\": invalid header name \"Bad Header\""]
        );
        let mut bad_env = ServerConfig::stdio("npx", ["y"]);
        bad_env.env.insert("A=B".into(), "v".into());
        assert_eq!(
            check(bad_env),
            ["Server \"x\": invalid environment variable name \"A=B\""]
        );
        assert!(check(ServerConfig::stdio("npx", ["y"])).is_empty());
        assert_eq!(
            validate_server_config(" ", &ServerConfig::stdio("npx", ["y"])),
            ["Server \" \": the server name is empty"]
        );
    }
}
