//! How a remote server's OAuth tokens are obtained (documented on [`OAuthSettings`]).

use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::problems::OAuthProblem;
use crate::server_config::{AuthConfig, OAuthClient, normalized};

/// The `auth` key naming the grant.
pub(crate) const GRANT_KEY: &str = "grant";

/// The `auth` keys whose string values are expanded (`${VAR}`) at discovery.
pub(crate) const EXPANDED_KEYS: &[&str] = &[
    "clientId",
    "client_id",
    "CLIENT_ID",
    "clientSecret",
    "client_secret",
    "CLIENT_SECRET",
    "privateKeyFile",
    "assertion",
    "assertionFile",
    "idToken",
    "idTokenFile",
    "idpTokenEndpoint",
    "idpClientId",
];

/// The `auth` keys that make the client read a local file or send a credential to a URL the
/// definition names.
const LOCAL_CREDENTIAL_KEYS: &[&str] = &[
    "privateKeyFile",
    "assertionFile",
    "idTokenFile",
    "idpTokenEndpoint",
];

/// How a remote server's OAuth tokens are obtained, read from its `auth` block.
///
/// The OAuth settings of a remote server's `auth` block: which grant gets its tokens, with what
/// credentials, and whether they are DPoP-bound ([`AuthConfig::oauth_settings`]).
///
/// ```json
/// "auth": {
///   "type": "oauth",
///   "grant": "workloadIdentity",
///   "assertionFile": "/var/run/secrets/tokens/mcp-token",
///   "dpop": true
/// }
/// ```
///
/// | `grant` | what it does | fields |
/// |---|---|---|
/// | `authorizationCode` (the default) | the user logs in in a browser | optional `clientId`, `clientSecret` (a client registered beforehand; without one the client uses a metadata document or registers itself) |
/// | `clientCredentials` | the agent acts for itself, no user | `clientId`, and `clientSecret` or `privateKeyFile` (a P-256 key in PKCS #8 PEM: `private_key_jwt`, ES256) |
/// | `workloadIdentity` | a JWT the workload's platform issued is the grant (RFC 7523 JWT bearer, SEP-1933) | `assertionFile` (read for every token request, e.g. a Kubernetes projected service account token) or `assertion`; optional `clientId` |
/// | `enterpriseManaged` | the user's ID token is exchanged at the identity provider, and the grant it gives is presented to the server's authorization server (SEP-990) | `idTokenFile` (read for every exchange) or `idToken`, `idpTokenEndpoint`, `idpClientId`; `clientId` and `clientSecret` at the server's authorization server |
///
/// `dpop`: `true` binds every token to a key of the client's (RFC 9449) and refuses an
/// authorization server that will not; `false` never does; left out, DPoP is used when the MCP
/// server asks for it (its challenge or resource metadata), not merely because its
/// authorization server offers it.
///
/// File names may use `${HOME}` (they are expanded like other values; `~` is not); a relative
/// one is taken from the folder of the file that defines the server.
///
/// **Where these are honoured.** The fields that make the client read a file of the user's
/// (`privateKeyFile`, `assertionFile`, `idTokenFile`) or send a credential to a URL the
/// definition names (`idpTokenEndpoint`) are the ones [`AuthConfig::local_credential_fields`]
/// lists. They are honoured only for a definition in one of the user's own files, or in a
/// project file whose server the user approved — the approval its `!command` values need too
/// ([`SourceMeta::may_use_local_credentials`](crate::SourceMeta::may_use_local_credentials));
/// otherwise the server fails with
/// [`AuthError::NotTrusted`](crate::auth::AuthError::NotTrusted) and no file is read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OAuthSettings {
    /// The grant.
    pub grant: OAuthGrant,
    /// `dpop`: `Some(true)` always, `Some(false)` never, `None` when the server asks for it.
    pub dpop: Option<bool>,
}

