//! The figures of starting a process: `fork`, a vfork-style `clone` and `posix_spawn`, each timed
//! until the call returns in the parent. Reaping the child is not timed.

use std::io;
use std::ptr;
use std::time::Instant;

use indicatif::ProgressBar;

use super::stats::Samples;

/// The child's stack for the vfork-style clone; it only calls `_exit`.
const CHILD_STACK_BYTES: usize = 64 * 1024;

fn elapsed_ns(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// `fork()`, whose child exits at once.
pub(super) fn fork(runs: u64, bar: &ProgressBar) -> io::Result<Samples> {
    let mut samples = Samples::new();
    for _ in 0..runs {
        let start = Instant::now();
        // SAFETY: the child only calls _exit, which is async-signal-safe, so it never touches a
        // lock or allocator state that another thread of ours held at the fork.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            // SAFETY: _exit ends the child at once, running none of the parent's destructors or
            // exit handlers.
            unsafe { libc::_exit(0) };
        }
        let ns = elapsed_ns(start);
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        reap(pid)?;
        samples.record(ns);
        bar.inc(1);
    }
    Ok(samples)
}

extern "C" fn exit_at_once(_: *mut libc::c_void) -> libc::c_int {
    // SAFETY: _exit is async-signal-safe and ends the child without touching the memory it shares
    // with the parent.
    unsafe { libc::_exit(0) }
}

/// `clone(CLONE_VM | CLONE_VFORK | SIGCHLD)`, as Go and glibc's posix_spawn start processes: the
/// child shares the parent's memory, so nothing is copied, and the parent waits until it exits.
pub(super) fn vfork(runs: u64, bar: &ProgressBar) -> io::Result<Samples> {
    // u128s, so that the stack's top is 16-byte aligned as the ABIs want. The parent is suspended
    // while the child runs, so one stack serves every run.
    let mut stack = vec![0u128; CHILD_STACK_BYTES / size_of::<u128>()];
    let top = stack.as_mut_ptr_range().end.cast::<libc::c_void>();
    let mut samples = Samples::new();
    for _ in 0..runs {
        let start = Instant::now();
        // SAFETY: `top` is the end of a live, writable stack that only the child uses, while the
        // parent is suspended; the child function only calls _exit.
        let pid = unsafe {
            libc::clone(
                exit_at_once,
                top,
                libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
                ptr::null_mut(),
            )
        };
        let ns = elapsed_ns(start);
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        reap(pid)?;
        samples.record(ns);
        bar.inc(1);
    }
    Ok(samples)
}

/// `posix_spawn` of `/bin/true`, with an empty environment.
pub(super) fn posix_spawn(runs: u64, bar: &ProgressBar) -> io::Result<Samples> {
    let program = c"/bin/true";
    let argv = [c"true".as_ptr().cast_mut(), ptr::null_mut()];
    let envp = [ptr::null_mut()];
    let mut samples = Samples::new();
    for _ in 0..runs {
        let mut pid: libc::pid_t = 0;
        let start = Instant::now();
        // SAFETY: the path, argv and envp are NUL-terminated, null-terminated arrays that outlive
        // the call, which does not write through them; null file actions and attributes ask for
        // the defaults.
        let error = unsafe {
            libc::posix_spawn(
                &mut pid,
                program.as_ptr(),
                ptr::null(),
                ptr::null(),
                argv.as_ptr(),
                envp.as_ptr(),
            )
        };
        let ns = elapsed_ns(start);
        if error != 0 {
            let error = io::Error::from_raw_os_error(error);
            return Err(io::Error::new(error.kind(), format!("/bin/true: {error}")));
        }
        reap(pid)?;
        samples.record(ns);
        bar.inc(1);
    }
    Ok(samples)
}

/// Waits for the child `pid` and checks that it exited with status 0.
fn reap(pid: libc::pid_t) -> io::Result<()> {
    let mut status: libc::c_int = 0;
    loop {
        // SAFETY: `status` is a valid, writable int, and `pid` is a child of ours not yet reaped.
        let reaped = unsafe { libc::waitpid(pid, &mut status, 0) };
        if reaped == pid {
            break;
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
    if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "child {pid} ended with wait status {status}"
        )))
    }
}
