//! The output budget: what a tool result may cost the model's context.
//!
//! A result whose content (text by its length, images and audio by the size of their data) is
//! over the budget is cut: blocks are kept in order while they fit, a text block that does not
//! fit whole is cut at the last line break before the limit (or at a character boundary when
//! there is none near it), binary blocks that do not fit are named instead, and a marker says
//! how much was left out and where the whole result was written. The file is in the budget's
//! spill directory, readable by the user only (0600), under a name no other process writing to
//! the same directory takes; whoever chose the directory decides how long it lives (an agent
//! session removes its own when it ends). When the file cannot be written the marker says so
//! and names none. The raw result stays whole in the output's `details` for the agent and for
//! `agent-session call --full`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};

use crate::tool::{OutputBlock, ToolOutput};

/// The default budget: 100 KiB, about 25,000 tokens of text.
pub const DEFAULT_OUTPUT_BUDGET: usize = 100 * 1024;

/// A text block is cut at a line break when one is within this share of the end of what fits.
const LINE_BREAK_WINDOW: usize = 5;

/// How much of a tool result reaches the model, and where a cut result is kept whole.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OutputBudget {
    /// The most bytes of content the model gets (text, and base64 data of images and audio).
    pub max_bytes: usize,
    /// Where whole results of cut outputs are written; none: they are not kept, and the marker
    /// says so.
    pub spill_dir: Option<PathBuf>,
}

impl Default for OutputBudget {
    fn default() -> Self {
        Self {
            max_bytes: DEFAULT_OUTPUT_BUDGET,
            spill_dir: None,
        }
    }
}

impl OutputBudget {
    /// A budget of `max_bytes`, keeping cut results in `spill_dir`.
    pub fn new(max_bytes: usize, spill_dir: Option<PathBuf>) -> Self {
        Self {
            max_bytes,
            spill_dir,
        }
    }

    /// `output` within the budget: unchanged when it fits, cut with a marker otherwise.
    pub fn apply(&self, output: ToolOutput, server: &str, tool: &str) -> ToolOutput {
        let total: usize = output.content.iter().map(block_size).sum();
        if total <= self.max_bytes {
            return output;
        }
        let kept = match &self.spill_dir {
            Some(dir) => write_whole(dir, server, tool, &output.content)
                .map_err(|error| format!("the whole result could not be kept ({error})")),
            None => Err("the whole result was not kept".to_owned()),
        };
        let mut shown = 0;
        let mut full = false;
        let mut content = Vec::new();
        for block in output.content {
            let size = block_size(&block);
            if !full && shown + size <= self.max_bytes {
                shown += size;
                content.push(block);
                continue;
            }
            match block {
                OutputBlock::Text { text } if !full => {
                    let cut = cut_point(&text, self.max_bytes - shown);
                    shown += cut;
                    content.push(OutputBlock::Text {
                        text: text[..cut].to_owned(),
                    });
                }
                // Named, not shown: an image cannot be cut, and after a cut nothing follows.
                other => content.push(OutputBlock::Text {
                    text: left_out(&other),
                }),
            }
            full = true;
        }
        let whereabouts = match &kept {
            Ok(path) => format!("the whole result is in {}", path.display()),
            Err(why) => why.clone(),
        };
        content.push(OutputBlock::Text {
            text: format!(
                "[output cut: {} of {} left out; {whereabouts}]",
                human(total - shown),
                human(total)
            ),
        });
        let mut details = output.details;
        if let Value::Object(map) = &mut details {
            map.insert(
                "truncated".to_owned(),
                json!({
                    "shown_bytes": shown,
                    "total_bytes": total,
                    "file": kept.as_ref().ok().map(|path| path.display().to_string()),
                }),
            );
        }
        ToolOutput {
            content,
            is_error: output.is_error,
            details,
        }
    }
}

/// What stands for a block that was left out.
fn left_out(block: &OutputBlock) -> String {
    match block {
        OutputBlock::Text { text } => format!("[left out: {} of text]", human(text.len())),
        OutputBlock::Image { data, mime_type } | OutputBlock::Audio { data, mime_type } => {
            format!("[left out: {mime_type}, {}]", human(data.len()))
        }
    }
}

fn block_size(block: &OutputBlock) -> usize {
    match block {
        OutputBlock::Text { text } => text.len(),
        OutputBlock::Image { data, .. } | OutputBlock::Audio { data, .. } => data.len(),
    }
}

