// The npm registry reachable here serves native optional packages only for this platform (linux x64),
// so `npm install` leaves the other platforms' entries out of package-lock.json and `npm ci` then
// refuses the lock. This records each missing optional platform package with its os/cpu, exactly
// as a lock written against the full registry would, so npm skips them without fetching.
// Run after `npm install <pkg>`: node scripts/lock-foreign-optionals.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const lockPath = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const OS = ['darwin', 'win32', 'linux', 'android', 'freebsd', 'openharmony', 'sunos', 'aix'];
const CPU = [['arm64', 'arm64'], ['aarch64', 'arm64'], ['x64', 'x64'], ['ia32', 'ia32'], ['riscv64', 'riscv64'], ['loong64', 'loong64'], ['ppc64', 'ppc64'], ['s390x', 's390x'], ['arm', 'arm']];

function platformOf(name) {
  const leaf = name.split('/').pop();
  const os = OS.find((o) => leaf.includes(o));
  const cpu = CPU.find(([token]) => new RegExp(`(^|-)${token}($|-|gnu|musl|eabi)`).test(leaf))?.[1];
  if (!os || !cpu) return undefined;
  const libc = os === 'linux' ? (leaf.includes('musl') ? ['musl'] : leaf.includes('gnu') ? ['glibc'] : undefined) : undefined;
  return { os: [os], cpu: [cpu], ...(libc ? { libc } : {}) };
}

let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = path === '' ? '' : `${path}/`;
    if (lock.packages[`${base}node_modules/${name}`] || lock.packages[`node_modules/${name}`]) continue;
    const platform = platformOf(name);
    if (!platform || !/^\d+\.\d+\.\d+/.test(version)) {
      console.warn(`skipped ${name}@${version}: cannot tell its platform or exact version`);
      continue;
    }
    lock.packages[`node_modules/${name}`] = { version, optional: true, ...platform };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`recorded ${added} optional platform packages`);
