//! [`validate_server_config`]: the checks of a server's (expanded) values before anything is
//! started, one [`ServerProblem`] per problem, each naming the server.

use serde_json::Value;

use crate::entry_keys::{ALWAYS_LOAD_KEY, HEADERS_HELPER, PROTOCOL_VERSION_KEY, ROOTS_KEY};
use crate::oauth_grant::GRANT_KEY;
use crate::problems::{ConfigProblem, ServerProblem, UrlProblem};
use crate::quoting::{hidden_char, quoted};
use crate::redact::redact_url_secrets;
use crate::server_config::{ServerConfig, TransportConfig};

/// Checks the values of a (expanded) server configuration; one [`ServerProblem`] per problem,
/// each naming the server. An empty list means the server is usable. (That the entry names one
/// transport was checked when it was read.)
pub fn validate_server_config(name: &str, config: &ServerConfig) -> Vec<ServerProblem> {
    let mut problems = Vec::new();
    let mut problem = |problem: ConfigProblem| problems.push(ServerProblem::new(name, problem));
    // As shown: a name of hidden characters only is not empty, it is refused for them.
    if quoted(name).trim().is_empty() {
        problem(ConfigProblem::EmptyName);
    }
    if let Some((character, kind)) = name
        .chars()
        .find_map(|c| hidden_char(c).map(|kind| (c, kind)))
    {
        problem(ConfigProblem::HiddenCharacter { character, kind });
    }
    match &config.transport {
        TransportConfig::Stdio(stdio) => {
            if stdio.command.trim().is_empty() {
                problem(ConfigProblem::EmptyCommand);
            }
            for key in stdio.env.keys() {
                if key.is_empty() || key.contains('=') || key.contains('\0') {
                    problem(ConfigProblem::EnvName { name: key.clone() });
                }
            }
        }
        TransportConfig::Http(remote) | TransportConfig::Sse(remote) => {
            if let Err(why) = check_url(&remote.url) {
                problem(ConfigProblem::Url {
                    url: redact_url_secrets(&remote.url),
                    problem: why,
                });
            }
            for key in remote.headers.keys() {
                if key.is_empty() || !key.bytes().all(is_header_name_byte) {
                    problem(ConfigProblem::HeaderName { name: key.clone() });
                }
            }
        }
        // A plugin's fields are checked by its connector.
        TransportConfig::Custom(_) => {}
    }
    if config.timeout == Some(0) {
        problem(ConfigProblem::ZeroTimeout);
    }
    // A plugin's entry keeps its `headersHelper` for its connector (Claude Code's `ws`).
    if let Some(helper) = config.extra.get(HEADERS_HELPER) {
        let remote = matches!(
            config.transport,
            TransportConfig::Http(_) | TransportConfig::Sse(_)
        );
        if !(remote && helper.is_string()) {
            problem(ConfigProblem::HeadersHelper);
        }
    }
    for key in ["enabledTools", "disabledTools"] {
        let names_only = config.extra.get(key).is_none_or(|value| {
            value
                .as_array()
                .is_some_and(|names| names.iter().all(serde_json::Value::is_string))
        });
        if !names_only {
            problem(ConfigProblem::NotToolNames { key });
        }
    }
    for key in ["toolTimeout", "maxMessageBytes", "outputBudget"] {
        let positive = config
            .extra
            .get(key)
            .is_none_or(|value| value.as_u64().is_some_and(|number| number > 0));
        if !positive {
            problem(ConfigProblem::NotPositive { key });
        }
    }
    for key in ["reconnect", "required", ALWAYS_LOAD_KEY] {
        if let Some(value) = config.extra.get(key)
            && !value.is_boolean()
        {
            problem(ConfigProblem::NotBoolean { key });
        }
    }
    if let Some(version) = config.extra.get(PROTOCOL_VERSION_KEY)
        && !version.as_str().is_some_and(is_revision_date)
    {
        problem(ConfigProblem::ProtocolVersionShape);
    }
    if let Some(roots) = config.extra.get(ROOTS_KEY) {
        for why in roots_problems(roots) {
            problem(why);
        }
    }
    if let Some(auth) = config.auth.as_ref().filter(|auth| auth.is_oauth()) {
        if let TransportConfig::Stdio(_) = &config.transport {
            for key in [GRANT_KEY, "dpop"] {
                if auth.extra.contains_key(key) {
                    problem(ConfigProblem::StdioAuthSetting { key });
                }
            }
        } else if let Err(why) = auth.oauth_settings() {
            why.into_iter()
                .for_each(|why| problem(ConfigProblem::OAuth(why)));
        }
    }
    problems
}

