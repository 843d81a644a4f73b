//! The consent description of a project server ([`Consent::of`]): every command it makes run,
//! every file it makes the client read and where it goes, every variable of the user's it sends
//! and where, every host it contacts and the roots it is offered; what it cannot state keeps the
//! server from being approved; and an approval holds only while the description is the same.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::path::PathBuf;

use common::{needing_approval, temp_root, trusting};
use mcp_config::writer::trust_project_servers;
use mcp_config::{
    ConfigError, Consent, DiscoveryContext, DiscoveryOptions, DiscoveryResult, ServerConfig,
    SourceMeta, load_all_configs,
};
use serde_json::{Value, json};

/// A project (a repository) and a home under a fresh temporary folder, removed on drop.
struct World {
    root: PathBuf,
}

impl World {
    fn new() -> Self {
        Self {
            root: temp_root("consent", &["home", "repo/.git"]),
        }
    }

    fn repo(&self) -> PathBuf {
        std::fs::canonicalize(self.root.join("repo")).unwrap()
    }

    fn ctx(&self) -> DiscoveryContext {
        DiscoveryContext::new("testapp", self.root.join("repo"), self.root.join("home"))
    }

    fn write_servers(&self, servers: &Value) {
        let text = json!({ "mcpServers": servers }).to_string();
        std::fs::write(self.root.join("repo/.mcp.json"), text).unwrap();
    }

    fn load(&self, options: &DiscoveryOptions) -> DiscoveryResult {
        load_all_configs(&self.ctx(), options)
    }

    /// The definition of `name` as written, and its source, whether or not it could run here
    /// (a `${VAR}` that is unset makes it invalid, and it is still what is approved).
    fn definition(&self, name: &str) -> (ServerConfig, SourceMeta) {
        let found = self.load(&trusting());
        if let Some(server) = found.servers.get(name) {
            return (server.definition.clone(), server.source.meta.clone());
        }
        let skipped = found.skipped.iter().find(|skipped| skipped.name == name);
        let skipped = skipped.unwrap_or_else(|| panic!("{name}: {found:?}"));
        (skipped.definition.clone().unwrap(), skipped.source.clone())
    }

    /// The consent of `name`, as `trust` shows it (the definition as written).
    fn consent(&self, name: &str) -> Consent {
        let (definition, source) = self.definition(name);
        Consent::of(&definition, &source)
    }

