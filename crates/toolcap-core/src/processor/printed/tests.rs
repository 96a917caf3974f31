//! Commands read into "prints lines A-B of file F", and those refused.

use super::*;
use serde_json::json;

fn p(cmd: &str) -> Option<(String, Option<usize>, Option<usize>, bool)> {
    parse_command(cmd).map(|f| (f.path, f.first, f.last, f.numbered))
}

fn some(
    path: &str,
    first: Option<usize>,
    last: Option<usize>,
    numbered: bool,
) -> Option<(String, Option<usize>, Option<usize>, bool)> {
    Some((path.to_string(), first, last, numbered))
}

#[test]
fn sed_ranges() {
    assert_eq!(
        p("sed -n '120,180p' src/a.py"),
        some("src/a.py", Some(120), Some(180), false)
    );
    assert_eq!(
        p("sed -n 120,180p a.py"),
        some("a.py", Some(120), Some(180), false)
    );
    assert_eq!(
        p("sed -n '120,+10p' a.py"),
        some("a.py", Some(120), Some(130), false)
    );
    assert_eq!(
        p("sed -n '120,$p' a.py"),
        some("a.py", Some(120), None, false)
    );
    assert_eq!(p("sed -n '7p' a.py"), some("a.py", Some(7), Some(7), false));
    assert_eq!(
        p("sed -n '9,3p' a.py"),
        some("a.py", Some(9), Some(9), false)
    );
    assert_eq!(
        p("sed --quiet -e '1,5p' -- a.py"),
        some("a.py", Some(1), Some(5), false)
    );
    assert_eq!(
        p("sed -n \"1,5p\" 'my file.py'"),
        some("my file.py", Some(1), Some(5), false)
    );
    assert_eq!(
        p("  /usr/bin/sed -n '1,5p' a.py  "),
        some("a.py", Some(1), Some(5), false)
    );
    assert_eq!(
        parse_command("sed -n '1,5p'  a.py ").map(|f| f.command),
        Some("sed -n '1,5p'  a.py".to_string())
    );
}

#[test]
fn sed_refusals() {
    for c in [
        "sed -n '99999999999999999999,5p' a.py", // past any file
        "sed -n '4294967296p' a.py",
        "sed '1,5p' a.py",           // no -n: every line printed, some twice
        "sed -n '1,5p' a.py b.py",   // several files
        "sed -n '1,5p'",             // stdin
        "sed -n '1,5p' -",           // stdin
        "sed -n '0,5p' a.py",        // GNU's 0,/re/ address
        "sed -n '/def/,/^$/p' a.py", // a regex address
        "sed -n '1,5p;9q' a.py",     // a script
        "sed -n '1,5d' a.py",
        "sed -i -n '1,5p' a.py",
        "sed -n -e '1p' -e '2p' a.py",
        "sed -n '1,5p' a.py | grep x", // a pipeline
        "sed -n '1,5p' a.py > out",    // a redirection
        "sed -n '1,5p' a.py 2>&1",
        "sed -n '1,5p' a.py; ls",
        "sed -n '1,5p' a.py && ls",
        "sed -n '1,5p' $F",
        "sed -n '1,5p' \"$F\"",
        "sed -n '1,5p' *.py",
        "sed -n '1,5p' ~/a.py",
        "sed -n '1,5p' $(ls)",
        "LC_ALL=C sed -n '1,5p' a.py",
        "sed -n '1,5p' a.py\nls",
        "sed -n '1,5p' 'a.py",
    ] {
        assert_eq!(p(c), None, "{c}");
    }
}

#[test]
fn head_tail_cat_nl() {
    assert_eq!(p("head -n 80 a.rs"), some("a.rs", Some(1), Some(80), false));
    assert_eq!(p("head -n80 a.rs"), some("a.rs", Some(1), Some(80), false));
    assert_eq!(p("head -80 a.rs"), some("a.rs", Some(1), Some(80), false));
    assert_eq!(
        p("head --lines=80 a.rs"),
        some("a.rs", Some(1), Some(80), false)
    );
    assert_eq!(p("head a.rs"), some("a.rs", Some(1), Some(10), false));
    assert_eq!(p("tail -n +200 a.rs"), some("a.rs", Some(200), None, false));
    assert_eq!(p("tail -n 50 a.rs"), some("a.rs", None, None, false));
    assert_eq!(p("tail -50 a.rs"), some("a.rs", None, None, false));
    assert_eq!(
        p("tail --lines=+3 a.rs"),
        some("a.rs", Some(3), None, false)
    );
    assert_eq!(p("cat a.rs"), some("a.rs", Some(1), None, false));
    assert_eq!(p("cat -- -a.rs"), some("-a.rs", Some(1), None, false));
    assert_eq!(p("cat -n a.rs"), some("a.rs", Some(1), None, true));
    assert_eq!(p("nl a.rs"), some("a.rs", Some(1), None, true));
    assert_eq!(p("nl -ba -w 4 a.rs"), some("a.rs", Some(1), None, true));
    for c in [
        "head -c 100 a.rs",
        "head -n -5 a.rs",
        "head -n 5 a.rs b.rs",
        "tail -f a.log",
        "tail -n 5 -f a.log",
        "tail -c 100 a.rs",
        "cat a.rs b.rs",
        "cat -A a.rs",
        "cat -v a.rs",
        "cat",
        "nl -s: a.rs",
        "nl -d ab a.rs",
        "less a.rs",
        "cat a.rs # comment",
    ] {
        assert_eq!(p(c), None, "{c}");
    }
}

