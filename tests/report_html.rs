//! `toolcap report --html`: the page over project stores filled by the real
//! `toolcap run` (`seq 1 20000`, typing.py, and a real mdBook HTML page with its
//! own `<script src>`, `<link href>` and inline scripts, which the page must show
//! as text), a suggestion followed as printed. The page's figures must be
//! `toolcap gain --json`'s (all stores) and `toolcap stats --json`'s (one
//! project); nothing on it may load from anywhere; and headless Chromium
//! (Debian's `chromium`) must render it without a network request, with the
//! figures in its DOM and a screenshot that is not blank. Without chromium the
//! Chromium test skips with a message, and fails under CI=true.
#![cfg(feature = "sqlite")]

use std::io::ErrorKind;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

struct World {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    p1: PathBuf,
    p2: PathBuf,
}

fn world() -> World {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let (p1, p2) = (root.join("alpha"), root.join("beta"));
    for p in [&p1, &p2] {
        std::fs::create_dir_all(p.join(".git")).unwrap();
    }
    std::fs::create_dir_all(root.join("home")).unwrap();
    World {
        root,
        p1,
        p2,
        _tmp: tmp,
    }
}

fn fixture(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(rel)
        .display()
        .to_string()
}

impl World {
    fn cmd(&self, program: impl AsRef<std::ffi::OsStr>, dir: &Path) -> Command {
        let mut c = Command::new(program);
        c.current_dir(dir)
            .env("XDG_STATE_HOME", self.root.join("state"))
            .env("HOME", self.root.join("home"))
            .env_remove("XDG_DATA_HOME")
            .env_remove("CODEX_HOME")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("TOOLCAP_STORE")
            .env_remove("TOOLCAP_CONFIG")
            .env_remove("TOOLCAP_DIALOG");
        c
    }

    fn toolcap(&self, dir: &Path, args: &[&str]) -> Output {
        let out = self
            .cmd(env!("CARGO_BIN_EXE_toolcap"), dir)
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "toolcap {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    fn json(&self, dir: &Path, args: &[&str]) -> Value {
        serde_json::from_slice(&self.toolcap(dir, args).stdout).unwrap()
    }

    /// `toolcap report --html FILE EXTRA...` run in `dir`: the page.
    fn report(&self, dir: &Path, extra: &[&str]) -> (PathBuf, String) {
        let file = self.root.join(format!("report-{}.html", extra.len()));
        let path = file.display().to_string();
        let mut args = vec!["report", "--html", &path];
        args.extend_from_slice(extra);
        self.toolcap(dir, &args);
        let text = std::fs::read_to_string(&file).unwrap();
        (file, text)
    }
}

/// The first `toolcap continue ...` command an output suggests.
fn suggested_continue(out: &str) -> String {
    let line = out
        .lines()
        .find(|l| l.contains("shell(command=\"") && l.contains(" continue "))
        .unwrap_or_else(|| panic!("no continue suggestion in:\n{out}"));
    let start = line.find("command=\"").unwrap() + "command=\"".len();
    let end = start + line[start..].find("\")").unwrap();
    line[start..end].to_string()
}

fn fill(w: &World) {
    let seq = w.toolcap(&w.p1, &["run", "--", "seq", "1", "20000"]);
    let seq = String::from_utf8(seq.stdout).unwrap();
    let follow = w
        .cmd("sh", &w.p1)
        .args(["-c", &suggested_continue(&seq)])
        .output()
        .unwrap();
    assert!(follow.status.success(), "{follow:?}");
    let page = fixture("fixtures/web_fetch/ch08-02-strings.html");
    let html = w.toolcap(&w.p1, &["run", "--", "cat", &page]);
    assert!(String::from_utf8_lossy(&html.stdout).contains("--- Recovery Options ---"));
    let typing = fixture("fixtures/read_file/typing.py");
    w.toolcap(&w.p2, &["run", "--", "cat", &typing]);
}

/// The page's JSON block (the figures as `toolcap gain --json` prints them).
fn figures(page: &str) -> Value {
    let open = "<script type=\"application/json\" id=\"toolcap-gain\">";
    let start = page.find(open).expect("the JSON block") + open.len();
    let end = start + page[start..].find("</script>").unwrap();
    serde_json::from_str(&page[start..end]).unwrap()
}

