//! An echo service written against turmoil's network types, as a turmoil user writes it
//! ([`echo`]). The crate depends on ticklab under turmoil's name, so the code is unchanged:
//! `turmoil::net::TcpListener` is ticklab's, and its tests run it on hosts with clocks of their
//! own (`tests/`). A test also includes the same source on turmoil itself, and compares.

pub mod echo;
