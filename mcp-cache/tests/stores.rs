#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The three stores against the behaviours of the tool cache: hits with tools intact, a miss for
//! each reason, overwrite, remove, fingerprint stability, and for the sled store every way the
//! disk can let it down (corrupt, missing, locked, impossible). Nothing here may panic: a panic
//! hook counts panics on every thread (including the blocking threads the sled store runs on,
//! where tokio would otherwise swallow them) and each test checks the count.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, Once, PoisonError};
use std::thread::ThreadId;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mcp_cache::{
    CacheEntry, CacheOptions, FORMAT_VERSION, Fingerprint, Listing, MemoryToolCache, MissReason,
    NoopToolCache, SledToolCache, ToolCache, decode_entry, encode_entry,
};
use mcp_transport::{ProtocolVersion, SkillEntry, Tool};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Helpers

static PANICS: AtomicUsize = AtomicUsize::new(0);
static TEST_THREADS: Mutex<Vec<ThreadId>> = Mutex::new(Vec::new());
static HOOK: Once = Once::new();

/// Counts every panic in this process from now on (the default hook still prints it), except
/// on the threads the tests themselves run on: a failed assertion there already fails its test,
/// and must not fail the others.
fn count_panics() {
    TEST_THREADS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(std::thread::current().id());
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let on_a_test_thread = TEST_THREADS
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .contains(&std::thread::current().id());
            if !on_a_test_thread {
                PANICS.fetch_add(1, Ordering::SeqCst);
            }
            default(info);
        }));
    });
}

fn assert_no_panic() {
    assert_eq!(
        PANICS.load(Ordering::SeqCst),
        0,
        "a panic happened off the tests' own threads, e.g. in the store's blocking tasks (see above)"
    );
}

/// A fresh directory under the system's temporary directory, removed (with everything the test
/// put next to the store, such as `store.corrupt-*`) when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(test: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let dir = std::env::temp_dir().join(format!(
            "mcp-cache-stores-{test}-{}-{nanos}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    /// Where the test's store lives (not created yet).
    fn store(&self) -> PathBuf {
        self.0.join("store")
    }

    /// Siblings of the store that were moved aside as corrupt.
    fn moved_aside(&self) -> Vec<PathBuf> {
        std::fs::read_dir(&self.0)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| {
                path.file_name()
                    .and_then(|name| name.to_str())
                    .is_some_and(|name| name.starts_with("store.corrupt-"))
            })
            .collect()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Two tools whose JSON has what a cache could lose: `$schema`, keys out of alphabetical order
/// at every level, nested schemas, annotations and fields the protocol type does not model.
fn tools() -> Vec<Tool> {
    serde_json::from_value(json!([
        {
            "name": "search_issues",
            "title": "Search issues",
            "description": "Finds issues.",
            "inputSchema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {
                    "zeta": {"type": "string", "description": "last in the alphabet, first here"},
                    "alpha": {"type": "integer", "minimum": 1},
                    "middle": {"type": "array", "items": {"enum": ["b", "a"]}}
                },
                "required": ["zeta"],
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": true, "openWorldHint": false},
            "x-extra": {"vendor": "acme", "z": 1, "a": [1, 2, 3]},
            "_meta": {"origin": "test"}
        },
        {
            "name": "echo",
            "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
            "outputSchema": {"type": "object", "properties": {"echoed": {"type": "string"}}}
        }
    ]))
    .unwrap()
}

fn other_tools() -> Vec<Tool> {
    serde_json::from_value(json!([{"name": "ping", "inputSchema": {"type": "object"}}])).unwrap()
}

/// A server's unresolved configuration, and the same configuration with its keys in another
/// order at every level.
fn config_and_reordered() -> (Value, Value) {
    let config: Value = serde_json::from_str(
        r#"{"command":"npx","args":["-y","@acme/server"],"env":{"TOKEN":"${ACME_TOKEN}","DEBUG":"1"},"startup":{"timeoutSec":30,"deferred":true}}"#,
    )
    .unwrap();
    let reordered: Value = serde_json::from_str(
        r#"{"startup":{"deferred":true,"timeoutSec":30},"env":{"DEBUG":"1","TOKEN":"${ACME_TOKEN}"},"args":["-y","@acme/server"],"command":"npx"}"#,
    )
    .unwrap();
    (config, reordered)
}

fn fingerprint() -> Fingerprint {
    Fingerprint::of(&config_and_reordered().0)
}

/// Asserts a hit with exactly `expected`, down to the key order of every schema.
fn assert_hit(lookup: Result<CacheEntry, MissReason>, expected: &[Tool]) {
    let got = match lookup {
        Ok(entry) => entry.tools,
        Err(reason) => panic!("expected a hit, got {reason:?}"),
    };
    assert_eq!(got, expected);
    assert_eq!(
        serde_json::to_string(&got).unwrap(),
        serde_json::to_string(expected).unwrap(),
        "the tools must come back byte for byte, key order included"
    );
}

fn assert_miss(lookup: &Result<CacheEntry, MissReason>, reason: MissReason) {
    assert_eq!(lookup.as_ref().err(), Some(&reason), "{lookup:?}");
}

fn a_month_ago() -> SystemTime {
    SystemTime::now() - Duration::from_secs(31 * 24 * 60 * 60)
}

