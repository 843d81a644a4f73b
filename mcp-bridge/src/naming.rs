//! Tool names as the model sees them: `mcp_<server>_<tool>`.
//!
//! Each part is lower-cased; every run of characters outside `[a-z0-9_]` becomes `_`; runs of
//! `_` collapse; `_` at the edges goes; an empty part becomes `server` or `tool`. A tool whose
//! name already starts with `<server>_` is not prefixed twice. The result fits model APIs
//! (`^[a-zA-Z0-9_-]{1,64}$`): a longer name is cut and ends with `_` and a short hash of the
//! original server and tool names. Two tools that would get one name are told apart the same
//! way, deterministically: a tool of one of the user's own servers before a tool of a project
//! folder's server ([`Precedence`]), then the one whose original (server, tool) sorts first
//! keeps the plain name, whatever order the servers connected in. Copies of one (server, tool) pair (a server
//! may list a tool twice, or a hundred times) are told apart by their rank among the copies,
//! which salts the hash. Should a name with a hash meet the name of yet another tool, the tool
//! that already had to give way takes a hash salted with the round, until every name is
//! unique.

use std::collections::BTreeMap;
use std::hash::Hasher as _;

/// The longest name model APIs accept.
pub const MAX_TOOL_NAME_LEN: usize = 64;

/// Bound on collision rounds; past the first, another round needs a 32-bit hash collision.
const MAX_COLLISION_ROUNDS: u32 = 16;

/// One part of a name: lower-cased, `[a-z0-9_]` only, single underscores, trimmed.
fn sanitize_part(part: &str, fallback: &str) -> String {
    let mut out = String::with_capacity(part.len());
    for c in part.chars().flat_map(char::to_lowercase) {
        let c = if c.is_ascii_lowercase() || c.is_ascii_digit() {
            c
        } else {
            '_'
        };
        if c == '_' && (out.is_empty() || out.ends_with('_')) {
            continue;
        }
        out.push(c);
    }
    while out.ends_with('_') {
        out.pop();
    }
    if out.is_empty() {
        fallback.to_owned()
    } else {
        out
    }
}

/// The name of one tool, before collisions are considered.
pub fn tool_name(server: &str, tool: &str) -> String {
    let server_part = sanitize_part(server, "server");
    let tool_part = sanitize_part(tool, "tool");
    let tool_part = match tool_part.strip_prefix(&server_part) {
        Some(rest) if rest.len() > 1 && rest.starts_with('_') => rest[1..].to_owned(),
        _ => tool_part,
    };
    fit(format!("mcp_{server_part}_{tool_part}"), server, tool)
}

/// Whether `name` can be the model-facing name of a tool of `server`, judged from the names
/// alone (so a command can start just that server): it begins with the server's part
/// (`mcp_<server>_`), or, for a name cut to [`MAX_TOOL_NAME_LEN`], what is left before its hash
/// is a beginning of that part. A tool of another server whose part begins the same way may
/// pass too; none of `server`'s tools fails.
pub fn may_name_a_tool_of(name: &str, server: &str) -> bool {
    let prefix = format!("mcp_{}_", sanitize_part(server, "server"));
    if name.starts_with(&prefix) {
        return true;
    }
    // A cut name: `<beginning>_<8 hex digits>`, the beginning no longer than the room left.
    let cut = name.len() == MAX_TOOL_NAME_LEN
        && name.rsplit_once('_').is_some_and(|(_, hash)| {
            hash.len() == 8 && hash.bytes().all(|b| b.is_ascii_hexdigit())
        });
    cut && name
        .rsplit_once('_')
        .is_some_and(|(beginning, _)| prefix.starts_with(beginning))
}

/// Which of two tools that meet on one name keeps it: a tool of a server the user set up
/// themselves goes before one of a server that a project folder's files brought, so a
/// repository cannot take the names of the user's own tools (a call meant for the user's
/// `github` must never reach a project's `GitHub`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Precedence {
    /// A server from the user's own files.
    #[default]
    User,
    /// A server from a file inside the project folder.
    Project,
}

/// Names for a whole set of tools, collisions told apart; `names[i]` is the name of
/// `tools[i]`. The same set gives the same names in any order.
pub fn assign_names(tools: &[(&str, &str)]) -> Vec<String> {
    assign_names_with_precedence(tools, &[])
}

