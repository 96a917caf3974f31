use axum::http::StatusCode;

use super::api::{bearer_credentials, paging, same_secret};
use super::*;

#[test]
fn remote_addresses_need_the_flag_and_a_long_token() {
    let local: SocketAddr = "127.0.0.1:7878".parse().unwrap();
    let any: SocketAddr = "0.0.0.0:7878".parse().unwrap();
    let token = "0123456789abcdef";
    assert!(check_bind(local, false, None).is_ok());
    assert!(check_bind("[::1]:7878".parse().unwrap(), false, None).is_ok());
    let e = check_bind(any, false, Some(token)).unwrap_err();
    assert!(e.0.contains("needs --allow-remote"), "{e}");
    let e = check_bind(any, true, None).unwrap_err();
    assert!(e.0.contains("set TOOLCAP_TOKEN"), "{e}");
    assert!(check_bind(any, true, Some(token)).is_ok());
    let e = check_bind(local, false, Some("short")).unwrap_err();
    assert!(e.0.contains("is 5 characters long; use at least 16"), "{e}");
}

#[test]
fn paging_refuses_what_it_cannot_honour() {
    assert_eq!(paging(None, 10, 100, "x").ok(), Some((0, 10)));
    assert_eq!(
        paging(Some("offset=5&limit=7"), 10, 100, "x").ok(),
        Some((5, 7))
    );
    for bad in [
        "limit=0",
        "limit=101",
        "offset=-1",
        "offset=1.5",
        "page=2",
        "limit=+5",
        "offset=+0",
        "limit=",
        "limit= 5",
    ] {
        let e = paging(Some(bad), 10, 100, "x").unwrap_err();
        assert_eq!(e.status, StatusCode::BAD_REQUEST, "{bad}");
    }
}

#[test]
fn the_bearer_scheme_is_case_insensitive() {
    for ok in ["Bearer abc", "bearer abc", "BEARER  abc ", "bEaReR\tabc"] {
        assert_eq!(bearer_credentials(ok), Some("abc"), "{ok:?}");
    }
    for bad in ["Basic abc", "Bearerabc", "Bearer ", "abc"] {
        assert_eq!(bearer_credentials(bad), None, "{bad:?}");
    }
}

#[test]
fn secrets_compare_whole() {
    assert!(same_secret(b"abc", b"abc"));
    assert!(!same_secret(b"abc", b"abd"));
    assert!(!same_secret(b"abc", b"abcd"));
}
