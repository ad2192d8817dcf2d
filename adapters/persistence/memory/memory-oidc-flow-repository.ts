import type { OidcFlow, OidcFlowRepository, SignInCode } from '../../../core/sso/oidc-flow-repository.js';
import { MemoryDatabase } from './memory-database.js';

/** {@link OidcFlowRepository} held in process memory (a {@link MemoryDatabase}). Valid while `now` is before `expiresAt`. */
export class MemoryOidcFlowRepository implements OidcFlowRepository {
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  /** @throws Error when a flow with this state digest exists */
  async createFlow(flow: OidcFlow): Promise<void> {
    if (this.db.oidcFlows.has(flow.stateHash)) throw new Error('An OIDC flow with this state already exists.');
    this.db.oidcFlows.set(flow.stateHash, { ...flow, expiresAt: new Date(flow.expiresAt.getTime()) });
  }

  async consumeFlow(options: { stateHash: string; now: Date }): Promise<OidcFlow | undefined> {
    const flow = this.db.oidcFlows.get(options.stateHash);
    if (!flow || flow.expiresAt.getTime() <= options.now.getTime()) return undefined;
    this.db.oidcFlows.delete(options.stateHash);
    return flow;
  }

  /** @throws Error when a code with this digest exists */
  async createCode(code: SignInCode): Promise<void> {
    if (this.db.signInCodes.has(code.codeHash)) throw new Error('A sign-in code with this hash already exists.');
    this.db.signInCodes.set(code.codeHash, { ...code, expiresAt: new Date(code.expiresAt.getTime()) });
  }

  async consumeCode(options: { codeHash: string; now: Date }): Promise<{ userId: string } | undefined> {
    const code = this.db.signInCodes.get(options.codeHash);
    if (!code || code.expiresAt.getTime() <= options.now.getTime()) return undefined;
    this.db.signInCodes.delete(options.codeHash);
    return { userId: code.userId };
  }

  async deleteExpired(options: { now: Date }): Promise<number> {
    let deleted = 0;
    for (const map of [this.db.oidcFlows, this.db.signInCodes] as Map<string, { expiresAt: Date }>[]) {
      for (const [key, row] of map) {
        if (row.expiresAt.getTime() <= options.now.getTime()) {
          map.delete(key);
          deleted += 1;
        }
      }
    }
    return deleted;
  }
}
