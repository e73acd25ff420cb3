// Runs before `npm start` and `npm test` (package.json's prestart and pretest), in plain JavaScript so
// that an old Node reaches it: the store needs the Node.js of package.json's `engines` (`.nvmrc` names
// the one it is developed on), and says so, rather than failing later on what an old one lacks.
import { readFileSync } from 'node:fs';

const { engines } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
const wanted = /^>=\s*(\d+)\.(\d+)/.exec(engines.node);
const [major, minor] = process.versions.node.split('.').map(Number);
if (wanted && (major < Number(wanted[1]) || (major === Number(wanted[1]) && minor < Number(wanted[2])))) {
  const nvmrc = readFileSync(new URL('../../.nvmrc', import.meta.url), 'utf8').trim();
  console.error(
    `store-api needs Node.js ${engines.node} (package.json "engines"); this is ${process.version}. Use Node.js ${nvmrc} (.nvmrc: \`nvm install && nvm use\`, or your version manager's equivalent).`,
  );
  process.exit(1);
}
