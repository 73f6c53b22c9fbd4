//! [`Cancellation`]: a runtime-free cancellation signal for one invocation.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

/// A cancellation signal shared between the caller (an MCP `notifications/cancelled`, a
/// Ctrl-C) and the invocation it may stop. Cloning shares the signal.
#[derive(Debug, Clone, Default)]
pub struct Cancellation {
    state: Arc<Mutex<State>>,
}

#[derive(Debug, Default)]
struct State {
    cancelled: bool,
    wakers: Vec<Waker>,
}

impl Cancellation {
    /// A signal that has not fired.
    pub fn new() -> Self {
        Self::default()
    }

    /// A signal that never fires (for callers that cannot cancel).
    pub fn never() -> Self {
        Self::default()
    }

    /// Fire the signal: the invocation stops at its next await point and answers
    /// `cancelled`.
    pub fn cancel(&self) {
        let wakers = {
            let mut state = self.lock();
            state.cancelled = true;
            std::mem::take(&mut state.wakers)
        };
        for waker in wakers {
            waker.wake();
        }
    }

    /// Whether the signal has fired.
    pub fn is_cancelled(&self) -> bool {
        self.lock().cancelled
    }

    /// A future that completes when the signal fires.
    pub fn cancelled(&self) -> Cancelled {
        Cancelled { signal: self.clone() }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The future returned by [`Cancellation::cancelled`].
#[derive(Debug)]
pub struct Cancelled {
    signal: Cancellation,
}

impl Future for Cancelled {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut state = self.signal.lock();
        if state.cancelled {
            return Poll::Ready(());
        }
        if !state.wakers.iter().any(|waker| waker.will_wake(cx.waker())) {
            state.wakers.push(cx.waker().clone());
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fires_once_for_every_clone() {
        let signal = Cancellation::new();
        let other = signal.clone();
        assert!(!other.is_cancelled());
        signal.cancel();
        assert!(other.is_cancelled());
        futures::executor::block_on(other.cancelled());
    }
}
