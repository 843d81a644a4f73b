//! How a transport's stream readers hand what they read to the peer: a bounded channel
//! ([`Postbox`] to [`Inbox`]) that both ends stop using once the transport is closed.

use bytes::Bytes;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::transport::TransportError;

/// How many messages may wait for the peer before stream readers hold back.
const INCOMING_CAPACITY: usize = 64;

pub(super) type Incoming = Result<Bytes, TransportError>;

/// The sending side of a transport's incoming messages: stream readers hand messages (or the
/// connection's end) to the peer through it, and stop handing once the transport is closed.
#[derive(Clone)]
pub(super) struct Postbox {
    sender: mpsc::Sender<Incoming>,
    pub(super) closed: CancellationToken,
}

/// The receiving side, read by [`Transport::receive`](crate::Transport::receive).
pub(super) struct Inbox {
    receiver: tokio::sync::Mutex<mpsc::Receiver<Incoming>>,
    closed: CancellationToken,
}

pub(super) fn mailbox() -> (Postbox, Inbox) {
    let (sender, receiver) = mpsc::channel(INCOMING_CAPACITY);
    let closed = CancellationToken::new();
    (
        Postbox {
            sender,
            closed: closed.clone(),
        },
        Inbox {
            receiver: tokio::sync::Mutex::new(receiver),
            closed,
        },
    )
}

impl Postbox {
    pub(super) async fn deliver(&self, message: Incoming) {
        tokio::select! {
            () = self.closed.cancelled() => {}
            _ = self.sender.send(message) => {}
        }
    }
}

impl Inbox {
    /// The next message; cancel safe, as the trait asks.
    pub(super) async fn receive(&self) -> Incoming {
        let mut receiver = self.receiver.lock().await;
        tokio::select! {
            biased;
            () = self.closed.cancelled() => Err(TransportError::ClosedByClient),
            message = receiver.recv() => message.unwrap_or(Err(TransportError::ClosedByServer)),
        }
    }
}
