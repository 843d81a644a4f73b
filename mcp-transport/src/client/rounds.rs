//! Multi round-trip requests of the stateless revision (see [`stateless`]): a request the
//! server answers with `input_required` is sent again with the input it asked for, gathered
//! with the client's handlers, until its result is complete, or the server makes a task of it
//! (which `tasks` follows).

use tokio::time::Instant;

use super::McpClient;
use crate::peer::{RequestOptions, RpcError};
use crate::stateless::{self, Answer, InputRequired, Reply, WithInput};

impl McpClient {
    /// Sends a request a stateless server may answer with `input_required` (`tools/call`,
    /// `prompts/get`, `resources/read`): the input it asks for is gathered with the client's
    /// handlers and the request sent again under a new id, with the answers and the server's
    /// `requestState` as it was sent, until the result is complete. Each round has the request's
    /// timeout; `max_total_timeout` and cancellation cover all of them. In the handshake era
    /// this is a plain request.
    ///
    /// A task is an answer only to `tools/call` (the one method the Tasks extension lets a
    /// server answer so): [`request_complete`](Self::request_complete) sends the others.
    pub(super) async fn request_rounds<P, R>(
        &self,
        method: &'static str,
        params: &P,
        options: &RequestOptions,
    ) -> Result<Answer<R>, RpcError>
    where
        P: serde::Serialize + Sync,
        R: serde::de::DeserializeOwned,
    {
        if !self.protocol_version.is_stateless() {
            return self
                .peer
                .request(method, Some(params), options)
                .await
                .map(Answer::Complete);
        }
        let hard_deadline = options.max_total_timeout.map(|max| Instant::now() + max);
        // The first round is the request as it is; the rounds after it, rare, are a future of
        // their own, boxed, so a call that completes at once neither builds nor carries them.
        match stateless::request_reply(&self.peer, method, Some(params), options).await? {
            Reply::Complete(result) => Ok(Answer::Complete(result)),
            Reply::Task(task) => Ok(Answer::Task(task)),
            Reply::InputRequired(first) => {
                Box::pin(self.input_rounds(method, params, options, hard_deadline, first)).await
            }
        }
    }

    /// The rounds of [`request_rounds`](Self::request_rounds) after a first answer asked for
    /// input: the input gathered, the request sent again with it, until the result is complete.
    async fn input_rounds<P, R>(
        &self,
        method: &'static str,
        params: &P,
        options: &RequestOptions,
        hard_deadline: Option<Instant>,
        first: InputRequired,
    ) -> Result<Answer<R>, RpcError>
    where
        P: serde::Serialize + Sync,
        R: serde::de::DeserializeOwned,
    {
        let mut options = options.clone();
        let mut next = first;
        for _ in 0..stateless::MAX_INPUT_ROUNDS {
            let answered = stateless::answer_inputs(&self.peer, &next);
            let responses = match &options.cancel {
                Some(cancel) => tokio::select! {
                    answered = answered => answered,
                    () = cancel.cancelled() => return Err(RpcError::Cancelled),
                },
                None => answered.await,
            }
            .map_err(RpcError::InputNotGiven)?;
            if let Some(deadline) = hard_deadline {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(RpcError::Timeout(
                        options.max_total_timeout.unwrap_or_default(),
                    ));
                }
                options.max_total_timeout = Some(left);
            }
            let round = WithInput {
                params,
                input_responses: responses.as_ref(),
                request_state: next.request_state.as_deref(),
            };
            next =
                match stateless::request_reply(&self.peer, method, Some(&round), &options).await? {
                    Reply::Complete(result) => return Ok(Answer::Complete(result)),
                    Reply::Task(task) => return Ok(Answer::Task(task)),
                    Reply::InputRequired(next) => next,
                };
        }
        Err(RpcError::InvalidResponse(format!(
            "the server asked for input {} times without finishing",
            stateless::MAX_INPUT_ROUNDS + 1
        )))
    }

    /// [`request_rounds`](Self::request_rounds) for a method a task may not answer
    /// (`prompts/get`, `resources/read`): a task is an invalid answer, as the extension says.
    pub(super) async fn request_complete<P, R>(
        &self,
        method: &'static str,
        params: &P,
        options: &RequestOptions,
    ) -> Result<R, RpcError>
    where
        P: serde::Serialize + Sync,
        R: serde::de::DeserializeOwned,
    {
        match self.request_rounds(method, params, options).await? {
            Answer::Complete(result) => Ok(result),
            Answer::Task(task) => Err(RpcError::InvalidResponse(format!(
                "the server answered {method} with a task ({}), which only tools/call may be",
                task.task_id
            ))),
        }
    }
}
