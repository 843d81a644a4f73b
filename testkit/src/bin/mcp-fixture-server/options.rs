//! Command-line flags of the fixture server: what to script and how to misbehave.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::PathBuf;

/// What the command line asks for.
pub(crate) enum Parsed {
    /// Serve MCP with these options.
    Run(Box<Options>),
    /// Print the usage text and exit 0.
    Help,
}

/// Which step of leaving a daemon (`--daemon`) this process is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DaemonStep {
    /// The middle process: a new session, the daemon started in it, then exit.
    Session,
    /// The daemon: write the pid file, then sleep forever.
    Sleep,
}

/// Every scriptable behaviour, parsed from the flags in `usage.txt`.
#[derive(Debug)]
pub(crate) struct Options {
    pub(crate) name: String,
    pub(crate) instructions: Option<String>,
    pub(crate) protocol_version: Option<String>,
    pub(crate) crash_at: HashSet<String>,
    pub(crate) crash_stderr: Option<String>,
    pub(crate) exit_code: i32,
    pub(crate) hang_at: HashSet<String>,
    pub(crate) delays: HashMap<String, u64>,
    /// `--hold PHASE=FIFO`: the named pipe whose opening by a writer releases that method.
    pub(crate) holds: HashMap<String, String>,
    pub(crate) garbage: bool,
    pub(crate) huge_line_at: HashMap<String, usize>,
    pub(crate) stderr_flood: usize,
    pub(crate) ignore_stdin_close: bool,
    pub(crate) ignore_sigterm: bool,
    pub(crate) page_size: Option<usize>,
    pub(crate) tools: usize,
    /// `--tool NAME=DESCRIPTION`: echo-like tools with these names and descriptions.
    pub(crate) named_tools: Vec<(String, String)>,
    /// `--tools-json PATH`: tool definitions listed as written, and the files they came from.
    pub(crate) json_tools: Vec<serde_json::Value>,
    pub(crate) json_tools_files: Vec<String>,
    /// `--tools-json-live`: `change_tools` reads the `--tools-json` files again.
    pub(crate) json_tools_live: bool,
    pub(crate) repeat_cursor: bool,
    pub(crate) list_change_after: Option<u64>,
    pub(crate) grandchild: bool,
    pub(crate) sleep_forever: bool,
    /// `--daemon FILE`: leave a daemon that writes its pid to FILE.
    pub(crate) daemon: Option<PathBuf>,
    /// The daemon's steps, internal: the middle process (`--daemon-session FILE`) and the
    /// daemon itself (`--daemon-sleep FILE`).
    pub(crate) daemon_step: Option<(DaemonStep, PathBuf)>,
    pub(crate) server_requests: bool,
    pub(crate) no_tools: bool,
    pub(crate) false_answers_at: HashSet<String>,
    pub(crate) resources: bool,
    pub(crate) prompts: bool,
    pub(crate) catalog_change_after: Option<u64>,
    /// `--skills DIR`: the skills of DIR's folders.
    pub(crate) skills: Option<PathBuf>,
    /// `--log-reads FILE`: every `resources/read` URI of a skill, appended to FILE.
    pub(crate) log_reads: Option<PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            name: "fixture".to_owned(),
            instructions: None,
            protocol_version: None,
            crash_at: HashSet::new(),
            crash_stderr: None,
            exit_code: 3,
            hang_at: HashSet::new(),
            delays: HashMap::new(),
            holds: HashMap::new(),
            garbage: false,
            huge_line_at: HashMap::new(),
            stderr_flood: 0,
            ignore_stdin_close: false,
            ignore_sigterm: false,
            page_size: None,
            tools: 0,
            named_tools: Vec::new(),
            json_tools: Vec::new(),
            json_tools_files: Vec::new(),
            json_tools_live: false,
            repeat_cursor: false,
            list_change_after: None,
            grandchild: false,
            sleep_forever: false,
            daemon: None,
            daemon_step: None,
            server_requests: false,
            no_tools: false,
            false_answers_at: HashSet::new(),
            resources: false,
            prompts: false,
            catalog_change_after: None,
            skills: None,
            log_reads: None,
        }
    }
}

