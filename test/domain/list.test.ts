import { describe, expect, it } from 'vitest';
import { Catalog } from '../../src/domain/catalog.js';
import type { ListQuery } from '../../src/domain/fake.js';
import { EXACT_FILTERS, exactFiltersOf, parseTemplateUid, SearchIndex } from '../../src/domain/list-query.js';
import type { Document } from '../../src/domain/types.js';
import { ApiError } from '../../src/errors.js';
import { details, makeDataset, makeFake, ORG1, ORG2, ORG3 } from '../fixtures/domain/dataset.js';

const ids = (q: ListQuery, fake = makeFake().fake, p = ORG1) =>
  fake.listDocuments(p, q).rows.map((r) => r.id);

describe('parseTemplateUid', () => {
  it.each([
    ['tpl-7', 7],
    ['TPL-7', 7],
    ['Tpl-79', 79],
    ['7', 7],
    [7, 7],
    ['tpl-0', undefined],
    [0, undefined],
    [-3, undefined],
    [7.5, undefined],
    ['tpl-', undefined],
    ['tpl7', undefined],
    [' 7', undefined],
    ['99999999999999999', undefined],
    [null, undefined],
  ])('%j → %j', (input, expected) => {
    expect(parseTemplateUid(input)).toBe(expected);
  });
});

describe('listDocuments: filters', () => {
  it.each<[string, ListQuery, number[]]>([
    ['no filter (label order)', {}, [102, 103, 104, 101, 105]],
    ['type', { type: 'asset' }, [102, 103]],
    ['type, any case', { type: 'ASSET' }, [102, 103]],
    ['type without matches', { type: 'ssl' }, []],
    ['templateUid tpl-7', { templateUid: 'tpl-7' }, [101, 105]],
    ['templateUid TPL-7', { templateUid: 'TPL-7' }, [101, 105]],
    ['templateUid 7', { templateUid: '7' }, [101, 105]],
    ['templateUid unknown', { templateUid: 'tpl-999' }, []],
    ['clientId', { clientId: 10 }, [103, 101]],
    ['clientId of another organization', { clientId: 20 }, []],
    ['search in label, any case', { searchTxt: 'DUNDEE' }, [101]],
    ['search in description', { searchTxt: 'main serv' }, [102]],
    ['search in customId', { searchTxt: 'a-1' }, [102]],
    ['search in templateName', { searchTxt: 'generic' }, [102, 103]],
    ['search in a detail value text', { searchTxt: 'sn-42' }, [103]],
    ['search in a plain string entry', { searchTxt: 'scotland' }, [101]],
    ['search in tags', { searchTxt: 'GREEN' }, [104]],
    ['search ignores entry names', { searchTxt: 'address 1' }, []],
    ['search never shows other organizations', { searchTxt: 'secret place' }, []],
    ['empty search matches all', { searchTxt: '' }, [102, 103, 104, 101, 105]],
    ['type + clientId', { type: 'asset', clientId: 10 }, [103]],
    ['templateUid + search', { templateUid: '7', searchTxt: 'zulu' }, [105]],
    ['type + templateUid disagreeing', { type: 'asset', templateUid: 'tpl-7' }, []],
    [
      'all filters',
      { type: 'location', templateUid: 'tpl-7', clientId: 10, searchTxt: 'high street' },
      [101],
    ],
  ])('%s', (_name, q, expected) => {
    expect(ids(q)).toEqual(expected);
  });
});

describe('listDocuments: ordering', () => {
  it.each<[ListQuery, number[]]>([
    [{ orderBy: 'label', orderDir: 'asc' }, [102, 103, 104, 101, 105]],
    [{ orderBy: 'label', orderDir: 'desc' }, [105, 101, 104, 103, 102]],
    [{ orderBy: 'LABEL', orderDir: 'DESC' }, [105, 101, 104, 103, 102]],
    [{ orderDir: 'Desc' }, [105, 101, 104, 103, 102]],
    [{ orderBy: 'id' }, [101, 102, 103, 104, 105]],
    [{ orderBy: 'Id', orderDir: 'desc' }, [105, 104, 103, 102, 101]],
  ])('%j', (q, expected) => {
    expect(ids(q)).toEqual(expected);
  });

  it('compares lower-cased labels by code unit, not by locale', () => {
    const dataset = makeDataset();
    const extra = (id: number, label: string): Document => ({
      id,
      organization_id: 2,
      client_id: 20,
      templateId: 7,
      label,
      description: '',
      customId: '',
      details: details({}),
      last_modified: '2025-06-01T00:00:00.000Z',
    });
    dataset.documents.push(
      extra(301, 'éclair'),
      extra(302, 'Foxtrot'),
      extra(303, 'Zebra'),
      extra(304, '_under'),
    );
    const { fake } = makeFake({}, dataset);
    // '_' (U+005F) sorts before the letters and 'é' (U+00E9) after 'z'; localeCompare would put
    // 'éclair' before 'foreign'.
    expect(ids({}, fake, ORG2)).toEqual([304, 201, 302, 303, 301]);
  });
});

