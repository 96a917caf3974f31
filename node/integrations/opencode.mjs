// toolcap for opencode: a plugin (`tool.execute.after`) that caps every tool's
// output with the package (no binary needed). Suggestions name opencode's own
// tools (the `opencode` preset: read(filePath, offset, limit), grep, glob, bash).
//
//   // .opencode/plugin/toolcap.js
//   export { ToolcapPlugin } from 'toolcap/opencode';

import shared from './shared.cjs';

const { toolcap, processorOf, argsOf } = shared;

/**
 * A plugin with its own processor: `{ processor }`, or `{ config, store, dialog,
 * save }`. The default configuration is the user's ($TOOLCAP_CONFIG and the
 * bypass list, as the CLI) with opencode's tool names for the suggestions, and no
 * store (the suggestions call opencode's tools, which read the real file again).
 */
export function createToolcapPlugin(options) {
  const o = options ?? {};
  return async () => {
    // made when opencode loads the plugin (a bad configuration fails the load, with its message)
    const processor =
      o.processor ??
      processorOf({
        config: o.config ?? { suggest: { preset: 'opencode' } },
        store: o.store ?? null,
        dialog: o.dialog,
        save: o.save,
      });
    return hooks(processor);
  };
}

function hooks(processor) {
  return {
    'tool.execute.after': async (input, output) => {
      if (!output || typeof output.output !== 'string') return;
      const processed = await processor.processAsync(input.tool, output.output, argsOf(input.args), processor.store ? input.callID : undefined, {
        dialog: processor.store && input.sessionID ? input.sessionID : undefined,
      });
      output.output = processed.text;
    },
  };
}

/** The plugin with the defaults of `createToolcapPlugin()`. */
export const ToolcapPlugin = createToolcapPlugin();

export { toolcap };
