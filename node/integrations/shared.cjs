'use strict';
// What the integrations share: the processor they use and how a tool's result
// becomes the text toolcap reads.

const toolcap = require('../index.js');

/** The processor an integration uses: the one given, else one with a MemoryStore. */
function processorOf(options) {
  const o = options ?? {};
  if (o instanceof toolcap.ToolResultProcessor) return o;
  if (typeof o !== 'object' || Array.isArray(o)) {
    throw new TypeError('options: expected a ToolResultProcessor or { processor, store, config, dialog, save }');
  }
  if (o.processor !== undefined) {
    if (!(o.processor instanceof toolcap.ToolResultProcessor)) throw new TypeError('processor: expected a toolcap ToolResultProcessor');
    return o.processor;
  }
  return new toolcap.ToolResultProcessor({
    config: o.config,
    store: o.store === undefined ? new toolcap.MemoryStore() : o.store,
    dialog: o.dialog,
    save: o.save,
  });
}

/** A tool's result as the text (or bytes) toolcap reads: strings and bytes as they are, anything else as its JSON text. */
function resultText(result) {
  if (typeof result === 'string' || result instanceof Uint8Array) return result;
  if (result === undefined || result === null) return '';
  try {
    return JSON.stringify(result) ?? String(result);
  } catch {
    return String(result);
  }
}

/** Tool arguments: the input when it is an object, else none. */
function argsOf(input) {
  return input && typeof input === 'object' && !Array.isArray(input) ? input : undefined;
}

const UNCHANGED = new Set(['bypass', 'under_threshold', 'already_cut']);

module.exports = { toolcap, processorOf, resultText, argsOf, UNCHANGED };
