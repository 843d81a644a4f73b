//! The other end, for the example and its test: a stdio MCP server offered on a Unix socket,
//! one process per connection with its stdin and stdout on the connection (as inetd would).
//! The process ends when the client closes its end.

use std::os::fd::OwnedFd;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::net::UnixListener;
use tokio::task::JoinHandle;

/// The listening socket and the servers started for its connections.
pub(crate) struct SocketServer {
    accepting: JoinHandle<()>,
    children: Arc<Mutex<Vec<Child>>>,
}

impl SocketServer {
    /// Listens on `socket` and starts `command args…` for each connection.
    pub(crate) fn serve(
        socket: &Path,
        command: String,
        args: Vec<String>,
    ) -> std::io::Result<Self> {
        let listener = UnixListener::bind(socket)?;
        let children = Arc::new(Mutex::new(Vec::new()));
        let started = Arc::clone(&children);
        let accepting = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let child = stream.into_std().and_then(|stream| {
                    stream.set_nonblocking(false)?;
                    let stdout = stream.try_clone()?;
                    Command::new(&command)
                        .args(&args)
                        .stdin(Stdio::from(OwnedFd::from(stream)))
                        .stdout(Stdio::from(OwnedFd::from(stdout)))
                        .stderr(Stdio::inherit())
                        .spawn()
                });
                match child {
                    Ok(child) => started
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(child),
                    Err(error) => eprintln!("could not start the server: {error}"),
                }
            }
        });
        Ok(Self {
            accepting,
            children,
        })
    }

    /// Stops listening; waits until every server started has exited (they exit when their
    /// connection closes). Their exit statuses, in the order they started.
    pub(crate) async fn stop(self) -> Vec<std::process::ExitStatus> {
        self.accepting.abort();
        let children =
            std::mem::take(&mut *self.children.lock().unwrap_or_else(PoisonError::into_inner));
        tokio::task::spawn_blocking(move || {
            children
                .into_iter()
                .filter_map(|mut child| child.wait().ok())
                .collect()
        })
        .await
        .unwrap_or_default()
    }
}
