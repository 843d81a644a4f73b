//! The session's life: replacing one the server let expire (initialize again, once, however
//! many requests found it gone) and ending it with a DELETE on close.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use reqwest::Method;

use super::{Answer, Failure, INITIALIZE, INITIALIZED, Shared, lock};
use crate::http::RequestTarget;
use crate::http::authorization::{DPOP, add_header_secret};
use crate::http::failure::display_url;
use crate::transport::{ProtocolViolation, TransportError};

/// How long the DELETE that ends a session may take.
const DELETE_TIMEOUT: Duration = Duration::from_secs(2);

impl Shared {
    /// Replaces the session when `failure` says it expired, once per message and never for the
    /// handshake's own messages; true when the message should be sent again in the new session.
    pub(super) async fn renew_expired(
        self: &Arc<Self>,
        failure: &Failure,
        generation: Option<u64>,
        renewed: &mut bool,
        method: &str,
    ) -> Result<bool, TransportError> {
        let Some(generation) = generation.filter(|_| failure.session_expired()) else {
            return Ok(false);
        };
        if *renewed || method == INITIALIZE || method == INITIALIZED {
            return Ok(false);
        }
        *renewed = true;
        // In a task of its own: the request that found the session gone may be dropped (its
        // caller cancelled, timed out) while the new session is being made, which must not be
        // left half done for every other request.
        match tokio::spawn(Arc::clone(self).replace_session(generation)).await {
            Ok(replaced) => replaced?,
            Err(failed) if failed.is_panic() => std::panic::resume_unwind(failed.into_panic()),
            // Cancelled: the runtime is shutting down.
            Err(_) => return Err(TransportError::ClosedByClient),
        }
        Ok(true)
    }

    /// [`reinitialize`](Self::reinitialize), boxed as a future the type system is told is
    /// `Send`: it cannot see that through the cycle reinitialize → exchange → renew_expired.
    pub(super) fn replace_session(
        self: Arc<Self>,
        expired: u64,
    ) -> Pin<Box<dyn Future<Output = Result<(), TransportError>> + Send>> {
        Box::pin(async move { self.reinitialize(expired).await })
    }

    /// Replaces an expired session: the initialize request and `notifications/initialized`
    /// again, once, however many requests found the session gone.
    pub(super) async fn reinitialize(self: &Arc<Self>, expired: u64) -> Result<(), TransportError> {
        let _only_one = self.reinitializing.lock().await;
        let initialize = {
            let mut session = lock(&self.session);
            if session.generation != expired {
                return Ok(()); // another request already replaced it
            }
            session.id = None;
            session.protocol_version = None;
            session.replacing = true;
            session.initialize.clone()
        };
        let Some((initialize, id)) = initialize else {
            lock(&self.session).replacing = false;
            return Err(self.violation(INITIALIZE, ProtocolViolation::SessionEndedBeforeInitialize));
        };
        tracing::info!(url = %display_url(&self.url), "the MCP session expired; initializing a new one");
        let replaced = async {
            Box::pin(self.exchange(&initialize, &id, INITIALIZE, Answer::Swallow)).await?;
            let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
            Box::pin(self.post_one_way(initialized, INITIALIZED)).await
        }
        .await;
        {
            let mut session = lock(&self.session);
            session.replacing = false;
            if replaced.is_ok() {
                session.generation += 1;
            }
        }
        replaced?;
        let listening = lock(&self.listener).is_some();
        if listening {
            self.listen().await;
        }
        Ok(())
    }

    /// Ends the session with a DELETE, if there is one (a 405 means the server keeps it).
    pub(super) async fn end_session(&self) {
        let (mut builder, generation) = self.request(Method::DELETE);
        if generation.is_none() {
            return;
        }
        let credentials = match &self.authorizer {
            Some(authorizer) => {
                let target = RequestTarget::new(&Method::DELETE, &self.url);
                tokio::time::timeout(DELETE_TIMEOUT, authorizer.credentials(target))
                    .await
                    .ok()
                    .and_then(Result::ok)
                    .flatten()
            }
            None => None,
        };
        if let Some(credentials) = credentials {
            add_header_secret(&self.secrets, &credentials.authorization);
            builder = builder.header(reqwest::header::AUTHORIZATION, credentials.authorization);
            if let Some(proof) = credentials.dpop {
                builder = builder.header(DPOP, proof);
            }
        }
        match builder.timeout(DELETE_TIMEOUT).send().await {
            Ok(response) => {
                tracing::debug!(status = response.status().as_u16(), "ended the MCP session");
            }
            Err(error) => {
                tracing::debug!(error = %error.without_url(), "could not end the MCP session");
            }
        }
    }
}