fn a_month_ahead() -> SystemTime {
    SystemTime::now() + Duration::from_secs(31 * 24 * 60 * 60)
}

/// A record of format 0, as an older build would have left it.
fn old_format_record() -> Vec<u8> {
    serde_json::to_vec(&json!({
        "format": 0,
        "fingerprint": fingerprint().as_str(),
        "written_at_ms": 0,
        "tools": "format 0 kept tools as a string"
    }))
    .unwrap()
}

fn truncated_record() -> Vec<u8> {
    let bytes = encode_entry(&fingerprint(), &tools(), SystemTime::now());
    bytes[..bytes.len() * 2 / 3].to_vec()
}

fn garbage_record() -> Vec<u8> {
    b"\xff\xfe\x00garbage{\"format\":1".to_vec()
}

/// Opens the store's database directly with sled. sled lets go of its file lock a moment after
/// a database is dropped, so a lock held by an earlier opener is waited out (briefly); the tests
/// that are about the lock open without this.
fn open_direct(dir: &Path) -> sled::Db {
    let started = Instant::now();
    loop {
        match sled::open(dir) {
            Ok(db) => return db,
            Err(error) if started.elapsed() < Duration::from_secs(10) => {
                assert!(
                    error.to_string().contains("could not acquire lock"),
                    "{error}"
                );
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(error) => panic!("the database stayed locked: {error}"),
        }
    }
}

/// Writes raw bytes for a server straight into a closed sled store.
fn write_raw(dir: &Path, server: &str, bytes: Vec<u8>) {
    let db = open_direct(dir);
    db.insert(server.as_bytes(), bytes).unwrap();
    db.flush().unwrap();
    // A writer that does not keep the entry files: lookups go back to the database.
    drop_entry_files(dir);
}

/// Deletes the store's entry files (its read view), as a user cleaning up might: lookups read
/// the database again until the next open rebuilds them.
fn drop_entry_files(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir.join("entries"));
}

/// Bounds an operation that must never hang (far above anything it should take).
async fn bounded<T>(future: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), future)
        .await
        .expect("a cache operation hung")
}

// ---------------------------------------------------------------------------------------------
// Behaviours every real store shares

/// Hit, absent, other fingerprint, overwrite, remove and fingerprint stability, through any
/// store that keeps what it is given.
async fn shared_behaviours(cache: &dyn ToolCache) {
    let (config, reordered) = config_and_reordered();
    let fp = Fingerprint::of(&config);

    // Absent.
    assert_miss(
        &bounded(cache.lookup_entry("acme", &fp)).await,
        MissReason::Absent,
    );
    assert_eq!(bounded(cache.get("acme", &fp)).await, None);

    // Hit, with schemas and unknown fields intact.
    bounded(cache.set("acme", &fp, &tools())).await;
    assert_hit(bounded(cache.lookup_entry("acme", &fp)).await, &tools());
    let got = bounded(cache.get("acme", &fp)).await.unwrap();
    assert_eq!(
        got[0].extra["x-extra"],
        json!({"vendor": "acme", "z": 1, "a": [1, 2, 3]})
    );
    assert_eq!(
        got[0].input_schema.as_object()["$schema"],
        json!("https://json-schema.org/draft/2020-12/schema")
    );

    // Fingerprint stability: the same configuration with its keys reordered hits.
    assert_hit(
        bounded(cache.lookup_entry("acme", &Fingerprint::of(&reordered))).await,
        &tools(),
    );

    // Another configuration of the server misses.
    let mut changed = config.clone();
    changed["args"] = json!(["-y", "@acme/server@2"]);
    assert_miss(
        &bounded(cache.lookup_entry("acme", &Fingerprint::of(&changed))).await,
        MissReason::OtherFingerprint,
    );

    // Servers are independent.
    assert_miss(
        &bounded(cache.lookup_entry("other", &fp)).await,
        MissReason::Absent,
    );

    // Overwrite: the second write wins, also when the configuration changed with it.
    bounded(cache.set("acme", &fp, &other_tools())).await;
    assert_hit(
        bounded(cache.lookup_entry("acme", &fp)).await,
        &other_tools(),
    );
    let changed_fp = Fingerprint::of(&changed);
    bounded(cache.set("acme", &changed_fp, &tools())).await;
    assert_hit(
        bounded(cache.lookup_entry("acme", &changed_fp)).await,
        &tools(),
    );
    assert_miss(
        &bounded(cache.lookup_entry("acme", &fp)).await,
        MissReason::OtherFingerprint,
    );

    // An empty tool list is a list like any other.
    bounded(cache.set("empty", &fp, &[])).await;
    assert_hit(bounded(cache.lookup_entry("empty", &fp)).await, &[]);

    // Remove forgets the server, and only it; removing twice (or nothing) is fine.
    bounded(cache.remove("acme")).await;
    assert_miss(
        &bounded(cache.lookup_entry("acme", &changed_fp)).await,
        MissReason::Absent,
    );
    assert_hit(bounded(cache.lookup_entry("empty", &fp)).await, &[]);
    bounded(cache.remove("acme")).await;
    bounded(cache.remove("never-stored")).await;

    // And it can be written again.
    bounded(cache.set("acme", &fp, &tools())).await;
    assert_hit(bounded(cache.lookup_entry("acme", &fp)).await, &tools());
}

