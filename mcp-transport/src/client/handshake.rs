//! The handshake every connection ends in: the [`Peer`] started over the transport, the
//! server's protocol era found and the conversation opened, all within the connect timeout.
//!
//! A server of the stateless revision answers `server/discover` and needs no more; one of the
//! handshake era gets `initialize` and `notifications/initialized` (see [`stateless`] for how
//! the era is told). A stateless server's list changes then come on a stream of their own.

use std::sync::Arc;

use tokio::time::Instant;

use super::McpClient;
use super::options::ClientOptions;
use crate::error::Error;
use crate::fast_path::Link;
use crate::peer::{Peer, PeerOptions, RequestOptions, RpcError};
use crate::protocol::{
    ClientCapabilities, InitializeParams, InitializeResult, ProtocolVersion, methods,
};
use crate::secrets::Secrets;
use crate::stateless::{self, Era, ProbeFailure, SubscriptionFilter};
use crate::transport::Transport;

/// How long the era probe waits for an answer before taking the server for one of the
/// handshake era.
#[derive(Debug, Clone, Copy)]
pub(super) enum Probe {
    /// [`stateless::PROBE_TIMEOUT`]: a stream transport (stdio, a socket), where a server of
    /// the handshake era may ignore a request sent before `initialize`.
    Quick,
    /// The whole connect timeout: HTTP, where every server answers a POST (and the answer may
    /// wait for an authorization).
    #[cfg(feature = "http")]
    Patient,
    /// None: the legacy HTTP+SSE transport, which no stateless server speaks.
    #[cfg(feature = "http")]
    Skip,
}

impl Probe {
    /// Whether `initialize` goes first, with no probe.
    fn skipped(self) -> bool {
        #[cfg(feature = "http")]
        return matches!(self, Self::Skip);
        #[cfg(not(feature = "http"))]
        return false;
    }
}

impl McpClient {
    /// Performs the handshake over a transport that is already set up, within the connect
    /// timeout. On failure the transport is closed.
    ///
    /// This is how a plugin's transport connects: the client needs nothing from it but the
    /// [`Transport`] trait (see its documentation for a complete example).
    pub async fn connect(
        server: &str,
        transport: Box<dyn Transport>,
        options: ClientOptions,
    ) -> Result<Self, Error> {
        let deadline = Instant::now() + options.connect_timeout;
        Self::handshake(
            server,
            Link::plain(transport),
            options,
            Secrets::new(),
            deadline,
            Probe::Quick,
        )
        .await
    }

    /// Starts the peer over `link` and opens the conversation by `deadline`, the end of every
    /// connect; on failure the transport is closed. `secrets` are the credentials the transport
    /// sends: the peer hides them in the server's error and log messages.
    pub(super) async fn handshake(
        server: &str,
        link: Link,
        options: ClientOptions,
        secrets: Secrets,
        deadline: Instant,
        probe: Probe,
    ) -> Result<Self, Error> {
        let peer = Peer::start_on(
            server,
            link,
            PeerOptions {
                roots: options.roots.clone(),
                default_timeout: options.request_timeout,
                elicitation: options.elicitation.clone(),
                sampling: options.sampling.clone(),
                secrets,
            },
        );
        let capabilities = options.capabilities();
        let opened = tokio::time::timeout_at(
            deadline,
            Self::open(server, &peer, &options, &capabilities, probe),
        )
        .await;
        let failure = match opened {
            Err(_) => Error::ConnectTimeout {
                server: server.to_owned(),
                after: options.connect_timeout,
            },
            Ok(Ok((initialize, protocol_version))) => {
                if protocol_version.is_stateless() {
                    peer.set_request_meta(&stateless::request_meta(
                        protocol_version,
                        &options.client_info,
                        &capabilities,
                    ));
                }
                tracing::debug!(
                    server,
                    version = %protocol_version,
                    server_name = %initialize.server_info.name,
                    "MCP server connected"
                );
                let peer = Arc::new(peer);
                // A stateless server's change notifications come on a stream of their own.
                let listener = protocol_version
                    .is_stateless()
                    .then(|| SubscriptionFilter::announced_by(&initialize.capabilities))
                    .flatten()
                    .map(|filter| {
                        tokio::spawn(stateless::listen(Arc::downgrade(&peer), filter))
                            .abort_handle()
                    });
                return Ok(Self {
                    server: Arc::from(server),
                    peer,
                    initialize,
                    protocol_version,
                    #[cfg(feature = "http")]
                    tool_headers: None,
                    listener,
                    followed: Arc::default(),
                    task_tools: super::tasks::TaskTools::default(),
                });
            }
            Ok(Err(error)) => error,
        };
        if let Err(error) = peer.close().await {
            tracing::warn!(server, %error, "could not stop the server after a failed handshake");
        }
        Err(failure)
    }

