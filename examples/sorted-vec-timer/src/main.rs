//! ticklab's command line, with this crate's design added: `check`, `run`, `sweep`, `plot` and
//! `report` all accept scenario files that name `design = "sorted-vec"`.

fn main() -> std::process::ExitCode {
    ticklab::cli::main_with(sorted_vec_timer::registry())
}
