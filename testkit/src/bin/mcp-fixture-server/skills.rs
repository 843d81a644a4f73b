//! Skills (`--skills DIR`, the `io.modelcontextprotocol/skills` extension): each folder of DIR
//! that holds a `SKILL.md` is a skill named after the folder.
//!
//! `skills/list` (paged as tools are) and `skills/get` state every file of a skill — `SKILL.md`
//! first, then the rest by path — with its size and SHA-256 *as it is at that moment*, and
//! `resources/read` of `skill://<folder>/<path>` reads the file *as it is then*: a test changes
//! a file between the two to play a server that lists one thing and serves another. The
//! frontmatter stated is `frontmatter.json` in the skill's folder when there is one (a listing
//! that disagrees with its file), else the `key: value` lines of `SKILL.md`'s frontmatter;
//! `frontmatter.json` itself is never listed or served. A file the skill's `stated/` folder
//! holds at the same path (`stated/SKILL.md` for `SKILL.md`) is what the listing states that
//! file's size and SHA-256 from, while `resources/read` still serves the file itself: a server
//! that lists one thing and serves another, in a single run; `stated/` is never listed or
//! served. A skill whose folder holds a file `unlisted` is left out of `skills/list` and served
//! by `skills/get` alone (a server may list part of what it serves); `unlisted` is never listed
//! or served either. `--log-reads FILE` appends the URI of every `resources/read` to FILE, a line each,
//! so a test sees what a client read.

use std::io::Write as _;
use std::path::{Component, Path, PathBuf};

use aws_lc_rs::digest::{SHA256, digest};
use serde_json::{Map, Value, json};

use crate::catalog::{Paging, page};
use crate::wire::INVALID_PARAMS;

/// The extension's identifier.
pub(crate) const EXTENSION: &str = "io.modelcontextprotocol/skills";
const SCHEME: &str = "skill://";
const SKILL_MD: &str = "SKILL.md";
/// The file that overrides a skill's stated frontmatter; never listed or served.
const STATED_FRONTMATTER: &str = "frontmatter.json";
/// The marker of a skill served by `skills/get` but left out of `skills/list`; never listed or
/// served.
const UNLISTED: &str = "unlisted";
/// The folder whose files override the sizes and digests stated for a skill's files; never
/// listed or served.
const STATED_FILES: &str = "stated";

/// The skills of one folder.
pub(crate) struct Skills {
    root: PathBuf,
    log: Option<PathBuf>,
}

impl Skills {
    pub(crate) fn new(root: PathBuf, log: Option<PathBuf>) -> Self {
        Self { root, log }
    }

    /// Answers `skills/list`, `skills/get` and `resources/read` of a `skill://` URI; `None`
    /// for anything else (other resources are the catalog's).
    pub(crate) fn answer(
        &self,
        method: &str,
        params: &Value,
        paging: Paging,
    ) -> Option<Result<Value, (i64, String)>> {
        match method {
            "skills/list" => {
                let listed = self
                    .folders()
                    .into_iter()
                    .filter(|name| !self.root.join(name).join(UNLISTED).exists())
                    .map(|name| self.entry(&name))
                    .collect();
                Some(page(listed, "skills", params, paging))
            }
            "skills/get" => Some(self.get(params)),
            "resources/read" => {
                let uri = params.get("uri").and_then(Value::as_str)?;
                let path = uri.strip_prefix(SCHEME)?;
                self.log_read(uri);
                Some(self.read(uri, path))
            }
            _ => None,
        }
    }

    fn get(&self, params: &Value) -> Result<Value, (i64, String)> {
        let uri = params.get("uri").and_then(Value::as_str);
        self.folders()
            .iter()
            .map(|name| self.entry(name))
            .find(|entry| entry["uri"].as_str() == uri)
            .map(|skill| json!({"skill": skill}))
            .ok_or_else(|| (INVALID_PARAMS, format!("Unknown skill: {uri:?}")))
    }

    /// The folder of every skill, by name.
    fn folders(&self) -> Vec<String> {
        let Ok(folders) = std::fs::read_dir(&self.root) else {
            return Vec::new();
        };
        let mut names: Vec<String> = folders
            .flatten()
            .filter(|folder| folder.path().join(SKILL_MD).is_file())
            .filter_map(|folder| folder.file_name().into_string().ok())
            .collect();
        names.sort();
        names
    }

