// node -r @swc-node/register test/bench/heap-diff.ts before.heapsnapshot after.heapsnapshot [rows]
// What grew between two heap snapshots of one process (e.g. the soak's, SOAK_HEAP_SNAPSHOTS=5,12):
// objects grouped by constructor (node type and name), count and self size in each, largest growth first.
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] }; node_count: number };
  nodes: number[];
  strings: string[];
}

interface Group {
  count: number;
  selfSize: number;
}

function groups(path: string): { byName: Map<string, Group>; total: Group } {
  const heap = JSON.parse(readFileSync(path, 'utf8')) as Snapshot;
  const fields = heap.snapshot.meta.node_fields;
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((field) => fields.indexOf(field));
  const types = heap.snapshot.meta.node_types[0];
  const byName = new Map<string, Group>();
  const total: Group = { count: 0, selfSize: 0 };
  for (let i = 0; i < heap.nodes.length; i += width) {
    const type = types[heap.nodes[i + typeAt]];
    // Strings and code are named by their content: grouped by type alone, or every string is its own group.
    const name = ['string', 'concatenated string', 'sliced string', 'code', 'number', 'hidden'].includes(type) ? `(${type})` : `${heap.strings[heap.nodes[i + nameAt]].slice(0, 80)} [${type}]`;
    const group = byName.get(name) ?? { count: 0, selfSize: 0 };
    group.count++;
    group.selfSize += heap.nodes[i + sizeAt];
    byName.set(name, group);
    total.count++;
    total.selfSize += heap.nodes[i + sizeAt];
  }
  return { byName, total };
}

const [beforePath, afterPath, rows = '40'] = process.argv.slice(2);
const before = groups(beforePath);
const after = groups(afterPath);
const kib = (bytes: number) => (bytes / 1024).toFixed(0);
const diff = [...new Set([...before.byName.keys(), ...after.byName.keys()])].map((name) => {
  const a = before.byName.get(name) ?? { count: 0, selfSize: 0 };
  const b = after.byName.get(name) ?? { count: 0, selfSize: 0 };
  return { name, countBefore: a.count, countAfter: b.count, kibBefore: a.selfSize, kibAfter: b.selfSize };
});
diff.sort((x, y) => y.kibAfter - y.kibBefore - (x.kibAfter - x.kibBefore));
console.log(`total: ${before.total.count} → ${after.total.count} objects, ${kib(before.total.selfSize)} → ${kib(after.total.selfSize)} KiB self size`);
console.log(`${'Δ KiB'.padStart(9)}${'KiB before'.padStart(12)}${'KiB after'.padStart(11)}${'Δ count'.padStart(10)}${'count after'.padStart(13)}  constructor [node type]`);
for (const d of diff.slice(0, Number(rows))) {
  console.log(
    `${kib(d.kibAfter - d.kibBefore).padStart(9)}${kib(d.kibBefore).padStart(12)}${kib(d.kibAfter).padStart(11)}${String(d.countAfter - d.countBefore).padStart(10)}${String(d.countAfter).padStart(13)}  ${d.name}`,
  );
}
