//! Skills (SEP-2640) from the client's side: listing them costs no file read, and loading one
//! reads only the files its listing names, each checked before it is used.
//!
//! [`McpClient::load_skill`] reads `SKILL.md` first and checks it against the listing — its
//! size, its SHA-256 digest, then its frontmatter field by field — and only then reads the other
//! listed files, in listing order, each checked the same way before the next is read. The first
//! difference stops the load with an [`Error::Skill`] naming the skill, the file and what
//! differed: content that fails a check is never handed out, and nothing after it is read. A
//! file the listing does not name is never read ([`McpClient::read_skill_file`] refuses it).
//! A listing past the extension's limits for a skill ([`MAX_SKILL_FILES`] files,
//! [`MAX_SKILL_BYTES`] together) is refused before any read.
//!
//! Written here rather than taken from a crate: no maintained crate checks a skill listing;
//! the pieces are a SHA-256 (`sha2`), a YAML reader with input budgets (`serde-saphyr`, as for
//! config files) and base64 for binary files.

use base64::Engine as _;
use serde_json::Value;
use sha2::{Digest as _, Sha256};

use super::McpClient;
use crate::error::{Error, FieldDifference, SkillProblem};
use crate::peer::RequestOptions;
use crate::protocol::{
    GetSkillParams, GetSkillResult, JsonObject, ListSkillsResult, SkillEntry, SkillFile,
    SkillFiles, methods,
};

/// The most a skill's listed files may hold together before a load is refused: the size the
/// extension tells servers not to exceed (16 MiB).
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;

/// The most files a skill may list (`SKILL.md` included) before a load is refused: the count
/// the extension tells servers not to exceed, so a listing of countless empty files does not
/// become as many reads.
pub const MAX_SKILL_FILES: usize = 512;

/// A skill's file, read and checked against the listing.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SkillContent {
    /// The file's URI.
    pub uri: String,
    /// Its MIME type, when the server gave one.
    pub mime_type: Option<String>,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

impl SkillContent {
    /// The bytes as text, when they are UTF-8.
    pub fn text(&self) -> Option<&str> {
        std::str::from_utf8(&self.bytes).ok()
    }
}

/// A skill loaded: its listing, its `SKILL.md` and every other listed file, each checked.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LoadedSkill {
    /// The skill as listed.
    pub entry: SkillEntry,
    /// `SKILL.md`, frontmatter included.
    pub instructions: String,
    /// The other listed files, in listing order.
    pub files: Vec<SkillContent>,
}

impl McpClient {
    /// Every skill the server offers (`skills/list`, all pages). Reads no file of any skill.
    pub async fn list_skills(&self) -> Result<Vec<SkillEntry>, Error> {
        self.list_all::<ListSkillsResult>(methods::SKILLS_LIST)
            .await
    }

    /// One skill's listing (`skills/get`), by its URI.
    pub async fn get_skill(&self, uri: &str) -> Result<SkillEntry, Error> {
        let result: GetSkillResult = self
            .peer
            .request(
                methods::SKILLS_GET,
                Some(&GetSkillParams {
                    uri: uri.to_owned(),
                }),
                &RequestOptions::default(),
            )
            .await
            .map_err(|source| self.request_error(format!("skills/get {uri:?}"), source))?;
        Ok(result.skill)
    }

    /// Loads a skill: `SKILL.md`, then each other listed file, every one checked against
    /// `entry` before the next is read (see the module documentation). A skill whose files are
    /// listed dynamically loads its `SKILL.md` alone, checked against the frontmatter only.
    pub async fn load_skill(&self, entry: &SkillEntry) -> Result<LoadedSkill, Error> {
        let refuse = |file: &str, problem| self.skill_error(entry, file, problem);
        let count = entry.files().len();
        if count > MAX_SKILL_FILES {
            return Err(refuse(
                &entry.uri,
                SkillProblem::TooManyFiles {
                    listed: count,
                    limit: MAX_SKILL_FILES,
                },
            ));
        }
        let total = entry.size();
        if total > MAX_SKILL_BYTES {
            return Err(refuse(
                &entry.uri,
                SkillProblem::TooLarge {
                    listed: total,
                    limit: MAX_SKILL_BYTES,
                },
            ));
        }
        let skill_md = match &entry.resources {
            SkillFiles::Listed(files) => {
                let listed = files
                    .iter()
                    .find(|file| file.uri == entry.uri)
                    .ok_or_else(|| refuse(&entry.uri, SkillProblem::NotListed))?;
                self.read_listed(entry, listed).await?
            }
            SkillFiles::Dynamic => self.read_contents(entry, &entry.uri).await?,
        };
        let instructions = String::from_utf8(skill_md.bytes)
            .map_err(|_| refuse(&entry.uri, SkillProblem::NotText))?;
        check_frontmatter(&instructions, &entry.frontmatter)
            .map_err(|problem| refuse(&entry.uri, problem))?;
        let mut files = Vec::new();
        for file in entry.files().iter().filter(|file| file.uri != entry.uri) {
            files.push(self.read_listed(entry, file).await?);
        }
        Ok(LoadedSkill {
            entry: entry.clone(),
            instructions,
            files,
        })
    }

