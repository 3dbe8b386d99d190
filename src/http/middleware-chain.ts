import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Runs middleware in order as one middleware: each step's `next()` starts the following one,
 * `next(error)` (or a rejected promise) skips the rest and hands the error on, and the end of
 * the chain calls the outer `next`. What an Express router does for a stack of `use()`d
 * functions, without a path match and a layer per function on every request: the fake's hot
 * path runs through a handful of these.
 */
export function chain(...steps: RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, done: NextFunction) => {
    let index = 0;
    const step = (error?: unknown): void => {
      if (error !== undefined && error !== null) {
        done(error);
        return;
      }
      const handler = steps[index++];
      if (handler === undefined) {
        done();
        return;
      }
      try {
        const result: unknown = handler(req, res, step);
        if (result instanceof Promise) result.catch(step);
      } catch (thrown) {
        done(thrown);
      }
    };
    step();
  };
}
