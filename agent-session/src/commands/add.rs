//! `add` and `add-json`, in the shell (`/mcp add`) and on the command line (`agent-session
//! add`), with the spellings of `claude mcp add`: a stdio server (`-- COMMAND ARGS…`,
//! `-e KEY=VALUE`…) or a remote one (`URL`, `--transport http|sse`, `-H 'Name: value'`…),
//! written to this agent's own config file. The shell reloads its session after; the command
//! line starts nothing.

use std::collections::BTreeMap;
use std::path::PathBuf;

use mcp_config::writer::{add_server, validate_server_name};
use mcp_config::{
    ChangeProblem, ConfigError, DiscoveryContext, DiscoveryResult, Level, RemoteConfig,
    ServerConfig, StdioConfig, TransportConfig, TransportKind, source::standard_entry,
    validate_server_config,
};
use serde_json::{Value, json};

use super::parse::{parse_scope, parse_words};
use super::reload::Reloaded;
use super::{CommandOutput, Interface};
use crate::render::{describe_source, one_line};
use crate::session::{AgentSession, SessionOptions};

/// The flags `add` takes (`--url` and `--token` are this agent's older spellings).
const ADD_FLAGS: [&str; 6] = [
    "--scope",
    "--transport",
    "--env",
    "--header",
    "--url",
    "--token",
];

/// `add`'s two forms, a local server and a remote one.
fn add_usage(interface: Interface) -> String {
    format!(
        "{}  or  {}",
        interface.usage("add NAME [--scope project|user] [-e KEY=VALUE]... -- COMMAND [ARGS...]"),
        interface.bare(
            "add NAME [--transport http|sse] [--scope project|user] [-H 'Name: value']... URL"
        )
    )
}

/// A server to add: its name, the file level it goes to and its configuration.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct NewServer {
    pub(super) name: String,
    pub(super) level: Level,
    pub(super) config: ServerConfig,
}

/// `-e KEY=VALUE` values as an environment; a value without `=`, an empty name or a name
/// given twice is refused, naming it.
fn parse_env(values: &[String], usage: &str) -> Result<BTreeMap<String, String>, String> {
    let mut env = BTreeMap::new();
    for value in values {
        let Some((key, value)) = value.split_once('=') else {
            return Err(format!(
                "-e \"{value}\" is not KEY=VALUE; write -e {value}=... (the value may be \
                 ${{VAR}} to take it from your environment when the server starts); {usage}"
            ));
        };
        if key.is_empty() {
            return Err(format!(
                "-e \"={}\" has no variable name before \"=\"; write -e NAME=VALUE; {usage}",
                first_word(value)
            ));
        }
        if env.insert(key.to_owned(), value.to_owned()).is_some() {
            return Err(format!("-e {key} is given twice; keep one; {usage}"));
        }
    }
    Ok(env)
}

/// `-H 'Name: value'` values as headers; a value without `:`, an empty name or a name given
/// twice (in any case) is refused, naming it (never quoting a value, which may be a secret).
fn parse_headers(values: &[String], usage: &str) -> Result<BTreeMap<String, String>, String> {
    let mut headers: BTreeMap<String, String> = BTreeMap::new();
    for value in values {
        let Some((name, value)) = value.split_once(':') else {
            return Err(format!(
                "-H \"{}\" is not 'Name: value' (it has no \":\"); write it as -H \
                 'Authorization: Bearer TOKEN'; {usage}",
                first_word(value)
            ));
        };
        let name = name.trim();
        if name.is_empty() {
            return Err(format!(
                "a -H value has no header name before \":\"; write it as -H 'Name: value'; \
                 {usage}"
            ));
        }
        if headers.keys().any(|known| known.eq_ignore_ascii_case(name)) {
            return Err(format!(
                "the header \"{name}\" is given twice; keep one; {usage}"
            ));
        }
        headers.insert(name.to_owned(), value.trim().to_owned());
    }
    Ok(headers)
}

/// The first word of a value, with `…` when more follows: enough to find it in the command
/// line without printing what may be a secret.
fn first_word(value: &str) -> String {
    let word: String = value
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .chars()
        .take(40)
        .collect();
    if word.len() < value.trim().len() {
        format!("{word}…")
    } else {
        word
    }
}

