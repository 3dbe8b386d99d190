import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../config.js';
import { type MemoryBudget, TenantQuota } from '../memory-budget.js';
import { quotaMemory, type ServerMemory } from './instance.js';
import { RunReports } from './run-reports.js';

/**
 * The tenants of one server (`--tenants FILE`): teams that share one fake, each with a bearer
 * token of its own for `/__admin`. A tenant creates sessions, which it then owns, and
 * administers those alone (the spec's `x-tenant` on each admin operation says what it may call
 * where; `http/tenant-boundary.ts` holds it to that). Each has its own run labels (its own
 * `RunReports`) and its own quotas: `maxSessions` live at once, `memoryBytes` of the memory
 * budget for all its sessions together (`TenantQuota`).
 *
 * The file is JSON: `{"tenants": [{"name", "tokenSha256" | "token", "maxSessions"?,
 * "memoryBytes"?}]}`. Only the SHA-256 of each token is kept; a token is matched by comparing its
 * SHA-256 with every tenant's in constant time, and is never written anywhere.
 */

export interface Tenant {
  /** 1-64 characters of letters, digits and `._-`, starting with a letter or digit. */
  readonly name: string;
  /** Most sessions it may hold at once (undefined: the server's `maxSessions` only). */
  readonly maxSessions: number | undefined;
  /** Most bytes of the memory budget its sessions may hold together (undefined: the server's budget only). */
  readonly memoryBytes: number | undefined;
}

/** A tenant with what the server keeps for it. */
export interface TenantSpace {
  readonly tenant: Tenant;
  /** Its share of the memory budget, which its sessions count in. */
  readonly quota: TenantQuota;
  /** The memory its sessions' instances are made with (its quota, within the server's). */
  readonly memory: ServerMemory;
  /** Its runs: its sessions' run labels are its own. */
  readonly runs: RunReports;
}

const TENANT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const SHA256_HEX = /^[0-9a-fA-F]{64}$/;
const KEYS = new Set(['name', 'token', 'tokenSha256', 'maxSessions', 'memoryBytes']);
const MAX_TENANTS = 10_000;

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A whole number within bounds, or a `ConfigError` naming where. */
function wholeNumber(value: unknown, min: number, max: number, where: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${where}: must be a whole number from ${min} to ${max}`);
  }
  return value;
}

/**
 * The tenants of a tenants file's text; `source` names the file in messages. Every mistake is a
 * `ConfigError` naming the file and the key (`tenants/2/tokenSha256`), never quoting a token.
 */
export function parseTenants(text: string, source: string): { tenants: Tenant[]; digests: Buffer[] } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${source}: not valid JSON (${(error as Error).message})`);
  }
  if (!isObj(raw)) throw new ConfigError(`${source}: must be a JSON object {"tenants": [...]}`);
  for (const key of Object.keys(raw)) {
    if (key !== 'tenants' && key !== '$schema')
      throw new ConfigError(`${source}: ${key}: unknown key (the file holds "tenants")`);
  }
  const list = raw.tenants;
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_TENANTS) {
    throw new ConfigError(`${source}: tenants: must be a list of 1 to ${MAX_TENANTS} tenants`);
  }
  const tenants: Tenant[] = [];
  const digests: Buffer[] = [];
  const names = new Map<string, number>();
  const tokens = new Map<string, number>();
  list.forEach((entry, index) => {
    const at = `${source}: tenants/${index}`;
    if (!isObj(entry)) throw new ConfigError(`${at}: must be an object {"name", "tokenSha256", ...}`);
    for (const key of Object.keys(entry)) {
      if (!KEYS.has(key))
        throw new ConfigError(
          `${at}/${key}: unknown key (a tenant has name, tokenSha256 or token, maxSessions, memoryBytes)`,
        );
    }
    const { name, token, tokenSha256 } = entry;
    if (typeof name !== 'string' || !TENANT_NAME.test(name)) {
      throw new ConfigError(
        `${at}/name: must be 1-64 characters of letters, digits and ._- starting with a letter or digit`,
      );
    }
    const same = names.get(name.toLowerCase());
    if (same !== undefined)
      throw new ConfigError(`${at}/name: "${name}" is also the name of tenants/${same}`);
    names.set(name.toLowerCase(), index);
    if ((token === undefined) === (tokenSha256 === undefined)) {
      throw new ConfigError(
        `${at}: give tokenSha256 (the hex SHA-256 of the tenant's token) or token, not both`,
      );
    }
    let digest: Buffer;
    if (tokenSha256 !== undefined) {
      if (typeof tokenSha256 !== 'string' || !SHA256_HEX.test(tokenSha256)) {
        throw new ConfigError(
          `${at}/tokenSha256: must be 64 hex digits, the SHA-256 of the token (printf %s "$TOKEN" | sha256sum)`,
        );
      }
      digest = Buffer.from(tokenSha256, 'hex');
    } else {
      if (typeof token !== 'string' || token.trim() === '' || token !== token.trim()) {
        throw new ConfigError(
          `${at}/token: must be a non-empty string without surrounding spaces (not shown: a secret)`,
        );
      }
      digest = sha256(token);
    }
    const hex = digest.toString('hex');
    const shared = tokens.get(hex);
    if (shared !== undefined) {
      throw new ConfigError(
        `${at}: has the same token as tenants/${shared}; each tenant needs a token of its own`,
      );
    }
    tokens.set(hex, index);
    tenants.push({
      name,
      maxSessions:
        entry.maxSessions === undefined
          ? undefined
          : wholeNumber(entry.maxSessions, 1, 100_000, `${at}/maxSessions`),
      memoryBytes:
        entry.memoryBytes === undefined
          ? undefined
          : wholeNumber(entry.memoryBytes, 1024, 1_099_511_627_776, `${at}/memoryBytes`),
    });
    digests.push(digest);
  });
  return { tenants, digests };
}

