//! Where a remote server is and how to reach it: [`HttpServerParams`], the
//! [`RemoteTransport`] to use, and the secrets its URL and headers carry.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use super::failure::display_url;
use super::{
    Authorizer, DEFAULT_CONNECT_TIMEOUT, DEFAULT_ENDPOINT_TIMEOUT, ReachCheck, Url, reach,
};
use crate::framing::DEFAULT_MAX_MESSAGE_BYTES;
use crate::secrets::{Secrets, percent_decoded};
use crate::transport::TransportError;

/// Which remote transport to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum RemoteTransport {
    /// Streamable HTTP, falling back to legacy SSE when the server refuses the initialize POST
    /// with 400, 404 or 405.
    #[default]
    Auto,
    /// Streamable HTTP only.
    StreamableHttp,
    /// Legacy HTTP+SSE only.
    Sse,
}

impl RemoteTransport {
    /// The name used on the command line and in configs: `auto`, `http` or `sse`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::StreamableHttp => "http",
            Self::Sse => "sse",
        }
    }
}

/// Where a remote server is and how to reach it.
#[derive(Clone)]
#[non_exhaustive]
pub struct HttpServerParams {
    /// The MCP endpoint (Streamable HTTP) or the SSE stream (legacy).
    pub url: Url,
    /// Headers sent with every request (e.g. `Authorization`).
    pub headers: HeaderMap,
    /// Which transport; default [`RemoteTransport::Auto`].
    pub transport: RemoteTransport,
    /// Bound on establishing a TCP/TLS connection. Default [`DEFAULT_CONNECT_TIMEOUT`].
    pub connect_timeout: Duration,
    /// The longest message (a JSON body or one SSE event) accepted. Default 32 MiB.
    pub max_message_bytes: usize,
    /// How long a legacy SSE server may take to name its endpoint. Default
    /// [`DEFAULT_ENDPOINT_TIMEOUT`].
    pub endpoint_timeout: Duration,
    /// Supplies each request's credentials (OAuth, say); none by default.
    pub authorizer: Option<Arc<dyn Authorizer>>,
    /// What errors and logs never show of this server's text. The transports add the URL's
    /// query values and userinfo, every header value and each `Authorization` the authorizer
    /// gives; add anything else the server may echo back.
    pub secrets: Secrets,
    /// Checks of the addresses connected to and the redirects followed ([`reach`]); none by
    /// default.
    pub reach: Option<ReachCheck>,
}

/// A URL or header that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ParamsError {
    /// The URL does not parse.
    #[error("invalid server URL: {0}")]
    Url(#[from] url::ParseError),
    /// The URL is not `http` or `https`.
    #[error("invalid server URL: the scheme is \"{scheme}\"; use http or https")]
    Scheme {
        /// The scheme given.
        scheme: String,
    },
    /// A header name is not an HTTP token.
    #[error("invalid header name \"{name}\"")]
    HeaderName {
        /// The name given.
        name: String,
    },
    /// A header value is not visible ASCII (the value is not shown: it may be a secret).
    #[error("invalid value for header \"{name}\": use visible ASCII only")]
    HeaderValue {
        /// The header's name.
        name: String,
    },
}

