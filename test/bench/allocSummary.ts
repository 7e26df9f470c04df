/**
 * `npx tsx test/bench/allocSummary.ts FILE.heapprofile [rows]`: what an allocation profile
 * (`allocSampling.mjs`) holds, by function: its own share of the bytes allocated, then its share with
 * everything it called.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

const [file, rowsArg] = process.argv.slice(2);
if (!file) throw new Error('usage: allocSummary.ts FILE.heapprofile [rows]');
const rows = Number(rowsArg ?? 30);
const { head } = JSON.parse(readFileSync(file, 'utf8')) as { head: ProfileNode };
const own = new Map<string, number>();
const within = new Map<string, number>();
let total = 0;
const name = (n: ProfileNode) =>
  `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').at(-1)}:${n.callFrame.lineNumber}`;
const walk = (n: ProfileNode, stack: readonly string[]) => {
  const k = name(n);
  total += n.selfSize;
  own.set(k, (own.get(k) ?? 0) + n.selfSize);
  const frames = stack.includes(k) ? stack : [...stack, k];
  for (const f of frames) within.set(f, (within.get(f) ?? 0) + n.selfSize);
  for (const c of n.children) walk(c, frames);
};
walk(head, []);
const table = (m: Map<string, number>) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, rows)
    .map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(5)} % ${k}`)
    .join('\n');
process.stdout.write(
  `${(total / 1e6).toFixed(1)} MB allocated (sampled)\n--- own\n${table(own)}\n--- with what it called\n${table(within)}\n`,
);
