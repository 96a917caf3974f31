'use strict';
// toolcap for Node.js: the JavaScript face of the native addon (napi-rs, src/).
//
// The addon does the work (the toolcap Rust library); this file gives it its shape:
// option objects, the `Processed` class, the typed errors, and the async forms'
// hand-over of big strings in pieces so that no step holds the event loop long.
// See docs/node.md.

const { addonPath } = require('./platform.js');

// ---------------------------------------------------------------------------
// The addon: toolcap.<platform>.node from the platform package, or next to this file
// (scripts/build.js builds it there).

function loadAddon() {
  // $TOOLCAP_NODE_ADDON, a checkout's build beside this file, or the platform
  // package's (platform.js); the error names where it looked and the fix
  return require(addonPath());
}

const native = loadAddon();

// ---------------------------------------------------------------------------
// Errors.

/** Base class of every error toolcap throws. */
class ToolcapError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = new.target.name;
  }
}
/** A configuration that cannot be used: the message names the file (or `<config object>`), the key, the problem and the fix. */
class ConfigError extends ToolcapError {}
/** A result store failure (cannot open, read or write the store), or an id that cannot be stored. */
class StoreError extends ToolcapError {}
/** The outline could not be made (grammar or query failure). */
class OutlineError extends ToolcapError {}

const ERRORS = { ToolcapError, ConfigError, StoreError, OutlineError, TypeError, RangeError };
const TAG = /^\[toolcap:(\w+)\] /;

/** The error the addon threw, as the class its tag names. */
function translate(e) {
  if (e instanceof Error && typeof e.message === 'string') {
    const m = TAG.exec(e.message);
    if (m && ERRORS[m[1]]) return new ERRORS[m[1]](e.message.slice(m[0].length));
    // napi's own argument checks (a value of the wrong type)
    if (typeof e.code === 'string' && /Expected|InvalidArg/.test(e.code)) return new TypeError(e.message);
  }
  return e;
}

function rethrow(e) {
  throw translate(e);
}

// ---------------------------------------------------------------------------
// Arguments.

function typeName(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return (v.constructor && v.constructor.name) || 'object';
  return typeof v;
}

function str(what, v) {
  if (typeof v !== 'string') throw new TypeError(`${what}: expected a string, got ${typeName(v)}`);
  return v;
}

function optStr(what, v) {
  return v === undefined || v === null ? undefined : str(what, v);
}

function optNum(what, v) {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number') throw new TypeError(`${what}: expected a number, got ${typeName(v)}`);
  return v;
}

// `process`'s context options (`contextLeft`, `contextLimit`, `contextUsed`,
// `model`), checked for type here and for sense by the native half
function contextOf(o) {
  return {
    contextLeft: optNum('contextLeft', o.contextLeft),
    contextLimit: optNum('contextLimit', o.contextLimit),
    contextUsed: optNum('contextUsed', o.contextUsed),
    model: optStr('model', o.model),
  };
}

function optBool(what, v) {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw new TypeError(`${what}: expected a boolean, got ${typeName(v)}`);
  return v;
}

function opts(what, v) {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new TypeError(`${what}: expected an options object, got ${typeName(v)}`);
  return v;
}

/** A result or source: a string, or bytes (Buffer, any typed array, DataView, ArrayBuffer). */
function input(what, v) {
  if (typeof v === 'string' || v instanceof Uint8Array) return v;
  if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  if (v instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && v instanceof SharedArrayBuffer)) {
    return new Uint8Array(v);
  }
  throw new TypeError(`${what}: expected a string or bytes (Buffer, Uint8Array, ArrayBuffer), got ${typeName(v)}`);
}

/** Tool arguments as JSON text: an object, or JSON text of one (OpenAI's `function.arguments`). */
function argsJson(what, v) {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v !== 'object' || Array.isArray(v)) {
    throw new TypeError(`${what}: expected an object (or JSON text of one), got ${typeName(v)}`);
  }
  try {
    return JSON.stringify(v);
  } catch (e) {
    throw new TypeError(`${what}: cannot be sent as JSON (${e.message}); pass plain JSON data`);
  }
}

