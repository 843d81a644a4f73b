//! Round trips of the config writer behind `/mcp add|remove|enable|disable`: what it writes,
//! what it keeps, the modes it sets and what it refuses.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_config::writer::{
    ChangeAction, add_server, native_config_path, remove_server, set_server_enabled,
};
use mcp_config::{
    ChangeProblem, ConfigError, DiscoveryContext, Level, RemoteConfig, ServerConfig, SourceMeta,
    StdioConfig, TransportConfig,
};
use serde_json::{Value, json};

/// A temporary folder holding a project (`project/`) and a home (`home/`), removed on drop.
struct Sandbox {
    root: PathBuf,
    ctx: DiscoveryContext,
}

impl Sandbox {
    fn new() -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let root = std::env::temp_dir().join(format!(
            "mcp-config-writer-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(root.join("project")).unwrap();
        fs::create_dir_all(root.join("home")).unwrap();
        let ctx = DiscoveryContext::new("testagent", root.join("project"), root.join("home"));
        Self { root, ctx }
    }

    fn project_file(&self) -> PathBuf {
        self.ctx.native_project_file()
    }

    fn user_file(&self) -> PathBuf {
        self.ctx.native_user_file()
    }

    /// Writes `text` to `path`, creating its directory.
    fn put(&self, path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap();
    assert!(text.ends_with('\n'), "no trailing newline in {text:?}");
    serde_json::from_str(&text).unwrap()
}

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn keys(value: &Value) -> Vec<&str> {
    value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect()
}

/// The names in a directory other than `mcp.json`: temp files a write left behind.
fn leftovers(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        // The lock companion stays by design (see `writer`).
        .filter(|name| name != "mcp.json" && name != ".mcp.json.lock")
        .collect()
}

fn claude_code_source(sandbox: &Sandbox) -> SourceMeta {
    SourceMeta::new(
        "claude-code",
        "Claude Code",
        sandbox.ctx.cwd().join(".mcp.json"),
        Level::Project,
    )
}

#[test]
fn add_creates_the_file_0600_in_a_new_0700_directory() {
    let sandbox = Sandbox::new();
    let mut stdio = StdioConfig::new("npx", ["-y", "@scope/files"]);
    stdio.env.insert("ROOT".into(), "${HOME}/work".into());
    let config = ServerConfig::new(TransportConfig::Stdio(stdio));

    let path = add_server(&sandbox.ctx, Level::User, "files", &config).unwrap();

    assert_eq!(path, sandbox.user_file());
    let written = read_json(&path);
    assert_eq!(
        written,
        json!({"mcpServers": {"files": {
            "command": "npx", "args": ["-y", "@scope/files"], "env": {"ROOT": "${HOME}/work"}
        }}})
    );
    let parsed: ServerConfig = serde_json::from_value(written["mcpServers"]["files"].clone())
        .expect("the entry reads back as a ServerConfig");
    assert_eq!(parsed, config);
    assert_eq!(mode(&path), 0o600);
    // Both `~/.config` and `~/.config/testagent` were missing: both are created 0700.
    assert_eq!(mode(path.parent().unwrap()), 0o700);
    assert_eq!(mode(&sandbox.ctx.config_dir), 0o700);
    assert!(leftovers(path.parent().unwrap()).is_empty());
}

#[test]
fn add_to_the_project_file_writes_remote_servers() {
    let sandbox = Sandbox::new();
    let mut remote = RemoteConfig::new("https://example.com/mcp");
    remote
        .headers
        .insert("Authorization".into(), "Bearer ${TOKEN}".into());
    let config = ServerConfig::new(TransportConfig::Http(remote));

    let path = add_server(&sandbox.ctx, Level::Project, "remote", &config).unwrap();

    assert_eq!(path, sandbox.project_file());
    assert_eq!(
        native_config_path(&sandbox.ctx, Level::Project).unwrap(),
        sandbox.project_file()
    );
    assert_eq!(
        read_json(&path),
        json!({"mcpServers": {"remote": {
            "type": "http",
            "url": "https://example.com/mcp",
            "headers": {"Authorization": "Bearer ${TOKEN}"}
        }}})
    );
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(path.parent().unwrap()), 0o700);
}

#[test]
fn an_existing_directory_keeps_its_mode() {
    let sandbox = Sandbox::new();
    let dir = sandbox.user_file().parent().unwrap().to_owned();
    fs::create_dir_all(&dir).unwrap();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();

    add_server(
        &sandbox.ctx,
        Level::User,
        "a",
        &ServerConfig::stdio("a", Vec::<String>::new()),
    )
    .unwrap();

    assert_eq!(mode(&dir), 0o755);
    assert_eq!(mode(&sandbox.user_file()), 0o600);
}

#[test]
fn add_keeps_unknown_fields_other_servers_and_their_order() {
    let sandbox = Sandbox::new();
    let path = sandbox.user_file();
    sandbox.put(
        &path,
        r#"{
  "zeta": 1,
  "mcpServers": {
    "zz-last-alphabetically": {"command": "z", "alwaysAllow": ["read"], "disabled": false},
    "aa-first": {"url": "https://h/mcp", "customField": {"nested": [1, 2]}}
  },
  "alpha": {"keep": true},
  "disabledServers": ["other"]
}"#,
    );
    fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();

