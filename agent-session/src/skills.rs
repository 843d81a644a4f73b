//! Skills through the session (feature `skills`): what an agent tells its model of the skills
//! its servers offer, and how the model loads one (the Skills extension, SEP-2640).
//!
//! The model is first told each skill's name and description and nothing more
//! ([`AgentSession::skill_index`], for its instructions): they come from the listing the manager
//! holds for each server — the one it gave when it connected, or the tool cache's while it is
//! still connecting — so no request is sent and no file of any skill is read for them. When the
//! model wants a skill it loads it through [`AgentSession::skill_tool`] (`mcp_load_skill`),
//! or the agent does with [`AgentSession::load_skill`]: then, and only then, `SKILL.md` and the
//! files its server lists are read, each checked against the server's listing (size, SHA-256,
//! and `SKILL.md`'s frontmatter field by field). A file that fails a check is refused with an
//! error naming the skill, the file and what differed, and nothing of it is handed out; a file
//! the listing does not name is never read.
//!
//! ```no_run
//! use agent_session::{SessionOptions, create_agent_session};
//!
//! # async fn run() {
//! let cwd = std::env::current_dir().unwrap_or_default();
//! let session = create_agent_session(SessionOptions::new("my-agent", cwd)).await.session;
//! let index = session.skill_index();
//! let mut tools = session.tools();
//! if !index.is_empty() {
//!     // In the model's instructions: which skills there are, and how to load one.
//!     println!("Skills (load one with mcp_load_skill before following it):\n{index}");
//!     tools.push(session.skill_tool());
//! }
//! session.shutdown().await;
//! # }
//! ```

use std::sync::Arc;

use mcp_bridge::AgentTool;
use mcp_bridge::skills::{LoadSkillTool, ServerSkills, skill_index};
use mcp_transport::{LoadedSkill, SkillContent};

use crate::error::SessionError;
use crate::session::AgentSession;

impl AgentSession {
    /// The skills each server offers now, by server (servers without skills left out): their
    /// names, descriptions and listed files, with no request sent and no file read. A server
    /// still connecting offers the listing the tool cache kept for it
    /// ([`ServerSkills::cached`]).
    pub fn skills(&self) -> Vec<ServerSkills> {
        self.manager().skills()
    }

    /// [`skills`](Self::skills) as lines for a model's instructions, `- server/name:
    /// description` (each one line, whatever the server wrote; see
    /// [`mcp_bridge::skills::skill_index`]); empty when no server offers a skill.
    pub fn skill_index(&self) -> String {
        skill_index(&self.skills())
    }

    /// The tool a model loads a skill with, `mcp_load_skill {server, skill, file?}`
    /// ([`LoadSkillTool`]): an agent that puts [`skill_index`](Self::skill_index) in its
    /// model's instructions offers it beside [`tools`](Self::tools). It loads through this
    /// session's servers and keeps none of them running after the session ends.
    pub fn skill_tool(&self) -> Arc<dyn AgentTool> {
        Arc::new(LoadSkillTool::new(self.manager().skill_provider()))
    }

    /// Loads skill `skill` of `server` (its name as listed, or its URI): `SKILL.md` and every
    /// other listed file, each checked against the server's listing of now. A server still
    /// connecting is waited for.
    pub async fn load_skill(&self, server: &str, skill: &str) -> Result<LoadedSkill, SessionError> {
        Ok(self.manager().load_skill(server, skill).await?)
    }

    /// Reads one file of skill `skill` of `server` — named by its path in the skill
    /// (`references/FORMS.md`) or its URI — checked against the listing; a file the listing
    /// does not name is refused without being read.
    pub async fn read_skill_file(
        &self,
        server: &str,
        skill: &str,
        file: &str,
    ) -> Result<SkillContent, SessionError> {
        Ok(self.manager().read_skill_file(server, skill, file).await?)
    }
}
