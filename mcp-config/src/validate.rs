//! [`validate_server_config`]: the checks of a server's (expanded) values before anything is
//! started, one message per problem, each naming the server.

use crate::redact::redact_url_secrets;
use crate::server_config::{ServerConfig, TransportConfig};

/// Checks the values of a (expanded) server configuration; one message per problem, each naming
/// the server. An empty list means the server is usable. (That the entry names one transport
/// was checked when it was read.)
pub fn validate_server_config(name: &str, config: &ServerConfig) -> Vec<String> {
    let mut problems = Vec::new();
    let name = cut(name);
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
                    problem(format!(
                        "invalid environment variable name \"{}\"",
                        cut(key)
                    ));
                }
            }
        }
        TransportConfig::Http(remote) | TransportConfig::Sse(remote) => {
            if let Err(why) = check_url(&remote.url) {
                problem(format!(
                    "invalid URL \"{}\": {why}",
                    cut(&redact_url_secrets(&remote.url))
                ));
            }
            for key in remote.headers.keys() {
                if key.is_empty() || !key.bytes().all(is_header_name_byte) {
                    problem(format!("invalid header name \"{}\"", cut(key)));
                }
            }
        }
    }
    if config.timeout == Some(0) {
        problem("\"timeout\" must be more than 0 milliseconds".to_owned());
    }
    for key in ["enabledTools", "disabledTools"] {
        let names_only = config.extra.get(key).is_none_or(|value| {
            value
                .as_array()
                .is_some_and(|names| names.iter().all(serde_json::Value::is_string))
        });
        if !names_only {
            problem(format!("\"{key}\" must be a list of tool names"));
        }
    }
    for key in ["toolTimeout", "maxMessageBytes", "outputBudget"] {
        let positive = config
            .extra
            .get(key)
            .is_none_or(|value| value.as_u64().is_some_and(|number| number > 0));
        if !positive {
            problem(format!("\"{key}\" must be a whole number more than 0"));
        }
    }
    for key in ["reconnect", "required"] {
        if let Some(value) = config.extra.get(key)
            && !value.is_boolean()
        {
            problem(format!("\"{key}\" must be true or false"));
        }
    }
    problems
}

/// The longest piece of a config value a message quotes.
const QUOTED_CHARS: usize = 120;

/// `text`, cut to [`QUOTED_CHARS`] with a marker: a message never quotes a value whole (it
/// may be huge).
fn cut(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(QUOTED_CHARS) {
        Some((end, _)) => format!("{}… ({} bytes in all)", &text[..end], text.len()).into(),
        None => text.into(),
    }
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
    use crate::server_config::{RemoteConfig, StdioConfig};

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

    #[test]
    fn a_huge_value_is_never_quoted_whole() {
        let huge = format!("not a url {}", "x".repeat(5 << 20));
        let config = ServerConfig::http(huge);
        let name = "n".repeat(10_000);
        let problems = validate_server_config(&name, &config);
        let message = problems.join("; ");
        assert!(message.len() < 1000, "{} bytes", message.len());
        assert!(message.contains("bytes in all"), "{message}");
    }
}
