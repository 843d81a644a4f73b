//! `--diagnose`: sequential variants of our client that each remove one suspected cost, to
//! show where the time over the floor goes. Not part of the targets.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_transport::{CallToolResult, ClientOptions, McpClient, RequestOptions, StdioServerParams};
use serde_json::json;
use serde_json::value::RawValue;

use crate::ours::Flavor;
use crate::stats::{Sequential, Sizes};
use crate::sys::process_cpu_time;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// One way of making the sequential calls.
#[derive(Debug, Clone, Copy)]
struct Variant {
    label: &'static str,
    flavor: Flavor,
    /// Run the loop in a spawned task instead of in `block_on` (multi-thread: on a worker).
    in_task: bool,
    /// The client's default 60 s request timeout (a timer per call) or none.
    timeout: bool,
    api: Api,
}

/// How each call is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Api {
    /// `call_tool`: arguments cloned, result decoded as `CallToolResult`.
    CallTool,
    /// `peer().request` with borrowed params, result decoded as `CallToolResult`.
    PeerTyped,
    /// `peer().request` with borrowed params, result kept as raw JSON (no decoding).
    PeerRaw,
}

const CT: Flavor = Flavor::CurrentThread;
const MT: Flavor = Flavor::MultiThread;

/// (label, runtime, loop in a spawned task, 60 s request timeout, API)
#[rustfmt::skip]
const VARIANTS: [(&str, Flavor, bool, bool, Api); 9] = [
    ("ct  call_tool (as measured above)",        CT, false, true,  Api::CallTool),
    ("ct  call_tool, no request timeout",        CT, false, false, Api::CallTool),
    ("ct  peer.request -> CallToolResult",       CT, false, true,  Api::PeerTyped),
    ("ct  peer.request -> RawValue",             CT, false, true,  Api::PeerRaw),
    ("ct  peer.request -> RawValue, no timeout", CT, false, false, Api::PeerRaw),
    ("ct  call_tool in a spawned task",          CT, true,  true,  Api::CallTool),
    ("mt  call_tool in block_on (as above)",     MT, false, true,  Api::CallTool),
    ("mt  call_tool in a spawned task",          MT, true,  true,  Api::CallTool),
    ("mt  spawned, RawValue, no timeout",        MT, true,  false, Api::PeerRaw),
];

/// Everything a call needs, prepared once so the loop holds nothing but the call.
struct Caller {
    api: Api,
    arguments: mcp_transport::JsonObject,
    params: serde_json::Value,
    options: RequestOptions,
}

impl Caller {
    fn new(variant: Variant) -> Self {
        let mut arguments = mcp_transport::JsonObject::new();
        arguments.insert("message".to_owned(), "ping".into());
        Self {
            api: variant.api,
            arguments,
            params: json!({"name": "echo", "arguments": {"message": "ping"}}),
            options: if variant.timeout {
                RequestOptions::with_timeout(Duration::from_secs(60))
            } else {
                RequestOptions::default()
            },
        }
    }

    async fn call(&self, client: &McpClient) -> Result<(), BoxError> {
        match self.api {
            Api::CallTool => {
                client
                    .call_tool("echo", Some(self.arguments.clone()))
                    .await?;
            }
            Api::PeerTyped => {
                let _: CallToolResult = client
                    .peer()
                    .request("tools/call", Some(&self.params), &self.options)
                    .await?;
            }
            Api::PeerRaw => {
                let _: Box<RawValue> = client
                    .peer()
                    .request("tools/call", Some(&self.params), &self.options)
                    .await?;
            }
        }
        Ok(())
    }
}

async fn measure(
    client: Arc<McpClient>,
    variant: Variant,
    sizes: Sizes,
) -> Result<Sequential, BoxError> {
    let caller = Caller::new(variant);
    for _ in 0..sizes.warmup {
        caller.call(&client).await?;
    }
    let mut samples = Vec::with_capacity(sizes.sequential);
    let cpu_before = process_cpu_time()?;
    for _ in 0..sizes.sequential {
        let started = Instant::now();
        caller.call(&client).await?;
        samples.push(started.elapsed());
    }
    let cpu = process_cpu_time()?.saturating_sub(cpu_before);
    Ok(Sequential::from_samples(&mut samples, cpu))
}

