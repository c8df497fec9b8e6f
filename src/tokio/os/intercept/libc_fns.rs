//! libc's own clock, sleep and thread functions, which ticklab's definitions hand a call on to:
//! each is looked up once with `dlsym(RTLD_NEXT)`, the next definition after this program's, and
//! kept in an atomic, so that every later call costs one relaxed load before the jump to libc.

#![allow(unsafe_code)]

use std::ffi::{CStr, c_int, c_uint, c_void};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};

use libc::{clockid_t, time_t, timespec, timeval};

use crate::tokio::os::answer;

pub(super) type ClockGettime = unsafe extern "C" fn(clockid_t, *mut timespec) -> c_int;
pub(super) type Gettimeofday = unsafe extern "C" fn(*mut timeval, *mut c_void) -> c_int;
pub(super) type Time = unsafe extern "C" fn(*mut time_t) -> time_t;
pub(super) type SleepSeconds = unsafe extern "C" fn(c_uint) -> c_uint;
pub(super) type Usleep = unsafe extern "C" fn(libc::useconds_t) -> c_int;
pub(super) type TimespecGet = unsafe extern "C" fn(*mut timespec, c_int) -> c_int;
pub(super) type Nanosleep = unsafe extern "C" fn(*const timespec, *mut timespec) -> c_int;
pub(super) type ClockNanosleep =
    unsafe extern "C" fn(clockid_t, c_int, *const timespec, *mut timespec) -> c_int;
pub(super) type EpollWait =
    unsafe extern "C" fn(c_int, *mut libc::epoll_event, c_int, c_int) -> c_int;
pub(super) type StartRoutine = extern "C" fn(*mut c_void) -> *mut c_void;
pub(super) type PthreadCreate = unsafe extern "C" fn(
    *mut libc::pthread_t,
    *const libc::pthread_attr_t,
    StartRoutine,
    *mut c_void,
) -> c_int;

/// libc's function named `name`, of type `F`, once looked up.
#[derive(Debug)]
pub(super) struct Libc<F> {
    /// The function's address; 0 until the first call looks it up.
    address: AtomicUsize,
    name: &'static CStr,
    function: PhantomData<F>,
}

impl<F: Copy> Libc<F> {
    /// # Safety
    ///
    /// `F` is the function pointer type of libc's function named `name`.
    pub(super) const unsafe fn new(name: &'static CStr) -> Libc<F> {
        assert!(
            size_of::<F>() == size_of::<usize>(),
            "F is a function pointer"
        );
        Libc {
            address: AtomicUsize::new(0),
            name,
            function: PhantomData,
        }
    }

    /// libc's function once a call has looked it up, as every call but the first few finds it;
    /// the caller looks it up with [`Libc::get`] otherwise, out of the way of the calls after.
    /// Relaxed is enough: the address is of code that the dynamic linker mapped and relocated
    /// before this program's first instruction, and nothing else is published through it; two
    /// threads that look it up at once store the same address.
    #[inline(always)]
    pub(super) fn looked_up(&self) -> Option<F> {
        let address = self.address.load(Ordering::Relaxed);
        // SAFETY: a non-zero `address` is libc's function named `self.name`, whose type `F` is
        // (as `new`'s caller promised).
        (address != 0).then(|| unsafe { std::mem::transmute_copy::<usize, F>(&address) })
    }

    /// libc's function, looked up now if no call has yet.
    pub(super) fn get(&self) -> F {
        match self.looked_up() {
            Some(function) => function,
            None => {
                let address = self.look_up();
                // SAFETY: as in `looked_up`; `look_up` returns no zero.
                unsafe { std::mem::transmute_copy::<usize, F>(&address) }
            }
        }
    }

    /// The first call's look-up.
    #[cold]
    fn look_up(&self) -> usize {
        // SAFETY: `name` is NUL-terminated and RTLD_NEXT is a valid pseudo-handle.
        let address = unsafe { libc::dlsym(libc::RTLD_NEXT, self.name.as_ptr()) } as usize;
        if address == 0 {
            // Without libc's function there is no clock at all; carrying on would give garbage.
            answer::fatal(&format!(
                "libc's {} cannot be found with dlsym(RTLD_NEXT)",
                self.name.to_string_lossy()
            ));
        }
        self.address.store(address, Ordering::Relaxed);
        address
    }
}

// SAFETY (each): the type named is that of libc's function of that name, as glibc declares it.
pub(super) static CLOCK_GETTIME: Libc<ClockGettime> = unsafe { Libc::new(c"clock_gettime") };
pub(super) static GETTIMEOFDAY: Libc<Gettimeofday> = unsafe { Libc::new(c"gettimeofday") };
pub(super) static TIME: Libc<Time> = unsafe { Libc::new(c"time") };
pub(super) static NANOSLEEP: Libc<Nanosleep> = unsafe { Libc::new(c"nanosleep") };
pub(super) static SLEEP: Libc<SleepSeconds> = unsafe { Libc::new(c"sleep") };
pub(super) static USLEEP: Libc<Usleep> = unsafe { Libc::new(c"usleep") };
pub(super) static TIMESPEC_GET: Libc<TimespecGet> = unsafe { Libc::new(c"timespec_get") };
pub(super) static CLOCK_NANOSLEEP: Libc<ClockNanosleep> = unsafe { Libc::new(c"clock_nanosleep") };
pub(super) static EPOLL_WAIT: Libc<EpollWait> = unsafe { Libc::new(c"epoll_wait") };
pub(super) static PTHREAD_CREATE: Libc<PthreadCreate> = unsafe { Libc::new(c"pthread_create") };