    /// The consent's lines, `label text`.
    fn lines(&self, name: &str) -> Vec<String> {
        self.consent(name)
            .lines()
            .into_iter()
            .map(|(label, text)| format!("{label} {text}"))
            .collect()
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

#[test]
fn a_stdio_server_states_its_command_its_commands_and_the_variables_it_is_given() {
    let world = World::new();
    world.write_servers(&json!({
        "local": {
            "command": "uvx",
            "args": ["mcp-server-git", "--repository", "${REPO_PATH:-${HOME}/src}"],
            "env": {"GITHUB_TOKEN": "${GH_TOKEN}", "PLAIN": "value", "SECRET": "!pass show git"},
            "cwd": "tools"
        }
    }));
    let repo = world.repo();
    assert_eq!(
        world.lines("local"),
        [
            format!(
                "runs: uvx mcp-server-git --repository '${{REPO_PATH:-${{HOME}}/src}}'  (the \
                 server, in {}/tools, with env GITHUB_TOKEN, PLAIN)",
                repo.display()
            )
            .as_str(),
            "runs: pass show git  (env.SECRET, run by sh when it connects; its output goes to the \
             server's process)",
            "sends: $REPO_PATH (args[2]) to the server's process",
            "sends: $HOME (args[2]) to the server's process",
            "sends: $GH_TOKEN (env.GITHUB_TOKEN) to the server's process",
            "sends: your stored login for it, if you logged in (env.OAUTH_ACCESS_TOKEN) to the \
             server's process",
            "roots: the folders the agent offers every server (the CLI's --root; none by default)",
        ]
    );
    assert!(world.consent("local").is_approvable());
}

/// A relative command is found from the folder the server starts in, its project folder: the
/// approval names that folder, so it says which file runs.
#[test]
fn a_relative_command_states_the_project_folder_it_runs_from() {
    let world = World::new();
    world.write_servers(&json!({"script": {"command": "./scripts/server.sh"}}));
    let lines = world.lines("script");
    assert_eq!(
        lines[0],
        format!(
            "runs: ./scripts/server.sh  (the server, in {})",
            world.repo().display()
        ),
        "{lines:#?}"
    );
}

#[test]
fn a_remote_server_states_its_hosts_headers_helper_and_what_each_variable_reaches() {
    let world = World::new();
    world.write_servers(&json!({
        "remote": {
            "type": "sse",
            "url": "https://events.example.com:8443/sse?key=${EVENTS_KEY}",
            "headers": {"X-Team": "core", "X-Token": "${TEAM_TOKEN}"},
            "headersHelper": "vault read -field=headers mcp",
            "roots": false
        }
    }));
    let origin = "https://events.example.com:8443";
    assert_eq!(
        world.lines("remote"),
        [
            format!(
                "runs: vault read -field=headers mcp  (headersHelper, run by sh at every \
                 connection; its output goes to {origin})"
            ),
            format!("sends: $EVENTS_KEY (url) to {origin}"),
            format!("sends: $TEAM_TOKEN (headers.X-Token) to {origin}"),
            format!(
                "sends: your stored login for it, if you logged in (headers.Authorization) to {origin}"
            ),
            "contacts: https://events.example.com:8443/sse (the server)".to_owned(),
            format!(
                "contacts: the authorization server that {origin} names (when the server asks \
                 for a login)"
            ),
            "roots: none".to_owned(),
        ]
    );
}

#[test]
fn the_enterprise_grant_states_the_identity_provider_and_the_token_it_is_sent() {
    let world = World::new();
    world.write_servers(&json!({
        "corp": {
            "url": "https://mcp.corp.example/mcp",
            "auth": {"type": "oauth", "grant": "enterpriseManaged",
                     "clientId": "agent-${TEAM_ID}",
                     "clientSecret": "${CORP_SECRET}", "idTokenFile": "sso/id_token",
                     "idpTokenEndpoint": "https://sso.corp.example/oauth2/token",
                     "idpClientId": "${IDP_CLIENT}"}
        }
    }));
    let repo = world.repo();
    let lines = world.lines("corp");
    for expected in [
        "sends: $CORP_SECRET (auth.clientSecret) to the authorization server that \
         https://mcp.corp.example names"
            .to_owned(),
        // A client id is sent too (with the secret, in a Basic header): its variables with it.
        "sends: $TEAM_ID (auth.clientId) to the authorization server that \
         https://mcp.corp.example names"
            .to_owned(),
        "sends: $IDP_CLIENT (auth.idpClientId) to https://sso.corp.example".to_owned(),
        format!(
            "reads: {}/sso/id_token (auth.idTokenFile), sent to https://sso.corp.example",
            repo.display()
        ),
        "contacts: https://sso.corp.example/oauth2/token (auth.idpTokenEndpoint: where the ID \
         token is exchanged)"
            .to_owned(),
        "contacts: the authorization server that https://mcp.corp.example names (to get its \
         tokens by itself, at every connection)"
            .to_owned(),
    ] {
        assert!(
            lines.contains(&expected),
            "missing {expected:?} in {lines:#?}"
        );
    }
    assert!(world.consent("corp").is_approvable());
}

#[test]
fn what_a_variable_names_or_what_lies_outside_the_project_cannot_be_approved() {
    let world = World::new();
    world.write_servers(&json!({
        "by-variable": {"command": "${TOOL}", "args": ["serve"]},
        "host-by-variable": {"type": "http", "url": "https://${TENANT}.example.com/mcp"},
        "home-key": {"url": "https://a.example/mcp",
                     "auth": {"type": "oauth", "grant": "workloadIdentity",
                              "assertionFile": "${HOME}/.kube/token"}},
        "idp-by-variable": {"url": "https://b.example/mcp",
                            "auth": {"type": "oauth", "grant": "enterpriseManaged",
                                     "clientId": "a", "clientSecret": "s", "idToken": "t",
                                     "idpTokenEndpoint": "${IDP}/token", "idpClientId": "a"}},
        "escaping": {"url": "https://c.example/mcp",
                     "auth": {"type": "oauth", "grant": "clientCredentials", "clientId": "a",
                              "privateKeyFile": "../../etc/key.pem"}},
        "fine": {"type": "http", "url": "https://d.example/mcp?tenant=${TENANT}"},
        "roots-by-variable": {"command": "srv", "roots": [".", "${HOME}/notes"]},
        "cwd-by-variable": {"command": "./x.sh", "cwd": "${HOME}"}
    }));
    let world_ref = &world;
    let refused = |name: &str| -> Vec<String> {
        world_ref
            .consent(name)
            .refused
            .iter()
            .map(ToString::to_string)
            .collect()
    };
    assert!(refused("by-variable")[0].starts_with("command: named by $TOOL"));
    assert!(refused("host-by-variable")[0].starts_with("url: named by $TENANT"));
    assert!(refused("home-key")[0].starts_with("auth.assertionFile: named by $HOME"));
    assert!(refused("idp-by-variable")[0].starts_with("auth.idpTokenEndpoint: named by $IDP"));
    assert!(
        refused("escaping")[0].starts_with(&format!(
            "auth.privateKeyFile: names {}, outside the project folder {}",
            world.root.parent().unwrap().join("etc/key.pem").display(),
            world.repo().display()
        )),
        "{:?}",
        refused("escaping")
    );
    assert!(refused("fine").is_empty());
    assert!(
        refused("cwd-by-variable")[0].starts_with("cwd: named by $HOME"),
        "{:?}",
        refused("cwd-by-variable")
    );
    // A root a variable names is a folder chosen at run time, not the one shown.
    assert!(
        refused("roots-by-variable")[0].starts_with("roots[1]: named by $HOME"),
        "{:?}",
        refused("roots-by-variable")
    );

    // Nothing approves them: not the writer, not an approval recorded anyway.
    for name in [
        "by-variable",
        "host-by-variable",
        "home-key",
        "idp-by-variable",
        "escaping",
        "roots-by-variable",
        "cwd-by-variable",
    ] {
        let (definition, source) = world.definition(name);
        let consent = Consent::of(&definition, &source);
        let approval = [(name, &definition, &consent)];
        let error = trust_project_servers(&world.ctx(), &world.repo(), &approval).unwrap_err();
        assert!(matches!(error, ConfigError::Change(_)), "{name}: {error:?}");
        assert!(error.to_string().contains("cannot be approved"), "{error}");
    }
    let claude_all = json!({"projects": {world.repo().display().to_string(): {"enableAllProjectMcpServers": true}}});
    std::fs::write(world.root.join("home/.claude.json"), claude_all.to_string()).unwrap();
    assert_eq!(
        needing_approval(&world.load(&DiscoveryOptions::default())),
        [
            "by-variable",
            "cwd-by-variable",
            "escaping",
            "home-key",
            "host-by-variable",
            "idp-by-variable",
            "roots-by-variable"
        ]
    );
}

#[test]
fn an_approval_holds_only_while_what_it_allows_is_the_same() {
    let world = World::new();
    let repo = world.repo();
    std::fs::create_dir_all(repo.join("keys")).unwrap();
    std::fs::write(repo.join("keys/a.pem"), "a").unwrap();
    std::fs::write(repo.join("keys/b.pem"), "b").unwrap();
    let link = repo.join("keys/current.pem");
    std::os::unix::fs::symlink("a.pem", &link).unwrap();
    world.write_servers(&json!({
        "keyed": {"url": "https://mcp.example.org/mcp",
                  "auth": {"type": "oauth", "grant": "clientCredentials", "clientId": "robot",
                           "privateKeyFile": "keys/current.pem"}}
    }));
    let found = world.load(&trusting());
    let server = &found.servers["keyed"];
    let consent = Consent::of(&server.definition, &server.source.meta);
    assert_eq!(consent.reads[0].file, repo.join("keys/a.pem"));
    trust_project_servers(
        &world.ctx(),
        &repo,
        &[("keyed", &server.definition, &consent)],
    )
    .unwrap();
    assert!(needing_approval(&world.load(&DiscoveryOptions::default())).is_empty());

    // The same definition, its key file now leading elsewhere: asked again.
    std::fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink("b.pem", &link).unwrap();
    assert_eq!(
        needing_approval(&world.load(&DiscoveryOptions::default())),
        ["keyed"]
    );
}

#[test]
fn a_plugins_entry_states_its_fields_and_the_variables_they_send() {
    let world = World::new();
    world.write_servers(&json!({
        "socket": {"type": "unix", "path": "/run/mcp.sock", "env": {"KEY": "${SOCKET_KEY}"}}
    }));
    let lines = world.lines("socket");
    assert!(
        lines.contains(
            &"sends: $SOCKET_KEY (env.KEY) to the transport plugin for type \"unix\"".to_owned()
        ),
        "{lines:#?}"
    );
    assert!(
        lines.iter().any(|line| line
            .starts_with("contacts: the transport plugin for type \"unix\"")
            && line.contains("path, env")),
        "{lines:#?}"
    );
    let json = world.consent("socket").to_json();
    assert_eq!(json["approvable"], true);
    assert_eq!(json["sends"][0]["variable"], "SOCKET_KEY");
}

/// An entry that could not run even once approved (a name of hidden characters, a root that is
/// no folder) is invalid at once, with its reason, and never waits for approval; one whose
/// variable is unset here still waits (it is approved as written and reports the variable).
#[test]
fn an_entry_that_could_not_run_is_invalid_before_any_approval() {
    let world = World::new();
    world.write_servers(&json!({
        "hid\u{200b}den": {"command": "srv"},
        "bad-root": {"command": "srv", "roots": ["~/x"]},
        "unset-arg": {"command": "srv", "args": ["${NOT_SET_IN_THIS_TEST}"]},
        "fine": {"command": "srv"},
    }));
    let found = world.load(&DiscoveryOptions::default());
    assert_eq!(needing_approval(&found), ["fine", "unset-arg"]);
    let mut invalid: Vec<&str> = found
        .skipped
        .iter()
        .filter(|skipped| matches!(skipped.reason, mcp_config::SkipReason::Invalid(_)))
        .map(|skipped| skipped.name.as_str())
        .collect();
    invalid.sort_unstable();
    assert_eq!(invalid, ["bad-root", "hid\u{200b}den"], "{found:?}");
}

/// A `!command` value or `headersHelper` whose program is a relative path runs in the project
/// folder: the approval says so, naming it.
#[test]
fn a_relative_shell_command_states_the_project_folder_it_runs_in() {
    let world = World::new();
    world.write_servers(&json!({
        "signed": {"type": "http", "url": "https://a.example/mcp",
                   "headersHelper": "./scripts/sign.sh --fresh"},
        "tokened": {"command": "srv", "env": {"TOKEN": "!./scripts/token.sh"}},
        "plain": {"command": "srv", "env": {"TOKEN": "!gh auth token"}},
    }));
    let repo = world.repo();
    let signed = world.lines("signed");
    assert!(
        signed.contains(&format!(
            "runs: ./scripts/sign.sh --fresh  (headersHelper, run by sh in {} at every \
             connection; its output goes to https://a.example)",
            repo.display()
        )),
        "{signed:#?}"
    );
    let tokened = world.lines("tokened");
    assert!(
        tokened.contains(&format!(
            "runs: ./scripts/token.sh  (env.TOKEN, run by sh in {} when it connects; its output \
             goes to the server's process)",
            repo.display()
        )),
        "{tokened:#?}"
    );
    let plain = world.lines("plain");
    assert!(
        plain.contains(
            &"runs: gh auth token  (env.TOKEN, run by sh when it connects; its output goes to \
              the server's process)"
                .to_owned()
        ),
        "{plain:#?}"
    );
}

/// A root whose name is a link elsewhere (`docs` to the home folder) is shown with where it
/// leads: that folder is what the server is offered.
#[cfg(unix)]
#[test]
fn a_root_that_is_a_link_shows_where_it_leads() {
    let world = World::new();
    let home = world.root.join("home");
    std::os::unix::fs::symlink(&home, world.root.join("repo/docs")).unwrap();
    world.write_servers(&json!({"linked": {"command": "srv", "roots": ["docs"]}}));
    let lines = world.lines("linked");
    let expected = format!(
        "roots: {}/docs (a link to {})",
        world.repo().display(),
        std::fs::canonicalize(&home).unwrap().display()
    );
    assert!(lines.contains(&expected), "{expected}: {lines:#?}");
}
