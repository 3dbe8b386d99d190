import type { ListQuery, Principal } from '../../domain/fake.js';
import { ApiError } from '../../errors.js';
import type { HandlerTable, OperationContext } from '../operation-handler.js';
import { JsonTextBuilder, jsonTextOf, RecentJsonTexts } from './json-text.js';

/** Details texts of the documents read most recently (rows are few and small; details are not). */
const detailTexts = new RecentJsonTexts(10_000);

/** Thin adapters from the six vendor operations to the domain's `Fake`. */

function principalOf(context: OperationContext): Principal {
  if (!context.principal) throw new ApiError('invalidToken', 'Invalid token: no token sent');
  return context.principal;
}

function header(context: OperationContext, name: string): string {
  const value = context.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** `success` of the PATCH calls: the contract shows the string "true". */
function patchSuccess(context: OperationContext): 'true' | true {
  return context.instance.fake.settings.successLiterals === 'contract' ? 'true' : true;
}

export const vendorHandlers: HandlerTable = {
  createClientToken: (context) => {
    const body = context.request.body as { scope: string; content: string };
    const result = context.instance.fake.issueToken({
      keyId: header(context, 'x-key'),
      hash: header(context, 'x-hash'),
      scope: body.scope,
      content: body.content,
    });
    return { status: 200, body: result };
  },

  listDocuments: (context) => {
    const q = context.request.query;
    const query: ListQuery = {
      resultsPerPage: q.resultsPerPage as number | undefined,
      pageNum: q.pageNum as number | undefined,
      orderBy: q.orderBy as string | undefined,
      orderDir: q.orderDir as string | undefined,
      type: q.type as string | undefined,
      templateUid: q.templateUid as string | undefined,
      clientId: (q.clientId ?? q.clientID) as number | undefined,
      searchTxt: q.searchTxt as string | undefined,
    };
    const results = context.instance.fake.listDocuments(principalOf(context), query);
    const body = { success: true, apiRequestUid: context.requestId, results };
    // Rows are frozen and made once per stored document (see `toSummary`), so their JSON texts are too.
    const json = new JsonTextBuilder().ascii('{"success":true,"apiRequestUid":').value(body.apiRequestUid);
    json.ascii(',"results":[');
    results.forEach((row, i) => {
      if (i > 0) json.ascii(',');
      json.append(jsonTextOf(row));
    });
    json.ascii(']}');
    return { status: 200, body, json };
  },

  getDocument: (context) => {
    const documentId = String(context.request.params.documentId);
    const read = context.instance.fake.getDocument(principalOf(context), documentId);
    const body = {
      success: true,
      templateUid: read.templateUid,
      id: read.id,
      details: read.details,
      apiRequestUid: context.requestId,
    };
    // Stored details are never edited in place (a write replaces them): their text is made once.
    const json = new JsonTextBuilder()
      .ascii('{"success":true,"templateUid":')
      .value(body.templateUid)
      .ascii(',"id":')
      .value(body.id)
      .ascii(',"details":')
      .append(detailTexts.of(body.details))
      .ascii(',"apiRequestUid":')
      .value(body.apiRequestUid)
      .ascii('}');
    return { status: 200, body, json };
  },

  patchDocument: (context) => {
    const documentId = String(context.request.params.documentId);
    context.instance.fake.patchDocument(
      principalOf(context),
      documentId,
      context.request.body as Record<string, unknown>,
    );
    return { status: 200, body: { success: patchSuccess(context) } };
  },

  replaceDocuments: (context) => {
    context.instance.fake.batchUpdate(principalOf(context), context.request.body, 'replace');
    return { status: 200, body: { success: true } };
  },

  patchDocuments: (context) => {
    context.instance.fake.batchUpdate(principalOf(context), context.request.body, 'merge');
    return { status: 200, body: { success: patchSuccess(context) } };
  },
};