impl HttpServerParams {
    /// Parameters for the server at `url` (`http` or `https`).
    pub fn new(url: &str) -> Result<Self, ParamsError> {
        let url = Url::parse(url)?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(ParamsError::Scheme {
                scheme: url.scheme().to_owned(),
            });
        }
        let secrets = Secrets::new();
        add_url_secrets(&secrets, &url);
        Ok(Self {
            url,
            headers: HeaderMap::new(),
            transport: RemoteTransport::Auto,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            endpoint_timeout: DEFAULT_ENDPOINT_TIMEOUT,
            authorizer: None,
            secrets,
            reach: None,
        })
    }

    /// Puts every address the connection is made to, and every redirect, to `check` ([`reach`]).
    #[must_use]
    pub fn reach(mut self, check: ReachCheck) -> Self {
        self.reach = Some(check);
        self
    }

    /// Lets `authorizer` supply each request's credentials and renew them when the server
    /// refuses them.
    #[must_use]
    pub fn authorizer(mut self, authorizer: Arc<dyn Authorizer>) -> Self {
        self.authorizer = Some(authorizer);
        self
    }

    /// Adds a header sent with every request.
    pub fn header(mut self, name: &str, value: &str) -> Result<Self, ParamsError> {
        let header_name =
            HeaderName::from_bytes(name.as_bytes()).map_err(|_| ParamsError::HeaderName {
                name: name.to_owned(),
            })?;
        let mut header_value =
            HeaderValue::from_str(value).map_err(|_| ParamsError::HeaderValue {
                name: name.to_owned(),
            })?;
        header_value.set_sensitive(true);
        self.headers.append(header_name, header_value);
        self.secrets.add(value);
        Ok(self)
    }

    /// Chooses the transport.
    #[must_use]
    pub fn transport(mut self, transport: RemoteTransport) -> Self {
        self.transport = transport;
        self
    }

    /// The URL as errors and logs show it: without its query and fragment.
    pub fn display_url(&self) -> String {
        display_url(&self.url)
    }

    /// [`secrets`](Self::secrets), with the URL and headers as they are now (the fields are
    /// public: they may have been set after [`new`](Self::new) and [`header`](Self::header)).
    pub(super) fn transport_secrets(&self) -> Secrets {
        add_url_secrets(&self.secrets, &self.url);
        for value in &self.headers {
            if let Ok(value) = value.1.to_str() {
                self.secrets.add(value);
            }
        }
        self.secrets.clone()
    }

    /// The HTTP client of a transport; with a [`ReachCheck`], the URL's literal address is
    /// checked first and the client resolves names through it.
    pub(super) fn http_client(&self) -> Result<reqwest::Client, TransportError> {
        let mut builder = reqwest::Client::builder()
            .connect_timeout(self.connect_timeout)
            .tcp_keepalive(Duration::from_secs(30))
            .redirect(reach::same_origin_redirects(self.reach.clone()))
            .default_headers(self.headers.clone());
        if let Some(check) = &self.reach {
            reach::check_literal(check, &self.url)?;
            builder = builder.dns_resolver(reach::CheckedResolver::new(check.clone(), &self.url));
        }
        builder.build().map_err(|source| TransportError::Http {
            action: "building the HTTP client".to_owned(),
            source: Box::new(source.without_url()),
        })
    }
}

impl std::fmt::Debug for HttpServerParams {
    /// Header values and the URL's query stay hidden: they tend to hold credentials.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpServerParams")
            .field("url", &self.display_url())
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("transport", &self.transport)
            .field("connect_timeout", &self.connect_timeout)
            .field("max_message_bytes", &self.max_message_bytes)
            .field("endpoint_timeout", &self.endpoint_timeout)
            .field("authorizer", &self.authorizer.is_some())
            .field("reach", &self.reach.is_some())
            .finish_non_exhaustive()
    }
}

/// The secrets a URL carries: its query values (as written and decoded) and its userinfo.
fn add_url_secrets(secrets: &Secrets, url: &Url) {
    if let Some(query) = url.query() {
        for pair in query.split('&') {
            if let Some((_, value)) = pair.split_once('=') {
                secrets.add(value);
            }
        }
        for (_, value) in url.query_pairs() {
            secrets.add(&value);
        }
    }
    if url.username().is_empty() && url.password().is_none() {
        return;
    }
    secrets.add(url.username());
    secrets.add(url.password().unwrap_or_default());
    // reqwest sends the userinfo as `Authorization: Basic base64(user:password)`, decoded.
    let decoded = |part: &str| percent_decoded(part).unwrap_or_else(|| part.to_owned());
    let userinfo = format!(
        "{}:{}",
        decoded(url.username()),
        decoded(url.password().unwrap_or_default())
    );
    secrets.add(&base64::engine::general_purpose::STANDARD.encode(userinfo));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_collect_header_values_query_values_and_userinfo_as_secrets() {
        let params = HttpServerParams::new(
            "https://user1234:pass1234@example.com/mcp?key=a%2Fquery-secret&x=1",
        )
        .unwrap()
        .header("Authorization", "Bearer header-token-1")
        .unwrap();
        let secrets = params.transport_secrets();
        assert_eq!(
            secrets.scrub("user1234 pass1234 a%2Fquery-secret a/query-secret header-token-1 x=1"),
            "<redacted> <redacted> <redacted> <redacted> <redacted> x=1"
        );
        // What reqwest sends for the userinfo.
        assert_eq!(
            secrets.scrub("Authorization: Basic dXNlcjEyMzQ6cGFzczEyMzQ="),
            "Authorization: Basic <redacted>"
        );
    }

    #[test]
    fn params_refuse_other_schemes_and_bad_headers_without_showing_values() {
        assert!(matches!(
            HttpServerParams::new("ftp://example.com"),
            Err(ParamsError::Scheme { .. })
        ));
        let error = HttpServerParams::new("http://127.0.0.1/mcp")
            .unwrap()
            .header("X-Key", "line\nbreak-secret")
            .unwrap_err();
        assert!(!error.to_string().contains("secret"), "{error}");
        let params = HttpServerParams::new("http://127.0.0.1/mcp?key=secret")
            .unwrap()
            .header("Authorization", "Bearer secret")
            .unwrap();
        let shown = format!("{params:?}");
        assert!(!shown.contains("secret"), "{shown}");
        assert!(shown.contains("authorization"), "{shown}");
    }
}
