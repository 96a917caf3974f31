// `toolcap --version` of the wheel's command names the commit too: the root crate's
// build script (the command line compiled in from ../src/cli reads TOOLCAP_VERSION).
include!("../build.rs");
