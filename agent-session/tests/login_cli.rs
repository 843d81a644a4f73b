//! `agent-session login` and a shared login, end to end against testkit's HTTP fixture acting
//! as its own authorization server: a login page that is not `https:` is refused, never shown
//! to be clicked nor handed to the desktop's opener; a login the client refuses says so in the
//! browser and on the terminal and exits 1; eight `call`s started at once after the access
//! token expired all work and leave a login that still works, with rotating refresh tokens and
//! with a server that revokes the whole login when a spent one comes back; a running shell
//! whose token was renewed by another process keeps working; a refused refresh names the
//! command to run; and a page a server asks to open is shown escaped, with whether it would be
//! opened.
//!
//! Every run gets a temporary project and home (see `cli_support`); the credentials file is
//! the one `login` writes, `~/.config/agent-session/credentials.json`.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod cli_support;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use cli_support::{KillOnDrop, LIMIT, Outcome, PipedShell, Sandbox, reader, run_to_end};
use serde_json::{Value, json};
use testkit::{HttpFixture, HttpFixtureOptions, LoginFault};

impl Sandbox {
    /// An empty project and home labelled `login`, whose `.mcp.json` names `web`, the fixture.
    fn with_web(test: &str, web: &HttpFixture) -> Self {
        let sandbox = Self::labelled("login", test).without_cache();
        sandbox.write_mcp_json(&json!({"web": {"type": "http", "url": web.url()}}));
        sandbox
    }

    fn credentials_file(&self) -> PathBuf {
        self.home.join(".config/agent-session/credentials.json")
    }

    /// Keeps a login for `web` as `login` would have: the fixture's registered client and a
    /// token pair it issued, the access token expiring at `expires_at`.
    fn store_login(&self, web: &HttpFixture, expires_at: u64) {
        let (access, refresh) = web.issue_tokens();
        let file = json!({"servers": {web.url(): {
            "issuer": web.origin(),
            "clients": {web.origin(): {"client_id": "fixture-client", "auth_method": "none"}},
            "tokens": {"access_token": access, "refresh_token": refresh,
                       "expires_at": expires_at, "issued_at": unix_now() - 3600},
        }}});
        let path = self.credentials_file();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, file.to_string()).unwrap();
    }

    /// The refresh token kept for `web`.
    fn stored_refresh_token(&self, web: &HttpFixture) -> String {
        let text = std::fs::read_to_string(self.credentials_file()).unwrap();
        let file: Value = serde_json::from_str(&text).unwrap();
        file["servers"][web.url()]["tokens"]["refresh_token"]
            .as_str()
            .unwrap_or_else(|| panic!("no refresh token kept: {file:#}"))
            .to_owned()
    }

    /// `call mcp_web_echo` with `message`.
    fn echo(&self, message: &str) -> Command {
        self.command(&[
            "call",
            "mcp_web_echo",
            &json!({"message": message}).to_string(),
            "--json",
        ])
    }
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn oauth() -> HttpFixtureOptions {
    HttpFixtureOptions::default().oauth()
}