// ---------------------------------------------------------------------------------------------
// The in-memory and no-op stores

#[tokio::test(flavor = "multi_thread")]
async fn memory_store_hits_misses_overwrites_and_removes() {
    count_panics();
    let cache = MemoryToolCache::new(CacheOptions::default());
    shared_behaviours(&cache).await;
    assert_no_panic();
}

#[tokio::test(flavor = "multi_thread")]
async fn memory_store_misses_for_expired_other_format_and_undecodable_records() {
    count_panics();
    let fp = fingerprint();
    let cache = MemoryToolCache::new(CacheOptions::default());

    cache.insert_raw("expired", encode_entry(&fp, &tools(), a_month_ago()));
    assert_miss(
        &cache.lookup_entry("expired", &fp).await,
        MissReason::Expired,
    );

    cache.insert_raw("old", old_format_record());
    assert_miss(
        &cache.lookup_entry("old", &fp).await,
        MissReason::OtherFormat,
    );

    cache.insert_raw("truncated", truncated_record());
    assert_miss(
        &cache.lookup_entry("truncated", &fp).await,
        MissReason::Undecodable,
    );

    cache.insert_raw("garbage", garbage_record());
    assert_miss(
        &cache.lookup_entry("garbage", &fp).await,
        MissReason::Undecodable,
    );

    // A store whose clock is a month ahead sees a fresh write as expired; a shorter TTL too.
    let ahead = MemoryToolCache::new(CacheOptions::default().clock(a_month_ahead));
    ahead.insert_raw("acme", encode_entry(&fp, &tools(), SystemTime::now()));
    assert_miss(&ahead.lookup_entry("acme", &fp).await, MissReason::Expired);
    let short = MemoryToolCache::new(CacheOptions::default().ttl(Duration::from_secs(60)));
    short.insert_raw(
        "acme",
        encode_entry(&fp, &tools(), SystemTime::now() - Duration::from_secs(120)),
    );
    assert_miss(&short.lookup_entry("acme", &fp).await, MissReason::Expired);

    // Every damaged entry is replaced by the next write.
    for server in ["expired", "old", "truncated", "garbage"] {
        cache.set(server, &fp, &tools()).await;
        assert_hit(cache.lookup_entry(server, &fp).await, &tools());
    }
    assert_no_panic();
}

#[tokio::test(flavor = "multi_thread")]
async fn noop_store_always_misses() {
    count_panics();
    let cache = NoopToolCache::new();
    let fp = fingerprint();
    assert_miss(&cache.lookup_entry("acme", &fp).await, MissReason::Absent);
    cache.set("acme", &fp, &tools()).await;
    assert_miss(&cache.lookup_entry("acme", &fp).await, MissReason::Absent);
    assert_eq!(cache.get("acme", &fp).await, None);
    cache.remove("acme").await;
    assert_miss(&cache.lookup_entry("acme", &fp).await, MissReason::Absent);
    assert_no_panic();
}

// ---------------------------------------------------------------------------------------------
// The sled store: the shared behaviours and the miss reasons

#[tokio::test(flavor = "multi_thread")]
async fn sled_store_hits_misses_overwrites_and_removes() {
    count_panics();
    let temp = TempDir::new("shared");
    let cache = SledToolCache::open_at(temp.store(), CacheOptions::default());
    shared_behaviours(&cache).await;
    cache.close().await;
    assert_no_panic();
}

#[tokio::test(flavor = "multi_thread")]
async fn sled_entries_survive_close_and_are_read_by_another_store_instance() {
    count_panics();
    let temp = TempDir::new("persist");
    let fp = fingerprint();
    let writer = SledToolCache::open_at(temp.store(), CacheOptions::default());
    bounded(writer.set("acme", &fp, &tools())).await;
    bounded(writer.set("other", &fp, &other_tools())).await;
    bounded(writer.close()).await;
    drop(writer);

    let (_, reordered) = config_and_reordered();
    let reader = SledToolCache::open_at(temp.store(), CacheOptions::default());
    assert_hit(bounded(reader.lookup_entry("acme", &fp)).await, &tools());
    assert_hit(
        bounded(reader.lookup_entry("acme", &Fingerprint::of(&reordered))).await,
        &tools(),
    );
    assert_hit(
        bounded(reader.lookup_entry("other", &fp)).await,
        &other_tools(),
    );
    bounded(reader.close()).await;
    assert_no_panic();
}

#[tokio::test(flavor = "multi_thread")]
async fn sled_entry_older_than_the_ttl_is_expired() {
    count_panics();
    let temp = TempDir::new("expired");
    let fp = fingerprint();
    let writer = SledToolCache::open_at(temp.store(), CacheOptions::default());
    bounded(writer.set("acme", &fp, &tools())).await;
    bounded(writer.close()).await;

    // A second store on the same directory, living a month later.
    let later = SledToolCache::open_at(
        temp.store(),
        CacheOptions::default()
            .ttl(Duration::from_secs(30 * 24 * 60 * 60))
            .clock(a_month_ahead),
    );
    assert_miss(
        &bounded(later.lookup_entry("acme", &fp)).await,
        MissReason::Expired,
    );
    assert_eq!(bounded(later.get("acme", &fp)).await, None);
    // Writing again (with the later clock) makes it fresh.
    bounded(later.set("acme", &fp, &tools())).await;
    assert_hit(bounded(later.lookup_entry("acme", &fp)).await, &tools());
    bounded(later.close()).await;

    // A shorter TTL expires sooner: the first store's write is a month old for the later clock.
    let strict = SledToolCache::open_at(
        temp.store(),
        CacheOptions::default().ttl(Duration::from_secs(60)),
    );
    bounded(strict.set("old", &fp, &tools())).await;
    bounded(strict.close()).await;
    let strict_later = SledToolCache::open_at(
        temp.store(),
        CacheOptions::default()
            .ttl(Duration::from_secs(60))
            .clock(a_month_ahead),
    );
    assert_miss(
        &bounded(strict_later.lookup_entry("old", &fp)).await,
        MissReason::Expired,
    );
    bounded(strict_later.close()).await;
    assert_no_panic();
}

