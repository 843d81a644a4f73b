//! The legacy HTTP+SSE transport (MCP 2024-11-05), for servers that predate Streamable HTTP.
//!
//! The client opens one GET event stream. Its first event, `endpoint`, names the URL to POST
//! messages to (often with a session in its query); every answer, notification and server
//! request then arrives on the stream as a `message` event. The transport:
//!
//! - waits for the `endpoint` event at most [`HttpServerParams::endpoint_timeout`];
//! - refuses an endpoint on another origin than the stream's
//!   ([`TransportError::CrossOriginEndpoint`]): the configured headers, credentials included,
//!   go with every POST and must not reach a third party;
//! - POSTs each message and waits for the server to take it (202); a request refused with an
//!   error status gets a JSON-RPC error answer of code [`HTTP_ERROR_CODE`](super::HTTP_ERROR_CODE),
//!   a 401 or 403 the [`Authorizer`] (if any) cannot answer with new
//!   credentials ends the connection;
//! - ends the connection when the stream ends: the session lives and dies with it.

use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use reqwest::header::{ACCEPT, CONTENT_TYPE};

use super::authorization::send_authorized;
use super::failure::{display_url, error_response, excerpt, request_failed, status_error};
use super::mailbox::{Inbox, Postbox, mailbox};
use super::message::Outgoing;
use super::response::{BodyKind, read_body, read_messages};
use super::{Authorizer, HttpServerParams, Url};
use crate::secrets::Secrets;
use crate::sse::SseDecoder;
use crate::transport::{ProtocolViolation, Transport, TransportError};

/// A connection to a legacy HTTP+SSE server. See the [module docs](self).
pub struct LegacySseTransport {
    shared: Arc<Shared>,
    inbox: Inbox,
}

struct Shared {
    client: reqwest::Client,
    endpoint: Url,
    postbox: Postbox,
    authorizer: Option<Arc<dyn Authorizer>>,
    /// What errors never show of the server's text.
    secrets: Secrets,
}

impl LegacySseTransport {
    /// Opens the event stream and waits for the server to name its message endpoint.
    pub async fn connect(params: &HttpServerParams) -> Result<Self, TransportError> {
        let client = params.http_client()?;
        let secrets = params.transport_secrets();
        let stream_action = format!("GET the event stream at {}", params.display_url());
        let opened = tokio::time::timeout(params.endpoint_timeout, async {
            let (mut response, ()) = send_authorized(
                params.authorizer.as_deref(),
                &secrets,
                || {
                    let builder = client
                        .get(params.url.clone())
                        .header(ACCEPT, "text/event-stream");
                    (builder, ())
                },
                || stream_action.clone(),
            )
            .await?;
            let status = response.status().as_u16();
            // What a Streamable HTTP server answers a bare GET: no stream here, or not this
            // one; said with the fix rather than with its body.
            if matches!(status, 400 | 404 | 405 | 406 | 415) {
                return Err(TransportError::NotLegacySse {
                    action: stream_action.clone(),
                    status,
                });
            }
            if !response.status().is_success() {
                return Err(status_error(stream_action.clone(), response, &secrets).await);
            }
            if BodyKind::of(&response) != BodyKind::EventStream {
                return Err(violation(
                    &stream_action,
                    ProtocolViolation::NotAnEventStream,
                ));
            }
            let mut decoder = SseDecoder::new(params.max_message_bytes);
            let endpoint = wait_for_endpoint(&mut response, &mut decoder, &stream_action).await?;
            Ok((response, decoder, endpoint))
        })
        .await;
        let (response, decoder, endpoint) = opened.map_err(|_| {
            violation(
                &stream_action,
                ProtocolViolation::NoEndpoint {
                    waited: params.endpoint_timeout,
                },
            )
        })??;
        let endpoint = params.url.join(endpoint.trim()).map_err(|_| {
            violation(
                &stream_action,
                ProtocolViolation::InvalidEndpoint {
                    endpoint: excerpt(endpoint.trim(), &secrets),
                },
            )
        })?;
        if endpoint.origin() != params.url.origin() {
            return Err(TransportError::CrossOriginEndpoint {
                endpoint: endpoint.origin().ascii_serialization(),
            });
        }
        let (postbox, inbox) = mailbox();
        let shared = Arc::new(Shared {
            client,
            endpoint,
            postbox,
            authorizer: params.authorizer.clone(),
            secrets,
        });
        tokio::spawn(read_stream(
            Arc::clone(&shared),
            response,
            decoder,
            stream_action,
        ));
        Ok(Self { shared, inbox })
    }
}

