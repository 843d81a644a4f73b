//! Connecting to a stdio server: the client starts it as a child process and speaks to it
//! over its stdin and stdout.

use tokio::time::Instant;

use super::McpClient;
use super::handshake::Probe;
use super::options::ClientOptions;
use crate::error::Error;
use crate::fast_path::Link;
use crate::stdio::{StdioServerParams, StdioTransport};

impl McpClient {
    /// Starts a stdio server and performs the handshake, all within the connect timeout.
    /// On any failure the server process is stopped before this returns.
    pub async fn connect_stdio(
        server: &str,
        params: StdioServerParams,
        options: ClientOptions,
    ) -> Result<Self, Error> {
        let deadline = Instant::now() + options.connect_timeout;
        let secrets = params.secrets.clone();
        let transport = StdioTransport::spawn(server, params).map_err(|source| Error::Start {
            server: server.to_owned(),
            source,
        })?;
        Self::handshake(
            server,
            Link::with_fast_path(transport),
            options,
            secrets,
            deadline,
            Probe::Quick,
        )
        .await
    }
}