function reply(r) {
  return {
    text: r.text,
    isError: r.isError,
    nextOffset: r.nextOffset ?? null,
    error: r.error ?? null,
  };
}

// ---------------------------------------------------------------------------
// Stores.

let nativeOf; // the addon's store behind a Store (set in Store's static block)

/** A result store (the Rust `ResultStore`): `MemoryStore`, `SqliteStore` or `PostgresStore`. */
class Store {
  #native;

  constructor(handle) {
    if (new.target === Store) throw new TypeError('Store is abstract: use new MemoryStore(), new SqliteStore(path) or new PostgresStore(url)');
    this.#native = handle;
  }

  static {
    nativeOf = (s) => s.#native;
  }

  /** `memory`, `sqlite` or `postgres`. */
  get storageType() {
    return this.#native.storageType;
  }

  /** Keep `output` under `toolCallId` (replacing an earlier one). */
  put(toolCallId, toolName, output, args, options) {
    const o = opts('options', options);
    try {
      this.#native.put(
        str('toolCallId', toolCallId),
        str('toolName', toolName),
        input('output', output),
        argsJson('args', args),
        optStr('dialog', o.dialog),
        optBool('truncated', o.truncated),
        optNum('shownChars', o.shownChars),
      );
    } catch (e) {
      rethrow(e);
    }
  }

  /** The full stored output, or null. */
  get(toolCallId, options) {
    const o = opts('options', options);
    try {
      return this.#native.get(str('toolCallId', toolCallId), optStr('dialog', o.dialog));
    } catch (e) {
      rethrow(e);
    }
  }

  /** `get` on the libuv thread pool. */
  async getAsync(toolCallId, options) {
    const o = opts('options', options);
    try {
      return await this.#native.getAsync(str('toolCallId', toolCallId), optStr('dialog', o.dialog));
    } catch (e) {
      rethrow(e);
    }
  }

  /** The metadata of a stored result (the fields of `toolcap show --meta`), or null. */
  meta(toolCallId, options) {
    const o = opts('options', options);
    try {
      const m = this.#native.meta(str('toolCallId', toolCallId), optStr('dialog', o.dialog));
      return m === null ? null : JSON.parse(m);
    } catch (e) {
      rethrow(e);
    }
  }

  /** Metadata of the results of one dialog (or of all), oldest first. */
  list(dialog) {
    try {
      return JSON.parse(this.#native.list(optStr('dialog', dialog)));
    } catch (e) {
      rethrow(e);
    }
  }

  /** Delete one dialog's results; returns how many were deleted. */
  deleteDialog(dialog) {
    try {
      return this.#native.deleteDialog(str('dialog', dialog));
    } catch (e) {
      rethrow(e);
    }
  }

  /** Delete results older than `seconds`; returns how many were deleted. */
  pruneOlderThan(seconds) {
    if (typeof seconds !== 'number') throw new TypeError(`seconds: expected a number, got ${typeName(seconds)}`);
    try {
      return this.#native.pruneOlderThan(seconds);
    } catch (e) {
      rethrow(e);
    }
  }

  /** The next chunk of a stored result from `offset` (characters), or whole lines from `startLine`. */
  getContinuation(toolCallId, options) {
    const o = opts('options', options);
    try {
      return reply(
        this.#native.getContinuation(
          str('toolCallId', toolCallId),
          optNum('offset', o.offset),
          optNum('startLine', o.startLine),
          optNum('endLine', o.endLine),
          optStr('dialog', o.dialog),
          optNum('chunkChars', o.chunkChars),
          optBool('lineAligned', o.lineAligned),
        ),
      );
    } catch (e) {
      rethrow(e);
    }
  }

  /** `getContinuation` on the libuv thread pool. */
  async getContinuationAsync(toolCallId, options) {
    const o = opts('options', options);
    return this.#recover('continuation', toolCallId, [
      optNum('offset', o.offset),
      optNum('startLine', o.startLine),
      optNum('endLine', o.endLine),
      undefined,
      optBool('lineAligned', o.lineAligned),
    ], o);
  }

  /** The lines of a stored result matching a regular expression, with context. */
  searchToolOutput(toolCallId, pattern, options) {
    const o = opts('options', options);
    try {
      return reply(
        this.#native.searchToolOutput(
          str('toolCallId', toolCallId),
          str('pattern', pattern),
          optNum('context', o.context),
          optNum('maxMatches', o.maxMatches),
          optNum('skip', o.skip),
          optBool('ignoreCase', o.ignoreCase),
          optStr('dialog', o.dialog),
          optBool('fromEnd', o.fromEnd),
        ),
      );
    } catch (e) {
      rethrow(e);
    }
  }

  /** `searchToolOutput` on the libuv thread pool. */
  async searchToolOutputAsync(toolCallId, pattern, options) {
    const o = opts('options', options);
    return this.#recover('search', toolCallId, [
      optNum('context', o.context),
      optNum('maxMatches', o.maxMatches),
      optNum('skip', o.skip),
      str('pattern', pattern),
      optBool('ignoreCase', o.ignoreCase),
      optBool('fromEnd', o.fromEnd),
    ], o);
  }

  /** A stored call's tool name, arguments and output (from `offset`, at most `limit` characters) as JSON text. */
  fetchToolOutput(toolCallId, options) {
    const o = opts('options', options);
    try {
      return reply(
        this.#native.fetchToolOutput(str('toolCallId', toolCallId), optNum('offset', o.offset), optNum('limit', o.limit), optStr('dialog', o.dialog)),
      );
    } catch (e) {
      rethrow(e);
    }
  }

  /** `fetchToolOutput` on the libuv thread pool. */
  async fetchToolOutputAsync(toolCallId, options) {
    const o = opts('options', options);
    return this.#recover('fetch', toolCallId, [optNum('offset', o.offset), optNum('limit', o.limit)], o);
  }

  /** The full stored output as the recovery tool returns it. */
  getToolResult(toolCallId, options) {
    const o = opts('options', options);
    try {
      return reply(this.#native.getToolResult(str('toolCallId', toolCallId), optStr('dialog', o.dialog)));
    } catch (e) {
      rethrow(e);
    }
  }

  /** `getToolResult` on the libuv thread pool. */
  async getToolResultAsync(toolCallId, options) {
    return this.#recover('whole', toolCallId, [], opts('options', options));
  }

  /** The value at `path` (`.packages[0].name`, `.items[*].id`) in a stored JSON result, as indented JSON. */
  queryToolOutput(toolCallId, path, options) {
    const o = opts('options', options);
    try {
      return reply(this.#native.queryToolOutput(str('toolCallId', toolCallId), str('path', path), optStr('dialog', o.dialog), optNum('chunkChars', o.chunkChars)));
    } catch (e) {
      rethrow(e);
    }
  }

  /** `queryToolOutput` on the libuv thread pool. */
  async queryToolOutputAsync(toolCallId, path, options) {
    const o = opts('options', options);
    try {
      return reply(
        await this.#native.queryToolOutputAsync(str('toolCallId', toolCallId), str('path', path), optStr('dialog', o.dialog), optNum('chunkChars', o.chunkChars)),
      );
    } catch (e) {
      rethrow(e);
    }
  }

  async #recover(kind, toolCallId, [a, b, c, pattern, flag, flag2], o) {
    try {
      const r = await this.#native.recoverAsync(
        kind,
        str('toolCallId', toolCallId),
        a,
        b,
        c,
        pattern,
        flag,
        optStr('dialog', o.dialog),
        optNum('chunkChars', o.chunkChars),
        flag2,
      );
      return reply(r);
    } catch (e) {
      rethrow(e);
    }
  }

  /** Serve a recovery tool call; null when `name` is not a recovery tool (the harness runs it). */
  dispatch(name, args, options) {
    const o = opts('options', options);
    try {
      const r = this.#native.dispatch(
        str('name', name),
        argsJson('arguments', args),
        optStr('dialog', o.dialog),
        optNum('chunkChars', o.chunkChars),
        optBool('lineAligned', o.lineAligned),
      );
      return r === null ? null : reply(r);
    } catch (e) {
      rethrow(e);
    }
  }

  /** `dispatch` on the libuv thread pool. */
  async dispatchAsync(name, args, options) {
    const o = opts('options', options);
    try {
      const r = await this.#native.dispatchAsync(
        str('name', name),
        argsJson('arguments', args),
        optStr('dialog', o.dialog),
        optNum('chunkChars', o.chunkChars),
        optBool('lineAligned', o.lineAligned),
      );
      return r === null ? null : reply(r);
    } catch (e) {
      rethrow(e);
    }
  }

  /**
   * An OpenAI-style history with references to stored results of the dialog swapped
   * for their full content where `loadToolResults` asks (false/undefined: none; true:
   * all; an array of ids: those). Given a policy object instead (`{}` for the
   * defaults; keys as toolcap::history::Policy), a history in any of the three
   * formats with old tool results masked in batches, each kept in this store first.
   */
  prepareMessages(messages, loadToolResults, options) {
    const o = opts('options', options);
    if (!Array.isArray(messages)) throw new TypeError(`messages: expected an array of message objects, got ${typeName(messages)}`);
    if (loadToolResults !== null && typeof loadToolResults === 'object' && !Array.isArray(loadToolResults)) {
      // a history policy: old results masked in batches, kept in this store
      try {
        return JSON.parse(this.#native.maskMessages(JSON.stringify(messages), JSON.stringify(loadToolResults), optStr('dialog', o.dialog)));
      } catch (e) {
        rethrow(e);
      }
    }
    let load = loadToolResults;
    if (load === null) load = undefined;
    if (load !== undefined && typeof load !== 'boolean' && typeof load !== 'string' && !Array.isArray(load)) {
      throw new TypeError(`loadToolResults: pass false, true, an array of tool call ids, or "none" / "all" / "id1,id2"; got ${typeName(load)}`);
    }
    try {
      return JSON.parse(this.#native.prepareMessages(JSON.stringify(messages), load, optStr('dialog', o.dialog)));
    } catch (e) {
      rethrow(e);
    }
  }

  /** The tool message that refers to a stored result instead of holding it, or null. */
  referenceMessage(toolCallId, options) {
    const o = opts('options', options);
    try {
      const m = this.#native.referenceMessage(str('toolCallId', toolCallId), optStr('dialog', o.dialog));
      return m === null ? null : JSON.parse(m);
    } catch (e) {
      rethrow(e);
    }
  }
}

/** Results kept in memory for the life of this object (a per-turn cache). */
class MemoryStore extends Store {
  /** `limitBytes`: drop the oldest results first once the outputs held would exceed it. */
  constructor(options) {
    const o = opts('options', options);
    let handle;
    try {
      handle = native.NativeStore.memory(optNum('limitBytes', o.limitBytes));
    } catch (e) {
      rethrow(e);
    }
    super(handle);
  }

  /** Number of results held. */
  get size() {
    return nativeOf(this).size;
  }
}

/** Results kept in one SQLite file (WAL mode, safe for many processes at once): the CLI's `--store PATH`. */
class SqliteStore extends Store {
  #path;

  /** `createDirs`: create the file's directory when missing (else it must exist). */
  constructor(file, options) {
    const o = opts('options', options);
    let p = file;
    if (p instanceof URL) p = require('node:url').fileURLToPath(p);
    str('path', p);
    let handle;
    try {
      handle = native.NativeStore.sqlite(p, optBool('createDirs', o.createDirs));
    } catch (e) {
      rethrow(e);
    }
    super(handle);
    this.#path = p;
  }

  /** The database file. */
  get path() {
    return this.#path;
  }
}

/** Results kept in PostgreSQL (a store shared by many hosts); needs an addon built with the `postgres` feature. */
class PostgresStore extends Store {
  constructor(url) {
    let handle;
    try {
      handle = native.NativeStore.postgres(str('url', url));
    } catch (e) {
      rethrow(e);
    }
    super(handle);
  }
}

// ---------------------------------------------------------------------------
// Processed.

/**
 * What `process` returns: the text the model should see and the exact facts behind
 * it. Its fields are the fields of `toolcap process --json`; `toJSON()` is that object.
 */
class Processed {
  /** The `toolcap process --json` object (same keys, same order). */
  toJSON() {
    return Object.assign({}, this);
  }

  /** The text the model sees. */
  toString() {
    return this.text;
  }
}

function processed(out, given) {
  const p = Object.assign(new Processed(), JSON.parse(out.report));
  p.text = out.text ?? given;
  return p;
}

// Strings at least this long are checked for ASCII and, when they are, handed to
// `process` as bytes (below it napi's copy is as fast).
const ASCII_COPY = 1 << 16;

// Strings longer than this are handed to `processAsync`'s worker as UTF-8 pieces,
// encoded one per event-loop turn (so no single step holds the loop long).
const PIECE_CHARS = 1 << 18;

function sleepTurn() {
  return new Promise((resolve) => setImmediate(resolve));
}


/** What `processStream` reads: an async iterable (Readable, ReadableStream) or an iterable of pieces. */
function streamOf(source) {
  if (typeof source === 'string' || ArrayBuffer.isView(source) || source instanceof ArrayBuffer) {
    throw new TypeError('source: a whole result is already in memory; pass it to process() or processAsync() (processStream reads a stream)');
  }
  if (source !== null && typeof source === 'object') {
    if (typeof source[Symbol.asyncIterator] === 'function' || typeof source[Symbol.iterator] === 'function') return source;
  }
  throw new TypeError(`source: expected a Readable, a ReadableStream, or an (async) iterable of strings or bytes, got ${typeName(source)}`);
}

// ---------------------------------------------------------------------------
// The processor.

function configArgs(config) {
  if (config === undefined || config === null) return [undefined, undefined];
  if (typeof config === 'string') return [config, undefined];
  if (config instanceof URL) return [require('node:url').fileURLToPath(config), undefined];
  if (typeof config === 'object' && !Array.isArray(config)) {
    let json;
    try {
      json = JSON.stringify(config);
    } catch (e) {
      throw new TypeError(`config: cannot be sent as JSON (${e.message}); use the keys and values of a thresholds.toml file`);
    }
    return [undefined, json];
  }
  throw new TypeError(`config: expected undefined, a path to a TOML file, or an object with the keys of a thresholds.toml file; got ${typeName(config)}`);
}

/** Makes oversized tool results fit the context window (see docs/node.md). */
class ToolResultProcessor {
  #native;
  #store;
  #empty;
  #dialog;
  #lineAligned;

  /**
   * `config`: undefined (built-in thresholds < $TOOLCAP_CONFIG < $TOOL_RESULT_BYPASS_TOOLS,
   * as the CLI), a TOML file path, or an object with the file's keys. `store`: a store to
   * keep full results in (`save: "all"` keeps uncut ones too). `dialog`: the dialog results
   * are kept under (default "default").
   */
  constructor(options) {
    const o = opts('options', options);
    const [configPath, configJson] = configArgs(o.config);
    let store;
    if (o.store !== undefined && o.store !== null) {
      if (!(o.store instanceof Store)) {
        throw new TypeError(`store: expected a MemoryStore, SqliteStore or PostgresStore, got ${typeName(o.store)}`);
      }
      store = o.store;
    }
    const dialog = optStr('dialog', o.dialog) ?? 'default';
    this.#lineAligned = optBool('lineAligned', o.lineAligned) ?? false;
    try {
      native.checkId('dialog id', dialog);
      this.#native = new native.NativeProcessor(configPath, configJson, store ? nativeOf(store) : undefined, optStr('save', o.save));
    } catch (e) {
      rethrow(e);
    }
    this.#store = store ?? null;
    this.#dialog = dialog;
  }

  /** The attached store, or null. */
  get store() {
    return this.#store;
  }

  /** The dialog results are kept under unless `process` names another. */
  get dialog() {
    return this.#dialog;
  }

  /** Characters kept when a result is cut (`max_kept_chars`): also the chunk size of `getContinuation`. */
  get maxKeptChars() {
    return this.#native.maxKeptChars;
  }

  /** Whether results of `tool` pass through unchanged. */
  isBypassed(tool) {
    return this.#native.isBypassed(str('tool', tool));
  }

  /** The effective settings and where each came from (what `toolcap config` prints). */
  describeConfig() {
    return this.#native.describeConfig();
  }

  /**
   * Process `result`, the result of calling `tool` with `args`: the returned
   * `Processed`'s `text` is what the model should see. With a store attached and a
   * `toolCallId`, the full result is kept and the text says how to read the rest.
   */
  process(tool, result, args, toolCallId, options) {
    const o = options === undefined ? {} : opts('options', options);
    const r = input('result', result);
    // a long ASCII string goes over as its Latin-1 bytes (the same as its UTF-8):
    // one memcpy instead of napi's two passes
    const ascii = typeof r === 'string' && r.length >= ASCII_COPY && Buffer.byteLength(r) === r.length;
    try {
      const out = this.#native.process(
        str('tool', tool),
        ascii ? Buffer.from(r, 'latin1') : r,
        argsJson('args', args),
        optStr('toolCallId', toolCallId),
        optStr('dialog', o.dialog) ?? this.#dialog,
        optStr('lang', o.lang),
        typeof r === 'string' && !r.isWellFormed(),
        ascii,
        contextOf(o),
      );
      return processed(out, r);
    } catch (e) {
      rethrow(e);
    }
  }

  /**
   * `process` with the work on the libuv thread pool: the event loop keeps running.
   * Bytes are read in place (do not change them until the promise settles); a long
   * string is encoded to UTF-8 in pieces, one per event-loop turn.
   */
  async processAsync(tool, result, args, toolCallId, options) {
    const o = options === undefined ? {} : opts('options', options);
    const r = input('result', result);
    const t = str('tool', tool);
    const a = argsJson('args', args);
    const id = optStr('toolCallId', toolCallId);
    const dialog = optStr('dialog', o.dialog) ?? this.#dialog;
    const lang = optStr('lang', o.lang);
    const context = contextOf(o);
    const exact = typeof r !== 'string' || r.isWellFormed();
    try {
      const out =
        typeof r === 'string' && r.length > PIECE_CHARS
          ? await this.#handOver(r, t, a, id, dialog, lang, !exact, context)
          : await this.#native.processAsync(t, r, a, id, dialog, lang, !exact, context);
      return processed(out, r);
    } catch (e) {
      rethrow(e);
    }
  }

  // A long string for processAsync: its UTF-8, encoded a piece per event-loop turn
  // into one scratch buffer and copied from there into the addon's queue, where a
  // worker thread processes it as it comes. No JavaScript buffer is made per piece
  // (allocating them cost up to 2 ms a turn in the collector on a 50 MB string).
  async #handOver(r, tool, args, id, dialog, lang, wantText, context) {
    const s = this.#native.stream(tool, args, id, dialog, lang, true, wantText, context);
    const scratch = Buffer.allocUnsafe(PIECE_CHARS * 3); // 3 UTF-8 bytes per UTF-16 unit at most
    try {
      for (let i = 0; i < r.length; ) {
        await sleepTurn(); // (the first piece too: the call itself started the worker)
        let j = Math.min(i + PIECE_CHARS, r.length);
        if (j < r.length) {
          const c = r.charCodeAt(j - 1);
          if (c >= 0xd800 && c <= 0xdbff) j -= 1; // keep a surrogate pair together
        }
        const piece = scratch.subarray(0, scratch.write(r.slice(i, j), 0, 'utf8'));
        // (both copy the piece before they return: the scratch buffer is free again)
        if (!s.push(piece)) await s.pushAsync(piece);
        i = j;
      }
    } catch (e) {
      s.abort(e instanceof Error ? e.message : String(e));
      throw e;
    }
    return s.finish();
  }

  /**
   * Process a result that arrives in pieces: a `Readable` (a child process's
   * stdout, a file stream), a web `ReadableStream`, or any iterable or async
   * iterable of strings and bytes. The pieces go to the library's streaming path
   * as they come (bounded memory: the whole result is never held in JavaScript,
   * and a store gets it as it is read); the stream is read no faster than the
   * library takes it. If the stream fails, nothing is stored and its error is
   * thrown.
   */
  async processStream(tool, source, args, toolCallId, options) {
    const o = options === undefined ? {} : opts('options', options);
    const pieces = streamOf(source);
    let s;
    try {
      s = this.#native.stream(str('tool', tool), argsJson('args', args), optStr('toolCallId', toolCallId), optStr('dialog', o.dialog) ?? this.#dialog, optStr('lang', o.lang), false, false, contextOf(o));
    } catch (e) {
      rethrow(e);
    }
    let pending = ''; // a high surrogate that ended a string piece
    const send = async (piece) => {
      if (piece.length === 0) return;
      if (!s.push(piece)) await s.pushAsync(piece);
    };
    try {
      for await (const chunk of pieces) {
        if (typeof chunk === 'string') {
          let t = pending + chunk;
          pending = '';
          const last = t.length ? t.charCodeAt(t.length - 1) : 0;
          if (last >= 0xd800 && last <= 0xdbff) {
            pending = t.slice(-1);
            t = t.slice(0, -1);
          }
          await send(Buffer.from(t, 'utf8'));
        } else {
          await send(input('stream piece', chunk));
        }
      }
      if (pending) await send(Buffer.from(pending, 'utf8'));
    } catch (e) {
      s.abort(e instanceof Error ? e.message : String(e));
      throw e;
    }
    try {
      return processed(await s.finish());
    } catch (e) {
      rethrow(e);
    }
  }

  /** The recovery tools' definitions for the model, chunked by this processor's `maxKeptChars`. */
  toolDefinitions(format = 'openai') {
    return toolDefinitions(format, { chunkChars: this.maxKeptChars });
  }

  #attached() {
    if (!this.#store) {
      throw new ToolcapError(
        'no result store attached; create the processor with store: new MemoryStore() or store: new SqliteStore(path)',
      );
    }
    return this.#store;
  }

  #with(options) {
    const o = opts('options', options);
    return { ...o, dialog: o.dialog ?? this.#dialog, chunkChars: this.maxKeptChars, lineAligned: this.#lineAligned };
  }

  // without a store, a recovery call gets the reply a model can read (not_stored),
  // as from a store that holds nothing
  #storeOrEmpty() {
    return this.#store ?? (this.#empty ??= new MemoryStore());
  }

  /**
   * Serve a recovery tool call from the attached store; null when `name` is not a
   * recovery tool. Without a store, a recovery call gets the `not_stored` reply.
   */
  dispatch(name, args, options) {
    return this.#storeOrEmpty().dispatch(name, args, this.#with(options));
  }

  /** `dispatch` on the libuv thread pool. */
  dispatchAsync(name, args, options) {
    return this.#storeOrEmpty().dispatchAsync(name, args, this.#with(options));
  }

  /** The next chunk of a stored result (from `offset`), or whole lines from `startLine`. */
  getContinuation(toolCallId, options) {
    return this.#attached().getContinuation(toolCallId, this.#with(options));
  }

  /** `getContinuation` on the libuv thread pool. */
  getContinuationAsync(toolCallId, options) {
    return this.#attached().getContinuationAsync(toolCallId, this.#with(options));
  }

  /** The lines of a stored result matching a regular expression. */
  searchToolOutput(toolCallId, pattern, options) {
    return this.#attached().searchToolOutput(toolCallId, pattern, this.#with(options));
  }

  /** `searchToolOutput` on the libuv thread pool. */
  searchToolOutputAsync(toolCallId, pattern, options) {
    return this.#attached().searchToolOutputAsync(toolCallId, pattern, this.#with(options));
  }

  /** A stored call's tool name, arguments and output as JSON text. */
  fetchToolOutput(toolCallId, options) {
    return this.#attached().fetchToolOutput(toolCallId, this.#with(options));
  }

  /** `fetchToolOutput` on the libuv thread pool. */
  fetchToolOutputAsync(toolCallId, options) {
    return this.#attached().fetchToolOutputAsync(toolCallId, this.#with(options));
  }

  /** The full stored output. */
  getToolResult(toolCallId, options) {
    return this.#attached().getToolResult(toolCallId, this.#with(options));
  }

  /** `getToolResult` on the libuv thread pool. */
  getToolResultAsync(toolCallId, options) {
    return this.#attached().getToolResultAsync(toolCallId, this.#with(options));
  }

  /** The value at `path` in a stored JSON result (from the attached store), as indented JSON. */
  queryToolOutput(toolCallId, path, options) {
    return this.#attached().queryToolOutput(toolCallId, path, this.#with(options));
  }

  /** `queryToolOutput` on the libuv thread pool. */
  queryToolOutputAsync(toolCallId, path, options) {
    return this.#attached().queryToolOutputAsync(toolCallId, path, this.#with(options));
  }

  /** An OpenAI-style history with references to this dialog's stored results loaded where asked; or, given a policy object, old tool results masked (see the store's `prepareMessages`). */
  prepareMessages(messages, loadToolResults, options) {
    return this.#attached().prepareMessages(messages, loadToolResults, this.#with(options));
  }

  /** For bench/: seconds the Rust library alone takes for `n` calls (no JavaScript in the loop). */
  _timeRust(tool, result, args, n) {
    return this.#native.timeRust(tool, input('result', result), argsJson('args', args), n);
  }
}

