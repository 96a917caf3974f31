// A consumer of the package's types, checked by `tsc --strict` (test/types.test.js).
// Every line here must type-check; the @ts-expect-error lines must not.
import * as fs from 'node:fs';
import { Readable } from 'node:stream';
import {
  ConfigError,
  MemoryStore,
  PostgresStore,
  ReplyErrorKind,
  StoppedBy,
  Processed,
  ProcessedJson,
  Reason,
  SqliteStore,
  StoreError,
  ToolReply,
  ToolResultProcessor,
  ToolcapError,
  languages,
  outline,
  outlineAsync,
  toolDefinitions,
  version,
} from 'toolcap';

const store: MemoryStore = new MemoryStore({ limitBytes: 1 << 20 });
const processor = new ToolResultProcessor({ store, dialog: 'd1', save: 'cut', config: { max_kept_chars: 2000 } });

const out: Processed = processor.process('read_file', fs.readFileSync(__filename), { path: 'consumer.ts' }, 'call_1');
const reason: Reason = out.reason;
const cut: boolean = reason === 'cut' || reason === 'under_threshold';
const firstOmitted: number | undefined = out.omitted.ranges[0]?.start_line;
const lang: string | null = out.language;
const kinds: string[] = out.outline ? out.outline.symbols.map((s) => `${s.kind}:${s.name}@${s.line}-${s.end_line}`) : [];
const json: ProcessedJson = out.toJSON();
const stored = out.stored ? `${out.stored.tool_call_id}@${out.stored.offset}` : 'not stored';
const text: string = `${out}`;

async function later(): Promise<void> {
  const a: Processed = await processor.processAsync('shell', Buffer.from('x\n'), { command: 'ls' });
  const r: ToolReply = await processor.getContinuationAsync('call_1', { startLine: 1, endLine: 5 });
  const offset: number | null = r.nextOffset;
  const e: 'not_stored' | 'expired' | 'past_end' | 'bad_argument' | 'store_failed' | null = r.error;
  const d: ToolReply | null = processor.dispatch('get_continuation', '{"tool_call_id": "call_1"}');
  const o = await outlineAsync('def f():\n    pass\n', { language: 'python' });
  const streamed: Processed = await processor.processStream('shell', fs.createReadStream('build.log'), { command: 'make' }, 'call_2');
  const fromChild: Processed = await processor.processStream('shell', Readable.from([Buffer.from('a\n'), 'b\n']));
  const q: ToolReply = processor.queryToolOutput('call_1', '.packages[0].name');
  const qa: ToolReply = await new PostgresStore('postgres://u@h/db').queryToolOutputAsync('call_1', '.a', { dialog: 'd1' });
  const why: ReplyErrorKind | null = q.error;
  const stop: StoppedBy | null = o.stopped_by;
  void [a, offset, e, d, o, streamed, fromChild, qa, why, stop];
}

const defs = toolDefinitions('openai');
const names: string[] = defs.map((d) => d.function.name);
const anthropic = processor.toolDefinitions('anthropic');
const schemas = anthropic.map((d) => d.input_schema);
const sqlite = new SqliteStore('/tmp/x.db', { createDirs: true });
const path: string = sqlite.path;
const meta = sqlite.meta('call_1');
const size: number | undefined = meta?.size_chars;
const o = outline('fn main() {}\n', { path: 'main.rs' });
const sym = o.symbols[0];
const depth: number | undefined = sym?.depth;
const bestEffort: number[] = (o.best_effort ?? []).map((s) => s.end - s.start + 1);
const langs: string[] = languages().map((l) => l.name);
const history = processor.prepareMessages([{ role: 'user', content: 'hi' }], true);
const masked = processor.prepareMessages([{ type: 'function_call_output', call_id: 'c1', output: 'x' }], { keep_results: 3, format: 'openai_responses' });

try {
  new ToolResultProcessor({ config: 'thresholds.toml' });
} catch (err) {
  if (err instanceof ConfigError || err instanceof StoreError) {
    const m: string = err.message;
    const base: ToolcapError = err;
    void [m, base];
  }
}

// @ts-expect-error: reason is a union of literals
const badReason: Reason = 'truncated';
// @ts-expect-error: save is 'cut' | 'all'
new ToolResultProcessor({ save: 'sometimes' });
// @ts-expect-error: the format is 'openai' | 'anthropic'
toolDefinitions('gemini');
// @ts-expect-error: a result is text or bytes
processor.process('read_file', 42);
// @ts-expect-error: processStream reads a stream, not a whole string
void processor.processStream('shell', 'whole text');
// @ts-expect-error: the report's fields are the CLI's snake_case ones
void out.keptBudget;

void [cut, firstOmitted, lang, kinds, json, stored, text, later, names, schemas, path, size, depth, bestEffort, langs, history, masked, version, badReason];