fn run_variant(
    variant: Variant,
    program: &Path,
    args: &[String],
    sizes: Sizes,
) -> Result<Sequential, BoxError> {
    let runtime = variant.flavor.build()?;
    let params = StdioServerParams::new(program.to_string_lossy().into_owned(), args.to_vec());
    let options = ClientOptions::default()
        .request_timeout(variant.timeout.then_some(Duration::from_secs(60)));
    let result = runtime.block_on(async {
        let client = Arc::new(McpClient::connect_stdio("fixture", params, options).await?);
        let measured = if variant.in_task {
            tokio::spawn(measure(Arc::clone(&client), variant, sizes)).await?
        } else {
            measure(Arc::clone(&client), variant, sizes).await
        };
        client.close().await?;
        measured
    });
    runtime.shutdown_timeout(Duration::from_secs(5));
    result
}

/// Runs every variant and prints one line each.
pub(crate) fn run(program: &Path, args: &[String], sizes: &Sizes) -> Result<(), BoxError> {
    println!();
    println!(
        "diagnosis: sequential variants of our client ({} calls each)",
        sizes.sequential
    );
    println!(
        "{:<44} {:>9} {:>9} {:>9}",
        "variant", "p50 µs", "p99 µs", "CPU µs"
    );
    for (label, flavor, in_task, timeout, api) in VARIANTS {
        let variant = Variant {
            label,
            flavor,
            in_task,
            timeout,
            api,
        };
        let seq = run_variant(variant, program, args, *sizes)?;
        println!(
            "{:<44} {:>9.2} {:>9.2} {:>9.2}",
            variant.label,
            crate::stats::micros(seq.p50),
            crate::stats::micros(seq.p99),
            crate::stats::micros(seq.cpu_per_call),
        );
    }
    Ok(())
}

/// The fixture's answer to an echo call, as it arrives.
const RESPONSE: &[u8] =
    br#"{"jsonrpc":"2.0","id":123456,"result":{"content":[{"type":"text","text":"ping"}]}}"#;

/// What a reader must find in every message to route it.
#[derive(serde::Deserialize)]
struct Routing<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<&'a str>,
}

/// A response whose result is decoded as `R`.
#[derive(serde::Deserialize)]
struct Answer<R> {
    #[serde(default = "Option::default")]
    result: Option<R>,
    #[serde(default)]
    error: Option<Box<RawValue>>,
}

/// Nanoseconds per run of `work`, best of a few rounds.
fn nanos_per(mut work: impl FnMut() -> Result<(), serde_json::Error>) -> Result<f64, BoxError> {
    const ROUNDS: usize = 5;
    const ITERATIONS: u32 = 100_000;
    let mut best = f64::INFINITY;
    for _ in 0..ROUNDS {
        let started = Instant::now();
        for _ in 0..ITERATIONS {
            work()?;
        }
        best = best.min(started.elapsed().as_nanos() as f64 / f64::from(ITERATIONS));
    }
    Ok(best)
}

/// In-process cost of the decoding steps one echo answer goes through.
pub(crate) fn decode_costs() -> Result<(), BoxError> {
    println!();
    println!(
        "diagnosis: decoding one echo answer ({} bytes), in-process, ns per call",
        RESPONSE.len()
    );
    let routing = nanos_per(|| {
        let routing: Routing<'_> = serde_json::from_slice(std::hint::black_box(RESPONSE))?;
        std::hint::black_box((routing.id, routing.method));
        Ok(())
    })?;
    let typed = nanos_per(|| {
        let answer: Answer<CallToolResult> =
            serde_json::from_slice(std::hint::black_box(RESPONSE))?;
        std::hint::black_box((answer.result, answer.error));
        Ok(())
    })?;
    let raw = nanos_per(|| {
        let answer: Answer<Box<RawValue>> = serde_json::from_slice(std::hint::black_box(RESPONSE))?;
        std::hint::black_box((answer.result, answer.error));
        Ok(())
    })?;
    let value = nanos_per(|| {
        let value: serde_json::Value = serde_json::from_slice(std::hint::black_box(RESPONSE))?;
        std::hint::black_box(value);
        Ok(())
    })?;
    println!(
        "{:<58} {:>8.0}",
        "routing pass (id + method, rest skipped)", routing
    );
    println!(
        "{:<58} {:>8.0}",
        "response decoded as CallToolResult", typed
    );
    println!(
        "{:<58} {:>8.0}",
        "response with the result kept as RawValue", raw
    );
    println!(
        "{:<58} {:>8.0}",
        "response as serde_json::Value (for scale)", value
    );
    Ok(())
}
