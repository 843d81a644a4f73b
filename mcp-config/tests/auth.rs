//! Connect-time resolution: `!command` values, their cache, OAuth tokens, and secrets kept out
//! of `Debug` output and error messages.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_config::{
    AuthConfig, ServerConfig, TransportConfig, TransportKind,
    auth::{
        AuthError, AuthOptions, AuthResolver, CommandFailure, OAUTH_ACCESS_TOKEN_ENV,
        ResolvedServerConfig, resolve_auth_config, resolve_auth_config_with,
    },
};

/// A scratch directory removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(test: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "mcp-config-auth-{test}-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }

    fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const REMOTE_URL: &str = "https://example.com/mcp";

fn stdio_with_env(key: &str, value: &str) -> ServerConfig {
    let mut config = ServerConfig::stdio("my-server", ["--flag"]);
    env_mut(&mut config).insert(key.to_owned(), value.to_owned());
    config
}

fn http_with_header(key: &str, value: &str) -> ServerConfig {
    let mut config = ServerConfig::http("https://example.com/mcp");
    headers_mut(&mut config).insert(key.to_owned(), value.to_owned());
    config
}

fn remote(kind: TransportKind) -> ServerConfig {
    match kind {
        TransportKind::Sse => ServerConfig::sse("https://example.com/mcp"),
        _ => ServerConfig::http("https://example.com/mcp"),
    }
}

fn env_mut(config: &mut ServerConfig) -> &mut BTreeMap<String, String> {
    match &mut config.transport {
        TransportConfig::Stdio(stdio) => &mut stdio.env,
        other => panic!("not a stdio server: {other:?}"),
    }
}

fn headers_mut(config: &mut ServerConfig) -> &mut BTreeMap<String, String> {
    match &mut config.transport {
        TransportConfig::Http(remote) | TransportConfig::Sse(remote) => &mut remote.headers,
        other => panic!("not a remote server: {other:?}"),
    }
}

/// The resolved variables of a stdio server (none for a remote one).
fn env(resolved: &ResolvedServerConfig) -> BTreeMap<String, String> {
    match resolved.transport() {
        TransportConfig::Stdio(stdio) => stdio.env.clone(),
        TransportConfig::Http(_) | TransportConfig::Sse(_) | TransportConfig::Custom(_) => {
            BTreeMap::new()
        }
    }
}

/// The resolved headers of a remote server (none for a stdio one).
fn headers(resolved: &ResolvedServerConfig) -> BTreeMap<String, String> {
    match resolved.transport() {
        TransportConfig::Http(remote) | TransportConfig::Sse(remote) => remote.headers.clone(),
        TransportConfig::Stdio(_) | TransportConfig::Custom(_) => BTreeMap::new(),
    }
}

fn quick() -> AuthOptions {
    AuthOptions::default().with_command_timeout(Duration::from_secs(10))
}

fn command_failure(error: &AuthError) -> &CommandFailure {
    match error {
        AuthError::Command { failure, .. } => failure,
        other => panic!("expected a command error, got {other:?}"),
    }
}

fn field(error: &AuthError) -> &str {
    match error {
        AuthError::Command { field, .. } => field,
        other => panic!("expected a command error, got {other:?}"),
    }
}

