//! The way down from a server's configuration to a connected server with its tools listed:
//! wait for a start permit, prepare the configuration (validate, check its `auth` against its
//! source, resolve its `!command` values and stored token — bounded by the command timeout of
//! its own), then within the server's own timeout, which starts only now: connect through the
//! connector of its `type` and list its tools — and, beside them, its skills when it declared
//! the Skills extension (no request goes to a server that did not). A skill listing that fails
//! or is late does not fail the connection: the server keeps the listing it had.
//!
//! The connection is pinned to the protocol version the cache remembers, so that the server's
//! era is not probed again — and made once more without the pin when the server refuses it as
//! a server of the other era would ([`refuses_era`]). A connection made for a server served on
//! demand, in the era remembered and while its list is fresh, does not list the tools again.
//!
//! Nothing here knows the manager's records: [`crate::lifecycle`] calls down into it and
//! records what it returns.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use mcp_cache::{Listing, ToolCache};
use mcp_config::{ServerConfig, SourceMeta};
use mcp_transport::protocol::methods;
use mcp_transport::{
    ClientOptions, McpClient, ProtocolVersion, RpcError, ServerNotification, SkillEntry, Tool,
    TransportError,
};
use tokio::sync::{Semaphore, broadcast};
use tokio::time::Instant;

use crate::connector::{ConnectContext, Prepared};
use crate::error::{ManagerError, ServerError};
use crate::options::ManagerOptions;

/// A server connected and its tools listed; `notifications` was subscribed before listing.
pub(crate) struct Loaded {
    pub(crate) client: Arc<McpClient>,
    /// `None`: not listed, the tools the manager holds being still fresh.
    pub(crate) tools: Option<Vec<Tool>>,
    /// The skills it listed (empty when it does not offer the extension); `None`: not listed
    /// (with the tools still fresh, or the listing failed), the skills held are kept.
    pub(crate) skills: Option<Vec<SkillEntry>>,
    /// How `tools` were listed, with `skills`.
    pub(crate) listing: Listing,
    pub(crate) notifications: broadcast::Receiver<ServerNotification>,
}

/// What a connection is made with beyond the server's configuration.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Plan {
    /// The protocol version the cache remembers: the first attempt is pinned to it (unless the
    /// agent pins one), and made again without the pin when the server refuses it.
    pub(crate) remembered: Option<ProtocolVersion>,
    /// Until when the tools the manager holds are fresh: a connection made before then, in the
    /// era remembered, does not list them again.
    pub(crate) fresh_until: Option<SystemTime>,
}

/// What the manager connects with: its options, its cache, the agent's credentials, and the
/// start permits ([`ManagerOptions::max_parallel_starts`]).
#[derive(Clone, Copy)]
pub(crate) struct Pipeline<'a> {
    pub(crate) options: &'a ManagerOptions,
    pub(crate) cache: &'a dyn ToolCache,
    pub(crate) permits: &'a Semaphore,
}

