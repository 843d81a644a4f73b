//! The `mcpServers` entry most tools write (`command`, `args`, `env`, `url`, `headers`,
//! `disabled`), read for Kiro, Junie, Warp, LM Studio and Amp.

use std::path::PathBuf;

use serde_json::Value;

use super::editor::editor_entry;
use super::files::{load_servers, relative};
use crate::context::DiscoveryContext;
use crate::origin::Level;
use crate::problems::EntryProblem;
use crate::server_config::ServerConfig;
use crate::source::{SourceFile, parse_jsonc};

/// How an `mcpServers` entry of the common shape (`command`, `args`, `env`, `url`, `headers`,
/// `disabled`) is read for a tool that writes it: Kiro, Junie, Warp, LM Studio.
#[derive(Clone, Copy)]
pub(super) struct CommonShape {
    /// The tool, for a placeholder it does not support.
    pub(super) tool: &'static str,
}

impl CommonShape {
    /// Reads `paths` (each a JSON file, comments tolerated, with `mcpServers`), the missing ones
    /// left out.
    pub(super) fn load(
        self,
        ctx: &DiscoveryContext,
        paths: Vec<(PathBuf, Level)>,
    ) -> Vec<SourceFile> {
        load_servers(paths, parse_jsonc, "mcpServers", |entry| {
            self.convert(entry, ctx)
        })
    }

    /// Reads `relative` (`/`-separated) at the project root (the repository root, else the
    /// working folder) and in the user's home.
    pub(super) fn at_project_root_and_home(
        self,
        ctx: &DiscoveryContext,
        relative_path: &str,
    ) -> Vec<SourceFile> {
        let relative_path = relative(relative_path);
        let paths = vec![
            (ctx.project_root().join(&relative_path), Level::Project),
            (ctx.home.join(&relative_path), Level::User),
        ];
        self.load(ctx, paths)
    }

    /// One entry: `disabled: true` → `enabled: false`; a `url` without `type` → `http`
    /// (Streamable HTTP, falling back to legacy SSE); an
    /// `oauth: {clientId, …}` object → OAuth settings with that client; `${env:VAR}` and the
    /// editor variables translated, a `${file:…}` value refused; every other key
    /// (`disabledTools` — our filter's own name —, `autoApprove`, …) kept as written.
    pub(super) fn convert(
        self,
        entry: &Value,
        ctx: &DiscoveryContext,
    ) -> Result<ServerConfig, EntryProblem> {
        let Some(object) = entry.as_object() else {
            return Err(EntryProblem::NotAnObject);
        };
        let mut object = object.clone();
        if object.contains_key("url") && !object.contains_key("type") {
            object.insert("type".to_owned(), Value::from("http"));
        }
        if let Some(Value::Object(oauth)) = object.get("oauth")
            && !object.contains_key("auth")
        {
            let mut auth = oauth.clone();
            auth.insert("type".to_owned(), Value::from("oauth"));
            object.remove("oauth");
            object.insert("auth".to_owned(), Value::Object(auth));
        }
        editor_entry(object, ctx, Some(self.tool))
    }
}
