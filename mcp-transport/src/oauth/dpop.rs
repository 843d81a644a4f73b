//! DPoP (RFC 9449): the client's key, the proofs it signs, and the server nonces they carry.
//!
//! A proof is a JWT of type `dpop+jwt`, signed with ES256 by the authorizer's own P-256 key,
//! whose header carries the public key (`jwk`, never the private part) and whose claims name
//! one request: a unique `jti`, the method (`htm`), the URL without query or fragment (`htu`),
//! the time (`iat`), and, for a request to the resource server, the hash of the access token it
//! goes with (`ath`); plus the server's `nonce` when it gave one. A token bound to the key (its
//! `cnf.jkt` is the key's thumbprint, RFC 7638) is useless without a fresh proof, so a token
//! that leaks from a log or a proxy cannot be replayed.
//!
//! The key is generated once per server and kept with its credentials (PKCS #8, in the
//! [`CredentialStore`](super::CredentialStore), like the refresh token bound to it): tokens
//! obtained before a restart stay usable after it.

use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Map, Value, json};

use super::crypto::{random_token, sha256_base64url};
use super::{OAuthError, Secret, Url};
use crate::credentials::unix_now;

/// The only algorithm this client signs proofs with.
pub(crate) const ALGORITHM: &str = "ES256";

/// An authorizer's DPoP key.
pub(crate) struct DpopKey {
    pair: EcdsaKeyPair,
    /// The public key as a JWK (`kty`, `crv`, `x`, `y`).
    jwk: Value,
    /// The key as the credential store keeps it: PKCS #8 v1, base64url.
    stored: Secret,
}

impl std::fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopKey")
            .field("thumbprint", &self.thumbprint())
            .finish_non_exhaustive()
    }
}

impl DpopKey {
    /// A new P-256 key.
    pub(crate) fn generate() -> Result<Self, OAuthError> {
        let document =
            EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new())
                .map_err(|_| OAuthError::Key("generating a DPoP key failed".to_owned()))?;
        Self::from_pkcs8(document.as_ref())
    }

    /// The key kept in a credential store (see [`stored`](Self::stored)).
    pub(crate) fn from_stored(stored: &Secret) -> Result<Self, OAuthError> {
        let der = URL_SAFE_NO_PAD
            .decode(stored.expose())
            .map_err(|_| OAuthError::Key("the stored DPoP key is not base64url".to_owned()))?;
        Self::from_pkcs8(&der)
    }

    fn from_pkcs8(der: &[u8]) -> Result<Self, OAuthError> {
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, der)
            .map_err(|_| OAuthError::Key("the DPoP key is not a P-256 key".to_owned()))?;
        // An uncompressed point: 0x04, then x and y, 32 bytes each.
        let point = pair.public_key().as_ref();
        if point.len() != 65 || point[0] != 4 {
            return Err(OAuthError::Key(
                "the DPoP key's public point is not uncompressed P-256".to_owned(),
            ));
        }
        let jwk = json!({
            "kty": "EC",
            "crv": "P-256",
            "x": URL_SAFE_NO_PAD.encode(&point[1..33]),
            "y": URL_SAFE_NO_PAD.encode(&point[33..65]),
        });
        Ok(Self {
            pair,
            jwk,
            stored: Secret::new(URL_SAFE_NO_PAD.encode(der)),
        })
    }

    /// The key as a credential store keeps it.
    pub(crate) fn stored(&self) -> &Secret {
        &self.stored
    }

    /// The JWK SHA-256 thumbprint of the public key (RFC 7638): what a bound token's
    /// `cnf.jkt` names, and the `dpop_jkt` of an authorization request (RFC 9449 §10).
    pub(crate) fn thumbprint(&self) -> String {
        let member = |name: &str| self.jwk[name].as_str().unwrap_or_default().to_owned();
        // The required members in lexicographic order, no whitespace (RFC 7638 §3.2).
        let canonical = format!(
            r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#,
            member("x"),
            member("y")
        );
        sha256_base64url(&canonical)
    }

    /// A fresh proof for a `method` request to `url`; `access_token` (the `ath` claim) for a
    /// request to the resource server, `nonce` when the server gave one.
    pub(crate) fn proof(
        &self,
        method: &str,
        url: &Url,
        access_token: Option<&str>,
        nonce: Option<&str>,
    ) -> Result<String, OAuthError> {
        let header = json!({"typ": "dpop+jwt", "alg": ALGORITHM, "jwk": self.jwk});
        let mut claims = Map::new();
        claims.insert("jti".into(), Value::String(random_token(16)?));
        claims.insert("htm".into(), Value::String(method.to_owned()));
        claims.insert("htu".into(), Value::String(htu(url)));
        claims.insert("iat".into(), Value::from(unix_now()));
        if let Some(token) = access_token {
            claims.insert("ath".into(), Value::String(sha256_base64url(token)));
        }
        if let Some(nonce) = nonce {
            claims.insert("nonce".into(), Value::String(nonce.to_owned()));
        }
        let signing_input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(Value::Object(claims).to_string())
        );
        let signature = self
            .pair
            .sign(&SystemRandom::new(), signing_input.as_bytes())
            .map_err(|_| OAuthError::Key("signing a DPoP proof failed".to_owned()))?;
        Ok(format!(
            "{signing_input}.{}",
            URL_SAFE_NO_PAD.encode(signature.as_ref())
        ))
    }
}

