fn main() -> std::process::ExitCode {
    ticklab::cli::main()
}