/// [`assign_names`] where `precedence[i]` says whose `tools[i]` is (missing entries are
/// [`Precedence::User`]): in a collision, every user tool keeps or takes a name before any
/// project tool, whatever the case or order of the server names; among equals the original
/// (server, tool) that sorts first keeps the plain name.
pub fn assign_names_with_precedence(
    tools: &[(&str, &str)],
    precedence: &[Precedence],
) -> Vec<String> {
    let precedence_of = |index: usize| precedence.get(index).copied().unwrap_or_default();
    let plain: Vec<String> = tools
        .iter()
        .map(|(server, tool)| tool_name(server, tool))
        .collect();
    let mut names = plain.clone();
    // Whether a tool already gave way in a collision: such a tool gives way again before one
    // that still has its plain name.
    let mut renamed = vec![false; tools.len()];
    for round in 0..MAX_COLLISION_ROUNDS {
        let mut groups: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (index, name) in names.iter().enumerate() {
            groups.entry(name.as_str()).or_default().push(index);
        }
        let mut renames = Vec::new();
        for mut indexes in groups.into_values().filter(|indexes| indexes.len() > 1) {
            indexes.sort_by(|a, b| {
                renamed[*a]
                    .cmp(&renamed[*b])
                    .then(precedence_of(*a).cmp(&precedence_of(*b)))
                    .then(tools[*a].cmp(&tools[*b]))
                    .then(a.cmp(b))
            });
            // The first keeps its name; the others get their own hash. Copies of one pair
            // would all get the same hash and meet again, round after round, so each copy's
            // rank among the copies that give way salts its hash too.
            let mut copies: BTreeMap<(&str, &str), u32> = BTreeMap::new();
            for index in indexes.into_iter().skip(1) {
                let (server, tool) = tools[index];
                let copy = copies.entry((server, tool)).or_default();
                renames.push((index, with_hash(&plain[index], server, tool, round, *copy)));
                *copy += 1;
            }
        }
        if renames.is_empty() {
            break;
        }
        for (index, name) in renames {
            names[index] = name;
            renamed[index] = true;
        }
    }
    names
}

/// Cuts a name to [`MAX_TOOL_NAME_LEN`], ending it with the hash of the original names.
fn fit(name: String, server: &str, tool: &str) -> String {
    if name.len() <= MAX_TOOL_NAME_LEN {
        name
    } else {
        with_hash(&name, server, tool, 0, 0)
    }
}

/// `name` cut so that `_` and 8 hex digits of the hash of (server, tool) fit after it; a
/// `round` or a `copy` past 0 salts the hash.
fn with_hash(name: &str, server: &str, tool: &str, round: u32, copy: u32) -> String {
    let suffix = format!("_{:08x}", short_hash(server, tool, round, copy));
    let keep = name.len().min(MAX_TOOL_NAME_LEN - suffix.len());
    // Names are ASCII here, so any cut is on a character boundary.
    let cut = name[..keep].trim_end_matches('_');
    format!("{cut}{suffix}")
}

/// 32 bits of FNV-1a over the original names, the round past 0 and the copy past 0: stable
/// across builds and platforms.
fn short_hash(server: &str, tool: &str, round: u32, copy: u32) -> u32 {
    let mut hasher = fnv::FnvHasher::default();
    hasher.write(server.as_bytes());
    hasher.write(&[0]);
    hasher.write(tool.as_bytes());
    if round > 0 {
        hasher.write(format!("\0{round}").as_bytes());
    }
    if copy > 0 {
        hasher.write(format!("\0copy {copy}").as_bytes());
    }
    let hash = hasher.finish();
    // Fold the high half in so every input bit counts.
    u32::try_from((hash ^ (hash >> 32)) & 0xffff_ffff).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_sanitized() {
        assert_eq!(sanitize_part("GitHub", "server"), "github");
        assert_eq!(sanitize_part("my-server.v2", "server"), "my_server_v2");
        assert_eq!(sanitize_part("__a__b__", "server"), "a_b");
        assert_eq!(sanitize_part("!!!", "tool"), "tool");
        assert_eq!(sanitize_part("", "server"), "server");
        assert_eq!(sanitize_part("Ünïcode ☃ 42", "x"), "n_code_42");
    }

    #[test]
    fn a_project_server_never_takes_the_name_of_a_user_servers_tool() {
        use Precedence::{Project, User};
        for project_server in ["GitHub", "GITHUB-", "github", "_github_", "Git-Hub"] {
            if tool_name(project_server, "echo") != "mcp_github_echo" {
                continue;
            }
            for (tools, precedence) in [
                (
                    [("github", "echo"), (project_server, "echo")],
                    [User, Project],
                ),
                (
                    [(project_server, "echo"), ("github", "echo")],
                    [Project, User],
                ),
            ] {
                let names = assign_names_with_precedence(&tools, &precedence);
                let user = precedence.iter().position(|p| *p == User).unwrap_or(0);
                assert_eq!(names[user], "mcp_github_echo", "{tools:?}");
                assert_ne!(names[1 - user], "mcp_github_echo", "{tools:?}");
                assert!(names[1 - user].starts_with("mcp_github_echo_"), "{names:?}");
            }
        }
        // Without precedence the (server, tool) order decides, as before.
        let names = assign_names(&[("github", "echo"), ("GitHub", "echo")]);
        assert_eq!(names[1], "mcp_github_echo");
    }

    #[test]
    fn names_fit_the_model_api_pattern() {
        let long = "x".repeat(100);
        let name = tool_name("server", &long);
        assert_eq!(name.len(), MAX_TOOL_NAME_LEN);
        assert!(name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        assert_eq!(name, tool_name("server", &long), "stable");
        assert_ne!(name, tool_name("server", &"x".repeat(101)));
    }
}