    /// Finds the server's era and opens the conversation: `server/discover` for a stateless
    /// server, `initialize` and `notifications/initialized` for one of the handshake era (see
    /// [`stateless`]). A pinned version ([`ClientOptions::protocol_version`]) skips the probe
    /// for the handshake era and allows no fallback for the stateless one.
    async fn open(
        server: &str,
        peer: &Peer,
        options: &ClientOptions,
        capabilities: &ClientCapabilities,
        probe_kind: Probe,
    ) -> Result<(InitializeResult, ProtocolVersion), Error> {
        let pinned = options.protocol_version;
        let handshake_pin = pinned.filter(|version| !version.is_stateless());
        if handshake_pin.is_some() || (probe_kind.skipped() && pinned.is_none()) {
            let version = handshake_pin.unwrap_or(ProtocolVersion::LATEST_HANDSHAKE);
            return Self::initialize(server, peer, options, capabilities, version).await;
        }
        let stateless = pinned.unwrap_or(ProtocolVersion::LATEST);
        let probe_timeout = match probe_kind {
            // Half the connect timeout at most, leaving the other half to `initialize`.
            Probe::Quick if pinned.is_none() => {
                stateless::PROBE_TIMEOUT.min(options.connect_timeout / 2)
            }
            _ => options.connect_timeout,
        };
        let probe = |timeout| {
            stateless::probe(peer, stateless, &options.client_info, capabilities, timeout)
        };
        let era = match probe(probe_timeout).await {
            Ok(era) => era,
            Err(failure) => return Err(Self::probe_error(server, options, failure)),
        };
        match era {
            Era::Stateless {
                version,
                discovered,
            } => Ok((discovered.into_initialize_result(version), version)),
            // Pinned to the stateless revision, a request that failed at the HTTP level is
            // that failure (a refused login, say), not a statement of the server's era.
            #[cfg(feature = "http")]
            Era::Handshake {
                refusal: Some(error),
                ..
            } if pinned.is_some() && error.code == crate::http::HTTP_ERROR_CODE => {
                Err(Error::Request {
                    server: server.to_owned(),
                    operation: methods::SERVER_DISCOVER.to_owned(),
                    source: RpcError::Server(error),
                })
            }
            // Pinned, with no fallback: no answer in time is the connect timing out.
            Era::Handshake {
                silent: true,
                refusal: None,
                ..
            } if pinned.is_some() => Err(Error::ConnectTimeout {
                server: server.to_owned(),
                after: options.connect_timeout,
            }),
            Era::Handshake { refusal, .. } if pinned.is_some() => {
                Err(Error::UnsupportedProtocolVersion {
                    server: server.to_owned(),
                    version: match refusal {
                        Some(error) => format!(
                            "only the handshake era (it answered server/discover with \"{}\", \
                             JSON-RPC error {})",
                            error.message, error.code
                        ),
                        None => "only the handshake era (the versions it lists)".to_owned(),
                    },
                    supported: format!("{stateless}, as pinned"),
                })
            }
            Era::Handshake {
                version, silent, ..
            } => {
                match Self::initialize(server, peer, options, capabilities, version).await {
                    // A stateless server too slow to answer the probe (a package manager
                    // fetching it, say) refuses `initialize` once it is up: ask it again.
                    Err(Error::Request {
                        source: RpcError::Server(_),
                        ..
                    }) if silent => match probe(options.connect_timeout).await {
                        Ok(Era::Stateless {
                            version,
                            discovered,
                        }) => Ok((discovered.into_initialize_result(version), version)),
                        Ok(Era::Handshake { .. }) => Err(Error::UnsupportedProtocolVersion {
                            server: server.to_owned(),
                            version: "none: it refused initialize and server/discover".to_owned(),
                            supported: ProtocolVersion::supported_list(),
                        }),
                        Err(failure) => Err(Self::probe_error(server, options, failure)),
                    },
                    opened => opened,
                }
            }
        }
    }