#[test]
fn awk_ranges() {
    assert_eq!(
        p("awk 'NR>=10 && NR<=20' a.py"),
        some("a.py", Some(10), Some(20), false)
    );
    assert_eq!(
        p("awk 'NR<=20&&NR>=10' a.py"),
        some("a.py", Some(10), Some(20), false)
    );
    assert_eq!(
        p("awk 'NR>9 && NR<21 {print}' a.py"),
        some("a.py", Some(10), Some(20), false)
    );
    assert_eq!(
        p("awk 'NR==10,NR==20 { print $0 }' a.py"),
        some("a.py", Some(10), Some(20), false)
    );
    for c in [
        "awk 'NR>=10' a.py",
        "awk 'NR>=10 || NR<=20' a.py",
        "awk 'NR>=10 && NR<=20 {print NR\": \"$0}' a.py",
        "awk '{print $1}' a.py",
        "awk 'NR>=20 && NR<=10' a.py",
        "awk -F: 'NR>=1 && NR<=2' a.py",
    ] {
        assert_eq!(p(c), None, "{c}");
    }
}

#[test]
fn harness_spellings() {
    let keys: Vec<String> = ["command", "cmd"].map(String::from).to_vec();
    let f = |v: Value| parse_args(&v, &keys).map(|f| (f.path, f.first, f.last, f.command));
    let want = Some((
        "a.py".to_string(),
        Some(3),
        Some(9),
        "sed -n '3,9p' a.py".to_string(),
    ));
    assert_eq!(f(json!({"command": "sed -n '3,9p' a.py"})), want);
    assert_eq!(f(json!({"cmd": "sed -n '3,9p' a.py"})), want);
    assert_eq!(
        f(json!({"command": ["bash", "-lc", "sed -n '3,9p' a.py"]})),
        want
    );
    assert_eq!(
        f(json!({"command": ["/bin/sh", "-c", "sed -n '3,9p' a.py"]})),
        want
    );
    assert_eq!(
        f(json!({"command": ["sed", "-n", "3,9p", "a.py"]})),
        Some((
            "a.py".to_string(),
            Some(3),
            Some(9),
            "sed -n 3,9p a.py".to_string()
        ))
    );
    assert_eq!(
        f(json!({"command": ["bash", "-lc", "sed -n '3,9p' a.py | head"]})),
        None
    );
    assert_eq!(f(json!({"command": ["python3", "-c", "print(1)"]})), None);
    assert_eq!(f(json!({"command": 3})), None);
    assert_eq!(f(json!({"script": "cat a.py"})), None);
}

#[test]
fn numbered_prints_piped_into_a_range() {
    // lines A-B of the file, numbered as the file's
    assert_eq!(
        p("nl -ba a.py | sed -n '400,700p'"),
        some("a.py", Some(400), Some(700), true)
    );
    assert_eq!(
        p("cat -n 'my a.py' | sed -n '5,+9p'"),
        some("my a.py", Some(5), Some(14), true)
    );
    assert_eq!(
        p("cat -n a.rs | head"),
        some("a.rs", Some(1), Some(10), true)
    );
    assert_eq!(
        p("cat -n a.rs | tail -n +30"),
        some("a.rs", Some(30), None, true)
    );
    assert_eq!(
        p("nl -ba a.rs | awk 'NR>=3 && NR<=9'"),
        some("a.rs", Some(3), Some(9), true)
    );
    for c in [
        "cat a.rs | head",
        "cat -n a.rs | grep fn",
        "cat -n a.rs | sed -n '5,9p' | head",
        "cat -n a.rs || sed -n '5,9p'",
        "cat -n a.rs | sed -n '5,9p' b.rs",
        "cat -n a.rs | sed '5,9p'",
        "cat -n a.rs | tail -n 5",
        "sed -n '5,9p' a.rs | cat -n",
    ] {
        assert_eq!(p(c), None, "{c}");
    }
}
