//! The plugin: MCP over a Unix socket, for config entries of `"type": "unix"`.
//!
//! ```json
//! { "mcpServers": { "local": { "type": "unix", "path": "/run/user/1000/mcp.sock" } } }
//! ```
//!
//! mcp-config keeps an entry of a type it does not know with its fields as written
//! (`TransportConfig::Custom`); the manager hands it to the connector registered for its type.
//! A relative `path` is taken from the folder of the file that defines the server. The socket
//! carries newline-delimited JSON-RPC, the framing of stdio, so the transport is
//! `LineTransport` over the socket's two halves: ids, timeouts, cancellation, the handshake
//! and both protocol eras come with `McpClient`.

use std::path::PathBuf;

use async_trait::async_trait;
use mcp_config::TransportConfig;
use mcp_manager::{ConnectRequest, Connector, ManagerError};
use mcp_transport::{LineTransport, McpClient};
use tokio::net::UnixStream;

/// Connects `"type": "unix"` entries. Register it with
/// `ManagerOptions::default().connector("unix", Arc::new(UnixSocketConnector))`.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct UnixSocketConnector;

#[async_trait]
impl Connector for UnixSocketConnector {
    async fn connect(&self, request: ConnectRequest<'_>) -> Result<McpClient, ManagerError> {
        let TransportConfig::Custom(entry) = request.resolved().transport() else {
            return Err(request.unclaimed());
        };
        let Some(path) = entry.fields.get("path").and_then(|path| path.as_str()) else {
            return Err(request.plugin_error("the entry names no socket: add \"path\""));
        };
        let mut path = PathBuf::from(path);
        if path.is_relative()
            && let Some(folder) = request.source().and_then(|source| source.path.parent())
        {
            path = folder.join(path);
        }
        let stream = UnixStream::connect(&path).await.map_err(|error| {
            request.plugin_error(format!("cannot connect to {}: {error}", path.display()))
        })?;
        let (read, write) = stream.into_split();
        let transport =
            LineTransport::new(read, write).max_message_bytes(request.max_message_bytes());
        let client = McpClient::connect(
            request.name(),
            Box::new(transport),
            request.client_options(),
        )
        .await?;
        Ok(client)
    }
}