/// The `htu` of a request to `url`: the URL without its query and fragment (RFC 9449 §4.2).
pub(crate) fn htu(url: &Url) -> String {
    let mut target = url.clone();
    target.set_query(None);
    target.set_fragment(None);
    target.to_string()
}

/// The `nonce` claim of a proof this client made; none when it carries none (or is not one).
pub(crate) fn proof_nonce(proof: &str) -> Option<String> {
    let claims = proof.split('.').nth(1)?;
    let claims: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(claims).ok()?).ok()?;
    claims.get("nonce")?.as_str().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED, UnparsedPublicKey};

    use super::*;

    fn part(token: &str, index: usize) -> Value {
        let segment = token.split('.').nth(index).unwrap();
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(segment).unwrap()).unwrap()
    }

    /// Checks the signature with the public key the header carries, as a server does.
    fn verify_with_header_key(proof: &str) {
        let header = part(proof, 0);
        let coordinate = |name: &str| {
            URL_SAFE_NO_PAD
                .decode(header["jwk"][name].as_str().unwrap())
                .unwrap()
        };
        let mut point = vec![4];
        point.extend(coordinate("x"));
        point.extend(coordinate("y"));
        let (signing_input, signature) = proof.rsplit_once('.').unwrap();
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, point)
            .verify(
                signing_input.as_bytes(),
                &URL_SAFE_NO_PAD.decode(signature).unwrap(),
            )
            .expect("the proof verifies with the key in its header");
    }

    #[test]
    fn a_token_request_proof_names_the_request_and_carries_only_the_public_key() {
        let key = DpopKey::generate().unwrap();
        let url = Url::parse("https://auth.example.com/token?tenant=a#frag").unwrap();
        let proof = key.proof("POST", &url, None, None).unwrap();
        let header = part(&proof, 0);
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert_eq!(header["jwk"]["kty"], "EC");
        assert_eq!(header["jwk"]["crv"], "P-256");
        assert!(header["jwk"].get("d").is_none(), "no private key: {header}");
        let claims = part(&proof, 1);
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://auth.example.com/token");
        assert!(claims["jti"].as_str().is_some_and(|jti| jti.len() >= 16));
        let iat = claims["iat"].as_u64().unwrap();
        assert!(iat.abs_diff(unix_now()) < 5, "{iat}");
        assert!(claims.get("ath").is_none(), "no token yet: {claims}");
        assert!(claims.get("nonce").is_none(), "no nonce given: {claims}");
        verify_with_header_key(&proof);
    }

    #[test]
    fn a_resource_request_proof_hashes_the_token_and_carries_the_nonce() {
        let key = DpopKey::generate().unwrap();
        let url = Url::parse("http://127.0.0.1:3000/mcp").unwrap();
        let proof = key
            .proof("POST", &url, Some("the-access-token"), Some("n-1"))
            .unwrap();
        let claims = part(&proof, 1);
        // base64url(SHA-256("the-access-token")), as RFC 9449 §4.2 computes `ath`.
        let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, b"the-access-token");
        assert_eq!(claims["ath"], URL_SAFE_NO_PAD.encode(digest.as_ref()));
        assert_eq!(claims["nonce"], "n-1");
        assert_eq!(claims["htu"], "http://127.0.0.1:3000/mcp");
        assert_eq!(proof_nonce(&proof).as_deref(), Some("n-1"));
        assert_eq!(
            proof_nonce(&key.proof("GET", &url, None, None).unwrap()),
            None
        );
        verify_with_header_key(&proof);
    }

    #[test]
    fn every_proof_is_new_and_a_stored_key_signs_with_the_same_thumbprint() {
        let key = DpopKey::generate().unwrap();
        let url = Url::parse("https://mcp.example.com/mcp").unwrap();
        let first = key.proof("POST", &url, Some("t"), None).unwrap();
        let second = key.proof("POST", &url, Some("t"), None).unwrap();
        assert_ne!(part(&first, 1)["jti"], part(&second, 1)["jti"]);
        let again = DpopKey::from_stored(key.stored()).unwrap();
        assert_eq!(again.thumbprint(), key.thumbprint());
        assert_eq!(
            part(&again.proof("POST", &url, None, None).unwrap(), 0)["jwk"],
            part(&first, 0)["jwk"]
        );
        assert_ne!(DpopKey::generate().unwrap().thumbprint(), key.thumbprint());
        assert!(!format!("{key:?}").contains(key.stored().expose()));
    }

    #[test]
    fn the_thumbprint_is_the_rfc_7638_hash_of_the_required_members() {
        let key = DpopKey::generate().unwrap();
        let jwk = &key.jwk;
        let canonical = format!(
            "{{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"{}\",\"y\":\"{}\"}}",
            jwk["x"].as_str().unwrap(),
            jwk["y"].as_str().unwrap()
        );
        let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, canonical.as_bytes());
        assert_eq!(key.thumbprint(), URL_SAFE_NO_PAD.encode(digest.as_ref()));
        assert_eq!(key.thumbprint().len(), 43);
    }
}