/// `--transport stdio|http|sse`.
fn parse_transport(value: Option<&str>, usage: &str) -> Result<Option<TransportKind>, String> {
    match value {
        None => Ok(None),
        Some("stdio") => Ok(Some(TransportKind::Stdio)),
        Some("http" | "streamable-http") => Ok(Some(TransportKind::Http)),
        Some("sse") => Ok(Some(TransportKind::Sse)),
        Some(other) => Err(format!(
            "--transport must be stdio, http or sse, not \"{other}\"; {usage}"
        )),
    }
}

/// Turns the words of `add` into the server to add.
pub(super) fn parse_add(rest: &[String], interface: Interface) -> Result<NewServer, String> {
    let usage = &add_usage(interface);
    let parsed = parse_words(rest, &ADD_FLAGS, true, usage)?;
    let (name, word_url) = match parsed.positionals.as_slice() {
        [] => return Err(format!("missing NAME; {usage}")),
        [name] => (name.clone(), None),
        [name, url] => (name.clone(), Some(url.clone())),
        [_, _, extra, ..] => {
            return Err(format!(
                "unexpected argument \"{extra}\"; a stdio server's arguments go after \"--\"; \
                 {usage}"
            ));
        }
    };
    validate_server_name(&name).map_err(|error| format!("{error}; {usage}"))?;
    let level = parse_scope(&parsed, usage)?.unwrap_or(Level::Project);
    let transport = parse_transport(parsed.flag("--transport"), usage)?;
    let env = parse_env(parsed.values("--env"), usage)?;
    let mut headers = parse_headers(parsed.values("--header"), usage)?;
    let url = match (word_url, parsed.flag("--url")) {
        (Some(_), Some(_)) => {
            return Err(format!(
                "the URL is given twice (as a word and with --url); keep one; {usage}"
            ));
        }
        (Some(url), None) => {
            if !url.contains("://") && !url.starts_with("${") {
                return Err(format!(
                    "\"{url}\" is not a URL (http://… or https://…); a stdio server's command \
                     goes after \"--\": add {name} -- {url} [ARGS...]; {usage}"
                ));
            }
            Some(url)
        }
        (None, url) => url.map(str::to_owned),
    };
    let config = match (&parsed.command, url) {
        (Some(_), Some(_)) => {
            return Err(format!(
                "give either a URL or -- COMMAND, not both; {usage}"
            ));
        }
        (None, None) => {
            return Err(match transport {
                Some(kind @ (TransportKind::Http | TransportKind::Sse)) => format!(
                    "--transport {kind} needs the server's URL: add {name} --transport {kind} \
                     https://…; {usage}"
                ),
                _ => format!("missing \"-- COMMAND\" or a URL for \"{name}\"; {usage}"),
            });
        }
        (Some(command), None) => {
            if let Some(kind @ (TransportKind::Http | TransportKind::Sse)) = transport {
                return Err(format!(
                    "--transport {kind} takes the server's URL, not \"-- COMMAND\"; {usage}"
                ));
            }
            if parsed.flag("--token").is_some() {
                return Err(format!(
                    "--token only applies to a remote server (a URL); {usage}"
                ));
            }
            if !headers.is_empty() {
                return Err(format!(
                    "-H/--header sends an HTTP header, so it only applies to a remote server (a \
                     URL); a stdio server takes -e KEY=VALUE; {usage}"
                ));
            }
            let Some((program, args)) = command.split_first() else {
                return Err(format!("missing COMMAND after \"--\"; {usage}"));
            };
            if program.trim().is_empty() {
                return Err(format!("the COMMAND after \"--\" is empty; {usage}"));
            }
            let mut stdio = StdioConfig::new(program.clone(), args.iter().cloned());
            stdio.env = env;
            ServerConfig::new(TransportConfig::Stdio(stdio))
        }
        (None, Some(url)) => {
            if transport == Some(TransportKind::Stdio) {
                return Err(format!(
                    "--transport stdio takes \"-- COMMAND [ARGS...]\", not a URL; {usage}"
                ));
            }
            if !env.is_empty() {
                return Err(format!(
                    "-e/--env sets a stdio server's environment, so it does not apply to a \
                     remote server (a URL); send a header with -H 'Name: value' instead; {usage}"
                ));
            }
            if let Some(token) = parsed.flag("--token") {
                if token.is_empty() {
                    return Err(format!("--token is empty; {usage}"));
                }
                if headers
                    .keys()
                    .any(|known| known.eq_ignore_ascii_case("authorization"))
                {
                    return Err(format!(
                        "--token and -H 'Authorization: …' both set the Authorization header; \
                         keep one; {usage}"
                    ));
                }
                headers.insert("Authorization".to_owned(), format!("Bearer {token}"));
            }
            let mut remote = RemoteConfig::new(url);
            remote.headers = headers;
            ServerConfig::new(match transport {
                Some(TransportKind::Sse) => TransportConfig::Sse(remote),
                _ => TransportConfig::Http(remote),
            })
        }
    };
    check(&name, &config, usage)?;
    Ok(NewServer {
        name,
        level,
        config,
    })
}

