// The framework an integration wraps (`ai`, `langchain`, `@langchain/core`) is the
// project's own: a peer dependency, imported by the integration. When it cannot be
// found, say why and what to do.

import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PKG = fileURLToPath(new URL('..', import.meta.url));

/** `await load()` (an `import()` written in the integration, so it resolves from there); a missing `name` becomes an error that names the fix. */
export async function importPeer(load, name, subpath) {
  try {
    return await load();
  } catch (e) {
    if (!e || e.code !== 'ERR_MODULE_NOT_FOUND' || !String(e.message).includes(`'${name}'`)) throw e;
    // Node resolves from a module's real path: a package linked into a checkout
    // (`npm install ./node` makes a symlink) looks beside the checkout, not in the project
    const linked = !PKG.split(path.sep).includes('node_modules');
    const why = linked
      ? `toolcap is loaded from ${PKG}, outside any node_modules: it is installed as a link into a checkout ` +
        `(npm install ./node), so Node looks for '${name}' beside the checkout, not in your project. ` +
        'Install it as a copy instead: npm install --install-links ./node'
      : `install it beside toolcap: npm install ${name}`;
    throw new Error(`${subpath}: cannot find '${name}' (a peer dependency): ${why}`, { cause: e });
  }
}