/// `data-k="KEY" data-v="N"` of the totals' cards.
fn card(page: &str, key: &str) -> u64 {
    let totals = &page[page.find("id=\"totals\"").unwrap()..];
    let at = totals
        .find(&format!("data-k=\"{key}\" data-v=\""))
        .unwrap_or_else(|| panic!("no {key} card"));
    let rest = &totals[at + format!("data-k=\"{key}\" data-v=\"").len()..];
    rest[..rest.find('"').unwrap()].parse().unwrap()
}

const SUMMED: [&str; 7] = [
    "results_seen",
    "results_cut",
    "chars_original",
    "chars_shown",
    "chars_saved",
    "cut_asked_back",
    "calls_on_cut",
];

/// Nothing on the page is fetched: no element with a source or a link, no CSS
/// import or url(), one script (the JSON block), and a policy forbidding fetches.
fn loads_nothing(page: &str) {
    let lower = page.to_ascii_lowercase();
    for bad in [
        " src=\"", " href=\"", "<link", "<img", "<iframe", "<object", "<embed",
    ] {
        assert!(!lower.contains(bad), "the page holds {bad:?}");
    }
    let css = &lower[lower.find("<style>").unwrap()..lower.find("</style>").unwrap()];
    assert!(!css.contains("url(") && !css.contains("@import"), "{css}");
    assert_eq!(lower.matches("<script").count(), 1, "only the JSON block");
    assert!(page.contains("content=\"default-src 'none'; style-src 'unsafe-inline'\""));
    assert_eq!(lower.matches("<html").count(), 1);
}

#[test]
fn the_page_holds_gains_figures_and_loads_nothing() {
    let w = world();
    fill(&w);
    let (_, page) = w.report(&w.p1, &[]);
    let gain = w.json(&w.p1, &["gain", "--json"]);
    assert_eq!(figures(&page), gain, "the page's figures are gain's");
    for k in SUMMED.iter().chain(&["recovery_calls"]) {
        assert_eq!(card(&page, k), gain["totals"][k].as_u64().unwrap(), "{k}");
    }
    assert_eq!(
        gain["totals"]["results_cut"], 3,
        "seq, the page, typing.py: {gain}"
    );
    assert_eq!(gain["totals"]["recovery_calls"], 1, "{gain}");
    loads_nothing(&page);
    // the mdBook page's own markup is text on this page
    assert!(page.contains("&lt;script src=&quot;"), "escaped");
    // each cut result: its view beside its full output, the largest results listed
    assert_eq!(page.matches("<div class=\"pair\">").count(), 3);
    // the view beside each is the one the model was shown: as long as the record says
    for d in page.split("<details data-view-chars=\"").skip(1) {
        let (view, rest) = d.split_once('"').unwrap();
        let shown = rest.split("data-shown-chars=\"").nth(1).unwrap();
        let shown = &shown[..shown.find('"').unwrap()];
        assert_eq!(
            view, shown,
            "the replayed view's length against the record's"
        );
    }
    assert!(page.contains("the full output (the first 60,000 of 108,894 chars)"));
    assert!(
        page.contains("prints it all.</p>"),
        "the command that shows the rest"
    );
    let html = std::fs::read_to_string(fixture("fixtures/web_fetch/ch08-02-strings.html")).unwrap();
    let html_chars = toolcap_text::text::thousands(html.chars().count());
    assert!(page.contains(&format!("the full output (all {html_chars} chars)")));
    assert!(page.contains(&format!(
        "<code>cat {}</code>",
        fixture("fixtures/read_file/typing.py")
    )));
    assert!(
        page.contains("<code>get_continuation</code>"),
        "the recovery call"
    );
    // no agent logs in this home
    assert!(page.contains("No session logs of Claude Code, Codex, Gemini CLI or opencode"));
}

