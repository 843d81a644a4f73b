//! [`ClientOptions`]: how a client connects and behaves, and the capabilities it declares
//! for them.

use std::sync::Arc;
use std::time::Duration;

use crate::handlers::{ElicitationHandler, SamplingHandler};
use crate::protocol::{
    ClientCapabilities, Implementation, JsonObject, ProtocolVersion, Root, RootsCapability,
};

/// How a client connects and behaves.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ClientOptions {
    /// The name and version sent as `clientInfo`.
    pub client_info: Implementation,
    /// A pinned protocol version: a handshake-era one is offered in `initialize` without
    /// probing; 2026-07-28 is spoken without falling back. `None` (the default) probes with
    /// `server/discover` and speaks 2026-07-28 to a server that answers it, the handshake
    /// (offering 2025-11-25) to any other.
    pub protocol_version: Option<ProtocolVersion>,
    /// Roots answered to the server's `roots/list`. `None` does not declare the capability.
    pub roots: Option<Vec<Root>>,
    /// Bound on starting the transport plus the handshake. Default 30 s.
    pub connect_timeout: Duration,
    /// Timeout of requests that do not set their own. Default 60 s; `None` waits forever.
    pub request_timeout: Option<Duration>,
    /// Answers the server's `elicitation/create`; set, the `elicitation` capability is declared.
    pub elicitation: Option<Arc<dyn ElicitationHandler>>,
    /// Answers the server's `sampling/createMessage`; set, the `sampling` capability is
    /// declared.
    pub sampling: Option<Arc<dyn SamplingHandler>>,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            client_info: Implementation::new("mcp-runtime", env!("CARGO_PKG_VERSION")),
            protocol_version: None,
            roots: None,
            connect_timeout: Duration::from_secs(30),
            request_timeout: Some(Duration::from_secs(60)),
            elicitation: None,
            sampling: None,
        }
    }
}

impl ClientOptions {
    /// Sets the connect timeout.
    #[must_use]
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Sets the default request timeout.
    #[must_use]
    pub fn request_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Declares roots and answers `roots/list` with them.
    #[must_use]
    pub fn roots(mut self, roots: Vec<Root>) -> Self {
        self.roots = Some(roots);
        self
    }

    /// Answers elicitations with `handler` (and declares the capability).
    #[must_use]
    pub fn elicitation(mut self, handler: Arc<dyn ElicitationHandler>) -> Self {
        self.elicitation = Some(handler);
        self
    }

    /// Answers sampling requests with `handler` (and declares the capability).
    #[must_use]
    pub fn sampling(mut self, handler: Arc<dyn SamplingHandler>) -> Self {
        self.sampling = Some(handler);
        self
    }

    /// Pins the protocol version (see [`ClientOptions::protocol_version`]).
    #[must_use]
    pub fn protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.protocol_version = Some(version);
        self
    }

    /// The capabilities this client declares: roots, elicitation and sampling when it has them.
    pub(super) fn capabilities(&self) -> ClientCapabilities {
        ClientCapabilities {
            roots: self
                .roots
                .as_ref()
                .map(|_| RootsCapability { list_changed: true }),
            // `{}` declares form elicitation, which every protocol version understands.
            elicitation: self.elicitation.as_ref().map(|_| JsonObject::new()),
            sampling: self.sampling.as_ref().map(|_| JsonObject::new()),
            extra: extensions(),
        }
    }

    /// Sets the client name and version.
    #[must_use]
    pub fn client_info(mut self, info: Implementation) -> Self {
        self.client_info = info;
        self
    }
}

/// The extensions this client declares (`capabilities.extensions`): Tasks, and Skills when
/// built in.
fn extensions() -> JsonObject {
    let declared: &[&str] = &[
        crate::protocol::TASKS_EXTENSION,
        #[cfg(feature = "skills")]
        crate::protocol::SKILLS_EXTENSION,
    ];
    let mut capabilities = JsonObject::new();
    if !declared.is_empty() {
        let extensions = declared
            .iter()
            .map(|name| {
                (
                    (*name).to_owned(),
                    serde_json::Value::Object(JsonObject::new()),
                )
            })
            .collect();
        capabilities.insert(
            "extensions".to_owned(),
            serde_json::Value::Object(extensions),
        );
    }
    capabilities
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_skills_extension_is_declared_when_built_in() {
        let declared = ClientOptions::default().capabilities().extra;
        let skills = declared
            .get("extensions")
            .and_then(|extensions| extensions.get(crate::protocol::SKILLS_EXTENSION));
        assert_eq!(skills.is_some(), cfg!(feature = "skills"), "{declared:?}");
    }
}
