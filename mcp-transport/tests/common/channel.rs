//! An in-memory transport a plugin author could write: a pair of channels with a scripted
//! server on the other end. It implements the whole [`Transport`] trait: `send`, `receive` and
//! `close`.

use std::sync::PoisonError;
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use mcp_transport::{ClientOptions, McpClient, ProtocolVersion, Transport, TransportError};
use serde_json::{Value, json};
use tokio::sync::{Mutex, mpsc};

use super::guard;

/// The client's end: what it sends goes to `sent`, what it receives comes from `incoming`.
pub struct ChannelTransport {
    /// `None` once closed: the server's end then sees the end of what the client sends.
    sent: std::sync::Mutex<Option<mpsc::UnboundedSender<String>>>,
    incoming: Mutex<mpsc::UnboundedReceiver<Result<Bytes, TransportError>>>,
}

/// The test's end.
pub struct ScriptedServer {
    pub received: mpsc::UnboundedReceiver<String>,
    pub replies: mpsc::UnboundedSender<Result<Bytes, TransportError>>,
}

impl ScriptedServer {
    pub async fn next(&mut self) -> Value {
        let line = guard(self.received.recv()).await.expect("a message");
        serde_json::from_str(&line).expect("JSON")
    }

    pub fn reply(&self, message: &Value) {
        self.replies
            .send(Ok(Bytes::from(message.to_string())))
            .expect("client alive");
    }
}

pub fn pair() -> (Box<dyn Transport>, ScriptedServer) {
    let (sent, received) = mpsc::unbounded_channel();
    let (replies, incoming) = mpsc::unbounded_channel();
    let transport = ChannelTransport {
        sent: std::sync::Mutex::new(Some(sent)),
        incoming: Mutex::new(incoming),
    };
    (Box::new(transport), ScriptedServer { received, replies })
}

/// A client of the handshake era connected to a scripted server.
pub async fn connected() -> (McpClient, ScriptedServer) {
    let (client, server, _) = connected_with(json!({"tools": {}})).await;
    (client, server)
}

/// A client of the handshake era connected to a scripted server declaring `capabilities`,
/// and the `initialize` request the client sent.
pub async fn connected_with(capabilities: Value) -> (McpClient, ScriptedServer, Value) {
    let (transport, mut server) = pair();
    let options = ClientOptions::default()
        .protocol_version(ProtocolVersion::V2025_11_25)
        .connect_timeout(Duration::from_secs(10));
    let answer = async {
        let initialize = server.next().await;
        server.reply(
            &json!({"jsonrpc": "2.0", "id": initialize["id"], "result": {
            "protocolVersion": "2025-11-25", "capabilities": capabilities,
            "serverInfo": {"name": "scripted", "version": "1"}}}),
        );
        assert_eq!(server.next().await["method"], "notifications/initialized");
        initialize
    };
    let (client, initialize) =
        guard(async { tokio::join!(McpClient::connect("scripted", transport, options), answer) })
            .await;
    (client.expect("connected"), server, initialize)
}

#[async_trait]
impl Transport for ChannelTransport {
    async fn send(&self, messages: &[String]) -> Result<(), TransportError> {
        let sent = self.sent.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(sent) = sent.as_ref() else {
            return Err(TransportError::ClosedByClient);
        };
        for message in messages {
            // The channel's own error is the source of the transport's.
            sent.send(message.clone()).map_err(TransportError::other)?;
        }
        Ok(())
    }

    async fn receive(&self) -> Result<Bytes, TransportError> {
        match self.incoming.lock().await.recv().await {
            Some(message) => message,
            None => Err(TransportError::ClosedByServer),
        }
    }

    async fn close(&self) -> Result<(), TransportError> {
        self.sent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        Ok(())
    }
}