#[test]
fn one_projects_page_holds_its_stats() {
    let w = world();
    fill(&w);
    let (_, page) = w.report(&w.p2, &["--project", &w.p2.display().to_string()]);
    let f = figures(&page);
    assert_eq!(f["stores"], 1);
    let stats = w.json(&w.p2, &["stats", "--json"]);
    let tools = stats["tools"].as_array().unwrap();
    for k in SUMMED {
        let sum: u64 = tools.iter().map(|t| t[k].as_u64().unwrap()).sum();
        assert_eq!(f["totals"][k], sum, "{k}");
        assert_eq!(card(&page, k), sum, "{k}");
    }
    assert_eq!(f["totals"]["results_cut"], 1, "typing.py only");
    assert!(!page.contains("seq 1 20000"), "the other project's command");
    // nothing recorded since a time to come: the page says so
    let (_, empty) = w.report(&w.p2, &["--since", "2999-01-01", "--project", "."]);
    assert_eq!(figures(&empty)["totals"]["results_seen"], 0);
    assert!(empty.contains("Nothing recorded yet."));
}

#[test]
fn a_bad_argument_is_named() {
    let w = world();
    let out = w
        .cmd(env!("CARGO_BIN_EXE_toolcap"), &w.p1)
        .args(["report", "--html", "/nonexistent-dir/r.html"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--html /nonexistent-dir/r.html"), "{err}");
    let out = w
        .cmd(env!("CARGO_BIN_EXE_toolcap"), &w.p1)
        .args(["report", "--html", "x.html", "--since", "soon"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--since \"soon\""));
}

/// Debian's `chromium`, or `None` after skipping (failing under CI=true).
fn chromium() -> Option<PathBuf> {
    let found = ["chromium", "chromium-browser"].iter().find_map(|b| {
        std::env::var_os("PATH").and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(b))
                .find(|c| c.is_file())
        })
    });
    if found.is_none() {
        let why = "headless Chromium test: no chromium on PATH (apt-get install -y --no-install-recommends chromium; scripts/test.sh installs it)";
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{why}");
        eprintln!("skipping: {why}");
    }
    found
}

/// Chromium's own traffic, made for a blank page too (network time, account and
/// search services): hosts under these domains.
const CHROMIUM_OWN: [&str; 4] = ["google.com", "googleapis.com", "gstatic.com", "gvt1.com"];

/// The host a proxy request line names (`GET http://h/p HTTP/1.1`, `CONNECT h:443 ...`).
fn host(request: &str) -> String {
    let target = request.split_whitespace().nth(1).unwrap_or("");
    let t = target.split_once("://").map_or(target, |(_, r)| r);
    t.split(['/', ':'])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// Chromium headless on `page` with `args`, its proxy a listener here that
/// records every request: none may be for anything but Chromium's own services
/// (the page itself asks for nothing).
fn render(bin: &Path, page: &Path, args: &[&str]) -> Output {
    use std::io::Read;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};

    let proxy = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = proxy.local_addr().unwrap().port();
    proxy.set_nonblocking(true).unwrap();
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let (log, halt) = (seen.clone(), stop.clone());
    let listener = std::thread::spawn(move || {
        while !halt.load(Ordering::SeqCst) {
            match proxy.accept() {
                Ok((mut c, _)) => {
                    let _ = c.set_nonblocking(false);
                    let _ = c.set_read_timeout(Some(std::time::Duration::from_secs(2)));
                    let mut buf = [0u8; 1024];
                    let n = c.read(&mut buf).unwrap_or(0);
                    let line = String::from_utf8_lossy(&buf[..n]);
                    log.lock()
                        .unwrap()
                        .push(line.lines().next().unwrap_or("").to_string());
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                Err(_) => break,
            }
        }
    });
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-default-apps",
            "--no-first-run",
            "--disable-extensions",
        ])
        .arg(format!("--proxy-server=http://127.0.0.1:{port}"))
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .env("HOME", profile.path())
        .output()
        .unwrap();
    stop.store(true, Ordering::SeqCst);
    listener.join().unwrap();
    for request in seen.lock().unwrap().iter() {
        let h = host(request);
        assert!(
            CHROMIUM_OWN
                .iter()
                .any(|d| h == *d || h.ends_with(&format!(".{d}"))),
            "the page made a network request: {request}"
        );
    }
    out
}

/// A PNG's width and height (its IHDR).
fn png_size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    let be = |i: usize| u32::from_be_bytes([png[i], png[i + 1], png[i + 2], png[i + 3]]);
    (be(16), be(20))
}