/// True for `YYYY-MM-DD`, the form of every MCP revision name.
fn is_revision_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 10
        && bytes.iter().enumerate().all(|(index, byte)| match index {
            4 | 7 => *byte == b'-',
            _ => byte.is_ascii_digit(),
        })
}

/// What is wrong with a `roots` value: it must be `false` or a list of folders, each one
/// written out (a relative folder is taken from the folder of the file defining the server;
/// `~` is not expanded, `${HOME}` is).
fn roots_problems(roots: &Value) -> Vec<ConfigProblem> {
    let folders = match roots {
        Value::Bool(false) => return Vec::new(),
        Value::Array(folders) if folders.iter().all(Value::is_string) => folders,
        _ => return vec![ConfigProblem::RootsShape],
    };
    let mut problems = Vec::new();
    for (index, folder) in folders.iter().filter_map(Value::as_str).enumerate() {
        if folder.trim().is_empty() {
            problems.push(ConfigProblem::EmptyRoot { index });
        } else if folder.starts_with('~') {
            problems.push(ConfigProblem::RootInHome {
                index,
                folder: folder.to_owned(),
            });
        } else if folder.contains("://") {
            problems.push(ConfigProblem::RootAsUri {
                index,
                folder: folder.to_owned(),
            });
        }
    }
    problems
}

pub(crate) fn is_header_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