/// Turns the words of `add-json` (`NAME JSON`, the entry as this agent's and Claude Code's
/// files write it) into the server to add.
pub(super) fn parse_add_json(rest: &[String], interface: Interface) -> Result<NewServer, String> {
    let usage = &interface.usage("add-json NAME JSON [--scope project|user]");
    let parsed = parse_words(rest, &["--scope"], false, usage)?;
    let (name, text) = match parsed.positionals.as_slice() {
        [] => return Err(format!("missing NAME and JSON; {usage}")),
        [_] => return Err(format!("missing the server's JSON after the name; {usage}")),
        [name, text] => (name.clone(), text),
        [_, _, extra, ..] => {
            return Err(format!(
                "unexpected argument \"{extra}\"; quote the JSON as one word: '{{...}}'; {usage}"
            ));
        }
    };
    validate_server_name(&name).map_err(|error| format!("{error}; {usage}"))?;
    let level = parse_scope(&parsed, usage)?.unwrap_or(Level::Project);
    let entry: Value = serde_json::from_str(text).map_err(|error| {
        format!(
            "the JSON for \"{name}\" does not parse ({error}); give one object such as \
             '{{\"command\": \"npx\", \"args\": [\"-y\", \"some-server\"]}}' or \
             '{{\"type\": \"http\", \"url\": \"https://…\"}}'; {usage}"
        )
    })?;
    let config = standard_entry(&entry).map_err(|error| {
        format!("the JSON for \"{name}\" is not a server entry: {error}; {usage}")
    })?;
    check(&name, &config, usage)?;
    Ok(NewServer {
        name,
        level,
        config,
    })
}

/// Checks the values of a new server. `${VAR}` references are expanded at discovery; a
/// config with them is checked then.
fn check(name: &str, config: &ServerConfig, usage: &str) -> Result<(), String> {
    let unexpanded = match &config.transport {
        TransportConfig::Stdio(stdio) => stdio.command.contains("${"),
        TransportConfig::Http(remote) | TransportConfig::Sse(remote) => remote.url.contains("${"),
        // A plugin's type: this program has no connector for it, so it would never connect.
        TransportConfig::Custom(custom) => {
            return Err(format!(
                "unknown transport type \"{}\" (expected \"stdio\", \"http\" or \"sse\"; a \
                 transport plugin's entry is written to its file by hand); {usage}",
                custom.kind
            ));
        }
    };
    if unexpanded {
        return Ok(());
    }
    let problems = validate_server_config(name, config);
    if problems.is_empty() {
        Ok(())
    } else {
        let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
        Err(format!("{}; {usage}", problems.join("; ")))
    }
}

/// Writes a new server to this agent's file of its level (atomically, mode 0600, the rest of
/// the file kept) and approves it when it is a project server: the user added it. The file.
pub(super) fn write_new_server(
    ctx: &DiscoveryContext,
    options: &SessionOptions,
    new: &NewServer,
    interface: Interface,
) -> Result<PathBuf, String> {
    let NewServer {
        name,
        level,
        config,
    } = new;
    let path = add_server(ctx, *level, name, config).map_err(|error| {
        let text = one_line(&error.to_string());
        match error {
            ConfigError::Change(ChangeProblem::AlreadyThere { .. }) => format!(
                "{text} ({})",
                interface.bare(&format!(
                    "remove {} --scope {}",
                    shell_words::quote(name),
                    level.as_str()
                ))
            ),
            _ => text,
        }
    })?;
    if *level == Level::Project
        && options.enable_project_config()
        && let Err(error) = approve_the_one_written(options, name, &path)
    {
        return Err(format!(
            "added \"{name}\" to {} but could not approve it: {}",
            path.display(),
            one_line(&error.to_string())
        ));
    }
    Ok(path)
}