    fn probe_error(server: &str, options: &ClientOptions, failure: ProbeFailure) -> Error {
        match failure {
            ProbeFailure::Request(RpcError::Timeout(_)) => Error::ConnectTimeout {
                server: server.to_owned(),
                after: options.connect_timeout,
            },
            ProbeFailure::Request(source) => Error::Request {
                server: server.to_owned(),
                operation: methods::SERVER_DISCOVER.to_owned(),
                source,
            },
            ProbeFailure::Refused(error) => Error::Request {
                server: server.to_owned(),
                operation: methods::SERVER_DISCOVER.to_owned(),
                source: RpcError::Server(error),
            },
            ProbeFailure::NoCommonVersion(offered) => Error::UnsupportedProtocolVersion {
                server: server.to_owned(),
                version: if offered.is_empty() {
                    "none named".to_owned()
                } else {
                    offered.join(", ")
                },
                supported: ProtocolVersion::supported_list(),
            },
        }
    }

    /// The handshake of the 2024-11-05 … 2025-11-25 era, offering `version`.
    async fn initialize(
        server: &str,
        peer: &Peer,
        options: &ClientOptions,
        capabilities: &ClientCapabilities,
        version: ProtocolVersion,
    ) -> Result<(InitializeResult, ProtocolVersion), Error> {
        let mut capabilities = capabilities.clone();
        if version >= ProtocolVersion::V2025_11_25 {
            // The revision's experimental tasks: declared so that a server may offer its tools
            // as tasks (`client::tasks` follows them); `{}` hosts no task of the server's.
            capabilities.extra.insert(
                "tasks".to_owned(),
                serde_json::Value::Object(crate::protocol::JsonObject::new()),
            );
        }
        let params = InitializeParams {
            protocol_version: version.as_str().to_owned(),
            capabilities,
            client_info: options.client_info.clone(),
        };
        let initialize = peer
            .request::<_, InitializeResult>(
                methods::INITIALIZE,
                Some(&params),
                &RequestOptions::with_timeout(options.connect_timeout),
            )
            .await;
        let initialize = match initialize {
            Err(RpcError::Timeout(_)) => {
                return Err(Error::ConnectTimeout {
                    server: server.to_owned(),
                    after: options.connect_timeout,
                });
            }
            Err(source) => {
                return Err(Error::Request {
                    server: server.to_owned(),
                    operation: methods::INITIALIZE.to_owned(),
                    source,
                });
            }
            Ok(initialize) => initialize,
        };
        let Some(protocol_version) = ProtocolVersion::parse(&initialize.protocol_version)
            .filter(|chosen| !chosen.is_stateless())
        else {
            return Err(Error::UnsupportedProtocolVersion {
                server: server.to_owned(),
                version: initialize.protocol_version,
                supported: ProtocolVersion::supported_list(),
            });
        };
        peer.notify(methods::INITIALIZED, None::<()>)
            .map_err(|source| Error::Request {
                server: server.to_owned(),
                operation: methods::INITIALIZED.to_owned(),
                source,
            })?;
        Ok((initialize, protocol_version))
    }
}
