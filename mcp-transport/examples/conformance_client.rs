//! The client the official MCP conformance suite drives (`cargo xtask conformance`).
//!
//! ```text
//! cargo run -p mcp-transport --example conformance-client -- URL
//! ```
//!
//! The suite starts a mock server for a scenario, runs this program with the server's URL as
//! its last argument and the scenario's name in `MCP_CONFORMANCE_SCENARIO`, and then judges what
//! the server saw. For every scenario the client connects over Streamable HTTP, lists the tools
//! and calls the one the scenario is about (if any), answering elicitations with the defaults of
//! their schema, and closes. Exit status 0 when all of that worked; otherwise one line on
//! stderr and status 1. The skills scenarios (`sep-2640-client-*`) list the server's skills and,
//! except `no-prefetch`, load each one, its files checked against the listing
//! ([`McpClient::load_skill`]).
//!
//! The `auth/*` scenarios put an authorization server in front of the MCP server. The client
//! then authorizes through [`OAuthAuthorizer`] with credentials kept in memory; the browser
//! step is played by [`FollowRedirect`], which asks for the authorization URL and reads the
//! redirect the mock authorization server answers with at once. What a scenario gives the
//! client beforehand (a pre-registered client, client credentials, an identity provider's ID
//! token, a workload's JWT) comes as JSON in `MCP_CONFORMANCE_CONTEXT` and picks the [`Grant`].
//! The DPoP scenarios (`auth/dpop`, `auth/dpop-nonce`) run with the defaults: the server's
//! `DPoP` challenge is what turns DPoP on ([`mcp_transport::oauth::Dpop::Auto`]).

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use mcp_transport::handlers::{ElicitRequest, ElicitResult, ElicitationHandler};
use mcp_transport::http::{HttpServerParams, RemoteTransport, Url};
use mcp_transport::oauth::{
    AuthorizationHandler, ClientCredential, Grant, IdentityAssertion, MemoryCredentialStore,
    OAuthAuthorizer, OAuthError, OAuthOptions, OpenableUrl, PendingRedirect, PreRegisteredClient,
    Secret, WorkloadIdentity,
};
use mcp_transport::{ClientOptions, ErrorObject, JsonObject, McpClient, ProtocolVersion};
use serde::Deserialize;
use serde_json::json;

/// The client ID metadata document the suite's authorization servers accept as a client ID.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";
/// The redirect URI registered; nothing listens there, [`FollowRedirect`] reads the redirect.
const REDIRECT_URI: &str = "http://localhost:3000/callback";

/// Accepts every form with the defaults its schema declares (SEP-1034).
struct AcceptDefaults;

#[async_trait]
impl ElicitationHandler for AcceptDefaults {
    async fn elicit(
        &self,
        _server: &str,
        request: ElicitRequest,
    ) -> Result<ElicitResult, ErrorObject> {
        Ok(ElicitResult::accept(request.defaults()))
    }
}

/// The browser step without a browser: the suite's authorization servers redirect at once, so
/// asking for the authorization URL (without following redirects) gives the redirect.
struct FollowRedirect;

struct Redirect {
    redirect_uri: Url,
}

#[async_trait]
impl AuthorizationHandler for FollowRedirect {
    async fn prepare(&self) -> Result<Box<dyn PendingRedirect>, OAuthError> {
        let redirect_uri =
            Url::parse(REDIRECT_URI).map_err(|error| OAuthError::Redirect(error.to_string()))?;
        Ok(Box::new(Redirect { redirect_uri }))
    }
}

#[async_trait]
impl PendingRedirect for Redirect {
    fn redirect_uri(&self) -> &Url {
        &self.redirect_uri
    }

    async fn complete(&mut self, authorization_url: &OpenableUrl) -> Result<Url, OAuthError> {
        let failed = |error: &dyn std::fmt::Display| OAuthError::Redirect(error.to_string());
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|error| failed(&error))?;
        let response = client
            .get(authorization_url.url().clone())
            .send()
            .await
            .map_err(|error| failed(&error))?;
        let location = response
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|value| value.to_str().ok())
            .ok_or_else(|| failed(&format!("HTTP {} and no redirect", response.status())))?;
        authorization_url
            .url()
            .join(location)
            .map_err(|error| failed(&error))
    }
}

