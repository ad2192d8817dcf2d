import { expect } from 'chai';
import type { Repositories } from '../../adapters/persistence/repositories.js';
import type { Change, ChangeFeed } from '../../core/shared/change-feed.js';
import { aCustomDomain } from './custom-domain-repository.contract.js';
import { aFile, aRefreshToken, aSession, anApiKey, at, givenUser } from './persistence-fixtures.js';

/** A feed, and repositories whose writes stand for another process's (same store, another connection). */
export interface ChangeFeedSubject {
  feed: ChangeFeed;
  /** Writes made as another process sharing the store would make them. */
  writer: Repositories;
  close(): Promise<void>;
}

/** How long a change may take to reach the listeners: the service's guarantee (docs/scale-out.md). */
const DEADLINE_MS = 1_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The ChangeFeed contract (core/shared/change-feed.ts): a change committed by another writer
 * reaches the listeners within 1 s, itemised or as `everything`; nothing is delivered while nothing
 * changes; an unsubscribed listener hears nothing more.
 */
export function describeChangeFeedContract(name: string, open: () => Promise<ChangeFeedSubject>): void {
  describe(`ChangeFeed contract: ${name}`, function () {
    this.timeout(10_000);
    let subject: ChangeFeedSubject;
    let received: Change[];
    let unsubscribe: () => void;

    beforeEach(async () => {
      subject = await open();
      received = [];
      unsubscribe = subject.feed.subscribe((change) => received.push(change));
    });
    afterEach(async () => {
      unsubscribe();
      await subject.close();
    });

    /** Lets the feed catch up with what happened so far, then forgets what it delivered. */
    async function settle(): Promise<void> {
      for (let i = 0; i < 5; i++) {
        await subject.feed.catchUp();
        await sleep(20);
      }
      received.length = 0;
    }

    /** Waits up to the deadline for a delivered change that `covers` (or `everything`); returns the time taken in ms. */
    async function delivered(covers: (change: Change) => boolean, what: string): Promise<number> {
      const start = Date.now();
      while (Date.now() - start <= DEADLINE_MS) {
        await subject.feed.catchUp();
        if (received.some((change) => change.kind === 'everything' || covers(change))) return Date.now() - start;
        await sleep(5);
      }
      throw new Error(`${what} was not delivered within ${DEADLINE_MS} ms; delivered: ${JSON.stringify(received)}`);
    }

    it('delivers nothing while nobody writes', async () => {
      await settle();
      for (let i = 0; i < 10; i++) {
        await subject.feed.catchUp();
        await sleep(20);
      }
      expect(received).to.deep.equal([]);
    });

    it('delivers an account changed by another process (plan, subscription) within 1 s', async () => {
      const user = await givenUser(subject.writer.users);
      await settle();
      await subject.writer.users.setPlan({ userId: user.id, planName: 'pro', trialEndsAt: null, at: at(1) });
      await delivered((change) => change.kind === 'account' && change.accountId === user.id, 'the plan change');
    });

    it('delivers a revoked API key, by the hash of its secret, within 1 s', async () => {
      const user = await givenUser(subject.writer.users);
      const key = anApiKey(user.id);
      await subject.writer.apiKeys.create(key);
      await settle();
      await subject.writer.apiKeys.delete({ userId: user.id, id: key.id });
      await delivered((change) => change.kind === 'api_key' && change.keyHash === key.keyHash, 'the revoked key');
    });

    it('delivers an ended session within 1 s', async () => {
      const user = await givenUser(subject.writer.users);
      const session = aSession(user.id);
      await subject.writer.sessions.create({ session, refreshToken: aRefreshToken(session.id) });
      await settle();
      await subject.writer.sessions.revoke({ sessionId: session.id, at: at(1) });
      await delivered((change) => change.kind === 'session' && change.sessionId === session.id, 'the ended session');
    });

    it('delivers a custom hostname set, replaced and removed, old and new names, within 1 s each', async () => {
      const user = await givenUser(subject.writer.users);
      await settle();
      const isHost = (hostname: string) => (change: Change) => change.kind === 'hostname' && change.hostname === hostname && change.accountId === user.id;
      expect(await subject.writer.domains.save(aCustomDomain(user.id, { hostname: 'old.example.com' }))).to.equal('saved');
      await delivered(isHost('old.example.com'), 'the new hostname');
      received.length = 0;
      await subject.writer.domains.save(aCustomDomain(user.id, { hostname: 'new.example.com' }));
      await delivered(isHost('old.example.com'), 'the replaced hostname');
      await delivered(isHost('new.example.com'), 'the replacing hostname');
      received.length = 0;
      await subject.writer.domains.delete(user.id);
      await delivered(isHost('new.example.com'), 'the removed hostname');
    });

    it('delivers every file deleted, also 200 in one statement, within 1 s', async () => {
      const user = await givenUser(subject.writer.users);
      const files = Array.from({ length: 200 }, () => aFile(user.id));
      for (const file of files) await subject.writer.files.insert(file, { storageLimitBytes: 2 ** 40, fileCountLimit: 10_000 });
      await settle();
      await subject.writer.files.deleteMany({ userId: user.id, fileIds: files.map((file) => file.fileId) });
      for (const file of [files[0], files[100], files[199]]) {
        await delivered((change) => change.kind === 'file' && change.fileId === file.fileId, `file ${file.fileId}`);
      }
      const everything = received.some((change) => change.kind === 'everything');
      if (!everything) expect(new Set(received.flatMap((change) => (change.kind === 'file' ? [change.fileId] : []))).size).to.equal(200);
    });

    it('delivers a plan set by an administrator within 1 s', async () => {
      await settle();
      await subject.writer.planOverrides.save({
        plan: { name: 'team', trialDays: null, storageLimitBytes: 10, fileCountLimit: 1, maxUploadSizeBytes: 10, imageOpsLimit: null },
        at: at(0),
      });
      await delivered((change) => change.kind === 'plans', 'the plan');
    });

    it('stops calling a listener once it unsubscribed', async () => {
      const user = await givenUser(subject.writer.users);
      const other: Change[] = [];
      const stop = subject.feed.subscribe((change) => other.push(change));
      await settle();
      stop();
      other.length = 0;
      await subject.writer.users.setPlan({ userId: user.id, planName: 'pro', trialEndsAt: null, at: at(1) });
      await delivered((change) => change.kind === 'account' && change.accountId === user.id, 'the plan change');
      expect(other).to.deep.equal([]);
    });
  });
}
