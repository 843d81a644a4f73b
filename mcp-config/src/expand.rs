//! `${VAR}` and `${VAR:-default}` expansion at discovery.
//!
//! Expanded fields: `command`, `args`, `env` values, `cwd`, `url` and `headers` values, the
//! folders of `roots` (`${HOME}/data`), and the OAuth settings of `auth` (`clientId`,
//! `clientSecret`, `privateKeyFile`, `assertion`, `assertionFile`, `idToken`, `idTokenFile`,
//! `idpTokenEndpoint`, `idpClientId`: `${HOME}/keys/agent.pem`, `${WORKLOAD_TOKEN}`). A
//! reference to an unset variable without a default is an error for that server naming the
//! variable and the field, never a literal `${VAR}` sent to a server. `${VAR:-default}` uses the
//! default when the variable is unset or empty (as the shell does); the default may itself hold
//! references, `${A:-${B:-x}}`, expanded only when it is used, as a POSIX shell does (at most
//! [`MAX_NESTING`] deep). Bare `$VAR` is left alone, and so is anything in
//! `${…}` that is not a variable name (`${input:token}`, `${env:X}`). Finding the placeholders
//! is `placeholder.rs`'s part; this module gives them their values.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::entry_keys::ROOTS_KEY;
use crate::oauth_grant::EXPANDED_KEYS;
use crate::placeholder::{MAX_NESTING, Placeholder, is_variable_name, rewrite_braced};
use crate::problems::{ConfigProblem, ExpandError, ServerProblem};
use crate::server_config::ServerConfig;

/// Expands the references in one value. `Err` names the first unset variable (or says the
/// defaults nest too deep).
pub fn expand_value(text: &str, env: &BTreeMap<String, String>) -> Result<String, ExpandError> {
    expand_nested(text, env, 0)
}

fn expand_nested(
    text: &str,
    env: &BTreeMap<String, String>,
    depth: usize,
) -> Result<String, ExpandError> {
    if depth > MAX_NESTING {
        return Err(ExpandError::TooDeep);
    }
    rewrite_braced(text, &mut |inner| {
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        if !is_variable_name(name) {
            return Placeholder::Keep;
        }
        let fallback = |default: &str| expand_nested(default, env, depth + 1);
        let outcome = match (env.get(name), default) {
            (Some(value), Some(default)) if value.is_empty() => fallback(default),
            (Some(value), _) => Ok(value.clone()),
            (None, Some(default)) => fallback(default),
            (None, None) => Err(ExpandError::Unset {
                variable: name.to_owned(),
            }),
        };
        match outcome {
            Ok(text) => Placeholder::Replace(text),
            Err(error) => Placeholder::Reject(error),
        }
    })
    .map_err(|rejected| rejected.reason)
}

