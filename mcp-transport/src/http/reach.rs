//! Where a remote server's connection may go: the embedder's checks of the addresses the HTTP
//! client connects to and of the redirects it would follow ([`ReachCheck`], set with
//! [`HttpServerParams::reach`](super::HttpServerParams::reach)). The transport knows no policy;
//! whoever builds it (the manager, with its enterprise policy) says what is refused, and the
//! request fails with [`TransportError::Refused`] carrying the check's own error.
//!
//! What holds:
//!
//! - **Names**: the client resolves the server's host name itself (the system's resolver,
//!   `getaddrinfo`, as the default one does) and hands every address to the address check
//!   before any is connected to; one refused address refuses the name.
//! - **Literal addresses** (`http://127.0.0.1/`, `http://[::ffff:127.0.0.1]/`) are never
//!   resolved, so the HTTP client never asks the resolver about them: the transport checks the
//!   literal when it is built, before anything is sent.
//! - **Redirects**: they are followed on the server's own origin only (same scheme, host and
//!   port, so the same addresses); each one is also put to the redirect check before it is
//!   followed.
//! - **Proxies** (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`, the system's): the connection goes to
//!   the proxy, which resolves the server's name itself; the resolver is asked about the
//!   proxy's name, which is not the server's and is not checked. Only a literal address in the
//!   server's URL, and its redirects, are checked then.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use reqwest::Url;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use crate::transport::TransportError;

/// How many redirects (on the server's own origin) a request follows.
const MAX_REDIRECTS: usize = 5;

/// A check of one address: `Err` refuses the connection.
type AddressCheck = dyn Fn(SocketAddr) -> Result<(), Refused> + Send + Sync;

/// A check of one redirect target: `Err` refuses to follow it.
type RedirectCheck = dyn Fn(&Url) -> Result<(), Refused> + Send + Sync;

/// The checks a remote server's connection is put to (see the [module doc](self)).
#[derive(Clone)]
#[non_exhaustive]
pub struct ReachCheck {
    address: Arc<AddressCheck>,
    redirect: Option<Arc<RedirectCheck>>,
}

impl ReachCheck {
    /// Checks every address the connection would be made to (the server's host resolved, or
    /// its literal address), with the URL's port.
    pub fn addresses(
        check: impl Fn(SocketAddr) -> Result<(), Refused> + Send + Sync + 'static,
    ) -> Self {
        Self {
            address: Arc::new(check),
            redirect: None,
        }
    }

    /// Also checks every redirect (on the server's origin) before it is followed.
    #[must_use]
    pub fn redirects(
        mut self,
        check: impl Fn(&Url) -> Result<(), Refused> + Send + Sync + 'static,
    ) -> Self {
        self.redirect = Some(Arc::new(check));
        self
    }

    /// The address check's answer for `address`.
    pub(super) fn address(&self, address: SocketAddr) -> Result<(), Refused> {
        (self.address)(address)
    }

    /// The redirect check's answer for `url` (none: followed).
    pub(super) fn redirect(&self, url: &Url) -> Result<(), Refused> {
        self.redirect.as_ref().map_or(Ok(()), |check| check(url))
    }
}

impl std::fmt::Debug for ReachCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReachCheck")
            .field("redirects", &self.redirect.is_some())
            .finish_non_exhaustive()
    }
}

/// What a [`ReachCheck`] refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RefusedTarget {
    /// A connection to this address (the URL's port).
    Address(SocketAddr),
    /// Following a redirect to this URL (shown without its query).
    Redirect(String),
}

/// A [`ReachCheck`] refused an address or a redirect. Shown as the check's own reason, which
/// says what was refused and why; the reason is the embedder's typed error (the manager's is
/// `mcp_config::PolicyDenial`), to be found again with `downcast_ref`.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{reason}")]
#[non_exhaustive]
pub struct Refused {
    /// What was refused.
    pub target: RefusedTarget,
    /// Why.
    pub reason: Arc<dyn std::error::Error + Send + Sync>,
}

impl Refused {
    /// A refusal of `address` for `reason`.
    pub fn address(
        address: SocketAddr,
        reason: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Self {
            target: RefusedTarget::Address(address),
            reason: Arc::new(reason),
        }
    }

    /// A refusal to follow a redirect to `url` for `reason`.
    pub fn redirect(url: &Url, reason: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self {
            target: RefusedTarget::Redirect(super::display_url(url)),
            reason: Arc::new(reason),
        }
    }
}

/// Follows a few redirects on the server's own origin (`/mcp` → `/mcp/`, say) and none to
/// another: the configured headers, credentials included, go with every request and must not
/// reach a third party. A redirect the [`ReachCheck`] refuses fails the request.
pub(super) fn same_origin_redirects(reach: Option<ReachCheck>) -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(move |attempt| {
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if !same_origin || attempt.previous().len() > MAX_REDIRECTS {
            return attempt.stop();
        }
        match reach.as_ref().map(|check| check.redirect(attempt.url())) {
            Some(Err(refused)) => attempt.error(refused),
            _ => attempt.follow(),
        }
    })
}

/// The refusal somewhere in `error`'s chain of sources: the HTTP client wraps what the
/// resolver or the redirect policy returned.
pub(super) fn refusal_in(error: &(dyn std::error::Error + 'static)) -> Option<Refused> {
    let mut next = Some(error);
    while let Some(error) = next {
        if let Some(refused) = error.downcast_ref::<Refused>() {
            return Some(refused.clone());
        }
        next = error.source();
    }
    None
}

/// Checks the literal address of `url`, which no resolver is asked about.
pub(super) fn check_literal(check: &ReachCheck, url: &Url) -> Result<(), TransportError> {
    let address = match url.host() {
        Some(url::Host::Ipv4(v4)) => IpAddr::V4(v4),
        Some(url::Host::Ipv6(v6)) => IpAddr::V6(v6),
        Some(url::Host::Domain(_)) | None => return Ok(()),
    };
    let port = url.port_or_known_default().unwrap_or_default();
    check
        .address(SocketAddr::new(address, port))
        .map_err(|refused| TransportError::Refused {
            action: format!("connecting to {}", super::display_url(url)),
            refused,
        })
}

/// The system's resolver, with every address of the server's host put to the address check.
pub(super) struct CheckedResolver {
    check: ReachCheck,
    /// The server's host name (the one a request's URL names; redirects stay on it).
    host: String,
    /// The server URL's port, given to the check with each address.
    port: u16,
}

impl CheckedResolver {
    pub(super) fn new(check: ReachCheck, url: &Url) -> Self {
        Self {
            check,
            host: url.host_str().unwrap_or_default().to_owned(),
            port: url.port_or_known_default().unwrap_or_default(),
        }
    }
}

impl Resolve for CheckedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        // Another name is a proxy's: the proxy resolves the server's name (see the module doc).
        let checked = name.as_str().eq_ignore_ascii_case(&self.host);
        let check = self.check.clone();
        let port = self.port;
        Box::pin(async move {
            let found: Vec<SocketAddr> = tokio::net::lookup_host((name.as_str(), 0))
                .await?
                .map(|address| SocketAddr::new(address.ip(), port))
                .collect();
            if checked {
                for address in &found {
                    check.address(*address)?;
                }
            }
            let addresses: Addrs = Box::new(found.into_iter());
            Ok(addresses)
        })
    }
}
