//! Tasks through the manager (the Tasks extension, see `mcp_transport::McpClient`'s task
//! methods): a task a tool call became is asked about, followed, cancelled or read by its
//! server's name and its id, from any process: the id is all that is needed. A server that
//! offers no tasks is [`ManagerError::NotOffered`](crate::ManagerError::NotOffered), asked
//! nothing.

use mcp_transport::{CallToolResult, JsonObject, RequestOptions, Task};

use crate::catalog::Offer;
use crate::error::ServerError;
use crate::manager::McpManager;

impl McpManager {
    /// The task's current state (`tasks/get`).
    pub async fn get_task(&self, server: &str, task_id: &str) -> Result<Task, ServerError> {
        let client = self.inner.offering(server, Offer::Tasks).await?;
        Ok(client.get_task(task_id).await?)
    }

    /// The result of an ended task, `None` while it runs (a failed task is its error, a
    /// cancelled one says so).
    pub async fn task_result(
        &self,
        server: &str,
        task_id: &str,
    ) -> Result<Option<CallToolResult>, ServerError> {
        let client = self.inner.offering(server, Offer::Tasks).await?;
        Ok(client.task_result(task_id).await?)
    }

    /// Follows the task to its end, as the call that became it would have.
    pub async fn follow_task(
        &self,
        server: &str,
        task_id: &str,
        options: &RequestOptions,
    ) -> Result<CallToolResult, ServerError> {
        let client = self.inner.offering(server, Offer::Tasks).await?;
        Ok(client.follow_task(task_id, options).await?)
    }

    /// Answers the task's input requests by their keys (`tasks/update`, the 2026-07-28 form).
    pub async fn update_task(
        &self,
        server: &str,
        task_id: &str,
        responses: &JsonObject,
    ) -> Result<(), ServerError> {
        let client = self.inner.offering(server, Offer::Tasks).await?;
        Ok(client.update_task(task_id, responses).await?)
    }

    /// Asks the server to cancel the task (`tasks/cancel`); whether it ends `cancelled` is the
    /// server's decision.
    pub async fn cancel_task(&self, server: &str, task_id: &str) -> Result<(), ServerError> {
        let client = self.inner.offering(server, Offer::Tasks).await?;
        Ok(client.cancel_task(task_id).await?)
    }
}
