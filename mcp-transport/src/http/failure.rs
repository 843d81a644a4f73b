//! What the HTTP transports' errors say: the URL without its secrets, the failed exchange or
//! status, a short scrubbed excerpt of the server's text, and the JSON-RPC error a request
//! that failed at the HTTP level is answered with.

use bytes::Bytes;

use super::{HTTP_ERROR_CODE, Url, reach};
use crate::secrets::Secrets;
use crate::transport::TransportError;

/// The longest body excerpt an error shows.
const BODY_EXCERPT_CHARS: usize = 200;

/// `scheme://host:port/path`, without query or fragment.
pub(crate) fn display_url(url: &Url) -> String {
    let mut shown = url.clone();
    shown.set_query(None);
    shown.set_fragment(None);
    let _ = shown.set_password(None);
    let _ = shown.set_username("");
    shown.to_string()
}

/// A transport error for a failed HTTP exchange, without the URL reqwest would put in it; a
/// [`ReachCheck`](super::ReachCheck)'s refusal is its own error.
pub(super) fn request_failed(action: String, error: reqwest::Error) -> TransportError {
    if let Some(refused) = reach::refusal_in(&error) {
        return TransportError::Refused { action, refused };
    }
    let error = error.without_url();
    // The error's own line is brief (what the OS said); the HTTP client's whole chain is for
    // `RUST_LOG=debug`.
    tracing::debug!(%action, error = %crate::transport::error_chain(&error), "an HTTP request failed");
    TransportError::Http {
        action,
        source: Box::new(error),
    }
}

/// The error for a response with a failing status, reading a short excerpt of its body.
pub(super) async fn status_error(
    action: String,
    response: reqwest::Response,
    secrets: &Secrets,
) -> TransportError {
    if let Some(refused) = unauthorized(&action, &response, secrets) {
        return refused;
    }
    let status = response.status().as_u16();
    let body = read_excerpt(response, secrets).await;
    TransportError::HttpStatus {
        action,
        status,
        body,
    }
}

/// For a 401 or 403: the authorization error, with the server's `WWW-Authenticate` challenge
/// (scrubbed: it is the server's text).
pub(super) fn unauthorized(
    action: &str,
    response: &reqwest::Response,
    secrets: &Secrets,
) -> Option<TransportError> {
    let status = response.status().as_u16();
    if status != 401 && status != 403 {
        return None;
    }
    Some(TransportError::Unauthorized {
        action: action.to_owned(),
        status,
        www_authenticate: www_authenticate(response)
            .map(|challenge| secrets.scrub(&challenge).into_owned()),
    })
}

/// The server's `WWW-Authenticate` challenge, as it sent it (its text: scrub it before it is
/// shown).
pub(super) fn www_authenticate(response: &reqwest::Response) -> Option<String> {
    response
        .headers()
        .get(reqwest::header::WWW_AUTHENTICATE)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
}

/// The first characters of a body, on one line, without the secrets.
pub(super) async fn read_excerpt(mut response: reqwest::Response, secrets: &Secrets) -> String {
    let mut bytes = Vec::new();
    let mut ended = false;
    while bytes.len() < BODY_EXCERPT_CHARS * 4 {
        match response.chunk().await {
            Ok(Some(chunk)) => bytes.extend_from_slice(&chunk),
            _ => {
                ended = true;
                break;
            }
        }
    }
    let text = String::from_utf8_lossy(&bytes);
    // A body read only in part may end inside a secret.
    excerpt(&secrets.scrub_piece(&text, false, !ended), secrets)
}

/// The first characters of a server's text, on one line, without the secrets (scrubbed before
/// it is cut, so a cut cannot leave part of a secret for the search to miss).
pub(super) fn excerpt(text: &str, secrets: &Secrets) -> String {
    let text = secrets.scrub(text);
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(BODY_EXCERPT_CHARS) {
        Some((cut, _)) => format!("{}…", &one_line[..cut]),
        None => one_line,
    }
}

/// A JSON-RPC error response for request `id` (JSON text) that failed at the HTTP level.
pub(super) fn error_response(id: &str, error: &TransportError) -> Bytes {
    let message = serde_json::Value::String(error.to_string());
    let mark = crate::jsonrpc::HTTP_FAILURE;
    Bytes::from(format!(
        r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{HTTP_ERROR_CODE},"message":{message},"data":{{"{mark}":true}}}}}}"#
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_http_failure_becomes_an_error_response_for_its_request() {
        let error = TransportError::HttpStatus {
            action: "POST tools/call to http://127.0.0.1:1/mcp".to_owned(),
            status: 500,
            body: "boom \"quoted\"".to_owned(),
        };
        let response: serde_json::Value =
            serde_json::from_slice(&error_response("12", &error)).unwrap();
        assert_eq!(response["id"], 12);
        assert_eq!(response["error"]["code"], -32000);
        assert_eq!(response["error"]["data"]["httpFailure"], true);
        assert_eq!(
            response["error"]["message"],
            "POST tools/call to http://127.0.0.1:1/mcp: HTTP 500: boom \"quoted\""
        );
    }

    #[test]
    fn urls_are_shown_without_query_or_credentials() {
        let url = Url::parse("https://user:pw@example.com:8443/mcp?exaApiKey=secret#x").unwrap();
        assert_eq!(display_url(&url), "https://example.com:8443/mcp");
    }

    #[test]
    fn excerpts_are_one_short_line() {
        let none = Secrets::new();
        assert_eq!(excerpt("a\n  b\tc ", &none), "a b c");
        let long = "x".repeat(500);
        assert_eq!(
            excerpt(&long, &none).chars().count(),
            BODY_EXCERPT_CHARS + 1
        );
    }

    #[test]
    fn a_secret_the_excerpt_would_cut_is_redacted_whole() {
        let secrets = Secrets::new();
        secrets.add("0123456789abcdefghij");
        let body = format!(
            "{}0123456789abcdefghij tail",
            "x".repeat(BODY_EXCERPT_CHARS - 5)
        );
        let shown = excerpt(&body, &secrets);
        assert!(!shown.contains("01234"), "{shown}");
    }
}
