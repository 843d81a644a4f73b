//! Skills (the Skills extension, SEP-2640) through the manager (feature `skills`), disclosed a
//! little at a time:
//!
//! - What each server offers, without a request: [`McpManager::skills`] gives the listing the
//!   manager holds for every server, as it holds its tools — the cache's while the server is
//!   still connecting (or served on demand), the one it listed when it connected (a server
//!   that declared the extension is asked for it beside its tools; no other is), the one it
//!   had while it reconnects, none once it failed. No file of any skill is read for it.
//! - A skill when it is wanted: [`McpManager::load_skill`] finds it by name (or URI) in the
//!   server's listing of now — a URI the listing leaves out is asked for with `skills/get` —
//!   then reads `SKILL.md` and every other file the listing names,
//!   each checked against it ([`McpClient::load_skill`]); [`McpManager::read_skill_file`]
//!   reads one listed file, checked. A file the listing does not name is never read.
//! - For a model: the manager is the [`SkillProvider`] a bridge [`LoadSkillTool`] loads
//!   through ([`McpManager::skill_provider`]).
//!
//! [`LoadSkillTool`]: mcp_bridge::skills::LoadSkillTool

use std::sync::Arc;

use async_trait::async_trait;
use mcp_bridge::ConnectionError;
use mcp_bridge::skills::{ServerSkills, SkillProvider, skill_file_uri};
use mcp_transport::{LoadedSkill, McpClient, SkillContent, SkillEntry};

use crate::catalog::Offer;
use crate::error::{ManagerError, ServerError};
use crate::inner::Inner;
use crate::manager::McpManager;

impl McpManager {
    /// The skills every server offers now, by server, as the manager holds them (see the
    /// module documentation): what an agent tells its model of, with no request sent and no
    /// file read. Servers without skills are left out.
    pub fn skills(&self) -> Vec<ServerSkills> {
        let state = self.inner.lock();
        state
            .servers
            .iter()
            .filter_map(|(server, record)| {
                let (skills, cached) = record.state.skills()?;
                (!skills.is_empty()).then(|| ServerSkills::new(server, skills.to_vec(), cached))
            })
            .collect()
    }

    /// Loads skill `skill` of `server` — named as its frontmatter names it, or by its URI —
    /// every file checked against the server's listing ([`McpClient::load_skill`]). A server
    /// still connecting is waited for.
    pub async fn load_skill(&self, server: &str, skill: &str) -> Result<LoadedSkill, ServerError> {
        self.inner.load_skill(server, skill).await
    }

    /// Reads one file of skill `skill` of `server`, named by its URI or by its path from the
    /// skill's folder (`references/FORMS.md`), checked against the listing; a file the listing
    /// does not name is refused unread.
    pub async fn read_skill_file(
        &self,
        server: &str,
        skill: &str,
        file: &str,
    ) -> Result<SkillContent, ServerError> {
        self.inner.read_skill_file(server, skill, file).await
    }

    /// What a bridge [`LoadSkillTool`](mcp_bridge::skills::LoadSkillTool) loads skills
    /// through: this manager's [`load_skill`](Self::load_skill) and
    /// [`read_skill_file`](Self::read_skill_file). It does not keep the manager's servers
    /// running once the manager is dropped.
    pub fn skill_provider(&self) -> Arc<dyn SkillProvider> {
        Arc::clone(&self.inner) as Arc<dyn SkillProvider>
    }
}

impl Inner {
    async fn load_skill(&self, server: &str, skill: &str) -> Result<LoadedSkill, ServerError> {
        let (client, entry) = self.skill(server, skill).await?;
        Ok(client.load_skill(&entry).await?)
    }

    async fn read_skill_file(
        &self,
        server: &str,
        skill: &str,
        file: &str,
    ) -> Result<SkillContent, ServerError> {
        let (client, entry) = self.skill(server, skill).await?;
        Ok(client
            .read_skill_file(&entry, &skill_file_uri(&entry, file))
            .await?)
    }

    /// The connection of `server` and its listing of `skill` now: by URI or name in its
    /// listing, else by URI with `skills/get` (a skill need not be listed to be served).
    async fn skill(
        &self,
        server: &str,
        skill: &str,
    ) -> Result<(Arc<McpClient>, SkillEntry), ServerError> {
        let client = self.offering(server, Offer::Skills).await?;
        let listed = client.list_skills().await?;
        if let Some(entry) = listed.iter().find(|entry| entry.uri == skill) {
            return Ok((client, entry.clone()));
        }
        let mut named: Vec<&SkillEntry> = listed
            .iter()
            .filter(|entry| entry.name() == skill)
            .collect();
        match named.len() {
            1 => Ok((client, named.remove(0).clone())),
            // A server may leave a skill out of its listing but serves every one by URI.
            0 if skill.contains("://") => {
                let entry = client.get_skill(skill).await?;
                Ok((client, entry))
            }
            0 => Err(ServerError::new(ManagerError::UnknownSkill {
                server: server.to_owned(),
                skill: skill.to_owned(),
                known: listed.iter().map(|entry| entry.name().to_owned()).collect(),
            })),
            _ => Err(ServerError::new(ManagerError::AmbiguousSkill {
                server: server.to_owned(),
                skill: skill.to_owned(),
                uris: named.iter().map(|entry| entry.uri.clone()).collect(),
            })),
        }
    }
}

#[async_trait]
impl SkillProvider for Inner {
    async fn load_skill(&self, server: &str, skill: &str) -> Result<LoadedSkill, ConnectionError> {
        Inner::load_skill(self, server, skill)
            .await
            .map_err(|error| Arc::new(error) as ConnectionError)
    }

    async fn read_skill_file(
        &self,
        server: &str,
        skill: &str,
        file: &str,
    ) -> Result<SkillContent, ConnectionError> {
        Inner::read_skill_file(self, server, skill, file)
            .await
            .map_err(|error| Arc::new(error) as ConnectionError)
    }
}