    add_server(
        &sandbox.ctx,
        Level::User,
        "new.server",
        &ServerConfig::stdio("n", ["--flag"]),
    )
    .unwrap();

    let written = read_json(&path);
    assert_eq!(
        keys(&written),
        ["zeta", "mcpServers", "alpha", "disabledServers"]
    );
    assert_eq!(
        keys(&written["mcpServers"]),
        ["zz-last-alphabetically", "aa-first", "new.server"]
    );
    assert_eq!(
        written["mcpServers"]["zz-last-alphabetically"],
        json!({"command": "z", "alwaysAllow": ["read"], "disabled": false})
    );
    assert_eq!(
        keys(&written["mcpServers"]["zz-last-alphabetically"]),
        ["command", "alwaysAllow", "disabled"]
    );
    assert_eq!(
        written["mcpServers"]["aa-first"],
        json!({"url": "https://h/mcp", "customField": {"nested": [1, 2]}})
    );
    assert_eq!(written["alpha"], json!({"keep": true}));
    assert_eq!(written["disabledServers"], json!(["other"]));
    assert_eq!(
        written["mcpServers"]["new.server"],
        json!({"command": "n", "args": ["--flag"]})
    );
    // The file is replaced by one created 0600.
    assert_eq!(mode(&path), 0o600);
}

#[test]
fn an_empty_file_counts_as_empty_object() {
    let sandbox = Sandbox::new();
    sandbox.put(&sandbox.project_file(), "  \n");
    add_server(
        &sandbox.ctx,
        Level::Project,
        "x",
        &ServerConfig::stdio("x", Vec::<String>::new()),
    )
    .unwrap();
    assert_eq!(
        read_json(&sandbox.project_file()),
        json!({"mcpServers": {"x": {"command": "x"}}})
    );
}

#[test]
fn remove_keeps_everything_else() {
    let sandbox = Sandbox::new();
    let path = sandbox.project_file();
    sandbox.put(
        &path,
        r#"{"before": 0, "mcpServers": {"c": {"command": "c", "x-extra": 1}, "b": {"command": "b"}, "a": {"command": "a"}}, "after": [1]}"#,
    );

    let removed = remove_server(&sandbox.ctx, Level::Project, "c").unwrap();

    assert_eq!(removed, path);
    let written = read_json(&path);
    assert_eq!(keys(&written), ["before", "mcpServers", "after"]);
    assert_eq!(keys(&written["mcpServers"]), ["b", "a"]);
    assert_eq!(written["after"], json!([1]));
    assert_eq!(mode(&path), 0o600);
    assert!(leftovers(path.parent().unwrap()).is_empty());
}

#[test]
fn remove_of_an_unknown_server_names_the_file_and_writes_nothing() {
    let sandbox = Sandbox::new();
    let path = sandbox.user_file();
    let original = r#"{"mcpServers": {"a": {"command": "a"}}}"#;
    sandbox.put(&path, original);

    let error = remove_server(&sandbox.ctx, Level::User, "b").unwrap_err();

    let message = error.to_string();
    assert!(message.contains("\"b\""), "{message}");
    assert!(message.contains(&path.display().to_string()), "{message}");
    assert_eq!(fs::read_to_string(&path).unwrap(), original);
    assert!(leftovers(path.parent().unwrap()).is_empty());

    // A file that does not exist is not created by a failed remove.
    let error = remove_server(&sandbox.ctx, Level::Project, "b").unwrap_err();
    assert!(
        error
            .to_string()
            .contains(&sandbox.project_file().display().to_string())
    );
    assert!(!sandbox.project_file().exists());
}

