/**
 * Chromium prints running as children of a process, counted from /proc: a print is a process whose
 * parent is `parentPid` and whose command line carries `--print-to-pdf=` (reports/pdf.ts starts one per
 * PDF). `watchPrints` samples every few milliseconds and keeps the most seen at once, and the peak of
 * the resident memory of the parent with all its descendants.
 */
import { readdirSync, readFileSync } from 'node:fs';

interface Proc {
  pid: number;
  ppid: number;
  rssKb: number;
  printing: boolean;
}

function processes(): Proc[] {
  const out: Proc[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name may hold spaces and brackets: the fields after its closing ')' are fixed.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const status = readFileSync(`/proc/${name}/status`, 'utf8');
      const rss = /VmRSS:\s+(\d+)/.exec(status);
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      out.push({
        pid: Number(name),
        ppid: Number(fields[1]),
        rssKb: rss ? Number(rss[1]) : 0,
        printing: cmd.includes('--print-to-pdf='),
      });
    } catch (e) {
      // A process that ended while it was read: it is simply not counted.
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' && (e as NodeJS.ErrnoException).code !== 'ESRCH')
        throw e;
    }
  }
  return out;
}

/** The prints running now under `parentPid`, and the resident memory of it with all its descendants. */
export function sample(parentPid: number): { prints: number; treeRssKb: number } {
  const all = processes();
  const children = new Map<number, Proc[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  let rss = all.find((p) => p.pid === parentPid)?.rssKb ?? 0;
  const stack = [...(children.get(parentPid) ?? [])];
  while (stack.length) {
    const p = stack.pop()!;
    rss += p.rssKb;
    stack.push(...(children.get(p.pid) ?? []));
  }
  const prints = (children.get(parentPid) ?? []).filter((p) => p.printing).length;
  return { prints, treeRssKb: rss };
}

export interface PrintWatch {
  /** Stops sampling; the most prints seen at once and the peak resident memory of the tree (KB). */
  stop(): { peakPrints: number; peakTreeRssKb: number; samples: number };
}

export function watchPrints(parentPid: number, everyMs = 20): PrintWatch {
  let peakPrints = 0;
  let peakTreeRssKb = 0;
  let samples = 0;
  const tick = () => {
    const s = sample(parentPid);
    peakPrints = Math.max(peakPrints, s.prints);
    peakTreeRssKb = Math.max(peakTreeRssKb, s.treeRssKb);
    samples++;
  };
  tick();
  const timer = setInterval(tick, everyMs);
  return {
    stop() {
      clearInterval(timer);
      tick();
      return { peakPrints, peakTreeRssKb, samples };
    },
  };
}
