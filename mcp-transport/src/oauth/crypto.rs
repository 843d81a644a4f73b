//! Random values, PKCE, hashes and signed client assertions (DPoP proofs are in `dpop`), on
//! the aws-lc-rs the TLS stack already brings (no second crypto library).

use aws_lc_rs::rand::{SecureRandom, SystemRandom};
use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};

use super::OAuthError;

/// `n` random bytes as unpadded base64url.
pub(crate) fn random_token(bytes: usize) -> Result<String, OAuthError> {
    let mut buffer = vec![0; bytes];
    SystemRandom::new()
        .fill(&mut buffer)
        .map_err(|_| OAuthError::Key("the system random generator failed".to_owned()))?;
    Ok(URL_SAFE_NO_PAD.encode(buffer))
}

/// A PKCE verifier and its S256 challenge (RFC 7636).
pub(crate) struct Pkce {
    pub(crate) verifier: String,
    pub(crate) challenge: String,
}

impl Pkce {
    pub(crate) fn new() -> Result<Self, OAuthError> {
        // 32 bytes: a 43-character verifier, the shortest RFC 7636 allows, with 256 bits.
        let verifier = random_token(32)?;
        let challenge = s256(&verifier);
        Ok(Self {
            verifier,
            challenge,
        })
    }
}

fn s256(verifier: &str) -> String {
    sha256_base64url(verifier)
}

/// base64url(SHA-256(`text`)), unpadded: a PKCE challenge, a DPoP `ath`, a JWK thumbprint.
pub(crate) fn sha256_base64url(text: &str) -> String {
    let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, text.as_bytes());
    URL_SAFE_NO_PAD.encode(digest.as_ref())
}

/// The `Basic` credentials of a client (RFC 6749 §2.3.1: both parts form-encoded first).
pub(crate) fn basic_credentials(client_id: &str, secret: &str) -> String {
    let encode =
        |text: &str| url::form_urlencoded::byte_serialize(text.as_bytes()).collect::<String>();
    format!(
        "Basic {}",
        STANDARD.encode(format!("{}:{}", encode(client_id), encode(secret)))
    )
}

/// A client assertion (RFC 7523 §2.2) signed with ES256: `iss` and `sub` the client ID, `aud`
/// the authorization server's issuer, valid for five minutes, with a fresh `jti`.
pub(crate) fn client_assertion(
    private_key_pem: &str,
    client_id: &str,
    audience: &str,
) -> Result<String, OAuthError> {
    let der = pem_body(private_key_pem)?;
    let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &der).map_err(|_| {
        OAuthError::Key("not a P-256 private key in PKCS #8 (ES256 is supported)".to_owned())
    })?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_secs())
        .unwrap_or_default();
    let header = serde_json::json!({"alg": "ES256", "typ": "JWT"});
    let claims = serde_json::json!({
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": now,
        "exp": now + 300,
        "jti": random_token(16)?,
    });
    let signing_input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let signature = key
        .sign(&SystemRandom::new(), signing_input.as_bytes())
        .map_err(|_| OAuthError::Key("signing the client assertion failed".to_owned()))?;
    Ok(format!(
        "{signing_input}.{}",
        URL_SAFE_NO_PAD.encode(signature.as_ref())
    ))
}

/// The DER inside a `-----BEGIN PRIVATE KEY-----` block.
fn pem_body(pem: &str) -> Result<Vec<u8>, OAuthError> {
    let body: String = pem
        .lines()
        .map(str::trim)
        .skip_while(|line| !line.starts_with("-----BEGIN PRIVATE KEY-----"))
        .skip(1)
        .take_while(|line| !line.starts_with("-----END"))
        .collect();
    if body.is_empty() {
        return Err(OAuthError::Key(
            "expected a PEM block \"BEGIN PRIVATE KEY\" (PKCS #8)".to_owned(),
        ));
    }
    STANDARD
        .decode(body)
        .map_err(|_| OAuthError::Key("the PEM block is not base64".to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_s256_challenge_is_the_one_rfc_7636_gives() {
        // RFC 7636, appendix B.
        assert_eq!(
            s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        let pkce = Pkce::new().unwrap();
        assert_eq!(pkce.verifier.len(), 43);
        assert_ne!(pkce.verifier, Pkce::new().unwrap().verifier);
    }

    #[test]
    fn basic_credentials_form_encode_both_parts() {
        assert_eq!(
            basic_credentials("id:1", "s p"),
            format!("Basic {}", STANDARD.encode("id%3A1:s+p"))
        );
    }

    #[test]
    fn a_key_that_is_not_pkcs8_pem_is_refused_with_a_reason() {
        let error = client_assertion("not a key", "c", "https://a").unwrap_err();
        assert!(error.to_string().contains("BEGIN PRIVATE KEY"), "{error}");
    }
}