#[test]
fn a_duplicate_name_is_refused_and_the_file_is_unchanged() {
    let sandbox = Sandbox::new();
    let path = sandbox.user_file();
    let original = "{\"mcpServers\":{\"dup\":{\"command\":\"old\"}},\"other\":true}";
    sandbox.put(&path, original);

    let error = add_server(
        &sandbox.ctx,
        Level::User,
        "dup",
        &ServerConfig::stdio("new", Vec::<String>::new()),
    )
    .unwrap_err();

    assert!(
        matches!(&error, ConfigError::Change(ChangeProblem::AlreadyThere { name, path: there })
            if name == "dup" && *there == path),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(message.contains("already"), "{message}");
    assert!(message.contains("remove"), "{message}");
    assert_eq!(fs::read_to_string(&path).unwrap(), original);
    assert!(leftovers(path.parent().unwrap()).is_empty());
}

#[test]
fn invalid_names_are_refused_before_anything_is_read() {
    let sandbox = Sandbox::new();
    for name in ["", "has space", "a/b", "ключ"] {
        let error = add_server(
            &sandbox.ctx,
            Level::User,
            name,
            &ServerConfig::stdio("x", Vec::<String>::new()),
        )
        .unwrap_err();
        assert!(
            matches!(
                error,
                ConfigError::Change(ChangeProblem::EmptyName | ChangeProblem::BadName { .. })
            ),
            "{error:?}"
        );
        assert!(
            error.to_string().contains("letters, digits"),
            "{name:?}: {error}"
        );
    }
    assert!(!sandbox.user_file().exists());
}

#[test]
fn a_file_that_does_not_parse_is_never_overwritten() {
    let sandbox = Sandbox::new();
    let path = sandbox.user_file();
    let original = "{\"mcpServers\": {\"a\": {\"command\": \"a\"},}} // broken\n";
    sandbox.put(&path, original);

    let error = add_server(
        &sandbox.ctx,
        Level::User,
        "b",
        &ServerConfig::stdio("b", Vec::<String>::new()),
    )
    .unwrap_err();
    assert!(matches!(error, ConfigError::Parse { .. }), "{error:?}");
    assert_eq!(error.path(), Some(path.as_path()));

    for result in [
        remove_server(&sandbox.ctx, Level::User, "a").map(|_| ()),
        set_server_enabled(&sandbox.ctx, "a", false, None).map(|_| ()),
        set_server_enabled(&sandbox.ctx, "a", true, Some(&claude_code_source(&sandbox)))
            .map(|_| ()),
    ] {
        assert!(
            matches!(result, Err(ConfigError::Parse { .. })),
            "{result:?}"
        );
    }

    assert_eq!(fs::read(&path).unwrap(), original.as_bytes());
    assert!(leftovers(path.parent().unwrap()).is_empty());
}

#[test]
fn wrong_shapes_are_errors_and_leave_the_file_alone() {
    let sandbox = Sandbox::new();
    let path = sandbox.user_file();
    let foreign = claude_code_source(&sandbox);
    let add = |ctx: &DiscoveryContext| {
        add_server(
            ctx,
            Level::User,
            "a",
            &ServerConfig::stdio("a", Vec::<String>::new()),
        )
        .map(|_| ())
    };
    let disable_native = |ctx: &DiscoveryContext| set_server_enabled(ctx, "a", false, None);
    let disable_foreign =
        |ctx: &DiscoveryContext| set_server_enabled(ctx, "a", false, Some(&foreign));
    for (original, operations) in [
        ("[1, 2]", vec!["add", "disable_foreign"]),
        (r#"{"mcpServers": ["a"]}"#, vec!["add", "disable_native"]),
        (r#"{"mcpServers": {"a": "npx a"}}"#, vec!["disable_native"]),
        (
            r#"{"mcpServers": {}, "disabledServers": "a"}"#,
            vec!["disable_foreign"],
        ),
    ] {
        sandbox.put(&path, original);
        for operation in operations {
            let result = match operation {
                "add" => add(&sandbox.ctx),
                "disable_native" => disable_native(&sandbox.ctx).map(|_| ()),
                _ => disable_foreign(&sandbox.ctx).map(|_| ()),
            };
            assert!(
                matches!(result, Err(ConfigError::Shape { .. })),
                "{original} / {operation}: {result:?}"
            );
        }
        assert_eq!(fs::read_to_string(&path).unwrap(), original);
    }
    assert!(leftovers(path.parent().unwrap()).is_empty());
}

#[test]
fn enable_and_disable_toggle_a_native_server() {
    let sandbox = Sandbox::new();
    let path = sandbox.project_file();
    sandbox.put(
        &path,
        r#"{"mcpServers": {"a": {"command": "a", "alwaysAllow": ["x"]}, "b": {"command": "b"}}}"#,
    );

    let changes = set_server_enabled(&sandbox.ctx, "a", false, None).unwrap();
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].path, path);
    assert_eq!(changes[0].server, "a");
    assert_eq!(changes[0].action, ChangeAction::SetEnabledFalse);
    assert!(changes[0].to_string().contains("\"enabled\": false"));
    let written = read_json(&path);
    assert_eq!(
        written["mcpServers"]["a"],
        json!({"command": "a", "alwaysAllow": ["x"], "enabled": false})
    );
    assert_eq!(keys(&written["mcpServers"]), ["a", "b"]);
    assert_eq!(mode(&path), 0o600);

    // Disabling again changes nothing.
    assert!(
        set_server_enabled(&sandbox.ctx, "a", false, None)
            .unwrap()
            .is_empty()
    );

    let changes = set_server_enabled(&sandbox.ctx, "a", true, None).unwrap();
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].action, ChangeAction::RemovedEnabledFlag);
    let written = read_json(&path);
    assert_eq!(
        written["mcpServers"]["a"],
        json!({"command": "a", "alwaysAllow": ["x"]})
    );
    assert_eq!(written["mcpServers"]["b"], json!({"command": "b"}));
    // No user file was needed.
    assert!(!sandbox.user_file().exists());
    assert!(leftovers(path.parent().unwrap()).is_empty());
}

