//! Reading the fields of a tool's entry into ours: typed values whose problem names the key,
//! seconds and milliseconds, a tool's transport names, the `disabled` flag, and an entry that
//! is already in our shape.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::problems::EntryProblem;
use crate::server_config::ServerConfig;
use crate::source::standard_entry;

/// Turns `disabled: true` (Cline / Windsurf / Claude Desktop style) into `enabled: false`.
pub(super) fn apply_disabled_flag(config: &mut ServerConfig) {
    if let Some(Value::Bool(disabled)) = config.extra.get("disabled") {
        if *disabled {
            config.enabled = Some(false);
        }
        config.extra.remove("disabled");
    }
}

/// An entry in the runtime's own shape, with `disabled: true` honoured.
pub(super) fn standard_with_disabled(entry: &Value) -> Result<ServerConfig, EntryProblem> {
    let mut config = standard_entry(entry)?;
    apply_disabled_flag(&mut config);
    Ok(config)
}

/// A tool's name of a transport as ours, in place: `streamable-http`, `streamableHttp` and
/// `http` are `http` (Streamable HTTP, falling back to legacy SSE); `sse` and `stdio` stay.
/// Other names are left as written (a plugin's connector may claim them).
pub(super) fn normalize_transport_name(object: &mut Map<String, Value>, key: &str) {
    let Some(Value::String(name)) = object.get(key) else {
        return;
    };
    let ours = match name.as_str() {
        "streamable-http" | "streamableHttp" | "streamable_http" | "http" => "http",
        "sse" => "sse",
        "stdio" => "stdio",
        _ => return,
    };
    let ours = Value::from(ours);
    object.remove(key);
    object.insert("type".to_owned(), ours);
}

/// A tool's one timeout in seconds (`key`), which bounds the start and every request, as our
/// `timeout` and `toolTimeout` in milliseconds. Left alone when it is not there.
pub(super) fn single_timeout_in_seconds(
    object: &mut Map<String, Value>,
    key: &str,
) -> Result<(), EntryProblem> {
    let Some(value) = object.remove(key) else {
        return Ok(());
    };
    let millis = seconds(key, &value)?;
    object.insert("timeout".to_owned(), Value::from(millis));
    object.insert("toolTimeout".to_owned(), Value::from(millis));
    Ok(())
}

/// A string; the problem names the key.
pub(super) fn string(key: &str, value: &Value) -> Result<String, EntryProblem> {
    value
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| EntryProblem::NotString {
            key: key.to_owned(),
        })
}

/// A list of strings (`None`: the key is missing); the problem names the key.
pub(super) fn string_list(key: &str, value: Option<&Value>) -> Result<Vec<String>, EntryProblem> {
    let error = || EntryProblem::NotStringList {
        key: key.to_owned(),
    };
    value
        .and_then(Value::as_array)
        .ok_or_else(error)?
        .iter()
        .map(|item| item.as_str().map(str::to_owned).ok_or_else(error))
        .collect()
}

/// A map of strings, which the tool's format calls a `noun` (`a table`, `an object`); the
/// problem names the key.
pub(super) fn string_map(
    key: &str,
    value: &Value,
    noun: &'static str,
) -> Result<BTreeMap<String, String>, EntryProblem> {
    let error = || EntryProblem::NotStringMap {
        key: key.to_owned(),
        noun,
    };
    value
        .as_object()
        .ok_or_else(error)?
        .iter()
        .map(|(name, item)| Ok((name.clone(), item.as_str().ok_or_else(error)?.to_owned())))
        .collect()
}

/// A whole number of milliseconds from a JSON number (fractions are rounded).
pub(super) fn json_millis(value: &Value, field: &'static str) -> Result<u64, EntryProblem> {
    if let Some(ms) = value.as_u64() {
        return Ok(ms);
    }
    match value.as_f64() {
        Some(ms) if ms.is_finite() && ms >= 0.0 => Ok(round_to_u64(ms)),
        _ => Err(EntryProblem::NotMilliseconds { key: field }),
    }
}

/// Seconds (whole or fractional) as milliseconds.
pub(super) fn seconds(key: &str, value: &Value) -> Result<u64, EntryProblem> {
    let error = || EntryProblem::NotSeconds {
        key: key.to_owned(),
    };
    let millis = match (value.as_u64(), value.as_f64()) {
        (Some(seconds), _) => seconds.saturating_mul(1000),
        (None, Some(seconds)) if value.is_f64() && seconds.is_finite() && seconds >= 0.0 => {
            round_to_u64(seconds * 1000.0)
        }
        _ => return Err(error()),
    };
    Ok(millis)
}

/// Rounds a finite, non-negative float to the nearest whole number, saturating.
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "the value is finite and non-negative; `as` saturates at u64::MAX"
)]
pub(super) fn round_to_u64(value: f64) -> u64 {
    value.round() as u64
}