export interface TenantRegistryInput {
  /** The tenants file (`--tenants`). */
  file: string;
  /** The operator's token: no tenant may have it. */
  adminToken: string | undefined;
  budget: MemoryBudget;
  memory: ServerMemory;
  /** The vendor operations of the spec, which run reports list exercised or not. */
  operationIds: readonly string[];
  /** Most findings each list of a run's record keeps. */
  findingsLimit: number;
}

export class TenantRegistry {
  readonly #spaces: TenantSpace[];
  readonly #digests: Buffer[];
  readonly #byName = new Map<string, TenantSpace>();

  /**
   * Reads the tenants file; throws `ConfigError` naming the file and the key for a file that
   * cannot be read or is wrong, and when the operator's token is missing (without it the admin
   * API is open to all, tenants or not) or is also a tenant's.
   */
  constructor({ file, adminToken, budget, memory, operationIds, findingsLimit }: TenantRegistryInput) {
    const source = `tenants file ${file}`;
    if (adminToken === undefined) {
      throw new ConfigError(
        `${source}: tenants need the operator's token too: set adminToken (--admin-token, ADMIN_TOKEN), or the admin API stays open to everyone`,
      );
    }
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new ConfigError(
        `${source}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    const { tenants, digests } = parseTenants(text, source);
    const operator = sha256(adminToken);
    const clash = digests.findIndex((d) => timingSafeEqual(d, operator));
    if (clash >= 0) {
      throw new ConfigError(
        `${source}: tenants/${clash}: has the admin token; a tenant needs a token of its own`,
      );
    }
    this.#digests = digests;
    this.#spaces = tenants.map((tenant) => {
      const quota = new TenantQuota(budget, tenant.name, tenant.memoryBytes);
      const own = quotaMemory(memory, quota);
      return {
        tenant,
        quota,
        memory: own,
        runs: new RunReports({ operationIds, findingsLimit, budget: quota }),
      };
    });
    for (const space of this.#spaces) this.#byName.set(space.tenant.name, space);
  }

  /**
   * The tenant whose token this is, or undefined. Its SHA-256 is compared with every tenant's
   * (constant time each, no early end), so the time taken says nothing of which matched or how
   * closely.
   */
  identify(token: string): TenantSpace | undefined {
    const given = sha256(token);
    let found: TenantSpace | undefined;
    this.#digests.forEach((digest, index) => {
      if (timingSafeEqual(digest, given)) found = this.#spaces[index];
    });
    return found;
  }

  get(name: string): TenantSpace | undefined {
    return this.#byName.get(name);
  }

  list(): readonly TenantSpace[] {
    return this.#spaces;
  }
}
