//! Our client: `McpClient::call_tool("echo")` over the stdio transport, on a tokio runtime.

use std::error::Error;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_transport::{ClientOptions, JsonObject, McpClient, StdioServerParams};

use crate::stats::{ClientFigures, Pipelined, Sequential, Sizes};
use crate::sys::process_cpu_time;

type BoxError = Box<dyn Error + Send + Sync>;

/// Which tokio runtime drives the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// `Builder::new_multi_thread()` with the default worker count.
    MultiThread,
    /// `Builder::new_current_thread()`.
    CurrentThread,
}

impl Flavor {
    pub(crate) fn key(self) -> &'static str {
        match self {
            Self::MultiThread => "ours_mt",
            Self::CurrentThread => "ours_ct",
        }
    }

    pub(crate) fn build(self) -> std::io::Result<tokio::runtime::Runtime> {
        let mut builder = match self {
            Self::MultiThread => tokio::runtime::Builder::new_multi_thread(),
            Self::CurrentThread => tokio::runtime::Builder::new_current_thread(),
        };
        builder.enable_all().build()
    }
}

fn echo_arguments() -> JsonObject {
    let mut arguments = JsonObject::new();
    arguments.insert("message".to_owned(), "ping".into());
    arguments
}

/// One `call_tool("echo")`, checked: a tool error is an error here.
async fn call(client: &McpClient, arguments: &JsonObject) -> Result<(), BoxError> {
    let result = client.call_tool("echo", Some(arguments.clone())).await?;
    if result.is_error {
        return Err(format!("the echo tool failed: {:?}", result.content).into());
    }
    Ok(())
}

async fn sequential(client: &McpClient, calls: usize) -> Result<Sequential, BoxError> {
    let arguments = echo_arguments();
    let mut samples = Vec::with_capacity(calls);
    let cpu_before = process_cpu_time()?;
    for _ in 0..calls {
        let started = Instant::now();
        call(client, &arguments).await?;
        samples.push(started.elapsed());
    }
    let cpu = process_cpu_time()?.saturating_sub(cpu_before);
    Ok(Sequential::from_samples(&mut samples, cpu))
}

/// `in_flight` tasks, each making one call at a time until `calls` have been made in all.
async fn pipelined(
    client: &Arc<McpClient>,
    calls: usize,
    in_flight: usize,
) -> Result<Pipelined, BoxError> {
    let remaining = Arc::new(AtomicUsize::new(calls));
    let cpu_before = process_cpu_time()?;
    let started = Instant::now();
    let workers: Vec<_> = (0..in_flight)
        .map(|_| {
            let client = Arc::clone(client);
            let remaining = Arc::clone(&remaining);
            tokio::spawn(async move {
                let arguments = echo_arguments();
                while remaining
                    .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                    .is_ok()
                {
                    call(&client, &arguments).await?;
                }
                Ok::<(), BoxError>(())
            })
        })
        .collect();
    for worker in workers {
        worker.await??;
    }
    let elapsed = started.elapsed();
    let cpu = process_cpu_time()?.saturating_sub(cpu_before);
    Ok(Pipelined::new(calls, elapsed, cpu))
}

async fn measure(
    program: &Path,
    args: &[String],
    sizes: &Sizes,
) -> Result<(Sequential, Pipelined), BoxError> {
    let params = StdioServerParams::new(program.to_string_lossy().into_owned(), args.to_vec());
    let client =
        Arc::new(McpClient::connect_stdio("fixture", params, ClientOptions::default()).await?);

    // The first answer proves the echo round trip works before anything is timed.
    let first = client.call_tool("echo", Some(echo_arguments())).await?;
    if first.content.first().and_then(|block| block.as_text()) != Some("ping") {
        return Err(format!("unexpected echo answer: {first:?}").into());
    }
    sequential(&client, sizes.sequential_warmup().saturating_sub(1)).await?;
    let sequential = sequential(&client, sizes.sequential).await?;
    pipelined(&client, sizes.pipelined_warmup(), sizes.in_flight).await?;
    let pipelined = pipelined(&client, sizes.pipelined, sizes.in_flight).await?;
    client.close().await?;
    Ok((sequential, pipelined))
}

/// Runs our client against a freshly spawned fixture server, on a runtime of its own.
pub(crate) fn run(
    flavor: Flavor,
    program: &Path,
    args: &[String],
    sizes: &Sizes,
) -> Result<ClientFigures, BoxError> {
    let runtime = flavor.build()?;
    let workers = runtime.metrics().num_workers();
    // An agent runs its tool calls in runtime tasks, so the multi-thread client is measured
    // from a spawned task; calling from `block_on` on a thread outside the runtime adds a
    // cross-thread wake per call (see `--diagnose`).
    let measured = match flavor {
        Flavor::MultiThread => {
            let (program, args, sizes) = (program.to_owned(), args.to_vec(), *sizes);
            runtime.block_on(async move {
                tokio::spawn(async move { measure(&program, &args, &sizes).await })
                    .await
                    .map_err(|error| -> BoxError { Box::new(error) })?
            })
        }
        Flavor::CurrentThread => runtime.block_on(measure(program, args, sizes)),
    };
    runtime.shutdown_timeout(Duration::from_secs(5));
    let (sequential, pipelined) = measured?;
    let label = match flavor {
        Flavor::MultiThread => format!("McpClient, multi-thread ({workers} workers), in a task"),
        Flavor::CurrentThread => "McpClient, current-thread".to_owned(),
    };
    Ok(ClientFigures {
        key: flavor.key(),
        label,
        sequential,
        pipelined,
    })
}
