#!/usr/bin/env node
'use strict';
// `toolcap` for npm: runs this platform's `toolcap` binary (the platform package's,
// or a checkout's build: platform.js) with the same arguments, stdin, stdout and
// stderr, and exits as it exited: its exit code, or the signal that ended it.

const { spawn } = require('node:child_process');
const os = require('node:os');
const { binaryPath } = require('../platform.js');

let bin;
try {
  bin = binaryPath();
} catch (e) {
  process.stderr.write(`${e.message}\n`);
  process.exit(1);
}

// A terminal's Ctrl-C (and a kill of the process group) reaches the child directly;
// a signal sent to this process alone is passed on. Either way the child decides
// when to exit, and this process follows. (The handlers are in place before the
// child starts: a signal in between would end this process and leave the child.)
let child = null;
const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];
const handlers = new Map();
for (const sig of forwarded) {
  const h = () => {
    try {
      if (child) child.kill(sig);
    } catch {
      // already gone
    }
  };
  handlers.set(sig, h);
  process.on(sig, h);
}

child = spawn(bin, process.argv.slice(2), { stdio: 'inherit', windowsHide: false });

child.on('error', (e) => {
  process.stderr.write(`toolcap: cannot run ${bin}: ${e.message}\n`);
  process.exit(1);
});

child.on('exit', (code, signal) => {
  for (const [sig, h] of handlers) process.removeListener(sig, h);
  if (signal) {
    // end the same way, so the caller sees the signal (a shell's 128+N)
    process.kill(process.pid, signal);
    // (a signal Node ignores, SIGPIPE: the shell's code for it)
    process.exit(128 + (os.constants.signals[signal] || 0));
  }
  process.exit(code === null ? 1 : code);
});