describe('listDocuments: paging', () => {
  it.each<[ListQuery, number[]]>([
    [{ resultsPerPage: 2 }, [102, 103]],
    [{ resultsPerPage: 2, pageNum: 1 }, [102, 103]],
    [{ resultsPerPage: 2, pageNum: 2 }, [104, 101]],
    [{ resultsPerPage: 2, pageNum: 3 }, [105]],
    [{ resultsPerPage: 2, pageNum: 4 }, []],
    [{ resultsPerPage: 2, pageNum: 9999 }, []],
    [{ resultsPerPage: 2, pageNum: 2, orderDir: 'desc' }, [104, 103]],
    [{ resultsPerPage: 1, pageNum: 2, type: 'location' }, [105]],
    [{ resultsPerPage: 1, pageNum: 3, type: 'location' }, []],
  ])('%j', (q, expected) => {
    expect(ids(q)).toEqual(expected);
  });

  it('uses defaultPageNum when pageNum is absent', () => {
    const { fake } = makeFake({ defaultPageNum: 2 });
    expect(ids({ resultsPerPage: 2 }, fake)).toEqual([104, 101]);
  });

  it('defaults to 100 per page and caps silently at maxResultsPerPage', () => {
    const dataset = makeDataset();
    for (let i = 0; i < 150; i++) {
      dataset.documents.push({
        id: 1000 + i,
        organization_id: 1,
        client_id: 5,
        templateId: 79,
        label: `bulk ${String(i).padStart(3, '0')}`,
        description: '',
        customId: '',
        details: details({}),
        last_modified: '2025-06-01T00:00:00.000Z',
      });
    }
    const { fake } = makeFake({ maxResultsPerPage: 120 }, dataset);
    expect(fake.listDocuments(ORG1, {}).rows).toHaveLength(100);
    expect(fake.listDocuments(ORG1, { resultsPerPage: 1000 }).rows).toHaveLength(120);
    expect(fake.listDocuments(ORG1, { resultsPerPage: 1000, pageNum: 2 }).rows).toHaveLength(155 - 120);
  });
});