#[test]
fn disabling_keeps_the_position_of_an_existing_enabled_field() {
    let sandbox = Sandbox::new();
    let path = sandbox.user_file();
    sandbox.put(
        &path,
        r#"{"mcpServers": {"a": {"enabled": true, "command": "a", "timeout": 5}}}"#,
    );
    let native = SourceMeta::new("native", "testagent", &path, Level::User);

    set_server_enabled(&sandbox.ctx, "a", false, Some(&native)).unwrap();

    let written = read_json(&path);
    assert_eq!(
        keys(&written["mcpServers"]["a"]),
        ["enabled", "command", "timeout"]
    );
    assert_eq!(written["mcpServers"]["a"]["enabled"], json!(false));
}

#[test]
fn the_project_file_is_looked_at_before_the_user_file() {
    let sandbox = Sandbox::new();
    sandbox.put(
        &sandbox.project_file(),
        r#"{"mcpServers": {"a": {"command": "project"}}}"#,
    );
    let user_original = r#"{"mcpServers": {"a": {"command": "user"}}}"#;
    sandbox.put(&sandbox.user_file(), user_original);

    let changes = set_server_enabled(&sandbox.ctx, "a", false, None).unwrap();

    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].path, sandbox.project_file());
    assert_eq!(
        read_json(&sandbox.project_file())["mcpServers"]["a"]["enabled"],
        json!(false)
    );
    assert_eq!(
        fs::read_to_string(sandbox.user_file()).unwrap(),
        user_original
    );

    // With native source metadata naming the user file, that file is the one changed.
    let native_user = SourceMeta::new("native", "testagent", sandbox.user_file(), Level::User);
    let changes = set_server_enabled(&sandbox.ctx, "a", false, Some(&native_user)).unwrap();
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].path, sandbox.user_file());
}

#[test]
fn enabling_a_native_server_also_clears_disabled_servers() {
    let sandbox = Sandbox::new();
    sandbox.put(
        &sandbox.project_file(),
        r#"{"mcpServers": {"a": {"command": "a", "enabled": false}}}"#,
    );
    sandbox.put(
        &sandbox.user_file(),
        r#"{"disabledServers": ["x", "a", "y"], "mcpServers": {}}"#,
    );

    let changes = set_server_enabled(&sandbox.ctx, "a", true, None).unwrap();

    let actions: Vec<_> = changes
        .iter()
        .map(|change| (change.path.clone(), change.action))
        .collect();
    assert_eq!(
        actions,
        [
            (sandbox.project_file(), ChangeAction::RemovedEnabledFlag),
            (
                sandbox.user_file(),
                ChangeAction::RemovedFromDisabledServers
            ),
        ]
    );
    assert_eq!(
        read_json(&sandbox.project_file()),
        json!({"mcpServers": {"a": {"command": "a"}}})
    );
    let user = read_json(&sandbox.user_file());
    assert_eq!(keys(&user), ["disabledServers", "mcpServers"]);
    assert_eq!(user["disabledServers"], json!(["x", "y"]));
}

