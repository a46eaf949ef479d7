//! Whether every configured `models.providers.<id>.baseUrl` accepts a TCP connection (2 s
//! per address, all providers at once). Unreachable is only `!`: a laptop may be offline.

use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use clawloop_runner::config::Config;

use super::report::{Report, Status};

/// How long one connection attempt may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// Checks each configured base URL.
pub fn check(report: &mut Report, config: &Config) {
    let targets: Vec<(String, String)> = config
        .models
        .providers
        .iter()
        .filter_map(|(id, p)| p.base_url.clone().map(|url| (id.clone(), url)))
        .collect();
    let probes: Vec<_> = targets
        .into_iter()
        .map(|(id, url)| {
            let handle = std::thread::spawn({
                let url = url.clone();
                move || probe(&url)
            });
            (id, url, handle)
        })
        .collect();
    for (id, url, handle) in probes {
        let outcome = handle
            .join()
            .unwrap_or_else(|_| Err(Problem::Unreachable("the check stopped".to_owned())));
        match outcome {
            Ok(address) => report.add(
                Status::Pass,
                format!("provider {id}: {address} accepts connections"),
            ),
            Err(Problem::BadUrl(why)) => report.add(
                Status::Fail,
                format!("models.providers.{id}.baseUrl `{url}` {why}"),
            ),
            Err(Problem::Unreachable(why)) => report.add(
                Status::Warn,
                format!("provider {id}: cannot connect to {url} ({why}); offline?"),
            ),
        }
    }
}

/// Why a base URL could not be reached.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Problem {
    /// The URL has no usable host and port.
    BadUrl(String),
    /// The lookup or the connection failed.
    Unreachable(String),
}

/// Connects to the URL's host and port; the `host:port` reached.
fn probe(url: &str) -> Result<String, Problem> {
    let (host, port) = host_port(url)?;
    let addresses = (host.as_str(), port)
        .to_socket_addrs()
        .map_err(|err| Problem::Unreachable(format!("cannot resolve {host}: {err}")))?;
    let mut last = format!("{host} has no address");
    for address in addresses {
        match TcpStream::connect_timeout(&address, CONNECT_TIMEOUT) {
            Ok(_) => return Ok(format!("{host}:{port}")),
            Err(err) => last = err.to_string(),
        }
    }
    Err(Problem::Unreachable(last))
}

/// The host and port of an `http://` or `https://` URL (default ports 80 and 443).
fn host_port(url: &str) -> Result<(String, u16), Problem> {
    let url = url.trim();
    let (rest, default_port) = if let Some(rest) = strip_scheme(url, "https://") {
        (rest, 443)
    } else if let Some(rest) = strip_scheme(url, "http://") {
        (rest, 80)
    } else {
        return Err(Problem::BadUrl(
            "is not an http:// or https:// URL".to_owned(),
        ));
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let authority = authority.rsplit('@').next().unwrap_or_default();
    let (host, port) = if let Some(bracketed) = authority.strip_prefix('[') {
        let (host, after) = bracketed
            .split_once(']')
            .ok_or_else(|| Problem::BadUrl("has an unclosed `[` in its host".to_owned()))?;
        (host, after.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    if host.is_empty() {
        return Err(Problem::BadUrl("has no host".to_owned()));
    }
    let port = match port {
        Some(port) => port
            .parse::<u16>()
            .map_err(|_| Problem::BadUrl(format!("has a bad port `{port}`")))?,
        None => default_port,
    };
    Ok((host.to_owned(), port))
}

fn strip_scheme<'a>(url: &'a str, scheme: &str) -> Option<&'a str> {
    url.get(..scheme.len())
        .filter(|head| head.eq_ignore_ascii_case(scheme))
        .map(|_| &url[scheme.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn hosts_and_ports_come_out_of_base_urls() {
        let ok = |host: &str, port: u16| Ok((host.to_owned(), port));
        assert_eq!(
            host_port("http://localhost:11434/v1"),
            ok("localhost", 11434)
        );
        assert_eq!(
            host_port("https://api.openai.com/v1"),
            ok("api.openai.com", 443)
        );
        assert_eq!(host_port("HTTP://u:p@h"), ok("h", 80));
        assert_eq!(host_port("http://[::1]:8080/x"), ok("::1", 8080));
        assert!(matches!(host_port("ftp://h"), Err(Problem::BadUrl(_))));
        assert!(matches!(
            host_port("http://h:99999"),
            Err(Problem::BadUrl(_))
        ));
        assert!(matches!(host_port("http:///v1"), Err(Problem::BadUrl(_))));
    }
}