/// Approves the definition of `name` just written to `path`, and no other: a cloned project
/// file defining the same name waits as before (approving by name would approve it too, and
/// it might be the one that runs).
fn approve_the_one_written(
    options: &SessionOptions,
    name: &str,
    path: &std::path::Path,
) -> Result<(), crate::trust::TrustError> {
    let written = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let ours: Vec<_> = crate::trust::pending_project_servers(
        options,
        Some(std::slice::from_ref(&name.to_owned())),
    )?
    .into_iter()
    .filter(|pending| {
        std::fs::canonicalize(&pending.source.path).unwrap_or_else(|_| pending.source.path.clone())
            == written
    })
    .collect();
    crate::trust::approve_pending(options, &ours)?;
    Ok(())
}

/// What adding `name` to `path` did to the other definitions of that name, as discovery
/// sees the files now: the ones it replaces, or the one that is used instead of it.
pub(super) fn shadowing_notes(
    after: &DiscoveryResult,
    name: &str,
    path: &std::path::Path,
) -> Vec<String> {
    let Some(server) = after.servers.get(name) else {
        return Vec::new();
    };
    if server.source.meta.path != path {
        return vec![format!(
            "note: \"{name}\" from {} is used, not this one (it comes first)",
            describe_source(&server.source.meta)
        )];
    }
    server
        .source
        .shadowed
        .iter()
        .map(|other| {
            format!(
                "note: this \"{name}\" is used instead of the one in {}",
                describe_source(other)
            )
        })
        .collect()
}

/// What the command line prints for a server added without starting anything (`after`: the
/// files as discovery sees them now).
pub(super) fn added_output(
    options: &SessionOptions,
    new: &NewServer,
    path: &std::path::Path,
    after: &DiscoveryResult,
) -> CommandOutput {
    let NewServer { name, level, .. } = new;
    let mut text = format!("added \"{name}\" to {} ({level} config)", path.display());
    if *level == Level::Project && !options.enable_project_config() {
        text.push_str(
            "\nnote: project config is off (--no-project-config), so this server is not used; \
             add it with --scope user instead",
        );
    }
    for note in shadowing_notes(after, name, path) {
        text.push('\n');
        text.push_str(&note);
    }
    text.push_str(&format!(
        "\n{} connects it and shows its tools",
        super::Interface::Cli.on("get", name)
    ));
    let json = json!({
        "added": name,
        "scope": level.as_str(),
        "path": path.display().to_string(),
        "transport": new.config.transport_kind().as_str(),
    });
    CommandOutput::ok(text, json)
}

