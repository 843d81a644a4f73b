//! [`SledToolCache`]: the on-disk store, shared by every agent process of a machine.
//!
//! sled lets one opener hold a database at a time (even within a process; a second open fails
//! at once with "could not acquire lock"). Agents that start together (an IDE opening several
//! windows, a script running many sessions) all read the cache within their startup gate, so
//! the store is held only for one batch of operations: opened by the first operation, kept
//! while more are queued or arrive within [`LINGER`], then flushed and closed. Opening, a
//! handful of reads and closing take a few milliseconds, so a dozen processes get their turn
//! well inside a gate of a quarter second. (Measured in release on a 5 MB store: open 2–5 ms,
//! three 100 KB reads 1 ms, flush and close 1 ms; holding the store 100 ms after its last use,
//! as this store once did, let only 2 of 6 processes started together read it in time.)
//!
//! An open that finds the database locked polls again after a millisecond or two (a few
//! milliseconds at most) until it gets in, for up to [`OPEN_BUDGET`] — and no longer than its
//! caller waits: an operation whose future was dropped (the startup gate answered without it)
//! stops polling at once. An open that used up its budget is a miss, never a wait that could
//! hold up a session; for the next [`OPEN_BUDGET`] operations try once and miss at once
//! instead of each waiting again. A process in continuous use for [`HOLD_MAX`] steps aside for
//! [`STEP_ASIDE`] so that the others get in.
//!
//! A write of the tools an entry already holds (every connected server's tools are written back,
//! and on a warm start they are what the cache had) is skipped unless the entry is past half its
//! time to live, so a warm start never opens the database. A list with a ttl that was fetched
//! again is a change (its fetch time is what the entry keeps it for). Lookups run at most
//! [`LOOKUP_THREADS`] at a time and database operations one at a time, each waiting for its
//! turn without a thread of its own.
//!
//! Everything sled does runs on tokio's blocking threads, never on the async workers. Every
//! failure is a miss or a skipped write, logged once per kind. A database sled reports as
//! corrupt, or cannot read at all (another format), is moved aside
//! (`<dir>.corrupt-<time>-<pid>`, only the newest such copy is kept) and a fresh one is
//! created.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use mcp_transport::Tool;
use tokio::sync::Semaphore;

use crate::entry::{CacheEntry, Listing, MissReason, decode, encode, written_at_ms};
use crate::fingerprint::Fingerprint;
use crate::read_view::{ReadView, ViewRead};
use crate::{CacheOptions, ToolCache};

/// How long the database stays open after its last operation when none is queued: long enough
/// to keep a burst of lookups (one per server, started together) in one batch, short enough
/// that a dozen processes take their turns within a startup gate.
pub(crate) const LINGER: Duration = Duration::from_millis(3);
/// The longest the database stays open while in continuous use, so other processes get in.
pub(crate) const HOLD_MAX: Duration = Duration::from_millis(100);
/// After stepping aside, how long this process leaves the database to the others before it
/// opens it again; several times the longest poll delay of a waiting opener.
pub(crate) const STEP_ASIDE: Duration = Duration::from_millis(20);
/// How long an open keeps polling a database locked by another process.
pub(crate) const OPEN_BUDGET: Duration = Duration::from_secs(1);
/// The first and the longest delay between two polls of a locked database.
const POLL_FIRST: Duration = Duration::from_millis(1);
const POLL_MAX: Duration = Duration::from_millis(4);
/// How long [`SledToolCache::close`] waits for sled to let go of its file lock.
const RELEASE_WAIT: Duration = Duration::from_millis(200);
/// sled's page cache; its default (1 GiB) is far more than a tool cache needs.
const PAGE_CACHE_BYTES: u64 = 8 * 1024 * 1024;
/// Lookups (reading and decoding an entry) a store runs at once on tokio's blocking threads.
/// The blocking pool starts a thread for every task that finds none idle, so a startup of 200
/// servers, one lookup and one write each, ran on up to 80 threads, each allocating in a glibc
/// malloc arena of its own that keeps what it freed. Two keep lookups off the async workers
/// and still decode in parallel.
const LOOKUP_THREADS: usize = 2;
/// The store's folder in the agent's cache folder ([`SledToolCache::in_app_cache_dir`]).
const STORE_FOLDER: &str = "tool-cache";

