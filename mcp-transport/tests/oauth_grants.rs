//! DPoP (RFC 9449) and the unattended grants against a scripted server that is its own
//! authorization server and records every request: the proofs at the token endpoint and on
//! every MCP request (header, claims, signature, the token's hash, the key the token is bound
//! to), the nonces of both servers asked for and used once, DPoP only where the resource
//! server asks for it, the workload identity JWT bearer grant (assertion read from its file,
//! a refused one never sent again) and the enterprise-managed identity assertion (the ID token
//! exchanged at the identity provider, then presented to the authorization server).

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED, UnparsedPublicKey};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use common::guard;
use mcp_transport::http::{HttpServerParams, Url};
use mcp_transport::oauth::{
    ClientCredential, Dpop, Grant, IdentityAssertion, MemoryCredentialStore, OAuthAuthorizer,
    OAuthError, OAuthOptions, Secret, SecretSource, WorkloadIdentity,
};
use mcp_transport::{ClientOptions, Error, McpClient, TransportError};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

const AS_NONCE: &str = "as-nonce-1";
const RS_NONCE: &str = "rs-nonce-1";
const ID_JAG: &str = "the-identity-assertion-grant";

/// How the scripted server behaves.
#[derive(Debug, Clone, Default)]
struct Script {
    /// The scheme of the MCP server's challenge: `DPoP` or `Bearer` (the default).
    dpop_challenge: bool,
    /// `dpop_signing_alg_values_supported` of the authorization server's metadata.
    dpop_algorithms: Option<Vec<&'static str>>,
    /// The token endpoint wants proofs carrying [`AS_NONCE`].
    as_nonce: bool,
    /// The MCP server wants proofs carrying [`RS_NONCE`].
    rs_nonce: bool,
    /// The MCP server refuses every proof with `use_dpop_nonce` (always the same nonce).
    rs_nonce_never_accepted: bool,
    /// The token endpoint issues bearer tokens even for a request with a proof.
    never_binds: bool,
    /// The token endpoint refuses every grant with `invalid_grant`.
    refuses_grants: bool,
}

/// One request the server saw.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    headers: BTreeMap<String, String>,
    body: String,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }

    fn form(&self) -> BTreeMap<String, String> {
        url::form_urlencoded::parse(self.body.as_bytes())
            .into_owned()
            .collect()
    }
}

struct Scripted {
    origin: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    server: tokio::task::JoinHandle<()>,
}

impl Drop for Scripted {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl Scripted {
    async fn start(script: Script) -> Self {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
        let origin = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (recorded, base) = (Arc::clone(&seen), origin.clone());
        let server = tokio::spawn(async move {
            loop {
                let (stream, _) = listener.accept().await.unwrap();
                let (recorded, base, script) =
                    (Arc::clone(&recorded), base.clone(), script.clone());
                tokio::spawn(async move { answer(stream, &base, &script, &recorded).await });
            }
        });
        Self {
            origin,
            seen,
            server,
        }
    }

    fn url(&self) -> String {
        format!("{}/mcp", self.origin)
    }

    fn seen(&self, method: &str, path: &str) -> Vec<Seen> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .filter(|seen| seen.method == method && seen.path == path)
            .cloned()
            .collect()
    }

    fn token_requests(&self) -> Vec<Seen> {
        self.seen("POST", "/token")
    }

    /// The MCP requests that carried credentials.
    fn authenticated(&self) -> Vec<Seen> {
        self.seen("POST", "/mcp")
            .into_iter()
            .filter(|seen| seen.header("authorization").is_some())
            .collect()
    }
}

