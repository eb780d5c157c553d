import { spawnSync } from 'node:child_process';
import nodeFlags from '../../scripts/node-flags.json';

/**
 * A process after a passing peak, in the environment the service's processes run node with
 * (scripts/node-flags.json): freeing one large buffer made glibc raise its mmap threshold to that
 * buffer's size, and its trim threshold to twice that, so the many mid-sized buffers of a later peak
 * came from the arena and stayed resident once freed. The soak saw it as a worker's arena holding
 * 30 MiB free (and resident) after a training, more after the next.
 */
const PEAK = `
const { readFileSync } = require('node:fs');
const rssMiB = () => Number(/VmRSS:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
const touched = (buffer) => { for (let i = 0; i < buffer.length; i += 4096) buffer[i] = 1; return buffer; };
// ArrayBuffers' memory is freed by V8 after a collection, on a background thread: give it time.
const collected = async () => { for (let i = 0; i < 2; i++) { gc(); await new Promise((resolve) => setTimeout(resolve, 300)); } };
(async () => {
  const before = rssMiB();
  let large = touched(Buffer.allocUnsafeSlow(24 << 20));
  large = undefined;
  await collected();
  let peak = Array.from({ length: 60 }, () => touched(Buffer.allocUnsafeSlow(512 << 10)));
  peak = undefined;
  await collected();
  console.log(JSON.stringify({ retainedMiB: rssMiB() - before }));
})();
`;

const glibc = (process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header.glibcVersionRuntime !== undefined;

(glibc ? describe : describe.skip)('node as the service runs it (scripts/node-flags.json), on glibc', () => {
  it('gives back the memory of a passing peak of mid-sized buffers after a large one was freed', () => {
    const run = spawnSync(process.execPath, ['--expose-gc', '-e', PEAK], { env: { PATH: process.env.PATH ?? '', ...nodeFlags.env }, encoding: 'utf8', timeout: 30_000 });
    expect(run.stderr).toBe('');
    const { retainedMiB } = JSON.parse(run.stdout) as { retainedMiB: number };
    // The peak is 30 MiB; kept, it would all stay resident. V8's own growth after two collections is a few MiB.
    expect(retainedMiB).toBeLessThan(15);
  });
});
