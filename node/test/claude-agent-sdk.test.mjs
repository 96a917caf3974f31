// toolcap/claude-agent-sdk with the real Claude Agent SDK (`@anthropic-ai/claude-agent-sdk`,
// which spawns its own Claude Code) against the scripted model server of
// tests/agents/anthropic_server.py, offline. The example of docs/agents.md ("The Claude
// Agent SDK") runs as written, three ways: with toolcap, without (`withToolcap` taken
// out), and with the toolcap program removed once the options were made. The model's
// calls: `seq 1 20000`, an `rm` the project's settings deny, a whole-file Read, a
// failing command, and the recovery command the view's marker implies.

import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { REPO, cliPath } = require('./helpers.js');
const { binaryPath } = require('../platform.js');

const PKG = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SERVER = path.join(REPO, 'tests', 'agents', 'anthropic_server.py');
const STDLIB = '/root/.pyenv/versions/3.11.7/lib/python3.11';
const INSPECT = fs.existsSync(path.join(STDLIB, 'inspect.py'))
  ? path.join(STDLIB, 'inspect.py')
  : path.join(REPO, 'fixtures', 'read_file', 'typing.py');

/** The ```js block of docs/agents.md's Claude Agent SDK section. */
function example() {
  const doc = fs.readFileSync(path.join(REPO, 'docs', 'agents.md'), 'utf8');
  const section = doc.split(/^## /m).find((s) => s.startsWith('The Claude Agent SDK'));
  assert.ok(section, 'docs/agents.md has no "## The Claude Agent SDK" section');
  const m = section.match(/^```js\n([\s\S]*?)^```$/m);
  assert.ok(m, 'no ```js block in the Claude Agent SDK section');
  return m[1];
}

/** Start the scripted server; resolves to { url, turns(), stop() }. */
function startServer(dir, calls) {
  const script = path.join(dir, 'script.json');
  const record = path.join(dir, 'record.json');
  fs.writeFileSync(script, JSON.stringify(calls));
  const child = spawn('python3', [SERVER, script, record], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.stdout.once('data', (d) =>
      resolve({
        url: `http://127.0.0.1:${String(d).trim()}`,
        turns: () => (fs.existsSync(record) ? JSON.parse(fs.readFileSync(record, 'utf8')) : []),
        stop: () => child.kill(),
      }),
    );
  });
}

/** Run `code` (an ES module) from inside the package with cwd `project`; { status, stdout, stderr }. */
function runModule(code, name, project, env) {
  const tmp = path.join(PKG, 'test', '.sdk-tmp');
  fs.mkdirSync(tmp, { recursive: true });
  const file = path.join(tmp, `${name}-${process.pid}.mjs`);
  fs.writeFileSync(file, code);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => err.push(d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      fs.rmSync(file, { force: true });
      resolve({ status, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() });
    });
  });
}

/** One run of the example in a fresh project and home: the tool results the model got. */
async function drive(t, name, code, { program } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolcap-sdk-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const home = path.join(dir, 'home');
  const project = path.join(dir, 'project');
  fs.mkdirSync(path.join(project, '.claude'), { recursive: true });
  fs.mkdirSync(home);
  fs.writeFileSync(path.join(project, 'victim.txt'), 'keep me\n');
  fs.copyFileSync(INSPECT, path.join(project, 'inspect.py'));
  // the user's own rule: the SDK loads the project's settings (settingSources' default)
  fs.writeFileSync(path.join(project, '.claude', 'settings.json'), JSON.stringify({ permissions: { deny: ['Bash(rm:*)'] } }));
  const calls = [
    { name: 'Bash', input: { command: 'seq 1 20000', description: 'count' } },
    { name: 'Bash', input: { command: 'rm -f victim.txt; echo removed', description: 'remove' } },
    { name: 'Read', input: { file_path: path.join(project, 'inspect.py') } },
    { name: 'Bash', input: { command: 'echo hi; echo err >&2; exit 3', description: 'fail' } },
    { name: 'Bash', input: { command: `${cliPath()} continue toolu_sdk_0 --start-line 5 --end-line 7`, description: 'more' } },
  ];
  const server = await startServer(dir, calls);
  t.after(() => server.stop());
  const env = { ...process.env };
  for (const k of Object.keys(env)) {
    if (/^(XDG_|TOOLCAP_|CLAUDE|ANTHROPIC_)/.test(k) && k !== 'TOOLCAP_BINARY') delete env[k];
  }
  Object.assign(env, {
    HOME: home,
    PWD: project,
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: 'sk-sdk',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  });
  if (program) env.TOOLCAP_BINARY = program;
  const run = await runModule(code, name, project, env);
  assert.equal(run.status, 0, `${name}: the example exited ${run.status}\n${run.stdout}\n${run.stderr}`);
  const turns = server.turns();
  const results = turns.at(-1) ?? [];
  assert.equal(results.length, calls.length, `${name}: the model got ${results.length} results\n${run.stderr}`);
  return { results, kept: fs.existsSync(path.join(project, 'victim.txt')), stdout: run.stdout };
}

