//! The Skills extension's messages (`io.modelcontextprotocol/skills`, SEP-2640): a server offers
//! packaged instructions (`SKILL.md`) and the files they use, each listed with its size and
//! digest, so a client can show the skills' names and descriptions without reading a file and
//! check every file it reads later against the listing.
//!
//! A skill is what `skills/list` or `skills/get` names, never a resource recognised by its
//! `skill://` scheme; its files are read with `resources/read`.

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use super::JsonObject;

/// The extension's identifier, declared under `capabilities.extensions`.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// One skill as `skills/list` and `skills/get` give it.
///
/// Fields this crate does not model (`_meta`, cache hints) are kept in `extra`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SkillEntry {
    /// The skill's `SKILL.md`, e.g. `skill://pdf-processing/SKILL.md`.
    pub uri: String,
    /// The frontmatter of its `SKILL.md` (at least `name` and `description`), as the server
    /// states it: what a client shows before reading any file, and what the file must match.
    #[serde(default)]
    pub frontmatter: JsonObject,
    /// The files of the skill, `SKILL.md` included, each with its size and digest.
    pub resources: SkillFiles,
    /// Every other field the server sent.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl SkillEntry {
    /// A skill named `uri` with its stated frontmatter and files.
    pub fn new(uri: impl Into<String>, frontmatter: JsonObject, resources: SkillFiles) -> Self {
        Self {
            uri: uri.into(),
            frontmatter,
            resources,
            extra: JsonObject::new(),
        }
    }

    /// The frontmatter's `name`: the one a model asks for, else the folder of `SKILL.md` in the
    /// URI, else the URI.
    pub fn name(&self) -> &str {
        if let Some(Value::String(name)) = self.frontmatter.get("name") {
            return name;
        }
        self.uri
            .strip_suffix("/SKILL.md")
            .and_then(|folder| folder.rsplit('/').next())
            .filter(|name| !name.is_empty())
            .unwrap_or(&self.uri)
    }

    /// The frontmatter's `description`, empty when it has none.
    pub fn description(&self) -> &str {
        match self.frontmatter.get("description") {
            Some(Value::String(description)) => description,
            _ => "",
        }
    }

    /// The listed files (none when the server lists them dynamically).
    pub fn files(&self) -> &[SkillFile] {
        match &self.resources {
            SkillFiles::Listed(files) => files,
            SkillFiles::Dynamic => &[],
        }
    }

    /// The listed file at `uri`, if the listing names it.
    pub fn file(&self, uri: &str) -> Option<&SkillFile> {
        self.files().iter().find(|file| file.uri == uri)
    }

    /// The bytes the listed files hold together.
    pub fn size(&self) -> u64 {
        self.files()
            .iter()
            .fold(0, |total, file| total.saturating_add(file.size))
    }
}

/// Which files a skill has.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SkillFiles {
    /// Each file with its size and digest.
    Listed(Vec<SkillFile>),
    /// `"dynamic"`: the server does not list them; only `SKILL.md` is known.
    Dynamic,
}

const DYNAMIC: &str = "dynamic";

impl Serialize for SkillFiles {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Listed(files) => files.serialize(serializer),
            Self::Dynamic => serializer.serialize_str(DYNAMIC),
        }
    }
}

impl<'de> Deserialize<'de> for SkillFiles {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::String(text) if text == DYNAMIC => Ok(Self::Dynamic),
            Value::Array(files) => Vec::<SkillFile>::deserialize(Value::Array(files))
                .map(Self::Listed)
                .map_err(de::Error::custom),
            other => Err(de::Error::custom(format!(
                "a skill's resources must be a list of files or \"dynamic\", not {other}"
            ))),
        }
    }
}

/// One file of a skill, as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SkillFile {
    /// Its URI, read with `resources/read`.
    pub uri: String,
    /// `sha256:` and the lowercase hex SHA-256 of its bytes.
    pub digest: String,
    /// Its length in bytes.
    pub size: u64,
}

impl SkillFile {
    /// A listed file.
    pub fn new(uri: impl Into<String>, digest: impl Into<String>, size: u64) -> Self {
        Self {
            uri: uri.into(),
            digest: digest.into(),
            size,
        }
    }
}

/// One page of `skills/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListSkillsResult {
    /// The skills of this page.
    #[serde(default)]
    pub skills: Vec<SkillEntry>,
    /// The cursor of the next page, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// The parameters of `skills/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GetSkillParams {
    /// The skill's URI, as listed.
    pub uri: String,
}

/// The answer of `skills/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GetSkillResult {
    /// The skill.
    pub skill: SkillEntry,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_listing_reads_listed_and_dynamic_files_and_refuses_anything_else() {
        let page: ListSkillsResult = serde_json::from_value(json!({
            "skills": [
                {"uri": "skill://pdf/SKILL.md", "frontmatter": {"name": "pdf", "description": "PDFs"},
                 "resources": [{"uri": "skill://pdf/SKILL.md", "digest": "sha256:00", "size": 3}],
                 "_meta": {"x": 1}},
                {"uri": "skill://a/b/notes/SKILL.md", "frontmatter": {}, "resources": "dynamic"}
            ],
            "nextCursor": "2"
        }))
        .unwrap();
        assert_eq!(page.skills[0].name(), "pdf");
        assert_eq!(page.skills[0].description(), "PDFs");
        assert_eq!(page.skills[0].size(), 3);
        assert_eq!(page.skills[0].extra["_meta"], json!({"x": 1}));
        assert_eq!(page.skills[1].resources, SkillFiles::Dynamic);
        assert_eq!(
            page.skills[1].name(),
            "notes",
            "the folder names a skill without a name"
        );
        assert_eq!(page.next_cursor.as_deref(), Some("2"));
        let back = serde_json::to_value(&page.skills[1]).unwrap();
        assert_eq!(back["resources"], json!("dynamic"));

        let wrong = serde_json::from_value::<SkillEntry>(
            json!({"uri": "skill://x/SKILL.md", "resources": "all"}),
        );
        assert!(wrong.unwrap_err().to_string().contains("\"dynamic\""));
    }
}
