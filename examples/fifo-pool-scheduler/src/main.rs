//! ticklab's command line, with this crate's schedulers added: executor scenario files may name
//! `scheduler = "fifo-pool"` and `scheduler = "fifo-pool-lost-wake"`.

fn main() -> std::process::ExitCode {
    ticklab::cli::main_with(fifo_pool_scheduler::registry())
}
