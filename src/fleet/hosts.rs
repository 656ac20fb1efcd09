//! The hosts of a fleet: `--fleet` takes a comma list (`a,b:8766,[fe80::1]:8765`) or the
//! name of a file in fio's `hosts.list` form (`host[,port]` per line; blank lines and `#`
//! comments skipped). Each host is reached by its own `fio --client` process, so a host is
//! written the way fio's `--client` takes it (`ip6:` for IPv6). Nothing here connects.

use std::path::Path;

pub use crate::model::fleet::{DEFAULT_PORT, Host};

/// More hosts than this is a typo (a file of something else), not a rack.
pub const MAX_HOSTS: usize = 1024;

/// The hosts of `--fleet`, as clap hands them over (one value, not many).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostList(pub Vec<Host>);

/// The hosts `arg` names: a file of hosts if a file by that name exists, else a comma list.
pub fn parse(arg: &str) -> Result<Vec<Host>, String> {
    let path = Path::new(arg);
    let hosts = if path.is_file() {
        let text = crate::results::file::read_bounded("--fleet", path)?;
        parse_file(&text).map_err(|e| format!("--fleet {arg}: {e}"))?
    } else {
        parse_list(arg).map_err(|e| format!("--fleet '{arg}': {e}"))?
    };
    check(hosts).map_err(|e| format!("--fleet '{arg}': {e}"))
}

/// fio's `hosts.list` form: `host[,port]` per line.
pub fn parse_file(text: &str) -> Result<Vec<Host>, String> {
    let mut hosts = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        // `[v6]`, `[v6],port` or `[v6]:port`, as the comma list takes them; else fio's form.
        let bracketed = line.strip_prefix('[').map(|rest| {
            rest.split_once(']').map(|(addr, tail)| {
                let tail = tail.trim();
                let port = tail.strip_prefix(',').or(tail.strip_prefix(':'));
                (
                    addr.trim(),
                    port.map(str::trim).or((!tail.is_empty()).then_some(tail)),
                )
            })
        });
        let (name, port) = match (bracketed, line.split_once(',')) {
            (Some(Some(b)), _) => b,
            (Some(None), _) => {
                return Err(format!("line {}: '{line}': a '[' without its ']'", n + 1));
            }
            (None, Some((h, p))) => (h.trim(), Some(p.trim())),
            (None, None) => (line, None),
        };
        let name = name
            .strip_prefix("ip:")
            .or(name.strip_prefix("ip6:"))
            .unwrap_or(name);
        hosts.push(host(name, port).map_err(|e| format!("line {}: {e}", n + 1))?);
    }
    Ok(hosts)
}

/// A comma list: `host`, `host:port`, `[v6]:port` or a bare IPv6 address.
pub fn parse_list(text: &str) -> Result<Vec<Host>, String> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|item| {
            if let Some(rest) = item.strip_prefix('[') {
                let (addr, tail) = rest
                    .split_once(']')
                    .ok_or_else(|| format!("'{item}': a '[' without its ']'"))?;
                host(addr, tail.strip_prefix(':'))
            } else if item.matches(':').count() > 1 {
                host(item, None)
            } else {
                match item.split_once(':') {
                    Some((h, p)) => host(h, Some(p)),
                    None => host(item, None),
                }
            }
        })
        .collect()
}

fn host(name: &str, port: Option<&str>) -> Result<Host, String> {
    let ok = |c: char| c.is_ascii_alphanumeric() || "-._:".contains(c);
    if name.is_empty() || !name.chars().all(ok) {
        return Err(format!(
            "'{name}' is not a host name or address (letters, digits, '-', '.', ':')"
        ));
    }
    let port = match port {
        None => DEFAULT_PORT,
        Some(p) => p
            .parse::<u16>()
            .ok()
            .filter(|&p| p > 0)
            .ok_or_else(|| format!("'{p}' is not a port (1-65535) for {name}"))?,
    };
    Ok(Host {
        name: name.to_string(),
        port,
    })
}

pub(crate) fn check(hosts: Vec<Host>) -> Result<Vec<Host>, String> {
    if hosts.is_empty() {
        return Err("no hosts in it; give host[,port] per line, or a comma list a,b,c".into());
    }
    if hosts.len() > MAX_HOSTS {
        return Err(format!("{} hosts; at most {MAX_HOSTS}", hosts.len()));
    }
    for (i, h) in hosts.iter().enumerate() {
        if hosts[..i].contains(h) {
            return Err(format!("{} is listed twice", h.label()));
        }
    }
    Ok(hosts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_and_files() {
        let l = parse_list("a, b:8766,[fe80::1]:9000,::1").unwrap();
        assert_eq!(
            l[0],
            Host {
                name: "a".into(),
                port: DEFAULT_PORT
            }
        );
        assert_eq!(l[1].port, 8766);
        assert_eq!((l[2].name.as_str(), l[2].port), ("fe80::1", 9000));
        assert_eq!(
            crate::fio::client::client_arg(&l[3].name, l[3].port),
            "ip6:::1,8765"
        );
        assert_eq!(l[1].label(), "b:8766");
        let f = parse_file("# rack 1\n10.0.0.1\n\n10.0.0.2, 8766 # spare\nip:10.0.0.3\n").unwrap();
        assert_eq!(f.len(), 3);
        assert_eq!(f[1].port, 8766);
        assert_eq!(f[2].name, "10.0.0.3");
        // IPv6 in brackets, in a file as in a list.
        let v6 = parse_file("[::1]\n[fe80::2],8766\n[fe80::3]:8767\nip6:fe80::4,8768\n").unwrap();
        let got: Vec<(&str, u16)> = v6.iter().map(|h| (h.name.as_str(), h.port)).collect();
        assert_eq!(
            got,
            [
                ("::1", 8765),
                ("fe80::2", 8766),
                ("fe80::3", 8767),
                ("fe80::4", 8768)
            ]
        );
        assert!(parse_file("[::1\n").unwrap_err().contains("line 1"));
        assert!(parse_file("[::1]x\n").unwrap_err().contains("'x'"));
    }

    #[test]
    fn bad_hosts_are_named() {
        assert!(parse_list("a:0").unwrap_err().contains("'0'"));
        assert!(parse_list("a b").unwrap_err().contains("'a b'"));
        assert!(parse_file("a\nb,x\n").unwrap_err().contains("line 2"));
        assert!(
            check(parse_list("a,a").unwrap())
                .unwrap_err()
                .contains("twice")
        );
        assert!(parse("").unwrap_err().contains("no hosts"));
    }
}
