/**
 * A small data disk for the disk-fault tests: a tmpfs of `sizeMb` the test mounts (as root). Where
 * mounting is not allowed, a full disk is simulated on the ordinary one: storage.minFreeMb is set just
 * under its free space and a filler file takes that space away; never skipped.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Disk {
  dir: string;
  minFreeMb: number;
  mounted: boolean;
  /** Takes every free byte (or, simulated, the space above the minimum), leaving `leaveMb` of it. */
  fill(name: string, leaveMb?: number): void;
  free(name: string): void;
  dispose(): void;
}

export function freeMb(dir: string): number {
  const st = statfsSync(dir);
  return (Number(st.bavail) * Number(st.bsize)) / 1048576;
}

/** Writes until the disk has no byte left (or `limitBytes` are written). */
export function writeFiller(file: string, limitBytes = Number.POSITIVE_INFINITY): void {
  const fd = openSync(file, 'w');
  let n = 0;
  try {
    for (const size of [1024 * 1024, 64 * 1024, 4096, 512, 1]) {
      const chunk = Buffer.alloc(size, 1);
      try {
        while (n + size <= limitBytes) n += writeSync(fd, chunk);
      } catch (e) {
        // ENOSPC at this size: go on with a smaller one.
        if ((e as { code?: string }).code !== 'ENOSPC') throw e;
      }
    }
  } finally {
    closeSync(fd);
  }
}

export function makeDisk(sizeMb = 8): Disk {
  const dir = mkdtempSync(join(tmpdir(), 'gw-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', dir], { stdio: 'ignore' });
    return {
      dir,
      minFreeMb: 1,
      mounted: true,
      fill: (name, leaveMb = 0) =>
        writeFiller(
          join(dir, name),
          leaveMb > 0 ? Math.max(0, (freeMb(dir) - leaveMb) * 1048576) : Number.POSITIVE_INFINITY,
        ),
      free: (name) => rmSync(join(dir, name), { force: true }),
      dispose: () => {
        execFileSync('umount', ['-l', dir]);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch {
    // Simulated: the minimum sits 64 MB under the free space; a 96 MB filler takes the store below it.
    const minFreeMb = Math.max(1, Math.floor(freeMb(dir) - 64));
    return {
      dir,
      minFreeMb,
      mounted: false,
      fill: (name, leaveMb = 0) => writeFiller(join(dir, name), (96 - leaveMb) * 1048576),
      free: (name) => rmSync(join(dir, name), { force: true }),
      dispose: () => rmSync(dir, { recursive: true, force: true }),
    };
  }
}