/// The default store: a sled database in the user's cache directory.
#[derive(Clone)]
pub struct SledToolCache {
    shared: Arc<Shared>,
}

struct Shared {
    path: PathBuf,
    /// Every entry as a file of its own, read without opening the database.
    view: ReadView,
    options: CacheOptions,
    db: Mutex<Slot>,
    /// Permits to run a lookup on a blocking thread ([`LOOKUP_THREADS`]).
    lookup_threads: Semaphore,
    /// The one permit to run a database operation on a blocking thread: they take turns on
    /// the database anyway, so the others wait here, without a thread each.
    db_thread: Arc<Semaphore>,
    /// Operations started and not finished (queued for the database or running): the store
    /// is not closed under them.
    in_flight: AtomicUsize,
    closer_scheduled: AtomicBool,
    warned: Mutex<HashSet<&'static str>>,
}

/// The database handle and what the last attempts taught.
#[derive(Default)]
struct Slot {
    held: Option<Held>,
    /// When this process last stepped aside after [`HOLD_MAX`] of use.
    stepped_aside_at: Option<Instant>,
    /// After an open gave up on a locked database, operations fail fast until then instead of
    /// each waiting out the whole budget again.
    unavailable_until: Option<Instant>,
}

/// Why an open did not give a database.
enum OpenFailure {
    /// Locked past the budget, or not openable at all (logged).
    Unavailable,
    /// The caller stopped waiting while the database was locked.
    Abandoned,
}

struct Held {
    db: sled::Db,
    opened_at: Instant,
    last_used: Instant,
}

impl SledToolCache {
    /// A store in `dir` (created when first used).
    pub fn open_at(dir: impl Into<PathBuf>, options: CacheOptions) -> Self {
        let dir = dir.into();
        Self {
            shared: Arc::new(Shared {
                view: ReadView::of_store(&dir),
                path: dir,
                options,
                db: Mutex::new(Slot::default()),
                lookup_threads: Semaphore::new(LOOKUP_THREADS),
                db_thread: Arc::new(Semaphore::new(1)),
                in_flight: AtomicUsize::new(0),
                closer_scheduled: AtomicBool::new(false),
                warned: Mutex::new(HashSet::new()),
            }),
        }
    }

    /// A store in the agent's cache folder `app_cache_dir`: its `tool-cache` (created when first
    /// used). This crate looks no directory up; the caller finds the folder
    /// (`mcp_config::app_cache_dir`: `$XDG_CACHE_HOME/<app>`, else `~/.cache/<app>`).
    pub fn in_app_cache_dir(app_cache_dir: impl AsRef<Path>, options: CacheOptions) -> Self {
        Self::open_at(app_cache_dir.as_ref().join(STORE_FOLDER), options)
    }

    /// The database directory.
    pub fn path(&self) -> &Path {
        &self.shared.path
    }

    /// Flushes and releases the database now (other processes can open it at once).
    pub async fn close(&self) {
        let shared = Arc::clone(&self.shared);
        let _ = tokio::task::spawn_blocking(move || shared.close_now()).await;
    }

