//! The built-in providers, one module per tool. Each reads the files that tool writes today and
//! turns its entries into [`ServerConfig`](crate::ServerConfig)s, keeping `${VAR}` references as
//! written (discovery expands them) and translating the tool's own placeholder syntax to `${VAR}`
//! where the meaning is the same.
//!
//! [`default_sources`] lists them highest priority first. Inside one provider the files are
//! listed project first, so a project definition beats the user's.
//!
//! Each tool's file holds all of that tool: its [`BuiltinSource`] constant (id, name, the files
//! it reads, what it was written from), the reading of its files and the conversion of its
//! entries. What several tools share is in files of its own: finding and reading files
//! (`files.rs`), reading an entry's fields (`fields.rs`), a tool's variable spellings
//! (`variables.rs`), VS Code and its forks (`editor.rs`) and the common `mcpServers` shape
//! (`common_shape.rs`). This file only lists them.
//!
//! ## Found from a subfolder
//!
//! Each tool's project files are looked for where that tool looks for them, through the one walk of
//! [`DiscoveryContext::project_folders`](crate::DiscoveryContext::project_folders) (the working
//! folder, then each parent up to the repository root, never `$HOME` or above; the working folder
//! alone outside a repository). Each tool's file says where that tool looks for them, from what
//! source, and what is read here.
//!
//! Files a tool that does not look in parent folders would not read from here, found above the
//! working folder, are reported by [`ConfigSource::unread_project_files`] and listed as notes
//! by discovery, so a user running from `src/deep` learns why the root's file is not used.
//!
//! ## What each reads
//!
//! Each tool's constant says which files it reads, in order, and how it reads their entries;
//! the README's table of providers is made from those constants ([`readme_table`]).
//!
//! Everywhere, `disabled: true` on an entry (Cline / Windsurf style) becomes `enabled: false`. A
//! file that does not exist is left out; a file that is a directory, cannot be read or cannot be
//! parsed is a [`SourceFile`](crate::source::SourceFile) holding that error; an entry that cannot be
//! converted is listed in [`FileServers::invalid`](crate::source::FileServers::invalid) as that server's
//! [`EntryProblem`](crate::EntryProblem). A provider of the agent's says why with its own error
//! type ([`EntryProblem::other`](crate::EntryProblem::other)).

use crate::source::ConfigSource;

mod amp;
mod builtin;
mod claude_code;
mod claude_desktop;
mod cline;
mod codex;
mod common_shape;
mod continue_dev;
mod copilot_cli;
mod crush;
mod cursor;
mod editor;
mod fields;
mod files;
mod gemini;
mod goose;
mod junie;
mod kiro;
mod lm_studio;
mod native;
mod opencode;
mod qwen;
mod roo;
mod variables;
mod vscode;
mod warp;
mod windsurf;
mod zed;

pub use crate::report::{FileReport, ProviderReport, provider_report};
pub use amp::AMP;
pub use builtin::BuiltinSource;
pub use claude_code::CLAUDE_CODE;
pub(crate) use claude_code::{
    project_entry as claude_code_project_entry, user_files as claude_code_user_files,
};
pub use claude_desktop::CLAUDE_DESKTOP;
pub use cline::CLINE;
pub use codex::CODEX;
pub use continue_dev::CONTINUE;
pub use copilot_cli::COPILOT_CLI;
pub use crush::CRUSH;
pub use cursor::CURSOR;
pub use gemini::GEMINI;
pub use goose::GOOSE;
pub use junie::JUNIE;
pub use kiro::KIRO;
pub use lm_studio::LM_STUDIO;
pub use native::NATIVE;
pub use opencode::OPENCODE;
pub use qwen::QWEN_CODE;
pub use roo::ROO_CODE;
pub use vscode::VSCODE;
pub use warp::WARP;
pub use windsurf::WINDSURF;
pub use zed::ZED;

/// The built-in providers, highest priority first.
const BUILT_IN: [BuiltinSource; 22] = [
    NATIVE,
    CLAUDE_CODE,
    CODEX,
    GEMINI,
    OPENCODE,
    CURSOR,
    WINDSURF,
    VSCODE,
    CLAUDE_DESKTOP,
    KIRO,
    JUNIE,
    WARP,
    LM_STUDIO,
    ROO_CODE,
    CLINE,
    AMP,
    ZED,
    CRUSH,
    GOOSE,
    CONTINUE,
    COPILOT_CLI,
    QWEN_CODE,
];

/// The built-in providers, highest priority first: native, Claude Code, Codex, Gemini CLI,
/// OpenCode, Cursor, Windsurf, VS Code, Claude Desktop, Kiro, Junie, Warp, LM Studio, Roo
/// Code, Cline, Amp, Zed, Crush, Goose, Continue, Copilot CLI, Qwen Code.
pub fn default_sources() -> Vec<Box<dyn ConfigSource>> {
    BUILT_IN
        .iter()
        .map(|source| Box::new(*source) as Box<dyn ConfigSource>)
        .collect()
}

/// The built-in providers as data, highest priority first: what [`default_sources`] gives,
/// each with the files it reads and what it was written from.
pub fn built_in() -> &'static [BuiltinSource] {
    &BUILT_IN
}

/// The README's table of the built-in providers, in Markdown: priority, tool, id, the files
/// read and what each was written from. The README holds exactly this (a test keeps them
/// equal), so the table never tells of a provider that is not there.
pub fn readme_table() -> String {
    let mut table = String::from(
        "| # | tool | id | files read, highest first | written from |\n|---|---|---|---|---|\n",
    );
    for (index, source) in BUILT_IN.iter().enumerate() {
        table.push_str(&format!(
            "| {} | {} | `{}` | {} | {} |\n",
            index + 1,
            source.name(),
            source.id(),
            source.files(),
            source.written_from()
        ));
    }
    table
}