/// A light URL check: an http(s) scheme and a host. Enough to catch typos and unexpanded
/// placeholders before a connection attempt.
fn check_url(url: &str) -> Result<(), UrlProblem> {
    let Some((scheme, rest)) = url.split_once("://") else {
        return Err(UrlProblem::NoScheme);
    };
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return Err(UrlProblem::NotHttp);
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = authority.rsplit('@').next().unwrap_or_default();
    if host.is_empty() || host.starts_with(':') {
        return Err(UrlProblem::NoHost);
    }
    if url.chars().any(char::is_whitespace) {
        return Err(UrlProblem::Whitespace);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server_config::{RemoteConfig, StdioConfig};

    /// The problems as the user reads them.
    fn texts(problems: &[ServerProblem]) -> Vec<String> {
        problems.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn names_with_control_bidi_or_invisible_characters_are_refused_naming_the_code_point() {
        let config = ServerConfig::stdio("x", Vec::<String>::new());
        for (name, code_point, kind) in [
            ("git\u{200b}hub", "U+200B", "invisible"),
            ("github\u{202e}", "U+202E", "bidirectional"),
            ("evil\u{1b}[1A\u{1b}[2K\r", "U+001B", "control"),
            ("tab\tname", "U+0009", "control"),
            ("\u{feff}bom", "U+FEFF", "invisible"),
            ("c1\u{9b}", "U+009B", "control"),
        ] {
            let problems = texts(&validate_server_config(name, &config));
            assert_eq!(problems.len(), 1, "{name:?}: {problems:?}");
            let problem = &problems[0];
            assert!(problem.contains(code_point), "{problem}");
            assert!(problem.contains(kind), "{problem}");
            assert!(
                !problem.chars().any(|c| hidden_char(c).is_some()),
                "the message quotes the name escaped: {problem:?}"
            );
        }
        for fine in ["github", "my-server.v2", "Ünïcode ☃", "日本語"] {
            assert!(validate_server_config(fine, &config).is_empty(), "{fine}");
        }
    }

    #[test]
    fn a_protocol_version_pin_must_be_a_revision_date() {
        let pinned = |value: Value| {
            let mut config = ServerConfig::http("https://h/mcp");
            config.extra.insert("protocolVersion".into(), value);
            texts(&validate_server_config("x", &config))
        };
        assert!(pinned(Value::from("2026-07-28")).is_empty());
        assert!(pinned(Value::from("2025-03-26")).is_empty());
        for wrong in [
            Value::from("latest"),
            Value::from("2026-7-28"),
            Value::from(20260728),
        ] {
            let problems = pinned(wrong.clone());
            assert_eq!(problems.len(), 1, "{wrong}: {problems:?}");
            assert!(problems[0].contains("protocolVersion"), "{problems:?}");
        }
    }

    #[test]
    fn every_validation_message_names_the_server() {
        let check = |config: ServerConfig| texts(&validate_server_config("x", &config));
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
            texts(&validate_server_config(
                " ",
                &ServerConfig::stdio("npx", ["y"])
            )),
            ["Server \" \": the server name is empty"]
        );
    }

    #[test]
    fn a_roots_value_that_is_not_false_or_a_list_of_folders_is_an_error_naming_the_server() {
        let check = |roots: serde_json::Value| {
            let mut config = ServerConfig::stdio("npx", ["y"]);
            config.extra.insert("roots".into(), roots);
            texts(&validate_server_config("fs", &config))
        };
        let shape = "Server \"fs\": \"roots\" must be a list of folders, or false to offer the \
                     server no roots";
        for wrong in [
            serde_json::json!(true),
            serde_json::json!("/data"),
            serde_json::json!({"path": "/data"}),
            serde_json::json!(["/data", null]),
        ] {
            assert_eq!(check(wrong.clone()), [shape], "{wrong}");
        }
        assert_eq!(
            check(serde_json::json!(["/data", " ", "~/notes"])),
            [
                "Server \"fs\": \"roots[1]\" is empty: write a folder",
                "Server \"fs\": \"roots[2]\" is \"~/notes\": ~ is not expanded here; write the \
                 folder's full path (in your own files, ${HOME}/… is expanded; a project's \
                 cannot name a folder by a variable)",
            ]
        );
        assert_eq!(
            check(serde_json::json!(["file:///etc"])),
            [
                "Server \"fs\": \"roots[0]\" is \"file:///etc\": roots are folders, not URIs; \
              write the folder's path"
            ]
        );
        for fine in [
            serde_json::json!(false),
            serde_json::json!([]),
            serde_json::json!(["/data", "docs", "../shared"]),
        ] {
            assert!(check(fine.clone()).is_empty(), "{fine}");
        }
    }

    #[test]
    fn a_headers_helper_must_be_a_command_of_a_server_that_sends_headers() {
        let check = |mut config: ServerConfig, helper: serde_json::Value| {
            config.extra.insert("headersHelper".into(), helper);
            texts(&validate_server_config("api", &config))
        };
        let wrong = "Server \"api\": \"headersHelper\" must be a command line (a string), and \
                     only an http or sse server sends headers";
        let http = || ServerConfig::http("https://api.example.com/mcp");
        assert!(check(http(), serde_json::json!("print-headers")).is_empty());
        assert!(check(ServerConfig::sse("https://a.example/sse"), "x".into()).is_empty());
        assert_eq!(check(http(), serde_json::json!(["print-headers"])), [wrong]);
        assert_eq!(
            check(ServerConfig::stdio("npx", ["y"]), "print-headers".into()),
            [wrong]
        );
    }

    #[test]
    fn a_huge_value_is_never_quoted_whole() {
        let huge = format!("not a url {}", "x".repeat(5 << 20));
        let config = ServerConfig::http(huge);
        let name = "n".repeat(10_000);
        let problems = texts(&validate_server_config(&name, &config));
        let message = problems.join("; ");
        assert!(message.len() < 1000, "{} bytes", message.len());
        assert!(message.contains("bytes in all"), "{message}");
    }

    #[test]
    fn each_problem_is_a_value_naming_the_server_and_what_is_wrong() {
        let mut config = ServerConfig::http("ftp://user:secret@h/mcp");
        config.timeout = Some(0);
        config.extra.insert("required".into(), Value::from("yes"));
        config
            .extra
            .insert("roots".into(), serde_json::json!(["~/notes"]));
        let problems = validate_server_config("x", &config);
        assert!(problems.iter().all(|problem| problem.server == "x"));
        let problems: Vec<ConfigProblem> = problems
            .into_iter()
            .map(|problem| problem.problem)
            .collect();
        assert_eq!(
            problems,
            [
                ConfigProblem::Url {
                    url: redact_url_secrets("ftp://user:secret@h/mcp"),
                    problem: UrlProblem::NotHttp,
                },
                ConfigProblem::ZeroTimeout,
                ConfigProblem::NotBoolean { key: "required" },
                ConfigProblem::RootInHome {
                    index: 0,
                    folder: "~/notes".into(),
                },
            ]
        );
        // The URL's secret is not kept, so no message can show it.
        assert!(!format!("{problems:?}").contains("secret"));
        let mut stdio = ServerConfig::stdio("npx", ["y"]);
        stdio.auth = Some(crate::AuthConfig::oauth());
        stdio
            .auth
            .as_mut()
            .unwrap()
            .extra
            .insert("dpop".into(), Value::Bool(true));
        assert_eq!(
            validate_server_config("git\u{200b}hub", &stdio)
                .into_iter()
                .map(|problem| problem.problem)
                .collect::<Vec<_>>(),
            [
                ConfigProblem::HiddenCharacter {
                    character: '\u{200b}',
                    kind: "an invisible character",
                },
                ConfigProblem::StdioAuthSetting { key: "dpop" },
            ]
        );
    }
}