    async fn run<T, F>(&self, op: F) -> Option<T>
    where
        T: Send + 'static,
        F: FnOnce(&sled::Db) -> sled::Result<T> + Send + 'static,
    {
        let operation = Operation::start(&self.shared);
        let abandoned = Arc::new(AtomicBool::new(false));
        // Dropped with this future: an open still polling for this operation gives up.
        let _abandon_on_drop = AbandonOnDrop(Arc::clone(&abandoned));
        // Queued here, not on a blocking thread of its own: the operation counts as in flight
        // (the database stays open for it) while it waits for its turn.
        let permit = Arc::clone(&self.shared.db_thread)
            .acquire_owned()
            .await
            .ok()?;
        let shared = Arc::clone(&self.shared);
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let outcome = shared.with_db(&abandoned, op);
            drop(operation);
            // From here, not from the caller: a caller that stopped waiting must not leave the
            // database open (and every other process locked out) until its next operation.
            Shared::schedule_close(&shared);
            outcome
        })
        .await
        .ok()
        .flatten()
    }

    /// Runs `work` on a blocking thread once one of the [`LOOKUP_THREADS`] permits is free;
    /// `None` if it panicked.
    async fn on_lookup_thread<T, F>(&self, work: F) -> Option<T>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        // Held until the task is over, not only its work: a permit given back from inside the
        // task lets the next lookup start before this thread is idle again, and the pool then
        // starts another thread.
        let _permit = self.shared.lookup_threads.acquire().await.ok()?;
        tokio::task::spawn_blocking(work).await.ok()
    }

    /// Whether the entry files hold these tools already, with this listing, for this
    /// configuration, written within half the time to live: then writing would change nothing
    /// but the write time. (A list with a ttl fetched again has a new fetch time, so it is
    /// written: that time is what the entry is for.) Every
    /// connected server's tools are written back, so without this a warm start (every tool
    /// list as cached) opened the database only to rewrite each entry as it was: sled's page
    /// table, log buffers and its nine I/O threads (each with a malloc arena of its own) for
    /// nothing. With 200 servers that took the peak memory from 54 MB without a cache to
    /// 92–96 MB; skipping it, 73 MB.
    async fn holds_already(
        &self,
        server: &str,
        fingerprint: &Fingerprint,
        tools: &[Tool],
        listing: &Listing,
        now: SystemTime,
    ) -> bool {
        let (key, shared) = (server.to_owned(), Arc::clone(&self.shared));
        let Some(ViewRead::Entry(stored)) =
            self.on_lookup_thread(move || shared.view.read(&key)).await
        else {
            return false;
        };
        let Some(written) = written_at_ms(&stored).map(|ms| UNIX_EPOCH + Duration::from_millis(ms))
        else {
            return false;
        };
        // An entry from the future (a clock set back) counts as fresh, as lookups take it.
        let fresh = now.duration_since(written).unwrap_or_default() <= self.shared.options.ttl / 2;
        fresh && encode(fingerprint, tools, listing, written) == stored
    }
}

/// One operation from its call until its blocking part finished (or was dropped unrun): counted
/// in [`Shared::in_flight`], so the database stays open for it.
struct Operation {
    shared: Arc<Shared>,
}

impl Operation {
    fn start(shared: &Arc<Shared>) -> Self {
        shared.in_flight.fetch_add(1, Ordering::AcqRel);
        Self {
            shared: Arc::clone(shared),
        }
    }
}

