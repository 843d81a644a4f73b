//! Resources, prompts and skills through the manager: listing them for one server or for every
//! connected server, reading a resource, getting a prompt (loading a skill is
//! [`crate::skills`]'s). A server that did not declare the capability (or, for skills, the
//! extension) is skipped by the listings of all servers (and answers `None` when asked alone):
//! offering no resources is not a failure.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use mcp_transport::{
    GetPromptResult, McpClient, Prompt, ReadResourceResult, Resource, ResourceTemplate,
    ServerCapabilities,
};
use tokio::task::JoinSet;

use crate::error::{ManagerError, ServerError};
use crate::inner::Inner;
use crate::manager::McpManager;
use crate::server::ServerState;

/// What one server answered when every connected server was asked for a list.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServerListing<T> {
    /// The server's configured name.
    pub server: String,
    /// Its whole list (every page), or why it could not be had.
    pub result: Result<Vec<T>, ServerError>,
}

/// Which capability a request to a server needs (a listing, a skill, a task).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Offer {
    Resources,
    Prompts,
    Tasks,
    #[cfg(feature = "skills")]
    Skills,
}

impl Offer {
    fn offered_by(self, capabilities: &ServerCapabilities) -> bool {
        match self {
            Self::Resources => capabilities.offers_resources(),
            Self::Prompts => capabilities.offers_prompts(),
            Self::Tasks => capabilities.offers_tasks(),
            #[cfg(feature = "skills")]
            Self::Skills => capabilities.offers_skills(),
        }
    }

    fn error(self, server: &str) -> ManagerError {
        ManagerError::NotOffered {
            server: server.to_owned(),
            capability: match self {
                Self::Resources => "resources",
                Self::Prompts => "prompts",
                Self::Tasks => "tasks",
                #[cfg(feature = "skills")]
                Self::Skills => "skills",
            },
        }
    }
}

impl McpManager {
    /// Every resource of `server` (all pages), once it is connected (a server still
    /// connecting is waited for); `None` when it does not offer resources.
    pub async fn list_resources(&self, server: &str) -> Result<Option<Vec<Resource>>, ServerError> {
        self.list_of(server, Offer::Resources, |client| async move {
            client.list_resources().await
        })
        .await
    }

    /// Every resource template of `server` (all pages); `None` when it does not offer
    /// resources.
    pub async fn list_resource_templates(
        &self,
        server: &str,
    ) -> Result<Option<Vec<ResourceTemplate>>, ServerError> {
        self.list_of(server, Offer::Resources, |client| async move {
            client.list_resource_templates().await
        })
        .await
    }

    /// Every prompt of `server` (all pages); `None` when it does not offer prompts.
    pub async fn list_prompts(&self, server: &str) -> Result<Option<Vec<Prompt>>, ServerError> {
        self.list_of(server, Offer::Prompts, |client| async move {
            client.list_prompts().await
        })
        .await
    }

    /// The resources of every connected server that offers them, sorted by server; servers
    /// without the capability are left out, and servers still connecting are not waited for.
    /// A server served on demand (connected, its connection not made yet) is connected for it.
    pub async fn all_resources(&self) -> Vec<ServerListing<Resource>> {
        self.all_of(Offer::Resources, |client| async move {
            client.list_resources().await
        })
        .await
    }

    /// The resource templates of every connected server that offers resources.
    pub async fn all_resource_templates(&self) -> Vec<ServerListing<ResourceTemplate>> {
        self.all_of(Offer::Resources, |client| async move {
            client.list_resource_templates().await
        })
        .await
    }

    /// The prompts of every connected server that offers them.
    pub async fn all_prompts(&self) -> Vec<ServerListing<Prompt>> {
        self.all_of(Offer::Prompts, |client| async move {
            client.list_prompts().await
        })
        .await
    }

    /// Reads a resource of `server` (a listed URI, or one a template expands to). A server that
    /// does not offer resources is [`ManagerError::NotOffered`].
    pub async fn read_resource(
        &self,
        server: &str,
        uri: &str,
    ) -> Result<ReadResourceResult, ServerError> {
        let client = self.inner.offering(server, Offer::Resources).await?;
        Ok(client.read_resource(uri).await?)
    }

