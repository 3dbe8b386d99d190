import type { HandlerTable } from '../operation-handler.js';

/** The admin API: the fake's test-harness calls under /__admin. */
export const adminHandlers: HandlerTable = {
  getHealth: (context) => ({
    status: 200,
    body: {
      status: 'ok',
      session: context.instance.id ?? null,
      documents: context.instance.fake.documentCount(),
    },
  }),
};
