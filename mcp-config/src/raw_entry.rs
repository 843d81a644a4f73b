//! The flat shape config files give a server — `type`, `command`, `args`, `env`, `cwd`, `url`,
//! `headers` side by side — and the checks that turn it into a [`ServerConfig`] naming exactly
//! one transport. Serde reads and writes [`ServerConfig`] through it, so files keep their shape.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::problems::EntryProblem;
use crate::server_config::{
    AuthConfig, CustomTransport, RemoteConfig, ServerConfig, StdioConfig, TransportConfig,
    TransportKind,
};

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
    /// The entry as a [`ServerConfig`], or what keeps it from being one.
    pub(crate) fn into_config(self) -> Result<ServerConfig, EntryProblem> {
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
            // A plugin's transport: kept whole for its connector.
            Some(_) => TransportKind::Custom,
        };
        if command.is_some() && url.is_some() && kind != TransportKind::Custom {
            return Err(EntryProblem::CommandAndUrl);
        }
        // Settings of the other transport are kept as written, unused.
        let mut keep = |key: &str, value: Value| {
            extra.insert(key.to_owned(), value);
        };
        let transport = match kind {
            TransportKind::Custom => {
                // Kept whole for the plugin: its own fields and the ones named here alike.
                let mut fields = extra.clone();
                let typed = [
                    ("command", command.map(Value::String)),
                    ("args", (!args.is_empty()).then(|| json_of(&args))),
                    ("env", (!env.is_empty()).then(|| json_of(&env))),
                    ("cwd", cwd.map(Value::String)),
                    ("url", url.map(Value::String)),
                    ("headers", (!headers.is_empty()).then(|| json_of(&headers))),
                ];
                for (key, value) in typed {
                    if let Some(value) = value {
                        fields.insert(key.to_owned(), value);
                    }
                }
                TransportConfig::Custom(CustomTransport {
                    kind: transport.unwrap_or_default(),
                    fields,
                })
            }
            TransportKind::Stdio => {
                let Some(command) = command else {
                    return Err(EntryProblem::NoCommand);
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
                    return Err(EntryProblem::NoUrl { kind });
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
            expanded_to_bang: std::collections::BTreeSet::new(),
            reach: None,
        })
    }
}

impl ServerConfig {
    /// The flat on-disk shape.
    pub(crate) fn to_raw(&self) -> RawServerConfig {
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
            TransportConfig::Custom(custom) => {
                raw.transport = Some(custom.kind.clone());
                for (key, value) in &custom.fields {
                    raw.extra
                        .entry(key.clone())
                        .or_insert_with(|| value.clone());
                }
            }
        }
        raw
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

#[cfg(test)]
mod tests {
    use super::*;

    fn read(raw: &str) -> Result<ServerConfig, String> {
        serde_json::from_str::<RawServerConfig>(raw)
            .map_err(|error| error.to_string())?
            .into_config()
            .map_err(|problem| problem.to_string())
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
    }

    #[test]
    fn an_entry_of_an_unknown_type_is_kept_whole_for_a_plugin() {
        let raw =
            r#"{"type":"unix","path":"/run/mcp.sock","command":"x","required":true,"timeout":5}"#;
        let config = read(raw).unwrap();
        let TransportConfig::Custom(custom) = &config.transport else {
            panic!("not custom: {:?}", config.transport);
        };
        assert_eq!(custom.kind, "unix");
        assert_eq!(config.transport.type_name(), "unix");
        assert_eq!(config.transport_kind(), TransportKind::Custom);
        assert_eq!(custom.fields["path"], "/run/mcp.sock");
        assert_eq!(custom.fields["command"], "x");
        assert!(config.required(), "the runtime's own settings still apply");
        assert_eq!(config.timeout_ms(), 5);
        let written: Value = serde_json::to_value(&config).unwrap();
        let expected: Value = serde_json::from_str(raw).unwrap();
        assert_eq!(written, expected, "written back as it was read");
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
}