#[tokio::test(flavor = "multi_thread")]
async fn sled_record_of_another_format_misses_and_is_replaced_by_the_next_write() {
    count_panics();
    let temp = TempDir::new("format");
    let fp = fingerprint();
    let cache = SledToolCache::open_at(temp.store(), CacheOptions::default());
    bounded(cache.set("acme", &fp, &tools())).await;
    bounded(cache.close()).await;
    assert_ne!(FORMAT_VERSION, 0);
    write_raw(&temp.store(), "acme", old_format_record());

    assert_miss(
        &bounded(cache.lookup_entry("acme", &fp)).await,
        MissReason::OtherFormat,
    );
    bounded(cache.set("acme", &fp, &tools())).await;
    assert_hit(bounded(cache.lookup_entry("acme", &fp)).await, &tools());
    bounded(cache.close()).await;
    assert_no_panic();
}

#[tokio::test(flavor = "multi_thread")]
async fn sled_truncated_and_garbage_records_are_undecodable() {
    count_panics();
    let temp = TempDir::new("undecodable");
    let fp = fingerprint();
    let cache = SledToolCache::open_at(temp.store(), CacheOptions::default());
    bounded(cache.set("intact", &fp, &tools())).await;
    bounded(cache.close()).await;
    write_raw(&temp.store(), "truncated", truncated_record());
    write_raw(&temp.store(), "garbage", garbage_record());
    write_raw(&temp.store(), "empty", Vec::new());

    for server in ["truncated", "garbage", "empty"] {
        assert_miss(
            &bounded(cache.lookup_entry(server, &fp)).await,
            MissReason::Undecodable,
        );
    }
    // A bad record spoils nothing else, and the next write replaces it.
    assert_hit(bounded(cache.lookup_entry("intact", &fp)).await, &tools());
    for server in ["truncated", "garbage", "empty"] {
        bounded(cache.set(server, &fp, &other_tools())).await;
        assert_hit(
            bounded(cache.lookup_entry(server, &fp)).await,
            &other_tools(),
        );
    }
    bounded(cache.close()).await;
    assert_no_panic();
}

#[tokio::test(flavor = "multi_thread")]
async fn sled_store_whose_dir_cannot_be_created_is_unavailable() {
    count_panics();
    let temp = TempDir::new("impossible");
    let file = temp.0.join("a-regular-file");
    std::fs::write(&file, b"not a directory").unwrap();
    let fp = fingerprint();

    for dir in [file.join("tool-cache"), file.clone()] {
        let cache = SledToolCache::open_at(&dir, CacheOptions::default());
        assert_miss(
            &bounded(cache.lookup_entry("acme", &fp)).await,
            MissReason::Unavailable,
        );
        bounded(cache.set("acme", &fp, &tools())).await;
        assert_miss(
            &bounded(cache.lookup_entry("acme", &fp)).await,
            MissReason::Unavailable,
        );
        assert_eq!(bounded(cache.get("acme", &fp)).await, None);
        bounded(cache.remove("acme")).await;
        bounded(cache.close()).await;
    }
    // The file is left as it was.
    assert_eq!(std::fs::read(&file).unwrap(), b"not a directory");
    assert!(temp.moved_aside().is_empty());
    assert_no_panic();
}

// ---------------------------------------------------------------------------------------------
// The sled store: the disk lets it down

/// What a test does to a closed store's files.
#[derive(Debug, Clone, Copy)]
enum Damage {
    /// Every file sled wrote (`conf`, `db`, `snap.*`) overwritten with binary garbage.
    EveryFile,
    /// Only the configuration file, with bytes that are not even UTF-8.
    ConfBinary,
    /// Only the configuration file, with text that is not sled's.
    ConfText,
    /// Only the snapshot files, with garbage.
    Snapshot,
    /// Only the data file, with garbage. sled may not notice: it can take a log it cannot read
    /// for an empty one and start over in it.
    Db,
    /// Only the data file, zeroed (as after a crash that lost the file's pages); as above.
    DbZeroed,
}

impl Damage {
    /// Whether sled reports this damage when the store is opened (rather than starting empty).
    fn reported_by_sled(self) -> bool {
        !matches!(self, Self::Db | Self::DbZeroed)
    }
}

