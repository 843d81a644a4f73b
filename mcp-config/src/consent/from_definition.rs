//! [`Consent::of`]: the consent worked out from a definition as written. Every field that makes
//! something run, be read, be sent or be contacted is walked, `${VAR}` references named, not
//! expanded; what cannot be stated this way is refused ([`Unstatable`]).

use std::path::Path;

use serde_json::Value;

use super::{
    CommandRun, Consent, Destination, FileRead, HostContact, OfferedRoots, SentValue, Unstatable,
    UnstatableReason, ValueSent,
};
use crate::credential_file::{credential_file, outside_project};
use crate::oauth_grant::{ClientCredentialSetting, CredentialSetting, OAuthGrant};
use crate::origin::SourceMeta;
use crate::placeholder::referenced_variables;
use crate::server_config::{RootsSetting, ServerConfig, StdioConfig, TransportConfig};

impl Consent {
    /// What approving `definition` (as written, `${VAR}` unexpanded), defined in `source`, lets
    /// it do.
    pub fn of(definition: &ServerConfig, source: &SourceMeta) -> Self {
        let mut consent = Self {
            roots: offered_roots(definition, source),
            ..Self::default()
        };
        // A root a variable names is a folder of the user's choosing at run time (`${HOME}`),
        // not the one the description would show: it cannot be stated.
        if let Some(RootsSetting::Folders(folders)) = definition.roots() {
            for (index, folder) in folders.iter().enumerate() {
                consent.refuse_variables(&format!("roots[{index}]"), &folder.to_string_lossy());
            }
        }
        match &definition.transport {
            TransportConfig::Stdio(stdio) => {
                consent.refuse_variables("command", &stdio.command);
                let line: Vec<String> = std::iter::once(&stdio.command)
                    .chain(&stdio.args)
                    .map(|part| shell_words::quote(part).into_owned())
                    .collect();
                let env = stdio
                    .env
                    .iter()
                    .filter(|(key, value)| !definition.is_command(&format!("env.{key}"), value))
                    .map(|(key, _)| key.clone())
                    .collect();
                consent.runs.push(CommandRun {
                    field: "command".to_owned(),
                    command: line.join(" "),
                    folder: start_folder(stdio, source),
                    env,
                    output_to: None,
                });
                for (index, arg) in stdio
                    .args
                    .iter()
                    .enumerate()
                    .filter(|(_, arg)| has_reference(arg))
                {
                    consent.send_variables(&format!("args[{index}]"), arg, &Destination::Process);
                }
                for (key, value) in &stdio.env {
                    let field = format!("env.{key}");
                    consent.value_or_command(
                        definition,
                        source,
                        field,
                        value,
                        &Destination::Process,
                    );
                }
                // A folder a variable names is where it runs, and so what a relative command
                // is: chosen at run time, not what the description would show.
                if let Some(cwd) = &stdio.cwd {
                    consent.refuse_variables("cwd", cwd);
                }
                // The credential store's token for this command line, if the user logged in to
                // it (see `crate::auth`).
                if definition.takes_stored_credentials() {
                    consent.sends.push(ValueSent {
                        value: SentValue::StoredLogin,
                        field: format!("env.{}", crate::auth::OAUTH_ACCESS_TOKEN_ENV),
                        to: Destination::Process,
                    });
                }
            }
            TransportConfig::Http(remote) | TransportConfig::Sse(remote) => {
                // A URL that does not parse (discovery reports it) or whose host a variable
                // names (refused) still has its commands and variables stated, as going to
                // the URL as written.
                let origin = consent.origin("url", &remote.url);
                let server = Destination::Host(
                    origin
                        .clone()
                        .unwrap_or_else(|| without_query_or_user(&remote.url)),
                );
                consent.contacts.push(HostContact {
                    url: without_query_or_user(&remote.url),
                    why: "the server".to_owned(),
                });
                consent.send_variables("url", &remote.url, &server);
                for (key, value) in &remote.headers {
                    consent.value_or_command(
                        definition,
                        source,
                        format!("headers.{key}"),
                        value,
                        &server,
                    );
                }
                if let Some(helper) = definition.headers_helper() {
                    consent.runs.push(CommandRun {
                        field: crate::entry_keys::HEADERS_HELPER.to_owned(),
                        command: helper.to_owned(),
                        folder: shell_folder(helper, source),
                        env: Vec::new(),
                        output_to: Some(server.clone()),
                    });
                }
                if let Some(origin) = &origin {
                    consent.oauth(definition, source, origin);
                }
            }
            TransportConfig::Custom(custom) => {
                let plugin = Destination::Plugin(custom.kind.clone());
                consent.contacts.push(HostContact {
                    url: format!("the transport plugin for type \"{}\"", custom.kind),
                    why: format!(
                        "it connects the server with the entry's fields: {}",
                        custom
                            .fields
                            .keys()
                            .map(String::as_str)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                });
                for (key, value) in &custom.fields {
                    for (field, text) in strings_in(key.clone(), value) {
                        consent.send_variables(&field, text, &plugin);
                    }
                }
            }
        }
        consent
    }

    /// An `env` or `headers` value: a `!command` runs (its output going `to`), any other value
    /// sends the variables it names `to`.
    fn value_or_command(
        &mut self,
        definition: &ServerConfig,
        source: &SourceMeta,
        field: String,
        value: &str,
        to: &Destination,
    ) {
        if definition.is_command(&field, value) {
            let command = value[1..].trim();
            self.runs.push(CommandRun {
                field,
                command: command.to_owned(),
                folder: shell_folder(command, source),
                env: Vec::new(),
                output_to: Some(to.clone()),
            });
        } else {
            self.send_variables(&field, value, to);
        }
    }

    /// Each variable `text` names is sent `to`.
    fn send_variables(&mut self, field: &str, text: &str, to: &Destination) {
        if !has_reference(text) {
            return;
        }
        for variable in referenced_variables(text) {
            self.sends.push(ValueSent {
                value: SentValue::Variable(variable),
                field: field.to_owned(),
                to: to.clone(),
            });
        }
    }

    /// Refuses `field` when `text` names a variable.
    fn refuse_variables(&mut self, field: &str, text: &str) -> bool {
        if !has_reference(text) {
            return false;
        }
        let variables = referenced_variables(text);
        if variables.is_empty() {
            return false;
        }
        self.refused.push(Unstatable {
            field: field.to_owned(),
            reason: UnstatableReason::NamedByVariable(variables),
        });
        true
    }

    /// The origin of the URL in `field` (`https://host[:port]`); a refusal when its scheme or
    /// host is named by a variable, or it does not parse.
    fn origin(&mut self, field: &str, url: &str) -> Option<String> {
        let authority_end = url.find("://").map_or(url.len(), |start| {
            url[start + 3..]
                .find(['/', '?', '#'])
                .map_or(url.len(), |end| start + 3 + end)
        });
        if self.refuse_variables(field, &url[..authority_end]) {
            return None;
        }
        match url::Url::parse(url) {
            Ok(parsed) if parsed.has_host() => Some(parsed.origin().ascii_serialization()),
            // Discovery reports a URL that does not parse; there is nothing to contact.
            _ => None,
        }
    }

    /// What a remote server's OAuth settings make the client read, send and contact.
    fn oauth(&mut self, definition: &ServerConfig, source: &SourceMeta, origin: &str) {
        let authorization_server = Destination::AuthorizationServerOf(origin.to_owned());
        if definition.takes_stored_credentials() {
            self.sends.push(ValueSent {
                value: SentValue::StoredLogin,
                field: "headers.Authorization".to_owned(),
                to: Destination::Host(origin.to_owned()),
            });
        }
        let Some(auth) = definition.auth.as_ref().filter(|auth| auth.is_oauth()) else {
            if definition.takes_stored_credentials() {
                self.contacts.push(HostContact {
                    url: authorization_server.to_string(),
                    why: "when the server asks for a login".to_owned(),
                });
            }
            return;
        };
        for key in [
            "clientId",
            "client_id",
            "CLIENT_ID",
            "clientSecret",
            "client_secret",
            "CLIENT_SECRET",
            "assertion",
        ] {
            if let Some(text) = auth.extra.get(key).and_then(Value::as_str) {
                self.send_variables(&format!("auth.{key}"), text, &authorization_server);
            }
        }
        if let Some(endpoint) = auth.extra.get("idpTokenEndpoint").and_then(Value::as_str) {
            // Before the settings are read: a variable there makes them unreadable as written.
            self.origin("auth.idpTokenEndpoint", endpoint);
        }
        let Ok(settings) = auth.oauth_settings() else {
            // Invalid settings are the server's error at discovery; nothing of them is used.
            return;
        };
        let unattended = match &settings.grant {
            OAuthGrant::AuthorizationCode { .. } => "when the server asks for a login",
            _ => "to get its tokens by itself, at every connection",
        };
        self.contacts.push(HostContact {
            url: authorization_server.to_string(),
            why: unattended.to_owned(),
        });
        match settings.grant {
            OAuthGrant::ClientCredentials {
                credential: ClientCredentialSetting::PrivateKeyFile(path),
                ..
            } => self.read(
                source,
                "auth.privateKeyFile",
                &path,
                "signs the client's assertions sent",
                &authorization_server,
            ),
            OAuthGrant::WorkloadIdentity {
                assertion: CredentialSetting::File(path),
                ..
            } => self.read(
                source,
                "auth.assertionFile",
                &path,
                "sent as the grant",
                &authorization_server,
            ),
            OAuthGrant::EnterpriseManaged(managed) => {
                let endpoint = &managed.idp_token_endpoint;
                let idp = url::Url::parse(endpoint)
                    .ok()
                    .map(|url| url.origin().ascii_serialization());
                if let Some(idp) = idp {
                    self.contacts.push(HostContact {
                        url: without_query_or_user(endpoint),
                        why: "auth.idpTokenEndpoint: where the ID token is exchanged".to_owned(),
                    });
                    let idp = Destination::Host(idp);
                    if let Some(text) = auth.extra.get("idpClientId").and_then(Value::as_str) {
                        self.send_variables("auth.idpClientId", text, &idp);
                    }
                    match &managed.id_token {
                        CredentialSetting::File(path) => {
                            self.read(source, "auth.idTokenFile", path, "sent", &idp);
                        }
                        CredentialSetting::Value(text) => {
                            self.send_variables("auth.idToken", text, &idp);
                        }
                    }
                }
            }
            _ => {}
        }
        if settings.dpop == Some(true) {
            self.contacts.push(HostContact {
                url: Destination::Host(origin.to_owned()).to_string(),
                why: "auth.dpop: its tokens are bound to a key made for it and kept with its login"
                    .to_owned(),
            });
        }
    }

    /// A credential file read for the server: refused when a variable names it, or, for a
    /// project server, when it is outside the project folder.
    fn read(
        &mut self,
        source: &SourceMeta,
        field: &str,
        path: &Path,
        purpose: &'static str,
        to: &Destination,
    ) {
        if self.refuse_variables(field, &path.to_string_lossy()) {
            return;
        }
        let file = credential_file(path, source);
        if let Some(folder) = outside_project(&file, source) {
            self.refused.push(Unstatable {
                field: field.to_owned(),
                reason: UnstatableReason::OutsideProject {
                    file: file.clone(),
                    folder,
                },
            });
        }
        self.reads.push(FileRead {
            field: field.to_owned(),
            file,
            purpose,
            to: to.clone(),
        });
    }
}

/// Whether `text` may hold a `${…}` reference: most values hold none, and are passed over
/// without a look at their words.
fn has_reference(text: &str) -> bool {
    text.contains("${")
}

/// `url` as written, without its query, fragment or user part: where it goes. What those parts
/// send of the user's is stated by the variables they name; a value written out in them may be
/// a key, and is not shown.
fn without_query_or_user(url: &str) -> String {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    let url = &url[..end];
    let Some(start) = url.find("://").map(|at| at + 3) else {
        return url.to_owned();
    };
    let authority_end = url[start..].find('/').map_or(url.len(), |at| start + at);
    match url[start..authority_end].rfind('@') {
        Some(at) => format!("{}{}", &url[..start], &url[start + at + 1..]),
        None => url.to_owned(),
    }
}

/// The roots a server's entry offers it.
fn offered_roots(definition: &ServerConfig, source: &SourceMeta) -> OfferedRoots {
    match definition.roots() {
        Some(RootsSetting::Off) => OfferedRoots::None,
        Some(setting @ RootsSetting::Folders(_)) => {
            let base = source.path.parent().unwrap_or(Path::new("/"));
            match setting.resolve(base) {
                RootsSetting::Folders(folders) => OfferedRoots::Folders(
                    folders
                        .iter()
                        .map(|folder| shown_root(folder, base))
                        .collect(),
                ),
                RootsSetting::Off => OfferedRoots::None,
            }
        }
        None => OfferedRoots::Agent,
    }
}

/// A root as the approval shows it: the folder, and where it leads when a link on its way
/// below the config file's folder takes it elsewhere (`<project>/docs` linking to `$HOME` is
/// the home that is offered, whatever its name says).
fn shown_root(folder: &Path, base: &Path) -> String {
    let linked = folder
        .ancestors()
        .take_while(|ancestor| !base.starts_with(ancestor))
        .any(|ancestor| {
            std::fs::symlink_metadata(ancestor).is_ok_and(|meta| meta.file_type().is_symlink())
        });
    match std::fs::canonicalize(folder) {
        Ok(real) if linked => format!("{} (a link to {})", folder.display(), real.display()),
        _ => folder.display().to_string(),
    }
}

/// The folder a stdio server starts in, absolute, when it matters to what runs: the entry sets
/// a `cwd`, or its command is a relative path (found from that folder). A project server starts
/// in its project folder (a relative `cwd` taken from there), so its approval names the file
/// that runs from every subfolder.
fn start_folder(stdio: &StdioConfig, source: &SourceMeta) -> Option<String> {
    let relative_command = stdio.command.contains('/') && !Path::new(&stdio.command).is_absolute();
    if stdio.cwd.is_none() && !relative_command {
        return None;
    }
    let project = source
        .project_folder
        .as_deref()
        .filter(|_| source.in_project_folder);
    match (project, &stdio.cwd) {
        (Some(project), Some(cwd)) => Some(project.join(cwd).display().to_string()),
        (Some(project), None) => Some(project.display().to_string()),
        (None, cwd) => cwd.clone(),
    }
}

/// The folder a project server's shell command (a `!command` value, `headersHelper`) runs in,
/// when its program is a relative path found from there (`./scripts/token.sh`): the project
/// folder, absolute. Other commands name no folder.
fn shell_folder(command: &str, source: &SourceMeta) -> Option<String> {
    let words = shell_words::split(command).ok()?;
    let program = Path::new(words.first()?);
    if program.is_absolute() || !program.to_string_lossy().contains('/') {
        return None;
    }
    let project = source
        .project_folder
        .as_deref()
        .filter(|_| source.in_project_folder)?;
    Some(project.display().to_string())
}

/// Every string inside `value`, named `key`, `key[0]`, `key.inner`.
fn strings_in(name: String, value: &Value) -> Vec<(String, &str)> {
    match value {
        Value::String(text) => vec![(name, text)],
        Value::Array(items) => items
            .iter()
            .enumerate()
            .flat_map(|(index, item)| strings_in(format!("{name}[{index}]"), item))
            .collect(),
        Value::Object(fields) => fields
            .iter()
            .flat_map(|(key, item)| strings_in(format!("{name}.{key}"), item))
            .collect(),
        Value::Null | Value::Bool(_) | Value::Number(_) => Vec::new(),
    }
}
