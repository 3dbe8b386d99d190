/**
 * Behaviour marks: the ids of the behaviours of the vendor's service that the pipeline cannot see
 * from a request's outcome alone (its error kind, notices, fault), because only the domain, a
 * handler or a scenario knows the response showed them: a short last page, an expired token, a
 * batch that created documents. A mark travels with what answered the request (`marks` of a domain
 * answer or of an `OperationResult`, `mark` of an `ApiError`) to the journal, where
 * `harness/verdicts/behaviours.ts` reads it; that catalogue describes every mark, and the compiler holds
 * the two to the same ids. Declared here, below every layer, so the domain may name them.
 */
export type BehaviourMark =
  | 'tokenIssued'
  | 'tokenExpired'
  | 'tokenRevoked'
  | 'refreshTokenUsed'
  | 'pagePastEnd'
  | 'shortLastPage'
  | 'emptyList'
  | 'foreignDocument'
  | 'missingDocument'
  | 'batchCreate'
  | 'batchRefusedWhole'
  | 'patchClearsOmittedFields'
  | 'documentChangedUnderYou'
  | 'emptyQueryValue';