fn damage(dir: &Path, damage: Damage) {
    let files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file())
        .collect();
    let name = |path: &Path| path.file_name().unwrap().to_string_lossy().into_owned();
    // sled 0.34 keeps `conf`, `db`, `snap.<lsn>` and an (here empty) `blobs/` directory.
    assert!(files.iter().any(|path| name(path) == "conf"), "{files:?}");
    assert!(files.iter().any(|path| name(path) == "db"), "{files:?}");
    assert!(dir.join("blobs").is_dir());
    let mut damaged = 0;
    for path in &files {
        let file = name(path);
        let len = usize::try_from(std::fs::metadata(path).unwrap().len()).unwrap();
        let binary: Vec<u8> = (0..len.max(64))
            .map(|index| u8::try_from((index * 131 + 7) % 251).unwrap() | 0x80)
            .collect();
        let bytes = match (damage, file.as_str()) {
            (Damage::EveryFile, _) | (Damage::ConfBinary, "conf") | (Damage::Db, "db") => binary,
            (Damage::ConfText, "conf") => b"segment_size: lots\nflavour: strawberry\n".to_vec(),
            (Damage::DbZeroed, "db") => vec![0; len],
            (Damage::Snapshot, snap) if snap.starts_with("snap.") => binary,
            _ => continue,
        };
        std::fs::write(path, bytes).unwrap();
        damaged += 1;
    }
    assert!(damaged > 0, "nothing to damage for {damage:?} in {files:?}");
    // The entry files would still answer lookups; these cases are about the database under
    // them, so the next lookup has to open it.
    drop_entry_files(dir);
}

