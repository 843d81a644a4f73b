//! The paging of every list (`tools/list`, `resources/list`, …): cursors followed to the last
//! page, a repeated cursor or an endless list refused, and how long the whole list stays fresh.

use std::collections::HashSet;
use std::time::Duration;

use tokio::time::Instant;

use super::McpClient;
use crate::error::Error;
use crate::peer::RequestOptions;
use crate::protocol::{
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, MAX_TTL,
    PaginatedParams, Prompt, Resource, ResourceTemplate, Tool,
};

/// The most pages of one list (`tools/list`, `resources/list`, …) followed before giving up
/// on a server.
const MAX_PAGES: usize = 10_000;

/// One page of a paginated list: its items and the cursor of the next page.
pub(super) trait Page: serde::de::DeserializeOwned {
    type Item;
    fn into_parts(self) -> (Vec<Self::Item>, Option<String>);
    /// The page's `ttlMs`, for the lists that carry one here.
    fn ttl_ms(&self) -> Option<u64> {
        None
    }
}

impl Page for ListToolsResult {
    type Item = Tool;
    fn into_parts(self) -> (Vec<Tool>, Option<String>) {
        (self.tools, self.next_cursor)
    }
    fn ttl_ms(&self) -> Option<u64> {
        self.ttl_ms
    }
}

impl Page for ListResourcesResult {
    type Item = Resource;
    fn into_parts(self) -> (Vec<Resource>, Option<String>) {
        (self.resources, self.next_cursor)
    }
}

impl Page for ListResourceTemplatesResult {
    type Item = ResourceTemplate;
    fn into_parts(self) -> (Vec<ResourceTemplate>, Option<String>) {
        (self.resource_templates, self.next_cursor)
    }
}

impl Page for ListPromptsResult {
    type Item = Prompt;
    fn into_parts(self) -> (Vec<Prompt>, Option<String>) {
        (self.prompts, self.next_cursor)
    }
}

impl Page for crate::protocol::ListTasksResult {
    type Item = crate::protocol::Task;
    fn into_parts(self) -> (Vec<crate::protocol::Task>, Option<String>) {
        (self.tasks, self.next_cursor)
    }
}

impl Page for crate::protocol::ListSkillsResult {
    type Item = crate::protocol::SkillEntry;
    fn into_parts(self) -> (Vec<Self::Item>, Option<String>) {
        (self.skills, self.next_cursor)
    }
}

impl McpClient {
    /// Every item of a paginated list, following `nextCursor` to the last page; a cursor seen
    /// before, or more than [`MAX_PAGES`] pages, is an error rather than an endless loop.
    pub(super) async fn list_all<P: Page>(
        &self,
        method: &'static str,
    ) -> Result<Vec<P::Item>, Error> {
        Ok(self.list_pages::<P>(method).await?.0)
    }

    /// [`list_all`](Self::list_all), with how long from now the whole list is fresh: until its
    /// first page goes stale (each page's `ttlMs` counts from when that page came). `None`
    /// when a page had no `ttlMs`.
    pub(super) async fn list_pages<P: Page>(
        &self,
        method: &'static str,
    ) -> Result<(Vec<P::Item>, Option<Duration>), Error> {
        let options = RequestOptions::default();
        let mut items = Vec::new();
        let mut seen_cursors = HashSet::new();
        let mut cursor: Option<String> = None;
        // `Some(None)`: every page so far had a ttl too long to be an instant.
        let mut fresh_until: Option<Option<Instant>> = Some(None);
        for _ in 0..MAX_PAGES {
            let params = PaginatedParams {
                cursor: cursor.clone(),
            };
            let page: P = self
                .peer
                .request(method, Some(&params), &options)
                .await
                .map_err(|source| self.request_error(method.to_owned(), source))?;
            fresh_until = match (fresh_until, page.ttl_ms()) {
                (Some(earliest), Some(ms)) => {
                    let until = Instant::now().checked_add(Duration::from_millis(ms));
                    Some(match (earliest, until) {
                        (Some(earliest), Some(until)) => Some(earliest.min(until)),
                        (earliest, until) => earliest.or(until),
                    })
                }
                _ => None,
            };
            let (page_items, next_cursor) = page.into_parts();
            items.extend(page_items);
            match next_cursor {
                None => {
                    let ttl = fresh_until.map(|until| {
                        until.map_or(MAX_TTL, |until| {
                            until.saturating_duration_since(Instant::now())
                        })
                    });
                    return Ok((items, ttl));
                }
                Some(next) => {
                    if !seen_cursors.insert(next.clone()) {
                        return Err(Error::RepeatedCursor {
                            server: self.server.to_string(),
                            method,
                            cursor: next,
                        });
                    }
                    cursor = Some(next);
                }
            }
        }
        Err(Error::TooManyPages {
            server: self.server.to_string(),
            method,
            pages: MAX_PAGES,
        })
    }
}
