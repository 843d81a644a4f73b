//! Who reads the transport: the peer's reader task, or a request waiting alone for its answer.
//!
//! The reader task reads every message and hands each response to its request, which costs a
//! wake-up of that request per answer: on a current-thread runtime, a wake-up of `block_on`'s own
//! future from a task also costs a write to the runtime's event fd and a second `epoll_wait`.
//! For a transport that can be read by polling from any task ([`FastPath::poll_receive`]: stdio)
//! a request that is the only one in flight, on a thread that runs the runtime, reads in the
//! reader task's place instead, so the server's answer wakes it directly. Everything it reads on
//! the way (notifications, server requests) is handled as the reader task would.
//!
//! The rules that keep this safe:
//!
//! - Who reads is `Shared::reader` (the reader task, or a request id), changed only under
//!   `Shared::reading`'s lock, which also covers each poll of the transport: the one not reading
//!   never polls, so it never takes the wake-ups from the one that is.
//! - A request takes over only from the reader task, only once, and only while it is alone; a
//!   second request arriving hands reading back at once, so concurrent requests are served by the
//!   reader task as before and never wait on a request future someone stopped polling.
//! - A request hands reading back to the reader task, and wakes it, when its answer came, when it
//!   ends any other way (timeout, cancellation, its future dropped), and when the transport says
//!   the rest must come from [`Transport::receive`] (for stdio: the end of the output).

use std::future::poll_fn;
use std::sync::atomic::Ordering;
use std::sync::{Arc, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use bytes::Bytes;

use super::{Pending, Shared};
use crate::fast_path::{FastPath, Link};
use crate::transport::{CloseReason, Transport, TransportError};

/// `Shared::reader` while the reader task reads; request ids start at 1.
pub(super) const READER_TASK: u64 = 0;

impl Shared {
    fn lock_reading(&self) -> MutexGuard<'_, Option<Waker>> {
        // Holds only the reader task's waker: usable whatever a panic left in it.
        self.reading.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether a request that is alone may read its own answer: the transport can be polled.
    pub(super) fn callers_may_read(&self) -> bool {
        self.pollable.load(Ordering::Relaxed)
    }

    /// One poll of the transport by the reader task: `Pending` while a request reads in its
    /// place; `Ready(None)` when the next message must come from [`Transport::receive`].
    fn poll_as_reader_task(
        &self,
        cx: &mut Context<'_>,
        fast: &dyn FastPath,
    ) -> Poll<Option<Result<Bytes, TransportError>>> {
        let mut waker = self.lock_reading();
        // Kept whoever reads: a request that takes over replaces the task's wake-ups by its own,
        // and wakes it with this when it hands reading back.
        match &mut *waker {
            Some(waker) => waker.clone_from(cx.waker()),
            None => *waker = Some(cx.waker().clone()),
        }
        if self.reader.load(Ordering::Relaxed) != READER_TASK {
            return Poll::Pending;
        }
        if !self.callers_may_read() {
            return Poll::Ready(None);
        }
        let polled = fast.poll_receive(cx);
        if matches!(polled, Poll::Ready(None)) {
            self.pollable.store(false, Ordering::Relaxed);
        }
        polled
    }

    /// Reads the transport for request `id`, alone in flight, until its answer comes: `Some`
    /// with the answer and its pending entry (never sent through the entry's channel, whose
    /// wake-up would be one more hand-over). `None` when it cannot or no longer reads; its
    /// outcome then comes through its channel, from the reader task. `reads` records that it
    /// took over, which it does at most once.
    pub(super) fn poll_own_answer(
        self: &Arc<Self>,
        cx: &mut Context<'_>,
        fast: &dyn FastPath,
        id: u64,
        reads: &mut bool,
    ) -> Poll<Option<(Bytes, Pending)>> {
        loop {
            let polled = {
                let _reading = self.lock_reading();
                let reader = self.reader.load(Ordering::Relaxed);
                if reader != id {
                    if reader != READER_TASK || *reads || !self.callers_may_read() {
                        return Poll::Ready(None);
                    }
                    // Taken under the table's lock: a request added after this sees who reads
                    // (and hands reading back); one added before is seen here.
                    let state = self.lock_state();
                    if state.pending.len() != 1 {
                        return Poll::Ready(None);
                    }
                    self.reader.store(id, Ordering::Relaxed);
                    drop(state);
                    *reads = true;
                }
                fast.poll_receive(cx)
            };
            match polled {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Ok(message))) => {
                    if let Some(answer) = self.dispatch(&message, Some(id)) {
                        return Poll::Ready(Some(answer));
                    }
                }
                Poll::Ready(Some(Err(TransportError::MessageSkipped {
                    limit,
                    size,
                    id: of,
                }))) => {
                    self.skipped(of.as_deref(), limit, size);
                    if !self.lock_state().pending.contains_key(&id) {
                        // It was this request's answer: it failed, through its channel.
                        self.stop_reading(Some(id));
                        return Poll::Ready(None);
                    }
                }
                Poll::Ready(Some(Err(error))) => {
                    self.stop_reading(Some(id));
                    self.mark_closed(CloseReason::new(error));
                    return Poll::Ready(None);
                }
                Poll::Ready(None) => {
                    self.pollable.store(false, Ordering::Relaxed);
                    self.stop_reading(Some(id));
                    return Poll::Ready(None);
                }
            }
        }
    }

    /// Hands reading back to the reader task and wakes it: from request `id` only if it reads
    /// (`Some`), or from whichever request reads (`None`: a second request came).
    pub(super) fn stop_reading(&self, id: Option<u64>) {
        let waker = {
            let mut waker = self.lock_reading();
            let reader = self.reader.load(Ordering::Relaxed);
            if reader == READER_TASK || id.is_some_and(|id| id != reader) {
                return;
            }
            self.reader.store(READER_TASK, Ordering::Relaxed);
            waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Whether a request reads in the reader task's place. Asked by a request just added to the
    /// table, it sees any request that took over before (that happens under the table's lock).
    pub(super) fn a_request_reads(&self) -> bool {
        self.reader.load(Ordering::Relaxed) != READER_TASK
    }
}

/// The reader task: reads every message no request reads for itself, until the transport dies.
/// Over a transport without shortcuts no request ever reads for itself, and the task only
/// receives.
pub(super) async fn read_loop(shared: Arc<Shared>, link: Link) {
    let transport: &dyn Transport = &*link.transport;
    loop {
        let polled = match link.fast.as_deref() {
            Some(fast) => poll_fn(|cx| shared.poll_as_reader_task(cx, fast)).await,
            None => None,
        };
        let next = match polled {
            Some(next) => next,
            None => transport.receive().await,
        };
        match next {
            Ok(message) => {
                shared.dispatch(&message, None);
            }
            Err(TransportError::MessageSkipped { limit, size, id }) => {
                shared.skipped(id.as_deref(), limit, size);
            }
            Err(error) => {
                shared.mark_closed(CloseReason::new(error));
                return;
            }
        }
    }
}