/// True once the process is gone (or a zombie nobody reaped yet).
fn is_dead(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z') || rest.starts_with('X')),
    }
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .map(|text| text.lines().count())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn command_output_replaces_the_value_trimmed() {
    let config = stdio_with_env("GITHUB_TOKEN", "!printf '  ghp-success-1 \\n\\n'");
    let resolved = resolve_auth_config("github", &config, None).await.unwrap();
    assert_eq!(env(&resolved)["GITHUB_TOKEN"], "ghp-success-1");
    assert_eq!(resolved.name(), "github");
    assert_eq!(resolved.kind(), TransportKind::Stdio);
    let TransportConfig::Stdio(stdio) = resolved.transport() else {
        panic!("stdio")
    };
    assert_eq!(stdio.command, "my-server");
    assert_eq!(stdio.args, ["--flag"]);
    assert_eq!(resolved.timeout_ms(), 30_000);

    let config = http_with_header("X-Api-Key", "!echo header-success-2");
    let resolved = AuthResolver::new()
        .resolve("api", &config, None, &quick())
        .await
        .unwrap();
    assert_eq!(headers(&resolved)["X-Api-Key"], "header-success-2");
    let TransportConfig::Http(remote) = resolved.transport() else {
        panic!("http")
    };
    assert_eq!(remote.url, "https://example.com/mcp");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_values_and_the_other_transports_map_are_left_alone() {
    // A literal value is kept; a `!command` in `env` of an http server is not run at all.
    let config: ServerConfig = serde_json::from_value(serde_json::json!({
        "url": "https://example.com/mcp",
        "headers": {"X-Plain": "plain-value"},
        "env": {"UNUSED": "!exit 1"}
    }))
    .unwrap();
    let resolved = AuthResolver::new()
        .resolve("api", &config, None, &quick())
        .await
        .unwrap();
    assert_eq!(headers(&resolved)["X-Plain"], "plain-value");
    assert!(env(&resolved).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn non_zero_exit_names_the_field_and_the_status_but_not_the_value() {
    let config = http_with_header(
        "Authorization",
        "!echo Bearer leaked-stdout-secret; echo 'vault is locked' >&2; exit 3",
    );
    let error = AuthResolver::new()
        .resolve("remote", &config, None, &quick())
        .await
        .unwrap_err();
    assert_eq!(error.server(), "remote");
    assert_eq!(field(&error), "headers.Authorization");
    assert!(matches!(
        command_failure(&error),
        CommandFailure::Exit { .. }
    ));
    let message = error.to_string();
    assert!(message.contains("Server \"remote\""), "{message}");
    assert!(message.contains("headers.Authorization"), "{message}");
    assert!(message.contains("exit status: 3"), "{message}");
    assert!(message.contains("vault is locked"), "{message}");
    assert!(!message.contains("leaked-stdout-secret"), "{message}");
    assert!(!format!("{error:?}").contains("leaked-stdout-secret"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn empty_output_is_an_error() {
    let config = stdio_with_env("TOKEN", "!printf '  \\n'");
    let error = AuthResolver::new()
        .resolve("s", &config, None, &quick())
        .await
        .unwrap_err();
    assert_eq!(field(&error), "env.TOKEN");
    assert!(matches!(
        command_failure(&error),
        CommandFailure::EmptyOutput { .. }
    ));
    assert!(error.to_string().contains("printed nothing"), "{error}");

    let error = AuthResolver::new()
        .resolve("s", &stdio_with_env("TOKEN", "!  "), None, &quick())
        .await
        .unwrap_err();
    assert_eq!(command_failure(&error), &CommandFailure::EmptyCommand);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_that_runs_too_long_is_killed_with_its_children() {
    let dir = TempDir::new("timeout");
    let pid_file = dir.file("pid");
    let command = format!("!sleep 30 & echo $! > '{}'; wait", pid_file.display());
    let options = AuthOptions::default().with_command_timeout(Duration::from_millis(300));
    let error =
        resolve_auth_config_with("slow", &stdio_with_env("TOKEN", &command), None, &options)
            .await
            .unwrap_err();
    assert_eq!(
        command_failure(&error),
        &CommandFailure::TimedOut(Duration::from_millis(300))
    );
    assert!(error.to_string().contains("env.TOKEN"), "{error}");
    assert!(
        error.to_string().contains("timed out after 300ms"),
        "{error}"
    );

    let pid: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // The kill was sent before the error came back; give the kernel a moment to finish it.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !is_dead(pid) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(is_dead(pid), "the sleep started by the command still runs");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn identical_concurrent_commands_run_once() {
    let dir = TempDir::new("shared");
    let log = dir.file("runs");
    let command = format!(
        "!echo run >> '{}'; sleep 0.2; echo shared-output",
        log.display()
    );
    let resolver = Arc::new(AuthResolver::new());
    let spawn = |name: &'static str, config: ServerConfig| {
        let resolver = Arc::clone(&resolver);
        tokio::spawn(async move { resolver.resolve(name, &config, None, &quick()).await })
    };
    let first = spawn("one", stdio_with_env("A", &command));
    let second = spawn("two", http_with_header("X-Key", &command));
    let (first, second) = (first.await.unwrap(), second.await.unwrap());
    assert_eq!(env(&first.unwrap())["A"], "shared-output");
    assert_eq!(headers(&second.unwrap())["X-Key"], "shared-output");
    assert_eq!(lines(&log), 1);

    // Later resolutions use the cached output …
    let again = resolver
        .resolve("three", &stdio_with_env("B", &command), None, &quick())
        .await
        .unwrap();
    assert_eq!(env(&again)["B"], "shared-output");
    assert_eq!(lines(&log), 1);

    // … until the cache is cleared.
    resolver.clear_cache();
    resolver
        .resolve("four", &stdio_with_env("B", &command), None, &quick())
        .await
        .unwrap();
    assert_eq!(lines(&log), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failures_are_not_cached() {
    let dir = TempDir::new("retry");
    let marker = dir.file("marker");
    let command = format!(
        "!if [ -e '{0}' ]; then echo second-try-value; else touch '{0}'; exit 1; fi",
        marker.display()
    );
    let config = stdio_with_env("TOKEN", &command);
    let resolver = AuthResolver::new();
    let error = resolver
        .resolve("flaky", &config, None, &quick())
        .await
        .unwrap_err();
    assert!(error.to_string().contains("exit status: 1"), "{error}");
    let resolved = resolver
        .resolve("flaky", &config, None, &quick())
        .await
        .unwrap();
    assert_eq!(env(&resolved)["TOKEN"], "second-try-value");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oauth_token_becomes_a_bearer_header_for_http_and_sse() {
    for kind in [TransportKind::Http, TransportKind::Sse] {
        let mut config = remote(kind);
        config.auth = Some(AuthConfig::oauth());
        let resolved = resolve_auth_config("remote", &config, Some("oauth-token-http"))
            .await
            .unwrap();
        assert_eq!(resolved.kind(), kind);
        assert_eq!(
            headers(&resolved)["Authorization"],
            "Bearer oauth-token-http"
        );
        assert!(!format!("{resolved:?}").contains("oauth-token-http"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oauth_token_becomes_an_env_variable_for_stdio() {
    let mut config = ServerConfig::stdio("server", Vec::<String>::new());
    config.auth = Some(AuthConfig::oauth());
    let resolved = resolve_auth_config("local", &config, Some(" oauth-token-stdio\n"))
        .await
        .unwrap();
    assert_eq!(env(&resolved)[OAUTH_ACCESS_TOKEN_ENV], "oauth-token-stdio");
    assert!(headers(&resolved).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_token_is_used_when_auth_is_not_set_and_never_with_another_auth() {
    let config = ServerConfig::http(REMOTE_URL);
    let resolved = resolve_auth_config("remote", &config, Some("opportunistic-token"))
        .await
        .unwrap();
    assert_eq!(
        headers(&resolved)["Authorization"],
        "Bearer opportunistic-token"
    );

    // No token, or another kind of auth: no header, no error.
    let resolved = resolve_auth_config("remote", &config, None).await.unwrap();
    assert!(headers(&resolved).is_empty());
    let mut custom = config.clone();
    custom.auth = Some(serde_json::from_str(r#"{"type": "custom"}"#).unwrap());
    let resolved = resolve_auth_config("remote", &custom, Some("opportunistic-token"))
        .await
        .unwrap();
    assert!(headers(&resolved).is_empty());
    let mut stdio = ServerConfig::stdio("server", Vec::<String>::new());
    stdio.auth = custom.auth.clone();
    let resolved = resolve_auth_config("local", &stdio, Some("opportunistic-token"))
        .await
        .unwrap();
    assert!(!env(&resolved).contains_key(OAUTH_ACCESS_TOKEN_ENV));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plugins_entry_never_gets_a_stored_token() {
    let config: ServerConfig =
        serde_json::from_str(r#"{"type": "unix", "path": "server.sock"}"#).unwrap();
    let resolved = resolve_auth_config("plugin", &config, Some("stored-token"))
        .await
        .unwrap();
    assert!(!format!("{:?}", resolved.transport()).contains("stored-token"));
    assert_eq!(resolved.transport(), &config.transport, "kept as written");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_explicit_authorization_header_wins() {
    let mut config = http_with_header("authorization", "!echo Bearer from-command");
    config.auth = Some(AuthConfig::oauth());
    let resolved = AuthResolver::new()
        .resolve("remote", &config, Some("stored-token"), &quick())
        .await
        .unwrap();
    assert_eq!(headers(&resolved).len(), 1);
    assert_eq!(headers(&resolved)["authorization"], "Bearer from-command");

    // The explicit header makes the login unnecessary.
    let resolved = AuthResolver::new()
        .resolve("remote", &config, None, &quick())
        .await
        .unwrap();
    assert_eq!(headers(&resolved)["authorization"], "Bearer from-command");

    let mut stdio = stdio_with_env(OAUTH_ACCESS_TOKEN_ENV, "explicit-env-token");
    stdio.auth = Some(AuthConfig::oauth());
    let resolved = resolve_auth_config("remote", &stdio, Some("stored-token"))
        .await
        .unwrap();
    assert_eq!(env(&resolved)[OAUTH_ACCESS_TOKEN_ENV], "explicit-env-token");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stdio_oauth_server_without_a_token_asks_the_user_to_log_in() {
    let mut config = ServerConfig::stdio("server", Vec::<String>::new());
    config.auth = Some(AuthConfig::oauth());
    for stored in [None, Some(""), Some("  ")] {
        let error = resolve_auth_config("local", &config, stored)
            .await
            .unwrap_err();
        assert_eq!(
            error,
            AuthError::LoginRequired {
                server: "local".into()
            }
        );
        let message = error.to_string();
        assert!(message.contains("\"local\""), "{message}");
        assert!(message.contains("log in"), "{message}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_oauth_server_without_a_token_is_left_to_the_transports_login() {
    let mut config = ServerConfig::http(REMOTE_URL);
    config.auth = Some(AuthConfig::oauth());
    let resolved = resolve_auth_config("remote", &config, None).await.unwrap();
    assert!(headers(&resolved).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_never_show_in_debug_output_or_errors() {
    let mut config = http_with_header("X-Api-Key", "!echo debug-header-secret");
    if let TransportConfig::Http(remote) = &mut config.transport {
        remote.url = "https://example.com/mcp?apiKey=debug-url-secret".into();
    }
    let resolver = AuthResolver::new();
    let resolved = resolver
        .resolve("remote", &config, Some("debug-oauth-secret"), &quick())
        .await
        .unwrap();
    assert_eq!(headers(&resolved)["X-Api-Key"], "debug-header-secret");
    let shown = format!("{resolved:?} {resolved:#?} {resolver:?}");
    for secret in [
        "debug-oauth-secret",
        "debug-header-secret",
        "debug-url-secret",
    ] {
        assert!(!shown.contains(secret), "{shown}");
    }
    assert!(shown.contains("X-Api-Key") && shown.contains("Authorization"));

    let stdio = stdio_with_env("TOKEN", "!echo debug-env-secret");
    let resolved = resolver
        .resolve("local", &stdio, None, &quick())
        .await
        .unwrap();
    assert_eq!(env(&resolved)["TOKEN"], "debug-env-secret");
    let shown = format!("{resolved:?}");
    assert!(!shown.contains("debug-env-secret"), "{shown}");
    assert!(shown.contains("TOKEN"), "{shown}");

    // A failing command that printed its secret before failing.
    let failing = stdio_with_env("TOKEN", "!echo error-secret; exit 1");
    let error = resolver
        .resolve("local", &failing, None, &quick())
        .await
        .unwrap_err();
    for text in [error.to_string(), format!("{error:?}")] {
        assert!(!text.contains("error-secret"), "{text}");
    }
}

#[test]
fn resolution_futures_can_be_spawned() {
    fn assert_send<T: Send>(_: &T) {}
    let config = ServerConfig::stdio("x", Vec::<String>::new());
    assert_send(&resolve_auth_config("x", &config, Some("token")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_variable_that_expands_to_a_bang_is_data_and_never_runs() {
    let dir = TempDir::new("bang-data");
    let witness = dir.file("ran");
    let hostile = format!("!touch '{}'; echo x", witness.display());
    let vars = BTreeMap::from([("MYTOK".to_owned(), hostile.clone())]);
    for (written, resolved_value) in [
        ("${MYTOK}", hostile.clone()),
        ("${UNSET:-${MYTOK}}", hostile.clone()),
        ("${UNSET:-!touch nothing}", "!touch nothing".to_owned()),
    ] {
        let expanded =
            mcp_config::expand_server_config("s", &stdio_with_env("TOK", written), &vars).unwrap();
        let resolved = AuthResolver::new()
            .resolve("s", &expanded, None, &quick())
            .await
            .unwrap();
        assert_eq!(env(&resolved)["TOK"], resolved_value, "{written}");

        let mut remote = http_with_header("X-Token", written);
        headers_mut(&mut remote).insert("X-Plain".into(), "plain".into());
        let expanded = mcp_config::expand_server_config("r", &remote, &vars).unwrap();
        let resolved = AuthResolver::new()
            .resolve("r", &expanded, None, &quick())
            .await
            .unwrap();
        assert_eq!(headers(&resolved)["X-Token"], resolved_value, "{written}");
    }
    assert!(!witness.exists(), "an expanded value ran as a command");

    // A `!command` as written still runs, its text as written: `${VAR}` in it is the shell's
    // own expansion (from this process's environment), never our text pasted into the command.
    let written = stdio_with_env("TOK", "!printf '%s' \"${UNSET_IN_THIS_TEST:-fallback}\"");
    let expanded = mcp_config::expand_server_config("s", &written, &vars).unwrap();
    assert_eq!(
        env_mut(&mut expanded.clone())["TOK"],
        env_mut(&mut written.clone())["TOK"]
    );
    let resolved = AuthResolver::new()
        .resolve("s", &expanded, None, &quick())
        .await
        .unwrap();
    assert_eq!(env(&resolved)["TOK"], "fallback");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_commands_stderr_never_repeats_the_command_or_the_servers_other_values() {
    // `sh` quotes a command it cannot find: the command text may be the secret.
    let config = stdio_with_env("TOKEN", "!ghp_typed_as_a_command_42");
    let error = AuthResolver::new()
        .resolve("s", &config, None, &quick())
        .await
        .unwrap_err();
    let message = error.to_string();
    assert!(message.contains("exit status: 127"), "{message}");
    assert!(message.contains("not found"), "{message}");
    assert!(!message.contains("ghp_typed_as_a_command_42"), "{message}");

    // Another value of the same server, and what the command printed, echoed on stderr.
    let mut config = stdio_with_env("A_LITERAL", "literal-secret-value-1");
    env_mut(&mut config).insert(
        "B_COMMAND".into(),
        "!echo printed-secret-2; echo \"refused literal-secret-value-1 and printed-secret-2\" >&2; exit 2"
            .into(),
    );
    let error = AuthResolver::new()
        .resolve("s", &config, None, &quick())
        .await
        .unwrap_err();
    let message = error.to_string();
    assert!(message.contains("exit status: 2"), "{message}");
    assert!(
        message.contains("refused <redacted> and <redacted>"),
        "{message}"
    );
    assert!(!message.contains("literal-secret-value-1"), "{message}");
    assert!(!message.contains("printed-secret-2"), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_headers_helper_adds_the_headers_it_prints_over_the_written_ones() {
    let config: ServerConfig = serde_json::from_value(serde_json::json!({
        "type": "http",
        "url": REMOTE_URL,
        "headers": {"X-Team": "written", "X-Kept": "kept"},
        "headersHelper": "printf '{\"X-Team\": \"helper-team-7\", \"Authorization\": \"Bearer helper-7\"}'",
    }))
    .unwrap();
    let resolved = AuthResolver::new()
        .resolve("api", &config, None, &quick())
        .await
        .unwrap();
    let got = headers(&resolved);
    assert_eq!(got["X-Team"], "helper-team-7");
    assert_eq!(got["Authorization"], "Bearer helper-7");
    assert_eq!(got["X-Kept"], "kept");
    // The helper's credential wins over a written one of another case, and over a stored token.
    let config: ServerConfig = serde_json::from_value(serde_json::json!({
        "type": "http",
        "url": REMOTE_URL,
        "headers": {"authorization": "Bearer written"},
        "headersHelper": "printf '{\"AUTHORIZATION\": \"Bearer helper-9\"}'",
    }))
    .unwrap();
    let resolved = AuthResolver::new()
        .resolve("api", &config, Some("stored-token"), &quick())
        .await
        .unwrap();
    assert_eq!(
        headers(&resolved),
        BTreeMap::from([("AUTHORIZATION".to_owned(), "Bearer helper-9".to_owned())])
    );
    // `get` and `list` never show the command line.
    let shown = serde_json::to_string(&config.redacted()).unwrap();
    assert!(!shown.contains("printf"), "{shown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_headers_helper_that_prints_no_header_object_fails_without_showing_it() {
    for (output, expected) in [
        ("printf 'secret-not-json-8'", "NotHeaders"),
        ("printf '{\"X-Token\": 8}'", "NotHeaders"),
        ("printf '{\"Host\": \"secret-not-json-8\"}'", "NotHeaders"),
        ("printf '{\"Bad Name\": \"v\"}'", "NotHeaders"),
        (
            "printf '{\"X-Token\": \"a\\\\r\\\\nX-Evil: 1\"}'",
            "NotHeaders",
        ),
        ("exit 3", "Exit"),
    ] {
        let config: ServerConfig = serde_json::from_value(serde_json::json!({
            "type": "sse",
            "url": REMOTE_URL,
            "headersHelper": output,
        }))
        .unwrap();
        let error = AuthResolver::new()
            .resolve("api", &config, None, &quick())
            .await
            .unwrap_err();
        assert_eq!(field(&error), "headersHelper");
        assert!(
            format!("{:?}", command_failure(&error)).starts_with(expected),
            "{error:?}"
        );
        let message = error.to_string();
        assert!(!message.contains("secret-not-json-8"), "{message}");
        assert!(!message.contains("printf"), "{message}");
    }
    // Run at every resolution, never from a cache: it mints short-lived credentials.
    let dir = TempDir::new("helper-runs");
    let count = dir.file("runs");
    let config: ServerConfig = serde_json::from_value(serde_json::json!({
        "type": "http",
        "url": REMOTE_URL,
        "headersHelper": format!("echo run >> '{}'; printf '{{}}'", count.display()),
    }))
    .unwrap();
    let resolver = AuthResolver::new();
    for _ in 0..2 {
        resolver
            .resolve("api", &config, None, &quick())
            .await
            .unwrap();
    }
    assert_eq!(lines(&count), 2);
    // A stdio server's `headersHelper` is not its business: nothing runs.
    let mut config = ServerConfig::stdio("my-server", Vec::<String>::new());
    config.extra.insert(
        "headersHelper".to_owned(),
        serde_json::Value::from("exit 9"),
    );
    assert!(
        AuthResolver::new()
            .resolve("local", &config, None, &quick())
            .await
            .is_ok()
    );
}
