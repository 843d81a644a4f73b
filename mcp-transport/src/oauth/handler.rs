//! The browser step: [`AuthorizationHandler`], and [`LoopbackBrowser`], the default one.
//!
//! The loopback listener is a few lines of HTTP/1.1 on a tokio `TcpListener` rather than a web
//! framework: it waits for one GET of the redirect (each connection in a task of its own, since
//! browsers open connections they never use), answers 404 to anything else a browser asks for,
//! such as a favicon, and is gone when the login ends.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

use super::{OAuthError, Url};

/// How long [`LoopbackBrowser`] waits for the user by default.
pub const DEFAULT_LOGIN_TIMEOUT: Duration = Duration::from_secs(300);

/// Where the authorization server sends the user back to.
const CALLBACK_PATH: &str = "/callback";
/// The most of a browser's request that is read.
const REQUEST_LIMIT: usize = 16 * 1024;

/// Takes the user to the authorization server and brings back where it redirected them: the
/// one part of the flow that differs per agent (a browser and a loopback listener, an IDE's own
/// window, a test that follows the redirect itself).
#[async_trait]
pub trait AuthorizationHandler: Send + Sync {
    /// Gets ready to receive one redirect; the result says which redirect URI to register and
    /// send.
    async fn prepare(&self) -> Result<Box<dyn PendingRedirect>, OAuthError>;
}

impl std::fmt::Debug for dyn AuthorizationHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dyn AuthorizationHandler")
    }
}

/// One login in progress: see [`AuthorizationHandler`].
#[async_trait]
pub trait PendingRedirect: Send {
    /// The redirect URI the authorization server must send the user back to.
    fn redirect_uri(&self) -> &Url;

    /// Shows `authorization_url` to the user and waits for the redirect; the URL it arrived at
    /// (with its `code` and `state`, or `error`).
    async fn complete(self: Box<Self>, authorization_url: &Url) -> Result<Url, OAuthError>;
}

/// Shows the authorization URL to the user (the CLI prints it).
pub type ShowUrl = Arc<dyn Fn(&Url) + Send + Sync>;

/// The default browser step: a listener on `127.0.0.1` on a free port
/// (`http://127.0.0.1:PORT/callback`), the URL shown to the user through a callback and opened
/// in their browser when asked, a short page for the browser when the redirect arrives, and a
/// timeout.
#[derive(Clone)]
pub struct LoopbackBrowser {
    show: ShowUrl,
    open_browser: bool,
    timeout: Duration,
}

