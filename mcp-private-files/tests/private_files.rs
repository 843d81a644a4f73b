//! What every private file of the runtime gets: its mode, its folder's mode, a whole
//! replacement or none, writers taking turns without losing a change, and no lock file left.

// Helpers outside #[test] functions panic on purpose: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_private_files::{
    FileLock, LockError, create_new_file, ensure_private_dir, final_target, write_atomically,
};

/// A fresh folder, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(label: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "mcp-private-files-{label}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o777
}

/// Every name in `dir`.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_file_is_written_0600_in_new_0700_folders_and_nothing_else_is_left() {
    let scratch = Scratch::new("modes");
    let target = scratch.0.join("a/b/credentials.json");
    write_atomically(&target, b"{}").unwrap();
    assert_eq!(std::fs::read(&target).unwrap(), b"{}");
    assert_eq!(mode(&target), 0o600);
    assert_eq!(mode(&scratch.0.join("a")), 0o700);
    assert_eq!(mode(&scratch.0.join("a/b")), 0o700);
    assert_eq!(names(&scratch.0.join("a/b")), ["credentials.json"]);
}

#[test]
fn a_replaced_file_keeps_a_narrower_mode_and_loses_a_wider_one() {
    let scratch = Scratch::new("kept");
    let narrow = scratch.0.join("narrow.json");
    std::fs::write(&narrow, "old").unwrap();
    std::fs::set_permissions(&narrow, std::fs::Permissions::from_mode(0o400)).unwrap();
    write_atomically(&narrow, b"new").unwrap();
    assert_eq!(mode(&narrow), 0o400);
    assert_eq!(std::fs::read(&narrow).unwrap(), b"new");

    let wide = scratch.0.join("wide.json");
    std::fs::write(&wide, "old").unwrap();
    std::fs::set_permissions(&wide, std::fs::Permissions::from_mode(0o644)).unwrap();
    write_atomically(&wide, b"new").unwrap();
    assert_eq!(mode(&wide), 0o600);
}

#[test]
fn a_write_that_fails_leaves_the_target_as_it_was_and_nothing_beside_it() {
    let scratch = Scratch::new("failed");
    let target = scratch.0.join("mcp.json");
    std::fs::write(&target, "old").unwrap();
    // A folder where the file should be: the rename over it fails.
    let folder_target = scratch.0.join("folder.json");
    std::fs::create_dir(&folder_target).unwrap();
    std::fs::write(folder_target.join("inside"), "x").unwrap();
    assert!(write_atomically(&folder_target, b"new").is_err());
    assert_eq!(names(&scratch.0), ["folder.json", "mcp.json"]);
    assert_eq!(std::fs::read(&target).unwrap(), b"old");
}

