import type {
  OperationContext,
  OperationHandler,
  OperationResult,
  OperationTable,
} from '../../contract/operation-handler.js';
import type {
  ListAllDocumentsQueryParameter,
  ListDocumentsQueryParameter,
  VendorOperationId,
} from '../../contract/operation-ids.js';
import type { OpenApiDocument } from '../../contract/spec-document.js';
import type { ListPage, ListQuery, Principal } from '../../domain/fake.js';
import { ApiError } from '../../errors.js';
import type { Instance } from '../../harness/instance/instance.js';

/** Thin adapters from the vendor operations to the domain's `Fake`. */

function principalOf(context: OperationContext<Instance>): Principal {
  if (!context.principal) throw new ApiError('invalidToken', 'Invalid token: no token sent');
  return context.principal;
}

function header(context: OperationContext<Instance>, name: string): string {
  const value = context.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** `success` of the PATCH calls: the contract shows the string "true". */
function patchSuccess(context: OperationContext<Instance>): 'true' | true {
  return context.instance.fake.settings.successLiterals === 'contract' ? 'true' : true;
}

/** The list's free-text `description`, which the documentation's sample carries at top level. */
const LIST_DESCRIPTION = 'Documents';

/** A list page of the domain as the operation's answer: its notices journaled, its marks returned. */
function pageResult(
  context: OperationContext<Instance>,
  page: ListPage<unknown>,
  body: object,
): OperationResult {
  for (const notice of page.notices) context.notice(notice);
  return { status: 200, body, marks: page.marks };
}

/** GET /api/v2/documents and its live twin /api/v2/documents/all. */
const listDocuments: OperationHandler<Instance> = (context) => {
  // Read and coerced by the spec's validator: its parameters, under their canonical names, typed
  // as the spec declares them (which is how ListQuery types them, as the checks below hold).
  const query = context.request.query as ListQuery;
  const page = context.instance.fake.listDocuments(principalOf(context), query);
  // Rows are frozen, made once per stored document (see `toSummary`): the sender keeps their texts.
  const results = page.rows;
  return pageResult(context, page, {
    success: true,
    apiRequestUid: context.requestId,
    description: LIST_DESCRIPTION,
    results,
  });
};

/** The batch calls: the domain plans and applies, the notices go to the journal. */
function batch(mode: 'replace' | 'merge' | 'create'): OperationHandler<Instance> {
  return (context) => {
    const { notices, created } = context.instance.fake.batchUpdate(
      principalOf(context),
      context.request.body,
      mode,
    );
    for (const notice of notices) context.notice(notice);
    const body = { success: mode === 'replace' ? true : patchSuccess(context) };
    return { status: 200, body, marks: created.length > 0 ? ['batchCreate'] : undefined };
  };
}

/**
 * Compiles only while `ListQuery` has exactly the list operations' query parameters of the spec;
 * otherwise the compiler's error names each parameter one has and the other lacks.
 */
type Same<A, B> = [Exclude<A, B>, Exclude<B, A>] extends [never, never]
  ? true
  : { 'only in ListQuery': Exclude<A, B>; 'only in the spec': Exclude<B, A> };
export const LIST_QUERY_MATCHES_SPEC: Same<keyof ListQuery, ListDocumentsQueryParameter> = true;
export const LIST_ALL_QUERY_MATCHES_SPEC: Same<keyof ListQuery, ListAllDocumentsQueryParameter> = true;

/**
 * The vendor API's handlers: one for every vendor operation of the spec (the compiler holds the
 * table to `VENDOR_OPERATION_IDS`). Made once per spec: where the live service serves its Swagger
 * document, the fake serves the spec it loaded.
 */
export function createVendorHandlers(document: OpenApiDocument): OperationTable<VendorOperationId, Instance> {
  return { ...handlers, getSwaggerDocument: () => ({ status: 200, body: document }) };
}

const handlers: Omit<OperationTable<VendorOperationId, Instance>, 'getSwaggerDocument'> = {
  createClientToken: (context) => {
    const body = context.request.body as { scope: string; content: string };
    const result = context.instance.fake.issueToken(
      {
        keyId: header(context, 'x-key'),
        hash: header(context, 'x-hash'),
        scope: body.scope,
        content: body.content,
      },
      (found) => context.notice(found),
    );
    return { status: 200, body: result };
  },

  listDocuments,
  listAllDocuments: listDocuments,

  listClients: (context) => {
    const q = context.request.query;
    const page = context.instance.fake.listClients(principalOf(context), {
      resultsPerPage: q.resultsPerPage as number | undefined,
      pageNum: q.pageNum as number | undefined,
    });
    return pageResult(context, page, { success: true, apiRequestUid: context.requestId, results: page.rows });
  },

  getDocument: (context) => {
    const documentId = String(context.request.params.documentId);
    const read = context.instance.fake.getDocument(principalOf(context), documentId);
    // The details come frozen (a write replaces them, never edits them): the sender keeps their text.
    return {
      status: 200,
      body: {
        success: true,
        templateUid: read.templateUid,
        id: read.id,
        details: read.details,
        apiRequestUid: context.requestId,
      },
    };
  },

  patchDocument: (context) => {
    const documentId = String(context.request.params.documentId);
    const { notices, clearedFields } = context.instance.fake.patchDocument(
      principalOf(context),
      documentId,
      context.request.body as Record<string, unknown>,
    );
    for (const notice of notices) context.notice(notice);
    const marks = clearedFields.length > 0 ? (['patchClearsOmittedFields'] as const) : undefined;
    return { status: 200, body: { success: patchSuccess(context) }, marks };
  },

  replaceDocuments: batch('replace'),
  patchDocuments: batch('merge'),
  createDocuments: batch('create'),
};