#[tokio::test(flavor = "multi_thread")]
async fn sled_corrupt_store_directory_is_moved_aside_and_rebuilt() {
    count_panics();
    let fp = fingerprint();
    for kind in [
        Damage::EveryFile,
        Damage::ConfBinary,
        Damage::ConfText,
        Damage::Snapshot,
        Damage::Db,
        Damage::DbZeroed,
    ] {
        let temp = TempDir::new("corrupt");
        let cache = SledToolCache::open_at(temp.store(), CacheOptions::default());
        bounded(cache.set("acme", &fp, &tools())).await;
        bounded(cache.close()).await;
        // sled writes its first snapshot when it opens an existing database; without entry
        // files, the lookup opens it.
        drop_entry_files(&temp.store());
        assert_hit(bounded(cache.lookup_entry("acme", &fp)).await, &tools());
        bounded(cache.close()).await;
        damage(&temp.store(), kind);

        // The damage is found on the next use: a miss (the store is empty, not unusable), and
        // the damaged directory sits next to the fresh one.
        let lookup = bounded(cache.lookup_entry("acme", &fp)).await;
        assert_miss(&lookup, MissReason::Absent);
        let moved_aside = temp.moved_aside().len();
        if kind.reported_by_sled() {
            assert_eq!(moved_aside, 1, "{kind:?}");
        } else {
            assert!(moved_aside <= 1, "{kind:?}");
        }
        assert!(temp.store().join("conf").is_file(), "{kind:?}");

        // And the store works again.
        bounded(cache.set("acme", &fp, &tools())).await;
        assert_hit(bounded(cache.lookup_entry("acme", &fp)).await, &tools());
        bounded(cache.close()).await;
        let again = SledToolCache::open_at(temp.store(), CacheOptions::default());
        assert_hit(bounded(again.lookup_entry("acme", &fp)).await, &tools());
        bounded(again.close()).await;
        assert_eq!(temp.moved_aside().len(), moved_aside, "{kind:?}");
    }
    assert_no_panic();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_store_that_keeps_breaking_keeps_only_its_newest_corrupt_copy() {
    count_panics();
    let fp = fingerprint();
    let temp = TempDir::new("corrupt-twice");
    let cache = SledToolCache::open_at(temp.store(), CacheOptions::default());
    for round in 1..=3 {
        bounded(cache.set("acme", &fp, &tools())).await;
        bounded(cache.close()).await;
        damage(&temp.store(), Damage::EveryFile);
        assert_miss(
            &bounded(cache.lookup_entry("acme", &fp)).await,
            MissReason::Absent,
        );
        bounded(cache.close()).await;
        assert_eq!(temp.moved_aside().len(), 1, "round {round}");
    }
    assert_no_panic();
}

#[tokio::test(flavor = "multi_thread")]
async fn sled_corrupt_store_found_by_a_write_is_rebuilt_too() {
    count_panics();
    let temp = TempDir::new("corrupt-write");
    let fp = fingerprint();
    let cache = SledToolCache::open_at(temp.store(), CacheOptions::default());
    bounded(cache.set("acme", &fp, &other_tools())).await;
    bounded(cache.close()).await;
    damage(&temp.store(), Damage::EveryFile);

    bounded(cache.set("acme", &fp, &tools())).await;
    assert_hit(bounded(cache.lookup_entry("acme", &fp)).await, &tools());
    assert_eq!(temp.moved_aside().len(), 1);
    bounded(cache.close()).await;
    assert_no_panic();
}

#[tokio::test(flavor = "multi_thread")]
async fn sled_missing_nested_cache_dir_is_created_on_first_set() {
    count_panics();
    let temp = TempDir::new("missing");
    let dir = temp
        .0
        .join("home")
        .join(".cache")
        .join("agent")
        .join("tool-cache");
    let fp = fingerprint();
    let cache = SledToolCache::open_at(&dir, CacheOptions::default());
    assert_eq!(cache.path(), dir);

    bounded(cache.set("acme", &fp, &tools())).await;
    assert!(dir.is_dir());
    assert_hit(bounded(cache.lookup_entry("acme", &fp)).await, &tools());
    bounded(cache.close()).await;
    assert!(dir.join("conf").is_file());
    assert_no_panic();
}

#[tokio::test(flavor = "multi_thread")]
async fn sled_store_locked_by_another_opener_is_unavailable_until_it_lets_go() {
    count_panics();
    let temp = TempDir::new("locked");
    let fp = fingerprint();
    let cache = SledToolCache::open_at(temp.store(), CacheOptions::default());
    bounded(cache.set("acme", &fp, &tools())).await;
    bounded(cache.close()).await;
    // Without entry files, a lookup needs the database.
    drop_entry_files(&temp.store());

    // Another opener (here: this test, straight through sled) holds the database.
    let held = open_direct(&temp.store());
    assert_miss(
        &bounded(cache.lookup_entry("acme", &fp)).await,
        MissReason::Unavailable,
    );
    assert_eq!(bounded(cache.get("acme", &fp)).await, None);
    // Writes and removes are skipped, not queued, not errors.
    bounded(cache.set("acme", &fp, &other_tools())).await;
    bounded(cache.remove("acme")).await;
    // The other opener's data is untouched, and nothing was taken for corruption.
    let stored = held.get("acme").unwrap().expect("the entry is still there");
    assert_hit(
        decode_entry(&stored, &fp, Duration::from_secs(60), SystemTime::now()),
        &tools(),
    );
    assert!(temp.moved_aside().is_empty());
    drop(held);

    // Once it lets go, the store works again (waiting out sled's lingering lock on its own).
    assert_hit(bounded(cache.lookup_entry("acme", &fp)).await, &tools());
    bounded(cache.set("acme", &fp, &other_tools())).await;
    assert_hit(
        bounded(cache.lookup_entry("acme", &fp)).await,
        &other_tools(),
    );
    bounded(cache.close()).await;
    assert_no_panic();
}

#[tokio::test(flavor = "multi_thread")]
async fn lookups_read_the_entry_files_while_another_process_holds_the_database() {
    count_panics();
    let temp = TempDir::new("view-locked");
    let fp = fingerprint();
    let cache = SledToolCache::open_at(temp.store(), CacheOptions::default());
    bounded(cache.set("acme", &fp, &tools())).await;
    bounded(cache.set("gone", &fp, &tools())).await;
    bounded(cache.remove("gone")).await;
    bounded(cache.close()).await;

    // Another process holds the database for as long as it likes: lookups do not wait for it.
    let held = open_direct(&temp.store());
    // A hit, not `Unavailable`: the lookup read the entry files (the database is locked).
    assert_hit(bounded(cache.lookup_entry("acme", &fp)).await, &tools());
    // A removed entry is gone from the files too, and an entry never written is absent.
    assert_miss(
        &bounded(cache.lookup_entry("gone", &fp)).await,
        MissReason::Absent,
    );
    assert_miss(
        &bounded(cache.lookup_entry("never", &fp)).await,
        MissReason::Absent,
    );
    // Another configuration still misses: the files hold the same records as the database.
    let other = Fingerprint::of(&json!({"command": "other"}));
    assert_miss(
        &bounded(cache.lookup_entry("acme", &other)).await,
        MissReason::OtherFingerprint,
    );
    drop(held);
    assert_no_panic();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_store_without_entry_files_gets_them_back_on_its_next_open() {
    count_panics();
    let temp = TempDir::new("view-rebuilt");
    let fp = fingerprint();
    let cache = SledToolCache::open_at(temp.store(), CacheOptions::default());
    bounded(cache.set("acme", &fp, &tools())).await;
    bounded(cache.set("beta", &fp, &other_tools())).await;
    bounded(cache.close()).await;
    // A store written before the entry files existed, or whose files were deleted.
    drop_entry_files(&temp.store());

    // Read through the database, which is opened and copied into files on the way.
    assert_hit(bounded(cache.lookup_entry("acme", &fp)).await, &tools());
    bounded(cache.close()).await;
    let held = open_direct(&temp.store());
    let again = SledToolCache::open_at(temp.store(), CacheOptions::default());
    assert_hit(bounded(again.lookup_entry("acme", &fp)).await, &tools());
    assert_hit(
        bounded(again.lookup_entry("beta", &fp)).await,
        &other_tools(),
    );
    drop(held);
    assert_no_panic();
}

#[tokio::test(flavor = "multi_thread")]
async fn sled_close_releases_the_lock_at_once() {
    count_panics();
    let temp = TempDir::new("close");
    let fp = fingerprint();
    let cache = SledToolCache::open_at(temp.store(), CacheOptions::default());
    for round in 0..20 {
        bounded(cache.set("acme", &fp, &tools())).await;
        assert_hit(bounded(cache.lookup_entry("acme", &fp)).await, &tools());
        bounded(cache.close()).await;

        // No retry here: right after close, another opener gets in.
        let direct = sled::open(temp.store())
            .unwrap_or_else(|error| panic!("round {round}: still locked after close: {error}"));
        assert!(direct.get("acme").unwrap().is_some());
        direct.flush().unwrap();
        drop(direct);
    }
    // Closing a closed store (or one never opened) is fine.
    bounded(cache.close()).await;
    bounded(SledToolCache::open_at(temp.0.join("never"), CacheOptions::default()).close()).await;
    assert_no_panic();
}

/// Every file of a store with what tells a rewrite apart: inode, length and modification time.
fn files_of(dir: &Path) -> Vec<(PathBuf, u64, u64, SystemTime)> {
    use std::os::unix::fs::MetadataExt as _;
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let entry = entry.unwrap();
            let metadata = entry.metadata().unwrap();
            if metadata.is_dir() {
                folders.push(entry.path());
            } else {
                files.push((
                    entry.path(),
                    metadata.ino(),
                    metadata.len(),
                    metadata.modified().unwrap(),
                ));
            }
        }
    }
    files.sort();
    files
}