#[test]
fn writers_take_turns_without_losing_a_change_and_leave_no_lock_file() {
    let scratch = Scratch::new("turns");
    let target = scratch.0.join("counter");
    write_atomically(&target, b"0").unwrap();
    let threads: Vec<_> = (0..6)
        .map(|_| {
            let target = target.clone();
            std::thread::spawn(move || {
                for _ in 0..40 {
                    let lock = FileLock::acquire(&target, Duration::from_secs(60)).unwrap();
                    let count: u64 = std::fs::read_to_string(&target).unwrap().parse().unwrap();
                    write_atomically(&target, (count + 1).to_string().as_bytes()).unwrap();
                    drop(lock);
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "240");
    assert_eq!(names(&scratch.0), ["counter"]);
}

#[test]
fn a_writer_that_cannot_get_the_lock_in_time_is_told_who_holds_it() {
    let scratch = Scratch::new("busy");
    let target = scratch.0.join("mcp.json");
    let held = FileLock::acquire(&target, Duration::ZERO).unwrap();
    assert_eq!(held.path(), scratch.0.join(".mcp.json.lock"));
    match FileLock::acquire(&target, Duration::from_millis(30)) {
        Err(error @ LockError::Busy { .. }) => {
            let message = error.to_string();
            assert!(message.contains(".mcp.json.lock"), "{message}");
            assert!(message.contains("try again"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    drop(held);
    assert_eq!(names(&scratch.0), Vec::<String>::new());
    FileLock::acquire(&target, Duration::ZERO).unwrap();
}

#[test]
fn a_new_file_is_never_written_through_what_is_already_there() {
    let scratch = Scratch::new("new");
    let elsewhere = scratch.0.join("elsewhere");
    std::fs::write(&elsewhere, "theirs").unwrap();
    let planted = scratch.0.join("result.txt");
    std::os::unix::fs::symlink(&elsewhere, &planted).unwrap();
    assert!(create_new_file(&planted).is_err());
    assert_eq!(std::fs::read(&elsewhere).unwrap(), b"theirs");
    let fresh = scratch.0.join("fresh.txt");
    drop(create_new_file(&fresh).unwrap());
    assert_eq!(mode(&fresh), 0o600);
}

#[test]
fn a_private_folder_is_narrowed_and_a_non_folder_refused() {
    let scratch = Scratch::new("dirs");
    let wide = scratch.0.join("results");
    std::fs::create_dir(&wide).unwrap();
    std::fs::set_permissions(&wide, std::fs::Permissions::from_mode(0o755)).unwrap();
    ensure_private_dir(&wide).unwrap();
    assert_eq!(mode(&wide), 0o700);
    let file = scratch.0.join("file");
    std::fs::write(&file, "").unwrap();
    assert!(ensure_private_dir(&file).is_err());
    let link = scratch.0.join("link");
    std::os::unix::fs::symlink(&wide, &link).unwrap();
    assert!(ensure_private_dir(&link).is_err());
}

#[test]
fn a_symlinked_file_is_replaced_where_it_points_and_the_link_stays() {
    let scratch = Scratch::new("links");
    let real = scratch.0.join("real.json");
    std::fs::write(&real, "old").unwrap();
    let link = scratch.0.join("link.json");
    std::os::unix::fs::symlink("real.json", &link).unwrap();
    let target = final_target(&link).unwrap();
    assert_eq!(target, real);
    write_atomically(&target, b"new").unwrap();
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read(&link).unwrap(), b"new");
    let looped = scratch.0.join("loop");
    std::os::unix::fs::symlink(&looped, &looped).unwrap();
    assert!(final_target(&looped).is_err());
}

#[test]
fn a_new_file_is_written_whole_and_never_over_a_name_taken() {
    let scratch = Scratch::new("write-new");
    let elsewhere = scratch.0.join("elsewhere");
    std::fs::write(&elsewhere, "theirs").unwrap();
    let planted = scratch.0.join("result.txt");
    std::os::unix::fs::symlink(&elsewhere, &planted).unwrap();
    let error = mcp_private_files::write_new(&planted, b"ours").unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::AlreadyExists);
    assert_eq!(std::fs::read(&elsewhere).unwrap(), b"theirs");
    let fresh = scratch.0.join("results/fresh.txt");
    mcp_private_files::write_new(&fresh, b"whole").unwrap();
    assert_eq!(std::fs::read(&fresh).unwrap(), b"whole");
    assert_eq!(mode(&fresh), 0o600);
    assert_eq!(mode(&scratch.0.join("results")), 0o700);
    assert_eq!(names(&scratch.0.join("results")), ["fresh.txt"]);
    assert_eq!(names(&scratch.0), ["elsewhere", "result.txt", "results"]);
}

#[test]
fn a_rebuildable_file_is_written_whole_and_private_like_the_others() {
    let scratch = Scratch::new("rebuildable");
    let target = scratch.0.join("entries/abc");
    mcp_private_files::write_rebuildable(&target, b"first").unwrap();
    mcp_private_files::write_rebuildable(&target, b"second").unwrap();
    assert_eq!(std::fs::read(&target).unwrap(), b"second");
    assert_eq!(mode(&target), 0o600);
    assert_eq!(mode(&scratch.0.join("entries")), 0o700);
    assert_eq!(names(&scratch.0.join("entries")), ["abc"]);
}
