//! What each provider looked at: [`provider_report`] lists every provider of a
//! [`DiscoveryOptions`], the files it looked for (whether each exists) and how many servers each
//! file gave, for a user asking "where do my servers come from, and why is this one missing?".
//!
//! The files are the ones the provider asked [`read_config_file`](crate::source::read_config_file) for
//! while loading ([`in_read_pass`]): the same reads discovery makes, so the report cannot drift
//! from what discovery does. A provider that reads files some other way reports the files it
//! returned.

use std::path::PathBuf;

use serde::Serialize;

use crate::context::DiscoveryContext;
use crate::discovery::DiscoveryOptions;
use crate::origin::Level;
use crate::read_pass::in_read_pass;
use crate::source::SourceFile;

/// One provider's files.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct ProviderReport {
    /// Its id, e.g. `cursor`.
    pub id: String,
    /// Its name, e.g. `Cursor`.
    pub name: String,
    /// False when the options skip it ([`DiscoveryOptions::disable_provider`]): nothing was
    /// looked at.
    pub enabled: bool,
    /// The files it looked for, in the order it did.
    pub files: Vec<FileReport>,
}

/// One file a provider looked for.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct FileReport {
    /// The file.
    pub path: PathBuf,
    /// Whether it exists.
    pub exists: bool,
    /// The level its servers have, when it gave servers (a file read only for its switch-off
    /// lists has none).
    pub level: Option<Level>,
    /// How many servers it defines (usable or not).
    pub servers: usize,
    /// What is wrong with it, when it could not be read or parsed.
    pub error: Option<String>,
}

/// Every provider of `options`, in priority order, with the files it looked for under `ctx`.
pub fn provider_report(ctx: &DiscoveryContext, options: &DiscoveryOptions) -> Vec<ProviderReport> {
    options
        .sources
        .iter()
        .map(|source| {
            let enabled = !options.disabled_providers.contains(source.id());
            let files = if enabled {
                let (loaded, looked_at) = in_read_pass(|| source.load(ctx));
                files_of(
                    &loaded,
                    looked_at.into_iter().map(|file| (file.path, file.exists)),
                )
            } else {
                Vec::new()
            };
            ProviderReport {
                id: source.id().to_owned(),
                name: source.name().to_owned(),
                enabled,
                files,
            }
        })
        .collect()
}

/// The files looked at, each with what the provider made of it; then any file the provider
/// returned without reading it through the pass.
fn files_of(
    loaded: &[SourceFile],
    looked_at: impl Iterator<Item = (PathBuf, bool)>,
) -> Vec<FileReport> {
    let mut files: Vec<FileReport> = looked_at
        .map(|(path, exists)| FileReport {
            path,
            exists,
            level: None,
            servers: 0,
            error: None,
        })
        .collect();
    for file in loaded {
        let index = match files.iter().position(|report| report.path == file.path) {
            Some(index) => index,
            None => {
                files.push(FileReport {
                    path: file.path.clone(),
                    exists: true,
                    level: None,
                    servers: 0,
                    error: None,
                });
                files.len() - 1
            }
        };
        let report = &mut files[index];
        report.level = Some(file.level);
        match &file.contents {
            Ok(contents) => report.servers += contents.servers.len() + contents.invalid.len(),
            Err(error) => report.error = Some(error.to_string()),
        }
    }
    files
}