/// The grant of a remote server's `auth` block (its `grant` field).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum OAuthGrant {
    /// `authorizationCode`: the user logs in in a browser.
    AuthorizationCode {
        /// A client registered beforehand (`clientId`, `clientSecret`), if any.
        client: Option<OAuthClient>,
    },
    /// `clientCredentials`: the agent acts for itself.
    ClientCredentials {
        /// `clientId`.
        client_id: String,
        /// `clientSecret` or `privateKeyFile`.
        credential: ClientCredentialSetting,
    },
    /// `workloadIdentity`: the workload's platform-issued JWT is the grant.
    WorkloadIdentity {
        /// `clientId`, if the authorization server wants one.
        client_id: Option<String>,
        /// `assertionFile` or `assertion`.
        assertion: CredentialSetting,
    },
    /// `enterpriseManaged`: the user's ID token, exchanged at the identity provider.
    EnterpriseManaged(EnterpriseManaged),
}

/// How a `clientCredentials` client proves who it is.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientCredentialSetting {
    /// `clientSecret`.
    Secret(String),
    /// `privateKeyFile`: a P-256 key (PKCS #8 PEM) signing `private_key_jwt` assertions.
    PrivateKeyFile(PathBuf),
}

impl fmt::Debug for ClientCredentialSetting {
    /// The secret stays hidden.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Secret(_) => f.write_str("Secret(…)"),
            Self::PrivateKeyFile(path) => f.debug_tuple("PrivateKeyFile").field(path).finish(),
        }
    }
}

/// A credential given in the configuration, or the file that holds it (read when it is sent).
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CredentialSetting {
    /// The value itself (typically `${VAR}`, expanded).
    Value(String),
    /// The file.
    File(PathBuf),
}

impl fmt::Debug for CredentialSetting {
    /// The value stays hidden.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Value(_) => f.write_str("Value(…)"),
            Self::File(path) => f.debug_tuple("File").field(path).finish(),
        }
    }
}

/// What the `enterpriseManaged` grant needs.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct EnterpriseManaged {
    /// `clientId` at the MCP server's authorization server.
    pub client_id: String,
    /// `clientSecret` there.
    pub client_secret: String,
    /// `idTokenFile` or `idToken`: the user's ID token from the identity provider.
    pub id_token: CredentialSetting,
    /// `idpTokenEndpoint`: where the ID token is exchanged.
    pub idp_token_endpoint: String,
    /// `idpClientId`: the client's ID at the identity provider.
    pub idp_client_id: String,
}

impl fmt::Debug for EnterpriseManaged {
    /// The secret stays hidden.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EnterpriseManaged")
            .field("client_id", &self.client_id)
            .field("id_token", &self.id_token)
            .field("idp_token_endpoint", &self.idp_token_endpoint)
            .field("idp_client_id", &self.idp_client_id)
            .finish_non_exhaustive()
    }
}

impl OAuthGrant {
    /// The files the grant reads, each with its setting's name (`assertionFile`, …).
    pub fn files(&self) -> Vec<(&'static str, &Path)> {
        match self {
            Self::ClientCredentials {
                credential: ClientCredentialSetting::PrivateKeyFile(path),
                ..
            } => vec![("privateKeyFile", path.as_path())],
            Self::WorkloadIdentity {
                assertion: CredentialSetting::File(path),
                ..
            } => vec![("assertionFile", path.as_path())],
            Self::EnterpriseManaged(EnterpriseManaged {
                id_token: CredentialSetting::File(path),
                ..
            }) => vec![("idTokenFile", path.as_path())],
            _ => Vec::new(),
        }
    }
}

impl OAuthSettings {
    /// These settings with every relative file name taken from `base` (the folder of the file
    /// that defines the server), `.` and `..` taken out, and symlinks followed when the file
    /// exists: the file read is the one the checks of a project server's files looked at
    /// ([`check_auth_source`](crate::auth::check_auth_source)).
    #[must_use]
    pub fn resolve_files(mut self, base: &Path) -> Self {
        let resolve = |path: &mut PathBuf| {
            let file = normalized(&base.join(&*path));
            *path = std::fs::canonicalize(&file).unwrap_or(file);
        };
        match &mut self.grant {
            OAuthGrant::ClientCredentials {
                credential: ClientCredentialSetting::PrivateKeyFile(path),
                ..
            }
            | OAuthGrant::WorkloadIdentity {
                assertion: CredentialSetting::File(path),
                ..
            } => resolve(path),
            OAuthGrant::EnterpriseManaged(managed) => {
                if let CredentialSetting::File(path) = &mut managed.id_token {
                    resolve(path);
                }
            }
            _ => {}
        }
        self
    }
}