fn violation(action: &str, violation: ProtocolViolation) -> TransportError {
    TransportError::Protocol {
        action: action.to_owned(),
        violation,
    }
}

/// Reads events until the `endpoint` event; its data.
async fn wait_for_endpoint(
    response: &mut reqwest::Response,
    decoder: &mut SseDecoder,
    action: &str,
) -> Result<String, TransportError> {
    loop {
        while let Some(event) = decoder.next_event()? {
            if event.event == "endpoint" {
                return Ok(event.data);
            }
        }
        match response.chunk().await {
            Ok(Some(chunk)) => decoder.push(&chunk),
            Ok(None) => {
                return Err(violation(
                    action,
                    ProtocolViolation::StreamEndedBeforeEndpoint,
                ));
            }
            Err(error) => return Err(request_failed(action.to_owned(), error)),
        }
    }
}

/// Hands the stream's messages to the peer until it ends, then ends the connection.
async fn read_stream(
    shared: Arc<Shared>,
    mut response: reqwest::Response,
    mut decoder: SseDecoder,
    action: String,
) {
    let postbox = &shared.postbox;
    let read = tokio::select! {
        () = postbox.closed.cancelled() => return,
        read = read_messages(&mut response, &mut decoder, |message| async move {
            postbox.deliver(Ok(message)).await;
            false
        }) => read,
    };
    let end = match read {
        Err(error) => error,
        Ok(_) => {
            tracing::debug!(action, "the server ended its event stream");
            TransportError::ClosedByServer
        }
    };
    postbox.deliver(Err(end)).await;
}

impl std::fmt::Debug for LegacySseTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LegacySseTransport")
            .field("endpoint", &display_url(&self.shared.endpoint))
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl Transport for LegacySseTransport {
    async fn send(&self, messages: &[String]) -> Result<(), TransportError> {
        for message in messages {
            if self.shared.postbox.closed.is_cancelled() {
                return Err(TransportError::ClosedByClient);
            }
            let outgoing = Outgoing::of(message);
            let Err(error) = self.shared.post(message, outgoing.method()).await else {
                continue;
            };
            match outgoing {
                _ if error.needs_credentials() => return Err(error),
                Outgoing::Request { id, .. } => {
                    self.shared
                        .postbox
                        .deliver(Ok(error_response(&id, &error)))
                        .await;
                }
                _ => tracing::warn!(%error, "the server refused a message"),
            }
        }
        Ok(())
    }

    async fn receive(&self) -> Result<Bytes, TransportError> {
        self.inbox.receive().await
    }

    async fn close(&self) -> Result<(), TransportError> {
        self.shared.postbox.closed.cancel();
        Ok(())
    }
}

impl Drop for LegacySseTransport {
    fn drop(&mut self) {
        self.shared.postbox.closed.cancel();
    }
}

impl Shared {
    /// POSTs one message to the endpoint and waits for the server to take it.
    async fn post(&self, message: &str, method: &str) -> Result<(), TransportError> {
        let action = format!("POST {method} to {}", display_url(&self.endpoint));
        let (mut response, ()) = send_authorized(
            self.authorizer.as_deref(),
            &self.secrets,
            || {
                let builder = self
                    .client
                    .post(self.endpoint.clone())
                    .header(CONTENT_TYPE, "application/json")
                    .body(message.to_owned());
                (builder, ())
            },
            || action.clone(),
        )
        .await?;
        if !response.status().is_success() {
            return Err(status_error(action, response, &self.secrets).await);
        }
        // The answer comes on the stream; drain the body ("Accepted") so the connection is reused.
        let _ = read_body(&mut response, 64 * 1024, method).await;
        Ok(())
    }
}
