//! Connects to any MCP server, stdio or remote, and prints what it offers as one JSON object.
//!
//! ```text
//! cargo run -p mcp-transport --example probe -- [OPTIONS] -- COMMAND [ARGS...]
//! cargo run -p mcp-transport --example probe -- [OPTIONS] --url URL [--transport T] [--header H]...
//!
//! OPTIONS
//!   --call TOOL        also call TOOL and print its result under "call"
//!   --args JSON        the arguments of --call, a JSON object (default {})
//!   --timeout-ms N     connect timeout and per-request timeout in milliseconds (default 30000)
//!   --name NAME        the server's name in messages (default: the command's file name, or
//!                      the URL's host)
//!   --protocol-version V  speak V without finding the server's era first (a handshake-era
//!                      version goes straight to `initialize`, with no `server/discover` probe)
//! stdio servers
//!   --env KEY=VALUE    add a variable to the server's environment (repeatable)
//!   --cwd DIR          run the server in DIR
//! remote servers
//!   --url URL          the server's MCP endpoint (Streamable HTTP) or SSE stream (legacy)
//!   --transport T      auto (default: Streamable HTTP, falling back to legacy SSE), http or sse
//!   --header 'N: V'    send this header with every request (repeatable)
//! ```
//!
//! Output: `{"protocolVersion", "serverInfo", "capabilities", "instructions", "tools": [...]}`,
//! plus `"call": <CallToolResult>` with `--call`. Exit status 0 on success; on failure one line
//! on stderr and exit status 1 (2 for bad usage).

use std::process::ExitCode;
use std::time::Duration;

use mcp_transport::http::{HttpServerParams, RemoteTransport};
use mcp_transport::{ClientOptions, JsonObject, McpClient, ProtocolVersion, StdioServerParams};
use serde_json::{Value, json};

struct Args {
    call: Option<(String, JsonObject)>,
    timeout: Duration,
    name: Option<String>,
    protocol_version: Option<ProtocolVersion>,
    server: Server,
}

enum Server {
    Stdio {
        env: Vec<(String, String)>,
        cwd: Option<String>,
        command: String,
        command_args: Vec<String>,
    },
    Remote(HttpServerParams),
}

const USAGE: &str = "usage: probe [--call TOOL [--args JSON]] [--timeout-ms N] [--name NAME] \
                     ([--env KEY=VALUE]... [--cwd DIR] -- COMMAND [ARGS...] \
                     | --url URL [--transport auto|http|sse] [--header 'Name: value']...)";

fn parse_args(mut raw: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut call = None;
    let mut call_args = None;
    let mut timeout = Duration::from_secs(30);
    let mut env = Vec::new();
    let mut cwd = None;
    let mut name = None;
    let mut protocol_version = None;
    let mut url = None;
    let mut transport = RemoteTransport::Auto;
    let mut headers = Vec::new();
    let value_of = |flag: &str, raw: &mut dyn Iterator<Item = String>| {
        raw.next().ok_or_else(|| format!("{flag} needs a value"))
    };
    loop {
        let Some(arg) = raw.next() else {
            if url.is_some() {
                break;
            }
            return Err("missing `-- COMMAND` or `--url URL`".to_owned());
        };
        match arg.as_str() {
            "--" => break,
            "--url" => url = Some(value_of("--url", &mut raw)?),
            "--transport" => {
                transport = match value_of("--transport", &mut raw)?.as_str() {
                    "auto" => RemoteTransport::Auto,
                    "http" => RemoteTransport::StreamableHttp,
                    "sse" => RemoteTransport::Sse,
                    other => {
                        return Err(format!("--transport is auto, http or sse, not {other:?}"));
                    }
                };
            }
            "--header" => {
                let text = value_of("--header", &mut raw)?;
                let (key, value) = text.split_once(':').ok_or("--header needs 'Name: value'")?;
                headers.push((key.trim().to_owned(), value.trim().to_owned()));
            }
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
            "--protocol-version" => {
                let text = value_of("--protocol-version", &mut raw)?;
                let version = ProtocolVersion::parse(&text).ok_or_else(|| {
                    format!("--protocol-version {text:?} is not one this client speaks")
                })?;
                protocol_version = Some(version);
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown option {other:?}")),
        }
    }
    if call.is_none() && call_args.is_some() {
        return Err("--args needs --call TOOL".to_owned());
    }
    let server = match url {
        Some(url) => {
            if !env.is_empty() || cwd.is_some() || raw.next().is_some() {
                return Err("--url takes no COMMAND, --env or --cwd".to_owned());
            }
            let mut params = HttpServerParams::new(&url)
                .map_err(|error| error.to_string())?
                .transport(transport);
            for (key, value) in headers {
                params = params
                    .header(&key, &value)
                    .map_err(|error| error.to_string())?;
            }
            Server::Remote(params)
        }
        None => Server::Stdio {
            env,
            cwd,
            command: raw.next().ok_or("missing COMMAND after `--`")?,
            command_args: raw.collect(),
        },
    };
    Ok(Args {
        call: call.map(|tool| (tool, call_args.unwrap_or_default())),
        timeout,
        name,
        protocol_version,
        server,
    })
}

async fn connect(
    args: Args,
) -> Result<(McpClient, Option<(String, JsonObject)>), mcp_transport::Error> {
    let mut options = ClientOptions::default()
        .connect_timeout(args.timeout)
        .request_timeout(Some(args.timeout));
    if let Some(version) = args.protocol_version {
        options = options.protocol_version(version);
    }
    let client = match args.server {
        Server::Stdio {
            env,
            cwd,
            command,
            command_args,
        } => {
            let name = args.name.unwrap_or_else(|| {
                std::path::Path::new(&command).file_name().map_or_else(
                    || command.clone(),
                    |name| name.to_string_lossy().into_owned(),
                )
            });
            let mut params = StdioServerParams::new(command, command_args);
            params.env = env;
            if let Some(cwd) = cwd {
                params = params.cwd(cwd);
            }
            McpClient::connect_stdio(&name, params, options).await?
        }
        Server::Remote(params) => {
            let name = args
                .name
                .unwrap_or_else(|| params.url.host_str().unwrap_or("remote").to_owned());
            McpClient::connect_http(&name, params, options).await?
        }
    };
    Ok((client, args.call))
}

async fn probe(args: Args) -> Result<Value, mcp_transport::Error> {
    let (client, call) = connect(args).await?;
    let outcome = async {
        let tools = client.list_tools().await?;
        let mut report = json!({
            "protocolVersion": client.protocol_version().as_str(),
            "serverInfo": client.server_info(),
            "capabilities": client.capabilities(),
            "instructions": client.instructions(),
            "tools": tools,
        });
        if let Some((tool, arguments)) = call {
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
