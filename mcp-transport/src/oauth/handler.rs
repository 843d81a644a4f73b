//! The browser step: [`AuthorizationHandler`], and [`LoopbackBrowser`], the default one.
//!
//! The loopback listener is a few lines of HTTP/1.1 on a tokio `TcpListener` rather than a web
//! framework: it waits for one GET of the redirect (each connection in a task of its own, since
//! browsers open connections they never use), answers 404 to anything else a browser asks for,
//! such as a favicon, and is gone when the login ends. The browser's request for the redirect
//! is answered only once the authorizer has checked the redirect and exchanged its code
//! ([`PendingRedirect::finish`]): the page says whether the login worked, and why not.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

use super::{OAuthError, Url};
use crate::open_url::OpenableUrl;

/// How long [`LoopbackBrowser`] waits for the user by default.
pub const DEFAULT_LOGIN_TIMEOUT: Duration = Duration::from_secs(300);

/// Where the authorization server sends the user back to.
const CALLBACK_PATH: &str = "/callback";
/// The most of a browser's request that is read.
const REQUEST_LIMIT: usize = 16 * 1024;

/// Takes the user to the authorization server and brings back where it redirected them: the
/// one part of the flow that differs per agent (a browser and a loopback listener, an IDE's own
/// window, a test that follows the redirect itself).
///
/// The authorizer drives one login as: [`prepare`](Self::prepare) (the redirect URI to
/// register), [`PendingRedirect::complete`] (show the page, wait for the redirect), then,
/// once it has checked the redirect and exchanged the code, [`PendingRedirect::finish`] with
/// how the login ended, for the handler to tell the user where they are looking (the browser
/// tab the redirect landed in).
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

    /// Shows `authorization_url` to the user (and opens it, for a handler that does) and waits
    /// for the redirect; the URL it arrived at (with its `code` and `state`, or `error`). The
    /// URL passed [`openable`](crate::open_url::openable): it is `https:`, or `http:` on this
    /// machine, and an opener gets it as one argument ([`OpenableUrl::as_str`]), never
    /// through a shell.
    ///
    /// The user is not told yet how the login ended: the redirect may still be refused (its
    /// `state` or issuer), or its code by the token endpoint. A handler that answers the
    /// browser's request for the redirect keeps that request waiting for
    /// [`finish`](Self::finish).
    async fn complete(&mut self, authorization_url: &OpenableUrl) -> Result<Url, OAuthError>;

    /// How the login ended, called once after a [`complete`](Self::complete) that brought a
    /// redirect: `Ok` once the tokens are in hand and kept, else the reason (an
    /// [`OAuthError`], whose message names no secret but quotes what the servers said: escape
    /// it for where it is shown, HTML for a page). The same error is also the result of the
    /// connection that asked for the login. By default nothing is shown.
    async fn finish(self: Box<Self>, outcome: Result<(), &OAuthError>) {
        let _ = outcome;
    }
}

/// Shows the authorization URL to the user (the CLI prints it).
pub type ShowUrl = Arc<dyn Fn(&Url) + Send + Sync>;

/// The default browser step: a listener on `127.0.0.1` on a free port
/// (`http://127.0.0.1:PORT/callback`), the URL shown to the user through a callback and opened
/// in their browser when asked, a short page for the browser once the login ended (saying why
/// it did not succeed, when it did not), and a timeout.
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

    /// Also opens the URL in the user's browser (`xdg-open`, or `open` on macOS, given the URL
    /// as their one argument), when there is a display to open it on. Only a URL that
    /// [`openable`](crate::open_url::openable) allows ever gets here.
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
            browser: None,
        }))
    }
}

struct LoopbackRedirect {
    listener: TcpListener,
    redirect_uri: Url,
    handler: LoopbackBrowser,
    /// The browser's request that brought the redirect, answered by `finish`.
    browser: Option<TcpStream>,
}

#[async_trait]
impl PendingRedirect for LoopbackRedirect {
    fn redirect_uri(&self) -> &Url {
        &self.redirect_uri
    }

    async fn complete(&mut self, authorization_url: &OpenableUrl) -> Result<Url, OAuthError> {
        (self.handler.show)(authorization_url.url());
        if self.handler.open_browser {
            open_in_browser(authorization_url);
        }
        let waited = self.handler.timeout;
        let (arrived, browser) = tokio::time::timeout(waited, self.wait_for_redirect())
            .await
            .map_err(|_| OAuthError::TimedOut { waited })??;
        self.browser = Some(browser);
        Ok(arrived)
    }

    async fn finish(self: Box<Self>, outcome: Result<(), &OAuthError>) {
        let Some(mut browser) = self.browser else {
            return;
        };
        let page = match outcome {
            Ok(()) => "Logged in. You can close this tab and go back to the terminal.".to_owned(),
            Err(error) => format!(
                "The login did not succeed: {error}. You can close this tab; the terminal says \
                 what to do next."
            ),
        };
        respond(&mut browser, "200 OK", &page).await;
    }
}

impl LoopbackRedirect {
    /// Serves every connection in a task of its own (a browser may open a connection it never
    /// uses) until one brings the redirect, which comes back with its connection, not answered
    /// yet; the others are dropped with the listener.
    async fn wait_for_redirect(&self) -> Result<(Url, TcpStream), OAuthError> {
        let (found, mut arrived) = tokio::sync::mpsc::channel::<(Url, TcpStream)>(1);
        let mut connections = tokio::task::JoinSet::new();
        loop {
            tokio::select! {
                Some(redirect) = arrived.recv() => return Ok(redirect),
                accepted = self.listener.accept() => {
                    let (stream, _) = accepted.map_err(|source| OAuthError::Io {
                        action: "waiting for the login redirect".to_owned(),
                        source,
                    })?;
                    let redirect_uri = self.redirect_uri.clone();
                    let found = found.clone();
                    connections.spawn(async move {
                        if let Some(redirect) = serve_one(stream, &redirect_uri).await {
                            let _ = found.send(redirect).await;
                        }
                    });
                }
            }
        }
    }
}

/// Answers one browser connection, unless it is the redirect: then the URL it arrived at, and
/// the connection to answer once the login ended.
async fn serve_one(mut stream: TcpStream, redirect_uri: &Url) -> Option<(Url, TcpStream)> {
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
    Some((arrived, stream))
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

/// Answers with a page saying `message` (plain text, escaped here: it may quote what a server
/// sent), within a few seconds: a browser that stopped reading does not hold up the login.
async fn respond(stream: &mut TcpStream, status: &str, message: &str) {
    let message = html_escape(message);
    let body = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Login</title></head>\
         <body style=\"font-family:sans-serif;margin:3em\"><p>{message}</p></body></html>"
    );
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nContent-Security-Policy: default-src 'none'\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    let answered = async {
        let _ = stream.write_all(response.as_bytes()).await;
        let _ = stream.shutdown().await;
    };
    let _ = tokio::time::timeout(Duration::from_secs(5), answered).await;
}

/// `text` as HTML text: the five characters with a meaning there replaced by references.
fn html_escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            other => escaped.push(other),
        }
    }
    escaped
}

/// Opens `url` in the user's browser when there is a display: the opener is run directly (no
/// shell) with the URL as its one argument, which cannot be taken for an option since it
/// starts with its scheme. Failures only go to the log (the URL was shown anyway).
fn open_in_browser(url: &OpenableUrl) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_shows_what_a_server_said_as_text() {
        assert_eq!(
            html_escape("iss <script>alert('x')</script> & \"more\""),
            "iss &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;more&quot;"
        );
    }
}
