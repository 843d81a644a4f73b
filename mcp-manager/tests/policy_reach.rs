//! The enterprise policy judges what a connection reaches, over real connections: a name that
//! resolves to a denied address, a redirect to a denied path, a `!command` a `serverCommand`
//! allowlist does not list, and (with the Python SDK's server stack) a path spelled so that only
//! the server reads it as the denied one.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use common::*;
use mcp_config::{DenialRule, DiscoveryContext, Judged, TransportConfig};
use mcp_manager::{
    ConnectionStatus, LoadOptions, LoadResult, Problem, discover_and_load_mcp_tools,
};
use serde_json::{Value, json};
use testkit::{HttpFixture, HttpFixtureOptions, RemotePeer};

/// A project whose `.mcp.json` holds `servers`, and a managed folder holding `policy`.
struct World {
    project: TempDir,
    home: TempDir,
    managed: TempDir,
}

impl World {
    fn new(servers: &Value, policy: &Value) -> Self {
        let world = Self {
            project: TempDir::new("policy-project"),
            home: TempDir::new("policy-home"),
            managed: TempDir::new("policy-managed"),
        };
        let write = |path: &Path, value: &Value| {
            std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
        };
        write(
            &world.project.path().join(".mcp.json"),
            &json!({"mcpServers": servers}),
        );
        write(&world.managed.path().join("managed-settings.json"), policy);
        world
    }

    async fn load(&self) -> LoadResult {
        let options = LoadOptions::new("testapp")
            .context(
                DiscoveryContext::new("testapp", self.project.path(), self.home.path())
                    .with_managed_dir(self.managed.path()),
            )
            .cache(memory_cache())
            .trust(mcp_config::TrustPolicy::TrustAll);
        within(
            "discover_and_load_mcp_tools",
            discover_and_load_mcp_tools(self.project.path(), &options),
        )
        .await
    }
}