impl Options {
    /// Parses the arguments after the program name; `Err` holds a message for stderr.
    pub(crate) fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Parsed, String> {
        let mut opts = Self::default();
        let mut args = args.into_iter();
        while let Some(raw) = args.next() {
            let arg = raw
                .into_string()
                .map_err(|bad| format!("argument is not UTF-8: {bad:?}"))?;
            // Both `--flag value` and `--flag=value` are accepted.
            let (flag, inline) = match arg.split_once('=') {
                Some((flag, value)) if flag.starts_with("--") => {
                    (flag.to_owned(), Some(value.to_owned()))
                }
                _ => (arg, None),
            };
            let mut inline = inline;
            let mut value = || -> Result<String, String> {
                if let Some(value) = inline.take() {
                    return Ok(value);
                }
                match args.next() {
                    Some(value) => value
                        .into_string()
                        .map_err(|bad| format!("value of {flag} is not UTF-8: {bad:?}")),
                    None => Err(format!("{flag} needs a value")),
                }
            };
            match flag.as_str() {
                "-h" | "--help" => return Ok(Parsed::Help),
                "--name" => opts.name = value()?,
                "--instructions" => opts.instructions = Some(value()?),
                "--protocol-version" => opts.protocol_version = Some(value()?),
                "--crash-at" => {
                    opts.crash_at.insert(value()?);
                }
                "--crash-stderr" => opts.crash_stderr = Some(value()?),
                "--exit-code" => opts.exit_code = number(&flag, &value()?)?,
                "--hang-at" => {
                    opts.hang_at.insert(value()?);
                }
                "--delay" => {
                    let (phase, ms) = phase_and_number(&flag, &value()?)?;
                    opts.delays.insert(phase, ms);
                }
                "--hold" => {
                    let text = value()?;
                    match text.split_once('=') {
                        Some((phase, fifo)) if !phase.is_empty() && !fifo.is_empty() => {
                            opts.holds.insert(phase.to_owned(), fifo.to_owned());
                        }
                        _ => return Err(format!("{flag} needs PHASE=FIFO, got {text:?}")),
                    }
                }
                "--garbage" => opts.garbage = true,
                "--huge-line-at" => {
                    let (phase, bytes) = phase_and_number(&flag, &value()?)?;
                    opts.huge_line_at.insert(phase, bytes);
                }
                "--stderr-flood" => opts.stderr_flood = number(&flag, &value()?)?,
                "--ignore-stdin-close" => opts.ignore_stdin_close = true,
                "--exit-on-stdin-close" => opts.ignore_stdin_close = false,
                "--ignore-sigterm" => opts.ignore_sigterm = true,
                "--page-size" => {
                    let size: usize = number(&flag, &value()?)?;
                    if size == 0 {
                        return Err("--page-size must be at least 1".to_owned());
                    }
                    opts.page_size = Some(size);
                }
                "--tools" => opts.tools = number(&flag, &value()?)?,
                "--tool" => {
                    let spec = value()?;
                    let (name, description) = spec
                        .split_once('=')
                        .ok_or_else(|| format!("--tool takes NAME=DESCRIPTION, not {spec:?}"))?;
                    opts.named_tools
                        .push((name.to_owned(), description.to_owned()));
                }
                "--tools-file" => {
                    // Relative to the working folder: the same command line lists other tools
                    // in another folder, as a project's own server does.
                    let path = value()?;
                    let text = std::fs::read_to_string(&path)
                        .map_err(|error| format!("--tools-file {path:?}: {error}"))?;
                    for line in text.lines().filter(|line| !line.trim().is_empty()) {
                        let (name, description) = line.split_once('=').ok_or_else(|| {
                            format!("--tools-file {path:?}: NAME=DESCRIPTION, not {line:?}")
                        })?;
                        opts.named_tools
                            .push((name.to_owned(), description.to_owned()));
                    }
                }
                "--tools-json" => {
                    let path = value()?;
                    opts.json_tools.extend(json_tools(&path)?);
                    opts.json_tools_files.push(path);
                }
                "--tools-json-live" => opts.json_tools_live = true,
                "--repeat-cursor" => opts.repeat_cursor = true,
                "--list-change-after" => opts.list_change_after = Some(number(&flag, &value()?)?),
                "--grandchild" => opts.grandchild = true,
                "--sleep-forever" => opts.sleep_forever = true,
                "--daemon" => opts.daemon = Some(value()?.into()),
                "--daemon-session" => {
                    opts.daemon_step = Some((DaemonStep::Session, value()?.into()));
                }
                "--daemon-sleep" => opts.daemon_step = Some((DaemonStep::Sleep, value()?.into())),
                "--server-requests" => opts.server_requests = true,
                "--no-tools" => opts.no_tools = true,
                "--false-answers-at" => {
                    opts.false_answers_at.insert(value()?);
                }
                "--resources" => opts.resources = true,
                "--skills" => opts.skills = Some(value()?.into()),
                "--log-reads" => opts.log_reads = Some(value()?.into()),
                "--prompts" => opts.prompts = true,
                "--catalog-change-after" => {
                    opts.catalog_change_after = Some(number(&flag, &value()?)?);
                }
                _ => return Err(format!("unknown flag {flag}")),
            }
            if inline.is_some() {
                return Err(format!("{flag} takes no value"));
            }
        }
        Ok(Parsed::Run(Box::new(opts)))
    }
}