// ---------------------------------------------------------------------------
// Module functions.

/**
 * The code structure of `source`: the fields of `toolcap outline --json` (without
 * `path`). Without `language`, it is detected as the CLI detects it (shebang,
 * extension of `path`, content).
 */
function outline(source, options) {
  const o = opts('options', options);
  try {
    return JSON.parse(
      native.outline(input('source', source), optStr('language', o.language), optStr('path', o.path), optNum('budgetMs', o.budgetMs), optNum('maxBytes', o.maxBytes)),
    );
  } catch (e) {
    rethrow(e);
  }
}

/** `outline` on the libuv thread pool. */
async function outlineAsync(source, options) {
  const o = opts('options', options);
  try {
    return JSON.parse(
      await native.outlineAsync(input('source', source), optStr('language', o.language), optStr('path', o.path), optNum('budgetMs', o.budgetMs), optNum('maxBytes', o.maxBytes)),
    );
  } catch (e) {
    rethrow(e);
  }
}

/** The supported languages: name, extensions, aliases, interpreters. */
function languages() {
  return JSON.parse(native.languages());
}

/** The recovery tools' definitions for the model (`openai` or `anthropic` form). */
function toolDefinitions(format = 'openai', options) {
  const o = opts('options', options);
  try {
    return JSON.parse(native.toolDefinitions(str('format', format), optNum('chunkChars', o.chunkChars)));
  } catch (e) {
    rethrow(e);
  }
}

// one `exports.NAME = ...` a line: ES modules importing this file see every name
exports.ToolResultProcessor = ToolResultProcessor;
exports.Processed = Processed;
exports.Store = Store;
exports.MemoryStore = MemoryStore;
exports.SqliteStore = SqliteStore;
exports.PostgresStore = PostgresStore;
exports.ToolcapError = ToolcapError;
exports.ConfigError = ConfigError;
exports.StoreError = StoreError;
exports.OutlineError = OutlineError;
exports.outline = outline;
exports.outlineAsync = outlineAsync;
exports.languages = languages;
exports.toolDefinitions = toolDefinitions;
exports.version = native.version();
exports.buildProfile = native.buildProfile();
exports.hasPostgres = native.hasPostgres();
/** For scripts/gen-types.js: the string unions of index.d.ts, from the Rust types (JSON text). */
exports._typeUnions = native.typeUnions;
/** For bench/: CPU seconds the calling thread has used. */
exports._threadCpuSeconds = native.threadCpuSeconds;
/** For the tests: a panic inside the addon, which must come out as a ToolcapError. */
exports._panicForTests = function _panicForTests() {
  try {
    native.panicForTests();
  } catch (e) {
    rethrow(e);
  }
};
