//! `/mcp add`: a stdio server (`-- COMMAND ARGS…`) or a remote one (`--url URL`), written to
//! this agent's own config file, then a reload.

use mcp_config::writer::{add_server, validate_server_name};
use mcp_config::{Level, RemoteConfig, ServerConfig, TransportConfig, validate_server_config};
use serde_json::json;

use super::CommandOutput;
use super::parse::{parse_scope, parse_words};
use super::reload::Reloaded;
use crate::render::one_line;
use crate::session::AgentSession;

const ADD_USAGE: &str = "usage: /mcp add NAME [--scope project|user] -- COMMAND [ARGS...]  or  \
     /mcp add NAME --url URL [--transport http|sse] [--scope project|user] [--token TOKEN]";

/// Turns the words of `add` into a name, a level and a configuration.
fn parse_add(rest: &[String]) -> Result<(String, Level, ServerConfig), String> {
    let parsed = parse_words(
        rest,
        &["--scope", "--url", "--transport", "--token"],
        true,
        ADD_USAGE,
    )?;
    let name = parsed.name(ADD_USAGE)?.to_owned();
    validate_server_name(&name).map_err(|error| format!("{error}; {ADD_USAGE}"))?;
    let level = parse_scope(&parsed, ADD_USAGE)?.unwrap_or(Level::Project);
    let config = match (&parsed.command, parsed.flag("--url")) {
        (Some(_), Some(_)) => {
            return Err(format!(
                "give either --url URL or -- COMMAND, not both; {ADD_USAGE}"
            ));
        }
        (None, None) => {
            return Err(format!(
                "missing \"-- COMMAND\" or \"--url URL\" for \"{name}\"; {ADD_USAGE}"
            ));
        }
        (Some(command), None) => {
            for flag in ["--transport", "--token"] {
                if parsed.flag(flag).is_some() {
                    return Err(format!(
                        "{flag} only applies to a remote server (--url); {ADD_USAGE}"
                    ));
                }
            }
            let Some((program, args)) = command.split_first() else {
                return Err(format!("missing COMMAND after \"--\"; {ADD_USAGE}"));
            };
            if program.trim().is_empty() {
                return Err(format!("the COMMAND after \"--\" is empty; {ADD_USAGE}"));
            }
            ServerConfig::stdio(program.clone(), args.iter().cloned())
        }
        (None, Some(url)) => {
            let mut remote = RemoteConfig::new(url);
            if let Some(token) = parsed.flag("--token") {
                if token.is_empty() {
                    return Err(format!("--token is empty; {ADD_USAGE}"));
                }
                remote
                    .headers
                    .insert("Authorization".to_owned(), format!("Bearer {token}"));
            }
            let transport = match parsed.flag("--transport") {
                None | Some("http") => TransportConfig::Http(remote),
                Some("sse") => TransportConfig::Sse(remote),
                Some(other) => {
                    return Err(format!(
                        "--transport must be http or sse, not \"{other}\"; {ADD_USAGE}"
                    ));
                }
            };
            ServerConfig::new(transport)
        }
    };
    // `${VAR}` references are expanded at discovery; a config with them is checked then.
    let unexpanded = match &config.transport {
        TransportConfig::Stdio(stdio) => stdio.command.contains("${"),
        TransportConfig::Http(remote) | TransportConfig::Sse(remote) => remote.url.contains("${"),
    };
    if !unexpanded {
        let problems = validate_server_config(&name, &config);
        if !problems.is_empty() {
            return Err(format!("{}; {ADD_USAGE}", problems.join("; ")));
        }
    }
    Ok((name, level, config))
}

pub(super) async fn add(session: &AgentSession, rest: &[String]) -> CommandOutput {
    let (name, level, config) = match parse_add(rest) {
        Ok(parsed) => parsed,
        Err(error) => return CommandOutput::failed(error),
    };
    let ctx = match session.context() {
        Ok(ctx) => ctx,
        Err(error) => return CommandOutput::failed(one_line(&error.to_string())),
    };
    let path = match add_server(&ctx, level, &name, &config) {
        Ok(path) => path,
        Err(error) => return CommandOutput::failed(one_line(&error.to_string())),
    };
    // The user added it: a project server needs no further approval.
    if level == Level::Project
        && session.options().enable_project_config()
        && let Err(error) = crate::trust::approve_project_servers(
            session.options(),
            Some(std::slice::from_ref(&name)),
        )
    {
        return CommandOutput::failed(format!(
            "added \"{name}\" to {} but could not approve it: {}",
            path.display(),
            one_line(&error.to_string())
        ));
    }
    let reloaded = Reloaded::run(session).await;
    let after = reloaded.server(&name);
    let mut text = format!("added \"{name}\" to {} ({level} config)\n", path.display());
    if level == Level::Project && !session.options().enable_project_config() {
        text.push_str(
            "note: project config is off in this session, so this server is not loaded; \
             add it with --scope user instead\n",
        );
    }
    text.push_str(&after.line(&name));
    text.push('\n');
    text.push_str(&reloaded.short_text());
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
    use mcp_config::TransportKind;

    use super::*;
    use crate::commands::parse::split_words;

    fn parse(line: &str) -> Result<(String, Level, ServerConfig), String> {
        parse_add(&split_words(line).unwrap())
    }

    #[test]
    fn add_parses_both_forms() {
        let (name, level, config) = parse("x --scope user -- npx -y 'a server' --scope p").unwrap();
        assert_eq!((name.as_str(), level), ("x", Level::User));
        assert_eq!(
            config,
            ServerConfig::stdio("npx", ["-y", "a server", "--scope", "p"])
        );

        let (_, level, config) =
            parse("r --url=https://h/mcp --transport sse --token \"a b\"").unwrap();
        assert_eq!(level, Level::Project);
        assert_eq!(config.transport_kind(), TransportKind::Sse);
        let TransportConfig::Sse(remote) = &config.transport else {
            panic!("an sse server");
        };
        assert_eq!(remote.headers["Authorization"], "Bearer a b");
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
        ] {
            let error = parse(line).unwrap_err();
            assert!(!error.contains('\n'), "{line}: {error}");
            assert!(error.contains(ADD_USAGE), "{line}: {error}");
        }
    }
}
