import { expect } from 'chai';
import { MAX_PAGE_SIZE } from '../../core/shared/pagination.js';
import { createMemoryHangar, expectDomainError } from '../support/memory-hangar.js';

/** Every listing use case, called as an embedding host would (no HTTP edge in front). */
async function listings() {
  const world = createMemoryHangar();
  const alice = await world.registerConfirmed('alice@example.com');
  const { hangar } = world;
  const userId = alice.userId;
  return {
    world,
    alice,
    list: {
      files: (page: number, limit: number) => hangar.listFiles.execute({ userId, filter: {}, page, limit }),
      apiKeys: (page: number, limit: number) => hangar.listApiKeys.execute({ userId, page, limit }),
      logs: (page: number, limit: number) => hangar.listLogs.execute({ userId, page, limit }),
      accounts: (page: number, limit: number) => hangar.listAccounts.execute({ page, limit }),
    },
  };
}

describe('Page bounds in the listing use cases', () => {
  for (const name of ['files', 'apiKeys', 'logs', 'accounts'] as const) {
    describe(name, () => {
      it('refuses page 0 and negative pages with VALIDATION_FAILED naming page (no negative offset reaches the repository)', async () => {
        const { list } = await listings();
        for (const page of [0, -1, -1000]) {
          const error = await expectDomainError(list[name](page, 10), 'VALIDATION_FAILED');
          expect(error.message).to.match(/^page /);
        }
      });

      it(`refuses a limit of 0 or more than ${MAX_PAGE_SIZE}, and fractional numbers`, async () => {
        const { list } = await listings();
        for (const limit of [0, -5, MAX_PAGE_SIZE + 1, 1.5]) {
          const error = await expectDomainError(list[name](1, limit), 'VALIDATION_FAILED');
          expect(error.message).to.match(/^limit /);
        }
        await expectDomainError(list[name](1.5, 10), 'VALIDATION_FAILED');
      });

      it('refuses a page whose offset is past the safe integers', async () => {
        const { list } = await listings();
        await expectDomainError(list[name](Number.MAX_SAFE_INTEGER, MAX_PAGE_SIZE), 'VALIDATION_FAILED');
      });

      it(`accepts page 1 with limits 1 and ${MAX_PAGE_SIZE}`, async () => {
        const { list } = await listings();
        expect((await list[name](1, 1)).total).to.be.a('number');
        expect((await list[name](1, MAX_PAGE_SIZE)).total).to.be.a('number');
      });
    });
  }
});