/// Where to cut `text` to keep at most `room` bytes: at the last line break in the final
/// stretch of what fits, else at the last character boundary.
fn cut_point(text: &str, room: usize) -> usize {
    let mut cut = room.min(text.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let window = cut / LINE_BREAK_WINDOW;
    match text[..cut].rfind('\n') {
        Some(line_end) if cut - line_end <= window => line_end + 1,
        _ => cut,
    }
}

/// `4.9 MiB`, `512 KiB`, `300 bytes`: binary units, as the budget's own sizes are given.
fn human(bytes: usize) -> String {
    const KIB: f64 = 1024.0;
    let value = bytes as f64;
    if value >= KIB * KIB {
        format!("{:.1} MiB", value / (KIB * KIB))
    } else if value >= KIB {
        format!("{:.0} KiB", value / KIB)
    } else {
        format!("{bytes} bytes")
    }
}

/// Writes the whole content: plain text when it is all text, else the blocks as JSON.
fn write_whole(
    dir: &Path,
    server: &str,
    tool: &str,
    content: &[OutputBlock],
) -> std::io::Result<PathBuf> {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let all_text = content
        .iter()
        .all(|block| matches!(block, OutputBlock::Text { .. }));
    let safe = |name: &str| -> String {
        name.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    let extension = if all_text { "txt" } else { "json" };
    // The directory may be shared by many processes over time (the CLI's results folder):
    // the process id and the time keep names apart, and a name taken anyway is skipped.
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_millis())
        .unwrap_or_default();
    let mut whole = Vec::new();
    if all_text {
        for (index, block) in content.iter().enumerate() {
            if index > 0 {
                whole.push(b'\n');
            }
            if let OutputBlock::Text { text } = block {
                whole.extend_from_slice(text.as_bytes());
            }
        }
    } else {
        serde_json::to_writer(&mut whole, content).map_err(std::io::Error::other)?;
    }
    let mut attempts = 0;
    let path = loop {
        let number = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!(
            "{}-{}-{stamp}-{}-{number}.{extension}",
            safe(server),
            safe(tool),
            std::process::id()
        ));
        // Whole or not at all, 0600, and never over anything already at that name (a planted
        // symlink).
        match mcp_private_files::write_new(&path, &whole) {
            Ok(()) => break path,
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists && attempts < 16 => {
                attempts += 1;
            }
            Err(error) => return Err(error),
        }
    };
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(output: &ToolOutput) -> Vec<String> {
        output.content.iter().map(OutputBlock::to_text).collect()
    }

    #[test]
    fn an_output_within_the_budget_is_left_alone() {
        let output = ToolOutput::text("short");
        let budget = OutputBudget::new(10, None);
        assert_eq!(budget.apply(output.clone(), "s", "t"), output);
    }

    #[test]
    fn a_long_text_is_cut_at_a_line_break_with_a_marker() {
        let text = "line one\nline two\nline three\n".repeat(10);
        let budget = OutputBudget::new(100, None);
        let cut = budget.apply(ToolOutput::text(text.clone()), "s", "t");
        let shown = texts(&cut);
        assert_eq!(shown.len(), 2);
        assert!(
            shown[0].len() <= 100 && shown[0].ends_with('\n'),
            "{:?}",
            shown[0]
        );
        assert!(text.starts_with(&shown[0]));
        assert!(shown[1].contains("output cut"), "{}", shown[1]);
        assert!(shown[1].contains("was not kept"), "{}", shown[1]);
        assert_eq!(cut.details, Value::Null, "details stay as they were");
    }

    #[test]
    fn images_count_by_size_and_are_named_when_left_out() {
        let output = ToolOutput {
            content: vec![
                OutputBlock::Text {
                    text: "caption".to_owned(),
                },
                OutputBlock::Image {
                    data: "A".repeat(4000),
                    mime_type: "image/png".to_owned(),
                },
            ],
            is_error: false,
            details: json!({}),
        };
        let cut = OutputBudget::new(1000, None).apply(output, "s", "t");
        let shown = texts(&cut);
        assert_eq!(shown[0], "caption");
        assert_eq!(shown[1], "[left out: image/png, 4 KiB]");
        assert_eq!(cut.details["truncated"]["total_bytes"], 4007);
    }

    #[test]
    fn a_cut_never_splits_a_character() {
        assert_eq!(cut_point("ééé", 3), 2);
        assert_eq!(cut_point("abc", 10), 3);
    }
}