#[test]
fn chromium_renders_the_page_offline() {
    let Some(bin) = chromium() else { return };
    let w = world();
    fill(&w);
    let (file, page) = w.report(&w.p1, &[]);
    let gain = figures(&page);
    let dom = render(&bin, &file, &["--dump-dom"]);
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert!(
        dom.contains("<h1>toolcap report</h1>"),
        "rendered: {dom:.2000}"
    );
    let saved = gain["totals"]["chars_saved"].as_u64().unwrap();
    assert!(dom.contains(&format!("data-k=\"chars_saved\" data-v=\"{saved}\"")));
    assert!(dom.contains(&toolcap_text::text::thousands(saved as usize)));
    // the mdBook page's scripts and links stayed text: the DOM has none of them,
    // and no element that loads anything
    let lower = dom.to_ascii_lowercase();
    assert_eq!(lower.matches("<script").count(), 1, "the JSON block only");
    for bad in ["<link", "<img", "<iframe", "<object", "<embed"] {
        assert!(!lower.contains(bad), "the DOM holds {bad:?}");
    }
    // a `<` in the serialized DOM starts a tag (text holds `&lt;`): no tag has a
    // source or a link
    for tag in lower.split('<').skip(1) {
        let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
        assert!(
            !tag.contains(" src=") && !tag.contains(" href="),
            "a tag that loads: <{tag}>"
        );
    }
    assert!(lower.contains("<svg"), "the charts");
    let png = w.root.join("page.png");
    let shot = render(
        &bin,
        &file,
        &[
            &format!("--screenshot={}", png.display()),
            "--window-size=1280,2000",
        ],
    );
    let bytes = std::fs::read(&png)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&shot.stderr)));
    assert_eq!(png_size(&bytes), (1280, 2000));
    // a blank 1280x2000 page compresses to a few KB; this one has text and bars
    assert!(bytes.len() > 60_000, "{} bytes", bytes.len());
    if let Some(dir) = std::env::var_os("TOOLCAP_REPORT_SHOT") {
        std::fs::copy(&png, Path::new(&dir).join("report.png")).unwrap();
    }
}

#[test]
fn proxy_requests_name_their_host() {
    assert_eq!(
        host("GET http://clients2.google.com/time/1 HTTP/1.1"),
        "clients2.google.com"
    );
    assert_eq!(
        host("CONNECT www.google.com:443 HTTP/1.1"),
        "www.google.com"
    );
}

/// `toolcap serve` answers `GET /report` with the same page over the served
/// store: its figures are that store's `toolcap stats --json`, and the response
/// forbids fetches too.
#[cfg(feature = "server")]
#[test]
fn serve_answers_the_report() {
    use std::io::{BufRead, BufReader};

    let w = world();
    fill(&w);
    let gain = w.json(&w.p1, &["gain", "--json"]);
    let store = gain["projects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["project"] == w.p1.display().to_string())
        .map(|p| p["store"].as_str().unwrap().to_string())
        .expect("alpha's store");
    let mut child = w
        .cmd(env!("CARGO_BIN_EXE_toolcap"), &w.p1)
        .args(["serve", "--listen", "127.0.0.1:0", "--store", &store])
        .env_remove("TOOLCAP_TOKEN")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    let addr = loop {
        line.clear();
        assert!(err.read_line(&mut line).unwrap() > 0, "serve exited");
        if let Some(rest) = line.split("listening on http://").nth(1) {
            break rest.split_whitespace().next().unwrap().parse().unwrap();
        }
    };
    let resp = crate::serve_support::get(addr, "/report", None);
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(resp.status, 200, "{}", resp.excerpt());
    assert_eq!(
        resp.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert_eq!(
        resp.header("content-security-policy"),
        Some("default-src 'none'; style-src 'unsafe-inline'")
    );
    let page = String::from_utf8(resp.body).unwrap();
    loads_nothing(&page);
    let f = figures(&page);
    let stats = w.json(&w.p1, &["stats", "--json", "--store", &store]);
    let tools = stats["tools"].as_array().unwrap();
    for k in SUMMED {
        let sum: u64 = tools.iter().map(|t| t[k].as_u64().unwrap()).sum();
        assert_eq!(f["totals"][k], sum, "{k}");
    }
    assert_eq!(f["totals"]["results_cut"], 2, "seq and the HTML page");
    assert!(page.contains("&lt;script src=&quot;"), "escaped");
}
