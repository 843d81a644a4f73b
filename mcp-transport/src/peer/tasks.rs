//! The peer's writer and timeout sweeper tasks, and what is done with each incoming message
//! (by the reader task, or by a request reading its own answer: see `reading`): a response to
//! its request, an answer to the server's own request, progress to its request, anything else
//! to the subscribers.

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::{MutexGuard, PoisonError};

use std::future::Future;

use bytes::Bytes;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tracing::Instrument;

use super::{MAX_WRITE_BATCH, Pending, Shared, State, Unanswered, WRITE_FAILURE_GRACE};
use crate::jsonrpc::{
    ErrorObject, IncomingEnvelope, OutgoingNotification, OutgoingResponse, ServerNotification,
    error_codes, plain_head,
};
use crate::protocol::{
    CancelledNotificationParams, EmptyResult, ListRootsResult, ProgressNotificationParams,
    ProgressToken, Root, methods,
};
use crate::secrets::Secrets;
use crate::transport::{CloseReason, Transport};

/// The id of a response written the way most servers write one, starting
/// `{"jsonrpc":"2.0","id":<digits>,"result":` (or `,"error":`), read from those bytes alone.
///
/// Such a message goes to its request without the envelope pass over its whole body: the
/// request decodes the message in full anyway, so the body is read once instead of twice (a
/// large tool result costs half as much), and an answer whose body does not parse fails its
/// request with an invalid-response error instead of being skipped. Any other shape (members
/// in another order, spaces, an id that is not a plain number) takes the general path.
fn plain_response_id(message: &[u8]) -> Option<u64> {
    let (id, _, rest) = plain_head(message)?;
    (rest.starts_with(br#""result":"#) || rest.starts_with(br#""error":"#)).then_some(id)
}

impl Shared {
    /// A server's JSON-RPC error with our secrets hidden in its message and in every string of
    /// its data (a server may quote the request it refused).
    pub(super) fn scrub_error(&self, mut error: ErrorObject) -> ErrorObject {
        if self.secrets.is_empty() {
            return error;
        }
        if let Cow::Owned(message) = self.secrets.scrub(&error.message) {
            error.message = message;
        }
        if let Some(data) = error.data.as_mut() {
            scrub_strings(data, &self.secrets);
        }
        error
    }

    pub(super) fn lock_state(&self) -> MutexGuard<'_, State> {
        // A panic while holding this lock cannot leave the table inconsistent (every update is
        // a single insert or remove), so a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn enqueue(&self, message: String) {
        self.queued.fetch_add(1, Ordering::AcqRel);
        // Fails only once the writer is gone, which happens after the connection closed; the
        // request then fails with the close reason.
        if self.outbound.send(message).is_err() {
            self.queued.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// Tells the server to stop working on one of our requests.
    pub(super) fn send_cancelled(&self, id: u64, reason: &str) {
        tracing::debug!(id, reason, "cancelling request");
        let params = CancelledNotificationParams {
            request_id: crate::jsonrpc::RequestId::Number(i64::try_from(id).unwrap_or(i64::MAX)),
            reason: Some(reason.to_owned()),
        };
        match serde_json::to_string(&OutgoingNotification {
            jsonrpc: "2.0",
            method: methods::CANCELLED,
            params: Some(params),
        }) {
            Ok(message) => self.enqueue(message),
            Err(error) => tracing::warn!(%error, "could not serialize a cancellation"),
        }
    }

    /// Fails every request past its deadline (telling the server) and returns the earliest
    /// deadline still ahead, which becomes the sweeper's target.
    pub(super) fn expire_overdue(&self, now: Instant) -> Option<Instant> {
        let (expired, next) = {
            let mut state = self.lock_state();
            let mut next: Option<Instant> = None;
            let mut overdue = Vec::new();
            for (id, pending) in &state.pending {
                match pending.deadline {
                    Some(deadline) if deadline <= now => overdue.push(*id),
                    Some(deadline) => {
                        next = Some(next.map_or(deadline, |next| next.min(deadline)));
                    }
                    None => {}
                }
            }
            let expired: Vec<(u64, Pending)> = overdue
                .into_iter()
                .filter_map(|id| state.pending.remove(&id).map(|pending| (id, pending)))
                .collect();
            state.sweeper_target = next;
            (expired, next)
        };
        for (id, pending) in expired {
            if pending.cancellable {
                self.send_cancelled(id, "timed out");
            }
            let _ = pending
                .response
                .send(Err(Unanswered::TimedOut(pending.deadline)));
        }
        next
    }

    /// Records why the connection closed (first reason wins) and fails every pending request.
    pub(super) fn mark_closed(&self, reason: CloseReason) {
        let pending = {
            let mut state = self.lock_state();
            if state.closed.is_some() {
                return;
            }
            state.closed = Some(reason.clone());
            std::mem::take(&mut state.pending)
        };
        if !reason.is_closed_by_client() {
            // Every caller hears why (pending requests fail with it, `closed()` resolves with
            // it); whoever owns the connection reports it.
            tracing::debug!(reason = %reason, "connection to MCP server closed");
        }
        for (_, request) in pending {
            let _ = request
                .response
                .send(Err(Unanswered::Closed(reason.clone())));
        }
        self.closed.send_replace(Some(reason));
    }

    /// Handles one incoming message (or batch). The response to request `claim`, if this is
    /// it, is handed back with its pending entry instead of being sent to it: the request is
    /// the one reading (see `reading`).
    pub(super) fn dispatch(
        self: &Arc<Self>,
        message: &Bytes,
        claim: Option<u64>,
    ) -> Option<(Bytes, Pending)> {
        let first = message.iter().find(|byte| !byte.is_ascii_whitespace());
        if first != Some(&b'[') {
            return self.dispatch_one(message, claim);
        }
        // A JSON-RPC batch (allowed by 2025-03-26): dispatch each member on its own.
        let members = match serde_json::from_slice::<Vec<&RawValue>>(message) {
            Ok(members) => members,
            Err(error) => {
                self.skip_garbage(message, &error);
                return None;
            }
        };
        let mut claimed = None;
        for member in members {
            let member = Bytes::copy_from_slice(member.get().as_bytes());
            claimed = self.dispatch_one(&member, claim).or(claimed);
        }
        claimed
    }

    fn dispatch_one(
        self: &Arc<Self>,
        message: &Bytes,
        claim: Option<u64>,
    ) -> Option<(Bytes, Pending)> {
        if let Some(id) = plain_response_id(message) {
            return self
                .deliver_response(id, message, claim)
                .map(|pending| (message.clone(), pending));
        }
        let envelope: IncomingEnvelope<'_> = match serde_json::from_slice(message) {
            Ok(envelope) => envelope,
            Err(error) => {
                self.skip_garbage(message, &error);
                return None;
            }
        };
        match (envelope.method.as_deref(), envelope.id) {
            (None, Some(id)) => match envelope.not_a_response() {
                // Skipped, so the real answer that may follow is the one taken.
                Some(why) => self.skip_garbage(message, &why),
                None => {
                    let Ok(id) = id.get().parse::<u64>() else {
                        tracing::warn!(
                            id = id.get(),
                            "ignoring a response to an id this client never used"
                        );
                        return None;
                    };
                    return self
                        .deliver_response(id, message, claim)
                        .map(|pending| (message.clone(), pending));
                }
            },
            (Some(method), Some(id)) => self.answer_server_request(method, id, envelope.params),
            (Some(method), None) => self.route_notification(method, envelope.params),
            (None, None) => self.skip_garbage(message, &"neither a method nor an id"),
        }
        None
    }

    /// A message over the size limit was dropped: the request it answered (if its id was found)
    /// fails; the connection reads on.
    pub(super) fn skipped(&self, id: Option<&str>, limit: usize, size: usize) {
        let pending = id
            .and_then(|id| id.parse::<u64>().ok())
            .and_then(|id| self.lock_state().pending.remove(&id));
        match pending {
            Some(pending) => {
                // Its request's error says so: a warning would say it twice.
                tracing::debug!(server = %self.server, size, limit, "an answer over the size limit was dropped; its request fails");
                let _ = pending
                    .response
                    .send(Err(Unanswered::TooLarge { limit, size }));
            }
            None => {
                tracing::warn!(server = %self.server, size, limit, "a message over the size limit was dropped");
            }
        }
    }

    /// Sends a response to its request, or gives that request's entry back when it is `claim`.
    fn deliver_response(&self, id: u64, message: &Bytes, claim: Option<u64>) -> Option<Pending> {
        let pending = self.lock_state().pending.remove(&id);
        match pending {
            Some(pending) if claim == Some(id) => return Some(pending),
            Some(pending) => {
                let _ = pending.response.send(Ok(message.clone()));
            }
            None => tracing::debug!(id, "ignoring a late response to a finished request"),
        }
        None
    }

    fn answer_server_request(
        self: &Arc<Self>,
        method: &str,
        id: &RawValue,
        params: Option<&RawValue>,
    ) {
        tracing::debug!(method, id = id.get(), "server request");
        let message = match method {
            methods::PING => respond(id, Ok(EmptyResult {})),
            methods::ROOTS_LIST => match self.current_roots() {
                Some(roots) => respond(id, Ok(ListRootsResult { roots })),
                None => method_not_found(id, method),
            },
            methods::ELICITATION_CREATE => match self.elicitation.clone() {
                Some(handler) => {
                    return self.answer_later(id, params, move |server, request| async move {
                        handler.elicit(&server, request).await
                    });
                }
                None => method_not_found(id, method),
            },
            methods::SAMPLING_CREATE_MESSAGE => match self.sampling.clone() {
                Some(handler) => {
                    return self.answer_later(id, params, move |server, request| async move {
                        handler.create_message(&server, request).await
                    });
                }
                None => method_not_found(id, method),
            },
            _ => method_not_found(id, method),
        };
        match message {
            Ok(message) => self.enqueue(message),
            Err(error) => tracing::warn!(%error, method, "could not answer a server request"),
        }
    }

    /// The roots answered to `roots/list` now; `None` when the client declared none.
    fn current_roots(&self) -> Option<Vec<Root>> {
        self.roots
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The answer to an input request of a multi round-trip request (see [`Peer::fulfil`]).
    pub(super) async fn fulfil(
        &self,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<Value, ErrorObject> {
        fn parse<T: DeserializeOwned>(params: Option<&RawValue>) -> Result<T, ErrorObject> {
            serde_json::from_str(params.map_or("null", RawValue::get)).map_err(|error| {
                ErrorObject::new(
                    error_codes::INVALID_PARAMS,
                    format!("Invalid params: {error}"),
                )
            })
        }
        fn value<T: Serialize>(answer: T) -> Result<Value, ErrorObject> {
            serde_json::to_value(answer)
                .map_err(|error| ErrorObject::new(error_codes::INTERNAL_ERROR, error.to_string()))
        }
        let not_found = || {
            ErrorObject::new(
                error_codes::METHOD_NOT_FOUND,
                format!("this client does not answer {method}"),
            )
        };
        match method {
            methods::ROOTS_LIST => value(ListRootsResult {
                roots: self.current_roots().ok_or_else(not_found)?,
            }),
            methods::ELICITATION_CREATE => {
                let handler = self.elicitation.clone().ok_or_else(not_found)?;
                value(handler.elicit(&self.server, parse(params)?).await?)
            }
            methods::SAMPLING_CREATE_MESSAGE => {
                let handler = self.sampling.clone().ok_or_else(not_found)?;
                value(handler.create_message(&self.server, parse(params)?).await?)
            }
            _ => Err(not_found()),
        }
    }

    /// Answers a server request from a task of its own (a handler may wait on the user), which
    /// ends without answering if the connection closes first.
    fn answer_later<Req, Res, Call, Answer>(
        self: &Arc<Self>,
        id: &RawValue,
        params: Option<&RawValue>,
        call: Call,
    ) where
        Req: DeserializeOwned + Send + 'static,
        Res: Serialize + Send + 'static,
        Call: FnOnce(Arc<str>, Req) -> Answer + Send + 'static,
        Answer: Future<Output = Result<Res, ErrorObject>> + Send + 'static,
    {
        let id = id.to_owned();
        let request = match serde_json::from_str::<Req>(params.map_or("null", RawValue::get)) {
            Ok(request) => request,
            Err(error) => {
                let invalid = ErrorObject::new(
                    error_codes::INVALID_PARAMS,
                    format!("Invalid params: {error}"),
                );
                match respond::<EmptyResult>(&id, Err(invalid)) {
                    Ok(message) => self.enqueue(message),
                    Err(error) => tracing::warn!(%error, "could not answer a server request"),
                }
                return;
            }
        };
        let shared = Arc::clone(self);
        let mut closed = self.closed.subscribe();
        tokio::spawn(
            async move {
                let answer = tokio::select! {
                    answer = call(Arc::clone(&shared.server), request) => answer,
                    _ = closed.wait_for(Option::is_some) => return,
                };
                match respond(&id, answer) {
                    Ok(message) => shared.enqueue(message),
                    Err(error) => tracing::warn!(%error, "could not answer a server request"),
                }
            }
            .in_current_span(),
        );
    }

    fn route_notification(&self, method: &str, params: Option<&RawValue>) {
        match method {
            methods::PROGRESS => {
                let Some(progress) = params.and_then(|params| {
                    serde_json::from_str::<ProgressNotificationParams>(params.get()).ok()
                }) else {
                    tracing::warn!("ignoring a malformed progress notification");
                    return;
                };
                let ProgressToken::Number(token) = progress.progress_token else {
                    return;
                };
                let Ok(id) = u64::try_from(token) else { return };
                let callback = {
                    let mut state = self.lock_state();
                    let Some(Pending {
                        progress: Some(route),
                        deadline,
                        ..
                    }) = state.pending.get_mut(&id)
                    else {
                        return;
                    };
                    if let Some(deadlines) = &route.restart {
                        *deadline = deadlines.next(Instant::now());
                    }
                    Arc::clone(&route.callback)
                };
                // The caller's code, on the connection's reader: its panic must not end reading.
                super::hand_progress(&self.server, &callback, progress);
            }
            methods::CANCELLED => {
                tracing::debug!("the server cancelled one of its own requests");
            }
            methods::MESSAGE => {
                log_server_message(&self.server, params, &self.secrets);
                self.publish(method, params);
            }
            _ => {
                tracing::debug!(method, "server notification");
                self.publish(method, params);
            }
        }
    }

    /// Hands a notification to the client's subscribers, if there are any.
    fn publish(&self, method: &str, params: Option<&RawValue>) {
        let Some(notifications) = self
            .notifications
            .get()
            .filter(|sender| sender.receiver_count() > 0)
        else {
            return;
        };
        let params = params.and_then(|params| serde_json::from_str(params.get()).ok());
        let _ = notifications.send(ServerNotification {
            method: method.to_owned(),
            params,
        });
    }
}

/// The longest server log line passed on to `tracing`.
const LOG_LINE_CHARS: usize = 2000;

/// A server's `notifications/message` as a `tracing` event at the matching level, tagged with
/// the server and its logger (RFC 5424 levels: notice counts as info, critical and worse as
/// error).
fn log_server_message(server: &str, params: Option<&RawValue>, secrets: &Secrets) {
    #[derive(serde::Deserialize)]
    struct LogMessage<'a> {
        #[serde(borrow)]
        level: std::borrow::Cow<'a, str>,
        #[serde(default, borrow)]
        logger: Option<std::borrow::Cow<'a, str>>,
        #[serde(borrow)]
        data: &'a RawValue,
    }
    let Some(message) =
        params.and_then(|params| serde_json::from_str::<LogMessage<'_>>(params.get()).ok())
    else {
        tracing::debug!(server, "ignoring a malformed log message");
        return;
    };
    // A string is shown as its text, anything else as its JSON.
    let data = serde_json::from_str::<String>(message.data.get())
        .unwrap_or_else(|_| message.data.get().to_owned());
    let data = secrets.scrub(&data).into_owned();
    let text: String = match data.char_indices().nth(LOG_LINE_CHARS) {
        Some((cut, _)) => format!("{}…", &data[..cut]),
        None => data,
    };
    let logger = message.logger.as_deref().unwrap_or("");
    match message.level.as_ref() {
        "debug" => tracing::debug!(target: "mcp_server", server, logger, "{text}"),
        "info" | "notice" => tracing::info!(target: "mcp_server", server, logger, "{text}"),
        "warning" => tracing::warn!(target: "mcp_server", server, logger, "{text}"),
        "error" | "critical" | "alert" | "emergency" => {
            tracing::error!(target: "mcp_server", server, logger, "{text}");
        }
        _ => tracing::info!(target: "mcp_server", server, logger, "{text}"),
    }
}

/// Every string in `value` (object keys too) scrubbed of `secrets`.
fn scrub_strings(value: &mut Value, secrets: &Secrets) {
    match value {
        Value::String(text) => {
            if let Cow::Owned(scrubbed) = secrets.scrub(text) {
                *text = scrubbed;
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| scrub_strings(item, secrets)),
        Value::Object(map) => {
            let entries = std::mem::take(map);
            for (key, mut item) in entries {
                scrub_strings(&mut item, secrets);
                map.insert(secrets.scrub(&key).into_owned(), item);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

fn respond<R: Serialize>(
    id: &RawValue,
    result: Result<R, ErrorObject>,
) -> serde_json::Result<String> {
    let (result, error) = match result {
        Ok(result) => (Some(result), None),
        Err(error) => (None, Some(error)),
    };
    serde_json::to_string(&OutgoingResponse {
        jsonrpc: "2.0",
        id,
        result,
        error,
    })
}

fn method_not_found(id: &RawValue, method: &str) -> serde_json::Result<String> {
    respond::<EmptyResult>(
        id,
        Err(ErrorObject::new(
            error_codes::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
        )),
    )
}

impl Shared {
    /// Skips output that is not a JSON-RPC message. The first such line of a connection is a
    /// warning naming the server, with a preview of the line; the rest are counted (each one a
    /// debug line) and the count is one more warning when the peer is dropped
    /// ([`Shared::report_skipped_output`]): a server that prints its banner or progress on
    /// stdout is one problem, not a warning per line.
    fn skip_garbage(&self, message: &[u8], why: &dyn std::fmt::Display) {
        const PREVIEW: usize = 120;
        let preview = String::from_utf8_lossy(&message[..message.len().min(PREVIEW)]);
        let preview = self.secrets.scrub(&preview).into_owned();
        let seen = self.skipped_lines.fetch_add(1, Ordering::Relaxed) + 1;
        if seen == 1 {
            tracing::warn!(
                server = %self.server,
                line = %preview,
                bytes = message.len(),
                "the server wrote output that is not a JSON-RPC message ({why}); it is skipped, \
                 and further such lines are counted"
            );
        } else {
            tracing::debug!(
                server = %self.server,
                line = %preview,
                bytes = message.len(),
                "skipping output that is not a JSON-RPC message: {why}"
            );
        }
    }

    /// One warning with how many lines [`skip_garbage`](Self::skip_garbage) skipped, when
    /// there were more than the one already reported.
    pub(super) fn report_skipped_output(&self) {
        let skipped = self.skipped_lines.load(Ordering::Relaxed);
        if skipped > 1 {
            tracing::warn!(
                server = %self.server,
                lines = skipped,
                "the server wrote {skipped} lines that were not JSON-RPC messages; they were skipped"
            );
        }
    }
}

pub(super) async fn write_loop(
    shared: Arc<Shared>,
    transport: Arc<dyn Transport>,
    mut outbound: mpsc::UnboundedReceiver<String>,
) {
    let mut batch = Vec::with_capacity(16);
    loop {
        if outbound.recv_many(&mut batch, MAX_WRITE_BATCH).await == 0 {
            return;
        }
        if batch.len() < MAX_WRITE_BATCH {
            // The callers woken by the same read usually queue their next messages right after
            // this one: let them run first, so the burst leaves in one write rather than many.
            tokio::task::yield_now().await;
            while batch.len() < MAX_WRITE_BATCH {
                match outbound.try_recv() {
                    Ok(message) => batch.push(message),
                    Err(_) => break,
                }
            }
        }
        if let Err(error) = transport.send(&batch).await {
            // A dead server usually shows up here first as a broken pipe; the reader will see
            // the exit soon after and report the status and stderr, which say much more.
            let mut closed = shared.closed.subscribe();
            let reader_reported =
                tokio::time::timeout(WRITE_FAILURE_GRACE, closed.wait_for(Option::is_some)).await;
            if !matches!(reader_reported, Ok(Ok(_))) {
                shared.mark_closed(CloseReason::new(error));
            }
            return;
        }
        shared.queued.fetch_sub(batch.len(), Ordering::AcqRel);
        batch.clear();
    }
}

/// Enforces request deadlines: sleeps until the earliest one, or until a request with an
/// earlier deadline arrives.
pub(super) async fn sweep_timeouts(shared: Arc<Shared>) {
    loop {
        match shared.expire_overdue(Instant::now()) {
            Some(deadline) => {
                tokio::select! {
                    () = tokio::time::sleep_until(deadline) => {}
                    () = shared.sweeper_wake.notified() => {}
                }
            }
            None => shared.sweeper_wake.notified().await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::plain_response_id;

    #[test]
    fn only_a_plain_number_id_right_after_the_version_is_read_from_the_bytes() {
        let id = |text: &str| plain_response_id(text.as_bytes());
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":7,"result":{}}"#), Some(7));
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":0,"error":{}}"#), Some(0));
        let max = format!(r#"{{"jsonrpc":"2.0","id":{},"result":1}}"#, u64::MAX);
        assert_eq!(id(&max), Some(u64::MAX));
        // The general path decides these.
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":"7","result":{}}"#), None);
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":07,"result":{}}"#), None);
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":7.5,"result":{}}"#), None);
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":-7,"result":{}}"#), None);
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":18446744073709551616,"result":1}"#),
            None
        );
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#), None);
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":7}"#), None);
        assert_eq!(id(r#"{"jsonrpc": "2.0","id":7,"result":{}}"#), None);
        assert_eq!(id(r#"{"jsonrpc":"1.0","id":7,"result":{}}"#), None);
    }
}
