//! Qwen Code: `mcpServers` in `~/.qwen/settings.json` and, in the folder it starts in,
//! `.qwen/settings.local.json`, `.mcp.json` and the older `.qwen/settings.json`.
//!
//! Qwen Code is a fork of Gemini CLI: its settings files and entries are read as Gemini CLI's
//! are ([`super::gemini::load_settings`]), in Qwen Code's dialect.
//! Written from Qwen Code's documentation, qwenlm.github.io/qwen-code-docs/1.x/en/users/mcp and
//! its Chinese twin …/1.x/zh/users/mcp, …/1.x/en/users/settings (the 1.x documentation, as
//! read in December 2026), and QwenLM/qwen-code `docs/users/features/mcp.md` (commit
//! 023f40b96e4a33e3cf157c9a2b3d079bd904ab37), with its source `packages/cli/src/config/mcpJson.ts`
//! (4d024d692fe8778e8da6434e1bf10f163f00808f) and `mcpServers.ts`
//! (0c5a0defe82a7c01c575af4e9a425651a80eaba3):
//!
//! - the scopes: user `~/.qwen/settings.json`, local (the default of `qwen mcp add`)
//!   `.qwen/settings.local.json`, project `.mcp.json` "at the project root"; the project's older
//!   `.qwen/settings.json` is still read, and on a name clash `.mcp.json` wins over it. Settings
//!   merge user → project → local, the later winning. The project root is the folder Qwen Code
//!   starts in: it reads `<cwd>/.mcp.json` (`assembleMcpServers(…, cwd)`) and the settings of
//!   that workspace folder, with no walk up; a file found above is a note. The files are JSON
//!   with comments (`strip-json-comments`);
//! - entries: `command`, `args`, `env`, `cwd` (stdio); `httpUrl` (Streamable HTTP); `url` (the
//!   SSE endpoint); `headers`; in `.mcp.json` also Claude Code's shape, where `type: "http"` makes
//!   `url` Streamable HTTP (`normalizeClaudeMcpServer`); `includeTools` / `excludeTools` (our
//!   `enabledTools` / `disabledTools`, exclusion winning); `timeout` in ms bounds each tool
//!   call (our `toolTimeout`) and `discoveryTimeoutMs` the handshake (our `timeout`); `trust`,
//!   `oauth`, `description` and the rest are kept in `extra`;
//! - `$VAR` and `${VAR}` are the environment (a bare `$VAR` becomes `${VAR}`);
//! - `mcp.allowed` and `mcp.excluded` in a settings file keep servers out, by name or by glob
//!   pattern (`*`, `?`); a server in both lists is excluded. They switch servers off here.
//!
//! Decided where the documentation is silent or contradicts itself:
//!
//! - `.qwen/settings.local.json` is listed first, before `.mcp.json`: the documentation ranks
//!   local settings over project settings but does not place them against `.mcp.json`, and
//!   Claude Code, whose scopes Qwen Code copies, ranks its local scope above its project one;
//! - the order of `.mcp.json` over `.qwen/settings.json` follows the 1.x documentation. The
//!   source read ranks the other way: `assembleMcpServers` in `mcpServers.ts` (at 0c5a0def… and
//!   b21231e9b572ae590677f1aba9417e95ad600246) lets workspace settings outrank `.mcp.json`.
//!   The code read (those files and `commands/mcp/add.ts`) mentions neither
//!   `settings.local.json` nor a `ws` transport, which the 1.x documentation describes, so the
//!   documentation is taken to be the newer word;
//! - a WebSocket server (`--transport ws`): an entry with `type: "ws"` is kept, with its fields,
//!   for a transport plugin's connector (as Claude Code's is); Gemini CLI's `tcp` field stays an
//!   invalid entry, as in Gemini CLI's provider, since what Qwen Code writes there is not
//!   documented. `type: "sdk"` (a server the embedding SDK runs in its own process) is kept
//!   like any type no built-in transport knows, and fails as an unclaimed one;
//! - the system files (`/etc/qwen-code/settings.json`, `system-defaults.json`) and the user
//!   folder moved by `--config-dir` are not read, as Gemini CLI's provider reads none of its.
//!
//! Project files, seen from a subfolder: Qwen Code's rule is `.qwen/settings.local.json`,
//! `.mcp.json` and `.qwen/settings.json` of the folder it starts in (QwenLM/qwen-code
//! `mcpServers.ts` `assembleMcpServers`, commit 0c5a0defe82a7c01c575af4e9a425651a80eaba3;
//! qwen-code-docs 1.x "MCP"). Read here: the working folder; a file above is a note.
//!
//! Format, in brief: JSON with comments, `mcpServers`, Gemini CLI's entries except: `url` is SSE,
//! `timeout` is `toolTimeout` only, `discoveryTimeoutMs` → `timeout`; `mcp.allowed` /
//! `mcp.excluded` take glob patterns.

use super::builtin::BuiltinSource;
use super::gemini::{Dialect, load_settings};
use crate::context::DiscoveryContext;
use crate::origin::Level;
use crate::source::SourceFile;

/// Qwen Code's reading of Gemini CLI's format.
const DIALECT: Dialect = Dialect {
    bare_url: "sse",
    connect_timeout_key: Some("discoveryTimeoutMs"),
    name_patterns: true,
};

/// Qwen Code (a fork of Gemini CLI): the working folder's `.qwen/settings.local.json`, `.mcp.json`
/// and older `.qwen/settings.json`, in that order (Qwen Code reads them only in the folder it
/// starts in; one found above is a note), then `~/.qwen/settings.json`. JSON with comments.
///
/// `mcpServers` entries as [`GEMINI`](super::GEMINI) reads them (`command`, `args`, `env`, `cwd`;
/// `httpUrl` → `http`; `includeTools` / `excludeTools`; `$VAR` → `${VAR}`), except that a `url`
/// without `type` is SSE, `timeout` bounds tool calls only (`toolTimeout`) and `discoveryTimeoutMs`
/// is the connect `timeout`. `.mcp.json` may use Claude Code's shape (`type: "http"` with `url`);
/// `type: "ws"` is kept for a transport plugin. Servers that a settings file's `mcp.excluded`
/// matches, or its `mcp.allowed` does not, are switched off; both lists take glob patterns.
pub const QWEN_CODE: BuiltinSource = BuiltinSource::new("qwen", "Qwen Code", load).here_only(
    &[
        ".qwen/settings.local.json",
        ".mcp.json",
        ".qwen/settings.json",
    ],
    "Qwen Code reads it only in the folder it starts in",
)
.documented(
    "`<cwd>/.qwen/settings.local.json`, `<cwd>/.mcp.json`, `<cwd>/.qwen/settings.json`; `~/.qwen/settings.json`",
    "qwenlm.github.io/qwen-code-docs 1.x users/mcp, users/settings (December 2026); QwenLM/qwen-code `packages/cli/src/config/mcpJson.ts` (4d024d69)",
);

/// Reads the files: see [`QWEN_CODE`].
fn load(ctx: &DiscoveryContext) -> Vec<SourceFile> {
    let qwen = ctx.cwd().join(".qwen");
    let mcp_json = ctx.cwd().join(".mcp.json");
    let paths = vec![
        (qwen.join("settings.local.json"), Level::Project),
        (mcp_json.clone(), Level::Project),
        (qwen.join("settings.json"), Level::Project),
        (ctx.home.join(".qwen").join("settings.json"), Level::User),
    ];
    load_settings(paths, Some(&mcp_json), DIALECT)
}