impl Pipeline<'_> {
    /// Prepare, connect, list tools; the server's timeout bounds the connection and the
    /// listing from when the connection starts.
    pub(crate) async fn connect_and_load(
        &self,
        name: &str,
        config: &ServerConfig,
        source: Option<&SourceMeta>,
        client: ClientOptions,
        plan: Plan,
    ) -> Result<Loaded, ServerError> {
        // At most so many servers start at once: on a small machine a hundred processes
        // spawned together would not finish their handshakes within their timeouts. The
        // permit is held until the tools are listed.
        let _starting = self.permits.acquire().await.ok();
        let context = self.options.connect_context(source);
        // Bounded by the `!command` timeout, not by the server's: a slow command does not use
        // up the time the server has to connect and list its tools.
        let prepared = Prepared::new(name, config, context).await?;
        // The server's timeout bounds the whole connection, tool listing included, from its
        // start (not from when it was queued or resolved): a server the gate awaits (no cache
        // entry) holds the session up no longer than that once it starts.
        let own = Duration::from_millis(config.timeout_ms());
        let connect_timeout = self
            .options
            .connect_timeout_cap
            .map_or(own, |cap| own.min(cap));
        let deadline = Instant::now() + connect_timeout;
        let options = client.connect_timeout(connect_timeout);
        let client = self
            .connect_remembering(
                name,
                config,
                &prepared,
                context,
                options,
                plan.remembered,
                deadline,
            )
            .await?;
        let client = Arc::new(client);
        // Subscribed before listing: a list change from now on is not missed, even one that
        // comes while the list is being cached and the connection registered.
        let notifications = client.subscribe();
        // Served on demand until now, in the era remembered, with the list still fresh.
        let still_fresh = plan
            .fresh_until
            .is_some_and(|until| SystemTime::now() < until)
            && plan.remembered == Some(client.protocol_version());
        if still_fresh {
            return Ok(Loaded {
                listing: listing_of(&client, None),
                client,
                tools: None,
                skills: None,
                notifications,
            });
        }
        // A server without the tools capability (prompts or resources only) has no tools to
        // list: it is connected with none.
        let offers_tools = client.capabilities().tools.is_some();
        let listing = async {
            if offers_tools {
                let list = client.list_tools_with_ttl().await?;
                Ok((list.tools, list.ttl))
            } else {
                Ok((Vec::new(), None))
            }
        };
        let (listed, skills) = tokio::join!(
            tokio::time::timeout_at(deadline, listing),
            skills_of(name, &client, deadline)
        );
        let listed = match listed {
            Ok(listed) => listed,
            Err(_) => Err(mcp_transport::Error::ConnectTimeout {
                server: name.to_owned(),
                after: connect_timeout,
            }),
        };
        match listed {
            Ok((tools, ttl)) => Ok(Loaded {
                listing: listing_of(&client, ttl).with_skills(skills.clone().unwrap_or_default()),
                client,
                tools: Some(offered(config, tools)),
                skills,
                notifications,
            }),
            Err(error) => {
                let _ = client.close().await;
                Err(error.into())
            }
        }
    }

    /// Connects with the protocol version the cache remembers (unless the options pin one), and
    /// once more without it when the server refuses it as a server of the other era would. A
    /// pinned attempt that times out cannot tell: the entry is dropped, so that the next start
    /// probes instead of believing it again.
    #[allow(
        clippy::too_many_arguments,
        reason = "one call site; the pieces are what a connection is made of"
    )]
    async fn connect_remembering(
        &self,
        name: &str,
        config: &ServerConfig,
        prepared: &Prepared,
        context: ConnectContext<'_>,
        options: ClientOptions,
        remembered: Option<ProtocolVersion>,
        deadline: Instant,
    ) -> Result<McpClient, ServerError> {
        let Some(version) = remembered.filter(|_| options.protocol_version.is_none()) else {
            return Ok(prepared.connect(name, config, context, options).await?);
        };
        let pinned = options.clone().protocol_version(version);
        match prepared.connect(name, config, context, pinned).await {
            Err(ManagerError::Client(error)) if refuses_era(&error) => {
                tracing::info!(
                    server = name,
                    remembered = %version,
                    %error,
                    "the server refused the protocol version the cache remembers; probing its era again"
                );
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(ManagerError::Client(error).into());
                }
                let unpinned = options.connect_timeout(left);
                Ok(prepared.connect(name, config, context, unpinned).await?)
            }
            Err(ManagerError::Client(error)) if error.is_timeout() => {
                self.cache.remove(name).await;
                Err(ManagerError::Client(error).into())
            }
            connected => Ok(connected?),
        }
    }
}

/// The skills of `client` (every page), listed by `deadline`: empty without asking when the
/// server did not declare the Skills extension; `None` when the listing failed or was late
/// (told in the log), so the skills held for the server are kept.
#[cfg(feature = "skills")]
async fn skills_of(name: &str, client: &McpClient, deadline: Instant) -> Option<Vec<SkillEntry>> {
    if !client.capabilities().offers_skills() {
        return Some(Vec::new());
    }
    match tokio::time::timeout_at(deadline, client.list_skills()).await {
        Ok(Ok(skills)) => Some(skills),
        Ok(Err(error)) => {
            tracing::warn!(server = name, %error, "listing the server's skills failed");
            None
        }
        Err(_) => {
            tracing::warn!(
                server = name,
                "the server did not list its skills within its timeout"
            );
            None
        }
    }
}

/// Without the `skills` feature no skill is listed.
#[cfg(not(feature = "skills"))]
async fn skills_of(
    _name: &str,
    _client: &McpClient,
    _deadline: Instant,
) -> Option<Vec<SkillEntry>> {
    Some(Vec::new())
}

/// How `client` listed tools just now: its protocol version and, with a ttl, that the list is
/// fresh for so long from now.
pub(crate) fn listing_of(client: &McpClient, ttl: Option<Duration>) -> Listing {
    let listing = Listing::new(client.protocol_version()).with_instructions(client.instructions());
    match ttl {
        Some(ttl) => listing.with_ttl(ttl, SystemTime::now()),
        None => listing,
    }
}

/// The tools of `tools` the server's configuration lets the agent have (`enabledTools`,
/// `disabledTools`): the others are never offered, called or cached.
pub(crate) fn offered(config: &ServerConfig, mut tools: Vec<Tool>) -> Vec<Tool> {
    let filter = config.tool_filter();
    if !filter.allows_all() {
        tools.retain(|tool| filter.allows(&tool.name));
    }
    tools
}

/// Whether `error`, from a connection pinned to the protocol version the cache remembers, is
/// how a server of the other era fails it: it named the versions it speaks, refused the opening
/// request (`initialize`, `server/discover`) with an error, or refused it at the HTTP level (a
/// 4xx other than one asking for a login). Not a timeout, a login, a server that could not be
/// started or that died: connecting again without the pin would fail the same way.
fn refuses_era(error: &mcp_transport::Error) -> bool {
    match error {
        mcp_transport::Error::UnsupportedProtocolVersion { .. } => true,
        mcp_transport::Error::Request {
            operation,
            source: RpcError::Server(_),
            ..
        } => operation == methods::INITIALIZE || operation == methods::SERVER_DISCOVER,
        _ => {
            !error.needs_login()
                && matches!(
                    error.transport_error(),
                    Some(TransportError::HttpStatus {
                        status: 400..=499,
                        ..
                    })
                )
        }
    }
}