async fn answer(mut stream: TcpStream, origin: &str, script: &Script, seen: &Mutex<Vec<Seen>>) {
    let Some(request) = read_request(&mut stream).await else {
        return;
    };
    seen.lock().unwrap().push(request.clone());
    let proof_nonce = request
        .header("dpop")
        .and_then(|proof| claims(proof)["nonce"].as_str().map(str::to_owned));
    let reply = match (request.method.as_str(), request.path.as_str()) {
        ("POST", "/mcp") => mcp_answer(&request, origin, script, proof_nonce.as_deref()),
        ("GET", "/.well-known/oauth-protected-resource") => json_reply(
            "200 OK",
            &json!({"resource": format!("{origin}/mcp"), "authorization_servers": [origin]}),
            "",
        ),
        ("GET", "/.well-known/oauth-authorization-server") => {
            let mut metadata = json!({
                "issuer": origin,
                "token_endpoint": format!("{origin}/token"),
                "grant_types_supported": [
                    "client_credentials",
                    "urn:ietf:params:oauth:grant-type:jwt-bearer"
                ],
                "token_endpoint_auth_methods_supported": ["client_secret_basic", "none"],
            });
            if let Some(algorithms) = &script.dpop_algorithms {
                metadata["dpop_signing_alg_values_supported"] = json!(algorithms);
            }
            json_reply("200 OK", &metadata, "")
        }
        ("POST", "/token") => {
            let proof = request.header("dpop");
            if script.as_nonce && proof.is_some() && proof_nonce.as_deref() != Some(AS_NONCE) {
                json_reply(
                    "400 Bad Request",
                    &json!({"error": "use_dpop_nonce"}),
                    &format!("DPoP-Nonce: {AS_NONCE}\r\n"),
                )
            } else if script.refuses_grants {
                json_reply(
                    "400 Bad Request",
                    &json!({"error": "invalid_grant", "error_description": "not this one"}),
                    "",
                )
            } else {
                let count = seen.lock().unwrap().len();
                let bound = proof.is_some() && !script.never_binds;
                json_reply(
                    "200 OK",
                    &json!({
                        "access_token": format!("access-token-{count}"),
                        "token_type": if bound { "DPoP" } else { "Bearer" },
                        "expires_in": 3600,
                    }),
                    "",
                )
            }
        }
        ("POST", "/idp/token") => json_reply(
            "200 OK",
            &json!({
                "access_token": ID_JAG,
                "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                "token_type": "N_A",
            }),
            "",
        ),
        _ => "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_owned(),
    };
    let _ = stream.write_all(reply.as_bytes()).await;
    let _ = stream.shutdown().await;
}

fn mcp_answer(request: &Seen, origin: &str, script: &Script, nonce: Option<&str>) -> String {
    let metadata = format!("resource_metadata=\"{origin}/.well-known/oauth-protected-resource\"");
    if request.header("authorization").is_none() {
        let scheme = if script.dpop_challenge {
            "DPoP"
        } else {
            "Bearer"
        };
        return json_reply(
            "401 Unauthorized",
            &json!({"error": "unauthorized"}),
            &format!("WWW-Authenticate: {scheme} {metadata}\r\n"),
        );
    }
    if script.rs_nonce_never_accepted || (script.rs_nonce && nonce != Some(RS_NONCE)) {
        return json_reply(
            "401 Unauthorized",
            &json!({"error": "use_dpop_nonce"}),
            &format!(
                "WWW-Authenticate: DPoP error=\"use_dpop_nonce\", {metadata}\r\n\
                 DPoP-Nonce: {RS_NONCE}\r\n"
            ),
        );
    }
    let message: Value = serde_json::from_str(&request.body).unwrap();
    let Some(id) = message.get("id") else {
        return "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            .to_owned();
    };
    let result = match message["method"].as_str() {
        Some("server/discover") => json!({
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "scripted", "version": "1"},
            "resultType": "complete",
        }),
        Some("tools/list") => json!({"tools": [], "resultType": "complete"}),
        _ => json!({"resultType": "complete"}),
    };
    json_reply(
        "200 OK",
        &json!({"jsonrpc": "2.0", "id": id, "result": result}),
        "",
    )
}

fn json_reply(status: &str, body: &Value, headers: &str) -> String {
    let body = body.to_string();
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{headers}\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
}

/// A whole request: head (header names lowercased) and body.
async fn read_request(stream: &mut TcpStream) -> Option<Seen> {
    let mut bytes = Vec::new();
    let mut buffer = [0; 4096];
    let head_end = loop {
        if let Some(end) = bytes.windows(4).position(|window| window == b"\r\n\r\n") {
            break end + 4;
        }
        let read = stream.read(&mut buffer).await.ok()?;
        if read == 0 {
            return None;
        }
        bytes.extend_from_slice(&buffer[..read]);
    };
    let head = String::from_utf8_lossy(&bytes[..head_end]).into_owned();
    let mut lines = head.lines();
    let mut request_line = lines.next()?.split_whitespace();
    let (method, path) = (request_line.next()?, request_line.next()?);
    let mut headers = BTreeMap::new();
    for line in lines {
        if let Some((name, value)) = line.split_once(':') {
            let name = name.trim().to_ascii_lowercase();
            // More than one of a header shows as one comma-joined value, as Node shows it.
            headers
                .entry(name)
                .and_modify(|joined: &mut String| {
                    joined.push_str(", ");
                    joined.push_str(value.trim());
                })
                .or_insert_with(|| value.trim().to_owned());
        }
    }
    let length = headers
        .get("content-length")
        .and_then(|length| length.parse::<usize>().ok())
        .unwrap_or(0);
    while bytes.len() < head_end + length {
        let read = stream.read(&mut buffer).await.ok()?;
        if read == 0 {
            return None;
        }
        bytes.extend_from_slice(&buffer[..read]);
    }
    Some(Seen {
        method: method.to_owned(),
        path: path.split('?').next().unwrap_or(path).to_owned(),
        headers,
        body: String::from_utf8_lossy(&bytes[head_end..head_end + length]).into_owned(),
    })
}