impl Drop for Operation {
    fn drop(&mut self) {
        self.shared.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Raises its flag when dropped. Held by the async side of an operation: its caller going away
/// (the future dropped, as the startup gate drops the lookups it stopped waiting for) stops an
/// open that is still polling a locked database for it.
struct AbandonOnDrop(Arc<AtomicBool>);

impl Drop for AbandonOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

impl std::fmt::Debug for SledToolCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SledToolCache")
            .field("path", &self.shared.path)
            .field("ttl", &self.shared.options.ttl)
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl ToolCache for SledToolCache {
    async fn lookup_entry(
        &self,
        server: &str,
        fingerprint: &Fingerprint,
    ) -> Result<CacheEntry, MissReason> {
        // The entry file is read and decoded on a blocking thread: decoding 200 tools takes
        // over a tenth of a millisecond, which an async worker (busy starting the servers)
        // should not spend, and the lookups of a startup fan-out decode in parallel.
        let (key, fp) = (server.to_owned(), fingerprint.clone());
        let shared = Arc::clone(&self.shared);
        let from_view = self
            .on_lookup_thread(move || match shared.view.read(&key) {
                ViewRead::Entry(bytes) => Some(shared.decode(&bytes, &fp)),
                ViewRead::Absent => Some(Err(MissReason::Absent)),
                ViewRead::Unknown => None,
            })
            .await;
        let lookup = match from_view.flatten() {
            Some(lookup) => lookup,
            None => {
                let key = server.to_owned();
                match self.run(move |db| db.get(key.as_bytes())).await {
                    None => Err(MissReason::Unavailable),
                    Some(None) => Err(MissReason::Absent),
                    Some(Some(bytes)) => {
                        let (fp, shared) = (fingerprint.clone(), Arc::clone(&self.shared));
                        self.on_lookup_thread(move || shared.decode(&bytes, &fp))
                            .await
                            .unwrap_or(Err(MissReason::Unavailable))
                    }
                }
            }
        };
        if lookup.as_ref().err() == Some(&MissReason::Undecodable) {
            self.shared.warn_once(
                "undecodable",
                &format!("a cached tool list for {server:?} does not decode; it will be rewritten"),
            );
        }
        lookup
    }

    async fn set_entry(
        &self,
        server: &str,
        fingerprint: &Fingerprint,
        tools: &[Tool],
        listing: &Listing,
    ) {
        let now = (self.shared.options.clock)();
        if self
            .holds_already(server, fingerprint, tools, listing, now)
            .await
        {
            return;
        }
        let bytes = encode(fingerprint, tools, listing, now);
        let key = server.to_owned();
        let shared = Arc::clone(&self.shared);
        let _ = self
            .run(move |db| {
                db.insert(key.as_bytes(), bytes.as_slice())?;
                shared.follow_in_view(shared.view.publish(&key, &bytes));
                Ok(())
            })
            .await;
    }

    async fn remove(&self, server: &str) {
        let key = server.to_owned();
        let shared = Arc::clone(&self.shared);
        let _ = self
            .run(move |db| {
                db.remove(key.as_bytes())?;
                shared.follow_in_view(shared.view.withdraw(&key));
                Ok(())
            })
            .await;
    }
}

impl Shared {
    /// Makes sure the database gets closed once no operation is queued and none came for
    /// [`LINGER`]. A plain thread does it, so any runtime (with or without timers) works; it
    /// holds the store weakly, so dropping the store releases the database at once.
    fn schedule_close(this: &Arc<Self>) {
        if this.closer_scheduled.swap(true, Ordering::AcqRel) {
            return;
        }
        let shared = Arc::downgrade(this);
        let spawned = std::thread::Builder::new()
            .name("mcp-cache-closer".to_owned())
            .spawn(move || {
                loop {
                    std::thread::sleep(LINGER);
                    let Some(shared) = shared.upgrade() else {
                        return;
                    };
                    if shared.close_if_idle() {
                        return;
                    }
                }
            });
        if spawned.is_err() {
            this.closer_scheduled.store(false, Ordering::Release);
        }
    }

    /// Decodes an entry for this store's time to live and clock.
    fn decode(&self, bytes: &[u8], fingerprint: &Fingerprint) -> Result<CacheEntry, MissReason> {
        decode(bytes, fingerprint, self.options.ttl, (self.options.clock)())
    }

    fn lock(&self) -> MutexGuard<'_, Slot> {
        self.db.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs one operation on the open database, opening it first if needed; `abandoned` is
    /// raised when the caller stopped waiting.
    fn with_db<T>(
        &self,
        abandoned: &AtomicBool,
        op: impl FnOnce(&sled::Db) -> sled::Result<T>,
    ) -> Option<T> {
        let mut slot = self.lock();
        if slot.held.is_none() {
            let now = Instant::now();
            // Right after an open gave up, one quick attempt instead of another full wait.
            let patient = slot.unavailable_until.is_none_or(|until| now >= until);
            if let Some(remaining) = slot
                .stepped_aside_at
                .and_then(|at| STEP_ASIDE.checked_sub(now.duration_since(at)))
            {
                // Give the processes waiting for the lock their turn.
                std::thread::sleep(remaining);
            }
            match self.open(patient, abandoned) {
                Ok(opened) => {
                    if !self.view.is_complete() {
                        // First open since the view was lost or never built (a store written
                        // by an older version): copy every entry before anyone trusts it.
                        self.follow_in_view(self.view.rebuild(&opened.db));
                    }
                    slot.held = Some(opened);
                    slot.unavailable_until = None;
                }
                Err(OpenFailure::Abandoned) => return None,
                Err(OpenFailure::Unavailable) => {
                    if patient {
                        slot.unavailable_until = Some(Instant::now() + OPEN_BUDGET);
                    }
                    return None;
                }
            }
        }
        let slot = &mut *slot;
        let current = slot.held.as_mut()?;
        let result = op(&current.db);
        let now = Instant::now();
        current.last_used = now;
        match result {
            Ok(value) => {
                if now.duration_since(current.opened_at) >= HOLD_MAX {
                    // Busy for a while: step aside so other processes get their turn.
                    Self::release(&mut slot.held);
                    slot.stepped_aside_at = Some(now);
                }
                Some(value)
            }
            Err(error) => {
                let corrupt = is_corruption(&error);
                self.warn_once(
                    if corrupt { "corrupt" } else { "operation" },
                    &format!("tool cache operation failed: {error}"),
                );
                slot.held = None;
                if corrupt {
                    self.move_aside();
                }
                None
            }
        }
    }

    /// Opens the database, polling another process's lock within [`OPEN_BUDGET`] (until
    /// `abandoned` is raised), and replacing a corrupt database with a fresh one.
    fn open(&self, patient: bool, abandoned: &AtomicBool) -> Result<Held, OpenFailure> {
        let started = Instant::now();
        let budget = if patient { OPEN_BUDGET } else { Duration::ZERO };
        let mut delay = POLL_FIRST;
        let mut rebuilt = false;
        // sled makes its folder with the process's umask: made private first (`0700`, its
        // missing parents too), since tool lists may name what the user works on. A folder
        // that cannot be made private is left to sled, whose open then says what is wrong.
        if let Err(error) = mcp_private_files::ensure_private_dir(&self.path) {
            tracing::debug!(path = %self.path.display(), %error, "tool cache folder not private");
        }
        loop {
            let opened = sled::Config::new()
                .path(&self.path)
                .cache_capacity(PAGE_CACHE_BYTES)
                .flush_every_ms(None)
                .open();
            match opened {
                Ok(db) => {
                    let now = Instant::now();
                    tracing::debug!(
                        path = %self.path.display(),
                        waited_ms = started.elapsed().as_millis(),
                        "tool cache opened"
                    );
                    return Ok(Held {
                        db,
                        opened_at: now,
                        last_used: now,
                    });
                }
                Err(error) if is_locked(&error) => {
                    if abandoned.load(Ordering::Acquire) {
                        return Err(OpenFailure::Abandoned);
                    }
                    if started.elapsed() >= budget {
                        self.warn_once(
                            "locked",
                            "the tool cache stayed locked by another process; continuing without it",
                        );
                        return Err(OpenFailure::Unavailable);
                    }
                    std::thread::sleep(delay + jitter(delay));
                    delay = (delay * 2).min(POLL_MAX);
                }
                Err(error) if is_unusable_on_disk(&error) && !rebuilt => {
                    self.warn_once(
                        "corrupt",
                        &format!("the tool cache is corrupt ({error}); rebuilding it"),
                    );
                    self.move_aside();
                    rebuilt = true;
                }
                Err(error) => {
                    self.warn_once(
                        "open",
                        &format!(
                            "could not open the tool cache at {}: {error}; continuing without it",
                            self.path.display()
                        ),
                    );
                    return Err(OpenFailure::Unavailable);
                }
            }
        }
    }

    fn release(held: &mut Option<Held>) {
        if let Some(current) = held.take() {
            // Writes reach disk here (no background flusher): before another process opens.
            let _ = current.db.flush();
            drop(current.db);
            tracing::debug!(
                held_ms = current.opened_at.elapsed().as_millis(),
                "tool cache closed"
            );
        }
    }

    fn close_now(&self) {
        let mut slot = self.lock();
        if slot.held.is_some() {
            Self::release(&mut slot.held);
            self.wait_for_lock_release();
        }
    }

    /// sled lets go of its file lock a moment after the database is dropped (its I/O threads
    /// drop their last references on their own time), so an opener right after a release can
    /// still find it locked. Waits, within [`RELEASE_WAIT`], until the lock can be taken, so that
    /// [`SledToolCache::close`] keeps its promise that others can open the database at once.
    fn wait_for_lock_release(&self) {
        let Ok(file) = std::fs::File::open(self.path.join("db")) else {
            return;
        };
        let started = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => {
                    let _ = file.unlock();
                    return;
                }
                Err(std::fs::TryLockError::WouldBlock) if started.elapsed() < RELEASE_WAIT => {
                    std::thread::sleep(Duration::from_millis(1));
                }
                Err(_) => return,
            }
        }
    }