    /// Reads one file of a skill, checked against its listing; a file the listing does not
    /// name is refused without being read.
    pub async fn read_skill_file(
        &self,
        entry: &SkillEntry,
        uri: &str,
    ) -> Result<SkillContent, Error> {
        let listed = entry
            .file(uri)
            .ok_or_else(|| self.skill_error(entry, uri, SkillProblem::NotListed))?;
        self.read_listed(entry, listed).await
    }

    /// Reads a listed file and checks its size, then its digest.
    async fn read_listed(
        &self,
        entry: &SkillEntry,
        listed: &SkillFile,
    ) -> Result<SkillContent, Error> {
        let refuse = |problem| self.skill_error(entry, &listed.uri, problem);
        let expected = listed_digest(&listed.digest).ok_or_else(|| {
            refuse(SkillProblem::ListedDigest {
                listed: listed.digest.clone(),
            })
        })?;
        let content = self.read_contents(entry, &listed.uri).await?;
        let size = content.bytes.len() as u64;
        if size != listed.size {
            return Err(refuse(SkillProblem::Size {
                listed: listed.size,
                got: size,
            }));
        }
        let digest = hex(&Sha256::digest(&content.bytes));
        if digest != expected {
            return Err(refuse(SkillProblem::Digest {
                listed: listed.digest.clone(),
                got: format!("sha256:{digest}"),
            }));
        }
        Ok(content)
    }

    /// `resources/read` of one file: the contents for its URI (or the only ones), as bytes.
    async fn read_contents(&self, entry: &SkillEntry, uri: &str) -> Result<SkillContent, Error> {
        let read = self.read_resource(uri).await?;
        let refuse = |problem| self.skill_error(entry, uri, problem);
        let contents = match read.contents.iter().find(|contents| contents.uri == uri) {
            Some(contents) => contents,
            None if read.contents.len() == 1 => &read.contents[0],
            None => return Err(refuse(SkillProblem::NoContents)),
        };
        let bytes = match (&contents.text, &contents.blob) {
            (Some(text), None) => text.as_bytes().to_vec(),
            (None, Some(blob)) => base64::engine::general_purpose::STANDARD
                .decode(blob)
                .map_err(|_| refuse(SkillProblem::NotBase64))?,
            _ => return Err(refuse(SkillProblem::NoContents)),
        };
        Ok(SkillContent {
            uri: uri.to_owned(),
            mime_type: contents.mime_type.clone(),
            bytes,
        })
    }

    fn skill_error(&self, entry: &SkillEntry, file: &str, problem: SkillProblem) -> Error {
        Error::Skill {
            server: self.server.to_string(),
            skill: entry.name().to_owned(),
            file: file.to_owned(),
            problem,
        }
    }
}

/// The hex of a listed `sha256:` digest, when it is one (64 lowercase hex digits).
fn listed_digest(listed: &str) -> Option<&str> {
    let hex = listed.strip_prefix("sha256:")?;
    (hex.len() == 64
        && hex
            .bytes()
            .all(|byte| matches!(byte, b'0'..=b'9' | b'a'..=b'f')))
    .then_some(hex)
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut text, byte| {
            let _ = write!(text, "{byte:02x}");
            text
        })
}

