//! The floor: the least work a client can do for the bench's exchanges — post the very
//! request bodies clawloop sent with a blocking HTTP/1.1 client on `std::net` and read the
//! responses' bytes. It uses only `std`, so the bench compiles this file on its own with
//! `rustc -O` into a tiny binary (it is also a module of xtask, where it is tested).
//!
//! Usage: `bench-floor HOST:PORT PATH BODY_FILE [READ_FILE BODY_FILE]…`: each body is posted
//! in turn; before each later body the client reads READ_FILE, as a `read` tool would.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::process::ExitCode;

/// Posts `body` to `path` at `addr` and returns the whole response (head and body) once the
/// server closes the connection (the scripted server answers with `connection: close`).
pub fn exchange(addr: &str, path: &str, body: &[u8]) -> io::Result<Vec<u8>> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_nodelay(true)?;
    let head = format!(
        "POST {path} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n\
         accept: text/event-stream\r\nauthorization: Bearer floor-key\r\n\
         content-length: {}\r\n\r\n",
        body.len()
    );
    let mut request = head.into_bytes();
    request.extend_from_slice(body);
    stream.write_all(&request)?;
    let mut response = Vec::with_capacity(64 * 1024);
    stream.read_to_end(&mut response)?;
    Ok(response)
}

/// Runs the exchanges the arguments name; returns the total response bytes.
pub fn run(args: &[String]) -> io::Result<usize> {
    let usage = || {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "usage: bench-floor HOST:PORT PATH BODY_FILE [READ_FILE BODY_FILE]...",
        )
    };
    let (addr, rest) = args.split_first().ok_or_else(usage)?;
    let (path, rest) = rest.split_first().ok_or_else(usage)?;
    let (first, rest) = rest.split_first().ok_or_else(usage)?;
    if rest.len() % 2 != 0 {
        return Err(usage());
    }
    let mut total = exchange(addr, path, &std::fs::read(first)?)?.len();
    for pair in rest.chunks(2) {
        if let [read, body] = pair {
            std::fs::read(read)?;
            total += exchange(addr, path, &std::fs::read(body)?)?.len();
        }
    }
    Ok(total)
}

/// The binary's entry point.
pub fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(bytes) => {
            println!("{bytes}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("bench-floor: {e}");
            ExitCode::FAILURE
        }
    }
}
