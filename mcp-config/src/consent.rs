//! The consent description (documented on [`Consent`]); `consent/from_definition.rs` works one out from a definition.

mod from_definition;

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Value, json};

use crate::origin::SourceMeta;
use crate::server_config::ServerConfig;

/// Everything approving one server lets it do.
///
/// The consent description: everything approving a project server lets it do, stated once
/// ([`Consent::of`]) and shown by every interface that asks for an approval (the CLI's `trust`,
/// `get` and `list --json`, the shell, an embedder's [`TrustPolicy::Ask`](crate::TrustPolicy::Ask) callback).
///
/// A project file is written by whoever wrote the repository; what approving one of its servers
/// hands over is the user's. The description names all of it, by name, never a value:
///
/// - **runs**: the commands it makes run on this machine: the server's command line (with the
///   folder it runs in and the names of the variables it is given, which can change what a
///   program does: `NODE_OPTIONS`, `LD_PRELOAD`), every `!command` value of `env` or
///   `headers`, a `headersHelper`, and where each one's output goes;
/// - **reads**: the files it makes the client read (`privateKeyFile`, `assertionFile`,
///   `idTokenFile`), resolved as the client will resolve them (a relative name from the folder
///   of the file that defines the server, symlinks followed), and where their content goes;
/// - **sends**: every environment variable whose value it sends (`${GH_TOKEN}` in a header, an
///   argument, the URL, an `auth` setting), and a stored login, each with where it goes: the
///   server's process, a host, the authorization server the server names;
/// - **contacts**: the hosts it makes the client contact: the server's URL, the authorization
///   server it names (for a login, or an unattended grant), an identity provider's endpoint;
/// - **roots**: the folders it is offered (`roots/list`);
/// - **replaces**: the user's own server of the same name it takes the place of, once approved
///   (discovery tells, [`Consent::replacing`]).
///
/// What cannot be stated cannot be approved ([`Consent::refused`]): a command, a server URL's
/// host, an identity provider's endpoint or a credential file named by a variable (whose value,
/// unknown here, decides what runs, where a credential goes or what is read), and, for a project
/// server, a credential file outside its own project folder — a cloned repository never makes
/// the client read `~/.ssh`. Such a server is never approved: the approval writer
/// ([`trust_project_servers`](crate::writer::trust_project_servers)) refuses it, the approvals
/// discovery reads do not count for it, and the connection refuses a project server's
/// credential file outside its folder whatever approved it
/// ([`check_auth_source`](crate::auth::check_auth_source)).
///
/// An approval records [`approval_hash`]: the definition as written and this description, so a
/// change to either — an edited entry, a key file's symlink now leading elsewhere — asks again.
///
/// This file holds the description's parts and how they are shown ([`Consent::lines`],
/// [`Consent::to_json`]); `consent/from_definition.rs` works one out from a definition.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Consent {
    /// The commands it makes run.
    pub runs: Vec<CommandRun>,
    /// The files it makes the client read.
    pub reads: Vec<FileRead>,
    /// The values of the user's it sends (environment variables, a stored login).
    pub sends: Vec<ValueSent>,
    /// The hosts it makes the client contact.
    pub contacts: Vec<HostContact>,
    /// The folders it is offered as roots.
    pub roots: OfferedRoots,
    /// The user's own definition of the same name that approving this one replaces (the
    /// project's definition wins its name once approved), when there is one.
    pub replaces: Option<SourceMeta>,
    /// What the description cannot state: while there is any, the server cannot be approved.
    pub refused: Vec<Unstatable>,
}

/// A command the server makes run on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CommandRun {
    /// Where it is written: `command` (the server itself), `env.KEY`, `headers.KEY`,
    /// `headersHelper`.
    pub field: String,
    /// The command line as written (`${VAR}` unexpanded; arguments quoted as a shell would).
    pub command: String,
    /// The folder it runs in, when the entry sets one (`cwd`).
    pub folder: Option<String>,
    /// The names of the variables it is started with beyond the agent's own (`!command` values
    /// are runs of their own): for the server itself, whose program a variable such as
    /// `NODE_OPTIONS` or `LD_PRELOAD` changes. Their values are not part of the description: a
    /// value written out may be a key, and what of the user's they send is in
    /// [`Consent::sends`].
    pub env: Vec<String>,
    /// Where its output goes: `None` for the server itself.
    pub output_to: Option<Destination>,
}

/// A file the client reads for the server, and where its content goes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FileRead {
    /// The setting naming it, e.g. `auth.assertionFile`.
    pub field: String,
    /// The file, as the client will read it: absolute, symlinks followed when it exists.
    pub file: PathBuf,
    /// What is done with it, e.g. `sent as the grant`.
    pub purpose: &'static str,
    /// Where its content (or what is made with it) goes.
    pub to: Destination,
}

