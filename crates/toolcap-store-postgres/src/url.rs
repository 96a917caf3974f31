//! PostgreSQL URLs: recognising one, completing it into a client [`Config`], and
//! showing it without its password.

use std::str::FromStr;
use std::time::Duration;

use postgres::Config;
use postgres::config::Host;

use super::error::{bad_url, chain};
use toolcap_store::StoreError;

/// How long connecting may take, unless the URL sets `connect_timeout`.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Whether `spec` is meant as a PostgreSQL URL: it starts with `postgres:` or
/// `postgresql:` (any case).
pub fn is_postgres_url(spec: &str) -> bool {
    let lower = spec.get(..11).unwrap_or(spec).to_ascii_lowercase();
    lower.starts_with("postgres:") || lower.starts_with("postgresql:")
}

/// `url` with its password (in the user part or a `password=` parameter) replaced by
/// `***`, for messages and logs. Works on malformed URLs too.
pub fn redact_url(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return redact_query(url);
    };
    let (scheme, rest) = url.split_at(scheme_end);
    let auth_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (auth, tail) = rest.split_at(auth_end);
    let auth = match auth.rfind('@') {
        Some(at) => {
            let (userinfo, host) = auth.split_at(at);
            match userinfo.find(':') {
                Some(colon) => format!("{}:***{host}", &userinfo[..colon]),
                None => auth.to_string(),
            }
        }
        None => auth.to_string(),
    };
    format!("{scheme}{auth}{}", redact_query(tail))
}

fn redact_query(s: &str) -> String {
    let Some(q) = s.find('?') else {
        return s.to_string();
    };
    let (head, query) = s.split_at(q + 1);
    let parts: Vec<String> = query
        .split('&')
        .map(|p| match p.split_once('=') {
            Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=***"),
            _ => p.to_string(),
        })
        .collect();
    format!("{head}{}", parts.join("&"))
}

/// Parse and complete a PostgreSQL URL: a host is required; `connect_timeout`
/// defaults to 10 s, `application_name` to `toolcap`, and the password to
/// `$PGPASSWORD` when the URL has none.
pub(super) fn parse_config(url: &str) -> Result<(Config, String), StoreError> {
    let shown = redact_url(url);
    if !url.contains("://") {
        return Err(bad_url(&shown, "not a URL (no `://`)"));
    }
    let mut config =
        Config::from_str(url).map_err(|e| bad_url(&shown, chain(&e)).with_source(e))?;
    if config.get_hosts().is_empty() && config.get_hostaddrs().is_empty() {
        return Err(bad_url(&shown, "it names no host"));
    }
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    if config.get_application_name().is_none() {
        config.application_name("toolcap");
    }
    if config.get_password().is_none()
        && let Some(pw) = std::env::var_os("PGPASSWORD").filter(|p| !p.is_empty())
    {
        config.password(pw.as_encoded_bytes());
    }
    Ok((config, shown))
}

/// Check `url` (a PostgreSQL URL) without connecting: the error names what to fix.
pub fn check_url(url: &str) -> Result<(), StoreError> {
    parse_config(url).map(drop)
}

/// `host:port` of the first server a config names.
pub(super) fn server_of(config: &Config) -> String {
    let port = config.get_ports().first().copied().unwrap_or(5432);
    match config.get_hosts().first() {
        Some(Host::Tcp(h)) if h.contains(':') => format!("[{h}]:{port}"),
        Some(Host::Tcp(h)) => format!("{h}:{port}"),
        Some(Host::Unix(dir)) => format!("{}/.s.PGSQL.{port}", dir.display()),
        None => match config.get_hostaddrs().first() {
            Some(a) => format!("{a}:{port}"),
            None => format!("?:{port}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolcap_store::StoreErrorKind;

    #[test]
    fn passwords_never_show() {
        assert_eq!(
            redact_url("postgres://tc:s3cr%40t@db.example:5433/results"),
            "postgres://tc:***@db.example:5433/results"
        );
        assert_eq!(
            redact_url("postgresql://tc@db/results?password=x&sslmode=disable"),
            "postgresql://tc@db/results?password=***&sslmode=disable"
        );
        // a malformed one too: everything up to the last @ before the path is the user part
        assert_eq!(
            redact_url("postgres://a:b@c@host:99999/db"),
            "postgres://a:***@host:99999/db"
        );
        assert_eq!(redact_url("postgres://host/db"), "postgres://host/db");
    }

    #[test]
    fn urls_are_recognised_by_their_scheme() {
        assert!(is_postgres_url("postgres://h/db"));
        assert!(is_postgres_url("PostgreSQL://h/db"));
        assert!(is_postgres_url("postgres:h"));
        assert!(!is_postgres_url("results.db"));
        assert!(!is_postgres_url("./postgres/results.db"));
        assert!(!is_postgres_url("pg"));
    }

    #[test]
    fn malformed_urls_name_the_fix_without_the_password() {
        let e = check_url("postgres://tc:pw@db:notaport/x").unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, StoreError::BadLocation { .. }));
        assert_eq!(e.kind(), StoreErrorKind::BadLocation);
        assert!(
            std::error::Error::source(&e).is_some(),
            "the parser's error is kept"
        );
        assert!(
            msg.starts_with("postgres://tc:***@db:notaport/x: "),
            "{msg}"
        );
        assert!(!msg.contains("pw@"), "{msg}");
        assert!(msg.contains("fix: write it as postgres://USER"), "{msg}");
        let e = check_url("postgres:///results").unwrap_err();
        assert!(e.to_string().contains("it names no host"), "{e}");
        let e = check_url("postgres:db").unwrap_err();
        assert!(e.to_string().contains("not a URL"), "{e}");
        assert!(check_url("postgres://tc@127.0.0.1:5432/results").is_ok());
        assert!(check_url("postgresql://tc@%2Ftmp%2Fpg/results").is_ok());
    }

    #[test]
    fn the_server_is_named_as_host_and_port() {
        let (c, _) = parse_config("postgres://u@db.internal/x").unwrap();
        assert_eq!(server_of(&c), "db.internal:5432");
        let (c, _) = parse_config("postgres://u@[::1]:6000/x").unwrap();
        assert_eq!(server_of(&c), "[::1]:6000");
        let (c, _) = parse_config("postgres://u@%2Ftmp%2Fpg:5433/x").unwrap();
        assert_eq!(server_of(&c), "/tmp/pg/.s.PGSQL.5433");
    }
}