describe('listDocuments: visibility and rows', () => {
  it('shows only the principal organization', () => {
    expect(ids({}, undefined, ORG2)).toEqual([201]);
    expect(ids({}, undefined, ORG3)).toEqual([]);
  });

  it('returns contract fields plus clientName (HTML-encoded), accessible and last_modified', () => {
    const { fake } = makeFake();
    const { rows } = fake.listDocuments(ORG1, { orderBy: 'id' });
    expect(rows[0]).toEqual({
      id: 101,
      organization_id: 1,
      label: 'Dundee Office',
      description: '',
      client_id: 10,
      customId: '',
      templateId: 7,
      templateName: 'Location',
      type: 'location',
      clientName: 'Matt&#039;s Museum',
      accessible: true,
      last_modified: '2025-06-01T00:00:00.000Z',
    });
    expect(rows[1]?.clientName).toBe('Zeta &lt;Z&gt; &amp; &quot;Co&quot;');
  });

  it('answers a type outside the documented list with no documents', () => {
    const { fake } = makeFake();
    expect(fake.listDocuments(ORG1, { type: 'folders' }).rows).toEqual([]);
    expect(fake.listDocuments(ORG1, { type: 'LOCATION' }).rows.length).toBeGreaterThan(0);
  });

  it.each<[ListQuery, string]>([
    [{ orderBy: 'name' }, 'orderBy'],
    [{ orderDir: 'up' }, 'orderDir'],
    [{ pageNum: 0 }, 'pageNum'],
    [{ pageNum: 1.5 }, 'pageNum'],
    [{ resultsPerPage: -1 }, 'resultsPerPage'],
    [{ templateUid: 'tpl-x' }, 'templateUid'],
    [{ clientId: Number.NaN }, 'clientId'],
  ])('rejects %j naming %s', (q, name) => {
    const { fake } = makeFake();
    let caught: unknown;
    try {
      fake.listDocuments(ORG1, q);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(ApiError);
    expect((caught as ApiError).kind).toBe('invalidQuery');
    expect((caught as ApiError).message).toMatch(new RegExp(`^${name} `));
  });
});

describe('listDocuments: the exact filters are one table', () => {
  /** Two values of each declared filter that keep different documents of ORG1. */
  const VALUES: Record<keyof typeof EXACT_FILTERS, [ListQuery, number[], ListQuery, number[]]> = {
    type: [{ type: 'asset' }, [102, 103], { type: 'location' }, [101, 105]],
    templateUid: [{ templateUid: 'tpl-79' }, [102, 103], { templateUid: 'tpl-22' }, [104]],
    clientId: [{ clientId: 10 }, [103, 101], { clientId: 11 }, [104]],
  };

  it('every declared filter is covered here', () => {
    expect(Object.keys(VALUES).sort()).toEqual(Object.keys(EXACT_FILTERS).sort());
  });

  it.each(Object.entries(VALUES))(
    '%s: two different values never share a cached view, asked in either order',
    (_name, [first, firstIds, second, secondIds]) => {
      const { fake } = makeFake();
      // The second query with the same filter builds the view; the third reads it.
      for (let i = 0; i < 3; i++) expect(ids(first, fake)).toEqual(firstIds);
      for (let i = 0; i < 3; i++) expect(ids(second, fake)).toEqual(secondIds);
      expect(ids(first, fake)).toEqual(firstIds);
      // The same, each value on its own page of one row (paging through the view).
      for (const [q, expected] of [
        [first, firstIds],
        [second, secondIds],
      ] as const) {
        const pages = expected.map((_, k) => ids({ ...q, resultsPerPage: 1, pageNum: k + 1 }, fake));
        expect(pages.flat()).toEqual(expected);
      }
    },
  );

  it('keys differ for every declared filter and value, and are absent without filters', () => {
    const keys = new Set<string | undefined>();
    const index = new SearchIndex(new Catalog(makeDataset()));
    for (const [first, , second] of Object.values(VALUES)) {
      keys.add(exactFiltersOf(first, index).key);
      keys.add(exactFiltersOf(second, index).key);
    }
    expect(keys.size).toBe(Object.keys(VALUES).length * 2);
    expect(exactFiltersOf({ searchTxt: 'x', orderBy: 'id' }, index).key).toBeUndefined();
  });
});

describe('listDocuments and listClients: what a page shows beyond its rows', () => {
  // Organization 1 has documents 101..105 and clients 5, 10 and 11; organization 3 has neither.
  const codes = (page: { notices: readonly { code: string }[] }) => page.notices.map((n) => n.code);

  it('marks an empty first page, a page past the end and a short last page; a full page shows nothing', () => {
    const { fake } = makeFake();
    const full = fake.listDocuments(ORG1, { pageNum: 1, resultsPerPage: 5 });
    expect(full.rows).toHaveLength(5);
    expect(full.marks).toBeUndefined();
    const short = fake.listDocuments(ORG1, { pageNum: 2, resultsPerPage: 3 });
    expect(short.rows.map((r) => r.id)).toHaveLength(2);
    expect(short.marks).toEqual(['shortLastPage']);
    const pastEnd = fake.listDocuments(ORG1, { pageNum: 3, resultsPerPage: 5 });
    expect(pastEnd.rows).toEqual([]);
    expect(pastEnd.marks).toEqual(['pagePastEnd']);
    const empty = fake.listDocuments(ORG1, { pageNum: 1, searchTxt: 'no-such-text' });
    expect(empty.rows).toEqual([]);
    expect(empty.marks).toEqual(['emptyList']);
    expect(fake.listDocuments(ORG3, { pageNum: 1 }).marks).toEqual(['emptyList']);
  });

  it('counts the page size after the cap: a page of the cap is full, not short', () => {
    const { fake } = makeFake({ maxResultsPerPage: 5 });
    const capped = fake.listDocuments(ORG1, { pageNum: 1, resultsPerPage: 50 });
    expect(capped.rows).toHaveLength(5);
    expect(capped.marks).toBeUndefined();
    expect(codes(capped)).toEqual(['pageSizeCapped']);
  });

  it('answers the notices on the query, in order: pageNum left out, page size above the cap, an undocumented type', () => {
    const { fake } = makeFake({ maxResultsPerPage: 3 });
    expect(fake.listDocuments(ORG1, { pageNum: 1 }).notices).toEqual([]);
    const page = fake.listDocuments(ORG1, { resultsPerPage: 500, type: 'folders' });
    expect(codes(page)).toEqual(['pageNumOmitted', 'pageSizeCapped', 'undocumentedType']);
    expect(page.notices.map((n) => n.location)).toEqual([
      'query.pageNum',
      'query.resultsPerPage',
      'query.type',
    ]);
    expect(page.notices[1]?.message).toMatch(/^500 is above the page-size cap \(3\)/);
    expect(page.notices[2]?.message).toMatch(/^"folders" is not a type the documentation lists/);
    expect(page.marks).toEqual(['emptyList']);
    expect(codes(fake.listDocuments(ORG1, { pageNum: 1, type: 'LOCATION' }))).toEqual([]);
  });

  it('gives the client list the same marks and paging notices', () => {
    const { fake } = makeFake({ maxResultsPerPage: 2 });
    const first = fake.listClients(ORG1, { pageNum: 1, resultsPerPage: 2 });
    expect(first.rows.map((c) => c.id)).toEqual([5, 10]);
    expect(first.marks).toBeUndefined();
    expect(first.notices).toEqual([]);
    const last = fake.listClients(ORG1, { resultsPerPage: 9 });
    expect(last.rows.map((c) => c.id)).toEqual([5, 10]);
    expect(codes(last)).toEqual(['pageNumOmitted', 'pageSizeCapped']);
    const short = fake.listClients(ORG1, { pageNum: 2, resultsPerPage: 2 });
    expect(short.rows.map((c) => c.id)).toEqual([11]);
    expect(short.marks).toEqual(['shortLastPage']);
    expect(fake.listClients(ORG1, { pageNum: 3, resultsPerPage: 2 }).marks).toEqual(['pagePastEnd']);
    expect(fake.listClients(ORG3, { pageNum: 1 }).marks).toEqual(['emptyList']);
  });
});