/// What the runner hands the client for some scenarios (`MCP_CONFORMANCE_CONTEXT`).
#[derive(Deserialize, Default, Clone)]
struct Context {
    client_id: Option<String>,
    client_secret: Option<String>,
    private_key_pem: Option<String>,
    idp_client_id: Option<String>,
    idp_id_token: Option<String>,
    idp_token_endpoint: Option<String>,
    /// The workload's JWT (`auth/wif-jwt-bearer`); the scenario's other JWTs (expired, for
    /// another audience) are never sent.
    valid_jwt: Option<String>,
    #[serde(default, rename = "toolCalls")]
    tool_calls: Vec<ToolCall>,
}

fn context() -> Result<Context, Box<dyn std::error::Error>> {
    match std::env::var("MCP_CONFORMANCE_CONTEXT") {
        Ok(text) => Ok(serde_json::from_str(&text)?),
        Err(_) => Ok(Context::default()),
    }
}

fn required(value: Option<String>, name: &str) -> Result<String, Box<dyn std::error::Error>> {
    value.ok_or_else(|| format!("MCP_CONFORMANCE_CONTEXT has no {name}").into())
}

/// How the client obtains tokens in `scenario`.
fn grant_of(scenario: &str, context: &Context) -> Result<Grant, Box<dyn std::error::Error>> {
    let context = context.clone();
    Ok(match scenario {
        "auth/pre-registration" => Grant::AuthorizationCode {
            client: Some(PreRegisteredClient::new(
                required(context.client_id, "client_id")?,
                context.client_secret.map(Secret::new),
            )),
        },
        "auth/client-credentials-basic" => Grant::ClientCredentials {
            client_id: required(context.client_id, "client_id")?,
            credential: ClientCredential::Secret(Secret::new(required(
                context.client_secret,
                "client_secret",
            )?)),
        },
        "auth/client-credentials-jwt" => Grant::ClientCredentials {
            client_id: required(context.client_id, "client_id")?,
            credential: ClientCredential::PrivateKeyJwt {
                private_key_pem: Secret::new(required(context.private_key_pem, "private_key_pem")?)
                    .into(),
            },
        },
        // The extension's name since 0.2; the older suites called it cross-app access.
        "auth/enterprise-managed-authorization" | "auth/cross-app-access-complete-flow" => {
            Grant::IdentityAssertion(IdentityAssertion::new(
                required(context.client_id, "client_id")?,
                Secret::new(required(context.client_secret, "client_secret")?),
                Url::parse(&required(context.idp_token_endpoint, "idp_token_endpoint")?)?,
                required(context.idp_client_id, "idp_client_id")?,
                Secret::new(required(context.idp_id_token, "idp_id_token")?),
            ))
        }
        "auth/wif-jwt-bearer" => {
            let mut identity =
                WorkloadIdentity::new(Secret::new(required(context.valid_jwt, "valid_jwt")?));
            if let Some(client_id) = context.client_id {
                identity = identity.client_id(client_id);
            }
            Grant::WorkloadIdentity(identity)
        }
        _ => Grant::AuthorizationCode { client: None },
    })
}

/// A tool call a scenario hands the client in its context (`toolCalls`).
#[derive(Deserialize, Clone)]
struct ToolCall {
    name: String,
    #[serde(default)]
    arguments: JsonObject,
}

fn arguments(value: serde_json::Value) -> JsonObject {
    match value {
        serde_json::Value::Object(object) => object,
        _ => JsonObject::new(),
    }
}

