//! A tool's spelling of an environment variable as ours (`$VAR` → `${VAR}`), applied to every
//! field discovery expands.

use crate::placeholder::{Rejected, is_variable_name};
use crate::problems::{EntryProblem, PlaceholderProblem};
use crate::server_config::ServerConfig;

/// `$VAR` → `${VAR}`; `${…}` and a `$` not followed by a name are left alone.
pub(super) fn dollar_vars(text: &str) -> String {
    if !text.contains('$') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(start) = rest.find('$') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        let name_len = after
            .char_indices()
            .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
            .map_or(after.len(), |(index, _)| index);
        let name = &after[..name_len];
        if is_variable_name(name) {
            out.push_str(&var_ref(name));
            rest = &after[name_len..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Our reference to an environment variable.
pub(super) fn var_ref(name: &str) -> String {
    format!("${{{name}}}")
}

/// Applies `rewrite` to every value discovery expands (command, args, env values, cwd, url,
/// header values). The problem names the field, e.g. `env.TOKEN uses ${input:token}: …`.
pub(super) fn rewrite_fields(
    config: &mut ServerConfig,
    rewrite: &mut dyn FnMut(&str) -> Result<String, Rejected<PlaceholderProblem>>,
) -> Result<(), EntryProblem> {
    for (field, value) in config.transport.expandable_values_mut() {
        *value = rewrite(value).map_err(|rejected| EntryProblem::Placeholder {
            field,
            placeholder: rejected.placeholder,
            reason: rejected.reason,
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_dollar_variables_become_braced() {
        assert_eq!(dollar_vars("$TOKEN"), "${TOKEN}");
        assert_eq!(dollar_vars("a-$A_1/b"), "a-${A_1}/b");
        assert_eq!(dollar_vars("${KEEP} $"), "${KEEP} $");
        assert_eq!(dollar_vars("$1 $$X"), "$1 $${X}");
        assert_eq!(dollar_vars("ünï $HOME ✓"), "ünï ${HOME} ✓");
    }
}
