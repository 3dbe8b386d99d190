/**
 * `chain` on its own: the order steps run in, what `next()`, `next(error)`, a throw and a rejected
 * promise do, and when the outer `next` is called (once, with or without the error). Every request
 * of the fake passes through a few of these, so each rule is pinned here, apart from the app.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { chain } from '../../src/http/middleware-chain.js';

const req = {} as Request;
const res = {} as Response;

/** Runs `handler` and resolves with what it handed the outer `next` (`{ called: false }` if never). */
function run(
  handler: RequestHandler,
  settle = 10,
): Promise<{ called: boolean; error?: unknown; calls: number }> {
  return new Promise((resolve) => {
    let calls = 0;
    let last: unknown;
    const done: NextFunction = (error?: unknown) => {
      calls++;
      last = error;
    };
    handler(req, res, done);
    // Let promise-returning steps settle before reading the outcome.
    setTimeout(() => resolve({ called: calls > 0, error: last, calls }), settle);
  });
}

const record =
  (log: string[], name: string): RequestHandler =>
  (_req, _res, next) => {
    log.push(name);
    next();
  };

describe('chain', () => {
  it('runs the steps in order, then calls the outer next once without an error', async () => {
    const log: string[] = [];
    const outcome = await run(chain(record(log, 'a'), record(log, 'b'), record(log, 'c')));
    expect(log).toEqual(['a', 'b', 'c']);
    expect(outcome).toEqual({ called: true, error: undefined, calls: 1 });
  });

  it('an empty chain hands straight on', async () => {
    expect(await run(chain())).toEqual({ called: true, error: undefined, calls: 1 });
  });

  it('stops where a step answers without calling next', async () => {
    const log: string[] = [];
    const answer: RequestHandler = () => {
      log.push('answer');
    };
    const outcome = await run(chain(record(log, 'a'), answer, record(log, 'never')));
    expect(log).toEqual(['a', 'answer']);
    expect(outcome.called).toBe(false);
  });

  it('next(error) skips the rest and hands the error on', async () => {
    const log: string[] = [];
    const failure = new Error('refused');
    const refuse: RequestHandler = (_req, _res, next) => next(failure);
    const outcome = await run(chain(record(log, 'a'), refuse, record(log, 'never')));
    expect(log).toEqual(['a']);
    expect(outcome).toEqual({ called: true, error: failure, calls: 1 });
  });

  it('a step that throws hands its error on, and the rest never run', async () => {
    const log: string[] = [];
    const failure = new TypeError('bug');
    const boom: RequestHandler = () => {
      throw failure;
    };
    const outcome = await run(chain(boom, record(log, 'never')));
    expect(log).toEqual([]);
    expect(outcome).toEqual({ called: true, error: failure, calls: 1 });
  });

  it('an async step that rejects hands the rejection on', async () => {
    const log: string[] = [];
    const failure = new Error('later');
    const rejects: RequestHandler = async () => {
      await Promise.resolve();
      throw failure;
    };
    const outcome = await run(chain(rejects, record(log, 'never')));
    expect(log).toEqual([]);
    expect(outcome).toEqual({ called: true, error: failure, calls: 1 });
  });

  it('an async step may call next after awaiting, and the chain goes on', async () => {
    const log: string[] = [];
    const later: RequestHandler = async (_req, _res, next) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      log.push('later');
      next();
    };
    const outcome = await run(chain(later, record(log, 'b')), 30);
    expect(log).toEqual(['later', 'b']);
    expect(outcome).toEqual({ called: true, error: undefined, calls: 1 });
  });

  it('chains nest: an inner chain ends by running the outer one on', async () => {
    const log: string[] = [];
    const inner = chain(record(log, 'i1'), record(log, 'i2'));
    const outcome = await run(chain(record(log, 'o1'), inner, record(log, 'o2')));
    expect(log).toEqual(['o1', 'i1', 'i2', 'o2']);
    expect(outcome.calls).toBe(1);
  });

  it('an error in an inner chain skips the rest of the outer one', async () => {
    const log: string[] = [];
    const failure = new Error('inner');
    const inner = chain(record(log, 'i1'), (_req, _res, next) => next(failure));
    const outcome = await run(chain(inner, record(log, 'never')));
    expect(log).toEqual(['i1']);
    expect(outcome).toEqual({ called: true, error: failure, calls: 1 });
  });

  it('each request runs the chain afresh (no state kept between requests)', async () => {
    const log: string[] = [];
    const handler = chain(record(log, 'a'), record(log, 'b'));
    await run(handler);
    await run(handler);
    expect(log).toEqual(['a', 'b', 'a', 'b']);
  });
});