/// `/mcp add` and `/mcp add-json`: the server written, then the session reloaded.
pub(super) async fn add(
    session: &AgentSession,
    rest: &[String],
    from_json: bool,
    interface: Interface,
) -> CommandOutput {
    let parsed = if from_json {
        parse_add_json(rest, interface)
    } else {
        parse_add(rest, interface)
    };
    let new = match parsed {
        Ok(new) => new,
        Err(error) => return CommandOutput::failed(error),
    };
    let ctx = match session.context() {
        Ok(ctx) => ctx,
        Err(error) => return CommandOutput::failed(one_line(&error.to_string())),
    };
    let path = match write_new_server(&ctx, session.options(), &new, interface) {
        Ok(path) => path,
        Err(error) => return CommandOutput::failed(error),
    };
    let NewServer {
        name,
        level,
        config,
    } = new;
    let reloaded = Reloaded::run(session).await;
    let after = reloaded.server(&name);
    let mut text = format!("added \"{name}\" to {} ({level} config)\n", path.display());
    if level == Level::Project && !session.options().enable_project_config() {
        text.push_str(
            "note: project config is off in this session, so this server is not loaded; \
             add it with --scope user instead\n",
        );
    }
    for note in shadowing_notes(&reloaded.servers.discovery, &name, &path) {
        text.push_str(&note);
        text.push('\n');
    }
    text.push_str(&after.line(&name));
    text.push('\n');
    text.push_str(&reloaded.short_text(interface));
    let json = json!({
        "added": name,
        "scope": level.as_str(),
        "path": path.display().to_string(),
        "transport": config.transport_kind().as_str(),
        "status": after.status_word(),
        "tools": after.tools,
        "error": after.error_json(),
        "reload": reloaded.json(),
    });
    CommandOutput::ok(text, json)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::parse::split_words;

    /// The usage lines as the shell and the command line print them.
    const SHELL_ADD_USAGE: &str = "usage: /mcp add NAME [--scope project|user] [-e KEY=VALUE]... \
         -- COMMAND [ARGS...]  or  /mcp add NAME [--transport http|sse] [--scope project|user] \
         [-H 'Name: value']... URL";
    const CLI_ADD_JSON_USAGE: &str =
        "usage: agent-session add-json NAME JSON [--scope project|user]";

    fn parse(line: &str) -> Result<NewServer, String> {
        parse_add(&split_words(line).unwrap(), Interface::Shell)
    }

    fn parse_json(line: &str) -> Result<NewServer, String> {
        parse_add_json(&split_words(line).unwrap(), Interface::Cli)
    }

    fn remote(config: &ServerConfig) -> &RemoteConfig {
        match &config.transport {
            TransportConfig::Http(remote) | TransportConfig::Sse(remote) => remote,
            TransportConfig::Stdio(_) | TransportConfig::Custom(_) => panic!("a remote server"),
        }
    }

    #[test]
    fn add_parses_both_forms() {
        let new = parse("x --scope user -- npx -y 'a server' --scope p").unwrap();
        assert_eq!((new.name.as_str(), new.level), ("x", Level::User));
        assert_eq!(
            new.config,
            ServerConfig::stdio("npx", ["-y", "a server", "--scope", "p"])
        );

        let new = parse("r --url=https://h/mcp --transport sse --token \"a b\"").unwrap();
        assert_eq!(new.level, Level::Project);
        assert_eq!(new.config.transport_kind(), TransportKind::Sse);
        assert_eq!(remote(&new.config).headers["Authorization"], "Bearer a b");
    }

    #[test]
    fn add_takes_the_spellings_of_claude_mcp_add() {
        let new = parse("gh -s user -e TOKEN=abc --env=MODE=x=y -- npx -y gh-server").unwrap();
        assert_eq!(new.level, Level::User);
        let mut stdio = StdioConfig::new("npx", ["-y", "gh-server"]);
        stdio.env.insert("TOKEN".into(), "abc".into());
        stdio.env.insert("MODE".into(), "x=y".into());
        assert_eq!(new.config, ServerConfig::new(TransportConfig::Stdio(stdio)));

        let new = parse(
            "sentry --transport http https://mcp.sentry.dev/mcp -H 'Authorization: Bearer s k' \
             --header X-Team:core",
        )
        .unwrap();
        assert_eq!(new.config.transport_kind(), TransportKind::Http);
        let remote = remote(&new.config);
        assert_eq!(remote.url, "https://mcp.sentry.dev/mcp");
        assert_eq!(remote.headers["Authorization"], "Bearer s k");
        assert_eq!(remote.headers["X-Team"], "core");

        // A URL alone is a Streamable HTTP server; -t sse picks the legacy transport.
        let new = parse("web https://h/mcp").unwrap();
        assert_eq!(new.config, ServerConfig::http("https://h/mcp"));
        let new = parse("old -t sse https://h/sse").unwrap();
        assert_eq!(new.config, ServerConfig::sse("https://h/sse"));
        // ${VAR} references are kept for discovery to expand.
        let new = parse("v -e KEY='${API_KEY}' -- ${HOME}/bin/server").unwrap();
        let TransportConfig::Stdio(stdio) = &new.config.transport else {
            panic!("a stdio server");
        };
        assert_eq!(stdio.env["KEY"], "${API_KEY}");
    }

    #[test]
    fn add_errors_name_the_bad_piece() {
        for (line, expected) in [
            ("x -e FOO -- c", "-e \"FOO\" is not KEY=VALUE"),
            ("x -e =v -- c", "has no variable name before \"=\""),
            ("x -e A=1 -e A=2 -- c", "-e A is given twice"),
            (
                "x -H 'Authorization Bearer sk' https://h",
                "-H \"Authorization…\" is not",
            ),
            ("x -H ': v' https://h", "no header name before \":\""),
            (
                "x -H 'A: 1' -H 'a: 2' https://h",
                "the header \"a\" is given twice",
            ),
            (
                "x --transport http",
                "--transport http needs the server's URL",
            ),
            ("x -t sse -- c", "--transport sse takes the server's URL"),
            (
                "x --transport stdio https://h",
                "--transport stdio takes \"-- COMMAND",
            ),
            ("x https://h -- c", "either a URL or -- COMMAND, not both"),
            ("x --url https://h https://h", "the URL is given twice"),
            ("x -H 'A: 1' -- c", "-H/--header sends an HTTP header"),
            (
                "x -e A=1 https://h",
                "-e/--env sets a stdio server's environment",
            ),
            (
                "x --token t -H 'authorization: x' https://h",
                "both set the Authorization",
            ),
            ("x npx", "\"npx\" is not a URL"),
            ("x a b", "unexpected argument \"b\""),
            (
                "x --transport ws https://h",
                "--transport must be stdio, http or sse",
            ),
            ("x --scope local -- c", "--scope local is Claude Code's"),
            (
                "x -H 'Bad Name: v' https://h",
                "invalid header name \"Bad Name\"",
            ),
        ] {
            let error = parse(line).unwrap_err();
            assert!(error.contains(expected), "{line}: {error}");
            assert!(error.ends_with(SHELL_ADD_USAGE), "{line}: {error}");
        }
        // A header's value is never repeated in an error: it may be a secret.
        let error = parse("x -H 'Authorization Bearer sk-secret' https://h").unwrap_err();
        assert!(!error.contains("sk-secret"), "{error}");
    }

    #[test]
    fn add_usage_errors_are_one_line() {
        for line in [
            "",
            "x",
            "x --",
            "x y -- c",
            "x --url",
            "x --url http://h -- c",
            "x --scope team -- c",
            "x --transport ws --url http://h",
            "x --token t -- c",
            "x --bogus -- c",
            "'a b' -- c",
            "x --scope user --scope user -- c",
            "x --url ftp://h",
            "x -e",
        ] {
            let error = parse(line).unwrap_err();
            assert!(!error.contains('\n'), "{line}: {error}");
            assert!(error.contains(SHELL_ADD_USAGE), "{line}: {error}");
        }
    }

    #[test]
    fn add_json_takes_an_entry_as_config_files_write_it() {
        let new = parse_json(
            r#"gh '{"command": "npx", "args": ["-y", "gh"], "env": {"T": "1"}}' --scope user"#,
        )
        .unwrap();
        assert_eq!(new.level, Level::User);
        let mut stdio = StdioConfig::new("npx", ["-y", "gh"]);
        stdio.env.insert("T".into(), "1".into());
        assert_eq!(new.config, ServerConfig::new(TransportConfig::Stdio(stdio)));

        let new = parse_json(
            r#"web '{"type": "sse", "url": "https://h/sse", "headers": {"X-Key": "k"}}'"#,
        )
        .unwrap();
        assert_eq!(new.config.transport_kind(), TransportKind::Sse);
        assert_eq!(remote(&new.config).headers["X-Key"], "k");

        for (line, expected) in [
            ("gh", "missing the server's JSON"),
            ("gh '{bad'", "the JSON for \"gh\" does not parse"),
            ("gh '[1]'", "is not a server entry"),
            (
                r#"gh '{"url": "https://h", "command": "c"}'"#,
                "both \"command\" and \"url\"",
            ),
            (
                r#"gh '{"type": "ws", "url": "https://h"}'"#,
                "unknown transport type \"ws\"",
            ),
            (r#"gh '{"url": "ftp://h"}'"#, "invalid URL"),
            (r#"gh '{}' extra"#, "unexpected argument \"extra\""),
        ] {
            let error = parse_json(line).unwrap_err();
            assert!(error.contains(expected), "{line}: {error}");
            assert!(error.ends_with(CLI_ADD_JSON_USAGE), "{line}: {error}");
        }
    }
}