    fn entry(&self, name: &str) -> Value {
        let folder = self.root.join(name);
        let mut files = Vec::new();
        collect_files(&folder, &folder, &mut files);
        files.sort_by_key(|path| (path != SKILL_MD, path.clone()));
        let resources: Vec<Value> = files
            .iter()
            .filter_map(|path| {
                let stated = folder.join(STATED_FILES).join(path);
                let bytes = std::fs::read(stated)
                    .or_else(|_| std::fs::read(folder.join(path)))
                    .ok()?;
                Some(json!({
                    "uri": format!("{SCHEME}{name}/{path}"),
                    "digest": format!("sha256:{}", hex(digest(&SHA256, &bytes).as_ref())),
                    "size": bytes.len(),
                }))
            })
            .collect();
        json!({
            "uri": format!("{SCHEME}{name}/{SKILL_MD}"),
            "frontmatter": stated_frontmatter(&folder),
            "resources": resources,
        })
    }

    fn read(&self, uri: &str, path: &str) -> Result<Value, (i64, String)> {
        let not_found = || (INVALID_PARAMS, format!("Resource not found: {uri}"));
        let relative = Path::new(path);
        let inside = relative
            .components()
            .all(|component| matches!(component, Component::Normal(_)));
        // `<folder>/stated/…` is the listing's, never served.
        let stated = relative.components().nth(1) == Some(Component::Normal(STATED_FILES.as_ref()));
        let marker = relative.components().count() == 2
            && relative
                .file_name()
                .is_some_and(|name| name == STATED_FRONTMATTER || name == UNLISTED);
        if !inside || stated || marker {
            return Err(not_found());
        }
        let bytes = std::fs::read(self.root.join(relative)).map_err(|_| not_found())?;
        let contents = match String::from_utf8(bytes) {
            Ok(text) => json!({"uri": uri, "mimeType": mime_type(path), "text": text}),
            Err(binary) => json!({
                "uri": uri,
                "mimeType": "application/octet-stream",
                "blob": base64_encode(binary.as_bytes()),
            }),
        };
        Ok(json!({"contents": [contents]}))
    }

    fn log_read(&self, uri: &str) {
        if let Some(log) = &self.log
            && let Ok(mut file) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(log)
        {
            let _ = writeln!(file, "{uri}");
        }
    }
}

/// The paths of the files under `folder`, relative to `root`, with `/` between parts.
fn collect_files(root: &Path, folder: &Path, files: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.strip_prefix(root).ok() != Some(Path::new(STATED_FILES)) {
                collect_files(root, &path, files);
            }
        } else if let Ok(relative) = path.strip_prefix(root)
            && relative != Path::new(STATED_FRONTMATTER)
            && relative != Path::new(UNLISTED)
        {
            let parts: Vec<String> = relative
                .components()
                .map(|part| part.as_os_str().to_string_lossy().into_owned())
                .collect();
            files.push(parts.join("/"));
        }
    }
}

/// `frontmatter.json`, else the `key: value` lines between `SKILL.md`'s first two `---` lines.
fn stated_frontmatter(folder: &Path) -> Value {
    if let Ok(text) = std::fs::read_to_string(folder.join(STATED_FRONTMATTER))
        && let Ok(stated) = serde_json::from_str(&text)
    {
        return stated;
    }
    let text = std::fs::read_to_string(folder.join(SKILL_MD)).unwrap_or_default();
    let mut fields = Map::new();
    let mut lines = text.lines();
    if lines.next().map(str::trim_end) == Some("---") {
        for line in lines.take_while(|line| line.trim_end() != "---") {
            if let Some((key, value)) = line.split_once(':') {
                let value = value.trim().trim_matches('"');
                fields.insert(key.trim().to_owned(), Value::String(value.to_owned()));
            }
        }
    }
    Value::Object(fields)
}

fn mime_type(path: &str) -> &'static str {
    if path.ends_with(".md") {
        "text/markdown"
    } else {
        "text/plain"
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn base64_encode(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
