//! Project files found from a subfolder: each tool's files are looked for where that tool looks
//! (the working folder, or every folder up to the repository root), the walk stops at the
//! repository root and never reaches `$HOME`, the nearer file wins where the tool says so, a file
//! a tool would not read from here is a note, and approvals hold per folder from anywhere in the
//! project without a project ever approving itself.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::path::PathBuf;

use common::{needing_approval, temp_root, trusting};
use mcp_config::writer::{set_server_enabled, trust_project_servers, untrust_project_servers};
use mcp_config::{
    Consent, DiscoveryContext, DiscoveryNote, DiscoveryOptions, DiscoveryResult, Level,
    TransportConfig, load_all_configs,
};
use serde_json::{Value, json};

/// A temporary folder holding a home and whatever repositories a test lays out, removed on drop.
struct World {
    root: PathBuf,
}

impl World {
    fn new() -> Self {
        Self {
            root: temp_root("walk", &["home"]),
        }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }

    fn home(&self) -> PathBuf {
        self.path("home")
    }

    fn dir(&self, relative: &str) -> PathBuf {
        let path = self.path(relative);
        std::fs::create_dir_all(&path).unwrap();
        path
    }

    /// Marks `relative` as a repository root with a `.git` folder.
    fn repo(&self, relative: &str) -> PathBuf {
        self.dir(&format!("{relative}/.git"));
        self.path(relative)
    }

    fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.path(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    fn write_json(&self, relative: &str, value: &Value) -> PathBuf {
        self.write(relative, &value.to_string())
    }

    /// A server `name` running `command`, in the `mcpServers` layout.
    fn server_file(&self, relative: &str, name: &str, command: &str) -> PathBuf {
        self.write_json(
            relative,
            &json!({"mcpServers": {name: {"command": command}}}),
        )
    }

    /// Discovery roots with `cwd` (relative) as the working folder.
    fn ctx(&self, cwd: &str) -> DiscoveryContext {
        DiscoveryContext::new("testapp", self.dir(cwd), self.home())
    }

    fn load(&self, cwd: &str, options: &DiscoveryOptions) -> DiscoveryResult {
        load_all_configs(&self.ctx(cwd), options)
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn command(found: &DiscoveryResult, name: &str) -> String {
    match &found.servers[name].config.transport {
        TransportConfig::Stdio(stdio) => stdio.command.clone(),
        other => panic!("{name} is not a stdio server: {other:?}"),
    }
}

/// Every name discovery saw, used or skipped.
fn seen(found: &DiscoveryResult) -> Vec<String> {
    found.names().into_iter().map(str::to_owned).collect()
}

#[test]
fn the_repository_roots_claude_and_native_files_are_found_from_a_subfolder() {
    let world = World::new();
    world.repo("repo");
    let claude = world.server_file("repo/.mcp.json", "from-claude", "claude-server");
    let native = world.server_file("repo/.testapp/mcp.json", "from-native", "native-server");
    let codex = world.write(
        "repo/.codex/config.toml",
        "[mcp_servers.from-codex]\ncommand = \"codex-server\"\n",
    );
    let opencode = world.write_json(
        "repo/opencode.json",
        &json!({"mcp": {"from-opencode": {"type": "local", "command": ["opencode-server"]}}}),
    );

    let found = world.load("repo/src/deep", &trusting());
    for (name, path, provider) in [
        ("from-claude", &claude, "claude-code"),
        ("from-native", &native, "native"),
        ("from-codex", &codex, "codex"),
        ("from-opencode", &opencode, "opencode"),
    ] {
        let meta = &found.servers[name].source.meta;
        assert_eq!(
            (&meta.path, meta.level, meta.provider.as_str()),
            (path, Level::Project, provider)
        );
        assert!(meta.in_project_folder, "{name} is a project server");
        assert_eq!(meta.project_folder.as_deref(), Some(&*world.path("repo")));
    }
    assert!(found.notes.is_empty(), "{:?}", found.notes);
}

#[test]
fn the_walk_stops_at_the_repository_root_marked_by_a_git_folder_or_file() {
    let world = World::new();
    world.server_file("outer/.mcp.json", "outside", "outside-server");
    world.server_file("outer/.testapp/mcp.json", "outside-native", "x");
    world.repo("outer/repo");
    world.server_file("outer/repo/.mcp.json", "inside", "inside-server");
    let found = world.load("outer/repo/src", &trusting());
    assert_eq!(seen(&found), ["inside"]);

    // A worktree or submodule has a `.git` file: it is a root too.
    world.write(
        "outer/work/.git",
        "gitdir: /elsewhere/.git/worktrees/work\n",
    );
    world.server_file("outer/work/.mcp.json", "in-worktree", "w");
    let found = world.load("outer/work/a/b", &trusting());
    assert_eq!(seen(&found), ["in-worktree"]);
}

#[test]
fn outside_a_repository_only_the_working_folder_is_read() {
    let world = World::new();
    world.server_file("shared/.mcp.json", "from-a-shared-folder", "x");
    world.server_file("shared/project/.mcp.json", "own", "y");
    let found = world.load("shared/project", &trusting());
    assert_eq!(seen(&found), ["own"]);
    let found = world.load("shared/project/sub", &trusting());
    assert!(seen(&found).is_empty(), "{:?}", seen(&found));
}

#[test]
fn the_walk_never_reaches_home_even_inside_a_repository_that_holds_home() {
    let world = World::new();
    // The filesystem above home is a repository, and so is home itself (dotfiles).
    world.repo("");
    world.repo("home");
    world.server_file(".mcp.json", "above-home", "x");
    world.server_file("home/.mcp.json", "at-home", "y");
    world.server_file("home/.testapp/mcp.json", "at-home-native", "z");
    // Home's Codex folder is the user's config, read as such.
    world.write(
        "home/.codex/config.toml",
        "[mcp_servers.users-codex]\ncommand = \"mine\"\n",
    );
    world.server_file("home/code/app/.mcp.json", "own", "w");

    let found = world.load("home/code/app/src", &DiscoveryOptions::default());
    assert_eq!(seen(&found), ["users-codex"]);
    let meta = &found.servers["users-codex"].source.meta;
    assert_eq!(meta.level, Level::User, "a file at home is a user file");
    assert!(!meta.in_project_folder);
    assert!(needing_approval(&found).is_empty());

    // Without a repository below home, the working folder alone is the project.
    let found = world.load("home/code/app", &trusting());
    assert_eq!(seen(&found), ["own", "users-codex"]);
    assert!(
        world
            .ctx("home/code/app/src")
            .project_folders()
            .iter()
            .all(|folder| folder.starts_with(world.path("home/code/app/src")))
    );
}

#[test]
fn the_nearer_file_wins_a_name_and_the_farther_one_is_listed_as_shadowed() {
    let world = World::new();
    world.repo("repo");
    let far = world.server_file("repo/.mcp.json", "shared", "from-root");
    let near = world.server_file("repo/src/.mcp.json", "shared", "from-src");
    let far_native = world.server_file("repo/.testapp/mcp.json", "native", "native-root");
    let near_native = world.server_file("repo/src/.testapp/mcp.json", "native", "native-src");

    let found = world.load("repo/src/deep", &trusting());
    assert_eq!(command(&found, "shared"), "from-src");
    let source = &found.servers["shared"].source;
    assert_eq!(source.meta.path, near);
    assert_eq!(source.shadowed[0].path, far);
    assert_eq!(
        source.meta.project_folder.as_deref(),
        Some(&*world.path("repo/src"))
    );
    assert_eq!(command(&found, "native"), "native-src");
    assert_eq!(found.servers["native"].source.meta.path, near_native);
    assert_eq!(found.servers["native"].source.shadowed[0].path, far_native);

    // Codex layers its files the same way: the nearer `.codex/config.toml` wins.
    world.write(
        "repo/.codex/config.toml",
        "[mcp_servers.codex]\ncommand = \"codex-root\"\n",
    );
    world.write(
        "repo/src/.codex/config.toml",
        "[mcp_servers.codex]\ncommand = \"codex-src\"\n",
    );
    let found = world.load("repo/src", &trusting());
    assert_eq!(command(&found, "codex"), "codex-src");
}

#[test]
fn a_file_of_a_tool_that_reads_only_its_own_folder_is_a_note_not_a_server() {
    let world = World::new();
    world.repo("repo");
    let vscode = world.write_json(
        "repo/.vscode/mcp.json",
        &json!({"servers": {"from-vscode": {"command": "v"}}}),
    );
    let cursor = world.server_file("repo/.cursor/mcp.json", "from-cursor", "c");
    let gemini = world.server_file("repo/.gemini/settings.json", "from-gemini", "g");

    let found = world.load("repo/src", &trusting());
    assert!(seen(&found).is_empty(), "{:?}", seen(&found));
    let notes: Vec<(String, PathBuf, PathBuf)> = found
        .notes
        .iter()
        .map(|note| match note {
            DiscoveryNote::ProjectFileAbove(file) => (
                file.provider.clone(),
                file.path.clone(),
                file.folder.clone(),
            ),
            other => panic!("an unexpected note: {other}"),
        })
        .collect();
    let repo = world.path("repo");
    assert_eq!(
        notes,
        [
            ("gemini".to_owned(), gemini, repo.clone()),
            ("cursor".to_owned(), cursor, repo.clone()),
            ("vscode".to_owned(), vscode.clone(), repo),
        ]
    );
    assert_eq!(
        found.notes[2].to_string(),
        format!(
            "{} is not read from {} (VS Code reads it only in the workspace folder)",
            vscode.display(),
            world.path("repo/src").display()
        )
    );

    // From the folder that holds them they are read, and nothing is noted.
    let found = world.load("repo", &trusting());
    assert_eq!(seen(&found), ["from-cursor", "from-gemini", "from-vscode"]);
    assert!(found.notes.is_empty());

    // A disabled provider, or project config turned off, notes nothing.
    let found = world.load("repo/src", &trusting().disable_provider("vscode"));
    assert_eq!(found.notes.len(), 2);
    let found = world.load("repo/src", &trusting().project_config(false));
    assert!(found.notes.is_empty());
}

/// The definition of `name` as discovery found it, trusting everything (what a user approves),
/// with what approving it lets it do.
fn definition(
    world: &World,
    cwd: &str,
    name: &str,
) -> (mcp_config::ServerConfig, PathBuf, Consent) {
    let found = world.load(cwd, &trusting());
    let server = &found.servers[name];
    let folder = server.source.meta.project_folder.clone().unwrap();
    let consent = Consent::of(&server.definition, &server.source.meta);
    (server.definition.clone(), folder, consent)
}

#[test]
fn an_approval_given_from_a_subfolder_holds_in_the_whole_project() {
    let world = World::new();
    world.repo("repo");
    world.server_file("repo/.mcp.json", "root-server", "r");
    world.server_file("repo/src/.mcp.json", "src-server", "s");
    let options = DiscoveryOptions::default();
    assert_eq!(
        needing_approval(&world.load("repo/src/deep", &options)),
        ["root-server", "src-server"]
    );

    // Approved from a subfolder, the root's server is recorded under the folder of its file.
    let ctx = world.ctx("repo/src/deep");
    let (root_definition, folder, consent) = definition(&world, "repo/src/deep", "root-server");
    assert_eq!(folder, world.path("repo"));
    trust_project_servers(
        &ctx,
        &folder,
        &[("root-server", &root_definition, &consent)],
    )
    .unwrap();
    let user_file: Value =
        serde_json::from_str(&std::fs::read_to_string(ctx.native_user_file()).unwrap()).unwrap();
    let repo_key = world.path("repo").display().to_string();
    assert!(user_file["trustedProjects"][&repo_key]["root-server"].is_string());

    for cwd in ["repo/src/deep", "repo/src", "repo", "repo/other"] {
        let found = world.load(cwd, &options);
        assert!(found.servers.contains_key("root-server"), "from {cwd}");
    }
    // The subfolder's own file still waits: that approval was for the root's file.
    assert_eq!(
        needing_approval(&world.load("repo/src/deep", &options)),
        ["src-server"]
    );

    // Withdrawn from a subfolder, it waits again everywhere.
    assert_eq!(
        untrust_project_servers(&world.ctx("repo/src/deep"), None).unwrap(),
        ["root-server"]
    );
    assert_eq!(
        needing_approval(&world.load("repo", &options)),
        ["root-server"]
    );
}

#[test]
fn nothing_inside_the_project_approves_a_file_found_above_the_working_folder() {
    let world = World::new();
    let repo = world.repo("repo").display().to_string();
    world.server_file("repo/.mcp.json", "evil", "touch");
    world.write(
        "repo/.codex/config.toml",
        &format!(
            "[mcp_servers.evil-codex]\ncommand = \"touch\"\n[projects.\"{repo}\"]\ntrust_level = \"trusted\"\n"
        ),
    );
    // Approvals written inside the project, at its root and in the working folder.
    let (definition, _, consent) = definition(&world, "repo/src", "evil");
    let hash = mcp_config::approval_hash(&definition, &consent);
    for settings in [
        "repo/.claude/settings.json",
        "repo/.claude/settings.local.json",
        "repo/src/.claude/settings.json",
        "repo/src/.claude/settings.local.json",
    ] {
        world.write_json(
            settings,
            &json!({"enableAllProjectMcpServers": true, "enabledMcpjsonServers": ["evil"]}),
        );
    }
    for native in ["repo/.testapp/mcp.json", "repo/src/.testapp/mcp.json"] {
        world.write_json(
            native,
            &json!({"trustedProjects": {repo.clone(): {"evil": hash.clone()}}}),
        );
    }
    let options = DiscoveryOptions::default();
    assert_eq!(
        needing_approval(&world.load("repo/src", &options)),
        ["evil", "evil-codex"]
    );

    // An approval the user gave for the subfolder is not one for its parent's file.
    let src = world.path("repo/src").display().to_string();
    world.write_json(
        "home/.config/testapp/mcp.json",
        &json!({"trustedProjects": {src.clone(): {"evil": hash}}}),
    );
    world.write_json(
        "home/.claude.json",
        &json!({"projects": {src.clone(): {"enableAllProjectMcpServers": true}}}),
    );
    world.write(
        "home/.codex/config.toml",
        &format!("[projects.\"{src}\"]\ntrust_level = \"trusted\"\n"),
    );
    assert_eq!(
        needing_approval(&world.load("repo/src", &options)),
        ["evil", "evil-codex"]
    );
}

#[test]
fn claude_code_and_codex_approvals_are_looked_up_where_those_tools_keep_them() {
    let world = World::new();
    let repo = world.repo("repo").display().to_string();
    world.server_file("repo/.mcp.json", "claude-root", "a");
    world.server_file("repo/src/.mcp.json", "claude-src", "b");
    world.write(
        "repo/.codex/config.toml",
        "[mcp_servers.codex-root]\ncommand = \"c\"\n",
    );
    world.write(
        "repo/src/.codex/config.toml",
        "[mcp_servers.codex-src]\ncommand = \"d\"\n",
    );
    // Claude Code keys its project entry by the repository root; its local servers too.
    world.write_json(
        "home/.claude.json",
        &json!({"projects": {repo.clone(): {
            "enabledMcpjsonServers": ["claude-root", "claude-src"],
            "mcpServers": {"claude-local": {"command": "e"}}
        }}}),
    );
    // Codex trusts the project root, and so every layer below it.
    world.write(
        "home/.codex/config.toml",
        &format!("[projects.\"{repo}\"]\ntrust_level = \"trusted\"\n"),
    );
    let options = DiscoveryOptions::default();
    let found = world.load("repo/src", &options);
    assert!(
        needing_approval(&found).is_empty(),
        "{:?}",
        needing_approval(&found)
    );
    assert_eq!(
        seen(&found),
        [
            "claude-local",
            "claude-root",
            "claude-src",
            "codex-root",
            "codex-src"
        ]
    );

    // A folder Codex marks untrusted stays so, whatever its root says.
    let src = world.path("repo/src").display().to_string();
    world.write(
        "home/.codex/config.toml",
        &format!(
            "[projects.\"{repo}\"]\ntrust_level = \"trusted\"\n[projects.\"{src}\"]\ntrust_level = \"untrusted\"\n"
        ),
    );
    assert_eq!(
        needing_approval(&world.load("repo/src", &options)),
        ["codex-src"]
    );
}

#[test]
fn a_native_server_found_above_is_switched_off_in_its_own_file() {
    let world = World::new();
    world.repo("repo");
    let file = world.server_file("repo/.testapp/mcp.json", "root-native", "r");
    let ctx = world.ctx("repo/src");
    let found = load_all_configs(&ctx, &trusting());
    let source = found.servers["root-native"].source.meta.clone();
    let changes = set_server_enabled(&ctx, "root-native", false, Some(&source)).unwrap();
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].path, file);
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(
        written["mcpServers"]["root-native"]["enabled"],
        json!(false)
    );
    assert!(!ctx.native_user_file().exists(), "no user-wide switch-off");
    let found = load_all_configs(&ctx, &trusting());
    assert!(!found.servers.contains_key("root-native"));
}

#[test]
fn the_walk_is_the_working_folder_then_each_parent_up_to_the_root() {
    let world = World::new();
    let repo = world.repo("repo");
    let ctx = world.ctx("repo/a/b");
    assert_eq!(
        ctx.project_folders(),
        [repo.join("a/b"), repo.join("a"), repo.clone()]
    );
    assert_eq!(ctx.repository_root(), Some(repo.clone()));
    assert_eq!(ctx.project_root(), repo);
    // `--cwd repo/a/b/..` is `repo/a`, by its one name.
    let dotted = DiscoveryContext::new("testapp", repo.join("a/b/.."), world.home());
    assert_eq!(dotted.project_folders(), [repo.join("a"), repo.clone()]);
    let outside = world.ctx("elsewhere/x");
    assert_eq!(outside.project_folders(), [world.path("elsewhere/x")]);
    assert_eq!(outside.repository_root(), None);
    assert_eq!(outside.project_root(), world.path("elsewhere/x"));
    // Home as the working folder is still its own project folder (its files are the user's).
    let at_home = DiscoveryContext::new("testapp", world.home(), world.home());
    assert_eq!(at_home.project_folders(), [world.home()]);
}