fn segment(jwt: &str, index: usize) -> Value {
    let part = jwt.split('.').nth(index).unwrap();
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
}

fn claims(jwt: &str) -> Value {
    segment(jwt, 1)
}

fn sha256(text: &str) -> String {
    let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, text.as_bytes());
    URL_SAFE_NO_PAD.encode(digest.as_ref())
}

/// Checks a proof as a server does (RFC 9449 §4.3): its type, algorithm, public key (no
/// private part), signature, method, target and time; its public key's thumbprint.
fn checked_proof(proof: &str, method: &str, target: &str) -> (Value, String) {
    assert!(!proof.contains(','), "one proof only: {proof}");
    let header = segment(proof, 0);
    assert_eq!(header["typ"], "dpop+jwt", "{header}");
    assert_eq!(header["alg"], "ES256", "{header}");
    let jwk = &header["jwk"];
    assert_eq!((&jwk["kty"], &jwk["crv"]), (&json!("EC"), &json!("P-256")));
    assert!(
        jwk.get("d").is_none(),
        "the private key is never sent: {jwk}"
    );
    let coordinate = |name: &str| URL_SAFE_NO_PAD.decode(jwk[name].as_str().unwrap()).unwrap();
    let mut point = vec![4];
    point.extend(coordinate("x"));
    point.extend(coordinate("y"));
    let (signed, signature) = proof.rsplit_once('.').unwrap();
    UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, point)
        .verify(
            signed.as_bytes(),
            &URL_SAFE_NO_PAD.decode(signature).unwrap(),
        )
        .expect("the proof's signature verifies with the key in its header");
    let claims = claims(proof);
    assert_eq!(claims["htm"], method, "{claims}");
    assert_eq!(claims["htu"], target, "{claims}");
    assert!(claims["jti"].is_string(), "{claims}");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    assert!(
        claims["iat"].as_u64().unwrap().abs_diff(now) < 60,
        "{claims}"
    );
    let thumbprint = sha256(&format!(
        r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#,
        jwk["x"].as_str().unwrap(),
        jwk["y"].as_str().unwrap()
    ));
    (claims, thumbprint)
}

fn client_credentials() -> Grant {
    Grant::ClientCredentials {
        client_id: "agent".to_owned(),
        credential: ClientCredential::Secret(Secret::new("agent-secret")),
    }
}

fn options(grant: Grant) -> OAuthOptions {
    OAuthOptions::new(Arc::new(MemoryCredentialStore::new())).grant(grant)
}

fn authorizer(server: &Scripted, options: OAuthOptions) -> Arc<OAuthAuthorizer> {
    Arc::new(OAuthAuthorizer::new(&Url::parse(&server.url()).unwrap(), options).unwrap())
}

/// Connects (the server answers `server/discover`: no handshake) and lists the tools `lists`
/// times.
async fn connect_and_list(
    server: &Scripted,
    authorizer: Arc<OAuthAuthorizer>,
    lists: usize,
) -> Result<(), Error> {
    let params = HttpServerParams::new(&server.url())
        .unwrap()
        .authorizer(authorizer);
    let options = ClientOptions::default().connect_timeout(Duration::from_secs(15));
    let client = guard(McpClient::connect_http("scripted", params, options)).await?;
    for _ in 0..lists {
        guard(client.list_tools()).await?;
    }
    guard(client.close()).await?;
    Ok(())
}