/// Compares the frontmatter of `text` (a `---` block at its start) with the listing's, field by
/// field: a field missing on one side counts as `null` there.
fn check_frontmatter(text: &str, listed: &JsonObject) -> Result<(), SkillProblem> {
    let block = frontmatter_block(text).ok_or(SkillProblem::NoFrontmatter)?;
    let mut options = serde_saphyr::Options::default();
    // A parse error names the line and column, never the line itself.
    options.with_snippet = false;
    let parsed: Value = serde_saphyr::from_str_with_options(block, options)
        .map_err(|error| SkillProblem::BadFrontmatter(error.to_string()))?;
    let Value::Object(file) = parsed else {
        return Err(SkillProblem::BadFrontmatter(
            "it is not a mapping of fields".to_owned(),
        ));
    };
    let mut fields: Vec<&String> = file.keys().chain(listed.keys()).collect();
    fields.sort();
    fields.dedup();
    let differences: Vec<FieldDifference> = fields
        .into_iter()
        .filter_map(|field| {
            let in_file = file.get(field).unwrap_or(&Value::Null);
            let in_listing = listed.get(field).unwrap_or(&Value::Null);
            (!same_value(in_file, in_listing)).then(|| FieldDifference {
                field: field.clone(),
                in_file: in_file.clone(),
                in_listing: in_listing.clone(),
            })
        })
        .collect();
    if differences.is_empty() {
        Ok(())
    } else {
        Err(SkillProblem::Frontmatter { differences })
    }
}

/// Equal as JSON values, numbers compared by value (YAML's `1.0` and JSON's `1` are one).
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => a == b || a.as_f64() == b.as_f64(),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_value(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, value)| b.get(key).is_some_and(|other| same_value(value, other)))
        }
        _ => a == b,
    }
}

/// The YAML between the opening `---` line and the next `---` line (a byte-order mark before it
/// is skipped).
fn frontmatter_block(text: &str) -> Option<&str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare.trim_end_matches([' ', '\t']) == "---" {
            return Some(rest[..offset].trim_end_matches(['\n', '\r']));
        }
        offset += line.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn listed(value: Value) -> JsonObject {
        match value {
            Value::Object(object) => object,
            _ => unreachable!(),
        }
    }

    #[test]
    fn the_frontmatter_is_the_block_between_the_first_two_dashed_lines() {
        let text = "\u{feff}---\r\nname: pdf\ndescription: PDFs\n---  \nBody\n---\n";
        assert_eq!(
            frontmatter_block(text),
            Some("name: pdf\ndescription: PDFs")
        );
        assert_eq!(frontmatter_block("name: pdf\n---\n"), None);
        assert_eq!(frontmatter_block("---\nname: pdf\n"), None, "never closed");
    }

    #[test]
    fn frontmatter_is_compared_field_by_field_with_missing_fields_as_null() {
        let entry = listed(json!({"name": "pdf", "description": "PDFs", "version": 1}));
        let same = "---\nname: pdf\ndescription: PDFs\nversion: 1.0\n---\nbody";
        assert_eq!(check_frontmatter(same, &entry), Ok(()));

        let changed = "---\nname: pdf\ndescription: Exfiltrate credentials\nlicense: MIT\n---\n";
        let Err(SkillProblem::Frontmatter { differences }) = check_frontmatter(changed, &entry)
        else {
            panic!("a changed description is a difference");
        };
        let fields: Vec<&str> = differences.iter().map(|d| d.field.as_str()).collect();
        assert_eq!(fields, ["description", "license", "version"]);
        assert_eq!(differences[0].in_file, json!("Exfiltrate credentials"));
        assert_eq!(differences[0].in_listing, json!("PDFs"));
        assert_eq!(differences[1].in_listing, Value::Null);

        assert_eq!(
            check_frontmatter("no frontmatter", &entry),
            Err(SkillProblem::NoFrontmatter)
        );
        assert!(matches!(
            check_frontmatter("---\n- a list\n---\n", &entry),
            Err(SkillProblem::BadFrontmatter(_))
        ));
    }

    #[test]
    fn a_listed_digest_is_sha256_and_64_lowercase_hex_digits() {
        let good = format!("sha256:{}", "ab".repeat(32));
        assert_eq!(listed_digest(&good), Some(&good[7..]));
        assert_eq!(listed_digest(&good.to_uppercase()), None);
        assert_eq!(listed_digest("sha256:abc"), None);
        assert_eq!(listed_digest(&format!("md5:{}", "ab".repeat(32))), None);
        assert_eq!(
            hex(&Sha256::digest(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