/// Expands every expandable field of a server's configuration. On failure, one
/// [`ConfigProblem::Expansion`] per field that cannot be expanded, shown as `Server "x":
/// environment variable "TOKEN" is not set (used in headers.Authorization); set it or give a
/// default with ${TOKEN:-default}`.
pub fn expand_server_config(
    name: &str,
    config: &ServerConfig,
    env: &BTreeMap<String, String>,
) -> Result<ServerConfig, Vec<ServerProblem>> {
    let mut problems = Vec::new();
    let mut expanded = config.clone();
    let mut expanded_to_bang = Vec::new();
    let mut slots = expanded.transport.expandable_values_mut();
    if let Some(Value::Array(folders)) = expanded.extra.get_mut(ROOTS_KEY) {
        for (index, folder) in folders.iter_mut().enumerate() {
            if let Value::String(folder) = folder {
                slots.push((format!("roots[{index}]"), folder));
            }
        }
    }
    // The OAuth settings of an `auth` block (client IDs and secrets, file names, endpoints).
    if let Some(auth) = &mut expanded.auth {
        for (key, value) in &mut auth.extra {
            if let Value::String(text) = value
                && EXPANDED_KEYS.contains(&key.as_str())
            {
                slots.push((format!("auth.{key}"), text));
            }
        }
    }
    for (field, value) in slots {
        let resolved_at_connect = field.starts_with("env.") || field.starts_with("headers.");
        if resolved_at_connect && config.is_command(&field, value) {
            // A `!command` as written is run as written: `sh` expands a `${VAR}` in it as data.
            continue;
        }
        match expand_value(value, env) {
            Ok(text) => {
                if resolved_at_connect && text.starts_with('!') {
                    expanded_to_bang.push(field);
                }
                *value = text;
            }
            Err(error) => problems.push(ServerProblem::new(
                name,
                ConfigProblem::Expansion { field, error },
            )),
        }
    }
    if problems.is_empty() {
        expanded.expanded_to_bang.extend(expanded_to_bang);
        Ok(expanded)
    } else {
        Err(problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server_config::{RemoteConfig, StdioConfig, TransportConfig};

    /// The problems as the user reads them.
    fn texts(problems: Vec<ServerProblem>) -> Vec<String> {
        problems
            .into_iter()
            .map(|problem| problem.to_string())
            .collect()
    }

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn set_empty_and_default_cases() {
        let vars = env(&[("SET", "value"), ("EMPTY", "")]);
        for (text, expanded) in [
            ("a-${SET}-b", "a-value-b"),
            ("${EMPTY}", ""),
            ("${EMPTY:-fallback}", "fallback"),
            ("${UNSET:-fallback}", "fallback"),
            ("${UNSET:-}", ""),
            ("${SET:-fallback}", "value"),
            ("${SET}${SET}", "valuevalue"),
        ] {
            assert_eq!(expand_value(text, &vars).as_deref(), Ok(expanded), "{text}");
        }
        assert_eq!(
            expand_value("${UNSET}", &vars).unwrap_err(),
            ExpandError::Unset {
                variable: "UNSET".into()
            }
        );
    }

    #[test]
    fn nested_defaults_expand_as_a_posix_shell_would() {
        let vars = env(&[("A", "aval"), ("B", "bval"), ("EMPTY", "")]);
        for (text, expanded) in [
            ("${A:-${B}}", "aval"),
            ("${UNSET:-${B}}", "bval"),
            ("${EMPTY:-${UNSET:-x}}", "x"),
            ("${UNSET:-pre-${B}-post}", "pre-bval-post"),
            ("${UNSET:-${UNSET2:-${A}}}/tail", "aval/tail"),
            // The default is only expanded when it is used: an unset variable in it is fine
            // as long as the variable before it is set.
            ("${A:-${NOT_SET}}", "aval"),
        ] {
            assert_eq!(expand_value(text, &vars).as_deref(), Ok(expanded), "{text}");
        }
        assert_eq!(
            expand_value("${UNSET:-${NOT_SET}}", &vars).unwrap_err(),
            ExpandError::Unset {
                variable: "NOT_SET".into()
            }
        );
        let deep = format!(
            "{}x{}",
            "${U:-".repeat(MAX_NESTING + 2),
            "}".repeat(MAX_NESTING + 2)
        );
        let error = expand_value(&deep, &vars).unwrap_err();
        assert_eq!(error, ExpandError::TooDeep);
        assert!(error.to_string().contains("nested"));
    }

    #[test]
    fn bare_dollars_and_foreign_placeholders_are_left_alone() {
        let vars = env(&[("HOME", "/h")]);
        for (text, expanded) in [
            ("$HOME/x", "$HOME/x"),
            ("${input:token}", "${input:token}"),
            ("${env:HOME}", "${env:HOME}"),
            ("cost: ${", "cost: ${"),
            ("ünï ${HOME} ✓", "ünï /h ✓"),
        ] {
            assert_eq!(expand_value(text, &vars).as_deref(), Ok(expanded), "{text}");
        }
    }

    #[test]
    fn every_field_is_expanded_and_each_unset_variable_is_named_with_its_field() {
        let mut stdio = StdioConfig::new("${BIN}", ["--token", "${TOKEN}", "--dir=${DIR:-/tmp}"]);
        stdio.env.insert("API_KEY".into(), "${KEY}".into());
        stdio.cwd = Some("${DIR:-/work}".into());
        let config = ServerConfig::new(TransportConfig::Stdio(stdio.clone()));
        let vars = env(&[("BIN", "/usr/bin/srv"), ("TOKEN", "t0k")]);
        let problems = texts(expand_server_config("s", &config, &vars).unwrap_err());
        assert_eq!(
            problems,
            [
                "Server \"s\": environment variable \"KEY\" is not set (used in env.API_KEY); set it or give a default with ${KEY:-default}"
            ]
        );

        let vars = env(&[("BIN", "/usr/bin/srv"), ("TOKEN", "t0k"), ("KEY", "k")]);
        let expanded = expand_server_config("s", &config, &vars).unwrap();
        stdio.command = "/usr/bin/srv".into();
        stdio.args = vec!["--token".into(), "t0k".into(), "--dir=/tmp".into()];
        stdio.env.insert("API_KEY".into(), "k".into());
        stdio.cwd = Some("/work".into());
        assert_eq!(expanded.transport, TransportConfig::Stdio(stdio));

        let mut remote = RemoteConfig::new("https://${HOST}/mcp");
        remote
            .headers
            .insert("Authorization".into(), "Bearer ${API_TOKEN}".into());
        let remote = ServerConfig::new(TransportConfig::Http(remote));
        let problems = texts(expand_server_config("r", &remote, &BTreeMap::new()).unwrap_err());
        assert_eq!(problems.len(), 2);
        assert!(problems[0].contains("\"HOST\" is not set (used in url)"));
        assert!(problems[1].contains("\"API_TOKEN\" is not set (used in headers.Authorization)"));
    }

    #[test]
    fn roots_folders_are_expanded_and_an_unset_variable_names_its_folder() {
        let mut config = ServerConfig::stdio("srv", Vec::<String>::new());
        config.extra.insert(
            "roots".into(),
            serde_json::json!(["${HOME}/data", "/fixed", "${WORK:-/work}"]),
        );
        let expanded = expand_server_config("fs", &config, &env(&[("HOME", "/h")])).unwrap();
        assert_eq!(
            expanded.extra["roots"],
            serde_json::json!(["/h/data", "/fixed", "/work"])
        );
        assert_eq!(
            texts(expand_server_config("fs", &config, &BTreeMap::new()).unwrap_err()),
            [
                "Server \"fs\": environment variable \"HOME\" is not set (used in roots[0]); set \
                 it or give a default with ${HOME:-default}"
            ]
        );
    }
}