/// The tool calls a scenario expects, in order, with their arguments.
fn tool_calls(
    scenario: &str,
    context: &Context,
    tools: &[mcp_transport::Tool],
) -> Vec<(String, JsonObject)> {
    let call = |name: &str, value: serde_json::Value| (name.to_owned(), arguments(value));
    match scenario {
        "tools_call" => vec![call("add_numbers", json!({"a": 5, "b": 3}))],
        "elicitation-sep1034-client-defaults" => {
            vec![call("test_client_elicitation_defaults", json!({}))]
        }
        "sse-retry" => vec![call("test_reconnection", json!({}))],
        "http-standard-headers" => tools
            .iter()
            .map(|tool| (tool.name.clone(), JsonObject::new()))
            .collect(),
        "http-custom-headers" => context
            .tool_calls
            .iter()
            .map(|call| (call.name.clone(), call.arguments.clone()))
            .collect(),
        "http-invalid-tool-headers" => vec![call("valid_tool", json!({"region": "us-west1"}))],
        "sep-2322-client-request-state" => vec![
            call("test_mrtr_echo_state", json!({})),
            call("test_mrtr_unrelated", json!({})),
            call("test_mrtr_no_state", json!({})),
            call("test_mrtr_no_result_type", json!({})),
        ],
        // Sends back the schema of the 2020-12 tool as this client keeps it.
        "json-schema-2020-12-preservation" => tools
            .iter()
            .find(|tool| tool.name == "json_schema_2020_12_tool")
            .map(|tool| {
                let mut arguments = JsonObject::new();
                arguments.insert(
                    "schema".into(),
                    serde_json::Value::Object(tool.input_schema.to_object()),
                );
                vec![("json_schema_echo".to_owned(), arguments)]
            })
            .unwrap_or_default(),
        auth if auth.starts_with("auth/") => vec![call("test-tool", json!({}))],
        _ => Vec::new(),
    }
}

async fn run(url: &str, scenario: &str) -> Result<(), Box<dyn std::error::Error>> {
    let context = context()?;
    let mut params = HttpServerParams::new(url)?.transport(RemoteTransport::StreamableHttp);
    if scenario.starts_with("auth/") {
        let options = OAuthOptions::new(Arc::new(MemoryCredentialStore::new()))
            .grant(grant_of(scenario, &context)?)
            .client_name("mcp-runtime conformance client")
            .client_metadata_url(Url::parse(CLIENT_METADATA_URL)?)
            .interactive(Arc::new(FollowRedirect));
        let authorizer = Arc::new(OAuthAuthorizer::new(&params.url, options)?);
        params = params.authorizer(authorizer);
    }
    let mut options = ClientOptions::default();
    // The revision the suite runs the scenario at, when it names one: spoken without probing.
    if let Some(version) = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION")
        .ok()
        .and_then(|version| ProtocolVersion::parse(&version))
    {
        options = options.protocol_version(version);
    }
    let options = options
        .connect_timeout(Duration::from_secs(20))
        .request_timeout(Some(Duration::from_secs(20)))
        .elicitation(Arc::new(AcceptDefaults));
    let client = McpClient::connect_http("conformance", params, options).await?;
    let outcome = async {
        let tools = client.list_tools().await?;
        for (tool, arguments) in tool_calls(scenario, &context, &tools) {
            if !tools.iter().any(|listed| listed.name == tool) {
                return Err(format!("the server does not list the tool {tool}").into());
            }
            let result = client.call_tool(&tool, Some(arguments)).await?;
            if result.is_error {
                return Err(format!("{tool} answered with an error: {:?}", result.content).into());
            }
        }
        if let Some(check) = scenario.strip_prefix("sep-2640-client-") {
            host_skills(&client, check).await?;
        }
        if scenario == "http-standard-headers" {
            if let Some(resource) = client.list_resources().await?.first() {
                client.read_resource(&resource.uri).await?;
            }
            for prompt in client.list_prompts().await? {
                client
                    .get_prompt(&prompt.name, std::collections::BTreeMap::new())
                    .await?;
            }
        }
        Ok::<(), Box<dyn std::error::Error>>(())
    }
    .await;
    client.close().await?;
    outcome
}

/// The skills scenarios (SEP-2640) judge a host: it lists the skills (reading no file of
/// them) and, as a model asking for each would make it, loads them, every file checked against
/// the listing. A refused skill is the host doing its job: said on stderr, not a failure.
async fn host_skills(client: &McpClient, check: &str) -> Result<(), Box<dyn std::error::Error>> {
    let skills = client.list_skills().await?;
    if check == "no-prefetch" {
        return Ok(());
    }
    for skill in &skills {
        match client.load_skill(skill).await {
            Ok(loaded) => eprintln!(
                "skill {} loaded: {} more files",
                skill.name(),
                loaded.files.len()
            ),
            Err(refused @ mcp_transport::Error::Skill { .. }) => eprintln!("{refused}"),
            Err(other) => return Err(other.into()),
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("usage: conformance-client URL (MCP_CONFORMANCE_SCENARIO names the scenario)");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("conformance-client: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(&url, &scenario)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("conformance-client ({scenario}): {error}");
            ExitCode::FAILURE
        }
    }
}