/// A value of the user's that the server is sent.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ValueSent {
    /// What is sent.
    pub value: SentValue,
    /// Where in the entry it is used, e.g. `headers.Authorization`.
    pub field: String,
    /// Where it goes.
    pub to: Destination,
}

/// What of the user's is sent.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SentValue {
    /// The value of an environment variable (named, never shown).
    Variable(String),
    /// The user's stored login for this server (its access token), if there is one.
    StoredLogin,
}

/// A host the client contacts for the server.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HostContact {
    /// The URL as written, or a description of an endpoint found when connecting.
    pub url: String,
    /// Why: `the server`, `auth.idpTokenEndpoint: …`.
    pub why: String,
}

/// Where something goes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Destination {
    /// The server's own process: its command line, its environment.
    Process,
    /// A host, by its origin (`https://api.example.com`).
    Host(String),
    /// The authorization server the server at this origin names (found when it connects): its
    /// token endpoint.
    AuthorizationServerOf(String),
    /// The transport plugin that connects entries of this `type`.
    Plugin(String),
}

/// The folders a server is offered as roots.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum OfferedRoots {
    /// None (`"roots": false`).
    None,
    /// These, as the entry writes them (a relative folder made absolute).
    Folders(Vec<String>),
    /// Whatever the agent offers every server (the CLI's `--root`; none by default).
    #[default]
    Agent,
}

/// Something the description cannot state, which keeps the server from being approved.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Unstatable {
    /// The setting, e.g. `auth.assertionFile`.
    pub field: String,
    /// Why.
    pub reason: UnstatableReason,
}

/// Why a setting cannot be stated.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UnstatableReason {
    /// Its command, host or file is named by these variables: their values, unknown here,
    /// decide what runs, where a credential goes or what is read.
    NamedByVariable(Vec<String>),
    /// A project server's credential file outside its own project folder.
    OutsideProject {
        /// The file, as it would be read.
        file: PathBuf,
        /// The project folder of the file defining the server.
        folder: PathBuf,
    },
}

impl Consent {
    /// This description, for a server whose approval makes it replace the user's own definition
    /// of the same name in `replaced` (discovery knows which: the one that would be used
    /// otherwise).
    #[must_use]
    pub fn replacing(mut self, replaced: Option<SourceMeta>) -> Self {
        self.replaces = replaced;
        self
    }

    /// True when nothing keeps the server from being approved.
    pub fn is_approvable(&self) -> bool {
        self.refused.is_empty()
    }

    /// The description as lines, `(label, text)`: `runs:`, `reads:`, `sends:`, `contacts:`,
    /// `roots:`, `replaces:` and `refused:`, in that order. Text from the definition is as written; the
    /// caller escapes it for a terminal.
    pub fn lines(&self) -> Vec<(&'static str, String)> {
        let mut lines = Vec::new();
        for run in &self.runs {
            let mut text = run.command.clone();
            let when = match &run.output_to {
                None => {
                    let mut what = "the server".to_owned();
                    if let Some(folder) = &run.folder {
                        what.push_str(&format!(", in {folder}"));
                    }
                    if !run.env.is_empty() {
                        what.push_str(&format!(", with env {}", run.env.join(", ")));
                    }
                    what
                }
                Some(to) => {
                    let when = if run.field == crate::entry_keys::HEADERS_HELPER {
                        "at every connection"
                    } else {
                        "when it connects"
                    };
                    let folder = run
                        .folder
                        .as_ref()
                        .map(|folder| format!(" in {folder}"))
                        .unwrap_or_default();
                    format!(
                        "{}, run by sh{folder} {when}; its output goes to {to}",
                        run.field
                    )
                }
            };
            text.push_str(&format!("  ({when})"));
            lines.push(("runs:", text));
        }
        for read in &self.reads {
            lines.push((
                "reads:",
                format!(
                    "{} ({}), {} to {}",
                    read.file.display(),
                    read.field,
                    read.purpose,
                    read.to
                ),
            ));
        }
        for sent in &self.sends {
            lines.push((
                "sends:",
                format!("{} ({}) to {}", sent.value, sent.field, sent.to),
            ));
        }
        for contact in &self.contacts {
            lines.push(("contacts:", format!("{} ({})", contact.url, contact.why)));
        }
        lines.push(("roots:", self.roots.to_string()));
        if let Some(replaced) = &self.replaces {
            lines.push((
                "replaces:",
                format!(
                    "your own server of that name, defined in {} ({}) {}",
                    replaced.provider_name,
                    replaced.level,
                    replaced.path.display()
                ),
            ));
        }
        for refused in &self.refused {
            lines.push(("refused:", refused.to_string()));
        }
        lines
    }

