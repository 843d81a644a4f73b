//! Who Ctrl-C belongs to. The CLI-wide signal handler ends the CLI on SIGINT unless the
//! interactive shell, or a command-line `call` (which cancels itself on the server first),
//! has taken it ([`Taken`]); they wait for it with [`interrupted`].

use std::sync::atomic::{AtomicBool, Ordering};

use tokio::signal::unix::{SignalKind, signal};

/// True while the interactive shell runs (or a `call` of the command line, which cancels
/// itself on the server first): its Ctrl-C cancels a command, not the CLI.
static TAKEN: AtomicBool = AtomicBool::new(false);

/// Whether SIGINT is taken now (the CLI-wide handler then ignores it).
pub(crate) fn is_taken() -> bool {
    TAKEN.load(Ordering::SeqCst)
}

/// Holds SIGINT for the shell (or a command-line `call`) until dropped.
pub(crate) struct Taken;

impl Taken {
    pub(crate) fn take() -> Self {
        TAKEN.store(true, Ordering::SeqCst);
        Self
    }
}

impl Drop for Taken {
    fn drop(&mut self) {
        TAKEN.store(false, Ordering::SeqCst);
    }
}

/// The next SIGINT from now on; never, if it cannot be listened for.
pub(crate) async fn interrupted() {
    match signal(SignalKind::interrupt()) {
        Ok(mut interrupt) => {
            interrupt.recv().await;
        }
        Err(error) => {
            tracing::debug!(%error, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    }
}