#[test]
fn a_server_from_another_tool_is_switched_through_disabled_servers() {
    let sandbox = Sandbox::new();
    let source = claude_code_source(&sandbox);
    // Claude Code's own file is never written, even though it exists.
    let claude_file = source.path.clone();
    let claude_original = r#"{"mcpServers": {"ext": {"command": "ext"}}}"#;
    sandbox.put(&claude_file, claude_original);

    let changes = set_server_enabled(&sandbox.ctx, "ext", false, Some(&source)).unwrap();
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].path, sandbox.user_file());
    assert_eq!(changes[0].action, ChangeAction::AddedToDisabledServers);
    assert_eq!(
        read_json(&sandbox.user_file()),
        json!({"disabledServers": ["ext"]})
    );
    assert_eq!(mode(&sandbox.user_file()), 0o600);
    assert_eq!(mode(sandbox.user_file().parent().unwrap()), 0o700);

    // A second disable does not add the name twice.
    assert!(
        set_server_enabled(&sandbox.ctx, "ext", false, Some(&source))
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        read_json(&sandbox.user_file())["disabledServers"],
        json!(["ext"])
    );

    let changes = set_server_enabled(&sandbox.ctx, "ext", true, Some(&source)).unwrap();
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].action, ChangeAction::RemovedFromDisabledServers);
    // Emptied, the list goes.
    assert_eq!(read_json(&sandbox.user_file()), json!({}));
    // Enabling again changes nothing.
    assert!(
        set_server_enabled(&sandbox.ctx, "ext", true, Some(&source))
            .unwrap()
            .is_empty()
    );

    assert_eq!(fs::read_to_string(&claude_file).unwrap(), claude_original);
    assert!(!sandbox.project_file().exists());
    assert!(leftovers(sandbox.user_file().parent().unwrap()).is_empty());
}

#[test]
fn a_foreign_server_with_a_native_namesake_still_goes_through_disabled_servers() {
    let sandbox = Sandbox::new();
    let project_original = r#"{"mcpServers": {"ext": {"command": "mine"}}}"#;
    sandbox.put(&sandbox.project_file(), project_original);
    sandbox.put(
        &sandbox.user_file(),
        r#"{"keep": 1, "mcpServers": {"u": {"command": "u"}}}"#,
    );

    set_server_enabled(
        &sandbox.ctx,
        "ext",
        false,
        Some(&claude_code_source(&sandbox)),
    )
    .unwrap();

    assert_eq!(
        fs::read_to_string(sandbox.project_file()).unwrap(),
        project_original
    );
    let user = read_json(&sandbox.user_file());
    assert_eq!(keys(&user), ["keep", "mcpServers", "disabledServers"]);
    assert_eq!(user["disabledServers"], json!(["ext"]));
}

#[test]
fn a_server_in_no_native_file_is_disabled_in_the_user_file() {
    let sandbox = Sandbox::new();
    let changes = set_server_enabled(&sandbox.ctx, "somewhere", false, None).unwrap();
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].action, ChangeAction::AddedToDisabledServers);
    assert_eq!(
        read_json(&sandbox.user_file()),
        json!({"disabledServers": ["somewhere"]})
    );
    // Enabling an unknown server that is not listed writes nothing.
    assert!(
        set_server_enabled(&sandbox.ctx, "nothing", true, None)
            .unwrap()
            .is_empty()
    );
    assert!(!sandbox.project_file().exists());
}

#[test]
fn a_symlinked_file_is_written_through_and_the_link_stays() {
    let sandbox = Sandbox::new();
    let real = sandbox.root.join("dotfiles").join("mcp.json");
    sandbox.put(&real, r#"{"mine": true}"#);
    let link = sandbox.user_file();
    fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();

    let path = add_server(
        &sandbox.ctx,
        Level::User,
        "s",
        &ServerConfig::stdio("s", Vec::<String>::new()),
    )
    .unwrap();

    assert_eq!(path, link);
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        read_json(&real),
        json!({"mine": true, "mcpServers": {"s": {"command": "s"}}})
    );
    assert_eq!(mode(&real), 0o600);
    assert!(leftovers(real.parent().unwrap()).is_empty());
    assert!(leftovers(link.parent().unwrap()).is_empty());
}