    /// Closes the database if no operation is queued and none ran for [`LINGER`]; true once
    /// it is closed.
    fn close_if_idle(&self) -> bool {
        let mut slot = self.lock();
        let idle = self.in_flight.load(Ordering::Acquire) == 0
            && slot
                .held
                .as_ref()
                .is_none_or(|current| current.last_used.elapsed() >= LINGER);
        if idle {
            Self::release(&mut slot.held);
            // Cleared under the lock: an operation that runs after this sees no closer and
            // schedules one.
            self.closer_scheduled.store(false, Ordering::Release);
        }
        idle
    }

    /// Moves a corrupt database out of the way so that the next open starts fresh.
    fn move_aside(&self) {
        self.remove_older_copies();
        let stamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|since| since.as_millis())
            .unwrap_or_default();
        let mut aside = self.path.clone().into_os_string();
        aside.push(format!(".corrupt-{stamp}-{}", std::process::id()));
        if std::fs::rename(&self.path, &aside).is_err() {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }

    /// Keeps at most one corrupt copy (the newest, for a look): older ones are deleted, so a
    /// store that keeps breaking cannot fill the disk.
    fn remove_older_copies(&self) {
        let (Some(parent), Some(name)) = (self.path.parent(), self.path.file_name()) else {
            return;
        };
        let prefix = format!("{}.corrupt-", name.to_string_lossy());
        let Ok(entries) = std::fs::read_dir(parent) else {
            return;
        };
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }

    /// After a change the read view had to follow: if it could not, the view is marked
    /// incomplete so that nobody reads an entry the database no longer has.
    fn follow_in_view(&self, followed: std::io::Result<()>) {
        if let Err(error) = followed {
            self.warn_once(
                "view",
                &format!("could not update the tool cache's entry files: {error}; reading through the database until it is rebuilt"),
            );
            let _ = self.view.invalidate();
        }
    }

    /// Logs a problem the first time it happens, then only at debug level.
    fn warn_once(&self, kind: &'static str, message: &str) {
        let first = self
            .warned
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(kind);
        if first {
            tracing::warn!(path = %self.path.display(), "{message}");
        } else {
            tracing::debug!(path = %self.path.display(), "{message}");
        }
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        Self::release(&mut self.lock().held);
    }
}

/// Errors from opening a database whose files sled cannot use: corrupt, or not its own format
/// (sled reports a `conf` file that is not UTF-8, or that names another sled version, as
/// `Unsupported`, not as corruption). The store is disposable, so either way it is rebuilt;
/// otherwise every later open would fail the same way and the cache would stay off for good.
fn is_unusable_on_disk(error: &sled::Error) -> bool {
    is_corruption(error) || matches!(error, sled::Error::Unsupported(_))
}

/// sled's "another opener holds the database" error.
fn is_locked(error: &sled::Error) -> bool {
    match error {
        sled::Error::Io(io) => {
            io.kind() == std::io::ErrorKind::WouldBlock
                || io.to_string().contains("could not acquire lock")
        }
        _ => false,
    }
}

/// Errors after which the database cannot be trusted.
fn is_corruption(error: &sled::Error) -> bool {
    match error {
        sled::Error::Corruption { .. } | sled::Error::ReportableBug(_) => true,
        sled::Error::Io(io) => matches!(
            io.kind(),
            std::io::ErrorKind::InvalidData | std::io::ErrorKind::UnexpectedEof
        ),
        _ => false,
    }
}

/// Up to half of `delay`, from the clock's low bits: enough to stop two processes retrying
/// in lockstep.
fn jitter(delay: Duration) -> Duration {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|since| since.subsec_nanos())
        .unwrap_or_default();
    let half = u32::try_from(delay.as_micros() / 2)
        .unwrap_or(u32::MAX)
        .max(1);
    Duration::from_micros(u64::from(nanos % half))
}
