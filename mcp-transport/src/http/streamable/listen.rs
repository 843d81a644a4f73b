//! The GET stream that carries what the server starts (requests, notifications): opened
//! ahead of the first request, read in a task of its own, resumed from its last event id and
//! given up after repeated failures.

use std::sync::Arc;
use std::time::Duration;

use super::{Shared, lock};
use crate::http::DEFAULT_RETRY;
use crate::http::failure::display_url;
use crate::http::response::{BodyKind, read_messages};
use crate::sse::SseDecoder;
use crate::transport::TransportError;

/// How long opening the GET stream may hold up the first request of a session.
const LISTEN_OPEN_WAIT: Duration = Duration::from_secs(1);
/// Failed GET stream attempts in a row (errors, or streams that ended with no event) before the
/// transport stops listening.
const MAX_LISTEN_FAILURES: u32 = 5;

impl Shared {
    /// Opens the GET stream for server-initiated messages, replacing one that runs.
    ///
    /// The first GET goes out, and the head of its answer is awaited (for a moment at most),
    /// before this returns: it then precedes every request sent after it, so a server never
    /// sees a request's answer stream resumed on a stream that was opened later by chance.
    /// Reading, and reconnecting after the stream ends, happen in a task of their own.
    pub(super) async fn listen(self: &Arc<Self>) {
        let stop = self.closed.child_token();
        if let Some(previous) = lock(&self.listener).replace(stop.clone()) {
            previous.cancel();
        }
        let first = tokio::select! {
            () = stop.cancelled() => return,
            opened = tokio::time::timeout(LISTEN_OPEN_WAIT, self.get(None)) => opened.ok(),
        };
        let shared = Arc::clone(self);
        tokio::spawn(async move {
            tokio::select! {
                () = stop.cancelled() => {}
                () = shared.listen_until_done(first) => {}
            }
        });
    }

    /// Reads the GET stream, starting with the answer to the first GET when it came in time.
    pub(super) async fn listen_until_done(
        &self,
        mut first: Option<Result<reqwest::Response, TransportError>>,
    ) {
        let mut last_event_id: Option<String> = None;
        let mut retry = DEFAULT_RETRY;
        let mut failures = 0;
        while failures < MAX_LISTEN_FAILURES {
            let opened = match first.take() {
                Some(opened) => opened,
                None => self.get(last_event_id.as_deref()).await,
            };
            match opened {
                Err(error) if error.is_unreachable() => {
                    // The server is gone: the connection ends, so it can be made again.
                    tracing::debug!(%error, "the server's event stream cannot be reopened");
                    self.deliver(Err(error)).await;
                    return;
                }
                Err(error) => {
                    tracing::debug!(%error, "could not open the server's event stream");
                    failures += 1;
                }
                Ok(response) if response.status().is_client_error() => {
                    tracing::debug!(
                        status = response.status().as_u16(),
                        "the server offers no event stream for its own messages"
                    );
                    return;
                }
                Ok(response)
                    if !response.status().is_success()
                        || BodyKind::of(&response) != BodyKind::EventStream =>
                {
                    failures += 1;
                }
                Ok(response) => {
                    let mut decoder =
                        SseDecoder::resuming(self.max_message_bytes, last_event_id.take());
                    if self.read_server_stream(response, &mut decoder).await {
                        failures = 0;
                    } else {
                        failures += 1;
                    }
                    last_event_id = decoder.last_event_id().map(str::to_owned);
                    retry = decoder.retry().unwrap_or(retry);
                }
            }
            tokio::time::sleep(retry * failures.max(1)).await;
        }
        tracing::warn!(
            url = %display_url(&self.url),
            "stopped listening for the server's own messages after {MAX_LISTEN_FAILURES} failed attempts"
        );
    }

    /// Reads an event stream of the server (the GET stream, or the rest of an answer's) until
    /// it ends, handing every message on; true if it carried at least one.
    pub(super) async fn read_server_stream(
        &self,
        mut response: reqwest::Response,
        decoder: &mut SseDecoder,
    ) -> bool {
        let mut any = false;
        let read = read_messages(&mut response, decoder, |message| {
            any = true;
            async move {
                self.deliver(Ok(message)).await;
                false
            }
        })
        .await;
        if let Err(error) = read {
            tracing::warn!(%error, "the server's event stream failed");
        }
        any
    }
}