const PERSISTED = '<persisted-output>';

test('the Claude Agent SDK example: toolcap caps Bash and Read, rules and failures as without it, fails open', { timeout: 900_000 }, async (t) => {
  const code = example();
  assert.match(code, /withToolcap\(/);
  const without = await drive(t, 'without', code.replace(/withToolcap\(/g, '((o) => o)('));
  const withTc = await drive(t, 'with', code);
  // the program gone after the options were made: the prefix script and the hooks step aside
  const gone = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'toolcap-gone-')), 'toolcap');
  fs.copyFileSync(binaryPath(), gone);
  fs.chmodSync(gone, 0o755);
  const removed = code.replace(/^(const options = .*\n)/m, `$1(await import('node:fs')).rmSync(process.env.TOOLCAP_BINARY);\n`);
  assert.notEqual(removed, code, 'the example makes `const options = ...` on one line');
  const failOpen = await drive(t, 'fail-open', removed, { program: gone });
  assert.ok(!fs.existsSync(gone));

  const [seqW, rmW, readW, failW] = without.results;
  const [seq, rm, read, fail, more] = withTc.results;
  // Bash: Claude Code alone keeps a 2 KB preview; toolcap's view has the way back
  assert.ok(seqW.includes(PERSISTED), seqW.slice(0, 300));
  assert.ok(!seq.includes(PERSISTED), seq.slice(0, 300));
  assert.ok(seq.length <= 3500, `view of ${seq.length} chars`);
  assert.match(seq, /--- Recovery Options ---/);
  assert.match(seq, /toolcap\S* continue toolu_sdk_0 --start-line \d+ --end-line \d+/);
  assert.match(seq, /108,894 chars/);
  assert.ok(seq.includes('\n20000'), 'the last line is kept');
  // the recovery command reads the stored output: exactly those lines
  assert.equal(more.trim(), '5\n6\n7');
  // the deny rule decided as without toolcap: the same text, the file kept
  assert.equal(rm, rmW);
  assert.match(rm, /denied/);
  assert.ok(without.kept && withTc.kept && failOpen.kept);
  // Read of a whole file: capped after it ran (Claude Code alone sends it all)
  assert.ok(read.length < 5000 && readW.length > 100_000, `Read: ${read.length} chars with toolcap, ${readW.length} without`);
  const first = fs.readFileSync(INSPECT, 'utf8').split('\n')[0];
  assert.ok(read.startsWith(`1\t${first}\n`), read.slice(0, 200));
  // a failing command: the same result
  assert.equal(fail, failW);
  assert.match(fail, /Exit code 3/);
  // fail-open: every result as without toolcap (the persisted file's path aside)
  const [seqF, rmF, readF, failF] = failOpen.results;
  const noPath = (s) => s.replace(/\/\S+\/tool-results\/\S+/g, 'PATH');
  assert.equal(noPath(seqF), noPath(seqW));
  assert.equal(rmF, rmW);
  assert.equal(readF, readW);
  assert.equal(failF, failW);
  // the example's own output: the result message's text
  assert.match(withTc.stdout, /done/);
});

test('withToolcap without a runnable toolcap gives the options back as they were', async (t) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'toolcap-sdk-home-'));
  t.after(() => fs.rmSync(home, { recursive: true, force: true }));
  const env = { PATH: process.env.PATH, HOME: home };
  const options = { allowedTools: ['Bash'], env };
  return import('toolcap/claude-agent-sdk').then(({ withToolcap }) => {
    assert.equal(withToolcap(options, { toolcap: '/nonexistent/toolcap' }), options);
    const made = withToolcap({ allowedTools: ['Bash'], env, hooks: { PostToolUse: [{ matcher: 'Write', hooks: [] }] } });
    assert.ok(made.env.CLAUDE_CODE_SHELL_PREFIX.startsWith(path.join(home, '.local', 'state', 'toolcap', 'agents')));
    assert.equal(env.CLAUDE_CODE_SHELL_PREFIX, undefined, 'the given env is not changed');
    assert.match(made.env.CLAUDE_CODE_SHELL_PREFIX, /claude-code-shell-prefix-sdk-/);
    assert.deepEqual(made.hooks.PostToolUse.map((m) => m.matcher), ['Write', 'mcp__.*|Read|Grep']);
    assert.deepEqual(made.hooks.PreToolUse.map((m) => m.matcher), ['Bash']);
    assert.deepEqual(made.allowedTools, ['Bash']);
  });
});