/// A `call`'s text result.
fn echoed(outcome: &Outcome) -> String {
    outcome.assert_code(0);
    outcome.json()["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A fake `xdg-open` in `folder` that records its arguments (their count, then one per line)
/// in `record` and opens nothing.
fn fake_opener(folder: &Path, record: &Path) {
    use std::os::unix::fs::PermissionsExt;

    std::fs::create_dir_all(folder).unwrap();
    let script = folder.join("xdg-open");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$#\" \"$@\" > '{}.tmp'\nmv '{0}.tmp' '{0}'\n",
            record.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// `command` on a new pseudo-terminal (so that `login` opens the browser), with `DISPLAY` set
/// and the fake opener first on `PATH`. Runs until it exits or the opener was called; what
/// the terminal showed, the exit status if it exited, and what the opener got if it ran.
fn on_a_desktop(
    mut command: Command,
    opener: &Path,
    record: &Path,
) -> (String, Option<i32>, Option<String>, KillOnDrop) {
    let pty = nix::pty::openpty(None, None).unwrap();
    let path = format!(
        "{}:{}",
        opener.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    command
        .env("PATH", path)
        .env("DISPLAY", ":99")
        .env("TERM", "xterm")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::from(pty.slave.try_clone().unwrap()))
        .stderr(Stdio::from(pty.slave.try_clone().unwrap()));
    drop(pty.slave);
    let mut child = KillOnDrop(command.spawn().unwrap());
    drop(command);
    let screen = reader(std::fs::File::from(pty.master));
    let deadline = Instant::now() + LIMIT;
    let mut code = None;
    loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            code = status.code();
            break;
        }
        if record.exists() {
            break;
        }
        assert!(Instant::now() < deadline, "login neither ended nor opened");
        std::thread::sleep(Duration::from_millis(20));
    }
    let opened = std::fs::read_to_string(record).ok();
    let shown = if code.is_some() {
        screen.recv_timeout(LIMIT).unwrap()
    } else {
        String::new()
    };
    (shown, code, opened, child)
}

#[test]
fn login_refuses_a_login_page_that_is_not_https_opens_nothing_and_exits_1() {
    let payload = "file:///tmp/payload.desktop";
    let web = HttpFixture::start(oauth().authorization_endpoint(payload));
    let sandbox = Sandbox::with_web("not-https", &web);
    let opener = sandbox.root.join("opener");
    let record = sandbox.root.join("opened.txt");
    fake_opener(&opener, &record);

    let (shown, code, opened, _child) =
        on_a_desktop(sandbox.command(&["login", "web"]), &opener, &record);
    assert_eq!(opened, None, "the opener was given the page:\n{shown}");
    assert_eq!(code, Some(1), "{shown}");
    assert!(
        shown.contains(&format!("{payload} is not opened")),
        "the refusal names the page:\n{shown}"
    );
    assert!(shown.contains("could not log in to \"web\""), "{shown}");
    assert!(
        !shown.contains("warning:"),
        "login does not first warn that the server needs a login:\n{shown}"
    );
    assert!(
        !shown.contains("open this page in your browser"),
        "a refused page is not offered to be clicked:\n{shown}"
    );
    assert!(
        !web.requests()
            .iter()
            .any(|request| request.target == "/register"),
        "nothing was registered for a login that cannot happen"
    );
}

#[test]
fn login_hands_the_opener_the_page_as_its_one_argument() {
    let web = HttpFixture::start(oauth());
    let sandbox = Sandbox::with_web("opener", &web);
    let opener = sandbox.root.join("opener");
    let record = sandbox.root.join("opened.txt");
    fake_opener(&opener, &record);

    let (shown, code, opened, mut child) =
        on_a_desktop(sandbox.command(&["login", "web"]), &opener, &record);
    let opened = opened.unwrap_or_else(|| panic!("the opener did not run ({code:?}):\n{shown}"));
    let lines: Vec<&str> = opened.lines().collect();
    assert_eq!(lines[0], "1", "one argument: {opened}");
    let page = lines[1];
    assert!(
        page.starts_with(&format!("{}/authorize?", web.origin())),
        "{page}"
    );
    // The test is the browser the opener would have started.
    let (status, location, _) = testkit::browser_get(page);
    assert_eq!(status, 302);
    let (status, _, answer) = testkit::browser_get(&location.unwrap());
    assert_eq!(status, 200);
    assert!(answer.contains("Logged in"), "{answer}");
    let deadline = Instant::now() + LIMIT;
    while child.0.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "login did not end");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(child.0.wait().unwrap().code(), Some(0));
}

/// What `login` gave, the test having played the browser.
struct Login {
    code: Option<i32>,
    output: String,
    page: String,
}

/// Runs `login web` and plays the user's browser: opens the authorization URL it prints on
/// stderr (the fixture redirects at once) and follows the redirect to the command's listener.
fn log_in_through_the_browser(sandbox: &Sandbox, web: &HttpFixture) -> Login {
    let mut command = sandbox.command(&["login", "web"]);
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = KillOnDrop(command.spawn().unwrap());
    let stdout = reader(child.0.stdout.take().unwrap());
    let stderr = BufReader::new(child.0.stderr.take().unwrap());
    let (lines_out, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in stderr.lines() {
            let Ok(line) = line else { break };
            if lines_out.send(line).is_err() {
                break;
            }
        }
    });
    let mut shown = Vec::new();
    let prefix = format!("{}/authorize?", web.origin());
    let login_url = loop {
        let line = lines
            .recv_timeout(LIMIT)
            .unwrap_or_else(|_| panic!("no login URL on stderr: {shown:?}"));
        shown.push(line.clone());
        if line.trim().starts_with(&prefix) {
            break line.trim().to_owned();
        }
    };
    let (status, location, _) = testkit::browser_get(&login_url);
    assert_eq!(status, 302);
    let (_, _, page) = testkit::browser_get(&location.expect("a redirect"));
    let deadline = Instant::now() + LIMIT;
    let code = loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            break status.code();
        }
        assert!(Instant::now() < deadline, "login did not finish");
        std::thread::sleep(Duration::from_millis(10));
    };
    shown.extend(lines.recv_timeout(Duration::from_secs(5)).ok());
    shown.extend(lines.try_iter());
    let output = format!(
        "{}\n{}",
        stdout.recv_timeout(LIMIT).unwrap(),
        shown.join("\n")
    );
    Login { code, output, page }
}