    /// The description as JSON: `{"approvable", "runs": [{"field", "command", "folder", "env",
    /// "output_to"}], "reads": [{"field", "file", "purpose", "to"}], "sends": [{"value",
    /// "variable", "field", "to"}], "contacts": [{"url", "why"}], "roots": {"offered":
    /// "none"|"folders"|"agent", "folders"}, "replaces": {"provider", "provider_name", "path",
    /// "level"} | null, "refused": [{"field", "reason"}]}`.
    pub fn to_json(&self) -> Value {
        let runs: Vec<Value> = self
            .runs
            .iter()
            .map(|run| {
                json!({
                    "field": run.field,
                    "command": run.command,
                    "folder": run.folder,
                    "env": run.env,
                    "output_to": run.output_to.as_ref().map(ToString::to_string),
                })
            })
            .collect();
        let reads: Vec<Value> = self
            .reads
            .iter()
            .map(|read| {
                json!({
                    "field": read.field,
                    "file": read.file.display().to_string(),
                    "purpose": read.purpose,
                    "to": read.to.to_string(),
                })
            })
            .collect();
        let sends: Vec<Value> = self
            .sends
            .iter()
            .map(|sent| {
                let variable = match &sent.value {
                    SentValue::Variable(name) => Some(name.as_str()),
                    SentValue::StoredLogin => None,
                };
                json!({
                    "value": sent.value.to_string(),
                    "variable": variable,
                    "field": sent.field,
                    "to": sent.to.to_string(),
                })
            })
            .collect();
        let contacts: Vec<Value> = self
            .contacts
            .iter()
            .map(|contact| json!({"url": contact.url, "why": contact.why}))
            .collect();
        let roots = match &self.roots {
            OfferedRoots::None => json!({"offered": "none"}),
            OfferedRoots::Folders(folders) => json!({"offered": "folders", "folders": folders}),
            OfferedRoots::Agent => json!({"offered": "agent"}),
        };
        let refused: Vec<Value> = self
            .refused
            .iter()
            .map(|refused| json!({"field": refused.field, "reason": refused.reason.to_string()}))
            .collect();
        let replaces = self.replaces.as_ref().map(|replaced| {
            json!({
                "provider": replaced.provider,
                "provider_name": replaced.provider_name,
                "path": replaced.path.display().to_string(),
                "level": replaced.level.as_str(),
            })
        });
        json!({
            "approvable": self.is_approvable(),
            "runs": runs,
            "reads": reads,
            "sends": sends,
            "contacts": contacts,
            "roots": roots,
            "replaces": replaces,
            "refused": refused,
        })
    }
}

impl fmt::Display for Destination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Process => f.write_str("the server's process"),
            Self::Host(origin) => f.write_str(origin),
            Self::AuthorizationServerOf(origin) => {
                write!(f, "the authorization server that {origin} names")
            }
            Self::Plugin(kind) => write!(f, "the transport plugin for type \"{kind}\""),
        }
    }
}

impl fmt::Display for SentValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Variable(name) => write!(f, "${name}"),
            Self::StoredLogin => f.write_str("your stored login for it, if you logged in"),
        }
    }
}

impl fmt::Display for OfferedRoots {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::None => f.write_str("none"),
            Self::Folders(folders) if folders.is_empty() => f.write_str("none"),
            Self::Folders(folders) => f.write_str(&folders.join(", ")),
            Self::Agent => f.write_str(
                "the folders the agent offers every server (the CLI's --root; none by default)",
            ),
        }
    }
}

impl fmt::Display for Unstatable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.reason)
    }
}

impl fmt::Display for UnstatableReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NamedByVariable(variables) => {
                let names: Vec<String> = variables.iter().map(|name| format!("${name}")).collect();
                write!(
                    f,
                    "named by {}, whose value decides what it reaches, so approving it cannot \
                     say what it allows; write it out, or define the server in your own config",
                    names.join(", ")
                )
            }
            Self::OutsideProject { file, folder } => write!(
                f,
                "names {}, outside the project folder {}: a project's server may read \
                 credential files only inside its own folder; define the server in your own \
                 config to let it read that file",
                file.display(),
                folder.display()
            ),
        }
    }
}

/// The hash an approval records: the definition as written and what approving it lets it do,
/// as canonical JSON (keys sorted), SHA-256, hex.
pub fn approval_hash(definition: &ServerConfig, consent: &Consent) -> String {
    let value = json!({
        "definition": serde_json::to_value(definition).unwrap_or(Value::Null),
        "consent": consent.to_json(),
    });
    crate::hashing::sha256_canonical(&value)
}

impl Serialize for Consent {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}
