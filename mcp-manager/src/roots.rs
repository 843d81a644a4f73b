//! Which roots each server is told of: whether the client declares the `roots` capability to
//! it, and what its `roots/list` is answered with.
//!
//! For each server:
//! 1. its own `roots` setting wins: `false` declares nothing; a list of folders (a relative one
//!    taken from the folder of the file that defines the server) is its answer, and stays its
//!    answer when the agent's roots change (`McpManager::set_roots` passes it by);
//! 2. otherwise the agent's roots: the `roots` of [`ManagerOptions::client`], replaced by
//!    [`McpManager::set_roots`](crate::McpManager::set_roots). `None`, the default, declares nothing.
//!
//! Why no roots unless someone names folders: roots narrow what some servers do.
//! `@modelcontextprotocol/server-filesystem` replaces the folders of its command line with the
//! client's roots as soon as it learns of them (its README, "Roots Protocol Handling";
//! modelcontextprotocol/servers#3602 and #3929 report it), so a client that offers its working
//! folder turns `server-filesystem /data` into a server that refuses `/data`. The major clients
//! differ: Claude Code declares roots and answers with its working folder alone, which is that
//! very failure (anthropics/claude-code#42643); VS Code declares roots and answers with the
//! workspace folders the user opened (`mcpServerRequestHandler.ts` and `mcpServer.ts` under
//! `src/vs/workbench/contrib/mcp/common` in microsoft/vscode); Codex declares none (`roots:
//! None` in the `ClientCapabilities` of `codex-rs/core/src/mcp_connection_manager.rs` in
//! openai/codex). A command line's working folder is where a command happens to run, not a
//! workspace the user chose, so this runtime does as Codex does: a server hears of folders only
//! when the user names them, in its `roots` or the agent's (the CLI's `--root DIR`).
//!
//! [`ManagerOptions::client`]: crate::ManagerOptions::client

use std::path::{Path, PathBuf};

use mcp_config::RootsSetting;
use mcp_transport::Root;

/// The roots a server is told of: its own `setting` (relative folders from `base`), or the
/// agent's when it has none; `None` declares no roots.
pub(crate) fn roots_for(
    setting: Option<RootsSetting>,
    agent: Option<Vec<Root>>,
    base: &Path,
) -> Option<Vec<Root>> {
    match setting.map(|setting| setting.resolve(base)) {
        None => agent,
        Some(RootsSetting::Off) => None,
        Some(RootsSetting::Folders(folders)) => Some(
            folders
                .iter()
                .map(PathBuf::as_path)
                .map(Root::from_path)
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folders(paths: &[&str]) -> Option<RootsSetting> {
        Some(RootsSetting::Folders(
            paths.iter().map(PathBuf::from).collect(),
        ))
    }

    fn uris(roots: Option<Vec<Root>>) -> Option<Vec<String>> {
        roots.map(|roots| roots.into_iter().map(|root| root.uri).collect())
    }

    #[test]
    fn a_server_without_a_setting_gets_the_agents_roots_or_none() {
        let base = Path::new("/project");
        assert_eq!(roots_for(None, None, base), None);
        let agent = vec![Root::from_path(Path::new("/work"))];
        assert_eq!(
            uris(roots_for(None, Some(agent), base)),
            Some(vec!["file:///work".to_owned()])
        );
    }

    #[test]
    fn a_servers_own_setting_wins_over_the_agents_roots() {
        let base = Path::new("/home/me/project");
        let agent = || Some(vec![Root::from_path(Path::new("/work"))]);
        assert_eq!(roots_for(Some(RootsSetting::Off), agent(), base), None);
        assert_eq!(
            uris(roots_for(
                folders(&["/data", ".", "../notes"]),
                agent(),
                base
            )),
            Some(vec![
                "file:///data".to_owned(),
                "file:///home/me/project".to_owned(),
                "file:///home/me/notes".to_owned(),
            ])
        );
        assert_eq!(
            roots_for(folders(&[]), agent(), base),
            Some(Vec::new()),
            "an empty list is an answer of its own, not the agent's"
        );
    }
}
