//! A transport from a Unix socket in a few lines, the way a plugin author would write one.
//!
//! ```text
//! cargo run -p mcp-transport --no-default-features --example unix_socket -- COMMAND [ARGS...]
//! ```
//!
//! It makes a connected pair of Unix sockets, starts `COMMAND` (any stdio MCP server, e.g. the
//! workspace's `mcp-fixture-server`) with its stdin and stdout on one end, and talks MCP over the
//! other end through [`LineTransport`]: newline-delimited JSON over any `AsyncRead` /
//! `AsyncWrite` pair. It builds without the crate's `stdio` feature, because nothing here uses
//! the stdio transport: the socket is the transport.
//!
//! It prints the server's name, its tool count and, when the server has an `echo` tool, the
//! answer to `echo {"message": "over a unix socket"}`. Exit status 0 on success, 1 on failure
//! (one line on stderr), 2 for bad usage.

use std::os::unix::net::UnixStream as StdUnixStream;
use std::process::{Child, Command, ExitCode, Stdio};

use mcp_transport::{ClientOptions, LineTransport, McpClient};
use serde_json::json;
use tokio::net::UnixStream;

type Failure = Box<dyn std::error::Error>;

/// Starts the server with its stdin and stdout on `server_end`.
fn start_server(
    command: &str,
    args: &[String],
    server_end: StdUnixStream,
) -> Result<Child, Failure> {
    let stdout = server_end.try_clone()?;
    Ok(Command::new(command)
        .args(args)
        .stdin(Stdio::from(std::os::fd::OwnedFd::from(server_end)))
        .stdout(Stdio::from(std::os::fd::OwnedFd::from(stdout)))
        .stderr(Stdio::inherit())
        .spawn()?)
}

async fn run(command: &str, args: &[String]) -> Result<(), Failure> {
    let (client_end, server_end) = StdUnixStream::pair()?;
    let mut server = start_server(command, args, server_end)?;

    // The part a plugin author writes: a socket, split in two, is a transport.
    client_end.set_nonblocking(true)?;
    let (read, write) = UnixStream::from_std(client_end)?.into_split();
    let transport = LineTransport::new(read, write);
    let client =
        McpClient::connect("socket", Box::new(transport), ClientOptions::default()).await?;

    let outcome = async {
        let tools = client.list_tools().await?;
        println!("server: {}", client.server_info().name);
        println!("tools: {}", tools.len());
        if tools.iter().any(|tool| tool.name == "echo") {
            let mut arguments = serde_json::Map::new();
            arguments.insert("message".to_owned(), json!("over a unix socket"));
            let result = client.call_tool("echo", Some(arguments)).await?;
            println!("echo: {}", json!(result.content));
        }
        Ok::<(), mcp_transport::Error>(())
    }
    .await;
    // Closing the transport shuts the socket's writing half: the server sees the end of its
    // input and exits, as it would on stdio.
    let closed = client.close().await;
    let exited = server.wait();
    outcome?;
    closed?;
    exited?;
    Ok(())
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1).skip_while(|arg| arg == "--");
    let Some(command) = args.next() else {
        eprintln!("usage: unix_socket -- COMMAND [ARGS...]");
        return ExitCode::from(2);
    };
    let args: Vec<String> = args.collect();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("unix_socket: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(&command, &args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("unix_socket: {error}");
            ExitCode::FAILURE
        }
    }
}