/// The message of the problem about `server`.
fn problem_of(result: &LoadResult, server: &str) -> String {
    result
        .problems
        .iter()
        .find_map(|problem| match problem {
            Problem::Server { name, error, .. } if name == server => Some(error.to_string()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no problem about {server}: {:?}", result.problems))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_resolving_to_a_denied_address_is_refused_before_any_request() {
    let fixture = HttpFixture::start(HttpFixtureOptions::default());
    let url = format!("http://localhost:{}/mcp", fixture.port());
    let world = World::new(
        &json!({"local": {"type": "http", "url": url}}),
        &json!({"deniedMcpServers": [{"serverUrl": "http://127.0.0.1:*"}]}),
    );

    let result = world.load().await;

    assert!(
        matches!(
            result.manager.get_connection_status("local"),
            ConnectionStatus::Failed(_)
        ),
        "{:?}",
        result.problems
    );
    let message = problem_of(&result, "local");
    let ConnectionStatus::Failed(error) = result.manager.get_connection_status("local") else {
        unreachable!("checked above")
    };
    let denial = error.policy_denial().expect("the policy's denial, typed");
    assert_eq!(
        denial.judged,
        Some(Judged::Address("127.0.0.1".parse().unwrap()))
    );
    assert!(matches!(denial.rule, DenialRule::Denied(_)), "{denial:?}");
    assert!(
        message.contains("denied by policy: deniedMcpServers in "),
        "{message}"
    );
    assert!(
        message.contains("serverUrl \"http://127.0.0.1:*\""),
        "{message}"
    );
    assert!(message.contains("127.0.0.1"), "{message}");
    assert_eq!(fixture.connections(), 0, "the fixture was reached");
    assert!(fixture.requests().is_empty());
    within("disconnect_all", result.manager.disconnect_all()).await;
}

/// A server on 127.0.0.1 that answers every request to `/mcp` with a 307 to `/admin/mcp` (on
/// its own origin) and counts the requests that reach anything else.
struct Redirector {
    port: u16,
    elsewhere: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Redirector {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let elsewhere = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = std::thread::spawn({
            let elsewhere = Arc::clone(&elsewhere);
            let stop = Arc::clone(&stop);
            move || {
                while !stop.load(Ordering::Relaxed) {
                    let Ok((stream, _)) = listener.accept() else {
                        std::thread::sleep(Duration::from_millis(10));
                        continue;
                    };
                    stream.set_nonblocking(false).unwrap();
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut line = String::new();
                    let _ = reader.read_line(&mut line);
                    let path = line.split(' ').nth(1).unwrap_or_default().to_owned();
                    let answer = if path == "/mcp" {
                        "HTTP/1.1 307 Temporary Redirect\r\nLocation: /admin/mcp\r\n"
                    } else {
                        elsewhere.lock().unwrap().push(path);
                        "HTTP/1.1 404 Not Found\r\n"
                    };
                    let mut stream = stream;
                    let _ = write!(
                        stream,
                        "{answer}Content-Length: 0\r\nConnection: close\r\n\r\n"
                    );
                }
            }
        });
        Self {
            port,
            elsewhere,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Redirector {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_to_a_denied_path_is_not_followed() {
    let redirector = Redirector::start();
    let origin = format!("http://127.0.0.1:{}", redirector.port);
    let world = World::new(
        &json!({"redirected": {"type": "http", "url": format!("{origin}/mcp")}}),
        &json!({"deniedMcpServers": [{"serverUrl": format!("{origin}/admin/*")}]}),
    );

    let result = world.load().await;

    assert!(matches!(
        result.manager.get_connection_status("redirected"),
        ConnectionStatus::Failed(_)
    ));
    assert_eq!(
        *redirector.elsewhere.lock().unwrap(),
        Vec::<String>::new(),
        "the redirect was followed"
    );
    let message = problem_of(&result, "redirected");
    assert!(
        message.contains("denied by policy: deniedMcpServers in "),
        "{message}"
    );
    assert!(message.contains("/admin/mcp"), "{message}");
    within("disconnect_all", result.manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_value_a_server_command_allowlist_does_not_list_never_runs() {
    let allowed = plain("policy-allowed");
    let TransportConfig::Stdio(stdio) = &allowed.config.transport else {
        unreachable!("a fixture is a stdio server")
    };
    let line: Vec<String> = std::iter::once(stdio.command.clone())
        .chain(stdio.args.iter().cloned())
        .collect();
    let scratch = TempDir::new("policy-marker");
    let marker = scratch.path().join("ran");
    let mut entry = serde_json::to_value(&allowed.config).unwrap();
    entry["env"] = json!({"TOKEN": format!("!touch {}", marker.display())});
    let world = World::new(
        &json!({"smuggler": entry}),
        &json!({"allowedMcpServers": [{"serverCommand": line}]}),
    );

    let result = world.load().await;

    assert!(!marker.exists(), "the !command ran");
    assert!(!result.discovery.servers.contains_key("smuggler"));
    assert_eq!(
        result.manager.get_connection_status("smuggler"),
        ConnectionStatus::Disconnected
    );
    assert!(pids_with_marker(&allowed.marker).is_empty());
    within("disconnect_all", result.manager.disconnect_all()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the Python SDK from cargo xtask interop"]
async fn a_path_only_the_server_decodes_to_a_denied_one_is_denied() {
    let peer = RemotePeer::PythonStreamableHttpAt(1, "/admin/mcp").start();
    let origin = peer.url().trim_end_matches("/admin/mcp").to_owned();
    let spelled = format!("{origin}/%61dmin/mcp");
    let servers = json!({"admin": {"type": "http", "url": spelled}});

    // The Python SDK's stack (uvicorn, Starlette) serves `/%61dmin/mcp` as `/admin/mcp`.
    let served = World::new(&servers, &json!({})).load().await;
    assert_eq!(
        tools_of(&served.tools, "admin").len(),
        2,
        "{:?}",
        served.problems
    );
    within("disconnect_all", served.manager.disconnect_all()).await;

    let world = World::new(
        &servers,
        &json!({"deniedMcpServers": [{"serverUrl": format!("{origin}/admin/*")}]}),
    );
    let result = world.load().await;
    assert!(
        tools_of(&result.tools, "admin").is_empty(),
        "the denied path was reached: {:?}",
        result.tools
    );
    let skipped = result
        .discovery
        .skipped
        .iter()
        .find(|skipped| skipped.name == "admin")
        .expect("the server is skipped");
    let mcp_config::SkipReason::DeniedByPolicy(denial) = &skipped.reason else {
        panic!("{:?}", skipped.reason)
    };
    assert!(denial.to_string().contains("/admin/*"), "{denial}");
    within("disconnect_all", result.manager.disconnect_all()).await;
}