    /// Gets prompt `name` of `server` with its (string) arguments. A server that does not offer
    /// prompts is [`ManagerError::NotOffered`].
    pub async fn get_prompt(
        &self,
        server: &str,
        name: &str,
        arguments: BTreeMap<String, String>,
    ) -> Result<GetPromptResult, ServerError> {
        let client = self.inner.offering(server, Offer::Prompts).await?;
        Ok(client.get_prompt(name, arguments).await?)
    }

    /// Every skill of `server` (all pages), once it is connected; `None` when it does not
    /// offer skills. No file of any skill is read.
    #[cfg(feature = "skills")]
    pub async fn list_skills(
        &self,
        server: &str,
    ) -> Result<Option<Vec<mcp_transport::SkillEntry>>, ServerError> {
        self.list_of(server, Offer::Skills, |client| async move {
            client.list_skills().await
        })
        .await
    }

    /// The skills of every connected server that offers them, sorted by server.
    #[cfg(feature = "skills")]
    pub async fn all_skills(&self) -> Vec<ServerListing<mcp_transport::SkillEntry>> {
        self.all_of(
            Offer::Skills,
            |client| async move { client.list_skills().await },
        )
        .await
    }

    /// The servers served on demand whose connection is not made yet.
    fn on_demand_servers(&self) -> Vec<String> {
        let state = self.inner.lock();
        state
            .servers
            .iter()
            .filter(|(_, record)| matches!(record.state, ServerState::OnDemand { .. }))
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// Every live connection, by server name.
    fn connected_clients(&self) -> Vec<(String, Arc<McpClient>)> {
        let state = self.inner.lock();
        state
            .servers
            .iter()
            .filter_map(|(name, record)| Some((name.clone(), Arc::clone(record.state.client()?))))
            .collect()
    }

    async fn list_of<T, F, Fut>(
        &self,
        server: &str,
        offer: Offer,
        list: F,
    ) -> Result<Option<Vec<T>>, ServerError>
    where
        F: FnOnce(Arc<McpClient>) -> Fut,
        Fut: Future<Output = Result<Vec<T>, mcp_transport::Error>>,
    {
        let client = self.wait_for_connection(server).await?;
        if !offer.offered_by(client.capabilities()) {
            return Ok(None);
        }
        Ok(Some(list(client).await?))
    }

    async fn all_of<T, F, Fut>(&self, offer: Offer, list: F) -> Vec<ServerListing<T>>
    where
        T: Send + 'static,
        F: Fn(Arc<McpClient>) -> Fut,
        Fut: Future<Output = Result<Vec<T>, mcp_transport::Error>> + Send + 'static,
    {
        let mut asking = JoinSet::new();
        // Servers served on demand count as connected: their lists are needed now, so their
        // connections are made (one that fails is told like a listing that failed).
        let mut connecting = JoinSet::new();
        for server in self.on_demand_servers() {
            let inner = Arc::clone(&self.inner);
            connecting.spawn(async move {
                let connected = inner.wait(&server).await;
                (server, connected)
            });
        }
        while let Some(joined) = connecting.join_next().await {
            if let Ok((server, Err(error))) = joined {
                asking.spawn(async move {
                    ServerListing {
                        result: Err(error),
                        server,
                    }
                });
            }
        }
        for (server, client) in self.connected_clients() {
            if offer.offered_by(client.capabilities()) {
                let listing = list(client);
                asking.spawn(async move {
                    ServerListing {
                        result: listing.await.map_err(ServerError::new),
                        server,
                    }
                });
            }
        }
        let mut listings = Vec::new();
        while let Some(joined) = asking.join_next().await {
            match joined {
                Ok(listing) => listings.push(listing),
                Err(error) => tracing::warn!(%error, "a listing task failed"),
            }
        }
        listings.sort_by(|a, b| a.server.cmp(&b.server));
        listings
    }
}

impl Inner {
    /// The connection of `server` once it is made, if it offers `offer`.
    pub(crate) async fn offering(
        &self,
        server: &str,
        offer: Offer,
    ) -> Result<Arc<McpClient>, ServerError> {
        let client = self.wait(server).await?;
        if offer.offered_by(client.capabilities()) {
            Ok(client)
        } else {
            Err(ServerError::new(offer.error(server)))
        }
    }
}
