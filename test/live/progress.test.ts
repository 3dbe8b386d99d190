import { describe, expect, it } from 'vitest';
import { progress } from '../../src/commands/live-run.js';

/** Progress goes to a terminal only: one line rewritten in place, cleared at the end. */

function stream(isTTY: boolean) {
  const written: string[] = [];
  const fake = { isTTY, write: (s: string) => written.push(s) > 0 } as unknown as NodeJS.WriteStream;
  return { fake, written };
}

describe('progress', () => {
  it('shows requests done, the rate and what is being probed, on one line of a terminal', () => {
    const { fake, written } = stream(true);
    const shown = progress(fake);
    shown.doing('probing page-size-cap');
    shown.request(3);
    const line = written.at(-1) ?? '';
    expect(line.startsWith('\r\x1b[K3 requests, ')).toBe(true);
    expect(line).toMatch(/\d+\.\d\/s {2}probing page-size-cap$/);
    shown.done();
    expect(written.at(-1)).toBe('\r\x1b[K');
  });

  it('writes nothing when stderr is not a terminal (CI logs stay clean)', () => {
    const { fake, written } = stream(false);
    const shown = progress(fake);
    shown.doing('reading document 1/3');
    shown.request(1);
    shown.done();
    expect(written).toEqual([]);
  });
});
