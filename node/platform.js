'use strict';
// Where this platform's native files are: the addon (`toolcap.<platform>.node`) that
// index.js loads and the `toolcap` binary that bin/toolcap.js runs.
//
// A published install has them in the platform package npm picked from the main
// package's optionalDependencies (`toolcap-linux-x64-gnu`, ...: the napi-rs way, see
// scripts/pack.js); a build from a checkout (scripts/build.js) puts them beside this
// file (`toolcap.<platform>.node`, `bin/toolcap-<platform>`). The build beside wins,
// so a checkout's fresh build is what its tests load.

const fs = require('node:fs');
const path = require('node:path');

/** The platform package's name is this prefix and platformName(). */
const PACKAGE_PREFIX = 'toolcap-';

/** napi-rs's name for this platform: linux-x64-gnu, linux-arm64-musl, darwin-arm64, win32-x64-msvc, ... */
function platformName() {
  const { platform, arch } = process;
  if (platform === 'linux') {
    const report = process.report && typeof process.report.getReport === 'function' ? process.report.getReport() : null;
    const glibc = report && report.header && report.header.glibcVersionRuntime;
    return `linux-${arch}-${glibc ? 'gnu' : 'musl'}`;
  }
  if (platform === 'win32') return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

/** The installed platform package's directory, or null. */
function platformPackageDir(name = platformName()) {
  try {
    return path.dirname(require.resolve(`${PACKAGE_PREFIX}${name}/package.json`));
  } catch {
    return null;
  }
}

function exe(name) {
  return process.platform === 'win32' ? `${name}.exe` : name;
}

/** Where the addon and the binary may be, in the order they are looked for. */
function candidates() {
  const name = platformName();
  const pkg = platformPackageDir(name);
  return {
    name,
    pkg: `${PACKAGE_PREFIX}${name}`,
    addon: [path.join(__dirname, `toolcap.${name}.node`), pkg && path.join(pkg, `toolcap.${name}.node`)].filter(Boolean),
    binary: [path.join(__dirname, 'bin', exe(`toolcap-${name}`)), pkg && path.join(pkg, exe('toolcap'))].filter(Boolean),
  };
}

/** Why nothing was found, and the fix. */
function missing(what, env, tried, pkg, name) {
  return (
    `toolcap: no ${what} for ${name}: looked at ${tried.join(', ')}. ` +
    `npm installs it with the platform package ${pkg} (an optional dependency of toolcap: ` +
    'an install with --omit=optional or --no-optional leaves it out; reinstall without it). ' +
    'From a checkout of the repository, `npm install --install-links ./node` builds it (needs Rust, https://rustup.rs); ' +
    `${env} names a file to use instead.`
  );
}

/** The addon file to load: $TOOLCAP_NODE_ADDON, else the first candidate that exists; throws when none does. */
function addonPath() {
  if (process.env.TOOLCAP_NODE_ADDON) return process.env.TOOLCAP_NODE_ADDON;
  const c = candidates();
  const found = c.addon.find((f) => fs.existsSync(f));
  if (!found) throw new Error(missing('native addon', '$TOOLCAP_NODE_ADDON', c.addon, c.pkg, c.name));
  return found;
}

/** The `toolcap` binary to run: $TOOLCAP_BINARY, else the first candidate that exists; throws when none does. */
function binaryPath() {
  if (process.env.TOOLCAP_BINARY) return process.env.TOOLCAP_BINARY;
  const c = candidates();
  const found = c.binary.find((f) => fs.existsSync(f));
  if (!found) throw new Error(missing('toolcap binary', '$TOOLCAP_BINARY', c.binary, c.pkg, c.name));
  return found;
}

module.exports = { PACKAGE_PREFIX, platformName, platformPackageDir, addonPath, binaryPath, exe };