#[test]
fn a_directory_where_the_file_should_be_is_an_error() {
    let sandbox = Sandbox::new();
    fs::create_dir_all(sandbox.user_file()).unwrap();
    let error = add_server(
        &sandbox.ctx,
        Level::User,
        "s",
        &ServerConfig::stdio("s", Vec::<String>::new()),
    )
    .unwrap_err();
    assert!(matches!(error, ConfigError::NotAFile { .. }), "{error:?}");
    assert!(sandbox.user_file().is_dir());
}

#[test]
fn many_writes_leave_exactly_one_file() {
    let sandbox = Sandbox::new();
    for index in 0..20 {
        add_server(
            &sandbox.ctx,
            Level::Project,
            &format!("s{index}"),
            &ServerConfig::stdio("s", Vec::<String>::new()),
        )
        .unwrap();
    }
    for index in (0..20).step_by(2) {
        remove_server(&sandbox.ctx, Level::Project, &format!("s{index}")).unwrap();
    }
    let written = read_json(&sandbox.project_file());
    let expected: Vec<String> = (1..20).step_by(2).map(|i| format!("s{i}")).collect();
    assert_eq!(keys(&written["mcpServers"]), expected);
    assert!(leftovers(sandbox.project_file().parent().unwrap()).is_empty());
}

#[test]
fn concurrent_writers_each_land_and_none_is_lost() {
    let sandbox = Sandbox::new();
    // Already there, switched off and on by writers racing the adds.
    add_server(
        &sandbox.ctx,
        Level::User,
        "toggled",
        &ServerConfig::stdio("t", Vec::<String>::new()),
    )
    .unwrap();
    let writers = 24;
    std::thread::scope(|scope| {
        for index in 0..writers {
            let ctx = &sandbox.ctx;
            scope.spawn(move || {
                let config = ServerConfig::stdio("srv", [index.to_string()]);
                add_server(ctx, Level::User, &format!("user-{index}"), &config).unwrap();
                add_server(ctx, Level::Project, &format!("project-{index}"), &config).unwrap();
                // Listed in the user file's disabledServers: another tool's server.
                let foreign = SourceMeta::new("cursor", "Cursor", "elsewhere.json", Level::User);
                set_server_enabled(ctx, &format!("foreign-{index}"), false, Some(&foreign))
                    .unwrap();
                set_server_enabled(ctx, "toggled", index % 2 == 0, None).unwrap();
            });
        }
    });
    let user = read_json(&sandbox.user_file());
    let project = read_json(&sandbox.project_file());
    for index in 0..writers {
        assert!(
            user["mcpServers"].get(format!("user-{index}")).is_some(),
            "user-{index} was lost: {user:#}"
        );
        assert!(
            project["mcpServers"]
                .get(format!("project-{index}"))
                .is_some(),
            "project-{index} was lost: {project:#}"
        );
        assert!(
            user["disabledServers"]
                .as_array()
                .unwrap()
                .contains(&json!(format!("foreign-{index}"))),
            "foreign-{index} was lost: {user:#}"
        );
    }
    assert!(user["mcpServers"].get("toggled").is_some());
    // No temporary file and no lock file is left behind, in the project's folder or the
    // user's.
    for dir in [
        sandbox.user_file().parent().unwrap().to_owned(),
        sandbox.project_file().parent().unwrap().to_owned(),
    ] {
        let mut names: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["mcp.json"], "{}", dir.display());
    }
}

#[test]
fn a_private_mode_of_the_file_is_kept_and_a_wider_one_narrowed() {
    let sandbox = Sandbox::new();
    let path = sandbox.user_file();
    for (before, after) in [
        (0o400, 0o400),
        (0o600, 0o600),
        (0o640, 0o600),
        (0o644, 0o600),
    ] {
        sandbox.put(&path, "{}\n");
        fs::set_permissions(&path, fs::Permissions::from_mode(before)).unwrap();
        let name = format!("mode-{before:o}");
        add_server(
            &sandbox.ctx,
            Level::User,
            &name,
            &ServerConfig::stdio("m", Vec::<String>::new()),
        )
        .unwrap();
        assert!(read_json(&path)["mcpServers"].get(&name).is_some());
        assert_eq!(mode(&path), after, "{before:o}");
    }
}