impl std::fmt::Debug for LoopbackBrowser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopbackBrowser")
            .field("open_browser", &self.open_browser)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl LoopbackBrowser {
    /// A handler that shows the URL through `show` and does not open a browser.
    pub fn new(show: impl Fn(&Url) + Send + Sync + 'static) -> Self {
        Self {
            show: Arc::new(show),
            open_browser: false,
            timeout: DEFAULT_LOGIN_TIMEOUT,
        }
    }

    /// Also opens the URL in the user's browser (`xdg-open`, or `open` on macOS), when there is
    /// a display to open it on.
    #[must_use]
    pub fn open_browser(mut self, open: bool) -> Self {
        self.open_browser = open;
        self
    }

    /// How long to wait for the user; default [`DEFAULT_LOGIN_TIMEOUT`].
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

#[async_trait]
impl AuthorizationHandler for LoopbackBrowser {
    async fn prepare(&self) -> Result<Box<dyn PendingRedirect>, OAuthError> {
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(|source| OAuthError::Io {
                action: "opening the login redirect listener on 127.0.0.1".to_owned(),
                source,
            })?;
        let port = listener
            .local_addr()
            .map_err(|source| OAuthError::Io {
                action: "reading the redirect listener's port".to_owned(),
                source,
            })?
            .port();
        let redirect_uri = Url::parse(&format!("http://127.0.0.1:{port}{CALLBACK_PATH}"))
            .map_err(|error| OAuthError::Redirect(error.to_string()))?;
        Ok(Box::new(LoopbackRedirect {
            listener,
            redirect_uri,
            handler: self.clone(),
        }))
    }
}

struct LoopbackRedirect {
    listener: TcpListener,
    redirect_uri: Url,
    handler: LoopbackBrowser,
}

#[async_trait]
impl PendingRedirect for LoopbackRedirect {
    fn redirect_uri(&self) -> &Url {
        &self.redirect_uri
    }

    async fn complete(self: Box<Self>, authorization_url: &Url) -> Result<Url, OAuthError> {
        (self.handler.show)(authorization_url);
        if self.handler.open_browser {
            open_in_browser(authorization_url);
        }
        let waited = self.handler.timeout;
        tokio::time::timeout(waited, self.wait_for_redirect())
            .await
            .map_err(|_| OAuthError::TimedOut { waited })?
    }
}

impl LoopbackRedirect {
    /// Serves every connection in a task of its own (a browser may open a connection it never
    /// uses) until one brings the redirect; the others are dropped with the listener.
    async fn wait_for_redirect(&self) -> Result<Url, OAuthError> {
        let (found, mut arrived) = tokio::sync::mpsc::channel::<Url>(1);
        let mut connections = tokio::task::JoinSet::new();
        loop {
            tokio::select! {
                Some(url) = arrived.recv() => return Ok(url),
                accepted = self.listener.accept() => {
                    let (stream, _) = accepted.map_err(|source| OAuthError::Io {
                        action: "waiting for the login redirect".to_owned(),
                        source,
                    })?;
                    let redirect_uri = self.redirect_uri.clone();
                    let found = found.clone();
                    connections.spawn(async move {
                        if let Some(url) = serve_one(stream, &redirect_uri).await {
                            let _ = found.send(url).await;
                        }
                    });
                }
            }
        }
    }
}

/// Answers one browser connection; the URL it arrived at when it is the redirect.
async fn serve_one(mut stream: TcpStream, redirect_uri: &Url) -> Option<Url> {
    let target = read_request_target(&mut stream).await?;
    let Ok(arrived) = redirect_uri.join(&target) else {
        respond(
            &mut stream,
            "400 Bad Request",
            "That is not a login redirect.",
        )
        .await;
        return None;
    };
    if arrived.path() != CALLBACK_PATH {
        respond(&mut stream, "404 Not Found", "Nothing here.").await;
        return None;
    }
    let failed = arrived.query_pairs().any(|(name, _)| name == "error");
    let page = if failed {
        "The login did not succeed. You can close this tab and look at the terminal."
    } else {
        "Logged in. You can close this tab and go back to the terminal."
    };
    respond(&mut stream, "200 OK", page).await;
    Some(arrived)
}

/// The target of an HTTP request (`/callback?code=…`), if the request is a GET.
async fn read_request_target(stream: &mut TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut buffer = [0; 2048];
    while !head.windows(4).any(|window| window == b"\r\n\r\n") {
        if head.len() > REQUEST_LIMIT {
            return None;
        }
        let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buffer))
            .await
            .ok()?
            .ok()?;
        if read == 0 {
            break;
        }
        head.extend_from_slice(&buffer[..read]);
    }
    let text = String::from_utf8_lossy(&head);
    let mut parts = text.lines().next()?.split_whitespace();
    (parts.next()? == "GET").then(|| parts.next().map(str::to_owned))?
}

async fn respond(stream: &mut TcpStream, status: &str, message: &str) {
    let body = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Login</title></head>\
         <body style=\"font-family:sans-serif;margin:3em\"><p>{message}</p></body></html>"
    );
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// Opens `url` in the user's browser when there is a display; failures only go to the log (the
/// URL was shown anyway).
fn open_in_browser(url: &Url) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some()
    {
        "xdg-open"
    } else {
        return;
    };
    let spawned = std::process::Command::new(opener)
        .arg(url.as_str())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match spawned {
        // The opener hands the URL to the browser and exits; reap it off the runtime.
        Ok(mut child) => drop(std::thread::spawn(move || child.wait())),
        Err(error) => tracing::debug!(opener, %error, "could not open a browser"),
    }
}