fn two_weeks_ahead() -> SystemTime {
    SystemTime::now() + Duration::from_secs(14 * 24 * 60 * 60)
}

fn sixteen_days_ahead() -> SystemTime {
    SystemTime::now() + Duration::from_secs(16 * 24 * 60 * 60)
}

#[tokio::test(flavor = "multi_thread")]
async fn writing_back_the_tools_the_cache_holds_leaves_the_store_untouched() {
    // A warm start writes every server's tools back as it connects; when they are what the
    // cache holds, the database is not even opened (opening it cost 200 servers twice the
    // memory they take without a cache).
    count_panics();
    let temp = TempDir::new("unchanged");
    let fp = fingerprint();
    let cache = SledToolCache::open_at(temp.store(), CacheOptions::default());
    bounded(cache.set("acme", &fp, &tools())).await;
    bounded(cache.close()).await;
    let before = files_of(&temp.store());

    bounded(cache.set("acme", &fp, &tools())).await;
    bounded(cache.close()).await;
    assert_eq!(
        files_of(&temp.store()),
        before,
        "the same tools were written again"
    );
    assert_hit(bounded(cache.lookup_entry("acme", &fp)).await, &tools());

    // Other tools, or the same tools under another configuration, are written.
    bounded(cache.set("acme", &fp, &other_tools())).await;
    bounded(cache.close()).await;
    assert_ne!(files_of(&temp.store()), before);
    assert_hit(
        bounded(cache.lookup_entry("acme", &fp)).await,
        &other_tools(),
    );
    let other_fp = Fingerprint::of(&json!({"command": "another"}));
    bounded(cache.set("acme", &other_fp, &other_tools())).await;
    assert_hit(
        bounded(cache.lookup_entry("acme", &other_fp)).await,
        &other_tools(),
    );
    bounded(cache.close()).await;
    assert_no_panic();
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unchanged_entry_is_rewritten_once_half_its_time_to_live_is_gone() {
    // Skipping unchanged writes must not let an entry in daily use expire: past half the time
    // to live (30 days) the write goes through and makes it fresh again.
    count_panics();
    let fp = fingerprint();
    for (written_back_by, fresh_a_month_later) in [
        (two_weeks_ahead as fn() -> SystemTime, false),
        (sixteen_days_ahead, true),
    ] {
        let temp = TempDir::new("refresh");
        let now = SledToolCache::open_at(temp.store(), CacheOptions::default());
        bounded(now.set("acme", &fp, &tools())).await;
        bounded(now.close()).await;

        let later =
            SledToolCache::open_at(temp.store(), CacheOptions::default().clock(written_back_by));
        bounded(later.set("acme", &fp, &tools())).await;
        bounded(later.close()).await;

        let month_later =
            SledToolCache::open_at(temp.store(), CacheOptions::default().clock(a_month_ahead));
        let lookup = bounded(month_later.lookup_entry("acme", &fp)).await;
        if fresh_a_month_later {
            assert_hit(lookup, &tools());
        } else {
            // Skipped at two weeks: still the first write, now 31 days old.
            assert_miss(&lookup, MissReason::Expired);
        }
        bounded(month_later.close()).await;
    }
    assert_no_panic();
}

// ---------------------------------------------------------------------------------------------
// How the tools were listed

/// A time the entry format keeps exactly (whole milliseconds).
fn at_ms(ms: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(ms)
}

/// A server's skills as `skills/list` gives them, named `names`.
fn skills(names: &[&str]) -> Vec<SkillEntry> {
    names
        .iter()
        .map(|name| {
            serde_json::from_value(json!({
                "uri": format!("skill://{name}/SKILL.md"),
                "frontmatter": {"name": name, "description": format!("Do {name}")},
                "resources": [{
                    "uri": format!("skill://{name}/SKILL.md"),
                    "digest": format!("sha256:{}", "0f".repeat(32)),
                    "size": 120
                }]
            }))
            .unwrap()
        })
        .collect()
}

/// The protocol version, the server's instructions, a stateless list's ttl and the skills come
/// back as they were written; a plain write (or a store without them) knows nothing of them.
async fn listings_round_trip(cache: &dyn ToolCache) {
    let fp = fingerprint();
    let handshake = Listing::new(ProtocolVersion::V2025_11_25);
    let instructed = Listing::new(ProtocolVersion::V2025_11_25).with_instructions(Some(
        "Use search_files before read_file.\nPaths are absolute.",
    ));
    let stateless = Listing::new(ProtocolVersion::V2026_07_28)
        .with_ttl(Duration::from_secs(300), at_ms(1_700_000_000_123));
    let skilled =
        Listing::new(ProtocolVersion::V2025_11_25).with_skills(skills(&["pdf", "review"]));
    for listing in [handshake, instructed, stateless, skilled] {
        bounded(cache.set_entry("acme", &fp, &tools(), &listing)).await;
        let entry = bounded(cache.lookup_entry("acme", &fp)).await.unwrap();
        assert_eq!(entry.listing, listing);
        assert_eq!(entry.tools, tools());
        assert_hit(bounded(cache.lookup_entry("acme", &fp)).await, &tools());
    }
    bounded(cache.set("acme", &fp, &other_tools())).await;
    let entry = bounded(cache.lookup_entry("acme", &fp)).await.unwrap();
    assert_eq!(entry.listing, Listing::default());
    assert_eq!(
        bounded(cache.lookup_entry("other", &fp)).await,
        Err(MissReason::Absent)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn every_store_keeps_how_the_tools_were_listed() {
    count_panics();
    listings_round_trip(&MemoryToolCache::new(CacheOptions::default())).await;
    let temp = TempDir::new("listing");
    let sled = SledToolCache::open_at(temp.store(), CacheOptions::default());
    listings_round_trip(&sled).await;
    bounded(sled.close()).await;
    // Read back by another instance, from the entry files.
    let again = SledToolCache::open_at(temp.store(), CacheOptions::default());
    let listing = Listing::new(ProtocolVersion::V2026_07_28).with_ttl(Duration::ZERO, at_ms(7));
    bounded(again.set_entry("acme", &fingerprint(), &tools(), &listing)).await;
    bounded(again.close()).await;
    let third = SledToolCache::open_at(temp.store(), CacheOptions::default());
    let entry = bounded(third.lookup_entry("acme", &fingerprint()))
        .await
        .unwrap();
    assert_eq!(entry.listing, listing);
    bounded(third.close()).await;
    assert_eq!(
        bounded(NoopToolCache::new().lookup_entry("acme", &fingerprint())).await,
        Err(MissReason::Absent)
    );
    assert_no_panic();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_list_with_a_ttl_is_written_again_with_the_same_tools_and_one_without_is_not() {
    // A stateless server's list is fresh from when it was fetched: writing the same tools again
    // must move that time, or a list fetched again would still look stale at the next start.
    count_panics();
    let temp = TempDir::new("ttl-rewrite");
    let fp = fingerprint();
    let cache = SledToolCache::open_at(temp.store(), CacheOptions::default());
    let fetched = |ms| {
        Listing::new(ProtocolVersion::V2026_07_28).with_ttl(Duration::from_secs(60), at_ms(ms))
    };
    bounded(cache.set_entry("acme", &fp, &tools(), &fetched(1_000))).await;
    bounded(cache.close()).await;
    bounded(cache.set_entry("acme", &fp, &tools(), &fetched(2_000))).await;
    bounded(cache.close()).await;
    let entry = bounded(cache.lookup_entry("acme", &fp)).await.unwrap();
    assert_eq!(entry.listing.fetched_at, Some(at_ms(2_000)));

    // Without a ttl the same tools and listing leave the store untouched, as a plain write does;
    // another protocol version is a change.
    let handshake = Listing::new(ProtocolVersion::V2025_11_25);
    bounded(cache.set_entry("acme", &fp, &tools(), &handshake)).await;
    bounded(cache.close()).await;
    let before = files_of(&temp.store());
    bounded(cache.set_entry("acme", &fp, &tools(), &handshake)).await;
    bounded(cache.close()).await;
    assert_eq!(files_of(&temp.store()), before);
    let older = Listing::new(ProtocolVersion::V2025_06_18);
    bounded(cache.set_entry("acme", &fp, &tools(), &older)).await;
    bounded(cache.close()).await;
    assert_ne!(files_of(&temp.store()), before);
    let entry = bounded(cache.lookup_entry("acme", &fp)).await.unwrap();
    assert_eq!(entry.listing, older);
    assert_no_panic();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_same_skills_leave_the_store_untouched_and_other_skills_are_written() {
    // Every connection of a server with skills writes them back with its tools: on a warm start
    // they are what the cache had, and the store is not opened for them.
    count_panics();
    let temp = TempDir::new("skills-rewrite");
    let fp = fingerprint();
    let cache = SledToolCache::open_at(temp.store(), CacheOptions::default());
    let listing =
        |names: &[&str]| Listing::new(ProtocolVersion::V2025_11_25).with_skills(skills(names));
    bounded(cache.set_entry("acme", &fp, &tools(), &listing(&["pdf"]))).await;
    bounded(cache.close()).await;
    let before = files_of(&temp.store());
    bounded(cache.set_entry("acme", &fp, &tools(), &listing(&["pdf"]))).await;
    bounded(cache.close()).await;
    assert_eq!(files_of(&temp.store()), before);
    bounded(cache.set_entry("acme", &fp, &tools(), &listing(&["pdf", "review"]))).await;
    bounded(cache.close()).await;
    assert_ne!(files_of(&temp.store()), before);
    let again = SledToolCache::open_at(temp.store(), CacheOptions::default());
    let entry = bounded(again.lookup_entry("acme", &fp)).await.unwrap();
    assert_eq!(entry.listing.skills, skills(&["pdf", "review"]));
    assert_eq!(entry.tools, tools());
    bounded(again.close()).await;
    assert_no_panic();
}
