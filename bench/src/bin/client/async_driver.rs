//! The measurement loop shared by the async clients (ours and rmcp), so both are timed by the
//! same code: warm-up, then sequential calls each timed with `Instant`, client CPU from
//! `getrusage` and server CPU from `/proc/<pid>/task/*/schedstat` (all its threads) around
//! that phase, then warm-up and a pipelined phase where 32 spawned tasks each make one call at
//! a time until M calls are done.
//!
//! The shape says where the sequential calls are awaited: inside a task spawned on a
//! multi-thread runtime, directly in a multi-thread runtime's `block_on` (what
//! `#[tokio::main]` does), or on a current-thread runtime. The pipelined phase always uses
//! spawned tasks (the way to have 32 calls in flight), on the shape's runtime.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_bench_peers::sys::{process_cpu_time, server_cpu_time};
use mcp_bench_peers::{Figures, IN_FLIGHT, Sizes};

use crate::BoxError;

/// Where the client's calls are awaited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// In a task spawned on a multi-thread runtime.
    SpawnedTask,
    /// Directly in a multi-thread runtime's `block_on`, as `#[tokio::main]` does.
    BlockOn,
    /// On a current-thread runtime.
    CurrentThread,
}

impl Shape {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::SpawnedTask => "spawned-task",
            Self::BlockOn => "block_on",
            Self::CurrentThread => "current-thread",
        }
    }

    pub(crate) fn runtime(self) -> std::io::Result<tokio::runtime::Runtime> {
        let mut builder = match self {
            Self::SpawnedTask | Self::BlockOn => tokio::runtime::Builder::new_multi_thread(),
            Self::CurrentThread => tokio::runtime::Builder::new_current_thread(),
        };
        builder.enable_all().build()
    }
}

/// A connected client that can make one checked echo call.
pub(crate) trait EchoClient: Send + Sync + 'static {
    /// One `tools/call echo`; a tool error is an error.
    fn echo(&self) -> impl Future<Output = Result<(), BoxError>> + Send;
}

/// Warm-up, the sequential phase and the pipelined phase against a connected client whose
/// server process is `server_pid`.
pub(crate) async fn measure<C: EchoClient>(
    client: Arc<C>,
    server_pid: u32,
    sizes: Sizes,
    name: &str,
    shape: Shape,
) -> Result<Figures, BoxError> {
    for _ in 0..sizes.warmup {
        client.echo().await?;
    }
    let mut samples = Vec::with_capacity(sizes.sequential);
    let server_before = server_cpu_time(server_pid)?;
    let cpu_before = process_cpu_time()?;
    for _ in 0..sizes.sequential {
        let started = Instant::now();
        client.echo().await?;
        samples.push(started.elapsed());
    }
    let client_cpu = process_cpu_time()?.saturating_sub(cpu_before);
    let server_cpu = server_cpu_time(server_pid)?.saturating_sub(server_before);

    pipelined(&client, sizes.warmup).await?;
    let elapsed = pipelined(&client, sizes.pipelined).await?;
    Ok(Figures::new(
        name,
        shape.name(),
        &mut samples,
        client_cpu,
        server_cpu,
        (sizes.pipelined, elapsed),
    ))
}

/// [`IN_FLIGHT`] spawned tasks, each making one call at a time until `calls` are made in all.
async fn pipelined<C: EchoClient>(client: &Arc<C>, calls: usize) -> Result<Duration, BoxError> {
    let remaining = Arc::new(AtomicUsize::new(calls));
    let started = Instant::now();
    let workers: Vec<_> = (0..IN_FLIGHT)
        .map(|_| {
            let client = Arc::clone(client);
            let remaining = Arc::clone(&remaining);
            tokio::spawn(async move {
                while remaining
                    .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                    .is_ok()
                {
                    client.echo().await?;
                }
                Ok::<(), BoxError>(())
            })
        })
        .collect();
    for worker in workers {
        worker.await??;
    }
    Ok(started.elapsed())
}

/// Runs `body` in the given shape on a fresh runtime of that shape.
pub(crate) fn run_in_shape<F>(shape: Shape, body: F) -> Result<Figures, BoxError>
where
    F: Future<Output = Result<Figures, BoxError>> + Send + 'static,
{
    let runtime = shape.runtime()?;
    let result = match shape {
        Shape::SpawnedTask => runtime.block_on(async move {
            tokio::spawn(body)
                .await
                .map_err(|error| -> BoxError { Box::new(error) })?
        }),
        Shape::BlockOn | Shape::CurrentThread => runtime.block_on(body),
    };
    runtime.shutdown_timeout(Duration::from_secs(5));
    result
}