fn oauth_error(error: &Error) -> &OAuthError {
    match error.transport_error() {
        Some(TransportError::Authorization(oauth)) => oauth,
        _ => panic!("not an authorization error: {error}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_asks_for_dpop_gets_a_bound_token_and_a_fresh_proof_on_every_request() {
    let server = Scripted::start(Script {
        dpop_challenge: true,
        dpop_algorithms: Some(vec!["ES256"]),
        ..Script::default()
    })
    .await;
    let authorizer = authorizer(&server, options(client_credentials()));
    connect_and_list(&server, authorizer, 2).await.unwrap();

    let tokens = server.token_requests();
    assert_eq!(tokens.len(), 1, "{tokens:?}");
    let proof = tokens[0]
        .header("dpop")
        .expect("a proof at the token endpoint");
    let (token_claims, key) = checked_proof(proof, "POST", &format!("{}/token", server.origin));
    assert!(token_claims.get("ath").is_none(), "{token_claims}");
    assert!(token_claims.get("nonce").is_none(), "{token_claims}");

    let requests = server.authenticated();
    assert!(requests.len() >= 3, "discover and two lists: {requests:?}");
    let mut jtis = vec![token_claims["jti"].clone()];
    for request in &requests {
        let authorization = request.header("authorization").unwrap();
        let token = authorization
            .strip_prefix("DPoP ")
            .unwrap_or_else(|| panic!("the DPoP scheme: {authorization}"));
        let proof = request.header("dpop").expect("a proof on every request");
        let (claims, thumbprint) = checked_proof(proof, "POST", &server.url());
        assert_eq!(claims["ath"], sha256(token), "{claims}");
        assert_eq!(thumbprint, key, "signed with the key the token is bound to");
        assert!(!jtis.contains(&claims["jti"]), "a fresh jti: {claims}");
        jtis.push(claims["jti"].clone());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_nonces_of_both_servers_are_asked_for_once_then_carried_by_every_proof() {
    let server = Scripted::start(Script {
        dpop_challenge: true,
        dpop_algorithms: Some(vec!["ES256"]),
        as_nonce: true,
        rs_nonce: true,
        ..Script::default()
    })
    .await;
    let authorizer = authorizer(&server, options(client_credentials()));
    connect_and_list(&server, authorizer, 2).await.unwrap();

    let tokens = server.token_requests();
    assert_eq!(
        tokens.len(),
        2,
        "asked once more with the nonce: {tokens:?}"
    );
    let first = claims(tokens[0].header("dpop").unwrap());
    let second = claims(tokens[1].header("dpop").unwrap());
    assert_eq!(first.get("nonce"), None);
    assert_eq!(second["nonce"], AS_NONCE);
    assert_ne!(first["jti"], second["jti"], "a new proof for the retry");
    assert_eq!(tokens[0].form()["grant_type"], "client_credentials");
    assert_eq!(tokens[1].form()["grant_type"], "client_credentials");

    let requests = server.authenticated();
    let nonces: Vec<Option<String>> = requests
        .iter()
        .map(|request| {
            claims(request.header("dpop").unwrap())["nonce"]
                .as_str()
                .map(str::to_owned)
        })
        .collect();
    // The first proof without it, refused; every later one with it.
    assert_eq!(nonces[0], None, "{nonces:?}");
    assert!(
        nonces[1..]
            .iter()
            .all(|nonce| nonce.as_deref() == Some(RS_NONCE)),
        "{nonces:?}"
    );
    assert!(nonces.len() >= 4, "{nonces:?}");
    let jtis: std::collections::BTreeSet<String> = requests
        .iter()
        .map(|request| claims(request.header("dpop").unwrap())["jti"].to_string())
        .collect();
    assert_eq!(jtis.len(), requests.len(), "no proof sent twice");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_nonce_refused_again_is_the_requests_error_not_a_loop() {
    let server = Scripted::start(Script {
        dpop_challenge: true,
        rs_nonce_never_accepted: true,
        ..Script::default()
    })
    .await;
    let authorizer = authorizer(&server, options(client_credentials()));
    let error = connect_and_list(&server, authorizer, 1)
        .await
        .expect_err("the server never accepts the nonce");
    assert!(
        matches!(
            error.transport_error(),
            Some(TransportError::Unauthorized { status: 401, .. })
        ),
        "{error}"
    );
    let requests = server.authenticated();
    assert_eq!(
        requests.len(),
        2,
        "the proof without the nonce, then one with it: {requests:?}"
    );
    assert_eq!(server.token_requests().len(), 1, "no new token for a nonce");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bearer_server_gets_bearer_tokens_even_where_the_authorization_server_offers_dpop() {
    let server = Scripted::start(Script {
        dpop_algorithms: Some(vec!["ES256"]),
        ..Script::default()
    })
    .await;
    let authorizer = authorizer(&server, options(client_credentials()));
    connect_and_list(&server, authorizer, 1).await.unwrap();
    let tokens = server.token_requests();
    assert_eq!(tokens.len(), 1);
    assert_eq!(tokens[0].header("dpop"), None, "no proof: {tokens:?}");
    for request in server.authenticated() {
        assert!(
            request
                .header("authorization")
                .unwrap()
                .starts_with("Bearer "),
            "{request:?}"
        );
        assert_eq!(request.header("dpop"), None);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dpop_off_never_sends_a_proof_and_dpop_required_always_does() {
    let server = Scripted::start(Script {
        dpop_challenge: true,
        ..Script::default()
    })
    .await;
    let off = authorizer(&server, options(client_credentials()).dpop(Dpop::Off));
    connect_and_list(&server, off, 1).await.unwrap();
    assert_eq!(server.token_requests()[0].header("dpop"), None);

    let bearer_server = Scripted::start(Script::default()).await;
    let required = authorizer(
        &bearer_server,
        options(client_credentials()).dpop(Dpop::Required),
    );
    connect_and_list(&bearer_server, required, 1).await.unwrap();
    assert!(bearer_server.token_requests()[0].header("dpop").is_some());
    assert!(bearer_server.authenticated().iter().all(|request| {
        request
            .header("authorization")
            .unwrap()
            .starts_with("DPoP ")
    }),);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dpop_required_refuses_an_authorization_server_that_will_not_bind_the_token() {
    let unbinding = Scripted::start(Script {
        never_binds: true,
        ..Script::default()
    })
    .await;
    let required = authorizer(
        &unbinding,
        options(client_credentials()).dpop(Dpop::Required),
    );
    let error = connect_and_list(&unbinding, required, 1).await.unwrap_err();
    assert!(
        matches!(oauth_error(&error), OAuthError::DpopUnsupported { .. }),
        "{error}"
    );
    assert!(
        unbinding.authenticated().is_empty(),
        "the bearer token is never sent"
    );

    let other_algorithms = Scripted::start(Script {
        dpop_algorithms: Some(vec!["RS256"]),
        ..Script::default()
    })
    .await;
    let required = authorizer(
        &other_algorithms,
        options(client_credentials()).dpop(Dpop::Required),
    );
    let error = connect_and_list(&other_algorithms, required, 1)
        .await
        .unwrap_err();
    assert!(
        matches!(oauth_error(&error), OAuthError::DpopUnsupported { .. }),
        "{error}"
    );
    assert!(other_algorithms.token_requests().is_empty());
}

/// A file under a temporary folder of this test's own, removed with it.
struct TemporaryFile {
    folder: std::path::PathBuf,
    path: std::path::PathBuf,
}

impl TemporaryFile {
    fn new(name: &str, contents: &str) -> Self {
        let folder =
            std::env::temp_dir().join(format!("oauth-grants-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let path = folder.join(name);
        std::fs::write(&path, contents).unwrap();
        Self { folder, path }
    }
}

impl Drop for TemporaryFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_workload_identity_grant_sends_the_jwt_read_from_its_file_as_a_jwt_bearer_grant() {
    let server = Scripted::start(Script::default()).await;
    let file = TemporaryFile::new("workload.jwt", "  header.claims.signature-1\n");
    let grant = Grant::WorkloadIdentity(
        WorkloadIdentity::new(SecretSource::File(file.path.clone())).client_id("wl"),
    );
    connect_and_list(&server, authorizer(&server, options(grant)), 1)
        .await
        .unwrap();
    let tokens = server.token_requests();
    assert_eq!(tokens.len(), 1);
    let form = tokens[0].form();
    assert_eq!(
        form["grant_type"],
        "urn:ietf:params:oauth:grant-type:jwt-bearer"
    );
    assert_eq!(form["assertion"], "header.claims.signature-1");
    assert_eq!(form["client_id"], "wl");
    assert_eq!(form["resource"], server.url());
    assert!(!form.contains_key("client_secret") && !form.contains_key("scope"));
    assert_eq!(tokens[0].header("authorization"), None);

    // Without a client ID the grant alone says who asks.
    let anonymous = Scripted::start(Script::default()).await;
    let grant = Grant::WorkloadIdentity(WorkloadIdentity::new(Secret::new("a.b.c")));
    connect_and_list(&anonymous, authorizer(&anonymous, options(grant)), 1)
        .await
        .unwrap();
    let form = anonymous.token_requests()[0].form();
    assert_eq!(form["assertion"], "a.b.c");
    assert!(!form.contains_key("client_id"), "{form:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_workload_assertion_is_never_sent_again_and_no_other_grant_is_tried() {
    let server = Scripted::start(Script {
        refuses_grants: true,
        ..Script::default()
    })
    .await;
    let file = TemporaryFile::new("refused.jwt", "first.assertion.sig");
    let path = file.path.clone();
    let grant = Grant::WorkloadIdentity(WorkloadIdentity::new(SecretSource::File(path.clone())));
    let authorizer = authorizer(&server, options(grant));
    let error = connect_and_list(&server, Arc::clone(&authorizer), 1)
        .await
        .unwrap_err();
    assert!(
        matches!(oauth_error(&error), OAuthError::Rejected { error, .. } if error == "invalid_grant"),
        "{error}"
    );
    assert_eq!(server.token_requests().len(), 1, "no retry");

    let error = connect_and_list(&server, Arc::clone(&authorizer), 1)
        .await
        .unwrap_err();
    assert!(
        matches!(oauth_error(&error), OAuthError::AssertionRefused { .. }),
        "{error}"
    );
    assert_eq!(
        server.token_requests().len(),
        1,
        "the same JWT is not sent again"
    );

    // The platform rotated the token: the new one is tried.
    std::fs::write(&path, "second.assertion.sig").unwrap();
    let _ = connect_and_list(&server, authorizer, 1).await;
    let tokens = server.token_requests();
    assert_eq!(tokens.len(), 2);
    assert_eq!(tokens[1].form()["assertion"], "second.assertion.sig");
    assert!(
        tokens.iter().all(
            |token| token.form()["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer"
        ),
        "no other grant"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreadable_or_empty_assertion_file_is_an_error_naming_the_file_only() {
    let server = Scripted::start(Script::default()).await;
    let empty = TemporaryFile::new("empty.jwt", " \n");
    for path in [empty.path.clone(), empty.path.with_file_name("missing.jwt")] {
        let grant =
            Grant::WorkloadIdentity(WorkloadIdentity::new(SecretSource::File(path.clone())));
        let error = connect_and_list(&server, authorizer(&server, options(grant)), 1)
            .await
            .unwrap_err();
        let OAuthError::CredentialFile { path: named, .. } = oauth_error(&error) else {
            panic!("not the file's error: {error}");
        };
        assert_eq!(named, &path);
        assert!(
            error.to_string().contains("workload identity assertion"),
            "{error}"
        );
    }
    assert!(server.token_requests().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn enterprise_managed_authorization_exchanges_the_id_token_then_presents_the_grant() {
    let server = Scripted::start(Script::default()).await;
    let id_token = TemporaryFile::new("id_token", "the-users-id-token\n");
    let assertion = IdentityAssertion::new(
        "mcp-client",
        Secret::new("mcp-client-secret"),
        Url::parse(&format!("{}/idp/token", server.origin)).unwrap(),
        "idp-client",
        SecretSource::File(id_token.path.clone()),
    );
    let grant = Grant::IdentityAssertion(assertion);
    connect_and_list(&server, authorizer(&server, options(grant)), 1)
        .await
        .unwrap();

    let exchanges = server.seen("POST", "/idp/token");
    assert_eq!(exchanges.len(), 1);
    let form = exchanges[0].form();
    assert_eq!(
        form["grant_type"],
        "urn:ietf:params:oauth:grant-type:token-exchange"
    );
    assert_eq!(form["subject_token"], "the-users-id-token");
    assert_eq!(
        form["subject_token_type"],
        "urn:ietf:params:oauth:token-type:id_token"
    );
    assert_eq!(
        form["requested_token_type"],
        "urn:ietf:params:oauth:token-type:id-jag"
    );
    assert_eq!(form["audience"], server.origin);
    assert_eq!(form["resource"], server.url());
    assert_eq!(form["client_id"], "idp-client");

    let tokens = server.token_requests();
    assert_eq!(tokens.len(), 1);
    let form = tokens[0].form();
    assert_eq!(
        form["grant_type"],
        "urn:ietf:params:oauth:grant-type:jwt-bearer"
    );
    assert_eq!(form["assertion"], ID_JAG);
    assert_eq!(
        tokens[0].header("authorization").unwrap(),
        format!("Basic {}", STANDARD.encode("mcp-client:mcp-client-secret"))
    );
}
