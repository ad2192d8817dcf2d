import { expect } from 'chai';
import type { EdgeProvider } from '../../core/domains/edge-provider.js';
import { DomainError, type ErrorCode } from '../../core/shared/errors.js';

/** What a {@link describeEdgeProviderContract} factory returns: a provider with no hostnames yet. */
export interface EdgeProviderSubject {
  subject: EdgeProvider;
  /** The CNAME target the provider was configured with. */
  cnameTarget: string;
  /** A well-formed provider id that was never issued. */
  unknownId: string;
  /** As if the customer created the DNS records of `hostname`, so that the next refresh can pass. */
  completeDns(hostname: string): void;
  close?: () => Promise<void>;
}

/** Awaits `promise`, expects a DomainError with `code`, and returns it. */
export async function expectDomainError(promise: Promise<unknown>, code: ErrorCode): Promise<DomainError> {
  let outcome: unknown;
  try {
    await promise;
  } catch (error) {
    outcome = error;
  }
  expect(outcome, `expected DomainError ${code}, but it resolved`).to.be.instanceOf(Error);
  expect(outcome, `expected DomainError ${code}, got ${String(outcome)}`).to.be.instanceOf(DomainError);
  expect((outcome as DomainError).code, (outcome as DomainError).message).to.equal(code);
  return outcome as DomainError;
}

/**
 * The behaviour every {@link EdgeProvider} adapter must have (core/domains/edge-provider.ts):
 * create/get/refresh/delete shapes, a duplicate answered `exists`, unknown ids. `makeSubject` is
 * called before each test.
 */
export function describeEdgeProviderContract(name: string, makeSubject: () => Promise<EdgeProviderSubject>): void {
  describe(`EdgeProvider contract: ${name}`, () => {
    let edge: EdgeProvider;
    let subject: EdgeProviderSubject;

    beforeEach(async () => {
      subject = await makeSubject();
      edge = subject.subject;
    });
    afterEach(async () => {
      await subject.close?.();
    });

    it('exposes the CNAME target customers point their hostname at', () => {
      expect(edge.cnameTarget).to.equal(subject.cnameTarget);
    });

    it('creates a pending hostname whose certificate is initializing, with an id and no errors', async () => {
      const { exists, hostname } = await edge.create({ hostname: 'files.example.com' });
      expect(exists).to.equal(false);
      expect(hostname.providerId).to.be.a('string').and.not.equal('');
      expect(hostname).to.include({ hostname: 'files.example.com', status: 'pending', sslStatus: 'initializing' });
      expect(hostname.errors).to.deep.equal([]);
    });

    it('asks for the ownership TXT record and the certificate validation TXT record', async () => {
      const { hostname } = await edge.create({ hostname: 'files.example.com' });
      const ownership = hostname.validationRecords.filter((record) => record.purpose === 'ownership');
      const ssl = hostname.validationRecords.filter((record) => record.purpose === 'ssl_validation');
      expect(ownership).to.have.length(1);
      expect(ownership[0]).to.include({ type: 'TXT', name: '_cf-custom-hostname.files.example.com' });
      expect(ownership[0].value).to.be.a('string').and.not.equal('');
      expect(ssl).to.have.length(1);
      expect(ssl[0]).to.include({ type: 'TXT', name: '_acme-challenge.files.example.com' });
      expect(ssl[0].value).to.be.a('string').and.not.equal('');
    });

    it('gives two hostnames two ids', async () => {
      const a = await edge.create({ hostname: 'a.example.com' });
      const b = await edge.create({ hostname: 'b.example.com' });
      expect(a.hostname.providerId).to.not.equal(b.hostname.providerId);
    });

    it('answers a hostname it already holds with exists and the existing record', async () => {
      const first = await edge.create({ hostname: 'files.example.com' });
      const again = await edge.create({ hostname: 'files.example.com' });
      expect(again.exists).to.equal(true);
      expect(again.hostname.providerId).to.equal(first.hostname.providerId);
      expect(again.hostname.hostname).to.equal('files.example.com');
    });

    it('reads a hostname back by its id', async () => {
      const { hostname: created } = await edge.create({ hostname: 'files.example.com' });
      const read = await edge.get({ providerId: created.providerId });
      expect(read).to.not.equal(undefined);
      expect(read!.providerId).to.equal(created.providerId);
      expect(read!.hostname).to.equal('files.example.com');
      expect(read!.status).to.equal('pending');
      expect(read!.validationRecords.map((record) => record.name)).to.include('_cf-custom-hostname.files.example.com');
    });

    it('answers undefined for an id it never issued', async () => {
      expect(await edge.get({ providerId: subject.unknownId })).to.equal(undefined);
    });

    it('makes the hostname and its certificate active on the refresh after the DNS records exist', async () => {
      const { hostname: created } = await edge.create({ hostname: 'files.example.com' });
      subject.completeDns('files.example.com');
      const refreshed = await edge.refresh({ providerId: created.providerId });
      expect(refreshed).to.include({ providerId: created.providerId, hostname: 'files.example.com', status: 'active', sslStatus: 'active' });
      expect(refreshed.validationRecords.filter((record) => record.purpose === 'ssl_validation')).to.deep.equal([]);
      expect(refreshed.errors).to.deep.equal([]);
      const read = await edge.get({ providerId: created.providerId });
      expect(read).to.include({ status: 'active', sslStatus: 'active' });
    });

    it('refuses to refresh an id it does not have with EDGE_PROVIDER_ERROR', async () => {
      await expectDomainError(edge.refresh({ providerId: subject.unknownId }), 'EDGE_PROVIDER_ERROR');
    });

    it('deletes a hostname, after which it is unknown and can be created anew', async () => {
      const { hostname: created } = await edge.create({ hostname: 'files.example.com' });
      await edge.delete({ providerId: created.providerId });
      expect(await edge.get({ providerId: created.providerId })).to.equal(undefined);
      await expectDomainError(edge.refresh({ providerId: created.providerId }), 'EDGE_PROVIDER_ERROR');
      const again = await edge.create({ hostname: 'files.example.com' });
      expect(again.exists).to.equal(false);
    });

    it('deletes an unknown id, or one already deleted, without an error', async () => {
      await edge.delete({ providerId: subject.unknownId });
      const { hostname: created } = await edge.create({ hostname: 'files.example.com' });
      await edge.delete({ providerId: created.providerId });
      await edge.delete({ providerId: created.providerId });
    });

    it('deletes only the hostname it is asked to', async () => {
      const a = await edge.create({ hostname: 'a.example.com' });
      const b = await edge.create({ hostname: 'b.example.com' });
      await edge.delete({ providerId: a.hostname.providerId });
      expect(await edge.get({ providerId: b.hostname.providerId })).to.include({ hostname: 'b.example.com' });
    });
  });
}
