//! The bounded queue between a request's handler (and its reporters) and the stream that
//! writes the request's notifications: many senders, one receiver.
//!
//! Hand-written instead of tokio's bounded `mpsc`, which allocates a 32-slot block and its
//! semaphore up front for every request with a stream: this one is a lock around a deque that
//! grows only while messages wait, cheaper per SSE call and smaller per open listen stream
//! (BENCHMARKS.md, "Notification queue").

use bytes::Bytes;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

struct Shared {
    state: Mutex<State>,
    capacity: usize,
}

struct State {
    items: VecDeque<Bytes>,
    /// The receiver's waker, while it waits.
    waker: Option<Waker>,
    /// Senders alive.
    senders: usize,
    /// The receiver is gone.
    closed: bool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing in the critical sections can panic half-way through a change.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Why a message was not queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// `capacity` messages are waiting already.
    Full,
    /// The receiver is gone.
    Closed,
}

/// The sending half (cloned for each reporter).
pub(crate) struct Sender(Arc<Shared>);

/// The receiving half.
pub(crate) struct Receiver(Arc<Shared>);

/// A queue holding at most `capacity` messages (at least one).
pub(crate) fn queue(capacity: usize) -> (Sender, Receiver) {
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            items: VecDeque::new(),
            waker: None,
            senders: 1,
            closed: false,
        }),
        capacity: capacity.max(1),
    });
    (Sender(shared.clone()), Receiver(shared))
}

impl Sender {
    /// Whether a message would be refused now, and why.
    pub(crate) fn refuses(&self) -> Option<Refused> {
        let state = self.0.lock();
        if state.closed {
            Some(Refused::Closed)
        } else if state.items.len() >= self.0.capacity {
            Some(Refused::Full)
        } else {
            None
        }
    }

    /// Queues `message` unless the queue is full or the receiver is gone.
    pub(crate) fn try_send(&self, message: Bytes) -> Result<(), Refused> {
        let waker = {
            let mut state = self.0.lock();
            if state.closed {
                return Err(Refused::Closed);
            }
            if state.items.len() >= self.0.capacity {
                return Err(Refused::Full);
            }
            state.items.push_back(message);
            state.waker.take()
        };
        // Woken outside the lock.
        if let Some(waker) = waker {
            waker.wake();
        }
        Ok(())
    }
}

impl Clone for Sender {
    fn clone(&self) -> Self {
        self.0.lock().senders += 1;
        Sender(self.0.clone())
    }
}

impl Drop for Sender {
    fn drop(&mut self) {
        let waker = {
            let mut state = self.0.lock();
            state.senders -= 1;
            match state.senders {
                0 => state.waker.take(),
                _ => None,
            }
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl std::fmt::Debug for Sender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sender").finish_non_exhaustive()
    }
}

impl Receiver {
    /// The next message; `None` once every sender is gone and nothing waits.
    pub(crate) fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        let mut state = self.0.lock();
        if let Some(message) = state.items.pop_front() {
            return Poll::Ready(Some(message));
        }
        if state.senders == 0 {
            return Poll::Ready(None);
        }
        match &mut state.waker {
            Some(w) if w.will_wake(cx.waker()) => {}
            slot => *slot = Some(cx.waker().clone()),
        }
        Poll::Pending
    }

    /// The next message, if one waits.
    pub(crate) fn try_recv(&mut self) -> Option<Bytes> {
        self.0.lock().items.pop_front()
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let mut state = self.0.lock();
        state.closed = true;
        state.items.clear();
    }
}

impl std::fmt::Debug for Receiver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Receiver").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Wake;

    struct Count(AtomicUsize);
    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn holds_at_most_its_capacity_and_wakes_the_receiver() {
        let (tx, mut rx) = queue(2);
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(count.clone());
        let mut cx = Context::from_waker(&waker);
        assert!(rx.poll_recv(&mut cx).is_pending());
        tx.try_send(Bytes::from_static(b"a")).unwrap();
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        tx.try_send(Bytes::from_static(b"b")).unwrap();
        assert_eq!(tx.refuses(), Some(Refused::Full));
        assert_eq!(tx.try_send(Bytes::from_static(b"c")), Err(Refused::Full));
        assert_eq!(
            rx.poll_recv(&mut cx),
            Poll::Ready(Some(Bytes::from_static(b"a")))
        );
        assert_eq!(rx.try_recv(), Some(Bytes::from_static(b"b")));
        assert_eq!(rx.try_recv(), None);
        let other = tx.clone();
        drop(tx);
        assert!(rx.poll_recv(&mut cx).is_pending());
        drop(other);
        assert_eq!(rx.poll_recv(&mut cx), Poll::Ready(None));
    }

    #[test]
    fn a_gone_receiver_refuses_everything() {
        let (tx, rx) = queue(4);
        drop(rx);
        assert_eq!(tx.refuses(), Some(Refused::Closed));
        assert_eq!(tx.try_send(Bytes::new()), Err(Refused::Closed));
    }
}
