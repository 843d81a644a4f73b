//! Shows which MCP servers an agent would load here, and where each one comes from.
//!
//! ```text
//! cargo run -p mcp-config --example discover -- [--cwd DIR] [--no-project-config] [--app NAME]
//! ```
//!
//! Reads the real home (`$HOME`, `$XDG_CONFIG_HOME`) and environment, like an agent started in
//! `DIR` (default: the current directory) would, with the Exa filter on. Prints one JSON object:
//! `{"servers": [{"name", "transport", "config", "source", "shadowed"}], "disabled": [...],
//! "errors": [{"path", "server", "error"}], "exa_api_keys": [...]}`. Env and header values and URL
//! query values are redacted, and Exa keys are shown by their first characters only.

use std::path::PathBuf;
use std::process::ExitCode;

use mcp_config::{DiscoveryContext, DiscoveryOptions, SkipReason, SourceMeta, load_all_configs};
use serde_json::{Value, json};

const USAGE: &str = "usage: discover [--cwd DIR] [--no-project-config] [--app NAME]";

struct Args {
    cwd: Option<PathBuf>,
    project_config: bool,
    app: String,
}

fn parse_args(mut raw: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut args = Args {
        cwd: None,
        project_config: true,
        app: "mcp-runtime".to_owned(),
    };
    while let Some(arg) = raw.next() {
        match arg.as_str() {
            "--cwd" => args.cwd = Some(raw.next().ok_or("--cwd needs a directory")?.into()),
            "--no-project-config" => args.project_config = false,
            "--app" => args.app = raw.next().ok_or("--app needs a name")?,
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown option {other:?}")),
        }
    }
    Ok(args)
}

fn source_json(meta: &SourceMeta) -> Value {
    json!({
        "provider": meta.provider,
        "provider_name": meta.provider_name,
        "path": meta.path,
        "level": meta.level,
    })
}

/// Enough of a key to tell keys apart, not enough to use one.
fn mask(key: &str) -> String {
    let shown: String = key.chars().take(4).collect();
    format!("{shown}… ({} characters)", key.chars().count())
}

fn run(args: Args) -> Result<Value, String> {
    let cwd = match args.cwd {
        Some(cwd) => cwd,
        None => {
            std::env::current_dir().map_err(|error| format!("no current directory: {error}"))?
        }
    };
    let cwd = cwd
        .canonicalize()
        .map_err(|error| format!("{}: {error}", cwd.display()))?;
    let ctx = DiscoveryContext::from_process(args.app, cwd).map_err(|error| error.to_string())?;
    let options = DiscoveryOptions::default()
        .project_config(args.project_config)
        .filter_exa(true);
    let found = load_all_configs(&ctx, &options);
    let servers: Vec<Value> = found
        .servers
        .iter()
        .map(|(name, server)| {
            json!({
                "name": name,
                "transport": server.config.transport_kind(),
                "config": server.config.redacted(),
                "source": source_json(&server.source.meta),
                "shadowed": server.source.shadowed.iter().map(source_json).collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut disabled = Vec::new();
    let mut errors: Vec<Value> = found
        .file_errors
        .iter()
        .map(|problem| json!({"path": problem.path, "server": null, "error": problem.error.to_string()}))
        .collect();
    for skipped in &found.skipped {
        let source = source_json(&skipped.source);
        match &skipped.reason {
            SkipReason::Invalid(invalid) => errors.extend(invalid.problems.iter().map(|problem| {
                json!({"path": skipped.source.path, "server": skipped.name, "error": problem.to_string()})
            })),
            SkipReason::Disabled if !found.servers.contains_key(&skipped.name) => {
                disabled.push(json!({"name": skipped.name, "source": source}));
            }
            _ => {}
        }
    }
    Ok(json!({
        "servers": servers,
        "disabled": disabled,
        "errors": errors,
        "exa_api_keys": found.exa_api_keys.iter().map(|key| mask(key)).collect::<Vec<_>>(),
    }))
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(problem) if problem.is_empty() => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(problem) => {
            eprintln!("discover: {problem}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(args) {
        Ok(report) => {
            println!("{report}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("discover: {error}");
            ExitCode::FAILURE
        }
    }
}