#[test]
fn a_refused_login_says_so_in_the_browser_and_on_the_terminal_and_exits_1() {
    for (fault, reason) in [
        (
            LoginFault::WrongIssuer("https://evil.example".to_owned()),
            "names the issuer https://evil.example",
        ),
        (
            LoginFault::Error {
                error: "access_denied".to_owned(),
                description: "not today".to_owned(),
            },
            "access_denied (not today)",
        ),
        (LoginFault::WrongState, "unexpected state"),
        (LoginFault::CodeRefused, "invalid_grant"),
    ] {
        let web = HttpFixture::start(oauth().login_fault(fault.clone()));
        let sandbox = Sandbox::with_web("refused", &web);
        let login = log_in_through_the_browser(&sandbox, &web);
        assert!(
            !login.page.contains("Logged in"),
            "{fault:?}: {}",
            login.page
        );
        assert!(
            login.page.contains("did not succeed") && login.page.contains(reason),
            "{fault:?}: {}",
            login.page
        );
        assert_eq!(login.code, Some(1), "{fault:?}: {}", login.output);
        assert!(
            login.output.contains("could not log in to \"web\"") && login.output.contains(reason),
            "{fault:?}: {}",
            login.output
        );
        let list = run_to_end(sandbox.command(&["list", "--json"]), None);
        assert_eq!(
            cli_support::server(&list.json(), "web")["status"],
            "needs-login",
            "{fault:?}"
        );
    }
}

/// Eight `call`s at once, each a process of its own, after the stored access token expired;
/// then a ninth.
fn eight_calls_at_once_after_expiry(revoke_family: bool) {
    let options = if revoke_family {
        oauth().revoke_family_on_reuse()
    } else {
        oauth()
    };
    let web = HttpFixture::start(options);
    let sandbox = Sandbox::with_web(if revoke_family { "family" } else { "eight" }, &web);
    sandbox.store_login(&web, unix_now() - 60);
    web.expire_access_tokens();

    let running: Vec<_> = (0..8)
        .map(|n| cli_support::start(sandbox.echo(&format!("call {n}")), None))
        .collect();
    let outcomes: Vec<Outcome> = running.into_iter().map(cli_support::finish).collect();
    for (n, outcome) in outcomes.iter().enumerate() {
        assert_eq!(
            outcome.code,
            Some(0),
            "revoke_family {revoke_family}: call {n} failed:\n{}",
            outcome.stderr
        );
        assert_eq!(echoed(outcome), format!("call {n}"));
    }
    assert_eq!(web.token_requests("refresh_token"), 1, "one renewal");

    // The login kept is the one the server knows: a ninth call works without a login.
    assert_eq!(
        web.live_refresh_tokens(),
        [sandbox.stored_refresh_token(&web)],
        "the stored refresh token is the latest one issued"
    );
    let ninth = run_to_end(sandbox.echo("ninth"), None);
    assert_eq!(echoed(&ninth), "ninth", "{}", ninth.stderr);
    sandbox.assert_no_server_left("the calls");
}

#[test]
fn eight_calls_at_once_after_the_token_expired_all_work_and_the_login_stays_valid() {
    eight_calls_at_once_after_expiry(false);
}

#[test]
fn eight_calls_at_once_survive_a_server_that_revokes_the_login_when_a_spent_token_returns() {
    eight_calls_at_once_after_expiry(true);
}

#[test]
fn a_running_shell_keeps_working_after_another_process_renewed_its_login() {
    for revoke_family in [false, true] {
        let options = if revoke_family {
            oauth().revoke_family_on_reuse()
        } else {
            oauth()
        };
        let web = HttpFixture::start(options);
        let sandbox = Sandbox::with_web("shell", &web);
        sandbox.store_login(&web, unix_now() + 3600);
        let mut shell = PipedShell::start(&sandbox, &["shell", "--json"]);
        let call = |message: &str| format!("call mcp_web_echo {}", json!({"message": message}));
        let before = shell.reply(&call("before"));
        assert_eq!(before["ok"], true, "{before}");

        // The access token dies; a `call` in another process renews the login.
        web.expire_access_tokens();
        let other = run_to_end(sandbox.echo("other"), None);
        assert_eq!(echoed(&other), "other", "{}", other.stderr);
        assert_eq!(web.token_requests("refresh_token"), 1);

        // The shell's token is refused: it takes the login the other process kept.
        let after = shell.reply(&call("after"));
        assert_eq!(after["ok"], true, "revoke_family {revoke_family}: {after}");
        assert_eq!(
            web.token_requests("refresh_token"),
            1,
            "no spent refresh token presented"
        );
        shell.wait();
        let later = run_to_end(sandbox.echo("later"), None);
        assert_eq!(echoed(&later), "later", "{}", later.stderr);
    }
}

