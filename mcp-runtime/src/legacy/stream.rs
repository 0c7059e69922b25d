//! One legacy SSE stream's events, kept apart from the connection that carries them: a request
//! on a 2025-11-25 session runs on whether or not its client is still connected, writes what it
//! sends here, and a client that reconnects (`GET` with `Last-Event-ID`) reads on from where it
//! was cut off.

use bytes::Bytes;
use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Instant;
use tokio::sync::watch;

/// Events kept per stream for a client to resume from; older ones are dropped (a client that
/// reconnects later than that misses them).
const KEPT: usize = 256;

/// The events of one stream, numbered from 1.
#[derive(Debug)]
pub(crate) struct StreamLog {
    /// The stream's number within its session (the first half of each event id).
    pub(crate) id: u64,
    events: Mutex<Kept>,
    state: watch::Sender<Progress>,
}

#[derive(Debug, Default)]
struct Kept {
    events: VecDeque<(u64, Bytes)>,
    finished_at: Option<Instant>,
}

/// What readers wait on: the last event's number, whether the stream has ended, and how many
/// times the server cut its connection (readers end when that changes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Progress {
    pub(crate) last: u64,
    pub(crate) finished: bool,
    pub(crate) cuts: u32,
}

/// What a reader gets next.
pub(crate) enum Next {
    /// Events after its cursor.
    Events(Vec<(u64, Bytes)>),
    /// Nothing more will come.
    End,
    /// The server cut this connection: end it, the client may resume.
    Cut,
}

impl StreamLog {
    pub(crate) fn new(id: u64) -> Self {
        StreamLog {
            id,
            events: Mutex::new(Kept::default()),
            state: watch::channel(Progress::default()).0,
        }
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.events.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Appends one message.
    pub(crate) fn push(&self, message: Bytes) {
        self.append(Some(message), false);
    }

    /// Appends the last message, and ends the stream: readers see both at once (one that
    /// waits for the first message, [`only_message`](Self::only_message), tells a stream of
    /// one message from one with more).
    pub(crate) fn finish(&self, last: Option<Bytes>) {
        self.append(last, true);
    }

    fn append(&self, message: Option<Bytes>, finish: bool) {
        let mut kept = self.kept();
        if kept.finished_at.is_some() {
            return;
        }
        let mut seq = self.state.borrow().last;
        if let Some(message) = message {
            seq += 1;
            kept.events.push_back((seq, message));
            if kept.events.len() > KEPT {
                kept.events.pop_front();
            }
        }
        if finish {
            kept.finished_at = Some(Instant::now());
        }
        drop(kept);
        self.state.send_modify(|p| {
            p.last = seq;
            p.finished |= finish;
        });
    }

    /// Waits for the stream's first message: `Some` when the stream ended with it alone (a
    /// request's response, nothing streamed before it), `None` when something came before its
    /// end, it ended with nothing, or the server cut it (the client is to resume it).
    pub(crate) async fn only_message(&self) -> Option<Bytes> {
        let mut state = self.state.subscribe();
        loop {
            let now = *state.borrow_and_update();
            if now.cuts > 0 {
                return None;
            }
            if now.last > 0 || now.finished {
                if !(now.finished && now.last == 1) {
                    return None;
                }
                return self.kept().events.front().map(|(_, m)| m.clone());
            }
            if state.changed().await.is_err() {
                return None;
            }
        }
    }

    /// Ends the connections reading it now; the stream itself goes on.
    pub(crate) fn cut(&self) {
        self.state.send_modify(|p| p.cuts += 1);
    }

    /// When it ended, if it has.
    pub(crate) fn finished_at(&self) -> Option<Instant> {
        self.kept().finished_at
    }

    /// A reader starting after event `after` (0: from the start).
    pub(crate) fn reader(&self, after: u64) -> Reader {
        let state = self.state.subscribe();
        let cuts = state.borrow().cuts;
        Reader {
            cursor: after,
            state,
            cuts: Some(cuts),
        }
    }

    fn after(&self, cursor: u64) -> Vec<(u64, Bytes)> {
        self.kept()
            .events
            .iter()
            .filter(|(seq, _)| *seq > cursor)
            .cloned()
            .collect()
    }
}

/// One connection's place in a [`StreamLog`].
pub(crate) struct Reader {
    cursor: u64,
    state: watch::Receiver<Progress>,
    /// The cuts seen when it started; `None`: it reads on through cuts (no connection to cut).
    cuts: Option<u32>,
}

impl Reader {
    /// This reader reads on when the stream is cut (stdio has no connection to close).
    pub(crate) fn through_cuts(mut self) -> Self {
        self.cuts = None;
        self
    }

    /// Waits for what comes after the cursor.
    pub(crate) async fn next(&mut self, log: &StreamLog) -> Next {
        loop {
            let now = *self.state.borrow_and_update();
            if self.cuts.is_some_and(|cuts| cuts != now.cuts) {
                return Next::Cut;
            }
            if now.last > self.cursor {
                let events = log.after(self.cursor);
                if let Some((seq, _)) = events.last() {
                    self.cursor = *seq;
                    return Next::Events(events);
                }
                self.cursor = now.last;
            }
            if now.finished {
                return Next::End;
            }
            if self.state.changed().await.is_err() {
                return Next::End;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_reader_resumes_after_its_last_event() {
        let log = StreamLog::new(1);
        log.push(Bytes::from_static(b"a"));
        log.push(Bytes::from_static(b"b"));
        let mut first = log.reader(0);
        let Next::Events(events) = first.next(&log).await else {
            panic!("events")
        };
        assert_eq!(events.len(), 2);
        log.cut();
        assert!(matches!(first.next(&log).await, Next::Cut));
        log.finish(Some(Bytes::from_static(b"c")));
        let mut resumed = log.reader(1);
        let Next::Events(events) = resumed.next(&log).await else {
            panic!("events")
        };
        assert_eq!(
            events.iter().map(|(s, _)| *s).collect::<Vec<_>>(),
            vec![2, 3]
        );
        assert!(matches!(resumed.next(&log).await, Next::End));
    }

    #[tokio::test]
    async fn a_stream_of_its_response_alone_is_told_from_one_with_more() {
        let log = std::sync::Arc::new(StreamLog::new(1));
        let waiting = tokio::spawn({
            let log = log.clone();
            async move { log.only_message().await }
        });
        tokio::task::yield_now().await;
        log.finish(Some(Bytes::from_static(b"response")));
        assert_eq!(waiting.await.unwrap().as_deref(), Some(&b"response"[..]));

        let log = StreamLog::new(2);
        log.push(Bytes::from_static(b"progress"));
        log.finish(Some(Bytes::from_static(b"response")));
        assert_eq!(log.only_message().await, None);

        let cancelled = StreamLog::new(3);
        cancelled.finish(None);
        assert_eq!(cancelled.only_message().await, None);
    }
}
