//! Reading a server's answers: whole bodies within a limit, `message` events from an event
//! stream, and which of the two a response carries.

use std::future::Future;

use bytes::Bytes;

use super::failure::request_failed;
use crate::sse::SseDecoder;
use crate::transport::TransportError;

/// Reads `message` events from an SSE body and hands each one's data to `on_message` until it
/// answers true (then true) or the stream ends or breaks (then false). Priming events (empty
/// data) and events of other types are skipped; ids and `retry:` stay in the decoder.
pub(super) async fn read_messages<F, Fut>(
    response: &mut reqwest::Response,
    decoder: &mut SseDecoder,
    mut on_message: F,
) -> Result<bool, TransportError>
where
    F: FnMut(Bytes) -> Fut,
    Fut: Future<Output = bool>,
{
    loop {
        // Events already buffered first (the legacy stream's endpoint event may have come with
        // more behind it), then the next chunk.
        while let Some(event) = decoder.next_event()? {
            if event.data.is_empty() || event.event != "message" {
                continue;
            }
            if on_message(Bytes::from(event.data)).await {
                return Ok(true);
            }
        }
        match response.chunk().await {
            Ok(Some(chunk)) => decoder.push(&chunk),
            Ok(None) => return Ok(false),
            Err(error) => {
                tracing::debug!(error = %error.without_url(), "an event stream broke");
                return Ok(false);
            }
        }
    }
}

/// Reads a whole body, failing past `limit` bytes.
pub(super) async fn read_body(
    response: &mut reqwest::Response,
    limit: usize,
    action: &str,
) -> Result<Bytes, TransportError> {
    read_limited(response, limit)
        .await
        .map_err(|error| match error {
            BodyError::Read(error) => {
                request_failed(format!("reading the answer to {action}"), error)
            }
            BodyError::TooLarge => TransportError::MessageTooLarge { limit },
        })
}

/// Why [`read_limited`] gave no body.
#[derive(Debug)]
pub(crate) enum BodyError {
    /// The connection failed while the body was read.
    Read(reqwest::Error),
    /// The body is longer than the limit; the rest was not read.
    TooLarge,
}

/// Reads a whole body chunk by chunk and stops as soon as it passes `limit` bytes, so a huge
/// or endless answer never fills memory. Each caller maps the failure to its own error.
pub(crate) async fn read_limited(
    response: &mut reqwest::Response,
    limit: usize,
) -> Result<Bytes, BodyError> {
    // Most answers arrive as one chunk: it is kept as it came, without a copy.
    let Some(first) = response.chunk().await.map_err(BodyError::Read)? else {
        return Ok(Bytes::new());
    };
    if first.len() > limit {
        return Err(BodyError::TooLarge);
    }
    let Some(second) = response.chunk().await.map_err(BodyError::Read)? else {
        return Ok(first);
    };
    let mut body = Vec::with_capacity(first.len() + second.len());
    body.extend_from_slice(&first);
    let mut next = Some(second);
    while let Some(chunk) = next {
        if body.len() + chunk.len() > limit {
            return Err(BodyError::TooLarge);
        }
        body.extend_from_slice(&chunk);
        next = response.chunk().await.map_err(BodyError::Read)?;
    }
    Ok(Bytes::from(body))
}

/// Whether a content type is JSON or an event stream (parameters such as `charset` ignored).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BodyKind {
    Json,
    EventStream,
    Other,
}

impl BodyKind {
    pub(super) fn of(response: &reqwest::Response) -> Self {
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or("");
        let essence = content_type
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        match essence.as_str() {
            "application/json" => Self::Json,
            "text/event-stream" => Self::EventStream,
            _ => Self::Other,
        }
    }
}