/// The tool definitions of a `--tools-json` file: a JSON array of objects, each with a string
/// `name` (the rest is listed as written: title, schemas, annotations, `_meta`).
pub(crate) fn json_tools(path: &str) -> Result<Vec<serde_json::Value>, String> {
    let text =
        std::fs::read_to_string(path).map_err(|error| format!("--tools-json {path:?}: {error}"))?;
    let tools: Vec<serde_json::Value> = serde_json::from_str(&text)
        .map_err(|error| format!("--tools-json {path:?}: not a JSON array of tools: {error}"))?;
    for tool in &tools {
        if !tool.get("name").is_some_and(serde_json::Value::is_string) {
            return Err(format!(
                "--tools-json {path:?}: every tool needs a string \"name\", not {tool}"
            ));
        }
    }
    Ok(tools)
}

fn number<T: std::str::FromStr>(flag: &str, text: &str) -> Result<T, String> {
    text.parse()
        .map_err(|_| format!("{flag} needs a number, got {text:?}"))
}

/// Splits `PHASE=N` as used by `--delay` and `--huge-line-at`.
fn phase_and_number<T: std::str::FromStr>(flag: &str, text: &str) -> Result<(String, T), String> {
    let Some((phase, n)) = text.rsplit_once('=') else {
        return Err(format!("{flag} needs PHASE=NUMBER, got {text:?}"));
    };
    if phase.is_empty() {
        return Err(format!("{flag} needs a PHASE before '=', got {text:?}"));
    }
    Ok((phase.to_owned(), number(flag, n)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Parsed, String> {
        Options::parse(args.iter().map(OsString::from))
    }

    #[test]
    fn reads_values_in_both_spellings() {
        let Ok(Parsed::Run(opts)) = parse(&[
            "--name",
            "a",
            "--delay=tools/list=1500",
            "--delay",
            "initialize=400",
            "--page-size=3",
        ]) else {
            panic!("flags should parse");
        };
        assert_eq!(opts.name, "a");
        assert_eq!(opts.delays.get("tools/list"), Some(&1500));
        assert_eq!(opts.delays.get("initialize"), Some(&400));
        assert_eq!(opts.page_size, Some(3));
    }

    #[test]
    fn rejects_unknown_flags_missing_values_and_stray_values() {
        assert!(parse(&["--nope"]).is_err());
        assert!(parse(&["--name"]).is_err());
        assert!(parse(&["--delay", "initialize"]).is_err());
        let Parsed::Run(held) = parse(&["--hold", "initialize=/tmp/a=b"]).unwrap() else {
            panic!("not a run");
        };
        assert_eq!(
            held.holds.get("initialize").map(String::as_str),
            Some("/tmp/a=b")
        );
        assert!(parse(&["--hold", "initialize"]).is_err());
        assert!(parse(&["--hold", "=/tmp/fifo"]).is_err());
        assert!(parse(&["--garbage=yes"]).is_err());
        assert!(parse(&["--page-size", "0"]).is_err());
        assert!(parse(&["--tools-json", "/no/such/file.json"]).is_err());
    }
}
