//! Connects to any stdio MCP server and prints what it offers as one JSON object.
//!
//! ```text
//! cargo run -p mcp-transport --example probe -- [OPTIONS] -- COMMAND [ARGS...]
//!
//! OPTIONS
//!   --call TOOL        also call TOOL and print its result under "call"
//!   --args JSON        the arguments of --call, a JSON object (default {})
//!   --timeout-ms N     connect timeout and per-request timeout in milliseconds (default 30000)
//!   --env KEY=VALUE    add a variable to the server's environment (repeatable)
//!   --cwd DIR          run the server in DIR
//!   --name NAME        the server's name in messages (default: the command's file name)
//! ```
//!
//! Output: `{"protocolVersion", "serverInfo", "capabilities", "instructions", "tools": [...]}`,
//! plus `"call": <CallToolResult>` with `--call`. Exit status 0 on success; on failure one line
//! on stderr and exit status 1 (2 for bad usage).

use std::process::ExitCode;
use std::time::Duration;

use mcp_transport::{ClientOptions, JsonObject, McpClient, StdioServerParams};
use serde_json::{Value, json};

struct Args {
    call: Option<(String, JsonObject)>,
    timeout: Duration,
    env: Vec<(String, String)>,
    cwd: Option<String>,
    name: Option<String>,
    command: String,
    command_args: Vec<String>,
}

const USAGE: &str = "usage: probe [--call TOOL [--args JSON]] [--timeout-ms N] [--env KEY=VALUE]... \
                     [--cwd DIR] [--name NAME] -- COMMAND [ARGS...]";

fn parse_args(mut raw: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut call = None;
    let mut call_args = None;
    let mut timeout = Duration::from_secs(30);
    let mut env = Vec::new();
    let mut cwd = None;
    let mut name = None;
    let value_of = |flag: &str, raw: &mut dyn Iterator<Item = String>| {
        raw.next().ok_or_else(|| format!("{flag} needs a value"))
    };
    loop {
        let Some(arg) = raw.next() else {
            return Err("missing `-- COMMAND`".to_owned());
        };
        match arg.as_str() {
            "--" => break,
            "--call" => call = Some(value_of("--call", &mut raw)?),
            "--args" => {
                let text = value_of("--args", &mut raw)?;
                let parsed: Value = serde_json::from_str(&text)
                    .map_err(|error| format!("--args is not valid JSON: {error}"))?;
                let Value::Object(object) = parsed else {
                    return Err("--args must be a JSON object".to_owned());
                };
                call_args = Some(object);
            }
            "--timeout-ms" => {
                let text = value_of("--timeout-ms", &mut raw)?;
                let millis: u64 = text.parse().map_err(|_| {
                    format!("--timeout-ms needs a number of milliseconds, not {text:?}")
                })?;
                timeout = Duration::from_millis(millis);
            }
            "--env" => {
                let text = value_of("--env", &mut raw)?;
                let (key, value) = text
                    .split_once('=')
                    .ok_or_else(|| format!("--env needs KEY=VALUE, not {text:?}"))?;
                env.push((key.to_owned(), value.to_owned()));
            }
            "--cwd" => cwd = Some(value_of("--cwd", &mut raw)?),
            "--name" => name = Some(value_of("--name", &mut raw)?),
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown option {other:?}")),
        }
    }
    let command = raw.next().ok_or("missing COMMAND after `--`")?;
    if call.is_none() && call_args.is_some() {
        return Err("--args needs --call TOOL".to_owned());
    }
    Ok(Args {
        call: call.map(|tool| (tool, call_args.unwrap_or_default())),
        timeout,
        env,
        cwd,
        name,
        command,
        command_args: raw.collect(),
    })
}

async fn probe(args: Args) -> Result<Value, mcp_transport::Error> {
    let name = args.name.unwrap_or_else(|| {
        std::path::Path::new(&args.command).file_name().map_or_else(
            || args.command.clone(),
            |name| name.to_string_lossy().into_owned(),
        )
    });
    let mut params = StdioServerParams::new(args.command, args.command_args);
    params.env = args.env;
    if let Some(cwd) = args.cwd {
        params = params.cwd(cwd);
    }
    let options = ClientOptions::default()
        .connect_timeout(args.timeout)
        .request_timeout(Some(args.timeout));
    let client = McpClient::connect_stdio(&name, params, options).await?;
    let outcome = async {
        let tools = client.list_tools().await?;
        let mut report = json!({
            "protocolVersion": client.protocol_version().as_str(),
            "serverInfo": client.server_info(),
            "capabilities": client.capabilities(),
            "instructions": client.instructions(),
            "tools": tools,
        });
        if let Some((tool, arguments)) = args.call {
            let result = client.call_tool(&tool, Some(arguments)).await?;
            report["call"] = json!(result);
        }
        Ok(report)
    }
    .await;
    let closed = client.close().await;
    let report = outcome?;
    closed?;
    Ok(report)
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(problem) if problem.is_empty() => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(problem) => {
            eprintln!("probe: {problem}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("probe: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(probe(args)) {
        Ok(report) => {
            println!("{report}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("probe: {}", error.to_string().replace('\n', " "));
            ExitCode::FAILURE
        }
    }
}
