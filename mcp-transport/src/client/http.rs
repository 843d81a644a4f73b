//! Connecting to a remote server: Streamable HTTP, legacy HTTP+SSE, or the first of them the
//! server takes ([`RemoteTransport::Auto`]); and, over Streamable HTTP with a stateless server,
//! the headers its tools designate for their calls.

use tokio::time::Instant;

use super::McpClient;
use super::handshake::Probe;
use super::options::ClientOptions;
use crate::error::Error;
use crate::fast_path::Link;
use crate::http::{
    HttpServerParams, LegacySseTransport, RemoteTransport, StreamableHttpTransport, ToolHeaders,
};
use crate::protocol::Tool;

impl McpClient {
    /// Connects to a remote server and performs the handshake, all within the connect timeout.
    ///
    /// [`RemoteTransport::Auto`] tries Streamable HTTP first and falls back to legacy HTTP+SSE
    /// when the server refuses the initialize POST with 400, 404 or 405.
    pub async fn connect_http(
        server: &str,
        params: HttpServerParams,
        options: ClientOptions,
    ) -> Result<Self, Error> {
        let deadline = Instant::now() + options.connect_timeout;
        match params.transport {
            RemoteTransport::Sse => {
                Self::connect_legacy_sse(server, &params, options, deadline).await
            }
            RemoteTransport::StreamableHttp => {
                Self::connect_streamable_http(server, &params, options, deadline).await
            }
            RemoteTransport::Auto => {
                match Self::connect_streamable_http(server, &params, options.clone(), deadline)
                    .await
                {
                    Err(error) if error.suggests_legacy_sse() => {
                        tracing::debug!(
                            server,
                            %error,
                            "Streamable HTTP refused; trying the legacy HTTP+SSE transport"
                        );
                        match Self::connect_legacy_sse(server, &params, options, deadline).await {
                            // Neither transport: the Streamable HTTP refusal is what to show
                            // (the fallback's "drop -t sse" advice is for a server given as sse).
                            Err(legacy) if legacy.is_not_legacy_sse() => {
                                tracing::debug!(server, %legacy, "legacy HTTP+SSE refused too");
                                Err(error)
                            }
                            legacy => legacy,
                        }
                    }
                    connected => connected,
                }
            }
        }
    }

    async fn connect_streamable_http(
        server: &str,
        params: &HttpServerParams,
        options: ClientOptions,
        deadline: Instant,
    ) -> Result<Self, Error> {
        let transport = StreamableHttpTransport::new(params).map_err(|source| Error::Start {
            server: server.to_owned(),
            source,
        })?;
        let tool_headers = transport.tool_headers();
        let secrets = params.secrets.clone();
        let mut client = Self::handshake(
            server,
            Link::with_fast_path(transport),
            options,
            secrets,
            deadline,
            Probe::Patient,
        )
        .await?;
        client.tool_headers = Some(tool_headers);
        Ok(client)
    }

    async fn connect_legacy_sse(
        server: &str,
        params: &HttpServerParams,
        options: ClientOptions,
        deadline: Instant,
    ) -> Result<Self, Error> {
        let transport =
            match tokio::time::timeout_at(deadline, LegacySseTransport::connect(params)).await {
                Err(_) => {
                    return Err(Error::ConnectTimeout {
                        server: server.to_owned(),
                        after: options.connect_timeout,
                    });
                }
                Ok(transport) => transport.map_err(|source| Error::Start {
                    server: server.to_owned(),
                    source,
                })?,
            };
        let secrets = params.secrets.clone();
        Self::handshake(
            server,
            Link::plain(Box::new(transport)),
            options,
            secrets,
            deadline,
            Probe::Skip,
        )
        .await
    }

    /// Records the headers `tools` designate and leaves out the tools whose designations are
    /// invalid.
    pub(super) fn keep_tool_headers(
        &self,
        registry: &ToolHeaders,
        mut tools: Vec<Tool>,
    ) -> Vec<Tool> {
        const DESIGNATION: &str = "x-mcp-header";
        let mut designated = Vec::new();
        tools.retain(|tool| {
            let schema = &tool.input_schema;
            if schema
                .json_text()
                .is_some_and(|text| !text.contains(DESIGNATION))
            {
                return true;
            }
            match crate::http::headers::designations(schema.as_object()) {
                Ok(designations) => {
                    designated.push((tool.name.clone(), designations));
                    true
                }
                Err(why) => {
                    tracing::warn!(
                        server = %self.server,
                        tool = %tool.name,
                        "the tool is left out of the list: its input schema designates headers \
                         against the protocol's rules: {why}"
                    );
                    false
                }
            }
        });
        registry.replace(designated);
        tools
    }
}