#[test]
fn a_refused_refresh_says_so_and_names_the_login_command() {
    let web = HttpFixture::start(oauth());
    let sandbox = Sandbox::with_web("refused-refresh", &web);
    sandbox.store_login(&web, unix_now() - 60);
    web.expire_access_tokens();
    web.revoke_refresh_tokens();
    let call = run_to_end(sandbox.echo("too late"), None);
    assert_eq!(call.code, Some(1), "{}", call.stderr);
    assert!(
        call.stderr.contains("refused to refresh the login"),
        "{}",
        call.stderr
    );
    assert!(
        call.stderr.contains("agent-session login web"),
        "{}",
        call.stderr
    );
    assert!(
        !call.stderr.contains("run the login command for it"),
        "{}",
        call.stderr
    );
}

#[test]
fn a_page_a_server_asks_to_open_is_shown_escaped_with_whether_it_would_be_opened() {
    let sandbox = Sandbox::labelled("login", "elicit-url").without_cache();
    sandbox.write_mcp_json(&json!({"fx": sandbox.fixture("fx", |server| server)}));
    for (url, verdict) in [
        ("https://example.com/connect\u{1b}[31m", "\\u{1b}[31m"),
        (
            "file:///tmp/payload.desktop",
            "file:///tmp/payload.desktop is not opened",
        ),
    ] {
        let arguments = json!({"message": "Connect your account", "url": url}).to_string();
        let mut command = sandbox.command(&["call", "mcp_fx_ask", &arguments, "--json"]);
        command.stdout(Stdio::piped());
        let outcome = run_to_end(command, None);
        assert_eq!(outcome.code, Some(0), "{}", outcome.stderr);
        assert_eq!(
            serde_json::from_str::<Value>(outcome.json()["content"][0]["text"].as_str().unwrap())
                .unwrap()["action"],
            "decline"
        );
        let said = &outcome.stderr;
        assert!(
            !said.contains('\u{1b}'),
            "an escape reached the terminal: {said:?}"
        );
        assert!(said.contains("asked to open"), "{said}");
        assert!(said.contains(verdict), "{url}: {said}");
        assert!(said.contains("declined"), "{said}");
    }
    sandbox.assert_no_server_left("the calls");
}

/// Every command that meets a server needing a login ends its message the same way.
#[test]
fn list_test_and_warnings_name_the_login_command_in_one_form() {
    let web = HttpFixture::start(oauth());
    let sandbox = Sandbox::with_web("warning", &web);
    let tools = run_to_end(sandbox.command(&["tools"]), None);
    assert_eq!(tools.code, Some(0), "{}", tools.stderr);
    let warning = tools
        .stderr
        .lines()
        .find(|line| line.contains("warning:"))
        .unwrap_or_else(|| panic!("no warning: {}", tools.stderr));
    assert!(
        warning.ends_with("requires a login; log in with `agent-session login web`"),
        "{warning}"
    );
    let list = sandbox.run(&["list"]);
    assert_eq!(list.code, Some(1), "{list:?}");
    assert!(
        list.stdout
            .lines()
            .any(|line| line.trim() == "log in with `agent-session login web`"),
        "{list:?}"
    );
    let test = sandbox.run(&["test", "web"]);
    assert_eq!(test.code, Some(1), "{test:?}");
    assert!(
        test.stderr
            .trim_end()
            .ends_with("; log in with `agent-session login web`"),
        "{test:?}"
    );
}

#[test]
fn login_to_a_server_that_asks_for_none_says_so_and_exits_1() {
    let web = HttpFixture::start(HttpFixtureOptions::default());
    let sandbox = Sandbox::with_web("no-login", &web);
    let outcome = sandbox.run(&["login", "web"]);
    assert_eq!(outcome.code, Some(1), "{outcome:?}");
    assert!(
        outcome
            .stderr
            .contains("\"web\" needs no login: it answered without asking for one"),
        "{outcome:?}"
    );
    assert!(!outcome.stdout.contains("logged in"), "{outcome:?}");
    assert!(
        !sandbox.credentials_file().exists()
            || !std::fs::read_to_string(sandbox.credentials_file())
                .unwrap()
                .contains("access_token"),
        "no login was kept"
    );
}