impl AuthConfig {
    /// The OAuth settings of a remote server (see [`OAuthSettings`](crate::OAuthSettings)); every
    /// problem found, each naming its field, when they cannot be used. Only for `type: "oauth"`
    /// (another type uses none of them).
    pub fn oauth_settings(&self) -> Result<OAuthSettings, Vec<OAuthProblem>> {
        let mut problems = Vec::new();
        let dpop = match self.extra.get("dpop") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(dpop)) => Some(*dpop),
            Some(_) => {
                problems.push(OAuthProblem::DpopNotBoolean);
                None
            }
        };
        let grant = match self.extra.get(GRANT_KEY) {
            None | Some(Value::Null) => Some("authorizationCode"),
            Some(Value::String(grant)) => Some(grant.as_str()),
            Some(_) => None,
        };
        let grant = match grant {
            Some("authorizationCode") => Some(OAuthGrant::AuthorizationCode {
                client: self.oauth_client(),
            }),
            Some("clientCredentials") => self.client_credentials(&mut problems),
            Some("workloadIdentity") => {
                let assertion = self.credential("assertion", "assertionFile", &mut problems);
                assertion.map(|assertion| OAuthGrant::WorkloadIdentity {
                    client_id: self.text("clientId", &mut problems),
                    assertion,
                })
            }
            Some("enterpriseManaged") => self.enterprise_managed(&mut problems),
            _ => {
                problems.push(OAuthProblem::UnknownGrant {
                    grant: self.extra.get(GRANT_KEY).cloned().unwrap_or_default(),
                });
                None
            }
        };
        match grant {
            Some(grant) if problems.is_empty() => Ok(OAuthSettings { grant, dpop }),
            _ => Err(problems),
        }
    }

    /// The fields set in this block that make the client read a local file or send a
    /// credential to a URL the definition names (`privateKeyFile`, `assertionFile`,
    /// `idTokenFile`, `idpTokenEndpoint`): honoured only where the definition is the user's own
    /// or approved (see [`OAuthSettings`](crate::OAuthSettings)).
    pub fn local_credential_fields(&self) -> Vec<&'static str> {
        LOCAL_CREDENTIAL_KEYS
            .iter()
            .copied()
            .filter(|key| self.extra.get(*key).is_some_and(|value| !value.is_null()))
            .collect()
    }

    fn client_credentials(&self, problems: &mut Vec<OAuthProblem>) -> Option<OAuthGrant> {
        let client_id = self.required("clientId", "clientCredentials", problems);
        let secret = self.text("clientSecret", problems);
        let key = self.path("privateKeyFile", problems);
        let credential = match (secret, key) {
            (Some(secret), None) => Some(ClientCredentialSetting::Secret(secret)),
            (None, Some(key)) => Some(ClientCredentialSetting::PrivateKeyFile(key)),
            (Some(_), Some(_)) => {
                problems.push(OAuthProblem::SecretAndKeyFile);
                None
            }
            (None, None) => {
                problems.push(OAuthProblem::NoClientCredential);
                None
            }
        };
        Some(OAuthGrant::ClientCredentials {
            client_id: client_id?,
            credential: credential?,
        })
    }

    fn enterprise_managed(&self, problems: &mut Vec<OAuthProblem>) -> Option<OAuthGrant> {
        let grant = "enterpriseManaged";
        let client_id = self.required("clientId", grant, problems);
        let client_secret = self.required("clientSecret", grant, problems);
        let id_token = self.credential("idToken", "idTokenFile", problems);
        let idp_token_endpoint = self.required("idpTokenEndpoint", grant, problems);
        if let Some(endpoint) = &idp_token_endpoint {
            let usable =
                url::Url::parse(endpoint).is_ok_and(|url| matches!(url.scheme(), "http" | "https"));
            if !usable {
                problems.push(OAuthProblem::IdpTokenEndpoint {
                    endpoint: endpoint.clone(),
                });
            }
        }
        let idp_client_id = self.required("idpClientId", grant, problems);
        Some(OAuthGrant::EnterpriseManaged(EnterpriseManaged {
            client_id: client_id?,
            client_secret: client_secret?,
            id_token: id_token?,
            idp_token_endpoint: idp_token_endpoint?,
            idp_client_id: idp_client_id?,
        }))
    }

    /// The value of `key` (the value itself) or `file_key` (a file holding it): exactly one.
    fn credential(
        &self,
        key: &'static str,
        file_key: &'static str,
        problems: &mut Vec<OAuthProblem>,
    ) -> Option<CredentialSetting> {
        let value = self.text(key, problems);
        let file = self.path(file_key, problems);
        match (value, file) {
            (Some(value), None) => Some(CredentialSetting::Value(value)),
            (None, Some(file)) => Some(CredentialSetting::File(file)),
            (Some(_), Some(_)) => {
                problems.push(OAuthProblem::ValueAndFile { key, file_key });
                None
            }
            (None, None) => {
                problems.push(OAuthProblem::NoCredential { key, file_key });
                None
            }
        }
    }

    /// A non-empty string under `key`, required by `grant`.
    fn required(
        &self,
        key: &'static str,
        grant: &'static str,
        problems: &mut Vec<OAuthProblem>,
    ) -> Option<String> {
        let value = self.text(key, problems);
        if value.is_none() && !self.extra.contains_key(key) {
            problems.push(OAuthProblem::Missing { grant, key });
        }
        value
    }

    /// A non-empty string under `key`; a problem when it is set to anything else.
    fn text(&self, key: &'static str, problems: &mut Vec<OAuthProblem>) -> Option<String> {
        match self.extra.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::String(text)) if !text.trim().is_empty() => Some(text.trim().to_owned()),
            Some(_) => {
                problems.push(OAuthProblem::NotText { key });
                None
            }
        }
    }

    /// A file name under `key`: written out (`~` is not expanded; `${HOME}` is).
    fn path(&self, key: &'static str, problems: &mut Vec<OAuthProblem>) -> Option<PathBuf> {
        let text = self.text(key, problems)?;
        if text.starts_with('~') {
            problems.push(OAuthProblem::HomeNotExpanded { key });
            return None;
        }
        Some(PathBuf::from(text))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The problems as the user reads them.
    fn texts(problems: Vec<OAuthProblem>) -> Vec<String> {
        problems
            .into_iter()
            .map(|problem| problem.to_string())
            .collect()
    }

    fn auth(settings: Value) -> AuthConfig {
        let mut auth = AuthConfig::oauth();
        let Value::Object(settings) = settings else {
            panic!("an object");
        };
        auth.extra = settings;
        auth
    }

    #[test]
    fn without_a_grant_it_is_the_authorization_code_with_an_optional_client() {
        let settings = auth(json!({})).oauth_settings().unwrap();
        assert_eq!(
            settings.grant,
            OAuthGrant::AuthorizationCode { client: None }
        );
        assert_eq!(settings.dpop, None);
        let settings = auth(json!({"clientId": "pre", "clientSecret": "s", "dpop": true}))
            .oauth_settings()
            .unwrap();
        let OAuthGrant::AuthorizationCode {
            client: Some(client),
        } = settings.grant
        else {
            panic!("a pre-registered client: {settings:?}");
        };
        assert_eq!(client.client_id, "pre");
        assert_eq!(settings.dpop, Some(true));
    }

    #[test]
    fn client_credentials_take_a_secret_or_a_private_key_file() {
        let settings = auth(
            json!({"grant": "clientCredentials", "clientId": "agent", "clientSecret": "sk-1"}),
        )
        .oauth_settings()
        .unwrap();
        assert_eq!(
            settings.grant,
            OAuthGrant::ClientCredentials {
                client_id: "agent".into(),
                credential: ClientCredentialSetting::Secret("sk-1".into()),
            }
        );
        assert!(!format!("{settings:?}").contains("sk-1"));
        let settings = auth(json!({"grant": "clientCredentials", "clientId": "agent", "privateKeyFile": "/keys/agent.pem", "dpop": false}))
            .oauth_settings()
            .unwrap();
        assert_eq!(
            settings.grant,
            OAuthGrant::ClientCredentials {
                client_id: "agent".into(),
                credential: ClientCredentialSetting::PrivateKeyFile("/keys/agent.pem".into()),
            }
        );
        assert_eq!(settings.dpop, Some(false));
        let problems = auth(json!({"grant": "clientCredentials", "clientId": "agent", "clientSecret": "s", "privateKeyFile": "/k"}))
            .oauth_settings().map_err(texts).unwrap_err();
        assert_eq!(
            problems,
            ["\"auth\" sets both \"clientSecret\" and \"privateKeyFile\"; keep one"]
        );
        let problems = auth(json!({"grant": "clientCredentials"}))
            .oauth_settings()
            .map_err(texts)
            .unwrap_err();
        assert_eq!(
            problems,
            [
                "\"auth.grant\" \"clientCredentials\" needs \"clientId\"",
                "\"auth.grant\" \"clientCredentials\" needs \"clientSecret\" or \"privateKeyFile\""
            ]
        );
    }

    #[test]
    fn the_workload_identity_grant_reads_its_assertion_from_a_file_or_a_value() {
        let settings = auth(
            json!({"grant": "workloadIdentity", "assertionFile": "/var/run/secrets/tokens/mcp"}),
        )
        .oauth_settings()
        .unwrap();
        assert_eq!(
            settings.grant,
            OAuthGrant::WorkloadIdentity {
                client_id: None,
                assertion: CredentialSetting::File("/var/run/secrets/tokens/mcp".into()),
            }
        );
        let settings =
            auth(json!({"grant": "workloadIdentity", "assertion": "eyJ.a.b", "clientId": "wl"}))
                .oauth_settings()
                .unwrap();
        assert_eq!(
            settings.grant,
            OAuthGrant::WorkloadIdentity {
                client_id: Some("wl".into()),
                assertion: CredentialSetting::Value("eyJ.a.b".into()),
            }
        );
        assert!(!format!("{settings:?}").contains("eyJ"));
        assert_eq!(
            auth(json!({"grant": "workloadIdentity"}))
                .oauth_settings()
                .map_err(texts)
                .unwrap_err(),
            ["\"auth\" needs \"assertionFile\" (or \"assertion\")"]
        );
    }

    #[test]
    fn the_enterprise_managed_grant_needs_the_identity_provider_and_the_client() {
        let settings = auth(json!({
            "grant": "enterpriseManaged",
            "clientId": "mcp-client",
            "clientSecret": "sk-2",
            "idTokenFile": "tokens/id_token",
            "idpTokenEndpoint": "https://idp.example.com/oauth2/token",
            "idpClientId": "idp-client",
        }))
        .oauth_settings()
        .unwrap();
        let OAuthGrant::EnterpriseManaged(managed) = &settings.grant else {
            panic!("{settings:?}");
        };
        assert_eq!(managed.client_id, "mcp-client");
        assert_eq!(managed.client_secret, "sk-2");
        assert_eq!(
            managed.id_token,
            CredentialSetting::File("tokens/id_token".into())
        );
        assert_eq!(
            managed.idp_token_endpoint,
            "https://idp.example.com/oauth2/token"
        );
        assert_eq!(managed.idp_client_id, "idp-client");
        assert!(!format!("{settings:?}").contains("sk-2"));
        let resolved = settings.resolve_files(Path::new("/home/me/.config/agent"));
        let OAuthGrant::EnterpriseManaged(managed) = resolved.grant else {
            panic!();
        };
        assert_eq!(
            managed.id_token,
            CredentialSetting::File("/home/me/.config/agent/tokens/id_token".into())
        );
        let problems = auth(json!({"grant": "enterpriseManaged", "idpTokenEndpoint": "ftp://idp"}))
            .oauth_settings()
            .map_err(texts)
            .unwrap_err();
        assert_eq!(
            problems,
            [
                "\"auth.grant\" \"enterpriseManaged\" needs \"clientId\"",
                "\"auth.grant\" \"enterpriseManaged\" needs \"clientSecret\"",
                "\"auth\" needs \"idTokenFile\" (or \"idToken\")",
                "\"auth.idpTokenEndpoint\" is \"ftp://idp\"; use an http or https URL",
                "\"auth.grant\" \"enterpriseManaged\" needs \"idpClientId\"",
            ]
        );
    }

    #[test]
    fn unknown_grants_bad_types_and_unexpanded_home_are_problems_naming_the_field() {
        assert_eq!(
            auth(json!({"grant": "password"}))
                .oauth_settings()
                .map_err(texts)
                .unwrap_err(),
            [
                "\"auth.grant\" is \"password\"; use \"authorizationCode\" (the default), \
                 \"clientCredentials\", \"workloadIdentity\" or \"enterpriseManaged\""
            ]
        );
        assert_eq!(
            auth(json!({"dpop": "yes"}))
                .oauth_settings()
                .map_err(texts)
                .unwrap_err(),
            ["\"auth.dpop\" must be true or false"]
        );
        assert_eq!(
            auth(json!({"grant": "workloadIdentity", "assertionFile": "~/token"}))
                .oauth_settings()
                .map_err(texts)
                .unwrap_err()[0],
            "\"auth.assertionFile\" starts with ~, which is not expanded here; write the \
             file's full path (${HOME}/… is expanded)"
        );
        assert_eq!(
            auth(json!({"grant": "workloadIdentity", "assertionFile": 3}))
                .oauth_settings()
                .map_err(texts)
                .unwrap_err()[0],
            "\"auth.assertionFile\" must be a non-empty string"
        );
    }

    #[test]
    fn relative_files_are_taken_from_the_defining_files_folder() {
        let settings = auth(json!({"grant": "clientCredentials", "clientId": "a", "privateKeyFile": "../keys/./a.pem"}))
            .oauth_settings()
            .unwrap()
            .resolve_files(Path::new("/repo/.config"));
        assert_eq!(
            settings.grant,
            OAuthGrant::ClientCredentials {
                client_id: "a".into(),
                credential: ClientCredentialSetting::PrivateKeyFile("/repo/keys/a.pem".into()),
            }
        );
        let absolute = auth(json!({"grant": "workloadIdentity", "assertionFile": "/run/t"}))
            .oauth_settings()
            .unwrap()
            .resolve_files(Path::new("/elsewhere"));
        assert_eq!(
            absolute.grant,
            OAuthGrant::WorkloadIdentity {
                client_id: None,
                assertion: CredentialSetting::File("/run/t".into()),
            }
        );
    }

    #[test]
    fn the_fields_that_reach_beyond_the_definition_are_listed() {
        assert!(
            auth(json!({"clientId": "a", "clientSecret": "b"}))
                .local_credential_fields()
                .is_empty()
        );
        assert!(
            auth(json!({"grant": "workloadIdentity", "assertion": "${TOKEN}"}))
                .local_credential_fields()
                .is_empty()
        );
        assert_eq!(
            auth(json!({"grant": "clientCredentials", "privateKeyFile": "/k"}))
                .local_credential_fields(),
            ["privateKeyFile"]
        );
        assert_eq!(
            auth(json!({"idTokenFile": "/t", "idpTokenEndpoint": "https://idp/token", "assertionFile": "/a"}))
                .local_credential_fields(),
            ["assertionFile", "idTokenFile", "idpTokenEndpoint"]
        );
    }

    #[test]
    fn the_problems_are_values_naming_the_setting() {
        assert_eq!(
            auth(json!({"grant": "clientCredentials"}))
                .oauth_settings()
                .unwrap_err(),
            [
                OAuthProblem::Missing {
                    grant: "clientCredentials",
                    key: "clientId",
                },
                OAuthProblem::NoClientCredential,
            ]
        );
        assert_eq!(
            auth(json!({"grant": "password", "dpop": 1}))
                .oauth_settings()
                .unwrap_err(),
            [
                OAuthProblem::DpopNotBoolean,
                OAuthProblem::UnknownGrant {
                    grant: json!("password"),
                },
            ]
        );
        assert_eq!(
            auth(json!({"grant": "workloadIdentity", "assertionFile": "~/t"}))
                .oauth_settings()
                .unwrap_err(),
            [
                OAuthProblem::HomeNotExpanded {
                    key: "assertionFile",
                },
                OAuthProblem::NoCredential {
                    key: "assertion",
                    file_key: "assertionFile",
                },
            ]
        );
    }
}
