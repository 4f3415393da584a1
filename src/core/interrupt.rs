//! Ctrl-C as a flag: the process-wide interrupt that every [`Deadline`]
//! watches.
//!
//! The CLI calls [`install`] once. The first Ctrl-C raises the flag: every
//! running engine stops at its next checkpoint (within a second), runners
//! keep what is finished and write it, and the command exits with 130. A
//! second Ctrl-C ends the process at once (exit 130), as a user expects.
//! Library callers that never call [`install`] keep the default signal
//! behaviour; they may raise the flag themselves ([`raise`]) or hand a
//! [`Deadline`] their own flag.
//!
//! [`Deadline`]: crate::core::Deadline

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// Exit code of a command stopped by Ctrl-C (128 + SIGINT).
pub const EXIT_INTERRUPTED: i32 = 130;

fn cell() -> &'static Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

/// The process-wide interrupt flag.
pub fn flag() -> Arc<AtomicBool> {
    cell().clone()
}

/// True once Ctrl-C was pressed (or [`raise`] called).
pub fn interrupted() -> bool {
    cell().load(Ordering::Relaxed)
}

/// Raises the flag, as Ctrl-C does.
pub fn raise() {
    cell().store(true, Ordering::Relaxed);
}

/// Lowers the flag (tests, or a library caller that goes on).
pub fn clear() {
    cell().store(false, Ordering::Relaxed);
}

static HOST_OWNS_SIGNALS: AtomicBool = AtomicBool::new(false);

/// Leaves SIGINT and SIGTERM to the host program (the Python interpreter,
/// whose Ctrl-C is `KeyboardInterrupt`): [`install`] does nothing from now
/// on, and the host raises the flag ([`raise`]) when it wants runs stopped.
pub fn leave_signals_to_host() {
    HOST_OWNS_SIGNALS.store(true, Ordering::SeqCst);
}

/// Installs the Ctrl-C handler (once per process; later calls do nothing).
/// The first press raises the flag, the second exits with 130. Nothing is
/// installed once [`leave_signals_to_host`] was called.
pub fn install() {
    if HOST_OWNS_SIGNALS.load(Ordering::SeqCst) {
        return;
    }
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        static PRESSES: AtomicUsize = AtomicUsize::new(0);
        let handler = || {
            if PRESSES.fetch_add(1, Ordering::SeqCst) >= 1 {
                std::process::exit(EXIT_INTERRUPTED);
            }
            raise();
            eprintln!("interrupted: finishing what is done (Ctrl-C again to quit now)");
        };
        // A handler that cannot be installed leaves the default behaviour
        // (the process ends on Ctrl-C): nothing is lost that bench's
        // append-and-flush rows do not already keep.
        let _ = ctrlc::set_handler(handler);
    });
}
